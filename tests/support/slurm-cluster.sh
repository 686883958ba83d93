#!/usr/bin/env bash
# A private single-node SLURM for a test: munged, slurmctld and slurmd from Debian's slurm-wlm
# packages (scripts/setup.sh installs them), with their own key, ports, state and logs in DIR.
#
#   slurm-cluster.sh start DIR   prints SLURM_CONF=DIR/slurm.conf once the node is idle;
#                                exits 77 with the reason where it cannot start one
#   slurm-cluster.sh stop DIR    stops the daemons
set -u
action=$1
dir=$2
if [ "$action" = stop ]; then
  # The jobs first (their batch steps would outlive slurmd), then the daemons.
  export SLURM_CONF=$dir/slurm.conf
  scancel --full --quiet --user "$(id -un)" 2>/dev/null
  for _ in $(seq 150); do
    [ -z "$(squeue --noheader 2>/dev/null)" ] && break
    sleep 0.1
  done
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  sleep 0.5
  exit 0
fi
for tool in munged slurmctld slurmd sbatch squeue scancel sinfo python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool is not installed (scripts/setup.sh installs slurmctld, slurmd, slurm-client, munge)"
    exit 77
  fi
done
if [ "$(id -u)" != 0 ]; then
  # slurmd starts the job's processes as the submitting user: it has to be root.
  echo "SKIP: a SLURM node's slurmd runs as root; this test runs as $(id -un)"
  exit 77
fi
mkdir -p "$dir/state" "$dir/spool"
head -c 1024 /dev/urandom >"$dir/munge.key"
chmod 600 "$dir/munge.key"
if ! munged --socket="$dir/munge.sock" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munge.seed" --force >"$dir/munged.out" 2>&1; then
  echo "SKIP: munged did not start: $(tail -1 "$dir/munged.out")"
  exit 77
fi
read -r ctld_port node_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
host=$(hostname -s)
cpus=$(nproc)
cat >"$dir/slurm.conf" <<CONF
ClusterName=towerbench-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldPort=$ctld_port
SlurmdPort=$node_port
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -D -i >"$dir/slurmctld.out" 2>&1 &
slurmd -D >"$dir/slurmd.out" 2>&1 &
for _ in $(seq 300); do
  [ "$(sinfo --noheader --format=%t 2>/dev/null)" = idle ] && break
  sleep 0.1
done
if [ "$(sinfo --noheader --format=%t 2>/dev/null)" != idle ]; then
  echo "SKIP: the SLURM node did not become idle within 30 s: $(tail -2 "$dir/slurmctld.log" "$dir/slurmd.log" 2>/dev/null | tr '\n' ' ')"
  "$0" stop "$dir"
  exit 77
fi
echo "SLURM_CONF=$SLURM_CONF"
