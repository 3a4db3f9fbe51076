"""Physician feedback on a rubric, F(k): the file format, its reader and its exact application.

Feedback is a CSV (UTF-8; a byte-order mark from Excel is fine) with the header

    case_id,criterion_id,action,text,weight,comment
    derm-001,c1,keep,,,
    derm-001,c2,delete,,,与c1重复
    derm-001,c3,edit,将新养小猫作为可能的传染源,,
    derm-001,c4,reweight,,5,
    derm-001,c6,split,推荐外用抗真菌药||说明皮损消退后仍需继续使用1～2周,4||2,
    derm-001,,add,询问家中其他人是否有类似皮损,3,
    derm-001,c7,comment,,,宠物就医的表述太笼统
    derm-001,,,,,整体缺少对复诊时间的要求

or JSONL with the same keys, one object per line (empty keys may be left out; ``weight`` may be a
number; a split may give ``"parts": [{"text": ..., "weight": ...}, ...]`` instead of ``||`` lists).
One row is one decision about one criterion of one case:

- ``keep`` — the criterion is fine as it is (a comment may say why);
- ``delete`` — remove it;
- ``edit`` — replace its text with ``text``; a ``weight`` also reweights it;
- ``reweight`` — set its weight to ``weight``;
- ``split`` — replace it by several criteria: ``text`` holds the parts separated by ``||`` and
  ``weight`` their weights separated by ``||`` (as many weights as parts). ``c3`` becomes ``c3.1``,
  ``c3.2``, …;
- ``add`` — a new criterion (``text`` and ``weight``; ``criterion_id`` left empty); it gets the next
  ``cN`` never used in this case's rubric history;
- ``comment`` — a free-text remark for the revising LLM, about one criterion or, with an empty
  ``criterion_id``, about the whole rubric. A row with an empty ``action`` and a comment is a comment;
  a ``comment`` row left empty is skipped (the review template pre-fills one per case), as are
  blank rows.

Weights are non-zero integers (positive rewards, negative penalises). Any row may carry a
``comment``. ``keep``, ``delete``, ``edit``, ``reweight`` and ``split`` are *direct actions*: they are
applied exactly, by :func:`apply_feedback`, before any LLM revision, in the order of the current
rubric (not of the rows), with added criteria at the end. At most one direct action per criterion,
except that an ``edit`` without a weight and a ``reweight`` combine. Every free-text comment (on any
row) goes to the LLM, which must address it in the next round (``needs_revision``). Edited, reweighted
and split criteria keep the original criterion's tags; added ones have none.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from medrealmm.csvsafe import unsafe_cell
from medrealmm.schema import Criterion

log = logging.getLogger(__name__)

Action = Literal["keep", "delete", "edit", "reweight", "split", "add", "comment", "accept"]
ACTIONS: tuple[str, ...] = ("keep", "delete", "edit", "reweight", "split", "add", "comment", "accept")
DIRECT: tuple[str, ...] = ("keep", "delete", "edit", "reweight", "split")
COLUMNS: tuple[str, ...] = ("case_id", "criterion_id", "action", "text", "weight", "comment")
JSON_KEYS = frozenset(COLUMNS) | {"parts"}
PART_SEP = "||"


class FeedbackError(ValueError):
    """Feedback that cannot be read or applied; names the file, the row, the case and the field."""

    def __init__(self, message: str, *, file: str | None = None, row: int | None = None,
                 case_id: str | None = None, field: str | None = None):
        self.file, self.row, self.case_id, self.field, self.reason = file, row, case_id, field, message
        where = ", ".join(f"{k} {v!r}" if isinstance(v, str) else f"{k} {v}"
                          for k, v in (("file", file), ("row", row), ("case", case_id), ("field", field))
                          if v is not None)
        super().__init__(f"{where}: {message}" if where else message)


# --------------------------------------------------------------------------------------------------
# one row

@dataclass(frozen=True)
class FeedbackItem:
    """One validated feedback row. ``parts`` holds a split's (text, weight) pairs; ``file``/``row``
    say where it came from, for error messages."""

    case_id: str
    action: Action
    criterion_id: str | None = None
    text: str | None = None
    weight: int | None = None
    parts: tuple[tuple[str, int], ...] = ()
    comment: str | None = None
    file: str | None = field(default=None, compare=False)
    row: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        def bad(msg: str, fld: str) -> FeedbackError:
            return FeedbackError(msg, file=self.file, row=self.row, case_id=self.case_id or None, field=fld)

        if not self.case_id:
            raise bad("case_id is empty", "case_id")
        if self.action not in ACTIONS:
            raise bad(f"unknown action {self.action!r}; expected one of {', '.join(ACTIONS)}", "action")
        if self.weight is not None and (isinstance(self.weight, bool) or not isinstance(self.weight, int)
                                        or self.weight == 0):
            raise bad(f"weight must be a non-zero integer, got {self.weight!r}", "weight")
        a = self.action
        if a == "add":
            if self.criterion_id:
                raise bad(f"add takes no criterion_id (got {self.criterion_id!r}); the new id is allocated",
                          "criterion_id")
        elif a == "accept":
            if self.criterion_id:
                raise bad("accept is about the whole rubric: leave criterion_id empty", "criterion_id")
        elif a != "comment" and not self.criterion_id:
            raise bad(f"{a} needs a criterion_id", "criterion_id")
        if a in ("edit", "add") and not self.text:
            raise bad(f"{a} needs a text", "text")
        if a in ("add", "reweight") and self.weight is None:
            raise bad(f"{a} needs a weight", "weight")
        if a in ("keep", "delete", "reweight", "comment", "accept") and self.text:
            hint = " (use edit to change the text)" if a != "comment" else " (put the remark in comment)"
            raise bad(f"{a} takes no text{hint}", "text")
        if a in ("keep", "delete", "comment", "accept") and self.weight is not None:
            raise bad(f"{a} takes no weight" + (" (use reweight)" if a == "keep" else ""), "weight")
        if a == "split":
            if len(self.parts) < 2:
                raise bad(f"split needs at least 2 parts, got {len(self.parts)}", "text")
            for k, (t, w) in enumerate(self.parts, 1):
                if not t:
                    raise bad(f"split part {k} has no text", "text")
                if isinstance(w, bool) or not isinstance(w, int) or w == 0:
                    raise bad(f"split part {k}: weight must be a non-zero integer, got {w!r}", "weight")
        elif self.parts:
            raise bad(f"{a} takes no parts (only split does)", "parts")
        if a == "comment" and not self.comment:
            raise bad("comment needs a comment", "comment")

    @property
    def where(self) -> str:
        at = f"row {self.row}" if self.row is not None else "an item"
        return f"{Path(self.file).name} {at}" if self.file else at


# --------------------------------------------------------------------------------------------------
# reading

def _weight(raw: Any, *, bad: Any, what: str = "weight") -> int | None:
    """A weight cell: '' / None → None; '5', '+5', '-3', '5.0', 5 → int; anything else is an error."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if isinstance(raw, bool):
        raise bad(f"{what} must be a non-zero integer, got {raw!r}")
    if isinstance(raw, int):
        value = raw
    elif isinstance(raw, float) and raw.is_integer():
        value = int(raw)
    elif isinstance(raw, str) and re.fullmatch(r"[+-]?\d+(\.0+)?", raw.strip()):
        value = int(float(raw.strip()))
    else:
        raise bad(f"{what} must be a non-zero integer, got {raw!r}")
    if value == 0:
        raise bad(f"{what} must be a non-zero integer, got 0")
    return value


