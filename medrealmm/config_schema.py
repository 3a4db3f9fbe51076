"""Typed checks of the config groups an evaluation reads, run before any data or engine is touched.

Hydra composes plain YAML; a value out of range (``run.samples=0``, ``judge.max_retries=-1``) would
otherwise surface late and as a confusing error (a ``KeyError`` after the judge engine loaded). Each
group that the evaluation stages read has a pydantic model here. ``run``, ``paths`` and ``cluster`` are
:class:`Settings`: their defaults live here once and an unknown key is an error. The role and engine groups
(``model``, ``judge``, ``backend``, ``data``) stay open (engines take free-form keyword arguments, and model
files add their own keys) but type the keys the code reads, with the defaults it would otherwise repeat
(:class:`Judge`, :class:`VLLMBackend`, :class:`OpenAIBackend`, :class:`DataSelection`). Every problem is
reported at once, one line each, naming the setting.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

__all__ = ["ClusterSettings", "ConfigError", "DataSelection", "GenerationSettings", "JudgingSettings", "PathsSettings", "PromptSettings",
           "RunSettings", "ScoringSettings", "Settings", "ShardSettings", "check_config", "modality_of", "problems"]


class ConfigError(ValueError):
    """One or more settings are invalid; the message has one line per setting."""


class _Group(BaseModel):
    model_config = ConfigDict(extra="allow", strict=False)


class Settings(BaseModel):
    """A config group's typed settings: its defaults live here, once (the YAML under ``conf/`` mirrors them
    for Hydra overrides and comments; ``tests/test_config_groups.py`` keeps the two equal). Unknown keys are
    errors, so a typo (``corpus.dialogue_quality.min_turn=3``) fails at start instead of being ignored.

    Stage code reads ``XSettings.of(cfg["x"], "x")`` once and passes typed values on, never ``.get(key, default)``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)

    @classmethod
    def of(cls, value: Any, where: str):  # type: ignore[no-untyped-def]
        """Validated settings from a plain dict (or an instance, returned as it is); :class:`ConfigError` names
        every bad setting as ``where.key``."""
        if isinstance(value, cls):
            return value
        lines = problems(cls, value if value is not None else {}, where)
        if lines:
            raise ConfigError("invalid settings:\n  " + "\n  ".join(lines))
        return cls.model_validate(value if value is not None else {})


class Sampling(_Group):
    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: int | None = Field(default=None, ge=-1)
    max_tokens: int | None = Field(default=None, ge=1)


class Role(_Group):
    name: str = Field(min_length=1)
    modality: Literal["multimodal", "text"] = "multimodal"
    sampling: Sampling | None = None
    chat_template_kwargs: dict[str, Any] | None = None
    engine: dict[str, Any] | None = None
    reasoning: Reasoning | None = None


class Judge(Role):
    max_retries: int = Field(default=2, ge=0)
    retry_temperature: float = Field(default=0.7, ge=0)
    max_unscored_share: float = Field(default=0.05, ge=0, le=1)
    sees_images: bool = False
    layout: Literal["case_first", "criterion_first"] = "case_first"
    structured_outputs: bool | None = None


class Backend(_Group):
    kind: Literal["vllm", "transformers", "openai"]
    structured: Literal["response_format", "structured_outputs", "none"] | None = None
    concurrency: int | None = Field(default=None, ge=1)
    timeout_s: float | None = Field(default=None, gt=0)
    max_retries: int | None = Field(default=None, ge=0)
    batch_size: int | None = Field(default=None, ge=1)


class LocalBackend(Backend):
    """``backend.kind=vllm|transformers``: an engine in this process, on a device."""

    kind: Literal["vllm", "transformers"]
    # auto | cuda | cpu, or one GPU (cuda:1: transformers pins the model to it)
    device: str = Field(default="auto", pattern=r"^(auto|cpu|cuda(:\d+)?)$")


