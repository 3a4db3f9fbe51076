"""The frozen text de-identification corpora under ``benchmarks/corpora/``, loaded as modules by path (the
benchmarks folder is not a package of the project)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

CORPORA = Path(__file__).resolve().parents[2] / "benchmarks" / "corpora"


def load_generator(name: str) -> ModuleType:
    """``benchmarks/corpora/<name>.py`` as a module (``consult_c``, ``consult_d``, ``consult_e`` ...)."""
    spec = importlib.util.spec_from_file_location(name, CORPORA / f"{name}.py")
    assert spec is not None and spec.loader is not None, name
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
