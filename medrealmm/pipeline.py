"""The evaluation stages — generate, judge, score — and the all-in-one run.

Each stage re-plans its work from the config (deterministic keys), takes what the shared store
already holds and does the rest, so every stage can be re-run alone and resumes where it
stopped. Tables in the run folder are rebuilt from the store in plan order, so an interrupted
and resumed run ends with the same tables as an uninterrupted one.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm.data.checks import too_many_images
from medrealmm.data.dataset import Dataset
from medrealmm.data.loader import load_dataset
from medrealmm.inference.engines import EnginePool, spec_hash
from medrealmm.inference.generate import GenItem, plan_generations, run_generations
from medrealmm.inference.prompts import PromptConfig, run_prompt_config
from medrealmm.judge.grader import JudgeItem, JudgeSettings, plan_verdicts, run_judging
from medrealmm.judge.prompts import JudgePromptConfig, run_judge_prompt_config
from medrealmm import atomic, runrecord
from medrealmm.config_schema import Backend as BackendGroup
from medrealmm.config_schema import Judge as JudgeRole
from medrealmm.config_schema import RunSettings
from medrealmm.manifest import build_manifest, write_json
from medrealmm.schema import Mode, stable_hash
from medrealmm.shards import canonical_order, mark_done, merge_tables, select, shard_dir, shard_spec
from medrealmm.store import Store, layout

log = logging.getLogger(__name__)

GENERATION_COLUMNS = {"key": pl.String, "case_id": pl.String, "model": pl.String, "mode": pl.String,
                      "sample": pl.Int64, "text": pl.String, "reasoning": pl.String,
                      "finish_reason": pl.String, "error": pl.String, "prompt_tokens": pl.Int64,
                      "completion_tokens": pl.Int64, "model_spec": pl.String, "truncated": pl.String,
                      "prompt": pl.String, "latency_s": pl.Float64, "batch_s": pl.Float64, "batch_size": pl.Int64,
                      "attempt": pl.Int64}
VERDICT_COLUMNS = {"key": pl.String, "generation_key": pl.String, "case_id": pl.String, "model": pl.String,
                   "mode": pl.String, "sample": pl.Int64, "judge": pl.String, "criterion_id": pl.String,
                   "weight": pl.Int64, "met": pl.Boolean, "status": pl.String, "rationale": pl.String,
                   "raw": pl.String, "attempts": pl.Int64, "error": pl.String, "judge_spec": pl.String,
                   "criterion": pl.String}


class RunFailed(RuntimeError):
    """The run finished its work but its result must not be trusted (e.g. too many unscored)."""


@dataclass
class Context:
    cfg: dict[str, Any]
    dataset: Dataset
    out_dir: Path  # this execution's record folder (<run.out_dir>/runs/<id>), or this shard's folder
    store_root: Path
    pool: EnginePool
    run_dir: Path | None = None  # the configuration folder, ``run.out_dir``
    record: runrecord.RunRecord | None = None  # None for a shard task (the merge makes the record)
    settings: dict[str, Any] = field(default_factory=dict)  # what the fingerprint hashes
    gen_plan: list[GenItem] | None = None  # planned once: keys render every prompt
    truncated: pl.DataFrame | None = None  # the truncated replies of this run (not judged)
    stats: dict[str, Any] = field(default_factory=dict)
    engines: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def run(self) -> RunSettings:
        """The ``run`` group, typed (read once; defaults from :class:`~medrealmm.config_schema.RunSettings`)."""
        return RunSettings.of(self.cfg["run"], "run")

    @cached_property
    def judge(self) -> JudgeRole:
        """The ``judge`` group, typed (its engine and sampling settings stay free-form)."""
        return JudgeRole.model_validate(self.cfg["judge"])

    @property
    def seed(self) -> int:
        return self.run.seed

    def role(self, name: str) -> dict[str, Any]:
        return self.cfg[name]

    def backend_cfg(self, role: str) -> dict[str, Any]:
        return self.cfg["backend" if role == "model" else "judge_backend"]


def open_context(cfg: dict[str, Any], *, whole: bool = False, stages: tuple[str, ...] = ()) -> Context:
    """Load the dataset and open this execution's folder: a new run record in ``run.out_dir/runs/``,
    or, for a shard task (``run.shard.count > 1`` and not ``whole``), the shard's working folder with
    only its shard's cases (the merge makes the record)."""
    run = RunSettings.of(cfg["run"], "run")
    run_dir = Path(run.out_dir)
    index, count = shard_spec(run)
    ds = load_dataset(cfg["data"])
    if not ds.cases and (whole or count == 1):
        raise RunFailed(f"no usable case in {ds.source} ({len(ds.errors)} rejected; see the log)")
    paths = cfg["paths"]
    ctx = Context(cfg=cfg, dataset=ds, out_dir=run_dir, store_root=Path(paths["store"]),
                  pool=EnginePool(str(Path(paths["cache"]).expanduser()), run.seed),
                  run_dir=run_dir)
    ctx.settings = run_settings(ctx)   # over the whole selection, before a shard takes its part
    for role in ("model", "judge"):
        if cfg[role].get("needs_network"):
            log.warning("%s %s is a closed model behind a provider's API: the cases are sent over the network",
                        role, cfg[role]["name"])
    if not whole and count > 1:
        ds.cases = select(ds.cases, index, count)
        ctx.gen_plan = None
        log.info("shard %d of %d: %d cases", index, count, len(ds.cases))
        ctx.out_dir = shard_dir(run_dir, index, count)
        ctx.out_dir.mkdir(parents=True, exist_ok=True)
        (ctx.out_dir / "done.json").unlink(missing_ok=True)   # done again only when this task finishes
    else:
        ctx.record = runrecord.start(run_dir, settings=ctx.settings, stages=stages,
                                     extra={"data": ds.name, "model": cfg["model"]["name"],
                                            "judge": cfg["judge"]["name"], "modes": model_modes(ctx),
                                            "cases": len(ds.cases)})
        ctx.out_dir = ctx.record.path
        log.info("run %s: writing to %s", ctx.record.id, ctx.out_dir)
    if ds.errors:
        write_jsonl(ctx.out_dir / "rejected_cases.jsonl",
                    [{"case_id": e.case_id, "field": e.field, "file": e.file, "reason": e.reason} for e in ds.errors])
    else:
        (ctx.out_dir / "rejected_cases.jsonl").unlink(missing_ok=True)
    return ctx


