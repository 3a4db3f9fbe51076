"""The store's files: JSONL data files, their index sidecars, atomic writes and ranged reads.

A data file ``<stem>.jsonl`` holds one JSON record per line and is never changed once it has its
name: it is written as ``<stem>.<id>.tmp``, flushed to disk and renamed (atomic on POSIX, NFS and
Lustre alike). Its index ``<stem>.idx`` lists every record's key, byte offset, CRC-32 and whether
it is an engine error, so a reader learns what a file holds without reading it and then reads only
the lines it needs. The index is renamed into place *before* the data file: an index without its
data file is the leftover of a killed writer and is ignored; a data file without a valid index (a
store of the old layout, or an index damaged by a crash of the machine) is scanned line by line
instead. An index records its data file's size: a data file edited from outside no longer matches
and is scanned, its damaged lines named by file and line.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

log = logging.getLogger("medrealmm.store")

DATA = ".jsonl"
INDEX = ".idx"
TMP = ".tmp"
INDEX_MAGIC = "medrealmm-store-index"
INDEX_VERSION = 1
STALE_TMP_SECONDS = 6 * 3600  # a file still unrenamed after this long was left by a killed writer
MAX_SPAN = 8 << 20            # ranged reads coalesce neighbouring lines up to this many bytes
MAX_GAP = 64 << 10            # ... across gaps of at most this many bytes


class Loc(NamedTuple):
    """Where one record lies: file number (in its index), byte range, CRC-32 (hex), error flag, line."""

    file: int
    start: int
    end: int
    crc: str
    error: bool
    line: int


@dataclass
class Damage:
    """A line that is not a whole record (or a file whose index does not match it), for the reports."""

    path: Path
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path} line {self.line}: {self.reason}" if self.line else f"{self.path}: {self.reason}"


# --- encoding ----------------------------------------------------------------------------------------

def _codec() -> tuple[Callable[[Any], bytes], Callable[[bytes], Any]]:
    """msgspec when installed (it comes with vLLM; ~10x faster than the standard library on both
    sides), else :mod:`json`. Both write UTF-8 with sorted keys and read each other's lines."""
    std_enc = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode

    def std_encode(rec: Any) -> bytes:
        return std_enc(rec).encode("utf-8")

    try:
        import msgspec
    except ImportError:  # pragma: no cover - the locked environments have it
        return std_encode, json.loads
    fast_enc = msgspec.json.Encoder(order="sorted").encode
    fast_dec = msgspec.json.Decoder().decode

    def encode(rec: Any) -> bytes:
        try:
            return fast_enc(rec)
        except (TypeError, OverflowError, ValueError):   # a value msgspec will not write: the stdlib's rendering
            return std_encode(rec)

    def decode(line: bytes) -> Any:
        try:
            return fast_dec(line)
        except (msgspec.DecodeError, ValueError):         # e.g. NaN, which the stdlib writes and msgspec refuses
            return json.loads(line)

    return encode, decode


encode, _decode = _codec()


def decode(line: bytes) -> dict[str, Any] | None:
    """A stored record, or None for a truncated or garbled line."""
    if not line.strip():
        return None
    try:
        rec = _decode(line)
    except (ValueError, TypeError):
        return None
    return rec if isinstance(rec, dict) and isinstance(rec.get("key"), str) else None


def crc(data: bytes) -> str:
    return f"{zlib.crc32(data):08x}"


def indexable(key: str) -> bool:
    """Keys are hashes; a key with a tab or newline cannot be written in an index (its file is scanned)."""
    return "\t" not in key and "\n" not in key and "\r" not in key


# --- names ---------------------------------------------------------------------------------------------

def new_stem(prefix: str = "c") -> str:
    """A data file name no other writer on any host will choose (time-ordered, then random)."""
    return f"{prefix}-{time.time_ns() // 1000:014x}-{secrets.token_hex(4)}"


def segment_stem(first: str) -> str:
    """The name of a compacted file that replaces files starting with ``first`` (in name order): it sorts
    right after ``first``'s base, so it takes that file's place when duplicates are resolved."""
    return f"{first.split('~', 1)[0]}~{new_stem('s')}"


def is_stale(path: Path, now: float | None = None) -> bool:
    try:
        return (now or time.time()) - path.stat().st_mtime > STALE_TMP_SECONDS
    except FileNotFoundError:
        return False


def fsync_dir(path: Path) -> None:
    """Make renames in ``path`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- index files ---------------------------------------------------------------------------------------

def index_text(entries: list[tuple[str, int, str, bool]], data_bytes: int) -> str:
    """``entries``: (key, offset, crc, error) in line order."""
    head = f"{INDEX_MAGIC} {INDEX_VERSION} {data_bytes} {len(entries)}\n"
    body = "".join(f"{k}\t{off}\t{c}\t{'e' if err else '-'}\n" for k, off, c, err in entries)
    return head + body + "end\n"


def read_index(path: Path, data_bytes: int) -> list[tuple[str, int, int, str, bool]] | None:
    """The (key, start, end, crc, error) of every line of the data file, or None when the index is
    missing, unreadable, incomplete or written for another size of the data file (then it is scanned)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return None
    lines = text.split("\n")
    try:
        magic, version, size, count = lines[0].split(" ")
        if magic != INDEX_MAGIC or int(version) != INDEX_VERSION or int(size) != data_bytes:
            return None
        n = int(count)
        if len(lines) != n + 3 or lines[n + 1] != "end" or lines[n + 2] != "":
            return None
        out: list[tuple[str, int, int, str, bool]] = []
        prev: list[Any] | None = None
        for row in lines[1:n + 1]:
            k, off, c, flag = row.split("\t")
            start = int(off)
            if prev is not None:
                prev[2] = start
                out.append(tuple(prev))   # type: ignore[arg-type]
            prev = [k, start, 0, c, flag == "e"]
        if prev is not None:
            prev[2] = data_bytes
            out.append(tuple(prev))       # type: ignore[arg-type]
    except ValueError:
        return None
    if any(e[2] <= e[1] for e in out):
        return None
    return out


