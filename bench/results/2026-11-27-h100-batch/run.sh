#!/bin/bash
# On the H100 machine (carry build-gpu/remote.tar.xz, made by ../2026-11-27-h100-remote/pack.sh):
# bench/remote_batch.py there: three checks of rung 19's solution queued at once on the H100, graded
# one by one (--remote-batch 1) and together (--remote-batch 3). The grader runs without its
# sandbox and race pass (no bubblewrap or Oclgrind there). Output in $OUT.
set -uo pipefail
root=$PWD
source "$root/bench/results/h100_opencl.sh"
mkdir -p /tmp/remote && tar -C /tmp -xJf "$root/build-gpu/remote.tar.xz"
export LD_LIBRARY_PATH=/tmp/remote/lib
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; clinfo -l; } > "$OUT/gpu.txt" 2>&1
# The server's `workbook`, with the course tree and the packed build.
printf '#!/bin/sh\nexec /tmp/remote/bin/workbook --root %s --build-dir /tmp/remote "$@"\n' "$root" > /tmp/wb && chmod +x /tmp/wb
WORKBOOK_SOURCE=$root timeout 580 python3 "$root/bench/remote_batch.py" /tmp/wb /tmp/rb 3 19_sgemm_prefetch "${ROUNDS:-1}" \
    > "$OUT/batch-19.txt" 2>&1
echo "exit $?" >> "$OUT/batch-19.txt"
cp /tmp/rb/batch-1/server.log "$OUT/server-batch-1.log" 2>/dev/null
cp /tmp/rb/batch-3/server.log "$OUT/server-batch-3.log" 2>/dev/null
