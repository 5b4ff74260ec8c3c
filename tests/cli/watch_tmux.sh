#!/bin/bash
# End-to-end test of watch mode, driven like a student would: the real binary in a tmux pane,
# files edited from outside, keys pressed with send-keys, the screen read with capture-pane.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || fail "tmux is not installed (apt-get install tmux)"
fresh_start

socket="workbook-e2e-$$"
tm() { tmux -L "$socket" "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT

screen() { tm capture-pane -p -t wb 2>/dev/null || true; }

# wait_for TEXT WHAT [SECONDS]: until the screen shows TEXT.
wait_for() {
    local deadline=$((SECONDS + ${3:-90}))
    while [ $SECONDS -lt $deadline ]; do
        case "$(screen)" in *"$1"*) echo "ok: $2"; return 0 ;; esac
        sleep 0.2
    done
    printf 'FAIL: %s: the screen never showed "%s"; it shows:\n%s\n' "$2" "$1" "$(screen)" >&2
    exit 1
}

key() { tm send-keys -t wb "$@"; }

start() {
    tm new-session -d -s wb -x 120 -y 50 "cd '$scratch' && '$wb' $*; echo workbook exited with status \$?; sleep 600"
}

start
wait_for "exercise 1 of 3" "watch starts on exercise 01"
wait_for "0/3 exercises done" "with a progress bar"
wait_for "FAIL 01" "and the starter fails"
wait_for "Edit: exercises/01_device_info/device_info.cpp" "naming the file to edit"

key h
wait_for "Hint 1/" "h shows the first hint"
key h
wait_for "Hint 2/" "h again climbs the ladder"
key n
wait_for "n moves on once this exercise passes" "n before a pass does not advance"

solve 01_device_info
wait_for "PASS 01" "saving the solution re-checks and passes"
wait_for "Press n for the next exercise" "and waits for n"
wait_for "1/3 exercises done" "the bar moves"
screen > "$scratch/watch-pass-screen.txt"

key n
wait_for "exercise 2 of 3" "n advances to 02"
wait_for "FAIL 02" "whose starter fails"

key l
wait_for "Type an exercise number" "l lists the exercises"
wait_for "> 02" "marking the current one"
key 3 Enter
wait_for "exercise 3 of 3" "typing 3 and Enter jumps to 03"
wait_for "FAIL 03" "which fails"

solve 03_vadd_chain
wait_for "PASS 03" "03 passes once solved"
"$wb" reset 03 >/dev/null
wait_for "FAIL 03" "a reset from another shell is seen and fails again"

key r
wait_for "re-run" "r re-runs"
key q
wait_for "workbook exited with status 0" "q quits"
grep -q "current = '03'" "$scratch/.workbook/progress.toml" || fail "the progress file does not remember 03"
echo "ok: the progress file remembers exercise 03"
tm kill-server 2>/dev/null || true

# Resuming, and the polling fallback: on a fresh tmux server (a new socket, so no race with the
# old one shutting down).
socket="$socket-poll"
start watch --poll
wait_for "exercise 3 of 3" "a new session resumes at 03"
wait_for "polling every 0.5 s" "--poll says it polls"
wait_for "FAIL 03" "the check ran"
echo "// a student's comment" >> "$scratch/exercises/03_vadd_chain/vadd_chain.cpp"
wait_for "a file changed: checked again" "polling sees the change"
key q
wait_for "workbook exited with status 0" "q quits the polling session"

echo "PASS: watch mode"
