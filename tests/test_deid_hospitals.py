"""Hospitals by nickname (text_stat_hospitals) and OCR'd hospital names (text_rules._ocr_hospitals):
sentences written for these tests, not taken from any corpus."""

from __future__ import annotations

import pytest

from medrealmm.deid import detect_text


def _hospitals(text: str) -> list[str]:
    return [text[a:b] for a, b, c in detect_text(text) if c == "HOSPITAL"]


@pytest.mark.parametrize("text, hospital", [
    ("后来又转到新疆军总，那边说要手术", "新疆军总"),
    ("川肿也行，就是排队久", "川肿"),
    ("宁医总院也行，近一点", "宁医总院"),
    ("可以找唐都心内科的主任", "唐都"),
    ("仁济的李大夫看过，说没事", "仁济"),
    ("阜外和省医哪个好", "阜外"),
    ("后来转到西医附院，那边说要住院", "西医附院"),
    ("山东省立的王医生开的药", "山东省立"),
    ("从镇上到长庚还得倒车", "长庚"),
])
def test_hospital_nicknames(text, hospital):
    found = _hospitals(text)
    assert any(hospital in h for h in found), found


@pytest.mark.parametrize("text, hospital", [
    ("转出单位：淄博 市第一入民医院 转入单位", "淄博 市第一入民医院"),
    ("收款单位：汉中市\n人民医院 复核人", "汉中市\n人民医院"),
    ("曾于杨柳沟村卫\n生室就诊", "杨柳沟村卫\n生室"),
])
def test_ocr_hospital_names(text, hospital):
    assert hospital in _hospitals(text), _hospitals(text)


@pytest.mark.parametrize("text", [
    "肺中肿块明显，要复查",
    "病程：一个多月\n医院：",
    "咳嗽两周 医院说是感冒",
])
def test_not_hospitals(text):
    assert _hospitals(text) == []