def dataset_fingerprint(ds: Dataset) -> str:
    return stable_hash(sorted(c.content_hash() + stable_hash(c.model_dump(mode="json", include={"rubric"}))
                              for c in ds.cases))


def run_settings(ctx: Context) -> dict[str, Any]:
    """Everything that determines a run's tables: the fingerprint's parts (see :mod:`medrealmm.runrecord`)."""
    import dataclasses

    judge = ctx.role("judge")
    jp = judge_prompt_config(ctx)
    name, gen_spec = generation_spec(ctx)
    return {"dataset": dataset_fingerprint(ctx.dataset), "selection": runrecord.selection_of(ctx.cfg["data"]),
            "model": {"name": name, "spec": gen_spec},
            "judge": {"name": judge["name"], "spec": judge_spec(ctx),
                      "prompt": stable_hash(dataclasses.asdict(jp)),
                      "structured": _structured(ctx.backend_cfg("judge"), judge)},
            "prompt": stable_hash(dataclasses.asdict(prompt_config(ctx))),
            "modes": model_modes(ctx), "samples": ctx.run.samples, "seed": ctx.seed,
            "scoring": ctx.cfg["run"]["scoring"],   # as composed: the fingerprint hashes the group as written
            "completeness": {"max_missing_share": ctx.run.max_missing_share,
                             "max_unscored_share": ctx.judge.max_unscored_share}}


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    atomic.write_rows(path, rows)


def write_table(df: pl.DataFrame, path: Path) -> None:
    """Parquet written whole or not at all, so a reader never sees half a table."""
    atomic.write_parquet(path, df, statistics=False)


# --- generation -----------------------------------------------------------------------------------

def model_modes(ctx: Context) -> list[Mode]:
    modes: list[Mode] = list(ctx.run.modes)   # checked by RunSettings: multimodal and/or text
    if ctx.role("model").get("modality") == "text" and "multimodal" in modes:
        log.info("model %s is text-only: it gets the text-only rendering of each case (mode 'text')",
                 ctx.role("model")["name"])
        modes = ["text"]
    return modes


