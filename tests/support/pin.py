"""Digests that pin a run's results byte for byte, so a refactor that claims "no behaviour change" is
checked rather than believed. Each table is written canonically (rows in the run's order, columns
sorted, floats as Python's shortest exact repr) and hashed; timings and the run's own id are left out
(they name or measure the run, they are not its results)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import polars as pl

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def table_digest(df: pl.DataFrame) -> str:
    rows = [dict(sorted(r.items())) for r in df.to_dicts()]
    text = json.dumps({"columns": sorted(df.columns), "dtypes": {c: str(df.schema[c]) for c in sorted(df.columns)},
                       "rows": rows}, ensure_ascii=False, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def digests(tables: dict[str, pl.DataFrame]) -> dict[str, dict[str, object]]:
    return {name: {"rows": df.height, "sha256": table_digest(df)} for name, df in sorted(tables.items())}


def compare(name: str, got: dict[str, dict[str, object]]) -> list[str]:
    """The tables whose digest moved from ``tests/golden/<name>.json`` (one line each)."""
    want = json.loads((GOLDEN / f"{name}.json").read_text())["tables"]
    return [f"{t}: {want.get(t)} -> {got.get(t)}" for t in sorted(set(want) | set(got)) if want.get(t) != got.get(t)]
