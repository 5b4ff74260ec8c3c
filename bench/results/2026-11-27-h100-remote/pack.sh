#!/bin/bash
# Here (the course VM), after building the SGEMM rungs' graded tests in BUILD (a Release build):
# what the H100 machine needs to serve remote checks of rungs 15-19 (`workbook`, the rungs'
# checkers and runners, stripped; the libraries the workbook links that the machine may lack),
# into build-gpu/remote.tar.xz.
#   bash bench/results/2026-11-27-h100-remote/pack.sh [BUILD]
set -euo pipefail
root=$(git rev-parse --show-toplevel)
build=$(realpath "${1:-$root/build}")
stage=$root/build-gpu/remote
rm -rf "$stage" && mkdir -p "$stage/bin" "$stage/lib"
for f in "$build"/bin/workbook "$build"/bin/kernel-prebuild "$build"/bin/test-1[5-9]_*-solution "$build"/bin/test-1[5-9]_*-starter \
         "$build"/bin/runner-1[5-9]_*-solution "$build"/bin/runner-1[5-9]_*-starter; do
    cp "$f" "$stage/bin/" && strip "$stage/bin/$(basename "$f")"
done
cp "$build/CMakeCache.txt" "$stage/"
echo '[]' > "$stage/compile_commands.json"  # no host code in these rungs: no recipe to read
for lib in $(ldd "$build/bin/workbook" | awk '/httplib|brotli|utf8proc|sqlite3|fmt|libssl|libcrypto/ {print $3}'); do cp -L "$lib" "$stage/lib/"; done
tar -C "$root/build-gpu" -cf - remote | xz -T2 -6 > "$root/build-gpu/remote.tar.xz"
ls -la "$root/build-gpu/remote.tar.xz"; du -sh "$stage"
