#!/bin/bash
# On the lent GPU machine, after the calibration missed 17_sgemm_2d_block b_reread_with_vload4:
#   OUT=$OUT/r bash bench/results/2026-11-28-h200-calibration/diag17.sh
# 1. `workbook calibrate --only 17` again at seed 424242 (run.sh: the same setup and command);
# 2. the planted bug's graded test run directly, as the grader runs it (checker
#    test-17_sgemm_2d_block-starter, WORKBOOK_RUNNER the bug's runner, WORKBOOK_KERNEL_DIR its
#    kernel), with WORKBOOK_TRAFFIC=show so that the traffic table is printed beside the speed
#    table, at seed 424242 and at seeds 0-4 (the GPU speed check's N = 1792 + 128 * (seed mod 5)).
set -uo pipefail
: "${OUT:?set OUT}"
here=$(cd "$(dirname "$0")" && pwd)
ONLY="--only 17" CAL_TIMEOUT=${CAL_TIMEOUT:-200} bash "$here/run.sh"
carry=${CARRY:-$PWD/build-gpu}
cal=$carry/cal
source /tmp/src/bench/results/h100_opencl.sh
export WORKBOOK_OCLGRIND=/tmp/ocl/oclgrind
k=/tmp/k17 && rm -rf $k && mkdir -p $k && cp "$cal/exercises/17_sgemm_2d_block/mutants/b_reread_with_vload4/mmul.cl" $k/
for seed in ${SEEDS:-424242 0 1 2 3 4}; do
    s=$(date +%s)
    WORKBOOK_SEED=$seed WORKBOOK_KERNEL_DIR=$k WORKBOOK_RUNNER=$cal/bin/runner-17_sgemm_2d_block-mutant-b_reread_with_vload4 \
      WORKBOOK_TRAFFIC=show timeout 200 "$cal/bin/test-17_sgemm_2d_block-starter" > "$OUT/b_reread-seed-$seed.txt" 2>&1
    echo "seed $seed: exit $? after $(($(date +%s) - s)) s" | tee -a "$OUT/b_reread-summary.txt"
done