def generation_spec(ctx: Context) -> tuple[str, str]:
    model = ctx.role("model")
    if model.get("online"):
        return model["name"], stable_hash({"online": True})
    return model["name"], spec_hash(model, ctx.backend_cfg("model"))


def judge_spec(ctx: Context) -> str:
    return spec_hash(ctx.role("judge"), ctx.backend_cfg("judge"))


def generation_store(ctx: Context) -> Store:
    """The model's replies under these settings (every judge reads them): ``generations/<model>-<spec>``."""
    name, spec = generation_spec(ctx)
    return Store(ctx.store_root, layout.generation_kind(name, spec))


def plan_gen(ctx: Context) -> list[GenItem]:
    if ctx.gen_plan is None:
        name, spec = generation_spec(ctx)
        ctx.gen_plan = plan_generations(ctx.dataset.cases, model_name=name, model_spec=spec,
                                        modes=model_modes(ctx), samples=ctx.run.samples,
                                        prompt=prompt_config(ctx), seed=ctx.seed,
                                        online=bool(ctx.role("model").get("online")))
    return ctx.gen_plan


def prompt_config(ctx: Context) -> PromptConfig:
    return run_prompt_config(ctx.cfg)


def stage_generate(ctx: Context) -> list[dict[str, Any]]:
    model = ctx.role("model")
    items = plan_gen(ctx)
    store = generation_store(ctx)
    t0 = time.perf_counter()
    stats = run_generations(
        items, model_name=model["name"], store=store, chunk_size=ctx.run.generation.chunk_size,
        backend_factory=lambda: _engine(ctx, "model"), sampling_cfg=model.get("sampling"),
        chat_template_kwargs=model.get("chat_template_kwargs") or {}, prompt=prompt_config(ctx),
        image_bytes=ctx.dataset.image_bytes, online=bool(model.get("online")), seed=ctx.seed,
        precheck=lambda it: too_many_images(it.case, model, it.mode), reasoning_cfg=model.get("reasoning"),
        retry_truncated=ctx.run.generation.retry_truncated)
    store.sync()   # chunks are published as written and flushed to disk beside the run; all on disk now
    stats["seconds"] = round(time.perf_counter() - t0, 3)
    ctx.stats["generation"] = stats
    records = store.records(it.key for it in items)
    table = records_table(records, GENERATION_COLUMNS)
    write_table(table, ctx.out_dir / "generations.parquet")
    failed = table.filter(pl.col("error").is_not_null()).height
    if failed:
        log.warning("%d of %d generations failed in the engine; rerun to retry them", failed, table.height)
    ctx.truncated = table.filter(pl.col("truncated").is_not_null())
    return [r for r in records if judgeable(r)]


def _engine(ctx: Context, role: str):
    backend = ctx.pool.get(ctx.role(role), ctx.backend_cfg(role))
    preflight = getattr(backend, "preflight", None)
    if preflight is not None:   # a server: is it there and does it serve the model? (seconds, before any work)
        preflight()
    try:
        ctx.engines[role] = backend.describe()
    except Exception as e:  # describing must never fail a run
        ctx.engines[role] = {"describe_error": str(e)}
    return backend


# --- judging --------------------------------------------------------------------------------------

def judge_prompt_config(ctx: Context) -> JudgePromptConfig:
    return run_judge_prompt_config(ctx.cfg)


def verdict_store(ctx: Context) -> Store:
    """This judge's verdicts on this model's replies, the partition a run (or any shard of it) reads:
    ``verdicts/<judge>-<spec>/<model>-<spec>``; an old-layout judge folder is read too until migrated."""
    judge, (name, spec) = ctx.role("judge")["name"], generation_spec(ctx)
    jspec = judge_spec(ctx)
    return Store(ctx.store_root, layout.verdict_kind(judge, jspec, name, spec), legacy=layout.judge_kind(judge, jspec))


def plan_judge(ctx: Context, generations: list[dict[str, Any]], prompt: JudgePromptConfig,
               structured: bool) -> list[JudgeItem]:
    return plan_verdicts(generations, {c.id: c for c in ctx.dataset.cases}, judge_name=ctx.role("judge")["name"],
                         judge_spec=judge_spec(ctx), prompt=prompt, structured=structured)


