"""Reading consultation records for de-identification, and the stage-4a removal rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from medrealmm.deid.image.base import Box
from medrealmm.deid.records import read_records
from medrealmm.deid.removal import RemovalRule, covered_share


def write_records(folder: Path, rows: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "images").mkdir(exist_ok=True)
    Image.new("RGB", (100, 50), "white").save(folder / "images" / "a.jpg")
    path = folder / "cases.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_unknown_fields_are_dropped_and_only_their_names_kept(tmp_path: Path) -> None:
    path = write_records(tmp_path, [{
        "id": "c1", "department": "皮肤科", "patient": {"age": 30, "sex": "female", "name": "张三"},
        "phone": "13800138000", "turns": [{"role": "patient", "text": "你好", "time": "2024-01-01 10:00",
                                           "images": [{"path": "images/a.jpg"}]}],
        "y_orig": "您好"}])
    [(rec, slots, err)] = list(read_records(path))
    assert err is None and rec is not None
    assert rec.raw["patient"] == {"age": 30, "sex": "female"}
    assert "phone" not in rec.raw and "time" not in rec.raw["turns"][0]
    assert rec.dropped == ["patient.name", "phone", "turns.*.time"]
    assert "张三" not in json.dumps(rec.dropped, ensure_ascii=False)
    assert [(s.turn, s.index, s.source.name) for s in slots] == [(0, 0, "a.jpg")]
    assert [t.path for t in rec.texts()] == ["turns.0.text", "y_orig"]


@pytest.mark.parametrize(("row", "field"), [
    ({"turns": [{"role": "patient", "text": "x"}]}, "id"),
    ({"id": "c2"}, "turns"),
    ({"id": "c3", "turns": [{"role": "nurse", "text": "x"}]}, "turns.0.role"),
    ({"id": "c4", "turns": [{"role": "patient", "text": "x", "images": [{"path": "../etc/passwd"}]}]},
     "turns.0.images.0"),
    ({"id": "c5", "turns": [{"role": "patient", "text": "x", "images": [{"path": "images/missing.jpg"}]}]},
     "turns.0.images.0"),
])
def test_bad_records_name_case_and_field(tmp_path: Path, row: dict, field: str) -> None:
    path = write_records(tmp_path, [row])
    [(rec, _, err)] = list(read_records(path))
    assert rec is None and err is not None and err.field == field and err.file == str(path)


def test_missing_input_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "nope")):
        list(read_records(tmp_path / "nope" / "cases.jsonl"))


def test_removal_rule_face_and_masked_share(tmp_path: Path) -> None:
    path = write_records(tmp_path, [{"id": "c1", "turns": [{"role": "patient", "text": "x",
                                                            "images": [{"path": "images/a.jpg"}]}]}])
    [(rec, slots, _)] = list(read_records(path))
    rule = RemovalRule(face_area_share=0.2, masked_area_share=0.5)
    small_face = [Box(0, 0, 20, 10, "FACE", "yunet")]          # 4% of 100x50
    big_face = [Box(0, 0, 50, 25, "FACE", "yunet")]            # 25%
    text_boxes = [Box(0, 0, 100, 20, "NAME", "ocr"), Box(0, 15, 100, 40, "ID", "ocr")]   # 80% (overlap once)
    assert rule.reason(rec, [(slots[0], small_face, (100, 50))]) is None
    reason = rule.reason(rec, [(slots[0], big_face, (100, 50))])
    assert reason is not None and "25%" in reason and "face_area_share" in reason
    assert covered_share(text_boxes, 100, 50) == pytest.approx(0.8)
    tilted = Box.from_quad([(0, 25), (50, 0), (100, 25), (50, 50)], "NAME", "ocr")   # a diamond: half its box
    assert covered_share([tilted], 100, 50) == pytest.approx(0.5, abs=0.05)
    assert "masked_area_share" in rule.reason(rec, [(slots[0], text_boxes, (100, 50))])
    assert RemovalRule(face_area_share=None, masked_area_share=None).reason(
        rec, [(slots[0], big_face + text_boxes, (100, 50))]) is None
    with pytest.raises(ValueError, match="face_area_share"):
        RemovalRule.of({"face_area_share": 1.5}, "deid.remove_case")
