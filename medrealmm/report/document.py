"""The report as a document: sections of text, tables and figures, rendered to HTML and Markdown.

The content is decided once (:mod:`medrealmm.report.build`); the two renderers only lay it out,
so the HTML page and the Markdown file cannot say different things. The HTML page is
self-contained (styles inline, figures as data URIs), so it can be mailed or archived as one file.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm.atomic import write_bytes
from medrealmm.common.tables import cell, markdown_table


@dataclass
class Text:
    body: str          # paragraphs separated by blank lines; lines starting with "- " are a list


@dataclass
class Table:
    name: str          # unique within the document
    frame: pl.DataFrame
    caption: str = ""
    columns: list[str] | None = None   # shown columns (the files keep all)
    floats: int = 3
    file: str | None = None            # stem of the CSV/Parquet copy with every column (default: name)
    link: Callable[[dict[str, Any]], str | None] | None = None   # a row's cases in the viewer (HTML only)


FOLD_ROWS = 15   # longer tables start folded in the HTML page: the figure above them is the summary


@dataclass
class Figure:
    name: str
    png: bytes
    caption: str = ""
    links: Sequence[tuple[tuple[float, float, float, float], str, str]] = ()   # (left, top, width, height)
    # as fractions of the image, href, title: clickable areas laid over the image in HTML (heatmap cells)


@dataclass
class Details:
    summary: str
    data: Any          # shown as pretty JSON


@dataclass
class Section:
    id: str
    title: str
    blocks: list[Text | Table | Figure | Details] = field(default_factory=list)


@dataclass
class Document:
    title: str
    subtitle: str
    sections: list[Section]


def shown(t: Table) -> pl.DataFrame:
    cols = [c for c in (t.columns or t.frame.columns) if c in t.frame.columns]
    return t.frame.select(cols)


# --- HTML ----------------------------------------------------------------------------------------

_CSS = """
body{font-family:-apple-system,"Segoe UI","Noto Sans CJK SC","Source Han Sans SC","WenQuanYi Zen Hei",
"Microsoft YaHei","PingFang SC",sans-serif;margin:0 auto;max-width:1200px;padding:1.5em;color:#222;line-height:1.45}
h1{margin-bottom:.1em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
.sub{color:#666;margin-top:0}nav{display:flex;flex-wrap:wrap;gap:.3em 1.2em}nav a{white-space:nowrap}
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:.88em}
th,td{border:1px solid #ddd;padding:.25em .55em;text-align:right}th{background:#f4f4f4}
td.s,th.s{text-align:left}caption{caption-side:top;text-align:left;font-weight:600;padding:.3em 0}
tr:nth-child(even) td{background:#fafafa}figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{color:#555;font-size:.9em}.cap{margin:.8em 0 0}details{margin:.4em 0}pre{background:#f7f7f7;padding:.8em;
overflow:auto;max-height:32em;font-size:.8em}.wrap{overflow-x:auto}
.figmap{position:relative;display:inline-block;max-width:100%}.figmap img{display:block}
.figmap a{position:absolute;border:2px solid transparent;box-sizing:border-box}.figmap a:hover,.figmap a:focus{border-color:#d33}
"""


def _figure_links(links: Sequence[tuple[tuple[float, float, float, float], str, str]]) -> str:
    """Links laid over an image by percentages, so they stay on their cells at any display width."""
    return "".join(
        f"<a href=\"{html.escape(href)}\" title=\"{html.escape(title)}\" aria-label=\"{html.escape(title)}\" "
        f"style=\"left:{100 * x:.3f}%;top:{100 * y:.3f}%;width:{100 * w:.3f}%;height:{100 * h:.3f}%\"></a>"
        for (x, y, w, h), href, title in links)


def _paragraphs_html(body: str) -> str:
    out = []
    for para in body.strip().split("\n\n"):
        lines = para.strip().splitlines()
        if lines and all(line.startswith("- ") for line in lines):
            out.append("<ul>" + "".join(f"<li>{_inline(line[2:])}</li>" for line in lines) + "</ul>")
        else:
            out.append(f"<p>{_inline(' '.join(lines))}</p>")
    return "\n".join(out)


def _inline(text: str) -> str:
    """Escape, then turn `code` spans into <code>."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def _table_html(t: Table) -> str:
    df = shown(t)
    numeric = {c for c, dt in df.schema.items() if dt.is_numeric()}
    head = "".join(f"<th class=\"{'' if c in numeric else 's'}\">{html.escape(c)}</th>" for c in df.columns)
    if t.link is not None:
        head += "<th class=\"s\">cases</th>"
    rows = []
    full = t.frame.iter_rows(named=True) if t.link is not None else None
    for r in df.iter_rows():
        cells = "".join(f"<td class=\"{'' if c in numeric else 's'}\">{html.escape(cell(v, t.floats))}</td>"
                        for c, v in zip(df.columns, r, strict=True))
        if full is not None:
            href = t.link(next(full))
            cells += f"<td class=\"s\"><a href=\"{html.escape(href)}\">cases →</a></td>" if href else "<td></td>"
        rows.append(f"<tr>{cells}</tr>")
    note = "" if df.width == t.frame.width else f" <small>(all columns: tables/{t.file or t.name}.csv)</small>"
    table = (f"<div class=\"wrap\"><table id=\"t-{html.escape(t.name)}\"><thead><tr>{head}</tr></thead>"
             f"<tbody>{''.join(rows)}</tbody></table></div>")
    caption = _inline(t.caption or t.name)
    if df.height > FOLD_ROWS:
        return (f"<details><summary><b>{caption}</b> ({df.height} rows){note}</summary>{table}</details>")
    return f"<p class=\"cap\"><b>{caption}</b>{note}</p>{table}"


def render_html(doc: Document) -> str:
    from medrealmm.report.figures import png_data_uri

    nav = "".join(f"<a href=\"#{s.id}\">{html.escape(s.title)}</a>" for s in doc.sections)
    body = []
    for s in doc.sections:
        body.append(f"<section id=\"{s.id}\"><h2>{html.escape(s.title)}</h2>")
        for b in s.blocks:
            if isinstance(b, Text):
                body.append(_paragraphs_html(b.body))
            elif isinstance(b, Table):
                body.append(_table_html(b))
            elif isinstance(b, Figure):
                img = f"<img alt=\"{html.escape(b.caption or b.name)}\" src=\"{png_data_uri(b.png)}\">"
                if b.links:
                    img = f"<div class=\"figmap\">{img}{_figure_links(b.links)}</div>"
                body.append(f"<figure id=\"f-{html.escape(b.name)}\">{img}<figcaption>{_inline(b.caption)}"
                            "</figcaption></figure>")
            elif isinstance(b, Details):
                data = json.dumps(b.data, ensure_ascii=False, indent=2, default=str)
                body.append(f"<details><summary>{html.escape(b.summary)}</summary><pre>{html.escape(data)}</pre>"
                            "</details>")
        body.append("</section>")
    return (f"<!DOCTYPE html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            f"<title>{html.escape(doc.title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{html.escape(doc.title)}</h1><p class=\"sub\">{html.escape(doc.subtitle)}</p><nav>{nav}</nav>"
            + "\n".join(body) + "</body></html>\n")


# --- Markdown ------------------------------------------------------------------------------------

def render_markdown(doc: Document, figure_dir: str = "figures") -> str:
    """Markdown with the figures as files beside it (``figure_dir/<name>.png``)."""
    lines = [f"# {doc.title}", "", doc.subtitle, ""]
    for s in doc.sections:
        lines += [f"## {s.title}", ""]
        for b in s.blocks:
            if isinstance(b, Text):
                lines += [b.body.strip(), ""]
            elif isinstance(b, Table):
                if b.caption:
                    lines += [f"**{b.caption}**", ""]
                df = shown(b)
                lines += [markdown_table(df, floats=b.floats), ""]
            elif isinstance(b, Figure):
                lines += [f"![{b.caption or b.name}]({figure_dir}/{b.name}.png)", ""]
            elif isinstance(b, Details):
                lines += [f"<details><summary>{b.summary}</summary>", "", "```json",
                          json.dumps(b.data, ensure_ascii=False, indent=2, default=str), "```", "", "</details>", ""]
    return "\n".join(lines)


def write_figures(doc: Document, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for s in doc.sections:
        for b in s.blocks:
            if isinstance(b, Figure):
                p = folder / f"{b.name}.png"
                write_bytes(p, b.png)
                paths.append(p)
    return paths
