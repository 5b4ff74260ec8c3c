#!/bin/bash
# Behaviour unchanged, shown side by side: one class graded by two builds (before and after a
# change) on one fixed secret seed; gradebook.csv and summary.json must be byte for byte the same.
#   bench/same_gradebook.sh BEFORE_BUILD AFTER_BUILD [WORK]      (as root: the grader's sandbox)
# The class: three whole workbooks (every solution; every starter as shipped; the solutions with
# exercise 10's barriers taken out) and one
# kernel-only upload. Each build grades with its own source tree's course (the CMakeCache's).
set -euo pipefail
before=${1:?usage: same_gradebook.sh BEFORE_BUILD AFTER_BUILD [WORK]}
after=${2:?usage: same_gradebook.sh BEFORE_BUILD AFTER_BUILD [WORK]}
work=${3:-$(mktemp -d /tmp/workbook-same-gradebook-XXXXXX)}
here=$(cd "$(dirname "$0")/.." && pwd)
for b in "$before" "$after"; do
    [ -x "$b/bin/workbook" ] || { echo "no $b/bin/workbook: build it first" >&2; exit 2; }
done
source_of() { sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt"; }
rm -rf "$work/class" && mkdir -p "$work/class" && chmod 755 "$work"
copy_tree() {  # copy_tree FROM(solutions|exercises) STUDENT
    local d=$work/class/$2/exercises
    for ex in "$here"/exercises/*/; do
        ex=$(basename "$ex"); mkdir -p "$d/$ex"
        cp "$here/$1/$ex/"* "$d/$ex/" 2>/dev/null || true
    done
}
copy_tree solutions solved
copy_tree exercises starter
copy_tree solutions mixed
sed -i 's/barrier(CLK_LOCAL_MEM_FENCE);//g' "$work/class/mixed/exercises/10_mmul_block/"*.cl
mkdir -p "$work/class/kernels_only/exercises/09_mmul_col_local"
cp "$here/solutions/09_mmul_col_local/"*.cl "$work/class/kernels_only/exercises/09_mmul_col_local/"
printf 'secret_seed = 4242424242\n' > "$work/config.toml"
for side in before after; do
    b=$before; [ "$side" = after ] && b=$after
    echo "grading with $side ($b, course from $(source_of "$b")) ..."
    start=$(date +%s)
    "$b/bin/workbook" --root "$(source_of "$b")" --build-dir "$b" grade "$work/class" --out "$work/$side" \
        --config "$work/config.toml" --quiet > "$work/$side.log" 2>&1 || { tail -20 "$work/$side.log"; exit 1; }
    echo "  $(( $(date +%s) - start )) s"
done
status=0
for f in gradebook.csv summary.json; do
    if cmp -s "$work/before/$f" "$work/after/$f"; then echo "$f: identical ($(wc -c < "$work/after/$f") bytes)"
    else echo "$f: DIFFERS"; diff "$work/before/$f" "$work/after/$f" | head -20; status=1; fi
done
cat "$work/after/gradebook.csv"
exit $status
