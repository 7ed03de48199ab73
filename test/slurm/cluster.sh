#!/usr/bin/env bash
# A private single-node Slurm cluster for the tests, on this machine and on loopback only, with
# Debian 12's slurmctld, slurmd, slurm-client and munge (Slurm 22.05; test/setup-debian.sh).
#
#   bash test/slurm/cluster.sh start DIR   start munged, slurmctld and slurmd with everything in DIR
#   eval "$(bash test/slurm/cluster.sh env DIR)"   point sinfo/srun/sbatch/squeue/scancel at it
#   bash test/slurm/cluster.sh stop DIR    cancel its jobs, stop the daemons, wait for them to exit
#
# Everything lives under DIR (an empty or new directory; its path must be short enough for a
# Unix socket, about 90 bytes): a fresh munge key (munge/munge.key) and munged with its own
# socket, pid, log and seed files; slurm.conf with SlurmctldHost=localhost on 127.0.0.1, two
# free non-default ports (SlurmctldPort, SlurmdPort), StateSaveLocation, SlurmdSpoolDir, logs
# and pid files in DIR, AuthInfo naming DIR's munge socket, and one node `localhost` (the CPU
# layout and RealMemory that `slurmd -C` reports for this machine) in one default partition
# `debug`. Nothing of /etc/slurm, /etc/munge or /run/munge is used or touched, so it runs beside
# a real cluster's configuration. It is made for a root-run container without systemd or
# usable cgroups: SlurmUser=root, ProctrackType=proctrack/linuxproc (process-tree tracking),
# TaskPlugin=task/none, no accounting (no slurmdbd: sacct does not work, squeue does), no
# GresTypes (the node has no GPUs, so a step asking for one is refused at once).
#
# start waits (60 s at most) until sinfo shows the node idle; if it does not come up it prints
# the daemons' log tails, stops whatever it started and exits 1. stop is idempotent: it cancels
# every job of this cluster, stops slurmd, slurmctld and munged by their pid files (SIGTERM,
# then SIGKILL after 10 s), ends the job-step daemons (slurmstepd) the cluster's slurmd left,
# found by the marker in their environment, and waits until none of them is alive.
set -euo pipefail

usage() {
  echo "usage: cluster.sh start DIR | env DIR | stop DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
[ "$cmd" = start ] && { mkdir -p "$2" 2> /dev/null || true; }
if [ ! -d "$2" ]; then
  [ "$cmd" = stop ] && exit 0 # nothing was started there
  echo "cluster.sh: no directory '$2'" >&2
  exit 2
fi
DIR=$(cd "$2" && pwd)
CONF=$DIR/slurm.conf
SOCK=$DIR/munge/munge.socket

log_tails() {
  local f
  for f in "$DIR"/log/munged.log "$DIR"/log/slurmctld.log "$DIR"/log/slurmd.log; do
    [ -f "$f" ] || continue
    echo "--- tail of $f" >&2
    tail -n 25 "$f" >&2
  done
}

# alive PID: the process exists and is not a zombie (an exited daemon whose parent, init in a
# container, has not reaped it yet).
alive() {
  [ -n "$1" ] && kill -0 "$1" 2> /dev/null &&
    [ "$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -c1)" != Z ]
}

# pidfile_pid FILE: the pid in FILE if that process is alive, else nothing.
pidfile_pid() {
  local p
  [ -f "$1" ] || return 0
  p=$(tr -dc '0-9' < "$1")
  if alive "$p"; then echo "$p"; fi
}

# stepds: the pids of the slurmstepd processes of this cluster (their environment, inherited
# from our slurmd, holds ASMEVO_SLURM_CLUSTER=DIR).
stepds() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2> /dev/null)" = slurmstepd ] || continue
    tr '\0' '\n' 2> /dev/null < "$p/environ" | grep -qxF "ASMEVO_SLURM_CLUSTER=$DIR" &&
      echo "${p#/proc/}"
  done
  return 0
}

# wait_gone TENTHS PID...: wait up to TENTHS tenths of a second until none of the PIDs is
# alive; if some still are, print them and return 1.
wait_gone() {
  local n=$1 p left
  shift
  for _ in $(seq "$n"); do
    left=""
    for p in "$@"; do alive "$p" && left="$left $p"; done
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  echo "$left"
  return 1
}

# stop_pids NAME PID...: SIGTERM, wait up to 10 s, then SIGKILL and wait until they are gone.
stop_pids() {
  local name=$1 left
  shift
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2> /dev/null || true
  left=$(wait_gone 100 "$@") && return 0
  echo "cluster.sh: $name did not stop on SIGTERM within 10 s: SIGKILL$left" >&2
  # shellcheck disable=SC2086
  kill -KILL $left 2> /dev/null || true
  # shellcheck disable=SC2086
  left=$(wait_gone 50 $left) && return 0
  echo "cluster.sh: $name still alive after SIGKILL:$left" >&2
  return 1
}

# free_ports N: N distinct TCP ports free on 127.0.0.1 now (not 6817/6818, Slurm's defaults).
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
socks, ports = [], []
while len(ports) < int(sys.argv[1]):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
    if s.getsockname()[1] not in (6817, 6818):
        ports.append(s.getsockname()[1])
