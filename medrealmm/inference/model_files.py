"""Fingerprints of a model's files for the run manifest.

Two runs are only comparable when weights, tokenizer and chat template are the same, and a hub
name does not say that: a model can be re-uploaded under the same id. We hash what decides the
prompt (tokenizer, chat template, processor config) and the weights' index or small weight files.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

PROMPT_FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "chat_template.json",
                "special_tokens_map.json", "vocab.json", "merges.txt", "tokenizer.model",
                "preprocessor_config.json", "processor_config.json", "generation_config.json")
WEIGHT_INDEX = ("model.safetensors.index.json", "config.json")
SMALL_WEIGHTS_BYTES = 64 * 2**20


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cuda_available() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # torch missing or a broken driver: no GPU for us
        return False


def resolve_local(path_or_id: str) -> Path | None:
    """The local folder of a model: the path itself, or its snapshot in the HF cache (no network)."""
    p = Path(path_or_id).expanduser()
    if p.is_dir():
        return p
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(path_or_id, local_files_only=True))
    except Exception:
        return None


def fingerprint(path_or_id: str) -> dict[str, Any]:
    folder = resolve_local(path_or_id)
    if folder is None:
        return {"id": path_or_id, "resolved": False}
    files: dict[str, str] = {}
    for name in PROMPT_FILES + WEIGHT_INDEX:
        if (folder / name).is_file():
            files[name] = _sha256(folder / name)
    for w in sorted(folder.glob("*.safetensors")):
        if w.stat().st_size <= SMALL_WEIGHTS_BYTES:
            files[w.name] = _sha256(w)
    prompt = hashlib.sha256("".join(files.get(n, "") for n in PROMPT_FILES).encode()).hexdigest()
    return {"id": path_or_id, "resolved": True, "folder": str(folder), "files": files,
            "tokenizer_and_template_sha256": prompt}
