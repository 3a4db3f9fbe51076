"""Where a run's records live in the store: partitions by what a run reads.

* ``generations/<model>-<spec12>/``: the replies of one model under one set of settings (its spec
  hash), every mode, sample and case. Every judge reads them: one model's replies serve every judge.
* ``verdicts/<judge>-<spec12>/<model>-<spec12>/``: one judge's verdicts on one model's replies. A run
  (or a shard of one, with any shard count, or a rerun) of that model and judge finds them there; a
  run of another model never opens them.

Keys are hashes of everything that determines a record, the model's spec included, so a record can
only ever be looked up by a run whose partition is the one it was written to. The old layout kept one
folder per judge for every model (``verdicts/<judge>-<spec12>/*.jsonl``); it is still read (slowly:
every run of that judge reads all of it) until ``medrealmm store migrate`` moves its records.
"""

from __future__ import annotations


def safe(name: str) -> str:
    """A model or judge name as a folder name."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def model_part(model: str, spec: str) -> str:
    return f"{safe(model)}-{spec[:12]}"


def generation_kind(model: str, spec: str) -> str:
    return f"generations/{model_part(model, spec)}"


def judge_kind(judge: str, spec: str) -> str:
    """The judge's folder: its verdict partitions, and in the old layout its records themselves."""
    return f"verdicts/{safe(judge)}-{spec[:12]}"


def verdict_kind(judge: str, judge_spec: str, model: str, model_spec: str) -> str:
    return f"{judge_kind(judge, judge_spec)}/{model_part(model, model_spec)}"
