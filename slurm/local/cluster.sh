#!/usr/bin/env bash
# A one-node Slurm cluster on loopback, inside a private network namespace, for tests and trials.
#   slurm/local/cluster.sh start DIR    write DIR/slurm.conf, start munged, slurmctld and slurmd
#   slurm/local/cluster.sh exec DIR CMD run CMD where it reaches the cluster (sbatch, squeue, ...)
#   slurm/local/cluster.sh stop DIR     stop the daemons this script started, remove the namespace
# Needs root and Debian's slurm-wlm + munge. DIR must be an absolute path (Slurm requires it).
set -euo pipefail
ACTION=${1:?start|exec|stop}; DIR=${2:?state directory}
NS=${MEDREALMM_SLURM_NETNS:-medrealmm-slurm-$(echo "$DIR" | sha1sum | cut -c1-8)}
CPUS=${MEDREALMM_SLURM_CPUS:-$(nproc)}
MEM_MB=${MEDREALMM_SLURM_MEM_MB:-$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 2048 ))}
in_ns() { nsenter --net="/run/netns/$NS" "$@"; }

case "$ACTION" in
start)
    mkdir -p "$DIR"/{state,spool,log,munge}
    cat > "$DIR/slurm.conf" <<CONF
ClusterName=medrealmm-local
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
SlurmdTimeout=60
MinJobAge=600
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    ip netns list | grep -qw "$NS" || ip netns add "$NS"
    in_ns ip link set lo up
    in_ns ip addr add 127.0.0.2/8 dev lo 2>/dev/null || true
    export SLURM_CONF="$DIR/slurm.conf"
    [ -f /etc/munge/munge.key ] || mungekey --create >/dev/null 2>&1 || /usr/sbin/create-munge-key -f >/dev/null
    if ! munge -n >/dev/null 2>&1; then
        mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
        (su -s /bin/sh munge -c "munged" 2>/dev/null || munged --force)
        pgrep -n -x munged > "$DIR/munged.pid"   # ours: stopped again by `stop`
    fi
    in_ns slurmctld -f "$SLURM_CONF"
    in_ns slurmd -f "$SLURM_CONF"
    for _ in $(seq 60); do
        if in_ns sinfo -h -o %T 2>/dev/null | grep -qE "^idle"; then echo "slurm up: $NS ($DIR)"; exit 0; fi
        sleep 0.5
    done
    echo "slurm did not come up; logs in $DIR/log" >&2; exit 1 ;;
exec)
    shift 2
    SLURM_CONF="$DIR/slurm.conf" in_ns "$@" ;;
stop)
    for p in slurmd slurmctld munged; do
        [ -f "$DIR/$p.pid" ] && kill "$(cat "$DIR/$p.pid")" 2>/dev/null || true
    done
    sleep 1
    ip netns del "$NS" 2>/dev/null || true
    echo "slurm stopped: $NS" ;;
*) echo "usage: $0 start|exec|stop DIR [CMD...]" >&2; exit 2 ;;
esac
