#!/bin/bash
# Issue 60's hostile class through `workbook grade`, as an instructor grades it: one submission per
# attack the issue lists (the suite's planted bugs of that issue, each the solution with one
# change), correct host and kernel code in other styles beside them, and a control with every
# solution. Each submission hands in only the exercise it attacks (the others are "missing", 0);
# the control hands in all of them. Prints the gradebook as a table: an attack must score below
# the control on its exercise, a correct variant the same.
#   bench/hostile_class.sh [BUILD [WORK]]      (after a build with the planted bugs: ctest's)
# Takes about 10 minutes on a 2-core machine (the race pass of each SGEMM rung dominates).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
work=${2:-/tmp/hostile-class}
subs=$work/submissions out=$work/out
grep -o " $work/[^ ]*" /proc/mounts | xargs -r umount -l 2>/dev/null || true
rm -rf "$work" && mkdir -p "$subs"

dir_of() { (cd "$src/exercises" && ls -d "$1"_*) ; }
# submission NAME EXERCISE [FILE_FROM ...]: EXERCISE's solution, then each FILE_FROM over it.
submission() {
    local name=$1 ex; ex=$(dir_of "$2"); shift 2
    mkdir -p "$subs/$name/exercises/$ex"
    cp "$src/solutions/$ex/"* "$subs/$name/exercises/$ex/"
    for f in "$@"; do
        [ -f "$f" ] || { echo "missing $f (build the planted bugs first: cmake --build $build)" >&2; exit 2; }
        cp "$f" "$subs/$name/exercises/$ex/"
    done
}
mutant() {  # mutant CLASS EXERCISE NAME: the planted bug's generated files
    local ex; ex=$(dir_of "$2")
    submission "c$1-$2-$3" "$2" "$build/exercises/$ex/mutants/$3"/*
}
variant() {  # variant EXERCISE NAME: a correct variant in another style (tests/variants/)
    local ex; ex=$(dir_of "$1")
    submission "ok-$1-$2" "$1" "$src/tests/variants/$ex/$2"/*
}

graded="02 03 04 06 10 11 13 14 17 18 19 20"
mkdir -p "$subs/control"
for id in $graded; do submission control "$id"; done
# 1. The witness computed without the device (the key read from the text; sums on the CPU).
mutant 1 02 host_reads_the_witness_key
mutant 1 02 host_sums_on_cpu
mutant 1 02 host_marks_from_zeros
mutant 1 04 host_sums_on_cpu
mutant 1 06 host_product_on_cpu
mutant 1 13 graph_on_cpu
# 2. Host exercises without a witness: 03 summed on the CPU through staging buffers; 06's times
#    not from the kernel's event.
mutant 2 03 sums_on_cpu_through_staging
mutant 2 06 kernel_time_share_of_wall
mutant 2 06 kernel_time_not_from_event
mutant 2 06 kernel_time_from_read_event
# 3. The simulator told from the device: pointer bits (race pass, traffic), work-item order,
#    local memory no work-item wrote, the local memory Oclgrind offers.
mutant 3 10 barrier_only_in_simulator
mutant 3 10 tiles_only_in_simulator
mutant 3 10 barrier_only_in_order
mutant 3 17 half_tile_loaded
mutant 3 19 barrier_only_when_shallow
# 4. Evidence thrown away: a race report behind a printf flood; 14's calls in a dead branch.
mutant 4 11 race_behind_printf_flood
mutant 4 14 calls_in_dead_branch
# 6. Figures that miss the lesson: vload4 re-reads, stores as loaded, a non-square mix-up.
mutant 6 17 b_reread_with_vload4
mutant 6 18 loads_interleaved
mutant 6 19 prefetch_stored_as_loaded
mutant 6 20 block_sides_swapped
# 7 (and the rungs' other styles): correct code that must keep full marks.
variant 02 program_built_once
variant 13 enqueue_calls
variant 17 scalar_strided_block
variant 18 column_loads_scalar_sums
variant 19 rotated_pipeline
variant 20 wait_before_store
# Class 5 (a binary planted in PoCL's cache by another exercise's host code) is grade.e2e's `uma`.

only=(); for id in $graded; do only+=(--only "$id"); done
printf 'secret_seed = %s\n' "${SEED:-60060}" > "$work/config.toml"
start=$SECONDS
"$build/bin/workbook" grade "$subs" --out "$out" "${only[@]}" --config "$work/config.toml" \
    > "$work/grade.log" 2>&1 || { tail -30 "$work/grade.log"; exit 1; }
echo "graded $(ls "$subs" | wc -l) submissions in $((SECONDS - start)) s (seed ${SEED:-60060}; $out)"
python3 - "$out" <<'PY'
import csv, json, re, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/gradebook.csv")))
control = next(r for r in rows if r["student"] == "control")
# The sentence of the report that says why, in order of preference; else the first line logged.
patterns = [r"the [a-z ]+ per multiply-add[^:]*: yours is [0-9.]+, above the [0-9.]+ it (?:needs|may not exceed)",
            r"Oclgrind: [^\n]{0,110}", r"the test's output under Oclgrind passed the race pass's cap[^:]*",
            r"kernel_seconds = \S+ is not the end - start of any launch of mmul[^(\n]*",
            r"ran async_work_group_copy 0 times[^:]*", r"[a-z_]+ was (?:never launched|launched \d+ time\(s\), but never)[^.\n]*",
            r"expected [-0-9.e]+, got [-0-9.e a-z]+"]
def why(name, ex):
    for t in json.load(open(f"{out}/results/{name}.json"))["tests"]:
        if not t["name"].startswith(ex + " ") or t["score"] >= t["max_score"]:
            continue
        o = t["output"]
        w = next((m.group(0) for p in patterns for m in [re.search(p, o)] if m), None)
        w = w or next((l.strip()[8:] for l in o.splitlines() if l.strip().startswith("logged: ")), "?")
        return re.sub(r" \([^)]*\)", "", w)[:150].replace("|", "/")
    return ""
print("| submission | exercise | score | control's | verdict | why (from its report) |")
print("|---|---|---:|---:|---|---|")
bad = 0
for r in rows:
    name = r["student"]
    if name == "control":
        continue
    ex = name.split("-")[1]
    score, full = float(r[ex] or 0), float(control[ex] or 0)
    want_full = name.startswith("ok-")
    good = (score == full) if want_full else (score < full)
    bad += not good
    verdict = ("ok" if good else "WRONG") + (": correct, full marks" if want_full else ": attack, below the control")
    print(f"| {name} | {ex} | {score:g} | {full:g} | {verdict} | {why(name, ex)} |")
print(f"\ncontrol: {control['total']} of {control['max']}; {bad} wrong")
sys.exit(1 if bad else 0)
PY
