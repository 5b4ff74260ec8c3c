#!/bin/bash
# End-to-end test of `workbook grade --slurm` on a real, single-node Slurm started for the test
# (start_slurm.sh): a small hostile class graded locally and through an array job, one task
# cancelled while it tests a submission (as a node lost to it): that submission goes on in a task
# of its own, its chunk-mate without it; the gradebooks compared byte for byte; the seed out of
# every task's reach; tasks without Oclgrind refused, twice, and reported without chunk-mates' names.
#   grade_slurm.sh SOURCE BUILD SCRATCH      exit 77: Slurm (or the sandbox) cannot run here
set -euo pipefail
src=$1 build=$2 work=$3
wb="$build/bin/workbook"
here=$(cd "$(dirname "$0")" && pwd)
subs="$work/submissions" local_out="$work/local" out="$work/slurm-out"
fail() { echo "FAIL: $*" >&2; exit 1; }
start=$(date +%s)

# A previous run of this test may have left its Slurm or scratch mounts behind.
[ -d "$work/slurm" ] && bash "$here/start_slurm.sh" stop "$work/slurm"
grep -o " $work/[^ ]*" /proc/mounts | xargs -r umount -l 2>/dev/null || true
rm -rf "$work"
mkdir -p "$subs"
if ! why=$(bwrap --unshare-all --die-with-parent --ro-bind / / true 2>&1); then
    echo "SKIP: this machine refuses the sandbox's namespaces ($why); grade.e2e_nosandbox covers the checker"
    exit 77
fi
env_line=$(bash "$here/start_slurm.sh" start "$work/slurm" 2> "$work/slurm-start.log") && rc=0 || rc=$?
if [ $rc -ne 0 ]; then
    [ $rc -eq 77 ] && { echo "SKIP: $(cat "$work/slurm-start.log")"; exit 77; }
    fail "start_slurm.sh failed (exit $rc)"
fi
eval "$env_line"  # SLURM_CONF: sbatch and squeue, here and in `workbook grade`, talk to this Slurm
stop_slurm() {
    # Tasks still running belong to this test's cluster alone: cancel them, let them end, stop it.
    scancel --me 2>/dev/null || true
    for _ in $(seq 50); do [ -z "$(squeue --noheader --me 2>/dev/null)" ] && break; sleep 0.2; done
    bash "$here/start_slurm.sh" stop "$work/slurm"
}
trap stop_slurm EXIT
echo "Slurm up in $(($(date +%s) - start)) s: $(sinfo --noheader --format='%P %D node(s) %c CPU(s) %t')"

# The class: correct, starters, a broken build, a crash, a forged verdict, and a snoop that looks
# for the seed where a task keeps it (the output folder, its environment, Slurm's variables).
solved() {
    local d="$subs/$1"
    mkdir -p "$d/exercises/01_device_info" "$d/exercises/02_vadd"
    cp "$src/solutions/01_device_info/"* "$d/exercises/01_device_info/"
    cp "$src/solutions/02_vadd/"* "$d/exercises/02_vadd/"
}
inject() { sed -i "/^void vadd_on_device/a $2" "$subs/$1/exercises/02_vadd/vadd_host.cpp"; }
solved aaron
solved alice
# alice's files carry a marker that a second account looks for while the tasks grade her.
marker="alice-private-$RANDOM$RANDOM"
for f in "$subs/alice/exercises/02_vadd/"*; do sed -i "1i // $marker" "$f"; done
# Slow but correct (half a second a call), and first in task 0's chunk (aaron, alice): it is under
# test long enough for the task to be stopped then.
inject aaron 'std::this_thread::sleep_for(std::chrono::milliseconds(500));'
sed -i '1i #include <chrono>\n#include <thread>' "$subs/aaron/exercises/02_vadd/vadd_host.cpp"
mkdir -p "$subs/bob/exercises"
cp -r "$src/exercises/01_device_info" "$src/exercises/02_vadd" "$subs/bob/exercises/"
(cd "$subs/bob" && zip -qr ../bob.zip .) && rm -rf "$subs/bob"
solved carol && echo "this is not C++;" >> "$subs/carol/exercises/02_vadd/vadd_host.cpp"
(cd "$subs" && tar -czf carol.tar.gz carol) && rm -rf "$subs/carol"
solved gina && inject gina 'std::abort();'
forge='{ const char* f = std::getenv("WORKBOOK_EVIDENCE_FILE"); const char* n = std::getenv("WORKBOOK_EVIDENCE_NONCE"); std::FILE* o = std::fopen(f ? f : "evidence-forged", "w"); if (o) { std::fprintf(o, "evidence %s\ncase ok 02_vadd kernel: c[i] = a[i] + b[i] for awkward sizes, global size past count\ncase ok 02_vadd host: vadd_on_device computes c = a + b on the device\nrun cases=2 failed=0 asserts=24 asserts_failed=0\n", n ? n : "guess"); std::fclose(o); } }'
solved mallory && sed -i 's/c\[i\] = a\[i\] + b\[i\];/c[i] = 0.0f;/' "$subs/mallory/exercises/02_vadd/vadd.cl" &&
    printf '\n#include <cstdio>\n#include <cstdlib>\nnamespace { struct Forge { Forge() %s } forge_now; struct Quit { Quit() { std::_Exit(0); } } quit_now; }\n' "$forge" >> "$subs/mallory/exercises/02_vadd/vadd_host.cpp"
