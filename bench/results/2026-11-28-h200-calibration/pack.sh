#!/bin/bash
# Here (the course VM), after a full build: the calibration's binaries for the lent GPU, stripped,
# its manifest with the paths made relative (@BUILD@, @ROOT@), the race pass's Oclgrind plugins
# (build/lib/libworkbook_{local_init,fingerprint}.so: their paths are compiled into the binaries,
# run.sh puts them back there) and `git archive` of the commit built, into build-gpu/:
#   bash bench/results/2026-11-28-h200-calibration/pack.sh [BUILD] [COMMIT]
# Adapted from ../2026-11-26-h100-calibration/pack.sh: the build is read under /tmp/build.lock (as
# bench/h200_track_gains.sh does), the plugins and the source archive are packed, and
# `PART=oclgrind` packs Debian's Oclgrind (build-gpu/oclgrind.tar.xz: root/ the two packages' files
# at their own paths, libs/ what ldd names for oclgrind and the plugins, libc's family left out);
# `PART=broker` packs the OpenCL broker (build-gpu/broker.tar.xz).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
build=$(realpath "${1:-$root/build}")
commit=${2:-HEAD}
mkdir -p "$root/build-gpu"
if [ "${PART:-cal}" = oclgrind ]; then
    o=$root/build-gpu/ocl && rm -rf "$o" && mkdir -p "$o/root" "$o/libs"
    for p in oclgrind liboclgrind-21.10; do
        dpkg -L "$p" | while read -r f; do [ -f "$f" ] && { mkdir -p "$o/root$(dirname "$f")"; cp -a "$f" "$o/root$f"; }; done
    done
    ldd /usr/bin/oclgrind /usr/lib/x86_64-linux-gnu/liboclgrind-21.10.so "$build"/lib/libworkbook_local_init.so \
        "$build"/lib/libworkbook_fingerprint.so | awk '$3 ~ /^\// {print $3}' | sort -u |
        grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libz|liblzma|libdl|libpthread|librt)\.so' |
        while read -r l; do cp -L "$l" "$o/libs/"; done
    ls "$o/libs"
    tar -C "$o" -cf - root libs | xz -T1 -9 > "$root/build-gpu/oclgrind.tar.xz"
    rm -rf "$o"; ls -la "$root/build-gpu/oclgrind.tar.xz"; exit 0
fi
if [ "${PART:-cal}" = broker ]; then
    # The OpenCL broker the runners start (workbook-broker, libworkbook_broker_icd.so: their paths
    # are compiled in, run.sh puts them at /work/main/build/{bin,lib}). Written into pack.sh after the
    # run: on 2026-11-28 these same commands were typed by hand.
    rm -rf /tmp/xb && mkdir -p /tmp/xb/bin /tmp/xb/lib && cp "$build/bin/workbook-broker" /tmp/xb/bin/ \
        && cp "$build/lib/libworkbook_broker_icd.so" /tmp/xb/lib/ && strip /tmp/xb/bin/* /tmp/xb/lib/*
    tar -C /tmp/xb -cJf "$root/build-gpu/broker.tar.xz" bin lib && rm -rf /tmp/xb; ls -la "$root/build-gpu/broker.tar.xz"; exit 0
fi
stage=$root/build-gpu/cal
rm -rf "$stage" && mkdir -p "$stage/bin" "$stage/plugins"
(
flock -w 600 9
python3 - "$build" "$root" "$stage" <<'PY'
import json, os, shutil, subprocess, sys
build, root, stage = sys.argv[1:]
m = json.load(open(f"{build}/calibration.json"))
def place(path):
    if path.startswith(build + "/"):
        rel = path[len(build) + 1:]
        dst = f"{stage}/{rel}"
        if not os.path.exists(dst):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(path, dst)
            if rel.startswith("bin/"): subprocess.run(["strip", dst], check=True)
        # A checker finds its runner beside it: the solution's test needs the solution's runner.
        if rel.startswith("bin/test-") and rel.endswith("-solution"):
            runner = f"{build}/bin/runner-" + rel[len("bin/test-"):]
            if os.path.exists(runner) and not os.path.exists(f"{stage}/bin/" + os.path.basename(runner)):
                shutil.copy2(runner, f"{stage}/bin/")
                subprocess.run(["strip", f"{stage}/bin/" + os.path.basename(runner)], check=True)
        return "@BUILD@/" + rel
    if path.startswith(root + "/"): return "@ROOT@/" + path[len(root) + 1:]
    raise SystemExit(f"outside the build and the tree: {path}")
only = os.environ.get("EXERCISES", "").split()
if only: m["entries"] = [e for e in m["entries"] if e["exercise"] in only]
for e in m["entries"]:
    for k in ("checker", "runner", "reference"):
        e[k] = place(e[k])
    e["kernels"] = [place(k) for k in e["kernels"]]
json.dump(m, open(f"{stage}/calibration.template.json", "w"), indent=1)
PY
for extra in workbook; do
    [ -e "$stage/bin/$extra" ] || { cp "$build/bin/$extra" "$stage/bin/" && strip "$stage/bin/$extra"; }
done
cp -r "$build/kernels" "$stage/" 2>/dev/null || true
cp "$build"/lib/libworkbook_local_init.so "$build"/lib/libworkbook_fingerprint.so "$stage/plugins/"
# Which commit and when: the build's binaries and the tree's state at packing time.
{ echo "build $build"; git -C "$root" log -1 --format='%H %ci' "$commit"; git -C "$root" status --short;
  ls -la --time-style=full-iso "$build/bin/workbook" "$build/calibration.json" "$build"/lib/*.so; } > "$stage/packed-from.txt"
) 9> /tmp/build.lock
# What the workbook program links that a GPU machine may lack (run.sh puts it on its library path).
mkdir -p "$stage/lib"
for lib in $(ldd "$build/bin/workbook" | awk '/httplib|brotli|utf8proc|sqlite3/ {print $3}'); do cp -L "$lib" "$stage/lib/"; done
git -C "$root" archive --format=tar "$commit" | xz -T1 -6 > "$root/build-gpu/src.tar.xz"
tar -C "$root/build-gpu" -cf - cal | xz -T1 -9 > "$root/build-gpu/cal.tar.xz"
ls -la "$root/build-gpu/"*.tar.xz; du -sh "$stage"
