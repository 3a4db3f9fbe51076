"""Importers: platform exports and public dialogue datasets onto the raw log model.

Every importer yields :class:`~medrealmm.corpus.schema.Consultation` objects, or a
:class:`~medrealmm.schema.CaseError` for a record that cannot be used (naming the case, the field and
the file), so one bad line never stops an import of a million consultations.

JSONL raw logs (:func:`read_consultations`)
-------------------------------------------
One consultation per line, a JSON object. With the default (identity) mapping the fields are ours::

    {"id": "c001", "department": "皮肤科", "department_detail": "过敏", "patient": {"age": 31, "sex": "F"},
     "events": [{"speaker": "patient", "content": "手臂起了红疹，很痒", "time": "2024-05-01T10:00:00"},
                {"speaker": "patient", "modality": "image", "content": "img/c001_1.jpg", "origin": "patient_upload"},
                {"speaker": "doctor", "content": "多久了？有没有接触新的洗护用品？"}]}

A platform's own export is read through a *mapping* (``corpus.mapping`` in the config)::

    fields:        {id: consult_id, department: dept.name, events: msgs}      # ours: theirs (dotted = nested)
    event_fields:  {speaker: role, modality: msg_type, content: body, time: ts, origin: src}
    values:                                                                  # theirs (as a string) -> ours
      speaker:  {"1": patient, "2": doctor, "0": system}
      modality: {txt: text, pic: image}
      origin:   {upload: patient_upload, sticker: sticker, emoji: emoji, ad: platform}

so the line ``{"consult_id": 7, "dept": {"name": "儿科"}, "msgs": [{"role": 1, "msg_type": "pic",
"body": "a.jpg", "src": "upload", "ts": 1714557600}]}`` becomes consultation ``"7"`` with one patient
upload. Fields not in the mapping keep their own names (identity). A value without an entry in its
value map is kept as is (and then fails validation if it is not one of ours, which names the field).
Numeric times are read as Unix seconds (UTC). Event fields the mapping does not name are kept in
``Event.meta`` only when ``event_fields.meta`` says where they are.

CMtMedQA-shaped dialogue datasets (:func:`read_cmtmedqa`)
---------------------------------------------------------
A JSON list (or JSONL) of ``{"id", "cate1", "cate2", "instruction", "input", "output", "history":
[[patient, doctor], ...]}``: the history pairs, then ``instruction`` (+ ``input``) / ``output`` as the
last exchange, become alternating patient/doctor text events. Records without departments (the
file's ``{"instruct", "output"}`` safety prompts) are read too, with department :data:`UNKNOWN`.

*Department decision*: ``department = cate1`` and ``department_detail = cate2``. ``cate1`` is a
department level (皮肤科, 外科, 儿科 ...) with ~16 values, the granularity the funnel balances on;
``cate2`` is often a disease or topic rather than a department (过敏, 乙肝, 重症肌无力), so it is kept as
detail and never used for balancing. A blank or ``nan`` cate1 falls back to cate2, then to :data:`UNKNOWN`.

*Ids*: ``cmtmedqa-{index:05d}-{hash8}`` where the hash is over the dialogue text: stable for the same
file, and an edited or reordered record gets a new id instead of silently reusing an old one. The
dataset's own id, when present, is kept in ``meta["source_id"]``.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from medrealmm.corpus.schema import Consultation, Event
from medrealmm.schema import CaseError

log = logging.getLogger(__name__)

#: Department of a record that names none.
UNKNOWN = "未知"

CONSULTATION_FIELDS = ("id", "department", "department_detail", "patient", "events", "meta")
EVENT_FIELDS = ("speaker", "modality", "content", "time", "origin", "meta")
_MISSING = object()


def _plain(obj: Any) -> Any:
    from medrealmm.config import plain

    return plain(obj)


def _get(raw: Mapping[str, Any], path: str) -> Any:
    """``raw[path]``, following dots into nested objects; :data:`_MISSING` when absent."""
    if path in raw:
        return raw[path]
    cur: Any = raw
    for part in path.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return _MISSING
        cur = cur[part]
    return cur


def _value(values: Mapping[str, Mapping[str, Any]], field: str, value: Any) -> Any:
    table = values.get(field) or {}
    if value is None or not table:
        return value
    key = str(value).lower() if isinstance(value, bool) else str(value)
    return table.get(key, value)


def _time(value: Any) -> Any:
    """ISO 8601 from Unix seconds (or milliseconds); strings pass through."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000.0 if value > 1e11 else float(value)
        return datetime.fromtimestamp(seconds, tz=UTC).isoformat()
    return value


def _field_of(err: ValidationError) -> str | None:
    """The first failing location as ``events[3].speaker``."""
    errors = err.errors()
    if not errors:
        return None
    out = ""
    for part in errors[0].get("loc", ()):
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or None


def _message(err: ValidationError) -> str:
    first = err.errors()[0] if err.errors() else {}
    msg = str(first.get("msg", err))
    return msg + (f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else "")


