#!/bin/bash
# Per-task times of `workbook grade --slurm` through a real single-node Slurm (started here, as the
# grade.slurm test starts it, and stopped at the end): N distinct whole-workbook submissions
# (default 4), graded once at one submission per task and once at two, then the timing.json of
# every task and the fixed and per-submission cost that follow from the medians.
#   bench/grade_slurm.sh [N] [BUILD_DIR]      (as root, with slurmctld, slurmd and munge installed)
set -euo pipefail
n=${1:-4}
here=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$here/build}
wb=$build/bin/workbook
[ -x "$wb" ] || { echo "no $wb: build first (cmake --build $build)" >&2; exit 2; }
work=$(mktemp -d /tmp/workbook-slurm-bench-XXXXXX)
chmod 755 "$work"
mkdir -p "$work/subs" && chmod 755 "$work/subs"
for i in $(seq 1 "$n"); do
    d=$work/subs/s$i/exercises
    for sol in "$here"/solutions/*/; do
        ex=$(basename "$sol")
        mkdir -p "$d/$ex"
        cp "$sol"* "$d/$ex/"
        for f in "$d/$ex/"*.cpp "$d/$ex/"*.cl; do [ -e "$f" ] && printf '\n// slurm student %s\n' "$i" >> "$f"; done
    done
done
chmod -R a+rX "$work/subs"
eval "$(bash "$here/tests/slurm/start_slurm.sh" start "$work/slurm")"
trap 'scancel --me 2>/dev/null || true; sleep 2; bash "$here/tests/slurm/start_slurm.sh" stop "$work/slurm"; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
for k in 1 2; do
    start=$(date +%s)
    "$wb" grade "$work/subs" --out "$work/out$k" --slurm --per-task "$k" --wait > "$work/out$k.log" 2>&1 ||
        { cat "$work/out$k.log"; echo "grading through Slurm (--per-task $k) failed" >&2; exit 1; }
    echo "--per-task $k: the whole run took $(( $(date +%s) - start )) s"
    short=$(awk -F, 'NR > 1 && $(NF - 1) != $NF {print $2}' "$work/out$k/gradebook.csv" | tr '\n' ' ')
    [ -z "$short" ] || echo "WARNING: not full marks: $short" >&2
done
python3 - "$work" <<'PY'
import json, glob, statistics, sys
work = sys.argv[1]
median = {}
for k in (1, 2):
    times = [json.load(open(f))["seconds"] for f in sorted(glob.glob(f"{work}/out{k}/slurm/task-*/timing.json"))]
    median[k] = statistics.median(times)
    print(f"tasks of {k} submission(s): " + ", ".join(f"{t:.0f} s" for t in times) + f"; median {median[k]:.0f} s")
each = median[2] - median[1]
fixed = median[1] - each
print(f"so a task costs about {fixed:.0f} s before its first submission, and {each:.0f} s per submission")
for per, nodes in ((1, 10), (1, 100), (10, 10), (10, 100)):
    tasks = 1000 // per
    task = fixed + per * each
    rounds = -(-tasks // nodes)
    print(f"1,000 submissions, --per-task {per:>2}: {tasks * task / 3600:.1f} h of task time; "
          f"on {nodes:>3} two-core nodes about {rounds * task / 60:.0f} min")
PY