def take_stored(store: Store, keys: list[str], *, none: str, some: str) -> list[dict[str, Any]]:
    """The stored records of ``keys`` (a stage run alone reads what an earlier run of the stage before it
    stored under the same settings): none stored is an error (``none``), some missing a warning (``some``)."""
    missing = store.missing(keys)
    if keys and len(missing) == len(keys):
        raise RunFailed(none)
    if missing:
        log.warning(some, len(missing), len(keys))
    return store.records(keys)


def stored_generations(ctx: Context) -> list[dict[str, Any]]:
    records = take_stored(generation_store(ctx), [it.key for it in plan_gen(ctx)],
                          none=f"no generations stored for model {ctx.role('model')['name']} with this config; "
                               "run `medrealmm generate` (or `medrealmm run`) first",
                          some="%d of %d replies are missing (failed or not generated yet); their cases are not scored")
    return [r for r in records if judgeable(r)]


def judgeable(generation: dict[str, Any]) -> bool:
    """A whole reply: not an engine failure, not truncated (those are counted, never judged)."""
    return not generation.get("error") and not generation.get("truncated")


def stage_judge(ctx: Context, generations: list[dict[str, Any]] | None = None) -> pl.DataFrame:
    judge = ctx.role("judge")
    generations = stored_generations(ctx) if generations is None else generations
    prompt, structured = judge_prompt_config(ctx), _structured(ctx.backend_cfg("judge"), judge)
    items = plan_judge(ctx, generations, prompt, structured)
    store = verdict_store(ctx)
    t0 = time.perf_counter()
    settings = JudgeSettings.of_config(judge, prompt=prompt, structured=structured, seed=ctx.seed,
                                       chunk_size=ctx.run.judging.chunk_size)
    stats = run_judging(items, settings, store=store, backend_factory=lambda: _engine(ctx, "judge"),
                        image_bytes=ctx.dataset.image_bytes)
    store.sync()
    stats["seconds"] = round(time.perf_counter() - t0, 3)
    ctx.stats["judging"] = stats
    table = records_table(store.records(it.key for it in items), VERDICT_COLUMNS)
    write_table(table, ctx.out_dir / "verdicts.parquet")
    return table


def _structured(backend_cfg: dict[str, Any], judge: dict[str, Any]) -> bool:
    if judge.get("structured_outputs") is not None:
        return bool(judge["structured_outputs"])
    return backend_cfg["kind"] != "transformers" and BackendGroup.model_validate(backend_cfg).structured != "none"


def records_table(records: list[dict[str, Any]], columns: dict[str, Any]) -> pl.DataFrame:
    """Stored records as a typed table, in the order given (plan order)."""
    return pl.DataFrame([{k: r.get(k) for k in columns} for r in records], schema=columns)


# --- scoring --------------------------------------------------------------------------------------

def stored_verdicts(ctx: Context) -> pl.DataFrame:
    """The verdicts this config's judge gave on this config's replies, from the store: what ``score``
    alone reads, so a score is never computed from verdicts that other settings produced."""
    judge = ctx.role("judge")
    gens = stored_generations(ctx)
    plan = plan_gen(ctx)
    table = records_table(generation_store(ctx).records(it.key for it in plan), GENERATION_COLUMNS)
    write_table(table, ctx.out_dir / "generations.parquet")
    ctx.truncated = table.filter(pl.col("truncated").is_not_null())
    items = plan_judge(ctx, gens, judge_prompt_config(ctx), _structured(ctx.backend_cfg("judge"), judge))
    records = take_stored(verdict_store(ctx), [it.key for it in items],
                          none=f"no verdicts stored for judge {judge['name']} on model {ctx.role('model')['name']}'s "
                               "replies with this config; run `medrealmm judge` (or `medrealmm run`) first",
                          some="%d of %d verdicts are missing (not judged yet); their replies are not scored")
    table = records_table(records, VERDICT_COLUMNS)
    write_table(table, ctx.out_dir / "verdicts.parquet")
    return table


