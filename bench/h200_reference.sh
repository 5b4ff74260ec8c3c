#!/bin/bash
# Issue 64, first bullet, on the lent NVIDIA GPU (an H200): variants of the contest reference kernel
# against cuBLAS, in one call. Here, build the sweep tool into $CARRY (git-ignored), then run there
# from the repository root with $CARRY carried, results under $OUT:
#   g++ -O2 -std=c++17 bench/reference_variants.cpp -o .devcarry-ref64/reference_variants -lOpenCL
#   git show 01aeb40:contest/reference/mmul_gpu.cl > .devcarry-ref64/mmul_gpu_old.cl   # the "before" kernel
#   OUT=... bash bench/h200_reference.sh info cublas sweep:PLAN cublas ...
# Steps:
#   info           GPU, driver, OpenCL platform, PyTorch
#   cublasnames    the cuBLAS kernel PyTorch's matmul runs at each N (its profiler)
#   cublas         cuBLAS through PyTorch (TF32 off): calls back to back between two events, median of
#                  5 (the issue's measure), and one call per event pair; appended to cublas.txt
#   sweep:PLAN     bench/reference_variants over PLAN (label | kernel | options | sizes) at $SIZES
#                  (default the seven sizes of the issue), $ROUNDS rounds of $PER launches each
#   (for tune and bench, pack mmul_bench here first: mkdir -p $CARRY/bin $CARRY/syslib; cp and strip
#   build/bin/mmul_bench into bin/; copy libopenblas.so.0, libclblast.so.1, libgfortran.so.5 and
#   libquadmath.so.0 as `ldd build/bin/mmul_bench` finds them into syslib/, libOpenCL.so.1 into $CARRY;
#   then `tar -C $CARRY -cf - bin syslib | xz > $CARRY/pack.tar.xz` and remove bin/ and syslib/)
#   tune:TUNING    the workbook's own mmul_bench ($CARRY/pack.tar.xz: bin/mmul_bench, syslib/) tunes
#                  every size, its choices stored in TUNING
#   bench:TUNING   mmul_bench with the stored choices in TUNING: rows reference and cuBLAS side by side
# While the steps run, the SM clock and power are logged every 500 ms (clocks.csv).
set -uo pipefail
root=$PWD
carry=$root/${CARRY:-.devcarry-ref64}
: "${OUT:?set OUT to the folder the results go to}"
sizes=${SIZES:-1024,1536,2048,3000,4096,6000,8192}
# shellcheck source=results/h100_opencl.sh
source "$root/bench/results/h100_opencl.sh"
for f in /etc/OpenCL/vendors/*.icd; do [ "$(basename "$f")" = nvidia.icd ] || mv "$f" /tmp/icd-off/; done
# mmul_bench and its libraries, where packed here (pack.tar.xz: bin/mmul_bench, syslib/); its cuBLAS
# row runs /work/main/scripts/cublas_sgemm.py.
[ -f "$carry/pack.tar.xz" ] && [ ! -d "$carry/bin" ] && tar -C "$carry" -xJf "$carry/pack.tar.xz"
[ -e /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }
# The carried ICD loader and libraries, only where the machine lacks them.
mkdir -p /tmp/uselib
for l in "$carry"/libOpenCL.so.1 "$carry"/syslib/*; do
  [ -e "$l" ] && ! ldconfig -p | grep -q "^[[:space:]]*$(basename "$l") " && ln -sf "$l" /tmp/uselib/
done
export LD_LIBRARY_PATH=/tmp/uselib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 500 > "$OUT/clocks.csv" 2>&1 &
smi=$!

cublas() { python3 "$root/bench/cublas_rows.py" "$sizes"; }

for step in "$@"; do
  echo "== $step $(date -u +%T)"
  case $step in
  info)
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
    clinfo 2>/dev/null | grep -E "^  (Platform Name|Platform Version)|^  Device (Name|Version)|Driver Version" | sort -u
    python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))" ;;
  cublas) cublas | tee -a "$OUT/cublas.txt" ;;
  cublasnames)  # which cuBLAS kernel runs at each N (PyTorch's profiler)
    python3 - "$sizes" <<'PY' 2>&1 | tee -a "$OUT/cublas.txt"
import sys, torch
from torch.profiler import profile, ProfilerActivity
torch.backends.cuda.matmul.allow_tf32 = False
for n in map(int, sys.argv[1].split(",")):
    a = torch.rand(n, n, device="cuda"); b = torch.rand(n, n, device="cuda"); c = torch.empty(n, n, device="cuda")
    torch.matmul(a, b, out=c); torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        torch.matmul(a, b, out=c); torch.cuda.synchronize()
    names = sorted({e.name for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA})
    print(f"N={n} cuBLAS kernels: {names}", flush=True)
PY
    ;;
  sweep:*)
    plan=${step#sweep:}
    timeout "${SWEEP_TIMEOUT:-420}" "$carry/reference_variants" --plan "$plan" --sizes "$sizes" \
      --rounds "${ROUNDS:-5}" --per "${PER:-3}" > "$OUT/sweep-$(basename "$plan" .txt).txt" 2>&1
    echo "sweep rc=$?"; grep -v "^# built" "$OUT/sweep-$(basename "$plan" .txt).txt" | sort -k1,1n -k3,3nr | cut -c1-100 ;;
  tune:*)
    WORKBOOK_TUNING_FILE=${step#tune:} timeout 280 "$carry/bin/mmul_bench" --device-type gpu --tune --sizes "$sizes" \
      --repeats 5 > "$OUT/tune-$(basename "${step#tune:}" .toml).txt" 2>&1
    echo "tune rc=$?"; grep -E "^best" "$OUT/tune-$(basename "${step#tune:}" .toml).txt" | cut -c1-110 ;;
  bench:*)
    WORKBOOK_TUNING_FILE=${step#bench:} timeout 250 "$carry/bin/mmul_bench" --device-type gpu --sizes "$sizes" \
      --repeats "${REPEATS:-9}" --serial-max 0 --rows reference,cublas --cublas python3 \
      > "$OUT/bench-$(basename "${step#bench:}" .toml).txt" 2>&1
    echo "bench rc=$?"; grep -B2 -A14 "^     N" "$OUT/bench-$(basename "${step#bench:}" .toml).txt" ;;
  *) echo "unknown step $step" >&2 ;;
  esac
done
kill "$smi" 2>/dev/null
exit 0
