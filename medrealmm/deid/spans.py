"""Text spans of identifiers and their replacement by typed placeholders.

A :class:`Span` names where an identifier is (character offsets into the text) and what it is;
it never holds the identifier's text, so spans can be logged and written to the audit trail.
Rule and agent detectors produce spans independently; :func:`merge_spans` combines them, and
:func:`apply_placeholders` writes the masked text.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

CATEGORIES: tuple[str, ...] = ("NAME", "ID", "PHONE", "EMAIL", "URL", "ORDER_ID", "MRN", "DATE", "HOSPITAL",
                               "ADDRESS")
"""Placeholder categories, written as ``[NAME]``, ``[ID]``, … in masked text."""

# When two overlapping spans disagree, the more specific category wins (an ID number inside an
# address is an ID; a hospital name inside an address is a hospital).
PRIORITY: dict[str, int] = {c: i for i, c in enumerate(
    ("ID", "PHONE", "EMAIL", "URL", "MRN", "ORDER_ID", "DATE", "NAME", "HOSPITAL", "ADDRESS"))}


@dataclass(frozen=True, order=True)
class Span:
    start: int
    end: int                 # exclusive
    category: str
    detector: str = "rules"  # "rules", "agent", "rules+agent", or a detector name

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown identifier category {self.category!r}; one of {CATEGORIES}")
        if not 0 <= self.start < self.end:
            raise ValueError(f"span offsets must satisfy 0 <= start < end, got {self.start}, {self.end}")

    @property
    def placeholder(self) -> str:
        return f"[{self.category}]"

    def audit(self) -> dict[str, object]:
        """What the audit trail keeps: never the text itself."""
        return {"start": self.start, "end": self.end, "category": self.category, "detector": self.detector}


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Overlapping spans become one span covering all of them (touching ones stay apart).

    The merged span takes the highest-priority category among its parts (:data:`PRIORITY`) and
    lists every detector that contributed (``"agent+rules"``), sorted by name.
    """
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    out: list[Span] = []
    group: list[Span] = []
    end = -1
    for s in ordered:
        if group and s.start < end:
            group.append(s)
            end = max(end, s.end)
            continue
        if group:
            out.append(_combine(group))
        group, end = [s], s.end
    if group:
        out.append(_combine(group))
    return out


def _combine(group: Sequence[Span]) -> Span:
    if len(group) == 1:
        return group[0]
    category = min((s.category for s in group), key=lambda c: PRIORITY[c])
    detectors = sorted({d for s in group for d in s.detector.split("+")})
    return Span(min(s.start for s in group), max(s.end for s in group), category, "+".join(detectors))


def apply_placeholders(text: str, spans: Iterable[Span]) -> str:
    """The text with every (merged) span replaced by its placeholder."""
    merged = merge_spans(spans)
    for s in merged:
        if s.end > len(text):
            raise ValueError(f"span {s.start}-{s.end} is outside a text of {len(text)} characters")
    parts: list[str] = []
    pos = 0
    for s in merged:
        parts.append(text[pos:s.start])
        parts.append(s.placeholder)
        pos = s.end
    parts.append(text[pos:])
    return "".join(parts)


def detect_each(find: Callable[[str], list[Span]], texts: Sequence[str], who: str,
                logger: logging.Logger) -> list[list[Span]]:
    """One list of spans per text, in order; at DEBUG the counts per category (never any text)."""
    result = [find(t) for t in texts]
    if logger.isEnabledFor(logging.DEBUG):
        counts: dict[str, int] = {}
        for spans in result:
            for s in spans:
                counts[s.category] = counts.get(s.category, 0) + 1
        logger.debug("%s: %d texts, %d spans %s", who, len(texts), sum(counts.values()), dict(sorted(counts.items())))
    return result
