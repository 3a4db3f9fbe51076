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
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrealmm.store import files
from medrealmm.store.files import DATA, INDEX, TMP, Damage, Loc

log = logging.getLogger("medrealmm.store")

_LEGACY_WARNED: set[Path] = set()


@dataclass
class DataFile:
    path: Path
    size: int
    indexed: bool     # read from its index (else scanned)
    records: int = 0  # lines holding a record (duplicates included)
    damaged: int = 0  # lines that do not (found when scanned)


@dataclass
class Index:
    """The keys of one or more folders: which file and line holds each, after duplicates are resolved."""

    files: list[DataFile] = field(default_factory=list)
    locs: dict[str, Loc] = field(default_factory=dict)
    records: int = 0            # lines holding a record, duplicates included
    damaged: list[Damage] = field(default_factory=list)

    def add(self, key: str, loc: Loc) -> None:
        self.records += 1
        old = self.locs.get(key)
        if old is None or (old.error and not loc.error):
            self.locs[key] = loc


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
    """Add every record of ``folder`` to ``index``: from index sidecars where they match their data file,
    else by scanning (damaged lines are logged, unless ``collect``: a report names them itself)."""
    for path in data_files(folder, clean=clean):
        size = path.stat().st_size
        fno = len(index.files)
        entries = files.read_index(path.with_suffix(INDEX), size)
        if entries is not None:
            index.files.append(DataFile(path, size, True, len(entries)))
            for line, (k, start, end, c, err) in enumerate(entries, start=1):
                index.add(k, Loc(fno, start, end, c, err, line))
            continue
        damaged: list[Damage] = []
        scanned = files.scan(path, damaged)
        if not collect:
            for d in damaged:
                log.warning("store: %s line %d is damaged (not a whole JSON record); skipped, its work is redone",
                            d.path, d.line)
        index.damaged += damaged
        index.files.append(DataFile(path, size, False, len(scanned), len(damaged)))
        for k, start, end, c, err, line in scanned:
            index.add(k, Loc(fno, start, end, c, err, line))


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
        """The lines (or records, with ``parse``) of ``keys`` that are whole; damaged ones are named, dropped
        from the index and so redone. A file gone since the index was read (compacted) is read again."""
        for attempt in range(2):
            index = self._load()
            out: dict[str, Any] = {}
            by_file: dict[int, list[str]] = {}
            for k in keys:
                loc = index.locs.get(k)
                if loc is not None:
                    by_file.setdefault(loc.file, []).append(k)
            try:
                for fno, ks in by_file.items():
                    self._read_file(index, fno, ks, out, parse)
            except FileNotFoundError:
                if attempt == 1:
                    raise
                self.refresh()
                continue
            return out
        raise AssertionError("unreachable")

    def _read_file(self, index: Index, fno: int, keys: list[str], out: dict[str, Any], parse: bool) -> None:
        df = index.files[fno]
        locs = [index.locs[k] for k in keys]
        for i, data in files.read_spans(df.path, [(loc.start, loc.end) for loc in locs]):
            loc, k = locs[i], keys[i]
            rec = None
            if files.crc(data) == loc.crc:
                rec = files.decode(data) if parse else data
                if parse and (rec is None or rec.get("key") != k):
                    rec = None
            if rec is None:
                log.warning("store: %s line %d is damaged (not a whole JSON record); skipped, its work is redone",
                            df.path, loc.line)
                del index.locs[k]
                continue
            out[k] = rec

    def missing(self, keys: Iterable[str]) -> list[str]:
        """Keys with no whole record, or only a record of an engine/transport error (worth retrying)."""
        keys = list(keys)
        index = self._load()
        present = [k for k in keys if (loc := index.locs.get(k)) is not None and not loc.error]
        self._read(present, parse=False)   # checks every present line (CRC), dropping damaged ones
        locs = index.locs if self._index is index else self._load().locs
        return [k for k in keys if (loc := locs.get(k)) is None or loc.error]

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
        new: dict[str, dict[str, Any]] = {}
        for r in records:
            k = r["key"]
            old = index.locs.get(k)
            if k not in new and (old is None or (old.error and not r.get("error"))):
                new[k] = r
        if not new:
            return
        keys = list(new)
        lines = [files.encode(r) for r in new.values()]
        errors = [bool(r.get("error")) for r in new.values()]
        stem = files.new_stem()
        locs = files.write_chunk(self.dir, stem, keys, lines, errors)
        fno = len(index.files)
        index.files.append(DataFile(self.dir / f"{stem}{DATA}", locs[-1].end, True))
        for k, loc in zip(keys, locs):
            index.add(k, loc._replace(file=fno))
