"""``medrealmm plan``: the GPUs and nodes a run's model and judge need, from their configs, and the
work a dataset makes for them.

Tensor parallel × pipeline parallel is the GPU count of a role; more GPUs than one node holds means
a multi-node job. The memory check is the arithmetic a user would do by hand — parameters × bytes
per parameter against the GPUs' usable memory — and refuses a layout whose weights alone do not fit
(the KV cache for ``max_model_len`` needs room on top; vLLM reports the exact figure at start). The
Slurm scripts read the ``shell`` format, so GPU requests always follow the configs.

The workload (text format) counts every prompt the run would send with each model's own tokenizer
and processor (:class:`~medrealmm.inference.token_count.PromptCounter`, as vLLM counts them): the
generation prompts exactly, the judge prompts exactly when the replies are known (the Online
baseline) and with the physician's reply as the stand-in otherwise. Decode tokens, throughput and
GPU-hours are estimates from the stated assumptions (``cluster.*``), printed with them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from medrealmm.config_schema import ClusterSettings, RunSettings
from medrealmm.schema import Mode

__all__ = ["RolePlan", "plan_role", "plan_run", "PlanError", "Workload", "workload", "render_workload"]


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


def plan_role(role_name: str, role: dict[str, Any], backend: dict[str, Any], cluster: ClusterSettings) -> RolePlan:
    name = str(role.get("name"))
    if role.get("online"):
        return RolePlan(role_name, name, 0, 0, None, 0.0, "the physician's reply: no engine")
    if backend.get("kind") == "openai":
        return RolePlan(role_name, name, 0, 0, None, 0.0, f"served at {backend.get('base_url')}: no GPU in this job")
    if role.get("tiny"):
        return RolePlan(role_name, name, 0, 0, None, 0.0, "tiny test model: CPU")
    engine = role.get("engine") or {}
    tp, pp = int(engine.get("tensor_parallel_size") or 1), int(engine.get("pipeline_parallel_size") or 1)
    per_node = cluster.gpus_per_node
    gpus = tp * pp
    nodes = max(1, math.ceil(gpus / per_node))
    usable = gpus * cluster.gpu_mem_gib * cluster.gpu_memory_utilization
    params = role.get("params_b")
    if params is None:
        return RolePlan(role_name, name, gpus, nodes, None, usable,
                        f"tp {tp} x pp {pp}; size unknown (params_b unset): memory not checked")
    bytes_per = float(role.get("weight_bytes") or _dtype_bytes(engine.get("dtype")))
    weights = float(params) * 1e9 * bytes_per / 2**30
    note = (f"tp {tp} x pp {pp} = {gpus} GPU(s) on {nodes} node(s); weights {params:g}B params x {bytes_per:g} B "
            f"= {weights:,.0f} GiB vs {gpus} x {cluster.gpu_mem_gib:g} GiB x "
            f"{cluster.gpu_memory_utilization:g} = {usable:,.0f} GiB usable")
    return RolePlan(role_name, name, gpus, nodes, weights, usable, note)


def _dtype_bytes(dtype: Any) -> float:
    return {"float32": 4.0, "fp32": 4.0, "float16": 2.0, "half": 2.0, "bfloat16": 2.0, "auto": 2.0, None: 2.0,
            "fp8": 1.0}.get(dtype if dtype is None else str(dtype).lower(), 2.0)


def plan_run(cfg: dict[str, Any]) -> list[RolePlan]:
    cluster = ClusterSettings.of(cfg.get("cluster"), "cluster")
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


# --- workload: tokens per stage, GPU-hours, shards -------------------------------------------------

@dataclass(frozen=True)
class Workload:
    role: str
    name: str
    requests: int
    text_tokens: int | None         # prefill, counted (None: the tokenizer is not on this machine)
    image_tokens: int | None
    decode_max: int                 # requests x sampling.max_tokens
    exact: bool                     # the prompts are the ones the run sends (not a stand-in)
    note: str = ""

    @property
    def prefill(self) -> int | None:
        return None if self.text_tokens is None else self.text_tokens + (self.image_tokens or 0)


def _counter(role: dict[str, Any], cfg: dict[str, Any], image_bytes: Any):
    """The role's prompt counter, or None with why (no local tokenizer, a server, the physician)."""
    from pathlib import Path

    from medrealmm.inference.model_files import resolve_local
    from medrealmm.inference.token_count import PromptCounter

    folder: Path | None
    if role.get("tiny"):
        from medrealmm.inference.tiny_models import ensure_tiny_model

        folder = ensure_tiny_model(role["tiny"], str(Path(cfg["paths"]["cache"]).expanduser()))
    else:
        folder = resolve_local(str(role.get("path") or ""))
        if folder is None or not any((folder / f).is_file() for f in ("tokenizer.json", "tokenizer_config.json")):
            return None, f"the tokenizer of {role.get('path')} is not on this machine: tokens not counted"
    engine = role.get("engine") or {}
    try:
        return PromptCounter(str(folder), chat_template=role.get("chat_template"),
                             mm_processor_kwargs=engine.get("mm_processor_kwargs"),
                             trust_remote_code=bool(engine.get("trust_remote_code")), image_bytes=image_bytes), ""
    except (OSError, ValueError) as e:
        return None, f"tokens not counted: {e}"


