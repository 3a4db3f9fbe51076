"""The Parquet layout: one row per case, nested columns, images embedded or by relative path.

Parquet with embedded images is the single-file form to ship a dataset to a cluster; with paths it
is a compact index over an image folder. ``meta`` is a JSON string column because its keys differ
from case to case and a Parquet struct needs one fixed schema.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from medrealmm import atomic
from medrealmm.data.dataset import Dataset, LoadOptions, RawRecord, build_dataset
from medrealmm.data.formats import register_format, required_path
from medrealmm.data.images import export_images
from medrealmm.schema import Case, CaseError

log = logging.getLogger(__name__)

IMAGE_STRUCT = pl.Struct({"path": pl.String, "data": pl.Binary, "sha256": pl.String})
TURN_STRUCT = pl.Struct(
    {"role": pl.String, "text": pl.String, "images": pl.List(IMAGE_STRUCT), "time": pl.String}
)
CRITERION_STRUCT = pl.Struct(
    {"id": pl.String, "text": pl.String, "weight": pl.Int64, "tags": pl.List(pl.String)}
)
PARQUET_SCHEMA = {
    "id": pl.String,
    "department": pl.String,
    "intent": pl.String,
    "stage": pl.String,
    "patient": pl.Struct({"age": pl.Int64, "sex": pl.String}),
    "turns": pl.List(TURN_STRUCT),
    "y_orig": pl.String,
    "rubric": pl.List(CRITERION_STRUCT),
    "meta": pl.String,
}
BATCH_ROWS = 64


def _case_row(case: Case) -> dict[str, Any]:
    return {
        "id": case.id,
        "department": case.department,
        "intent": case.intent,
        "stage": case.stage,
        "patient": {"age": case.patient.age, "sex": case.patient.sex},
        "turns": [
            {
                "role": t.role,
                "text": t.text,
                "time": t.time,
                "images": [{"path": im.path, "data": im.data, "sha256": im.sha256} for im in t.images],
            }
            for t in case.turns
        ],
        "y_orig": case.y_orig,
        "rubric": [
            {"id": c.id, "text": c.text, "weight": c.weight, "tags": list(c.tags)} for c in case.rubric
        ],
        "meta": json.dumps(case.meta, ensure_ascii=False),
    }


def write_parquet(dataset: Dataset, path: Path | str, embed_images: bool = True) -> Path:
    """Write the dataset as one Parquet file.

    ``embed_images``: image bytes go into ``turns[].images[].data``; otherwise the images are
    written as files beside the Parquet file and referenced by a path relative to its folder.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    cases = export_images(dataset.cases, dataset.image_bytes, path.parent, embed=embed_images)
    df = pl.DataFrame([_case_row(c) for c in cases], schema=PARQUET_SCHEMA, orient="row")
    # small row groups so a reader can stream a file of embedded images batch by batch
    atomic.write_parquet(path, df, compression="zstd", row_group_size=BATCH_ROWS if embed_images else 4096)
    log.info("wrote %d cases to %s (images %s)", len(cases), path, "embedded" if embed_images else "as files")
    return path


def _clean_row(row: dict[str, Any], file: str) -> dict[str, Any]:
    """Turn a Parquet row back into what ``Case`` accepts (meta JSON decoded, null lists emptied)."""
    out = dict(row)
    meta = out.get("meta")
    if isinstance(meta, str):
        try:
            out["meta"] = json.loads(meta) if meta else {}
        except json.JSONDecodeError as e:
            raise CaseError(
                f"meta is not valid JSON: {e.msg}", case_id=out.get("id"), field="meta", file=file
            ) from None
    elif meta is None:
        out.pop("meta", None)
    for turn in out.get("turns") or ():
        if isinstance(turn, dict) and turn.get("images") is None:
            turn["images"] = []
        if isinstance(turn, dict) and turn.get("text") is None:
            turn["text"] = ""
    for crit in out.get("rubric") or ():
        if isinstance(crit, dict) and crit.get("tags") is None:
            crit["tags"] = []
    if out.get("patient") is None:
        out.pop("patient", None)
    return out


def iter_parquet_records(path: Path) -> Iterator[RawRecord]:
    """Stream the rows of a Parquet file as raw records, one batch of rows in memory at a time."""
    file = str(path)
    try:
        pf = pq.ParquetFile(path)
    except Exception as e:  # noqa: BLE001 - pyarrow raises ArrowInvalid/OSError on a damaged file
        raise CaseError(f"cannot read Parquet file: {e}", file=file) from None
    n = 0
    for batch in pf.iter_batches(batch_size=BATCH_ROWS):
        for row in pl.from_arrow(batch).to_dicts():
            n += 1
            try:
                yield RawRecord(_clean_row(row, file), file, line=n)
            except CaseError as e:
                yield RawRecord(None, file, e, line=n)


def read_parquet(
    path: Path | str, *, name: str | None = None, options: LoadOptions | None = None, **option_overrides: Any
) -> Dataset:
    """Read a Parquet dataset; image paths resolve against the Parquet file's folder."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"Parquet dataset not found: {path}")
    opts = options or LoadOptions()
    if option_overrides:
        opts = LoadOptions.from_mapping(opts.__dict__, **option_overrides)
    return build_dataset(
        iter_parquet_records(path), name=name or path.stem, root=path.parent, source=str(path), options=opts
    )


@register_format("parquet")
def _load_parquet(conf: Mapping[str, Any], options: LoadOptions) -> Dataset:
    return read_parquet(required_path(conf, "parquet"), name=conf.get("name"), options=options)
