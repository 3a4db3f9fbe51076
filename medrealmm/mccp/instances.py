"""MCCP instances: x = the consultation up to t*, y_orig = the physician's next reply.

The benchmark :class:`~medrealmm.schema.Case` needs a rubric with a positive criterion, which only
Phase 3 writes; so Phase 2 writes *pre-rubric* instances (:class:`Instance`: a Case's fields minus
``rubric``, plus ``meta.mccp``), validated with the core ``Turn``/``ImageRef``/``Patient`` models,
and :func:`to_case` completes one once its rubric exists.

Also the physician validation sheets (:func:`export_validation`, :func:`read_decisions`,
:func:`import_validation`) and applying their decisions (:func:`apply_decisions`).
"""

from __future__ import annotations

import csv
import html
import io
import logging
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from medrealmm.atomic import write_rows, write_text
from medrealmm.corpus.schema import Consultation, Event
from medrealmm.inference.prompts import data_url
from medrealmm.mccp.select import Selection, doctor_run_after
from medrealmm.schema import Case, Criterion, ImageRef, Patient, Turn, stable_hash
from medrealmm.csvsafe import safe_cell, unsafe_cell

log = logging.getLogger(__name__)

DEFAULT_IMAGE_ORIGINS: tuple[str, ...] = ("patient_upload", "doctor_upload")


class InstanceError(ValueError):
    """A consultation whose challenge point cannot become an instance (names the consultation)."""


class Instance(BaseModel):
    """A Case without its rubric (yet): what Phase 3 reads."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    department: str
    intent: str | None = None
    stage: str | None = None
    patient: Patient = Patient()
    turns: tuple[Turn, ...] = Field(min_length=1)
    y_orig: str = Field(min_length=1)
    meta: dict[str, Any] = Field(default_factory=dict)


def _patient(raw: dict[str, Any]) -> Patient:
    """Age and sex when they are usable; anything else is dropped rather than failing the case."""
    sex = {"男": "male", "女": "female", "m": "male", "f": "female"}.get(str(raw.get("sex", "")).lower(),
                                                                       raw.get("sex"))
    age = raw.get("age")
    return Patient(age=age if isinstance(age, int) and 0 <= age <= 130 else None,
                   sex=sex if sex in ("male", "female") else None)


def image_path(path: str) -> str:
    """A dataset-relative POSIX path; absolute paths or ``..`` would escape the dataset root."""
    p = PurePosixPath(path.replace("\\", "/"))
    if p.is_absolute() or ".." in p.parts or not p.parts:
        raise InstanceError(f"image path {path!r} is not relative to the dataset root")
    return str(p)


def merge_turns(events: Sequence[Event], *, image_origins: Iterable[str] = DEFAULT_IMAGE_ORIGINS) -> list[Turn]:
    """Consecutive events of one side merged into one core ``Turn`` (texts joined by newlines,
    images kept in order); system events and images of other origins (stickers…) left out."""
    keep = set(image_origins)
    turns: list[dict[str, Any]] = []
    for e in events:
        if e.speaker == "system":
            continue
        text, images = "", []
        if e.modality == "text":
            text = e.content.strip()
        elif e.origin in keep:
            images = [ImageRef(path=image_path(e.content))]
        if not text and not images:
            continue
        if turns and turns[-1]["role"] == e.speaker:
            t = turns[-1]
            if text:
                t["text"] = f"{t['text']}\n{text}" if t["text"] else text
            t["images"].extend(images)
        else:
            turns.append({"role": e.speaker, "text": text, "images": images, "time": e.time})
    return [Turn(role=t["role"], text=t["text"], images=tuple(t["images"]), time=t["time"]) for t in turns]


def next_reply(events: Sequence[Event], t: int) -> str:
    """The physician's real reply after ``t``: the texts of the doctor run, joined by newlines."""
    return "\n".join(events[j].content.strip() for j in doctor_run_after(events, t)
                     if events[j].modality == "text" and events[j].content.strip())


