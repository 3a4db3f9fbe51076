"""Date forms of every region and script (text_rules._extra_dates, the traditional 號 in normalize):
sentences written for these tests, not taken from any corpus."""

from __future__ import annotations

import pytest

from medrealmm.deid import detect_text


def _dates(text: str) -> list[str]:
    return [text[a:b] for a, b, c in detect_text(text) if c == "DATE"]


@pytest.mark.parametrize("text, date", [
    ("去年9月份在县医院拍过片子", "去年9月份"),
    ("2019年3月份开始咳嗽", "2019年3月份"),
    ("农历八月初二那天开始发烧", "农历八月初二"),
    ("阴历11月廿六住的院", "阴历11月廿六"),
    ("腊月十八抽的血", "腊月十八"),
    ("民国112年5月3日出生", "民国112年5月3日"),
    ("112/7/21在台北看过", "112/7/21"),
    ("7月3號回来复查", "7月3號"),
    ("20230915在市医院做的胃镜", "20230915"),
    ("2016.4开始吃降压药", "2016.4"),
    ("21.3.5-2022-01-10吃的二甲双胍", "2022-01-10"),
    ("手术定在8.23号", "8.23号"),
])
def test_date_forms(text, date):
    assert date in _dates(text), _dates(text)


@pytest.mark.parametrize("text", [
    "血压113/70，心率80",
    "血小板2012.9，偏高",
    "三月三以后开始胸闷",
    "十月怀胎很辛苦",
])
def test_numbers_and_festivals_that_are_not_dates(text):
    assert _dates(text) == []
