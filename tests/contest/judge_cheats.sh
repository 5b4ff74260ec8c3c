#!/bin/bash
# End-to-end test of the contest judge on the default device: a correct tiled kernel is ranked
# above the naive baseline's row, and each cheat or mistake is rejected with its reason.
#   judge_cheats.sh WORKBOOK SCRATCH SOURCE_DIR
set -euo pipefail
wb=$1 work=$2 src=$3
export WORKBOOK_TUNING_FILE="$work/tuning.toml"  # this machine's stored tuning must not matter here
rm -rf "$work" && mkdir -p "$work/tmp" "$work/attacker" && cd "$work"
# The judge's temporary folders go here, where this test can see them (and plant links).
export TMPDIR="$work/tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

# A correct kernel (the README's ada); the cheats below are made from it.
cp "$src/contest/examples/ada.cl" good.cl
variant() { sed "$2" good.cl > "$1.cl"; }
variant zero 's|if (row < N \&\& col < N) C\[row \* N + col\] = sum;|if (row < N \&\& col < N) C[row * N + col] = 0.0f;|'
variant public_only 's|if (row < N \&\& col < N) C\[row \* N + col\] = sum;|if (row < N \&\& col < N) C[row * N + col] = (N == 1 \|\| N == 17 \|\| N == 100 \|\| N == 257) ? sum : 0.0f;|'
variant past_c 's|if (row < N \&\& col < N) C\[row \* N + col\] = sum;|if (row < N) C[row * N + col] = sum;|'
variant hangs 's|for (int k = 0; k < TS; k++) sum|for (int k = 0; k < TS; k += (N > 0 ? 0 : 1)) sum|'
# Without the second barrier a fast work-item overwrites the tiles while others still read them.
# PoCL runs the work-items of a group one after another and shows the right answer, so only the
# race pass (Oclgrind) sees it.
variant no_second_barrier '/for (int k = 0; k < TS; k++) sum/{n;d}'
# The same race, with terminal escape sequences in comments on the racing lines (Oclgrind quotes them).
sed -e 's|\(Aw\[lr \* TS + lc\] = .*\)$|\1 // \x1b]0;pwned\x07\x1b[2J|' -e 's|\(for (int k = 0; k < TS; k++) sum.*\)$|\1 // \x1b]0;pwned\x07|' \
    no_second_barrier.cl > racy_escape.cl
grep -q $'\x1b' racy_escape.cl || fail "racy_escape has no escape byte"
variant no_compile 's|float sum = 0.0f;|float sum = undeclared;|'
variant no_local 's|^// contest: local = 16, 16$||'
variant bad_expression 's|^// contest: global = roundup(N, 16), roundup(N, 16)|// contest: global = roundup(N, 16) + M, roundup(N, 16)|'
variant wrong_locals 's|^// contest: local_floats = 256, 256|// contest: local_floats = 256|'
# The second barrier only in an optimised build (the device's; not the race pass's simulator, when
# it builds without optimisation). The judge preprocesses every entry itself with fixed macros, so
# the device and the race pass both compile the kernel without it, and the race pass finds the race.
variant optimize_gated '/for (int k = 0; k < TS; k++) sum/{n;s|^\(.*barrier.*\)$|#ifdef __OPTIMIZE__\n\1\n#endif|}'
# The same test spelled so that no text rule sees the name: pasted with ## and used as a value.
variant pasted_macro '/for (int k = 0; k < TS; k++) sum/{n;s|^\(.*\)barrier(\(.*\));$|#define CAT(a, b) a##b\n\1if (CAT(__OPTI, MIZE__)) barrier(\2);|}'
# Nothing outside the entry reaches the compiler, and no file's text reaches a reason.
printf '#include "/etc/hostname"\n' | cat - good.cl > include_file.cl

