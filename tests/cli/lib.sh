# Shared by the CLI end-to-end tests: assertions that say what was expected and what came, and
# the scratch workbook (a copy of the course with exercises 01-03 built) they run in.
set -u

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_contains TEXT NEEDLE WHAT
expect_contains() {
    case "$1" in
    *"$2"*) echo "ok: $3" ;;
    *) printf 'FAIL: %s: expected to find\n  %s\nin:\n%s\n' "$3" "$2" "$1" >&2; exit 1 ;;
    esac
}

expect_not_contains() {
    case "$1" in
    *"$2"*) printf 'FAIL: %s: did not expect\n  %s\nin:\n%s\n' "$3" "$2" "$1" >&2; exit 1 ;;
    *) echo "ok: $3" ;;
    esac
}

# expect_status CODE WHAT COMMAND...: runs it, keeps its output in $out.
expect_status() {
    local want=$1 what=$2
    shift 2
    set +e
    out=$("$@" 2>&1)
    local got=$?
    set -e
    [ "$got" = "$want" ] || { printf 'FAIL: %s: exit %s, expected %s; output:\n%s\n' "$what" "$got" "$want" "$out" >&2; exit 1; }
    echo "ok: $what (exit $got)"
}

scratch=${WORKBOOK_SCRATCH:?the scratch workbook folder (set by CTest)}
wb="$scratch/build/bin/workbook"
source_dir=${WORKBOOK_SOURCE:?the course source folder (set by CTest)}

# Back to a fresh start: the starters as shipped, no progress file.
fresh_start() {
    rm -rf "$scratch/.workbook"
    for d in 01_device_info 02_vadd 03_vadd_chain; do
        cp -r "$source_dir/exercises/$d"/* "$scratch/exercises/$d/"  # diagrams/ too
    done
}

# Copies an exercise's solution files over the student's.
solve() {
    cp "$source_dir/solutions/$1"/* "$scratch/exercises/$1/"
}
