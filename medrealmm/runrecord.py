"""Run records: every execution of a stage command is an immutable folder of its own.

A configuration folder (``run.out_dir``, e.g. ``outputs/runs/sample/model__judge__multimodal``) holds one
record per execution in ``runs/<run_id>/``: the tables, the manifest and ``run.json``. ``run.json`` says
what produced the tables — the fingerprint of everything that determines the results (dataset content
and selection, model and judge settings, prompts, modes, samples, seed, scoring) with its parts — and
the record's status: ``running`` while it works, then ``finished`` or ``failed``. A record is written
once and never reused, so a ``data.limit=3`` try-out, another seed or a failed rerun can never replace
the tables of a finished run: readers take only finished records, the latest per fingerprint, and keep
runs over part of the dataset apart from full runs. ``latest.json`` in the configuration folder points
at the latest finished record of each fingerprint (a convenience for people; readers scan).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import socket
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrealmm.atomic import write_text
from medrealmm.config_schema import DataSelection
from medrealmm.schema import stable_hash

log = logging.getLogger(__name__)

RECORDS = "runs"          # <out_dir>/runs/<run_id>/
RUN_FILE = "run.json"
LATEST = "latest.json"
STATUSES = ("running", "finished", "failed")


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")


def selection_of(data_cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Which cases of the dataset a run covers: ``full`` or the options that narrowed it."""
    chosen = DataSelection.model_validate(dict(data_cfg))
    sel = {k: v for k in ("limit", "subset", "case_ids") if (v := getattr(chosen, k)) not in (None, [], "")}
    if "subset" in sel:
        sel["subset_seed"] = chosen.subset_seed
    return {"kind": "full"} if not sel else {"kind": "part", **sel}


def selection_label(selection: Mapping[str, Any] | None) -> str:
    """``full``, or e.g. ``limit=3`` / ``subset=200 (seed 0)`` / ``case_ids=5``."""
    if not selection or selection.get("kind", "full") == "full":
        return "full"
    parts = []
    if selection.get("limit") is not None:
        parts.append(f"limit={selection['limit']}")
    if selection.get("subset") is not None:
        parts.append(f"subset={selection['subset']} (seed {selection.get('subset_seed', 0)})")
    if selection.get("case_ids"):
        parts.append(f"case_ids={len(selection['case_ids'])}")
    return ", ".join(parts) or "part"


@dataclass
class RunRecord:
    """One execution: its folder and what ``run.json`` says of it."""

    path: Path
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return str(self.info.get("run_id", self.path.name))

    @property
    def status(self) -> str:
        status = str(self.info.get("status", "failed"))
        if status == "running" and not _alive(self.info):
            return "killed"
        return status

    @property
    def fingerprint(self) -> str:
        return str(self.info.get("fingerprint", ""))

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.info.get("settings") or {})

    @property
    def selection(self) -> dict[str, Any]:
        return dict(self.info.get("selection") or {"kind": "full"})

    @property
    def full(self) -> bool:
        return self.selection.get("kind", "full") == "full"

    @property
    def stages(self) -> list[str]:
        return list(self.info.get("stages") or [])

    @property
    def scored(self) -> bool:
        """Finished with a score (a ``generate``- or ``judge``-only record has none)."""
        return self.status == "finished" and (self.path / "summary.parquet").is_file()

    @property
    def config_dir(self) -> Path:
        return self.path.parent.parent

    @property
    def ended(self) -> str:
        return str(self.info.get("ended") or self.info.get("started") or "")

    def write(self) -> None:
        write_text(self.path / RUN_FILE, json.dumps(self.info, ensure_ascii=False, indent=2, default=str) + "\n")


def _alive(info: Mapping[str, Any]) -> bool:
    """Whether the process that wrote a ``running`` record still runs (unknown on another host: yes)."""
    pid, host = info.get("pid"), info.get("host")
    if not pid or host != socket.gethostname():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def fingerprint(settings: Mapping[str, Any]) -> str:
    return stable_hash(dict(settings))


def start(out_dir: Path, *, settings: Mapping[str, Any], stages: Iterable[str],
          extra: Mapping[str, Any] | None = None) -> RunRecord:
    """Open a new record folder (status ``running``) for this execution; its selection is the
    ``selection`` part of ``settings``."""
    selection = settings.get("selection") or {"kind": "full"}
    fp = fingerprint(settings)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    run_id = f"{stamp}-{fp[:8]}-{uuid.uuid4().hex[:4]}"
    path = Path(out_dir) / RECORDS / run_id
    path.mkdir(parents=True, exist_ok=False)
    rec = RunRecord(path, {"run_id": run_id, "status": "running", "fingerprint": fp, "settings": dict(settings),
                           "selection": dict(selection), "stages": list(stages), "started": now(), "ended": None,
                           "pid": os.getpid(), "host": socket.gethostname(), **(extra or {})})
    rec.write()
    return rec