"$wb" contest --db c.db baseline > /dev/null
# The instructor's tuned kernel, both sources (the GPU one runs on PoCL too): ranked, race pass included.
"$wb" contest --db c.db baseline --reference > /dev/null
WORKBOOK_REFERENCE_KERNEL=gpu "$wb" contest --db c.db baseline --reference > /dev/null
"$wb" contest --db c.db submit good.cl --alias ada > /dev/null
for v in zero public_only past_c hangs no_compile no_second_barrier racy_escape optimize_gated pasted_macro; do
    "$wb" contest --db c.db submit "$v.cl" --alias "$v" > /dev/null
done
# Declarations that do not parse are refused at submission, before anything runs.
grep -q "#ifdef __OPTIMIZE__" optimize_gated.cl || fail "the __OPTIMIZE__ variant was not made"
grep -q "CAT(__OPTI, MIZE__)" pasted_macro.cl || fail "the pasted __OPTIMIZE__ variant was not made"
for v in no_local bad_expression include_file; do
    if out=$("$wb" contest --db c.db submit "$v.cl" --alias "$v" 2>&1); then fail "$v was accepted: $out"; fi
    echo "ok: $v refused at submission: $(echo "$out" | tail -1)"
done
out=$("$wb" contest --db c.db submit include_file.cl --alias inc 2>&1 || true)
echo "$out" | grep -q "submission.cl:1: #include is not allowed" || fail "the #include refusal: $out"
echo "$out" | grep -qF "$(head -c 12 /etc/hostname)" && fail "the #include refusal quotes the included file"
"$wb" contest --db c.db submit wrong_locals.cl --alias wrong_locals > /dev/null
if "$wb" contest --db c.db submit good.cl --alias ada > /dev/null 2>&1; then fail "the rate limit let ada submit twice"; fi
echo "ok: rate limit"

# No silent ranking without the race pass: with Oclgrind hidden, the judge and the server refuse
# to start, say the fix, and judge nothing.
for cmd in "judge --n 256" "serve --port 0 --token t"; do
    if out=$(WORKBOOK_OCLGRIND=/nonexistent timeout 20 "$wb" contest --db c.db $cmd 2>&1); then
        fail "contest $cmd started without Oclgrind: $out"
    fi
    echo "$out" | grep -q "apt-get install oclgrind" && echo "$out" | grep -q -- "--no-race-check" ||
        fail "contest $cmd: the refusal does not give the fix: $out"
done
"$wb" contest --db c.db status | grep " done " >/dev/null && fail "a refused judge judged something"
echo "ok: judge and server refuse without Oclgrind, with the fix"