def _text(raw: Any) -> str:
    return "" if raw is None else str(raw).strip()


def _item(raw: Mapping[str, Any], *, file: str, row: int) -> FeedbackItem | None:
    """Validate one raw row (CSV cells or a JSON object); None for an entirely blank row."""
    case_id = _text(raw.get("case_id"))

    def bad_in(fld: str) -> Any:
        return lambda msg: FeedbackError(msg, file=file, row=row, case_id=case_id or None, field=fld)

    if all(v is None or (isinstance(v, str) and not v.strip()) or v == [] for v in raw.values()):
        return None
    for key in ("case_id", "criterion_id", "action", "text", "comment"):
        v = raw.get(key)
        if v is not None and not isinstance(v, (str, int)):
            raise bad_in(key)(f"{key} must be text, got {type(v).__name__}")
    action = _text(raw.get("action")).lower()
    comment = _text(raw.get("comment")) or None
    if action == "comment" and not comment and not _text(raw.get("text")) and not _text(raw.get("weight")):
        return None                   # the review template's pre-filled comment row, left empty
    if not action:
        if not comment:
            raise bad_in("action")("action is empty and there is no comment")
        action = "comment"
    text = _text(raw.get("text"))
    weight_raw = raw.get("weight")
    parts: tuple[tuple[str, int], ...] = ()
    weight: int | None = None
    if action == "split":
        parts = _split_parts(raw, text, weight_raw, bad_in)
        text = ""
    elif raw.get("parts"):
        raise bad_in("parts")(f"{action or 'this action'} takes no parts (only split does)")
    else:
        weight = _weight(weight_raw, bad=bad_in("weight"))
    return FeedbackItem(case_id=case_id, action=action, criterion_id=_text(raw.get("criterion_id")) or None,  # type: ignore[arg-type]
                        text=text or None, weight=weight, parts=parts, comment=comment, file=file, row=row)


