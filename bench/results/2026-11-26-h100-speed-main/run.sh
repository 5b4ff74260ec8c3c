#!/bin/bash
# On the H100: main's (1cf8d0d) speed checks of rungs 15-17, each solution and the previous rung's
# solution as the student, timed (the "too slow" verdict's wall time, issue 40).
mkdir -p /etc/OpenCL/vendors
lib=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')
echo "${lib:-libnvidia-opencl.so.1}" > /etc/OpenCL/vendors/nvidia.icd
export WORKBOOK_PLATFORM=NVIDIA WORKBOOK_RACE_CHECK=off
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt 2>&1
for ex in 15_sgemm_wpt 16_sgemm_float4 17_sgemm_2d_block; do
  for who in solution previous; do
    s=$(date +%s.%N)
    if [ $who = previous ]; then export WORKBOOK_SPEED_STUDENT=previous; else unset WORKBOOK_SPEED_STUDENT; fi
    WORKBOOK_SEED=4 timeout 200 ./test-$ex-solution -tc='*speed*' > $OUT/$ex-$who.txt 2>&1
    echo "exit $? wall $(echo "$(date +%s.%N) - $s" | bc) s" >> $OUT/$ex-$who.txt
    tail -1 $OUT/$ex-$who.txt
  done
done
