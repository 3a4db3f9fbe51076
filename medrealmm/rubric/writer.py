"""The LLM that writes rubrics: R(0) from (x, y_orig), and R(k+1) from (x, R(k), physicians' comments).

Both passes send every case of a batch to the engine together (:func:`~medrealmm.inference.ask.ask_batched`),
ask for the JSON schema :func:`criteria_schema` (constrained decoding where the engine can), and
read the answer with :func:`parse_criteria`. An answer that does not validate (no criteria, a
zero or out-of-range weight, no positive criterion, an empty text) is asked again and finally
reported as a failure with its error code — never accepted half-read, never replaced by a default.
Count bounds (3–19 criteria …) are the lint's job (:mod:`medrealmm.rubric.lint`): a rubric outside
them is kept, flagged and shown to the physicians.

The original reply y_orig only seeds the criteria: the prompt asks for clinically acceptable
behaviour in the writer's own words, and the lint flags criteria that copy the reply.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from medrealmm.inference.ask import Outcome, ask_batched
from medrealmm.inference.base import Backend, Sampling
from medrealmm.inference.prompts import data_url, transcript
from medrealmm.inference.reasoning import split_reasoning
from medrealmm.common.llm_json import json_values
from medrealmm.mccp import Instance
from medrealmm.rubric import settings as rubric_settings
from medrealmm.rubric.lint import LintConfig
from medrealmm.rubric.settings import RubricSettings
from medrealmm.schema import Criterion, ImageRef, stable_hash

log = logging.getLogger(__name__)

Mode = Literal["multimodal", "text"]
IMAGE_MARKER = "[患者上传的图片，当前无法显示]"
DEFAULT_TAGS: tuple[str, ...] = tuple(rubric_settings.DEFAULT_TAGS)

_RULES = (
    "要求：\n"
    "1. 每条标准只描述一个可独立判断的要求（“回复是否……”），不要把多个要求合并成一条；\n"
    "2. 正向标准（weight 为正整数 1 到 {max_w}）奖励临床上恰当、重要的行为，越关键权重越高；"
    "负向标准（weight 为负整数 -1 到 -{max_w}）惩罚错误、有害、遗漏风险提示或越界的行为；\n"
    "3. 标准总数 {min_n} 到 {max_n} 条，其中正向 {min_pos} 到 {max_pos} 条、负向 {min_neg} 到 {max_neg} 条；\n"
    "4. 标准必须针对本病例的具体情况（症状、检查结果、图片中的信息、患者的问题），不要写放之四海而皆准的空话；\n"
    "5. 若需要读取患者上传的图片才能判断，请在 tags 中加入 \"modality:image\"；"
    "可选的维度标签：{tags}。\n"
)
_OUTPUT = ('只输出一个 JSON 对象：{"criteria": [{"text": "标准内容", "weight": 整数, "tags": ["axis:accuracy"]}, ...]}，'
           "不要输出其他内容。")

GENERATE_SYSTEM = (
    "你是一名资深临床医生，负责为一次中文在线问诊的“下一条医生回复”编写病例专属的评分标准（rubric）。"
    "评分标准将用于逐条判断 AI 医生的回复是否满足。\n"
    "你会看到截至当前时刻的问诊对话（含患者上传的图片），以及真实医生当时的回复。"
    "真实医生的回复只是参考线索，帮助你了解本病例的关键临床要点；它不是标准答案，可能不完整，也可能有欠妥之处。"
    "请用你自己的话描述临床上可接受的回复应当做到什么、不应当做什么，不要照抄真实医生回复的措辞。\n"
)
REVISE_SYSTEM = (
    "你是一名资深临床医生，负责根据医生审稿人的意见修订一次中文在线问诊的病例专属评分标准（rubric）。"
    "你会看到问诊对话（含患者上传的图片）、当前版本的评分标准（每条有编号 id、权重 weight）以及审稿意见。\n"
    "请逐条落实审稿意见：需要修改的就修改，需要拆分的就拆分，意见要求补充的就新增，意见未涉及的标准保持原样（保留原 id）。"
    "新增或拆分出的标准 id 填 null。\n"
)
_REVISE_OUTPUT = ('只输出一个 JSON 对象：{"criteria": [{"id": "原编号或 null", "text": "标准内容", "weight": 整数, '
                  '"tags": ["axis:accuracy"]}, ...]}，不要输出其他内容。')


@dataclass(frozen=True)
class Bounds:
    """What the prompt asks for and the schema allows; the lint holds the same numbers (one config)."""

    min_criteria: int = 3
    max_criteria: int = 19
    min_positive: int = 2
    max_positive: int = 17
    min_negative: int = 0
    max_negative: int = 7
    max_weight: int = 10

    @classmethod
    def of(cls, lint: LintConfig) -> Bounds:
        """The lint's bounds (``None`` on a side, unbounded: 0 below, 99 above)."""
        n, p, g = lint.n_criteria, lint.n_positive, lint.n_negative
        return cls(n[0] or 0, n[1] or 99, p[0] or 0, p[1] or 99, g[0] or 0, g[1] or 99,
                   max(abs(lint.weight_min), abs(lint.weight_max)))

    @classmethod
    def from_config(cls, cfg: dict[str, Any] | None) -> Bounds:
        """From a ``rubric.lint`` mapping (missing keys: the lint's defaults)."""
        return cls.of(LintConfig.from_config(cfg))


