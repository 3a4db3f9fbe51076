"""Physician feedback: the CSV/JSONL readers, exact application of direct edits, id allocation, diffs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medrealmm.rubric.feedback import (
    Change,
    FeedbackError,
    FeedbackItem,
    apply_feedback,
    history_diff,
    read_feedback,
)
from medrealmm.schema import Criterion

HEADER = "case_id,criterion_id,action,text,weight,comment\n"

R0 = (
    Criterion(id="c1", text="根据照片描述环状红斑", weight=8, tags=("axis:accuracy", "modality:image")),
    Criterion(id="c2", text="指出皮损较前扩大", weight=4, tags=("axis:accuracy",)),
    Criterion(id="c3", text="推荐外用抗真菌药，并说明皮损消退后仍需继续使用", weight=8, tags=("axis:completeness",)),
    Criterion(id="c4", text="建议宠物就医", weight=3),
    Criterion(id="c5", text="建议继续外用激素", weight=-8, tags=("axis:safety",)),
)


def item(action: str, cid: str | None = None, **kw) -> FeedbackItem:
    return FeedbackItem(case_id="derm-001", action=action, criterion_id=cid, **kw)  # type: ignore[arg-type]


def apply(items: list[FeedbackItem], criteria=R0, **kw):
    return apply_feedback(criteria, items, case_id="derm-001", **kw)


def write(tmp_path: Path, body: str, name: str = "feedback.csv", *, bom: bool = False) -> Path:
    path = tmp_path / name
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + body.encode("utf-8"))
    return path


# --- each action exactly -------------------------------------------------------------------------------

def test_no_feedback_is_identity() -> None:
    res = apply([])
    assert res.criteria == R0 and res.changes == [] and res.comments == [] and not res.needs_revision


def test_keep() -> None:
    res = apply([item("keep", "c2")])
    assert res.criteria == R0 and res.changes == [] and not res.needs_revision


def test_delete() -> None:
    res = apply([item("delete", "c2")])
    assert [c.id for c in res.criteria] == ["c1", "c3", "c4", "c5"]
    assert res.changes == [Change("c2", "delete", R0[1], ())]


def test_edit_text_keeps_weight_and_tags() -> None:
    res = apply([item("edit", "c2", text="结合两张照片指出皮损较前扩大")])
    new = res.criteria[1]
    assert new == Criterion(id="c2", text="结合两张照片指出皮损较前扩大", weight=4, tags=("axis:accuracy",))
    assert res.changes == [Change("c2", "edit", R0[1], (new,))]


def test_edit_with_weight() -> None:
    res = apply([item("edit", "c2", text="指出皮损扩大", weight=6)])
    assert res.criteria[1] == Criterion(id="c2", text="指出皮损扩大", weight=6, tags=("axis:accuracy",))


def test_reweight() -> None:
    res = apply([item("reweight", "c5", weight=-10)])
    assert res.criteria[4] == R0[4].model_copy(update={"weight": -10})
    assert res.changes[0].action == "reweight"


def test_split_the_paper_example() -> None:
    """One 8-point item becomes 5 + 3, in place, with ids c3.1, c3.2 and the original tags."""
    res = apply([item("split", "c3", parts=(("推荐外用抗真菌药", 5), ("说明皮损消退后仍需继续使用1～2周", 3)))])
    assert [c.id for c in res.criteria] == ["c1", "c2", "c3.1", "c3.2", "c4", "c5"]
    a, b = res.criteria[2:4]
    assert (a.text, a.weight, a.tags) == ("推荐外用抗真菌药", 5, ("axis:completeness",))
    assert (b.text, b.weight, b.tags) == ("说明皮损消退后仍需继续使用1～2周", 3, ("axis:completeness",))
    assert res.changes == [Change("c3", "split", R0[2], (a, b))]


def test_add_goes_last_with_next_id() -> None:
    res = apply([item("add", text="询问家人是否有类似皮损", weight=3), item("delete", "c1")])
    assert [c.id for c in res.criteria] == ["c2", "c3", "c4", "c5", "c6"]
    assert res.criteria[-1] == Criterion(id="c6", text="询问家人是否有类似皮损", weight=3)
    assert [ch.action for ch in res.changes] == ["delete", "add"]
    assert res.changes[1] == Change("c6", "add", None, (res.criteria[-1],))


def test_comment_rows_and_comments_on_other_rows() -> None:
    res = apply([item("comment", comment="整体缺少复诊时间"), item("comment", "c4", comment="太笼统"),
                 item("keep", "c1", comment="很好"), item("delete", "c2", comment="与c1重复"),
                 item("add", text="询问瘙痒程度", weight=2, comment="补充")])
    assert res.comments == [(None, "整体缺少复诊时间"), ("c4", "太笼统"), ("c1", "很好"), ("c2", "与c1重复"),
                            ("c6", "补充")]
    assert res.needs_revision
    assert [c.id for c in res.criteria] == ["c1", "c3", "c4", "c5", "c6"]


def test_direct_edits_only_need_no_revision() -> None:
    res = apply([item("delete", "c2"), item("reweight", "c4", weight=2)])
    assert not res.needs_revision and res.comments == []


# --- order and ids -------------------------------------------------------------------------------------

def test_order_follows_the_rubric_not_the_rows() -> None:
    rows = [item("add", text="新增二", weight=2), item("reweight", "c4", weight=5), item("edit", "c1", text="新c1"),
            item("add", text="新增一", weight=1), item("delete", "c3")]
    res = apply(rows)
    assert [c.id for c in res.criteria] == ["c1", "c2", "c4", "c5", "c6", "c7"]
    assert [c.text for c in res.criteria[-2:]] == ["新增二", "新增一"]
    assert [(ch.criterion_id, ch.action) for ch in res.changes] == [
        ("c1", "edit"), ("c3", "delete"), ("c4", "reweight"), ("c6", "add"), ("c7", "add")]


def test_add_never_reuses_an_id() -> None:
    # c6 and c7 existed in an earlier version (deleted since): the new one is c8
    res = apply([item("add", text="新增", weight=2)], used_ids=("c1", "c6", "c7"))
    assert res.criteria[-1].id == "c8"
    # ids from splits count by their root number
    crit = (*R0[:2], Criterion(id="c9.1", text="甲", weight=2), Criterion(id="c9.2", text="乙", weight=2))
    assert apply([item("add", text="新增", weight=2)], criteria=crit).criteria[-1].id == "c10"


def test_split_ids_skip_used_ones_and_nest() -> None:
    res = apply([item("split", "c3", parts=(("甲", 5), ("乙", 3)))], used_ids=("c3.1",))
    assert [c.id for c in res.criteria[2:4]] == ["c3.2", "c3.3"]
    crit = (R0[0], Criterion(id="c2.1", text="甲乙", weight=4))
    res = apply([item("split", "c2.1", parts=(("甲", 2), ("乙", 2)))], criteria=crit)
    assert [c.id for c in res.criteria] == ["c1", "c2.1.1", "c2.1.2"]


# --- conflicts and refusals ------------------------------------------------------------------------------

def test_conflicting_direct_actions() -> None:
    with pytest.raises(FeedbackError, match=r"conflicting direct actions on criterion 'c2': delete \(f.csv row 3\), "
                                            r"edit \(f.csv row 5\)") as e:
        apply([FeedbackItem("derm-001", "delete", "c2", file="f.csv", row=3),
               FeedbackItem("derm-001", "edit", "c2", text="新", file="f.csv", row=5)])
    assert (e.value.file, e.value.case_id, e.value.field) == ("f.csv", "derm-001", "action")
    with pytest.raises(FeedbackError, match="conflicting"):
        apply([item("keep", "c2"), item("delete", "c2")])
    with pytest.raises(FeedbackError, match="conflicting"):
        apply([item("reweight", "c2", weight=3), item("reweight", "c2", weight=5)])
    with pytest.raises(FeedbackError, match="conflicting"):
        apply([item("edit", "c2", text="新", weight=2), item("reweight", "c2", weight=5)])


def test_agreeing_rows_and_edit_plus_reweight_combine() -> None:
    res = apply([item("reweight", "c2", weight=3), item("reweight", "c2", weight=3, comment="同意")])
    assert res.criteria[1].weight == 3 and len(res.changes) == 1
    res = apply([item("edit", "c2", text="新文本"), item("reweight", "c2", weight=6)])
    assert (res.criteria[1].text, res.criteria[1].weight) == ("新文本", 6)
    assert res.changes == [Change("c2", "edit", R0[1], (res.criteria[1],))]


def test_unknown_criterion_id() -> None:
    with pytest.raises(FeedbackError) as e:
        apply([FeedbackItem("derm-001", "delete", "c42", file="fb.csv", row=7)])
    msg = str(e.value)
    assert "file 'fb.csv'" in msg and "row 7" in msg and "case 'derm-001'" in msg and "field 'criterion_id'" in msg
    assert "unknown criterion id 'c42'" in msg
    with pytest.raises(FeedbackError, match="unknown criterion id"):
        apply([item("comment", "c42", comment="?")])


def test_item_of_another_case() -> None:
    with pytest.raises(FeedbackError, match="item of case 'other' applied to case 'derm-001'"):
        apply([FeedbackItem("other", "delete", "c1")])


def test_no_positive_result_refused() -> None:
    with pytest.raises(FeedbackError, match="no positive criterion") as e:
        apply([FeedbackItem("derm-001", "delete", c.id, file="f.csv", row=i + 2) for i, c in enumerate(R0[:4])])
    assert e.value.case_id == "derm-001" and e.value.file == "f.csv"
    with pytest.raises(FeedbackError, match="no positive criterion"):
        apply([item("delete", "c1"), item("delete", "c2"), item("delete", "c3"), item("reweight", "c4", weight=-3)])
    # deleting every criterion but adding a positive one is fine
    res = apply([item("delete", c.id) for c in R0] + [item("add", text="新增", weight=2)])
    assert [c.id for c in res.criteria] == ["c6"]


# --- item validation ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("kw", "field", "match"), [
    ({"action": "move", "criterion_id": "c1"}, "action", "unknown action 'move'"),
    ({"action": "edit", "criterion_id": "c1"}, "text", "edit needs a text"),
    ({"action": "add", "weight": 3}, "text", "add needs a text"),
    ({"action": "add", "text": "新", "weight": 3, "criterion_id": "c9"}, "criterion_id", "add takes no criterion_id"),
    ({"action": "add", "text": "新"}, "weight", "add needs a weight"),
    ({"action": "reweight", "criterion_id": "c1"}, "weight", "reweight needs a weight"),
    ({"action": "reweight", "criterion_id": "c1", "weight": 0}, "weight", "non-zero integer"),
    ({"action": "reweight", "criterion_id": "c1", "weight": 3, "text": "x"}, "text", "use edit"),
    ({"action": "delete"}, "criterion_id", "delete needs a criterion_id"),
    ({"action": "keep", "criterion_id": "c1", "weight": 3}, "weight", "keep takes no weight"),
    ({"action": "split", "criterion_id": "c1", "parts": (("a", 1),)}, "text", "at least 2 parts"),
    ({"action": "split", "criterion_id": "c1", "parts": (("a", 1), ("b", 0))}, "weight", "part 2"),
    ({"action": "comment"}, "comment", "comment needs a comment"),
])
def test_item_validation(kw: dict, field: str, match: str) -> None:
    with pytest.raises(FeedbackError, match=match) as e:
        FeedbackItem(case_id="derm-001", file="f.csv", row=4, **kw)
    assert (e.value.file, e.value.row, e.value.case_id, e.value.field) == ("f.csv", 4, "derm-001", field)


# --- CSV -------------------------------------------------------------------------------------------------

CSV_OK = HEADER + (
    "derm-001,c1,keep,,,\n"
    "derm-001,c2,delete,,,与c1重复\n"
    "derm-001,c3,split,推荐外用抗真菌药 || 说明皮损消退后仍需继续使用1～2周,5||3,\n"
    "derm-001,c4,reweight,,+2,\n"
    "derm-001,c5,edit,\"建议继续外用激素，或加强激素\",-9,\n"
    "\n"
    ",,,,,\n"
    "derm-001,,add,询问家人是否有类似皮损,3,\n"
    "derm-001,c4,comment,,,宠物就医的表述太笼统\n"
    "derm-001,,,,,整体缺少复诊时间\n"
    "derm-002,c1,reweight,,5.0,\n"
)


@pytest.mark.parametrize("bom", [False, True])
def test_read_csv(tmp_path: Path, bom: bool) -> None:
    fb = read_feedback(write(tmp_path, CSV_OK, bom=bom))
    assert list(fb) == ["derm-001", "derm-002"]
    items = fb["derm-001"]
    assert [i.action for i in items] == ["keep", "delete", "split", "reweight", "edit", "add", "comment", "comment"]
    assert [i.row for i in items] == [2, 3, 4, 5, 6, 9, 10, 11]
    assert items[2].parts == (("推荐外用抗真菌药", 5), ("说明皮损消退后仍需继续使用1～2周", 3))
    assert items[3].weight == 2 and items[4].text == "建议继续外用激素，或加强激素" and items[4].weight == -9
    assert items[7].criterion_id is None and items[7].comment == "整体缺少复诊时间"
    assert fb["derm-002"][0].weight == 5
    res = apply_feedback(R0, items, case_id="derm-001")
    assert [(c.id, c.weight) for c in res.criteria] == [("c1", 8), ("c3.1", 5), ("c3.2", 3), ("c4", 2), ("c5", -9),
                                                       ("c6", 3)]
    assert res.comments == [("c2", "与c1重复"), ("c4", "宠物就医的表述太笼统"), (None, "整体缺少复诊时间")]


def test_untouched_template_reads_as_keep_only(tmp_path: Path) -> None:
    """The review sheet's template: every criterion pre-filled ``keep``, one empty comment row per case."""
    body = HEADER + "".join(f"derm-001,{c.id},keep,,,\n" for c in R0) + "derm-001,,comment,,,\n"
    items = read_feedback(write(tmp_path, body))["derm-001"]
    assert [i.action for i in items] == ["keep"] * 5
    res = apply_feedback(R0, items, case_id="derm-001")
    assert res.criteria == R0 and not res.changes and not res.needs_revision
    with pytest.raises(FeedbackError, match="comment takes no text") as e:
        read_feedback(write(tmp_path, HEADER + "derm-001,,comment,太笼统,,\n"))
    assert (e.value.row, e.value.field) == (2, "text")


