#!/bin/bash
# End-to-end test of the contest's final (`contest final --top N`): refused while the contest is
# open, and while an entry uploaded before the close is not judged; after the close, exactly the top N student entries (and the baseline) judged again, on
# fresh secret sizes, with more sittings and repeats; the final board ranks those runs only and
# the running board is unchanged; a judge waits while the final holds the device, and the final
# waits for a judging in progress; export carries the final board.
#   final_test.sh WORKBOOK SCRATCH SOURCE_DIR
set -euo pipefail
wb=$1 work=$2 src=$3
export WORKBOOK_TUNING_FILE="$work/tuning.toml"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
# The race pass is the judge's own (contest.judge); here it would only add time.
settings=(--n 128 --repeats 3 --no-race-check)

"$wb" contest --db c.db baseline > /dev/null
for a in ada grace linus; do "$wb" contest --db c.db submit "$src/contest/examples/$a.cl" --alias "$a" --interval 0 > /dev/null; done
{ echo "// ada's kernel under another name"; cat "$src/contest/examples/ada.cl"; } > hopper.cl
"$wb" contest --db c.db submit hopper.cl --alias hopper --interval 0 > /dev/null
"$wb" contest --db c.db judge "${settings[@]}" > judge.log 2>&1 || fail "judging: $(cat judge.log)"
# Uploaded before the close, judged only after it.
{ echo "// turing's: uploaded last"; cat "$src/contest/examples/linus.cl"; } > turing.cl
"$wb" contest --db c.db submit turing.cl --alias turing --interval 0 > /dev/null

# Open: refused, nothing judged.
if "$wb" contest --db c.db final --top 3 "${settings[@]}" > open.log 2>&1; then fail "a final ran while the contest was open"; fi
grep -q "the contest is still open.*workbook contest close" open.log || fail "the refusal: $(cat open.log)"
"$wb" contest --db c.db board --final | grep "No final yet" >/dev/null || fail "a refused final left a final board"
echo "ok: refused while the contest is open, with the fix"

"$wb" contest --db c.db close > /dev/null
# Bad input: a board that is not there, a top of 0.
if "$wb" contest --db c.db final --top 3 --board nosuch "${settings[@]}" > bad.log 2>&1; then fail "--board nosuch was taken"; fi
grep -q 'there is no board "nosuch" (the boards: "Portable' bad.log || fail "the unknown board: $(cat bad.log)"
if "$wb" contest --db c.db final --top 0 "${settings[@]}" > bad0.log 2>&1; then fail "--top 0 was taken"; fi
echo "ok: an unknown board and --top 0 refused"

# An entry uploaded before the close and not judged yet: no final on that board, naming it.
if "$wb" contest --db c.db final --top 3 "${settings[@]}" > unsettled.log 2>&1; then fail "a final ran with an unjudged entry"; fi
grep -q "1 entry uploaded before the close is not judged yet: #6 turing (queued).*contest judge" unsettled.log ||
    fail "the refusal: $(cat unsettled.log)"
"$wb" contest --db c.db board --final | grep "No final yet" >/dev/null || fail "a refused final left a final board"
"$wb" contest --db c.db judge "${settings[@]}" > judge2.log 2>&1 || fail "judging turing: $(cat judge2.log)"
"$wb" contest --db c.db board > before.txt
grep -qE "^ +=?[0-9]+  turing " before.txt || fail "turing is not on the board once judged: $(cat before.txt)"
echo "ok: refused while an entry uploaded before the close waits, naming it; judged, it is on the board"

