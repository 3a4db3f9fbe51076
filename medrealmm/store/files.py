"""The store's files: JSONL data files, their index sidecars, atomic writes and ranged reads.

A data file ``<stem>.jsonl`` holds one JSON record per line and is never changed once it has its
name: it is written as ``<stem>.<id>.tmp`` and renamed (atomic on POSIX, NFS and Lustre alike), then
flushed to disk in the background (:class:`Syncer`; compacted files are flushed before they are named). Its index ``<stem>.idx`` lists every record's key, byte offset, CRC-32 and whether
it is an engine error, column by column (a reader splits each column in one call), so a reader learns
what a file holds without reading it and then reads only the lines it needs. The index is renamed
into place *before* the data file: an index without its data file is the leftover of a killed writer
and is ignored; a data file without a valid index (a store of the old layout, or an index lost with
the machine) is scanned line by line instead. An index records its data file's size: a data file
edited from outside no longer matches and is scanned, its damaged lines named by file and line.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import queue
import secrets
import sys
import threading
import time
import zlib
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import add, sub
from pathlib import Path
from typing import Any

log = logging.getLogger("medrealmm.store")

DATA = ".jsonl"
INDEX = ".idx"
TMP = ".tmp"
INDEX_MAGIC = "medrealmm-store-index"
INDEX_VERSION = 1
STALE_TMP_SECONDS = 6 * 3600  # a file still unrenamed after this long was left by a killed writer
MAX_SPAN = 8 << 20            # ranged reads coalesce neighbouring lines up to this many bytes
MAX_GAP = 64 << 10            # ... across gaps of at most this many bytes
MAX_WHOLE = 64 << 20          # a file a reader wants most of is read whole (one CRC check) up to this size
NL = b"\n"


@dataclass
class Damage:
    """A line that is not a whole record (or an index that does not match its data file), for reports."""

    path: Path
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path} line {self.line}: {self.reason}" if self.line else f"{self.path}: {self.reason}"


@dataclass
class DataFile:
    """What one data file holds, column by column (a few bytes per record; keys live in the reader's dict).

    Record ``i`` is bytes ``starts[i]:ends[i]`` (its line without the newline) with CRC-32 ``crcs[i]``,
    an engine error when ``flags[i]`` is ``e``, on line ``lines[i]`` (None: line ``i + 1``). ``file_crc``
    is the CRC-32 of the whole file: one check instead of one per record when a reader wants most of it."""

    path: Path
    size: int
    indexed: bool                       # read from its index (else scanned)
    starts: array = field(default_factory=lambda: array("q"))
    ends: array = field(default_factory=lambda: array("q"))
    crcs: array = field(default_factory=lambda: array("I"))
    flags: str = ""
    file_crc: int = 0
    lines: array | None = None
    damaged: int = 0                    # lines that are not a whole record (found when scanned)

    @property
    def records(self) -> int:
        return len(self.flags)

    def span(self, i: int) -> tuple[int, int]:
        return self.starts[i], self.ends[i]

    def crc(self, i: int) -> int:
        return self.crcs[i]

    def line(self, i: int) -> int:
        return self.lines[i] if self.lines is not None else i + 1


# --- encoding ----------------------------------------------------------------------------------------

def _codec() -> tuple[Callable[[Any], bytes], Callable[[bytes], Any]]:
    """msgspec when installed (it comes with vLLM; several times faster than the standard library on
    both sides), else :mod:`json`. Both write UTF-8 keeping the record's own key order, and read each
    other's lines."""
    std_enc = json.JSONEncoder(ensure_ascii=False).encode

    def std_encode(rec: Any) -> bytes:
        return std_enc(rec).encode("utf-8")

    try:
        import msgspec
    except ImportError:  # pragma: no cover - the locked environments have it
        return std_encode, json.loads
    fast_enc = msgspec.json.Encoder().encode
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


def _key_reader() -> Callable[[bytes], tuple[str, bool] | None]:
    """What a scan needs of a line, the key and whether it is an engine error, read without building
    the record (the whole line is still parsed: a line that is not a whole JSON record is damaged)."""
    try:
        import msgspec
    except ImportError:  # pragma: no cover
        msgspec = None  # type: ignore[assignment]

    def slow(line: bytes) -> tuple[str, bool] | None:
        rec = decode(line)
        return None if rec is None else (rec["key"], bool(rec.get("error")))

    if msgspec is None:  # pragma: no cover
        return slow

    class _Head(msgspec.Struct):
        key: str
        error: Any = None

    fast = msgspec.json.Decoder(_Head).decode

    def read(line: bytes) -> tuple[str, bool] | None:
        try:
            head = fast(line)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError):
            return slow(line)   # e.g. NaN, which the standard library writes; or damaged
        return head.key, bool(head.error)

    return read


