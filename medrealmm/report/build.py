"""``medrealmm report``: many runs in, one self-contained HTML page (+ Markdown, CSV, Parquet) out.

What goes in which section, with the sentence a reader needs to interpret it, is decided here;
the statistics are :mod:`medrealmm.report.analyses`, the figures :mod:`medrealmm.report.figures`,
the layout :mod:`medrealmm.report.document`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm import atomic
from medrealmm.config_schema import ScoringSettings
from medrealmm.report.analyses import (
    SPECIALTY,
    ReportOptions,
    build_tables,
    entry_labels,
    heatmap_cells,
    primary_judge,
)
from medrealmm.report.document import Details, Document, Figure, Section, Table, Text
from medrealmm.report.runs import RunSet, load_runs
from medrealmm.report.settings import ReportSettings
from medrealmm.csvsafe import write_csv

log = logging.getLogger(__name__)

HOW_TO_READ = """\
Each evaluated model wrote the physician's next reply for every case (with the images, or with \
images replaced by a marker in the text-only ablation). A judge model checked every criterion of \
the case's rubric separately. A case score is `clip(Σ w·v / Σ max(w, 0), 0, 1)`: the points of the \
positive criteria met, minus the points of the negative criteria triggered, over the positive \
points available. The benchmark score is the mean case score.

- Intervals are 95% percentile bootstrap intervals over cases (seeded, so the same runs give the same numbers).
- `online` is the real physician's reply, scored like a model: an anchor, not ranked.
- A case whose verdicts are partly unscored (the judge gave no usable answer) is excluded and counted, never scored as 0 or 1.
- With k sampled replies per case, a case's score is the mean over its samples; worst-of-k uses the samples themselves.
- Breakdown cells with fewer than {min_n} scored cases are marked as small samples: read them as anecdotes.
- Paired differences compare two models on the same cases, so their intervals are narrower than the two leaderboard intervals suggest.
- Judge agreement: raw agreement, Gwet's AC1 (robust when most criteria are met or most are not), Cohen's κ and macro-F1, overall and split by positive and negative criteria.
"""

BOARD_COLS = ["rank", "model", "mode", "score", "ci_low", "ci_high", "n_scored", "n_excluded", "samples",
              "mean_pos_met", "mean_n_pos", "mean_neg_triggered", "mean_n_neg"]
BREAKDOWN_COLS = ["model", "mode", "n_scored", "score", "ci_low", "ci_high", "small_n"]
DIM_TITLES = {SPECIALTY: "specialty group", "department": "department", "intent": "patient intent",
              "stage": "consultation stage", "n_images": "number of images", "n_turns": "number of turns"}


@dataclass
class ReportPaths:
    html: Path
    markdown: Path
    tables: Path
    figures: Path


def report_settings(cfg: dict[str, Any]) -> ReportSettings:
    """The ``report`` group, checked (:class:`~medrealmm.config_schema.ConfigError` names a bad key)."""
    return ReportSettings.of(cfg.get("report"), "report")


def options_from_config(cfg: dict[str, Any], settings: ReportSettings | None = None) -> ReportOptions:
    """What the report computes: ``report`` (``settings``: read already) with ``run.scoring`` and ``run.seed``."""
    rep = settings if settings is not None else report_settings(cfg)
    sc = ScoringSettings.of(cfg["run"]["scoring"], "run.scoring")
    ks, pairs = rep.worst_of_k, rep.pairs
    return ReportOptions(
        anchor=rep.anchor_model or "online", primary_judge=rep.primary_judge,
        min_n=rep.min_n, n_boot=sc.bootstrap, seed=int(cfg["run"]["seed"]),
        ci=sc.ci, dims=(SPECIALTY, *[d for d in sc.dims if d != SPECIALTY]),
        edges={k: list(v) for k, v in (sc.edges or {}).items()},
        histogram_bin=sc.histogram_bin,
        worst_k=tuple(ks) if ks else None,
        pairs=tuple((a, b) for a, b in pairs) if pairs else None,
        max_pairs=rep.max_pairs)


def run_locations(cfg: dict[str, Any], settings: ReportSettings | None = None) -> tuple[list[Path], Path | None]:
    """The run folders to read (``report.runs``), or every run of ``data.name`` under ``paths.outputs``."""
    runs = (settings if settings is not None else report_settings(cfg)).runs
    if runs:
        return [Path(r) for r in ([runs] if isinstance(runs, str) else runs)], None
    root = Path(cfg["paths"]["outputs"]) / "runs" / cfg["data"]["name"]
    return [root], root


# --- sections ------------------------------------------------------------------------------------

def viewer_link(dataset: str, *filters: str) -> Callable[[dict[str, Any]], str | None]:
    """A table row's cases in the case viewer (``medrealmm view``, next to the report under outputs/):
    the run is found by model, mode and judge, then the row's own values filter the case list."""
    from urllib.parse import urlencode

    def link(row: dict[str, Any]) -> str | None:
        if not row.get("model") or not row.get("mode"):
            return None
        q = {"model": row["model"], "mode": row["mode"], "judge": row.get("judge") or ""}
        for f in filters:
            if row.get(f) is not None:
                q["specialty" if f == SPECIALTY else f] = str(row[f])
        return f"../../view/{dataset}/index.html#/find?{urlencode(q)}"

    return link


