#!/bin/bash
# On the H100 machine (carry build-gpu/remote.tar.xz, made by pack.sh): a class server serving
# remote checks of rungs 15-19 on the H100 (`contest serve --remote-checks`, the grader without
# its sandbox and race pass: no bubblewrap or Oclgrind there), and a student on the same machine
# checking each rung remotely: the solutions, then 15's starter. Results and round trips in $OUT.
set -uo pipefail
root=$PWD
source "$root/bench/results/h100_opencl.sh"
mkdir -p /tmp/remote && tar -C /tmp -xJf "$root/build-gpu/remote.tar.xz"
build=/tmp/remote
export LD_LIBRARY_PATH=$build/lib
wb() { "$build/bin/workbook" --root "$1" --build-dir "$build" "${@:2}"; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; clinfo -l; } > "$OUT/gpu.txt" 2>&1
cd /tmp && rm -rf class && mkdir class && cd class
printf 'ana,Ana\n' > roster.csv
wb "$root" contest --db class.db serve --roster roster.csv --remote-checks 15 16 17 18 19 --remote-interval 0 \
    --no-sandbox --no-race-check --port 8080 > "$OUT/server.log" 2>&1 &
server=$!
for _ in $(seq 50); do grep -q "contest board" "$OUT/server.log" && break; sleep 0.2; done
token=$(sed -n 2p roster-tokens.csv | cut -d, -f3)
# The student: a copy of the course with the rungs' solutions in place, on the machine's CPU
# (the check itself runs on the server's device).
rm -rf /tmp/student && mkdir /tmp/student && tar -C "$root" --exclude='./build*' --exclude=./.git -cf - . | tar -C /tmp/student -xf -
for ex in 15_sgemm_wpt 16_sgemm_float4 17_sgemm_2d_block 18_sgemm_transpose 19_sgemm_prefetch; do
    cp "$root/solutions/$ex/mmul.cl" "/tmp/student/exercises/$ex/"
done
wb /tmp/student join http://127.0.0.1:8080 --token "$token" > "$OUT/join.txt" 2>&1
for ex in 15 16 17 18 19; do
    s=$(date +%s%N)
    timeout 110 env LD_LIBRARY_PATH=$build/lib "$build/bin/workbook" --root /tmp/student --build-dir "$build" check "$ex" --remote \
        > "$OUT/check-$ex.txt" 2>&1
    echo "exit $? after $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$OUT/check-$ex.txt"
done
cp "$root/exercises/15_sgemm_wpt/mmul.cl" /tmp/student/exercises/15_sgemm_wpt/
s=$(date +%s%N)
timeout 60 env LD_LIBRARY_PATH=$build/lib "$build/bin/workbook" --root /tmp/student --build-dir "$build" check 15 --remote \
    > "$OUT/check-15-starter.txt" 2>&1
echo "exit $? after $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$OUT/check-15-starter.txt"
wb "$root" contest --db class.db checks > "$OUT/checks.txt" 2>&1
kill $server; wait $server
# Where a check's time goes: the same grade the server runs, by hand, with its phase table.
rm -rf /tmp/g19 && mkdir -p /tmp/g19/subs/ana/19_sgemm_prefetch && cp "$root/solutions/19_sgemm_prefetch/mmul.cl" /tmp/g19/subs/ana/19_sgemm_prefetch/
timeout 120 env LD_LIBRARY_PATH=$build/lib "$build/bin/workbook" --root "$root" --build-dir "$build" grade /tmp/g19/subs \
    --out /tmp/g19/out --only 19 --no-sandbox --no-race-check > "$OUT/grade-19-phases.txt" 2>&1
echo "exit $?" >> "$OUT/grade-19-phases.txt"