key_of = _key_reader()


def decode(line: bytes) -> dict[str, Any] | None:
    """A stored record, or None for a truncated or garbled line."""
    if not line.strip():
        return None
    try:
        rec = _decode(line)
    except (ValueError, TypeError):
        return None
    return rec if isinstance(rec, dict) and isinstance(rec.get("key"), str) else None


crc = zlib.crc32
_FLAG = {True: "e", False: "-"}


def _hex(crcs: array) -> str:
    """CRC-32s as hex, little-endian bytes (one C call each way)."""
    if sys.byteorder == "big":
        crcs = array("I", crcs)
        crcs.byteswap()
    return crcs.tobytes().hex()


def _unhex(text: str) -> array:
    crcs = array("I", bytes.fromhex(text))
    if sys.byteorder == "big":
        crcs.byteswap()
    return crcs


_ASCII_SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"   # white space in ASCII besides " "


def indexable(joined: str, n: int) -> bool:
    """Keys are hashes; a key that is empty or holds white space cannot be written in an index (its file
    is then scanned instead). ``joined``: the ``n`` keys joined by single spaces, as the index has them."""
    if not joined or joined.count(" ") != n - 1 or "  " in joined or joined[0] == " " or joined[-1] == " ":
        return False
    if joined.isascii():
        return not any(c in joined for c in _ASCII_SPACE)
    return joined.split() == joined.split(" ")


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

def index_text(keys: list[str], starts: list[int] | array, crcs: array, flags: str, data_bytes: int,
               file_crc: int) -> str | None:
    """An index: a header (size, records and CRC-32 of the data file), then one line per column (keys,
    offsets, CRCs, error flags), then ``end``. Every record's line ends with a newline. None when a key
    cannot be written in it (see :func:`indexable`)."""
    joined = " ".join(keys)
    if not indexable(joined, len(keys)):
        return None
    return (f"{INDEX_MAGIC} {INDEX_VERSION} {data_bytes} {len(keys)} {file_crc:08x}\n" + joined + "\n"
            + " ".join(map(str, starts)) + f"\n{_hex(crcs)}\n{flags}\nend\n")


