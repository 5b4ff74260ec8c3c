#!/bin/bash
# Exercise 20 on the H100: the tuner on the solution (as a student's kernel, then as the
# reference), the graded test with the reference untuned and tuned at each speed size, a tuned
# line naming the slowest candidate (which must fail), and the bench's rungs 19 and 20 against
# cuBLAS at N = 4096 with the reference tuned there. Run from the repository root of the device's
# copy, the binaries stripped into $CARRY/bin (default .devcarry3) and their libraries in
# $CARRY/lib; everything lands in $OUT/all.txt.
set -uo pipefail
root=$PWD
source "$(dirname "$0")/h100_opencl.sh"
carry=$root/${CARRY:-.devcarry3}
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$carry/lib
bin=$carry/bin
t=$bin/test-20_sgemm_tune-solution
export WORKBOOK_REFERENCE_TUNING=$OUT/reference_tuning.toml
cd "$OUT"
slowest() {  # the slowest correct candidate of a tuner's table
    python3 -c '
import re, sys
rows = [m.groups() for m in (re.match(r"^\[\s*\d+/\d+\s*\]\s+(TSM=\S+(?: \w+=\d+)*)\s+([0-9.]+)\s", l) for l in open(sys.argv[1])) if m]
print(min(rows, key=lambda r: float(r[1]))[0])' "$1"
}
{
ldd $bin/* | grep "not found"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
echo "=== tuner, the solution as a student's kernel (N = 2048)"
start=$SECONDS; WORKBOOK_TUNE=$OUT/student.line $t | tee $OUT/tune-student.txt; echo "exit $? after $((SECONDS - start)) s"; cat $OUT/student.line
echo "=== graded test, reference untuned, N = 2048"; WORKBOOK_SPEED_N=2048 $t; echo "exit $?"
echo "=== tuner --reference (N = 2048)"
WORKBOOK_TUNE=$OUT/reference.line WORKBOOK_TUNE_REFERENCE=1 $t; echo "exit $?"; cat $WORKBOOK_REFERENCE_TUNING
echo "=== tuner --reference at N = 2304 (a second line, used nearest 2304)"
WORKBOOK_SPEED_N=2304 WORKBOOK_TUNE=$OUT/reference_2304.line WORKBOOK_TUNE_REFERENCE=1 $t; echo "exit $?"; cat $WORKBOOK_REFERENCE_TUNING
for n in 1792 2048 2304; do
  echo "=== graded test, reference tuned, N = $n"; start=$SECONDS; WORKBOOK_SPEED_N=$n $t; echo "exit $? after $((SECONDS - start)) s"
done
line=$(cat $OUT/student.line); key=$(echo "$line" | sed 's#^// tuned: ##' | awk -F' [|] ' '{print $1 " | " $2}')
slow=$(slowest $OUT/tune-student.txt)
mkdir -p $OUT/slow && { echo "// tuned: $key | $slow | 1.0 GFLOPS at N = 2048"; cat $root/solutions/20_sgemm_tune/mmul.cl; } > $OUT/slow/mmul.cl
echo "=== a tuned line at the slowest candidate ($slow), reference tuned, N = 2048"
start=$SECONDS; WORKBOOK_KERNEL_DIR=$OUT/slow WORKBOOK_SPEED_N=2048 $t -tc='*speed*'; echo "exit $? after $((SECONDS - start)) s"
echo "=== tuner --reference at N = 4096"
WORKBOOK_SPEED_N=4096 WORKBOOK_TUNE=$OUT/reference_4096.line WORKBOOK_TUNE_REFERENCE=1 $t; echo "exit $?"
# mmul_bench finds scripts/cublas_sgemm.py under the source folder it was built in.
src=$(strings $bin/mmul_bench | grep -m1 -o "/[^ ]*/scripts/cublas_sgemm.py" | sed "s#/scripts/cublas_sgemm.py##")
[ -n "$src" ] && [ ! -e "$src" ] && mkdir -p "$(dirname "$src")" && ln -s "$root" "$src"
cublas=(); python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null && cublas=(cublas --cublas python3)
echo "=== bench, N = 2304 and 4096, the reference tuned at 2048, 2304 and 4096"
timeout 400 $bin/mmul_bench --rows ladder reference "${cublas[@]}" --rungs 19 20 --sizes 2304 4096 --repeats 10 --csv $OUT/bench.csv
echo "bench exit $?"
} > $OUT/all.txt 2>&1
grep -E "^=== |^exit|^  (yours|reference) |too slow|^Fastest|^// tuned|^(19|20) |contest reference|cuBLAS" $OUT/all.txt
