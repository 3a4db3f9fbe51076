"""``medrealmm list models|judges|data|presets|backends``: what the config groups offer, one line each,
read from ``conf/`` itself (the first comment line of each file is its description)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["GROUPS", "entries", "render", "run_help"]

GROUPS = {"models": "model", "judges": "judge", "data": "data", "presets": "preset", "backends": "backend"}


def _description(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        s = line.strip()
        if s.startswith("# @package") or not s:
            continue
        return s.lstrip("# ").strip() if s.startswith("#") else ""
    return ""


def entries(kind: str) -> list[dict[str, Any]]:
    """One row per config of a group: name, description and, for models and judges, modality, size and
    whether it needs the network."""
    import yaml

    from medrealmm.config import conf_dir

    if kind not in GROUPS:
        raise ValueError(f"medrealmm list: unknown kind {kind!r}; use one of {', '.join(GROUPS)}")
    rows = []
    for path in sorted((conf_dir() / GROUPS[kind]).glob("*.yaml")):
        row: dict[str, Any] = {"name": path.stem, "description": _description(path)}
        if kind in ("models", "judges"):
            cfg = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            size = cfg.get("params_b")
            row.update(modality=cfg.get("modality", ""), size=f"{size:g}B" if isinstance(size, (int, float)) else "",
                       where="API (network)" if cfg.get("needs_network") else ("none" if cfg.get("online") else "local"),
                       thinks="yes" if (cfg.get("reasoning") or {}).get("thinks") else "")
        rows.append(row)
    return rows


def render(kind: str) -> str:
    rows = entries(kind)
    cols = [c for c in ("name", "modality", "size", "where", "thinks") if any(c in r for r in rows)]
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in cols}
    head = "  ".join(c.ljust(widths[c]) for c in cols) + "  description"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append("  ".join(str(r.get(c, "")).ljust(widths[c]) for c in cols) + "  " + r["description"])
    return "\n".join(lines) + f"\n\nuse: medrealmm run {GROUPS[kind]}=<name>"


def run_help(command: str) -> str:
    """A short ``--help`` for the evaluation commands: the groups and the options people change most."""
    return f"""usage: medrealmm {command} [group=option ...] [key=value ...] [-m]

config groups (medrealmm list models|judges|data|presets|backends shows the options):
  model=...            the evaluated model            judge=...          the judge model
  data=...             sample | jsonl | parquet | medrealmm_hf | healthbench
  backend=...          vllm | transformers | openai | provider (engine of the model; backend@judge_backend=... of the judge)
  preset=...           smoke (offline, tiny models) | paper (the paper's protocol) | paper_gemini

most used options:
  data.path=/data/cases.jsonl       your dataset (data=jsonl|parquet|healthbench)
  data.limit=N                      the first N cases only (a try-out: recorded as such, never ranked with full runs)
  data.subset=N                     a seeded random subset of N cases (data.subset_seed)
  run.modes=[multimodal,text]       with the text-only ablation
  run.samples=K                     K replies per case (worst-of-k)
  run.seed=0                        every request seed derives from it
  judge.sees_images=true            the judge sees the images too
  model.path=/models/X              a local copy of the model (no hub)
  paths.outputs=outputs             where runs, the store and reports go
  debug=true                        tracebacks on failure

every value of conf/ can be overridden; `medrealmm {command} --cfg job` prints the composed config,
`medrealmm {command} --hydra-help` Hydra's own help. Tab completion: eval "$(medrealmm completion bash)"
"""
