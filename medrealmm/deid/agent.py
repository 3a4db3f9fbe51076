"""The LLM agent pass of text de-identification: identifiers the rules cannot see.

Rules need a shape or a cue; a name with no cue (张伟的检查结果出来了吗), a hospital known by its
nickname (在协和看的), a bare district or an obfuscated number need reading. The agent asks a
model, through any :class:`~medrealmm.inference.base.Backend`, for every identifier as
``{"text": exact substring, "category": …}``; each answer is located in the text (every
occurrence) and becomes a :class:`~medrealmm.deid.spans.Span` with detector ``"agent"``, merged
with the rule spans by :func:`~medrealmm.deid.spans.merge_spans`.

A model that cannot be read is asked again (bounded, new seeds, a warmer temperature); a text whose
answer still cannot be read gets status ``failed`` — never "no identifiers" — so the caller can
flag the case for human review (the paper's stage 5). Answers that are not in the text, use an
unknown category, or are clinical values (35岁, 3天, 血糖7.8mmol/L) are dropped and counted.

Logs and results hold counts, categories, offsets and status codes only, never identifier text,
and never the model's output or an engine's error message (either may quote the text).
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from medrealmm.deid.spans import CATEGORIES, Span, apply_placeholders, merge_spans
from medrealmm.deid.text_lexicons import SURNAMES
from medrealmm.deid.text_rules import RuleDetector, generic_hospital_phrase, looks_clinical, normalize
from medrealmm.inference.ask import ENGINE_ERROR, UNPARSEABLE, Outcome, ask_batched  # noqa: F401 (re-exported)
from medrealmm.inference.base import Backend, Sampling
from medrealmm.inference.reasoning import split_reasoning
from medrealmm.common.llm_json import json_values
from medrealmm.schema import stable_hash

log = logging.getLogger(__name__)

DETECTOR = "agent"

AGENT_SYSTEM = (
    "你是医疗数据脱敏助手。下面是一段中文在线问诊中的文字（患者或医生所说）。请找出其中所有能识别个人身份的信息，"
    "逐条列出原文中的片段和类别。类别只能是：\n"
    "NAME：人名（患者、家属、医生等的姓名；只有姓时也算，如“王医生”中的“王”，“小李”）\n"
    "ID：身份证号、护照号、军官证、社保卡号等证件号码\n"
    "PHONE：手机号、座机、400/800电话（包括用汉字写的号码）\n"
    "EMAIL：电子邮箱\n"
    "URL：网址、微信号、QQ号等账号\n"
    "ORDER_ID：订单号、发票号、交易流水号、快递单号\n"
    "MRN：病历号、门诊号、住院号、医保卡号、就诊卡号、检查号\n"
    "DATE：具体日期（有年月日、年月或月日，如“2023年5月12日”“5月12号”“5.12”）\n"
    "HOSPITAL：具体的医院、诊所、卫生院名称或简称（如“湘雅二院”“协和”）\n"
    "ADDRESS：区县以下的地址（区县、街道、乡镇、村、路名门牌、小区、楼栋房号、邮编）\n"
    "不要列出：年龄、性别、症状、病程时长（3天、两周、半年）、相对时间（明天、昨天、上周）、单独的年份或月份、"
    "几点钟、剂量、化验数值、身高体重体温、药名、科室名、省和市、泛指的医院（去医院、当地医院、三甲医院）。\n"
    "text 必须与原文一字不差；同一片段只列一次；没有则返回空列表。只输出 JSON："
    '{"identifiers": [{"text": "原文片段", "category": "类别"}]}\n'
    "示例1 原文：医生您好，我叫李娜，电话13912345678，上周在湘雅二院查了血糖7.8mmol/L。\n"
    '输出：{"identifiers": [{"text": "李娜", "category": "NAME"}, {"text": "13912345678", "category": "PHONE"}, '
    '{"text": "湘雅二院", "category": "HOSPITAL"}]}\n'
    "示例2 原文：孩子3岁，发烧两天了，明天需要去医院复查吗？\n"
    '输出：{"identifiers": []}\n'
    "示例3 原文：陈磊的片子我看了，5.12那天是在协和拍的吧，家在海淀区那边？\n"
    '输出：{"identifiers": [{"text": "陈磊", "category": "NAME"}, {"text": "5.12", "category": "DATE"}, '
    '{"text": "协和", "category": "HOSPITAL"}, {"text": "海淀区", "category": "ADDRESS"}]}'
)

AGENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "identifiers": {
            "type": "array",
            "maxItems": 32,
            "items": {
                "type": "object",
                "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 64},
                               "category": {"type": "string", "enum": list(CATEGORIES)}},
                "required": ["text", "category"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["identifiers"],
    "additionalProperties": False,
}

DROP_REASONS: tuple[str, ...] = ("unknown_category", "not_found", "clinical", "too_short", "generic", "malformed")

_LIST_KEYS = ("identifiers", "items", "entities", "results", "pii", "spans")
_TEXT_KEYS = ("text", "span", "value", "entity", "文本", "片段")
_CATEGORY_KEYS = ("category", "type", "label", "类别", "类型")
_CATEGORY_ALIASES = {"PERSON": "NAME", "PER": "NAME", "PATIENT": "NAME", "DOCTOR": "NAME", "人名": "NAME", "姓名": "NAME",
                     "ID_NUMBER": "ID", "IDCARD": "ID", "ID_CARD": "ID", "身份证": "ID", "证件号": "ID", "TEL": "PHONE",
                     "TELEPHONE": "PHONE", "MOBILE": "PHONE", "电话": "PHONE", "手机": "PHONE", "MAIL": "EMAIL",
                     "E-MAIL": "EMAIL", "邮箱": "EMAIL", "WEBSITE": "URL", "WECHAT": "URL", "网址": "URL",
                     "ORDER": "ORDER_ID", "ORDERID": "ORDER_ID", "ORDER_NUMBER": "ORDER_ID", "订单号": "ORDER_ID",
                     "MEDICAL_RECORD": "MRN", "RECORD_ID": "MRN", "病历号": "MRN", "日期": "DATE", "TIME": "DATE",
                     "医院": "HOSPITAL", "ORGANIZATION": "HOSPITAL", "ORG": "HOSPITAL", "HOSPITAL_NAME": "HOSPITAL",
                     "LOCATION": "ADDRESS", "LOC": "ADDRESS", "地址": "ADDRESS"}
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_PIECE_END = re.compile(r"[。！？!?；;\n]")


@dataclass(frozen=True)
class AgentResult:
    """The agent's answer for one text: spans, whether the model could be read, and what was dropped."""

    spans: tuple[Span, ...]
    status: str                                   # "ok" | "failed"
    attempts: int = 0                             # requests sent for this text's pieces (max over pieces)
    error: str | None = None                      # UNPARSEABLE | ENGINE_ERROR[:ExceptionName] — never text
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    def audit(self) -> dict[str, Any]:
        return {"status": self.status, "attempts": self.attempts, "error": self.error, "dropped": dict(self.dropped),
                "spans": [s.audit() for s in self.spans]}