solved snoop && inject snoop 'std::system("echo SNOOP; cat '"$out"'/secret.toml '"$out"'/slurm/job.json; for f in /proc/[0-9]*/environ; do xargs -0 -n1 < $f; done; env; ls -la '"$out"' '"$out"'/slurm; echo SNOOPED"); std::fflush(stdout);'
sed -i '1i #include <cstdio>\n#include <cstdlib>' "$subs/snoop/exercises/02_vadd/vadd_host.cpp"
printf 'secret_seed = 424242424242\n' > "$work/grading.toml"
args=(--only 01 --only 02 --jobs 1 --timeout 20 --config "$work/grading.toml")
# The instructor's submissions folder is theirs alone (as the class server keeps its checks).
chmod -R go-rwx "$subs"

t0=$(date +%s)
"$wb" grade "$subs" --out "$local_out" "${args[@]}" > "$work/local.log" 2>&1 ||
    { cat "$work/local.log"; fail "the local run failed"; }
echo "local run: $(($(date +%s) - t0)) s"
cat "$local_out/gradebook.csv"

# Through Slurm: two submissions a task, three tasks, two at once (one CPU each on two); all the
# while another account on the node reads every path on every command line (snoop_lib.sh).
. "$here/../grade/snoop_lib.sh"
trap 'snoop_stop; stop_slurm' EXIT
SNOOP_PAUSE=0.3 snoop_start "$work" "$marker" alice
t0=$(date +%s)
"$wb" grade "$subs" --out "$out" "${args[@]}" --slurm --per-task 2 --array-limit 2 > "$work/submit.log" 2>&1 ||
    { cat "$work/submit.log"; fail "the submission failed"; }
cat "$work/submit.log"
job=$(sed -n 's/^submitted Slurm job \([0-9]*\).*/\1/p' "$work/submit.log")
[ -n "$job" ] || fail "no job id in the submission's output"
# A node lost to a submission: task 0 (aaron, alice) cancelled once its reference runs are done
# and before aaron's row is written, while it prepares or tests aaron.
for _ in $(seq 3000); do  # up to 5 minutes on a loaded machine
    [ "$(ls "$out"/slurm/task-0/reference/*.txt 2>/dev/null | grep -vc builds)" -ge 2 ] && break
    sleep 0.1
done
rows=$( (cat "$out/slurm/task-0/journal.jsonl" 2>/dev/null || true) | wc -l)
[ "$rows" -eq 0 ] || fail "task 0 was not caught before aaron's row (its journal: $rows records)"
scancel "${job}_0"
echo "cancelled task 0 of job $job while it graded aaron"
"$wb" grade --out "$out" --wait > "$work/wait.log" 2>&1 || { cat "$work/wait.log"; fail "collecting the Slurm run failed"; }
cat "$work/wait.log"
echo "Slurm run: $(($(date +%s) - t0)) s"
snoop_stop
verdict=$(snoop_verify "$work" alice 2>&1) || fail "on the Slurm node: $verdict"
echo "ok: on the Slurm node, $verdict"
grep -q "task 0 was stopped while it tested a submission: that one goes on in a task of its own (array index 4), the other 1 of its chunk without it" "$work/wait.log" ||
    fail "the submission under test was not moved to a task of its own"
grep -q "submitted once more as job [0-9]* (array indices 0,4)" "$work/wait.log" || fail "the two tasks were not submitted"
python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["chunks"]; assert c[0] == ["alice"] and c[4] == ["aaron"], c' \
    "$out/slurm/job.json" || fail "job.json's chunks are not alice alone in task 0 and aaron alone in task 4"
grep -q '"name":"aaron"' "$out/slurm/task-4/journal.jsonl" && grep -q '"name":"alice"' "$out/slurm/task-0/journal.jsonl" ||
    fail "aaron was not graded by task 4, or alice by task 0"