def test_csv_with_only_required_columns(tmp_path: Path) -> None:
    fb = read_feedback(write(tmp_path, "case_id,criterion_id,action\nx,c1,delete\n"))
    assert fb["x"][0].action == "delete"


@pytest.mark.parametrize(("row", "field", "match"), [
    ("derm-001,c1,move,,,", "action", "unknown action 'move'"),
    ("derm-001,c1,edit,,,", "text", "edit needs a text"),
    ("derm-001,,add,,3,", "text", "add needs a text"),
    ("derm-001,c1,split,,5||3,", "text", "split needs a text"),
    ("derm-001,c9,add,新,3,", "criterion_id", "add takes no criterion_id"),
    ("derm-001,c1,reweight,,abc,", "weight", "non-zero integer, got 'abc'"),
    ("derm-001,c1,reweight,,2.5,", "weight", "non-zero integer"),
    ("derm-001,c1,reweight,,0,", "weight", "non-zero integer, got 0"),
    ("derm-001,c1,edit,新,0,", "weight", "non-zero integer"),
    ("derm-001,c1,split,甲||乙||丙,5||3,", "weight", "3 text part"),
    ("derm-001,c1,split,甲||乙,5||x,", "weight", "split part 2 weight"),
    ("derm-001,c1,split,甲||,5||3,", "text", "split part 2 has no text"),
    ("derm-001,c1,,,,", "action", "action is empty"),
])
def test_csv_errors_name_file_row_case_field(tmp_path: Path, row: str, field: str, match: str) -> None:
    path = write(tmp_path, HEADER + "derm-001,c1,keep,,,\n" + row + "\n")
    with pytest.raises(FeedbackError, match=match) as e:
        read_feedback(path)
    assert (e.value.file, e.value.row, e.value.case_id, e.value.field) == (str(path), 3, "derm-001", field)
    msg = str(e.value)
    assert f"file {str(path)!r}" in msg and "row 3" in msg and "case 'derm-001'" in msg and f"field {field!r}" in msg


