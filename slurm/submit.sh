#!/usr/bin/env bash
# Evaluate one model x judge over SHARDS Slurm array tasks, then merge:
#   slurm/submit.sh SHARDS [overrides...]      e.g. slurm/submit.sh 16 model=medgemma_27b judge=qwen2_5_vl_72b
# Generation and judging are separate arrays, each asking for the GPUs its config needs (tensor x pipeline
# parallel, from `medrealmm plan`; MEDREALMM_GEN_GPUS / MEDREALMM_JUDGE_GPUS override); the config is composed
# and checked before anything is submitted; judging task i starts when generation task i is done (aftercorr); the
# merge starts when every judging task succeeded (afterok). Run it again after any failure: it
# submits only the shards that have not finished, then the merge. DRY_RUN=1 prints the sbatch calls.
set -euo pipefail
SHARDS=${1:?usage: submit.sh SHARDS [overrides...]}; shift
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/site.sh"
export MEDREALMM_REPO
mkdir -p "$MEDREALMM_LOGS"
medrealmm_plan "$@" || exit 2
GEN_GPUS=${MEDREALMM_GEN_GPUS:-$MEDREALMM_PLAN_GEN_GPUS}
JUDGE_GPUS=${MEDREALMM_JUDGE_GPUS:-$MEDREALMM_PLAN_JUDGE_GPUS}
if [ "$MEDREALMM_PLAN_GEN_NODES" -gt 1 ] || [ "$MEDREALMM_PLAN_JUDGE_NODES" -gt 1 ]; then
    echo "submit.sh: the model or judge needs more than one node of $MEDREALMM_GPUS_PER_NODE GPUs (medrealmm plan);" \
         "run it with slurm/multinode.sbatch, or serve it once (slurm/judge_server.sbatch)" >&2
    exit 2
fi
echo "GPUs per task: generation $GEN_GPUS, judging $JUDGE_GPUS (from the configs; MEDREALMM_GEN_GPUS/JUDGE_GPUS override)"
mapfile -t COMMON < <(medrealmm_sbatch_common)
SB=(sbatch --parsable --kill-on-invalid-dep=yes "${COMMON[@]}")
run() { if [ -n "${DRY_RUN:-}" ]; then echo "$*" >&2; echo "DRY"; else "$@"; fi; }

if [ -n "${DRY_RUN:-}" ]; then PENDING=$(seq -s, 0 $((SHARDS - 1)))
else PENDING=$(eval "$MEDREALMM_SETUP" && medrealmm pending "run.shard.count=$SHARDS" "$@" 2>/dev/null); fi
DEP=()
if [ -n "$PENDING" ]; then
    GEN=$(run "${SB[@]}" --job-name=medrealmm-generate --array="$PENDING" $(medrealmm_gpus "$GEN_GPUS") \
          "$HERE/task.sbatch" generate "$SHARDS" "$@")
    JUDGE=$(run "${SB[@]}" --job-name=medrealmm-judge --array="$PENDING" $(medrealmm_gpus "$JUDGE_GPUS") \
            --dependency="aftercorr:$GEN" "$HERE/task.sbatch" judge "$SHARDS" "$@")
    DEP=(--dependency="afterok:$JUDGE")
    echo "shards to run: $PENDING (generate job $GEN, judge job $JUDGE)"
else
    echo "every shard is done"
fi
MERGE=$(run "${SB[@]}" --job-name=medrealmm-merge "${DEP[@]}" "$HERE/merge.sbatch" "$SHARDS" "$@")
echo "merge job $MERGE; logs in $MEDREALMM_LOGS"
