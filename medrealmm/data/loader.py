"""The in-memory dataset, the load options every format shares, and ``load_dataset(cfg)``.

Readers (JSONL, Parquet, the HF release) only turn their files into a stream of raw case dicts;
everything else — subset selection, schema validation, image checks, duplicate ids, the
strict/lenient policy — happens once here, so every format fails the same way with the same
messages (case, field, file).
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import polars as pl

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
    workers: int = 0  # 0: min(8, cpu count)
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
        return self.workers if self.workers > 0 else min(8, os.cpu_count() or 1)


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
    wanted = set(options.case_ids) if options.case_ids is not None else None
    found: set[str] = set()
    seen_ids: dict[str, str] = {}
    ds = Dataset(name=name, root=root, cases=[], errors=[], source=source)

    def reject(err: CaseError) -> None:
        if options.strict:
            raise err
        log.warning("skipping bad case: %s", err)
        ds.errors.append(err)

    def check(rec: RawRecord) -> Case | CaseError:
        if rec.error is not None:
            return rec.error
        try:
            case = Case.parse(rec.raw, file=rec.file, max_abs_weight=options.max_abs_weight)
            if options.require_approved_rubric:
                check_rubric_approved(case, rec.file)
            if options.check_images:
                case = validate_images(
                    case, root, rec.file, options.max_image_pixels, options.allowed_image_formats
                )
            return case
        except CaseError as e:
            if e.case_id is None and rec.line is not None and not e.reason.startswith("line "):
                return CaseError(f"line {rec.line}: {e.reason}", field=e.field, file=e.file)
            return e

    def full() -> bool:
        return options.limit is not None and len(ds.cases) >= options.limit

    pool = ThreadPoolExecutor(options.n_workers) if options.n_workers > 1 else None
    try:
        chunk: list[RawRecord] = []

        def flush() -> None:
            results = list(pool.map(check, chunk)) if pool else [check(r) for r in chunk]
            for rec, res in zip(chunk, results, strict=True):
                if full():
                    break
                if isinstance(res, CaseError):
                    reject(res)
                    continue
                if res.id in seen_ids:
                    reject(
                        CaseError(
                            f"duplicate case id (first seen in {seen_ids[res.id]!r})",
                            case_id=res.id,
                            field="id",
                            file=rec.file,
                        )
                    )
                    continue
                seen_ids[res.id] = rec.file
                ds.cases.append(res)
            chunk.clear()

        for rec in records:
            if wanted is not None:
                cid = rec.case_id
                if cid is None or cid not in wanted:
                    continue
                found.add(cid)
            chunk.append(rec)
            if len(chunk) >= CHUNK:
                flush()
            if full():
                break
        if chunk and not full():
            flush()
    finally:
        if pool:
            pool.shutdown()

    if wanted is not None and not full():
        for cid in options.case_ids or ():
            if cid not in found:
                reject(
                    CaseError(
                        "requested in data.case_ids but not present in the dataset",
                        case_id=cid,
                        field="id",
                        file=source,
                    )
                )
    if options.subset is not None and options.subset < len(ds.cases):
        n_valid = len(ds.cases)
        ds.cases = select_subset(ds.cases, options.subset, options.subset_seed)
        log.info("dataset %s: kept a subset of %d of %d valid cases (seed %d)",
                 name, len(ds.cases), n_valid, options.subset_seed)
    log.info("dataset %s: %d cases loaded from %s, %d rejected", name, len(ds.cases), source, len(ds.errors))
    return ds


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


def _plain(cfg: Any) -> dict[str, Any]:
    """A plain dict from a mapping or an OmegaConf node, with a clear error for unset ``???`` keys."""
    try:
        from omegaconf import DictConfig, OmegaConf
    except ImportError:  # pragma: no cover - omegaconf is a dependency
        DictConfig = ()  # type: ignore[assignment]
    if isinstance(cfg, DictConfig):
        from omegaconf.errors import MissingMandatoryValue

        from medrealmm.config import register_resolvers

        register_resolvers()   # a data config file loaded on its own names itself through our resolver
        try:
            return OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)  # type: ignore[return-value]
        except MissingMandatoryValue as e:
            raise ValueError(
                f"data config: a required value is not set ({e}); set it on the command line, "
                "e.g. data.path=/path/to/cases.jsonl"
            ) from None
    if not isinstance(cfg, Mapping):
        raise TypeError(f"load_dataset expects a mapping or a DictConfig, got {type(cfg).__name__}")
    return dict(cfg)


KNOWN_KEYS = {
    "name",
    "format",
    "path",
    "strict",
    "max_image_pixels",
    "allowed_image_formats",
    "limit",
    "case_ids",
    "subset",
    "subset_seed",
    "check_images",
    "workers",
    "embed_images",
    "require_approved_rubric",
    "max_abs_weight",
}


def sample_dir() -> Path:
    """Where the bundled sample dataset lives inside the installed package."""
    import medrealmm

    return Path(medrealmm.__file__).parent / "data" / "sample"


def load_dataset(cfg: Mapping[str, Any] | Any) -> Dataset:
    """Load the dataset that the ``data`` config group describes (``format`` picks the reader)."""
    conf = _plain(cfg)
    fmt = str(conf.get("format", "jsonl")).lower()
    options = LoadOptions.from_mapping(conf)
    name = conf.get("name")
    path = conf.get("path")
    if fmt == "sample":
        from medrealmm.data.jsonl_io import read_jsonl

        root = Path(path) if path else sample_dir()
        if not (root / "cases.jsonl").is_file():
            raise FileNotFoundError(
                f"the bundled sample dataset is missing: {root / 'cases.jsonl'} not found "
                "(reinstall medrealmm, or build it with medrealmm.data.sample_builder)"
            )
        return read_jsonl(root, name=name or "sample", options=options)
    if fmt in ("hf_release", "hf"):
        from medrealmm.data.hf_release import HF_KEYS, read_hf_release

        _warn_unknown(conf, KNOWN_KEYS | HF_KEYS)
        return read_hf_release(conf, options=options)
    _warn_unknown(conf, KNOWN_KEYS)
    if not path:
        raise ValueError(f"data.path must be set for format {fmt!r}")
    if fmt == "jsonl":
        from medrealmm.data.jsonl_io import read_jsonl

        return read_jsonl(Path(path), name=name, options=options)
    if fmt == "parquet":
        from medrealmm.data.parquet_io import read_parquet

        return read_parquet(Path(path), name=name, options=options)
    if fmt == "healthbench":
        from medrealmm.data.healthbench import read_healthbench

        return read_healthbench(Path(path), name=name or "healthbench", options=options)
    raise ValueError(
        f"unknown data.format {fmt!r}; expected one of jsonl, parquet, healthbench, hf_release, sample"
    )


def _warn_unknown(conf: Mapping[str, Any], known: set[str]) -> None:
    """A typo such as ``data.limt=5`` would otherwise be ignored silently."""
    unknown = sorted(set(conf) - known)
    if unknown:
        log.warning("data config: ignoring unknown keys %s", ", ".join(unknown))