print(" ".join(map(str, ports)))
PY
}

do_stop() {
  local rc=0 jobs
  if [ -f "$CONF" ] && [ -n "$(pidfile_pid "$DIR/run/slurmctld.pid")" ]; then
    # Cancel every job, and give slurmd a moment to end their steps itself.
    jobs=$(SLURM_CONF=$CONF timeout 10 squeue -h -o %A 2> /dev/null || true)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      SLURM_CONF=$CONF timeout 10 scancel $jobs 2> /dev/null || true
      for _ in $(seq 50); do
        [ -z "$(SLURM_CONF=$CONF timeout 5 squeue -h -o %A 2> /dev/null || true)" ] && break
        sleep 0.2
      done
    fi
  fi
  # shellcheck disable=SC2046
  stop_pids slurmd $(pidfile_pid "$DIR/run/slurmd.pid") || rc=1
  # shellcheck disable=SC2046
  stop_pids slurmstepd $(stepds) || rc=1
  # shellcheck disable=SC2046
  stop_pids slurmctld $(pidfile_pid "$DIR/run/slurmctld.pid") || rc=1
  # shellcheck disable=SC2046
  stop_pids munged $(pidfile_pid "$DIR/run/munged.pid") || rc=1
  return $rc
}

# daemon NAME COMMAND...: start a daemon (it forks and writes its pid file itself) holding no
# descriptor of ours, with the marker in its environment that lets stop find the slurmstepd
# processes of this cluster; if it fails, print why, stop the others and exit 1.
daemon() {
  local name=$1
  shift
  if ! ASMEVO_SLURM_CLUSTER=$DIR SLURM_CONF=$CONF "$@" < /dev/null > /dev/null \
      2> "$DIR/log/$name.stderr" 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-; then
    echo "cluster.sh: $name did not start:" >&2
    cat "$DIR/log/$name.stderr" >&2
    log_tails
    do_stop || true
    exit 1
  fi
}

do_start() {
  local ctld_port slurmd_port node state mem
  for d in munged slurmctld slurmd; do
    if [ -n "$(pidfile_pid "$DIR/run/$d.pid")" ]; then
      echo "cluster.sh: $d of '$DIR' is already running (stop it first)" >&2
      exit 1
    fi
  done
  for t in munged mungekey slurmctld slurmd sinfo srun; do
    command -v "$t" > /dev/null || [ -x "/usr/sbin/$t" ] ||
      { echo "cluster.sh: $t is not installed (bash test/setup-debian.sh)" >&2; exit 1; }
  done
  export PATH="$PATH:/usr/sbin"
  if [ ${#SOCK} -gt 100 ]; then
    echo "cluster.sh: '$DIR' is too long a path for the munge socket (use a shorter DIR)" >&2
    exit 2
  fi
  rm -rf "$DIR/munge" "$DIR/state" "$DIR/spool" "$DIR/log" "$DIR/run"
  mkdir -p "$DIR/munge" "$DIR/state" "$DIR/spool" "$DIR/log" "$DIR/run"
  chmod 0755 "$DIR/munge"
  chmod go-w "$DIR"

  # munge: a key of our own, a socket of our own.
  mungekey --create --keyfile="$DIR/munge/munge.key" 2> /dev/null ||
    { dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none; }
  chmod 0400 "$DIR/munge/munge.key"
  daemon munged munged --force --socket="$SOCK" --key-file="$DIR/munge/munge.key" \
    --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
    --seed-file="$DIR/munge/munged.seed"

  read -r ctld_port slurmd_port < <(free_ports 2)
  # The node as slurmd sees this machine (CPUs, sockets, cores, threads, RealMemory).
  node=$(slurmd -C 2> /dev/null | sed -n 's/^NodeName=[^ ]* //p' | head -1)
  if [ -z "$node" ]; then
    mem=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
    node="CPUs=$(nproc) RealMemory=$mem"
  fi
  cat > "$CONF" <<CONF
# A private test cluster (test/slurm/cluster.sh start $DIR): loopback only, root, no cgroups.
ClusterName=asmevo-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=30
PlugStackConfig=$DIR/plugstack.conf
NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=localhost $node State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
  : > "$DIR/plugstack.conf"

  daemon slurmctld slurmctld -f "$CONF" -i
  daemon slurmd slurmd -f "$CONF" -N localhost
  state=""
  for _ in $(seq 300); do
    state=$(SLURM_CONF=$CONF timeout 5 sinfo -h -N -n localhost -o %T 2> /dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
  done
  if [ "$state" != idle ]; then
    echo "cluster.sh: the node did not come up idle within 60 s (sinfo: '${state:-no answer}')" >&2
    log_tails
    do_stop || true
    exit 1
  fi
  echo "cluster.sh: cluster up in $DIR (slurmctld 127.0.0.1:$ctld_port," \
    "slurmd :$slurmd_port; node localhost $node)"
}

case $cmd in
start) do_start ;;
env) echo "export SLURM_CONF=$(printf '%q' "$CONF")" ;;
stop) do_stop ;;
*) usage ;;
esac
