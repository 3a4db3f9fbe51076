#!/usr/bin/env bash
# A full sweep, models x modes x judges, as one Hydra multirun on Slurm (submitit launcher, one job
# per sweep point, launched as an array; conf/hydra/launcher/slurm.yaml):
#   slurm/sweep.sh model=lingshu_7b,medgemma_27b,online judge=qwen2_5_vl_72b run.modes=[multimodal],[text]
# The driver waits for the jobs and then writes the leaderboard and the HTML report. To leave the login node, run the
# driver itself as a small job:   sbatch slurm/sweep.sh model=...   (it asks for no GPU).
#SBATCH --job-name=medrealmm-sweep
#SBATCH --cpus-per-task=1
#SBATCH --time=7-00:00:00
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -f "$HERE/site.sh" ] || HERE="${MEDREALMM_REPO:-${SLURM_SUBMIT_DIR:?}}/slurm"   # sbatch runs a copy
source "$HERE/site.sh"
eval "$MEDREALMM_SETUP"
export MEDREALMM_GPUS=${MEDREALMM_GPUS:-$MEDREALMM_GEN_GPUS} MEDREALMM_CPUS MEDREALMM_PARTITION MEDREALMM_ACCOUNT
status=0
medrealmm run -m hydra/launcher=slurm "$@" || status=$?   # failed points are reported; the rest still count
KEEP=(); for a in "$@"; do case "$a" in data=*|data.*|paths.*|preset=*) KEEP+=("$a") ;; esac; done
medrealmm leaderboard "${KEEP[@]}"
medrealmm report "${KEEP[@]}" || status=$?
exit $status