def test_csv_missing_case_id(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + ",c1,delete,,,\n")
    with pytest.raises(FeedbackError, match="case_id is empty") as e:
        read_feedback(path)
    assert (e.value.row, e.value.field) == (2, "case_id")


def test_csv_bad_header_and_empty_file(tmp_path: Path) -> None:
    with pytest.raises(FeedbackError, match=r"unknown \['wieght'\]") as e:
        read_feedback(write(tmp_path, "case_id,criterion_id,action,text,wieght,comment\n"))
    assert (e.value.row, e.value.field) == (1, "header")
    with pytest.raises(FeedbackError, match=r"missing \['action'\]"):
        read_feedback(write(tmp_path, "case_id,criterion_id,text\n"))
    with pytest.raises(FeedbackError, match="empty"):
        read_feedback(write(tmp_path, ""))
    with pytest.raises(FeedbackError, match="cells for 6 columns") as e:
        read_feedback(write(tmp_path, HEADER + "x,c1,edit,甲,乙,3,好\n"))
    assert (e.value.row, e.value.case_id, e.value.field) == (2, "x", "text")
    assert read_feedback(write(tmp_path, HEADER + "x,c1,delete,,,,,\n"))["x"][0].action == "delete"  # empty extras


def test_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(FeedbackError, match="expected .csv or .jsonl"):
        read_feedback(write(tmp_path, HEADER, name="feedback.xlsx"))


