"""The Phase 1 funnel: raw consultations in, benchmark candidates out, every drop with its reason.

Each stage is a function ``(consultations, cfg) -> StageResult`` with its thresholds from the
stage's config section (``conf/corpus/default.yaml``). Reasons are short strings with numbers and
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
   (``"rejected by reviewer"``) belong to ``review`` and every other row to ``deid``.
"""

from __future__ import annotations

import json
import logging
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm.atomic import write_lines
from medrealmm.config import plain
from medrealmm.corpus.schema import Consultation
from medrealmm.data import subset_key
from medrealmm.schema import CaseError
from medrealmm.csvsafe import write_csv

log = logging.getLogger(__name__)

STAGES = ("image_availability", "dialogue_quality", "department_balance")
INPUT = "input"
DEID, REVIEW = "deid", "review"
REVIEW_REASON = "rejected by reviewer"

DEFAULT_CANCEL_PHRASES = ("退款", "申请退款", "取消订单", "取消咨询", "不问了", "不咨询了", "退钱", "退费")

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


def _section(cfg: Mapping[str, Any] | None, name: str) -> dict[str, Any]:
    """The stage's section from the corpus config, or ``cfg`` itself when it is already a section."""
    cfg = plain(cfg) or {}
    if name in cfg and isinstance(cfg[name], Mapping):
        return dict(cfg[name])
    return {k: v for k, v in cfg.items() if k not in STAGES}


def _enabled(c: Mapping[str, Any]) -> bool:
    return bool(c.get("enabled", True))


# --------------------------------------------------------------------------------------------------
# stage 1: image availability


def image_availability(consultations: Iterable[Consultation], cfg: Mapping[str, Any] | None = None) -> StageResult:
    """Keep consultations with at least ``min_images`` patient-uploaded medical images."""
    c = _section(cfg, "image_availability")
    items = list(consultations)
    if not _enabled(c):
        return StageResult("image_availability", items, skipped=True)
    need = int(c.get("min_images", 1))
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


def _cancel_reason(cons: Consultation, c: Mapping[str, Any]) -> str | None:
    phrases = [str(p) for p in (c.get("cancel_phrases") or DEFAULT_CANCEL_PHRASES) if str(p)]
    need = int(c.get("min_diagnostic_messages", 2))
    min_chars = int(c.get("min_diagnostic_chars", 10))
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


def quality_reason(cons: Consultation, cfg: Mapping[str, Any] | None = None) -> str | None:
    """Why ``cons`` fails the dialogue-quality rules (the first failing one), or None."""
    c = _section(cfg, "dialogue_quality")
    lo, hi = int(c.get("min_turns", 5)), int(c.get("max_turns", 30))
    turns = count_turns(cons)
    if turns < lo:
        return f"turns {turns} < {lo}"
    if turns > hi:
        return f"turns {turns} > {hi}"
    max_chars = c.get("max_chars", 4000)
    if max_chars is not None:
        n = text_chars(cons)
        if n > int(max_chars):
            return f"text {n} chars > {int(max_chars)}"
    shares = c.get("max_side_share", {"doctor": 0.5})
    if isinstance(shares, (int, float)):
        shares = {"doctor": shares}
    events = _sides(cons)
    for side in ("doctor", "patient"):
        cap = (shares or {}).get(side)
        if cap is None or not events:
            continue
        n = sum(e.speaker == side for e in events)
        if n / len(events) > float(cap):
            return f"{side} sends {n}/{len(events)} messages ({n / len(events):.2f} > {float(cap):.2f})"
    return _cancel_reason(cons, c) or None


def dialogue_quality(consultations: Iterable[Consultation], cfg: Mapping[str, Any] | None = None, *,
                     llm_check: LLMCheck | None = None) -> StageResult:
    """Drop consultations that are too short/long, one-sided, or cancelled before any diagnosis."""
    c = _section(cfg, "dialogue_quality")
    items = list(consultations)
    if not _enabled(c):
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


def department_balance(consultations: Iterable[Consultation], cfg: Mapping[str, Any] | None = None) -> StageResult:
    """Stratified seeded sampling to ``target_size`` with per-department caps and a long-tail floor."""
    c = _section(cfg, "department_balance")
    items = list(consultations)
    if not _enabled(c):
        return StageResult("department_balance", items, skipped=True)
    target = int(c.get("target_size", len(items)))
    floor = int(c.get("floor", 0) or 0)
    seed = int(c.get("seed", 0) or 0)
    caps = [int(c["max_per_department"])] if c.get("max_per_department") is not None else []
    if c.get("max_share") is not None:
        caps.append(max(1, math.floor(float(c["max_share"]) * target)))
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


