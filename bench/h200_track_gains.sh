#!/bin/bash
# Issue 64 on the lent NVIDIA GPU: each SGEMM track rung's gain over the previous rung at every N
# the GPU speed check may draw, the contest reference (tuned) against cuBLAS, and (issue 60) exercise
# 02 graded through the OpenCL broker.
#   bash bench/h200_track_gains.sh pack         here, after a build: the binaries into $CARRY
#   bash bench/h200_track_gains.sh STEP...      there, from the repository root, results under $OUT;
#                                               steps: info bench speed variants previous host06 reference broker (track = bench speed)
# $CARRY (default .devcarry-h64) holds pack.tar.xz (bin/ stripped, lib/ the broker's ICD, syslib/
# libraries the machine may lack, calibration-02.json) and extra-ex02.tar.gz (the calibration's
# generated kernels, build/exercises/02_vadd/mutants): carry both. The binaries name /work/main and
# /work/main/build (the broker, the cuBLAS script, the calibration manifest): both are linked there
# when the machine lacks them. The lent machine brings back few files: tar $OUT into one afterwards.
set -uo pipefail
root=$PWD
carry=$root/${CARRY:-.devcarry-h64}
if [ "${1:-}" = pack ]; then
  set -e
  build=${BUILD:-$root/build}
  rm -rf "${carry:?}" && mkdir -p "$carry/bin" "$carry/lib" "$carry/syslib"
  files="mmul_bench workbook workbook-broker expect_failure test-02_vadd-starter test-02_vadd-solution
    test-02_vadd-mutant-host_reads_the_witness_key test-02_vadd-mutant-host_sums_on_cpu"
  for r in 15_sgemm_wpt 16_sgemm_float4 17_sgemm_2d_block 18_sgemm_transpose 19_sgemm_prefetch; do
    files="$files test-$r-solution runner-$r-solution"
  done
  (  # not while a build writes them (the lock the course's builds take)
    flock -w 300 9
    # Correct variants of the track's rungs in other styles (tests/variants/1[5-9]_*/), for step variants.
    # And the planted bugs and slow kernels that only the GPU's speed (or PoCL's traffic) catches, for the same step;
    # exercise 06 (solution and planted bugs), timed through the broker, for step host06.
    cd "$build/bin" && cp $files runner-02_vadd-* $(ls | grep -E '^(test|runner)-1[5-9]_sgemm_[a-z0-9_]+-(variant-|slow-|mutant-(loads_interleaved|prefetch_stored_as_loaded)$)') \
      $(ls | grep -E '^(test|runner)-06_mmul_host-(solution|mutant-)') "$carry/bin/"
    cp "$build/lib/libworkbook_broker_icd.so" "$carry/lib/"
    tar -C "$build" -czf "$carry/extra-ex02.tar.gz" exercises/02_vadd/mutants
  ) 9> /tmp/build.lock
  strip "$carry"/bin/* "$carry"/lib/*.so
  python3 - "$build/calibration.json" "$carry/calibration-02.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["entries"] = [e for e in m["entries"] if e["exercise"] == "02_vadd"]
json.dump(m, open(sys.argv[2], "w"), indent=1)
PY
  for l in libclblast.so.1 libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libcpp-httplib.so.0.11 libbrotlicommon.so.1 \
           libbrotlidec.so.1 libbrotlienc.so.1 libutf8proc.so.2 libsqlite3.so.0 libssl.so.3 libcrypto.so.3 libz.so.1; do
    cp -L "$(ldd "$carry/bin/mmul_bench" "$carry/bin/workbook" | awk -v l=$l '$1 == l {print $3; exit}')" "$carry/syslib/"
  done
  tar -C "$carry" -cf - bin lib syslib calibration-02.json | xz -T1 "-${XZ_LEVEL:-6}" > "$carry/pack.tar.xz"
  rm -rf "${carry:?}/bin" "${carry:?}/lib" "${carry:?}/syslib" "${carry:?}/calibration-02.json"
  ls -l "$carry"; exit 0
fi
: "${OUT:?set OUT to the folder the results go to}"
[ -d "$carry/bin" ] || { mkdir -p "$carry" && tar -C "$carry" -xJf "$carry/pack.tar.xz"; }
# Generated files the calibration reads from the build (exercises/02_vadd/mutants/*/vadd.cl).
for x in "$carry"/extra-*.tar.gz; do [ -e "$x" ] && tar -C "$carry" -xzf "$x"; done
# shellcheck source=results/h100_opencl.sh
source "$root/bench/results/h100_opencl.sh"
# Every other driver file aside too (as the 2026-11-26 calibration did); where the loader still
# lists another platform, WORKBOOK_PLATFORM=NVIDIA (h100_opencl.sh) chooses.
for f in /etc/OpenCL/vendors/*.icd; do [ "$(basename "$f")" = nvidia.icd ] || mv "$f" /tmp/icd-off/; done
# Only the carried libraries this machine lacks.
mkdir -p "$carry/uselib"
for l in "$carry"/syslib/*; do ldconfig -p | grep -q "^[[:space:]]*$(basename "$l") " || ln -sf "$l" "$carry/uselib/"; done
export LD_LIBRARY_PATH=$carry/uselib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# A link left by an earlier call on this machine points at that call's copy: replaced.
if [ -L /work/main ] || [ ! -e /work/main ]; then mkdir -p /work && ln -sfn "$root" /work/main; fi
if [ -L /work/main/build ] || [ ! -e /work/main/build ]; then ln -sfn "$carry" /work/main/build
elif [ ! -e /work/main/build/bin/workbook-broker ]; then
  mkdir -p /work/main/build/bin /work/main/build/lib && cp -a "$carry"/bin/* /work/main/build/bin/ && cp -a "$carry"/lib/* /work/main/build/lib/
fi
bin=/work/main/build/bin
export WORKBOOK_RACE_CHECK=off
sizes=${SIZES:-1792 1920 2048 2176 2304}

for step in "$@"; do
  echo "== $step $(date -u +%T)"
  case $step in
  info)
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
    clinfo 2>/dev/null | grep -E "^  (Platform Name|Platform Version)|^  Device (Name|Version)|Driver Version" | sort -u
    ldd "$bin"/* /work/main/build/lib/*.so 2>/dev/null | grep "not found" | sort -u
    echo "carried libraries used: $(ls "$carry/uselib" | tr '\n' ' ')"
    python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))" ;;
  track) bash "$0" bench speed ;;
  bench)
    # All of rungs 15-19 side by side at each N, in one process: median of REPEATS launches;
    # PASSES whole runs, to see the run-to-run spread.
    for p in $(seq "${PASSES:-3}"); do
      timeout 200 "$bin/mmul_bench" --rows ladder --rungs 15 16 17 18 19 --sizes ${sizes// /,} \
        --repeats "${REPEATS:-30}" --serial-max 0 --csv "$OUT/track-bench-$p.csv" --svg "$OUT/track-bench-$p.svg" \
        > "$OUT/track-bench-$p.txt" 2>&1
      echo "bench pass $p exit $?"
    done ;;
  speed)
    # The graded speed check itself (previous rung, this rung's solution and the solution as the
    # student taking turns on fresh inputs; the fastest of its rounds), once per rung and N.
    for n in $sizes; do
      for ex in 16_sgemm_float4 17_sgemm_2d_block 18_sgemm_transpose 19_sgemm_prefetch; do
        s=$SECONDS
        WORKBOOK_SEED=${SEED:-7} WORKBOOK_SPEED_N=$n timeout 150 "$bin/test-$ex-solution" -tc='*speed*' \
          > "$OUT/speed-$n-$ex.txt" 2>&1
        rc=$?
        printf '%5d %-20s exit %d %4d s  %s\n' "$n" "$ex" $rc $((SECONDS - s)) \
          "$(grep -E "^  this rung's solution" "$OUT/speed-$n-$ex.txt" | sed 's/  */ /g')"
      done
    done | tee "$OUT/speed-summary.txt" ;;
  variants)
    # Issue 64: each correct variant in another style (tests/variants/) through its rung's graded
    # speed check at every N, as the solutions in step speed.
    for n in $sizes; do
      for t in "$bin"/test-1[5-9]_sgemm_*-variant-* "$bin"/test-1[5-9]_sgemm_*-mutant-* "$bin"/test-1[5-9]_sgemm_*-slow-*; do
        [ -e "$t" ] || continue
        v=${t##*/test-}
        s=$SECONDS
        WORKBOOK_SEED=${SEED:-7} WORKBOOK_SPEED_N=$n timeout 150 "$t" -tc='*speed*' > "$OUT/variant-$n-$v.txt" 2>&1
        rc=$?
        printf '%5d %-45s exit %d %4d s  %s  %s\n' "$n" "$v" $rc $((SECONDS - s)) \
          "$(grep -E "^  yours" "$OUT/variant-$n-$v.txt" | head -1 | sed 's/  */ /g')" \
          "$(grep -m1 -oE 'it needs [0-9.]+x|requirement is waived|Status: [A-Z]+' "$OUT/variant-$n-$v.txt")"
      done
    done | tee "$OUT/variants-summary.txt" ;;
  previous)
    # Each rung's previous solution in the student's place (the suite's NN.speed-previous): a
    # correct kernel without the rung's lesson, which must fail wherever the lesson is graded.
    for n in $sizes; do
      for ex in 15_sgemm_wpt 16_sgemm_float4 17_sgemm_2d_block 18_sgemm_transpose 19_sgemm_prefetch; do
        s=$SECONDS
        WORKBOOK_SPEED_STUDENT=previous WORKBOOK_SEED=${SEED:-7} WORKBOOK_SPEED_N=$n timeout 150 \
          "$bin/test-$ex-solution" -tc='*speed*' > "$OUT/previous-$n-$ex.txt" 2>&1
        rc=$?
        printf '%5d %-20s exit %d %4d s  %s  %s  %s\n' "$n" "$ex" $rc $((SECONDS - s)) \
          "$(grep -E "^  yours" "$OUT/previous-$n-$ex.txt" | head -1 | sed 's/  */ /g')" \
          "$(grep -E "^  this rung's solution" "$OUT/previous-$n-$ex.txt" | head -1 | sed 's/  */ /g' | cut -c1-90)" \
          "$(grep -m1 -oE 'it needs [0-9.]+x|requirement is waived|Status: [A-Z]+' "$OUT/previous-$n-$ex.txt")"
      done
    done | tee "$OUT/previous-summary.txt" ;;
  lines)
    # Chosen speed checks, their tables printed: LINES="N test-name; N test-name; ..." (test-name
    # without test-, as in the summaries above), REPS times each.
    for rep in $(seq "${REPS:-1}"); do
      IFS=';' read -ra picks <<< "${LINES:?set LINES}"
      for pick in "${picks[@]}"; do
        read -r n name <<< "$pick"
        echo "-- N = $n $name (run $rep)"
        WORKBOOK_SEED=${SEED:-7} WORKBOOK_SPEED_N=$n timeout 150 "$bin/test-$name" -tc='*speed*' 2>&1 |
          grep -E "GFLOPS|needs|waived|rounds|Status:" | cut -c1-300
        echo "exit ${PIPESTATUS[0]}"
      done
    done | tee -a "$OUT/lines.txt" ;;
  host06)
    # Exercise 06 on the GPU, its sizes' calls through the OpenCL broker (kernel_seconds must be
    # a launch of mmul's own device time): the solution passes, each planted bug fails.
    for t in "$bin"/test-06_mmul_host-*; do
      s=$SECONDS
      WORKBOOK_SEED=${SEED:-7} timeout 120 "$t" > "$OUT/${t##*/}.txt" 2>&1
      rc=$?
      printf '%-60s exit %d %4d s  %s\n' "${t##*/test-}" $rc $((SECONDS - s)) \
        "$(grep -m1 -oE 'is not the end - start of [a-z ]+|did not run the kernel it was given|Status: [A-Z]+' "$OUT/${t##*/}.txt")"
    done | tee "$OUT/host06-summary.txt" ;;
  reference)
    # The existing study script: tune every size (its store in $OUT/tuning.toml), then the bench
    # rows side by side (reference tuned, CLBlast, cuBLAS through scripts/cublas_sgemm.py), then
    # cuBLAS over calls back to back.
    MMUL_BENCH=$bin/mmul_bench bash "$root/bench/h100_study.sh" --sizes "${REF_SIZES:-1024,1536,2048,3000,4096,6000,8192}" \
      tune bench cublas ;;
  broker)
    sol=$root/solutions/02_vadd/vadd.cl
    echo "broker files: $(ls -l "$bin/workbook-broker" /work/main/build/lib/libworkbook_broker_icd.so | awk '{print $NF}' | tr '\n' ' ')"
    # 1. Exercise 02's planted bugs and correct variants through the grader's checker (no race pass).
    s=$SECONDS
    timeout 300 "$bin/workbook" --root "$root" --build-dir /work/main/build calibrate --manifest "$carry/calibration-02.json" \
      --only 02 --no-race-check --seed "${SEED:-424242}" --json "$OUT/calibrate-02.json" > "$OUT/calibrate-02.txt" 2> "$OUT/calibrate-02.progress"
    echo "calibrate exit $? after $((SECONDS - s)) s"; cat "$OUT/calibrate-02.txt"
    # 2. The solution's graded test, with a wrapper in the broker's place that logs each start.
    mv "$bin/workbook-broker" "$bin/workbook-broker.real"
    printf '#!/bin/sh\necho "broker started: $*" >> %s/broker-starts.log\nexec %s/workbook-broker.real "$@"\n' "$OUT" "$bin" > "$bin/workbook-broker"
    chmod +x "$bin/workbook-broker"
    WORKBOOK_SEED=7 timeout 120 "$bin/test-02_vadd-solution" > "$OUT/02-solution.txt" 2>&1
    echo "02 solution exit $? (0: passed); broker starts logged: $(wc -l < "$OUT/broker-starts.log" 2>/dev/null || echo 0)"
    # 3. The key-reading host, as ctest runs it (expect_failure: exit 0 when the test fails with the message).
    WORKBOOK_SEED=7 timeout 150 "$bin/expect_failure" --allow-crash --timeout 120 --kernel "$sol" \
      --expect-message "did not run the kernel it was given" "$bin/test-02_vadd-mutant-host_reads_the_witness_key" \
      > "$OUT/02-mutant-host_reads_the_witness_key.txt" 2>&1
    echo "ctest 02_vadd.mutant-host_reads_the_witness_key exit $? (0: caught with the expected message)"
    WORKBOOK_SEED=7 timeout 150 "$bin/expect_failure" --allow-crash --timeout 120 --kernel "$sol" \
      --expect-message "did not run the kernel it was given" "$bin/test-02_vadd-mutant-host_sums_on_cpu" \
      > "$OUT/02-mutant-host_sums_on_cpu.txt" 2>&1
    echo "ctest 02_vadd.mutant-host_sums_on_cpu exit $? (0: caught with the expected message)"
    echo "broker starts logged in all: $(wc -l < "$OUT/broker-starts.log" 2>/dev/null || echo 0)"
    # 4. Control: the broker taken away (its file not executable), the key-reading host again.
    chmod -x "$bin/workbook-broker"
    WORKBOOK_SEED=7 timeout 120 "$bin/test-02_vadd-mutant-host_reads_the_witness_key" > "$OUT/02-mutant-key-no-broker.txt" 2>&1
    echo "control, no broker: the key-reading host's test exit $? (expected 0: it passes without the broker)"
    rm "$bin/workbook-broker" && mv "$bin/workbook-broker.real" "$bin/workbook-broker" ;;
  *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
