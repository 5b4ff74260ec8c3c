#!/bin/bash
# A throw-away single-node Slurm for tests: munged, slurmctld and slurmd of Debian's packages,
# every file (key, sockets, state, logs, slurm.conf) in one folder, on ports free right now, so
# two tests never share one. Runs as root without systemd.
#   start_slurm.sh start DIR   prints `export SLURM_CONF=...` (eval it); exit 77: Slurm cannot
#                              start here, the reason on stderr (a test turns it into a skip)
#   start_slurm.sh stop DIR    stops what `start` started in DIR (by its pid files), leaves DIR
set -uo pipefail
verb=${1:-} dir=${2:-}
[ -n "$verb" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

stop() {
    local f pid
    for f in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
        [ -s "$f" ] || continue
        pid=$(cat "$f")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    rm -f "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid
}
cannot() { echo "Slurm cannot start here: $*" >&2; stop; exit 77; }

if [ "$verb" = stop ]; then stop; exit 0; fi
[ "$verb" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol; do
    command -v "$tool" >/dev/null ||
        cannot "$tool is not installed (apt-get install slurmctld slurmd munge, or scripts/setup.sh)"
done
[ "$(id -u)" -eq 0 ] || cannot "it runs as root (munged as the munge user, slurmd as root)"
id munge >/dev/null 2>&1 || cannot "there is no munge user (the munge package makes it)"

mkdir -p "$dir"/{munge,munge-socket,state,spool,log}
dir=$(cd "$dir" && pwd)
# munged refuses a key or socket folder that others may write; the key is the munge user's alone,
# the socket's folder open to every client.
chown munge: "$dir/munge" "$dir/munge-socket" && chmod 0700 "$dir/munge" && chmod 0755 "$dir/munge-socket"
dd if=/dev/urandom of="$dir/munge/key" bs=1024 count=1 status=none
chown munge: "$dir/munge/key" && chmod 0400 "$dir/munge/key"
setpriv --reuid=munge --regid=munge --init-groups \
    munged --key-file="$dir/munge/key" --socket="$dir/munge-socket/socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" > "$dir/log/munged.out" 2>&1 ||
    cannot "munged did not start: $(cat "$dir/log/munged.out"; tail -n 3 "$dir/munge/munged.log" 2>/dev/null)"
cp "$dir/munge/munged.pid" "$dir/munged.pid"

# Two free TCP ports (the kernel's choice; closed again at once, used a moment later).
read -r ctl_port node_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
node=$(hostname -s)
cpus=$(nproc)
cat > "$dir/slurm.conf" <<CONF
# Written by tests/slurm/start_slurm.sh: a single node, state and logs in $dir.
ClusterName=workbook-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$node_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge-socket/socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -i > "$dir/log/slurmctld.out" 2>&1 ||
    cannot "slurmctld did not start: $(tail -5 "$dir/log/slurmctld.out" "$dir/log/slurmctld.log" 2>/dev/null)"
slurmd -N "$node" > "$dir/log/slurmd.out" 2>&1 ||
    cannot "slurmd did not start: $(tail -5 "$dir/log/slurmd.out" "$dir/log/slurmd.log" 2>/dev/null)"
# Ready when the node is idle (the controller heard from slurmd).
for _ in $(seq 100); do
    state=$(sinfo --noheader --format=%t 2>/dev/null | head -1)
    [ "$state" = idle ] && { echo "export SLURM_CONF=$dir/slurm.conf"; exit 0; }
    sleep 0.2
done
cannot "the node did not become idle within 20 s (sinfo: ${state:-nothing}); logs: $(tail -3 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" 2>/dev/null)"