def finish(rec: RunRecord, *, error: str | None = None, **info: Any) -> None:
    """Close the record: ``finished`` (then the configuration's latest pointer moves to it) or ``failed``."""
    rec.info.update(info)
    rec.info.update(status="failed" if error else "finished", error=error, ended=now())
    rec.write()
    if not error:
        _point_latest(rec)


def _point_latest(rec: RunRecord) -> None:
    path = rec.config_dir / LATEST
    try:
        latest = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        latest = {}
    by_fp = dict(latest.get("by_fingerprint") or {})
    by_fp[rec.fingerprint] = {"run_id": rec.id, "ended": rec.ended, "selection": selection_label(rec.selection),
                              "stages": rec.stages}
    newest = max(by_fp.items(), key=lambda kv: kv[1]["ended"])
    write_text(path, json.dumps({"latest": newest[1]["run_id"], "by_fingerprint": by_fp}, ensure_ascii=False,
                                indent=2) + "\n")


def read(path: Path) -> RunRecord | None:
    """The record in ``path`` (a folder with ``run.json``), or None when it has none or it is unreadable."""
    f = Path(path) / RUN_FILE
    if not f.is_file():
        return None
    try:
        info = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        log.warning("%s: unreadable (%s); the record is left out", f, e)
        return None
    return RunRecord(Path(path), info if isinstance(info, dict) else {})


def records(root: Path) -> list[RunRecord]:
    """Every record under ``root`` (a configuration folder, or a folder of them), oldest first.
    Shard working folders are not records."""
    root = Path(root)
    found = []
    if (root / RUN_FILE).is_file():
        rec = read(root)
        return [rec] if rec else []
    for f in sorted(root.rglob(RUN_FILE)):
        rel = f.relative_to(root).parts
        if "shards" in rel or len(rel) < 3 or rel[-3] != RECORDS:
            continue
        rec = read(f.parent)
        if rec is not None:
            found.append(rec)
    return sorted(found, key=lambda r: (str(r.info.get("started", "")), r.id))


def latest_per_fingerprint(recs: Iterable[RunRecord]) -> list[RunRecord]:
    """Of the scored records, the latest finished one per (configuration folder, fingerprint)."""
    best: dict[tuple[Path, str], RunRecord] = {}
    for r in recs:
        if not r.scored:
            continue
        k = (r.config_dir, r.fingerprint)
        if k not in best or r.ended > best[k].ended:
            best[k] = r
    return sorted(best.values(), key=lambda r: (str(r.config_dir), r.ended))


def latest(out_dir: Path, *, scored: bool = True) -> RunRecord | None:
    """The latest finished record of a configuration folder (scored ones only, unless ``scored=False``)."""
    done = [r for r in records(out_dir) if (r.scored if scored else r.status == "finished")]
    return max(done, key=lambda r: r.ended) if done else None


def differing_settings(recs: Iterable[RunRecord], ignore: Iterable[str] = ("model", "judge")) -> list[str]:
    """The settings (fingerprint parts) that are not the same in every record, ``ignore`` aside."""
    recs = list(recs)
    keys = sorted({k for r in recs for k in r.settings} - set(ignore))
    return [k for k in keys if len({stable_hash(r.settings.get(k)) for r in recs}) > 1]


def runs_table(root: Path) -> list[dict[str, Any]]:
    """One row per record under ``root`` (oldest first): what ``medrealmm runs`` prints."""
    rows = []
    for r in records(root):
        score = r.info.get("score") or {}
        rows.append({"run_id": r.id, "status": r.status, "started": str(r.info.get("started", ""))[:19],
                     "config": str(r.config_dir.relative_to(root)) if r.config_dir.is_relative_to(root)
                     else str(r.config_dir),
                     "stages": ",".join(r.stages), "cases": r.info.get("cases"),
                     "selection": selection_label(r.selection), "seed": r.settings.get("seed"),
                     "fingerprint": r.fingerprint[:12],
                     "score": ", ".join(f"{k}={v:.3f}" if isinstance(v, (int, float)) else f"{k}=–"
                                        for k, v in score.items()) or "–",
                     "error": (r.info.get("error") or "")[:120]})
    return rows
