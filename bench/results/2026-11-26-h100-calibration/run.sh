#!/bin/bash
# On the H100 machine (carry build-gpu/cal.tar.xz and build-gpu/oclgrind.tar.xz, made by pack.sh,
# and src.tar.xz, `git archive` of the commit built, when the checkout there differs; CARRY names
# their folder
# and by packing Debian's oclgrind and liboclgrind-21.10 with the libraries ldd names):
# `workbook calibrate` with the race pass (Oclgrind on the CPU beside the GPU), then rungs 18
# and 19 graded at the speed-check sizes SEEDS draw, solutions and the previous rung in their place.
# PART=cal or PART=rungs runs one half.
set -uo pipefail
root=$PWD
carry=${CARRY:-$root/build-gpu}
# The tree these binaries were built from, when the checkout here is another commit.
if [ -e "$carry/src.tar.xz" ]; then mkdir -p /tmp/src && tar -C /tmp/src -xJf "$carry/src.tar.xz" && root=/tmp/src; fi
source "$root/bench/results/h100_opencl.sh"
# Every other driver aside too (this machine lists PoCL under another file name): exercise 01's
# test lists every platform.
for f in /etc/OpenCL/vendors/*.icd; do [ "$(basename "$f")" = nvidia.icd ] || mv "$f" /tmp/icd-off/; done
mkdir -p /tmp/ocl && tar -C /tmp/ocl -xJf "$carry/oclgrind.tar.xz" && cp -a /tmp/ocl/root/. /
printf '#!/bin/sh\nLD_LIBRARY_PATH=/tmp/ocl/libs exec /usr/bin/oclgrind "$@"\n' > /tmp/ocl/oclgrind && chmod +x /tmp/ocl/oclgrind
export WORKBOOK_OCLGRIND=/tmp/ocl/oclgrind
tar -C "$carry" -xJf "$carry/cal.tar.xz"
cal=$carry/cal
sed -e "s|@BUILD@|$cal|g" -e "s|@ROOT@|$root|g" "$cal/calibration.template.json" > "$cal/calibration.json"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; clinfo -l; } > "$OUT/gpu.txt" 2>&1
wb() { LD_LIBRARY_PATH=$cal/lib "$cal/bin/workbook" --root "$root" --build-dir "$cal" "$@"; }
wb doctor > "$OUT/doctor.txt" 2>&1
if [ "${PART:-all}" != rungs ]; then
start=$(date +%s)
timeout "${CAL_TIMEOUT:-420}" env LD_LIBRARY_PATH=$cal/lib "$cal/bin/workbook" --root "$root" --build-dir "$cal" calibrate --manifest "$cal/calibration.json" \
    --seed "${SEED:-424242}" ${ONLY:-} --json "$OUT/calibration.json" > "$OUT/table.txt" 2> "$OUT/progress.txt"
echo "exit $? after $(($(date +%s) - start)) s" >> "$OUT/table.txt"
fi
[ "${PART:-all}" = cal ] && exit 0
cd "$cal/bin"
for seed in ${SEEDS:-4 1 8 3 32}; do
    for ex in 18_sgemm_transpose 19_sgemm_prefetch; do
        for who in solution previous; do
            s=$(date +%s)
            v=; [ $who = previous ] && v=previous
            env WORKBOOK_SEED=$seed ${v:+WORKBOOK_SPEED_STUDENT=$v} timeout 200 ./test-$ex-solution > "$OUT/$ex-$who-$seed.txt" 2>&1
            echo "exit $? after $(($(date +%s) - s)) s" >> "$OUT/$ex-$who-$seed.txt"
        done
    done
done
