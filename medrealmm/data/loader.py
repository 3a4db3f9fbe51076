"""``load_dataset(cfg)``: the dataset the ``data`` config group describes, read by its format's loader.

Each reader module registers its formats (:mod:`medrealmm.data.formats`); importing them here is what
makes every built-in format known. The dataset types and the one validation path live in
:mod:`medrealmm.data.dataset`, the format registry in :mod:`medrealmm.data.formats`: import them from there
(or from :mod:`medrealmm.data`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from medrealmm.data import healthbench, hf_release, jsonl_io, parquet_io
from medrealmm.data.dataset import Dataset, LoadOptions
from medrealmm.data.formats import format_loader

log = logging.getLogger(__name__)

#: The reader modules whose import registers the built-in formats.
READERS = (jsonl_io, parquet_io, healthbench, hf_release)

__all__ = ["load_dataset"]


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


def load_dataset(cfg: Mapping[str, Any] | Any) -> Dataset:
    """Load the dataset that the ``data`` config group describes (``format`` picks the reader)."""
    conf = _plain(cfg)
    fmt = str(conf.get("format", "jsonl")).lower()
    options = LoadOptions.from_mapping(conf)
    return format_loader(fmt)(conf, options)