def criteria_schema(bounds: Bounds = Bounds(), *, with_ids: bool = False, tags: Sequence[str] = DEFAULT_TAGS,
                    max_items: int | None = None, max_text: int = 600) -> dict[str, Any]:
    """The answer's JSON schema. A revision may hold more (or longer) criteria than a fresh rubric
    (an imported one, physicians' additions): ``max_items``/``max_text`` then follow the current
    rubric, so constrained decoding never has to cut one off."""
    item: dict[str, Any] = {
        "type": "object",
        "properties": {"text": {"type": "string", "minLength": 2, "maxLength": max_text},
                       "weight": {"type": "integer", "minimum": -bounds.max_weight, "maximum": bounds.max_weight},
                       "tags": {"type": "array", "items": {"type": "string", "enum": list(tags)}, "maxItems": 4}},
        "required": ["text", "weight", "tags"],
        "additionalProperties": False,
    }
    if with_ids:
        item["properties"]["id"] = {"type": ["string", "null"], "maxLength": 20}
        item["required"] = ["id", *item["required"]]
    return {"type": "object",
            "properties": {"criteria": {"type": "array", "items": item, "minItems": 1,
                                        "maxItems": max(bounds.max_criteria, max_items or 0) + 5}},
            "required": ["criteria"], "additionalProperties": False}


@dataclass(frozen=True)
class Proposed:
    """One criterion as the model wrote it (``id`` only in revisions: an existing id or None)."""

    text: str
    weight: int
    tags: tuple[str, ...] = ()
    id: str | None = None


def _weight(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str) and re.fullmatch(r"\s*[+-]?\d+\s*", v):
        return int(v)
    return None


def _criteria_of(value: Any, max_weight: int) -> tuple[Proposed, ...] | None:
    items = value.get("criteria") if isinstance(value, dict) else value if isinstance(value, list) else None
    if not isinstance(items, list) or not items:
        return None
    out: list[Proposed] = []
    for it in items:
        if not isinstance(it, dict):
            return None
        text, w = it.get("text"), _weight(it.get("weight"))
        if not isinstance(text, str) or len(text.strip()) < 2 or w is None or w == 0 or abs(w) > max_weight:
            return None
        tags = it.get("tags") or []
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            return None
        cid = it.get("id")
        out.append(Proposed(text.strip(), w, tuple(t.strip() for t in tags if t.strip()),
                            str(cid).strip() if isinstance(cid, (str, int)) and str(cid).strip() else None))
    if not any(p.weight > 0 for p in out):
        return None
    return tuple(out)


