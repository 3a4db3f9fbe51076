"""Rubric lint: structural and wording checks on a case's criteria, usable on any dataset.

Nothing here calls a model: every rule is a count, a comparison or a string heuristic, so the lint
runs on thousands of rubrics in seconds and gives the same findings every time. Defaults follow the
paper's rubric statistics; each threshold is a key of :meth:`LintConfig.from_config`.

Rules (``Finding.rule``), with their default severity:

- ``n_criteria`` / ``n_positive`` / ``n_negative`` (error) — the number of criteria, of rewarding
  (weight > 0) and of penalising (weight < 0) criteria must lie in [3, 19], [2, 17] and [0, 7].
- ``weight_range`` (error) — every weight within [-10, 10] (0 is already refused by ``Criterion``).
- ``duplicate`` (error) — two criteria whose texts are equal after normalising (NFKC, so full-width
  letters and digits become half-width; lower case; punctuation, symbols and whitespace removed),
  whatever their weights.
- ``near_duplicate`` (warning) — two criteria of the same sign whose normalised texts have a
  :class:`difflib.SequenceMatcher` ratio ≥ 0.8. A rewarding item and its penalising mirror
  ("建议戒烟" / "不建议戒烟") are a deliberate pair, so opposite signs are not compared unless
  ``near_duplicate.same_sign_only`` is false.
- ``bundled`` (warning) — a criterion that joins several independent requirements and should be
  split (the paper's example: one 8-point item became 5 + 3); see :func:`bundled_reason`.
- ``copies_reply`` (warning) — a criterion lifted from the physician's reply ``y_orig`` rather than
  written as a checkable behaviour; see :func:`copy_stats`.

Findings come rubric-level first (``criterion_id`` None), then criterion by criterion in rubric
order, each criterion's findings in the order of :data:`RULES`; a pair finding (duplicate,
near-duplicate) is reported on the later criterion and names the earlier one. Messages are English,
name ids and numbers only, and never quote ``y_orig``.
"""

from __future__ import annotations

import difflib
import logging
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from medrealmm.config import plain
from medrealmm.schema import Criterion

log = logging.getLogger(__name__)

Severity = Literal["error", "warning"]
RULES: tuple[str, ...] = ("n_criteria", "n_positive", "n_negative", "weight_range", "duplicate",
                          "near_duplicate", "bundled", "copies_reply")
SEVERITIES = ("error", "warning", "off")
DEFAULT_SEVERITY: dict[str, str] = {
    "n_criteria": "error", "n_positive": "error", "n_negative": "error", "weight_range": "error",
    "duplicate": "error", "near_duplicate": "warning", "bundled": "warning", "copies_reply": "warning",
}
FINDING_SCHEMA: dict[str, Any] = {"case_id": pl.String, "criterion_id": pl.String, "rule": pl.String,
                                  "severity": pl.String, "message": pl.String}

Bounds = tuple[int | None, int | None]


# --------------------------------------------------------------------------------------------------
# configuration

