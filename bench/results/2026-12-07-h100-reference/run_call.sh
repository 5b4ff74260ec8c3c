#!/bin/bash
# One device call of this study (NOTES.md beside this file), from the repository root on the GPU
# machine with .devcarry-ref64 carried (reference_variants, dump_ptx, libOpenCL.so.1,
# mmul_gpu_old.cl; see NOTES.md "Rerun"):
#   OUT=... bash bench/results/2026-12-07-h100-reference/run_call.sh PLAN [LABEL...]
# cuBLAS, the sweep of PLAN twice (two processes one after the other: the "halves", each ROUNDS
# rounds of PER launches per variant, variants taking turns), cuBLAS again; then the PTX of the
# LABELs (NVIDIA's OpenCL compiler), each through ptxas -v and cuobjdump -sass, packed in sass.tar.xz.
set -uo pipefail
here=bench/results/2026-12-07-h100-reference
plan=$1; shift
name=$(basename "$plan" .txt)
cp "$plan" "/tmp/$name-half1.txt"
cp "$plan" "/tmp/$name-half2.txt"
ROUNDS=${ROUNDS:-10} PER=${PER:-3} SWEEP_TIMEOUT=${SWEEP_TIMEOUT:-150} \
  bash bench/h200_reference.sh info cublas "sweep:/tmp/$name-half1.txt" "sweep:/tmp/$name-half2.txt" cublas
[ $# -eq 0 ] && exit 0
echo "== sass $(date -u +%T)"
export LD_LIBRARY_PATH=/tmp/uselib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p /tmp/sass
.devcarry-ref64/dump_ptx "$plan" /tmp/sass "$@"
ptxas=$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -1)
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
echo "ptxas: $ptxas ($("$ptxas" --version | tail -1)); cuobjdump: $cuobjdump"
(
  cd /tmp/sass || exit
  for p in *.ptx; do
    b=${p%.ptx}
    # ptxas takes the PTX without NVIDIA OpenCL's trailing .metadata_section (and NULs).
    tr -d '\000' < "$p" | sed '/^\.metadata_section/,$d' > "/tmp/$b.ptx"
    "$ptxas" -arch=sm_90 -O3 -v "/tmp/$b.ptx" -o "$b.cubin" > "$b.ptxas.txt" 2>&1
    "$cuobjdump" -sass "$b.cubin" > "$b.sass" 2>&1
    echo "$b: $(grep -o 'Used [0-9]* registers' "$b.ptxas.txt"), SASS lines $(grep -c '/\*[0-9a-f]*\*/' "$b.sass")," \
      "FFMA $(grep -c FFMA "$b.sass"), LDG $(grep -c 'LDG' "$b.sass"), STS $(grep -c 'STS' "$b.sass")," \
      "LDS $(grep -c 'LDS' "$b.sass"), BRA $(grep -c 'BRA' "$b.sass"), BAR $(grep -c 'BAR' "$b.sass")," \
      "LDL/STL $(grep -c -E 'LDL|STL' "$b.sass"); $(grep -o '[0-9]* bytes stack frame' "$b.ptxas.txt")"
  done
  tar -cJf "$OUT/sass.tar.xz" ./*.ptx ./*.sass ./*.ptxas.txt
)
