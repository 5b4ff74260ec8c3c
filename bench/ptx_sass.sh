#!/bin/bash
# The PTX files NVIDIA's OpenCL compiler wrote (dump_ptx, cpasync_probe) through ptxas and cuobjdump
# on the GPU machine: one line per kernel with its registers, stack and SASS opcode counts, and
# everything packed into OUT_TAR. Used by the studies' run_call.sh (bench/results/2026-12-07-h100-*).
#   bash bench/ptx_sass.sh DIR OUT_TAR
set -uo pipefail
dir=$1 tar_out=$2
ptxas=$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -1)
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
echo "ptxas: $ptxas ($("$ptxas" --version | tail -1)); cuobjdump: $cuobjdump"
cd "$dir" || exit 1
count() { grep -c -E "$1" "$2"; }
for p in *.ptx; do
  b=${p%.ptx}
  # ptxas takes the PTX without NVIDIA OpenCL's trailing .metadata_section (and NULs).
  tr -d '\000' < "$p" | sed '/^\.metadata_section/,$d' > "/tmp/$b.ptx"
  "$ptxas" -arch=sm_90 -O3 -v "/tmp/$b.ptx" -o "$b.cubin" > "$b.ptxas.txt" 2>&1
  "$cuobjdump" -sass "$b.cubin" > "$b.sass" 2>&1
  s=$b.sass
  echo "$b: $(grep -o 'Used [0-9]* registers' "$b.ptxas.txt"), SASS lines $(count '/\*[0-9a-f]*\*/' "$s")," \
    "FFMA $(count FFMA "$s"), LDG $(count LDG "$s"), STS $(count STS "$s"), LDS $(count LDS "$s")," \
    "BRA $(count BRA "$s"), BAR $(count BAR "$s"), LDGSTS $(count LDGSTS "$s"), DEPBAR $(count DEPBAR "$s")," \
    "LDL/STL $(count 'LDL|STL' "$s"); $(grep -o '[0-9]* bytes stack frame' "$b.ptxas.txt")"
done
tar -cJf "$tar_out" ./*.ptx ./*.sass ./*.ptxas.txt