@dataclass(frozen=True)
class LintConfig:
    """Thresholds of every rule; ``None`` as a bound means unbounded on that side."""

    n_criteria: Bounds = (3, 19)
    n_positive: Bounds = (2, 17)
    n_negative: Bounds = (0, 7)
    weight_min: int = -10
    weight_max: int = 10
    near_duplicate_threshold: float = 0.8
    near_duplicate_same_sign_only: bool = True
    bundled_check_negative: bool = False     # a penalty's "A并B" usually describes one harmful act
    copy_min_run: int = 6                    # shared runs shorter than this do not count as copied
    copy_coverage: float = 0.7               # share of the criterion's characters in such runs
    copy_min_chars: int = 12                 # shorter criteria are not checked for coverage
    copy_longest_run: int = 20               # a shared run this long is copying on its own
    severity: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_SEVERITY))

    def __post_init__(self) -> None:
        for name in ("n_criteria", "n_positive", "n_negative"):
            lo, hi = getattr(self, name)
            if lo is not None and hi is not None and lo > hi:
                raise ValueError(f"rubric lint: {name} lower bound {lo} > upper bound {hi}")
        if self.weight_min > self.weight_max:
            raise ValueError(f"rubric lint: weight.min {self.weight_min} > weight.max {self.weight_max}")
        if not 0.0 < self.near_duplicate_threshold <= 1.0:
            raise ValueError(f"rubric lint: near_duplicate.threshold must be in (0, 1], "
                             f"got {self.near_duplicate_threshold}")
        if not 0.0 < self.copy_coverage <= 1.0:
            raise ValueError(f"rubric lint: copies_reply.coverage must be in (0, 1], got {self.copy_coverage}")
        if self.copy_min_run < 2:
            raise ValueError(f"rubric lint: copies_reply.min_run must be >= 2, got {self.copy_min_run}")
        unknown = sorted(set(self.severity) - set(RULES))
        if unknown:
            raise ValueError(f"rubric lint: severity for unknown rule(s) {unknown}; rules are {list(RULES)}")
        for rule, sev in self.severity.items():
            if sev not in SEVERITIES:
                raise ValueError(f"rubric lint: severity.{rule} must be one of {SEVERITIES}, got {sev!r}")

    def severity_of(self, rule: str) -> str:
        return self.severity.get(rule, DEFAULT_SEVERITY[rule])

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any] | None) -> LintConfig:
        """Build from a config mapping (an OmegaConf node is fine); missing keys keep the defaults.

        Keys: ``n_criteria``, ``n_positive``, ``n_negative`` (``[lo, hi]``, either may be null);
        ``weight: {min, max}``; ``near_duplicate: {threshold, same_sign_only}`` (or just the
        threshold); ``bundled: {check_negative}``; ``copies_reply: {min_run, coverage, min_chars,
        longest_run}``; ``severity: {rule: error|warning|off}``. An unknown key is an error, so a
        typo does not silently keep a default."""
        c = dict(plain(cfg) or {})
        kw: dict[str, Any] = {}
        _known(c, {"n_criteria", "n_positive", "n_negative", "weight", "near_duplicate", "bundled",
                   "copies_reply", "severity"}, "rubric lint")
        for name in ("n_criteria", "n_positive", "n_negative"):
            if name in c:
                kw[name] = _bounds(c[name], name)
        w = _sub(c, "weight", {"min", "max"})
        if "min" in w:
            kw["weight_min"] = int(w["min"])
        if "max" in w:
            kw["weight_max"] = int(w["max"])
        nd = c.get("near_duplicate")
        if isinstance(nd, (int, float)) and not isinstance(nd, bool):
            kw["near_duplicate_threshold"] = float(nd)
        else:
            nd = _sub(c, "near_duplicate", {"threshold", "same_sign_only"})
            if "threshold" in nd:
                kw["near_duplicate_threshold"] = float(nd["threshold"])
            if "same_sign_only" in nd:
                kw["near_duplicate_same_sign_only"] = bool(nd["same_sign_only"])
        b = _sub(c, "bundled", {"check_negative"})
        if "check_negative" in b:
            kw["bundled_check_negative"] = bool(b["check_negative"])
        cp = _sub(c, "copies_reply", {"min_run", "coverage", "min_chars", "longest_run"})
        for key, attr, typ in (("min_run", "copy_min_run", int), ("coverage", "copy_coverage", float),
                               ("min_chars", "copy_min_chars", int), ("longest_run", "copy_longest_run", int)):
            if key in cp:
                kw[attr] = typ(cp[key])
        sev = _sub(c, "severity", set(RULES))
        kw["severity"] = {**DEFAULT_SEVERITY, **{k: str(v) for k, v in sev.items()}}
        return cls(**kw)


def _known(c: Mapping[str, Any], keys: set[str], where: str) -> None:
    unknown = sorted(set(c) - keys)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; expected some of {sorted(keys)}")


def _sub(c: Mapping[str, Any], name: str, keys: set[str]) -> dict[str, Any]:
    v = c.get(name)
    if v is None:
        return {}
    if not isinstance(v, Mapping):
        raise ValueError(f"rubric lint: {name} must be a mapping, got {v!r}")  # noqa: TRY004 (a config error)
    _known(v, keys, f"rubric lint {name}")
    return dict(v)


def _bounds(v: Any, name: str) -> Bounds:
    if not isinstance(v, Sequence) or isinstance(v, str) or len(v) != 2:
        raise ValueError(f"rubric lint: {name} must be [lo, hi], got {v!r}")
    lo, hi = v
    return (None if lo is None else int(lo), None if hi is None else int(hi))


# --------------------------------------------------------------------------------------------------
# findings

