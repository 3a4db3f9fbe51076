"""The JSONL layout: ``cases.jsonl`` (one case per line) next to an ``images/`` folder.

This is the human-readable interchange format: diffable, greppable, editable by hand. Image
bytes never go into the JSONL; image paths are relative to the folder holding ``cases.jsonl``.
Formats ``jsonl`` and ``sample`` (the bundled sample dataset, a JSONL folder inside the package).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from medrealmm.atomic import write_lines
from medrealmm.data.dataset import Dataset, LoadOptions, RawRecord, build_dataset
from medrealmm.data.formats import register_format, required_path
from medrealmm.data.images import export_images
from medrealmm.schema import Case, CaseError

log = logging.getLogger(__name__)

CASES_FILE = "cases.jsonl"
_NO_IMAGE_BYTES = {"turns": {"__all__": {"images": {"__all__": {"data"}}}}}


def _resolve(path: Path) -> Path:
    path = Path(path)
    if path.is_dir():
        path = path / CASES_FILE
    if not path.is_file():
        raise FileNotFoundError(f"JSONL dataset not found: {path}")
    return path


def iter_jsonl_records(path: Path) -> Iterator[RawRecord]:
    """Yield one :class:`RawRecord` per non-blank line; a bad line yields its error, with the line number."""
    file = str(path)
    with open(path, "rb") as fh:
        for lineno, line in enumerate(fh, start=1):
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as e:
                yield RawRecord(
                    None,
                    file,
                    CaseError(f"line {lineno}: not valid UTF-8 ({e.reason} at byte {e.start})", file=file),
                )
                continue
            if lineno == 1:
                text = text.removeprefix("\ufeff")
            if not text.strip():
                continue
            try:
                raw = json.loads(text)
            except json.JSONDecodeError as e:
                yield RawRecord(
                    None,
                    file,
                    CaseError(f"line {lineno}: invalid JSON: {e.msg} at column {e.colno}", file=file),
                )
                continue
            if not isinstance(raw, dict):
                yield RawRecord(
                    None,
                    file,
                    CaseError(f"line {lineno}: expected a JSON object, got {type(raw).__name__}", file=file),
                )
                continue
            yield RawRecord(raw, file, line=lineno)


def read_jsonl(
    path: Path | str, *, name: str | None = None, options: LoadOptions | None = None, **option_overrides: Any
) -> Dataset:
    """Read a JSONL dataset (the folder or its ``cases.jsonl``); image paths resolve against its folder.

    Options are a :class:`LoadOptions` or its keys as keyword arguments (``strict=True``, ``limit=5``…).
    """
    file = _resolve(Path(path))
    opts = options or LoadOptions()
    if option_overrides:
        opts = LoadOptions.from_mapping(opts.__dict__, **option_overrides)
    root = file.parent
    return build_dataset(
        iter_jsonl_records(file), name=name or root.name, root=root, source=str(file), options=opts
    )


def case_to_json(case: Case) -> str:
    """One JSONL line: no image bytes, no None values, Chinese kept readable."""
    body = case.model_dump(mode="json", exclude_none=True, exclude=_NO_IMAGE_BYTES)
    return json.dumps(body, ensure_ascii=False)


def write_jsonl(dataset: Dataset, out_dir: Path | str) -> Path:
    """Write ``out_dir/cases.jsonl`` and every image as a file under ``out_dir``; return the JSONL path.

    Embedded images become files (their path kept when it is a safe, unused relative path, else
    ``images/<case>/t<turn>_<i><ext>``), so the folder is self-contained and loads with ``read_jsonl``.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = export_images(dataset.cases, dataset.image_bytes, out_dir)
    target = out_dir / CASES_FILE
    write_lines(target, (case_to_json(case) for case in cases))
    log.info("wrote %d cases to %s", len(cases), target)
    return target


def sample_dir() -> Path:
    """Where the bundled sample dataset lives inside the installed package."""
    import medrealmm

    return Path(medrealmm.__file__).parent / "data" / "sample"


@register_format("jsonl")
def _load_jsonl(conf: Mapping[str, Any], options: LoadOptions) -> Dataset:
    return read_jsonl(required_path(conf, "jsonl"), name=conf.get("name"), options=options)


@register_format("sample")
def _load_sample(conf: Mapping[str, Any], options: LoadOptions) -> Dataset:
    root = Path(conf["path"]) if conf.get("path") else sample_dir()
    if not (root / CASES_FILE).is_file():
        raise FileNotFoundError(
            f"the bundled sample dataset is missing: {root / CASES_FILE} not found "
            "(reinstall medrealmm, or build it with `python -m tools.sample.builder` in the repository)"
        )
    return read_jsonl(root, name=conf.get("name") or "sample", options=options)
