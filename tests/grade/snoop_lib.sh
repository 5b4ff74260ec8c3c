# A second local account looking for a student's work while it is graded (issue 61), shared by
# grade_private.sh (a local grading) and ../slurm/grade_slurm.sh (tasks on a Slurm node). Source
# it, then:
#   snoop_start WORK MARKER STUDENT   WORK/snoop is made; a control file named on a command line
#                                     (WORK/control-STUDENT/visible.txt, readable by anyone);
#                                     the snooper runs as uid 65533 until snoop_stop
#   snoop_stop                        stops it and the control
#   snoop_verify WORK STUDENT         fails (returns 1, the reason on stderr) unless the control
#                                     was found and nothing else: no byte with MARKER, no command
#                                     line naming STUDENT
# The snooper reads every absolute path on every process's command line: a file it can read, or a
# folder under WORK or /tmp (where gradings keep their files; the system's and the build's
# folders would take minutes a round), searched for MARKER. SNOOP_PAUSE (seconds, default 0)
# between rounds keeps it from taking a core of a long test.
snoop_work= snoop_pid= snoop_control=
snoop_start() {
    local work=$1 marker=$2 student=$3
    snoop_work=$work
    mkdir -p "$work/snoop" "$work/control-$student"
    chmod 0777 "$work/snoop"
    echo "control-$marker" > "$work/control-$student/visible.txt"
    chmod -R a+rX "$work/control-$student"
    tail -f "$work/control-$student/visible.txt" > /dev/null &
    snoop_control=$!
    cat > "$work/snoop/snoop.sh" <<'SH'
#!/bin/bash
marker=$1 out=$2 scratch=$3 student=$4 pause=$5
while [ ! -e "$out/stop" ]; do
    # Each path once a round, however many command lines name it (a sandbox's names dozens).
    for c in /proc/[0-9]*/cmdline; do
        args=$(tr '\0' ' ' 2>/dev/null < "$c")
        case "$args" in *snoop.sh*) continue ;; *"$student"*) echo "$args" >> "$out/names" ;; esac
        tr '\0' '\n' 2>/dev/null < "$c" | grep -o '/[^ =:]*'
    done | sort -u | while read -r p; do
        if [ -f "$p" ]; then
            grep -ls -e "$marker" "$p" 2>/dev/null | sed "s|^|$p: |"
        elif [ -d "$p" ] && case "$p/" in "$scratch"/*|/tmp/?*) true ;; *) false ;; esac; then
            # Bounded: a tree under /tmp may hold a mounted /proc (a chroot's), where grep -r never ends.
            timeout 60 grep -rls -D skip -e "$marker" "$p" 2>/dev/null | head -3 | sed "s|^|$p: |"
        fi
    done >> "$out/hits"
    echo . >> "$out/rounds"
    sleep "$pause"
done
SH
    chmod 0755 "$work/snoop/snoop.sh"
    setpriv --reuid 65533 --regid 65533 --clear-groups \
        bash "$work/snoop/snoop.sh" "$marker" "$work/snoop" "$work" "$student" "${SNOOP_PAUSE:-0}" &
    snoop_pid=$!
    # One round first, so that the control is surely seen.
    for _ in $(seq 600); do [ -s "$work/snoop/rounds" ] && break; sleep 0.1; done
}
snoop_stop() {
    [ -n "$snoop_work" ] && touch "$snoop_work/snoop/stop"
    [ -n "$snoop_pid" ] && { wait "$snoop_pid" 2>/dev/null || true; }
    [ -n "$snoop_control" ] && { kill "$snoop_control" 2>/dev/null || true; }
    snoop_pid= snoop_control=
}
snoop_verify() {
    local work=$1 student=$2 rounds
    rounds=$(wc -l < "$work/snoop/rounds")
    touch "$work/snoop/hits" "$work/snoop/names"
    if ! grep -q "control-$student/visible.txt" "$work/snoop/hits"; then
        echo "the snooper is blind: it did not find the control file ($rounds rounds)" >&2; return 1
    fi
    if grep -v "control-$student/visible.txt" "$work/snoop/hits" | grep -q .; then
        echo "another account read the student's files while they were graded: $(grep -v "control-$student/visible.txt" "$work/snoop/hits" | sort -u | head -5)" >&2
        return 1
    fi
    if ! grep -q "control-$student" "$work/snoop/names"; then
        echo "the snooper does not see names: the control's command line was not found" >&2; return 1
    fi
    if grep -v "control-$student" "$work/snoop/names" | grep -q .; then
        echo "a command line named the student: $(grep -v "control-$student" "$work/snoop/names" | sort -u | head -3 | cut -c1-300)" >&2
        return 1
    fi
    echo "$rounds rounds of a second account reading every path on every command line: the control found, no byte of the student's files, no command line with their name"
}