class Builder:
    """Collects sections; a figure that fails is logged and left out, never the whole report."""

    def __init__(self, font: str | None, figures: bool, dataset: str = ""):
        self.font, self.figures, self.dataset = font, figures, dataset
        self.sections: list[Section] = []

    def section(self, id: str, title: str) -> Section:
        s = Section(id, title)
        self.sections.append(s)
        return s

    def figure(self, section: Section, name: str, caption: str, draw: Callable[..., bytes], *args: Any,
               link: Callable[[dict[str, Any]], str | None] | None = None,
               link_title: Callable[[dict[str, Any]], str] | None = None, **kw: Any) -> None:
        """``link`` (for figures that can say where each cell is, like heatmaps): the viewer page of the
        cases behind a cell, laid over the image in the HTML report."""
        if not self.figures:
            return
        areas: list[tuple[dict[str, Any], tuple[float, float, float, float]]] = []
        try:
            png = draw(*args, font=self.font, **({"areas": areas} if link else {}), **kw)
        except ValueError as e:
            log.warning("figure %s left out: %s", name, e)
            return
        links = [(place, href, link_title(row) if link_title else href) for row, place in areas
                 if link and (href := link(row))]
        section.blocks.append(Figure(name, png, caption, links=links))


#: The judge the paper graded with, and the open-weight judges it validated against it.
PAPER_JUDGE = "gemini-3-pro-preview"
PAPER_VALIDATED = {"kimi-k2.5": "validated by the paper against its judge: 52.71 vs 52.03, AC1 0.89"}


def judge_provenance(runs: RunSet | list[str]) -> str:
    """Which judge graded, and whether it is the paper's (every report header and leaderboard says so)."""
    parts = []
    for j in (runs if isinstance(runs, list) else runs.judges):
        if j == PAPER_JUDGE:
            parts.append(f"{j}: the paper's judge")
        elif j in PAPER_VALIDATED:
            parts.append(f"{j}: not the paper's judge ({PAPER_JUDGE}); {PAPER_VALIDATED[j]}")
        else:
            parts.append(f"{j}: not the paper's judge ({PAPER_JUDGE}); scores are not comparable to the paper's tables")
    return "; ".join(parts)


