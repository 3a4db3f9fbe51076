"""Challenge-point candidates and the choice of t* (pure: no model, no I/O).

Reading of DESIGN.md Phase 2 ("candidates are the turns just before a physician reply"):

* ``system`` events (platform notices, cards) are invisible: they neither start nor break a run
  and are never a candidate.
* A *doctor run* is a maximal sequence of doctor events (system events between them ignored).
  For every doctor run, the candidate t is the index of the last patient event before it — the
  moment the physician has to answer. A run that opens the consultation (no patient event before
  it) gives no candidate.
* A candidate needs at least one patient-uploaded medical image (:attr:`Event.is_medical_image`)
  at or before t: stickers, emojis, platform images and doctor uploads do not count, because the
  benchmark is about replies that may depend on the patient's images.
* The doctor run must hold some text, since ``y_orig`` (the physician's real reply) is text; a
  run of doctor images only is skipped.

Selection: keep candidates whose agent A and agent M labels are both 1; t* = argmax(s_A + s_M).
Ties (sums equal to 1e-9) go to the **earliest** candidate: at an earlier point the physician has
given away less of their own reasoning in the dialogue, so y_orig is less predictable from x, and
the choice does not depend on how far a (possibly truncated) export runs.
A candidate an agent could not score is never counted as 0 or 1: it is left out of the argmax,
and when no scored candidate is kept but some were unscored the consultation is discarded with the
reason ``unscored`` (a later run with more retries may rescue it), not ``no_positive``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from medrealmm.corpus.schema import Event

NO_CANDIDATE = "no_candidate"        # no patient turn after a medical image is followed by a doctor reply
NO_POSITIVE = "no_positive"          # every candidate scored, none with both labels 1
UNSCORED = "unscored"                # none kept, and at least one candidate could not be scored
DISCARD_REASONS: tuple[str, ...] = (NO_CANDIDATE, NO_POSITIVE, UNSCORED)
TIE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class AgentScore:
    """One agent's answer for one candidate."""

    label: int
    score: float

    def __post_init__(self) -> None:
        if self.label not in (0, 1) or isinstance(self.label, bool):
            raise ValueError(f"label must be 0 or 1, got {self.label!r}")
        if not 0.0 <= float(self.score) <= 1.0:
            raise ValueError(f"score must be in [0, 1], got {self.score!r}")


@dataclass(frozen=True)
class Selection:
    """The outcome for one consultation: ``t_star`` or a discard ``reason``, with the counts."""

    t_star: int | None
    reason: str | None
    n_candidates: int
    n_kept: int = 0
    n_unscored: int = 0
    kept: tuple[int, ...] = ()
    scores: dict[str, float] = field(default_factory=dict)   # s_A, s_M, sum at t*

    @property
    def selected(self) -> bool:
        return self.t_star is not None


def _content_events(events: Sequence[Event]) -> list[tuple[int, Event]]:
    return [(i, e) for i, e in enumerate(events) if e.speaker != "system"]


def doctor_run_after(events: Sequence[Event], t: int) -> list[int]:
    """Indexes of the doctor events that answer right after ``t`` (system events skipped)."""
    run: list[int] = []
    for i in range(t + 1, len(events)):
        sp = events[i].speaker
        if sp == "system":
            continue
        if sp != "doctor":
            break
        run.append(i)
    return run


def candidate_positions(events: Sequence[Event]) -> list[int]:
    """Event indexes t that are challenge-point candidates (see the module docstring)."""
    out: list[int] = []
    seen_image = False
    content = _content_events(events)
    for k, (i, e) in enumerate(content):
        if e.is_medical_image:
            seen_image = True
        if e.speaker != "patient" or not seen_image:
            continue
        nxt = content[k + 1][1] if k + 1 < len(content) else None
        if nxt is None or nxt.speaker != "doctor":
            continue
        run = doctor_run_after(events, i)
        if any(events[j].modality == "text" and events[j].content.strip() for j in run):
            out.append(i)
    return out


def select_challenge_point(candidates: Sequence[int], agent_a: Mapping[int, AgentScore | None],
                           agent_m: Mapping[int, AgentScore | None]) -> Selection:
    """t* among ``candidates`` from both agents' outputs (a missing or ``None`` entry = unscored)."""
    if not candidates:
        return Selection(None, NO_CANDIDATE, 0)
    kept: list[tuple[int, float, float]] = []
    unscored = 0
    for t in candidates:
        a, m = agent_a.get(t), agent_m.get(t)
        if a is None or m is None:
            unscored += 1
            continue
        if a.label == 1 and m.label == 1:
            kept.append((t, float(a.score), float(m.score)))
    if not kept:
        return Selection(None, UNSCORED if unscored else NO_POSITIVE, len(candidates), 0, unscored)
    best = max(s_a + s_m for _, s_a, s_m in kept)
    t, s_a, s_m = min((k for k in kept if k[1] + k[2] >= best - TIE_TOLERANCE), key=lambda k: k[0])
    return Selection(t, None, len(candidates), len(kept), unscored, tuple(k[0] for k in kept),
                     {"s_a": s_a, "s_m": s_m, "sum": s_a + s_m})
