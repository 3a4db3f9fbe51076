"""Consultation records as de-identification reads and writes them.

The input is a JSONL file of consultations (our case format, or raw logs before they have a rubric):
``id`` and ``turns`` are required; ``department``, ``intent``, ``stage``, ``patient.age``,
``patient.sex``, ``y_orig`` and ``rubric`` are kept when present. Everything else is dropped on
purpose — a field we do not know might hold a name, a timestamp or an address — and only the
*names* of dropped fields go to the audit trail. Free text (turn texts, ``y_orig``, rubric texts)
is what the detectors mask.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrealmm.data.images import resolve_image_path
from medrealmm.data.jsonl_io import CASES_FILE, iter_jsonl_records
from medrealmm.schema import CaseError

KEPT_FIELDS: tuple[str, ...] = ("id", "department", "intent", "stage", "patient", "turns", "y_orig", "rubric")
TURN_FIELDS: tuple[str, ...] = ("role", "text", "images")
ROLES = ("patient", "doctor")


@dataclass
class TextField:
    """Where a masked text lives in a record: ``turns.3.text``, ``y_orig``, ``rubric.2.text``."""

    path: str
    text: str


@dataclass
class ImageSlot:
    turn: int
    index: int
    source: Path            # never written anywhere: the original file name may identify


@dataclass
class LogRecord:
    raw: dict[str, Any]
    file: str
    line: int
    dropped: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.raw["id"])

    def texts(self) -> list[TextField]:
        out = [TextField(f"turns.{i}.text", t.get("text") or "") for i, t in enumerate(self.raw["turns"])]
        if isinstance(self.raw.get("y_orig"), str):
            out.append(TextField("y_orig", self.raw["y_orig"]))
        for j, c in enumerate(self.raw.get("rubric") or []):
            out.append(TextField(f"rubric.{j}.text", c.get("text") or ""))
        return [t for t in out if t.text]

    def set_text(self, path: str, value: str) -> None:
        parts = path.split(".")
        node: Any = self.raw
        for p in parts[:-1]:
            node = node[int(p)] if isinstance(node, list) else node[p]
        node[parts[-1]] = value


def _clean(raw: dict[str, Any], file: str, line: int, root: Path) -> tuple[dict[str, Any], list[str], list[ImageSlot]]:
    case_id = raw.get("id")
    if case_id is None or not str(case_id).strip():
        raise CaseError(f"line {line}: no id", field="id", file=file)
    cid = str(case_id)
    turns = raw.get("turns")
    if not isinstance(turns, list) or not turns:
        raise CaseError("no turns (a non-empty list)", case_id=cid, field="turns", file=file)
    dropped = sorted(k for k in raw if k not in KEPT_FIELDS)
    out: dict[str, Any] = {k: raw[k] for k in KEPT_FIELDS if k in raw}
    out["id"] = cid
    patient = raw.get("patient")
    if isinstance(patient, dict):
        dropped += [f"patient.{k}" for k in sorted(patient) if k not in ("age", "sex")]
        out["patient"] = {k: patient[k] for k in ("age", "sex") if k in patient}
    elif patient is not None:
        dropped.append("patient")
        out.pop("patient", None)
    slots: list[ImageSlot] = []
    clean_turns = []
    for i, t in enumerate(turns):
        if not isinstance(t, dict):
            raise CaseError(f"turn {i} is not an object", case_id=cid, field=f"turns.{i}", file=file)
        if t.get("role") not in ROLES:
            raise CaseError(f"turn {i}: role must be one of {ROLES}", case_id=cid, field=f"turns.{i}.role", file=file)
        if not isinstance(t.get("text", ""), str):
            raise CaseError(f"turn {i}: text must be a string", case_id=cid, field=f"turns.{i}.text", file=file)
        dropped += sorted({f"turns.*.{k}" for k in t if k not in TURN_FIELDS} - set(dropped))
        images = []
        for k, im in enumerate(t.get("images") or []):
            rel = im.get("path") if isinstance(im, dict) else im
            if not isinstance(rel, str):
                raise CaseError(f"turn {i} image {k}: needs a path", case_id=cid, field=f"turns.{i}.images.{k}",
                                file=file)
            try:
                source = resolve_image_path(root, rel)
            except ValueError as e:
                raise CaseError(str(e), case_id=cid, field=f"turns.{i}.images.{k}", file=file) from None
            if not source.is_file():
                raise CaseError(f"turn {i} image {k}: file not found", case_id=cid,
                                field=f"turns.{i}.images.{k}", file=file)
            slots.append(ImageSlot(i, k, source))
            images.append({"path": ""})       # filled with the masked file's path
        clean_turns.append({"role": t["role"], "text": t.get("text") or "", "images": images})
    out["turns"] = clean_turns
    if "rubric" in out:
        out["rubric"] = [{k: c[k] for k in ("id", "text", "weight", "tags") if k in c}
                         for c in out["rubric"] if isinstance(c, dict)]
    return out, sorted(set(dropped)), slots


def read_records(path: str | Path) -> Iterator[tuple[LogRecord | None, list[ImageSlot], CaseError | None]]:
    """Yield (record, its images, None) or (None, [], error) per line of ``cases.jsonl``."""
    p = Path(path)
    if p.is_dir():
        p = p / CASES_FILE
    if not p.is_file():
        raise FileNotFoundError(f"consultation records not found: {p} (a cases.jsonl or a folder holding one)")
    root = p.parent
    for n, rec in enumerate(iter_jsonl_records(p), start=1):
        if rec.error is not None or rec.raw is None:
            yield None, [], rec.error
            continue
        try:
            raw, dropped, slots = _clean(rec.raw, rec.file, n, root)
        except CaseError as e:
            yield None, [], e
            continue
        yield LogRecord(raw, rec.file, n, dropped), slots, None


def record_line(raw: dict[str, Any]) -> str:
    return json.dumps(raw, ensure_ascii=False)
