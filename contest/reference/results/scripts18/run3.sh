#!/bin/bash
# Issue 18, GPU call 3: 96-wide tiles, 128x256x16 default at every size, PTX/SASS of
# the large shapes, cuBLAS timed over back-to-back calls, then the bench (tuned and default).
set -u
C=$PWD/.carry18
mkdir -p /etc/OpenCL/vendors
P=$(ldconfig -p | grep -m1 'libnvidia-opencl.so.1' | awk '{print $NF}')
echo "${P:-libnvidia-opencl.so.1}" > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/c18 && tar xJf $C/lib.tar.xz -C /tmp/c18
mkdir -p /work/wt18 && ln -sfn $PWD/scripts /work/wt18/scripts
B=$C/mmul_bench
export LD_LIBRARY_PATH=/tmp/c18/lib WORKBOOK_PLATFORM=NVIDIA
which ncu nsys cuobjdump ptxas nvdisasm 2>&1 | tr '\n' ' '; echo
S=512,1024,1536,2048,3000,4096,6000,8192
export WORKBOOK_TUNING_FILE=$OUT/tuning.toml
timeout 200 $B --device-type gpu --tune --sizes $S --repeats 5 > $OUT/h100_tune3.txt 2>&1; echo tune rc=$?
grep -E "^best" $OUT/h100_tune3.txt | cut -c1-90
mkdir -p $OUT/ptx
WORKBOOK_DUMP_BINARIES=$OUT/ptx WORKBOOK_TUNING_FILE=/tmp/x.toml timeout 60 $B --device-type gpu --tune --sizes 4096 --repeats 1 > /dev/null 2>&1
cd $OUT/ptx && for f in *TSM-256_TSN-128_TSK-8_*PREF-0.bin *TSM-128_TSN-256_TSK-16*.bin; do
  [ -f "$f" ] && ptxas -arch=sm_90 -v "$f" -o "${f%.bin}.cubin" 2>&1 | grep -E "registers|spill" | head -2 && cuobjdump -sass "${f%.bin}.cubin" > "${f%.bin}.sass" 2>&1; done
rm -f *.cubin; for f in *.log; do echo "$f: $(grep -h 'registers' $f | head -1)"; done > $OUT/regs.txt; cd $OUT && tar cJf ptx.tar.xz ptx && rm -rf ptx; cd - >/dev/null
python3 - > $OUT/cublas_batched.txt 2>&1 <<'PY'
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
    single = []
    for _ in range(9):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); torch.matmul(a, b, out=c); e.record(); e.synchronize(); single.append(s.elapsed_time(e)/1000)
    single.sort()
    print(f"N={n} back-to-back x{reps}: {2*n**3/res[2]/1e9:.1f} GFLOPS (median of 5), one call per event pair: {2*n**3/single[4]/1e9:.1f}")
PY
cat $OUT/cublas_batched.txt
timeout 150 $B --device-type gpu --sizes $S --repeats 9 --serial-max 0 --rows reference,clblast,cublas --cublas python3 --csv $OUT/bench.csv --svg $OUT/bench.svg > $OUT/h100_bench3.txt 2>&1; echo bench rc=$?
WORKBOOK_TUNING_FILE=$OUT/none.toml timeout 60 $B --device-type gpu --sizes $S --repeats 9 --serial-max 0 --rows reference --csv $OUT/default.csv --svg $OUT/default.svg > $OUT/h100_default3.txt 2>&1; echo default rc=$?
grep "contest reference" $OUT/h100_default3.txt | grep -o "\[.*\]" | head -8
grep -A9 "^     N" $OUT/h100_default3.txt
grep -A9 "^     N" $OUT/h100_bench3.txt
