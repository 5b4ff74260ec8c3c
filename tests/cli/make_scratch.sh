#!/bin/bash
# CTest fixture for the CLI end-to-end tests: a copy of the course (sources only) in SCRATCH with
# exercises 01-03 only, configured and built, so the tests can edit files without touching the tree
# the rest of the suite builds from.
#   make_scratch.sh SOURCE SCRATCH
set -euo pipefail
source_dir=$1 scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch"
# Everything but build trees and the student state.
tar -C "$source_dir" --exclude='./build*' --exclude='./.workbook' --exclude='./.git' -cf - . | tar -C "$scratch" -xf -
# The course cut to its first three exercises, so lists and `check --all` match what is built.
awk '/^\[\[exercise\]\]/ { n++ } n < 4' "$source_dir/course.toml" > "$scratch/course.toml"
cmake -S "$scratch" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Debug \
    "-DWORKBOOK_ONLY=01_device_info;02_vadd;03_vadd_chain" >/dev/null
cmake --build "$scratch/build" -j2 >/dev/null
echo "scratch workbook ready in $scratch"
