"""The text detector of the de-identification stage: the rules, the statistical layer and the spoken
layer (numbers read out or disguised, :mod:`medrealmm.deid.text_spoken`), merged.

One builder, :func:`build_text_detector`, turns ``deid.text`` (conf/deid/default.yaml) into a
:class:`TextDetector`; the stage (:func:`medrealmm.deid.build.text_masker`) and the public
:func:`detect_text` both call it, so what a caller measures is what the stage masks. The LLM agent
(``deid.text.agent``) runs after this detector, in :class:`medrealmm.deid.stage.TextMasker`, and its
spans are merged with these.

What counts as identifying is :mod:`medrealmm.deid.text_policy`; the switches live under
``deid.text.policy``.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medrealmm.deid.settings import TextSettings
from medrealmm.deid.spans import Span, detect_each, merge_spans
from medrealmm.deid.text_policy import TextPolicy
from medrealmm.deid.text_rules import RuleDetector, normalize

log = logging.getLogger(__name__)

_STAFF_TITLE = re.compile(r"副主任医师|主任医师|副主任|副教授|副院长|主治医师|住院医师|医生|大夫|医师|主任|教授|院长|护士长|"
                          r"护士|药师|技师")


@dataclass
class TextDetector:
    """Rules and the statistical layer over texts; spans merged per text, filtered by the policy."""

    rules: Any | None                 # RuleDetector (or anything with .find)
    statistical: Any | None           # StatisticalDetector
    policy: TextPolicy
    learned: Any | None = None        # LearnedDetector (deid.text.learned: the CRF, off by default)
    spoken: Any | None = None         # SpokenDetector (deid.text.spoken: numbers read out or disguised, 加薇, 弓长张)

    def find(self, text: str) -> list[Span]:
        """Merged, sorted spans of every identifier the enabled detectors find in ``text``."""
        if not text:
            return []
        spans: list[Span] = []
        if self.rules is not None:
            spans += self.rules.find(text)
        if self.statistical is not None:
            spans += self.statistical.find(text)
        if self.learned is not None:
            spans += self.learned.find(text)
        if self.spoken is not None:
            spans += self.spoken.find(text)
        merged = _join_touching_places(merge_spans(_places_over_names(spans)))
        if not self.policy.staff_names:
            merged = self._drop_staff_names(text, merged)
        return merged

    def detect(self, texts: Sequence[str]) -> list[list[Span]]:
        """One list of spans per text, in order (counts only are logged, never text)."""
        return detect_each(self.find, texts, "text detector", log)

    @staticmethod
    def _drop_staff_names(text: str, spans: list[Span]) -> list[Span]:
        """``staff_names: false``: a name right before a staff title (王医生, 李建国主任) stays."""
        t = normalize(text)
        return [s for s in spans if not (s.category == "NAME" and _STAFF_TITLE.match(t, s.end))]


def _places_over_names(spans: list[Span]) -> list[Span]:
    """A name one detector finds inside another's address or hospital (张湾村, 冉庄镇东王庄村) is part
    of the place: dropped, so the merged span keeps the place's category (a name would win the merge)."""
    places = [s for s in spans if s.category in ("ADDRESS", "HOSPITAL")]
    if not places:
        return spans
    return [s for s in spans if s.category != "NAME"
            or not any(p.start <= s.start and s.end <= p.end and (p.start, p.end) != (s.start, s.end) for p in places)]


def _join_touching_places(spans: list[Span]) -> list[Span]:
    """Address parts found apart that touch (朝阳区 + 望京) become one address: one placeholder."""
    out: list[Span] = []
    for s in spans:
        if out and s.category == "ADDRESS" == out[-1].category and out[-1].end == s.start:
            prev = out.pop()
            detectors = "+".join(sorted(set(prev.detector.split("+")) | set(s.detector.split("+"))))
            s = Span(prev.start, s.end, "ADDRESS", detectors)
        out.append(s)
    return out


def build_text_detector(text_cfg: TextSettings | Mapping[str, Any] | None = None) -> TextDetector:
    """The detector that ``deid.text`` describes (``rules``, ``statistical``, ``learned``, ``spoken``,
    ``policy``); with no config, the defaults: rules, statistical and spoken layers on, the documented policy."""
    text = TextSettings.of(text_cfg, "deid.text")
    policy = text.policy
    rules = RuleDetector(year_month=policy.year_month, cueless_dates=policy.cueless_dates) if text.rules else None
    statistical = None
    if text.statistical:
        from medrealmm.deid.text_statistical import StatisticalDetector

        statistical = StatisticalDetector(policy=policy)
    learned = None
    if text.learned:
        from medrealmm.deid.text_learned import DEFAULT_MODEL, LearnedDetector

        model = Path(text.learned_model or DEFAULT_MODEL)
        if not model.is_file():
            raise ValueError(f"learned_model: no CRF model at {model} (python -m tools.deid_crf.train --out PATH "
                             "writes one; null uses the shipped one)")
        learned = LearnedDetector(model)
    spoken = None
    if text.spoken:
        from medrealmm.deid.text_spoken import SpokenDetector

        spoken = SpokenDetector(year_month=policy.year_month)
    return TextDetector(rules, statistical, policy, learned, spoken)