def stage_score(ctx: Context, verdicts: pl.DataFrame | None = None) -> dict[str, Any]:
    from medrealmm.report.summary import write_summary
    from medrealmm.scoring import breakdowns, histogram, score_cases, summarize

    if verdicts is None:
        verdicts = stored_verdicts(ctx)
    sc = ctx.run.scoring
    boot: dict[str, Any] = {"n_boot": sc.bootstrap, "seed": ctx.seed, "ci": sc.ci}
    cases = score_cases(verdicts, ctx.dataset.case_frame(), policy=sc.unscored_policy)
    summary = summarize(cases, **boot)
    cut = ctx.truncated if ctx.truncated is not None else pl.DataFrame(schema=GENERATION_COLUMNS)
    counts = cut.group_by(["model", "mode", "sample"]).agg(n_truncated=pl.len().cast(pl.Int64))
    summary = summary.join(counts, on=["model", "mode", "sample"], how="left").with_columns(
        pl.col("n_truncated").fill_null(0))
    if ctx.record is not None:   # which run produced the numbers, on every summary row
        summary = summary.with_columns(run_id=pl.lit(ctx.record.id),
                                       selection=pl.lit(runrecord.selection_label(ctx.record.selection)))
    tables = {"case_scores": cases, "summary": summary,
              "histogram": histogram(cases, bin_width=sc.histogram_bin)}
    edges = {k: list(v) for k, v in (sc.edges or {}).items()}
    for dim, df in breakdowns(cases, list(sc.dims), edges=edges, **boot).items():
        tables[f"by_{dim}"] = df
    for name, df in tables.items():
        write_table(df, ctx.out_dir / f"{name}.parquet")
    planned = len(plan_gen(ctx))
    write_summary(ctx.out_dir, ctx.cfg, tables, verdicts, dataset=ctx.dataset.name, cases=len(ctx.dataset.cases),
                  rejected_cases=len(ctx.dataset.errors),
                  truncated=ctx.truncated.height if ctx.truncated is not None else 0, record=ctx.record,
                  planned_replies=planned, modes=model_modes(ctx))
    return {**tables, "verdicts": verdicts, "planned_replies": planned}


def final_report(ctx: Context, summary: pl.DataFrame) -> str:
    """What a person needs at the end of a run: the score with its interval and counts per mode, the
    run id and settings that produced it, where it wrote, and how to look at it."""
    rec = ctx.record
    sel = runrecord.selection_label(rec.selection) if rec else "shard"
    lines = [f"run {rec.id if rec else '-'}: {ctx.role('model')['name']} judged by {ctx.role('judge')['name']} "
             f"on {ctx.dataset.name} ({len(ctx.dataset.cases)} cases, {sel}; seed {ctx.seed})"]
    for r in summary.iter_rows(named=True):
        score = "–" if r.get("score") is None else f"{r['score']:.3f}"
        ci = ("" if r.get("ci_low") is None else f" [{r['ci_low']:.3f}, {r['ci_high']:.3f}]")
        lines.append(f"  {r['mode']:<10} sample {r['sample']}: score {score}{ci}  scored {r['n_scored']}, excluded "
                     f"{r['n_excluded']}, unscored verdicts {r['n_unscored_verdicts']}, truncated {r.get('n_truncated', 0)}")
    if not summary.height:
        lines.append("  no case was scored")
    data = ctx.cfg["data"]
    where = f"data={data.get('format')}" + (f" data.path={data['path']}" if data.get("path") else "")
    lines += [f"  written to {ctx.out_dir}",
              f"  summary: {ctx.out_dir / 'summary.md'}",
              f"  report over every run of {ctx.dataset.name}: medrealmm report {where} "
              f"paths.outputs={ctx.cfg['paths']['outputs']}",
              f"  read the cases, replies and verdicts: medrealmm view {where} paths.outputs={ctx.cfg['paths']['outputs']}"
              f" (then open {Path(ctx.cfg['paths']['outputs']) / 'view' / ctx.dataset.name / 'index.html'})"]
    return "\n".join(lines)


