#!/bin/bash
# On the H100: each track rung's speed check at each of the GPU's graded sizes, the solution as the
# student and the previous rung's solution as the student, each run's wall time kept (the "too
# slow" verdict must come in under 30 s). Binaries stripped into $C/bin, libraries in $C/lib.
# usage: C=.devcarry3 NS="2816 3328 3584" bash bench/results/h100_speed_sizes.sh
set -uo pipefail
root=$PWD
source "$(dirname "$0")/h100_opencl.sh"
export WORKBOOK_RACE_CHECK=off LD_LIBRARY_PATH=$root/${C:-.devcarry3}/lib
bin=$root/${C:-.devcarry3}/bin
for n in ${NS:-2816 3328 3584}; do
  for ex in 15_sgemm_wpt 16_sgemm_float4 17_sgemm_2d_block 18_sgemm_transpose 19_sgemm_prefetch; do
    for who in solution previous; do
      s=$(date +%s.%N)
      if [ $who = previous ]; then export WORKBOOK_SPEED_STUDENT=previous; else unset WORKBOOK_SPEED_STUDENT; fi
      WORKBOOK_SPEED_N=$n timeout 120 $bin/test-$ex-solution -tc='*speed*' > $OUT/$n-$ex-$who.txt 2>&1
      rc=$?
      printf '%5d %-20s %-9s exit %d %6.1f s  %s\n' $n $ex $who $rc "$(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}')" \
        "$(grep -E '^  this rung|^  yours' $OUT/$n-$ex-$who.txt | awk '{for(i=1;i<=NF;i++) if($i ~ /x$/ && $i ~ /^[0-9]/){printf "%s ", $i; break}}')"
    done
  done
done | tee $OUT/summary.txt