def workload(cfg: dict[str, Any]) -> list[Workload]:
    """Requests and prompt tokens of generation and judging for the configured dataset, modes and samples."""
    from medrealmm.data.loader import load_dataset
    from medrealmm.inference.prompts import generation_messages, run_prompt_config
    from medrealmm.inference.reasoning import template_kwargs
    from medrealmm.judge.prompts import judge_messages, run_judge_prompt_config

    ds = load_dataset(cfg["data"])
    model, judge, run = cfg["model"], cfg["judge"], RunSettings.of(cfg["run"], "run")
    modes: list[Mode] = ["text"] if model.get("modality") == "text" else list(run.modes)
    samples = run.samples
    prompt, jprompt = run_prompt_config(cfg), run_judge_prompt_config(cfg)
    refs: dict[str, Any] = {}

    def url(ref: Any) -> str:
        key = f"img{len(refs)}:{ref.path}"
        refs[key] = ref
        return key

    def read(key: str) -> bytes:
        return ds.image_bytes(refs[key])

    out = []
    online = bool(model.get("online"))
    n_gen = len(ds.cases) * len(modes) * samples
    gen_max = int((model.get("sampling") or {}).get("max_tokens") or 0)
    if online:
        out.append(Workload("model", str(model.get("name")), 0, 0, 0, 0, True, "the physician's reply: no engine"))
    else:
        counter, why = _counter(model, cfg, read)
        text = image = None
        if counter is not None:
            kwargs = template_kwargs(model.get("chat_template_kwargs"), model.get("reasoning"))
            text = image = 0
            for case in ds.cases:
                for mode in modes:
                    t, i = counter.count(generation_messages(case, mode, prompt, url), kwargs)
                    text, image = text + t * samples, image + i * samples
        out.append(Workload("model", str(model.get("name")), n_gen, text, image, n_gen * gen_max, True, why))
    counter, why = _counter(judge, cfg, read) if cfg["judge_backend"].get("kind") != "openai" or judge.get("path") \
        else (None, "served judge: its tokenizer is not named here")
    n_crit = sum(len(c.rubric) for c in ds.cases) * len(modes) * samples
    jmax = int((judge.get("sampling") or {}).get("max_tokens") or 0)
    text = image = None
    if counter is not None:
        kwargs = template_kwargs(judge.get("chat_template_kwargs"), judge.get("reasoning"))
        text = image = 0
        for case in ds.cases:
            for c in case.rubric:   # the reply (the physician's, or its stand-in) is the same in every mode
                t, i = counter.count(judge_messages(case, case.y_orig, c, jprompt, url), kwargs)
                text, image = text + t * len(modes) * samples, image + i * len(modes) * samples
    note = why or ("" if online else "judge prompts with the physician's reply standing in for the model's")
    out.append(Workload("judge", str(judge.get("name")), n_crit, text, image, n_crit * jmax, online, note))
    return out


def _hours(w: Workload, cluster: ClusterSettings) -> float | None:
    if w.prefill is None or not w.requests:
        return None
    decode = w.decode_max * cluster.reply_share
    return (w.prefill / cluster.prefill_tokens_per_s + decode / cluster.decode_tokens_per_s) / 3600


def render_workload(loads: list[Workload], plans: list[RolePlan], cfg: dict[str, Any], overrides: list[str]) -> str:
    """The workload table, the assumptions behind its estimates, a shard count and the submit command."""
    cluster = ClusterSettings.of(cfg.get("cluster"), "cluster")
    run = RunSettings.of(cfg["run"], "run")
    gpus = {p.role: max(1, p.gpus) for p in plans}
    lines = [f"workload: data {cfg['data'].get('name')}, modes {','.join(cfg['run']['modes'])}, "
             f"samples {run.samples}"]
    wall = 0.0
    for w in loads:
        tok = ("tokens not counted" if w.prefill is None else
               f"prefill {w.prefill:,} tokens (text {w.text_tokens:,} + images {w.image_tokens:,})")
        hours = _hours(w, cluster)
        est = "" if hours is None else f"; ~{hours:.3g} GPU-h, ~{hours / gpus[w.role]:.3g} h on {gpus[w.role]} GPU(s)"
        wall += 0.0 if hours is None else hours / gpus[w.role]
        lines.append(f"  {w.role:6} {w.name:22} {w.requests:,} requests; {tok}"
                     f"{' (estimate)' if w.prefill is not None and not w.exact else ''}; "
                     f"decode <= {w.decode_max:,}{est}" + (f"  [{w.note}]" if w.note else ""))
    lines.append(f"  assumptions ({cluster.gpu_class}, per GPU): prefill "
                 f"{cluster.prefill_tokens_per_s:,.0f} tokens/s, decode "
                 f"{cluster.decode_tokens_per_s:,.0f} tokens/s, replies use "
                 f"{cluster.reply_share:.0%} of max_tokens (cluster.* to change)")
    target = cluster.shard_hours
    shards = max(1, math.ceil(wall / target)) if target > 0 else 1
    lines.append(f"  shards: {shards} (each task <= {target:g} h by this estimate; cluster.shard_hours)")
    cmd = " ".join(o for o in overrides if not o.startswith("cluster."))
    if shards >= 2:
        lines.append(f"  submit: slurm/submit.sh {shards} {cmd}".rstrip())
    else:   # submit.sh runs arrays of two or more shards
        lines.append(f"  submit: slurm/submit.sh 2 {cmd}".rstrip() + f"   (the smallest array; or one job: medrealmm run {cmd})")
    return "\n".join(lines)