def scan(path: Path, damaged: list[Damage]) -> list[tuple[str, int, int, str, bool, int]]:
    """Read a data file line by line: (key, start, end, crc, error, line) of each whole record; a
    damaged line is added to ``damaged`` and left out."""
    out = []
    off = 0
    with open(path, "rb") as fh:
        for lineno, line in enumerate(fh, start=1):
            start, off = off, off + len(line)
            rec = decode(line)
            if rec is None:
                if line.strip():
                    damaged.append(Damage(path, lineno, "damaged (not a whole JSON record)"))
                continue
            out.append((rec["key"], start, off, crc(line), bool(rec.get("error")), lineno))
    return out


# --- writing -------------------------------------------------------------------------------------------

def _write_fsynced(path: Path, data: bytes | Iterable[bytes]) -> None:
    with open(path, "wb") as fh:
        if isinstance(data, bytes):
            fh.write(data)
        else:
            for part in data:
                fh.write(part)
        fh.flush()
        os.fsync(fh.fileno())


def publish(folder: Path, stem: str, tmp_data: Path, entries: list[tuple[str, int, str, bool]],
            data_bytes: int) -> None:
    """Give a finished (fsynced) temporary data file its name, its index first."""
    token = tmp_data.name.rsplit(".", 2)[-2]
    if all(indexable(e[0]) for e in entries):
        tmp_idx = folder / f"{stem}.idx.{token}{TMP}"
        with open(tmp_idx, "w", encoding="utf-8") as fh:
            fh.write(index_text(entries, data_bytes))
        # no fsync: an index lost with the machine no longer matches its data file and that file is scanned
        os.replace(tmp_idx, folder / f"{stem}{INDEX}")
    os.replace(tmp_data, folder / f"{stem}{DATA}")


def write_chunk(folder: Path, stem: str, keys: list[str], lines: list[bytes], errors: list[bool]) -> list[Loc]:
    """One data file holding ``lines`` (no newlines in them), whole or not at all; their locations."""
    token = secrets.token_hex(4)
    tmp = folder / f"{stem}.{token}{TMP}"
    entries: list[tuple[str, int, str, bool]] = []
    locs: list[Loc] = []
    off = 0
    parts: list[bytes] = []
    for i, (k, line, err) in enumerate(zip(keys, lines, errors)):
        data = line + b"\n"
        c = crc(data)
        entries.append((k, off, c, err))
        locs.append(Loc(-1, off, off + len(data), c, err, i + 1))
        parts.append(data)
        off += len(data)
    try:
        _write_fsynced(tmp, parts)
        publish(folder, stem, tmp, entries, off)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(folder)
    return locs


@dataclass
class SegmentWriter:
    """Streams records into compacted files of up to ``limit`` bytes each, every one published whole."""

    folder: Path
    first: str
    limit: int
    dry_run: bool = False
    written: list[Path] = field(default_factory=list)
    records: int = 0
    _fh: Any = None
    _tmp: Path | None = None
    _entries: list[tuple[str, int, str, bool]] = field(default_factory=list)
    _size: int = 0

    def add(self, key: str, line: bytes, error: bool) -> None:
        if not line.endswith(b"\n"):
            line += b"\n"
        self.records += 1
        if self.dry_run:
            return
        if self._fh is None:
            self._tmp = self.folder / f"{segment_stem(self.first)}.{secrets.token_hex(4)}{TMP}"
            self._fh = open(self._tmp, "wb")
            self._entries, self._size = [], 0
        self._fh.write(line)
        self._entries.append((key, self._size, crc(line), error))
        self._size += len(line)
        if self._size >= self.limit:
            self._close()

    def _close(self) -> None:
        if self._fh is None:
            return
        fh, tmp = self._fh, self._tmp
        self._fh = None
        assert tmp is not None
        fh.flush()
        os.fsync(fh.fileno())
        fh.close()
        stem = tmp.name.rsplit(".", 2)[0]
        publish(self.folder, stem, tmp, self._entries, self._size)
        self.written.append(self.folder / f"{stem}{DATA}")

    def finish(self) -> list[Path]:
        """Publish the last file and make the renames durable; the files written."""
        self._close()
        if self.written:
            fsync_dir(self.folder)
        return self.written

    def abort(self) -> None:
        """Drop the unfinished file (the published ones stay: they hold nothing that is not elsewhere)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
            if self._tmp is not None:
                self._tmp.unlink(missing_ok=True)


# --- reading -------------------------------------------------------------------------------------------

def read_spans(path: Path, locs: list[tuple[int, int]]) -> Iterator[tuple[int, bytes]]:
    """The bytes of each (start, end) range of ``path``, as (position in ``locs``, bytes); neighbouring
    ranges are read together (one ``pread`` for many lines), far ones apart (a shard reads only its lines)."""
    order = sorted(range(len(locs)), key=lambda i: locs[i][0])
    fd = os.open(path, os.O_RDONLY)
    try:
        i = 0
        while i < len(order):
            j = i
            start, end = locs[order[i]]
            while j + 1 < len(order):
                s, e = locs[order[j + 1]]
                if s - end > MAX_GAP or e - start > MAX_SPAN:
                    break
                end = max(end, e)
                j += 1
            buf = os.pread(fd, end - start, start)
            for k in order[i:j + 1]:
                s, e = locs[k]
                yield k, buf[s - start:e - start]
            i = j + 1
    finally:
        os.close(fd)
