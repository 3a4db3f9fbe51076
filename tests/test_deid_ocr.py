"""Fields of a scanned form as OCR reads them (text_rules._ocr_fields): garbled labels, spaces and line
breaks inside values, letters that look like digits. Lines written for these tests, not taken from
any corpus."""

from __future__ import annotations

import pytest

from medrealmm.deid import detect_text


def _found(text: str) -> list[tuple[str, str]]:
    return [(text[a:b], c) for a, b, c in detect_text(text)]


@pytest.mark.parametrize("text, value, category", [
    ("身份证弓：33010219880S1234I7  联系电话", "33010219880S1234I7", "ID"),
    ("身份 证号 420106198 7052 31234  职业", "420106198 7052 31234", "ID"),
    ("联系电活：1386 7O21 554  住址", "1386 7O21 554", "PHONE"),
    ("总机：(O21)6234 5678 第1页", "(O21)6234 5678", "PHONE"),
    ("住阮号：ZY2O23 4417  入院日期", "ZY2O23 4417", "MRN"),
    ("处方弓 2025 11830457　费别", "2025 11830457", "ORDER_ID"),
    ("查询网址：wx.abcyy. com.cn 本报告", "wx.abcyy. com.cn", "URL"),
    ("电子邮箱： li ming88@163.com 体检日期", "li ming88@163.com", "EMAIL"),
    ("医师 陈晓（工号Y3108） 审核", "Y3108", "ID"),
])
def test_ocr_fields(text, value, category):
    assert (value, category) in _found(text), _found(text)


def test_a_value_stops_before_the_next_lab_line():
    text = "住院号：5520871 TSH 3.1mIU/L 白细胞 6.2"
    assert ("5520871", "MRN") in _found(text)
    assert all("TSH" not in v for v, _ in _found(text))


def test_a_wechat_handle_given_in_reply():
    assert ("wxid_k2m9p0q1", "URL") in _found("加您微信吗？我的是wxid_k2m9p0q1")


@pytest.mark.parametrize("text, value, category", [
    ("报告日期：2024/ 3/2 5 09:30:11", "2024/ 3/2 5", "DATE"),
    ("出院日期：2O23-1Z-05 住院天数", "2O23-1Z-05", "DATE"),
    ("姓 名：李 国强　性别：男", "李 国强", "NAME"),
    ("住址：济南市历下 区泉城 路18号 电话", "济南市历下 区泉城 路18号", "ADDRESS"),
])
def test_gaps_and_look_alikes_repaired(text, value, category):
    assert (value, category) in _found(text), _found(text)


@pytest.mark.parametrize("text", [
    "测了CA125 1098.7U/mL，说没事",
    "我电话18720737137 68岁了",
    "门诊号：00721505\nD-二聚体 6.69mg/L",
    "姓名:俞荣 钾：5.4 餐后",
    "有效期至：2 024.04 用法用量",
])
def test_repair_never_joins_two_fields(text):
    found = _found(text)
    assert all(" " not in v or v.count(" ") == 0 for v, c in found if c in ("MRN", "PHONE", "DATE")), found
    assert all(c != "NAME" or "钾" not in v for v, c in found), found
