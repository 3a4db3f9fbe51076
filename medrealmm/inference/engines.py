"""Building a backend from a role's config (the evaluated model or the judge).

A role config (``conf/model/*.yaml``, ``conf/judge/*.yaml``) says which model and how to sample;
a backend config (``conf/backend/*.yaml``) says which engine runs it and with what engine-wide
settings. Both go into result keys, except settings that change speed but not outputs.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from medrealmm.config_schema import LocalBackend
from medrealmm.config_schema import OpenAIBackend as OpenAIServer
from medrealmm.inference.base import Backend
from medrealmm.inference.model_files import cuda_available, resolve_local
from medrealmm.schema import stable_hash

log = logging.getLogger(__name__)

# settings that change throughput or robustness, never what a request returns
OPERATIONAL_KEYS = frozenset({
    "batch_size", "concurrency", "timeout_s", "max_retries", "backoff_s", "backoff_max_s",
    "gpu_memory_utilization", "kv_cache_gib", "in_process", "max_num_seqs", "enforce_eager",
    "api_key", "api_key_env", "base_url", "name", "max_unscored_share", "retry_temperature",
    "retry_budget_s", "check_timeout_s", "check_model", "params_b", "weight_bytes", "log_level",
    # where the engine's processes run (slurm/multinode.sbatch): a requeued job on other nodes keeps its results
    "distributed_executor_backend", "nnodes", "node_rank", "master_addr", "master_port",
})


def _strip(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in OPERATIONAL_KEYS}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def effective_backend(backend: dict[str, Any]) -> dict[str, Any]:
    """The backend config as it will run here: ``device: auto`` resolved, and the CPU settings kept
    only on CPU (a CPU float32 reply is not a GPU bf16 reply)."""
    b = dict(backend)
    if b["kind"] in ("vllm", "transformers"):
        if LocalBackend.model_validate(b).device == "auto":
            b["device"] = "cuda" if cuda_available() else "cpu"
        if b["device"] != "cpu":
            b.pop("cpu", None)
    return b


def spec_hash(role: dict[str, Any], backend: dict[str, Any]) -> str:
    """Hash of what determines a role's outputs: model, sampling, engine kind, device and dtype."""
    return stable_hash({"role": _strip(role), "backend": _strip(effective_backend(backend))})


class ModelUnavailable(RuntimeError):
    """The model is neither on this machine nor downloadable from here."""


def resolve_model_path(role: dict[str, Any], cache_dir: str) -> str:
    """A local model folder: tiny test models are built, hub models fetched once (or found cached)."""
    if role.get("tiny"):
        from medrealmm.inference.tiny_models import ensure_tiny_model

        return str(ensure_tiny_model(role["tiny"], cache_dir))
    path = str(role["path"])
    local = resolve_local(path)
    if local is not None:
        return str(local)
    remote_code = bool((role.get("engine") or {}).get("trust_remote_code") or role.get("trust_remote_code"))
    revision = role.get("revision")
    if remote_code and not (isinstance(revision, str) and re.fullmatch(r"[0-9a-f]{40}", revision)):
        raise ModelUnavailable(
            f"model {role['name']!r} ({path}) runs code from its repository (trust_remote_code), so it is downloaded "
            f"only at a pinned commit: set revision=<the 40-character commit sha> in its config (model.revision or judge.revision) "
            f"(got {revision!r}), or download and review it yourself and set the path to the local folder.")
    log.info("model %s is not on this machine: fetching it from the Hugging Face hub", path)
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(path, revision=role.get("revision"))
    except Exception as e:
        if type(e).__name__ == "GatedRepoError" or "gated" in str(e).lower():
            raise ModelUnavailable(
                f"model {role['name']!r} ({path}) is gated: accept its licence at https://huggingface.co/{path} with "
                "your account, then give your access token in the HF_TOKEN environment variable (or `hf auth "
                "login`) and run again.") from None
        raise ModelUnavailable(
            f"model {role['name']!r} ({path}) is not on this machine and could not be downloaded from here "
            f"({type(e).__name__}). Download it where the hub is reachable (`hf download {path}`) and set "
            f"model.path (or judge.path)=/local/folder, or run fully offline with preset=smoke.") from None


def engine_identity(role: dict[str, Any], backend: dict[str, Any]) -> str:
    """Two roles with the same identity can share one loaded engine (e.g. smoke model = judge)."""
    keys = ("path", "tiny", "revision", "engine", "transformers", "server_model", "chat_template")
    return stable_hash({"role": {k: role.get(k) for k in keys}, "backend": backend})


def _vllm(role: dict[str, Any], backend: dict[str, Any], *, cache_dir: str, seed: int) -> Backend:
    from medrealmm.inference.vllm_backend import VLLMBackend

    return VLLMBackend.from_config(role, backend, resolve_model_path(role, cache_dir), seed=seed)


def _transformers(role: dict[str, Any], backend: dict[str, Any], *, cache_dir: str, seed: int) -> Backend:
    from medrealmm.inference.transformers_backend import TransformersBackend

    opts = {**{k: v for k, v in backend.items() if k not in ("kind",)}, **(role.get("transformers") or {})}
    return TransformersBackend(role["name"], resolve_model_path(role, cache_dir), seed=seed,
                               chat_template=role.get("chat_template"), **opts)


def _openai(role: dict[str, Any], backend: dict[str, Any], *, cache_dir: str, seed: int) -> Backend:
    import os

    from medrealmm.inference.openai_backend import OpenAIBackend

    path = role.get("server_model") or role.get("path") or role["name"]  # the server holds the weights: its name
    s = OpenAIServer.model_validate(backend)
    key = s.api_key or (os.environ.get(s.api_key_env) if s.api_key_env else None)
    return OpenAIBackend(role["name"], path, s.base_url, api_key=key, concurrency=s.concurrency,
                         timeout_s=s.timeout_s, max_retries=s.max_retries, backoff_s=s.backoff_s,
                         backoff_max_s=s.backoff_max_s, structured=s.structured, extra_body=s.extra_body,
                         retry_budget_s=s.retry_budget_s, check_timeout_s=s.check_timeout_s,
                         check_model=s.check_model)


#: Engine builders by ``backend.kind`` (conf/backend/). Each imports its engine only when called: building
#: one never loads another's heavy dependencies (vLLM, torch, HTTP clients).
BACKENDS: dict[str, Callable[..., Backend]] = {"vllm": _vllm, "transformers": _transformers, "openai": _openai}


def make_backend(role: dict[str, Any], backend: dict[str, Any], *, cache_dir: str, seed: int) -> Backend:
    kind = backend["kind"]
    build = BACKENDS.get(kind)
    if build is None:
        raise ValueError(f"unknown backend kind {kind!r}: use {', '.join(BACKENDS)} (conf/backend/)")
    return build(role, backend, cache_dir=cache_dir, seed=seed)


class EnginePool:
    """Keeps at most one engine alive and reuses it when the next role needs the same one."""

    def __init__(self, cache_dir: str, seed: int):
        self.cache_dir, self.seed = cache_dir, seed
        self._key: str | None = None
        self._backend: Backend | None = None

    def get(self, role: dict[str, Any], backend: dict[str, Any]) -> Backend:
        key = engine_identity(role, backend)
        if key != self._key:
            self.close()
            self._backend = make_backend(role, backend, cache_dir=self.cache_dir, seed=self.seed)
            self._key = key
        assert self._backend is not None
        return self._backend

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
        self._backend, self._key = None, None
