#!/bin/bash
# Issue 18, GPU call 5: KS (k split inside the group) candidates; no SASS; bench tuned and default,
# the large shapes, then the bench (tuned and default) and cuBLAS over back-to-back calls.
set -u
C=$PWD/.carry18
mkdir -p /etc/OpenCL/vendors
P=$(ldconfig -p | grep -m1 'libnvidia-opencl.so.1' | awk '{print $NF}')
echo "${P:-libnvidia-opencl.so.1}" > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/c18 && tar xJf $C/lib.tar.xz -C /tmp/c18
mkdir -p /work/wt18 && ln -sfn $PWD/scripts /work/wt18/scripts
B=$C/mmul_bench
export LD_LIBRARY_PATH=/tmp/c18/lib WORKBOOK_PLATFORM=NVIDIA
S=512,1024,1536,2048,3000,4096,6000,8192
export WORKBOOK_TUNING_FILE=/tmp/tuning.toml
timeout 220 $B --device-type gpu --tune --sizes $S --repeats 5 > $OUT/h100_tune5.txt 2>&1; echo tune rc=$?
cat /tmp/tuning.toml >> $OUT/h100_tune5.txt
grep -E "^best" $OUT/h100_tune5.txt | cut -c1-90
python3 - > $OUT/cublas_batched5.txt 2>&1 <<'PY'
import torch
torch.backends.cuda.matmul.allow_tf32 = False
for n in [512,1024,1536,2048,3000,4096,6000,8192]:
    a = torch.rand(n, n, device="cuda")*2-1; b = torch.rand(n, n, device="cuda")*2-1; c = torch.empty(n, n, device="cuda")
    for _ in range(3): torch.matmul(a, b, out=c)
    reps = max(3, min(50, int(2e11 // (2*n**3)) ))
    res = []
    for _ in range(5):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(reps): torch.matmul(a, b, out=c)
        e.record(); e.synchronize(); res.append(s.elapsed_time(e) / 1000 / reps)
    res.sort()
    print(f"N={n} back-to-back x{reps}: {2*n**3/res[2]/1e9:.1f} GFLOPS (median of 5)")
PY
cat $OUT/cublas_batched5.txt
timeout 150 $B --device-type gpu --sizes $S --repeats 9 --serial-max 0 --rows reference,clblast,cublas --cublas python3 --csv /tmp/b.csv --svg /tmp/b.svg > $OUT/h100_bench5.txt 2>&1; echo bench rc=$?
WORKBOOK_TUNING_FILE=/tmp/none.toml timeout 60 $B --device-type gpu --sizes $S --repeats 9 --serial-max 0 --rows reference --csv /tmp/d.csv --svg /tmp/d.svg > $OUT/h100_default5.txt 2>&1; echo default rc=$?
grep -A9 "^     N" $OUT/h100_default5.txt
grep -A9 "^     N" $OUT/h100_bench5.txt