def _runs_section(b: Builder, runs: RunSet) -> None:
    s = b.section("runs", "Runs")
    rows = []
    for r in runs.runs:
        cfg = r.manifest.get("config", {})
        rows.append({"run": r.name, "run_id": r.run_id, "selection": r.selection,
                     "model": (cfg.get("model") or {}).get("name"),
                     "judge": (cfg.get("judge") or {}).get("name"),
                     "modes": ", ".join((cfg.get("run") or {}).get("modes", [])),
                     "samples": (cfg.get("run") or {}).get("samples"),
                     "cases": r.case_scores["case_id"].n_unique(), "created": r.created or None,
                     "git": ((r.manifest.get("git") or {}).get("revision") or "")[:10] or None,
                     "superseded_rows": runs.superseded.get(r.name, 0)})
    s.blocks.append(Table("runs", pl.DataFrame(rows), "Runs in this report"))
    if runs.superseded:
        s.blocks.append(Text("Some runs overlap (same model, mode, judge and case); the newest run's rows are "
                             "used, the count of replaced rows is in `superseded_rows`."))
    if runs.differing:
        s.blocks.append(Text("The runs differ in settings other than model and judge: "
                             + ", ".join(f"`{k}`" for k in runs.differing)
                             + ". Scores in one table may not be comparable; see each run's manifest."))
    if runs.left_out:
        s.blocks.append(Text(f"{len(runs.left_out)} run(s) over part of the dataset are not shown beside the full "
                             "runs (`report.selection=all` shows them): " + "; ".join(runs.left_out)))


def _leaderboard_section(b: Builder, t: dict[str, pl.DataFrame], judge: str) -> None:
    from medrealmm.report import figures as fig

    board = t["leaderboard"]
    s = b.section("leaderboard", "Leaderboard")
    if "overall" in t:
        s.blocks.append(Text("Every model once, at its best available modality (with the images when it ran with "
                             "them, else text-only), ranked within each judge: the paper's Figure 4(a). The tables "
                             "after it rank within judge and mode."))
        for j, part in t["overall"].group_by(["judge"], maintain_order=True):
            s.blocks.append(Table(f"overall__{j[0]}", part, f"Overall ranking, judge {j[0]}",
                                  columns=["overall_rank", "model", "mode", "score", "ci_low", "ci_high", "n_scored",
                                           "n_excluded"], file="overall"))
    s.blocks.append(Text(f"Mean case score with its 95% interval, ranked within each judge and mode. "
                         f"Model tables below use the judge `{judge}`."))
    b.figure(s, "leaderboard", "Benchmark score (bars: 95% bootstrap interval; hatched: the online physician "
             "reply)", fig.leaderboard_figure, board)
    for (j, mode), part in board.group_by(["judge", "mode"], maintain_order=True):
        s.blocks.append(Table(f"leaderboard__{j}__{mode}", part, f"Judge {j}, mode {mode}", columns=BOARD_COLS,
                              file="leaderboard", link=viewer_link(b.dataset)))
    d = b.section("decomposition", "Criteria met and triggered per case")
    d.blocks.append(Text("The paper's Figure 4: per case, how many positive criteria a reply met (of "
                         "`mean_n_pos`) and how many negative criteria (undesirable behaviours) it triggered "
                         "(of `mean_n_neg`). A high score can hide triggered negatives; this shows both."))
    b.figure(d, "decomposition", "Positive criteria met and negative criteria triggered per case",
             fig.decomposition_figure, board.filter(pl.col("judge") == judge))
    d.blocks.append(Table("decomposition", board.filter(pl.col("judge") == judge), "Per-case means",
                          file="leaderboard", columns=["model", "mode", "mean_pos_met", "mean_n_pos", "pos_met_rate",
                                   "mean_neg_triggered", "mean_n_neg", "neg_triggered_rate"]))


def _ablation_section(b: Builder, t: dict[str, pl.DataFrame]) -> None:
    from medrealmm.report import figures as fig

    s = b.section("ablation", "Images: multimodal vs text-only")
    if "ablation" not in t:
        s.blocks.append(Text("Not in these runs: run the models with `run.modes=[multimodal,text]`."))
        return
    s.blocks.append(Text("Difference of the multimodal and the text-only score on the cases both scored, "
                         "with a paired bootstrap interval. Above 0: the images helped."))
    b.figure(s, "ablation", "Multimodal minus text-only score (95% paired bootstrap interval)",
             fig.ablation_figure, t["ablation"])
    s.blocks.append(Table("ablation", t["ablation"], "Image ablation",
                          columns=["model", "n_cases", "mean_a", "mean_b", "diff", "ci_low", "ci_high",
                                   "share_le_0"]))


