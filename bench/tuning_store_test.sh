#!/bin/sh
# bench.reference_tuning_store: the tuner keeps one choice per device and size class, and the
# bench passes over a stored choice that cannot run, saying why, and runs the default instead.
# usage: tuning_store_test.sh MMUL_BENCH SCRATCH_FILE
set -e
bench=$1
file=$2
rm -f "$file"
export WORKBOOK_TUNING_FILE="$file" WORKBOOK_REFERENCE_KERNEL=cpu
"$bench" --tune --sizes 100,800 --repeats 1 > "$file.tune.log" 2>&1 || { cat "$file.tune.log"; exit 1; }
if ! grep -q "n512" "$file" || ! grep -q "n1024" "$file"; then
    echo "expected size classes n512 and n1024 in $file:"
    cat "$file"
    exit 1
fi
sed -i 's/^VW = .*/VW = 3/' "$file"
"$bench" --sizes 100 --rows reference --repeats 1 --csv "$file.csv" --svg "$file.svg" > "$file.bench.log" 2>&1
cat "$file.bench.log"
grep -q "was ignored: VW must be 4, 8 or 16" "$file.bench.log"
grep -q "contest reference (default).*ok" "$file.bench.log"
# A choice tuned for another device (or driver) is named and not used.
sed -i "s/^\\[\\([\"']\\)[^\"']*\\1/[\\1Some Other GPU | 9.9\\1/" "$file"  # the key, quoted either way
"$bench" --sizes 100 --rows reference --repeats 1 --csv "$file.csv" --svg "$file.svg" > "$file.other.log" 2>&1
cat "$file.other.log"
grep -q "holds choices tuned for Some Other GPU | 9.9 only, not for this device and driver" "$file.other.log"
grep -q "contest reference (default).*ok" "$file.other.log"
