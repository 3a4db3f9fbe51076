"""Consultation records as de-identification reads and writes them.

Two shapes are read from the same JSONL file, line by line:

* *turn records* (our case format, or raw logs before they have a rubric): ``id`` and ``turns`` are
  required; ``department``, ``intent``, ``stage``, ``patient.age``, ``patient.sex``, ``y_orig`` and
  ``rubric`` are kept when present;
* *event records* (a line with ``events`` and no ``turns``): the corpus funnel's raw logs
  (:class:`medrealmm.corpus.schema.Consultation`). ``id``, ``department``, ``department_detail``,
  ``patient.age``, ``patient.sex`` and per event ``speaker``, ``modality``, ``content`` and ``origin``
  are kept, so the output is again a valid ``Consultation``; event and consultation ``time``/``meta``
  go (a timestamp or a platform's user id identifies).

Everything else is dropped on purpose — a field we do not know might hold a name, a timestamp or an
address — and only the *names* of dropped fields go to the audit trail. Free text (turn texts, text
events, ``y_orig``, rubric texts) is what the detectors mask; every image (any origin: a sticker can
carry a name too) is an image slot.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from medrealmm.data.images import resolve_image_path
from medrealmm.data import CASES_FILE, iter_jsonl_records
from medrealmm.schema import CaseError

KEPT_FIELDS: tuple[str, ...] = ("id", "department", "intent", "stage", "patient", "turns", "y_orig", "rubric")
TURN_FIELDS: tuple[str, ...] = ("role", "text", "images")
ROLES = ("patient", "doctor")

EVENT_RECORD_FIELDS: tuple[str, ...] = ("id", "department", "department_detail", "patient", "events")
EVENT_FIELDS: tuple[str, ...] = ("speaker", "modality", "content", "origin")
SPEAKERS = ("patient", "doctor", "system")
MODALITIES = ("text", "image")
ORIGINS = ("patient_upload", "doctor_upload", "sticker", "emoji", "platform", "unknown")

Shape = Literal["turns", "events"]


@dataclass
class TextField:
    """Where a masked text lives in a record: ``turns.3.text``, ``events.3.content``, ``y_orig``,
    ``rubric.2.text``."""

    path: str
    text: str


@dataclass
class ImageSlot:
    """Where an image sits: ``turns[turn].images[index]``, or for ``shape="events"`` the image event
    ``events[turn]`` (``index`` 0) — one index pair for both, so removal and file names need no branch."""

    turn: int
    index: int
    source: Path            # never written anywhere: the original file name may identify
    shape: Shape = "turns"

    @property
    def event(self) -> int | None:
        """The event index of an event record's image, None for a turn image."""
        return self.turn if self.shape == "events" else None

    def where(self) -> str:
        """1-based, for reasons a person reads (``removed.jsonl``)."""
        if self.shape == "events":
            return f"the image of event {self.turn + 1}"
        return f"image {self.index + 1} of turn {self.turn + 1}"

    def stem(self) -> str:
        """The masked file's name (without suffix): positions only, never the original name."""
        return f"event-{self.turn}" if self.shape == "events" else f"{self.turn}-{self.index}"

    def audit(self) -> dict[str, int]:
        return {"event": self.turn} if self.shape == "events" else {"turn": self.turn, "index": self.index}


@dataclass
class LogRecord:
    raw: dict[str, Any]
    file: str
    line: int
    dropped: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.raw["id"])

    @property
    def shape(self) -> Shape:
        return "events" if "events" in self.raw and "turns" not in self.raw else "turns"

    def texts(self) -> list[TextField]:
        if self.shape == "events":
            out = [TextField(f"events.{i}.content", e.get("content") or "")
                   for i, e in enumerate(self.raw["events"]) if e.get("modality", "text") == "text"]
        else:
            out = [TextField(f"turns.{i}.text", t.get("text") or "") for i, t in enumerate(self.raw["turns"])]
        if isinstance(self.raw.get("y_orig"), str):
            out.append(TextField("y_orig", self.raw["y_orig"]))
        for j, c in enumerate(self.raw.get("rubric") or []):
            out.append(TextField(f"rubric.{j}.text", c.get("text") or ""))
        return [t for t in out if t.text]

    def get_text(self, path: str) -> str:
        """The text at a :class:`TextField` path; KeyError/IndexError/ValueError when there is none."""
        node: Any = self.raw
        for p in path.split("."):
            node = node[int(p)] if isinstance(node, list) else node[p]
        if not isinstance(node, str):
            raise ValueError(f"{path} is not a text")
        return node

    def set_text(self, path: str, value: str) -> None:
        parts = path.split(".")
        node: Any = self.raw
        for p in parts[:-1]:
            node = node[int(p)] if isinstance(node, list) else node[p]
        node[parts[-1]] = value

    def set_image(self, slot: ImageSlot, rel_path: str, sha256: str) -> None:
        """Point the slot at its masked file: a turn's ``{"path", "sha256"}`` image, or an image event's
        ``content`` with the digest in its ``meta`` (a dict in the corpus schema, so it still validates)."""
        if slot.shape == "events":
            event = self.raw["events"][slot.turn]
            event["content"] = rel_path
            event["meta"] = {"sha256": sha256}
        else:
            self.raw["turns"][slot.turn]["images"][slot.index] = {"path": rel_path, "sha256": sha256}

    def find_image(self, rel_path: str, root: Path) -> ImageSlot | None:
        """The slot of an image by the path the record gives it (a reviewer names images that way)."""
        if self.shape == "events":
            for i, e in enumerate(self.raw["events"]):
                if e.get("modality") == "image" and e.get("content") == rel_path:
                    return ImageSlot(i, 0, root / rel_path, "events")
            return None
        for i, t in enumerate(self.raw["turns"]):
            for k, im in enumerate(t.get("images") or []):
                if (im.get("path") if isinstance(im, dict) else im) == rel_path:
                    return ImageSlot(i, k, root / rel_path)
        return None


