"""The in-memory dataset, the load options every format shares, and the one validation path.

Readers (JSONL, Parquet, HealthBench, the HF release) only turn their files into a stream of raw case
dicts (:class:`RawRecord`); everything else — subset selection, schema validation, image checks,
duplicate ids, the strict/lenient policy — happens once here (:func:`build_dataset`), so every format
fails the same way with the same messages (case, field, file).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm.common.cores import auto_workers
from medrealmm.data.images import (
    DEFAULT_IMAGE_FORMATS,
    DEFAULT_MAX_IMAGE_PIXELS,
    resolve_image_path,
    validate_images,
)
from medrealmm.schema import DEFAULT_MAX_ABS_WEIGHT, Case, CaseError, ImageRef, rubric_hash

log = logging.getLogger(__name__)

CASE_FRAME_SCHEMA = {
    "case_id": pl.String,
    "department": pl.String,
    "intent": pl.String,
    "stage": pl.String,
    "n_images": pl.Int64,
    "n_turns": pl.Int64,
    "n_criteria": pl.Int64,
    "age": pl.Int64,
    "sex": pl.String,
}


@dataclass
class Dataset:
    """Validated cases plus the cases that were rejected (``errors``), and where they came from."""

    name: str
    root: Path | None
    cases: list[Case]
    errors: list[CaseError] = field(default_factory=list)
    source: str = ""

    def __len__(self) -> int:
        return len(self.cases)

    def __iter__(self) -> Iterator[Case]:
        return iter(self.cases)

    def get(self, case_id: str) -> Case:
        """The case with this id (KeyError if absent)."""
        index = self.__dict__.get("_index")
        if index is None or len(index) != len(self.cases):
            index = {c.id: c for c in self.cases}
            self.__dict__["_index"] = index
        return index[case_id]

    def image_bytes(self, ref: ImageRef) -> bytes:
        """The image's bytes: embedded data, or the file at ``root/path`` (never outside ``root``)."""
        if ref.data is not None:
            return ref.data
        if self.root is None:
            raise FileNotFoundError(
                f"image {ref.path!r} is not embedded and dataset {self.name!r} has no root"
            )
        return resolve_image_path(self.root, ref.path).read_bytes()

    def case_frame(self) -> pl.DataFrame:
        """One row per case with the columns that scoring breakdowns join on."""
        rows = [
            {
                "case_id": c.id,
                "department": c.department,
                "intent": c.intent,
                "stage": c.stage,
                "n_images": c.n_images,
                "n_turns": c.n_turns,
                "n_criteria": len(c.rubric),
                "age": c.patient.age,
                "sex": c.patient.sex,
            }
            for c in self.cases
        ]
        return pl.DataFrame(rows, schema=CASE_FRAME_SCHEMA, orient="row")


@dataclass(frozen=True)
class LoadOptions:
    """The ``data`` config keys that every format honours."""

    strict: bool = False
    max_image_pixels: int = DEFAULT_MAX_IMAGE_PIXELS
    allowed_image_formats: tuple[str, ...] = DEFAULT_IMAGE_FORMATS
    limit: int | None = None
    case_ids: tuple[str, ...] | None = None
    subset: int | None = None  # keep N valid cases chosen by a seeded hash of the case id
    subset_seed: int = 0
    check_images: bool = True
    workers: int = 0  # 0: one per usable core (the CPU set), at most 8
    require_approved_rubric: bool = True  # a case built by `medrealmm rubric` must be approved to be used
    max_abs_weight: int | None = DEFAULT_MAX_ABS_WEIGHT  # criterion weights must lie in [-N, N]

    @classmethod
    def from_mapping(cls, cfg: Mapping[str, Any] | None = None, **overrides: Any) -> LoadOptions:
        """Pick the known keys out of a config mapping (other keys belong to the format)."""
        merged = {**dict(cfg or {}), **overrides}
        names = {f.name for f in fields(cls)}
        kw = {k: v for k, v in merged.items() if k in names and (v is not None or k == "max_abs_weight")}
        bound = kw.get("max_abs_weight")
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int) or bound < 1):
            raise ValueError(f"data.max_abs_weight must be a positive integer or null, got {bound!r}")
        if "allowed_image_formats" in kw:
            kw["allowed_image_formats"] = tuple(str(f).upper() for f in kw["allowed_image_formats"])
        if "case_ids" in kw:
            ids = kw["case_ids"]
            kw["case_ids"] = (str(ids),) if isinstance(ids, (str, int)) else tuple(str(i) for i in ids)
        if "limit" in kw:
            kw["limit"] = int(kw["limit"])
            if kw["limit"] < 0:
                raise ValueError(f"data.limit must be >= 0 or null, got {kw['limit']}")
        if "subset" in kw:
            kw["subset"] = int(kw["subset"])
            if kw["subset"] < 1:
                raise ValueError(f"data.subset must be >= 1 or null, got {kw['subset']}")
        if "subset_seed" in kw:
            kw["subset_seed"] = int(kw["subset_seed"])
        if "max_image_pixels" in kw:
            kw["max_image_pixels"] = int(kw["max_image_pixels"])
        return cls(**kw)

    @property
    def n_workers(self) -> int:
        return auto_workers(self.workers)


