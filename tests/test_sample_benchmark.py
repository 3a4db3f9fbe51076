"""The bundled synthetic sample: valid cases, real images, the promised coverage, reproducible bytes."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from medrealmm.schema import Case

try:
    from tools.sample import builder as sb
except ImportError:  # pytest run without the repository root on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tools.sample import builder as sb

SAMPLE = Path(__file__).resolve().parents[1] / "medrealmm" / "data" / "sample"
CASES_FILE = SAMPLE / "cases.jsonl"
INTENTS = {"症状咨询", "检查结果解读", "用药咨询", "治疗咨询", "疾病咨询", "就医指导", "复诊随访"}
STAGES = {"病史采集", "患者问答", "诊断与解释", "治疗建议", "诊断与解释及治疗建议", "检查建议", "随访复诊"}
HAN = re.compile(r"[\u4e00-\u9fff]")


def raw_lines() -> list[str]:
    return CASES_FILE.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def raws() -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw_lines()]


@pytest.fixture(scope="module")
def cases(raws) -> list[Case]:
    return [Case.parse(r, file=str(CASES_FILE)) for r in raws]


def font_or_skip() -> tuple[Path, int]:
    font = sb.find_cjk_font()
    if font is None:
        pytest.skip("no CJK font installed, so the sample images cannot be redrawn "
                    "(Debian/Ubuntu: apt-get install fonts-wqy-zenhei)")
    return font


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "README.md"}


# ---------------------------------------------------------------- the committed files


def test_every_line_is_a_valid_case(raws, cases):
    """``cases`` parsed every line with ``Case.parse``; images are referenced by path only."""
    assert len(cases) == len(raws) == len(raw_lines())
    for raw in raws:
        for turn in raw["turns"]:
            assert all(set(im) == {"path"} for im in turn.get("images", ())), raw["id"]


def test_ids_are_unique_sorted_and_prefixed(cases):
    ids = [c.id for c in cases]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    for i in ids:
        assert re.fullmatch(r"[a-z]+-\d{3}", i), i


def test_coverage(cases):
    assert len(cases) >= 16
    departments = Counter(c.department for c in cases)
    assert len(departments) >= 8
    for required in ("皮肤科", "儿科", "中医科"):
        assert required in departments
    assert "精神科" in departments or "心理科" in departments
    assert {c.intent for c in cases} <= INTENTS
    assert len({c.intent for c in cases}) >= 6
    intents = Counter(c.intent for c in cases)
    assert intents.most_common(1)[0][0] == "症状咨询"         # the paper's most common intent
    assert {c.stage for c in cases} == STAGES                 # every stage, the combined one and 患者问答 included


def test_label_sets_are_the_annotators() -> None:
    """The builder's label sets are the mccp annotator's defaults (and the config's), in the same order."""
    import yaml

    from medrealmm.mccp.annotate import DEFAULT_INTENTS, DEFAULT_STAGES

    assert set(sb.INTENTS) == INTENTS and set(sb.STAGES) == STAGES
    assert sb.INTENTS == DEFAULT_INTENTS and sb.STAGES == DEFAULT_STAGES
    conf = yaml.safe_load((Path(sb.__file__).resolve().parents[2] / "conf/mccp/default.yaml").read_text("utf-8"))
    assert tuple(conf["annotate"]["intents"]) == DEFAULT_INTENTS
    assert tuple(conf["annotate"]["stages"]) == DEFAULT_STAGES
    bad = dict(sb.sample_cases()[0], stage="初诊问询")
    with pytest.raises(ValueError, match="not in INTENTS / STAGES"):
        sb.check_consistency([bad], sb.image_specs())


def test_each_case_is_a_plausible_consultation(cases):
    for c in cases:
        assert c.patient.age is not None and c.patient.sex in ("male", "female"), c.id
        assert 2 <= c.n_turns <= 12, c.id
        assert c.turns[-1].role == "patient", c.id
        assert 1 <= c.n_images <= 4, c.id
        assert all(t.role == "patient" for t in c.turns if t.images), f"{c.id}: only patients upload images"
        assert {t.role for t in c.turns} == {"patient", "doctor"}, c.id
        assert HAN.search(c.y_orig) and len(c.y_orig) > 80, c.id
        assert c.meta == {"synthetic": True, "source": "medrealmm sample"}, c.id


def test_rubrics(cases):
    for c in cases:
        r = c.rubric
        assert 3 <= len(r) <= 19, c.id
        assert [k.id for k in r] == [f"c{i}" for i in range(1, len(r) + 1)], c.id
        assert all(-10 <= k.weight <= 10 and k.weight != 0 for k in r), c.id
        assert sum(k.weight > 0 for k in r) >= 2, c.id
        assert sum(k.weight < 0 for k in r) >= 1, c.id
        assert all(HAN.search(k.text) for k in r), c.id
        for k in r:
            assert k.tags and all(re.fullmatch(r"(axis|modality):[a-z_]+", t) for t in k.tags), (c.id, k.id)
        assert sum("modality:image" in k.tags for k in r) >= 2, f"{c.id}: too few criteria need the images"


def test_images_exist_open_and_are_small(cases):
    referenced = []
    for c in cases:
        for im in c.images:
            assert "\\" not in im.path and im.path.startswith("images/"), im.path
            assert im.data is None and im.sha256 is None
            path = SAMPLE / im.path
            assert path.is_file(), f"{c.id}: {im.path} is missing"
            with Image.open(path) as img:
                img.verify()
            with Image.open(path) as img:
                assert max(img.size) <= 768, (im.path, img.size)
                expected = "PNG" if path.suffix == ".png" else "JPEG"
                assert img.format == expected, (im.path, img.format)
                assert not img.getexif(), f"{im.path} carries EXIF"
                assert "exif" not in img.info
            referenced.append(im.path)
    on_disk = sorted(p.relative_to(SAMPLE).as_posix() for p in (SAMPLE / "images").iterdir())
    assert sorted(referenced) == on_disk, "every image is used exactly once and none is left over"


def test_sample_is_small_and_says_it_is_synthetic():
    total = sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file())
    assert total < 3 * 1024 * 1024, total
    readme = (SAMPLE / "README.md").read_text(encoding="utf-8")
    assert "SYNTHETIC" in readme and "not real patients" in readme and "Apache-2.0" in readme
    assert "python -m tools.sample.builder" in readme


