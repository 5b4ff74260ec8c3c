#!/bin/bash
# On the GPU machine, from the repository root: the proposed rungs 18/19 (this folder) beside the
# current rungs 17-19 and cuBLAS (issue 40). Build the timer first: gcc -O2 -o /tmp/probe
# bench/results/sgemm-ladder-h100/probe.c -lOpenCL (or pass P=). Writes $OUT/log.txt (timings), $OUT/ptx.txt (ptxas info:
# registers, spills, PTX instruction counts) and $OUT/extra.txt (static __local ablation).
# Usage: bench/results/sgemm-ladder-h100/run.sh [all|ptx|time|extra|cublas]...   (no argument: all)
# NS="..." sets the sizes for time and cublas.
if [ -z "$DRY" ]; then  # DRY=1 P=echo: print the invocations only (no ICD written)
  mkdir -p /etc/OpenCL/vendors
  lib=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')
  echo "${lib:-libnvidia-opencl.so.1}" > /etc/OpenCL/vendors/nvidia.icd
fi
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
L=$(dirname "$0")
P=${P:-/tmp/probe}
S=solutions
F="-cl-fast-relaxed-math"
NS=${NS:-"512 1792 2000 2048 2304 4096"}
what=${*:-all}
has() { [[ " $what " == *" all "* || " $what " == *" $1 "* ]]; }
up() { echo $(( ($1 + $2 - 1) / $2 * $2 )); }  # $1 rounded up to a multiple of $2

# mine FILE N TSM TSN TSK WPTM WPTN PAD BUFFERS [EXTRA OPTIONS]: one of the new kernels, timed.
mine() {
  local f=$1 n=$2 tm=$3 tn=$4 tk=$5 wm=$6 wn=$7 pad=$8 nb=$9 extra=${10}
  printf '%-5s %3dx%-3d k%-2d %2dx%-2d pad%d ' "$(basename $f .cl)" $tm $tn $tk $wm $wn $pad
  $P $f "-DTSM=$tm -DTSN=$tn -DTSK=$tk -DWPTM=$wm -DWPTN=$wn -DPAD=$pad $extra $F" $n \
    $(( $(up $n $tn) / wn )) $(( $(up $n $tm) / wm )) $((tn / wn)) $((tm / wm)) \
    $((nb * tk * (tm + pad) * 4)) $((nb * tk * tn * 4)) 20 2>&1 | sed "s|^$L/||; s|^/tmp/||"
}
# The current rungs, as build-gpu/probe/run1.sh runs them (global size rounded up to the block).
rung() {
  local n=$1 g=$(( $(up $1 128) / 8 ))
  case $2 in
    17) $P $S/17_sgemm_2d_block/mmul.cl "-DTSM=128 -DTSN=128 -DTSK=16 -DWPTM=8 -DRTSM=16 $F" $n $g $g 16 16 8192 8192 20 ;;
    18) $P $S/18_sgemm_transpose/mmul.cl "-DTSM=128 -DTSN=128 -DTSK=16 -DWPTM=8 -DRTSM=16 -DPAD=4 $F" $n $g $g 16 16 8448 8192 20 ;;
    19) $P $S/19_sgemm_prefetch/mmul.cl "-DTSM=128 -DTSN=128 -DTSK=8 -DWPTM=8 -DRTSM=16 -DPAD=4 $F" $n $g $g 16 16 8448 8192 20 ;;
  esac 2>&1 | sed "s|^$S/||"
}

# Ablation variant, made here from the teaching file so that it stays clean.
sed 's/__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))/__kernel/' $L/r19.cl > /tmp/r19_noreqd.cl

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1 | tee $OUT/gpu.txt
if has ptx; then
  gcc -O2 -o /tmp/ptxinfo $L/ptxinfo.c -I/usr/local/cuda/include -I$L/include -L/usr/local/cuda/lib64 -lOpenCL 2>&1 ||
    gcc -O2 -o /tmp/ptxinfo $L/ptxinfo.c -I$L/include -l:libOpenCL.so.1
  mkdir -p /tmp/ptx
  px() {  # px NAME FILE OPTIONS: registers, spills, and what the inner loop became
    /tmp/ptxinfo $2 "$3 $F" /tmp/ptx/$1.ptx > /tmp/ptx/$1.log 2>&1
    echo "== $1: $2 $3"; grep -i -E 'registers|spill|stack|lmem|error|FAILED' /tmp/ptx/$1.log | sed 's/^ *//'
    echo "   ptx: fma.f32 $(grep -c -E 'fma\.rn(\.ftz)?\.f32' /tmp/ptx/$1.ptx)  mul.f32 $(grep -c -E '\smul(\.rn)?(\.ftz)?\.f32' /tmp/ptx/$1.ptx)  add.f32 $(grep -c -E '\sadd(\.rn)?(\.ftz)?\.f32' /tmp/ptx/$1.ptx)  ld.shared.v4 $(grep -c 'ld.shared.v4' /tmp/ptx/$1.ptx)  ld.shared.f32 $(grep -c -E 'ld.shared.f32' /tmp/ptx/$1.ptx)  ld.local $(grep -c 'ld.local' /tmp/ptx/$1.ptx)  bar $(grep -c 'bar.sync' /tmp/ptx/$1.ptx)"
  }
  px rung17 $S/17_sgemm_2d_block/mmul.cl "-DTSM=128 -DTSN=128 -DTSK=16 -DWPTM=8 -DRTSM=16"
  px rung18 $S/18_sgemm_transpose/mmul.cl "-DTSM=128 -DTSN=128 -DTSK=16 -DWPTM=8 -DRTSM=16 -DPAD=4"
  px rung19 $S/19_sgemm_prefetch/mmul.cl "-DTSM=128 -DTSN=128 -DTSK=8 -DWPTM=8 -DRTSM=16 -DPAD=4"
  for k in 16 8; do
    for f in r18 r18_interleaved r19 r19db; do
      pad=4; [ $f = r19db -a $k = 16 ] && pad=0
      px ${f}_k$k $L/$f.cl "-DTSM=128 -DTSN=256 -DTSK=$k -DWPTM=8 -DWPTN=16 -DPAD=$pad"
    done
  done
  px r19_128x128 $L/r19.cl "-DTSM=128 -DTSN=128 -DTSK=16 -DWPTM=8 -DWPTN=8 -DPAD=4"
  px r19_64x128 $L/r19.cl "-DTSM=64 -DTSN=128 -DTSK=16 -DWPTM=8 -DWPTN=8 -DPAD=4"
  px r19_32x64 $L/r19.cl "-DTSM=32 -DTSN=64 -DTSK=16 -DWPTM=4 -DWPTN=4 -DPAD=4"
  (cd /tmp/ptx && tar czf $OUT/ptx.tgz *.ptx *.log)
