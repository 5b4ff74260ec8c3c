#!/bin/bash
# On the lent GPU machine, from the repository root (carry build-gpu/cal.tar.xz, oclgrind.tar.xz,
# broker.tar.xz and src.tar.xz, made here by pack.sh; see NOTES.md):
#   OUT=$OUT/r bash bench/results/2026-11-28-h200-calibration/run.sh
# `workbook calibrate` with the race pass (Oclgrind on the CPU beside the GPU), NVIDIA's OpenCL
# driver registered as the only ICD. Adapted from ../2026-11-26-h100-calibration/run.sh (PART=cal):
# - the race pass's plugins (libworkbook_local_init.so, libworkbook_fingerprint.so) and the OpenCL
#   broker (workbook-broker, libworkbook_broker_icd.so) are found at the paths compiled into the
#   binaries, /work/main/build/{lib,bin}: /work/main is linked to the tree and /work/main/build to
#   the unpacked build where the machine has neither (as bench/h200_track_gains.sh does);
# - a few checks first (the files at their paths, what ldd finds missing, oclgrind --version).
# ONLY="--only 15 --only 16" calibrates those exercises; CAL_TIMEOUT (default 540) bounds it.
set -uo pipefail
root=$PWD
carry=${CARRY:-$root/build-gpu}
: "${OUT:?set OUT}"
mkdir -p "$OUT"
t0=$(date +%s)
# The tree these binaries were built from (git archive of the commit built).
if [ -e "$carry/src.tar.xz" ]; then mkdir -p /tmp/src && tar -C /tmp/src -xJf "$carry/src.tar.xz" && root=/tmp/src; fi
source "$root/bench/results/h100_opencl.sh"
for f in /etc/OpenCL/vendors/*.icd; do [ "$(basename "$f")" = nvidia.icd ] || mv "$f" /tmp/icd-off/; done
mkdir -p /tmp/ocl && tar -C /tmp/ocl -xJf "$carry/oclgrind.tar.xz" && cp -a /tmp/ocl/root/. /
printf '#!/bin/sh\nLD_LIBRARY_PATH=/tmp/ocl/libs exec /usr/bin/oclgrind "$@"\n' > /tmp/ocl/oclgrind && chmod +x /tmp/ocl/oclgrind
export WORKBOOK_OCLGRIND=/tmp/ocl/oclgrind
tar -C "$carry" -xJf "$carry/cal.tar.xz"
cal=$carry/cal
tar -C "$cal" -xJf "$carry/broker.tar.xz"            # bin/workbook-broker, lib/libworkbook_broker_icd.so
cp "$cal"/plugins/*.so "$cal/lib/"
[ -e /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }
if [ ! -e /work/main/build ]; then ln -s "$cal" /work/main/build
else mkdir -p /work/main/build/bin /work/main/build/lib && cp -a "$cal"/plugins/*.so "$cal"/lib/libworkbook_broker_icd.so /work/main/build/lib/ \
     && cp -a "$cal"/bin/workbook-broker /work/main/build/bin/; fi
sed -e "s|@BUILD@|$cal|g" -e "s|@ROOT@|$root|g" "$cal/calibration.template.json" > "$cal/calibration.json"
{
  echo "== setup $(($(date +%s) - t0)) s; root $root, PWD $PWD"
  ls -la /work/main /work/main/build/lib/libworkbook_{local_init,fingerprint,broker_icd}.so /work/main/build/bin/workbook-broker
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
  clinfo -l
  clinfo 2>/dev/null | grep -E "^  (Platform Name|Platform Version)|^  Device (Name|Version)|Driver Version" | sort -u
  cat /etc/OpenCL/vendors/*.icd
  /tmp/ocl/oclgrind --version
  echo "ldd, not found:"; LD_LIBRARY_PATH=$cal/lib ldd "$cal"/bin/* 2>/dev/null | grep "not found" | sort -u
  LD_LIBRARY_PATH=/tmp/ocl/libs ldd "$cal"/plugins/*.so /usr/bin/oclgrind | grep "not found" | sort -u
  nproc; free -g | head -2
} > "$OUT/gpu.txt" 2>&1
wb() { LD_LIBRARY_PATH=$cal/lib "$cal/bin/workbook" --root "$root" --build-dir "$cal" "$@"; }
wb doctor > "$OUT/doctor.txt" 2>&1
start=$(date +%s)
timeout "${CAL_TIMEOUT:-540}" env LD_LIBRARY_PATH=$cal/lib "$cal/bin/workbook" --root "$root" --build-dir "$cal" calibrate \
    --manifest "$cal/calibration.json" --seed "${SEED:-424242}" ${ONLY:-} --json "$OUT/calibration.json" \
    > "$OUT/table.txt" 2> "$OUT/progress.txt"
echo "exit $? after $(($(date +%s) - start)) s" >> "$OUT/table.txt"
