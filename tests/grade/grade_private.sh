#!/bin/bash
# A student's work is theirs (issue 61): while `workbook grade` grades a submission kept in a
# folder of the grader's alone (as the class server keeps its checks), another local account
# scans every process's command line for paths and reads whatever it can under them. It must find
# no byte of the student's files. A control file, readable and named on a command line the same
# way, shows the snooper finds what is there to find. Nor may any command line name the student
# (their folder's name): the grader names its folders by slot; a control process whose command
# line holds the name shows that the snooper would see it.
#   grade_private.sh SOURCE BUILD SCRATCH
set -euo pipefail
src=$1 build=$2 work=$3
wb="$build/bin/workbook"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a second account, the grader's users)"; exit 77; }
if ! why=$(bwrap --unshare-all --die-with-parent --ro-bind / / true 2>&1); then
    echo "SKIP: this machine refuses the sandbox's namespaces ($why)"; exit 77
fi
grep -o " $work/[^ ]*" /proc/mounts | xargs -r umount -l 2>/dev/null || true
rm -rf "$work"
student="annqz$RANDOM$RANDOM"
mkdir -p "$work/subs/$student/exercises/02_vadd" "$work/snoop"
marker="ann-private-$RANDOM$RANDOM"
for f in "$src"/solutions/02_vadd/*; do
    { echo "// $marker"; cat "$f"; } > "$work/subs/$student/exercises/02_vadd/$(basename "$f")"
done
chmod -R go-rwx "$work/subs"
chmod 0777 "$work/snoop"
# The control: a readable file named on a command line.
mkdir -p "$work/control-$student" && echo "control-$marker" > "$work/control-$student/visible.txt"
chmod -R a+rX "$work/control-$student"
tail -f "$work/control-$student/visible.txt" > /dev/null &
control=$!
snooper=
cleanup() { touch "$work/snoop/stop"; kill $control ${snooper:+$snooper} 2>/dev/null || true; }
trap cleanup EXIT

# The snooper, as an account of its own: every absolute path in any command line; a file it
# can read, or a folder under this test's scratch or /tmp (where a grading keeps its files; the
# system's and the build's folders would take minutes a round), searched for the marker.
cat > "$work/snoop/snoop.sh" <<'SH'
#!/bin/bash
marker=$1 out=$2 scratch=$3 student=$4
while [ ! -e "$out/stop" ]; do
    for c in /proc/[0-9]*/cmdline; do
        args=$(tr '\0' ' ' < "$c" 2>/dev/null)
        case "$args" in *snoop.sh*) ;; *"$student"*) echo "$args" >> "$out/names" ;; esac
        tr '\0' '\n' < "$c" 2>/dev/null | grep -o '/[^ =:]*' | sort -u | while read -r p; do
            if [ -f "$p" ]; then
                grep -ls -e "$marker" "$p" 2>/dev/null | sed "s|^|$p: |"
            elif [ -d "$p" ] && case "$p/" in "$scratch"/*|/tmp/?*) true ;; *) false ;; esac; then
                grep -rls -e "$marker" "$p" 2>/dev/null | head -3 | sed "s|^|$p: |"
            fi
        done
    done >> "$out/hits"
    echo . >> "$out/rounds"
done
SH
chmod 0755 "$work/snoop/snoop.sh"
setpriv --reuid 65533 --regid 65533 --clear-groups bash "$work/snoop/snoop.sh" "$marker" "$work/snoop" "$work" "$student" &
snooper=$!
# Two rounds first, so that the control is surely seen.
for _ in $(seq 600); do [ "$(cat "$work/snoop/rounds" 2>/dev/null | wc -l)" -ge 1 ] && break; sleep 0.1; done
"$wb" grade "$work/subs" --out "$work/out" --only 02 > "$work/grade.log" 2>&1 || fail "grading: $(tail -20 "$work/grade.log")"
sleep 1
touch "$work/snoop/stop"
wait $snooper || true
kill $control 2>/dev/null || true
rounds=$(wc -l < "$work/snoop/rounds")
grep -qx "$student,$student,2.00,2.00,2.00" "$work/out/gradebook.csv" || fail "the solved 02 was not full marks: $(cat "$work/out/gradebook.csv")"
grep -q "control-$student/visible.txt" "$work/snoop/hits" || fail "the snooper is blind: it did not find the control file ($rounds rounds)"
if grep -v "control-$student/visible.txt" "$work/snoop/hits" | grep -q .; then
    fail "another account read the student's files while they were graded: $(grep -v control-$student/visible.txt "$work/snoop/hits" | sort -u | head -5)"
fi
grep -q "control-$student" "$work/snoop/names" || fail "the snooper does not see names: the control's command line was not found"
if grep -v "control-$student" "$work/snoop/names" | grep -q .; then
    fail "a command line named the student: $(grep -v "control-$student" "$work/snoop/names" | sort -u | head -3 | cut -c1-300)"
fi
echo "PASS: $rounds rounds of a second account reading every path on every command line: the control found, no byte of the student's files, no command line with their name"
