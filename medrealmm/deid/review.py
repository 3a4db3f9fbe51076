"""Stage 5: human review of de-identified cases — sheets out, reviewer decisions back in.

Two schemes (``deid.review.scheme``):

- ``paper`` (the paper's Stage 5, the default of ``preset=paper``): every remaining case is reviewed in
  two passes — (i) residual PII in masked text and images, (ii) clinical utility (masking did not destroy
  the clinical signal) — and then a second annotator audits a seeded 10% random sample of the approved
  cases plus every approved case of the sensitive specialties (``deid.review.audit=true`` writes
  those sheets once the first review's decisions are applied).
- ``sample`` (our lighter default): every case of the sensitive specialties (pediatrics, mental health,
  reproductive health, oncology, infectious disease) and a seeded random share of the rest.

A sheet is
one static HTML page per batch: the masked text with its placeholders, the masked images and the
audit trail, side by side. Reviewers answer in a CSV (one row per decision; a template is written
next to the sheets):

    case_id,decision,field,start,end,category,image,x0,y0,x1,y1,pass
    derm-001,accept,,,,,,,,,,
    derm-002,reject,,,,,,,,,,utility
    derm-003,remask,turns.0.text,12,15,NAME,,,,,,pii
    derm-003,remask,,,,,images/derm-003/0-0.jpg,40,10,180,40,pii
    log-007,remask,events.3.content,4,7,PHONE,,,,,,audit

Text fields are those of the audit trail: ``turns.N.text`` of a turn record, ``events.N.content`` of an
event record's text event, ``y_orig``, ``rubric.N.text``.

``reject`` removes the case; ``remask`` masks a residual identifier the detectors missed (offsets
into the *masked* text as shown on the sheet, or a box on the masked image); ``accept`` marks it
reviewed. ``pass`` (optional) says which check found it: ``pii``, ``utility`` or ``audit`` (the second
annotator); it is kept in the audit trail. Free-text notes are not read: they could repeat the identifier.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medrealmm.atomic import write_rows, write_text
from medrealmm.data import subset_key
from medrealmm.data.specialty import assign, load_groups
from medrealmm.deid import settings
from medrealmm.deid.spans import CATEGORIES, Span, apply_placeholders
from medrealmm.csvsafe import safe_cell, unsafe_cell

log = logging.getLogger(__name__)

SENSITIVE_GROUPS: tuple[str, ...] = tuple(settings.SENSITIVE_GROUPS)    # deid.review.always_groups' default
DECISIONS = ("accept", "reject", "remask")
PASSES = ("pii", "utility", "audit")
SCHEMES = ("sample", "paper")
CSV_COLUMNS = ("case_id", "decision", "field", "start", "end", "category", "image", "x0", "y0", "x1", "y1", "pass")


class ReviewError(ValueError):
    """A reviewer file that cannot be applied; names the file and the row."""


# --- reading the stage's outputs ---------------------------------------------------------------------

def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# --- sampling ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sampling:
    share: float = 0.10
    seed: int = 0
    always_groups: tuple[str, ...] = SENSITIVE_GROUPS
    groups: Any = None            # department -> group mapping spec (see medrealmm.data.specialty)
    scheme: str = "sample"        # "sample" or "paper" (every case, two passes, then a second annotator's audit)
    audit_share: float = 0.10     # paper scheme: random share of approved cases the second annotator audits

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise ValueError(f"deid.review.scheme must be one of {SCHEMES}, got {self.scheme!r}")
        for name in ("share", "audit_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"deid.review.{name} must be in [0, 1], got {getattr(self, name)}")

    def _groups(self, cases: Sequence[Mapping[str, Any]]) -> dict[str, str | None]:
        assigned = assign((str(c.get("department") or "") for c in cases), load_groups(self.groups))  # 儿童皮肤科: paediatrics
        return {c["id"]: assigned.get(str(c.get("department") or "").strip(), (None, ""))[0] for c in cases}

    def _drawn(self, case_id: str, share: float, salt: str = "") -> bool:
        return int(subset_key(salt + case_id, self.seed)[:8], 16) < int(share * 2**32)

    def select(self, cases: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
        """(case id, why) for every case to review, in input order."""
        group_of = self._groups(cases)
        out = []
        for c in cases:
            group = group_of[c["id"]]
            if group in self.always_groups:
                out.append((c["id"], f"all cases of {group}"))
            elif self.scheme == "paper":
                out.append((c["id"], "every case (paper: two-pass review)"))
            elif self._drawn(c["id"], self.share):
                out.append((c["id"], f"{self.share:.0%} random audit"))
        return out

    def select_audit(self, cases: Sequence[Mapping[str, Any]], approved: set[str]) -> list[tuple[str, str]]:
        """The second annotator's sample (paper scheme): every approved case of the sensitive groups and
        a seeded random share of the other approved cases (drawn independently of the first review)."""
        group_of = self._groups(cases)
        out = []
        for c in cases:
            if c["id"] not in approved:
                continue
            group = group_of[c["id"]]
            if group in self.always_groups:
                out.append((c["id"], f"audit: all approved cases of {group}"))
            elif self._drawn(c["id"], self.audit_share, salt="audit:"):
                out.append((c["id"], f"audit: {self.audit_share:.0%} random sample of approved cases"))
        return out


# --- sheets ------------------------------------------------------------------------------------------

_CSS = """body{font-family:"Noto Sans CJK SC","WenQuanYi Zen Hei","Microsoft YaHei",sans-serif;margin:1.5em;color:#222}
.case{border:1px solid #ccc;border-radius:6px;padding:1em;margin:1.2em 0}.row{display:flex;gap:1.5em;flex-wrap:wrap}
.text{flex:1 1 480px}.imgs{flex:1 1 420px}.imgs img{max-width:420px;border:1px solid #ddd;display:block;margin:.4em 0}
mark{background:#ffe08a}.turn{margin:.4em 0}.role{font-weight:600;color:#555}
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ddd;padding:.2em .5em}"""


def _marked(text: str) -> str:
    """HTML of masked text with the placeholders highlighted."""
    out = html.escape(text)
    for c in CATEGORIES:
        out = out.replace(f"[{c}]", f"<mark>[{c}]</mark>")
    return out


def _messages_html(case: Mapping[str, Any]) -> str:
    """The conversation as the reviewer reads it: turns, or events (an image event names its masked file,
    shown in the image column)."""
    if "turns" not in case and "events" in case:
        rows = []
        for i, e in enumerate(case["events"]):
            if e.get("modality") == "image":
                body = (f"<i>[image {html.escape(str(e.get('origin') or 'unknown'))}: "
                        f"{html.escape(str(e.get('content', '')))}]</i>")
            else:
                body = _marked(str(e.get("content", "")))
            rows.append(f"<div class=\"turn\"><span class=\"role\">{i} {html.escape(str(e['speaker']))}</span>: "
                        f"{body}</div>")
        return "".join(rows)
    return "".join(
        f"<div class=\"turn\"><span class=\"role\">{i} {html.escape(t['role'])}</span>: {_marked(t.get('text', ''))}</div>"
        for i, t in enumerate(case["turns"]))


def _case_html(case: Mapping[str, Any], audit: Mapping[str, Any], why: str, out_dir: Path) -> str:
    turns = _messages_html(case)
    if case.get("y_orig"):
        turns += f"<div class=\"turn\"><span class=\"role\">y_orig</span>: {_marked(case['y_orig'])}</div>"
    imgs = []
    for im in (audit.get("images") or []):
        data = (out_dir / im["path"]).read_bytes()
        mime = "image/png" if im["path"].endswith(".png") else "image/webp" if im["path"].endswith(".webp") else "image/jpeg"
        boxes = ", ".join(f"{b['category']} {b['box']} ({b['detector']})" for b in im.get("boxes", [])) or "none"
        imgs.append(f"<div><b>{html.escape(im['path'])}</b><img src=\"data:{mime};base64,"
                    f"{base64.b64encode(data).decode()}\"><small>masked: {html.escape(boxes)}</small></div>")
    rows = "".join(f"<tr><td>{html.escape(t['field'])}</td><td>{s['category']}</td><td>{s['detector']}</td>"
                   f"<td>{s['start']}–{s['end']}</td></tr>" for t in audit.get("texts", []) for s in t["spans"])
    dropped = ", ".join(audit.get("dropped_fields") or []) or "none"
    return (f"<div class=\"case\" id=\"{html.escape(case['id'])}\"><h3>{html.escape(case['id'])} · "
            f"{html.escape(str(case.get('department', '')))} <small>({html.escape(why)})</small></h3>"
            f"<div class=\"row\"><div class=\"text\">{turns}</div><div class=\"imgs\">{''.join(imgs)}</div></div>"
            f"<details><summary>audit trail</summary><p>dropped fields: {html.escape(dropped)}</p>"
            f"<table><tr><th>field</th><th>category</th><th>detector</th><th>offsets (original text)</th></tr>"
            f"{rows}</table></details></div>")


_INSTRUCTIONS = {
    "sample": ("Check for residual identifiers (names, numbers, hospitals, addresses, dates, faces, codes) and for "
               "clinical content lost to masking."),
    "paper": ("Review every case in two passes. Pass 1, residual PII: names, numbers, hospitals, addresses, dates, "
              "faces and codes left in the masked text and images (remask them, or reject the case). Pass 2, "
              "clinical utility: masking must not have destroyed the clinical signal the reply depends on "
              "(reject the case if it did). Write <code>pii</code> or <code>utility</code> in the "
              "<code>pass</code> column of every reject or remask, and accept every case that passes both."),
    "audit": ("Second-annotator audit of cases the first review approved. Check again for residual identifiers and "
              "for lost clinical signal; write <code>audit</code> in the <code>pass</code> column."),
}


def approved_ids(out_dir: Path) -> set[str]:
    """Cases still in the output that a first review accepted or remasked (not yet audited counts too)."""
    kept = {c["id"] for c in read_jsonl(out_dir / "cases.jsonl")}
    return {a["id"] for a in read_jsonl(out_dir / "audit.jsonl")
            if a["id"] in kept and any(r.get("pass") != "audit" for r in a.get("review") or [])}


def write_sheets(out_dir: Path, sampling: Sampling, *, batch_size: int = 50, audit: bool = False) -> list[Path]:
    """Review sheets for the selected cases (``review/batch-NNN.html``) and a decisions template; with
    ``audit`` the second annotator's sheets (``review/audit-batch-NNN.html``) over approved cases."""
    cases = read_jsonl(out_dir / "cases.jsonl")
    audits = {a["id"]: a for a in read_jsonl(out_dir / "audit.jsonl")}
    if audit:
        approved = approved_ids(out_dir)
        if not approved:
            raise ReviewError(f"{out_dir}: no case has a first-review decision yet; apply the first review with "
                              "deid.review.decisions=<csv> before writing the audit sheets")
        undecided = len(cases) - len(approved)
        if undecided and sampling.scheme == "paper":
            log.warning("review audit: %d case(s) have no first-review decision yet (the paper reviews every case)",
                        undecided)
        picked = sampling.select_audit(cases, approved)
    else:
        picked = sampling.select(cases)
    by_id = {c["id"]: c for c in cases}
    review = out_dir / "review"
    review.mkdir(exist_ok=True)
    prefix, kind = ("audit-batch", "audit") if audit else ("batch", sampling.scheme)
    title = "De-identification audit (second annotator)" if audit else "De-identification review"
    sheets = []
    for b in range(0, len(picked), batch_size):
        batch = picked[b:b + batch_size]
        body = "".join(_case_html(by_id[cid], audits.get(cid, {}), why, out_dir) for cid, why in batch)
        n = b // batch_size + 1
        template = "audit_decisions_template.csv" if audit else "decisions_template.csv"
        page = (f"<!DOCTYPE html><html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><title>{title} "
                f"batch {n}</title><style>{_CSS}</style></head><body><h1>{title}, batch {n}</h1>"
                f"<p>{len(batch)} case(s). {_INSTRUCTIONS[kind]} Record decisions in a CSV "
                f"(<code>{template}</code> next to this file).</p>" + body + "</body></html>")
        path = review / f"{prefix}-{n:03d}.html"
        write_text(path, page)
        sheets.append(path)
    template = io.StringIO(newline="")
    w = csv.writer(template)
    w.writerow(CSV_COLUMNS)
    for cid, _ in picked:
        w.writerow([safe_cell(cid), *[""] * 10, "audit" if audit else ""])
    write_text(review / ("audit_decisions_template.csv" if audit else "decisions_template.csv"), template.getvalue())
    log.info("review%s: %d of %d case(s) selected (%s scheme) into %d sheet(s) in %s", " audit" if audit else "",
             len(picked), len(cases), sampling.scheme, len(sheets), review)
    return sheets


# --- decisions ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Decision:
    row: int
    case_id: str
    decision: str
    field: str = ""
    start: int | None = None
    end: int | None = None
    category: str = ""
    image: str = ""
    box: tuple[int, int, int, int] | None = None
    pass_: str = ""


def read_decisions(path: Path) -> list[Decision]:
    out = []
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in ("case_id", "decision") if c not in (reader.fieldnames or [])]
        if missing:
            raise ReviewError(f"{path}: missing column(s) {missing}; columns: {', '.join(CSV_COLUMNS)}")
        for n, r in enumerate(reader, start=1):
            def get(k: str) -> str:
                return unsafe_cell((r.get(k) or "").strip())

            decision = get("decision").lower()
            if not get("case_id"):
                raise ReviewError(f"{path}: row {n}: empty case_id")
            if decision not in DECISIONS:
                raise ReviewError(f"{path}: row {n}: decision {decision!r} is not one of {DECISIONS}")
            pass_ = get("pass").lower()
            if pass_ and pass_ not in PASSES:
                raise ReviewError(f"{path}: row {n}: pass {pass_!r} is not one of {PASSES} (or empty)")
            d = Decision(n, get("case_id"), decision, pass_=pass_)
            if decision == "remask":
                category = get("category").upper()
                if category not in (*CATEGORIES, "FACE", "QR", "BARCODE", "SIGNATURE"):
                    raise ReviewError(f"{path}: row {n}: category {category!r} is not a known category")
                try:
                    if get("field"):
                        d = Decision(n, d.case_id, decision, field=get("field"), start=int(get("start")),
                                     end=int(get("end")), category=category, pass_=pass_)
                    elif get("image"):
                        box = tuple(int(get(k)) for k in ("x0", "y0", "x1", "y1"))
                        d = Decision(n, d.case_id, decision, image=get("image"), box=box,  # type: ignore[arg-type]
                                     category=category, pass_=pass_)
                    else:
                        raise ReviewError(f"{path}: row {n}: remask needs field+start+end or image+x0,y0,x1,y1")
                except ValueError as e:
                    if isinstance(e, ReviewError):
                        raise
                    raise ReviewError(f"{path}: row {n}: offsets and box corners must be integers") from None
            out.append(d)
    return out


def apply_decisions(out_dir: Path, csv_path: Path) -> dict[str, int]:
    """Apply reviewer decisions to the stage's outputs in place; returns counts per decision."""
    from medrealmm.deid.records import LogRecord

    decisions = read_decisions(csv_path)
    cases = read_jsonl(out_dir / "cases.jsonl")
    audits = {a["id"]: a for a in read_jsonl(out_dir / "audit.jsonl")}
    removed = read_jsonl(out_dir / "removed.jsonl")
    by_id = {c["id"]: c for c in cases}
    counts = {d: 0 for d in DECISIONS}
    rejected: set[str] = set()
    for d in decisions:
        if d.case_id not in by_id:
            raise ReviewError(f"{csv_path}: row {d.row}: case {d.case_id!r} is not in {out_dir / 'cases.jsonl'}")
        audit = audits.setdefault(d.case_id, {"id": d.case_id})
        audit.setdefault("review", []).append({"row": d.row, "decision": d.decision,
                                               **({"category": d.category} if d.category else {}),
                                               **({"pass": d.pass_} if d.pass_ else {})})
        counts[d.decision] += 1
        if d.decision == "reject":
            rejected.add(d.case_id)
        elif d.decision == "remask" and d.field:
            rec = LogRecord(by_id[d.case_id], str(csv_path), d.row)
            if d.field not in {t.path for t in rec.texts()}:      # e.g. an image event's content: a path
                raise ReviewError(f"{csv_path}: row {d.row}: {d.field} is not a text field of case {d.case_id!r}")
            try:
                text = rec.get_text(d.field)
                assert d.start is not None and d.end is not None
                masked = apply_placeholders(text, [Span(d.start, d.end, d.category, "reviewer")])
            except (KeyError, IndexError, ValueError) as e:
                raise ReviewError(f"{csv_path}: row {d.row}: cannot remask {d.field} {d.start}-{d.end} of case "
                                  f"{d.case_id!r}: {e}") from None
            rec.set_text(d.field, masked)
        elif d.decision == "remask":
            _remask_image(out_dir, by_id[d.case_id], d, csv_path)
    kept = [c for c in cases if c["id"] not in rejected]
    # the reason stays fixed (the corpus funnel reads it as its review stage); the pass is in the audit trail
    removed += [{"id": cid, "reason": "rejected by reviewer"} for cid in sorted(rejected)]
    write_rows(out_dir / "cases.jsonl", kept)
    write_rows(out_dir / "audit.jsonl", [a for cid, a in audits.items() if cid not in rejected])
    write_rows(out_dir / "removed.jsonl", removed)
    log.info("review decisions applied from %s: %s", csv_path, counts)
    return counts


def _remask_image(out_dir: Path, case: dict[str, Any], d: Decision, csv_path: Path) -> None:
    from medrealmm.deid.image.base import Box
    from medrealmm.deid.image.mask import load_image, mask_boxes, save_clean
    from medrealmm.deid.records import LogRecord

    rec = LogRecord(case, str(csv_path), d.row)
    slot = rec.find_image(d.image, out_dir)
    if slot is None:
        raise ReviewError(f"{csv_path}: row {d.row}: case {d.case_id!r} has no image {d.image!r}")
    path = slot.source
    loaded = load_image(path)
    image = loaded[0] if isinstance(loaded, tuple) else loaded
    assert d.box is not None
    masked = mask_boxes(image, [Box(*d.box, category=d.category, detector="reviewer")])
    save_clean(masked, path)
    rec.set_image(slot, d.image, hashlib.sha256(path.read_bytes()).hexdigest())
