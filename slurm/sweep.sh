#!/usr/bin/env bash
# A full sweep, models x modes x judges, as one Hydra multirun on Slurm (submitit launcher, one job
# per sweep point, launched as an array; conf/hydra/launcher/slurm.yaml):
#   slurm/sweep.sh model=lingshu_7b,medgemma_27b,online judge=qwen2_5_vl_72b run.modes=[multimodal],[text]
# The driver waits for the jobs and then writes the leaderboard and the HTML report. To leave the login node, run the
# driver itself as a small job:   sbatch slurm/sweep.sh model=...   (it asks for no GPU). DRY_RUN=1 composes and
# checks every sweep point and prints the GPUs per job and the command, submitting nothing.
#SBATCH --job-name=medrealmm-sweep
#SBATCH --cpus-per-task=1
#SBATCH --time=7-00:00:00
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -f "$HERE/site.sh" ] || HERE="${MEDREALMM_REPO:-${SLURM_SUBMIT_DIR:?}}/slurm"   # sbatch runs a copy
source "$HERE/site.sh"
eval "$MEDREALMM_SETUP"
# One job per sweep point runs generation then judging, one engine at a time: it needs the GPUs of the larger
# of its model and judge. The submitit launcher asks the same for every job, so the sweep asks for its
# largest point (split a sweep by model size to save GPUs). Composing every point also checks its settings.
TMP_PLAN=$(mktemp -d)
if ! PLAN=$(medrealmm plan -m cluster.format=shell "cluster.gpus_per_node=$MEDREALMM_GPUS_PER_NODE" \
        "cluster.gpu_mem_gib=$MEDREALMM_GPU_MEM_GIB" "hydra.sweep.dir=$TMP_PLAN" "$@"); then
    echo "sweep.sh: a sweep point does not compose or does not fit the nodes (above); nothing submitted" >&2
    rm -rf "$TMP_PLAN"; exit 2
fi
rm -rf "$TMP_PLAN"
if echo "$PLAN" | grep -Eq '^MEDREALMM_PLAN_(GEN|JUDGE)_NODES=([2-9]|[1-9][0-9]+)$'; then
    echo "sweep.sh: a sweep point needs more than one node (medrealmm plan); run it with slurm/multinode.sbatch" >&2
    exit 2
fi
NEED=$(echo "$PLAN" | sed -n -E 's/^MEDREALMM_PLAN_(GEN|JUDGE)_GPUS=//p' | sort -n | tail -1)
export MEDREALMM_GPUS=${MEDREALMM_GPUS:-${NEED:-0}} MEDREALMM_CPUS MEDREALMM_PARTITION MEDREALMM_ACCOUNT
echo "sweep.sh: $MEDREALMM_GPUS GPU(s) per job (the largest sweep point; MEDREALMM_GPUS overrides)"
if [ -n "${DRY_RUN:-}" ]; then
    echo "+ medrealmm run -m hydra/launcher=slurm $*"
    exit 0
fi
status=0
medrealmm run -m hydra/launcher=slurm "$@" || status=$?   # failed points are reported; the rest still count
KEEP=(); for a in "$@"; do case "$a" in data=*|data.*|paths.*|preset=*) KEEP+=("$a") ;; esac; done
medrealmm leaderboard "${KEEP[@]}"
medrealmm report "${KEEP[@]}" || status=$?
exit $status