def _breakdown_section(b: Builder, t: dict[str, pl.DataFrame], opts: ReportOptions, order: list[str],
                       unmapped: list[str]) -> None:
    from medrealmm.report import figures as fig

    s = b.section("breakdowns", "Breakdowns")
    s.blocks.append(Text(f"Scores by case attribute. In the heatmaps every cell shows the score and its "
                         f"number of scored cases; cells with n < {opts.min_n} are marked."))
    for dim in opts.dims:
        table = t.get(f"by_{dim}")
        if table is None:
            continue
        title = DIM_TITLES.get(dim, dim)
        cells = heatmap_cells(table, dim, order, bucketed=dim in opts.edges)
        link = viewer_link(b.dataset, dim) if dim in ("department", SPECIALTY, "intent", "stage") else None
        b.figure(s, f"heatmap_{dim}", f"Score by {title} (n = scored cases)" + (
                     "; click a cell for its cases in the viewer" if link else ""), fig.heatmap_figure, cells,
                 row="entry", col=dim, value="score", count="n_scored", min_n=opts.min_n,
                 title=f"Score by {title}", link=link,
                 link_title=lambda r, d=dim: f"{r['entry']} · {r[d]}: cases in the viewer")
        s.blocks.append(Table(f"by_{dim}", table, f"By {title}", columns=[dim, *BREAKDOWN_COLS], link=link))
        if dim == SPECIALTY and unmapped:
            s.blocks.append(Text(f"Departments without a specialty group (shown as 其他): {', '.join(unmapped)}. "
                                 "Set `report.specialty_groups` to map them."))


def _dataset_section(b: Builder, t: dict[str, pl.DataFrame]) -> None:
    if "dataset" not in t:
        return
    s = b.section("dataset", "The cases")
    s.blocks.append(Text("What the cases of this report are (the paper's Figure 3): departments, patient intents, "
                         "consultation stages, images and turns per case, and criteria per case with their "
                         "positive/negative split."))
    s.blocks.append(Table("dataset", t["dataset"], "Cases per value, and per-case distributions"))
    if "specialty_mapping" in t:
        s.blocks.append(Text("How each department was put in a specialty group: `exact` (a listed name), `prefix` "
                             "or `suffix` (hospital naming rules, e.g. 中医皮肤科 → 中医, 儿童皮肤科 → 儿科), `none` "
                             "(其他; report.specialty_strict=true refuses these)."))
        s.blocks.append(Table("specialty_mapping", t["specialty_mapping"], "Department → specialty group"))


def _distribution_section(b: Builder, t: dict[str, pl.DataFrame]) -> None:
    from medrealmm.report import figures as fig

    s = b.section("distribution", "Score distribution")
    if "histogram" not in t:
        s.blocks.append(Text("No scored case: every case was excluded (see the judge health table)."))
        return
    s.blocks.append(Text("Per-case scores in 5% bins: two models with the same mean can fail very "
                         "differently (many middling cases vs. a few complete failures)."))
    b.figure(s, "histogram", "Share of cases per 5% score bin", fig.histogram_figure, t["histogram"])
    wide = (t["histogram"].with_columns(entry_labels(t["histogram"]),
                                        bin=pl.format("{}–{}", (pl.col("bin_low") * 100).round(0).cast(pl.Int64),
                                                      (pl.col("bin_high") * 100).round(0).cast(pl.Int64)))
            .pivot(on="entry", index="bin", values="n"))
    s.blocks.append(Table("histogram_wide", wide, "Cases per score bin (%)", floats=0, file="histogram"))


def _paired_section(b: Builder, t: dict[str, pl.DataFrame]) -> None:
    s = b.section("paired", "Paired model comparisons")
    if "paired" not in t:
        s.blocks.append(Text("Needs at least two models that answered the same cases."))
        return
    s.blocks.append(Text("`diff` = mean(model_a) − mean(model_b) over the cases both scored, with a paired "
                         "bootstrap interval; `share_le_0` is the share of bootstrap replicates where model_a "
                         "is not ahead (small: a consistent lead)."))
    s.blocks.append(Table("paired", t["paired"], "Paired differences",
                          columns=["mode", "model_a", "model_b", "n_cases", "mean_a", "mean_b", "diff", "ci_low",
                                   "ci_high", "share_le_0"]))


