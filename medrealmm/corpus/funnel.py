"""The Phase 1 funnel: raw consultations in, benchmark candidates out, every drop with its reason.

Each stage is a function ``(consultations, cfg) -> StageResult`` with its thresholds from the
stage's typed config section (:mod:`medrealmm.corpus.settings`, mirrored by ``conf/corpus/default.yaml``;
a plain dict is read as that section, missing keys taking its defaults). Reasons are short strings with numbers and
rule names only — never dialogue text, which may hold identifiers until de-identification.

Stages, in order (:data:`STAGES`):

1. ``image_availability`` — keep a consultation only if the *patient* uploaded at least
   ``min_images`` medical images (:attr:`Event.is_medical_image`, i.e. ``origin == "patient_upload"``);
   stickers, emojis, platform-injected and doctor images do not count. ``enabled: false`` skips it
   (text-only corpora such as CMtMedQA); a skipped stage is still recorded, with nothing dropped.
2. ``dialogue_quality`` — the first failing rule drops the consultation:

   - *turns* ∉ [``min_turns``, ``max_turns``]: a turn is a maximal run of consecutive messages by one
     side (patient or doctor; system messages are ignored and do not split a run), so a patient
     sending three messages and a photo in a row is one turn;
   - *length*: the text of patient and doctor messages (stripped; platform/system text excluded)
     totals more than ``max_chars`` characters;
   - *side share*: the paper's "one side sends more than half of the messages". With two sides a
     symmetric ≤ 50 % rule would keep only perfectly balanced dialogues, so it is read as a cap per
     side: ``max_side_share.doctor`` (default 0.5) — the doctor may send at most half of the
     patient+doctor messages (images included), which drops doctor monologues where the patient
     barely took part; ``max_side_share.patient`` (default off) is the same cap for the patient;
   - *cancelled*: the patient's last turn contains a cancellation/refund phrase
     (``cancel_phrases``: 退款, 取消订单 ...) and, before it, the doctor sent fewer than
     ``min_diagnostic_messages`` text messages of at least ``min_diagnostic_chars`` characters
     (the "diagnostic exchange"; short greetings do not count);
   - *llm*: optional (``dialogue_quality.llm.enabled``): a model reads the dialogues that passed the
     rules, in one batched pass (:mod:`medrealmm.corpus.quality_llm`); in code any
     ``llm_check(consultations) -> [reason | None]`` callable.
3. ``department_balance`` — stratified, seeded sampling to ``target_size``: department ``d`` with
   ``n_d`` consultations gets a quota ``clip(λ·n_d, min(n_d, floor), min(n_d, cap))`` with λ solved so
   the quotas sum to the target (largest-remainder rounding). So departments at or below ``floor``
   keep everything (the long tail is over-sampled relative to its volume), large ones share the rest
   proportionally, and none exceeds ``cap = min(max_per_department, max_share·target_size)``. Caps
   apply even when the corpus is below the target. Within a department the quota's consultations
   with the smallest :func:`~medrealmm.data.subset_key` are kept, so the choice is
   deterministic for a seed, independent of file order, and nested across quota sizes.
4. ``deid`` / ``review`` — de-identification (``medrealmm deid``: privacy-incompatible removal) and
   human review (``medrealmm deid-review``) run as their own commands; when their results are given
   (the deid ``out_dir``, its ``removed.jsonl``, or a mapping ``id -> reason``) the funnel records the
   cases they removed as two more stages. From a ``removed.jsonl``, reviewer rejections
   (``"rejected by reviewer"``) belong to ``review`` and every other row to ``deid``. Run *inside* the
   funnel (``corpus.deid.enabled``), stage 4 is a callable that the de-identification phase provides
   (:func:`medrealmm.deid.funnel_step.deid_step`): this module never imports ``deid``.

The ``medrealmm corpus`` command around the funnel (config, outputs, report) is :mod:`.build`.
"""

from __future__ import annotations

import json
import logging
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import polars as pl

