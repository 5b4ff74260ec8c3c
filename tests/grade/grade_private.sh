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
mkdir -p "$work/subs/$student/exercises/02_vadd"
marker="ann-private-$RANDOM$RANDOM"
for f in "$src"/solutions/02_vadd/*; do
    { echo "// $marker"; cat "$f"; } > "$work/subs/$student/exercises/02_vadd/$(basename "$f")"
done
chmod -R go-rwx "$work/subs"
. "$(dirname "$0")/snoop_lib.sh"
trap snoop_stop EXIT
snoop_start "$work" "$marker" "$student"
"$wb" grade "$work/subs" --out "$work/out" --only 02 > "$work/grade.log" 2>&1 || fail "grading: $(tail -20 "$work/grade.log")"
sleep 1
snoop_stop
grep -qx "$student,$student,2.00,2.00,2.00" "$work/out/gradebook.csv" || fail "the solved 02 was not full marks: $(cat "$work/out/gradebook.csv")"
verdict=$(snoop_verify "$work" "$student" 2>&1) || fail "$verdict"
echo "PASS: $verdict"
