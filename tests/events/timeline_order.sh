#!/usr/bin/env bash
# Exercise 13's timeline picture shows the order the program enforces: the demo (solution build)
# writes its SVG, and the running bars read back from it must put joined after both first and
# second (its wait list) and second after first (the demo releases second only once first has
# finished). The same reading must reject a copy with joined's bar moved to the start.
#
#   tests/events/timeline_order.sh DEMO SCRATCH_DIR
set -uo pipefail
demo=$(realpath "${1:?usage: timeline_order.sh DEMO SCRATCH_DIR}")
scratch=${2:?usage: timeline_order.sh DEMO SCRATCH_DIR}
rm -rf "$scratch"
mkdir -p "$scratch"
svg=$scratch/timeline.svg

if ! (cd "$scratch" && "$demo" --count 200000 --timeline "$svg") > "$scratch/demo.log" 2>&1; then
    cat "$scratch/demo.log" >&2
    echo "FAIL the demo failed" >&2
    exit 1
fi
grep -q -F "timeline picture: $svg" "$scratch/demo.log" || { echo "FAIL the demo did not print the picture's path $svg" >&2; cat "$scratch/demo.log" >&2; exit 1; }

# Prints "NAME START END" (px) for each running bar of an SVG.
bars() {
    grep -o '<rect class="run" data-command="[a-z_]*" x="[0-9.]*" y="[0-9.]*" width="[0-9.]*"' "$1" |
        sed -E 's/.*data-command="([a-z_]*)" x="([0-9.]*)" y="[0-9.]*" width="([0-9.]*)"/\1 \2 \3/' |
        awk '{ printf "%s %s %.1f\n", $1, $2, $2 + $3 }'
}
# Checks the order; prints one line per violation, exits 1 if any.
check_order() {
    bars "$1" | awk '
        { start[$1] = $2; end[$1] = $3; n++ }
        END {
            bad = 0
            if (n != 3 || !("first" in start) || !("second" in start) || !("joined" in start)) {
                print "expected running bars for first, second and joined, found " n; exit 1
            }
            # Positions are rounded to 0.1 px: allow that much.
            if (start["joined"] + 0.15 < end["first"])  { print "joined starts before first ends";  bad = 1 }
            if (start["joined"] + 0.15 < end["second"]) { print "joined starts before second ends"; bad = 1 }
            if (start["second"] + 0.15 < end["first"])  { print "second starts before first ends";  bad = 1 }
            exit bad
        }'
}

if ! why=$(check_order "$svg"); then
    echo "FAIL $svg: $why" >&2
    bars "$svg" >&2
    exit 1
fi
# The reading can fail: joined drawn at the left edge must be caught.
sed -E 's/(data-command="joined" x=")[0-9.]*/\1110.0/' "$svg" > "$scratch/tampered.svg"
if check_order "$scratch/tampered.svg" > /dev/null; then
    echo "FAIL a timeline with joined moved before first passed the check" >&2
    exit 1
fi
echo "timeline_order: $(bars "$svg" | tr '\n' ';')"
