#!/usr/bin/env bash
# Runs the README's test command several times in a row on a clean clone, as CI and a new
# contributor would, and says which tests failed in which run: a suite that is red one run in N
# shows here. Each run is the whole command (setup, then ctest -j2); the first builds everything,
# the later ones rebuild nothing, so runs 2 to N time the tests alone.
#   bench/suite_five_times.sh [RUNS] [WORK]     RUNS: default 5; WORK: default /tmp/suite-five
# The clone is of this checkout's committed HEAD (uncommitted changes are not in it). Writes
# WORK/run-K.log per run and WORK/summary.txt (one line per run: status, wall time, failures).
set -uo pipefail
runs=${1:-5}
work=${2:-/tmp/suite-five}
source_dir=$(cd "$(dirname "$0")/.." && pwd)
case "$runs" in ''|*[!0-9]*) echo "usage: $0 [RUNS] [WORK]  (RUNS a whole number)" >&2; exit 2 ;; esac

rm -rf "$work"
mkdir -p "$work"
git clone -q "$source_dir" "$work/clone" || { echo "cannot clone $source_dir" >&2; exit 1; }
# ../shared beside the clone, as CI lays it out.
[ -d "$source_dir/../shared" ] && [ ! -e "$work/shared" ] && ln -s "$(cd "$source_dir/../shared" && pwd)" "$work/shared"
commit=$(git -C "$work/clone" rev-parse --short HEAD)
summary="$work/summary.txt"
echo "commit $commit, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)" | tee "$summary"

failed_runs=0
for k in $(seq 1 "$runs"); do
    log="$work/run-$k.log"
    start=$(date +%s)
    (cd "$work/clone" && scripts/setup.sh --all && ctest --test-dir build --output-on-failure -j2) >"$log" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
    # ctest's own list of failures (lines after "The following tests FAILED:").
    failures=$(sed -n '/The following tests FAILED:/,$p' "$log" | grep -E '^\s+[0-9]+ - ' | sed -E 's/^\s+[0-9]+ - //' |
               tr '\n' ';')
    total=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -1)
    line="run $k: exit $rc, ${took} s, ${total:-no ctest summary}${failures:+, failed: $failures}"
    echo "$line" | tee -a "$summary"
    [ "$rc" -eq 0 ] || failed_runs=$((failed_runs + 1))
done
echo "$((runs - failed_runs)) of $runs runs passed" | tee -a "$summary"
[ "$failed_runs" -eq 0 ]
