# Site settings for every medrealmm Slurm script: edit here or export before calling the scripts.
# Empty means "leave it to the cluster's default".
: "${MEDREALMM_PARTITION:=}"            # e.g. gpu
: "${MEDREALMM_ACCOUNT:=}"              # e.g. my-lab
: "${MEDREALMM_QOS:=}"
: "${MEDREALMM_TIME:=04:00:00}"         # per task
: "${MEDREALMM_CPUS:=8}"                # CPUs per task
: "${MEDREALMM_MEM:=}"                  # e.g. 64G per task
: "${MEDREALMM_GEN_GPUS:=1}"            # GPUs of a generation task (the evaluated model's TP size)
: "${MEDREALMM_JUDGE_GPUS:=1}"          # GPUs of a judging task (the judge's TP size); 0 with a judge server
: "${MEDREALMM_GPUS_PER_NODE:=8}"       # multi-node jobs: tensor parallel size = GPUs per node
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
