#!/usr/bin/env bash
# Installs (when missing) and starts a two-node Slurm cluster on this host, without systemd: munged
# as user munge, one slurmctld and two slurmd (`slurmd -N n1`, `slurmd -N n2`, each on its own
# port), then waits until sinfo shows both nodes idle. Idempotent: a cluster whose two nodes
# already answer idle is left alone. The configuration is /etc/slurm/slurm.conf (where sbatch,
# squeue and scancel look without SLURM_CONF); state and logs live under
# ${SWE_WORKBENCH_STATE:-/var/lib/swe-workbench}/slurm. Ports 6817 (controller), 6821 and 6822
# (nodes) keep clear of the 8000-9000 range code-server's tests use.
set -euo pipefail
state=${SWE_WORKBENCH_STATE:-/var/lib/swe-workbench}/slurm
conf=/etc/slurm/slurm.conf
nodes_idle() {
  [ -f "$conf" ] || return 1
  local out
  out=$(timeout 10 sinfo -h -N -o '%N %t' 2>/dev/null | sort -u) || return 1
  # idle or mixed/allocated: a node running a job is up too.
  echo "$out" | grep -Eq '^n1 (idle|mix|alloc)$' && echo "$out" | grep -Eq '^n2 (idle|mix|alloc)$'
}
if nodes_idle && pgrep -x slurmctld >/dev/null; then exit 0; fi

if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq slurm-wlm munge >/dev/null; }
fi

mkdir -p "$state/ctld" "$state/spool" "$state/log"
# munge: its key, its run folder owned by munge, the daemon as munge.
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
fi
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
chmod 755 /run/munge
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  rm -f /run/munge/munge.socket.2 /run/munge/munged.pid
  su -s /bin/sh munge -c '/usr/sbin/munged' </dev/null
  for _ in $(seq 1 40); do munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.25; done
  munge -n </dev/null | unmunge >/dev/null || { echo "slurm/start: munged does not answer (log: /var/log/munge/munged.log)" >&2; exit 1; }
fi

host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) / 2 ))
mkdir -p /etc/slurm
cat >"$conf.new" <<CONF
# Written by scripts/slurm/start.sh: a two-node cluster on one host for SWE Workbench's tests.
ClusterName=swe-workbench
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=6817
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool/%n
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd-%n.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# A node that stops answering is down within 20 s, and its jobs are failed, not run again: the
# submitter names them and --resume submits them once.
SlurmdTimeout=20
JobRequeue=0
MinJobAge=3600
KillWait=10
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=6821 CPUs=$cpus RealMemory=$mem State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=6822 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
changed=1
if [ -f "$conf" ] && cmp -s "$conf" "$conf.new"; then changed=0; fi
mv "$conf.new" "$conf"
cp "$conf" "$state/slurm.conf"

if [ "$changed" = 1 ] || ! pgrep -x slurmctld >/dev/null; then
  pkill_pidfile() { [ -f "$1" ] && kill "$(cat "$1")" 2>/dev/null || true; }
  if [ "$changed" = 1 ]; then
    for p in "$state/slurmctld.pid" "$state/slurmd-n1.pid" "$state/slurmd-n2.pid"; do pkill_pidfile "$p"; done
    sleep 1
  fi
fi
pgrep -x slurmctld >/dev/null || slurmctld -i </dev/null
for n in n1 n2; do
  mkdir -p "$state/spool/$n"
  running=0
  if [ -f "$state/slurmd-$n.pid" ] && kill -0 "$(cat "$state/slurmd-$n.pid")" 2>/dev/null; then running=1; fi
  [ "$running" = 1 ] || slurmd -N "$n" </dev/null
done
for _ in $(seq 1 120); do
  # A node that was down (its slurmd killed by a test) answers again: resume it.
  for n in n1 n2; do
    st=$(timeout 10 sinfo -h -n "$n" -o '%t' 2>/dev/null | head -n1 || true)
    case "$st" in down*|drain*|fail*) scontrol update NodeName="$n" State=RESUME >/dev/null 2>&1 || true ;; esac
  done
  if nodes_idle; then exit 0; fi
  sleep 0.5
done
echo "slurm/start: the nodes did not come up idle within 60 s; sinfo says:" >&2
sinfo -N >&2 || true
tail -n 20 "$state/log/slurmctld.log" >&2 || true
exit 1