# Predictable names a local user could plant: links to a folder of theirs. Nothing may follow them.
for i in 1 2 3 4 5 $$; do ln -s "$work/attacker" "$TMPDIR/workbook-judge-$i"; done
ln -s "$work/attacker" "$TMPDIR/workbook-judge-XXXXXX"
"$wb" contest --db c.db judge --n 256 --repeats 3 --time-limit 30
[ -z "$(ls -A "$work/attacker")" ] || fail "the judge wrote through a planted link: $(ls -A "$work/attacker")"
[ "$(find "$TMPDIR" -maxdepth 1 -name 'workbook-judge-*' -type l | wc -l)" = 7 ] || fail "the planted links were touched"
[ -z "$(find "$TMPDIR" -maxdepth 1 -name 'workbook-judge-*' -type d)" ] || fail "the judge left a work folder behind"
echo "ok: planted links change nothing; no work folder left"
"$wb" contest --db c.db status > status.txt
cat status.txt
expect_status() {
    grep -E "^ +[0-9]+  $1 +$2 .*$3" status.txt > /dev/null || fail "$1: expected $2 with \"$3\""
    echo "ok: $1 $2 ($3)"
}
expect_status ada done ""
[ "$(grep -c "(reference: instructor's done" status.txt)" = 2 ] || fail "the reference kernels were not both ranked"
echo "ok: both reference kernels ranked"
expect_status zero rejected "wrong at N = 1"
expect_status public_only rejected "wrong at N = "
expect_status past_c rejected "wrote past the end of C"
expect_status hangs rejected "too slow or hung"
expect_status no_compile rejected "does not compile"
expect_status wrong_locals rejected "mmul takes 6 arguments"
expect_status pasted_macro rejected "does not compile: .*uses __OPTIMIZE__, a name reserved to the compiler"
if [ "${WORKBOOK_RACE_CHECK:-}" = off ] || ! command -v oclgrind > /dev/null; then
    echo "skip: no_second_barrier (the race check is off here)"
else
    expect_status no_second_barrier rejected "race check .Oclgrind, N = [0-9, and]+.: Read-write data race"
    expect_status optimize_gated rejected "race check .Oclgrind, N = [0-9, and]+.: Read-write data race"
    grep -E "^ +[0-9]+  no_second_barrier .*of submission.cl:" status.txt > /dev/null || fail "no_second_barrier: no line named"
fi
if command -v oclgrind > /dev/null && [ "${WORKBOOK_RACE_CHECK:-}" != off ]; then
    expect_status racy_escape rejected "race check"
    LC_ALL=C grep -q $'\x1b' status.txt && fail "a raw escape byte reached contest status"
    grep -q 'racy_escape .*\\x1b\]0;pwned' status.txt || fail "racy_escape's reason does not show the escape escaped"
    echo "ok: the race reason's escape sequences are shown escaped"
fi
"$wb" contest --db c.db board > board.txt
cat board.txt
grep -E "^ +=?[1-3]  ada " board.txt > /dev/null || fail "ada is not on the board"
grep -E "^ +=?1  \(reference: instructor's tun " board.txt > /dev/null || fail "the reference kernel is not first"
grep -E "^ +=?[1-3]  \(baseline: naive kernel\) .* 1\.00x" board.txt > /dev/null || fail "the baseline row is missing"
# Ranked by the ratio to the yardstick, fastest first (which of ada and the baseline is faster
# at N = 256 on a CPU is noise: they may be shown tied).
awk '/^ +=?[0-9]+  / { g = $(NF-4) + 0; if (prev != "" && g > prev) exit 1; prev = g }' board.txt ||
    fail "the board is not in order of the ratio to the yardstick"
for v in zero public_only past_c hangs no_compile wrong_locals no_second_barrier optimize_gated pasted_macro; do
    grep -q " $v " board.txt && fail "$v reached the board"
done
# The public list says what kind of failure each was, never the compiler's or Oclgrind's words
# (they quote the entry's code); its owner reads them (/api/mine).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$wb" contest --db c.db serve --port "$port" --token t --no-race-check > serve.log 2>&1 &
server=$!
race=$(command -v oclgrind > /dev/null && [ "${WORKBOOK_RACE_CHECK:-}" != off ] && echo 1 || echo 0)
python3 - "$port" "$race" <<'PY' || { kill $server; fail "the public list: $(tail -3 serve.log)"; }
import json, sys, time, urllib.request
port, race = sys.argv[1], sys.argv[2] == "1"
def get(path, token=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token: req.add_header("Authorization", f"Bearer {token}")
    for _ in range(100):
        try:
            return urllib.request.urlopen(req, timeout=5).read().decode()
        except OSError:
            time.sleep(0.1)
    sys.exit("the server did not answer")
text = get("/api/submissions")
reasons = {s["alias"]: s["reason"] for s in json.loads(text)["submissions"]}
want = {"no_compile": "does not compile", "zero": "wrong values", "hangs": "too slow or hung",
        "wrong_locals": "wrong kernel declaration"}
if race: want.update({"no_second_barrier": "data race", "racy_escape": "data race"})
for alias, category in want.items():
    assert reasons.get(alias) == category, f"{alias}: {reasons.get(alias)!r}, expected {category!r}"
for leak in ["undeclared", "submission.cl", "sum", "__OPTIMIZE__", "barrier(", "pwned"]:
    assert leak not in text, f"/api/submissions quotes the entries' code: {leak!r} in it"
mine = json.loads(get("/api/mine?alias=no_compile", "t"))["entries"]
assert any("undeclared" in e["reason"] for e in mine), mine
print("ok: /api/submissions gives categories (" + ", ".join(f"{a}: {c}" for a, c in sorted(want.items())) +
      "), no word of the code; the owner's /api/mine has the compiler's message")
PY
kill $server; wait $server 2>/dev/null || true
# Timing nobody can replay: the caching kernel (answers kept in program-scope globals, keyed by
# the inputs) gains nothing from its cache, since every timed launch gets inputs never seen
# before; a judge that replayed inputs measured it hundreds of times faster than without. Its
# rank next to the plain kernel is noise at this size, so its GFLOPS are what is checked: within 4x
# of the plain kernel (two busy cores halve either one at times; a cache hit is 100x and more).
"$wb" contest --db t.db submit good.cl --alias plain > /dev/null
"$wb" contest --db t.db submit "$src/tests/contest/caching.cl" --alias cache > /dev/null
"$wb" contest --db t.db judge --n 256 --no-race-check --time-limit 60 > t.log 2>&1 || fail "judging: $(cat t.log)"
"$wb" contest --db t.db board > tboard.txt
cat tboard.txt
gflops_of() { awk -v a="$1" '$2 == a { print $(NF-2) }' tboard.txt; }
[ -n "$(gflops_of cache)" ] && [ -n "$(gflops_of plain)" ] || fail "plain or cache is not on the board: $(cat t.log)"
awk -v c="$(gflops_of cache)" -v p="$(gflops_of plain)" 'BEGIN { exit !(c <= 4 * p) }' ||
    fail "the caching kernel ($(gflops_of cache) GFLOPS) gained from its cache over the plain one ($(gflops_of plain))"
echo "ok: the caching kernel gains nothing from its cache: $(gflops_of cache) GFLOPS, plain $(gflops_of plain)"
# kill -9 of a judge in the middle of an entry: its checker and sandboxed runner die with it, and
# the next judge removes the work folder it left.
"$wb" contest --db k.db submit hangs.cl --alias hangs > /dev/null
"$wb" contest --db k.db judge --n 256 --repeats 3 --time-limit 60 > k.log 2>&1 &
judge=$!
# This judge's runner: its sandbox binds a work folder under this test's TMPDIR (other tests'
# judges, contest.zoo's, may run at the same time).
for _ in $(seq 100); do pgrep -f "bwrap.*$TMPDIR.*contest-runner" > /dev/null && break; sleep 0.2; done
pgrep -af "bwrap.*$TMPDIR.*contest-runner" > /dev/null ||
    fail "the entry's runner is not in the sandbox: $(pgrep -af contest-runner)"
left=$(grep -l . "$TMPDIR"/workbook-judge-*/judge.pid | xargs dirname)
[ -n "$left" ] || fail "no work folder while judging"
for d in "$TMPDIR"/workbook-judge-*; do
    [ -L "$d" ] || [ "$(stat -c %a "$d")" = 700 ] || fail "a work folder is not private: $d $(stat -c %a "$d")"
done
kill -9 $judge; wait $judge 2>/dev/null || true
sleep 1
pgrep -af "$left" && fail "a process of the killed judge still runs"
"$wb" contest --db k.db judge --n 256 --repeats 3 --time-limit 5 > k2.log 2>&1 || fail "the restarted judge failed: $(cat k2.log)"
grep -q "removed $left, left by a judge that was stopped" k2.log || fail "the leftover folder was not reclaimed: $(cat k2.log)"
[ -n "$(find "$TMPDIR" -maxdepth 1 -name 'workbook-judge-*' -type d)" ] && fail "the killed judge's work folders are still there"
echo "ok: a killed judge leaves no process, and its folder is reclaimed at the next start"
# Gradescope's leaderboard entry for a contest submission.
"$wb" contest --db gs.db submit good.cl --alias gs > /dev/null
"$wb" contest --db gs.db judge --n 128 --repeats 3 --gradescope results.json > /dev/null
grep -q '"name": "GFLOPS"' results.json && grep -q '"order": "desc"' results.json && grep -q '"score": 1.0' results.json ||
    fail "Gradescope results: $(cat results.json)"
echo "ok: Gradescope leaderboard entry"
echo "PASS: judge"