@dataclass(frozen=True)
class Finding:
    """One problem of one rubric: where (case, criterion or None for the whole rubric) and what."""

    case_id: str
    criterion_id: str | None
    rule: str
    severity: Severity
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"case_id": self.case_id, "criterion_id": self.criterion_id, "rule": self.rule,
                "severity": self.severity, "message": self.message}


# --------------------------------------------------------------------------------------------------
# text helpers

def normalize(text: str) -> str:
    """Text for comparison: NFKC (full-width → half-width), lower case, no punctuation/symbols/space."""
    t = unicodedata.normalize("NFKC", text).lower()
    return "".join(ch for ch in t if unicodedata.category(ch)[0] not in "PZSC")


def similarity(a: str, b: str) -> float:
    """difflib ratio of the normalised texts (1.0 = identical after normalising)."""
    na, nb = normalize(a), normalize(b)
    if not na and not nb:
        return 1.0
    return difflib.SequenceMatcher(None, na, nb, autojunk=False).ratio()


def copy_stats(text: str, y_orig: str, *, min_run: int = 6) -> tuple[float, int]:
    """(coverage, longest run) of a criterion against the reply, both on normalised text.

    ``longest run`` is the longest substring of the criterion that occurs verbatim in ``y_orig``;
    ``coverage`` is the share of the criterion's characters that lie inside such shared substrings
    of at least ``min_run`` characters. Restating facts (a lab value, a drug name) shares short runs;
    lifting the reply's sentences covers most of the criterion."""
    c, y = normalize(text), normalize(y_orig)
    if not c or not y:
        return 0.0, 0
    covered = [False] * len(c)
    longest = 0
    for i in range(len(c)):
        j = i
        while j < len(c) and c[i:j + 1] in y:
            j += 1
        longest = max(longest, j - i)
        if j - i >= min_run:
            covered[i:j] = [True] * (j - i)
    return sum(covered) / len(c), longest


# --- bundled criteria --------------------------------------------------------------------------------

# Requirement verbs: a clause led by one of them asks for a separate, checkable act of the reply.
# Interpretive verbs (判断, 考虑, 诊断, 提示, 评估) are left out: "读出X，判断Y" is one reasoning chain.
REQUIREMENT_VERBS: tuple[str, ...] = (
    "说明", "建议", "询问", "追问", "告知", "告诉", "解释", "提醒", "推荐", "指出", "给出", "交代", "强调",
    "鼓励", "列出", "提出", "提供", "提及", "提到", "嘱咐", "叮嘱", "嘱", "劝告", "劝", "描述", "识别",
    "介绍", "安抚", "要求", "告诫", "警告",
)
# Clauses that interpret or justify the previous one ("读出X，并解释为Y", "…，并解释原因") add nothing to check.
SUPPORTING: tuple[str, ...] = ("解释为", "说明为", "解释原因", "说明原因", "解释理由", "说明理由", "解释其原因",
                               "说明其原因")
# Connectors that join an added requirement ("，并说明…", "；同时建议…").
CONNECTORS: tuple[str, ...] = ("并且", "而且", "同时", "以及", "另外", "此外", "还要", "并", "且", "还", "再", "也",
                               "和", "及")
# A clause led by these adds a requirement even without a listed verb.
STRONG_CONNECTORS: tuple[str, ...] = ("另外", "此外")
# Alternatives and contrasts belong to the same requirement ("建议A，或B", "说明A，而不是B").
ALTERNATIVES: tuple[str, ...] = ("或者", "或是", "或", "而不是", "而非", "而不", "否则", "即", "也就是")
# Lead-ins naming the context or the question answered; the requirement follows them.
CONTEXT: tuple[str, ...] = ("结合", "根据", "依据", "针对", "对于", "按照", "按", "基于", "鉴于", "考虑到", "如果",
                            "若", "当", "在", "从", "由于", "因", "回应", "回答")
# Adverbs and modals stripped before looking for the verb ("明确说明", "向患者解释").
ADVERBS: tuple[str, ...] = ("明确", "主动", "及时", "进一步", "尽快", "务必", "需要", "需", "应该", "应当", "应",
                            "要", "可以", "可", "简要", "详细", "清楚", "正确", "强烈", "再次", "据此", "因此",
                            "从而", "分别", "同时", "向患者", "对患者", "给患者", "为患者")

