# Site settings for every medrealmm Slurm path: the scripts here (submit.sh, task/merge/multinode/judge_server
# .sbatch) source this file, and the Hydra launcher of sweep.sh (conf/hydra/launcher/slurm.yaml) reads the same
# names. Edit the defaults here or export the variables before calling a script; README "Running on a cluster"
# has the table. Empty means "leave it to the cluster's default".
: "${MEDREALMM_PARTITION:=}"            # e.g. gpu
: "${MEDREALMM_ACCOUNT:=}"              # e.g. my-lab
: "${MEDREALMM_QOS:=}"
: "${MEDREALMM_TIME_MIN:=240}"          # time limit of each job, minutes
: "${MEDREALMM_CPUS:=8}"                # CPUs per task
: "${MEDREALMM_MEM_GB:=}"               # memory per task in GB, e.g. 64
: "${MEDREALMM_GEN_GPUS:=}"             # GPUs of a generation job; empty: from the model config (medrealmm plan)
: "${MEDREALMM_JUDGE_GPUS:=}"           # GPUs of a judging job; empty: from the judge config (0 with a judge server)
: "${MEDREALMM_GPUS_PER_NODE:=8}"       # GPUs of one node (plan checks layouts against it; multi-node TP size)
: "${MEDREALMM_GPU_MEM_GIB:=80}"        # memory of one GPU in GiB (80: A100/H100, 141: H200), for plan's check
: "${MEDREALMM_ARRAY_PARALLELISM:=64}"  # sweep.sh: sweep points running at once
: "${MEDREALMM_EXTRA_SBATCH:=}"         # anything else, e.g. "--constraint=h100 --exclude=node07"
# How a job gets the environment: a venv, `module load ...`, or a container wrapper (one shell line).
: "${MEDREALMM_REPO:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${MEDREALMM_SETUP:=source $MEDREALMM_REPO/.venv/bin/activate}"
: "${MEDREALMM_LOGS:=$MEDREALMM_REPO/outputs/slurm-logs}"
# Multi-node jobs (slurm/multinode.sbatch) and the judge server (slurm/judge_server.sbatch)
: "${MEDREALMM_MULTINODE_LAUNCHER:=ray}"  # ray: a Ray cluster over the nodes | mp: vLLM's own multi-node launcher
: "${MEDREALMM_MULTINODE_ROLES:=model}"   # the engines spread over the nodes: model, judge or "model judge"
: "${MEDREALMM_RAY_PORT:=6379}"
: "${MEDREALMM_MASTER_PORT:=29501}"       # mp launcher: the leader's torch.distributed port
: "${MEDREALMM_JUDGE_PORT:=8000}"
: "${MEDREALMM_JUDGE_WAIT_MIN:=60}"       # how long a judging job waits for the judge server's URL file

MEDREALMM_SETTINGS=(PARTITION ACCOUNT QOS TIME_MIN CPUS MEM_GB GEN_GPUS JUDGE_GPUS GPUS_PER_NODE GPU_MEM_GIB
    ARRAY_PARALLELISM EXTRA_SBATCH REPO SETUP LOGS MULTINODE_LAUNCHER MULTINODE_ROLES RAY_PORT MASTER_PORT
    JUDGE_PORT JUDGE_WAIT_MIN)

