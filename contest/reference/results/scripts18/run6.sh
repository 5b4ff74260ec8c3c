#!/bin/bash
# Issue 18, GPU call 6: the final bench with the untuned defaults (the size model), cuBLAS back to
# back, 96x96 tiles at 1024/1536, and a stored choice that does not fit being ignored.
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
WORKBOOK_TUNING_FILE=/tmp/none.toml timeout 200 $B --device-type gpu --sizes $S --repeats 9 --serial-max 0 --rows reference,clblast,cublas --cublas python3 --csv /tmp/b.csv --svg /tmp/b.svg > $OUT/h100_bench_final.txt 2>&1; echo bench rc=$?
python3 - > $OUT/cublas_batched6.txt 2>&1 <<'PY'
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
cat $OUT/cublas_batched6.txt
WORKBOOK_TUNING_FILE=/tmp/t.toml timeout 60 $B --device-type gpu --tune --sizes 1024,1536 --repeats 5 > $OUT/h100_tune6.txt 2>&1; echo tune rc=$?
grep -E "TSM=96 TSN=96|^best" $OUT/h100_tune6.txt | cut -c1-100
# A stored choice that cannot run: TSM = 7 for class 512.
WORKBOOK_TUNING_FILE=/tmp/bad.toml timeout 30 $B --device-type gpu --tune --sizes 512 --repeats 1 > /dev/null 2>&1
sed -i 's/^TSM = .*/TSM = 7/' /tmp/bad.toml
WORKBOOK_TUNING_FILE=/tmp/bad.toml timeout 30 $B --device-type gpu --sizes 512 --rows reference --csv /tmp/x.csv --svg /tmp/x.svg > $OUT/h100_ignored.txt 2>&1; echo ignored rc=$?
grep -E "ignored|contest reference" $OUT/h100_ignored.txt | cut -c1-250
grep -A9 "^     N" $OUT/h100_bench_final.txt
