"""Dataset loading and writing: JSONL and Parquet layouts, HealthBench, the official HF release, the bundled sample.

Every format goes through one validation path (:func:`~medrealmm.data.dataset.build_dataset`), so a
bad case is reported the same way — case, field, file — whatever file it came from. Formats are
looked up by name (``data.format``) in :mod:`medrealmm.data.formats`, where each reader registers.
"""

from medrealmm.data.dataset import Dataset, LoadOptions, RawRecord, build_dataset, select_subset, subset_key
from medrealmm.data.formats import register_format
from medrealmm.data.hf_release import read_hf_release
from medrealmm.data.images import (
    DEFAULT_IMAGE_FORMATS,
    DEFAULT_MAX_IMAGE_PIXELS,
    check_image_bytes,
    resolve_image_path,
    validate_images,
)
from medrealmm.data.jsonl_io import CASES_FILE, iter_jsonl_records, read_jsonl, sample_dir, write_jsonl
from medrealmm.data.loader import load_dataset
from medrealmm.data.parquet_io import read_parquet, write_parquet

__all__ = [
    "CASES_FILE",
    "DEFAULT_IMAGE_FORMATS",
    "DEFAULT_MAX_IMAGE_PIXELS",
    "Dataset",
    "LoadOptions",
    "RawRecord",
    "build_dataset",
    "check_image_bytes",
    "iter_jsonl_records",
    "load_dataset",
    "read_hf_release",
    "read_jsonl",
    "read_parquet",
    "register_format",
    "resolve_image_path",
    "sample_dir",
    "select_subset",
    "subset_key",
    "validate_images",
    "write_jsonl",
    "write_parquet",
]
