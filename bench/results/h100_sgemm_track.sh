#!/bin/bash
# SGEMM track on the H100: the ladder bench with the track's rows, then each rung's graded test
# (correctness and speed) twice, and twice with the previous rung's solution in the student's
# place. Run from the repository root of the device's copy; everything lands in $OUT/all.txt.
# SPEED_SIZES="1792 2048" times each rung's check once at each of those N (WORKBOOK_SPEED_N)
# instead of ITERS times at the N its random seed draws; RUNGS picks the rungs.
set -uo pipefail
root=$PWD
source "$(dirname "$0")/h100_opencl.sh"
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$root/.devcarry2/lib
bin=$root/.devcarry2/bin
out=$OUT/all.txt
cd $OUT
{
ldd $bin/* | grep "not found"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv
# cuBLAS through PyTorch where it is installed (the lent machine has it): TF32 off, a loop of calls.
cublas=()
# mmul_bench finds scripts/cublas_sgemm.py under the source folder it was built in.
src=$(strings $bin/mmul_bench | grep -m1 -o "/[^ ]*/scripts/cublas_sgemm.py" | sed "s#/scripts/cublas_sgemm.py##")
[ -n "$src" ] && [ ! -e "$src" ] && mkdir -p "$(dirname "$src")" && ln -s "$root" "$src"
python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null && cublas=(cublas --cublas python3)
timeout 400 $bin/mmul_bench --rows ladder reference clblast "${cublas[@]}" ${BENCH_RUNGS:+--rungs $BENCH_RUNGS} --sizes ${SIZES:-1024 2048 4096} --repeats ${REPEATS:-5} --csv $OUT/bench.csv
echo "bench exit $?"
for ex in ${RUNGS:-15_sgemm_wpt 16_sgemm_float4 17_sgemm_2d_block 18_sgemm_transpose 19_sgemm_prefetch}; do
  if [ -n "${SPEED_SIZES:-}" ]; then
    for n in $SPEED_SIZES; do
      echo "=== $ex solution N=$n"; WORKBOOK_SPEED_N=$n $bin/test-$ex-solution; echo "exit $?"
      echo "=== $ex previous N=$n"; WORKBOOK_SPEED_N=$n WORKBOOK_SPEED_STUDENT=previous $bin/test-$ex-solution -tc='*speed*'; echo "exit $?"
    done
    continue
  fi
  for i in $(seq ${ITERS:-2}); do
    echo "=== $ex solution $i"; $bin/test-$ex-solution; echo "exit $?"
    echo "=== $ex previous $i"; WORKBOOK_SPEED_STUDENT=previous $bin/test-$ex-solution -tc='*speed*'; echo "exit $?"
  done
done
} > $out 2>&1
grep -E "^=== |^exit|^  (yours|this rung|the previous)|waived|too slow" $out
grep -E "^1[05-9] |^N =|^ +[0-9]+ +[0-9]" $out
