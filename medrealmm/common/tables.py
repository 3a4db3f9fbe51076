"""Tables as text: one cell format and one Markdown table writer for every page the project writes
(run summaries, reports, rubric and corpus reports, CLI listings), with case text made inert."""

from __future__ import annotations

import polars as pl

__all__ = ["cell", "markdown_table", "md_escape"]


def cell(v: object, floats: int = 3) -> str:
    """One table cell as text, the same in every Markdown and HTML table: NaN and null as a dash."""
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else ""
    if isinstance(v, float):
        return "–" if v != v else f"{v:.{floats}f}"
    return str(v)


def md_escape(text: str) -> str:
    """Case text (departments, ids, model names) as inert Markdown: no HTML, links, code or emphasis."""
    text = " ".join(text.split())   # no line breaks inside a table cell
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for ch in "\\`*[]|":
        text = text.replace(ch, "\\" + ch)
    return text


def markdown_table(df: pl.DataFrame, floats: int = 3) -> str:
    cols = df.columns
    rows = ["| " + " | ".join(md_escape(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    for r in df.iter_rows():
        rows.append("| " + " | ".join(md_escape(cell(v, floats)) for v in r) + " |")
    return "\n".join(rows)