from medrealmm.atomic import write_bytes, write_lines, write_parquet
from medrealmm.config import plain
from medrealmm.config_schema import Settings
from medrealmm.corpus import settings
from medrealmm.corpus.schema import Consultation
from medrealmm.corpus.settings import (
    CorpusSettings,
    DepartmentBalanceSettings,
    DialogueQualitySettings,
    ImageAvailabilitySettings,
    SideShareSettings,
)
from medrealmm.data import resolve_image_path, subset_key
from medrealmm.schema import CaseError
from medrealmm.csvsafe import write_csv

log = logging.getLogger(__name__)

STAGES = ("image_availability", "dialogue_quality", "department_balance")
INPUT = "input"
DEID, REVIEW = "deid", "review"
REVIEW_REASON = "rejected by reviewer"

DEFAULT_CANCEL_PHRASES = tuple(settings.DEFAULT_CANCEL_PHRASES)

LLMCheck = Callable[[Sequence[Consultation]], "list[str | None]"]
StageHook = Mapping[str, str] | str | Path | Callable[[list[Consultation]], "StageResult"]


@dataclass
class StageResult:
    """What one stage kept, and the ids it dropped with a short reason each."""

    name: str
    kept: list[Consultation]
    dropped: list[tuple[str, str]] = field(default_factory=list)
    skipped: bool = False


@dataclass(frozen=True)
class Dropped:
    id: str
    stage: str
    reason: str
    department: str


@dataclass
class FunnelResult:
    """The funnel's outcome: final consultations, every drop, and counts per stage and department."""

    kept: list[Consultation]
    dropped: list[Dropped]
    counts: pl.DataFrame          # stage_index, stage, department, kept, dropped (full stage x department grid)
    stages: list[str]             # "input" then each stage run, in order
    skipped: list[str] = field(default_factory=list)
    errors: list[CaseError] = field(default_factory=list)

    def overall(self) -> pl.DataFrame:
        """Counts per stage over all departments: stage_index, stage, kept, dropped."""
        return (self.counts.group_by("stage_index", "stage", maintain_order=True)
                .agg(pl.col("kept").sum(), pl.col("dropped").sum()).sort("stage_index"))


# --------------------------------------------------------------------------------------------------
# config helpers


S = TypeVar("S", bound=Settings)

#: A stage's config: its typed section, the corpus settings holding it, or a plain dict of either
#: (missing keys take the defaults of :mod:`medrealmm.corpus.settings`).
StageConfig = Settings | Mapping[str, Any] | None


def _section(cfg: StageConfig, model: type[S], name: str) -> S:
    """The stage's typed section: ``cfg`` itself when it is the section, else the section of the corpus
    config ``cfg`` is (a plain dict is the corpus config when one of its keys is a corpus-level one)."""
    if isinstance(cfg, model):
        return cfg
    if isinstance(cfg, CorpusSettings):
        return getattr(cfg, name)
    c = plain(cfg) or {}
    if set(c) & set(CorpusSettings.model_fields):
        return getattr(CorpusSettings.of(c, "corpus"), name)
    return model.of(c, f"corpus.{name}")


# --------------------------------------------------------------------------------------------------
# stage 1: image availability


def image_availability(consultations: Iterable[Consultation], cfg: StageConfig = None) -> StageResult:
    """Keep consultations with at least ``min_images`` patient-uploaded medical images."""
    c = _section(cfg, ImageAvailabilitySettings, "image_availability")
    items = list(consultations)
    if not c.enabled:
        return StageResult("image_availability", items, skipped=True)
    need = c.min_images
    res = StageResult("image_availability", [])
    for cons in items:
        n = sum(e.is_medical_image for e in cons.events)
        if n >= need:
            res.kept.append(cons)
            continue
        others = Counter(e.origin for e in cons.events if e.modality == "image" and not e.is_medical_image)
        detail = ", ".join(f"{k} {v}" for k, v in sorted(others.items())) or "none"
        res.dropped.append((cons.id, f"patient images {n} < {need} (other images: {detail})"))
    return res


