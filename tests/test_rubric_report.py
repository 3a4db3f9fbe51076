"""The rubric construction report: table numbers checked by hand on two cases over two rounds."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import polars as pl
import pytest

from medrealmm.mccp import Instance
from medrealmm.common.fonts import NoCJKFont, cjk_font
from medrealmm.rubric.model import RubricRecord, RubricVersion
from medrealmm.rubric.report import rubric_tables, write_rubric_report
from medrealmm.schema import Criterion

SAMPLE = Path(__file__).resolve().parents[1] / "medrealmm" / "data" / "sample"
PNG = b"\x89PNG\r\n\x1a\n"


def instance(case_id: str) -> Instance:
    for line in (SAMPLE / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            case.pop("rubric")
            return Instance(**case)
    raise KeyError(case_id)


def version(k: int, *crits: tuple[str, str, int]) -> RubricVersion:
    return RubricVersion(round=k, criteria=tuple(Criterion(id=i, text=t, weight=w) for i, t, w in crits),
                         source="generated" if k == 0 else "revised", model="test-llm")


@pytest.fixture()
def records() -> list[RubricRecord]:
    """A: R0 a1+5 a2+3 a3−2 → R1 a1 reworded, a3 removed, a4+4 added.  B: R0 = R1 = b1+6 b2+2.
    C: generation failed, no version."""
    a = RubricRecord(id="cardio-001", instance=instance("cardio-001"), versions=(
        version(0, ("a1", "指出心房颤动", 5), ("a2", "建议十二导联心电图", 3), ("a3", "推荐阿司匹林代替抗凝", -2)),
        version(1, ("a1", "根据心电图指出心房颤动", 5), ("a2", "建议十二导联心电图", 3), ("a4", "说明卒中风险", 4))))
    b_crits = (("b1", "描述皮损形态", 6), ("b2", "建议皮肤科面诊", 2))
    b = RubricRecord(id="derm-001", instance=instance("derm-001"), versions=(version(0, *b_crits),
                                                                             version(1, *b_crits)))
    c = RubricRecord(id="derm-002", instance=instance("derm-002"), status="failed",
                     failure="generation_error")
    return [a, b, c]


FINDINGS = [SimpleNamespace(case_id="cardio-001", criterion_id="a3", rule="weight_range", severity="warning",
                            message="机密的消息文本"),
            SimpleNamespace(case_id="cardio-001", criterion_id=None, rule="too_few", severity="error",
                            message="x"),
            SimpleNamespace(case_id="derm-001", criterion_id=None, rule="too_few", severity="error",
                            message="y")]
CHANGES = [{"case_id": "cardio-001", "round": 0, "criterion_id": "a1", "action": "edit"},
           {"case_id": "cardio-001", "round": 0, "criterion_id": "a3", "action": "delete"},
           SimpleNamespace(case_id="cardio-001", round=0, criterion_id=None, action="add"),
           {"case_id": "derm-001", "round": 0, "criterion_id": "b1", "action": "keep"},
           {"case_id": "derm-001", "round": 0, "criterion_id": "b2", "action": "keep"}]


def test_tables_by_hand(records):
    t = rubric_tables(records, FINDINGS, CHANGES)
    assert set(t) == {"rounds", "weights", "feedback_actions", "version_diffs", "findings", "status"}
    assert t["rounds"].rows() == [
        # round cases mean median min max pos neg  share: criteria positive negative all
        (0, 2, 2.5, 2.5, 2, 3, 2.0, 0.5, 0.5, 1.0, 1.0, 0.5),
        (1, 2, 2.5, 2.5, 2, 3, 2.5, 0.0, 0.5, 1.0, 1.0, 0.5)]
    assert t["weights"].rows() == [(0, -2, 1), (0, 2, 1), (0, 3, 1), (0, 5, 1), (0, 6, 1),
                                   (1, 2, 1), (1, 3, 1), (1, 4, 1), (1, 5, 1), (1, 6, 1)]
    assert t["version_diffs"].to_dicts() == [{"round": 1, "cases": 2, "cases_changed": 1, "added": 1,
                                              "removed": 1, "changed": 1, "unchanged": 3}]
    assert t["feedback_actions"].rows() == [(0, "add", 1, 1), (0, "delete", 1, 1), (0, "edit", 1, 1),
                                            (0, "keep", 2, 1)]
    assert t["findings"].rows() == [("too_few", "error", 2, 2), ("weight_range", "warning", 1, 1)]
    assert t["status"].rows() == [("draft", None, 2), ("failed", "generation_error", 1)]


def test_empty_inputs_give_empty_typed_tables(tmp_path):
    t = rubric_tables([])
    assert all(df.height == 0 for df in t.values())
    assert t["rounds"].schema["criteria_mean"] == pl.Float64
    assert t["findings"].columns == ["rule", "severity", "n", "cases"]
    md = write_rubric_report([], tmp_path)
    assert md.is_file() and not (tmp_path / "weights.png").exists()
    assert pl.read_parquet(tmp_path / "tables" / "rounds.parquet").height == 0


def test_report_files_and_no_dialogue_text(records, tmp_path):
    md = write_rubric_report(records, tmp_path, findings=FINDINGS, changes=CHANGES, figures=False)
    assert md == tmp_path / "rubric_report.md"
    text = md.read_text(encoding="utf-8")
    assert "| 0 | 2 | 2.500 | 2.500 | 2 | 3 | 2.000 | 0.500 | 0.500 | 1.000 | 1.000 | 0.500 |" in text
    assert "| failed | generation_error | 1 |" in text and "| too_few | error | 2 | 2 |" in text
    for name in ("rounds", "weights", "feedback_actions", "version_diffs", "findings", "status"):
        assert pl.read_csv(tmp_path / "tables" / f"{name}.csv").columns == \
            pl.read_parquet(tmp_path / "tables" / f"{name}.parquet").columns
    assert pl.read_parquet(tmp_path / "tables" / "version_diffs.parquet")["added"].to_list() == [1]
    assert not list(tmp_path.glob("*.png"))
    # counts only: no dialogue, reply, criterion text or lint message
    written = text + "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "tables").glob("*.csv"))
    for r in records:
        assert r.instance.y_orig[:12] not in written
        assert all(t.text[:12] not in written for t in r.instance.turns if t.text)
        assert all(v.criteria == () or all(c.text not in written for c in v.criteria) for v in r.versions)
    assert "机密" not in written


def test_report_figures(records, tmp_path):
    try:
        cjk_font()
    except NoCJKFont as e:
        pytest.skip(f"no CJK font on this machine (CI installs fonts-wqy-zenhei): {e}")
    md = write_rubric_report(records, tmp_path, findings=FINDINGS, changes=CHANGES)
    for name in ("weights.png", "criteria_per_round.png"):
        assert (tmp_path / name).read_bytes().startswith(PNG)
        assert f"]({name})" in md.read_text(encoding="utf-8")
