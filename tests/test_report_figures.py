"""The report figures render for real (Agg, a CJK font) from small tables with Chinese labels.

No mocks: each figure is drawn to PNG, opened with Pillow, and the rendering must not warn about
missing glyphs (which is how matplotlib reports Chinese drawn as boxes).
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from PIL import Image

from medrealmm.report import figures
from medrealmm.common.fonts import PROBE, NoCJKFont, cjk_font, covers

DEPTS = ["皮肤科", "心血管内科", "儿科", "妇产科（产科）", "消化内科"]
INTENTS = ["诊断", "用药咨询", "检查解读"]
MODELS = ["online", "Qwen2.5-VL-72B", "MedGemma-27B", "华佗GPT-Vision", "InternVL3-8B"]


@pytest.fixture(scope="module")
def font() -> str:
    return cjk_font()  # the bundled font: never skipped, whatever the system has


# --------------------------------------------------------------------------------------------------
# hand-made tables


def board_frame() -> pl.DataFrame:
    rows = []
    for judge in ("qwen2_5_vl_72b", "gpt-oss-120b"):
        for i, model in enumerate(MODELS):
            anchor = model == "online"
            for mode in (("multimodal",) if anchor else ("multimodal", "text")):
                score = 0.71 if anchor else 0.62 - 0.07 * i - (0.03 if mode == "text" else 0) + (
                    0.02 if judge == "gpt-oss-120b" else 0)
                ci = None if model == "InternVL3-8B" and mode == "text" else 0.04
                rows.append({"model": model, "mode": mode, "judge": judge, "score": score,
                             "ci_low": None if ci is None else score - ci,
                             "ci_high": None if ci is None else score + ci, "anchor": anchor,
                             "mean_pos_met": 4.1 - 0.3 * i + (0.2 if mode == "multimodal" else 0),
                             "mean_neg_triggered": 0.4 + 0.15 * i, "n_scored": 120})
    return pl.DataFrame(rows)


def ablation_frame() -> pl.DataFrame:
    rows = []
    for i, model in enumerate(MODELS[1:]):
        a, b = 0.62 - 0.05 * i, 0.58 - 0.03 * i + (0.06 if i == 2 else 0)
        d = a - b
        half = 0.02 + 0.01 * i
        rows.append({"model": model, "judge": "qwen2_5_vl_72b", "mean_a": a, "mean_b": b, "diff": d,
                     "ci_low": d - half, "ci_high": d + half, "n": 100})
    return pl.DataFrame(rows)


def cells_frame() -> pl.DataFrame:
    rows = []
    rng = np.random.default_rng(0)
    for di, dept in enumerate(DEPTS):
        for ii, intent in enumerate(INTENTS):
            if (di, ii) == (4, 2):
                continue  # a missing cell: drawn blank
            n = 3 if (di, ii) in {(0, 1), (3, 0)} else 40 + 5 * di
            rows.append({"department": dept, "intent": intent, "score": float(rng.uniform(0.2, 0.9)),
                         "n_scored": n})
    return pl.DataFrame(rows)


def hist_frame() -> pl.DataFrame:
    rows = []
    lows = np.round(np.arange(0, 1, 0.05), 2)
    for i, model in enumerate(MODELS):
        for mode in ("multimodal", "text"):
            w = np.exp(-((lows + 0.025 - (0.7 - 0.06 * i - (0.05 if mode == "text" else 0))) ** 2) / 0.02)
            w = w / w.sum()
            rows += [{"model": model, "mode": mode, "judge": "qwen2_5_vl_72b", "bin_low": float(lo),
                      "bin_high": float(lo + 0.05), "fraction": float(f)} for lo, f in zip(lows, w, strict=True)]
    return pl.DataFrame(rows)


def wk_frame() -> pl.DataFrame:
    rows = []
    for i, model in enumerate(MODELS[1:]):
        for mode in ("multimodal", "text"):
            for k in (1, 2, 4, 8, 16):
                v = (0.6 - 0.05 * i) * (1 - 0.12 * np.log2(k)) - (0.03 if mode == "text" else 0)
                ci = None if model == "InternVL3-8B" else 0.03
                rows.append({"model": model, "mode": mode, "judge": "qwen2_5_vl_72b", "k": k,
                             "worst_at_k": v, "ci_low": None if ci is None else v - ci,
                             "ci_high": None if ci is None else v + ci})
    return pl.DataFrame(rows)


def agree_frame() -> pl.DataFrame:
    raters = ["医生甲", "医生乙", "qwen2_5_vl_72b", "gpt-oss-120b"]
    rows = []
    for pol, shift in (("all", 0.0), ("positive", 0.05), ("negative", -0.25)):
        for i, a in enumerate(raters):
            for b in raters[i + 1:]:
                missing = pol == "negative" and (a, b) == ("医生甲", "gpt-oss-120b")
                v = None if missing else 0.7 + shift - 0.05 * i
                rows.append({"rater_a": a, "rater_b": b, "polarity": pol, "ac1": v, "kappa": v, "n": 250})
    return pl.DataFrame(rows)


CASES: dict[str, Callable[[str | None], bytes]] = {
    "leaderboard": lambda f: figures.leaderboard_figure(board_frame(), font=f),
    "leaderboard_one_judge": lambda f: figures.leaderboard_figure(
        board_frame().filter(pl.col("judge") == "qwen2_5_vl_72b"), font=f),
    "decomposition": lambda f: figures.decomposition_figure(
        board_frame().filter(pl.col("judge") == "qwen2_5_vl_72b"), font=f),
    "ablation": lambda f: figures.ablation_figure(ablation_frame(), font=f),
    "heatmap": lambda f: figures.heatmap_figure(cells_frame(), row="department", col="intent",
                                                title="Score by department × intent", font=f),
    "histogram": lambda f: figures.histogram_figure(hist_frame(), font=f),
    "worst_of_k": lambda f: figures.worst_of_k_figure(wk_frame(), font=f),
    "agreement": lambda f: figures.agreement_figure(agree_frame(), font=f),
}


# --------------------------------------------------------------------------------------------------
# helpers


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def glyph_problems() -> Iterator[list[str]]:
    """Collect every warning and matplotlib log line about glyphs/fonts during the block."""
    handler = _Records()
    mpl_log = logging.getLogger("matplotlib")
    mpl_log.addHandler(handler)
    found: list[str] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield found
    finally:
        mpl_log.removeHandler(handler)
    texts = [str(w.message) for w in caught] + handler.messages
    found += [t for t in texts if "glyph" in t.lower() or "missing from font" in t.lower()
              or "findfont" in t.lower()]


def open_png(png: bytes) -> Image.Image:
    assert isinstance(png, bytes)
    img = Image.open(io.BytesIO(png))
    img.load()
    assert img.format == "PNG"
    return img


# --------------------------------------------------------------------------------------------------
# fonts


def test_importing_fonts_does_not_import_matplotlib():
    code = "import sys, medrealmm.common.fonts; assert 'matplotlib' not in sys.modules, 'imported'"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_cjk_font_covers_the_chinese_labels(font):
    labels = "".join(DEPTS + INTENTS + MODELS) + "医生甲乙"
    assert covers(font, labels), font
    assert covers(font, PROBE)
    assert cjk_font() == font  # cached


def test_default_font_is_the_bundled_file():
    from matplotlib import font_manager

    from medrealmm.common.fonts import bundled_font

    path = bundled_font()
    assert path is not None and path.name == "NotoSansSC-Regular.otf"
    family = cjk_font()
    assert family == "Noto Sans SC"
    assert any(e.fname == str(path) for e in font_manager.fontManager.ttflist if e.name == family)


# A matplotlib font cache built on a machine with no CJK font (or before one was installed): the state
# that broke the first run on fresh machines. The child process must still draw Chinese, warning-free.
_STALE_CACHE_CHILD = r"""
import json, logging, sys, warnings
from pathlib import Path
import matplotlib
from matplotlib import font_manager
cache = Path(matplotlib.get_cachedir()) / f"fontlist-v{font_manager.FontManager.__version__}.json"
data = json.loads(cache.read_text())
assert data["ttflist"] and not [e for e in data["ttflist"] if Path(e["fname"]).is_absolute()], "system fonts in the cache"
from medrealmm.common.fonts import cjk_font
from medrealmm.report import figures
import polars as pl
records = []
class H(logging.Handler):
    def emit(self, r): records.append(r.getMessage())