class VLLMBackend(LocalBackend):
    """``backend.kind=vllm`` (``conf/backend/vllm.yaml``): engine-wide ``LLM(...)`` arguments, CPU settings."""

    kind: Literal["vllm"] = "vllm"
    structured_outputs_backend: str = "guidance"
    log_level: str = "WARNING"
    engine: dict[str, Any] | None = None
    cpu: dict[str, Any] | None = None


class OpenAIBackend(Backend):
    """``backend.kind=openai`` (``conf/backend/openai.yaml``): an OpenAI-compatible server and how to ask it."""

    kind: Literal["openai"] = "openai"
    base_url: str = Field(min_length=1)
    api_key: str | None = None
    api_key_env: str | None = None
    concurrency: int = Field(default=32, ge=1)
    timeout_s: float = Field(default=600, gt=0)
    max_retries: int = Field(default=5, ge=0)
    backoff_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=30.0, ge=0)
    retry_budget_s: float = Field(default=900.0, gt=0)
    check_timeout_s: float = Field(default=10.0, gt=0)
    check_model: bool = True
    structured: Literal["response_format", "structured_outputs", "none"] = "response_format"
    extra_body: dict[str, Any] | None = None


class Reasoning(_Group):
    thinks: bool = False
    opened_by_template: bool | Literal["auto"] = "auto"
    length_is_truncation: bool = True
    effort: str | None = None
    effort_kwarg: str | None = Field(default=None, min_length=1)


class ShardSettings(Settings):
    """``run.shard``: a Slurm array task runs shard ``index`` of ``count`` (cases by sha256(case id) % count)."""

    index: int = Field(default=0, ge=0)
    count: int = Field(default=1, ge=1)

    @model_validator(mode="after")
    def _index_below_count(self) -> ShardSettings:
        if self.index >= self.count:
            raise ValueError(f"index {self.index} must be below count {self.count}")
        return self


class PromptSettings(Settings):
    """``run.prompt``: null keeps the style's built-in value (:mod:`medrealmm.inference.prompts`)."""

    style: str = "auto"
    system: str | None = None
    image_marker: str | None = None
    continue_text: str | None = None
    opening_text: str | None = None
    include_patient_info: bool | None = None


class GenerationSettings(Settings):
    """``run.generation``: requests per engine call (and per atomic store write); truncated replies asked again."""

    chunk_size: int = Field(default=256, ge=1)
    retry_truncated: int = Field(default=0, ge=0)


class JudgingSettings(Settings):
    """``run.judging``: verdict requests per engine call (and per atomic store write)."""

    chunk_size: int = Field(default=1024, ge=1)


class ScoringSettings(Settings):
    """``run.scoring``: the unscored policy, the bootstrap interval, the histogram and the breakdowns."""

    unscored_policy: Literal["exclude_case", "drop_criteria", "fail"] = "exclude_case"
    bootstrap: int = Field(default=1000, ge=0)
    ci: float = Field(default=0.95, gt=0, lt=1)
    histogram_bin: float = Field(default=0.05, gt=0, le=1)
    dims: list[str] = ["department", "intent", "stage", "n_images", "n_turns"]
    edges: dict[str, list[int]] | None = {"n_images": [1, 2, 3, 4], "n_turns": [1, 5, 9, 13]}


class RunSettings(Settings):
    """``run``: one evaluation's modes, samples, seed, completeness limits, shard and stage settings.

    ``name`` and ``out_dir`` are composed in ``conf/run/default.yaml`` from the data, model, judge and modes;
    the empty defaults stand for "not composed" (a composed value must not be empty)."""

    name: str = Field(default="", min_length=1)
    out_dir: str = Field(default="", min_length=1)
    modes: list[Literal["multimodal", "text"]] = Field(default=["multimodal"], min_length=1)
    samples: int = Field(default=1, ge=1)
    max_missing_share: float = Field(default=0.0, ge=0, le=1)
    max_truncated_share: float = Field(default=0.05, ge=0, le=1)
    shard: ShardSettings = ShardSettings()
    seed: int = 0
    prompt: PromptSettings = PromptSettings()
    generation: GenerationSettings = GenerationSettings()
    judging: JudgingSettings = JudgingSettings()
    scoring: ScoringSettings = ScoringSettings()


