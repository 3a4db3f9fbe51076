"""One partition of the result store: what a run opens, checks and appends to.

A :class:`Store` is a folder of data files (see :mod:`medrealmm.store.files`). Opening it reads the
index of each file (keys and offsets, a few percent of the data), never the records; checking a
run's keys reads and checks (CRC-32) only the lines of those keys; reading records decodes only
those lines. So a run pays for its own records and for the index of its partition, whatever else
the store holds. Writing appends a new data file per chunk; nothing is ever rewritten in place, so
any number of processes on any number of hosts may write the same partition at once without locks,
and a process killed at any moment leaves either a whole chunk or nothing.

Reading resolves duplicates (two writers that did the same work, or a compaction that was
interrupted): a successful record beats an engine-error record, otherwise the first in file-name
order wins. A record with ``error`` set counts as missing, so a rerun retries it.
"""

from __future__ import annotations

import logging
import os
import time
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrealmm.store import files
from medrealmm.store.files import DATA, INDEX, TMP, DataFile, Damage

log = logging.getLogger("medrealmm.store")

_LEGACY_WARNED: set[Path] = set()
_LOW = 0xFFFFFFFF


def damaged_warning(path: Path, line: int) -> None:
    log.warning("store: %s line %d is damaged (not a whole JSON record); skipped, its work is redone", path, line)


@dataclass
class Index:
    """The keys of one or more folders and where each lives, after duplicates are resolved: ``locs`` maps
    a key to ``file << 32 | record`` (one int per key: a 105 k-record partition takes ~20 MB); ``errors``
    holds the keys whose record is an engine error (they count as missing); ``shadow`` the other copies
    of keys stored more than once, in case the chosen one turns out damaged."""

    files: list[DataFile] = field(default_factory=list)
    locs: dict[str, int] = field(default_factory=dict)
    errors: set[str] = field(default_factory=set)
    shadow: dict[str, list[int]] = field(default_factory=dict)
    damaged: list[Damage] = field(default_factory=list)

    @property
    def records(self) -> int:
        """Records in the files, duplicates included."""
        return sum(f.records for f in self.files)

    def is_error(self, loc: int) -> bool:
        return self.files[loc >> 32].flags[loc & _LOW] == "e"

    def add_file(self, data: DataFile, keys: list[str], *, new: bool = False) -> None:
        """Take in a file's records; a key already held keeps its record unless that is an error and this
        one is not. ``new``: the caller knows every key is new and distinct."""
        fno = len(self.files)
        self.files.append(data)
        base = fno << 32
        locs, errors, flags = self.locs, self.errors, data.flags
        if new or (locs.keys().isdisjoint(keys) and len(set(keys)) == len(keys)):   # the usual case: all new
            locs.update(zip(keys, range(base, base + len(keys)), strict=True))
            if "e" in flags:
                errors.update(k for k, f in zip(keys, flags, strict=True) if f == "e")
            return
        for i, k in enumerate(keys):
            self._add(k, base | i, flags[i] == "e")

    def _add(self, key: str, loc: int, error: bool) -> None:
        old = self.locs.get(key)
        if old is None:
            self.locs[key] = loc
            if error:
                self.errors.add(key)
            return
        if not error and key in self.errors:
            self.locs[key] = loc
            self.errors.discard(key)
            loc = old
        self.shadow.setdefault(key, []).append(loc)

    def drop(self, key: str) -> bool:
        """Forget the record of ``key`` whose line turned out damaged; True when another copy takes its place
        (it must be checked in turn), else its work is redone."""
        self.locs.pop(key, None)
        self.errors.discard(key)
        others = self.shadow.pop(key, [])
        if not others:
            return False
        best = next((loc for loc in others if not self.is_error(loc)), others[0])
        others.remove(best)
        self.locs[key] = best
        if self.is_error(best):
            self.errors.add(key)
        if others:
            self.shadow[key] = others
        return True


def data_files(folder: Path, *, clean: bool = True) -> list[Path]:
    """The data files of ``folder`` in name order (the order duplicates are resolved in); with ``clean``,
    temporary files and index files left by killed writers are removed once stale."""
    found: list[Path] = []
    stems: set[str] = set()
    leftovers: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return []
    for e in entries:
        name = e.name
        if name.endswith(DATA):
            found.append(Path(e.path))
            stems.add(name[: -len(DATA)])
        elif name.endswith(TMP) or name.endswith(INDEX):
            leftovers.append(Path(e.path))
    if clean:
        now = time.time()
        for p in leftovers:
            orphan = p.name.endswith(TMP) or p.name[: -len(INDEX)] not in stems
            if orphan and files.is_stale(p, now):   # a live writer's are fresh; an orphan index renames first
                try:
                    p.unlink()
                except FileNotFoundError:
                    pass
    return sorted(found, key=lambda p: p.name[: -len(DATA)])


def index_folder(index: Index, folder: Path, *, collect: bool = False, clean: bool = True) -> None:
    """Add every record of ``folder`` to ``index``: from index files where they match their data file,
    else by scanning (damaged lines are logged, unless ``collect``: a report names them itself)."""
    for path in data_files(folder, clean=clean):
        size = path.stat().st_size
        got = files.read_index(path.with_suffix(INDEX), size)
        if got is None:
            damaged: list[Damage] = []
            got = files.scan(path, damaged)
            if not collect:
                for d in damaged:
                    damaged_warning(d.path, d.line)
            index.damaged += damaged
        keys, data = got
        index.add_file(data, keys)


