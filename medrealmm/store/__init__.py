"""Content-addressed, append-only store of results, so that any run can be killed and resumed.

Every record carries ``key``: a hash of everything that determines it (case content, model and its
settings, prompt template, judge and its settings). A record with ``error`` set (the engine or server
failed, not the model) counts as missing, so a rerun retries it and its successful record then takes
precedence. Records are written in chunks, one file per chunk, via a temporary file and an atomic
rename: a process killed at any moment (kill -9) leaves either the whole chunk or nothing, so a rerun
loses nothing and duplicates nothing. Chunks are flushed to disk beside the run (``Store.sync`` waits
for it); after a crash of the machine itself, a chunk the disk had not taken no longer matches its
index and its records are redone.

The store is partitioned by what a run reads (see :mod:`medrealmm.store.layout`): replies under
``generations/<model>-<spec>/``, verdicts under ``verdicts/<judge>-<spec>/<model>-<spec>/``, so one
model's replies serve every judge and a run opens only its own partitions, through their indexes.
``medrealmm store stats|verify|compact|gc|migrate`` look after it (:mod:`medrealmm.store.maintain`).
"""

from medrealmm.schema import stable_hash
from medrealmm.store.core import Store
from medrealmm.store.files import STALE_TMP_SECONDS

__all__ = ["STALE_TMP_SECONDS", "Store", "stable_hash"]