def _worst_section(b: Builder, t: dict[str, pl.DataFrame]) -> None:
    from medrealmm.report import figures as fig

    s = b.section("worst-of-k", "Worst-of-k reliability")
    if "worst_of_k" not in t:
        s.blocks.append(Text("Needs several replies per case: run with `run.samples=k` (k > 1)."))
        return
    s.blocks.append(Text("HealthBench's worst-at-k: the expected score of the worst of k replies to a case, "
                         "averaged over cases (exact over all k-subsets of the samples). A steep fall with k "
                         "means a model is unreliable even when its mean is good."))
    b.figure(s, "worst_of_k", "Expected worst case score among k replies", fig.worst_of_k_figure, t["worst_of_k"])
    s.blocks.append(Table("worst_of_k", t["worst_of_k"], "Worst-of-k",
                          columns=["model", "mode", "judge", "k", "worst_at_k", "ci_low", "ci_high", "mean_score",
                                   "n_cases"]))


def _judge_section(b: Builder, t: dict[str, pl.DataFrame], has_labels: bool) -> None:
    from medrealmm.report import figures as fig

    s = b.section("judges", "Judges")
    if "judge_agreement" in t:
        s.blocks.append(Text("Agreement on the criteria both raters graded (the same replies), overall and split "
                             "by positive and negative criteria. `physician` is the physicians' majority verdict "
                             "where labels were given. `ac1_ci_low`/`ac1_ci_high`: 95% interval of AC1."))
        b.figure(s, "agreement", "Gwet's AC1 per pair of raters", fig.agreement_figure, t["judge_agreement"])
        s.blocks.append(Table("judge_agreement", t["judge_agreement"], "Pairwise agreement",
                              columns=["rater_a", "rater_b", "polarity", "n", "n_unscored", "met_rate_a",
                                       "met_rate_b", "raw_agreement", "ac1", "ac1_ci_low", "ac1_ci_high", "kappa",
                                       "macro_f1"]))
    else:
        s.blocks.append(Text("One judge only. To compare judges, run several on the same replies, e.g. "
                             "`medrealmm run -m judge=a,b,c data.subset=200`, and give physician labels with "
                             "`report.physicians.csv=labels.csv`."))
    if "physician_panel" in t:
        s.blocks.append(Text("Agreement within the physician panel: Gwet's AC1 for three or more raters (as irrCAC "
                             "computes it), on the criteria the physicians labelled, overall and by polarity — the "
                             "ceiling a judge can be expected to reach against them."))
        s.blocks.append(Table("physician_panel", t["physician_panel"], "Physician panel agreement (multi-rater AC1)"))
    if "judge_scores" in t:
        s.blocks.append(Table("judge_scores", t["judge_scores"], "Mean score per judge on the replies every judge "
                              "scored"))
    if has_labels and "physician_case_scores" not in t:
        s.blocks.append(Text("No case has physician labels on all of its criteria, so there is no physician score."))
    s.blocks.append(Text("Judge health: `unscored_rate` (no usable verdict after retries), `retry_rate`, and "
                         "`met_rate`, the share of criteria judged met or triggered: near 0 or 1 on every "
                         "polarity suggests a judge that is not reading the reply."))
    s.blocks.append(Table("judge_health", t["judge_health"], "Judge health"))


def _tags_section(b: Builder, tags: pl.DataFrame | None) -> None:
    if tags is None or not tags.height:
        return
    s = b.section("tags", "HealthBench themes and axes")
    s.blocks.append(Text("HealthBench's breakdowns: a theme scores the examples carrying it; an axis scores "
                         "each example on its rubric items of that axis. `score_clip_mean_only` is "
                         "HealthBench's own convention."))
    s.blocks.append(Table("tags", tags.drop("sample"), "Scores per tag"))


