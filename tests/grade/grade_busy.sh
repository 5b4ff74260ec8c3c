#!/bin/bash
# Load never changes a grade (issue 59): a class of correct SGEMM rung 19s (a speed check that
# times kernels, a traffic run and the race pass under Oclgrind) graded twice at once on this
# machine, each grading the other's busy neighbour. Both gradebooks must give full marks, and the
# reference runs that time kernels must pass (a class is never stopped by a noisy timing).
#   grade_busy.sh SOURCE BUILD SCRATCH
set -euo pipefail
src=$1 build=$2 work=$3
wb="$build/bin/workbook"
fail() { echo "FAIL: $*" >&2; exit 1; }
grep -o " $work/[^ ]*" /proc/mounts | xargs -r umount -l 2>/dev/null || true
rm -rf "$work"
mkdir -p "$work/class"
if ! why=$(bwrap --unshare-all --die-with-parent --ro-bind / / true 2>&1); then
    echo "SKIP: this machine refuses the sandbox's namespaces ($why)"
    exit 77
fi
# One student: each grading is the other's load all the way through (references, race pass,
# traffic, speed), which is what the test is about; a second student only made each grading
# longer (the suite's third most costly test).
for who in ann; do
    for ex in 19_sgemm_prefetch; do
        mkdir -p "$work/class/$who/exercises/$ex"
        { echo "// $who's $ex"; cat "$src/solutions/$ex/mmul.cl"; } > "$work/class/$who/exercises/$ex/mmul.cl"
    done
done
start=$(date +%s)
pids=()
for g in a b; do
    "$wb" grade "$work/class" --out "$work/out-$g" --only 19 > "$work/grade-$g.log" 2>&1 &
    pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
echo "two gradings at once: $(( $(date +%s) - start )) s"
for g in a b; do
    [ "$status" = 0 ] || { tail -30 "$work/grade-$g.log"; fail "a grading beside another stopped (exit $status)"; }
    for who in ann; do
        grep -qx "$who,$who,3.00,3.00,3.00" "$work/out-$g/gradebook.csv" ||
            fail "grading $g, beside the other, did not give $who full marks: $(cat "$work/out-$g/gradebook.csv")"
    done
    # The student's kernel went through the race pass in each grading.
    passes=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['race pass (Oclgrind)']['times'])" "$work/out-$g/phases.json")
    [ "$passes" -ge 1 ] || fail "grading $g ran no race pass"
done
echo "PASS: a correct class keeps full marks with a second grading beside it"