logging.getLogger("matplotlib").addHandler(H())
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    png = figures.histogram_figure(pl.DataFrame({
        "model": ["华佗皮肤科"] * 2, "mode": ["multimodal"] * 2, "judge": ["评审"] * 2,
        "bin_low": [0.0, 0.05], "bin_high": [0.05, 0.1], "fraction": [0.4, 0.6]}))
bad = [str(x.message) for x in w if "Glyph" in str(x.message) or "missing from font" in str(x.message)]
bad += [m for m in records if "Glyph" in m or "findfont" in m]
assert not bad, bad
assert png[1:4] == b"PNG"
print(cjk_font())
"""


def test_report_font_independent_of_system_fonts_and_stale_cache(tmp_path):
    """Build matplotlib's font cache with only its own DejaVu fonts, then draw Chinese in a new process."""
    env = {**os.environ, "MPLCONFIGDIR": str(tmp_path / "mpl")}
    build = (
        "import json, matplotlib; from pathlib import Path; from matplotlib import font_manager as fm\n"
        "fm.fontManager.ttflist = [e for e in fm.fontManager.ttflist if 'mpl-data' in e.fname]\n"
        "fm.json_dump(fm.fontManager, Path(matplotlib.get_cachedir()) / f'fontlist-v{fm.FontManager.__version__}.json')\n"
    )
    subprocess.run([sys.executable, "-c", build], check=True, env=env, timeout=300)
    out = subprocess.run([sys.executable, "-c", _STALE_CACHE_CHILD], env=env, timeout=300,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "Noto Sans SC"


def test_covers_tells_latin_only_fonts_apart():
    assert covers("DejaVu Sans", "score 0.62")
    assert not covers("DejaVu Sans", "皮肤科")
    assert not covers("No Such Family", "abc")
    assert not covers("/nonexistent/font.otf", "abc")


def test_cjk_font_accepts_a_font_file(font):
    from matplotlib import font_manager

    path = font_manager.findfont(font_manager.FontProperties(family=font), fallback_to_default=False)
    family = cjk_font(str(path))
    assert covers(family, PROBE)
    assert covers(str(path), PROBE)


def test_cjk_font_missing_file_names_the_path():
    with pytest.raises(NoCJKFont, match="/nonexistent.otf") as e:
        cjk_font("/nonexistent.otf")
    assert isinstance(e.value, RuntimeError)
    assert "launch/setup.sh" in str(e.value) and "report.font" in str(e.value)


def test_cjk_font_rejects_a_font_without_chinese():
    with pytest.raises(NoCJKFont, match="cannot draw Chinese"):
        cjk_font("DejaVu Sans")
    with pytest.raises(NoCJKFont, match="not installed"):
        cjk_font("No Such Family Sans")


def test_glyph_check_would_catch_tofu():
    """The no-warning assertions below mean something: Chinese in DejaVu Sans is reported."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2, 1))
    FigureCanvasAgg(fig)
    fig.text(0.1, 0.5, "皮肤科", family="DejaVu Sans")
    with glyph_problems() as problems:
        fig.savefig(io.BytesIO(), format="png")
    assert problems, "a Chinese label in DejaVu Sans should warn about missing glyphs"


# --------------------------------------------------------------------------------------------------
# figures


@pytest.mark.parametrize("name", list(CASES))
def test_figure_renders_png_with_chinese(name, font):
    with glyph_problems() as problems:
        png = CASES[name](None)
    assert not problems, problems
    img = open_png(png)
    w, h = img.size
    assert 300 <= w <= 5000 and 200 <= h <= 6000, img.size
    pixels = np.asarray(img.convert("L"))
    assert pixels.std() > 10, "the image is (nearly) blank"


def test_figure_with_explicit_font_file(font):
    from matplotlib import font_manager

    path = font_manager.findfont(font_manager.FontProperties(family=font), fallback_to_default=False)
    with glyph_problems() as problems:
        png = figures.heatmap_figure(cells_frame(), row="department", col="intent", font=str(path))
    assert not problems, problems
    open_png(png)


def test_figures_grow_with_the_rows(font):
    few = board_frame().filter(pl.col("judge") == "qwen2_5_vl_72b", pl.col("model").is_in(MODELS[:2]))
    many = pl.concat([board_frame().filter(pl.col("judge") == "qwen2_5_vl_72b")
                      .with_columns(model=pl.col("model") + f"-{i}") for i in range(6)])
    h_few = open_png(figures.leaderboard_figure(few)).size[1]
    h_many = open_png(figures.leaderboard_figure(many)).size[1]
    assert h_many > 3 * h_few


EMPTY: dict[str, Callable[[], bytes]] = {
    "leaderboard": lambda: figures.leaderboard_figure(board_frame().clear()),
    "decomposition": lambda: figures.decomposition_figure(board_frame().clear()),
    "ablation": lambda: figures.ablation_figure(ablation_frame().clear()),
    "heatmap": lambda: figures.heatmap_figure(cells_frame().clear(), row="department", col="intent"),
    "histogram": lambda: figures.histogram_figure(hist_frame().clear()),
    "worst_of_k": lambda: figures.worst_of_k_figure(wk_frame().clear()),
    "agreement": lambda: figures.agreement_figure(agree_frame().clear()),
}


@pytest.mark.parametrize("name", list(EMPTY))
def test_empty_table_is_a_value_error(name):
    with pytest.raises(ValueError, match="empty"):
        EMPTY[name]()


def test_missing_column_is_a_value_error():
    with pytest.raises(ValueError, match="mean_pos_met"):
        figures.decomposition_figure(board_frame().drop("mean_pos_met"))
    with pytest.raises(ValueError, match="kappa2"):
        figures.agreement_figure(agree_frame(), metric="kappa2")


def test_heatmap_rejects_several_rows_per_cell():
    doubled = pl.concat([cells_frame(), cells_frame()])
    with pytest.raises(ValueError, match="several rows"):
        figures.heatmap_figure(doubled, row="department", col="intent")


def test_small_cells_are_the_ones_under_min_n():
    cells = cells_frame()
    assert sorted(figures.small_cells(cells, row="department", col="intent", count="n_scored", min_n=10)) == \
        sorted([("皮肤科", "用药咨询"), ("妇产科（产科）", "诊断")])
    assert figures.small_cells(cells, row="department", col="intent", min_n=3) == []
    with_null = pl.DataFrame({"r": ["a", "a", "b"], "c": ["x", "y", "x"], "score": [0.5, None, 0.4],
                              "n_scored": [None, 2, 50]})
    assert figures.small_cells(with_null, row="r", col="c", min_n=10) == [("a", "x"), ("a", "y")]
    # blank cells (no value) are not marked
    assert figures.small_cells(with_null, row="r", col="c", min_n=10, value="score") == [("a", "x")]


def test_heatmap_marks_small_cells_visibly(font):
    """Same values, once with every cell trusted and once with min_n above every count: pixels differ."""
    cells = cells_frame()
    plain = np.asarray(open_png(figures.heatmap_figure(cells, row="department", col="intent", min_n=1)))
    marked = np.asarray(open_png(figures.heatmap_figure(cells, row="department", col="intent", min_n=10)))
    assert plain.shape != marked.shape or (plain != marked).any()


def test_agreement_other_metric(font):
    with glyph_problems() as problems:
        png = figures.agreement_figure(agree_frame().drop("n"), metric="kappa")
    assert not problems, problems
    open_png(png)


def test_png_data_uri(font):
    png = figures.ablation_figure(ablation_frame())
    uri = figures.png_data_uri(png)
    assert uri.startswith("data:image/png;base64,")
    import base64

    assert base64.b64decode(uri.split(",", 1)[1]) == png
    with pytest.raises(ValueError):
        figures.png_data_uri(b"GIF89a")


def write_examples(folder: Path) -> list[Path]:
    """Render every example to ``folder`` (to look at them: ``python tests/test_report_figures.py``)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, make in CASES.items():
        path = folder / f"{name}.png"
        path.write_bytes(make(None))
        out.append(path)
    return out


if __name__ == "__main__":
    for p in write_examples(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/figs")):
        print(p)


def test_heatmap_areas_land_on_their_cells_in_the_png() -> None:
    """The clickable areas the HTML report lays over a heatmap: sample the PNG inside each area and find the
    cell's own colour (scores drawn from far apart values, so a shifted area lands on another colour)."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    cells = pl.DataFrame([{"department": d, "intent": i, "score": s, "n_scored": 50}
                          for d, row in zip(DEPTS[:3], ((0.05, 0.5, 0.95), (0.95, 0.05, 0.5), (0.5, 0.95, 0.05)), strict=True)
                          for i, s in zip(INTENTS[:3], row, strict=True)])
    areas: list = []
    png = figures.heatmap_figure(cells, row="department", col="intent", areas=areas)
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    h, w, _ = img.shape
    assert len(areas) == 9
    cmap = colormaps["YlGnBu"]
    for row, (left, top, width, height) in areas:
        assert 0 <= left and left + width <= 1 and 0 <= top and top + height <= 1
        x, y = int((left + 0.12 * width) * w), int((top + 0.15 * height) * h)    # off the centred label
        want = np.array(cmap(Normalize(0, 1)(row["score"]))[:3]) * 255
        assert np.abs(img[y, x] - want).max() < 12, (row, img[y, x], want)
