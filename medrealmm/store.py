"""Content-addressed, append-only store of results, so that any run can be killed and resumed.

Every record carries ``key``: a hash of everything that determines it (case content, model and
its settings, prompt template, judge and its settings). A record with ``error`` set (the engine or server failed, not the model) counts as missing, so a
rerun retries it and its successful record then takes precedence. Records are written in chunks, one file
per chunk, via a temporary file and an atomic rename: a process killed at any moment (kill -9)
leaves either the whole chunk or nothing, so a rerun loses nothing and duplicates nothing. The
store is shared by runs (one model's replies serve every judge) and reading dedupes by key.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from medrealmm.schema import stable_hash

log = logging.getLogger(__name__)

STALE_TMP_SECONDS = 6 * 3600  # a chunk file still unrenamed after this long was left by a killed writer


def _parse_line(line: str) -> dict[str, Any] | None:
    """A stored record, or None for a truncated or garbled line."""
    if not line.strip():
        return None
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) and isinstance(rec.get("key"), str) else None


class Store:
    def __init__(self, root: str | os.PathLike, kind: str):
        self.dir = Path(root) / kind
        self.dir.mkdir(parents=True, exist_ok=True)
        self._records: dict[str, dict[str, Any]] | None = None

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._records is None:
            records: dict[str, dict[str, Any]] = {}
            for f in sorted(self.dir.glob("*.jsonl")):
                with open(f, encoding="utf-8", errors="replace") as fh:
                    for lineno, line in enumerate(fh, start=1):
                        rec = _parse_line(line)
                        if rec is None:   # damaged from outside (our writes are whole or absent)
                            log.warning("store: %s line %d is damaged (not a whole JSON record); skipped, its "
                                        "work is redone", f, lineno)
                            continue
                        old = records.get(rec["key"])
                        if old is None or (old.get("error") and not rec.get("error")):
                            records[rec["key"]] = rec
            now = time.time()
            for tmp in self.dir.glob("*.tmp"):  # never renamed, so never counted; a live writer's is fresh
                try:
                    if now - tmp.stat().st_mtime > STALE_TMP_SECONDS:
                        tmp.unlink()
                except FileNotFoundError:
                    pass
            self._records = records
        return self._records

    def __contains__(self, key: str) -> bool:
        return key in self._load()

    def __len__(self) -> int:
        return len(self._load())

    def get(self, key: str) -> dict[str, Any] | None:
        return self._load().get(key)

    def missing(self, keys: Iterable[str]) -> list[str]:
        """Keys with no record, or only a record of an engine/transport error (worth retrying)."""
        have = self._load()
        return [k for k in keys if k not in have or have[k].get("error")]

    def put_many(self, records: list[dict[str, Any]]) -> None:
        """Write one chunk atomically; records already present are skipped."""
        have = self._load()
        new = [r for r in records if r["key"] not in have or (have[r["key"]].get("error") and not r.get("error"))]
        if not new:
            return
        name = stable_hash(sorted(r["key"] for r in new))[:24]
        final = self.dir / f"{name}.jsonl"
        tmp = self.dir / f"{name}.{uuid.uuid4().hex[:8]}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            for r in new:
                fh.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
        dir_fd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        for r in new:
            have[r["key"]] = r

    def records(self, keys: Iterable[str]) -> list[dict[str, Any]]:
        have = self._load()
        return [have[k] for k in keys if k in have]
