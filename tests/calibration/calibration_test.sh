#!/bin/bash
# `workbook calibrate` on the default device (PoCL): the manifest holds every planted bug and
# correct variant that tests/mutants and tests/variants declare; calibrating exercises 02 and 13
# catches each of their planted bugs (by the graded test or, 13's write one past the end of x, only
# by the race pass; 09's missing barrier was that bug until 09's test counted its traffic under
# Oclgrind, whose order of work-items gives the wrong values there) and accepts each variant; then a deliberately broken manifest (a correct kernel listed as a
# planted bug, a planted bug listed as correct, a race-only bug with the race pass off), whose
# misses and rejection the table must name; the refusals; and the result in a grading report.
# Every other planted bug and variant is its own test of the suite (NN.mutant-*, NN.variant-*),
# through the same checker and race pass: calibrating all of them here too took 385 s of the
# suite's half hour for nothing those tests do not show.
#   calibration_test.sh SOURCE BUILD SCRATCH
set -euo pipefail
src=$1 build=$2 work=$3
wb="$build/bin/workbook"
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. The manifest: as many planted bugs and variants as the sources declare.
planted=$(cat "$src"/tests/mutants/*.cmake | grep -cE '^workbook_mutant\(')
variants=$(find "$src/tests/variants" -mindepth 2 -maxdepth 2 -type d | wc -l)
python3 - "$build/calibration.json" "$planted" "$variants" <<'PY' || fail "the manifest does not hold what the sources declare (above)"
import json, sys
e = json.load(open(sys.argv[1]))["entries"]
planted, variants = int(sys.argv[2]), int(sys.argv[3])
got = (sum(x["kind"] == "mutant" for x in e), sum(x["kind"] == "variant" for x in e))
if got != (planted, variants):
    print(f"calibration.json: {got[0]} planted bugs and {got[1]} variants; the sources declare {planted} and {variants}")
    sys.exit(1)
PY

# 2. Two exercises calibrated. The exit status alone says "all caught, all accepted"; the figures
# must add up to the manifest's entries for them.
start=$(date +%s)
status=0
"$wb" calibrate --only 02 --only 13 --json "$work/full.json" > "$work/full.txt" 2> "$work/full.err" || status=$?
cat "$work/full.txt"
echo "(the calibration took $(( $(date +%s) - start )) s)"
[ "$status" -eq 0 ] || fail "calibration exit status $status (1: a bug missed or a variant rejected):
$(tail -n 30 "$work/full.err")"
python3 - "$work/full.json" "$build/calibration.json" <<'PY' || fail "the calibration's figures are wrong (above)"
import json, sys
r = json.load(open(sys.argv[1])); t = r["total"]
e = [x for x in json.load(open(sys.argv[2]))["entries"] if x["exercise"] in ("02_vadd", "13_events")]
planted, variants = sum(x["kind"] == "mutant" for x in e), sum(x["kind"] == "variant" for x in e)
problems = []
if t["planted"] != planted: problems.append(f"{t['planted']} planted bugs calibrated, the manifest holds {planted} for 02 and 13")
if t["variants"] != variants: problems.append(f"{t['variants']} variants calibrated, the manifest holds {variants} for 02 and 13")
if t["by_test"] + t["by_race_pass"] != planted or t["missed"] != 0: problems.append(f"missed: {r['missed']}")
if t["accepted"] != variants or t["rejected"] != 0: problems.append(f"rejected: {r['rejected']}")
if r["race_pass"] != "on" or t["by_race_pass"] == 0: problems.append("the race pass caught nothing: did it run?")
if sorted(x["exercise"] for x in r["exercises"]) != ["02_vadd", "13_events"]: problems.append(f"rows: {r['exercises']}")
if sum(x["planted"] for x in r["exercises"]) != planted: problems.append("the rows do not add up to the total")
for p in problems: print("calibration:", p)
sys.exit(1 if problems else 0)
PY
planted=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["planted"])' "$work/full.json")
grep -qE '^\| total +\| +'"$planted"' \|' "$work/full.txt" || fail "no total row with $planted planted bugs in the table"
grep -q "Every planted bug caught, every correct variant accepted." "$work/full.txt" || fail "no all-clear line"
grep -qE '^\[ *[0-9]+/[0-9]+\] [0-9]{2}_[a-z_]+ mutant-[a-z_]+: caught by the race pass: Oclgrind: ' "$work/full.err" ||
    fail "no progress line on stderr for a bug only the race pass caught"
echo "ok: the manifest holds the declared planted bugs and variants; 02 and 13: $planted caught, all variants accepted"

# 3. A broken manifest: the table must name each miss and the rejection, and exit 1.
# The race-only bug: one that the race pass alone caught on this device in step 1.
python3 - "$build/calibration.json" "$work/broken.json" "$work/full.json" > "$work/race-only.txt" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); e = m["entries"]
first = next(x for x in json.load(open(sys.argv[3]))["entries"] if x["outcome"] == "caught by the race pass")
pick = lambda ex, kind, name=None: next(x for x in e if x["exercise"] == ex and x["kind"] == kind and (name is None or x["name"] == name))
correct = dict(pick("02_vadd", "variant"), kind="mutant", name="correct_kernel_listed_as_bug")
wrong = dict(next(x for x in e if x["exercise"] == "02_vadd" and x["kind"] == "mutant" and not x["mark"]),
             kind="variant", name="planted_bug_listed_as_correct")
race_only = pick(first["exercise"], "mutant", first["name"])
m["entries"] = [correct, wrong, race_only]
json.dump(m, open(sys.argv[2], "w"), indent=1)
print(f"{race_only['exercise']} {race_only['name']}" + (f" [{race_only['mark']}]" if race_only["mark"] else ""))
PY
race_only=$(cat "$work/race-only.txt")
status=0
WORKBOOK_OCLGRIND=/nonexistent "$wb" calibrate --manifest "$work/broken.json" --no-race-check --json "$work/broken-result.json" \
    > "$work/broken.txt" 2> "$work/broken.err" || status=$?
cat "$work/broken.txt"
[ "$status" -eq 1 ] || fail "a broken manifest gave exit status $status, not 1: $(cat "$work/broken.err")"
grep -qE '^\| total +\| +2 \| +0 \| +off \| +2 \| +1 \| +0 \| +1 \|' "$work/broken.txt" || fail "the total row is not 2 planted, 0 caught, off, 2 missed, 1 variant rejected"
grep -q "02_vadd correct_kernel_listed_as_bug: the graded test passed; race pass off" "$work/broken.txt" || fail "the correct kernel's miss is not named"
grep -qF "$race_only: the graded test passed; race pass off" "$work/broken.txt" || fail "the race-only miss ($race_only) is not named"
grep -qE "02_vadd planted_bug_listed_as_correct: the graded test (failed [0-9]+ of [0-9]+ test cases|crashed)" "$work/broken.txt" ||
    fail "the rejection is not named with its reason"
echo "ok: a broken manifest's misses and rejection are named, exit 1"

# 4. Refusals, each with its fix: no Oclgrind without --no-race-check; no manifest (a build
# without the tests).
if WORKBOOK_OCLGRIND=/nonexistent "$wb" calibrate --manifest "$work/broken.json" > "$work/refused.txt" 2>&1; then
    fail "calibration ran without Oclgrind and without --no-race-check"
fi
grep -q "apt-get install oclgrind" "$work/refused.txt" && grep -q -- "--no-race-check" "$work/refused.txt" ||
    fail "the refusal without Oclgrind does not give the fix: $(cat "$work/refused.txt")"
mkdir -p "$work/empty-build"
status=0
"$wb" --build-dir "$work/empty-build" calibrate > "$work/nomanifest.txt" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "no calibration manifest at $work/empty-build/calibration.json" "$work/nomanifest.txt" &&
    grep -q "WORKBOOK_ONLY" "$work/nomanifest.txt" || fail "a missing manifest: exit $status, $(cat "$work/nomanifest.txt")"
echo "ok: refused without Oclgrind, and without a manifest, each with the fix"

# 5. The result in a grading report (summary.json, report.html, the printed text).
mkdir -p "$work/class/una/exercises" && cp -r "$src/solutions/02_vadd" "$work/class/una/exercises/"
WORKBOOK_OCLGRIND=/nonexistent "$wb" grade "$work/class" --out "$work/grades" --only 02 --no-race-check --no-sandbox \
    --calibration "$work/full.json" > "$work/grade.txt" 2>&1 || fail "grading with --calibration failed: $(cat "$work/grade.txt")"
python3 - "$work/grades/summary.json" "$planted" <<'PY' || fail "summary.json lacks the calibration"
import json, sys
s = json.load(open(sys.argv[1])); c = s["calibration"]
assert c["total"]["planted"] == int(sys.argv[2]) and "entries" not in c, c
assert "the graded tests alone catch" in s["race_pass"], s["race_pass"]
PY
grep -q "Calibration: what this grading catches" "$work/grades/report.html" || fail "report.html lacks the calibration"
grep -q "Every planted bug caught" "$work/grade.txt" || fail "the grading output lacks the calibration table"
echo "ok: the calibration is in the grading report"
