"""The ``medrealmm`` command: ``medrealmm <stage> [key=value ...]``.

Each stage is a Hydra app over ``conf/``, so every value can be overridden and ``-m`` sweeps
(models x judges x modes) work. ``medrealmm --help`` answers without importing Hydra or engines.
"""

from __future__ import annotations

import logging
import sys

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

COMMANDS = {"run": ("generate", "judge", "score"), "generate": ("generate",), "judge": ("judge",),
            "score": ("score",), "merge": ("merge",), "validate": (), "pending": (), "leaderboard": (), "runs": (), "plan": (), "doctor": (), "view": (), "report": (),
            "deid": (), "deid-review": (), "corpus": (), "mccp": (),
            **{f"rubric-{a}": () for a in ("generate", "import", "revise", "approve", "export", "sheets", "lint",
                                           "report")},
            **{f"store-{a}": () for a in ("stats", "verify", "compact", "gc", "migrate")}}
READ_ONLY = ("runs", "leaderboard", "report", "plan", "doctor", "view",   # read finished runs only: no data path needed
             *(c for c in COMMANDS if c.startswith("store-")))
EVALUATION = ("run", "generate", "judge", "score", "merge")
log = logging.getLogger("medrealmm")


def execute(command: str, cfg_node) -> None:
    from medrealmm.config import to_plain
    from medrealmm.inference.engines import ModelUnavailable
    from medrealmm.inference.openai_backend import ServerUnavailable
    from medrealmm.plan import PlanError
    from medrealmm.deid.stage import DeidFailed
    from medrealmm.pipeline import RunFailed, run_stages
    from medrealmm.common.fonts import NoCJKFont
    from medrealmm.report.runs import RunsNotFound
    from medrealmm.rubric.build import RubricFailed
    from medrealmm.schema import CaseError
    from medrealmm.shards import MissingShards
    from medrealmm.scoring import UnscoredVerdictError

    from medrealmm.config_schema import ConfigError, check_config

    debug = bool(cfg_node.get("debug", False)) if hasattr(cfg_node, "get") else False
    try:
        cfg = to_plain(cfg_node, missing_ok=command in READ_ONLY)
        if command in EVALUATION:
            check_config(cfg)
        elif command == "validate":
            check_config(cfg, ("data", "model", "run"))
        if command == "pending":
            from pathlib import Path

            from medrealmm.shards import missing_shards, shard_spec

            _, count = shard_spec(cfg["run"])
            print(",".join(str(i) for i in missing_shards(Path(cfg["run"]["out_dir"]), count)))
            return
        if command == "view":
            from medrealmm.report.viewer import write_view

            print(write_view(cfg))
            return
        if command == "doctor":
            from medrealmm.doctor import render, run_checks

            checks = run_checks(cfg)
            print(render(checks))
            if any(not c.ok and c.problem for c in checks):
                sys.exit(1)
            return
        if command == "plan":
            from medrealmm.plan import check, plan_run, render

            check_config(cfg, ("model", "judge", "backend", "judge_backend", "run"))
            plans = plan_run(cfg)
            fmt = str((cfg.get("cluster") or {}).get("format", "text"))
            print(render(plans, fmt))
            check(plans)
            if fmt == "text" and (cfg.get("cluster") or {}).get("workload", True):
                from medrealmm.plan import render_workload, workload

                print(render_workload(workload(cfg), plans, cfg, _task_overrides()))
            return
        if command == "runs":
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
            return
        if command.startswith("store-"):
            from medrealmm.store.commands import run as store_command

            status = store_command(command.removeprefix("store-"), cfg)
            if status:
                sys.exit(status)
            return
        if command == "leaderboard":
            from medrealmm.report.leaderboard import write_leaderboard

            write_leaderboard(cfg)
            return
        if command == "report":
            from medrealmm.report.build import write_report

            try:
                write_report(cfg)
            except (ValueError, FileNotFoundError) as e:   # bad config, labels file or mapping: say which
                log.debug("report failed", exc_info=True)
                raise RunFailed(f"report: {e}") from e
            return
        if command in ("corpus", "mccp"):
            from medrealmm.deid.funnel_step import run_corpus
            from medrealmm.mccp import run_mccp

            try:
                run_corpus(cfg) if command == "corpus" else run_mccp(cfg)
            except (ValueError, FileNotFoundError) as e:
                log.debug("%s failed", command, exc_info=True)
                raise RunFailed(f"{command}: {e}") from e
            return
        if command.startswith("rubric-"):
            from medrealmm.rubric.build import run_rubric

            try:
                run_rubric(command.removeprefix("rubric-"), cfg)
            except (ValueError, FileNotFoundError) as e:   # bad feedback file, instances or option: say which
                log.debug("%s failed", command, exc_info=True)
                raise RunFailed(f"rubric {command.removeprefix('rubric-')}: {e}") from e
            return
        if command in ("deid", "deid-review"):
            from medrealmm.deid.build import run_deid, run_review

            try:
                run_deid(cfg) if command == "deid" else run_review(cfg)
            except (ValueError, FileNotFoundError) as e:   # bad records file, option or reviewer CSV
                log.debug("%s failed", command, exc_info=True)
                raise RunFailed(f"{command}: {e}") from e
            return
        if command == "validate":
            from medrealmm.data.validate import validate

            if validate(cfg):
                sys.exit(1)
            return
        run_stages(cfg, COMMANDS[command])
    except (RunFailed, CaseError, ModelUnavailable, UnscoredVerdictError, MissingShards, RunsNotFound,
            NoCJKFont, DeidFailed, RubricFailed, ConfigError, ServerUnavailable, PlanError) as e:
        fail(command, e, debug)
    except Exception as e:   # the expected failures of any command: bad values, files, permissions, disk
        from omegaconf.errors import OmegaConfBaseException

        if not isinstance(e, (ValueError, OSError, OmegaConfBaseException)):
            raise
        fail(command, e, debug)


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

    commands = " ".join(sorted({c.split("-")[0] if c.startswith(("rubric-", "store-")) else c for c in COMMANDS}
                               | {"list", "completion", "deid-train-qr"}))
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