# Every setting checked before anything is submitted: a typo or a retired name is an error with its reason.
medrealmm_check_site() {
    local bad=() name value var
    declare -A retired=([TIME]="TIME_MIN (minutes)" [MEM]="MEM_GB (GB)" [GPUS]="GEN_GPUS and JUDGE_GPUS"
                        [TIMEOUT_MIN]="TIME_MIN" [SETUP_LIST]="SETUP (one shell line)")
    for name in $(compgen -v MEDREALMM_); do
        name=${name#MEDREALMM_}
        case " ${MEDREALMM_SETTINGS[*]} " in *" $name "*) continue ;; esac
        case "$name" in PLAN_*|SLURM_*|CJK_FONT|SETTINGS) continue ;; esac   # set by the scripts / read by others
        if [ -n "${retired[$name]:-}" ]; then
            bad+=("MEDREALMM_$name is no longer read: use MEDREALMM_${retired[$name]}")
        elif [ "$(declare -p "MEDREALMM_$name" 2>/dev/null | cut -c1-11)" = "declare -x " ]; then
            bad+=("MEDREALMM_$name is not a setting (known: ${MEDREALMM_SETTINGS[*]/#/MEDREALMM_})")
        fi
    done
    for name in TIME_MIN CPUS GPUS_PER_NODE ARRAY_PARALLELISM RAY_PORT MASTER_PORT JUDGE_PORT JUDGE_WAIT_MIN; do
        var=MEDREALMM_$name; value=${!var}
        [[ "$value" =~ ^[1-9][0-9]*$ ]] || bad+=("MEDREALMM_$name must be a positive whole number, got '$value'")
    done
    for name in GEN_GPUS JUDGE_GPUS MEM_GB; do
        var=MEDREALMM_$name; value=${!var}
        [ -z "$value" ] || [[ "$value" =~ ^[0-9]+$ ]] || bad+=("MEDREALMM_$name must be a whole number or empty, got '$value'")
    done
    [[ "$MEDREALMM_GPU_MEM_GIB" =~ ^[0-9]+([.][0-9]+)?$ ]] || bad+=("MEDREALMM_GPU_MEM_GIB must be a number, got '$MEDREALMM_GPU_MEM_GIB'")
    case "$MEDREALMM_MULTINODE_LAUNCHER" in ray|mp) ;; *) bad+=("MEDREALMM_MULTINODE_LAUNCHER takes ray or mp, got '$MEDREALMM_MULTINODE_LAUNCHER'") ;; esac
    for value in $MEDREALMM_MULTINODE_ROLES; do
        case "$value" in model|judge) ;; *) bad+=("MEDREALMM_MULTINODE_ROLES takes model and/or judge, got '$value'") ;; esac
    done
    [ -n "$MEDREALMM_MULTINODE_ROLES" ] || bad+=("MEDREALMM_MULTINODE_ROLES is empty: model, judge or \"model judge\"")
    [ -d "$MEDREALMM_REPO/slurm" ] || bad+=("MEDREALMM_REPO=$MEDREALMM_REPO is not the medrealmm repository (no slurm/ in it)")
    if [ ${#bad[@]} -gt 0 ]; then
        printf 'medrealmm: bad site setting: %s\n' "${bad[@]}" >&2
        echo "medrealmm: fix the settings above (slurm/site.sh or the environment); nothing submitted" >&2
        return 2
    fi
}

# sbatch options common to every job, from the settings above
medrealmm_sbatch_common() {
    local opts=(--time="$MEDREALMM_TIME_MIN" --cpus-per-task="$MEDREALMM_CPUS" --chdir="$PWD"
                --output="$MEDREALMM_LOGS/%x-%A_%a.out")
    [ -n "$MEDREALMM_PARTITION" ] && opts+=(--partition="$MEDREALMM_PARTITION")
    [ -n "$MEDREALMM_ACCOUNT" ] && opts+=(--account="$MEDREALMM_ACCOUNT")
    [ -n "$MEDREALMM_QOS" ] && opts+=(--qos="$MEDREALMM_QOS")
    [ -n "$MEDREALMM_MEM_GB" ] && opts+=(--mem="${MEDREALMM_MEM_GB}G")
    # shellcheck disable=SC2206
    [ -n "$MEDREALMM_EXTRA_SBATCH" ] && opts+=($MEDREALMM_EXTRA_SBATCH)
    printf '%s\n' "${opts[@]}"
}

medrealmm_gpus() { [ "${1:-0}" -gt 0 ] && echo "--gpus-per-node=$1"; return 0; }

# The job's environment (MEDREALMM_SETUP), or a message naming the setting that failed.
medrealmm_setup() {
    if ! eval "$MEDREALMM_SETUP"; then
        echo "medrealmm: MEDREALMM_SETUP failed on $(hostname): $MEDREALMM_SETUP" >&2
        return 2
    fi
    command -v medrealmm >/dev/null || { echo "medrealmm: no medrealmm command after MEDREALMM_SETUP ($MEDREALMM_SETUP)" >&2; return 2; }
}

# Compose and check the config a run with these overrides uses (no job, no model): exit status 2 and the reason.
medrealmm_check_config() {
    local out
    if ! out=$( (medrealmm_setup >/dev/null && python "$MEDREALMM_REPO/slurm/medrealmm_slurm.py" check "$@") 2>&1); then
        echo "$out" >&2
        echo "medrealmm: the configuration above does not compose or has a bad setting; nothing submitted" >&2
        return 2
    fi
}

# The GPUs and nodes the composed config needs (medrealmm plan): sets MEDREALMM_PLAN_{GEN,JUDGE}_{GPUS,NODES},
# or prints why the config does not compose or fit and returns 2. Composing also checks every setting.
medrealmm_plan() {
    local out status=0
    out=$(medrealmm_setup >/dev/null || exit 3
          medrealmm plan cluster.format=shell "cluster.gpus_per_node=$MEDREALMM_GPUS_PER_NODE" \
              "cluster.gpu_mem_gib=$MEDREALMM_GPU_MEM_GIB" "$@") || status=$?
    if [ "$status" = 3 ]; then
        echo "medrealmm: the environment (MEDREALMM_SETUP above) does not work here; nothing submitted" >&2
        return 2
    elif [ "$status" != 0 ]; then
        echo "medrealmm: the configuration above does not compose or does not fit the nodes; nothing submitted" >&2
        return 2
    fi
    eval "$out"
}

# A node's IP address as Slurm knows it (NodeAddr, resolved when it is a name); the host name outside Slurm.
medrealmm_node_ip() {
    local node=${1:-${SLURMD_NODENAME:-}} addr=
    if [ -n "$node" ] && command -v scontrol >/dev/null; then
        addr=$(scontrol show node "$node" 2>/dev/null | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p' | head -1)
    fi
    [ -n "${addr:-}" ] || addr=${node:-$(hostname -f 2>/dev/null || hostname)}
    if [[ "$addr" =~ ^[0-9.]+$ ]]; then echo "$addr"; return; fi
    getent ahostsv4 "$addr" 2>/dev/null | awk 'NR == 1 {print $1; found = 1} END {exit !found}' || echo "$addr"
}

# The network interface holding IP on this node (empty if none): torch.distributed's gloo needs it where the host
# name resolves to a loopback address (Debian's /etc/hosts).
medrealmm_ifname() {
    command -v ip >/dev/null || return 0
    ip -o -4 addr show 2>/dev/null | awk -v ip="$1" '{split($4, a, "/"); if (a[1] == ip) {print $2; exit}}'
}
