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
bash bench/ptx_sass.sh /tmp/sass "$OUT/sass.tar.xz"   # registers, stack, SASS opcode counts
