#!/bin/bash
# The container image end to end (ctest image.e2e, label image): inside opencl-workbook:<commit>,
# with a student's folder on the host mounted at /workbook, exercise 02's starter fails and its
# solution passes with the race pass (Oclgrind), `workbook grade` grades a class of two and says
# which isolation it used, a file edited on the host is seen by watch mode, and the image holds no
# .git, secret or compiler output a student does not need. Exits 77 (skipped), with the reason,
# where no container engine can run or the image is not built.
#   image_test.sh SOURCE WORKDIR
# WORKBOOK_IMAGE picks the image (default opencl-workbook:<short commit of SOURCE>);
# WORKBOOK_IMAGE_BUILD=1 builds it first with scripts/image.sh (as root; about 8 minutes on two cores).
set -euo pipefail
source_dir=$(cd "$1" && pwd) work=$2

skip() {
    echo "SKIPPED: $*"
    exit 77
}
fail() {
    printf 'FAIL: %b\n' "$*" >&2
    exit 1
}
expect_contains() {
    case "$1" in
    *"$2"*) echo "ok: $3" ;;
    *) printf 'FAIL: %s: expected to find\n  %s\nin:\n%s\n' "$3" "$2" "$1" >&2; exit 1 ;;
    esac
}

engine=${WORKBOOK_CONTAINER_ENGINE:-podman}
command -v "$engine" >/dev/null || skip "$engine is not installed (apt-get install podman), so the image cannot run here"
"$engine" info >/dev/null 2>&1 || skip "$engine cannot run containers here: $("$engine" info 2>&1 | tail -n 1)"
commit=$(git -C "$source_dir" rev-parse --short=12 HEAD 2>/dev/null) || skip "$source_dir is not a git checkout: the image is tagged by commit"
image=${WORKBOOK_IMAGE:-opencl-workbook:$commit}
if ! "$engine" image inspect "$image" >/dev/null 2>&1; then
    [ "${WORKBOOK_IMAGE_BUILD:-0}" = 1 ] ||
        skip "no image $image: build it with scripts/image.sh (as root, about 8 minutes on two cores), or set WORKBOOK_IMAGE_BUILD=1 to build it here, or WORKBOOK_IMAGE=opencl-workbook:latest to test another"
    [ "$(id -u)" -eq 0 ] || skip "building the image needs root (mmdebstrap, chroot)"
    "$source_dir/scripts/image.sh" || fail "scripts/image.sh failed"
fi
echo "image: $image, $(( $("$engine" image inspect --format '{{.Size}}' "$image") / 1024 / 1024 )) MiB"

# How containers start here (runc and this shell's limits where the defaults are refused).
. "$source_dir/scripts/container_engine.sh"
container_start "$engine" "$image" || skip "$container_error"
[ -z "$container_note" ] || echo "note: $container_note"

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
# The grader's unprivileged users must enter the submissions folder (grade refuses otherwise).
chmod 755 "$work"
student="$work/student"
mkdir "$student"

# run TIMEOUT ARGS...: the image with the student's folder mounted; output in $out, status in $status.
run() {
    local limit=$1
    shift
    set +e
    out=$(timeout "$limit" "${engine_cmd[@]}" run --rm "${run_opts[@]}" -v "$student:/workbook" "$@" 2>&1)
    status=$?
    set -e
}

# 1. An empty folder is filled with the course, on the host; the starter of 02 fails.
run 600 "$image" check 02
[ "$status" = 1 ] || fail "check 02 on the starter: exit $status, expected 1; output:\n$out"
expect_contains "$out" "your folder was empty, so the course" "an empty folder is filled with the course"
expect_contains "$out" "FAIL 02" "the starter of 02 fails"
[ -f "$student/course.toml" ] && [ -f "$student/exercises/02_vadd/vadd.cl" ] || fail "the course did not reach the host folder"
grep -Eq "status = ['\"]failing" "$student/.workbook/progress.toml" || fail "the progress file on the host does not record the failure"
[ ! -e "$student/build" ] || fail "a build folder appeared in the student's folder: the build tree must stay in the image"
echo "ok: the student's files and progress are on the host, the build tree stays in the image"
cp -p "$student/exercises/02_vadd/vadd.cl" "$student/exercises/02_vadd/vadd_host.cpp" "$work/"

