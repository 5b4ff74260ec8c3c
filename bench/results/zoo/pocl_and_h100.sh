#!/bin/bash
# The zoo's boards side by side: the mock contest's five entries judged on this machine's PoCL
# device directly and through a single-node Slurm (N = 1024, race pass on), then the H100's board,
# judged there by h100_contest_zoo.sh, merged in. Prints the status, the boards and the
# cross-device view.   bash bench/results/zoo/pocl_and_h100.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
W=$(cd "${1:-$root/build}" && pwd)/bin/workbook
work=$(mktemp -d /tmp/zoo-bench-XXXXXX)
chmod 755 "$work"
cd "$work"
mkdir tmp
export TMPDIR=$work/tmp WORKBOOK_TUNING_FILE=$work/tuning.toml
eval "$(bash "$root/tests/slurm/start_slurm.sh" start "$work/slurm")"
trap 'kill %1 2>/dev/null; wait; bash "$root/tests/slurm/start_slurm.sh" stop "$work/slurm"' EXIT
printf '[[device]]\nname = "PoCL here"\nreach = "local"\n\n[[device]]\nname = "PoCL via Slurm"\nreach = "slurm"\npartition = "debug"\n' > zoo.toml
"$W" contest --db zoo.db serve --devices zoo.toml --token "$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
    --n 1024 > serve.log 2>&1 &
sleep 1
"$W" contest --db zoo.db baseline
"$W" contest --db zoo.db baseline --reference --per-device
for a in ada grace; do "$W" contest --db zoo.db submit "$root/contest/examples/$a.cl" --alias $a --interval 0; done
"$W" contest --db zoo.db submit "$root/bench/results/zoo/mallory.cl" --alias mallory --interval 0
start=$(date +%s)
until [ "$("$W" contest --db zoo.db status | grep -cE '^ +[0-9]+ .* (done|rejected|failed) ')" = 5 ]; do sleep 2; done
echo "all ten judgings ended in $(( $(date +%s) - start )) s"
# The H100's board was judged at N = 4096 with the default launches: merge states those settings,
# and any run judged otherwise is refused.
"$W" contest --db zoo.db merge "$root/bench/results/zoo/2026-11-24-h100.db" --board "H100 (lent machine)" --n 4096
"$W" contest --db zoo.db status
"$W" contest --db zoo.db board
