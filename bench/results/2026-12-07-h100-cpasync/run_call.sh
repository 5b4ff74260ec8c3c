#!/bin/bash
# One device call of this study (NOTES.md beside this file), from the repository root on the GPU
# machine with .devcarry-cpasync carried (reference_variants, dump_ptx, cpasync_probe,
# libOpenCL.so.1, mmul_gpu_try.cl; NOTES.md "Rerun"):
#   OUT=... bash bench/results/2026-12-07-h100-cpasync/run_call.sh PLAN [LABEL...]
# 1. The inline-PTX probes (probe.cl), one process each: which asm spelling NVIDIA's compiler
#    takes, and which local address cp.async wants; the plan's X rows get -DCPASM/-DCPCVTA to
#    match, or are dropped if cp.async does not work. 2. A canary: the X rows checked once at
#    N = 1000, 1024, 1031 (the scalar path too), before anything is timed. 3. cuBLAS, the plan
#    twice (two processes: the "halves"), cuBLAS again (bench/h200_reference.sh). 4. PTX and SASS
#    of the LABELs (ptxas -v, cuobjdump -sass), packed with the probes' PTX in sass.tar.xz.
set -uo pipefail
here=bench/results/2026-12-07-h100-cpasync
carry=$PWD/.devcarry-cpasync
plan=$1; shift
name=$(basename "$plan" .txt)
: "${OUT:?}"
# The try kernel is kept as a diff against contest/reference/mmul_gpu.cl (as of 620198a).
[ -f "$carry/mmul_gpu_try.cl" ] || patch -s -o "$carry/mmul_gpu_try.cl" contest/reference/mmul_gpu.cl < $here/mmul_gpu_try.diff
source bench/results/h100_opencl.sh
for f in /etc/OpenCL/vendors/*.icd; do [ "$(basename "$f")" = nvidia.icd ] || mv "$f" /tmp/icd-off/; done
mkdir -p /tmp/uselib /tmp/sass
ldconfig -p | grep -q "^[[:space:]]*libOpenCL.so.1 " || ln -sf "$carry/libOpenCL.so.1" /tmp/uselib/
export LD_LIBRARY_PATH=/tmp/uselib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
probe() { timeout 60 "$carry/cpasync_probe" $here/probe.cl "$@" 2>&1; echo "rc=$?"; }
{
  echo "== probes $(date -u +%T)"
  probe 1 /tmp/sass/probe1.ptx
  probe 2 /tmp/sass/probe2.ptx
} > "$OUT/probe.txt"
asm=-1; grep -q "^probe 2: OK" "$OUT/probe.txt" && asm=0
[ $asm = -1 ] && grep -q "^probe 1: OK" "$OUT/probe.txt" && asm=1
cvta=-1
if [ $asm != -1 ]; then
  probe 3 /tmp/sass/probe3.ptx "-DCPASM=$asm" >> "$OUT/probe.txt"
  if grep -q "^probe 3: OK" "$OUT/probe.txt"; then cvta=0; else
    probe 4 /tmp/sass/probe4.ptx "-DCPASM=$asm" >> "$OUT/probe.txt"
    grep -q "^probe 4: OK" "$OUT/probe.txt" && cvta=1
  fi
fi
echo "decided: CPASM=$asm CPCVTA=$cvta (-1: none works)" | tee -a "$OUT/probe.txt"
if [ $cvta != -1 ]; then
  sed -E "/^X-/ s/ \|([^|]*)\|([^|]*)\|/ |\1|\2 -DCPASM=$asm -DCPCVTA=$cvta |/" "$plan" > "/tmp/$name.txt"
  # the canary: X rows only, checked at three sizes, one timed launch each
  grep "^X-" "/tmp/$name.txt" | sed -E 's/\|[^|]*$/| 1000,1024,1031/' > /tmp/canary.txt
  echo "== canary $(date -u +%T)" >> "$OUT/probe.txt"
  timeout 240 "$carry/reference_variants" --plan /tmp/canary.txt --sizes 1000,1024,1031 --rounds 1 --per 1 \
    --samples 400 >> "$OUT/probe.txt" 2>&1
  rc=$?; echo "canary rc=$rc" >> "$OUT/probe.txt"
  [ $rc = 0 ] || grep -v "^X-" "$plan" > "/tmp/$name.txt"
else
  grep -v "^X-" "$plan" > "/tmp/$name.txt"
fi
cat "$OUT/probe.txt" | grep -v "^# built" | cut -c1-150
cp "/tmp/$name.txt" "/tmp/$name-half1.txt"
cp "/tmp/$name.txt" "/tmp/$name-half2.txt"
CARRY=.devcarry-cpasync ROUNDS=${ROUNDS:-10} PER=${PER:-3} SWEEP_TIMEOUT=${SWEEP_TIMEOUT:-240} \
  bash bench/h200_reference.sh info cublas "sweep:/tmp/$name-half1.txt" "sweep:/tmp/$name-half2.txt" cublas
[ $# -eq 0 ] && exit 0
echo "== sass $(date -u +%T)"
"$carry/dump_ptx" "/tmp/$name.txt" /tmp/sass "$@"
bash bench/ptx_sass.sh /tmp/sass "$OUT/sass.tar.xz"   # registers, stack, SASS opcode counts
