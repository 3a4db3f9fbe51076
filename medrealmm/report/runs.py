"""Finished runs read back from disk: the tables and manifest of each, and all of them together.

A report reads only what runs wrote (``case_scores``, ``verdicts``, ``summary`` Parquet files and
``manifest.json``), never the store or an engine, so it can be rebuilt at any time on a machine
without a GPU. Two runs may overlap: the same model, mode and judge run twice (say once with
``run.modes=[multimodal]`` and once with ``[multimodal,text]``). Then the newest run (manifest
``created``) wins for the rows they share, and the report says so.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm.scoring.score import RUN_KEY

log = logging.getLogger(__name__)

CASE_KEY: tuple[str, ...] = (*RUN_KEY, "case_id")
VERDICT_KEY: tuple[str, ...] = (*CASE_KEY, "criterion_id")
REQUIRED_FILES: tuple[str, ...] = ("case_scores.parquet", "verdicts.parquet", "summary.parquet")


class RunsNotFound(FileNotFoundError):
    """No finished run where the report was asked to look."""


@dataclass
class Run:
    """One finished run folder."""

    name: str
    path: Path
    manifest: dict[str, Any]
    case_scores: pl.DataFrame
    verdicts: pl.DataFrame

    @property
    def created(self) -> str:
        return str(self.manifest.get("created", ""))


@dataclass
class RunSet:
    """Every run of a report, and their rows pooled with a ``run`` column (overlaps resolved)."""

    runs: list[Run]
    case_scores: pl.DataFrame
    verdicts: pl.DataFrame
    superseded: dict[str, int] = field(default_factory=dict)  # run name -> rows a newer run replaced

    @property
    def judges(self) -> list[str]:
        return sorted(self.case_scores["judge"].unique().to_list())

    @property
    def models(self) -> list[str]:
        return sorted(self.case_scores["model"].unique().to_list())


def find_runs(locations: Iterable[str | Path]) -> list[Path]:
    """Run folders: each location is a run folder (it has ``summary.parquet``) or a folder searched
    recursively for them. Shard folders are left out (their merge is the run)."""
    found: dict[Path, None] = {}
    for loc in locations:
        p = Path(loc)
        if not p.exists():
            raise RunsNotFound(f"no finished run: {p} does not exist; run `medrealmm run ...` first, or point "
                               "report.runs at run folders")
        if (p / "summary.parquet").is_file():
            found[p.resolve()] = None
            continue
        for s in sorted(p.rglob("summary.parquet")):
            if "shards" not in s.relative_to(p).parts:
                found[s.parent.resolve()] = None
    if not found:
        raise RunsNotFound(f"no finished run (a folder with summary.parquet) in {[str(x) for x in locations]}; "
                           "run `medrealmm run ...` first, or point report.runs at run folders")
    return list(found)


def read_run(path: Path, root: Path | None = None) -> Run:
    missing = [f for f in REQUIRED_FILES if not (path / f).is_file()]
    if missing:
        raise RunsNotFound(f"{path} lacks {missing}: score the run first (`medrealmm score` with its config)")
    manifest: dict[str, Any] = {}
    if (path / "manifest.json").is_file():
        try:
            manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
        except ValueError as e:
            log.warning("%s: unreadable manifest.json (%s); the report shows the run without it", path, e)
    name = str(path.relative_to(root)) if root is not None and path.is_relative_to(root) else path.name
    return Run(name=name, path=path, manifest=manifest,
               case_scores=pl.read_parquet(path / "case_scores.parquet"),
               verdicts=pl.read_parquet(path / "verdicts.parquet"))


def _pool(frames: Sequence[pl.DataFrame], key: Sequence[str]) -> tuple[pl.DataFrame, dict[str, int]]:
    """Concatenate newest run first and keep the first row of each key."""
    pooled = pl.concat(frames, how="diagonal_relaxed")
    kept = pooled.unique(subset=list(key), keep="first", maintain_order=True)
    dropped = pooled.join(kept.select([*key, "run"]), on=[*key, "run"], how="anti", nulls_equal=True)
    counts = {r: n for r, n in dropped.group_by("run").len().iter_rows()}
    return kept, counts


def load_runs(locations: Iterable[str | Path], *, root: Path | None = None) -> RunSet:
    paths = find_runs(locations)
    runs = [read_run(p, root) for p in paths]
    runs.sort(key=lambda r: (r.created, r.name), reverse=True)   # newest first: it wins overlaps
    cs, superseded = _pool([r.case_scores.with_columns(run=pl.lit(r.name)) for r in runs], CASE_KEY)
    vs, _ = _pool([r.verdicts.with_columns(run=pl.lit(r.name)) for r in runs], VERDICT_KEY)
    for name, n in superseded.items():
        log.warning("run %s: %d case score(s) are also in a newer run, which the report uses", name, n)
    runs.sort(key=lambda r: r.name)
    log.info("report over %d run(s): %d case scores, %d verdicts", len(runs), cs.height, vs.height)
    return RunSet(runs=runs, case_scores=cs.sort(list(CASE_KEY)), verdicts=vs.sort(list(VERDICT_KEY)),
                  superseded=superseded)