def legacy_files(folder: Path) -> bool:
    """Does ``folder`` hold data files of its own (the old layout: one folder per judge, every model)?"""
    try:
        return any(e.name.endswith(DATA) for e in os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return False


class Store:
    """The records of one partition (``<root>/<kind>``), plus, read-only, an old-layout folder
    (``legacy``) whose records it may still hold until ``medrealmm store migrate`` has moved them."""

    def __init__(self, root: str | os.PathLike, kind: str, *, legacy: str | None = None):
        self.root = Path(root)
        self.dir = self.root / kind
        self.dir.mkdir(parents=True, exist_ok=True)
        self.legacy = self.root / legacy if legacy else None
        self._index: Index | None = None

    # --- opening ---------------------------------------------------------------------------------------

    def _folders(self) -> list[Path]:
        folders = [self.dir]
        if self.legacy is not None and legacy_files(self.legacy):
            folders.append(self.legacy)
            if self.legacy not in _LEGACY_WARNED:
                _LEGACY_WARNED.add(self.legacy)
                log.warning("store: %s is in the old layout (one folder for every model this judge graded): each "
                            "run reads all of it; run `medrealmm store migrate` once so that runs read only their "
                            "own part", self.legacy)
        return folders

    def _load(self) -> Index:
        if self._index is None:
            for attempt in range(3):
                index = Index()
                try:
                    for folder in self._folders():
                        index_folder(index, folder)
                except FileNotFoundError:   # a compaction replaced a file while we listed: list again
                    if attempt == 2:
                        raise
                    continue
                self._index = index
                break
        assert self._index is not None
        return self._index

    def refresh(self) -> None:
        """Forget what was read (another process may have compacted the partition)."""
        self._index = None

    # --- reading ---------------------------------------------------------------------------------------

    def _read(self, keys: list[str], *, parse: bool) -> dict[str, Any]:
        """The records of ``keys`` (with ``parse``; else only their lines are checked) that are whole; damaged
        ones are named and dropped from the index (another copy is tried, or the work is redone). A file gone
        since the index was read (another process compacted the partition) makes it read again."""
        for attempt in range(2):
            index = self._load()
            out: dict[str, Any] = {}
            try:
                pending = keys
                while pending:
                    by_file: dict[int, list[str]] = {}
                    get = index.locs.get
                    for k in pending:
                        loc = get(k)
                        if loc is not None:
                            by_file.setdefault(loc >> 32, []).append(k)
                    retry: list[str] = []
                    for fno, ks in by_file.items():
                        self._read_file(index, fno, ks, out, parse, retry)
                    pending = retry
            except FileNotFoundError:
                if attempt == 1:
                    raise
                self.refresh()
                continue
            return out
        raise AssertionError("unreachable")

    def _read_file(self, index: Index, fno: int, keys: list[str], out: dict[str, Any], parse: bool,
                   retry: list[str]) -> None:
        data = index.files[fno]
        locs = index.locs
        rows = [locs[k] & _LOW for k in keys]
        starts, ends = data.starts, data.ends
        spans = [(starts[i], ends[i]) for i in rows]
        whole = False
        if 2 * len(rows) >= data.records and data.size <= files.MAX_WHOLE:   # most of the file: read it whole
            with open(data.path, "rb") as fh:
                buf = fh.read()
            whole = len(buf) == data.size and zlib.crc32(buf) == data.file_crc
            if whole and not parse:
                return
            lines: Iterator[tuple[int, bytes]] = ((j, buf[s:e]) for j, (s, e) in enumerate(spans))
        else:
            lines = files.read_spans(data.path, spans)
        crc32, crcs = zlib.crc32, data.crcs
        for j, line in lines:
            i, k = rows[j], keys[j]
            rec: Any = None
            if whole or crc32(line) == crcs[i]:
                rec = files.decode(line) if parse else True
                if parse and (rec is None or rec.get("key") != k):
                    rec = None
            if rec is None:
                damaged_warning(data.path, data.line(i))
                if index.drop(k):
                    retry.append(k)
            elif parse:
                out[k] = rec

    def missing(self, keys: Iterable[str]) -> list[str]:
        """Keys with no whole record, or only a record of an engine/transport error (worth retrying)."""
        keys = list(keys)
        index = self._load()
        locs, errors = index.locs, index.errors
        self._read([k for k in keys if k in locs and k not in errors], parse=False)   # CRC-checks their lines
        index = self._load()
        locs, errors = index.locs, index.errors
        return [k for k in keys if k not in locs or k in errors]

    def records(self, keys: Iterable[str]) -> list[dict[str, Any]]:
        """The stored records of ``keys`` that exist (error records included), in the order given."""
        keys = list(keys)
        got = self._read(keys, parse=True)
        return [got[k] for k in keys if k in got]

    def get(self, key: str) -> dict[str, Any] | None:
        got = self.records([key])
        return got[0] if got else None

    def __contains__(self, key: str) -> bool:
        return key in self._load().locs

    def __len__(self) -> int:
        return len(self._load().locs)

    # --- writing ---------------------------------------------------------------------------------------

    def put_many(self, records: list[dict[str, Any]]) -> None:
        """Write one chunk atomically; records already present are skipped (an error record is replaced
        by a successful one)."""
        index = self._load()
        locs, held_errors = index.locs, index.errors
        keys = [r["key"] for r in records]
        if not locs.keys().isdisjoint(keys) or len(set(keys)) != len(keys):   # else all new: the usual case
            new: dict[str, dict[str, Any]] = {}
            for r in records:
                k = r["key"]
                if k not in new and (k not in locs or (k in held_errors and not r.get("error"))):
                    new[k] = r
            keys, records = list(new), list(new.values())
        if not records:
            return
        errors = [bool(r.get("error")) for r in records]
        data = files.write_chunk(self.dir, files.new_stem(), keys, list(map(files.encode, records)), errors)
        index.add_file(data, keys, new=True)

    def sync(self) -> None:
        """Wait until every chunk written so far (by this process) is on disk, not only published."""
        files.syncer.wait()