def run_funnel(consultations: Iterable[Consultation | CaseError], cfg: Mapping[str, Any] | None = None, *,
               deid: StageHook | None = None, review: StageHook | None = None,
               llm_check: LLMCheck | None = None) -> FunnelResult:
    """Run the stages in order; CaseErrors in the input are set aside in ``errors``."""
    cfg = plain(cfg) or {}
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
        ("image_availability", lambda xs: image_availability(xs, cfg)),
        ("dialogue_quality", lambda xs: dialogue_quality(xs, cfg, llm_check=llm_check)),
        ("department_balance", lambda xs: department_balance(xs, cfg)),
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
    result.counts.write_parquet(out / f"{OUT_COUNTS}.parquet")
    log.info("funnel: %d consultation(s) kept, %d dropped, written to %s", len(result.kept), len(result.dropped), out)
    return out


def copy_images(kept: Sequence[Consultation], root: Path, out: Path) -> int:
    """Copy the images of the kept consultations next to ``consultations.jsonl`` (same relative paths),
    so the output folder is self-contained for ``medrealmm mccp``. Paths outside ``root`` are refused."""
    import shutil

    from medrealmm.data.images import resolve_image_path

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
                shutil.copyfile(source, target)
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


def _resolved(cfg: Any) -> dict[str, Any]:
    """A plain dict with ``${...}`` interpolations resolved (an OmegaConf node or a dict read from YAML)."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    node = OmegaConf.create(cfg) if isinstance(cfg, dict) else cfg
    try:
        return OmegaConf.to_container(node, resolve=True)  # type: ignore[return-value]
    except (OmegaConfBaseException, ValueError) as e:
        raise ValueError(f"corpus config cannot be resolved: {e}") from None


def _llm_check(cfg: dict[str, Any], pool_box: list[Any]) -> LLMCheck | None:
    """The batched LLM quality check of ``corpus.dialogue_quality.llm`` on the model/backend groups.

    Its engine is closed as soon as the check has run (the deid text agent, later in the funnel, may load
    its own engine for the same model: never two big engines at once); ``pool_box`` gets the pool so the
    caller closes it too when the check is never called."""
    c = dict((cfg["corpus"].get("dialogue_quality") or {}).get("llm") or {})
    if not c.get("enabled"):
        return None
    on_failure = str(c.get("on_failure", "keep"))
    if on_failure not in ("keep", "drop"):     # before any engine loads
        raise ValueError(f"corpus.dialogue_quality.llm.on_failure must be 'keep' or 'drop', not {on_failure!r}")
    from medrealmm.corpus.quality_llm import DialogueQualityJudge
    from medrealmm.inference.base import Sampling
    from medrealmm.inference.engines import EnginePool

    seed = int(cfg["run"]["seed"])
    pool = EnginePool(str(Path(cfg["paths"]["cache"]).expanduser()), seed)
    pool_box.append(pool)

    def check(consultations: Sequence[Consultation]) -> list[str | None]:
        try:
            judge = DialogueQualityJudge(pool.get(cfg["model"], cfg["backend"]),
                                         sampling=Sampling.from_config(c.get("sampling"), seed=seed),
                                         max_retries=int(c.get("max_retries", 2)),
                                         chunk_size=int(c.get("chunk_size", 64)),
                                         structured=bool(c.get("structured", True)),
                                         chat_template_kwargs=dict(cfg["model"].get("chat_template_kwargs") or {}),
                                         seed=seed, on_failure=on_failure)
            return judge(consultations)
        finally:
            pool.close()

    return check


_STAMP_FILE = "funnel_input.sha256"
_STAMP_WHAT = {"input": "the consultations that reach de-identification (corpus.input or an earlier funnel stage)",
               "deid": "the deid config (deid.*)",
               "model": "the deid agent's model (model.*, with deid.text.agent=true)"}


def _json_bytes(x: Any) -> bytes:
    return json.dumps(x, sort_keys=True, default=str).encode()


def _stamp_config(cfg: Mapping[str, Any]) -> tuple[dict[str, Any], Any | None]:
    """The deid options that shape its output, and the model config when the LLM agent masks text (else None)."""
    d = {k: v for k, v in cfg["deid"].items() if k not in ("input", "out_dir", "review")}
    agent = bool((cfg["deid"].get("text") or {}).get("agent"))
    return d, (cfg.get("model") if agent else None)


def deid_stamp(body: str, cfg: Mapping[str, Any]) -> str:
    """The reuse stamp of the funnel's deid output: the consultations reaching it (``body``, JSONL), the deid
    config and, when the LLM agent is on (``deid.text.agent``), the model config. Without the agent it is the
    stamp earlier versions wrote, so their outputs stay reusable."""
    import hashlib

    d, model = _stamp_config(cfg)
    payload = body.encode() + _json_bytes(d)
    if model is not None:
        payload += b"\0model\0" + _json_bytes(model)
    return hashlib.sha256(payload).hexdigest()


def _stamp_parts(body: str, cfg: Mapping[str, Any]) -> dict[str, str]:
    """A hash per ingredient of :func:`deid_stamp`, so a refusal can say what changed."""
    import hashlib

    d, model = _stamp_config(cfg)
    parts = {"input": hashlib.sha256(body.encode()).hexdigest(), "deid": hashlib.sha256(_json_bytes(d)).hexdigest()}
    if model is not None:
        parts["model"] = hashlib.sha256(_json_bytes(model)).hexdigest()
    return parts


def _read_stamp(path: Path) -> tuple[str | None, dict[str, str]]:
    """(stamp, parts) of a stamp file: the stamp on its first line, then ``name hash`` lines (absent in files
    written by earlier versions)."""
    if not path.is_file():
        return None, {}
    lines = path.read_text(encoding="utf-8").split("\n")
    parts = dict(line.split(" ", 1) for line in lines[1:] if " " in line.strip())
    return (lines[0].strip() or None), parts


def _what_changed(old: Mapping[str, str], new: Mapping[str, str]) -> str:
    if not old:
        return "the input or the deid config (the earlier stamp does not say which)"
    changed = [_STAMP_WHAT[k] for k in _STAMP_WHAT if old.get(k) != new.get(k)]
    return " and ".join(changed) or "the input or the deid config"


def reviewer_marks(out: Path) -> list[str]:
    """What ``medrealmm deid-review`` left in a deid output (:func:`medrealmm.deid.review.apply_decisions`):
    rejections in ``removed.jsonl`` (reason ``"rejected by reviewer"``) and the ``review`` trail it appends to a
    case's ``audit.jsonl`` row for every decision (accept, reject, remask), or a ``reviewer`` detector. Empty when
    no reviewer decision was applied."""
    marks = []
    rejected = reviewed = 0
    if (out / "removed.jsonl").is_file():
        with (out / "removed.jsonl").open(encoding="utf-8") as f:
            rejected = sum(1 for line in f if line.strip() and json.loads(line).get("reason") == REVIEW_REASON)
    if (out / "audit.jsonl").is_file():
        with (out / "audit.jsonl").open(encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                a = json.loads(line)
                detectors = ([s.get("detector") for t in a.get("texts") or [] for s in t.get("spans") or []]
                             + [b.get("detector") for im in a.get("images") or [] for b in im.get("boxes") or []])
                reviewed += bool(a.get("review")) or "reviewer" in detectors
    if rejected:
        marks.append(f"{rejected} reviewer rejection(s) in removed.jsonl")
    if reviewed:
        marks.append(f"{reviewed} case(s) with reviewer decisions (accept/remask) in audit.jsonl")
    return marks


def _private_dir(key: str) -> Path:
    """A new empty folder only this user can read, for the stage's unmasked input: in the system's temporary
    folder, never under the outputs, so a run killed mid-way (OOM, Slurm time limit) leaves no unmasked copy
    there. Its path is stable for ``key`` (this user, this deid output) because the deid stage keys its
    resumable parts on the image paths it reads: a rerun after a crash then resumes instead of starting over.
    Where that path is taken by something that is not this user's private folder, a fresh
    ``tempfile.mkdtemp`` one is used (the run then starts over)."""
    import os
    import shutil
    import stat
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else None
    path = Path(tempfile.gettempdir()) / f"medrealmm-deid-{uid if uid is not None else 'user'}-{key[:16]}"
    try:
        st: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None:
        if stat.S_ISDIR(st.st_mode) and (uid is None or st.st_uid == uid) and not st.st_mode & 0o077:
            shutil.rmtree(path)            # a killed run's unmasked input: ours, private; start it afresh
        else:
            log.warning("funnel deid: %s is not a private folder of this user; using a fresh temporary one "
                        "(an interrupted run then starts over)", path)
            return Path(tempfile.mkdtemp(prefix="medrealmm-deid-"))
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:                # created meanwhile by someone else
        return Path(tempfile.mkdtemp(prefix="medrealmm-deid-"))
    path.chmod(0o700)
    return path


def deid_step(cfg: dict[str, Any], root: Path, work: Path, *,
              review: bool = True) -> Callable[[list[Consultation]], StageResult]:
    """Stage 4 inside the funnel: ``medrealmm deid`` (config ``deid.*``) on the consultations that
    reached it; the kept ones come back *masked*. The results are reused while the input and the
    deid config (and the agent's model, see :func:`deid_stamp`) are unchanged, so reviewer decisions
    applied with ``medrealmm deid-review deid.out_dir=<work>/output`` survive a rerun of the funnel
    (which then records them as ``review``). When they changed and reviewer decisions were applied,
    rebuilding would undo them (the output is rebuilt from the pre-review parts): the step refuses
    (ValueError) unless ``corpus.deid.discard_review=true``.

    The stage's unmasked input (the consultations' JSONL and image copies) lives in a private
    temporary folder (:func:`_private_dir`) while it runs, never under ``work``."""
    import shutil

    discard_review = bool(((cfg.get("corpus") or {}).get("deid") or {}).get("discard_review", False))
    stale = work / "input"                 # where earlier versions put the stage's unmasked input
    if stale.exists() or stale.is_symlink():
        log.warning("funnel deid: removing %s, an unmasked stage input left by an earlier run", stale)
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale)
        else:
            stale.unlink()

    def step(items: list[Consultation]) -> StageResult:
        import hashlib

        from medrealmm.deid.build import run_deid

        stage_out = work / "output"
        body = "".join(json.dumps(c.model_dump(mode="json"), ensure_ascii=False) + "\n" for c in items)
        stamp, parts = deid_stamp(body, cfg), _stamp_parts(body, cfg)
        stamp_file = stage_out / _STAMP_FILE
        old_stamp, old_parts = _read_stamp(stamp_file)
        if (stage_out / "cases.jsonl").is_file() and old_stamp == stamp:
            log.info("funnel deid: reusing %s (same input and deid config; reviewer decisions kept)", stage_out)
        else:
            marks = reviewer_marks(stage_out) if (stage_out / "cases.jsonl").is_file() else []
            if marks:
                what = (_what_changed(old_parts, parts) if old_stamp
                        else "the input or the deid config (the earlier run left no stamp)")
                if not discard_review:
                    raise ValueError(
                        f"funnel deid: {what} changed since {stage_out} was built, and reviewer decisions were "
                        f"applied there ({'; '.join(marks)}). Rebuilding it would silently undo them (what a "
                        "reviewer masked or rejected could come back). Either keep the old input and config (rerun "
                        "the corpus with what built it), or set corpus.deid.discard_review=true to rebuild, then "
                        f"review again (medrealmm deid-review deid.out_dir={stage_out})")
                log.warning("funnel deid: %s changed; corpus.deid.discard_review=true: rebuilding %s and discarding "
                            "the reviewer decisions applied there (%s): review again with `medrealmm deid-review "
                            "deid.out_dir=%s`", what, stage_out, "; ".join(marks), stage_out)
            # the stage's input: unmasked copies in a private temporary folder, removed when the stage ends
            # (also when it fails); image paths are relative to the JSONL's folder, as deid reads them
            stamp_file.unlink(missing_ok=True)      # a run that fails part-way leaves no stamp to reuse
            stage_in = _private_dir(hashlib.sha256(str(stage_out.resolve()).encode()).hexdigest())
            try:
                write_lines(stage_in / OUT_KEPT, body.splitlines())
                copy_images(items, root, stage_in)
                # deid's manifest.json (under stage_out) records this temporary path as deid.input: it no
                # longer exists after the run; the funnel's own manifest names the real input (corpus.input)
                run_deid({**cfg, "deid": {**cfg["deid"], "input": str(stage_in / OUT_KEPT),
                                          "out_dir": str(stage_out)}})
            finally:
                shutil.rmtree(stage_in, ignore_errors=True)
            stamp_file.write_text(stamp + "\n" + "".join(f"{k} {v}\n" for k, v in parts.items()))
        res = recorded_stage(DEID, items, stage_out)
        masked: dict[str, Consultation] = {}
        with (stage_out / "cases.jsonl").open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    c = Consultation.model_validate_json(line)
                    masked[c.id] = c
        kept, dropped = [], list(res.dropped)
        for c in res.kept:
            if c.id in masked:
                kept.append(masked[c.id])
            elif review:       # rejected by a reviewer: the review stage right after drops it
                kept.append(c)
            else:
                dropped.append((c.id, REVIEW_REASON))
        return StageResult(DEID, kept, dropped, res.skipped)

    return step


def run_corpus(cfg: Mapping[str, Any], *, llm_check: LLMCheck | None = None) -> FunnelResult:
    """``medrealmm corpus``: read ``corpus.input``, run the funnel, write outputs and the report."""
    cfg = _resolved(cfg)
    corpus = dict(cfg["corpus"])
    if not corpus.get("input"):
        raise ValueError("corpus.input is not set: the raw log (JSONL) or dialogue file to build from "
                         "(corpus.input=sample: the bundled example logs)")
    if corpus["input"] == "sample":   # the bundled raw logs of the sample benchmark (with noise to drop)
        from medrealmm.data import sample_dir

        corpus["input"] = str(sample_dir() / "raw_logs.jsonl")
        cfg = {**cfg, "corpus": corpus}
    src = Path(corpus["input"]).expanduser()
    if not src.is_file():
        raise FileNotFoundError(f"corpus.input {src} does not exist")
    out_dir = Path(corpus.get("out_dir") or Path(cfg["paths"]["outputs"]) / "corpus" / src.stem)
    deid_dir = corpus.get("deid_dir")
    in_funnel = bool((corpus.get("deid") or {}).get("enabled"))
    if in_funnel and deid_dir:
        raise ValueError("corpus.deid.enabled=true runs de-identification inside the funnel; corpus.deid_dir records "
                         "an earlier `medrealmm deid` run instead: set only one of them")
    deid: StageHook | None = deid_dir
    review: StageHook | None = deid_dir if deid_dir and corpus.get("record_review", True) else None
    image_root = src.parent
    if in_funnel:
        raw_root = src.parent.resolve()
        if raw_root == out_dir.resolve() or raw_root.is_relative_to((out_dir / "images").resolve()):
            raise ValueError(f"corpus.deid.enabled=true: corpus.out_dir {out_dir} holds the input's (unmasked) "
                             "images, and its images/ folder is replaced by the masked ones: choose another out_dir")
        deid = deid_step(cfg, src.parent, out_dir / "deid", review=bool(corpus.get("record_review", True)))
        review = out_dir / "deid" / "output" if corpus.get("record_review", True) else None
        image_root = out_dir / "deid" / "output"
    pools: list[Any] = []
    try:
        check = llm_check or _llm_check(cfg, pools)
        result = run_funnel(read_input(src, str(corpus.get("format", "jsonl")), corpus.get("mapping")), corpus,
                            deid=deid, review=review, llm_check=check)
    finally:
        for pool in pools:
            pool.close()
    if in_funnel:                           # nothing unmasked may reach the output
        with (out_dir / "deid" / "output" / "cases.jsonl").open(encoding="utf-8") as f:
            masked_ids = {json.loads(line)["id"] for line in f if line.strip()}
        leaked = [c.id for c in result.kept if c.id not in masked_ids]
        if leaked:
            raise RuntimeError(f"funnel: {len(leaked)} kept consultation(s) are not in the de-identified output")
    out = write_funnel(result, out_dir)
    if in_funnel:       # unmasked copies from an earlier run without deid (or stale masked ones) must not stay
        images = Path(out) / "images"
        if images.is_symlink() or images.exists():
            if images.is_dir() and not images.is_symlink():
                import shutil

                shutil.rmtree(images)
            else:
                images.unlink()
            log.info("funnel: removed %s from an earlier run before copying the masked images", images)
    copy_images(result.kept, image_root, Path(out))
    from medrealmm.corpus.funnel_report import write_report

    write_report(result, out, font=(cfg.get("report") or {}).get("font"))
    from medrealmm.manifest import build_manifest, write_json

    write_json(Path(out) / "manifest.json", build_manifest(
        config=cfg, dataset={"input": str(src)}, engines={},
        stats={"kept": len(result.kept), "dropped": len(result.dropped), "errors": len(result.errors)},
        seeds={"corpus.department_balance.seed": (corpus.get("department_balance") or {}).get("seed")}))
    return result
