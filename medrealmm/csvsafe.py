"""CSV cells that a spreadsheet will not run: text from cases (ids, departments, model names) that
starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to Excel and LibreOffice
(CSV/formula injection). Such a cell is written with a leading apostrophe, as OWASP recommends;
numbers (``-5``, ``-0.25``) are left as they are. Our CSV readers take the apostrophe off again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from medrealmm.atomic import write_text

__all__ = ["safe_cell", "unsafe_cell", "write_csv"]

_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def safe_cell(value: Any) -> Any:
    """``value`` with a leading apostrophe if a spreadsheet would read it as a formula."""
    if isinstance(value, str) and value.startswith(_TRIGGERS) and not _is_number(value):
        return "'" + value
    return value


def unsafe_cell(text: str) -> str:
    """The cell as it was before :func:`safe_cell` (what a reader of our own templates wants)."""
    if text.startswith("'") and text[1:].startswith(_TRIGGERS) and not _is_number(text[1:]):
        return text[1:]
    return text


def write_csv(df: pl.DataFrame, path: str | Path) -> None:
    """``df`` as CSV with every text cell made safe (other columns as polars writes them)."""
    text_cols = [c for c, t in df.schema.items() if t == pl.String]
    if text_cols:
        df = df.with_columns(pl.col(c).map_elements(safe_cell, return_dtype=pl.String) for c in text_cols)
    write_text(Path(path), df.write_csv())
