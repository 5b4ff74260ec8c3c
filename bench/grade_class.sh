#!/bin/bash
# Grading speed, before and after, on one class: N distinct whole-workbook submissions (default 40)
# graded twice back to back, once with every runner building its kernels itself
# (--no-shared-work) and once as `workbook grade` runs by default, then one table with each
# phase side by side (phases.json, which every grading run writes).
#   bench/grade_class.sh [N] [BUILD_DIR]      (as root: the grader's sandbox needs it)
# The class: every student starts from the solutions; each one's host files and kernels carry a
# line of their own, so no two compile alike and no kernel is the instructor's byte for byte (no
# sharing by content applies: the worst case). KERNELS_EVERY=K gives only every K-th student
# kernels of their own, the others the instructor's. Scores must be full in both runs: the bench
# says so if not. BEFORE_FROM=DIR takes the "before" run from an earlier bench's folder (kept with
# KEEP=1: DIR/before/phases.json and DIR/before.wall) instead of grading it again, and says so.
# AFTER_ONLY=1 grades only the default run (the floor per submission; the "before" column is 0).
set -euo pipefail
n=${1:-40}
every=${KERNELS_EVERY:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$here/build}
wb=$build/bin/workbook
[ -x "$wb" ] || { echo "no $wb: build first (cmake --build $build)" >&2; exit 2; }
work=$(mktemp -d /tmp/workbook-grade-bench-XXXXXX)
chmod 755 "$work"  # the sandbox unpacks each submission as an unprivileged user
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

echo "making $n submissions in $work/class"
for i in $(seq -w 1 "$n"); do
    d=$work/class/student$i/exercises
    mkdir -p "$d"
    for sol in "$here"/solutions/*/; do
        ex=$(basename "$sol")
        mkdir -p "$d/$ex"
        cp "$sol"* "$d/$ex/"
        for f in "$d/$ex/"*.cpp; do [ -e "$f" ] && printf '\n// student %s\n' "$i" >> "$f"; done
        if [ $((10#$i % every)) = 0 ]; then
            for f in "$d/$ex/"*.cl; do [ -e "$f" ] && printf '\n// student %s\n' "$i" >> "$f"; done
        fi
    done
done

run() {  # run NAME [grade flags]: grades the class into $work/NAME, prints its wall time
    local name=$1; shift
    local start end
    start=$(date +%s.%N)
    "$wb" grade "$work/class" --out "$work/$name" --quiet "$@" > "$work/$name.log" 2>&1 ||
        { cat "$work/$name.log"; echo "grading ($name) failed" >&2; exit 1; }
    end=$(date +%s.%N)
    echo "$end - $start" | bc | tee "$work/$name.wall"
}
if [ -n "${AFTER_ONLY:-}" ]; then
    echo "before: not graded (AFTER_ONLY=1)"
    mkdir -p "$work/before" && echo '{}' > "$work/before/phases.json" && echo 'student,total,max' > "$work/before/gradebook.csv"
    before=0
elif [ -n "${BEFORE_FROM:-}" ]; then
    [ -f "$BEFORE_FROM/before/phases.json" ] && [ -f "$BEFORE_FROM/before.wall" ] ||
        { echo "BEFORE_FROM=$BEFORE_FROM: no before/phases.json and before.wall there (a bench kept with KEEP=1)" >&2; exit 2; }
    echo "before: taken from $BEFORE_FROM (an earlier run, not back to back)"
    mkdir -p "$work/before"
    cp "$BEFORE_FROM/before/phases.json" "$work/before/" && cp "$BEFORE_FROM/before/gradebook.csv" "$work/before/"
    before=$(cat "$BEFORE_FROM/before.wall")
else
    echo "grading, before (--no-shared-work) ..."
    before=$(run before --no-shared-work)
fi
echo "grading, after ..."
after=$(run after)

for r in before after; do  # total (second-to-last column) short of max (the last)
    short=$(awk -F, 'NR > 1 && $(NF - 1) != $NF {print $2}' "$work/$r/gradebook.csv" | head -3 | tr '\n' ' ')
    [ -z "$short" ] || echo "WARNING ($r): not full marks: $short(see $work/$r/reports)" >&2
done

python3 - "$work" "$n" "$before" "$after" "$(nproc)" <<'EOF'
import json, sys
work, n, before, after, cores = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
b = json.load(open(f"{work}/before/phases.json"))
a = json.load(open(f"{work}/after/phases.json"))
print(f"\n{n} submissions; per phase, wall seconds summed over threads (preparing and race passes run beside")
print("testing) and processor seconds (the grader's threads and every process they waited for)")
print(f"{'phase':<36} {'wall before':>11} {'wall after':>10} {'CPU before':>10} {'CPU after':>9} {'CPU/sub. after':>14}")
cpu_b = cpu_a = 0.0
for phase in list(dict.fromkeys(list(b) + list(a))):
    wb, wa = b.get(phase, {}).get("seconds", 0.0), a.get(phase, {}).get("seconds", 0.0)
    cb, ca = b.get(phase, {}).get("cpu_seconds", 0.0), a.get(phase, {}).get("cpu_seconds", 0.0)
    cpu_b, cpu_a = cpu_b + cb, cpu_a + ca
    print(f"{phase:<36} {wb:>11.1f} {wa:>10.1f} {cb:>10.1f} {ca:>9.1f} {ca / n:>14.2f}")
print(f"{'processor time in all':<36} {'':>11} {'':>10} {cpu_b:>10.1f} {cpu_a:>9.1f} {cpu_a / n:>14.2f}")
print(f"{'wall time of the run':<36} {before:>11.1f} {after:>10.1f}")
print(f"goal: {n} submissions in {n * 15} s (15 s each)")
# The floor: the work a class needs, spread over every core with nothing idle. The "(once)" phases
# (the reference runs, the header) are paid once per run, whatever the class's size.
once = sum(v.get("cpu_seconds", 0.0) for k, v in a.items() if "(once)" in k)
per_sub = (cpu_a - once) / n
for m in dict.fromkeys((n, 40)):
    need = once + m * per_sub
    print(f"floor for {m} such submissions: {need:.0f} processor seconds = {need / cores:.0f} s of wall time "
          f"on these {cores} cores at best; 10 minutes needs at least {need / 600:.1f} cores")
EOF
