#!/usr/bin/env bash
# The diagrams take their numbers from the code: in a scratch copy, exercise 10's tile size goes
# from its value to another, and the tile pictures' labels follow; exercise 12's widths and
# exercise 14's work-group size likewise. A number the generator cannot find stops it with the
# file's name.
#
#   slides/tests/diagram_numbers.sh SCRATCH_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
scratch=${1:?usage: diagram_numbers.sh SCRATCH_DIR}
rm -rf "$scratch"
mkdir -p "$scratch"
cp -r "$here/slides" "$here/exercises" "$here/solutions" "$here/common" "$scratch/"

failures=0
fail() { echo "FAIL $*" >&2; failures=$((failures + 1)); }
labels() { WORKBOOK_ROOT=$scratch "$scratch/slides/tools/diagram.sh" --svg "$1" | grep -o '<text[^>]*>[^<]*</text>' | sed -e 's/<[^>]*>//g; s/&#45;/-/g'; }
expect() {  # DIAGRAM TEXT: the label must be there
    labels "$1" | grep -F -- "$2" >/dev/null || fail "$1: no label '$2' (labels: $(labels "$1" | tr '\n' '|' | cut -c1-300))"
}
expect_not() {
    if labels "$1" | grep -F -- "$2" >/dev/null; then fail "$1: still shows '$2'"; fi
}

launch=$scratch/exercises/10_mmul_block/launch.hpp
grep -q 'constexpr std::size_t tile = 16;' "$launch" || { echo "FAIL the test expects exercise 10's tile = 16 in $launch" >&2; exit 1; }
expect mmul10 "TS × TS = 16 × 16"
expect tile-loop "16 multiply-adds"

sed -i 's/constexpr std::size_t tile = 16;/constexpr std::size_t tile = 8;/' "$launch"
expect mmul10 "TS × TS = 8 × 8"
expect mmul10 "128 floats of local memory"
expect tile-loop "8 multiply-adds"
expect tile-loop "N = 24 here"
expect_not mmul10 "16 × 16"
expect_not tile-loop "16 multiply-adds"

# Exercise 12 with a float16 kernel added, exercise 14 with groups of 128.
sed -i 's/const float8 lanes = /const float16 lanes = /' "$scratch/solutions/12_pi_vec/pi_vec.cl"
expect vector-lanes "float16, 16 lanes"
expect vector-lanes "scalar tail: 3"
sed -i 's/work_group_size_1d(kernel, device, 64)/work_group_size_1d(kernel, device, 128)/' "$scratch/exercises/14_async_copy/launch.hpp"
expect halo "base+128"
expect halo "128 + 2 = 130 floats"

# A tile size the generator cannot read: it says which file and what it looked for.
sed -i 's/constexpr std::size_t tile = 8;/constexpr std::size_t tile = kTile;/' "$launch"
if msg=$(WORKBOOK_ROOT=$scratch "$scratch/slides/tools/diagram.sh" mmul10 2>&1 >/dev/null); then
    fail "mmul10 drew with no tile size in $launch"
else
    [[ $msg == *"exercises/10_mmul_block/launch.hpp"* ]] || fail "the error does not name launch.hpp: $msg"
fi

[ $failures -eq 0 ] || { echo "diagram_numbers: $failures failure(s)" >&2; exit 1; }
echo "diagram_numbers: the pictures follow the code's numbers"
