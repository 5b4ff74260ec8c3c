#!/bin/bash
# Issue 18, GPU call 8: evidence for the large-N limit: SASS of the 128x256x16 and 256x128x8
# kernels (opcode counts), and Nsight Compute's warp-state and scheduler sections if it profiles
# OpenCL kernels.
set -u
C=$PWD/.carry18
mkdir -p /etc/OpenCL/vendors
P=$(ldconfig -p | grep -m1 'libnvidia-opencl.so.1' | awk '{print $NF}')
echo "${P:-libnvidia-opencl.so.1}" > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/c18 && tar xJf $C/lib.tar.xz -C /tmp/c18
B=$C/mmul_bench
export LD_LIBRARY_PATH=/tmp/c18/lib WORKBOOK_PLATFORM=NVIDIA
mkdir -p /tmp/ptx && cd /tmp/ptx
WORKBOOK_DUMP_BINARIES=/tmp/ptx WORKBOOK_TUNING_FILE=/tmp/x.toml timeout 60 $B --device-type gpu --tune --sizes 2048 --repeats 1 > /dev/null 2>&1
for f in *TSM-128_TSN-256_TSK-16*.bin *TSM-256_TSN-128_TSK-8_WPTM-16_WPTN-8_PADA-4_SWZ-1_PREF-0*.bin; do
  g=${f%.bin}; cp $f $g.ptx; ptxas -arch=sm_90 -v $g.ptx -o $g.cubin > $g.ptxas 2>&1; cuobjdump -sass $g.cubin > $g.sass 2>&1
  echo "== $g"; cat $g.ptxas | grep -E "registers|spill"
  grep -E '^\s+/\*[0-9a-f]{4}\*/' $g.sass | awk '{print $2}' | sed 's/\..*//;s/;//' | sort | uniq -c | sort -rn | head -14 | tr '\n' ' '; echo
done > $OUT/sass_summary.txt
tar cJf $OUT/sass.tar.xz *TSM-128_TSN-256_TSK-16*.sass *TSM-256_TSN-128_TSK-8_WPTM-16_WPTN-8_PADA-4_SWZ-1_PREF-0*.sass 2>/dev/null
cat $OUT/sass_summary.txt
cd - > /dev/null
WORKBOOK_TUNING_FILE=/tmp/none.toml timeout 120 ncu --target-processes all -k mmul -c 1 --section WarpStateStats --section SchedulerStats --section Occupancy --section ComputeWorkloadAnalysis $B --device-type gpu --sizes 4096 --rows reference --repeats 1 --csv /tmp/n.csv --svg /tmp/n.svg > $OUT/ncu_4096.txt 2>&1; echo ncu rc=$?
tail -60 $OUT/ncu_4096.txt | cut -c1-150
