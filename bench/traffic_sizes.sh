#!/bin/bash
# The traffic rule's sizes (traffic_sizes() in harness/testing/src/speed_testing.cpp): at each N,
# every track rung's speed check with the previous rung's solution in the student's place and the
# traffic counted and shown, so that each rung's cut (previous over solution, at least 1.2x for a
# rule) can be read off at that N. On PoCL, a few minutes per size.
# usage: bench/traffic_sizes.sh BUILD_DIR [N ...]   (default N: 96 104 112 120 124 128)
set -u
build=${1:?usage: bench/traffic_sizes.sh BUILD_DIR [N ...]}
shift
for n in ${@:-96 104 112 120 124 128}; do
  for ex in 15_sgemm_wpt 16_sgemm_float4 17_sgemm_2d_block 18_sgemm_transpose 19_sgemm_prefetch; do
    start=$(date +%s)
    echo "=== N=$n $ex"
    WORKBOOK_SPEED_N=256 WORKBOOK_SPEED_STUDENT=previous WORKBOOK_TRAFFIC=show WORKBOOK_TRAFFIC_N=$n \
      timeout 600 "$build/bin/test-$ex-solution" -tc='*speed*' 2>&1 |
      grep -E "^  (yours|this rung|the previous)|memory traffic|needs|Error|error" | cut -c1-400
    echo "--- $(( $(date +%s) - start )) s"
  done
done
