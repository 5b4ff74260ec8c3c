#!/bin/bash
# One whole solved workbook through the Gradescope package's run_autograder, inside Gradescope's
# default limits (half a processor, 768 MB), as cgroups of this machine (cgroup v1 cpu quota and
# memory, or v2 cpu.max and memory.max), the grader's own budgets nested inside them, after the
# package's setup.sh step made the reference runs once (PREPARED=0 leaves that out). Prints the
# wall time, the score and the phase table. Run as root after scripts/setup.sh --all.
#   bench/gradescope_limits.sh [BUILD] [CPUS] [MEMORY_MIB]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
cpus=${2:-0.5} mem=${3:-768}
[ "$(id -u)" = 0 ] || { echo "bench/gradescope_limits.sh: run as root (it makes cgroups)" >&2; exit 2; }
work=$(mktemp -d /tmp/gradescope-limits.XXXXXX)
root="$work/autograder"
. "$src/bench/gradescope_lib.sh"
gradescope_submission "$src" "$root"
ln -s "$src" "$root/source"
# As Gradescope's setup.sh leaves it (outside the limits: Gradescope builds the image once): the
# reference runs made once, in $root/prepared, which run_autograder starts from. PREPARED=0: not.
if [ "${PREPARED:-1}" = 1 ]; then
    mkdir -p "$work/no-subs"
    "$build/bin/workbook" --root "$src" --build-dir "$build" grade "$work/no-subs" --out "$root/prepared" \
        --references-only -q > "$work/prepare.log" 2>&1 || { cat "$work/prepare.log"; exit 1; }
    echo "setup: reference runs made once in $root/prepared"
fi
quota=$(python3 -c "print(int(float('$cpus') * 100000))")
name="gradescope-limits-$$"
groups=()
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    g="/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)/$name"
    mkdir "$g"; echo "$quota 100000" > "$g/cpu.max"; echo $((mem << 20)) > "$g/memory.max"; echo 0 > "$g/memory.swap.max" 2>/dev/null || true
    groups=("$g")
else
    c="/sys/fs/cgroup/cpu$(sed -n 's/^[0-9]*:cpu:\(.*\)$/\1/p;s/^[0-9]*:cpu,cpuacct:\(.*\)$/\1/p' /proc/self/cgroup | head -1)/$name"
    m="/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory:\(.*\)$/\1/p' /proc/self/cgroup)/$name"
    mkdir -p "$c" "$m"
    echo 100000 > "$c/cpu.cfs_period_us"; echo "$quota" > "$c/cpu.cfs_quota_us"
    echo $((mem << 20)) > "$m/memory.limit_in_bytes"
    echo $((mem << 20)) > "$m/memory.memsw.limit_in_bytes" 2>/dev/null || true
    groups=("$c" "$m")
fi
cleanup() { for g in "${groups[@]}"; do rmdir "$g" 2>/dev/null || true; done; }
trap cleanup EXIT
echo "limits: $cpus processor(s), $mem MiB; submission: every solution; build: $build"
start=$(date +%s.%N)
status=0
(
    for g in "${groups[@]}"; do echo $BASHPID > "$g/cgroup.procs"; done
    AUTOGRADER_ROOT="$root" WORKBOOK_BUILD="$build" exec bash "$src/grading/gradescope/run_autograder"
) > "$work/run.log" 2>&1 || status=$?
end=$(date +%s.%N)
tail -25 "$work/run.log"
gradescope_summary "$root/results/results.json" "$start" "$end" "$status" "run_autograder"
echo "log: $work/run.log"
