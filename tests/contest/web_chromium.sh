#!/usr/bin/env bash
# End-to-end test of the contest's web server: a real server on a scratch database, the page
# rendered by headless Chromium (the board, a hostile alias shown as text, a new leader), and
# the upload endpoint (401, 413, 400, 429, 200). Prints ok/FAIL lines; exits 1 on any failure,
# 77 (skipped) where Chromium is not installed.
#
#   bash tests/contest/web_chromium.sh <contest_serve_test> <scratch dir>
set -u

helper=${1:?usage: web_chromium.sh CONTEST_SERVE_TEST SCRATCH_DIR}
scratch=${2:?usage: web_chromium.sh CONTEST_SERVE_TEST SCRATCH_DIR}

browser=""
for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then browser=$candidate; break; fi
done
if [[ -z $browser ]]; then
    echo "SKIP: headless Chromium not found (apt-get install chromium)"
    exit 77
fi

rm -rf "$scratch"
mkdir -p "$scratch"
db=$scratch/contest.db
token="token-$$-$RANDOM"
failures=0

ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() {
    local what=$1
    shift
    if "$@"; then ok "$what"; else fail "$what"; fi
}
contains() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }

server_pid=""
cleanup() {
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then kill "$server_pid" 2>/dev/null; fi
}
trap cleanup EXIT

# --- the board's data -------------------------------------------------------------------------
baseline='(baseline: naive kernel)'  # contest::baseline_alias
reference="(reference: instructor's tuned kernel)"  # contest::reference_alias
# Hostile aliases, within the database's 40 characters (an empty src fires onerror too).
hostile="<img src onerror=document.title='pwned'>"
hostile2="<script>document.title='pwned'</script>"
for run in "$baseline:10.0" "$reference:500.0" "alice:123.4" "$hostile:55.5" "$hostile2:33.3"; do
    if ! "$helper" record "$db" "${run%:*}" "${run##*:}" >/dev/null; then
        echo "FAIL recording the run of ${run%:*}"
        exit 1
    fi
done