[ "$(cat "$out"/slurm/task-*/journal.jsonl | wc -l)" -eq 7 ] || fail "the task journals do not hold each submission once"
echo "ok: the submission under test when its task was stopped goes on alone; its chunk-mate is graded without it"

# The same gradebook as the local run, byte for byte (nothing in it is a timestamp), and the same
# summary; every student's report with the same scores and statuses.
cmp "$local_out/gradebook.csv" "$out/gradebook.csv" || fail "the Slurm gradebook differs from the local one"
cmp "$local_out/summary.json" "$out/summary.json" || fail "the Slurm summary differs from the local one"
python3 - "$local_out" "$out" <<'PY' || fail "a student's results differ"
import json, sys, os
a, b = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(f"{a}/results"))
assert names == sorted(os.listdir(f"{b}/results")), "different result files"
for n in names:
    x, y = (json.load(open(f"{d}/results/{n}")) for d in (a, b))
    key = lambda r: [(t["name"], t["score"], t["status"]) for t in r["tests"]] + [r["score"]]
    assert key(x) == key(y), f"{n}: {key(x)} != {key(y)}"
PY
for row in "alice,alice,1.00,2.00,3.00,3.00" "bob,bob,0.00,0.00,0.00,3.00" "carol,carol,1.00,0.00,1.00,3.00" \
           "gina,gina,1.00,1.00,2.00,3.00" "mallory,mallory,1.00,0.00,1.00,3.00" "snoop,snoop,1.00,2.00,3.00,3.00"; do
    grep -qx "$row" "$out/gradebook.csv" || fail "row \"$row\" missing"
done
echo "ok: the Slurm gradebook equals the local one, byte for byte"

