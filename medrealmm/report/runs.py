"""Finished runs read back from disk: the tables and manifest of each, and all of them together.

A report reads only what runs wrote (``case_scores``, ``verdicts``, ``summary`` Parquet files and
``manifest.json``), never the store or an engine, so it can be rebuilt at any time on a machine
without a GPU. It reads finished run records only (:mod:`medrealmm.runrecord`): the latest finished
record of each configuration and fingerprint; a failed, killed or running record is never read. Runs
over part of the dataset (``data.limit``, ``data.subset``, ``data.case_ids``) are left out when runs
over the whole dataset exist, unless asked for (``selection="all"``). Two runs may overlap: the same
model, mode and judge run twice (say once with ``run.modes=[multimodal]`` and once with
``[multimodal,text]``, or with another seed). Then the newest run (manifest ``created``) wins for the
rows they share, and the report says so and names the settings in which the runs differ.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm import runrecord
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
    record: runrecord.RunRecord | None = None   # None: a folder of the layout before run records

    @property
    def created(self) -> str:
        return str(self.manifest.get("created", ""))

    @property
    def run_id(self) -> str | None:
        return self.record.id if self.record else None

    @property
    def selection(self) -> str:
        return runrecord.selection_label(self.record.selection if self.record else None)


@dataclass
class RunSet:
    """Every run of a report, and their rows pooled with a ``run`` column (overlaps resolved)."""

    runs: list[Run]
    case_scores: pl.DataFrame
    verdicts: pl.DataFrame
    superseded: dict[str, int] = field(default_factory=dict)  # run name -> rows a newer run replaced
    left_out: list[str] = field(default_factory=list)  # runs over part of the dataset, not shown
    differing: list[str] = field(default_factory=list)  # settings not the same in every run

    @property
    def judges(self) -> list[str]:
        return sorted(self.case_scores["judge"].unique().to_list())

    @property
    def models(self) -> list[str]:
        return sorted(self.case_scores["model"].unique().to_list())


def _legacy_folders(root: Path) -> list[Path]:
    """Run folders of the layout before run records: ``summary.parquet`` and no ``run.json``."""
    out = []
    for f in sorted(root.rglob("summary.parquet")):
        rel = f.relative_to(root).parts
        if "shards" in rel or runrecord.RECORDS in rel[:-1] or (f.parent / runrecord.RUN_FILE).exists():
            continue
        out.append(f.parent)
    return out


def find_runs(locations: Iterable[str | Path], *, selection: str = "full") -> list[Path]:
    """Run folders to read. Each location is a run record (read as asked, if it finished), a
    configuration folder or a folder of them (the latest finished record per configuration and
    fingerprint). With ``selection="full"`` runs over part of the dataset are left out when a run
    over the whole dataset is there (see :func:`select_runs`)."""
    return [p for p, _ in locate_runs(locations, selection=selection)[0]]


def locate_runs(locations: Iterable[str | Path], *, selection: str = "full"
          ) -> tuple[list[tuple[Path, runrecord.RunRecord | None]], list[str]]:
    if selection not in ("full", "all"):
        raise ValueError(f"report.selection must be full or all, got {selection!r}")
    locations = list(locations)
    found: dict[Path, runrecord.RunRecord | None] = {}
    asked: set[Path] = set()
    for loc in locations:
        p = Path(loc)
        if not p.exists():
            raise RunsNotFound(f"no finished run: {p} does not exist; run `medrealmm run ...` first, or point "
                               "report.runs at run folders")
        rec = runrecord.read(p)
        if rec is not None:
            if rec.scored:
                found[p.resolve()] = rec
                asked.add(p.resolve())
            else:
                log.warning("run %s is %s%s; it is not read", p, rec.status,
                            "" if rec.status != "finished" else " without a score")
            continue
        if (p / "summary.parquet").is_file():
            found[p.resolve()] = None
            continue
        for r in runrecord.latest_per_fingerprint(runrecord.records(p)):
            found[r.path.resolve()] = r
        for legacy in _legacy_folders(p):
            found[legacy.resolve()] = None
    if not found:
        raise RunsNotFound(f"no finished run in {[str(x) for x in locations]}; run `medrealmm run ...` first, or "
                           "point report.runs at run folders")
    kept, left_out = select_runs(list(found.items()), selection=selection, asked=asked)
    return kept, left_out


def select_runs(found: list[tuple[Path, runrecord.RunRecord | None]], *, selection: str = "full",
                asked: set[Path] | frozenset[Path] = frozenset()
                ) -> tuple[list[tuple[Path, runrecord.RunRecord | None]], list[str]]:
    """Keep runs over the whole dataset when there is one; name the partial runs left out. Runs named
    one by one (``asked``) and ``selection="all"`` keep everything; with no full run at all the partial
    runs are shown (and labelled as such)."""
    def full(item: tuple[Path, runrecord.RunRecord | None]) -> bool:
        return item[1] is None or item[1].full

    if selection == "all" or all(full(x) for x in found):
        return found, []
    if not any(full(x) for x in found):
        log.warning("no run over the whole dataset: showing %d run(s) over part of it (%s)", len(found),
                    "; ".join(sorted({runrecord.selection_label(r.selection) for _, r in found if r})))
        return found, []
    kept = [x for x in found if full(x) or x[0] in asked]
    left = [f"{p} ({runrecord.selection_label(r.selection)})" for p, r in found if r and not full((p, r))
            and p not in asked]
    log.warning("left out %d run(s) over part of the dataset (report.selection=all shows them): %s",
                len(left), "; ".join(left))
    return kept, left


def read_run(path: Path, root: Path | None = None, record: runrecord.RunRecord | None = None) -> Run:
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
               verdicts=pl.read_parquet(path / "verdicts.parquet"), record=record)


def _pool(frames: Sequence[pl.DataFrame], key: Sequence[str]) -> tuple[pl.DataFrame, dict[str, int]]:
    """Concatenate newest run first and keep the first row of each key."""
    pooled = pl.concat(frames, how="diagonal_relaxed")
    kept = pooled.unique(subset=list(key), keep="first", maintain_order=True)
    dropped = pooled.join(kept.select([*key, "run"]), on=[*key, "run"], how="anti", nulls_equal=True)
    counts = {r: n for r, n in dropped.group_by("run").len().iter_rows()}
    return kept, counts


def load_runs(locations: Iterable[str | Path], *, root: Path | None = None, selection: str = "full") -> RunSet:
    found, left_out = locate_runs(locations, selection=selection)
    runs = [read_run(p, root, rec) for p, rec in found]
    runs.sort(key=lambda r: (r.created, r.name), reverse=True)   # newest first: it wins overlaps
    cs, superseded = _pool([r.case_scores.with_columns(run=pl.lit(r.name)) for r in runs], CASE_KEY)
    vs, _ = _pool([r.verdicts.with_columns(run=pl.lit(r.name)) for r in runs], VERDICT_KEY)
    for name, n in superseded.items():
        log.warning("run %s: %d case score(s) are also in a newer run, which the report uses", name, n)
    runs.sort(key=lambda r: r.name)
    log.info("report over %d run(s): %d case scores, %d verdicts", len(runs), cs.height, vs.height)
    differing = runrecord.differing_settings([r.record for r in runs if r.record is not None])
    if differing:
        log.warning("the runs of this report differ in settings other than model and judge: %s",
                    ", ".join(differing))
    return RunSet(runs=runs, case_scores=cs.sort(list(CASE_KEY)), verdicts=vs.sort(list(VERDICT_KEY)),
                  superseded=superseded, left_out=left_out, differing=differing)
