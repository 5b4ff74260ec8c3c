#!/bin/bash
# The zoo's GPU board: the mock contest's entries (the naive baseline, the reference chosen on the
# device, ada, grace and mallory, a cheat right only at the public sizes) judged on the H100 by
# `contest judge` into a database of their own, which `contest merge` then brings into this
# machine's contest as a board (README: "A contest on several devices"). The lent machine reaches
# nothing outside it, so its result travels as that database ($OUT/h100.db).
#   run from the repository root with .devcarry4/ (stripped workbook, contest-runner, bwrap, and
#   the libraries ldd names; entries/) carried.
set -uo pipefail
root=$PWD
source "$(dirname "$0")/h100_opencl.sh"
export WORKBOOK_TUNING_FILE=/tmp/tuning.toml
export LD_LIBRARY_PATH=$root/.devcarry4/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PATH=$root/.devcarry4/bin:$PATH
# That machine sets OCL_ICD_FILENAMES=libpocl.so.2:libnvidia-opencl.so.1: bare names, which the
# sandboxed runner (empty environment, no LD_LIBRARY_PATH) cannot resolve for NVIDIA's driver in
# /usr/local/nvidia/lib64. Without it the loader reads the ICD file above, with its full path.
unset OCL_ICD_FILENAMES
# The naive baseline is read from the source tree the binary was built in.
[ -d /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }
W=$root/.devcarry4/bin/workbook
ldd $W $root/.devcarry4/bin/* 2>/dev/null | grep "not found"
chmod 755 $root $root/.devcarry4 $root/.devcarry4/bin
# The judge's sandbox runs /usr/bin/bwrap with an empty environment: install it, and what it links, there.
if [ ! -x /usr/bin/bwrap ]; then
  cp $root/.devcarry4/bin/bwrap /usr/bin/bwrap
  for l in libselinux.so.1 libcap.so.2 libpcre2-8.so.0; do
    ldconfig -p | grep -q "$l " || cp $root/.devcarry4/lib/$l /usr/lib/x86_64-linux-gnu/
  done
  ldconfig
fi
sandbox=()
if ! env -i /usr/bin/bwrap --unshare-all --ro-bind / / true; then sandbox=(--no-sandbox); echo "bwrap cannot run here: --no-sandbox"; fi
cd $OUT
db=$OUT/h100.db
$W contest --db $db baseline
$W contest --db $db baseline --reference --per-device
for a in ada grace mallory; do $W contest --db $db submit $root/.devcarry4/entries/$a.cl --alias $a --interval 0; done
# No Oclgrind on that machine: the race pass is this machine's (it simulates, whatever the device).
time $W contest --db $db judge --n 4096 --no-race-check "${sandbox[@]}" 2>&1
$W contest --db $db status
$W contest --db $db board | tee $OUT/h100-board.txt
