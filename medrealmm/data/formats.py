"""The dataset formats ``data.format`` can name: each reader registers its loader here by name.

A loader takes the ``data`` config (a plain mapping) and the :class:`LoadOptions` read from it, and
returns the validated :class:`Dataset`; :func:`medrealmm.data.loader.load_dataset` looks it up.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from medrealmm.data.dataset import Dataset, LoadOptions

log = logging.getLogger(__name__)

FormatLoader = Callable[[Mapping[str, Any], LoadOptions], Dataset]

_LOADERS: dict[str, FormatLoader] = {}
_NAMES: list[str] = []          # the formats' own names (no aliases)

#: The ``data`` keys every format understands (a format may understand more, see :func:`warn_unknown`).
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


def register_format(name: str, *aliases: str) -> Callable[[FormatLoader], FormatLoader]:
    """Decorator: make ``data.format=<name>`` (or one of its ``aliases``) load with the decorated function."""
    def deco(loader: FormatLoader) -> FormatLoader:
        for key in (name, *aliases):
            if key in _LOADERS:
                raise ValueError(f"data format {key!r} registered twice")
            _LOADERS[key] = loader
        _NAMES.append(name)
        return loader
    return deco


def format_loader(name: str) -> FormatLoader:
    """The loader registered for ``name`` (ValueError naming the known formats if none is)."""
    if name not in _LOADERS:
        raise ValueError(f"unknown data.format {name!r}; expected one of {', '.join(sorted(_NAMES))}")
    return _LOADERS[name]


def warn_unknown(conf: Mapping[str, Any], known: set[str]) -> None:
    """A typo such as ``data.limt=5`` would otherwise be ignored silently."""
    unknown = sorted(set(conf) - known)
    if unknown:
        log.warning("data config: ignoring unknown keys %s", ", ".join(unknown))


def required_path(conf: Mapping[str, Any], fmt: str) -> Path:
    """``data.path`` of a file-based format (after warning about keys no format knows)."""
    warn_unknown(conf, KNOWN_KEYS)
    path = conf.get("path")
    if not path:
        raise ValueError(f"data.path must be set for format {fmt!r}")
    return Path(path)