# --------------------------------------------------------------------------------------------------
# stage 2: dialogue quality


def _sides(cons: Consultation) -> list[Any]:
    return [e for e in cons.events if e.speaker != "system"]


def count_turns(cons: Consultation) -> int:
    """Maximal runs of consecutive patient/doctor messages by one side (system messages ignored)."""
    turns, last = 0, None
    for e in _sides(cons):
        if e.speaker != last:
            turns, last = turns + 1, e.speaker
    return turns


def text_chars(cons: Consultation) -> int:
    """Characters of patient and doctor text (stripped); images and system messages excluded."""
    return sum(len(e.content.strip()) for e in _sides(cons) if e.modality == "text")


def _cancel_reason(cons: Consultation, c: DialogueQualitySettings) -> str | None:
    phrases = [p for p in (c.cancel_phrases or DEFAULT_CANCEL_PHRASES) if p]     # an empty list: the defaults
    need, min_chars = c.min_diagnostic_messages, c.min_diagnostic_chars
    events = _sides(cons)
    if not events or not phrases:
        return None
    # the patient's last turn: the last run of patient messages (what follows it, if anything, is the doctor's)
    end = max((i for i, e in enumerate(events) if e.speaker == "patient"), default=None)
    if end is None:
        return None
    start = end
    while start > 0 and events[start - 1].speaker == "patient":
        start -= 1
    closing = " ".join(e.content for e in events[start:end + 1] if e.modality == "text")
    matched = next((p for p in phrases if p in closing), None)
    if matched is None:
        return None
    diagnostic = sum(1 for e in events[:start]
                     if e.speaker == "doctor" and e.modality == "text" and len(e.content.strip()) >= min_chars)
    if diagnostic >= need:
        return None
    return (f"patient closed with cancellation/refund (phrase {matched!r}) after {diagnostic} diagnostic "
            f"doctor message(s) < {need}")


def _side_share_reason(cons: Consultation, shares: SideShareSettings | None) -> str | None:
    events = _sides(cons)
    for side in ("doctor", "patient"):
        cap = getattr(shares, side) if shares is not None else None
        if cap is None or not events:
            continue
        n = sum(e.speaker == side for e in events)
        if n / len(events) > float(cap):
            return f"{side} sends {n}/{len(events)} messages ({n / len(events):.2f} > {float(cap):.2f})"
    return None


def quality_reason(cons: Consultation, cfg: StageConfig = None) -> str | None:
    """Why ``cons`` fails the dialogue-quality rules (the first failing one), or None."""
    c = _section(cfg, DialogueQualitySettings, "dialogue_quality")
    turns = count_turns(cons)
    if turns < c.min_turns:
        return f"turns {turns} < {c.min_turns}"
    if turns > c.max_turns:
        return f"turns {turns} > {c.max_turns}"
    if c.max_chars is not None:
        n = text_chars(cons)
        if n > c.max_chars:
            return f"text {n} chars > {c.max_chars}"
    return _side_share_reason(cons, c.max_side_share) or _cancel_reason(cons, c) or None


def dialogue_quality(consultations: Iterable[Consultation], cfg: StageConfig = None, *,
                     llm_check: LLMCheck | None = None) -> StageResult:
    """Drop consultations that are too short/long, one-sided, or cancelled before any diagnosis."""
    c = _section(cfg, DialogueQualitySettings, "dialogue_quality")
    items = list(consultations)
    if not c.enabled:
        return StageResult("dialogue_quality", items, skipped=True)
    res = StageResult("dialogue_quality", [])
    passed = []
    for cons in items:
        reason = quality_reason(cons, c)
        if reason is None:
            passed.append(cons)
        else:
            res.dropped.append((cons.id, reason))
    verdicts = list(llm_check(passed)) if llm_check is not None and passed else [None] * len(passed)
    if len(verdicts) != len(passed):
        raise RuntimeError(f"llm_check returned {len(verdicts)} verdicts for {len(passed)} consultations")
    for cons, verdict in zip(passed, verdicts, strict=True):
        if verdict:
            res.dropped.append((cons.id, f"llm check: {verdict}"))
        else:
            res.kept.append(cons)
    return res