def _split_parts(raw: Mapping[str, Any], text: str, weight_raw: Any, bad_in: Any) -> tuple[tuple[str, int], ...]:
    given = raw.get("parts")
    if given:
        if text or _text(weight_raw):
            raise bad_in("parts")("split gives both parts and text/weight; use one of them")
        if not isinstance(given, list) or not all(isinstance(p, Mapping) for p in given):
            raise bad_in("parts")("parts must be a list of {\"text\": ..., \"weight\": ...} objects")
        out = []
        for k, p in enumerate(given, 1):
            unknown = sorted(set(p) - {"text", "weight"})
            if unknown:
                raise bad_in("parts")(f"split part {k} has unknown key(s) {unknown}")
            t = _text(p.get("text"))
            if not t:
                raise bad_in("text")(f"split part {k} has no text")
            w = _weight(p.get("weight"), bad=bad_in("weight"), what=f"split part {k} weight")
            if w is None:
                raise bad_in("weight")(f"split part {k} has no weight")
            out.append((t, w))
        return tuple(out)
    if not text:
        raise bad_in("text")(f"split needs a text: the parts separated by {PART_SEP}")
    texts = [t.strip() for t in text.split(PART_SEP)]
    wtext = _text(weight_raw)
    if not wtext:
        raise bad_in("weight")(f"split needs a weight: one per part, separated by {PART_SEP}")
    weights = [w.strip() for w in wtext.split(PART_SEP)]
    if len(texts) != len(weights):
        raise bad_in("weight")(f"split has {len(texts)} text part(s) but {len(weights)} weight(s)")
    out = []
    for k, (t, w) in enumerate(zip(texts, weights, strict=True), 1):
        if not t:
            raise bad_in("text")(f"split part {k} has no text")
        value = _weight(w, bad=bad_in("weight"), what=f"split part {k} weight")
        if value is None:
            raise bad_in("weight")(f"split part {k} has no weight")
        out.append((t, value))
    return tuple(out)


