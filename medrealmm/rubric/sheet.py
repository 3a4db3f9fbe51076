"""Physician review sheets for one rubric round: what the physicians read, and the CSV they fill in.

Per batch of cases, one self-contained HTML page (images embedded as data URIs, so a sheet can be
mailed or opened offline) shows each case's dialogue, the physician's original reply ``y_orig`` —
labelled as the generation *seed*, not a reference answer, so reviewers do not grade the rubric
against it — and the current rubric with any lint findings next to the criterion they concern.

The file of record is the CSV template written beside each page (UTF-8 with BOM, so Excel opens the
Chinese correctly): one prefilled ``keep`` row per criterion and one ``comment`` row per case.
A textarea on the page is only a scratch space; nothing reads it back.
"""

from __future__ import annotations

import csv
import html
import io
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from medrealmm.atomic import write_text
from medrealmm.mccp import html_turn, image_path
from medrealmm.rubric.model import RubricRecord, RubricVersion
from medrealmm.schema import Criterion
from medrealmm.csvsafe import safe_cell

log = logging.getLogger(__name__)

FEEDBACK_COLUMNS: tuple[str, ...] = ("case_id", "criterion_id", "action", "text", "weight", "comment")
ACTIONS: tuple[str, ...] = ("keep", "delete", "edit", "reweight", "split", "add", "comment", "accept")
SPLIT_SEP = "||"
SHEET_NAME = "review_{round}_{batch:03d}.html"
CSV_NAME = "feedback_{round}_{batch:03d}.csv"
INDEX_NAME = "index.html"

#: What each action means, shown at the top of every sheet (and the index).
ACTION_HELP: tuple[tuple[str, str], ...] = (
    ("keep", "保留该条标准，不作修改（默认）。 Keep the criterion as it is (prefilled)."),
    ("delete", "删除该条标准。 Delete the criterion."),
    ("edit", "改写：在 text 列填写新的标准内容；weight 可选（留空则保持原权重）。 "
             "New wording in text; weight optional (empty keeps it)."),
    ("reweight", "只改权重：在 weight 列填写新的非零整数（正数奖励，负数扣分）。 "
                 "New non-zero integer weight only."),
    ("split", "拆分为多条：text 用 “A || B” 分隔，weight 对应填写如 “5||3”。 "
              "Split into several: text `A || B`, weight `5||3`."),
    ("add", "新增一条标准：criterion_id 留空，填写 text 和 weight。 "
            "New criterion: empty criterion_id, text and weight."),
    ("comment", "仅留言（每个病例一行，criterion_id 留空），写在 comment 列。 "
                "A remark only, in comment (case-level row: empty criterion_id)."),
    ("accept", "签字通过：本病例的评分标准无需修改（病例行 criterion_id 留空，把 comment 改为 accept）。"
               "未填写的表格视为未审。 Sign the rubric off as it is (case-level row); an untouched sheet "
               "counts as not reviewed."),
)


class Finding(Protocol):
    """A lint finding as the sheet needs it (criterion_id None: it concerns the whole rubric)."""

    case_id: str
    criterion_id: str | None
    rule: str
    severity: str
    message: str


_CSS = """body{font-family:"Noto Sans CJK SC","WenQuanYi Zen Hei","Microsoft YaHei",sans-serif;
margin:1.5em;color:#222}.case{border:1px solid #ccc;border-radius:6px;padding:1em;margin:1.2em 0}
.patient,.doctor{margin:.3em 0;padding:.3em}
.doctor{background:#eef}.yorig{background:#f4f4f4;border-left:4px solid #aaa;padding:.4em;margin:.6em 0}
.seed{color:#a33;font-weight:600}table{border-collapse:collapse;font-size:.9em;margin:.5em 0}
td,th{border:1px solid #ddd;padding:.25em .5em;vertical-align:top}.pos{color:#2d7a3e}.neg{color:#b03a2e}
.finding{font-size:.85em;color:#8a5a00}.finding.error{color:#b03a2e}textarea{width:100%;min-height:4em}
.help td:first-child{font-family:monospace;white-space:nowrap}"""


def _esc(value: object) -> str:
    return html.escape("" if value is None else str(value))


