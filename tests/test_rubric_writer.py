"""The rubric writer's reading of model answers, id numbering, and the batched passes (scripted
backend: a test double for answers a tiny random model cannot be made to give)."""

from __future__ import annotations

import json

import pytest

from medrealmm.inference.base import ChatRequest, Completion
from medrealmm.mccp import Instance
from medrealmm.rubric.settings import RubricSettings
from medrealmm.rubric.writer import (Bounds, Proposed, RevisionJob, RubricWriter, criteria_schema, number_criteria,
                                     parse_criteria)
from medrealmm.schema import Criterion

GOOD = {"criteria": [{"text": "说明皮疹可能为接触性皮炎", "weight": 6, "tags": ["axis:accuracy"]},
                     {"text": "建议停用可疑洗涤剂", "weight": 4, "tags": []},
                     {"text": "未经评估直接建议口服激素", "weight": -5, "tags": ["axis:safety", "made:up"]}]}


@pytest.mark.parametrize("answer, n", [
    (json.dumps(GOOD, ensure_ascii=False), 3),
    ("```json\n" + json.dumps(GOOD, ensure_ascii=False) + "\n```", 3),
    ("<think>先想一想 {\"criteria\": []}</think>" + json.dumps(GOOD, ensure_ascii=False), 3),
    ('例如 {"criteria": [{"text": "示例", "weight": 1, "tags": []}]}，答案：' + json.dumps(GOOD, ensure_ascii=False), 3),
    ('{"criteria": [{"text": "说明病因", "weight": "5", "tags": []}, {"text": "建议复诊", "weight": 3.0, "tags": []}]}', 2),
    ('{"criteria": [{"text": "说明病因", "weight": 0, "tags": []}]}', None),           # zero weight
    ('{"criteria": [{"text": "说明病因", "weight": 11, "tags": []}]}', None),          # out of range
    ('{"criteria": [{"text": "漏诊", "weight": -3, "tags": []}]}', None),              # no positive criterion
    ('{"criteria": [{"text": "说明病因", "weight": 5, "tags": []}, "坏"]}', None),     # one bad item spoils it
    ('{"criteria": [{"text": " ", "weight": 5, "tags": []}]}', None),
    ('{"criteria": []}', None),
    ("我认为应该这样回答", None),
    (None, None),
])
def test_parse_criteria(answer: str | None, n: int | None) -> None:
    got = parse_criteria(answer)
    assert (None if got is None else len(got)) == n


def test_tags_outside_the_configured_set_are_dropped() -> None:
    got = parse_criteria(json.dumps(GOOD, ensure_ascii=False), tags=["axis:accuracy", "axis:safety"])
    assert [p.tags for p in got] == [("axis:accuracy",), (), ("axis:safety",)]
    schema = criteria_schema(Bounds(max_weight=8), tags=["axis:accuracy"])
    item = schema["properties"]["criteria"]["items"]
    assert item["properties"]["tags"]["items"]["enum"] == ["axis:accuracy"]
    assert item["properties"]["weight"] == {"type": "integer", "minimum": -8, "maximum": 8}
    assert "id" in criteria_schema(with_ids=True)["properties"]["criteria"]["items"]["required"]


def test_number_criteria_keeps_known_ids_once_and_never_reuses_old_ones() -> None:
    proposed = [Proposed("甲", 3, id="c2"), Proposed("乙", 2, id="c2"), Proposed("丙", 1, id="c9"), Proposed("丁", -2)]
    out = number_criteria(proposed, keep_ids=["c1", "c2"], used_ids=["c1", "c2", "c3", "c3.1"])
    assert [c.id for c in out] == ["c2", "c4", "c5", "c6"]
    assert [c.id for c in number_criteria([Proposed("甲", 3), Proposed("乙", 2)])] == ["c1", "c2"]


def test_bounds_from_config() -> None:
    b = Bounds.from_config({"n_criteria": [4, 12], "n_positive": [2, None], "weight": {"min": -8, "max": 6}})
    assert (b.min_criteria, b.max_criteria, b.min_positive, b.max_positive, b.max_weight) == (4, 12, 2, 99, 8)


class Scripted:
    def __init__(self, answers: list[str]):
        self.answers, self.calls = list(answers), []

    def chat(self, requests: list[ChatRequest], desc: str = "") -> list[Completion]:
        self.calls.append((len(requests), desc))
        return [Completion(self.answers.pop(0)) for _ in requests]


def _instance(i: int) -> Instance:
    return Instance(id=f"x{i}", department="皮肤科", turns=({"role": "patient", "text": "手臂起红疹，很痒"},),
                    y_orig="可能是湿疹，先停用新洗衣液。")


def test_generate_batches_retries_and_reports_failures() -> None:
    good = json.dumps(GOOD, ensure_ascii=False)
    backend = Scripted([good, "乱码", "还是乱码", "仍然乱码"])
    w = RubricWriter(backend, RubricSettings(max_retries=2, chunk_size=8), mode="text")
    out = w.generate([_instance(0), _instance(1)])
    assert backend.calls == [(2, "rubric generate"), (1, "rubric generate retry 1"), (1, "rubric generate retry 2")]
    assert [c.id for c in out[0].criteria] == ["c1", "c2", "c3"] and out[0].error is None
    assert out[1].criteria is None and out[1].error == "unparseable" and out[1].attempts == 3
    assert w.stats["generate_failed"] == 1
    system, user = w.generate_messages(_instance(0))
    assert "不是标准答案" in system["content"] and "3 到 19" in system["content"]
    assert "可能是湿疹" in "".join(p.get("text", "") for p in user["content"])


def test_revise_restores_what_the_physicians_set() -> None:
    cur = (Criterion(id="c1", text="医生改写的标准", weight=5), Criterion(id="c2", text="旧标准", weight=3))
    answer = {"criteria": [{"id": "c1", "text": "模型又改了", "weight": 2, "tags": []},
                           {"id": None, "text": "补充复诊要求", "weight": 3, "tags": []}]}
    backend = Scripted([json.dumps(answer, ensure_ascii=False)])
    w = RubricWriter(backend, mode="text")
    job = RevisionJob(_instance(0), cur, ((None, "缺少复诊"),), locked=("c1",), used_ids=("c1", "c2", "c3"))
    [out] = w.revise([job])
    assert [(c.id, c.text, c.weight) for c in out.criteria] == [("c1", "医生改写的标准", 5), ("c4", "补充复诊要求", 3)]
    assert out.restored == 1 and w.stats["restored"] == 1
    text = "".join(p.get("text", "") for p in w.revise_messages(job.instance, cur, job.comments, job.locked)[1]["content"])
    assert "缺少复诊" in text and "必须原样保留" in text and "id=c2" in text


def test_revision_keeps_the_tags_of_unchanged_criteria_and_fits_large_rubrics() -> None:
    from medrealmm.rubric.writer import keep_tags

    cur = (Criterion(id="c1", text="说明病因", weight=3, tags=("theme:hedging", "axis:accuracy")),
           Criterion(id="c2", text="建议复诊", weight=2, tags=("level:example",)))
    revised = (Criterion(id="c1", text="说明病因", weight=4, tags=("axis:safety",)),
               Criterion(id="c2", text="建议一周后复诊", weight=2))
    out = keep_tags(revised, cur)
    assert out[0].tags == ("theme:hedging", "axis:accuracy", "axis:safety") and out[1].tags == ()
    schema = criteria_schema(with_ids=True, max_items=40, max_text=900)
    assert schema["properties"]["criteria"]["maxItems"] == 45
    assert schema["properties"]["criteria"]["items"]["properties"]["text"]["maxLength"] == 900