def build_instance(c: Consultation, selection: Selection, *,
                   image_origins: Iterable[str] = DEFAULT_IMAGE_ORIGINS) -> Instance:
    """The instance at ``selection.t_star``; raises :class:`InstanceError` when it cannot be built."""
    t = selection.t_star
    if t is None or not 0 <= t < len(c.events):
        raise InstanceError(f"consultation {c.id!r}: no valid challenge point ({t!r})")
    turns = merge_turns(c.events[: t + 1], image_origins=image_origins)
    y = next_reply(c.events, t)
    if not turns or not y:
        raise InstanceError(f"consultation {c.id!r}: empty dialogue or empty physician reply at t={t}")
    meta: dict[str, Any] = {"mccp": {"t_star": t, "n_events": len(c.events), "scores": dict(selection.scores),
                                     "n_candidates": selection.n_candidates, "n_kept": selection.n_kept,
                                     "n_unscored": selection.n_unscored, "kept": list(selection.kept)}}
    if c.department_detail:
        meta["department_detail"] = c.department_detail
    try:
        return Instance(id=c.id, department=c.department, patient=_patient(c.patient), turns=tuple(turns),
                        y_orig=y, meta=meta)
    except ValueError as e:
        raise InstanceError(f"consultation {c.id!r}: {type(e).__name__}") from None


def to_case(instance: Instance | dict[str, Any], rubric: Sequence[Criterion | dict[str, Any]]) -> Case:
    """A validated benchmark ``Case`` once the rubric exists (raises ``CaseError`` when invalid)."""
    inst = instance if isinstance(instance, Instance) else Instance.model_validate(instance)
    body = inst.model_dump(mode="json")
    body["rubric"] = [r.model_dump(mode="json") if isinstance(r, Criterion) else dict(r) for r in rubric]
    return Case.parse(body)