@dataclass
class RawRecord:
    """One case as a reader found it: the raw dict (or the error that prevented reading it)."""

    raw: dict[str, Any] | None
    file: str
    error: CaseError | None = None
    line: int | None = None   # line (JSONL) or row (Parquet, from 1) in ``file``: locates a case without an id

    @property
    def case_id(self) -> str | None:
        if self.raw is not None:
            cid = self.raw.get("id")
            return None if cid is None else str(cid)
        return self.error.case_id if self.error else None


CHUNK = 64


def check_rubric_approved(case: Case, file: str | None) -> None:
    """A rubric written by ``medrealmm rubric`` carries ``meta.rubric.status``; only ``approved``
    may be scored (physicians signed it off). Cases without that field (the published benchmark,
    HealthBench, hand-made sets) are not concerned. ``data.require_approved_rubric=false`` lifts
    the check for research on drafts."""
    info = case.meta.get("rubric")
    status = info.get("status") if isinstance(info, Mapping) else None
    if status is None:
        return
    if status != "approved":
        raise CaseError(f"rubric status is {status!r}, not 'approved': approve it with `medrealmm rubric approve`, "
                        "or set data.require_approved_rubric=false to evaluate drafts (research use)",
                        case_id=case.id, field="meta.rubric.status", file=file)
    if not info.get("hash"):
        raise CaseError("an approved rubric needs meta.rubric.hash (what `medrealmm rubric approve` writes); without "
                        "it the approval cannot be checked", case_id=case.id, field="meta.rubric.hash", file=file)
    if info.get("hash") != rubric_hash(case.rubric):
        raise CaseError("the rubric differs from the one that was approved (meta.rubric.hash): change rubrics "
                        "through `medrealmm rubric revise` and approve again, or set data.require_approved_rubric=false",
                        case_id=case.id, field="rubric", file=file)


def build_dataset(
    records: Iterable[RawRecord], *, name: str, root: Path | None, source: str, options: LoadOptions
) -> Dataset:
    """Validate a stream of raw records into a :class:`Dataset` under ``options``.

    Records are processed in source order, in chunks whose images are checked in parallel, so
    ``strict`` raises the first error in file order and ``limit`` stops reading early.
    ``subset`` then samples the valid cases (see :func:`select_subset`); rejected cases stay in
    ``errors`` as they are.
    """
    intake = _Intake(Dataset(name=name, root=root, cases=[], errors=[], source=source), options)
    found: set[str] = set()
    if options.case_ids is not None:
        records = _requested(records, set(options.case_ids), found)
    _check_in_chunks(records, partial(check_record, root=root, options=options), intake)
    if options.case_ids is not None and not intake.full():
        _reject_missing(intake, found, source)
    ds = intake.ds
    if options.subset is not None and options.subset < len(ds.cases):
        n_valid = len(ds.cases)
        ds.cases = select_subset(ds.cases, options.subset, options.subset_seed)
        log.info("dataset %s: kept a subset of %d of %d valid cases (seed %d)",
                 name, len(ds.cases), n_valid, options.subset_seed)
    log.info("dataset %s: %d cases loaded from %s, %d rejected", name, len(ds.cases), source, len(ds.errors))
    return ds


