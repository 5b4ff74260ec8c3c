#!/bin/bash
# On the lent GPU machine, from the repository root (the run tool): rung 18's solution, its
# interleaved form (each float4 stored to local memory as soon as it is loaded), rung 19's
# solution and two forms of rung 19 that store the next tile's float4s into the free local set
# as soon as they are loaded (before or after the multiply-adds), beside rung 17. GFLOPS are
# probe.c's (median of 20 event-timed launches, 200 elements checked against double).
# Usage: OUT=dir bash bench/results/2026-11-29-h200-first-use/run.sh
set -u
D=$(dirname "$0"); OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
mkdir -p /etc/OpenCL/vendors
lib=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')
echo "${lib:-libnvidia-opencl.so.1}" > /etc/OpenCL/vendors/nvidia.icd
gcc -O2 -o /tmp/probe $D/probe.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lOpenCL -lm 2>&1 ||
  gcc -O2 -o /tmp/probe $D/probe.c -I/usr/local/cuda/include -l:libOpenCL.so.1 -lm
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
F="-cl-fast-relaxed-math"
S=solutions
for n in ${NS:-1920 2048 4096}; do
  g17=$(( (n + 127) / 128 * 128 / 8 ))
  gx=$(( (n + 255) / 256 * 256 / 16 )) gy=$(( (n + 127) / 128 * 128 / 8 ))
  for round in 1 2; do
    /tmp/probe $S/17_sgemm_2d_block/mmul.cl "-DTSM=128 -DTSN=128 -DTSK=16 -DWPTM=8 -DRTSM=16 $F" $n $g17 $g17 16 16 8192 8192 20
    B="-DTSM=128 -DTSN=256 -DWPTM=8 -DWPTN=16 -DPAD=4 $F"
    /tmp/probe $S/18_sgemm_transpose/mmul.cl "$B -DTSK=16" $n $gx $gy 16 16 8448 16384 20
    /tmp/probe $D/i18.cl "$B -DTSK=16" $n $gx $gy 16 16 8448 16384 20
    for k in $S/19_sgemm_prefetch/mmul.cl $D/d19_before.cl $D/d19_after.cl; do
      /tmp/probe $k "$B -DTSK=8" $n $gx $gy 16 16 0 0 20
    done
  done
done