def _file_text(path: Path) -> str:
    """The file's text: UTF-8 (BOM or not), else GB18030 — what Excel on a Chinese system saves
    as "CSV" — with a warning; anything else is refused, naming the file."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        raise FeedbackError("not UTF-8 (nor GB18030) text: save it as 'CSV UTF-8'", file=str(path)) from None
    log.warning("feedback %s is not UTF-8; read as GB18030 (Excel's Chinese 'CSV'); 'CSV UTF-8' is safer", path)
    return text


def _read_csv(path: Path) -> Iterable[FeedbackItem]:
    file = str(path)
    with io.StringIO(_file_text(path), newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None:
            raise FeedbackError("the file is empty (expected the header " + ",".join(COLUMNS) + ")", file=file)
        names = [h.strip().lower() for h in header]
        unknown = [h for h in names if h not in COLUMNS]
        missing = [c for c in ("case_id", "criterion_id", "action") if c not in names]
        if unknown or missing or len(set(names)) != len(names):
            raise FeedbackError(f"bad header {header!r}: expected the columns {','.join(COLUMNS)}"
                                + (f" (unknown {unknown})" if unknown else "")
                                + (f" (missing {missing})" if missing else ""), file=file, row=1, field="header")
        for cells in reader:
            row = reader.line_num
            if len(cells) > len(names) and any(c.strip() for c in cells[len(names):]):
                raise FeedbackError(f"{len(cells)} cells for {len(names)} columns (quote texts that hold commas)",
                                    file=file, row=row, case_id=cells[0].strip() or None, field="text")
            fields = dict(zip(names, cells, strict=False))
            for key in ("case_id", "criterion_id"):   # the template writes ids spreadsheet-safe
                if key in fields:
                    fields[key] = unsafe_cell(fields[key].strip())
            item = _item(fields, file=file, row=row)
            if item is not None:
                yield item


def _read_jsonl(path: Path) -> Iterable[FeedbackItem]:
    file = str(path)
    with io.StringIO(_file_text(path)) as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as e:
                raise FeedbackError(f"not valid JSON ({e.msg})", file=file, row=lineno) from None
            if not isinstance(raw, dict):
                raise FeedbackError(f"expected a JSON object, got {type(raw).__name__}", file=file, row=lineno)
            unknown = sorted(set(raw) - JSON_KEYS)
            if unknown:
                case_id = raw.get("case_id") if isinstance(raw.get("case_id"), str) else None
                raise FeedbackError(f"unknown key(s) {unknown}; expected some of {sorted(JSON_KEYS)}",
                                    file=file, row=lineno, case_id=case_id, field=unknown[0])
            item = _item(raw, file=file, row=lineno)
            if item is not None:
                yield item


def read_feedback(path: Path | str) -> dict[str, list[FeedbackItem]]:
    """Every feedback item of a ``.csv`` or ``.jsonl`` file, by case id, in file order.

    A bad row raises :class:`FeedbackError` naming the file, the row (CSV: the line, header = 1;
    JSONL: the line), the case and the field."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        items = _read_csv(path)
    elif suffix in (".jsonl", ".json", ".ndjson"):
        items = _read_jsonl(path)
    else:
        raise FeedbackError(f"unknown feedback format {suffix!r}; expected .csv or .jsonl", file=str(path))
    out: dict[str, list[FeedbackItem]] = {}
    for item in items:
        out.setdefault(item.case_id, []).append(item)
    log.info("feedback %s: %d row(s) for %d case(s)", path, sum(map(len, out.values())), len(out))
    return out


# --------------------------------------------------------------------------------------------------
# applying

@dataclass(frozen=True)
class Change:
    """One direct edit: the criterion it touched (the new id for ``add``), before and after.

    ``after`` is empty for ``delete``, one criterion for ``edit``/``reweight``/``add``, the parts
    for ``split``."""

    criterion_id: str
    action: str
    before: Criterion | None
    after: tuple[Criterion, ...]


@dataclass(frozen=True)
class FeedbackResult:
    """The rubric after the direct edits, what changed, and the comments left for the LLM.

    ``needs_revision`` is True exactly when there is at least one free-text comment (on any row:
    a ``comment`` row, or a comment on keep/delete/edit/reweight/split/add): direct edits alone are
    applied here in full and need no LLM round."""

    criteria: tuple[Criterion, ...]
    changes: list[Change]
    comments: list[tuple[str | None, str]]

    @property
    def needs_revision(self) -> bool:
        return bool(self.comments)