# --- JSONL -----------------------------------------------------------------------------------------------

def jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


@pytest.mark.parametrize("bom", [False, True])
def test_read_jsonl(tmp_path: Path, bom: bool) -> None:
    body = jsonl([
        {"case_id": "derm-001", "criterion_id": "c3", "action": "split",
         "parts": [{"text": "推荐外用抗真菌药", "weight": 5}, {"text": "说明继续使用1～2周", "weight": 3}]},
        {"case_id": "derm-001", "criterion_id": "c2", "action": "split", "text": "甲||乙", "weight": "2||2"},
        {"case_id": "derm-001", "criterion_id": "c4", "action": "reweight", "weight": 2},
        {"case_id": "derm-001", "action": "add", "text": "询问瘙痒", "weight": 2, "criterion_id": ""},
        {"case_id": "derm-001", "comment": "整体缺少复诊时间"},
    ]) + "\n"
    fb = read_feedback(write(tmp_path, body, name="fb.jsonl", bom=bom))
    items = fb["derm-001"]
    assert [i.action for i in items] == ["split", "split", "reweight", "add", "comment"]
    assert items[0].parts == (("推荐外用抗真菌药", 5), ("说明继续使用1～2周", 3))
    assert items[1].parts == (("甲", 2), ("乙", 2))
    assert [i.row for i in items] == [1, 2, 3, 4, 5]
    res = apply_feedback(R0, items, case_id="derm-001")
    assert [c.id for c in res.criteria] == ["c1", "c2.1", "c2.2", "c3.1", "c3.2", "c4", "c5", "c6"]
    assert res.needs_revision