def parse_criteria(text: str | None, *, max_weight: int = 10,
                   tags: Sequence[str] | None = None) -> tuple[Proposed, ...] | None:
    """The criteria of a model's answer, or ``None`` when there is no valid list to read.

    Valid: a non-empty list of ``{text, weight, tags}`` with non-zero integer weights within
    ``±max_weight`` and at least one positive weight. One bad item invalidates the answer (a rubric
    with a silently dropped criterion would be a different rubric). When several JSON values are
    present, the last valid one wins (an echoed example must not decide). Tags outside ``tags``
    (when given) are dropped: a tag is a label for breakdowns, not part of the requirement."""
    if not text:
        return None
    reply, _ = split_reasoning(text)
    found = [c for v in json_values(reply or "") if (c := _criteria_of(v, max_weight)) is not None]
    if not found:
        return None
    if tags is None:
        return found[-1]
    allowed = set(tags)
    return tuple(Proposed(p.text, p.weight, tuple(t for t in p.tags if t in allowed), p.id) for p in found[-1])


def number_criteria(proposed: Sequence[Proposed], *, keep_ids: Sequence[str] = (),
                    used_ids: Sequence[str] = ()) -> tuple[Criterion, ...]:
    """Criteria with ids: a proposed id that names a criterion of the current rubric (``keep_ids``)
    keeps it (once); every other criterion gets the next ``cN`` never used in this case's history."""
    keep, used = set(keep_ids), set(used_ids) | set(keep_ids)
    taken: set[str] = set()
    n = 1 + max((int(m.group(1)) for i in used if (m := re.fullmatch(r"c(\d+)", i))), default=0)
    out = []
    for p in proposed:
        if p.id in keep and p.id not in taken:
            cid = p.id
        else:
            while f"c{n}" in used or f"c{n}" in taken:
                n += 1
            cid = f"c{n}"
        taken.add(cid)
        out.append(Criterion(id=cid, text=p.text, weight=p.weight, tags=p.tags))
    return tuple(out)


def rubric_block(criteria: Sequence[Criterion]) -> str:
    return "\n".join(f"- id={c.id}，weight={c.weight:+d}：{c.text}" + (f"（tags: {', '.join(c.tags)}）" if c.tags else "")
                     for c in criteria)


@dataclass(frozen=True)
class RevisionJob:
    """One case to revise: R(k) with the direct edits applied, the comments to address, the ids the
    physicians set directly (kept as they are), and every id used in the case's history."""

    instance: Instance
    current: tuple[Criterion, ...]
    comments: tuple[tuple[str | None, str], ...]
    locked: tuple[str, ...] = ()
    used_ids: tuple[str, ...] = ()


def keep_tags(revised: Sequence[Criterion], current: Sequence[Criterion]) -> tuple[Criterion, ...]:
    """A criterion the revision kept word for word keeps its tags too — also those outside the
    writer's tag set (an imported rubric's ``theme:``/``level:`` tags), which the schema cannot offer."""
    old = {c.id: c for c in current}
    out = []
    for c in revised:
        before = old.get(c.id)
        if before is not None and before.text == c.text:
            c = c.model_copy(update={"tags": tuple(dict.fromkeys((*before.tags, *c.tags)))})
        out.append(c)
    return tuple(out)


def keep_locked(revised: Sequence[Criterion], current: Sequence[Criterion],
                locked: Sequence[str]) -> tuple[tuple[Criterion, ...], int]:
    """``revised`` with every locked criterion exactly as in ``current`` (re-added at its place in
    ``current`` order when the model dropped it); returns the criteria and how many were restored."""
    fixed = {c.id: c for c in current if c.id in set(locked)}
    out: list[Criterion] = []
    restored = 0
    for c in revised:
        if c.id in fixed:
            restored += c != fixed[c.id]
            out.append(fixed.pop(c.id))
        else:
            out.append(c)
    for c in current:                      # dropped by the model: back after its predecessor
        if c.id in fixed:
            restored += 1
            ids = [x.id for x in out]
            before = [x.id for x in current[: current.index(c)] if x.id in ids]
            out.insert(ids.index(before[-1]) + 1 if before else 0, fixed.pop(c.id))
    return tuple(out), restored