def check_record(rec: RawRecord, *, root: Path | None, options: LoadOptions) -> Case | CaseError:
    """One record as a validated :class:`Case` (schema, approved rubric, images), or why it is not one."""
    if rec.error is not None:
        return rec.error
    try:
        case = Case.parse(rec.raw, file=rec.file, max_abs_weight=options.max_abs_weight)
        if options.require_approved_rubric:
            check_rubric_approved(case, rec.file)
        if options.check_images:
            case = validate_images(case, root, rec.file, options.max_image_pixels, options.allowed_image_formats)
        return case
    except CaseError as e:
        if e.case_id is None and rec.line is not None and not e.reason.startswith("line "):
            return CaseError(f"line {rec.line}: {e.reason}", field=e.field, file=e.file)
        return e


class _Intake:
    """Takes checked records in source order into the dataset: rejections under the strict/lenient policy,
    duplicate ids, and the ``limit``."""

    def __init__(self, ds: Dataset, options: LoadOptions):
        self.ds, self.options = ds, options
        self.seen_ids: dict[str, str] = {}     # case id -> the file it was first seen in

    def full(self) -> bool:
        return self.options.limit is not None and len(self.ds.cases) >= self.options.limit

    def reject(self, err: CaseError) -> None:
        if self.options.strict:
            raise err
        log.warning("skipping bad case: %s", err)
        self.ds.errors.append(err)

    def take(self, rec: RawRecord, res: Case | CaseError) -> None:
        if isinstance(res, CaseError):
            self.reject(res)
        elif res.id in self.seen_ids:
            self.reject(CaseError(f"duplicate case id (first seen in {self.seen_ids[res.id]!r})",
                                  case_id=res.id, field="id", file=rec.file))
        else:
            self.seen_ids[res.id] = rec.file
            self.ds.cases.append(res)


def _requested(records: Iterable[RawRecord], wanted: set[str], found: set[str]) -> Iterator[RawRecord]:
    """The records whose case id is in ``wanted`` (``data.case_ids``); ``found`` collects the ids read."""
    for rec in records:
        cid = rec.case_id
        if cid is None or cid not in wanted:
            continue
        found.add(cid)
        yield rec


def _check_in_chunks(records: Iterable[RawRecord], check: Callable[[RawRecord], Case | CaseError],
                     intake: _Intake) -> None:
    """Check records in chunks of :data:`CHUNK` (in parallel with ``options.n_workers`` > 1) and hand the
    results to ``intake`` in source order; reading stops as soon as the ``limit`` is reached."""
    n_workers = intake.options.n_workers
    pool = ThreadPoolExecutor(n_workers) if n_workers > 1 else None

    def flush(chunk: Sequence[RawRecord]) -> None:
        results = list(pool.map(check, chunk)) if pool else [check(r) for r in chunk]
        for rec, res in zip(chunk, results, strict=True):
            if intake.full():
                break
            intake.take(rec, res)

    try:
        chunk: list[RawRecord] = []
        for rec in records:
            chunk.append(rec)
            if len(chunk) >= CHUNK:
                flush(chunk)
                chunk = []
            if intake.full():
                break
        if chunk and not intake.full():
            flush(chunk)
    finally:
        if pool:
            pool.shutdown()


def _reject_missing(intake: _Intake, found: set[str], source: str) -> None:
    """Every id of ``data.case_ids`` that the dataset does not hold is an error."""
    for cid in intake.options.case_ids or ():
        if cid not in found:
            intake.reject(CaseError("requested in data.case_ids but not present in the dataset",
                                    case_id=cid, field="id", file=source))


def subset_key(case_id: str, seed: int = 0) -> str:
    """The rank of a case in seeded subsets: the hex ``sha256("{seed}:{case_id}")``."""
    return hashlib.sha256(f"{seed}:{case_id}".encode()).hexdigest()


def select_subset(cases: list[Case], n: int, seed: int = 0) -> list[Case]:
    """The ``n`` cases with the smallest :func:`subset_key`, in their original order.

    Ranking by a hash of (seed, id) rather than shuffling makes the choice independent of file
    order and nested: with the same seed, every case in a subset of N is also in a subset of M > N,
    so a run on 500 cases contains the 200 of a smaller run with the same seed.
    """
    if n >= len(cases):
        return list(cases)
    keep = {id(c) for c in sorted(cases, key=lambda c: (subset_key(c.id, seed), c.id))[:n]}
    return [c for c in cases if id(c) in keep]