def _manifest_section(b: Builder, runs: RunSet) -> None:
    s = b.section("manifests", "Manifests")
    s.blocks.append(Text("What each run used: resolved config, git revision, package versions, model, "
                         "tokenizer and chat-template hashes, seeds, dataset fingerprint."))
    for r in runs.runs:
        s.blocks.append(Details(f"{r.name} ({r.created or 'no manifest'})", r.manifest))


# --- entry point ---------------------------------------------------------------------------------

def configured_physician_labels(rep: ReportSettings) -> pl.DataFrame | None:
    """The physicians' majority verdicts (``report.physicians``), or None when no CSV is set."""
    from medrealmm.scoring import physician_labels

    phys = rep.physicians
    if not phys.csv:
        return None
    defaults = {k: v for k, v in phys.item_defaults.model_dump().items() if v is not None}
    return physician_labels(phys.csv, item_defaults=defaults)


def _tags(cfg: dict[str, Any], rep: ReportSettings, runs: RunSet, judge: str) -> pl.DataFrame | None:
    want = rep.tags
    if want == "auto":
        want = cfg["data"].get("format") == "healthbench"
    if not want:
        return None
    from medrealmm.data import load_dataset
    from medrealmm.scoring.tags import tag_breakdowns

    ds = load_dataset({**cfg["data"], "check_images": False})
    cs = runs.case_scores.filter(pl.col("judge") == judge)
    vs = runs.verdicts.filter(pl.col("judge") == judge)
    return tag_breakdowns(vs, cs, ds.cases)


def _assign_specialties(rep: ReportSettings, runs: RunSet) -> tuple[pl.DataFrame, list[str]]:
    """Adds the specialty group of every case to ``runs.case_scores``; returns the department -> group table
    and the departments no group or rule covers (an error with ``report.specialty_strict``)."""
    from medrealmm.data.specialty import assign, load_groups, specialty_expr

    groups = load_groups(rep.specialty_groups)
    departments = sorted(runs.case_scores["department"].drop_nulls().unique().to_list())
    assigned = assign(departments, groups, rules=rep.specialty_rules)
    runs.case_scores = runs.case_scores.with_columns(
        specialty_expr({d: g for d, (g, _) in assigned.items()}, alias=SPECIALTY))
    missing = sorted(d for d, (_, how) in assigned.items() if how == "none")
    if missing and rep.specialty_strict:
        raise ValueError(f"departments without a specialty group (report.specialty_strict=true): {missing}; add "
                         "them to report.specialty_groups")
    if missing:
        log.warning("departments without a specialty group: %s", missing)
    mapping = pl.DataFrame([{"department": d, "group": g, "assigned_by": how} for d, (g, how) in assigned.items()],
                           schema={"department": pl.String, "group": pl.String, "assigned_by": pl.String})
    return mapping, missing


@dataclass
class _Computed:
    """The report's tables, with what the sections need to know about them."""

    tables: dict[str, pl.DataFrame]
    judge: str                              # the judge of the model tables
    has_labels: bool                        # physician labels were given
    tags: pl.DataFrame | None


def _compute(cfg: dict[str, Any], rep: ReportSettings, runs: RunSet, opts: ReportOptions,
             mapping: pl.DataFrame) -> _Computed:
    """Every table of the report: the statistics, the physician panel, HealthBench tags, the specialty mapping."""
    labels = configured_physician_labels(rep)
    tables = build_tables(runs, opts, labels=labels)
    if rep.physicians.csv:
        from medrealmm.scoring.agreement import panel_agreement

        panel = panel_agreement(rep.physicians.csv, runs.verdicts, confidence=opts.ci)
        if panel.height and int(panel["physicians"][0]) >= 3:
            tables["physician_panel"] = panel
    judge = primary_judge(runs.case_scores, opts.primary_judge)
    tags = _tags(cfg, rep, runs, judge)
    if tags is not None:
        tables["tags"] = tags
    if mapping.height:
        tables["specialty_mapping"] = mapping.sort(["group", "department"])
    return _Computed(tables, judge, labels is not None, tags)


