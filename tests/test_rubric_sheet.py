"""Physician review sheets: every criterion and image on the page, the CSV template exact, skips counted."""

from __future__ import annotations

import csv
import html
import json
import logging
from pathlib import Path
from types import SimpleNamespace

import pytest

from medrealmm.mccp import Instance
from medrealmm.rubric.model import RubricRecord, RubricVersion
from medrealmm.rubric.sheet import FEEDBACK_COLUMNS, write_review_sheets
from medrealmm.schema import Criterion

SAMPLE = Path(__file__).resolve().parents[1] / "medrealmm" / "data" / "sample"


def sample_records(ids: tuple[str, ...]) -> list[RubricRecord]:
    """Sample cases as records: the bundled rubric as R(0)."""
    out = []
    for line in (SAMPLE / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["id"] in ids:
            rubric = case.pop("rubric")
            v0 = RubricVersion(round=0, criteria=tuple(Criterion(**c) for c in rubric), source="generated",
                               model="test-llm")
            out.append(RubricRecord(id=case["id"], instance=Instance(**case), versions=(v0,)))
    return sorted(out, key=lambda r: ids.index(r.id))


def with_round1(r: RubricRecord) -> RubricRecord:
    """R(1): the first criterion reworded, the last dropped, one added."""
    crit = list(r.criteria)
    crit[0] = crit[0].model_copy(update={"text": "修改后的第一条标准：指出图片中的关键异常"})
    crit = crit[:-1] + [Criterion(id="c99", text="新增：建议复诊时间明确", weight=3, tags=("axis:completeness",))]
    return r.with_version(RubricVersion(round=1, criteria=tuple(crit), source="revised", model="test-llm"))


def n_images(r: RubricRecord) -> int:
    return sum(len(t.images) for t in r.instance.turns)


@pytest.fixture()
def records() -> list[RubricRecord]:
    cardio, derm1, derm2 = sample_records(("cardio-001", "derm-001", "derm-002"))
    failed = RubricRecord(id="failed-001", instance=cardio.instance.model_copy(update={"id": "failed-001"}),
                          status="failed", failure="generation_error")
    empty = RubricRecord(id="empty-001", instance=cardio.instance.model_copy(update={"id": "empty-001"}))
    return [with_round1(cardio), failed, derm1, empty, derm2]


def read_csv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def test_sheets_show_every_criterion_and_image(records, tmp_path, caplog):
    findings = [SimpleNamespace(case_id="cardio-001", criterion_id="c2", rule="vague_criterion",
                                severity="warning", message="标准过于笼统"),
                SimpleNamespace(case_id="derm-001", criterion_id=None, rule="few_negative", severity="error",
                                message="负向标准不足")]
    with caplog.at_level(logging.INFO, logger="medrealmm.rubric.sheet"):
        sheets = write_review_sheets(records, tmp_path, image_root=SAMPLE, batch_size=2, findings=findings)
    assert [p.name for p in sheets] == ["review_1_001.html", "review_1_002.html"]
    assert "skipped 1 failed, 1 without a rubric" in caplog.text
    pages = [p.read_text(encoding="utf-8") for p in sheets]
    shown = [r for r in records if r.versions]
    for r, page in zip(shown, (pages[0], pages[0], pages[1]), strict=True):
        assert f'id="{r.id}"' in page
        for c in r.criteria:
            assert f'<tr data-criterion="{c.id}"><td>{c.id}</td>' in page
            assert html.escape(c.text) in page and f"{c.weight:+d}" in page
        assert html.escape(r.instance.y_orig).replace("\n", "<br>") in page
        assert html.escape(r.instance.turns[0].text) in page
    # cardio-001 is shown at R(1): the reworded and added criteria, not the dropped one
    assert "修改后的第一条标准" in pages[0] and "<tr data-criterion=\"c99\">" in pages[0]
    assert pages[0].count("data:image/") == n_images(shown[0]) + n_images(shown[1])
    assert pages[1].count("data:image/") == n_images(shown[2])
    assert "data:image/png;base64," in pages[0] and "data:image/jpeg;base64," in pages[0]
    assert "图片缺失" not in "".join(pages)
    assert "seed only" in pages[0] and "不是参考答案" in pages[0]
    assert "failed-001" not in "".join(pages) and "empty-001" not in "".join(pages)
    # the criterion finding sits in c2's row; the whole-rubric one above derm-001's table
    row = pages[0].split('<tr data-criterion="c2">', 1)[1].split("</tr>", 1)[0]
    assert "vague_criterion" in row and "标准过于笼统" in row
    derm = pages[0].split('id="derm-001"', 1)[1]
    assert derm.index("few_negative") < derm.index("<table>")
    for action in ("keep", "delete", "edit", "reweight", "split", "add", "comment"):
        assert f"<td>{action}</td>" in pages[0]
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{p.name}"' in index for p in sheets) and 'href="feedback_1_002.csv"' in index


def test_feedback_csv_templates_exact(records, tmp_path):
    write_review_sheets(records, tmp_path, image_root=SAMPLE, batch_size=2)
    first, second = tmp_path / "feedback_1_001.csv", tmp_path / "feedback_1_002.csv"
    assert first.read_bytes().startswith(b"\xef\xbb\xbfcase_id,criterion_id,action,text,weight,comment\r\n")
    cardio, derm1, derm2 = (r for r in records if r.versions)
    expected = [list(FEEDBACK_COLUMNS)]
    for r in (cardio, derm1):
        expected += [[r.id, c.id, "keep", "", "", ""] for c in r.criteria]
        expected.append([r.id, "", "comment", "", "", ""])
    assert read_csv(first) == expected
    assert read_csv(second) == [list(FEEDBACK_COLUMNS),
                                *[["derm-002", c.id, "keep", "", "", ""] for c in derm2.criteria],
                                ["derm-002", "", "comment", "", "", ""]]
    assert [r[1] for r in read_csv(first) if r[0] == "cardio-001"][-2] == "c99"


def test_round_picks_that_version(records, tmp_path):
    sheets = write_review_sheets(records, tmp_path, image_root=SAMPLE, batch_size=50, round=0)
    assert [p.name for p in sheets] == ["review_0_001.html"]
    page = sheets[0].read_text(encoding="utf-8")
    assert "修改后的第一条标准" not in page and "<tr data-criterion=\"c99\">" not in page
    assert html.escape(records[0].versions[0].criteria[0].text) in page
    ids = [r[1] for r in read_csv(tmp_path / "feedback_0_001.csv") if r[0] == "cardio-001"]
    assert ids == [c.id for c in records[0].versions[0].criteria] + [""]
    assert write_review_sheets(records, tmp_path / "r5", image_root=SAMPLE, round=5) == []
    assert "0 case(s)" in (tmp_path / "r5" / "index.html").read_text(encoding="utf-8")


def test_missing_or_escaping_image_is_marked_not_fatal(records, tmp_path):
    r = records[2]
    turns = list(r.instance.turns)
    first = turns[0]
    bad = [first.images[0].model_copy(update={"path": "images/nope.jpg"}),
           first.images[0].model_copy(update={"path": "../cases.jsonl"})]
    turns[0] = first.model_copy(update={"images": tuple(bad)})
    r = r.model_copy(update={"instance": r.instance.model_copy(update={"turns": tuple(turns)})})
    page = write_review_sheets([r], tmp_path, image_root=SAMPLE / "images")[0].read_text(encoding="utf-8")
    assert page.count("图片缺失") == n_images(r) >= 2 and "data:image/" not in page


def test_batch_size_must_be_positive(records, tmp_path):
    with pytest.raises(ValueError, match="batch_size"):
        write_review_sheets(records, tmp_path, image_root=SAMPLE, batch_size=0)