def read_index(path: Path, data_bytes: int) -> tuple[list[str], DataFile] | None:
    """The keys and columns of the data file ``path.with_suffix('.jsonl')`` of ``data_bytes`` bytes, or
    None when the index is missing, unreadable, incomplete or written for another size of the data file
    (the data file is then scanned)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    parts = text.split("\n")
    try:
        magic, version, size, count, file_crc = parts[0].split(" ")
        n = int(count)
        if (magic != INDEX_MAGIC or int(version) != INDEX_VERSION or int(size) != data_bytes or len(parts) != 7
                or parts[5] != "end" or parts[6] != ""):
            return None
        keys = parts[1].split(" ")
        starts = array("q", map(int, parts[2].split(" ")))
        crcs = _unhex(parts[3])
        whole = int(file_crc, 16)
    except ValueError:
        return None
    flags = parts[4]
    if not (len(keys) == len(starts) == len(flags) == len(crcs) == n > 0) or starts[0] != 0:
        return None
    nexts = starts[1:]
    nexts.append(data_bytes)
    if starts[-1] >= data_bytes or any(b <= a for a, b in zip(starts, nexts, strict=True)):
        return None
    ends = array("q", map(sub, nexts, repeat(1)))           # each line's newline is not part of its record
    return keys, DataFile(path.with_suffix(DATA), data_bytes, True, starts, ends, crcs, flags, whole)


def scan(path: Path, damaged: list[Damage]) -> tuple[list[str], DataFile]:
    """Read a data file line by line: the keys and columns of its whole records; a damaged line is added
    to ``damaged`` and left out."""
    keys: list[str] = []
    starts, ends, lines, crcs = array("q"), array("q"), array("q"), array("I")
    flags: list[str] = []
    off = 0
    n_damaged = 0
    whole = 0
    with open(path, "rb") as fh:
        for lineno, line in enumerate(fh, start=1):
            start, off = off, off + len(line)
            whole = zlib.crc32(line, whole)
            head = key_of(line) if line.strip() else None
            if head is None:
                if line.strip():
                    damaged.append(Damage(path, lineno, "damaged (not a whole JSON record)"))
                    n_damaged += 1
                continue
            body = line[:-1] if line.endswith(NL) else line
            keys.append(head[0])
            starts.append(start)
            ends.append(start + len(body))
            lines.append(lineno)
            crcs.append(crc(body))
            flags.append("e" if head[1] else "-")
    return keys, DataFile(path, off, False, starts, ends, crcs, "".join(flags), whole, lines, n_damaged)


# --- writing -------------------------------------------------------------------------------------------

def _publish(folder: Path, stem: str, tmp_data: Path, keys: list[str], data: DataFile) -> None:
    """Give a finished temporary data file its name, its index first."""
    text = index_text(keys, data.starts, data.crcs, data.flags, data.size, data.file_crc)
    if text is not None:
        tmp_idx = folder / f"{stem}.idx.{secrets.token_hex(4)}{TMP}"
        with open(tmp_idx, "w", encoding="utf-8") as fh:
            fh.write(text)
        # never fsynced: an index lost with the machine no longer matches its data file, which is then scanned
        os.replace(tmp_idx, folder / f"{stem}{INDEX}")
    os.replace(tmp_data, folder / f"{stem}{DATA}")


class Syncer:
    """Makes published chunk files durable in the background: each is fsynced, then its folder.

    A chunk is published (renamed into place) as soon as it is written: from then on it survives the
    writer being killed (kill -9 leaves the page cache to the kernel), and other processes on any host
    read it. Only a crash of the machine itself can lose what the disk had not yet taken; a file then
    no longer matches its index (size, CRC-32) and its records are redone. Flushing here, beside the
    run, keeps the run from waiting on the disk after every chunk; :meth:`wait` (``Store.sync``, at
    the end of a stage, and at exit) returns once everything written so far is on disk."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Path] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._dirs: set[Path] = set()
        self.error: OSError | None = None

    def submit(self, path: Path) -> None:
        self.raise_error()
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="medrealmm-store-sync", daemon=True)
                self._thread.start()
        self._queue.put(path)

    def _run(self) -> None:
        while True:
            path = self._queue.get()
            try:
                try:
                    fd = os.open(path, os.O_RDONLY)
                    try:
                        os.fsync(fd)
                    finally:
                        os.close(fd)
                    self._dirs.add(path.parent)
                except FileNotFoundError:   # compacted away already: its records were synced into the new file
                    pass
                if self._queue.empty():
                    for folder in self._dirs:
                        fsync_dir(folder)
                    self._dirs.clear()
            except OSError as e:            # e.g. EIO or a quota on a network filesystem: said at the next write
                self.error = e
            finally:
                self._queue.task_done()

    def raise_error(self) -> None:
        if self.error is not None:
            e, self.error = self.error, None
            raise e

    def wait(self) -> None:
        """Return once every file submitted so far is on disk (raises what flushing them met)."""
        self._queue.join()
        self.raise_error()