@pytest.mark.parametrize(("row", "field", "match"), [
    ({"case_id": "derm-001", "criterion_id": "c1", "action": "reweight", "weight": 1.5}, "weight", "non-zero integer"),
    ({"case_id": "derm-001", "criterion_id": "c1", "action": "reweight", "weight": True}, "weight", "non-zero integer"),
    ({"case_id": "derm-001", "criterion_id": "c1", "action": "split", "parts": [{"text": "甲", "weight": 2}]},
     "text", "at least 2 parts"),
    ({"case_id": "derm-001", "criterion_id": "c1", "action": "split",
      "parts": [{"text": "甲", "weight": 2}, {"text": "乙"}]}, "weight", "part 2 has no weight"),
    ({"case_id": "derm-001", "criterion_id": "c1", "action": "split", "text": "甲||乙", "weight": "2||2",
      "parts": [{"text": "甲", "weight": 2}, {"text": "乙", "weight": 2}]}, "parts", "both parts and text"),
    ({"case_id": "derm-001", "criterion_id": "c1", "action": "edit", "text": "x", "parts": [{"text": "甲"}]},
     "parts", "only split"),
    ({"case_id": "derm-001", "criterion_id": "c1", "action": "keep", "weigth": 2}, "weigth", "unknown key"),
])
def test_jsonl_errors_name_file_line_case_field(tmp_path: Path, row: dict, field: str, match: str) -> None:
    path = write(tmp_path, jsonl([{"case_id": "derm-001", "criterion_id": "c1", "action": "keep"}, row]),
                 name="fb.jsonl")
    with pytest.raises(FeedbackError, match=match) as e:
        read_feedback(path)
    assert (e.value.file, e.value.row, e.value.case_id, e.value.field) == (str(path), 2, "derm-001", field)