def default_text_config() -> dict[str, Any]:
    """``deid.text``'s defaults (:class:`~medrealmm.deid.settings.TextSettings`, which conf/deid/default.yaml
    mirrors), without the LLM agent."""
    return TextSettings(agent=False).model_dump()


@functools.lru_cache(maxsize=1)
def default_text_detector() -> TextDetector:
    """The default configuration (rules + statistical layer, no LLM), built once per process."""
    return build_text_detector(default_text_config())


def detect_text(text: str) -> list[tuple[int, int, str]]:
    """Identifiers in ``text`` as ``(start, end, category)`` (end exclusive), found as the
    de-identification stage finds them with its default configuration (rules + statistical layer,
    no LLM agent). Offsets index the original string."""
    return [(s.start, s.end, s.category) for s in default_text_detector().find(text)]


def detect_consultation(texts: Sequence[str]) -> list[list[tuple[int, int, str]]]:
    """Identifiers in each message of ONE consultation, as the stage finds them by default: each
    message as :func:`detect_text` reads it, then what was found anywhere in the consultation masked
    wherever it recurs in it (``deid.text.consistency``, :mod:`medrealmm.deid.text_consistency`)."""
    from medrealmm.deid.text_consistency import propagate

    found = propagate(texts, default_text_detector().detect(texts))
    return [[(s.start, s.end, s.category) for s in spans] for spans in found]


WARM_UP = "预热：刘平，杭州"
"""A text that loads the segmenter and the gazetteer (a name, a city): detect it before timing or serving."""

PARALLEL_MIN_TEXTS = 256
"""A batch smaller than this is detected in the calling process: handing it to workers costs more
than it saves."""

_WORKER_DETECTOR: TextDetector | None = None


def _start_worker(text_cfg: dict[str, Any]) -> None:
    global _WORKER_DETECTOR
    _WORKER_DETECTOR = build_text_detector(text_cfg)
    _WORKER_DETECTOR.find(WARM_UP)                  # load the segmenter and gazetteer before the first batch


def _detect_in_worker(texts: list[str]) -> list[list[Span]]:
    assert _WORKER_DETECTOR is not None
    return [_WORKER_DETECTOR.find(t) for t in texts]


class ParallelTextDetector:
    """The same detector in ``workers`` processes (``deid.text.workers``): a large batch is cut into
    one slice per worker, the spans come back in order, identical to one process's. The rules and the
    statistical layer are pure Python and hold the GIL, so threads would not help; processes do, one
    per free core. The pool starts on the first large batch (each worker loads the segmenter once) and
    stops with :meth:`close`."""

    def __init__(self, text_cfg: TextSettings | Mapping[str, Any], workers: int, local: TextDetector | None = None):
        """``local``: the detector ``text_cfg`` builds, when the caller has built it already (it serves
        small batches in this process; each worker builds its own from ``text_cfg``)."""
        self.settings = TextSettings.of(text_cfg, "deid.text")
        self.local = local if local is not None else build_text_detector(self.settings)
        self.workers = workers
        self._pool: Any | None = None

    def find(self, text: str) -> list[Span]:
        return self.local.find(text)

    def detect(self, texts: Sequence[str]) -> list[list[Span]]:
        if self.workers < 2 or len(texts) < PARALLEL_MIN_TEXTS:
            return self.local.detect(texts)
        if self._pool is None:
            import multiprocessing

            # spawn, not fork: the stage may hold OCR and ONNX runtime threads that a fork would copy mid-state
            ctx = multiprocessing.get_context("spawn")
            self._pool = ctx.Pool(self.workers, initializer=_start_worker, initargs=(self.settings.model_dump(),))
        size = -(-len(texts) // self.workers)
        slices = [list(texts[i:i + size]) for i in range(0, len(texts), size)]
        result = [spans for part in self._pool.map(_detect_in_worker, slices) for spans in part]
        log.debug("text detector: %d texts in %d worker(s)", len(texts), len(slices))
        return result

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None
