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
[ -f "$HERE/site.sh" ] || HERE="${MEDREALMM_REPO:-${SLURM_SUBMIT_DIR:?sweep.sh: run it from the repository or set MEDREALMM_REPO}}/slurm"   # sbatch runs a copy
source "$HERE/site.sh"
medrealmm_check_site || exit 2
medrealmm_setup || exit 2
[ $# -gt 0 ] || { echo "sweep.sh: give the sweep, e.g. slurm/sweep.sh model=lingshu_7b,medgemma_27b judge=qwen2_5_vl_72b" >&2; exit 2; }
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
# GPUs per job: the largest of the plan's generation and judging counts; MEDREALMM_GEN_GPUS / JUDGE_GPUS override
GEN=${MEDREALMM_GEN_GPUS:-$(echo "$PLAN" | sed -n -E 's/^MEDREALMM_PLAN_GEN_GPUS=//p' | sort -n | tail -1)}
JUDGE=${MEDREALMM_JUDGE_GPUS:-$(echo "$PLAN" | sed -n -E 's/^MEDREALMM_PLAN_JUDGE_GPUS=//p' | sort -n | tail -1)}
GPUS=$(( ${GEN:-0} > ${JUDGE:-0} ? ${GEN:-0} : ${JUDGE:-0} ))
LAUNCH=(hydra/launcher=slurm "hydra.launcher.gpus_per_node=$GPUS")
[ "$GPUS" -gt 0 ] || LAUNCH[1]="hydra.launcher.gpus_per_node=null"
# MEDREALMM_EXTRA_SBATCH ("--constraint=h100 --exclusive") as the launcher's additional_parameters
# shellcheck disable=SC2086
for opt in $MEDREALMM_EXTRA_SBATCH; do
    case "$opt" in
        --*=*) key=${opt%%=*}; key=${key#--}; value=${opt#*=}
               LAUNCH+=("++hydra.launcher.additional_parameters.${key//-/_}='${value//\'/\\\'}'") ;;
        --*)   key=${opt#--}; LAUNCH+=("++hydra.launcher.additional_parameters.${key//-/_}=true") ;;
        *) echo "sweep.sh: MEDREALMM_EXTRA_SBATCH takes --option=value or --flag items, got '$opt'" >&2; exit 2 ;;
    esac
done
# the launcher config reads the site settings from the environment: export the ones that are set
for name in "${MEDREALMM_SETTINGS[@]}"; do
    var=MEDREALMM_$name
    if [ -n "${!var}" ]; then export "${var?}"; else unset "$var"; fi
done
echo "sweep.sh: $GPUS GPU(s) per job (the largest sweep point; MEDREALMM_GEN_GPUS / MEDREALMM_JUDGE_GPUS override)"
# the launcher settings every sweep job gets, resolved and checked (a bad MEDREALMM_* value stops here)
python "$MEDREALMM_REPO/slurm/medrealmm_slurm.py" launcher "${LAUNCH[@]:1}" "$@" \
    || { echo "sweep.sh: nothing submitted" >&2; exit 2; }
if [ -n "${DRY_RUN:-}" ]; then
    echo "+ medrealmm run -m ${LAUNCH[*]} $*"
    exit 0
fi
status=0
medrealmm run -m "${LAUNCH[@]}" "$@" || status=$?   # failed points are reported; the rest still count
KEEP=(); for a in "$@"; do case "$a" in data=*|data.*|paths.*|preset=*) KEEP+=("$a") ;; esac; done
medrealmm leaderboard "${KEEP[@]}" || status=$?
medrealmm report "${KEEP[@]}" || status=$?
exit $status