_BRACKETS = re.compile(r"（[^（）()]*）|\([^（）()]*\)|“[^“”]*”|‘[^‘’]*’|「[^「」]*」|『[^『』]*』|\"[^\"]*\"")
_CLAUSE_SEP = re.compile(r"([，,；;。！!？?])")
_ENUMERATIONS = (
    re.compile(r"(?:^|(?<=[\s，,；;：:。]))(\d{1,2})[.．、)）](?!\d)"),    # 1. 1、 1)
    re.compile(r"[（(](\d{1,2})[）)]"),                                   # （1） (1)
    re.compile(r"([①②③④⑤⑥⑦⑧⑨⑩])"),                                    # ①②
    re.compile(r"(?:^|(?<=[\s，,；;：:。]))([一二三四五六七八九十])[、.．]"),  # 一、二、
)


def _strip_prefix(s: str, words: Sequence[str]) -> tuple[str, str | None]:
    for w in words:
        if s.startswith(w):
            return s[len(w):], w
    return s, None


def _lead(clause: str) -> tuple[str | None, str]:
    """(connector, rest) of a clause, adverbs and modals stripped from the rest."""
    rest, conn = _strip_prefix(clause.strip(), CONNECTORS)
    while not rest.startswith(REQUIREMENT_VERBS):
        rest2, adv = _strip_prefix(rest, ADVERBS)
        if adv is None:
            break
        rest = rest2
    return conn, rest


def bundled_reason(text: str) -> str | None:
    """Why ``text`` looks like several requirements in one criterion, or None.

    The heuristic, built to keep false positives low:

    1. *Enumeration*: two or more list markers of one style (``1.``/``1、``, ``（1）``, ``①``,
       ``一、``) → bundled.
    2. Otherwise bracketed asides (（如…）, quotations) are dropped and the text is cut into clauses at
       ``，,；;。！？`` (not at ``、``/``和``/``及`` inside a clause, so "询问发热、咳嗽和胸痛" stays one
       clause with one requirement, and not at colons, which introduce what the requirement contains).
    3. Requirement clauses are counted: the first clause counts unless it is a context lead-in
       (结合/根据/针对/回应/回答…, e.g. "结合年龄…，说明…"); every later clause counts when, after an
       optional connector (并/并且/同时/以及/还/且…) and adverbs (明确/及时/进一步/向患者…), it starts
       with a requirement verb (说明/建议/询问/告知/解释/提醒/推荐/指出/给出/交代/强调/鼓励/提供…),
       when it starts with 另外/此外, or when it follows a semicolon. Clauses led by 或/而不是/即
       (alternatives, contrasts, restatements) never count, nor do interpretive verbs (判断/考虑/诊断)
       or a clause that interprets or justifies the previous one (解释为…/说明原因…), since "observe
       X, conclude Y" and "advise X, explain why" are one requirement each.
    4. Two or more requirement clauses → bundled ("指出…含激素，…，建议停用").
    """
    for pat in _ENUMERATIONS:
        marks = pat.findall(text)
        if len(marks) >= 2 and len(set(marks)) >= 2:
            return f"an enumeration of {len(set(marks))} items"
    t = text
    while True:
        t2 = _BRACKETS.sub("X", t)
        if t2 == t:
            break
        t = t2
    parts = _CLAUSE_SEP.split(t)
    clauses: list[tuple[str, str]] = []          # (separator before, clause)
    sep = ""
    for p in parts:
        if _CLAUSE_SEP.fullmatch(p):
            sep = p
        elif p.strip():
            clauses.append((sep, p.strip()))
    if len(clauses) < 2:
        return None
    n = 0
    for i, (sep, clause) in enumerate(clauses):
        if clause.startswith(ALTERNATIVES):
            continue
        conn, rest = _lead(clause)
        if i == 0:
            n += not clause.startswith(CONTEXT)
        elif rest.startswith(SUPPORTING):
            continue
        elif rest.startswith(REQUIREMENT_VERBS) or conn in STRONG_CONNECTORS or (sep in ("；", ";") and len(rest) >= 2):
            n += 1
    if n >= 2:
        return f"{n} requirement clauses"
    return None


# --------------------------------------------------------------------------------------------------
# the lint

def _count_finding(rule: str, n: int, bounds: Bounds, what: str) -> str | None:
    lo, hi = bounds
    if lo is not None and n < lo:
        return f"{n} {what} < minimum {lo}"
    if hi is not None and n > hi:
        return f"{n} {what} > maximum {hi}"
    return None