def check_complete(ctx: Context, tables: dict[str, Any]) -> None:
    """Fail (after the tables are written) when the score covers too little to be trusted: replies
    that are missing (a shorter context would otherwise be scored on an easier subset) or verdicts
    that are unscored."""
    verdicts, planned = tables["verdicts"], tables["planned_replies"]
    n_cut = ctx.truncated.height if ctx.truncated is not None else 0
    missing = planned - tables["case_scores"].height - n_cut
    max_missing, max_cut = ctx.run.max_missing_share, ctx.run.max_truncated_share
    limit = ctx.judge.max_unscored_share
    unscored = verdicts.filter(pl.col("status") == "unscored").height
    share = unscored / verdicts.height if verdicts.height else 0.0
    ctx.stats["completeness"] = {"planned_replies": planned, "replies_without_verdicts": missing,
                                 "verdicts": verdicts.height, "unscored": unscored,
                                 "unscored_share": round(share, 6), "max_unscored_share": limit,
                                 "truncated_replies": n_cut, "max_truncated_share": max_cut}
    if n_cut > max_cut * planned:
        raise RunFailed(f"{n_cut} of {planned} replies are truncated (reasoning not closed, or max_tokens reached) "
                        f"and were not judged, above run.max_truncated_share={max_cut:.1%}; the tables are written. "
                        "Raise the model's sampling.max_tokens (thinking needs room), check its reasoning settings, "
                        "or set run.generation.retry_truncated; see the truncated column of generations.parquet.")
    if missing > max_missing * planned or not verdicts.height:
        raise RunFailed(f"{missing} of {planned} case replies have no verdicts (failed generation or judging; "
                        f"run.max_missing_share={max_missing:.1%}); the tables are written, rerun to retry them")
    if share > limit:
        raise RunFailed(f"{unscored} of {verdicts.height} verdicts ({share:.1%}) are unscored, above "
                        f"judge.max_unscored_share={limit:.1%}; the tables are written but the score is not "
                        f"trustworthy. Inspect {ctx.out_dir / 'verdicts.parquet'} (columns raw, error) and the "
                        "judge settings; a rerun asks the unscored ones again.")


# --- all in one -----------------------------------------------------------------------------------

def write_manifest(ctx: Context) -> None:
    ds = ctx.dataset
    dataset = {"name": ds.name, "source": ds.source, "cases": len(ds.cases), "rejected": len(ds.errors),
               # a record's settings already hashed these cases (a shard's manifest covers its own part)
               "fingerprint": ctx.settings["dataset"] if ctx.record is not None else dataset_fingerprint(ds)}
    ctx.stats["judge_sees_images"] = ctx.judge.sees_images
    run = None
    if ctx.record is not None:
        run = {"run_id": ctx.record.id, "fingerprint": ctx.record.fingerprint, "stages": ctx.record.stages,
               "selection": ctx.record.selection, "settings": ctx.settings}
    manifest = build_manifest(config=ctx.cfg, dataset=dataset, engines=_engines_on_record(ctx),
                              stats=dict(ctx.stats), seeds={"run.seed": ctx.seed})
    if run is not None:
        manifest["run"] = run
    write_json(ctx.out_dir / "manifest.json", manifest)


def write_results(ctx: Context) -> None:
    """``results.json``: one file per run with its status, summary, settings, config and file list (the
    lm-eval habit: what a script or a person reads first)."""
    import json

    if ctx.record is None:
        return
    out = ctx.out_dir
    summary = []
    if (out / "summary.parquet").is_file():
        summary = pl.read_parquet(out / "summary.parquet").to_dicts()
    files = sorted(p.name for p in out.iterdir() if p.is_file() and p.name != "results.json")
    results = {"run_id": ctx.record.id, "status": ctx.record.status, "error": ctx.record.info.get("error"),
               "started": ctx.record.info.get("started"), "ended": ctx.record.info.get("ended"),
               "stages": ctx.record.stages, "selection": runrecord.selection_label(ctx.record.selection),
               "fingerprint": ctx.record.fingerprint, "summary": summary, "settings": ctx.settings,
               "config": ctx.cfg, "files": files}
    write_json(out / "results.json", json.loads(json.dumps(results, default=str)))


def _engines_on_record(ctx: Context) -> dict[str, Any]:
    """The engines this execution described; for a role whose results all came from the store (no
    engine loaded), the description an earlier record of the same fingerprint made, marked ``from_run``."""
    import json

    engines = dict(ctx.engines)
    if ctx.record is None or ctx.run_dir is None or {"model", "judge"} <= set(engines):
        return engines
    for rec in reversed(runrecord.records(ctx.run_dir)):
        if rec.fingerprint != ctx.record.fingerprint or rec.id == ctx.record.id:
            continue
        try:
            old = json.loads((rec.path / "manifest.json").read_text(encoding="utf-8")).get("engines") or {}
        except (OSError, ValueError):
            continue
        for role, desc in old.items():
            if role not in engines and isinstance(desc, dict):
                engines[role] = {**desc, "from_run": desc.get("from_run", rec.id)}
        if {"model", "judge"} <= set(engines):
            break
    return engines


