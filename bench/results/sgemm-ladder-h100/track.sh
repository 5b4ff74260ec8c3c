#!/bin/bash
# Issue 40, part 1, on the GPU machine: the SGEMM track's rungs 17, 18 and 19 as the course now has
# them (18: 8 x 16 per work-item in 128 x 256 blocks, the A tile transposed, a tile's loads all
# issued before its stores; 19: the same with the next tile prefetched into registers), timed side
# by side, then their graded tests through the speed check.
#
# Run from the repository root of the device's copy, with the carried folder $C holding
#   $C/bin: probe, ptxinfo (gcc -O2 ... -lOpenCL, from probe.c and ptxinfo.c beside this script),
#           test-NN-solution and runner-NN-solution for NN = 17, 18, 19 (built here, stripped)
#   $C/kernels: solutions/{17,18,19}_*/mmul.cl and this folder's r18.cl, r19.cl (the study's)
# Usage: C=build-h40 bash track.sh [ptx] [probe] [tests] [previous]   (no argument: all four)
#   NS="..."      sizes for probe (default 512 1792 1920 2048 2176 2304 4096)
#   PROBES="..."  kernels for probe beside rung 17, each FILE:TSM:TSN:TSK:WPTM:WPTN (FILE in $C/kernels)
#   SEEDS="..."   WORKBOOK_SEED values for the graded tests (the speed check draws N from the seed:
#                 4 -> 1792, 1 -> 1920, 8 -> 2048, 3 -> 2176, 32 -> 2304)
#   PSEEDS="..."  the same for the runs with the previous rung's solution as the student's
#   RUNGS="..."   default 18_sgemm_transpose 19_sgemm_prefetch
# Writes $OUT/ptx.txt, $OUT/probe.txt, $OUT/tests.txt (whole logs) and prints a summary.
set -uo pipefail
C=${C:-build-h40}
root=$PWD
source "$root/$C/h100_opencl.sh"
export WORKBOOK_RACE_CHECK=off
bin=$root/$C/bin
K=$root/$C/kernels
F="-cl-fast-relaxed-math"
what=" ${*:-ptx probe tests previous} "
has() { [[ "$what" == *" $1 "* ]]; }
up() { echo $(( ($1 + $2 - 1) / $2 * $2 )); }  # $1 rounded up to a multiple of $2

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
ldd $bin/* | grep "not found"

# A kernel with 18/19's geometry: probe FILE N TSM TSN TSK WPTM WPTN (PAD 4), median of 20 launches.
shaped() {
  local f=$1 n=$2 tm=$3 tn=$4 tk=$5 wm=$6 wn=$7
  printf '%-10s %3dx%-3d k%-2d %2dx%-2d ' "$(basename $f .cl)" $tm $tn $tk $wm $wn
  $bin/probe $f "-DTSM=$tm -DTSN=$tn -DTSK=$tk -DWPTM=$wm -DWPTN=$wn -DPAD=4 $F" $n \
    $(( $(up $n $tn) / wn )) $(( $(up $n $tm) / wm )) $((tn / wn)) $((tm / wm)) \
    $((tk * (tm + 4) * 4)) $((tk * tn * 4)) 20 2>&1 | sed "s|^$K/||"
}
# Rung 17 as its launch.hpp launches it.
rung17() {
  local n=$1 g=$(( $(up $1 128) / 8 ))
  printf '%-10s %3dx%-3d k%-2d %2dx%-2d ' rung17 128 128 16 8 8
  $bin/probe $K/s17.cl "-DTSM=128 -DTSN=128 -DTSK=16 -DWPTM=8 -DRTSM=16 $F" $n $g $g 16 16 8192 8192 20 2>&1 | sed "s|^$K/||"
}

if has ptx; then
  px() {  # px NAME FILE OPTIONS: registers and spills as ptxas reports them
    $bin/ptxinfo $2 "$3 $F" /tmp/$1.ptx > /tmp/$1.log 2>&1
    echo "== $1: $(basename $2) $3"; grep -i -E 'registers|spill|stack|error' /tmp/$1.log | sed 's/^ *//'
  }
  px rung17 $K/s17.cl "-DTSM=128 -DTSN=128 -DTSK=16 -DWPTM=8 -DRTSM=16"
  for p in ${PROBES:-s18:128:256:16:8:16 s19:128:256:16:8:16}; do
    IFS=: read -r f tm tn tk wm wn <<< "$p"
    px ${f}_${tm}x${tn}_k${tk}_${wm}x${wn} $K/$f.cl "-DTSM=$tm -DTSN=$tn -DTSK=$tk -DWPTM=$wm -DWPTN=$wn -DPAD=4"
  done
fi 2>&1 | tee $OUT/ptx.txt

if has probe; then
  for N in ${NS:-512 1792 1920 2048 2176 2304 4096}; do
    echo "---- N=$N"
    rung17 $N
    for p in ${PROBES:-s18:128:256:16:8:16 s19:128:256:16:8:16}; do
      IFS=: read -r f tm tn tk wm wn <<< "$p"
      shaped $K/$f.cl $N $tm $tn $tk $wm $wn
    done
  done
fi 2>&1 | tee $OUT/probe.txt

# The graded tests as the suite runs them on this device: the whole test (correctness, then the
# speed check at the N its seed draws), then the speed check alone with the previous rung's
# solution in the student's place (must fail as too slow, not be waived).
{
if has tests; then
  for ex in ${RUNGS:-18_sgemm_transpose 19_sgemm_prefetch}; do
    for s in ${SEEDS:-8 32}; do
      echo "=== $ex solution seed $s"
      WORKBOOK_SEED=$s timeout 300 $bin/test-$ex-solution; echo "exit $?"
    done
  done
fi
if has previous; then
  for ex in ${RUNGS:-18_sgemm_transpose 19_sgemm_prefetch}; do
    for s in ${PSEEDS:-3 4}; do
      echo "=== $ex previous seed $s"
      WORKBOOK_SEED=$s WORKBOOK_SPEED_STUDENT=previous timeout 300 $bin/test-$ex-solution -tc='*speed*'; echo "exit $?"
    done
  done
fi
} > $OUT/tests.txt 2>&1
grep -E "^=== |^exit|^speed at|^  (yours|this rung|the previous)|waived|too slow|ERROR|FAILED|test cases" $OUT/tests.txt
