#!/usr/bin/env bash
# Checks the plain-make path (make_defs/README.md) the way a student uses it on Linux with PoCL:
#   1. copies make_defs/linux-pocl.def to make.def, unless there is one already (a make.def it
#      created is removed again at the end);
#   2. builds every exercise of course.toml with `make -C exercises/NN_name`, starter and solution,
#      through make_defs/all.mk so that the -j job slots are shared (JOBS, default 2);
#   3. runs what was built and checks it behaves: the starters' demo and graded test fail as
#      they must with TODOs left (a reported failure, not a crash), the solutions' demo passes
#      and so do the solutions' graded tests;
#   4. checks that a second make has nothing left to do (the header dependencies work).
# Prints a short summary; exits non-zero on any failure. Outputs go to build-make/ (git-ignored).
#   scripts/make_path_check.sh [--clean] [--sample]
#     --clean   remove build-make/ first
#     --sample  only the exercises that between them use every part of common.mk (what CTest's
#               make.path runs: the whole course took 377 s of the suite's 2 cores, and CMake's
#               build already compiles every exercise's sources): 01 (no kernels), 02 (edited host
#               code), 06 (host code and kernels), 08 (traffic references), 13 (events), 19
#               (speed references, __local arrays). Without it, every exercise.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

jobs=${JOBS:-2}
sample=0
for arg in "$@"; do
    case "$arg" in
    --clean) rm -rf build-make ;;
    --sample) sample=1 ;;
    *)
        echo "usage: $0 [--clean] [--sample]  (unknown option: $arg)" >&2
        exit 2
        ;;
    esac
done

created_def=0
if [ ! -e make.def ]; then
    cp -p make_defs/linux-pocl.def make.def  # -p: the old time stamp, so nothing rebuilds for it
    created_def=1
fi
logdir=$(mktemp -d)
cleanup() {
    [ "$created_def" = 1 ] && rm -f make.def
    rm -rf "$logdir"
}
trap cleanup EXIT

started=$(date +%s)
failures=0
passes=0
pass() { printf '  ok    %s\n' "$1"; passes=$((passes + 1)); }
fail() {
    printf '  FAIL  %s\n' "$1"
    failures=$((failures + 1))
    if [ -n "${2:-}" ] && [ -s "$2" ]; then sed 's/^/        | /' "$2" | tail -n 15; fi
}

platform=$(sed -n 's/^MAKE_DEF *:*= *//p' make.def | head -n 1)
echo "make path check: make.def is ${platform:-unknown}$([ "$created_def" = 1 ] && echo " (copied from make_defs/linux-pocl.def)"), make -j$jobs"

# --- 1. Build ---------------------------------------------------------------------------------
exercises=$(awk -v key=folders -f make_defs/manifest.awk course.toml)
if [ -z "$exercises" ]; then
    fail "read the exercise list from course.toml"
    exit 1
fi
if [ "$sample" = 1 ]; then
    chosen=""
    for ex in $exercises; do
        case "$ex" in 01_* | 02_* | 06_* | 08_* | 13_* | 19_*) chosen="$chosen $ex" ;; esac
    done
    exercises=$chosen
fi
count=$(echo "$exercises" | wc -w | tr -d ' ')
targets=""
for ex in $exercises; do targets="$targets all/$ex solution/$ex"; done
for ex in $exercises; do
    [ -f "exercises/$ex/Makefile" ] || fail "exercises/$ex has no Makefile"
done

build_log="$logdir/build.log"
build_start=$(date +%s)
if make -f make_defs/all.mk -j"$jobs" $targets >"$build_log" 2>&1; then
    pass "built $count exercises, starter and solution ($(($(date +%s) - build_start)) s)"
else
    fail "build (make -f make_defs/all.mk -j$jobs$targets); the end of its output:" "$build_log"
    echo "make path check: FAILED at the build ($(($(date +%s) - started)) s)"
    exit 1
fi
if grep -q 'warning:' "$build_log"; then
    printf '  note  the build printed %s compiler warnings\n' "$(grep -c 'warning:' "$build_log")"
fi

# --- 2. Run -----------------------------------------------------------------------------------
bin=build-make/bin
# expect <what> <exit status> <text the output must contain> <command...>
expect() {
    local what=$1 status=$2 text=$3
    shift 3
    local out="$logdir/run.log" rc
    timeout 120 "$@" >"$out" 2>&1
    rc=$?
    if [ "$rc" = "$status" ] && grep -q -- "$text" "$out"; then
        pass "$what"
    else
        echo "(exit status $rc; expected $status and output containing \"$text\")" >>"$out"
        fail "$what" "$out"
    fi
}

expect "02_vadd starter demo reports FAIL (TODOs left)" 1 "^FAIL c = a + b" "$bin/02_vadd" --count 1000
expect "02_vadd solution demo reports PASS" 0 "^PASS c = a + b" "$bin/02_vadd-solution" --count 1000
expect "01_device_info starter graded test reports its failure" 1 "Status: FAILURE" "$bin/test-01_device_info-starter"
# Without the SGEMM rungs' speed checks: timed beside other tests they measure the neighbours;
# the serial ctest tests (NN.solution.speed) assert them.
for ex in $exercises; do
    expect "$ex solution graded test passes" 0 "Status: SUCCESS" "$bin/test-$ex-solution" --test-case-exclude='*speed*'
done

# --- 3. A second make has nothing to do -------------------------------------------------------
stale=""
for ex in $exercises; do
    make -C "exercises/$ex" all solution 2>&1 | grep -Eq '^  (CXX|EMBED|AR|LINK) ' && stale="$stale $ex"
done
if [ -z "$stale" ]; then
    pass "a second make rebuilds nothing"
else
    fail "a second make rebuilt something in:$stale"
fi

elapsed=$(($(date +%s) - started))
if [ "$failures" -eq 0 ]; then
    echo "make path check: all $passes checks passed in $elapsed s"
else
    echo "make path check: $failures of $((passes + failures)) checks FAILED ($elapsed s)"
    exit 1
fi