_ID_NUMBER = re.compile(r"c(\d+)(?:\.\d+)*")


def _next_add_id(taken: set[str]) -> str:
    """``c{N+1}`` for the largest N of any ``cN`` / ``cN.k`` id taken, so an id is never reused."""
    n = max((int(m.group(1)) for i in taken if (m := _ID_NUMBER.fullmatch(i))), default=0)
    while f"c{n + 1}" in taken:
        n += 1
    return f"c{n + 1}"


def _split_ids(base: str, k: int, taken: set[str]) -> list[str]:
    """``base.1``, ``base.2``, … skipping any suffix already taken."""
    out, n = [], 0
    while len(out) < k:
        n += 1
        cid = f"{base}.{n}"
        if cid not in taken:
            out.append(cid)
    return out


def _merge(items: list[FeedbackItem], cid: str, case_id: str) -> FeedbackItem | None:
    """The one direct action on ``cid``: identical rows count once, an edit without weight and a
    reweight combine; anything else is a conflict."""
    uniq: list[FeedbackItem] = []
    for it in items:
        if not any((u.action, u.text, u.weight, u.parts) == (it.action, it.text, it.weight, it.parts) for u in uniq):
            uniq.append(it)
    if len(uniq) <= 1:
        return uniq[0] if uniq else None
    acts = sorted(u.action for u in uniq)
    if acts == ["edit", "reweight"]:
        edit = next(u for u in uniq if u.action == "edit")
        rew = next(u for u in uniq if u.action == "reweight")
        if edit.weight is None:
            return FeedbackItem(case_id=case_id, action="edit", criterion_id=cid, text=edit.text,
                                weight=rew.weight, file=edit.file, row=edit.row)
    desc = ", ".join(f"{u.action} ({u.where})" for u in uniq)
    files = {u.file for u in uniq}
    raise FeedbackError(f"conflicting direct actions on criterion {cid!r}: {desc}",
                        file=files.pop() if len(files) == 1 else None, row=uniq[-1].row, case_id=case_id,
                        field="action")


def apply_feedback(criteria: Sequence[Criterion], items: Iterable[FeedbackItem], *, case_id: str,
                   used_ids: Iterable[str] = ()) -> FeedbackResult:
    """Apply one case's direct edits exactly and collect its comments.

    The result follows the current rubric's order (each criterion replaced by what its action makes
    of it), then the added criteria in row order. ``used_ids`` are the ids of earlier versions, so a
    new id (``cN`` for add, ``cK.1``… for a split of ``cK``) never repeats one. Raises
    :class:`FeedbackError` for an item of another case, an unknown criterion id, conflicting direct
    actions on one criterion, or a result without a positive criterion."""
    items = list(items)
    current = dict.fromkeys(c.id for c in criteria)       # ids in rubric order
    direct, adds = _sorted_items(items, current, case_id)
    taken = set(current) | set(used_ids)
    out: list[Criterion] = []
    changes: list[Change] = []
    for c in criteria:
        it = _merge(direct.get(c.id, []), c.id, case_id)
        if it is None or it.action == "keep":
            out.append(c)
            continue
        after = _edited(c, it, taken)
        out.extend(after)
        changes.append(Change(c.id, it.action, c, after))

    new_ids: dict[int, str] = {}
    for it in adds:
        cid = _next_add_id(taken | {c.id for c in out})
        taken.add(cid)
        new = Criterion(id=cid, text=it.text or "", weight=it.weight or 0)
        out.append(new)
        changes.append(Change(cid, "add", None, (new,)))
        new_ids[id(it)] = cid

    comments = [(new_ids.get(id(it), it.criterion_id), it.comment) for it in items
                if it.comment and it.action != "accept"]       # a note on a sign-off is not a request
    _check_result(items, out, case_id, changed=bool(changes or comments))
    return FeedbackResult(tuple(out), changes, comments)  # type: ignore[arg-type]


