#!/bin/bash
# CTest fixture for the CLI end-to-end tests: a copy of the course (sources only) in SCRATCH with
# exercises 01-03 only, so the tests can edit files without touching the tree the rest of the
# suite builds from. Its build compiles those exercises only: it links the util layer the main
# build (BUILD) compiled (-DWORKBOOK_PREBUILT), and bin/workbook there is a two-line script that
# runs the main build's `workbook` on the scratch tree (--root, --build-dir).
#   make_scratch.sh SOURCE SCRATCH BUILD
set -euo pipefail
source_dir=$1 scratch=$2 main_build=$3
[ -x "$main_build/bin/workbook" ] && [ -f "$main_build/workbook-util-layer.cmake" ] ||
    { echo "no built workbook in $main_build: build it first (cmake --build $main_build)" >&2; exit 1; }
rm -rf "$scratch"
mkdir -p "$scratch"
# Everything but build trees and the student state.
tar -C "$source_dir" --exclude='./build*' --exclude='./.workbook' --exclude='./.git' -cf - . | tar -C "$scratch" -xf -
# The course cut to its first three exercises, so lists and `check --all` match what is built.
awk '/^\[\[exercise\]\]/ { n++ } n < 4' "$source_dir/course.toml" > "$scratch/course.toml"
only="01_device_info;02_vadd;03_vadd_chain"
cmake -S "$scratch" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Debug "-DWORKBOOK_ONLY=$only" \
    "-DWORKBOOK_PREBUILT=$main_build" >/dev/null
cmake --build "$scratch/build" -j2 >/dev/null
cat > "$scratch/build/bin/workbook" <<SCRIPT
#!/bin/sh
exec "$main_build/bin/workbook" --root "$scratch" --build-dir "$scratch/build" "\$@"
SCRIPT
chmod +x "$scratch/build/bin/workbook"
echo "scratch workbook ready in $scratch"