def write_instances(instances: Iterable[Instance], path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_rows(path, (inst.model_dump(mode="json", exclude_none=False) for inst in instances))


def read_models(path: Path, model: type[Any], error: type[Exception] = ValueError, what: str = "record") -> list[Any]:
    """One pydantic ``model`` per non-blank JSONL line; a bad line stops with its number, never its text."""
    out = []
    for k, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(model.model_validate_json(line))
            except ValueError as e:
                raise error(f"{path}: line {k} is not a valid {what} ({type(e).__name__})") from None
    return out


def read_instances(path: Path) -> list[Instance]:
    return read_models(path, Instance, InstanceError, "instance")


# --- physician validation ------------------------------------------------------------------------
#
# The sheet (``validation/validation.csv``, UTF-8, written by :func:`export_validation`) has the
# columns ``id,accept,comment``: one row per sampled instance, ``accept`` left blank for the
# physician. Read back (:func:`read_decisions`): ``id`` and ``accept`` are required, ``comment`` (or
# ``note``) is optional and becomes the reviewer note; extra columns are ignored, a BOM is tolerated.
# ``accept`` takes yes/y/1/true/是/接受/accept or no/n/0/false/否/拒绝/reject (any case); a blank
# cell means "not decided yet" when the sheet is applied (:func:`apply_decisions`).

class ValidationSheetError(ValueError):
    """A filled validation CSV that cannot be read: names the file, row and problem."""


ACCEPT_YES = {"yes", "y", "1", "true", "是", "接受", "accept"}
ACCEPT_NO = {"no", "n", "0", "false", "否", "拒绝", "reject"}
CSV_FIELDS = ("id", "accept", "comment")
NOTE_COLUMNS = ("comment", "note")


@dataclass(frozen=True)
class Decision:
    """One physician decision read from the sheet (``row``: its line number, header = 1)."""

    decision: Literal["accept", "reject"]
    note: str | None
    row: int


def sample_for_validation(instances: Sequence[Instance], n: int, seed: int) -> list[Instance]:
    """A seeded random sample of ``n`` instances (all when fewer), in id order for the sheet."""
    pick = random.Random(seed).sample(list(instances), min(n, len(instances)))
    return sorted(pick, key=lambda i: i.id)


def html_turn(turn: Turn, image_bytes: Callable[[str], bytes] | None) -> str:
    who = "患者" if turn.role == "patient" else "医生"
    body = html.escape(turn.text).replace("\n", "<br>")
    for im in turn.images:
        src = None
        if image_bytes is not None:
            try:
                src = data_url(image_bytes(im.path))
            except (OSError, ValueError):
                src = None
        body += (f'<br><img src="{src}" style="max-width:360px">' if src
                 else f"<br><em>[图片缺失：{html.escape(im.path)}]</em>")
    return f'<div class="{turn.role}"><b>{who}</b>：{body}</div>'


def sheet_is_filled(csv_path: str | Path) -> bool:
    """Whether a sheet already holds a physician's decision (so a rerun must not overwrite it)."""
    path = Path(csv_path)
    if not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8-sig", newline="") as f:
            return any((row.get("accept") or "").strip() for row in csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error):
        return True   # unreadable: someone edited it; keep it rather than lose their work


def export_validation(instances: Sequence[Instance], out_dir: str | Path, n: int = 200, seed: int = 0, *,
                      image_bytes: Callable[[str], bytes] | None = None) -> dict[str, Any]:
    """Write ``validation.html`` (dialogue up to t*, images embedded, y_orig, intent/stage) and the
    ``validation.csv`` template (id, accept yes/no, comment) for a seeded sample of ``n`` instances.
    A sheet that already holds decisions is left alone (``kept_filled_sheet``): a rerun of the stage
    must not erase a physician's review."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sample = sample_for_validation(instances, n, seed)
    html_path, csv_path = out / "validation.html", out / "validation.csv"
    if sheet_is_filled(csv_path):
        log.warning("mccp validation: %s already holds decisions; sheet and page left as they are", csv_path)
        return {"html": str(html_path), "csv": str(csv_path), "n": len(sample), "kept_filled_sheet": True}
    blocks = []
    for inst in sample:
        turns = "\n".join(html_turn(t, image_bytes) for t in inst.turns)
        blocks.append(
            f'<section id="{html.escape(inst.id)}"><h2>{html.escape(inst.id)} · {html.escape(inst.department)}</h2>'
            f"<p>意图：{html.escape(inst.intent or '—')}　阶段：{html.escape(inst.stage or '—')}</p>{turns}"
            f'<div class="yorig"><b>医生真实回复 (y_orig)</b>：{html.escape(inst.y_orig).replace(chr(10), "<br>")}</div>'
            "</section>")
    page = ("<!doctype html><html lang=\"zh\"><meta charset=\"utf-8\"><title>MCCP 医生审核</title><style>"
            "section{border-bottom:1px solid #ccc;padding:1em}.doctor{background:#eef}.patient{background:#fff}"
            ".yorig{background:#efe;margin-top:.5em}</style><body><h1>MCCP 挑战点审核</h1>"
            "<p>请判断每个挑战点是否需要临床参与且依赖图片，在 validation.csv 的 accept 列填写 yes 或 no。</p>"
            + "\n".join(blocks) + "</body></html>")
    write_text(html_path, page)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_FIELDS)
    for inst in sample:
        w.writerow([safe_cell(inst.id), "", ""])
    write_text(csv_path, buf.getvalue())
    log.info("mccp validation: %d of %d instances exported for review", len(sample), len(instances))
    return {"html": str(html_path), "csv": str(csv_path), "n": len(sample)}


def read_decisions(csv_path: str | Path, ids: Iterable[str] | None = None, *,
                   allow_blank: bool = False) -> dict[str, Decision]:
    """The decisions of a filled sheet, by id, in sheet order. :class:`ValidationSheetError` names the
    file and first bad row (missing column, empty id, duplicate id, id not in ``ids``, unknown
    ``accept`` value; a blank ``accept`` too unless ``allow_blank``, where the row is undecided)."""
    known = set(ids) if ids is not None else None
    out: dict[str, Decision] = {}
    try:
        with Path(csv_path).open(encoding="utf-8-sig", newline="") as f:
            reader = csv.DictReader(f)
            fields = [x.strip() for x in reader.fieldnames or ()]
            reader.fieldnames = fields
            missing = {"id", "accept"} - set(fields)
            if missing:
                raise ValidationSheetError(f"{csv_path}: missing column(s) {sorted(missing)}")
            note_col = next((c for c in NOTE_COLUMNS if c in fields), None)
            seen: set[str] = set()
            for row_no, row in enumerate(reader, 2):
                cid = unsafe_cell((row.get("id") or "").strip())
                value = (row.get("accept") or "").strip().lower()
                if not cid:
                    if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
                        continue                                         # a blank line at the end
                    raise ValidationSheetError(f"{csv_path} row {row_no}, column 'id': empty id")
                if cid in seen:
                    raise ValidationSheetError(f"{csv_path} row {row_no}: duplicate id {cid!r}")
                seen.add(cid)
                if known is not None and cid not in known:
                    raise ValidationSheetError(
                        f"{csv_path} row {row_no}: unknown id {cid!r} (not an mccp instance)")
                if not value and allow_blank:
                    continue
                if value in ACCEPT_YES:
                    decision: Literal["accept", "reject"] = "accept"
                elif value in ACCEPT_NO:
                    decision = "reject"
                else:
                    raise ValidationSheetError(f"{csv_path} row {row_no}, column 'accept': accept must be yes or no, "
                                               f"got {value!r}")
                note = (row.get(note_col) or "").strip() if note_col else ""
                out[cid] = Decision(decision, note or None, row_no)
    except (UnicodeDecodeError, csv.Error) as e:
        raise ValidationSheetError(f"{csv_path}: not a readable UTF-8 CSV ({type(e).__name__})") from None
    return out


def import_validation(csv_path: str | Path, ids: Iterable[str] | None = None) -> float:
    """The acceptance rate of a completely filled sheet; :class:`ValidationSheetError` names the first
    bad row (missing column, empty or unknown accept value, duplicate id, id not in ``ids``)."""
    decisions = read_decisions(csv_path, ids)
    if not decisions:
        raise ValidationSheetError(f"{csv_path}: no reviewed rows")
    return sum(d.decision == "accept" for d in decisions.values()) / len(decisions)


def without_validation(inst: Instance) -> Instance:
    """The instance with no ``meta.mccp.validation`` (as Phase 2 built it)."""
    mccp = inst.meta.get("mccp")
    if not isinstance(mccp, dict) or "validation" not in mccp:
        return inst
    rest = {k: v for k, v in mccp.items() if k != "validation"}
    return inst.model_copy(update={"meta": {**inst.meta, "mccp": rest}})


def instance_hash(inst: Instance) -> str:
    """What a physician reviewed: the instance without its validation mark (a decision stored with
    it is reapplied only while the instance is unchanged)."""
    return stable_hash(without_validation(inst).model_dump(mode="json"))


def with_decision(inst: Instance, decision: Decision) -> Instance:
    base = without_validation(inst)
    mark = {"decision": decision.decision, "note": decision.note}
    mccp = {**(base.meta.get("mccp") or {}), "validation": mark}
    return base.model_copy(update={"meta": {**base.meta, "mccp": mccp}})


def apply_decisions(instances: Sequence[Instance], decisions: Mapping[str, Decision]
                    ) -> tuple[list[Instance], list[Instance]]:
    """``(kept, rejected)`` in input order: decided instances marked in ``meta.mccp.validation``,
    rejected ones split off; an instance the sheet does not decide loses any earlier mark."""
    kept: list[Instance] = []
    rejected: list[Instance] = []
    for inst in instances:
        d = decisions.get(inst.id)
        if d is None:
            kept.append(without_validation(inst))
        elif d.decision == "reject":
            rejected.append(with_decision(inst, d))
        else:
            kept.append(with_decision(inst, d))
    return kept, rejected