def _image_reader(root: Path) -> Callable[[str], bytes]:
    """Bytes of a dataset-relative image; a path escaping ``root`` raises (the sheet shows it missing)."""
    def read(path: str) -> bytes:
        return (root / image_path(path)).read_bytes()
    return read


def _version_for(record: RubricRecord, round: int | None) -> RubricVersion | None:
    if round is None:
        return record.current
    return next((v for v in record.versions if v.round == round), None)


def _findings_by(findings: Iterable[Finding] | None) -> dict[str, dict[str | None, list[Finding]]]:
    out: dict[str, dict[str | None, list[Finding]]] = defaultdict(lambda: defaultdict(list))
    for f in findings or ():
        out[str(f.case_id)][f.criterion_id].append(f)
    return out


def _findings_html(items: Sequence[Finding]) -> str:
    return "<br>".join(f'<span class="finding {_esc(f.severity)}">[{_esc(f.severity)}] {_esc(f.rule)}: '
                       f"{_esc(f.message)}</span>" for f in items)


def _rubric_table(criteria: Sequence[Criterion], by_crit: dict[str | None, list[Finding]]) -> str:
    rows = []
    for c in criteria:
        sign = "pos" if c.weight > 0 else "neg"
        rows.append(f'<tr data-criterion="{_esc(c.id)}"><td>{_esc(c.id)}</td>'
                    f'<td class="{sign}">{c.weight:+d}</td>'
                    f"<td>{_esc(c.text)}</td><td>{_esc(', '.join(c.tags))}</td>"
                    f"<td>{_findings_html(by_crit.get(c.id, []))}</td></tr>")
    return ("<table><tr><th>criterion_id</th><th>weight</th><th>标准 criterion</th><th>tags</th>"
            "<th>检查提示 lint</th></tr>" + "".join(rows) + "</table>")


def _case_html(record: RubricRecord, version: RubricVersion, by_crit: dict[str | None, list[Finding]],
               image_root: Path) -> str:
    inst = record.instance
    read = _image_reader(image_root)
    turns = "\n".join(html_turn(t, read) for t in inst.turns)
    patient = "，".join(p for p in (
        {"male": "男", "female": "女"}.get(inst.patient.sex or "", ""),
        f"{inst.patient.age}岁" if inst.patient.age is not None else "") if p) or "—"
    ids = {c.id for c in version.criteria}
    whole = list(by_crit.get(None, []))
    whole += [f for cid, fs in by_crit.items() if cid is not None and cid not in ids for f in fs]
    n_pos = sum(c.weight > 0 for c in version.criteria)
    return (f'<section class="case" id="{_esc(record.id)}">'
            f"<h2>{_esc(record.id)} · {_esc(inst.department)}</h2>"
            f"<p>意图 intent：{_esc(inst.intent or '—')}　阶段 stage：{_esc(inst.stage or '—')}　"
            f"患者 patient：{_esc(patient)}</p>"
            f"<h3>对话 dialogue</h3>{turns}"
            f'<div class="yorig"><span class="seed">医生原始回复 y_orig（仅为生成种子，不是参考答案 — seed only, '
            f"not a reference）</span><br>{_esc(inst.y_orig).replace(chr(10), '<br>')}</div>"
            f"<h3>评分标准 rubric R({version.round}) — {len(version.criteria)} 条 "
            f"({n_pos} +, {len(version.criteria) - n_pos} −)</h3>"
            + (f"<p>{_findings_html(whole)}</p>" if whole else "")
            + _rubric_table(version.criteria, by_crit)
            + '<p>意见 comments（请写入 CSV；此处仅作草稿 — scratch only, the CSV is the file of record）</p>'
              f'<textarea name="comment-{_esc(record.id)}"></textarea></section>')


def _help_html() -> str:
    rows = "".join(f"<tr><td>{a}</td><td>{_esc(h)}</td></tr>" for a, h in ACTION_HELP)
    return (f"<p>反馈请填写同名 CSV（列：<code>{','.join(FEEDBACK_COLUMNS)}</code>）。每条标准已预填 "
            "<code>keep</code>；每个病例另有一行 <code>comment</code>（无需修改时把它改为 <code>accept</code>）。"
            "可增加行（如多条 add）。未填写的表格视为未审。</p>"
            f'<table class="help"><tr><th>action</th><th>含义 meaning</th></tr>{rows}</table>')