def _close(ctx: Context, error: BaseException | None, score: pl.DataFrame | None = None) -> None:
    """Write the manifest, then mark the record finished or failed (the last write: readers trust it)."""
    ctx.pool.close()
    write_manifest(ctx)
    if ctx.record is None:
        return
    info: dict[str, Any] = {}
    if score is not None and score.height:
        info["score"] = {f"{r['mode']}/{r['sample']}" if "sample" in r else r["mode"]: r.get("score")
                         for r in score.iter_rows(named=True)}
    message = None
    if error is not None:
        message = f"{type(error).__name__}: {error}" if not isinstance(error, KeyboardInterrupt) else "interrupted"
    runrecord.finish(ctx.record, error=message, **info)
    write_results(ctx)
    if message:
        log.warning("run %s recorded as failed; its tables stay in %s and do not replace any finished run",
                    ctx.record.id, ctx.out_dir)


def run_stages(cfg: dict[str, Any], stages: tuple[str, ...] = ("generate", "judge", "score")) -> Context:
    """Run the named stages in order; a stage left out reads what an earlier run of it stored.

    Every execution gets its own run record (see :mod:`medrealmm.runrecord`). A shard
    (``run.shard.count > 1``) generates and judges its cases and marks itself done; the scores come
    from ``merge`` once every shard is done."""
    _, count = shard_spec(cfg["run"])
    if "merge" in stages:
        return merge_shards(cfg)
    ctx = open_context(cfg, stages=stages)
    error: BaseException | None = None
    summary = None
    try:
        gens = stage_generate(ctx) if "generate" in stages else None
        verdicts = stage_judge(ctx, gens) if "judge" in stages else None
        if count > 1:
            if verdicts is not None:
                mark_done(ctx.out_dir, {"cases": len(ctx.dataset.cases), "verdicts": verdicts.height,
                                        "fingerprint": runrecord.fingerprint(ctx.settings)})
        elif "score" in stages:
            tables = stage_score(ctx, verdicts)
            summary = tables["summary"]
            log.info("%s", final_report(ctx, summary))
            check_complete(ctx, tables)
    except BaseException as e:
        error = e
        raise
    finally:
        _close(ctx, error, summary)
    return ctx


def merge_shards(cfg: dict[str, Any]) -> Context:
    """Concatenate every shard's tables in single-run order, then score as a single run would."""
    from medrealmm.shards import shard_fingerprints

    _, count = shard_spec(cfg["run"])
    ctx = open_context(cfg, whole=True, stages=("merge",))
    error: BaseException | None = None
    summary = None
    try:
        assert ctx.run_dir is not None
        want = runrecord.fingerprint(ctx.settings)
        found = shard_fingerprints(ctx.run_dir, count)
        other = sorted(i for i, fp in found.items() if fp != want)
        if other:
            raise RunFailed(f"cannot merge: shard(s) {other} of {count} were run with other settings than this "
                            "merge's config (data, model, judge, prompts, seed or scoring differ); rerun those "
                            "shards with the same overrides, then merge")
        modes = model_modes(ctx)
        generations = canonical_order(merge_tables(ctx.run_dir, count, "generations"), ctx.dataset.cases, modes,
                                      criteria=False)
        verdicts = canonical_order(merge_tables(ctx.run_dir, count, "verdicts"), ctx.dataset.cases, modes,
                                   criteria=True)
        write_table(generations, ctx.out_dir / "generations.parquet")
        write_table(verdicts, ctx.out_dir / "verdicts.parquet")
        if "truncated" in generations.columns:
            ctx.truncated = generations.filter(pl.col("truncated").is_not_null())
        ctx.stats["merged_shards"] = count
        tables = stage_score(ctx, verdicts)
        summary = tables["summary"]
        log.info("merged %d shards\n%s", count, final_report(ctx, summary))
        check_complete(ctx, tables)
    except BaseException as e:
        error = e
        raise
    finally:
        _close(ctx, error, summary)
    return ctx
