"""The ``medrealmm`` command: ``medrealmm <stage> [key=value ...]``.

Each stage is a Hydra app over ``conf/``, so every value can be overridden and ``-m`` sweeps
(models x judges x modes) work. ``medrealmm --help`` answers without importing Hydra or engines.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

USAGE = """usage: medrealmm <command> [key=value ...] [-m] [--cfg job]

commands:
  run        generate, judge and score in one go (resumes where a previous run stopped)
  generate   replies of the evaluated model (model=...) for every case
  judge      per-criterion verdicts on the stored replies (judge=...)
  score      case scores, the benchmark score with its CI, breakdowns, summary.md
  merge      merge the shards of a sharded run (run.shard.count=N), then score
  pending    print the shards of a sharded run that have not finished (for slurm/submit.sh)
  plan       GPUs and nodes the model and judge need (tensor x pipeline parallel) and whether their
             weights fit (cluster.gpus_per_node, cluster.gpu_mem_gib); the Slurm scripts use it
  doctor     is this node ready? Python, torch/CUDA/GPUs, vLLM and transformers against the tested versions,
             hub access and token, the CJK font, Slurm, free disk; exits 1 with the fix for each problem
  list       models | judges | data | presets | backends: the options of a config group, one line each
  completion bash   a bash completion script: eval "$(medrealmm completion bash)" (commands, groups, options)
  view       a static case viewer over every run of data.name (outputs/view/<dataset>/index.html, opens from
             disk): leaderboard -> cases with filters -> a case with dialogue, images, replies, verdicts, a 2nd run
  runs       list the run records of a dataset (id, status, when, cases covered, seed, fingerprint, score)
  store <action>  the result store (paths.store): stats (counts per partition), verify (every record; a damaged
             line named by file and line), compact (small chunk files into few), gc (records no run under
             paths.outputs shows; store.dry_run=true to see first), migrate (an old-layout store, once)
  leaderboard  one table of every run of a dataset under paths.outputs (leaderboard.md/.parquet)
  report     one HTML report (+ Markdown, CSV, Parquet) over many runs: leaderboard, ablation,
             breakdowns, distributions, paired comparisons, worst-of-k, judge agreement
  validate   load and check a dataset (data=...), report every bad case
  deid       de-identify consultation records (deid.input=cases.jsonl): text placeholders, masked
             images without metadata, case removal, audit trail -> outputs/deid/<data>/
  deid-review  review sheets for a de-identified batch; with deid.review.decisions=d.csv, apply them
  deid-train-qr  train a YOLO QR/barcode detector on synthetic codes (key=value options, see --help)
  corpus     the Phase-1 funnel over raw consultation logs (corpus.input=..., corpus.format=jsonl|cmtmedqa):
             image availability, dialogue quality, department balance; counts and a reason for every drop
  mccp       challenge points from the funnel's consultations (mccp.input=...): agents A and M with the
             model/backend groups, t* selection, instances with y_orig, intent/stage labels, validation sheet
  rubric <action>  Phase 3 on the mccp instances (rubric.input=...), the writer is the model/backend groups:
             generate (R0 + review sheets), revise (rubric.feedback=...: physicians' edits, then the LLM),
             approve (-> benchmark/cases.jsonl), export, sheets, report, lint (any dataset: data=...),
             import (an existing dataset's rubrics as R0, data=..., to refine them with physicians)

examples:
  medrealmm run                                   # default small VLM as model and judge
  medrealmm run preset=smoke                      # offline: tiny local models on CPU
  medrealmm run model=medgemma_27b judge=qwen2_5_vl_72b run.modes=[multimodal,text]
  medrealmm run -m model=lingshu_7b,online judge=qwen2_5_vl_72b
  medrealmm run data=jsonl data.path=/data/my_cases/cases.jsonl
  medrealmm report                                # every run of data.name -> outputs/reports/<data>/

Hydra help for a command: medrealmm run --help. Configs: conf/ (model/, judge/, backend/, data/, run/)."""

EVALUATION = ("run", "generate", "judge", "score", "merge")
log = logging.getLogger("medrealmm")


@dataclass(frozen=True)
class Command:
    """One ``medrealmm`` command: its handler (config in, exit status out: None or 0 for success), the
    config groups checked before it runs (``None``: none; ``()``: all), whether it reads finished runs only
    (no data path needed), and the label its bad-value and missing-file errors carry (``None``: none)."""

    run: Callable[[str, dict[str, Any]], int | None]
    check: tuple[str, ...] | None = None
    read_only: bool = False
    label: Callable[[str], str] | None = None


def _stages(command: str, cfg: dict[str, Any]) -> None:
    from medrealmm.pipeline import run_stages

    run_stages(cfg, STAGES[command])


def _pending(command: str, cfg: dict[str, Any]) -> None:
    from pathlib import Path

    from medrealmm.shards import missing_shards, shard_spec

    _, count = shard_spec(cfg["run"])
    print(",".join(str(i) for i in missing_shards(Path(cfg["run"]["out_dir"]), count)))


def _view(command: str, cfg: dict[str, Any]) -> None:
    from medrealmm.report.viewer import write_view

    print(write_view(cfg))


def _doctor(command: str, cfg: dict[str, Any]) -> int | None:
    from medrealmm.doctor import render, run_checks

    checks = run_checks(cfg)
    print(render(checks))
    return 1 if any(not c.ok and c.problem for c in checks) else None


def _plan(command: str, cfg: dict[str, Any]) -> None:
    from medrealmm.config_groups import check_config
    from medrealmm.config_schema import ClusterSettings
    from medrealmm.plan import check, plan_run, render, render_workload, workload

    check_config(cfg, ("model", "judge", "backend", "judge_backend", "run", "cluster"))
    cluster = ClusterSettings.of(cfg.get("cluster"), "cluster")
    plans = plan_run(cfg)
    print(render(plans, cluster.format))
    check(plans)
    if cluster.format == "text" and cluster.workload:
        print(render_workload(workload(cfg), plans, cfg, _task_overrides()))


def _runs(command: str, cfg: dict[str, Any]) -> None:
    from pathlib import Path

    from medrealmm.common.tables import markdown_table
    from medrealmm.runrecord import runs_table

    root = Path(cfg["paths"]["outputs"]) / "runs" / cfg["data"]["name"]
    rows = runs_table(root) if root.is_dir() else []
    if not rows:
        print(f"no run records under {root}")
        return
    import polars as pl

    print(f"runs of {cfg['data']['name']} under {root}:\n")
    print(markdown_table(pl.DataFrame(rows)))


def _store(command: str, cfg: dict[str, Any]) -> int | None:
    from medrealmm.store.commands import run as store_command

    return store_command(command.removeprefix("store-"), cfg) or None


def _leaderboard(command: str, cfg: dict[str, Any]) -> None:
    from medrealmm.report.leaderboard import write_leaderboard

    write_leaderboard(cfg)


def _report(command: str, cfg: dict[str, Any]) -> None:
    from medrealmm.report.build import write_report

    write_report(cfg)


def _corpus(command: str, cfg: dict[str, Any]) -> None:
    from medrealmm.deid.funnel_step import run_corpus

    run_corpus(cfg)


def _mccp(command: str, cfg: dict[str, Any]) -> None:
    from medrealmm.mccp import run_mccp

    run_mccp(cfg)


def _rubric(command: str, cfg: dict[str, Any]) -> None:
    from medrealmm.rubric.build import run_rubric

    run_rubric(command.removeprefix("rubric-"), cfg)


def _deid(command: str, cfg: dict[str, Any]) -> None:
    from medrealmm.deid.build import run_deid, run_review

    run_deid(cfg) if command == "deid" else run_review(cfg)


def _validate(command: str, cfg: dict[str, Any]) -> int | None:
    from medrealmm.data.validate import validate

    return 1 if validate(cfg) else None


def _named(command: str) -> str:
    return command


def _rubric_action(command: str) -> str:
    return f"rubric {command.removeprefix('rubric-')}"


#: The stages each evaluation command runs.
STAGES = {"run": ("generate", "judge", "score"), "generate": ("generate",), "judge": ("judge",),
          "score": ("score",), "merge": ("merge",)}
RUBRIC_ACTIONS = ("generate", "import", "revise", "approve", "export", "sheets", "lint", "report")
STORE_ACTIONS = ("stats", "verify", "compact", "gc", "migrate")

#: Every Hydra command, by name: one table, one error handler (:func:`execute`).
COMMANDS: dict[str, Command] = {
    **{c: Command(_stages, check=()) for c in EVALUATION},
    "validate": Command(_validate, check=("data", "model", "run")),
    "pending": Command(_pending),
    "leaderboard": Command(_leaderboard, read_only=True),
    "runs": Command(_runs, read_only=True),
    "plan": Command(_plan, read_only=True),
    "doctor": Command(_doctor, read_only=True),
    "view": Command(_view, read_only=True),
    "report": Command(_report, check=("report", "run"), read_only=True, label=_named),  # bad config, labels, mapping
    "deid": Command(_deid, check=("deid",), label=_named),               # bad records file, option or reviewer CSV
    "deid-review": Command(_deid, check=("deid",), label=_named),
    "corpus": Command(_corpus, check=("corpus", "deid"), label=_named),
    "mccp": Command(_mccp, check=("mccp",), label=_named),
    **{f"rubric-{a}": Command(_rubric, check=("rubric",), label=_rubric_action)  # feedback, instances
       for a in RUBRIC_ACTIONS},
    **{f"store-{a}": Command(_store, check=("store",), read_only=True) for a in STORE_ACTIONS},
}
READ_ONLY = tuple(c for c, spec in COMMANDS.items() if spec.read_only)   # read finished runs only: no data path


def _expected_errors() -> tuple[type[BaseException], ...]:
    """The failures every command reports in one line (exit status 2): bad settings, data, models, files."""
    from omegaconf.errors import OmegaConfBaseException

    from medrealmm.common.fonts import NoCJKFont
    from medrealmm.config_schema import ConfigError
    from medrealmm.deid.stage import DeidFailed
    from medrealmm.inference.engines import ModelUnavailable
    from medrealmm.inference.openai_backend import ServerUnavailable
    from medrealmm.pipeline import RunFailed
    from medrealmm.plan import PlanError
    from medrealmm.report.runs import RunsNotFound
    from medrealmm.rubric.build import RubricFailed
    from medrealmm.schema import CaseError
    from medrealmm.scoring import UnscoredVerdictError
    from medrealmm.shards import MissingShards

    return (RunFailed, CaseError, ModelUnavailable, UnscoredVerdictError, MissingShards, RunsNotFound, NoCJKFont,
            DeidFailed, RubricFailed, ConfigError, ServerUnavailable, PlanError,
            ValueError, OSError, OmegaConfBaseException)


def execute(command: str, cfg_node: Any) -> None:
    """Run one command of :data:`COMMANDS`; an expected failure becomes one line and exit status 2."""
    from medrealmm.config import to_plain
    from medrealmm.config_groups import check_config

    spec = COMMANDS[command]
    debug = bool(cfg_node.get("debug", False)) if hasattr(cfg_node, "get") else False
    expected = _expected_errors()
    try:
        cfg = to_plain(cfg_node, missing_ok=spec.read_only)
        if spec.check is not None:
            check_config(cfg, *([spec.check] if spec.check else []))
        status = _run_labelled(command, spec, cfg)
    except expected as e:
        fail(command, e, debug)
        return
    if status:
        sys.exit(status)


def _run_labelled(command: str, spec: Command, cfg: dict[str, Any]) -> int | None:
    """The handler; its bad-value and missing-file errors say which command met them (``spec.label``)."""
    if spec.label is None:
        return spec.run(command, cfg)
    from medrealmm.pipeline import RunFailed

    try:
        return spec.run(command, cfg)
    except (ValueError, FileNotFoundError) as e:
        log.debug("%s failed", command, exc_info=True)
        raise RunFailed(f"{spec.label(command)}: {e}") from e


def fail(command: str, e: BaseException, debug: bool) -> None:
    """One line naming the setting or file (the traceback only with ``debug=true``), exit status 2."""
    if debug:
        raise e
    log.debug("%s failed", command, exc_info=e)
    log.error("%s", _one_line(e))
    if _in_multirun():  # let Hydra finish the other jobs of the sweep; it exits non-zero at the end
        raise e
    sys.exit(2)


def _one_line(e: BaseException) -> str:
    import errno

    if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"no space left on the device writing {e.filename or 'the outputs'}: free some space (or point " \
               "paths.outputs elsewhere) and rerun; finished work is kept and resumed"
    if isinstance(e, PermissionError):
        return f"permission denied: {e.filename} (choose writable folders with paths.outputs=... or fix permissions)"
    if isinstance(e, OSError) and e.filename and type(e) is not OSError or isinstance(e, FileNotFoundError):
        return f"{e.strerror or type(e).__name__}: {e.filename}" if e.filename else str(e)
    text = str(e)
    if type(e).__name__ in ("MissingMandatoryValue",):
        key = getattr(e, "full_key", "")
        return f"{key} is not set: give it on the command line, e.g. {key}=..." if key else text
    return text if isinstance(e, (ValueError, RuntimeError)) else f"{type(e).__name__}: {text}"


def _in_multirun() -> bool:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    return HydraConfig.initialized() and HydraConfig.get().mode == RunMode.MULTIRUN


def hydra_app(command: str):
    import hydra

    from medrealmm.config import conf_dir, register_resolvers

    register_resolvers()

    @hydra.main(version_base=None, config_path=str(conf_dir()), config_name="config")
    def app(cfg) -> None:
        execute(command, cfg)

    return app


def _task_overrides() -> list[str]:
    """The command line's key=value overrides (to repeat them in a suggested command)."""
    try:
        from hydra.core.hydra_config import HydraConfig

        return list(HydraConfig.get().overrides.task)
    except (ImportError, ValueError):
        return []


def _check_outputs(overrides: list[str]) -> None:
    """The outputs folder must be creatable before Hydra makes its log folder inside it; otherwise
    Hydra fails first, with its own message and exit status 1."""
    from pathlib import Path

    given = [a.split("=", 1)[1] for a in overrides if a.startswith("paths.outputs=")]
    value = given[-1] if given else "outputs"
    if "${" in value or "-m" in overrides or "--multirun" in overrides:
        return
    try:
        Path(value).expanduser().mkdir(parents=True, exist_ok=True)
    except OSError as e:
        log.error("cannot create the outputs folder %s (%s); choose a writable one with paths.outputs=...",
                  value, e.strerror or type(e).__name__)
        sys.exit(2)


def bash_completion() -> str:
    """Command names first; then the command's own Hydra completion (groups, options, keys), asked with the
    command word dropped from the line, as Hydra expects a one-app program."""
    from medrealmm.catalog import GROUPS

    commands = " ".join(sorted({c.split("-")[0] if c.split("-")[0] in GROUPED else c for c in COMMANDS}
                               | set(DIRECT)))
    return f"""_medrealmm_complete() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}}
    if [ "$COMP_CWORD" -eq 1 ]; then COMPREPLY=($(compgen -W "{commands}" -- "$cur")); return; fi
    local cmd=${{COMP_WORDS[1]}}
    case "$cmd" in
        list) COMPREPLY=($(compgen -W "{' '.join(GROUPS)}" -- "$cur")); return ;;
        completion) COMPREPLY=($(compgen -W "bash" -- "$cur")); return ;;
        rubric) if [ "$COMP_CWORD" -eq 2 ]; then
                    COMPREPLY=($(compgen -W "generate import revise approve export sheets lint report" -- "$cur")); return
                fi
                cmd="rubric ${{COMP_WORDS[2]}}" ;;
        store) if [ "$COMP_CWORD" -eq 2 ]; then
                   COMPREPLY=($(compgen -W "stats verify compact gc migrate" -- "$cur")); return
               fi
               cmd="store ${{COMP_WORDS[2]}}" ;;
    esac
    local rest=${{COMP_LINE#*"$cmd"}}
    local line="medrealmm$rest"
    local point=$(( COMP_POINT - ${{#COMP_LINE}} + ${{#line}} ))
    COMPREPLY=($(COMP_LINE="$line" COMP_POINT=$point medrealmm $cmd -sc query=bash 2>/dev/null))
}}
complete -o nospace -o default -F _medrealmm_complete medrealmm"""


def _completion(args: list[str]) -> int | None:
    """Hydra completes one app; this wraps it for every command."""
    if args != ["bash"]:
        print("usage: eval \"$(medrealmm completion bash)\"", file=sys.stderr)
        return 2
    print(bash_completion())
    return None


def _list(args: list[str]) -> int | None:
    """Reads conf/ only: no Hydra app, instant."""
    from medrealmm.catalog import GROUPS, render

    if len(args) != 1 or args[0] not in GROUPS:
        print(f"usage: medrealmm list {'|'.join(GROUPS)}", file=sys.stderr)
        return 2
    print(render(args[0]))
    return None


def _train_qr(args: list[str]) -> int | None:
    """Its own key=value parser (no Hydra app: it has no run config)."""
    from medrealmm.deid.train_qr import main as train_qr

    return train_qr([a if a != "--hydra-help" else "--help" for a in args])


#: The commands that run without a Hydra app (their own arguments).
DIRECT: dict[str, Callable[[list[str]], int | None]] = {
    "completion": _completion, "list": _list, "deid-train-qr": _train_qr}
#: ``medrealmm <group> <action>`` -> the ``<group>-<action>`` app.
GROUPED = {"rubric": "<generate|import|revise|approve|export|sheets|report|lint>",
           "store": "<stats|verify|compact|gc|migrate>"}


def _grouped(argv: list[str]) -> list[str]:
    """``["rubric", "generate", ...]`` -> ``["rubric-generate", ...]``; a missing or unknown action: usage, exit 2."""
    group = argv[0]
    if len(argv) < 2 or f"{group}-{argv[1]}" not in COMMANDS:
        what = f"unknown {group} action {argv[1]!r}\n" if len(argv) > 1 and "=" not in argv[1] else ""
        print(f"{what}usage: medrealmm {group} {GROUPED[group]} [key=value ...]", file=sys.stderr)
        sys.exit(2)
    return [f"{group}-{argv[1]}", *argv[2:]]


def _run_hydra(command: str, rest: list[str]) -> None:
    """A command of :data:`COMMANDS` as its Hydra app (``sys.argv`` rewritten for Hydra)."""
    rest = [a if a != "--hydra-help" else "--help" for a in rest]
    _check_outputs(rest)
    if command not in EVALUATION and not any(a.startswith("hydra.run.dir=") for a in rest):
        # Hydra's own log folder: beside the outputs of the command, not inside a model's run folder
        rest.append(f"hydra.run.dir=${{paths.outputs}}/logs/{command}/${{now:%Y%m%d-%H%M%S}}")
    sys.argv = [f"medrealmm {command}", *rest]
    hydra_app(command)()


def _dispatch(argv: list[str]) -> int | None:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return None
    if argv[0] in GROUPED:
        argv = _grouped(argv)
    command, rest = argv[0], argv[1:]
    if command in DIRECT:
        return DIRECT[command](rest)
    if command in EVALUATION and any(a in ("-h", "--help") for a in rest):
        from medrealmm.catalog import run_help

        print(run_help(command))
        return None
    if command not in COMMANDS:
        print(f"medrealmm: unknown command {command!r}\n\n{USAGE}", file=sys.stderr)
        return 2
    _run_hydra(command, rest)
    return None


def main(argv: list[str] | None = None) -> None:
    import os

    # torch's C++ logger prints "Triton not available" and NUMA notes on every engine start: errors only
    os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
    try:
        status = _dispatch(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (`medrealmm list | head`): stop quietly, as a program killed by SIGPIPE would;
        # stdout goes to /dev/null so that the interpreter's last flush does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
    if status:
        sys.exit(status)


if __name__ == "__main__":
    main()