def test_builder_cases_match_the_committed_jsonl(raws):
    """The case text lives in the data file; the committed JSONL must be what the builder writes from it (no
    font needed)."""
    assert [sb.case_line(c) for c in sb.sample_cases()] == raw_lines()
    assert raws == sb.sample_cases()


def test_committed_raw_logs_are_what_the_builder_writes():
    assert sb.raw_logs(sb.sample_cases()) == (SAMPLE / "raw_logs.jsonl").read_text(encoding="utf-8")


def test_the_data_file_is_readable_and_stays_out_of_the_runtime_package():
    """Chinese is written as text, not escaped; the builder, its drawings and its data live under tools/ (nothing
    at runtime builds the sample: the wheel carries the built files only)."""
    text = sb.SOURCE_FILE.read_text(encoding="utf-8")
    assert sb.SOURCE_FILE.parent == SAMPLE.parents[2] / "tools" / "sample" and "\\u" not in text and HAN.search(text)
    source = sb.load_source()
    assert len(source["cases"]) == len(raw_lines()) and len(source["noise_logs"]) >= 1
    assert sb.DEFAULT_OUT == SAMPLE
    runtime = SAMPLE.parents[1]
    assert not [p for p in runtime.rglob("*.py") if "sample_builder" in p.read_text(encoding="utf-8")
                or "sample_draw" in p.read_text(encoding="utf-8")]


def test_data_file_mistakes_are_clear_errors():
    source = sb.load_source()
    first = source["cases"][0]
    with pytest.raises(ValueError, match="unknown keys"):
        sb.sample_cases({**source, "cases": [{**first, "y_orign": "x"}]})
    with pytest.raises(ValueError, match="a turn is"):
        sb.sample_cases({**source, "cases": [{**first, "turns": [{"nurse": "x"}]}]})
    twice = {**source, "cases": [first, {**first, "id": "zzz-999"}]}
    with pytest.raises(ValueError, match="drawn twice"):
        sb.image_specs(twice)
    name, spec = next(iter(first["images"].items()))
    with pytest.raises(ValueError, match="unknown image kind"):
        sb.image_specs({**source, "cases": [{**first, "images": {name: {**spec, "kind": "xray"}}}]})[name](None)


# ---------------------------------------------------------------- rebuilding


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory) -> tuple[Path, Path]:
    font = font_or_skip()
    a, b = tmp_path_factory.mktemp("sample-a"), tmp_path_factory.mktemp("sample-b")
    sb.build(a, font=font)
    sb.build(b, font=font)
    return a, b


def test_builder_is_deterministic(two_builds):
    a, b = two_builds
    fa, fb = files_of(a), files_of(b)
    assert fa.keys() == fb.keys()
    assert [k for k in fa if fa[k] != fb[k]] == []


def test_rebuild_reproduces_the_committed_files(two_builds):
    diff = sb.environment_differences()
    if diff:
        pytest.skip("this rendering environment differs from the one the committed sample was drawn in, so "
                    f"bytes cannot match (reference vs here): {diff}")
    built, committed = files_of(two_builds[0]), files_of(SAMPLE)
    assert built.keys() == committed.keys()
    stale = [k for k in built if built[k] != committed[k]]
    assert stale == [], "rerun python -m tools.sample.builder"


def test_build_removes_stale_images(tmp_path):
    font = font_or_skip()
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "old-001-1.png").write_bytes(b"stale")
    (tmp_path / "README.md").write_text("kept")
    counts = sb.build(tmp_path, font=font)
    assert not (tmp_path / "images" / "old-001-1.png").exists()
    assert (tmp_path / "README.md").read_text() == "kept"
    assert counts["images"] == len(list((tmp_path / "images").iterdir()))


def test_missing_font_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(sb, "FONT_CANDIDATES", ((str(tmp_path / "nope.ttc"), 0),))
    monkeypatch.delenv(sb.FONT_ENV, raising=False)
    assert sb.find_cjk_font() is None
    with pytest.raises(sb.FontNotFoundError, match="fonts-wqy-zenhei"):
        sb.build(tmp_path / "out")
    assert sb.main(["--out", str(tmp_path / "out")]) == 2