def test_jsonl_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path, '{"case_id": "x", "criterion_id": "c1", "action": "keep"}\n[1, 2]\n{bad\n', name="f.jsonl")
    with pytest.raises(FeedbackError, match="expected a JSON object") as e:
        read_feedback(path)
    assert e.value.row == 2
    path = write(tmp_path, '{bad\n', name="g.jsonl")
    with pytest.raises(FeedbackError, match="not valid JSON") as e:
        read_feedback(path)
    assert (e.value.file, e.value.row) == (str(path), 1)


# --- history diff ----------------------------------------------------------------------------------------

def test_history_diff() -> None:
    res = apply([item("delete", "c2"), item("edit", "c1", text="新c1"), item("reweight", "c4", weight=2),
                 item("split", "c3", parts=(("甲", 5), ("乙", 3))), item("add", text="新增", weight=2)])
    after = [*res.criteria[:-1], res.criteria[-1].model_copy(update={"tags": ("axis:safety",)})]
    after[-2] = after[-2].model_copy(update={"tags": ("axis:accuracy",), "text": "改"})     # c5: text and tags
    diff = history_diff(R0, after)
    assert diff == {"added": ["c3.1", "c3.2", "c6"], "removed": ["c2", "c3"],
                    "changed": [{"id": "c1", "fields": ["text"]}, {"id": "c4", "fields": ["weight"]},
                                {"id": "c5", "fields": ["text", "tags"]}]}
    assert history_diff(R0, R0) == {"added": [], "removed": [], "changed": []}
    json.dumps(diff)


def test_excel_chinese_csv_is_read_as_gb18030(tmp_path, caplog) -> None:
    from medrealmm.rubric.feedback import read_feedback

    path = tmp_path / "fb.csv"
    path.write_bytes("case_id,criterion_id,action,text,weight,comment\nd1,c1,edit,说明病因,3,\n".encode("gb18030"))
    with caplog.at_level("WARNING"):
        items = read_feedback(path)
    assert items["d1"][0].text == "说明病因" and "GB18030" in caplog.text


def test_accept_signs_off_only_an_unchanged_rubric() -> None:
    from medrealmm.rubric.feedback import FeedbackError, FeedbackItem, apply_feedback
    from medrealmm.schema import Criterion

    crit = (Criterion(id="c1", text="说明病因", weight=3), Criterion(id="c2", text="建议复诊", weight=2))
    res = apply_feedback(crit, [FeedbackItem("x", "keep", "c1"), FeedbackItem("x", "accept", comment="很好")],
                         case_id="x")
    assert res.criteria == crit and not res.changes and not res.needs_revision
    with pytest.raises(FeedbackError, match="accept signs the rubric off"):
        apply_feedback(crit, [FeedbackItem("x", "accept"), FeedbackItem("x", "delete", "c2")], case_id="x")
    with pytest.raises(FeedbackError, match="leave criterion_id empty"):
        FeedbackItem("x", "accept", "c1")
