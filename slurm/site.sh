# Site settings for every medrealmm Slurm script: edit here or export before calling the scripts.
# Empty means "leave it to the cluster's default".
: "${MEDREALMM_PARTITION:=}"            # e.g. gpu
: "${MEDREALMM_ACCOUNT:=}"              # e.g. my-lab
: "${MEDREALMM_QOS:=}"
: "${MEDREALMM_TIME:=04:00:00}"         # per task
: "${MEDREALMM_CPUS:=8}"                # CPUs per task
: "${MEDREALMM_MEM:=}"                  # e.g. 64G per task
: "${MEDREALMM_GEN_GPUS:=}"             # GPUs of a generation task; empty: from the model config (medrealmm plan)
: "${MEDREALMM_JUDGE_GPUS:=}"           # GPUs of a judging task; empty: from the judge config (0 with a judge server)
: "${MEDREALMM_GPUS_PER_NODE:=8}"       # GPUs of one node (plan checks layouts against it; multi-node TP size)
: "${MEDREALMM_GPU_MEM_GIB:=80}"        # memory of one GPU in GiB (80: A100/H100, 141: H200), for plan's check
: "${MEDREALMM_EXTRA_SBATCH:=}"         # anything else, e.g. "--constraint=h100 --exclude=node07"
# How a job gets the environment: a venv, `module load ...`, or a container wrapper.
: "${MEDREALMM_REPO:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${MEDREALMM_SETUP:=source $MEDREALMM_REPO/.venv/bin/activate}"
: "${MEDREALMM_LOGS:=$MEDREALMM_REPO/outputs/slurm-logs}"

# sbatch options common to every job, from the settings above
medrealmm_sbatch_common() {
    local opts=(--time="$MEDREALMM_TIME" --cpus-per-task="$MEDREALMM_CPUS" --chdir="$PWD"
                --output="$MEDREALMM_LOGS/%x-%A_%a.out")
    [ -n "$MEDREALMM_PARTITION" ] && opts+=(--partition="$MEDREALMM_PARTITION")
    [ -n "$MEDREALMM_ACCOUNT" ] && opts+=(--account="$MEDREALMM_ACCOUNT")
    [ -n "$MEDREALMM_QOS" ] && opts+=(--qos="$MEDREALMM_QOS")
    [ -n "$MEDREALMM_MEM" ] && opts+=(--mem="$MEDREALMM_MEM")
    # shellcheck disable=SC2206
    [ -n "$MEDREALMM_EXTRA_SBATCH" ] && opts+=($MEDREALMM_EXTRA_SBATCH)
    printf '%s\n' "${opts[@]}"
}

medrealmm_gpus() { [ "${1:-0}" -gt 0 ] && echo "--gpus-per-node=$1"; return 0; }

# The GPUs and nodes the composed config needs (medrealmm plan): sets MEDREALMM_PLAN_{GEN,JUDGE}_{GPUS,NODES},
# or prints why the config does not compose or fit and returns 2. Composing also checks every setting.
medrealmm_plan() {
    local out
    if ! out=$(eval "$MEDREALMM_SETUP" >/dev/null 2>&1; medrealmm plan cluster.format=shell \
            "cluster.gpus_per_node=$MEDREALMM_GPUS_PER_NODE" "cluster.gpu_mem_gib=$MEDREALMM_GPU_MEM_GIB" "$@"); then
        echo "medrealmm: the configuration above does not compose or does not fit the nodes; nothing submitted" >&2
        return 2
    fi
    eval "$out"
}
