"""De-identification as stage 4 of the corpus funnel (``corpus.deid.enabled``), and the ``medrealmm corpus``
command that runs the funnel with it.

The corpus phase (:mod:`medrealmm.corpus`) knows nothing of de-identification: it takes stage 4 as a callable.
This module builds that callable (:func:`deid_step`) around ``medrealmm deid`` (:func:`~medrealmm.deid.build.run_deid`),
with the reuse stamp that keeps reviewer decisions across reruns, and hands it to
:func:`medrealmm.corpus.run_corpus`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from medrealmm.atomic import write_lines, write_text
from medrealmm.corpus import (
    DEID,
    OUT_KEPT,
    REVIEW_REASON,
    Consultation,
    FunnelResult,
    LLMCheck,
    StageResult,
    copy_images,
    recorded_stage,
)
from medrealmm.corpus import run_corpus as run_corpus_funnel
from medrealmm.deid.build import run_deid
from medrealmm.deid.settings import DeidSettings

log = logging.getLogger(__name__)


def run_corpus(cfg: Mapping[str, Any], *, llm_check: LLMCheck | None = None) -> FunnelResult:
    """``medrealmm corpus``: the funnel of :func:`medrealmm.corpus.run_corpus`, with :func:`deid_step` as its
    stage 4 when ``corpus.deid.enabled``."""
    return run_corpus_funnel(cfg, llm_check=llm_check, deid_stage=deid_step)


_STAMP_FILE = "funnel_input.sha256"
_STAMP_WHAT = {"input": "the consultations that reach de-identification (corpus.input or an earlier funnel stage)",
               "deid": "the deid config (deid.*)",
               "model": "the deid agent's model (model.*, with deid.text.agent=true)"}


def _json_bytes(x: Any) -> bytes:
    return json.dumps(x, sort_keys=True, default=str).encode()


def _stamp_config(cfg: Mapping[str, Any]) -> tuple[dict[str, Any], Any | None]:
    """The deid options that shape its output, and the model config when the LLM agent masks text (else None)."""
    d = {k: v for k, v in cfg["deid"].items() if k not in ("input", "out_dir", "review")}
    agent = DeidSettings.of(cfg["deid"], "deid").text.agent
    return d, (cfg.get("model") if agent else None)


def deid_stamp(body: str, cfg: Mapping[str, Any]) -> str:
    """The reuse stamp of the funnel's deid output: the consultations reaching it (``body``, JSONL), the deid
    config and, when the LLM agent is on (``deid.text.agent``), the model config. Without the agent it is the
    stamp earlier versions wrote, so their outputs stay reusable."""
    d, model = _stamp_config(cfg)
    payload = body.encode() + _json_bytes(d)
    if model is not None:
        payload += b"\0model\0" + _json_bytes(model)
    return hashlib.sha256(payload).hexdigest()


def _stamp_parts(body: str, cfg: Mapping[str, Any]) -> dict[str, str]:
    """A hash per ingredient of :func:`deid_stamp`, so a refusal can say what changed."""
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


def deid_step(cfg: dict[str, Any], root: Path, work: Path, *, review: bool = True,
              discard_review: bool = False) -> FunnelDeid:
    """Stage 4 inside the funnel: ``medrealmm deid`` (config ``deid.*``) on the consultations that
    reached it; the kept ones come back *masked*. The results are reused while the input and the
    deid config (and the agent's model, see :func:`deid_stamp`) are unchanged, so reviewer decisions
    applied with ``medrealmm deid-review deid.out_dir=<work>/output`` survive a rerun of the funnel
    (which then records them as ``review``). When they changed and reviewer decisions were applied,
    rebuilding would undo them (the output is rebuilt from the pre-review parts): the step refuses
    (ValueError) unless ``discard_review`` (``corpus.deid.discard_review=true``).

    The stage's unmasked input (the consultations' JSONL and image copies) lives in a private
    temporary folder (:func:`_private_dir`) while it runs, never under ``work``."""
    _remove_stale_input(work)
    return FunnelDeid(cfg, root, work / "output", review=review, discard_review=discard_review)


def _remove_stale_input(work: Path) -> None:
    """Earlier versions kept the stage's unmasked input under ``work/input``: it must not stay."""
    stale = work / "input"
    if stale.exists() or stale.is_symlink():
        log.warning("funnel deid: removing %s, an unmasked stage input left by an earlier run", stale)
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale)
        else:
            stale.unlink()


