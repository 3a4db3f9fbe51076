"""Places below the township (medrealmm/deid/text_stat_places.py): an address's tail after its
township, rural units of every region, corps companies, road crossings, compounds' buildings, the
place in a self-introduction. Sentences written for these tests, not taken from any corpus."""

from __future__ import annotations

import pytest

from medrealmm.deid import detect_text


def _places(text: str) -> list[str]:
    return [text[a:b] for a, b, c in detect_text(text) if c == "ADDRESS"]


@pytest.mark.parametrize("text, place", [
    ("快递寄到桦南县梨树乡东兴甸子3队，谢谢", "东兴甸子3队"),
    ("老人住在正蓝旗上都镇敖包嘎查", "敖包嘎查"),
    ("地址是晋江市深沪镇坑边8号之2，收件人写我", "坑边8号之2"),
    ("家在嘉善县西塘镇北栅浜12号", "北栅浜12号"),
    ("我在第七师一二五团6连种棉花", "第七师一二五团6连"),
    ("从柳树坪7组坐车到县里要两个钟头", "柳树坪7组"),
    ("一直住在宋家窝棚那边", "宋家窝棚"),
    ("石桥村委会的，离镇上远", "石桥村委会"),
    ("药寄到解放路与建设大道交叉口就行", "解放路与建设大道交叉口"),
    ("我外婆住金桂花园3号楼2门502", "金桂花园3号楼2门502"),
    ("谢谢，我是桐庐的小叶，回头再来问", "桐庐"),
])
def test_places_below_the_township(text, place):
    assert any(place in p for p in _places(text)), _places(text)


@pytest.mark.parametrize("text", [
    "在县城东边的店里买的药",
    "住院部3号楼做的检查",
    "我们那是农村的，不方便",
    "我是安徽的，口味重",
    "我是吉林的，头晕半个月",
    "国家岗位上干了三十年",
    "肺癌3期能治吗",
])
def test_words_that_are_not_places(text):
    assert _places(text) == []
