#!/bin/bash
# Here (the course VM), after a full build: the calibration's binaries for the H100, stripped, and
# its manifest with the paths made relative (@BUILD@, @ROOT@), into build-gpu/cal.tar.xz.
#   bash bench/results/2026-11-26-h100-calibration/pack.sh [BUILD]
# EXERCISES="20_sgemm_tune ..." packs those exercises' entries only (run.sh then with ONLY="--only 20").
set -euo pipefail
root=$(git rev-parse --show-toplevel)
build=$(realpath "${1:-$root/build}")
stage=$root/build-gpu/cal
rm -rf "$stage" && mkdir -p "$stage/bin"
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
extras="test-18_sgemm_transpose-solution test-19_sgemm_prefetch-solution runner-18_sgemm_transpose-solution \
runner-19_sgemm_prefetch-solution"
[ -z "${EXERCISES:-}" ] || extras=""
for extra in workbook $extras; do
    [ -e "$stage/bin/$extra" ] || { cp "$build/bin/$extra" "$stage/bin/" && strip "$stage/bin/$extra"; }
done
cp -r "$build/kernels" "$stage/" 2>/dev/null || true
# What the workbook program links that a GPU machine may lack (run.sh puts it on its library path).
mkdir -p "$stage/lib"
for lib in $(ldd "$build/bin/workbook" | awk '/httplib|brotli|utf8proc|sqlite3/ {print $3}'); do cp -L "$lib" "$stage/lib/"; done
tar -C "$root/build-gpu" -cf - cal | xz -T1 -9 > "$root/build-gpu/cal.tar.xz"
ls -la "$root/build-gpu/cal.tar.xz"; du -sh "$stage"