class PathsSettings(Settings):
    """``paths``: where run folders, the shared result store and build products (tiny models) go."""

    outputs: str = Field(default="outputs", min_length=1)
    store: str = Field(default="outputs/store", min_length=1)
    cache: str = Field(default="~/.cache/medrealmm", min_length=1)


class ClusterSettings(Settings):
    """``cluster``: the GPU nodes ``medrealmm plan`` checks a layout against, and its workload assumptions."""

    gpus_per_node: int = Field(default=8, ge=1)
    gpu_mem_gib: float = Field(default=80, gt=0)
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1)
    format: Literal["text", "shell"] = "text"
    workload: bool = True
    gpu_class: str = "H100"
    prefill_tokens_per_s: float = Field(default=10000, gt=0)
    decode_tokens_per_s: float = Field(default=1500, gt=0)
    reply_share: float = Field(default=0.5, ge=0, le=1)
    shard_hours: float = Field(default=4, ge=0)


class DataSelection(_Group):
    """The ``data`` settings that narrow a dataset to a run's cases (a run record's ``selection``)."""

    limit: int | None = Field(default=None, ge=1)
    subset: int | None = Field(default=None, ge=1)
    subset_seed: int = 0
    case_ids: list[str] | None = None


class Data(DataSelection):
    name: str = Field(min_length=1)
    format: Literal["sample", "jsonl", "parquet", "healthbench", "hf_release", "hf"]
    path: str | None = None
    strict: bool = False
    max_abs_weight: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _path_when_needed(self) -> Data:
        if self.format in ("jsonl", "parquet", "healthbench") and not self.path:
            raise ValueError(f"data.path is required for data.format={self.format} "
                             f"(e.g. data.path=/path/to/cases.{'parquet' if self.format == 'parquet' else 'jsonl'})")
        return self


def modality_of(model: dict[str, Any]) -> str:
    """The ``model`` group's modality with :class:`Role`'s default: ``multimodal``, anything else reads as ``text``."""
    default = Role.model_fields["modality"].default
    return "multimodal" if model.get("modality", default) == "multimodal" else "text"


GROUPS: dict[str, type[BaseModel]] = {"run": RunSettings, "paths": PathsSettings, "cluster": ClusterSettings,
                                      "data": Data, "model": Role, "judge": Judge, "backend": Backend,
                                      "judge_backend": Backend}


def _where(group: str, loc: tuple[Any, ...]) -> str:
    return ".".join([group, *(str(p) for p in loc)])


def problems(model: type[BaseModel], value: Any, group: str) -> list[str]:
    """One line per invalid setting of ``value`` read as ``model`` (empty when valid)."""
    if value == "???" or not isinstance(value, dict):
        return [f"{group}: expected a config group, got {value!r}"]
    try:
        model.model_validate(value)
    except ValidationError as e:
        out = []
        for err in e.errors():
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "extra_forbidden":
                msg = "unknown setting (a typo? see the group's YAML under conf/ for the known keys)"
            got = err.get("input")
            shown = "" if isinstance(got, dict) or err["type"] in ("missing", "extra_forbidden") else f" (got {got!r})"
            out.append(f"{_where(group, err['loc'])}: {msg}{shown}")
        return out
    return []


def check_config(cfg: dict[str, Any], groups: tuple[str, ...] | None = None,
                 models: dict[str, type[BaseModel]] | None = None) -> None:
    """Raise :class:`ConfigError` listing every invalid setting of ``groups`` (one line each). ``models``: the
    group -> model table (:data:`medrealmm.config_groups.GROUPS` holds every group's; default: the evaluation
    groups here)."""
    table = GROUPS if models is None else models
    found = []
    for group in (tuple(table) if groups is None else groups):
        value = cfg.get(group)
        if value is None or group not in table:
            continue
        if group == "data" and isinstance(value, dict) and value.get("path") == "???":
            value = {**value, "path": None}
        found += problems(table[group], value, group)
    if found:
        raise ConfigError("invalid settings:\n  " + "\n  ".join(found))
