"""Where Phase 3 keeps its state: ``rubrics.jsonl`` (one :class:`RubricRecord` a line) and the
instances it starts from.

Every command reads the records, changes some and writes them back atomically, so a run that
stops leaves the previous state whole and a rerun picks up what is not done yet.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from medrealmm.mccp.instances import Instance, read_models
from medrealmm.rubric.model import RubricRecord

RUBRICS = "rubrics.jsonl"
INSTANCES = "instances.jsonl"


class RubricStoreError(ValueError):
    """A Phase-3 file that cannot be used (names the file and line)."""


def instances_file(path: str | Path) -> Path:
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / INSTANCES
    if not p.is_file():
        raise FileNotFoundError(f"instances not found: {p} (the instances.jsonl of `medrealmm mccp`, or its folder)")
    return p


def read_instances(path: str | Path) -> list[Instance]:
    return read_models(instances_file(path), Instance, RubricStoreError, "instance")


def image_root(instances: Path, configured: str | None) -> Path:
    """The folder instance image paths are relative to: ``rubric.image_root`` when set, else the
    ``dataset_root`` that ``medrealmm mccp`` recorded in its counts.json, else the input's folder."""
    if configured:
        return Path(configured).expanduser()
    counts = instances.parent / "counts.json"
    if counts.is_file():
        root = json.loads(counts.read_text(encoding="utf-8")).get("dataset_root")
        if root and Path(root).is_dir():
            return Path(root)
    return instances.parent


def read_records(out_dir: Path) -> list[RubricRecord]:
    path = out_dir / RUBRICS
    if not path.is_file():
        return []
    return read_models(path, RubricRecord, RubricStoreError, "rubric record")


def write_records(records: Iterable[RubricRecord], out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / RUBRICS
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r.model_dump(mode="json"), ensure_ascii=False) + "\n")
    tmp.replace(path)
    return path