fi 2>&1 | tee $OUT/ptx.txt

if has time; then
  for N in $NS; do
    echo "---- N=$N"
    for r in 17 18 19; do rung $N $r; done
    mine $L/r18.cl $N 128 256 16 8 16 4 1
    mine $L/r18.cl $N 128 256 8 8 16 4 1
    mine $L/r19.cl $N 128 256 16 8 16 4 1
    mine $L/r19.cl $N 128 256 8 8 16 4 1
    mine $L/r19db.cl $N 128 256 8 8 16 4 2
    mine $L/r18.cl $N 128 128 16 8 8 4 1
    mine $L/r19.cl $N 128 128 16 8 8 4 1
    mine $L/r19.cl $N 128 128 8 8 8 4 1
    mine $L/r19.cl $N 64 128 16 8 8 4 1
    mine $L/r19.cl $N 128 64 16 8 4 4 1
    if [ $N -le 2000 ]; then  # smaller blocks: more work-groups for the 132 compute units
      mine $L/r19.cl $N 64 64 16 4 4 4 1
      mine $L/r19.cl $N 32 64 16 4 4 4 1
      mine $L/r19.cl $N 32 32 16 4 4 4 1
    fi
    if [ $N = 2048 -o $N = 4096 ]; then  # ablations
      mine $L/r18_interleaved.cl $N 128 256 16 8 16 4 1
      mine $L/r18.cl $N 128 256 16 8 16 0 1
      mine $L/r19.cl $N 128 256 16 8 16 0 1
      mine $L/r19.cl $N 128 256 16 8 16 8 1
      mine /tmp/r19_noreqd.cl $N 128 256 16 8 16 4 1
      mine $L/r19db.cl $N 128 256 8 8 16 0 2
    fi
  done
  echo "---- repeats (noise)"
  for N in 2048 4096; do
    rung $N 17; mine $L/r18.cl $N 128 256 16 8 16 4 1; mine $L/r19.cl $N 128 256 16 8 16 4 1; mine $L/r19.cl $N 128 256 8 8 16 4 1
  done
fi 2>&1 | tee $OUT/log.txt

if has extra; then  # static __local arrays instead of __local arguments; small blocks double-buffered
  python3 $L/mkstatic.py $L/r18.cl /tmp/r18_static.cl && python3 $L/mkstatic.py $L/r19.cl /tmp/r19_static.cl
  for N in 2000 2048 4096; do
    echo "---- N=$N"
    rung $N 17
    for k in 16 8; do
      mine $L/r18.cl $N 128 256 $k 8 16 4 1; mine /tmp/r18_static.cl $N 128 256 $k 8 16 4 0
      mine $L/r19.cl $N 128 256 $k 8 16 4 1; mine /tmp/r19_static.cl $N 128 256 $k 8 16 4 0
    done
    mine $L/r19.cl $N 128 128 16 8 8 4 1; mine /tmp/r19_static.cl $N 128 128 16 8 8 4 0
  done
  echo "---- N=512"
  for s in "32 64" "32 32" "64 64"; do
    mine $L/r19.cl 512 $s 16 4 4 4 1; mine $L/r19db.cl 512 $s 16 4 4 4 2
  done
fi 2>&1 | tee $OUT/extra.txt

if has cublas; then
  NS="$NS" PYTHONUNBUFFERED=1 python3 - <<'PY'
import os, torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.set_float32_matmul_precision('highest')
for n in [int(x) for x in os.environ['NS'].split()]:
    a = torch.randn(n, n, device='cuda'); b = torch.randn(n, n, device='cuda')
    for _ in range(5): a @ b
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(30):
        s.record(); a @ b; e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); m = ts[len(ts)//2]
    print(f"cuBLAS N={n:5d} {2*n**3/m*1e-6:8.1f} GFLOPS (median {m:.3f} ms, min {ts[0]:.3f})")
PY
fi 2>&1 | tee -a $OUT/log.txt
