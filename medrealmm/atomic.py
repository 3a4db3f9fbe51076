"""Files written whole or not at all: to ``<name>.tmp`` first, then renamed over the target.

Every stage's outputs are read by the next stage (and by a resumed run of the same one); a process
killed mid-write must leave the previous file, never half of a new one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


def _tmp(path: Path) -> Path:
    return path.with_name(path.name + ".tmp")


def write_text(path: Path, text: str) -> None:
    """``text`` as the whole file (newlines kept as given)."""
    tmp = _tmp(path)
    with tmp.open("w", encoding="utf-8", newline="") as f:
        f.write(text)
    tmp.replace(path)


def write_bytes(path: Path, data: bytes) -> None:
    """``data`` as the whole file."""
    tmp = _tmp(path)
    tmp.write_bytes(data)
    tmp.replace(path)


def write_parquet(path: Path, frame: Any, **options: Any) -> None:
    """A polars DataFrame as one Parquet file (``options`` go to ``DataFrame.write_parquet``)."""
    tmp = _tmp(path)
    frame.write_parquet(tmp, **options)
    tmp.replace(path)


def write_lines(path: Path, lines: Iterable[str]) -> int:
    """One line per item (a newline added to each), streamed; returns how many."""
    tmp = _tmp(path)
    n = 0
    with tmp.open("w", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
            n += 1
    tmp.replace(path)
    return n


def write_rows(path: Path, rows: Iterable[Mapping[str, Any]]) -> int:
    """JSONL: one JSON object per line (UTF-8, not ASCII-escaped); returns how many."""
    return write_lines(path, (json.dumps(r, ensure_ascii=False) for r in rows))


def write_json(path: Path, obj: Any, *, indent: int | None = 2) -> None:
    """One JSON document (UTF-8, not ASCII-escaped, a trailing newline); values it cannot encode as text."""
    write_text(path, json.dumps(obj, ensure_ascii=False, indent=indent, default=str) + "\n")
