"""The consultation pass: an identifier found once is masked wherever it recurs in its consultation, never
beyond it, and what it spreads is never logged or written."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from medrealmm.deid import detect_consultation, detect_text
from medrealmm.deid.spans import Span
from medrealmm.deid.text_consistency import consultation_terms, propagate, spread_by_consultation
from medrealmm.deid.text_policy import TextPolicy

try:
    from tests.conftest import cli
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import cli  # type: ignore[no-redef]


def spans_text(text: str, spans) -> list[tuple[str, str]]:
    return [(text[a:b], c) for a, b, c in spans]


def at(text: str, part: str, category: str) -> Span:
    start = text.index(part)
    return Span(start, start + len(part), category)


def test_a_given_name_introduced_with_a_cue_is_masked_when_it_comes_back_bare() -> None:
    texts = ["我哥李德华今年58岁，血压偏高。", "德华这两天头晕得厉害，要不要停药？", "建议德华先复查血压。"]
    assert detect_text(texts[1]) == []                      # alone, nothing marks 德华 as a name
    found = detect_consultation(texts)
    assert spans_text(texts[0], found[0]) == [("李德华", "NAME")]
    assert spans_text(texts[1], found[1]) == [("德华", "NAME")]
    assert spans_text(texts[2], found[2]) == [("德华", "NAME")]


def test_forms_of_an_identifier() -> None:
    texts = ["收件人：欧阳子轩，地址：西湖区三墩镇杨柳村5组", "患者阿依古丽·买买提", "订单号 A12345678"]
    spans = [[at(texts[0], "欧阳子轩", "NAME"), at(texts[0], "西湖区三墩镇杨柳村5组", "ADDRESS")],
             [at(texts[1], "阿依古丽·买买提", "NAME")], [at(texts[2], "A12345678", "ORDER_ID")]]
    terms = consultation_terms(texts, spans)
    assert terms["子轩"] == "NAME" and terms["阿依古丽"] == "NAME" and terms["买买提"] == "NAME"
    assert {k for k, v in terms.items() if v == "ADDRESS"} >= {"西湖区", "三墩镇", "杨柳村"}
    assert terms["A12345678"] == "ORDER_ID"


def test_a_hospital_is_known_by_its_proper_part_and_a_partial_find_is_completed() -> None:
    texts = ["上个月在湘雅医院住院，后来转到红河州第二人民医院", "湘雅的医生说要复查", "红河州那边也能查",
             "住院号A12345678", "上次给的是A12345678吗"]
    spans = [[at(texts[0], "湘雅医院", "HOSPITAL"), at(texts[0], "红河州第二人民医院", "HOSPITAL")], [], [],
             [at(texts[3], "A12345678", "MRN")], [Span(5, 8, "MRN")]]          # a detector caught a piece only
    out = propagate(texts, spans)
    assert [(texts[1][s.start:s.end], s.category) for s in out[1]] == [("湘雅", "HOSPITAL")]
    assert [(texts[2][s.start:s.end], s.category) for s in out[2]] == [("红河州", "HOSPITAL")]
    assert [(s.start, s.end) for s in out[4]] == [(5, 14)]
    terms = consultation_terms(["福州市妇幼保健院和疏附县人民医院"], [[Span(0, 8, "HOSPITAL"), Span(9, 16, "HOSPITAL")]])
    assert "福州市" not in terms and "疏附县" not in terms          # a city or county alone: the policy's call
    kinds = consultation_terms(["眼科医院和东方医院"], [[Span(0, 4, "HOSPITAL"), Span(5, 9, "HOSPITAL")]])
    assert "眼科" not in kinds and "东方" not in kinds             # a kind of hospital; an everyday word


def test_everyday_words_provinces_and_dates_are_not_spread() -> None:
    texts = ["我爸李平安住在浙江省杭州市西湖区，3月5日住院", "祝您平安，浙江天冷，3月5日那天的报告也发一下"]
    spans = [[at(texts[0], "李平安", "NAME"), at(texts[0], "浙江省杭州市西湖区", "ADDRESS"), at(texts[0], "3月5日", "DATE")],
             []]
    terms = consultation_terms(texts, spans)
    assert "平安" not in terms                         # 平安 is far more often a word than a given name
    assert not any(t in terms for t in ("浙江省", "浙江", "浙江省杭州市"))   # a province alone is not identifying
    assert "3月5日" not in terms
    assert propagate(texts, spans)[1] == []


def test_a_city_is_spread_only_when_the_policy_masks_a_city_alone() -> None:
    texts = ["家住银川市金凤区满城北街12号", "过年回金凤，再去银川看看", "上海市浦东新区的医院也行"]
    spans = [[at(texts[0], "银川市金凤区满城北街12号", "ADDRESS")], [], [at(texts[2], "上海市浦东新区", "ADDRESS")]]
    out = propagate(texts, spans)
    assert [(texts[1][s.start:s.end], s.category) for s in out[1]] == [("金凤", "ADDRESS"), ("银川", "ADDRESS")]
    terms = consultation_terms(texts, spans)
    assert "上海" not in terms and "上海市" not in terms          # a municipality is province-level: kept
    assert "浦东新区" in terms and "浦东" in terms
    kept = propagate(texts, spans, TextPolicy(city=False))
    assert [texts[1][s.start:s.end] for s in kept[1]] == ["金凤"]     # the district still, the city not
    everyday = consultation_terms(["宁夏固原市安定区", "情绪安定"], [[Span(0, 8, "ADDRESS")], []])
    assert "安定区" in everyday and "安定" not in everyday      # a short name that is an everyday word stays


def test_a_surname_is_a_name_before_a_title_or_after_lao_and_xiao() -> None:
    texts = ["我叫崔建华，今年45岁", "按崔医生的方案吃药，小崔说会好的", "孩子说李医生很好"]
    out = propagate(texts, [[at(texts[0], "崔建华", "NAME")], [], []])
    assert [(texts[1][s.start:s.end], s.category) for s in out[1]] == [("崔", "NAME"), ("小崔", "NAME")]
    assert out[2] == []                                  # 李 was never found in this consultation
    assert propagate(texts, [[at(texts[0], "崔建华", "NAME")], [], []], TextPolicy(staff_names=False))[1] == [
        Span(texts[1].index("小崔"), texts[1].index("小崔") + 2, "NAME", "consult")]
    thanks = ["我叫谢建华", "谢谢医生，感谢大夫", "谢医生说好"]
    out = propagate(thanks, [[at(thanks[0], "谢建华", "NAME")], [], []])
    assert out[1] == [] and [(thanks[2][s.start:s.end]) for s in out[2]] == ["谢"]   # 谢谢 is a word
    ambiguous = ["我是向东", "情绪安定以后再向医生咨询"]      # 向医生: "to the doctor", not 向 the doctor
    assert propagate(ambiguous, [[at(ambiguous[0], "向东", "NAME")], []])[1] == []


def test_numbers_are_matched_whole_only() -> None:
    texts = ["订单号 A12345678", "是A12345678吗", "编号XA123456789不是它", "12345678"]
    out = propagate(texts, [[Span(4, 13, "ORDER_ID")], [], [], []])
    assert [(s.start, s.end, s.category, s.detector) for s in out[1]] == [(1, 10, "ORDER_ID", "consult")]
    assert out[2] == [] and out[3] == []


def test_never_across_consultations_and_batch_order_kept() -> None:
    texts = ["我哥李德华今年58岁", "德华头晕", "德华头晕", "德华药房关门了"]
    spans = [[Span(2, 5, "NAME")], [], [], []]
    out = spread_by_consultation(texts, spans, ["a", "b", "a", "b"])     # interleaved, as a chunk of records is
    assert out[0] == [Span(2, 5, "NAME")]
    assert out[1] == [] and out[3] == []                            # consultation b never named 李德华
    assert [(s.start, s.end) for s in out[2]] == [(0, 2)]


def test_the_pass_logs_counts_never_the_identifiers(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="medrealmm.deid"):
        detect_consultation(["我哥李德华今年58岁，住在城关镇杨柳村", "德华说杨柳村冷"])
    assert "consultation pass" in caplog.text
    for secret in ("李德华", "德华", "杨柳村", "城关镇"):
        assert secret not in caplog.text


def _records(folder: Path) -> Path:
    folder.mkdir(parents=True)
    rows = [
        {"id": "c1", "department": "心内科",
         "turns": [{"role": "patient", "text": "医生您好，我哥李德华今年58岁，住在城关镇杨柳村，血压160/100。"},
                   {"role": "doctor", "text": "德华平时吃什么降压药？"},
                   {"role": "patient", "text": "德华一直吃氨氯地平5mg，杨柳村卫生室开的。"}],
         "y_orig": "建议德华复查血压。"},
        {"id": "c2", "department": "心内科",
         "turns": [{"role": "patient", "text": "德华药房买的降压药能吃吗？"}], "y_orig": "可以。"},
    ]
    path = folder / "cases.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("consistency", [True, False])
def test_stage_spreads_within_a_case_only(tmp_path: Path, consistency: bool) -> None:
    src = _records(tmp_path / "in")
    out = tmp_path / "out"
    r = cli(["deid", f"deid.input={src}", f"deid.out_dir={out}", f"deid.text.consistency={str(consistency).lower()}",
             "deid.image.detectors.face.enabled=false", "hydra.verbose=true"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    cases = {c["id"]: c for c in map(json.loads, (out / "cases.jsonl").read_text(encoding="utf-8").splitlines())}
    c1 = [t["text"] for t in cases["c1"]["turns"]] + [cases["c1"]["y_orig"]]
    assert "李德华" not in c1[0] and "160/100" in c1[0] and "5mg" in c1[2]
    if consistency:
        assert not any("德华" in t or "杨柳村" in t for t in c1), c1
        assert cases["c2"]["turns"][0]["text"] == "德华药房买的降压药能吃吗？"   # another consultation
        written = "\n".join(p.read_text(encoding="utf-8") for p in out.glob("*.json*")) + r.stdout + r.stderr
        for secret in ("李德华", "杨柳村", "城关镇"):
            assert secret not in written
        audit = [json.loads(line) for line in (out / "audit.jsonl").read_text(encoding="utf-8").splitlines()]
        assert any("consult" in s["detector"] for a in audit for t in a["texts"] for s in t["spans"])
    else:
        assert "德华" in c1[1] and "德华" in c1[3]
