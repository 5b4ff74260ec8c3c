#!/bin/bash
# SGEMM track on the H100 through the grader's path: the instructor's checker (test-NN-starter)
# and runner, the kernel under test in a folder of its own (WORKBOOK_KERNEL_DIR): each rung's
# solution, starter, planted bugs and slow-but-correct kernels. Prints one line per kernel.
set -uo pipefail
root=$PWD
source "$(dirname "$0")/h100_opencl.sh"
bin=$root/.devcarry3/bin
ldd $bin/* | grep "not found"
for exdir in $root/.devcarry3/kernels/*/; do
  ex=$(basename $exdir)
  for k in $exdir*/; do
    what=$(basename $k)
    log=$OUT/$ex-$what.txt
    start=$(date +%s.%N)
    WORKBOOK_KERNEL_DIR=$k timeout 300 $bin/test-$ex-starter > $log 2>&1
    rc=$?
    t=$(awk -v a="$start" -v b="$(date +%s.%N)" "BEGIN { print b - a }")
    why=$(grep -m1 -E "ERROR: CHECK|THREW|too slow|waived|guard|expected" $log | cut -c1-150)
    [ $rc = 0 ] && why=$(grep -m1 -E "waived|^  yours" $log | cut -c1-120)
    printf '%-18s %-32s exit %-3s %5.1fs  %s\n' $ex $what $rc $t "$why"
  done
done | tee $OUT/summary.txt
cd $OUT && tar czf logs.tgz *.txt && rm -f [0-9]*.txt
