#!/bin/bash
# Issue 18, GPU call 1: tune every size class, then bench the tuned and the default choices.
set -u
C=$PWD/.carry18
mkdir -p /etc/OpenCL/vendors
P=$(ldconfig -p | grep -m1 'libnvidia-opencl.so.1' | awk '{print $NF}')
echo "${P:-libnvidia-opencl.so.1}" > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/c18 && tar xJf $C/lib.tar.xz -C /tmp/c18
mkdir -p /work/wt18 && ln -sfn $PWD/scripts /work/wt18/scripts
B=$C/mmul_bench
for l in openblas.so.0 clblast.so.1 sqlite3.so.0 gfortran.so.5 quadmath.so.0; do
  ldconfig -p | grep -q "lib$l" || echo "missing lib$l: carried"; done
export LD_LIBRARY_PATH=/tmp/c18/lib
ldd $B | grep "not found"
env | grep -i openblas
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
export WORKBOOK_PLATFORM=NVIDIA
export WORKBOOK_TUNING_FILE=$OUT/tuning.toml
S=512,1024,1536,2048,3000,4096,6000,8192
timeout 250 $B --device-type gpu --tune --sizes $S --repeats 5 > $OUT/h100_tune_sizes.txt 2>&1
echo tune rc=$?
grep -E "^best|Tuning" $OUT/h100_tune_sizes.txt
WORKBOOK_TUNING_FILE=$OUT/none.toml timeout 100 $B --device-type gpu --sizes $S --repeats 9 --serial-max 0 --rows reference --csv $OUT/default.csv --svg $OUT/default.svg > $OUT/h100_default.txt 2>&1
echo default rc=$?
timeout 200 $B --device-type gpu --sizes $S --repeats 9 --serial-max 0 --rows reference,clblast,cublas --cublas python3 --csv $OUT/bench.csv --svg $OUT/bench.svg > $OUT/h100_bench_sizes.txt 2>&1
echo bench rc=$?
grep -A12 "^     N" $OUT/h100_default.txt
grep -A12 "^     N" $OUT/h100_bench_sizes.txt
