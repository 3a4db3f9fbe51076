#!/usr/bin/env bash
# Evaluate one model x judge over SHARDS Slurm array tasks, then merge:
#   slurm/submit.sh [--judge-url-file FILE] SHARDS [overrides...]
#       e.g. slurm/submit.sh 16 model=medgemma_27b judge=qwen2_5_vl_72b
# Generation and judging are separate arrays, each asking for the GPUs its config needs (tensor x pipeline
# parallel, from `medrealmm plan`; MEDREALMM_GEN_GPUS / MEDREALMM_JUDGE_GPUS override); the config is composed
# and checked before anything is submitted; judging task i starts when generation task i is done (aftercorr); the
# merge starts when every judging task succeeded (afterok). Run it again after any failure: it
# submits only the shards that have not finished, then the merge. DRY_RUN=1 prints the sbatch calls.
# --judge-url-file FILE: judge through a served judge (slurm/judge_server.sbatch writes FILE when it answers):
# the judging tasks wait for FILE and use backend@judge_backend=openai with its URL, and ask for no GPU.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/site.sh"
usage="usage: submit.sh [--judge-url-file FILE] SHARDS [overrides...]"
URL_FILE=
while [ $# -gt 0 ]; do
    case "$1" in
        --judge-url-file) [ -n "${2:-}" ] || { echo "submit.sh: --judge-url-file needs a file; $usage" >&2; exit 2; }
                          URL_FILE=$(realpath -m "$2"); shift 2 ;;
        --judge-url-file=*) URL_FILE=$(realpath -m "${1#*=}"); shift ;;
        -h|--help) echo "$usage"; exit 0 ;;
        -*) echo "submit.sh: unknown option $1; $usage" >&2; exit 2 ;;
        *) break ;;
    esac
done
SHARDS=${1:-}
[[ "$SHARDS" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: SHARDS must be a positive whole number, got '${SHARDS}'; $usage" >&2; exit 2; }
[ "$SHARDS" -ge 2 ] || { echo "submit.sh: SHARDS must be at least 2 (shards are merged); for one job use" \
    "slurm/sweep.sh with the same overrides, or sbatch --wrap 'medrealmm run ...'" >&2; exit 2; }
shift
medrealmm_check_site || exit 2
export MEDREALMM_REPO
mkdir -p "$MEDREALMM_LOGS" || { echo "submit.sh: cannot create the log folder MEDREALMM_LOGS=$MEDREALMM_LOGS" >&2; exit 2; }
TASK_OPTS=()
if [ -n "$URL_FILE" ]; then
    case " $* " in *" backend@judge_backend="*) ;; *) set -- "$@" "backend@judge_backend=openai" ;; esac
    TASK_OPTS=(--judge-url-file "$URL_FILE")
fi
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
run() {
    if [ -n "${DRY_RUN:-}" ]; then echo "$*" >&2; echo "DRY"; return; fi
    local out
    if ! out=$("$@" 2>&1); then echo "submit.sh: sbatch refused the job: $out" >&2; return 2; fi
    echo "$out"
}

if [ -n "${DRY_RUN:-}" ]; then PENDING=$(seq -s, 0 $((SHARDS - 1)))
elif ! PENDING=$( (medrealmm_setup >/dev/null && medrealmm pending "run.shard.count=$SHARDS" "$@") 2>"$MEDREALMM_LOGS/.pending.err"); then
    cat "$MEDREALMM_LOGS/.pending.err" >&2
    echo "submit.sh: could not list the unfinished shards (medrealmm pending, above); nothing submitted" >&2
    exit 2
fi
DEP=()
if [ -n "$PENDING" ]; then
    GEN=$(run "${SB[@]}" --job-name=medrealmm-generate --array="$PENDING" $(medrealmm_gpus "$GEN_GPUS") \
          "$HERE/task.sbatch" generate "$SHARDS" "$@") || exit 2
    JUDGE=$(run "${SB[@]}" --job-name=medrealmm-judge --array="$PENDING" $(medrealmm_gpus "$JUDGE_GPUS") \
            --dependency="aftercorr:$GEN" "$HERE/task.sbatch" "${TASK_OPTS[@]}" judge "$SHARDS" "$@") || exit 2
    DEP=(--dependency="afterok:$JUDGE")
    echo "shards to run: $PENDING (generate job $GEN, judge job $JUDGE)"
else
    echo "every shard is done"
fi
MERGE=$(run "${SB[@]}" --job-name=medrealmm-merge "${DEP[@]}" "$HERE/merge.sbatch" "$SHARDS" "$@") || exit 2
echo "merge job $MERGE; logs in $MEDREALMM_LOGS"
