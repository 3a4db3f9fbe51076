"""Deterministic sharding of a run, for Slurm array jobs, and the merge of shard outputs.

A case belongs to shard ``int(sha256(case id)[:8], 16) % count``: the same case always lands in
the same shard whatever the dataset order or size. Each shard writes its replies and verdicts
into ``<run.out_dir>/shards/<i>-of-<n>/`` and a ``done.json`` marker when its judging finished;
the merge refuses to run until every shard has one, then concatenates the shard tables in the
order a single-process run would have written them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
import json
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm.atomic import write_json
from medrealmm.config_schema import RunSettings, ShardSettings
from medrealmm.schema import Case


class MissingShards(RuntimeError):
    """The merge was asked for before every shard finished."""


def shard_of(case_id: str, count: int) -> int:
    return int(hashlib.sha256(case_id.encode()).hexdigest()[:8], 16) % count


def shard_spec(run: RunSettings | dict[str, Any]) -> tuple[int, int]:
    """``(index, count)`` of ``run.shard`` (a plain ``run`` group is checked: index in [0, count), count >= 1)."""
    shard = run.shard if isinstance(run, RunSettings) else ShardSettings.of(run.get("shard"), "run.shard")
    return shard.index, shard.count


def shard_dir(out_dir: Path, index: int, count: int) -> Path:
    return out_dir / "shards" / f"{index:03d}-of-{count:03d}"


def select(cases: list[Case], index: int, count: int) -> list[Case]:
    return [c for c in cases if shard_of(c.id, count) == index] if count > 1 else cases


def mark_done(folder: Path, info: dict[str, Any]) -> None:
    write_json(folder / "done.json", info)


def missing_shards(out_dir: Path, count: int) -> list[int]:
    return [i for i in range(count) if not (shard_dir(out_dir, i, count) / "done.json").exists()]


def shard_fingerprints(out_dir: Path, count: int) -> dict[int, str | None]:
    """The run fingerprint each finished shard recorded in its ``done.json`` (None if it has none)."""
    found: dict[int, str | None] = {}
    for i in range(count):
        f = shard_dir(out_dir, i, count) / "done.json"
        if f.is_file():
            try:
                found[i] = json.loads(f.read_text(encoding="utf-8")).get("fingerprint")
            except ValueError:
                found[i] = None
    return found


def canonical_order(df: pl.DataFrame, cases: list[Case], modes: Sequence[str], *, criteria: bool) -> pl.DataFrame:
    """Rows in single-run plan order: case (dataset order), mode, sample[, criterion (rubric order)]."""
    if df.is_empty():
        return df
    case_pos = pl.DataFrame({"case_id": [c.id for c in cases], "_case": list(range(len(cases)))})
    mode_pos = pl.DataFrame({"mode": modes, "_mode": list(range(len(modes)))})
    out = df.join(case_pos, on="case_id", how="left").join(mode_pos, on="mode", how="left")
    keys = ["_case", "_mode", "sample"]
    if criteria:
        crit = pl.DataFrame([{"case_id": c.id, "criterion_id": r.id, "_crit": j}
                             for c in cases for j, r in enumerate(c.rubric)])
        out = out.join(crit, on=["case_id", "criterion_id"], how="left")
        keys.append("_crit")
    return out.sort(keys, maintain_order=True).select(df.columns)


def merge_tables(out_dir: Path, count: int, name: str) -> pl.DataFrame:
    missing = missing_shards(out_dir, count)
    if missing:
        raise MissingShards(f"cannot merge: {len(missing)} of {count} shards have not finished "
                            f"(no done.json): {missing}; resubmit them (slurm/submit.sh resumes) and merge again")
    return pl.concat([pl.read_parquet(shard_dir(out_dir, i, count) / f"{name}.parquet") for i in range(count)],
                     how="vertical")
