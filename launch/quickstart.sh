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
# Then the HTML report over every run of the dataset (outputs/reports/<dataset>/report.html). A report
# problem does not fail the benchmark that finished before it: its tables stand, and the report can be
# rebuilt from them at any time.
if ! "$VENV/bin/medrealmm" report "$@"; then
    { printf '\nquickstart: the benchmark run finished and its tables are written, but the report could not be '
      printf 'built (see the message above).\nRebuild it once fixed with:\n  %s report' "$VENV/bin/medrealmm"; } >&2
    printf ' %q' "$@" >&2
    printf '\n' >&2
fi
# And the case viewer (outputs/view/<dataset>/index.html): every reply, verdict and rationale, from disk.
"$VENV/bin/medrealmm" view "$@" || echo "quickstart: the case viewer could not be built (see above)" >&2