syncer = Syncer()


def _new_syncer_after_fork() -> None:
    global syncer
    syncer = Syncer()


os.register_at_fork(after_in_child=_new_syncer_after_fork)


def _sync_at_exit() -> None:
    try:
        syncer.wait()
    except OSError as e:
        log.warning("store: flushing the last chunks to disk failed: %s", e)


atexit.register(_sync_at_exit)


def write_chunk(folder: Path, stem: str, keys: list[str], lines: list[bytes], errors: list[bool]) -> DataFile:
    """One data file holding ``lines`` (without newlines), whole or not at all; what it holds. It is
    flushed to disk in the background (see :class:`Syncer`)."""
    tmp = folder / f"{stem}.{secrets.token_hex(4)}{TMP}"
    nexts = array("q", accumulate(map(add, map(len, lines), repeat(1)), initial=0))   # every line + newline
    starts = nexts[:-1]
    ends = array("q", map(sub, nexts[1:], repeat(1)))
    blob = NL.join(lines) + NL
    data = DataFile(folder / f"{stem}{DATA}", nexts[-1], True, starts, ends, array("I", map(crc, lines)),
                    "".join(map(_FLAG.__getitem__, errors)), crc(blob))
    try:
        with open(tmp, "wb") as fh:
            fh.write(blob)
        _publish(folder, stem, tmp, keys, data)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    syncer.submit(data.path)
    return data


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
    _keys: list[str] = field(default_factory=list)
    _starts: array = field(default_factory=lambda: array("q"))
    _crcs: array = field(default_factory=lambda: array("I"))
    _flags: list[str] = field(default_factory=list)
    _size: int = 0
    _whole: int = 0

    def add(self, key: str, record: bytes, error: bool) -> None:
        """One record's line (without its newline)."""
        self.records += 1
        if self.dry_run:
            return
        if self._fh is not None and self._size + len(record) + 1 > self.limit:
            self._close()
        if self._fh is None:
            self._tmp = self.folder / f"{segment_stem(self.first)}.{secrets.token_hex(4)}{TMP}"
            self._fh = open(self._tmp, "wb")
            self._keys, self._starts, self._crcs, self._flags = [], array("q"), array("I"), []
            self._size = self._whole = 0
        self._fh.write(record + NL)
        self._keys.append(key)
        self._starts.append(self._size)
        self._crcs.append(crc(record))
        self._whole = crc(NL, crc(record, self._whole))
        self._flags.append("e" if error else "-")
        self._size += len(record) + 1

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
        ends = self._starts[1:]
        ends.append(self._size)
        data = DataFile(self.folder / f"{stem}{DATA}", self._size, True, self._starts,
                        array("q", map(sub, ends, repeat(1))), self._crcs, "".join(self._flags), self._whole)
        _publish(self.folder, stem, tmp, self._keys, data)
        self.written.append(data.path)

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

def read_spans(path: Path, spans: list[tuple[int, int]]) -> Iterator[tuple[int, bytes]]:
    """The bytes of each (start, end) range of ``path``, as (position in ``spans``, bytes); neighbouring
    ranges are read together (one ``pread`` for many lines), far ones apart (a shard reads only its lines)."""
    order = sorted(range(len(spans)), key=spans.__getitem__)
    fd = os.open(path, os.O_RDONLY)
    try:
        i = 0
        while i < len(order):
            j = i
            start, end = spans[order[i]]
            while j + 1 < len(order):
                s, e = spans[order[j + 1]]
                if s - end > MAX_GAP or e - start > MAX_SPAN:
                    break
                end = max(end, e)
                j += 1
            buf = os.pread(fd, end - start, start)
            for k in order[i:j + 1]:
                s, e = spans[k]
                yield k, buf[s - start:e - start]
            i = j + 1
    finally:
        os.close(fd)
