"""``medrealmm plan``: the GPUs and nodes a run's model and judge need, from their configs.

Tensor parallel × pipeline parallel is the GPU count of a role; more GPUs than one node holds means
a multi-node job. The memory check is the arithmetic a user would do by hand — parameters × bytes
per parameter against the GPUs' usable memory — and refuses a layout whose weights alone do not fit
(the KV cache for ``max_model_len`` needs room on top; vLLM reports the exact figure at start). The
Slurm scripts read the ``shell`` format, so GPU requests always follow the configs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["RolePlan", "plan_role", "plan_run", "PlanError"]


class PlanError(ValueError):
    """A role's layout cannot run on the stated nodes."""


@dataclass(frozen=True)
class RolePlan:
    role: str
    name: str
    gpus: int              # tensor x pipeline parallel (0: no engine of ours: online replies, a server)
    nodes: int
    weights_gib: float | None
    usable_gib: float
    note: str

    @property
    def fits(self) -> bool:
        return self.weights_gib is None or self.weights_gib <= self.usable_gib


def plan_role(role_name: str, role: dict[str, Any], backend: dict[str, Any], cluster: dict[str, Any]) -> RolePlan:
    name = str(role.get("name"))
    if role.get("online"):
        return RolePlan(role_name, name, 0, 0, None, 0.0, "the physician's reply: no engine")
    if backend.get("kind") == "openai":
        return RolePlan(role_name, name, 0, 0, None, 0.0, f"served at {backend.get('base_url')}: no GPU in this job")
    if role.get("tiny"):
        return RolePlan(role_name, name, 0, 0, None, 0.0, "tiny test model: CPU")
    engine = role.get("engine") or {}
    tp, pp = int(engine.get("tensor_parallel_size") or 1), int(engine.get("pipeline_parallel_size") or 1)
    per_node = int(cluster.get("gpus_per_node", 8))
    gpus = tp * pp
    nodes = max(1, math.ceil(gpus / per_node))
    usable = gpus * float(cluster.get("gpu_mem_gib", 80)) * float(cluster.get("gpu_memory_utilization", 0.9))
    params = role.get("params_b")
    if params is None:
        return RolePlan(role_name, name, gpus, nodes, None, usable,
                        f"tp {tp} x pp {pp}; size unknown (params_b unset): memory not checked")
    bytes_per = float(role.get("weight_bytes") or _dtype_bytes(engine.get("dtype")))
    weights = float(params) * 1e9 * bytes_per / 2**30
    note = (f"tp {tp} x pp {pp} = {gpus} GPU(s) on {nodes} node(s); weights {params:g}B params x {bytes_per:g} B "
            f"= {weights:,.0f} GiB vs {gpus} x {float(cluster.get('gpu_mem_gib', 80)):g} GiB x "
            f"{float(cluster.get('gpu_memory_utilization', 0.9)):g} = {usable:,.0f} GiB usable")
    return RolePlan(role_name, name, gpus, nodes, weights, usable, note)


def _dtype_bytes(dtype: Any) -> float:
    return {"float32": 4.0, "fp32": 4.0, "float16": 2.0, "half": 2.0, "bfloat16": 2.0, "auto": 2.0, None: 2.0,
            "fp8": 1.0}.get(dtype if dtype is None else str(dtype).lower(), 2.0)


def plan_run(cfg: dict[str, Any]) -> list[RolePlan]:
    cluster = cfg.get("cluster") or {}
    return [plan_role("model", cfg["model"], cfg["backend"], cluster),
            plan_role("judge", cfg["judge"], cfg["judge_backend"], cluster)]


def check(plans: list[RolePlan]) -> None:
    bad = [p for p in plans if not p.fits]
    if bad:
        raise PlanError("; ".join(
            f"{p.role} {p.name} does not fit: {p.note}. Raise {p.role}.engine.tensor_parallel_size or "
            f"pipeline_parallel_size (more GPUs or nodes), or use a quantised checkpoint" for p in bad))


def render(plans: list[RolePlan], fmt: str) -> str:
    if fmt == "shell":
        lines = []
        for p in plans:
            key = "GEN" if p.role == "model" else "JUDGE"
            lines += [f"MEDREALMM_PLAN_{key}_GPUS={p.gpus}", f"MEDREALMM_PLAN_{key}_NODES={p.nodes}"]
        return "\n".join(lines)
    rows = [f"{p.role:6} {p.name:22} GPUs {p.gpus:3}  nodes {p.nodes}  {'ok ' if p.fits else 'TOO BIG'}  {p.note}"
            for p in plans]
    return "\n".join(rows)