# --------------------------------------------------------------------------------------------------
# stage 3: department balance


def department_quotas(sizes: Mapping[str, int], target: int, *, floor: int = 0,
                      cap: int | None = None) -> dict[str, int]:
    """How many consultations each department keeps: see stage 3 in the module docstring."""
    lo = {d: min(n, floor) for d, n in sizes.items()}
    hi = {d: min(n, cap) if cap is not None else n for d, n in sizes.items()}
    lo = {d: min(lo[d], hi[d]) for d in sizes}
    if sum(hi.values()) <= target:
        return hi
    if sum(lo.values()) >= target:
        if sum(lo.values()) > target:
            log.warning("department balance: the floor alone keeps %d > target %d", sum(lo.values()), target)
        return lo

    def filled(lam: float) -> list[float]:
        return [min(max(lam * sizes[d], lo[d]), hi[d]) for d in sizes]

    a, b = 0.0, max(hi[d] / sizes[d] for d in sizes if sizes[d] > 0)
    for _ in range(200):
        mid = (a + b) / 2
        if sum(filled(mid)) < target:
            a = mid
        else:
            b = mid
    exact = dict(zip(sizes, filled(b), strict=True))
    quota = {d: max(lo[d], min(hi[d], math.floor(q + 1e-9))) for d, q in exact.items()}
    left = target - sum(quota.values())
    order = sorted(sizes, key=lambda d: (-(exact[d] - math.floor(exact[d] + 1e-9)), -sizes[d], d))
    while left > 0:
        grown = False
        for d in order:
            if left > 0 and quota[d] < hi[d]:
                quota[d] += 1
                left -= 1
                grown = True
        if not grown:
            break
    return quota


def department_balance(consultations: Iterable[Consultation], cfg: StageConfig = None) -> StageResult:
    """Stratified seeded sampling to ``target_size`` with per-department caps and a long-tail floor."""
    c = _section(cfg, DepartmentBalanceSettings, "department_balance")
    items = list(consultations)
    if not c.enabled:
        return StageResult("department_balance", items, skipped=True)
    target, floor, seed = c.target_size, c.floor, c.seed
    caps = [c.max_per_department] if c.max_per_department is not None else []
    if c.max_share is not None:
        caps.append(max(1, math.floor(c.max_share * target)))
    cap = min(caps) if caps else None
    by_dept: dict[str, list[Consultation]] = defaultdict(list)
    for cons in items:
        by_dept[cons.department].append(cons)
    quotas = department_quotas({d: len(v) for d, v in by_dept.items()}, target, floor=floor, cap=cap)
    keep: set[str] = set()
    res = StageResult("department_balance", [])
    reasons: dict[str, str] = {}
    for d, group in by_dept.items():
        ranked = sorted(group, key=lambda x: (subset_key(x.id, seed), x.id))
        keep.update(x.id for x in ranked[:quotas[d]])
        why = (f"department {d}: quota {quotas[d]} of {len(group)}"
               + (f" (cap {cap})" if cap is not None and quotas[d] == cap else "") + f", target {target}, seed {seed}")
        for x in ranked[quotas[d]:]:
            reasons[x.id] = why
    for cons in items:
        if cons.id in keep:
            res.kept.append(cons)
        else:
            res.dropped.append((cons.id, reasons[cons.id]))
    log.info("department balance: %d -> %d over %d department(s) (target %d, floor %d, cap %s)",
             len(items), len(res.kept), len(by_dept), target, floor, cap)
    return res


# --------------------------------------------------------------------------------------------------
# stages 4-5: recorded from the deid and review commands