# The top 3 student entries of the board as it stood at the close.
top3=$(awk '/^ +=?[0-9]+  / && $2 !~ /^\(/ { print $2 }' before.txt | head -3 | sort | tr '\n' ' ')
# A judging in progress (its shared lock, as `contest judge` holds it) makes the final wait.
flock -s c.db.judging.lock sleep 3 &
holder=$!
sleep 0.5
start=$(date +%s.%N)
"$wb" contest --db c.db final --top 3 "${settings[@]}" > final.log 2>&1 || fail "the final: $(cat final.log)"
wait $holder
cat final.log
grep -q "final: waiting for the judging in progress to end" final.log || fail "the final did not wait for the judging"
grep -q "^\[4/4\] " final.log || fail "the final did not judge 4 entries (3 and the baseline)"
"$wb" contest --db c.db export out > /dev/null
python3 - "$top3" <<'PY' || fail "the final's runs"
import csv, sys
top3 = sorted(sys.argv[1].split())
runs = list(csv.DictReader(open("out/runs.csv")))
final = [r for r in runs if r["final"] == "yes"]
regular = {r["alias"]: r for r in runs if r["final"] == "no"}
aliases = sorted(r["alias"] for r in final)
want = sorted(top3 + ["(baseline: naive kernel)"])
assert aliases == want, f"judged again: {aliases}, expected {want}"
for r in final:
    before = regular[r["alias"]]
    # More timed launches: the contest's 3, times 3.
    assert int(r["repeats"]) == 9, f"{r['alias']}: {r['repeats']} repeats"
    # Fresh secret sizes: the sizes list differs from the entry's judging before the close.
    assert r["sizes"] != before["sizes"], f"{r['alias']}: the same sizes {r['sizes']}"
    print(f"ok: {r['alias']} judged again: {r['repeats']} launches at {r['sizes']} (before: {before['repeats']} at {before['sizes']})")
final_board = list(csv.DictReader(open("out/final-boards.csv")))
assert sorted(r["alias"] for r in final_board) == want, final_board
PY
"$wb" contest --db c.db board --final > final.txt
cat final.txt
for a in $top3; do grep -qE "^ +=?[0-9]+  $a " final.txt || fail "$a is not on the final board"; done
left=$(awk '/^ +=?[0-9]+  / && $2 !~ /^\(/ { print $2 }' before.txt | sed -n 4p)
grep -qE "^ +=?[0-9]+  $left " final.txt && fail "$left (4th) is on the final board"
"$wb" contest --db c.db board > after.txt
rows() { grep -E "^ +=?[0-9]+  " "$1"; }
[ "$(rows before.txt)" = "$(rows after.txt)" ] || fail "the running board changed: $(diff <(rows before.txt) <(rows after.txt))"
echo "ok: the top 3 and the baseline judged again on fresh sizes with 9 launches; the final board holds them only"

# The final holds the device alone: a judge started meanwhile waits for it, then judges.
"$wb" contest --db c.db baseline > /dev/null
flock -x c.db.judging.lock sleep 4 &
holder=$!
sleep 0.5
timeout 2 "$wb" contest --db c.db judge "${settings[@]}" > held.log 2>&1 && fail "a judge ran while the final held the device"
"$wb" contest --db c.db status | grep -E "^ +7  " | grep " queued " >/dev/null || fail "the entry is not queued: $(cat held.log)"
wait $holder
"$wb" contest --db c.db judge "${settings[@]}" > after.log 2>&1 || fail "judging after: $(cat after.log)"
grep -q "^judged 7 " after.log || fail "the waiting entry was not judged after the final: $(cat after.log)"
echo "ok: a judge waits while the final holds the device"

# The page's data: the final boards beside the running ones. The server's judge does not wait
# for a final holding the device: an entry stays queued, and the server still stops at once.
"$wb" contest --db c.db baseline > /dev/null
flock -x c.db.judging.lock sleep 6 &
holder=$!
sleep 0.5
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$wb" contest --db c.db serve --port "$port" --token t --no-race-check > serve.log 2>&1 &
server=$!
python3 - "$port" "$top3" <<'PY' || { kill $server; fail "/api/board's final: $(tail -5 serve.log)"; }
import json, sys, time, urllib.request
port, top3 = sys.argv[1], sorted(sys.argv[2].split())
for _ in range(100):
    try:
        data = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/board", timeout=2))
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("the server did not answer")
final = sorted(r["alias"] for b in data["final"] for r in b["rows"])
assert final == sorted(top3 + ["(baseline: naive kernel)"]), final
running = {r["alias"] for b in data["devices"] for r in b["rows"]}
assert len(running) == 6, running
print(f"ok: /api/board carries the final board ({', '.join(final)}) beside the running one")
PY
"$wb" contest --db c.db status | grep -E "^ +8  " | grep " queued " >/dev/null || fail "the server judged while the final held the device"
t0=$(date +%s.%N)
kill $server
wait $server 2>/dev/null || true
awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { exit !(b - a < 3) }' || fail "the server took $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }') s to stop while the final held the device"
wait $holder
echo "ok: the server's judge leaves the device to the final, and the server stops at once meanwhile"
echo "PASS: final"
