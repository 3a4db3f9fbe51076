#!/usr/bin/env bash
# Set up the CPU environment and run the whole test suite: `bash launch/test.sh [pytest args]`.
# Everything runs offline on tiny random models built on the fly (vLLM's CPU build, transformers).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$ROOT/launch/setup.sh" "$ROOT/.venv"
cd "$ROOT"
# lint and types first (seconds; settings in pyproject.toml): ruff everywhere, mypy on the core
"$ROOT/.venv/bin/ruff" check medrealmm tests benchmarks launch slurm tools
"$ROOT/.venv/bin/mypy" medrealmm/schema.py medrealmm/store medrealmm/scoring medrealmm/judge medrealmm/inference \
    medrealmm/pipeline.py medrealmm/common/llm_json.py medrealmm/common/tables.py
exec "$ROOT/.venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
