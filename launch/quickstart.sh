#!/usr/bin/env bash
# Set up the environment, run the benchmark on the bundled sample and write its report:
# `bash launch/quickstart.sh [key=value ...]`.
# Default: a small real open-weight VLM (Qwen2.5-VL-3B, fetched on first use) as model and judge, on
# vLLM's GPU build when a GPU is present and on CPU otherwise. Offline: `bash launch/quickstart.sh preset=smoke`.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    VENV=$ROOT/.venv-gpu; bash "$ROOT/launch/setup.sh" "$VENV" --gpu
else
    VENV=$ROOT/.venv; bash "$ROOT/launch/setup.sh" "$VENV"
fi
"$VENV/bin/medrealmm" run "$@"
# Then the HTML report over every run of the dataset (outputs/reports/<dataset>/report.html).
exec "$VENV/bin/medrealmm" report "$@"