@dataclass(frozen=True)
class ParsedAnswer:
    items: tuple[tuple[str, str], ...]            # (substring, category as written by the model)
    malformed: int = 0                            # list entries that were not {"text", "category"} objects


def _answer_of(value: Any) -> ParsedAnswer | None:
    entries = None
    if isinstance(value, dict):
        entries = next((value[k] for k in _LIST_KEYS if isinstance(value.get(k), list)), None)
    elif isinstance(value, list):
        entries = value
    if entries is None:
        return None
    items: list[tuple[str, str]] = []
    malformed = 0
    for e in entries:
        if not isinstance(e, dict):
            malformed += 1
            continue
        text = next((e[k] for k in _TEXT_KEYS if isinstance(e.get(k), str)), None)
        cat = next((e[k] for k in _CATEGORY_KEYS if isinstance(e.get(k), str)), None)
        if text is None or cat is None:
            malformed += 1
            continue
        items.append((text, cat))
    return ParsedAnswer(tuple(items), malformed)


def parse_identifiers(text: str | None) -> ParsedAnswer | None:
    """The identifier list in a model's output, or ``None`` when there is none to read.

    Accepts ``{"identifiers": [...]}`` (what the schema asks for), a bare list, code fences,
    prose around the JSON and reasoning before it. When several JSON values are present the last
    readable one wins (an example echoed before the answer must not decide it)."""
    if not text:
        return None
    reply, _ = split_reasoning(text)
    reply = (reply or "").strip()
    if not reply:
        return None
    candidates = [m.group(1) for m in _FENCE.finditer(reply)] + [reply]
    for cand in candidates:
        try:
            found = _answer_of(json.loads(cand, strict=False))
        except json.JSONDecodeError:
            found = None
        if found is not None:
            return found
    answers = [a for v in json_values(reply) if (a := _answer_of(v)) is not None]
    return answers[-1] if answers else None