class FunnelDeid:
    """The funnel's stage 4, a callable ``(consultations) -> StageResult`` (see :func:`deid_step`)."""

    def __init__(self, cfg: dict[str, Any], root: Path, out: Path, *, review: bool, discard_review: bool):
        self.cfg, self.root, self.out = cfg, root, out
        self.review, self.discard_review = review, discard_review
        self.stamp_file = out / _STAMP_FILE

    def __call__(self, items: list[Consultation]) -> StageResult:
        body = "".join(json.dumps(c.model_dump(mode="json"), ensure_ascii=False) + "\n" for c in items)
        stamp, parts = deid_stamp(body, self.cfg), _stamp_parts(body, self.cfg)
        old_stamp, old_parts = _read_stamp(self.stamp_file)
        if (self.out / "cases.jsonl").is_file() and old_stamp == stamp:
            log.info("funnel deid: reusing %s (same input and deid config; reviewer decisions kept)", self.out)
        else:
            self._guard_reviewer_decisions(old_stamp, old_parts, parts)
            self._rebuild(items, body)
            write_text(self.stamp_file, stamp + "\n" + "".join(f"{k} {v}\n" for k, v in parts.items()))
        return self._masked_result(items)

    def _guard_reviewer_decisions(self, old_stamp: str | None, old_parts: Mapping[str, str],
                                  parts: Mapping[str, str]) -> None:
        """Rebuilding would undo reviewer decisions applied to the output: refuse, unless told to discard them."""
        marks = reviewer_marks(self.out) if (self.out / "cases.jsonl").is_file() else []
        if not marks:
            return
        what = (_what_changed(old_parts, parts) if old_stamp
                else "the input or the deid config (the earlier run left no stamp)")
        if not self.discard_review:
            raise ValueError(
                f"funnel deid: {what} changed since {self.out} was built, and reviewer decisions were "
                f"applied there ({'; '.join(marks)}). Rebuilding it would silently undo them (what a "
                "reviewer masked or rejected could come back). Either keep the old input and config (rerun "
                "the corpus with what built it), or set corpus.deid.discard_review=true to rebuild, then "
                f"review again (medrealmm deid-review deid.out_dir={self.out})")
        log.warning("funnel deid: %s changed; corpus.deid.discard_review=true: rebuilding %s and discarding "
                    "the reviewer decisions applied there (%s): review again with `medrealmm deid-review "
                    "deid.out_dir=%s`", what, self.out, "; ".join(marks), self.out)

    def _rebuild(self, items: list[Consultation], body: str) -> None:
        """``medrealmm deid`` on the stage's input: unmasked copies in a private temporary folder, removed when
        the stage ends (also when it fails); image paths are relative to the JSONL's folder, as deid reads them."""
        self.stamp_file.unlink(missing_ok=True)      # a run that fails part-way leaves no stamp to reuse
        stage_in = _private_dir(hashlib.sha256(str(self.out.resolve()).encode()).hexdigest())
        try:
            write_lines(stage_in / OUT_KEPT, body.splitlines())
            copy_images(items, self.root, stage_in)
            # deid's manifest.json (under the output) records this temporary path as deid.input: it no
            # longer exists after the run; the funnel's own manifest names the real input (corpus.input)
            run_deid({**self.cfg, "deid": {**self.cfg["deid"], "input": str(stage_in / OUT_KEPT),
                                           "out_dir": str(self.out)}})
        finally:
            shutil.rmtree(stage_in, ignore_errors=True)

    def _masked_result(self, items: list[Consultation]) -> StageResult:
        """What deid kept, as their masked versions; a case a reviewer rejected is kept for the review stage
        right after to drop (or dropped here when that stage is not recorded)."""
        res = recorded_stage(DEID, items, self.out)
        masked: dict[str, Consultation] = {}
        with (self.out / "cases.jsonl").open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    c = Consultation.model_validate_json(line)
                    masked[c.id] = c
        kept, dropped = [], list(res.dropped)
        for c in res.kept:
            if c.id in masked:
                kept.append(masked[c.id])
            elif self.review:
                kept.append(c)
            else:
                dropped.append((c.id, REVIEW_REASON))
        return StageResult(DEID, kept, dropped, res.skipped)