class FieldMapping:
    """A parsed field mapping (see the module docstring); the identity when empty."""

    def __init__(self, spec: Mapping[str, Any] | None = None):
        spec = dict(_plain(spec) or {})
        unknown = set(spec) - {"fields", "event_fields", "values"}
        if unknown:
            raise ValueError(f"corpus mapping: unknown key(s) {sorted(unknown)} (expected fields, event_fields, values)")
        self.fields: dict[str, str] = {k: str(v) for k, v in (spec.get("fields") or {}).items()}
        self.event_fields: dict[str, str] = {k: str(v) for k, v in (spec.get("event_fields") or {}).items()}
        self.values: dict[str, dict[str, Any]] = {
            k: {str(a): b for a, b in (v or {}).items()} for k, v in (spec.get("values") or {}).items()}
        for name, table, allowed in (("fields", self.fields, CONSULTATION_FIELDS),
                                     ("event_fields", self.event_fields, EVENT_FIELDS)):
            bad = set(table) - set(allowed)
            if bad:
                raise ValueError(f"corpus mapping: {name} maps unknown field(s) {sorted(bad)} (ours: {allowed})")

    def consultation(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Our field names and values from one export record (validation is left to the model)."""
        out: dict[str, Any] = {}
        for ours in CONSULTATION_FIELDS:
            value = _get(raw, self.fields.get(ours, ours))
            if value is not _MISSING:
                out[ours] = value
        if "id" in out and isinstance(out["id"], (int, float)) and not isinstance(out["id"], bool):
            out["id"] = str(out["id"])
        if "department" in out:
            out["department"] = _value(self.values, "department", out["department"])
        events = out.get("events")
        if isinstance(events, list):
            out["events"] = [self.event(e) if isinstance(e, Mapping) else e for e in events]
        return out

    def event(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for ours in EVENT_FIELDS:
            value = _get(raw, self.event_fields.get(ours, ours))
            if value is _MISSING:
                continue
            if ours == "time":
                value = _time(value)
            elif ours in ("speaker", "modality", "origin"):
                value = _value(self.values, ours, value)
            out[ours] = value
        return out


def read_consultations(path: str | Path, mapping: Mapping[str, Any] | None = None
                       ) -> Iterator[Consultation | CaseError]:
    """Consultations from a JSONL raw log, one per line, through ``mapping`` (identity by default).

    Blank lines are skipped; a line that is not a JSON object, or a record that does not make a
    valid consultation, is yielded as a :class:`CaseError` with its line number.
    """
    path = Path(path)
    m = FieldMapping(mapping)
    id_field = m.fields.get("id", "id")
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as e:
                yield CaseError(f"not valid JSON ({e.msg} at column {e.colno})", file=where)
                continue
            if not isinstance(raw, dict):
                yield CaseError(f"a line must be a JSON object, not {type(raw).__name__}", file=where)
                continue
            raw_id = _get(raw, id_field)
            case_id = None if raw_id is _MISSING or raw_id is None else str(raw_id)
            try:
                data = m.consultation(raw)
                if "events" in data and not isinstance(data["events"], list):
                    raise CaseError("events must be a list", case_id=case_id, field="events", file=where)
                if data.get("events") == []:
                    raise CaseError("a consultation needs at least one event", case_id=case_id, field="events",
                                    file=where)
                yield Consultation.model_validate(data)
            except CaseError as e:
                yield e
            except ValidationError as e:
                yield CaseError(_message(e), case_id=case_id, field=_field_of(e), file=where)
            except (TypeError, ValueError) as e:
                yield CaseError(str(e), case_id=case_id, file=where)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _department(rec: Mapping[str, Any]) -> tuple[str, str | None]:
    cate1, cate2 = _text(rec.get("cate1")), _text(rec.get("cate2"))
    cate1 = "" if cate1.lower() in ("nan", "none", "null") else cate1
    cate2 = "" if cate2.lower() in ("nan", "none", "null") else cate2
    department = cate1 or cate2 or UNKNOWN
    detail = cate2 if cate2 and cate2 != department else None
    return department, detail


def _cmtmedqa_records(path: Path) -> Iterator[tuple[int, Any, str | None]]:
    """(index, record, parse error) from a JSON list or a JSONL file."""
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            yield 0, None, f"not valid JSON ({e.msg} at line {e.lineno})"
            return
        yield from ((i, rec, None) for i, rec in enumerate(data))
        return
    i = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            yield i, json.loads(line), None
        except json.JSONDecodeError as e:
            yield i, None, f"not valid JSON ({e.msg} at column {e.colno})"
        i += 1


def read_cmtmedqa(path: str | Path) -> Iterator[Consultation | CaseError]:
    """Consultations from a CMtMedQA-shaped dialogue dataset: text only, patient/doctor alternating.

    See the module docstring for the department and id decisions. A record with no usable
    exchange, or a malformed ``history``, is yielded as a :class:`CaseError`.
    """
    path = Path(path)
    for i, rec, problem in _cmtmedqa_records(path):
        where = f"{path}[{i}]"
        if problem is not None or not isinstance(rec, dict):
            yield CaseError(problem or f"a record must be a JSON object, not {type(rec).__name__}", file=where)
            continue
        source_id = rec.get("id")
        history = rec.get("history") or []
        if not isinstance(history, list) or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in history):
            yield CaseError("history must be a list of [patient, doctor] pairs",
                            case_id=None if source_id is None else str(source_id), field="history", file=where)
            continue
        question = _text(rec.get("instruction", rec.get("instruct")))
        extra = _text(rec.get("input"))
        if extra:
            question = f"{question}\n{extra}" if question else extra
        pairs = [(_text(p), _text(d)) for p, d in history] + [(question, _text(rec.get("output")))]
        events = [Event(speaker=speaker, content=text)
                  for p, d in pairs for speaker, text in (("patient", p), ("doctor", d)) if text]
        if not events:
            yield CaseError("no dialogue text", case_id=None if source_id is None else str(source_id),
                            field="instruction", file=where)
            continue
        digest = hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode()).hexdigest()[:8]
        department, detail = _department(rec)
        meta: dict[str, Any] = {"source": "cmtmedqa", "index": i}
        if source_id is not None:
            meta["source_id"] = str(source_id)
        yield Consultation(id=f"cmtmedqa-{i:05d}-{digest}", department=department, department_detail=detail,
                           events=tuple(events), meta=meta)