def _write_csv(path: Path, cases: Sequence[tuple[RubricRecord, RubricVersion]]) -> None:
    """The feedback table, in UTF-8 with a byte-order mark so that spreadsheet programs read the Chinese."""
    f = io.StringIO()
    w = csv.writer(f)
    w.writerow(FEEDBACK_COLUMNS)
    for record, version in cases:
        for c in version.criteria:
            w.writerow([safe_cell(record.id), safe_cell(c.id), "keep", "", "", ""])
        w.writerow([safe_cell(record.id), "", "comment", "", "", ""])
    write_text(path, "\ufeff" + f.getvalue())


def write_review_sheets(records: Iterable[RubricRecord], out_dir: str | Path, *, image_root: str | Path,
                        batch_size: int = 50, findings: Iterable[Any] | None = None,
                        round: int | None = None, start: int = 1) -> list[Path]:
    """Write ``review_<round>_<batch>.html`` with its ``feedback_<round>_<batch>.csv`` template per
    batch, and ``index.html`` linking them; returns the HTML sheets in batch order.

    ``round`` picks R(round) of every record (records without it are skipped); None takes each
    record's current version and labels the files with the highest round shown. Failed records
    and records without a version are skipped and counted in the log, never shown empty.
    Batches are numbered from ``start``, so sheets added later to a round never replace a file a
    physician may be filling; ``index.html`` lists every sheet of the folder.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    out, root = Path(out_dir), Path(image_root)
    out.mkdir(parents=True, exist_ok=True)
    by_case = _findings_by(findings)
    shown: list[tuple[RubricRecord, RubricVersion]] = []
    skipped = {"failed": 0, "no_version": 0}
    for r in records:
        version = _version_for(r, round)
        if r.status == "failed":
            skipped["failed"] += 1
        elif version is None:
            skipped["no_version"] += 1
        else:
            shown.append((r, version))
    label = round if round is not None else max((v.round for _, v in shown), default=0)
    sheets: list[Path] = []
    links = []
    for b in range(0, len(shown), batch_size):
        batch = shown[b:b + batch_size]
        n = b // batch_size + start
        sheet = out / SHEET_NAME.format(round=label, batch=n)
        table = out / CSV_NAME.format(round=label, batch=n)
        body = "\n".join(_case_html(r, v, by_case.get(r.id, {}), root) for r, v in batch)
        page = (f'<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8">'
                f"<title>Rubric review R({label}) "
                f"batch {n}</title><style>{_CSS}</style></head><body><h1>评分标准审核 Rubric review — "
                f"round {label}, batch {n}</h1><p>{len(batch)} 个病例 case(s)。反馈文件 feedback file："
                f"<code>{table.name}</code></p>{_help_html()}{body}</body></html>")
        write_text(sheet, page)
        _write_csv(table, batch)
        sheets.append(sheet)
    for sheet in sorted(out.glob(SHEET_NAME.format(round=label, batch=0).replace("000", "*"))):
        table = out / sheet.name.replace("review_", "feedback_").replace(".html", ".csv")
        links.append(f'<li><a href="{sheet.name}">{sheet.name}</a>, <a href="{table.name}">{table.name}</a></li>')
    index = (f'<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><title>Rubric review R({label})'
             f"</title><style>{_CSS}</style></head><body><h1>评分标准审核 Rubric review — round {label}</h1>"
             f"<p>this run: {len(shown)} case(s) in {len(sheets)} batch(es); skipped: {skipped['failed']} failed, "
             f"{skipped['no_version']} without a rubric{'' if round is None else f' for round {round}'}.</p>"
             f"<ul>{''.join(links)}</ul>{_help_html()}</body></html>")
    write_text(out / INDEX_NAME, index)
    log.info("rubric review R(%s): %d case(s) in %d sheet(s) in %s; skipped %d failed, %d without a rubric",
             label, len(shown), len(sheets), out, skipped["failed"], skipped["no_version"])
    return sheets