# The seed: in secret.toml (0600) alone, never in the job's files, logs or Slurm's record of it;
# the snoop (student code in a task) saw neither it nor the task's environment.
seed=424242424242
[ "$(stat -c %a "$out/secret.toml")" = 600 ] || fail "secret.toml is not 0600"
grep -rq "$seed" "$out/slurm" && fail "the seed is in the job's files or logs"
scontrol show job "$job" | grep -q "$seed" && fail "Slurm's record of the job holds the seed"
# What it printed (the checker's own lines name the seed "(secret)": they are not the snoop's).
snooped=$(python3 -c 'import json, sys
out = "".join(t["output"] for t in json.load(open(sys.argv[1]))["tests"])
print(out[out.index("SNOOP"):out.index("SNOOPED")])' "$out/results/snoop.json") ||
    fail "the snoop did not run: $(head -c 1500 "$out/results/snoop.json")"
grep -q "PATH=" <<<"$snooped" || fail "the snoop's probe printed no environment: $snooped"
grep -q "seed = \|(secret)\|secret_seed\|SLURM_\|WORKBOOK_EVIDENCE\|WORKBOOK_SEED" <<<"$snooped" &&
    fail "the snoop saw the seed, the job or the task's environment: $snooped"
echo "ok: the seed reaches the tasks only through secret.toml, which student code cannot see"

# No task starts without Oclgrind (issue 24): refused, submitted once more, refused again, and
# every submission of it reported; with --no-race-check it grades and says so.
mkdir -p "$work/small"
cp -r "$subs/alice" "$work/small/"
cp -r "$subs/alice" "$work/small/zed"
if WORKBOOK_OCLGRIND=/nonexistent "$wb" grade "$work/small" --out "$work/norace-out" --only 02 --slurm --per-task 2 --wait \
    > "$work/norace.log" 2>&1; then
    fail "a class whose tasks cannot run was reported as graded"
fi
grep -q "submitted once more" "$work/norace.log" || fail "the refused task was not submitted once more: $(cat "$work/norace.log")"
grep -qx "alice,alice,0.00,0.00,2.00" "$work/norace-out/gradebook.csv" || fail "norace gradebook: $(cat "$work/norace-out/gradebook.csv")"
grep -q "not graded: its Slurm task (array index 0) ended 2 time(s) without grading it: the task could not grade: " "$work/norace-out/results/alice.json" &&
    grep -q "the race pass cannot run: WORKBOOK_OCLGRIND names /nonexistent" "$work/norace-out/results/alice.json" ||
    fail "alice's report does not say why she was not graded: $(head -c 1500 "$work/norace-out/results/alice.json")"
grep -q "zed" "$work/norace-out/results/alice.json" && fail "alice's report names her chunk-mate zed"
grep -q "slurm: task 0 left 2 submission(s) not graded after 2 attempt(s); its last log: " "$work/norace.log" ||
    fail "the instructor is not told where the task's log is: $(cat "$work/norace.log")"
WORKBOOK_OCLGRIND=/nonexistent "$wb" grade "$work/small" --out "$work/norace2-out" --only 02 --no-race-check --slurm --wait \
    > "$work/norace2.log" 2>&1 || { cat "$work/norace2.log"; fail "--no-race-check did not reach the tasks"; }
grep -qx "alice,alice,2.00,2.00,2.00" "$work/norace2-out/gradebook.csv" && grep -q "race pass off" "$work/norace2-out/summary.json" ||
    fail "with --no-race-check: $(cat "$work/norace2-out/gradebook.csv")"
echo "ok: tasks refuse to grade without Oclgrind, are reported per submission; --no-race-check reaches them"

# Collecting again changes nothing graded; a submission added after --slurm is named, not lost.
cp -r "$subs/alice" "$subs/zoe"
if "$wb" grade --out "$out" > "$work/late.log" 2>&1; then fail "a submission no task graded was not reported"; fi
grep -q "merged 0 graded submission(s)" "$work/late.log" || fail "collecting again merged something: $(cat "$work/late.log")"
grep -qx "zoe,zoe,0.00,0.00,0.00,3.00" "$out/gradebook.csv" && grep -q "added to SUBMISSIONS after" "$out/results/zoe.json" ||
    fail "the late submission is not reported: $(cat "$out/gradebook.csv")"
cmp <(grep -v '^zoe,' "$out/gradebook.csv") "$local_out/gradebook.csv" || fail "collecting again changed the gradebook"
rm -rf "$subs/zoe"
echo "ok: collecting again is idempotent; a submission added later is reported, not lost"

# Misuse is explained.
if "$wb" grade "$subs" --out "$out" --slurm > "$work/again.log" 2>&1; then fail "a second --slurm into one folder was taken"; fi
grep -q "already holds a Slurm grading run" "$work/again.log" || fail "$(cat "$work/again.log")"
if env PATH=/nonexistent "$wb" grade "$subs" --out "$work/nopath" --slurm > "$work/nopath.log" 2>&1; then fail "graded without sbatch"; fi
grep -q "Slurm's sbatch is not on PATH" "$work/nopath.log" || fail "$(cat "$work/nopath.log")"
if "$wb" grade "$work/small" --out "$work/badpart" --only 02 --slurm --partition nosuch > "$work/badpart.log" 2>&1; then
    fail "a job for a partition that does not exist was taken"
fi
grep -q "sbatch did not take the grading job" "$work/badpart.log" && grep -qi "invalid partition" "$work/badpart.log" ||
    fail "sbatch's refusal is not passed on: $(cat "$work/badpart.log")"
[ -e "$work/badpart/slurm/job.json" ] && fail "a refused submission left its job.json (a second try would be refused)"
echo "ok: misuse explained (a second --slurm into one folder, no sbatch, a partition sbatch refuses)"
# A task that stays pending (its partition down): --wait gives up after --wait-limit, says why
# Slurm holds it, and loses nothing; once the partition is up, --wait collects it.
scontrol update PartitionName=debug State=DOWN
"$wb" grade "$work/small" --out "$work/held" --only 02 --no-race-check --slurm > "$work/held.log" 2>&1 ||
    { scontrol update PartitionName=debug State=UP; fail "submitting to a down partition: $(cat "$work/held.log")"; }
t0=$(date +%s)
if "$wb" grade --out "$work/held" --wait --wait-limit 0.1 > "$work/held-wait.log" 2>&1; then
    scontrol update PartitionName=debug State=UP
    fail "--wait on a task that cannot start did not give up"
fi
waited=$(($(date +%s) - t0))
scontrol update PartitionName=debug State=UP
grep -q "for 0.1 minute(s) no grading task of ours has run: 2 task(s) still pending (0:PENDING (PartitionDown) 1:PENDING (PartitionDown))" "$work/held-wait.log" &&
    grep -q "collect with \`workbook grade --out $work/held --wait\`" "$work/held-wait.log" ||
    fail "the give-up message: $(cat "$work/held-wait.log")"
[ "$waited" -le 30 ] || fail "--wait-limit 0.1 (6 s) gave up after $waited s"
"$wb" grade --out "$work/held" --wait > "$work/held-wait2.log" 2>&1 || fail "collecting after the partition came up: $(cat "$work/held-wait2.log")"
grep -qx "alice,alice,2.00,2.00,2.00" "$work/held/gradebook.csv" || fail "held gradebook: $(cat "$work/held/gradebook.csv")"
echo "ok: --wait gives up on a task Slurm never starts after --wait-limit (${waited} s), saying why; collected later"
echo "PASS: grading through Slurm ($(($(date +%s) - start)) s)"