def _figure_font(rep: ReportSettings) -> str | None:
    """``report.font``, resolved when figures are drawn: fail early, with the fix, rather than draw boxes."""
    if not rep.figures:
        return rep.font
    from medrealmm.common.fonts import cjk_font

    return cjk_font(rep.font)


def _add_sections(b: Builder, runs: RunSet, c: _Computed, opts: ReportOptions, unmapped: list[str]) -> None:
    intro = b.section("how-to-read", "How to read this report")
    intro.blocks.append(Text(HOW_TO_READ.format(min_n=opts.min_n)))
    intro.blocks.append(Text("The `cases →` links of the tables open the cases behind a row in the case viewer; build "
                             "it first with `medrealmm view` (same data and paths.outputs)."))
    _runs_section(b, runs)
    board = c.tables["leaderboard"].filter(pl.col("judge") == c.judge)
    order = board.with_columns(entry_labels(board)).sort("score", descending=True, nulls_last=True)["entry"].to_list()
    _leaderboard_section(b, c.tables, c.judge)
    _ablation_section(b, c.tables)
    _breakdown_section(b, c.tables, opts, order, unmapped)
    _distribution_section(b, c.tables)
    _dataset_section(b, c.tables)
    _paired_section(b, c.tables)
    _worst_section(b, c.tables)
    _judge_section(b, c.tables, c.has_labels)
    _tags_section(b, c.tags)
    _manifest_section(b, runs)


def build_document(cfg: dict[str, Any], runs: RunSet, settings: ReportSettings | None = None
                   ) -> tuple[Document, dict[str, pl.DataFrame]]:
    """The report over ``runs`` and its tables; ``settings``: the ``report`` group read already."""
    rep = settings if settings is not None else report_settings(cfg)
    opts = options_from_config(cfg, rep)
    mapping, unmapped = _assign_specialties(rep, runs)
    computed = _compute(cfg, rep, runs, opts, mapping)
    b = Builder(_figure_font(rep), rep.figures, dataset=str(cfg["data"]["name"]))
    _add_sections(b, runs, computed, opts, unmapped)
    title = rep.title or f"MedRealMM report: {cfg['data']['name']}"
    subtitle = (f"{len(runs.runs)} run(s), {len(runs.models)} model(s), judge(s) {', '.join(runs.judges)} "
                f"({judge_provenance(runs)}); "
                f"{runs.case_scores['case_id'].n_unique()} cases; bootstrap {opts.n_boot} replicates, seed {opts.seed}")
    return Document(title, subtitle, b.sections), computed.tables


def write_report(cfg: dict[str, Any]) -> ReportPaths:
    from medrealmm.manifest import build_manifest, write_json
    from medrealmm.report.document import render_html, render_markdown, write_figures

    rep = report_settings(cfg)
    locations, root = run_locations(cfg, rep)
    runs = load_runs(locations, root=root, selection=rep.selection)
    doc, tables = build_document(cfg, runs, rep)
    out = rep.out_path
    paths = ReportPaths(out / "report.html", out / "report.md", out / "tables", out / "figures")
    paths.tables.mkdir(parents=True, exist_ok=True)
    for name, df in tables.items():
        atomic.write_parquet(paths.tables / f"{name}.parquet", df)
        write_csv(df, paths.tables / f"{name}.csv")
    write_figures(doc, paths.figures)
    atomic.write_text(paths.markdown, render_markdown(doc, "figures"))
    atomic.write_text(paths.html, render_html(doc))
    write_json(out / "manifest.json", build_manifest(
        config=cfg, dataset={"name": cfg["data"]["name"]}, engines={},
        stats={"runs": [r.name for r in runs.runs], "run_ids": [r.run_id for r in runs.runs],
               "left_out": runs.left_out, "differing_settings": runs.differing, "tables": sorted(tables)},
        seeds={"run.seed": cfg["run"]["seed"]}))
    log.info("report: %s (also %s, %s/)", paths.html, paths.markdown, paths.tables)
    return paths