@dataclass
class Written:
    """The writer's answer for one case: criteria, or ``None`` with the error code."""

    criteria: tuple[Criterion, ...] | None
    attempts: int
    error: str | None = None
    restored: int = 0                       # physician-set criteria put back after the model changed them


class RubricWriter:
    """Generates and revises rubrics through one backend; ``image_bytes(ref)`` reads an instance's image.

    ``settings``: the ``rubric`` group (sampling, retries, batching, structured outputs, tags, the lint's
    bounds); ``mode`` (default: ``settings.mode``, else multimodal), ``seed`` and ``chat_template_kwargs``
    come from the model and run groups."""

    def __init__(self, backend: Backend, settings: RubricSettings | None = None, *,
                 image_bytes: Callable[[ImageRef], bytes] | None = None, mode: Mode | None = None,
                 chat_template_kwargs: dict[str, Any] | None = None, seed: int = 0):
        s = settings if settings is not None else RubricSettings()
        mode = mode or s.mode or "multimodal"
        if mode == "multimodal" and image_bytes is None:
            raise ValueError("multimodal mode needs image_bytes to read the images")
        self.backend, self.image_bytes, self.mode = backend, image_bytes, mode
        self.bounds = Bounds.of(LintConfig.from_config(s.lint.model_dump()))
        self.sampling = Sampling.from_config(s.sampling, seed=seed)
        self.max_retries, self.retry_temperature, self.chunk_size = s.max_retries, s.retry_temperature, s.chunk_size
        self.structured, self.seed, self.tags = s.structured, seed, tuple(s.tags or DEFAULT_TAGS)
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.stats: Counter[str] = Counter()

    # prompts ---------------------------------------------------------------------------------------
    def _rules(self) -> str:
        b = self.bounds
        return _RULES.format(max_w=b.max_weight, min_n=b.min_criteria, max_n=b.max_criteria, min_pos=b.min_positive,
                             max_pos=b.max_positive, min_neg=b.min_negative, max_neg=b.max_negative,
                             tags="、".join(self.tags))

    def _dialogue(self, inst: Instance) -> list[dict[str, Any]]:
        def url(ref: ImageRef) -> str:
            assert self.image_bytes is not None
            return data_url(self.image_bytes(ref))

        return transcript(inst, self.mode, IMAGE_MARKER, url)  # type: ignore[arg-type]

    def generate_messages(self, inst: Instance) -> list[dict[str, Any]]:
        parts = [{"type": "text", "text": "问诊对话（截至需要医生回复的时刻）：\n"}, *self._dialogue(inst),
                 {"type": "text", "text": f"\n\n真实医生当时的回复（仅作线索，不是标准答案）：\n{inst.y_orig}\n\n"
                                          "请为“下一条医生回复”编写评分标准。"}]
        return [{"role": "system", "content": GENERATE_SYSTEM + self._rules() + _OUTPUT}, {"role": "user", "content": parts}]

    def revise_messages(self, inst: Instance, current: Sequence[Criterion],
                        comments: Sequence[tuple[str | None, str]], locked: Sequence[str] = ()) -> list[dict[str, Any]]:
        notes = "\n".join(f"- {'关于 ' + cid if cid else '整体意见'}：{text}" for cid, text in comments)
        fixed = (f"以下标准已由审稿医生直接修改，必须原样保留（id、内容和权重都不变）：{', '.join(locked)}\n\n"
                 if locked else "")
        parts = [{"type": "text", "text": "问诊对话（截至需要医生回复的时刻）：\n"}, *self._dialogue(inst),
                 {"type": "text", "text": f"\n\n当前评分标准：\n{rubric_block(current)}\n\n审稿意见：\n{notes}\n\n"
                                          f"{fixed}请输出修订后的完整评分标准。"}]
        return [{"role": "system", "content": REVISE_SYSTEM + self._rules() + _REVISE_OUTPUT},
                {"role": "user", "content": parts}]

    # passes ----------------------------------------------------------------------------------------
    def _ask(self, items: list[tuple[str, list[dict[str, Any]] | None]], *, with_ids: bool,
             desc: str, max_items: int | None = None, max_text: int = 600) -> list[Outcome]:
        ok = [k for k, (_, m) in enumerate(items) if m is not None]
        outs = ask_batched(self.backend, [items[k] for k in ok],  # type: ignore[misc]
                           parse=lambda t: parse_criteria(t, max_weight=self.bounds.max_weight, tags=self.tags),
                           sampling=self.sampling,
                           json_schema=criteria_schema(self.bounds, with_ids=with_ids, tags=self.tags,
                                                       max_items=max_items, max_text=max_text)
                           if self.structured else None,
                           max_retries=self.max_retries, retry_temperature=self.retry_temperature,
                           chunk_size=self.chunk_size, seed=self.seed, chat_template_kwargs=self.chat_template_kwargs,
                           stats=self.stats, desc=desc)
        result = [Outcome(error="image_error") for _ in items]
        for k, o in zip(ok, outs, strict=True):
            result[k] = o
        return result

    def _messages_or_none(self, build: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]] | None:
        try:
            return build()
        except (OSError, ValueError) as e:          # an unreadable image: this case fails, the batch goes on
            self.stats[f"image_error_{type(e).__name__}"] += 1
            return None

    def generate(self, instances: Sequence[Instance]) -> list[Written]:
        """R(0) for every instance, in order."""
        items = [(stable_hash(["generate", inst.id, self.mode]),
                  self._messages_or_none(lambda inst=inst: self.generate_messages(inst))) for inst in instances]
        outs = self._ask(items, with_ids=False, desc="rubric generate")
        written = [Written(number_criteria(o.value) if o.value is not None else None, o.attempts, o.error)
                   for o in outs]
        self._log("generate", written)
        return written

    def revise(self, jobs: Sequence[RevisionJob]) -> list[Written]:
        """R(k+1) per job. The physicians' direct edits (``job.locked``) are final: the model is told
        to keep them, and a revision that drops or alters one gets the physician's version back
        (counted in ``stats["restored"]``)."""
        items = [(stable_hash(["revise", j.instance.id, [c.model_dump(mode="json") for c in j.current],
                               list(j.comments), list(j.locked), self.mode]),
                  self._messages_or_none(lambda j=j: self.revise_messages(j.instance, j.current, j.comments, j.locked)))
                 for j in jobs]
        longest = max((len(c.text) for j in jobs for c in j.current), default=0)
        outs = self._ask(items, with_ids=True, desc="rubric revise",
                         max_items=max((len(j.current) for j in jobs), default=0) + 5, max_text=max(600, 2 * longest))
        written = []
        for j, o in zip(jobs, outs, strict=True):
            if o.value is None:
                written.append(Written(None, o.attempts, o.error))
                continue
            crit = number_criteria(o.value, keep_ids=[c.id for c in j.current], used_ids=j.used_ids)
            crit = keep_tags(crit, j.current)
            crit, restored = keep_locked(crit, j.current, j.locked)
            self.stats["restored"] += restored
            written.append(Written(crit, o.attempts, o.error, restored))
        self._log("revise", written)
        return written

    def _log(self, what: str, written: Sequence[Written]) -> None:
        failed = sum(w.criteria is None for w in written)
        self.stats[f"{what}_cases"] += len(written)
        self.stats[f"{what}_failed"] += failed
        log.info("rubric %s: %d case(s), %d requests in %d chat calls, %d failed", what, len(written),
                 self.stats["requests"], self.stats["chat_calls"], failed)
        if failed:
            log.warning("rubric %s: %d case(s) got no valid rubric after %d attempts (reported as failures)",
                        what, failed, self.max_retries + 1)
