"""`medrealmm report` on real runs of the bundled sample (tiny models on vLLM's CPU engine)."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

try:
    from tests.conftest import cli
    from tests.test_healthbench import hb_row, item, write_rows
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import cli  # type: ignore[no-redef]
    from test_healthbench import hb_row, item, write_rows  # type: ignore[no-redef]

pytestmark = pytest.mark.engine

SECTIONS = ("how-to-read", "runs", "leaderboard", "decomposition", "ablation", "breakdowns", "distribution",
            "paired", "worst-of-k", "judges", "manifests")
TABLES = ("leaderboard", "ablation", "by_specialty", "by_department", "by_intent", "by_stage", "by_n_images",
          "by_n_turns", "histogram", "paired", "worst_of_k", "judge_health", "judge_agreement", "judge_scores",
          "physician_case_scores")


@pytest.fixture(scope="module")
def sample_runs(tmp_path_factory, tiny_cache: Path) -> Path:
    """Two models (one the online physician anchor) x two judges, both modes, two samples per case."""
    out = tmp_path_factory.mktemp("report-runs")
    cli(["run", "-m", "preset=smoke", "model=tiny_vl,online", "judge=tiny_vl,tiny_text", "data.subset=6",
         "run.modes=[multimodal,text]", "run.samples=2", "run.scoring.bootstrap=200",
         f"paths.outputs={out}", f"paths.cache={tiny_cache}"], cwd=out, timeout=900)
    return out


def physicians_csv(outputs: Path, path: Path) -> Path:
    """Physician labels on every criterion of three cases of the anchor reply: two physicians, one of
    whom always disagrees with the tiny judge on negative criteria."""
    v = pl.concat([pl.read_parquet(p) for p in outputs.glob("runs/sample/online__tiny-vl*/runs/*/verdicts.parquet")])
    v = v.filter((pl.col("mode") == "multimodal") & (pl.col("sample") == 0))
    cases = sorted(v["case_id"].unique().to_list())[:3]
    v = v.filter(pl.col("case_id").is_in(cases))
    rows = ["case_id,criterion_id,physician_id,verdict"]
    for r in v.iter_rows(named=True):
        flipped = (not r["met"]) if r["weight"] < 0 else r["met"]
        rows += [f"{r['case_id']},{r['criterion_id']},dr_a,{'met' if r['met'] else 'not_met'}",
                 f"{r['case_id']},{r['criterion_id']},dr_b,{'yes' if flipped else 'no'}",
                 f"{r['case_id']},{r['criterion_id']},dr_c,{'yes' if flipped else 'no'}"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def report(outputs: Path, *extra: str, check: bool = True):
    return cli(["report", f"paths.outputs={outputs}", "run.scoring.bootstrap=200", *extra], cwd=outputs,
               check=check)


def test_report_has_every_section_figure_and_table(sample_runs: Path, tmp_path: Path) -> None:
    labels = physicians_csv(sample_runs, tmp_path / "physicians.csv")
    out = tmp_path / "rep"
    report(sample_runs, f"report.out_dir={out}", f"report.physicians.csv={labels}",
           "report.physicians.item_defaults={model: online, mode: multimodal, sample: 0}",
           "report.primary_judge=tiny-vl")
    html = (out / "report.html").read_text(encoding="utf-8")
    for section in SECTIONS:
        assert f'<section id="{section}">' in html, section
    for name in ("leaderboard", "decomposition", "ablation", "heatmap_specialty", "heatmap_department",
                 "histogram", "worst_of_k", "agreement"):
        assert re.search(rf'<figure id="f-{name}">(<div class="figmap">)?<img [^>]*src="data:image/png;base64,',
                         html), name
        assert (out / "figures" / f"{name}.png").stat().st_size > 5000
    assert "http://" not in html and "https://" not in html          # self-contained
    departments = pl.read_parquet(out / "tables" / "by_department.parquet")["department"].unique().to_list()
    assert len(departments) >= 3 and all(f">{d}<" in html for d in departments)   # Chinese labels as text
    assert "physician" in html and "Gwet" in html
    for t in TABLES:
        assert (out / "tables" / f"{t}.csv").is_file(), t
        assert (out / "tables" / f"{t}.parquet").is_file(), t
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "## Leaderboard" in md and "![" in md and "figures/leaderboard.png" in md

    board = pl.read_parquet(out / "tables" / "leaderboard.parquet")
    assert set(board["model"]) == {"tiny-vl", "online"} and set(board["judge"]) == {"tiny-vl", "tiny-text"}
    assert board.filter(pl.col("model") == "online")["rank"].null_count() == board.filter(
        pl.col("model") == "online").height
    assert (board["samples"] == 2).all() and (board["n_cases"] == 6).all()
    agree = pl.read_parquet(out / "tables" / "judge_agreement.parquet")
    assert {"tiny-text", "tiny-vl", "physician"} <= set(agree["rater_a"]) | set(agree["rater_b"])
    assert set(agree["polarity"]) == {"all", "positive", "negative"}
    phys = agree.filter((pl.col("rater_a") == "tiny-vl") & (pl.col("rater_b") == "physician"))
    pos = phys.filter(pl.col("polarity") == "positive")
    neg = phys.filter(pl.col("polarity") == "negative")
    assert pos["raw_agreement"][0] == 1.0                 # majority (dr_b, dr_c) follows the judge on positives
    if neg.height and neg["n"][0]:
        assert neg["raw_agreement"][0] == 0.0             # ... and contradicts it on negatives
    panel = pl.read_parquet(out / "tables" / "physician_panel.parquet")   # three physicians: multi-rater AC1
    assert panel["physicians"].to_list()[0] == 3
    assert panel.filter(pl.col("polarity") == "positive")["ac1"][0] == pytest.approx(1.0)   # all three agree
    if panel.filter(pl.col("polarity") == "negative").height:
        assert panel.filter(pl.col("polarity") == "negative")["ac1"][0] < 0.5           # dr_a against dr_b, dr_c
    for name in ("overall", "dataset", "specialty_mapping"):
        assert (out / "tables" / f"{name}.parquet").is_file(), name
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "not the paper" in html and "Overall ranking" in html and "Physician panel agreement" in html
    assert html.count("cases →") > 5 and "../../view/sample/index.html#/find?model=" in html
    figmap = re.search(r'<figure id="f-heatmap_department"><div class="figmap">(.*?)</figure>', html, re.S)
    assert figmap, "the department heatmap has no clickable cells"
    cell_links = re.findall(r'<a href="([^"]+)" title="([^"]+)"[^>]*style="left:([\d.]+)%', figmap.group(1))
    assert cell_links and all("#/find?model=" in href and "department=" in href for href, _, _ in cell_links)
    assert len({href for href, _, _ in cell_links}) == len(cell_links)      # one link per cell
    specialty = pl.read_parquet(out / "tables" / "by_specialty.parquet")
    assert "其他" not in set(specialty["specialty"])      # every sample department has a group
    manifest = (out / "manifest.json").read_text(encoding="utf-8")
    assert '"report"' in manifest and "matplotlib" in manifest


def test_report_is_reproducible_and_runs_without_figures(sample_runs: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    report(sample_runs, f"report.out_dir={a}")
    report(sample_runs, f"report.out_dir={b}", "report.figures=false")
    names = sorted(p.name for p in (a / "tables").glob("*.parquet"))
    assert names == sorted(p.name for p in (b / "tables").glob("*.parquet")) and names
    for n in names:
        assert pl.read_parquet(a / "tables" / n).equals(pl.read_parquet(b / "tables" / n)), n
    assert "<img" not in (b / "report.html").read_text(encoding="utf-8")
    assert not (b / "figures").exists() or not any((b / "figures").iterdir())


def test_report_errors_are_clear(tmp_path: Path) -> None:
    r = report(tmp_path, check=False)
    assert r.returncode == 2 and "no finished run" in r.stderr
    r = report(tmp_path, f"report.runs=[{tmp_path / 'nowhere'}]", check=False)
    assert r.returncode == 2 and "does not exist" in r.stderr


def test_report_bad_labels_and_mapping_name_the_file(sample_runs: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("case_id,criterion_id,physician_id,verdict\nx,c1,dr_a,maybe\n", encoding="utf-8")
    r = report(sample_runs, f"report.out_dir={tmp_path / 'r'}", f"report.physicians.csv={bad}",
               "report.figures=false", check=False)
    assert r.returncode == 2 and str(bad) in r.stderr and "maybe" in r.stderr
    groups = tmp_path / "groups.yaml"
    groups.write_text("内科: [心血管内科]\n外科: [心血管内科]\n", encoding="utf-8")
    r = report(sample_runs, f"report.out_dir={tmp_path / 'r'}", f"report.specialty_groups={groups}",
               "report.figures=false", check=False)
    assert r.returncode == 2 and "心血管内科" in r.stderr


def test_healthbench_report_has_theme_and_axis_breakdowns(tmp_path: Path, tiny_cache: Path) -> None:
    rows = [hb_row(f"hb{i}", example_tags=[f"theme:{'hedging' if i % 2 else 'communication'}"],
                   rubrics=[item(5, "axis:completeness"), item(-4, "axis:accuracy")])
            for i in range(4)]
    data = write_rows(tmp_path / "hb.jsonl", rows)
    common = ["data=healthbench", f"data.path={data}", f"paths.outputs={tmp_path}"]
    cli(["run", "preset=smoke", "model=tiny_text", "judge=tiny_text", f"paths.cache={tiny_cache}",
         "run.modes=[text]", *common], cwd=tmp_path)
    cli(["report", "report.figures=false", *common], cwd=tmp_path)
    out = tmp_path / "reports" / "hb"   # outputs named after the user's file
    tags = pl.read_parquet(out / "tables" / "tags.parquet")
    assert {"theme:hedging", "theme:communication", "axis:completeness", "axis:accuracy"} <= set(tags["tag"])
    assert '<section id="tags">' in (out / "report.html").read_text(encoding="utf-8")