def _sorted_items(items: list[FeedbackItem], current: dict[str, None], case_id: str
                  ) -> tuple[dict[str, list[FeedbackItem]], list[FeedbackItem]]:
    """The direct actions by criterion id and the additions, after checking each item's case and criterion."""
    direct: dict[str, list[FeedbackItem]] = {}
    adds: list[FeedbackItem] = []
    for it in items:
        if it.case_id != case_id:
            raise FeedbackError(f"item of case {it.case_id!r} applied to case {case_id!r}", file=it.file,
                                row=it.row, case_id=it.case_id, field="case_id")
        if it.criterion_id is not None and it.criterion_id not in current:
            raise FeedbackError(f"unknown criterion id {it.criterion_id!r}; this rubric has "
                                f"{', '.join(current) or 'no criteria'}", file=it.file, row=it.row,
                                case_id=case_id, field="criterion_id")
        if it.action in DIRECT:
            direct.setdefault(it.criterion_id or "", []).append(it)
        elif it.action == "add":
            adds.append(it)
    return direct, adds


def _edited(c: Criterion, it: FeedbackItem, taken: set[str]) -> tuple[Criterion, ...]:
    """What a delete, edit, reweight or split makes of criterion ``c`` (a split's new ids join ``taken``)."""
    if it.action == "delete":
        return ()
    if it.action == "edit":
        return (c.model_copy(update={"text": it.text, "weight": it.weight if it.weight is not None else c.weight}),)
    if it.action == "reweight":
        return (c.model_copy(update={"weight": it.weight}),)
    ids = _split_ids(c.id, len(it.parts), taken)                       # split
    taken.update(ids)
    return tuple(Criterion(id=i, text=t, weight=w, tags=c.tags) for i, (t, w) in zip(ids, it.parts, strict=True))


def _check_result(items: list[FeedbackItem], out: list[Criterion], case_id: str, *, changed: bool) -> None:
    """An ``accept`` beside changes or comments, or a rubric left without a positive criterion, is an error."""
    if any(it.action == "accept" for it in items) and changed:
        it = next(it for it in items if it.action == "accept")
        raise FeedbackError("accept signs the rubric off as it is, but this case also has changes or comments: "
                            "keep one of the two", file=it.file, row=it.row, case_id=case_id, field="action")
    if not any(c.positive for c in out):
        rows = sorted({it.row for it in items if it.action in ("delete", "reweight", "edit", "split") and it.row})
        files = {it.file for it in items if it.file}
        raise FeedbackError("the feedback would leave no positive criterion, so the case score would be "
                            "undefined" + (f" (direct actions on rows {rows})" if rows else ""),
                            file=files.pop() if len(files) == 1 else None, case_id=case_id, field="weight")


# --------------------------------------------------------------------------------------------------
# diffs between versions

def history_diff(before: Sequence[Criterion], after: Sequence[Criterion]) -> dict[str, list[Any]]:
    """What changed between two versions, by criterion id (JSON-ready).

    ``added``: ids only in ``after`` (in its order); ``removed``: ids only in ``before`` (in its
    order); ``changed``: ``{"id", "fields"}`` for ids in both whose ``text``/``weight``/``tags``
    differ (in ``after``'s order)."""
    b = {c.id: c for c in before}
    a = {c.id: c for c in after}
    changed = []
    for c in after:
        old = b.get(c.id)
        if old is None:
            continue
        fields = [f for f in ("text", "weight", "tags") if getattr(old, f) != getattr(c, f)]
        if fields:
            changed.append({"id": c.id, "fields": fields})
    return {"added": [c.id for c in after if c.id not in b],
            "removed": [c.id for c in before if c.id not in a],
            "changed": changed}