def normalize_category(raw: str) -> str | None:
    """A model's category label as one of :data:`CATEGORIES`, or ``None``."""
    c = raw.strip().strip("[]<>{}()\"'").strip()
    up = c.upper().replace(" ", "_")
    if up in CATEGORIES:
        return up
    return _CATEGORY_ALIASES.get(up) or _CATEGORY_ALIASES.get(c)


def locate(text: str, needle: str) -> list[tuple[int, int]]:
    """Every (non-overlapping) occurrence of ``needle`` in ``text``: exactly, then ignoring
    full-width/half-width differences, then — for numbers and handles — ignoring the spaces and
    dashes a model may have dropped or added (138 1234 5678 vs 13812345678)."""
    needle = needle.strip()
    if not needle:
        return []
    for hay, pin in ((text, needle), (normalize(text), normalize(needle))):
        found, i = [], hay.find(pin)
        while i >= 0:
            found.append((i, i + len(pin)))
            i = hay.find(pin, i + len(pin))
        if found:
            return found
    compact = re.sub(r"[\s\-]", "", normalize(needle))
    if len(compact) >= 5 and re.fullmatch(r"[0-9A-Za-z_@.+]+", compact):
        rx = re.compile(r"[\s\-]*".join(map(re.escape, compact)))
        return [m.span() for m in rx.finditer(normalize(text))]
    return []


def split_pieces(text: str, max_chars: int) -> list[tuple[int, str]]:
    """The text cut at sentence ends into pieces of at most ``max_chars`` (offset, piece), so a
    long turn fits the prompt and the answer; one sentence longer than that is cut hard."""
    if len(text) <= max_chars:
        return [(0, text)]
    bounds = [m.end() for m in _PIECE_END.finditer(text)]
    if not bounds or bounds[-1] != len(text):
        bounds.append(len(text))
    pieces: list[tuple[int, str]] = []
    start = 0
    prev = 0
    for b in bounds:
        if b - start > max_chars and prev > start:
            pieces.append((start, text[start:prev]))
            start = prev
        while b - start > max_chars:
            pieces.append((start, text[start:start + max_chars]))
            start += max_chars
        prev = b
    if start < len(text):
        pieces.append((start, text[start:]))
    return pieces


class AgentSpans(list):
    """Spans per text (a plain ``list[list[Span]]``) plus ``failures``: per text ``None`` when the
    model's answer was read, else its error code (:data:`UNPARSEABLE`, :data:`ENGINE_ERROR`…)."""

    def __init__(self, spans: list[list[Span]], failures: list[str | None]):
        if len(spans) != len(failures):
            raise ValueError("one failure entry per text")
        super().__init__(spans)
        self.failures = failures

    @property
    def spans(self) -> list[list[Span]]:
        return list(self)