# 2. The solution, copied in on the host, passes, and the race pass (Oclgrind) runs clean.
cp "$student/solutions/02_vadd/vadd.cl" "$student/solutions/02_vadd/vadd_host.cpp" "$student/exercises/02_vadd/"
run 600 "$image" check 02
[ "$status" = 0 ] || fail "check 02 on the solution: exit $status, expected 0; output:\n$out"
expect_contains "$out" "PASS 02" "the solution of 02 passes"
expect_contains "$out" "race check: clean (" "the race pass ran under Oclgrind and found nothing"

# 3. The race pass finds what PoCL hides: exercise 09's solution without the barrier that ends a
# column. The CPU's run of the graded sizes does not show it (the traffic run under Oclgrind may
# see its wrong values); the race pass names the race, at the kernel's lines.
mmul="$student/exercises/09_mmul_col_local/mmul.cl"
cp "$student/solutions/09_mmul_col_local/mmul.cl" "$mmul"
sed -i '/everyone is done with this column/d' "$mmul"
[ "$(grep -c barrier "$mmul")" -lt "$(grep -c barrier "$student/solutions/09_mmul_col_local/mmul.cl")" ] ||
    fail "the barrier was not removed from exercise 09's kernel"
run 900 "$image" check 09
[ "$status" = 1 ] || fail "check 09 without its barrier: exit $status, expected 1; output:\n$out"
expect_contains "$out" "Oclgrind: Read-write data race" "the missing barrier is found by the race pass"
expect_contains "$out" "mmul.cl:" "at a line of the kernel file"

# 4. `workbook grade` on a class of two (the solution and the starter), in the container as it comes
# (no extra privileges): the sandbox runs, or the grader says why not and --no-sandbox grades.
instructor="$work/instructor" class="$work/class"
mkdir -p "$instructor" "$class/alice/exercises/02_vadd" "$class/bob/exercises/02_vadd"
cp "$student/solutions/02_vadd/"* "$class/alice/exercises/02_vadd/"
cp "$work/vadd.cl" "$work/vadd_host.cpp" "$class/bob/exercises/02_vadd/"
chmod -R a+rX "$class"
grade() {
    set +e
    out=$(timeout 900 "${engine_cmd[@]}" run --rm "${run_opts[@]}" -v "$instructor:/workbook" -v "$work:/data" "$image" \
        grade /data/class --out "/data/$1" --only 02 --jobs 2 "${@:2}" 2>&1)
    status=$?
    set -e
}
grade grades
isolation=""
if [ "$status" = 0 ]; then
    isolation="bubblewrap sandbox"
else
    expect_contains "$out" "the sandbox cannot run: " "the grader refuses to grade without its sandbox, saying why"
    expect_contains "$out" "pass --no-sandbox" "and names the way on"
    why=$(printf '%s\n' "$out" | grep -m1 "the sandbox cannot run")
    grade grades --no-sandbox
    [ "$status" = 0 ] || fail "grade --no-sandbox in the container: exit $status; output:\n$out"
    isolation="no namespaces (--no-sandbox); the default refused: $why"
fi
grep -qx "alice,alice,2.00,2.00,2.00" "$work/grades/gradebook.csv" && grep -qx "bob,bob,0.00,0.00,2.00" "$work/grades/gradebook.csv" ||
    fail "the class of two is not graded right:\n$(cat "$work/grades/gradebook.csv")\n$out"
said=$(grep -o 'isolation: [^"\\]*' "$work/grades/results/alice.json" | head -n 1)
case "$isolation" in
"bubblewrap sandbox") expect_contains "$said" "bubblewrap namespaces" "alice's report says the sandbox was used" ;;
*) expect_contains "$said" "NO namespaces (--no-sandbox)" "alice's report says there were no namespaces" ;;
esac
echo "ok: graded in the container: alice 2/2, bob 0/2"
echo "isolation used in the container: $isolation"
echo "alice's report says: $said"
echo "and of the budgets: $(grep -o 'budget: [^"\\]*' "$work/grades/results/alice.json" | head -n 1)"
# What it takes for the sandbox: podman's masked /proc paths keep bubblewrap from mounting a proc of
# its own; unmasked (docker: --security-opt systempaths=unconfined), it runs, with no other privilege.
if [ "$isolation" != "bubblewrap sandbox" ] && [ "$engine" = podman ]; then
    run_opts+=(--security-opt unmask=ALL)
    grade grades-unmasked
    run_opts=("${run_opts[@]:0:${#run_opts[@]}-2}")
    [ "$status" = 0 ] || fail "grade with /proc unmasked: exit $status; output:\n$out"
    grep -qx "alice,alice,2.00,2.00,2.00" "$work/grades-unmasked/gradebook.csv" && grep -qx "bob,bob,0.00,0.00,2.00" "$work/grades-unmasked/gradebook.csv" ||
        fail "the class of two, /proc unmasked, is not graded right:\n$(cat "$work/grades-unmasked/gradebook.csv")"
    said=$(grep -o 'isolation: [^"\\]*' "$work/grades-unmasked/results/alice.json" | head -n 1)
    expect_contains "$said" "bubblewrap namespaces" "with --security-opt unmask=ALL the grader's sandbox runs in the container"
    echo "and of the budgets there: $(grep -o 'budget[^"\\]*' "$work/grades-unmasked/results/alice.json" | head -n 1)"
