"""A learned character tagger for names, addresses and hospitals that carry no cue word.

The hand rules and the statistical layer catch identifiers by the words around them and by the
lexicons; what they miss on text written by someone else is mostly names, places and hospitals
without a cue. This module is a linear-chain CRF (``python-crfsuite``) over the characters of a
message, with BIO labels for NAME, ADDRESS and HOSPITAL, trained on the seven development generators
(``tools/deid_crf/train.py``; never on a held-out one) so that it learns what such identifiers look like
rather than one writer's templates; ``benchmarks/deid_learned.py --logo`` measures it on each generator
left out of its training in turn.

Features (:func:`char_features`, the one function both training and inference use) describe a
character by things that carry over to unseen strings: the character and its neighbours, character
class, surname / given-name lexicon membership (:mod:`medrealmm.deid.text_lexicons`), jieba's word
boundary and part-of-speech tag, gazetteer membership (:mod:`medrealmm.deid.text_gazetteer`) and
the distance to cue words. The model file is loaded lazily on first use; nothing here logs text.

The features read the lexicons, the gazetteer and jieba as they are now: when those change, the shipped
model still loads and runs, but retrain it (``python -m tools.deid_crf.train --out DEFAULT_MODEL``) so that
training and inference see the same features again.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from medrealmm.deid.spans import Span, detect_each
from medrealmm.deid.text_gazetteer import gazetteer
from medrealmm.deid.text_lexicons import (BEFORE_TITLE_WORDS, COMMON_SURNAMES, COMMON_WORDS, COMPOUND_SURNAMES,
                                          GIVEN_NAME_CHARS, HOSPITAL_ABBREVIATIONS, STOP_CHARS, SURNAMES)
from medrealmm.deid.text_rules import normalize

log = logging.getLogger(__name__)

DETECTOR = "crf"
LABELLED: tuple[str, ...] = ("NAME", "ADDRESS", "HOSPITAL")
"""Categories the tagger learns; the rules already find the numeric ones with validation."""
DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "text_crf.crfsuite"
MIN_CONFIDENCE = 0.98
"""Default marginal probability a span needs on every character, with :func:`plausible_name` on names and
:func:`in_context` on every span. Picked by ``benchmarks/deid_learned.py --logo`` on development material only:
the lowest leaking share pooled over the seven leave-one-generator-out folds among the points that keep precision
within 1 point of the rules' on every fold and add at most 0.5 masks per 1,000 sentences on the tuning half of the
real dialogues (measured: leaking 3.87 -> 3.43 %, precision 99.12 -> 99.02 %; dialogues' report half 2.87 -> 3.27
masks per 1,000 sentences)."""

# Cue words, by what they announce and on which side; the feature is the distance (1..6 characters)
# from the character to the nearest cue, so the model learns "two characters after 我叫" rather
# than the string that happened to follow 我叫 in training.
_CUES: dict[str, re.Pattern[str]] = {
    "nameL": re.compile(r"我叫|叫|姓名|名字|我是|患者|病人|联系人|收件人|收货人|就诊人|家属|老公|老婆|爱人|丈夫|妻子|儿子|女儿|"
                        r"妈妈|爸爸|我妈|我爸|孩子|宝宝|姓|签名|医师[:：]|医生[:：]|转告|感谢|谢谢|麻烦"),
    "titleR": re.compile(r"医生|大夫|医师|主任|教授|院长|护士|老师|先生|女士|小姐|阿姨|叔叔|同志|经理|师傅"),
    "placeL": re.compile(r"住在|家住|住|地址|老家|来自|籍贯|户籍|寄到|搬到|位于|送到|在|到|去|回|从"),
    "placeR": re.compile(r"[省市区县镇乡村屯路街巷号栋楼室弄]|单元|小区|花园|社区|附近|那边|这边"),
    "hospR": re.compile(r"医院|卫生院|诊所|保健院|门诊部|卫生服务中心|医疗中心|附院|[一二三四五六七八九]院|中医馆"),
    "hospL": re.compile(r"就诊于|转到|转院|住院|挂号|看病|医院"),
}
_LEFT = ("nameL", "placeL", "hospL")          # cues that come before the identifier
_MAX_CUE = 6


def _char_class(c: str) -> str:
    if "\u4e00" <= c <= "\u9fff" or c == "〇":
        return "H"
    if c.isdigit():
        return "D"
    if c.isascii() and c.isalpha():
        return "L"
    if c.isspace():
        return "S"
    return "P"


def _shape(c: str) -> str:
    """The character for Han and punctuation; digits and Latin letters by class only (a phone
    number's digits say nothing a class does not, and would only bloat the model)."""
    k = _char_class(c)
    return c if k in ("H", "P") else k


@functools.lru_cache(maxsize=1)
def _places() -> tuple[dict[str, str], int]:
    """Every gazetteer name (full and short) with its level, and the longest length to try."""
    gaz = gazetteer()
    level: dict[str, str] = {}
    for names, lv in ((gaz.district_short, "dist"), (gaz.districts, "dist"), (gaz.city_short, "city"),
                      (gaz.cities, "city"), (gaz.provinces, "prov")):
        for n in names:
            if len(n) >= 2:
                level[n] = lv
    return level, min(8, max(len(n) for n in level))


@functools.lru_cache(maxsize=1)
def _place_heads() -> frozenset[str]:
    """The first two characters of every gazetteer name: a position whose next two characters are not
    one of these starts no name (skips the longest-first lookups at almost every character)."""
    return frozenset(n[:2] for n in _places()[0])


_HOSP_ABBR: dict[str, tuple[str, ...]] = {}
for _a in sorted({a for a in HOSPITAL_ABBREVIATIONS if len(a) >= 2}):
    _HOSP_ABBR[_a[0]] = (*_HOSP_ABBR.get(_a[0], ()), _a)
_COMPOUND = frozenset(COMPOUND_SURNAMES)


def _words(text: str) -> list[tuple[str, str]]:
    """jieba's words and part-of-speech tags, as the statistical layer segments (the words concatenate to ``text``)."""
    from medrealmm.deid.text_stat_words import segmenter

    return segmenter().tag(text)


def _segments(t: str) -> list[tuple[str, str, str]]:
    """jieba per character: its position in its word (B/M/E/S), the word's tag, the word's length (max 4)."""
    seg: list[tuple[str, str, str]] = []
    for word, tag in _words(t):
        k = len(word)
        if k == 1:
            seg.append(("S", tag, "1"))
        elif k:
            ln = str(min(k, 4))
            seg.append(("B", tag, ln))
            seg.extend([("M", tag, ln)] * (k - 2))
            seg.append(("E", tag, ln))
    if len(seg) != len(t):  # never seen; a segmenter that drops characters would shift every offset
        raise RuntimeError("the segmenter did not return the whole text")
    return seg


def _gazetteer_marks(t: str, classes: Sequence[str]) -> list[str | None]:
    """B/I + level over the longest gazetteer name starting at each Han character, left to right."""
    gaz, longest = _places()
    heads = _place_heads()
    n = len(t)
    gz: list[str | None] = [None] * n
    i = 0
    while i < n:
        hit = 0
        if classes[i] == "H" and t[i:i + 2] in heads:
            for size in range(min(longest, n - i), 1, -1):
                lv = gaz.get(t[i:i + size])
                if lv is not None:
                    gz[i] = "B" + lv
                    for k in range(i + 1, i + size):
                        gz[k] = "I" + lv
                    hit = size
                    break
        i += hit or 1
    return gz


def _cue_marks(t: str) -> list[list[str]]:
    """Per character, the cues within :data:`_MAX_CUE` characters on their side, with the distance."""
    n = len(t)
    cue_feats: list[list[str]] = [[] for _ in range(n)]
    for name, rx in _CUES.items():
        left = name in _LEFT
        for m in rx.finditer(t):
            rng = range(m.end(), min(n, m.end() + _MAX_CUE)) if left else range(max(0, m.start() - _MAX_CUE), m.start())
            for k in rng:
                d = k - m.end() + 1 if left else m.start() - k
                cue_feats[k].append(f"{name}{d}")
    return cue_feats


@functools.lru_cache(maxsize=8192)
def _char_info(c: str) -> tuple[str, str, tuple[str, ...], bool, bool]:
    """Per character, what does not depend on its neighbours: shape, class, its own lexicon features,
    whether it is a surname and whether it is a given-name character (cached: a few thousand distinct)."""
    own: list[str] = []
    if c in SURNAMES:
        own.append("sur")
        if c in COMMON_SURNAMES:
            own.append("sur_common")
    return _shape(c), _char_class(c), tuple(own), c in SURNAMES, c in GIVEN_NAME_CHARS


def char_features(text: str) -> list[list[str]]:
    """One list of string features per character of ``text`` (after width normalisation).

    Used by training and inference alike, so a model never sees features built another way."""
    return _features(normalize(text))[0]


def _features(t: str) -> tuple[list[list[str]], list[tuple[str, str, str]]]:
    """:func:`char_features` of normalised ``t``, and jieba's :func:`_segments` (the context filters read them).
    Built column by column (one list comprehension per feature) rather than character by character: the
    same features in the same order as the per-character loop it replaced, ~1.5x faster."""
    n = len(t)
    if n == 0:
        return [], []
    info = [_char_info(c) for c in t]
    shapes = [x[0] for x in info]
    classes = [x[1] for x in info]
    pad = ["<s>", "<s>", *shapes, "</s>", "</s>"]
    big = [a + b for a, b in zip(pad[:-1], pad[1:], strict=True)]        # big[j] = pad[j] + pad[j + 1]
    seg = _segments(t)
    gz = _gazetteer_marks(t, classes)
    cue_feats = _cue_marks(t)
    kpad = ["^", *classes, "$"]
    tags = [s[1] for s in seg]
    tpad = ["^", *tags, "$"]
    cols = (
        ["c=" + x for x in shapes],
        ["c-1=" + x for x in pad[1:n + 1]],
        ["c+1=" + x for x in pad[3:n + 3]],
        ["c-2=" + x for x in pad[:n]],
        ["c+2=" + x for x in pad[4:n + 4]],
        ["b-1=" + x for x in big[1:n + 1]],
        ["b+1=" + x for x in big[2:n + 2]],
        ["b-2=" + x for x in big[:n]],
        ["b+2=" + x for x in big[3:n + 3]],
        ["k=" + x for x in classes],
        ["k3=" + a + b + c for a, b, c in zip(kpad[:n], classes, kpad[2:], strict=True)],
        ["seg=" + s[0] for s in seg],
        ["pos=" + x for x in tags],
        ["segpos=" + s[0] + s[1] for s in seg],
        ["wlen=" + s[2] for s in seg],
        ["pos-1=" + x for x in tpad[:n]],
        ["pos+1=" + x for x in tpad[2:]],
    )
    out = [["bias", *row] for row in zip(*cols, strict=True)]
    sur = [x[3] for x in info]
    given = [x[4] for x in info]
    compound = _COMPOUND
    stop = STOP_CHARS
    hosp = _HOSP_ABBR
    for i, f in enumerate(out):
        c = t[i]
        x = info[i]
        if x[2]:
            f.extend(x[2])
        if compound and t[i:i + 2] in compound:
            f.append("csur")
        if x[4]:
            f.append("given")
        if c in stop:
            f.append("stop")
        if i and sur[i - 1]:
            f.append("sur-1")
        if i > 1 and sur[i - 2]:
            f.append("sur-2")
        if i + 1 < n and given[i + 1]:
            f.append("given+1")
        if i and given[i - 1]:
            f.append("given-1")
        place = gz[i]
        if place is not None:
            f.append("gz=" + place)
        if c in hosp and any(t.startswith(a, i) for a in hosp[c]):
            f.append("habbr")
        if cue_feats[i]:
            f.extend(cue_feats[i])
    return out, seg


def bio_labels(text: str, spans: Iterable[tuple[int, int, str]]) -> list[str]:
    """BIO label per character for the gold spans of the learned categories (others stay O)."""
    labels = ["O"] * len(text)
    for s, e, cat in spans:
        if cat not in LABELLED:
            continue
        labels[s] = "B-" + cat
        for k in range(s + 1, e):
            labels[k] = "I-" + cat
    return labels


def decode(labels: Sequence[str], detector: str = DETECTOR) -> list[Span]:
    """Spans from a BIO sequence (an I- after O or another category starts a span)."""
    out: list[Span] = []
    start, cat = -1, ""
    for i, lab in enumerate([*labels, "O"]):
        kind, _, c = lab.partition("-")
        if start >= 0 and (kind != "I" or c != cat):
            out.append(Span(start, i, cat, detector))
            start = -1
        if kind == "B" or (kind == "I" and start < 0):
            start, cat = i, c
    return out


_TITLE_AFTER = re.compile(r"医生|大夫|医师|主任|教授|院长|护士|老师|先生|女士|小姐|阿姨|叔叔|大爷|大妈|师傅|经理")
_NOT_LONE_SURNAMES = frozenset("由那这其各该每本此")
"""Surname characters that before a title are mostly a word (【由】医生评估, 【那】医生): never a lone surname."""
_DOTTED_NAME = re.compile(r"[\u4e00-\u9fff]{2,6}(?:·[\u4e00-\u9fff]{2,6}){1,2}")


def plausible_name(t: str, start: int, end: int) -> bool:
    """What a person's name looks like whatever the model says: two to four characters, a surname (or
    小/老/阿) first, no particle or clinical character after it, not an everyday word that starts with a
    surname (安静, 温水: :data:`~medrealmm.deid.text_lexicons.COMMON_WORDS`); or a lone surname right before
    a title (【韩】主任说, 按【黄】医生的方), but not a function word that is also a surname (向/由/那 before
    医生); or a transliterated name with a middle dot (买买提·玉苏甫)."""
    x = t[start:end]
    if len(x) == 1:
        return (x in SURNAMES and x not in STOP_CHARS and x not in _NOT_LONE_SURNAMES
                and _TITLE_AFTER.match(t, end) is not None)
    if "·" in x:
        return _DOTTED_NAME.fullmatch(x) is not None
    if not 2 <= len(x) <= 4:
        return False
    if not (x[0] in SURNAMES or x[:2] in _COMPOUND or x[0] in "小老阿"):
        return False
    if any(c in STOP_CHARS for c in x[1:]):
        return False
    return not (x in COMMON_WORDS or x[:2] in COMMON_WORDS or x[:3] in COMMON_WORDS or x in BEFORE_TITLE_WORDS)


_FUNCTION_TAGS = frozenset({"a", "ad", "an", "d", "v", "vd", "vn", "p", "c", "r", "u", "uj", "ul", "uz", "ug", "uv", "ud",
                            "y", "e", "o", "z", "zg", "f", "m", "q", "l", "i"})
"""jieba tags of words that are no proper noun: a span the model starts or ends inside such a word (通【常建议】,
整【齐美丽】), or a name that is such a word (祝福, 易怒), or a hospital that opens with one (正规/选择/根据 … 医院),
is a phrase, not an identifier."""


@functools.lru_cache(maxsize=1)
def _not_names() -> frozenset[str]:
    from medrealmm.deid.text_lexicons import DRUG_BRANDS
    from medrealmm.deid.text_statistical import NOT_NAMES

    return NOT_NAMES | DRUG_BRANDS


def in_context(t: str, span: Span, seg: Sequence[tuple[str, str, str]]) -> bool:
    """Context filters on a span the model tags in normalised ``t`` (``seg``: :func:`_segments` of ``t``),
    for what a character model over synthetic messages gets wrong in real prose:

    - a span that starts or ends inside a jieba word tagged as no noun (通【常建议】家长) is cut out of a phrase;
    - NAME: not a word jieba tags as no noun (祝福, 易怒), not a drug brand or a herb the statistical layer
      knows (:data:`~medrealmm.deid.text_statistical.NOT_NAMES`, :data:`~medrealmm.deid.text_lexicons.DRUG_BRANDS`),
      not a word in brackets after a drug (…喷雾剂(【爱赛平】));
    - HOSPITAL: does not open with a word tagged as no noun (【正规中医医院】, 【选择一所综合性医院】)."""
    s, e = span.start, span.end
    first, last = seg[s], seg[e - 1]
    if first[0] in "ME" and first[1] in _FUNCTION_TAGS:
        return False
    if last[0] in "BM" and last[1] in _FUNCTION_TAGS:
        return False
    if span.category == "NAME":
        if t[s:e] in _not_names():
            return False
        if first[0] == "B" and last[0] == "E" and e - s == int(first[2]) and first[1] in _FUNCTION_TAGS:
            return False                              # the whole word, a verb or an adjective
        if s and t[s - 1] in "(（" and e < len(t) and t[e] in ")）":
            return False
    elif span.category == "HOSPITAL" and first[1] in _FUNCTION_TAGS:
        return False
    return True


class LearnedDetector:
    """The CRF tagger behind :func:`char_features`; the model file loads on the first call.

    ``min_confidence``: a span is kept when the model's marginal probability of its label is at least
    this on every character (0: every tagged span). ``check_names``: names must pass :func:`plausible_name`;
    ``check_context``: every span must pass :func:`in_context`. Without them the raw model adds ~7x the rules'
    masks on real dialogues; with the defaults, ~+0.4 per 1,000 sentences (rules+stat: ~3)."""

    name = DETECTOR

    def __init__(self, model_path: str | Path = DEFAULT_MODEL, *, min_confidence: float = MIN_CONFIDENCE,
                 check_names: bool = True, check_context: bool = True, detector: str = DETECTOR):
        self.model_path = Path(model_path)
        self.min_confidence = min_confidence
        self.check_names = check_names
        self.check_context = check_context
        self.name = detector
        self._tagger: Any | None = None

    def _load(self) -> Any:
        if self._tagger is None:
            import pycrfsuite  # python-crfsuite; imported here so the module loads without it

            if not self.model_path.is_file():
                raise FileNotFoundError(f"CRF model not found at {self.model_path} "
                                        "(python -m tools.deid_crf.train --out PATH writes one)")
            tagger = pycrfsuite.Tagger()
            tagger.open(str(self.model_path))
            self._tagger = tagger
            stored = inputs_file(self.model_path)
            if not stored.is_file() or stored.read_text(encoding="utf-8").strip() != feature_inputs_digest():
                log.warning("the CRF model %s was trained on other features than today's (the lexicons, the "
                            "gazetteer, the cue words, the feature code or rjieba changed, or %s is missing): "
                            "retrain it with python -m tools.deid_crf.train --out %s", self.model_path,
                            stored.name, self.model_path)
        return self._tagger

    def find(self, text: str) -> list[Span]:
        """Sorted spans of the names, addresses and hospitals the model tags in ``text`` (the filters run only
        on the spans confident enough: same spans as filtering :meth:`find_checked`)."""
        tagged = self._tagged(text)
        if tagged is None:
            return []
        t, seg, scored = tagged
        return [s for s, conf in scored if conf >= self.min_confidence
                and (not self.check_names or s.category != "NAME" or plausible_name(t, s.start, s.end))
                and (not self.check_context or in_context(t, s, seg))]

    def find_scored(self, text: str) -> list[tuple[Span, float]]:
        """Every span the model tags, unfiltered, with its confidence: the lowest marginal probability
        of its labels over its characters."""
        tagged = self._tagged(text)
        return [] if tagged is None else tagged[2]

    def find_checked(self, text: str) -> list[tuple[Span, float, bool, bool]]:
        """Every span the model tags with its confidence, whether it passes :func:`plausible_name` (spans
        other than names always do) and whether it passes :func:`in_context`."""
        tagged = self._tagged(text)
        if tagged is None:
            return []
        t, seg, scored = tagged
        return [(s, conf, s.category != "NAME" or plausible_name(t, s.start, s.end), in_context(t, s, seg))
                for s, conf in scored]

    def _tagged(self, text: str) -> tuple[str, list[tuple[str, str, str]], list[tuple[Span, float]]] | None:
        """The normalised text, its jieba segments, and every tagged span with its confidence (None: no Han)."""
        if not text or not any("\u4e00" <= c <= "\u9fff" for c in text):
            return None
        tagger = self._load()
        t = normalize(text)
        feats, seg = _features(t)
        labels = tagger.tag(feats)
        marginal = tagger.marginal
        return t, seg, [(s, min(marginal(labels[i], i) for i in range(s.start, s.end))) for s in decode(labels, self.name)]

    def detect(self, texts: Sequence[str]) -> list[list[Span]]:
        """One list of spans per text, in order (counts only are logged, never text)."""
        return detect_each(self.find, texts, "crf", log)


def train(examples: Iterable[tuple[str, Sequence[tuple[int, int, str]]]], out: str | Path, *, c1: float = 0.05,
          c2: float = 0.01, max_iterations: int = 150, min_freq: int = 2) -> Path:
    """Fit a CRF on ``(text, gold spans)`` pairs and write it to ``out``. L-BFGS on a fixed order of
    examples is deterministic: the same examples and parameters give the same model."""
    import pycrfsuite

    trainer = pycrfsuite.Trainer(verbose=False)
    for text, spans in examples:
        if text:
            trainer.append(char_features(text), bio_labels(text, spans))
    trainer.set_params({"c1": c1, "c2": c2, "max_iterations": max_iterations, "feature.minfreq": min_freq,
                        "feature.possible_transitions": True})
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    trainer.train(str(out))
    inputs_file(out).write_text(feature_inputs_digest() + "\n", encoding="utf-8")
    return out


def inputs_file(model: str | Path) -> Path:
    """Where the digest of the features' inputs a model was trained with is kept (beside the model)."""
    return Path(f"{model}.inputs")


def feature_inputs_digest() -> str:
    """sha256 of everything the features read besides the text: the lexicons, the gazetteer's names, the
    cue patterns, the feature functions' code, the text normalisation and the segmenter's version. Written beside a model when it
    is trained; a model whose digest differs from today's was trained on other features (retrain it)."""
    import hashlib
    import inspect
    import json
    from importlib.metadata import version

    lexicons = {"before_title": BEFORE_TITLE_WORDS, "common_surnames": COMMON_SURNAMES, "common_words": COMMON_WORDS,
                "compound": COMPOUND_SURNAMES, "given": GIVEN_NAME_CHARS, "hospitals": HOSPITAL_ABBREVIATIONS,
                "stop": STOP_CHARS, "surnames": SURNAMES}
    code = [inspect.getsource(f) for f in (_char_class, _shape, _char_info, _places, _place_heads, _words, _segments,
                                           _gazetteer_marks, _cue_marks, char_features, _features)]
    bmp = "".join(map(chr, range(0x20, 0xD800)))
    code.append(hashlib.sha256(normalize(bmp).encode()).hexdigest())     # what the features read is normalised
    parts = {"lexicons": {k: sorted(v) for k, v in lexicons.items()}, "places": sorted(_places()[0].items()),
             "cues": {k: p.pattern for k, p in _CUES.items()}, "code": code, "rjieba": version("rjieba")}
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, sort_keys=True).encode()).hexdigest()
