"""Where Phase 3 keeps its state: ``rubrics.jsonl`` (one :class:`RubricRecord` a line) and the
instances it starts from.

Every command reads the records, changes some and writes them back atomically, so a run that
stops leaves the previous state whole and a rerun picks up what is not done yet.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from medrealmm.atomic import write_rows
from medrealmm.mccp import Instance, read_models
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
    """The instances of ``path``; an id that appears twice stops here (it would become two cases)."""
    file = instances_file(path)
    items = read_models(file, Instance, RubricStoreError, "instance")
    seen: set[str] = set()
    for k, inst in enumerate(items, 1):
        if inst.id in seen:
            raise RubricStoreError(f"{file}: instance {k} repeats the id {inst.id!r}")
        seen.add(inst.id)
    return items


def image_root(instances: Path, configured: str | None) -> Path:
    """The folder instance image paths are relative to: ``rubric.image_root`` when set, else the
    ``dataset_root`` that ``medrealmm mccp`` recorded in its counts.json, else the input's folder."""
    if configured:
        return Path(configured).expanduser()
    counts = instances.parent / "counts.json"
    if counts.is_file():
        root = json.loads(counts.read_text(encoding="utf-8")).get("dataset_root")
        if root:
            if not Path(root).is_dir():
                raise FileNotFoundError(f"the images of {instances} are relative to {root} (mccp's counts.json), "
                                        "which does not exist here: set rubric.image_root to where they are now")
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
    write_rows(path, (r.model_dump(mode="json") for r in records))
    return path