fi

# 5. Watch mode in the container sees a file edited on the host: on a terminal (-t) it checks 02
# (the starter: FAIL), then the solution copied in from the host passes.
cp "$work/vadd.cl" "$work/vadd_host.cpp" "$student/exercises/02_vadd/"
run 120 "$image" go 02
[ "$status" = 0 ] || fail "go 02: exit $status; output:\n$out"
name="workbook-watch-$$"
trap '"$engine" rm -f "$name" >/dev/null 2>&1 || true' EXIT
"${engine_cmd[@]}" run -d -t -i -e NO_COLOR=1 "${run_opts[@]}" --name "$name" -v "$student:/workbook" "$image" >/dev/null
wait_for() {
    local deadline=$((SECONDS + $2))
    while [ $SECONDS -lt $deadline ]; do
        "$engine" logs "$name" 2>&1 | grep -q "$1" && return 0
        sleep 1
    done
    fail "watch mode never showed \"$1\" within $2 s; it shows:\n$("$engine" logs "$name" 2>&1 | tail -n 30)"
}
wait_for "FAIL 02" 300
echo "ok: watch mode in the container checks 02: the starter fails"
cp "$student/solutions/02_vadd/vadd.cl" "$student/solutions/02_vadd/vadd_host.cpp" "$student/exercises/02_vadd/"
edited=$SECONDS
wait_for "PASS 02" 300
echo "ok: a file edited on the host is seen by watch mode in the container (PASS within $((SECONDS - edited)) s)"
"$engine" rm -f "$name" >/dev/null

# 6. Under a rootful engine (as here when root runs the test), a folder owned by a user gets the
# course and the progress as that user's files, not root's.
if [ "$(id -u)" = 0 ]; then
    owned="$work/owned"
    mkdir "$owned"
    chown 1000:1000 "$owned"
    set +e
    out=$(timeout 600 "${engine_cmd[@]}" run --rm "${run_opts[@]}" -v "$owned:/workbook" "$image" check 02 2>&1)
    status=$?
    set -e
    [ "$status" = 1 ] || fail "check 02 in a user's folder: exit $status, expected 1; output:\n$out"
    root_owned=$(find "$owned" -uid 0 | head -n 5)
    [ -z "$root_owned" ] || fail "files in a user's folder left owned by root:\n$root_owned"
    [ "$(stat -c %u "$owned/.workbook/progress.toml")" = 1000 ] || fail "the progress file is not the folder owner's"
    echo "ok: in a folder of uid 1000 every file the container wrote is uid 1000's ($(find "$owned" | wc -l) files)"
fi

# 7. What the image holds: no .git, no secret, no object files outside the build tree's own, the
# pristine course beside the build.
run 120 --entrypoint sh "$image" -c '
    find / -xdev \( -name .git -o -name secret.toml -o -name "ssh_host_*" -o -name .bash_history \) -print
    [ -s /etc/machine-id ] && echo "machine-id is set"
    find /opt/workbook -name "*.o" ! -path "/opt/workbook/build/*" -print
    du -sm /opt/workbook/build /opt/workbook/src | sed "s/^/size: /"'
leftovers=$(printf '%s\n' "$out" | grep -v '^size: ' || true)
[ -z "$leftovers" ] || fail "the image holds what it should not:\n$leftovers"
printf '%s\n' "$out"
echo "ok: no .git, secret, host key, shell history or machine id in the image"
echo "image.e2e: all checks passed"
