#!/bin/bash
# The contest reference kernel's study on the GPU machine, one parametrised script in place of a
# script per session: each session of issue 18 was one sequence of these steps (NOTES.md beside
# the results says which). Run there with the carried build (bench/results/h100_opencl.sh
# registers NVIDIA's driver), results under $OUT:
#   bench/h100_study.sh [--sizes LIST] STEP...
# Steps:
#   tune              tune every size class, store the choices ($OUT/tuning.toml), log the table
#   bench             bench the reference (tuned choices), CLBlast and cuBLAS side by side
#   default           bench the reference with the untuned defaults (the size model) alone
#   cublas            cuBLAS (PyTorch, TF32 off) timed over back-to-back calls and one call each
#   sass:PATTERN      PTX of the kernels whose build options match PATTERN, their registers,
#                     spills and SASS opcode counts (ptxas, cuobjdump)
#   ncu:N             Nsight Compute's warp-state, scheduler and occupancy sections at N
#   ignored           a stored choice that does not fit is ignored, and said so
# Default sizes: 512,1024,1536,2048,3000,4096,6000,8192.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sizes=512,1024,1536,2048,3000,4096,6000,8192
if [ "${1:-}" = --sizes ]; then sizes=$2; shift 2; fi
[ $# -gt 0 ] || { sed -n 2,20p "$0"; exit 2; }
: "${OUT:?set OUT to the folder the results go to}"
bench=${MMUL_BENCH:-$here/../build-gpu/bin/mmul_bench}
[ -x "$bench" ] || { echo "no mmul_bench at $bench (set MMUL_BENCH)" >&2; exit 2; }
# shellcheck source=results/h100_opencl.sh
source "$here/results/h100_opencl.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
export WORKBOOK_TUNING_FILE=$OUT/tuning.toml

cublas() { python3 "$here/cublas_rows.py" "$sizes"; }

sass() {  # sass PATTERN: PTX, registers, spills and opcode counts of the matching kernels
    local dir=$OUT/sass-$1
    mkdir -p "$dir"
    WORKBOOK_DUMP_BINARIES=$dir WORKBOOK_TUNING_FILE=/tmp/study-scratch.toml \
        timeout 60 "$bench" --device-type gpu --tune --sizes 4096 --repeats 1 > /dev/null 2>&1
    for f in "$dir"/*$1*.bin; do
        [ -f "$f" ] || continue
        local g=${f%.bin}
        cp "$f" "$g.ptx"
        ptxas -arch=sm_90 -v "$g.ptx" -o "$g.cubin" > "$g.ptxas" 2>&1 && cuobjdump -sass "$g.cubin" > "$g.sass" 2>&1
        echo "== $(basename "$g"): $(grep -hE 'registers|spill' "$g.ptxas" | tr '\n' ' ')"
        grep -E '^\s+/\*[0-9a-f]{4}\*/' "$g.sass" | awk '{print $2}' | sed 's/\..*//;s/;//' | sort | uniq -c |
            sort -rn | head -14 | tr '\n' ' '
        echo
        rm -f "$g.cubin"
    done | tee "$OUT/sass_summary-$1.txt"
    tar -C "$dir" -cJf "$OUT/sass-$1.tar.xz" . && rm -rf "$dir"
}

for step in "$@"; do
    echo "== $step"
    case $step in
    tune)
        timeout 250 "$bench" --device-type gpu --tune --sizes "$sizes" --repeats 5 > "$OUT/h100_tune.txt" 2>&1
        echo "tune rc=$?"; grep -E "^best" "$OUT/h100_tune.txt" | cut -c1-100 ;;
    bench)
        timeout 250 "$bench" --device-type gpu --sizes "$sizes" --repeats 9 --serial-max 0 \
            --rows reference,clblast,cublas --cublas python3 --csv "$OUT/h100_bench.csv" --svg "$OUT/h100_bench.svg" \
            > "$OUT/h100_bench.txt" 2>&1
        echo "bench rc=$?"; grep -A12 "^     N" "$OUT/h100_bench.txt" ;;
    default)
        WORKBOOK_TUNING_FILE=/tmp/study-none.toml timeout 150 "$bench" --device-type gpu --sizes "$sizes" --repeats 9 \
            --serial-max 0 --rows reference --csv "$OUT/h100_default.csv" --svg "$OUT/h100_default.svg" \
            > "$OUT/h100_default.txt" 2>&1
        echo "default rc=$?"; grep -A12 "^     N" "$OUT/h100_default.txt" ;;
    cublas) cublas | tee "$OUT/cublas_back_to_back.txt" ;;
    sass:*) sass "${step#sass:}" ;;
    ncu:*)
        WORKBOOK_TUNING_FILE=/tmp/study-none.toml timeout 120 ncu --target-processes all -k mmul -c 1 \
            --section WarpStateStats --section SchedulerStats --section Occupancy --section ComputeWorkloadAnalysis \
            "$bench" --device-type gpu --sizes "${step#ncu:}" --repeats 1 --rows reference > "$OUT/ncu_${step#ncu:}.txt" 2>&1
        echo "ncu rc=$?"; tail -60 "$OUT/ncu_${step#ncu:}.txt" | cut -c1-150 ;;
    ignored)
        WORKBOOK_TUNING_FILE=/tmp/study-bad.toml timeout 30 "$bench" --device-type gpu --tune --sizes 512 --repeats 1 \
            > /dev/null 2>&1
        sed -i 's/^TSM = .*/TSM = 7/' /tmp/study-bad.toml
        WORKBOOK_TUNING_FILE=/tmp/study-bad.toml timeout 30 "$bench" --device-type gpu --sizes 512 --rows reference \
            > "$OUT/h100_stored_choice_ignored.txt" 2>&1
        grep -E "ignored|contest reference" "$OUT/h100_stored_choice_ignored.txt" | cut -c1-250 ;;
    *) echo "unknown step $step (see the usage at the top of $0)" >&2; exit 2 ;;
    esac
done
