"""Dataset loading and writing: JSONL and Parquet layouts, the official HF release, the bundled sample.

Every format goes through one validation path (``loader.build_dataset``), so a bad case is
reported the same way — case, field, file — whatever file it came from.
"""

from medrealmm.data.hf_release import read_hf_release
from medrealmm.data.images import (
    DEFAULT_IMAGE_FORMATS,
    DEFAULT_MAX_IMAGE_PIXELS,
    check_image_bytes,
    resolve_image_path,
    validate_images,
)
from medrealmm.data.jsonl_io import read_jsonl, write_jsonl
from medrealmm.data.loader import Dataset, LoadOptions, load_dataset, sample_dir
from medrealmm.data.parquet_io import read_parquet, write_parquet

__all__ = [
    "DEFAULT_IMAGE_FORMATS",
    "DEFAULT_MAX_IMAGE_PIXELS",
    "Dataset",
    "LoadOptions",
    "check_image_bytes",
    "load_dataset",
    "read_hf_release",
    "read_jsonl",
    "read_parquet",
    "resolve_image_path",
    "sample_dir",
    "validate_images",
    "write_jsonl",
    "write_parquet",
]