def main(argv: list[str] | None = None) -> None:
    import os

    # torch's C++ logger prints "Triton not available" and NUMA notes on every engine start: errors only
    os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return
    command = argv[0]
    if command == "rubric":             # `medrealmm rubric generate ...` -> the rubric-generate app
        if len(argv) < 2 or f"rubric-{argv[1]}" not in COMMANDS:
            what = f"unknown rubric action {argv[1]!r}\n" if len(argv) > 1 and "=" not in argv[1] else ""
            print(f"{what}usage: medrealmm rubric <generate|import|revise|approve|export|sheets|report|lint> "
                  "[key=value ...]", file=sys.stderr)
            sys.exit(2)
        argv = [f"rubric-{argv[1]}", *argv[2:]]
        command = argv[0]
    if command == "store":              # `medrealmm store stats ...` -> the store-stats app
        if len(argv) < 2 or f"store-{argv[1]}" not in COMMANDS:
            what = f"unknown store action {argv[1]!r}\n" if len(argv) > 1 and "=" not in argv[1] else ""
            print(f"{what}usage: medrealmm store <stats|verify|compact|gc|migrate> [key=value ...]", file=sys.stderr)
            sys.exit(2)
        argv = [f"store-{argv[1]}", *argv[2:]]
        command = argv[0]
    if command == "completion":         # Hydra completes one app; this wraps it for every command
        if argv[1:] != ["bash"]:
            print("usage: eval \"$(medrealmm completion bash)\"", file=sys.stderr)
            sys.exit(2)
        print(bash_completion())
        return
    if command == "list":               # reads conf/ only: no Hydra app, instant
        from medrealmm.catalog import GROUPS, render

        if len(argv) != 2 or argv[1] not in GROUPS:
            print(f"usage: medrealmm list {'|'.join(GROUPS)}", file=sys.stderr)
            sys.exit(2)
        print(render(argv[1]))
        return
    if command in ("run", "generate", "judge", "score", "merge") and any(a in ("-h", "--help") for a in argv[1:]):
        from medrealmm.catalog import run_help

        print(run_help(command))
        return
    if "--hydra-help" in argv[1:]:
        argv = [a if a != "--hydra-help" else "--help" for a in argv]
    if command == "deid-train-qr":      # its own key=value parser (no Hydra app: it has no run config)
        from medrealmm.deid.train_qr import main as train_qr

        sys.exit(train_qr(argv[1:]))
    if command not in COMMANDS:
        print(f"medrealmm: unknown command {command!r}\n\n{USAGE}", file=sys.stderr)
        sys.exit(2)
    rest = argv[1:]
    _check_outputs(rest)
    if command not in ("run", "generate", "judge", "score", "merge") and not any(
            a.startswith("hydra.run.dir=") for a in rest):
        # Hydra's own log folder: beside the outputs of the command, not inside a model's run folder
        rest.append(f"hydra.run.dir=${{paths.outputs}}/logs/{command}/${{now:%Y%m%d-%H%M%S}}")
    sys.argv = [f"medrealmm {command}", *rest]
    hydra_app(command)()


if __name__ == "__main__":
    main()
