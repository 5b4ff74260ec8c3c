#!/bin/bash
# probe.sh LOAD(0|1) CMD...: runs CMD (as root, cgroup v1) in a cpu group of half a processor
# (cpu.cfs_quota_us 50000 of 100000), with a busy loop at nice 10 in the same group when LOAD=1
# (the grader's race lane stands so beside a graded test). Prints the group's nr_throttled.
g=/sys/fs/cgroup/cpu/quota-probe
mkdir -p $g && echo 100000 > $g/cpu.cfs_period_us && echo 50000 > $g/cpu.cfs_quota_us || exit 2
load=$1; shift
pid=
if [ "$load" = 1 ]; then
  ( echo $BASHPID > $g/cgroup.procs; exec nice -n 10 python3 -c 'while True: pass' ) & pid=$!
fi
before=$(grep nr_throttled $g/cpu.stat)
( echo $BASHPID > $g/cgroup.procs; exec "$@" )
rc=$?
[ -n "$pid" ] && kill $pid
echo "rc=$rc throttled before: $before after: $(grep nr_throttled $g/cpu.stat)"