def lint_rubric(criteria: Sequence[Criterion], *, case_id: str, y_orig: str | None = None,
                config: LintConfig | None = None) -> list[Finding]:
    """Every finding of one rubric, in a deterministic order (see the module docstring).

    ``y_orig`` enables ``copies_reply``; without it that rule is skipped."""
    cfg = config or LintConfig()
    crit = list(criteria)

    def on(rule: str) -> bool:
        return cfg.severity_of(rule) != "off"

    def finding(rule: str, cid: str | None, msg: str) -> Finding:
        return Finding(case_id, cid, rule, cfg.severity_of(rule), msg)  # type: ignore[arg-type]

    out: list[Finding] = []
    n_pos = sum(c.weight > 0 for c in crit)
    n_neg = sum(c.weight < 0 for c in crit)
    for rule, n, what in (("n_criteria", len(crit), "criteria"), ("n_positive", n_pos, "positive criteria"),
                          ("n_negative", n_neg, "negative criteria")):
        if on(rule) and (msg := _count_finding(rule, n, getattr(cfg, rule), what)):
            out.append(finding(rule, None, f"the rubric has {msg}"))

    norms = [normalize(c.text) for c in crit]
    for i, c in enumerate(crit):
        if on("weight_range") and not cfg.weight_min <= c.weight <= cfg.weight_max:
            out.append(finding("weight_range", c.id, f"{c.id}: weight {c.weight} is outside "
                                                     f"[{cfg.weight_min}, {cfg.weight_max}]"))
        dup = next((crit[j] for j in range(i) if norms[j] == norms[i]), None)
        if dup is not None:
            if on("duplicate"):
                out.append(finding("duplicate", c.id, f"{c.id} repeats {dup.id} (same text after normalising; "
                                                      f"weights {dup.weight} and {c.weight})"))
        elif on("near_duplicate"):
            best: tuple[float, Criterion] | None = None
            for j in range(i):
                other = crit[j]
                if cfg.near_duplicate_same_sign_only and (other.weight > 0) != (c.weight > 0):
                    continue
                r = similarity(other.text, c.text)
                if r >= cfg.near_duplicate_threshold and (best is None or r > best[0]):
                    best = (r, other)
            if best is not None:
                out.append(finding("near_duplicate", c.id,
                                   f"{c.id} nearly repeats {best[1].id} (similarity {best[0]:.2f} >= "
                                   f"{cfg.near_duplicate_threshold:.2f}); merge them or make them distinct"))
        if on("bundled") and (c.weight > 0 or cfg.bundled_check_negative):
            why = bundled_reason(c.text)
            if why:
                out.append(finding("bundled", c.id, f"{c.id} bundles several requirements ({why}); split it "
                                                    f"into separate criteria and divide its {c.weight} points"))
        if on("copies_reply") and y_orig:
            cov, longest = copy_stats(c.text, y_orig, min_run=cfg.copy_min_run)
            long_enough = len(norms[i]) >= cfg.copy_min_chars
            if (long_enough and cov >= cfg.copy_coverage) or longest >= cfg.copy_longest_run:
                out.append(finding("copies_reply", c.id,
                                   f"{c.id} copies the physician's reply: {cov:.0%} of its {len(norms[i])} "
                                   f"normalised characters lie in runs of >= {cfg.copy_min_run} shared with "
                                   f"y_orig, longest run {longest}; rewrite it as a behaviour to check"))
    return out


def lint_cases(cases: Iterable[Any], *, config: LintConfig | None = None) -> pl.DataFrame:
    """Findings of many cases (objects with ``.id``, ``.rubric``, ``.y_orig``) as one table.

    Columns: case_id, criterion_id, rule, severity, message (an empty table with that schema when
    there is nothing to report)."""
    cfg = config or LintConfig()
    rows: list[dict[str, Any]] = []
    n = 0
    for case in cases:
        n += 1
        rows.extend(f.as_dict() for f in lint_rubric(case.rubric, case_id=case.id,
                                                     y_orig=getattr(case, "y_orig", None), config=cfg))
    df = pl.DataFrame(rows, schema=FINDING_SCHEMA)
    n_err = sum(r["severity"] == "error" for r in rows)
    log.info("rubric lint: %d case(s), %d error(s), %d warning(s)", n, n_err, len(rows) - n_err)
    return df