# --- the server (port 0: the system picks a free one; the server prints its URL) ---------------
# start_server LOG [OPTION VALUE]...: sets server_pid, url and port; exits when it does not start.
start_server() {
    local log=$1
    shift
    "$helper" serve "$db" 0 "$token" "$@" >"$log" 2>&1 &
    server_pid=$!
    url=""
    for _ in $(seq 1 100); do
        url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$log" | head -n 1)
        [[ -n $url ]] && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [[ -z $url ]]; then
        echo "FAIL the server did not start:"
        cat "$log"
        exit 1
    fi
    port=${url#http://127.0.0.1:}
    port=${port%/}
    answers=no
    for _ in $(seq 1 50); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then answers=yes; break; fi
        sleep 0.1
    done
}
start_server "$scratch/server.log"
check "the server answers at $url" test "$answers" = yes

# --- the page, rendered -----------------------------------------------------------------------
browse() {  # browse OUT.html: the DOM after 5 s of (virtual) time
    timeout 40 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$scratch/profile" \
        --virtual-time-budget=5000 --dump-dom "$url" >"$1" 2>>"$scratch/chromium.log"
}
# The board's rows, one a line ("" when there is no table).
rows() { sed -n 's/.*<tbody id="rows">\(.*\)<\/tbody>.*/\1/p' "$1" | sed 's#</tr>#</tr>\n#g' | grep '<tr'; }

browse "$scratch/dom1.html"
rows "$scratch/dom1.html" >"$scratch/rows1.txt"
check "the page has a board with 5 rows" test "$(wc -l <"$scratch/rows1.txt")" -eq 5
check "the reference row, first, is marked as the instructor's" \
    grep -qE '^<tr class="baseline" data-rank="1">.*\(reference: instructor' <(head -n 1 "$scratch/rows1.txt")
check "alice, the best student, has the gold row though ranked second" \
    grep -qE '^<tr class="r1" data-rank="2">.*>alice</td>' <(sed -n 2p "$scratch/rows1.txt")
check "alice is on the board with 123.4 GFLOPS" \
    grep -qE '<td class="alias"[^>]*>alice</td><td class="ratio num"[^>]*>0\.247×</td><td class="gflops num">123\.4</td>' "$scratch/rows1.txt"
check "alice's speedup over the 10 GFLOPS baseline is 12.3x" grep -qE '>alice</td>.*>12\.3×</td>' "$scratch/rows1.txt"
check "the baseline row is marked as such" grep -qE '<tr class="baseline"[^>]*>.*\(baseline: naive kernel\)' \
    "$scratch/rows1.txt"
check "the hostile <img> alias is shown as text" \
    contains "$scratch/rows1.txt" ">&lt;img src onerror=document.title='pwned'&gt;</td>"
check "the hostile <script> alias is shown as text" \
    contains "$scratch/rows1.txt" ">&lt;script&gt;document.title='pwned'&lt;/script&gt;</td>"
check "no <img> element is in the DOM" lacks "$scratch/dom1.html" "<img"
check "no alias became a <script> element" lacks "$scratch/dom1.html" "<script>document"
check "the title is untouched" contains "$scratch/dom1.html" "<title>Matmul contest</title>"
check "the title is not 'pwned'" lacks "$scratch/dom1.html" "<title>pwned"
check "with the race pass on, the page does not say it is off" lacks "$scratch/dom1.html" ">Race pass off"

"$helper" record "$db" bob 999.9 >/dev/null || fail "recording bob's run"
browse "$scratch/dom2.html"
rows "$scratch/dom2.html" >"$scratch/rows2.txt"
check "bob, the new submission, is ranked first" \
    grep -qE '^<tr class="r1" data-rank="1"><td class="rank num">1</td><td class="alias"[^>]*>bob</td><td class="ratio num"[^>]*>2\.000×</td><td class="gflops num">999\.9</td>' \
    <(head -n 1 "$scratch/rows2.txt")
check "alice moved to second among the students, behind bob and the reference" \
    grep -qE '^<tr class="r2" data-rank="3">.*>alice</td>' <(sed -n 3p "$scratch/rows2.txt")

# dora: a little slower than alice, but her spread (5% either side) reaches alice's: tied, one
# rank and one medal for both, marked "=".
"$helper" record "$db" dora "120.0~5" >/dev/null || fail "recording dora's run"
browse "$scratch/dom3.html"
rows "$scratch/dom3.html" >"$scratch/rows3.txt"
check "alice and dora are shown tied at rank 3, both silver" \
    grep -qE '^<tr class="r2" data-rank="3"><td class="rank num" title="tied[^"]*">=3</td><td class="alias"[^>]*>alice</td>' <(sed -n 3p "$scratch/rows3.txt")
check "dora shares alice's rank and medal" \
    grep -qE '^<tr class="r2" data-rank="3"><td class="rank num" title="tied[^"]*">=3</td><td class="alias"[^>]*>dora</td>' <(sed -n 4p "$scratch/rows3.txt")
check "the next student after the tie is fourth among the students, no medal" \
    grep -qE '^<tr data-rank="5">' <(sed -n 5p "$scratch/rows3.txt")

timeout 40 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$scratch/profile" \
    --virtual-time-budget=5000 --window-size=1280,800 --screenshot="$scratch/board.png" "$url" \
    >/dev/null 2>>"$scratch/chromium.log"
check "a screenshot was saved ($scratch/board.png)" test -s "$scratch/board.png"

# --- the API ------------------------------------------------------------------------------------
# http OUT COMMAND...: runs the helper; the status goes to OUT.status, the body to OUT.
http() {
    local out=$1
    shift
    "$helper" "$@" >"$out.raw" 2>&1
    head -n 1 "$out.raw" >"$out.status"
    tail -n +2 "$out.raw" >"$out"
}
status_is() { [[ $(cat "$1.status") == "$2" ]]; }
# answer_is OUT STATUS REGEX: the status, and a body line matching the extended regex.
answer_is() { status_is "$1" "$2" && grep -qE -- "$3" "$1"; }

printf '// contest: global = N, N\n__kernel void mmul(const int N, __global const float* A,\n    __global const float* B, __global float* C) { /* SECRET-SOURCE-MARKER */ }\n' \
    >"$scratch/small.cl"
head -c $((100 * 1024)) /dev/zero | tr '\0' 'x' >"$scratch/big.cl"

http "$scratch/board.json" get "$port" /api/board
check "GET /api/board is JSON with the devices" \
    answer_is "$scratch/board.json" 200 '"devices":\[\{"baseline_gflops":10\.0,"device":"Test Device / 1\.0","hardware":"Test Device / 1\.0","rows":\[\{"alias":"bob".*"generated_at":'
check "GET /api/board says the race pass is on" answer_is "$scratch/board.json" 200 '"race_pass":"on"'

http "$scratch/r401" post "$port" - carol "$scratch/small.cl"
check "POST /api/submit without a token: 401" status_is "$scratch/r401" 401
http "$scratch/r401b" post "$port" "wrong-$token" carol "$scratch/small.cl"
check "POST /api/submit with a wrong token: 401" status_is "$scratch/r401b" 401
http "$scratch/r413" post "$port" "$token" carol "$scratch/big.cl"
check "POST /api/submit with a 100 KiB kernel: 413" status_is "$scratch/r413" 413
http "$scratch/r400" post "$port" "$token" "$(printf 'x%.0s' $(seq 1 41))" "$scratch/small.cl"
check "POST /api/submit with a 41-character alias: 400" status_is "$scratch/r400" 400
http "$scratch/r200" post "$port" "$token" carol "$scratch/small.cl"
check "POST /api/submit with the token and a small kernel: 200 queued" \
    answer_is "$scratch/r200" 200 '^\{"id":[0-9]+,"status":"queued"\}$'
id=$(grep -oE '"id":[0-9]+' "$scratch/r200" | grep -oE '[0-9]+')
check "the uploaded file name is stored sanitised" test "$("$helper" file-name "$db" "${id:-0}")" = my_kernel.cl
http "$scratch/r429" post "$port" "$token" carol "$scratch/small.cl"
check "a second upload from carol at once: 429 with the reason" \
    answer_is "$scratch/r429" 429 'submitted less than 60 s ago'

http "$scratch/subs.json" get "$port" /api/submissions
check "GET /api/submissions lists carol's queued submission" \
    grep -qE "\{\"alias\":\"carol\",\"id\":${id:-x},\"reason\":\"\",\"status\":\"queued\",\"submitted_at\":\"[0-9T:-]+\"\}" \
    "$scratch/subs.json"
check "GET /api/submissions does not give out the source" lacks "$scratch/subs.json" SECRET-SOURCE-MARKER
http "$scratch/r404" get "$port" /../../etc/passwd
check "paths outside the API: 404" answer_is "$scratch/r404" 404 '^\{"error":"not found"\}$'

# --- stopping ------------------------------------------------------------------------------------
kill -TERM "$server_pid"
wait "$server_pid"
rc=$?
server_pid=""
check "SIGTERM stops the server: exit 0" test "$rc" -eq 0
check "SIGTERM stops the server: \"server stopped\" logged" contains "$scratch/server.log" "server stopped"

# --- a judge without the race pass (--no-race-check): the page and the API say so ---------------
start_server "$scratch/server-norace.log" --race-check off
browse "$scratch/dom-norace.html"
check "with --no-race-check the page says \"Race pass off\"" contains "$scratch/dom-norace.html" "<div class=\"baseline-note\">Race pass off"
http "$scratch/board-norace.json" get "$port" /api/board
check "with --no-race-check /api/board says race_pass off" answer_is "$scratch/board-norace.json" 200 '"race_pass":"off"'
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=""

if ((failures > 0)); then
    echo "$failures check(s) FAILED; the server's log is $scratch/server.log, the DOMs $scratch/dom*.html"
    exit 1
fi
echo "all checks passed"