def _removed_rows(source: StageHook) -> tuple[list[dict[str, Any]], set[str] | None]:
    """Rows {id, reason} of a removed.jsonl (or a deid out_dir), and the ids of its cases.jsonl if any."""
    path = Path(source)
    cases: set[str] | None = None
    if path.is_dir():
        if (path / "cases.jsonl").is_file():
            with (path / "cases.jsonl").open(encoding="utf-8") as f:
                cases = {json.loads(line)["id"] for line in f if line.strip()}
        path = path / "removed.jsonl"
    rows: list[dict[str, Any]] = []
    if path.is_file():
        with path.open(encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    elif cases is None:
        raise FileNotFoundError(f"no de-identification results at {source} (expected removed.jsonl or its folder)")
    return rows, cases


def recorded_stage(name: str, consultations: Iterable[Consultation], source: StageHook) -> StageResult:
    """A stage run elsewhere (``deid`` or ``review``), as a StageResult over ``consultations``."""
    items = list(consultations)
    if isinstance(source, Mapping):
        removed = {str(k): str(v) for k, v in source.items()}
        present: set[str] | None = None
    else:
        rows, present = _removed_rows(source)
        if present is not None:            # a case removed by either stage is accounted for, not "missing"
            present |= {str(r["id"]) for r in rows}
        rows = [r for r in rows if (r.get("reason") == REVIEW_REASON) == (name == REVIEW)]
        removed = {str(r["id"]): str(r.get("reason") or name) for r in rows}
    res = StageResult(name, [])
    ids = {c.id for c in items}
    unknown = set(removed) - ids
    if unknown:
        log.warning("%s: %d removed id(s) are not among the funnel's consultations; ignored", name, len(unknown))
    for cons in items:
        if cons.id in removed:
            res.dropped.append((cons.id, removed[cons.id]))
        elif name == DEID and present is not None and cons.id not in present:
            res.dropped.append((cons.id, "missing from the de-identification output (see its errors.jsonl)"))
        else:
            res.kept.append(cons)
    return res


# --------------------------------------------------------------------------------------------------
# the funnel


def _counts(stages: Sequence[tuple[str, list[Consultation], list[tuple[str, str]]]],
            departments: Sequence[str], dept_of: Mapping[str, str]) -> pl.DataFrame:
    rows: list[dict[str, Any]] = []
    for i, (name, kept, dropped) in enumerate(stages):
        k = Counter(c.department for c in kept)
        dr = Counter(dept_of[cid] for cid, _ in dropped)
        rows += [{"stage_index": i, "stage": name, "department": d, "kept": k.get(d, 0), "dropped": dr.get(d, 0)}
                 for d in departments]
    schema = {"stage_index": pl.Int64, "stage": pl.String, "department": pl.String, "kept": pl.Int64,
              "dropped": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


def run_funnel(consultations: Iterable[Consultation | CaseError], cfg: CorpusSettings | Mapping[str, Any] | None = None,
               *, deid: StageHook | None = None, review: StageHook | None = None,
               llm_check: LLMCheck | None = None) -> FunnelResult:
    """Run the stages in order; CaseErrors in the input are set aside in ``errors``. ``cfg``: the corpus
    settings (a plain dict is read as :class:`~medrealmm.corpus.settings.CorpusSettings`, defaults filled)."""
    corpus = CorpusSettings.of(plain(cfg), "corpus")
    items: list[Consultation] = []
    errors: list[CaseError] = []
    seen: set[str] = set()
    for x in consultations:
        if isinstance(x, CaseError):
            errors.append(x)
        elif x.id in seen:
            errors.append(CaseError("duplicate consultation id", case_id=x.id, field="id"))
        else:
            seen.add(x.id)
            items.append(x)
    dept_of = {c.id: c.department for c in items}
    sizes = Counter(dept_of.values())
    departments = sorted(sizes, key=lambda d: (-sizes[d], d))
    done: list[tuple[str, list[Consultation], list[tuple[str, str]]]] = [(INPUT, items, [])]
    dropped: list[Dropped] = []
    skipped: list[str] = []
    current = items
    steps: list[tuple[str, Callable[[list[Consultation]], StageResult]]] = [
        ("image_availability", lambda xs: image_availability(xs, corpus.image_availability)),
        ("dialogue_quality", lambda xs: dialogue_quality(xs, corpus.dialogue_quality, llm_check=llm_check)),
        ("department_balance", lambda xs: department_balance(xs, corpus.department_balance)),
    ]
    if callable(deid):
        steps.append((DEID, deid))
    elif deid is not None:
        steps.append((DEID, lambda xs: recorded_stage(DEID, xs, deid)))
    if review is not None:
        steps.append((REVIEW, lambda xs: recorded_stage(REVIEW, xs, review)))
    for name, step in steps:
        res = step(current)
        if res.skipped:
            skipped.append(name)
        dropped += [Dropped(cid, name, reason, dept_of[cid]) for cid, reason in res.dropped]
        done.append((name, res.kept, res.dropped))
        log.info("funnel %-18s kept %6d, dropped %6d%s", name, len(res.kept), len(res.dropped),
                 " (skipped)" if res.skipped else "")
        current = res.kept
    if errors:
        log.warning("funnel: %d unusable record(s) set aside", len(errors))
    return FunnelResult(kept=current, dropped=dropped, counts=_counts(done, departments, dept_of),
                        stages=[d[0] for d in done], skipped=skipped, errors=errors)


# --------------------------------------------------------------------------------------------------
# output


OUT_KEPT, OUT_DROPPED, OUT_ERRORS, OUT_COUNTS = "consultations.jsonl", "dropped.jsonl", "errors.jsonl", "funnel_counts"


def write_funnel(result: FunnelResult, out_dir: str | Path) -> Path:
    """Write kept consultations, drops, import errors and the stage x department counts."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_lines(out / OUT_KEPT, (json.dumps(c.model_dump(mode="json"), ensure_ascii=False) for c in result.kept))
    write_lines(out / OUT_DROPPED, (json.dumps({"id": d.id, "stage": d.stage, "reason": d.reason,
                                                 "department": d.department}, ensure_ascii=False)
                                     for d in result.dropped))
    write_lines(out / OUT_ERRORS, (json.dumps({"case": e.case_id, "field": e.field, "file": e.file,
                                                "reason": e.reason}, ensure_ascii=False) for e in result.errors))
    write_csv(result.counts, out / f"{OUT_COUNTS}.csv")
    write_parquet(out / f"{OUT_COUNTS}.parquet", result.counts)
    log.info("funnel: %d consultation(s) kept, %d dropped, written to %s", len(result.kept), len(result.dropped), out)
    return out


def copy_images(kept: Sequence[Consultation], root: Path, out: Path) -> int:
    """Copy the images of the kept consultations next to ``consultations.jsonl`` (same relative paths),
    so the output folder is self-contained for ``medrealmm mccp``. Paths outside ``root`` are refused."""
    n = 0
    for c in kept:
        for e in c.events:
            if e.modality != "image":
                continue
            try:
                source = resolve_image_path(root, e.content)
            except ValueError as err:
                raise ValueError(f"consultation {c.id!r}: {err}") from None
            target = out / e.content
            if not source.is_file():
                log.warning("consultation %s: an image file is missing (event path kept as is)", c.id)
                continue
            if source != target.resolve():
                target.parent.mkdir(parents=True, exist_ok=True)
                write_bytes(target, source.read_bytes())
                n += 1
    if n:
        log.info("copied %d image(s) of the kept consultations to %s", n, out)
    return n


def read_input(path: str | Path, fmt: str = "jsonl", mapping: Mapping[str, Any] | None = None
               ) -> Iterable[Consultation | CaseError]:
    """Consultations from ``path`` in ``fmt`` (``jsonl`` raw logs or a ``cmtmedqa`` dialogue file)."""
    from medrealmm.corpus.importers import read_cmtmedqa, read_consultations

    if fmt == "jsonl":
        return read_consultations(path, mapping)
    if fmt == "cmtmedqa":
        return read_cmtmedqa(path)
    raise ValueError(f"corpus.format must be 'jsonl' or 'cmtmedqa', not {fmt!r}")