def _image_source(root: Path, rel: Any, what: str, cid: str, fld: str, file: str) -> Path:
    """The original file of an image, inside the input's folder (same path safety for both shapes)."""
    if not isinstance(rel, str) or not rel:
        raise CaseError(f"{what}: needs a path", case_id=cid, field=fld, file=file)
    try:
        source = resolve_image_path(root, rel)
    except ValueError:      # its message repeats the path, and a file name can hold a patient's name
        raise CaseError(f"{what}: the path is absolute or leaves the input's folder", case_id=cid, field=fld,
                        file=file) from None
    if not source.is_file():
        raise CaseError(f"{what}: file not found", case_id=cid, field=fld, file=file)
    return source


def _clean_patient(raw: dict[str, Any], out: dict[str, Any], dropped: list[str]) -> None:
    patient = raw.get("patient")
    if isinstance(patient, dict):
        dropped += [f"patient.{k}" for k in sorted(patient) if k not in ("age", "sex")]
        out["patient"] = {k: patient[k] for k in ("age", "sex") if k in patient}
    elif patient is not None:
        dropped.append("patient")
        out.pop("patient", None)


def _clean(raw: dict[str, Any], file: str, line: int, root: Path) -> tuple[dict[str, Any], list[str], list[ImageSlot]]:
    case_id = raw.get("id")
    if case_id is None or not str(case_id).strip():
        raise CaseError(f"line {line}: no id", field="id", file=file)
    cid = str(case_id)
    if "events" in raw and "turns" not in raw:
        return _clean_events(raw, cid, file, root)
    turns = raw.get("turns")
    if not isinstance(turns, list) or not turns:
        raise CaseError("no turns (a non-empty list)", case_id=cid, field="turns", file=file)
    dropped = sorted(k for k in raw if k not in KEPT_FIELDS)
    out: dict[str, Any] = {k: raw[k] for k in KEPT_FIELDS if k in raw}
    out["id"] = cid
    _clean_patient(raw, out, dropped)
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
            source = _image_source(root, rel, f"turn {i} image {k}", cid, f"turns.{i}.images.{k}", file)
            slots.append(ImageSlot(i, k, source))
            images.append({"path": ""})       # filled with the masked file's path
        clean_turns.append({"role": t["role"], "text": t.get("text") or "", "images": images})
    out["turns"] = clean_turns
    if "rubric" in out:
        out["rubric"] = [{k: c[k] for k in ("id", "text", "weight", "tags") if k in c}
                         for c in out["rubric"] if isinstance(c, dict)]
    return out, sorted(set(dropped)), slots


def _clean_events(raw: dict[str, Any], cid: str, file: str,
                  root: Path) -> tuple[dict[str, Any], list[str], list[ImageSlot]]:
    """An event record, checked as :class:`medrealmm.corpus.schema.Consultation` would (so the output
    validates again), reduced to the whitelist."""
    events = raw.get("events")
    if not isinstance(events, list) or not events:
        raise CaseError("no events (a non-empty list)", case_id=cid, field="events", file=file)
    if not isinstance(raw.get("department"), str):
        raise CaseError("department must be a string", case_id=cid, field="department", file=file)
    if raw.get("department_detail") is not None and not isinstance(raw["department_detail"], str):
        raise CaseError("department_detail must be a string", case_id=cid, field="department_detail",
                        file=file)
    dropped = sorted(k for k in raw if k not in EVENT_RECORD_FIELDS)
    out: dict[str, Any] = {"id": cid, "department": raw["department"]}
    if raw.get("department_detail") is not None:
        out["department_detail"] = raw["department_detail"]
    _clean_patient(raw, out, dropped)
    slots: list[ImageSlot] = []
    clean_events = []
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            raise CaseError(f"event {i} is not an object", case_id=cid, field=f"events.{i}", file=file)
        if e.get("speaker") not in SPEAKERS:
            raise CaseError(f"event {i}: speaker must be one of {SPEAKERS}", case_id=cid,
                            field=f"events.{i}.speaker", file=file)
        modality = e.get("modality", "text")
        if modality not in MODALITIES:
            raise CaseError(f"event {i}: modality must be one of {MODALITIES}", case_id=cid,
                            field=f"events.{i}.modality", file=file)
        if not isinstance(e.get("content", ""), str):
            raise CaseError(f"event {i}: content must be a string", case_id=cid, field=f"events.{i}.content",
                            file=file)
        origin = e.get("origin")
        dropped += sorted({f"events.*.{k}" for k in e if k not in EVENT_FIELDS} - set(dropped))
        if modality == "text":
            if origin is not None:
                raise CaseError(f"event {i}: origin is for image events only", case_id=cid,
                                field=f"events.{i}.origin", file=file)
            clean_events.append({"speaker": e["speaker"], "modality": "text", "content": e.get("content") or ""})
            continue
        if origin is not None and origin not in ORIGINS:
            raise CaseError(f"event {i}: origin must be one of {ORIGINS}", case_id=cid,
                            field=f"events.{i}.origin", file=file)
        source = _image_source(root, e.get("content"), f"event {i} image", cid, f"events.{i}.content", file)
        slots.append(ImageSlot(i, 0, source, "events"))
        clean_events.append({"speaker": e["speaker"], "modality": "image", "content": "",   # the masked path
                             "origin": origin or "unknown"})
    out["events"] = clean_events
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
