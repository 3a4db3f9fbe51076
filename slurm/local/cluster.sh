#!/usr/bin/env bash
# A local Slurm cluster for tests and trials, in private network namespaces (nothing listens on the host's network).
#   slurm/local/cluster.sh start DIR [--nodes N]   write DIR/slurm.conf, start munged, slurmctld and slurmd(s)
#   slurm/local/cluster.sh exec DIR CMD...         run CMD where it reaches the cluster (sbatch, squeue, ...)
#   slurm/local/cluster.sh stop DIR                stop the daemons this script started, remove the namespaces
# One node (default): slurmctld and one slurmd ("localhost") on loopback in one namespace.
# N >= 2 nodes: a controller namespace holding a bridge (SUBNET.254, slurmctld) and one namespace per node
# (node1 .. nodeN at SUBNET.1 .. SUBNET.N, one slurmd each), joined to the bridge by veth pairs: jobs on
# different nodes talk over real (virtual) network interfaces, as on a cluster. The nodes share this
# machine's CPUs, memory and file system.
# Needs root, iproute2 and Debian's slurm-wlm + munge. DIR must be an absolute path (Slurm requires it).
# Settings: MEDREALMM_SLURM_NETNS (namespace name), MEDREALMM_SLURM_CPUS / MEDREALMM_SLURM_MEM_MB (per node),
# MEDREALMM_SLURM_SUBNET (first three octets, default 10.77.0).
set -euo pipefail
die() { echo "cluster.sh: $*" >&2; exit 2; }
ACTION=${1:-}; DIR=${2:-}
case "$ACTION" in start|exec|stop) ;; *) die "usage: $0 start|exec|stop DIR [--nodes N | CMD...]" ;; esac
[ -n "$DIR" ] || die "$ACTION needs the state directory (an absolute path)"
case "$DIR" in /*) ;; *) die "the state directory must be an absolute path (Slurm requires it), got $DIR" ;; esac
NS=${MEDREALMM_SLURM_NETNS:-medrealmm-slurm-$(echo "$DIR" | sha1sum | cut -c1-8)}
CPUS=${MEDREALMM_SLURM_CPUS:-$(nproc)}
MEM_MB=${MEDREALMM_SLURM_MEM_MB:-$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 2048 ))}
SUBNET=${MEDREALMM_SLURM_SUBNET:-10.77.0}
in_ns() { nsenter --net="/run/netns/$NS" "$@"; }   # not `ip netns exec`: it remounts /sys (slurmd needs cgroups)
node_ns() { echo "$NS-n$1"; }

write_conf() {   # $1: SlurmctldHost value; stdin: node and partition lines
    cat > "$DIR/slurm.conf" <<CONF
ClusterName=medrealmm-local
SlurmctldHost=$1
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
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
CONF
    cat >> "$DIR/slurm.conf"
}

start() {
    local nodes=1
    while [ $# -gt 0 ]; do
        case "$1" in
            --nodes) nodes=${2:-}; shift 2 || die "--nodes needs a number" ;;
            --nodes=*) nodes=${1#--nodes=}; shift ;;
            *) die "start: unknown option $1 (takes --nodes N)" ;;
        esac
    done
    [[ "$nodes" =~ ^[1-9][0-9]?$ ]] && [ "$nodes" -le 64 ] || die "--nodes takes 1 to 64, got '$nodes'"
    for b in slurmctld slurmd munged nsenter ip sinfo; do
        command -v "$b" >/dev/null || die "$b is not installed (Debian: slurm-wlm, munge, iproute2)"
    done
    [ "$(id -u)" = 0 ] || die "needs root (network namespaces, daemons)"
    [ -f "$DIR/cluster.env" ] && die "$DIR already holds a cluster (stop it first: $0 stop $DIR)"
    mkdir -p "$DIR"/{state,spool,log}
    local i names
    if [ "$nodes" = 1 ]; then
        write_conf "localhost(127.0.0.1)" <<CONF
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    else
        names="node[1-$nodes]"
        { for i in $(seq "$nodes"); do
              echo "NodeName=node$i NodeAddr=$SUBNET.$i CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN"
          done
          echo "PartitionName=debug Nodes=$names Default=YES MaxTime=INFINITE State=UP"
        } | write_conf "$(hostname -s)($SUBNET.254)"   # slurmctld accepts only its own host name here
    fi
    echo "NODES=$nodes NS=$NS" > "$DIR/cluster.env"   # `exec` and `stop` read it

    ip netns list | grep -qw "$NS" || ip netns add "$NS"
    ip -n "$NS" link set lo up
    # glibc's getaddrinfo(AI_ADDRCONFIG) ignores 127.0.0.1 alone: a second address makes IPv4 "configured"
    ip -n "$NS" addr add 127.0.0.2/8 dev lo 2>/dev/null || true
    if [ "$nodes" -gt 1 ]; then
        ip -n "$NS" link add br0 type bridge
        ip -n "$NS" addr add "$SUBNET.254/24" dev br0
        ip -n "$NS" link set br0 up
        for i in $(seq "$nodes"); do
            local nns; nns=$(node_ns "$i")
            ip netns list | grep -qw "$nns" || ip netns add "$nns"
            ip -n "$NS" link add "veth$i" type veth peer name eth0 netns "$nns"
            ip -n "$NS" link set "veth$i" master br0
            ip -n "$NS" link set "veth$i" up
            ip -n "$nns" link set lo up
            ip -n "$nns" addr add "$SUBNET.$i/24" dev eth0
            ip -n "$nns" link set eth0 up
        done
    fi
    export SLURM_CONF="$DIR/slurm.conf"
    [ -f /etc/munge/munge.key ] || mungekey --create >/dev/null 2>&1 || /usr/sbin/create-munge-key -f >/dev/null
    if ! munge -n >/dev/null 2>&1; then
        mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
        (su -s /bin/sh munge -c "munged" 2>/dev/null || munged --force)
        pgrep -n -x munged > "$DIR/munged.pid"   # ours: stopped again by `stop`
    fi
    in_ns slurmctld -f "$SLURM_CONF"
    if [ "$nodes" = 1 ]; then
        in_ns slurmd -f "$SLURM_CONF"
    else
        for i in $(seq "$nodes"); do   # in the foreground (-D) in the background: the pid is known at once
            setsid nsenter --net="/run/netns/$(node_ns "$i")" slurmd -D -f "$SLURM_CONF" -N "node$i" \
                </dev/null >>"$DIR/log/slurmd-node$i.out" 2>&1 &
            echo $! > "$DIR/slurmd-node$i.pid"
        done
    fi
    local idle
    for _ in $(seq 120); do
        idle=$(in_ns sinfo -h -N -o %T 2>/dev/null | grep -c "^idle" || true)
        if [ "$idle" = "$nodes" ]; then echo "slurm up: $nodes node(s), $NS ($DIR)"; exit 0; fi
        sleep 0.5
    done
    echo "cluster.sh: slurm did not come up ($idle of $nodes node(s) idle); logs in $DIR/log:" >&2
    tail -n 5 "$DIR"/log/*.log >&2 || true
    exit 1
}

stop() {
    local nodes f pid alive=() NODES=1
    # shellcheck disable=SC1091
    [ -f "$DIR/cluster.env" ] && source "$DIR/cluster.env"   # NODES and NS of the cluster started there
    nodes=$NODES
    local pids=()
    for f in "$DIR"/slurmd*.pid "$DIR/slurmctld.pid" "$DIR/munged.pid"; do
        [ -f "$f" ] || continue
        pid=$(cat "$f" 2>/dev/null || true)
        [ -n "$pid" ] && kill "$pid" 2>/dev/null && pids+=("$pid")
    done
    for _ in $(seq 20); do
        alive=()
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
        [ ${#alive[@]} = 0 ] && break
        sleep 0.25
    done
    # a slurmd still retrying its registration ignores SIGTERM: these are ours (their pid files), end them
    for pid in "${alive[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    rm -f "$DIR"/slurmd*.pid "$DIR/munged.pid" "$DIR/cluster.env"
    local i
    if [ "$nodes" -gt 1 ]; then
        for i in $(seq "$nodes"); do ip netns del "$(node_ns "$i")" 2>/dev/null || true; done
    fi
    ip netns del "$NS" 2>/dev/null || true
    echo "slurm stopped: $NS"
}

case "$ACTION" in
start) shift 2; start "$@" ;;
exec)
    shift 2
    [ $# -gt 0 ] || die "exec needs a command"
    SLURM_CONF="$DIR/slurm.conf" in_ns "$@" ;;
stop) stop ;;
esac