class AgentDetector:
    """Asks a model for the identifiers of each text; one batched ``backend.chat`` call per chunk
    of ``chunk_size`` distinct pieces (plus bounded retries for answers that cannot be read)."""

    name = DETECTOR

    def __init__(self, backend: Backend, *, chunk_size: int = 64, max_retries: int = 2,
                 sampling: Sampling | None = None, retry_temperature: float = 0.7, structured: bool = True,
                 chat_template_kwargs: dict[str, Any] | None = None, seed: int = 0, max_chars: int = 600,
                 detector: str = DETECTOR):
        if chunk_size < 1 or max_retries < 0 or max_chars < 20:
            raise ValueError("chunk_size must be >= 1, max_retries >= 0 and max_chars >= 20")
        self.backend = backend
        self.chunk_size, self.max_retries = chunk_size, max_retries
        self.sampling = sampling or Sampling(temperature=0.0, max_tokens=512, seed=seed)
        self.retry_temperature = retry_temperature
        self.structured = structured
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.seed, self.max_chars = seed, max_chars
        self.name = detector
        self.stats: Counter[str] = Counter()
        self.last_results: list[AgentResult] = []

    def messages(self, piece: str) -> list[dict[str, Any]]:
        return [{"role": "system", "content": AGENT_SYSTEM}, {"role": "user", "content": "原文：" + piece}]

    def _ask(self, pieces: list[str]) -> list[Outcome]:
        items = [(stable_hash(p), self.messages(p)) for p in pieces]
        return ask_batched(self.backend, items, parse=parse_identifiers, sampling=self.sampling,
                           json_schema=AGENT_SCHEMA if self.structured else None, max_retries=self.max_retries,
                           retry_temperature=self.retry_temperature, chunk_size=self.chunk_size, seed=self.seed,
                           chat_template_kwargs=self.chat_template_kwargs, stats=self.stats, desc="deid agent")

    def _spans(self, piece: str, offset: int, answer: ParsedAnswer, dropped: Counter[str]) -> list[Span]:
        spans: list[Span] = []
        dropped["malformed"] += answer.malformed
        for needle, raw_cat in answer.items:
            cat = normalize_category(raw_cat)
            s = needle.strip()
            if cat is None:
                dropped["unknown_category"] += 1
            elif len(s) < 2 and not (cat == "NAME" and s in SURNAMES):
                dropped["too_short"] += 1
            elif looks_clinical(s):
                dropped["clinical"] += 1
            elif cat == "HOSPITAL" and generic_hospital_phrase(s):
                dropped["generic"] += 1
            elif not (where := locate(piece, s)):
                dropped["not_found"] += 1
            else:
                spans.extend(Span(offset + a, offset + b, cat, self.name) for a, b in where)
        return spans

    def run(self, texts: Sequence[str]) -> list[AgentResult]:
        """One :class:`AgentResult` per text, in order."""
        plan = [split_pieces(t, self.max_chars) if t and t.strip() else [] for t in texts]
        unique: dict[str, int] = {}
        for pieces in plan:
            for _, p in pieces:
                unique.setdefault(p, len(unique))
        distinct = list(unique)
        outcomes = self._ask(distinct)
        results: list[AgentResult] = []
        for pieces in plan:
            dropped: Counter[str] = Counter()
            spans: list[Span] = []
            errors: list[str] = []
            attempts = 0
            for offset, p in pieces:
                o = outcomes[unique[p]]
                attempts = max(attempts, o.attempts)
                if o.value is None:
                    errors.append(o.error or UNPARSEABLE)
                else:
                    spans.extend(self._spans(p, offset, o.value, dropped))
            status = "failed" if errors else "ok"
            results.append(AgentResult(tuple(merge_spans(spans)), status, attempts, errors[0] if errors else None,
                                       {k: v for k, v in dropped.items() if v}))
        self._log(results, len(distinct))
        self.last_results = results
        return results

    def detect(self, texts: Sequence[str]) -> AgentSpans:
        """Spans per text, like every detector — as an :class:`AgentSpans` list that also carries, per
        text, the failure (``None`` when the model answered), so a caller cannot mistake "no answer"
        for "no identifiers"; :attr:`last_results` has the full results."""
        results = self.run(texts)
        return AgentSpans([list(r.spans) for r in results], [r.error if r.failed else None for r in results])

    def _log(self, results: list[AgentResult], distinct: int) -> None:
        cats: Counter[str] = Counter(s.category for r in results for s in r.spans)
        dropped: Counter[str] = Counter()
        for r in results:
            dropped.update(r.dropped)
        failed = sum(r.failed for r in results)
        self.stats["texts"] += len(results)
        self.stats["pieces"] += distinct
        self.stats["failed"] += failed
        self.stats["spans"] += sum(cats.values())
        for k, v in dropped.items():
            self.stats[f"dropped_{k}"] += v
        log.info("deid agent: %d texts (%d distinct pieces), %d spans %s, %d failed, dropped %s",
                 len(results), distinct, sum(cats.values()), dict(sorted(cats.items())), failed,
                 dict(sorted(dropped.items())))
        if failed:
            log.warning("deid agent: %d of %d texts got no readable answer after %d attempts; flag them for review",
                        failed, len(results), self.max_retries + 1)


@dataclass(frozen=True)
class TextDeidResult:
    """Rule and agent spans of one text, merged; ``agent_status`` is ``ok``, ``failed`` or ``not_run``."""

    spans: tuple[Span, ...]
    agent_status: str
    agent_error: str | None = None

    @property
    def needs_review(self) -> bool:
        return self.agent_status == "failed"

    def masked(self, text: str) -> str:
        return apply_placeholders(text, self.spans)

    def audit(self) -> dict[str, Any]:
        return {"agent_status": self.agent_status, "agent_error": self.agent_error,
                "spans": [s.audit() for s in self.spans]}


def deidentify_texts(texts: Sequence[str], rules: RuleDetector | None = None,
                     agent: AgentDetector | None = None) -> list[TextDeidResult]:
    """Rules (always) plus the agent (when given) over ``texts``; spans merged per text."""
    rules = rules or RuleDetector()
    rule_spans = rules.detect(texts)
    if agent is None:
        return [TextDeidResult(tuple(s), "not_run") for s in rule_spans]
    agent_results = agent.run(texts)
    return [TextDeidResult(tuple(merge_spans([*rs, *ar.spans])), ar.status, ar.error)
            for rs, ar in zip(rule_spans, agent_results, strict=True)]
