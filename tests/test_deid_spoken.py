"""The spoken layer (medrealmm/deid/text_spoken.py): identifiers read out or disguised are found; spoken
clinical numbers and ordinary numerals stay; the switch turns it off; nothing it finds is logged."""

from __future__ import annotations

import logging

import pytest

from medrealmm.deid.text_detect import build_text_detector, default_text_config
from medrealmm.deid.text_spoken import SpokenDetector

FOUND = [
    # mobiles read out, in other digit scripts, with filler, emoji, corrections
    ("我电话幺三八 嗯 零零一二 三四五六", "幺三八 嗯 零零一二 三四五六", "PHONE"),
    ("手机号一三九一二三四五六七八，谢谢", "一三九一二三四五六七八", "PHONE"),
    ("打①③⑧①②③④⑤⑥⑦⑧找我", "①③⑧①②③④⑤⑥⑦⑧", "PHONE"),
    ("号码壹叁捌壹贰叁肆伍陆柒捌", "壹叁捌壹贰叁肆伍陆柒捌", "PHONE"),
    ("V信138😊1234😊5678", "138😊1234😊5678", "PHONE"),
    ("电联 幺三九 幺二三四 五六七八", "幺三九 幺二三四 五六七八", "PHONE"),
    ("幺三八 零零 不对 零一 一二 三四五六 有事打这个", "幺三八 零零 不对 零一 一二 三四五六", "PHONE"),
    ("家里座机洞七七二 杠 七一三五二三六 手机另说", "洞七七二 杠 七一三五二三六", "PHONE"),
    ("电话→130***66803 怕被屏蔽", "130***66803", "PHONE"),
    ("分开说 一八五七 后面的等下", "一八五七", "PHONE"),
    # resident IDs with their check character spoken
    ("身份证号 一一零一零五一九九零零三零七一二三叉", "一一零一零五一九九零零三零七一二三叉", "ID"),
    # QQ / WeChat around a filter
    ("扣扣 一二三四五六七八", "一二三四五六七八", "URL"),
    ("企鹅号 5566778", "5566778", "URL"),
    ("加薇 zhangwei_88", "zhangwei_88", "URL"),
    ("微信号我说一下 w x p a n h 六 一 零，都是小写", "w x p a n h 六 一 零", "URL"),
    ("主页在 http://healthxu点com 上面有", "http://healthxu点com", "URL"),
    # records and orders read out
    ("病历号 二零二三零零一二", "二零二三零零一二", "MRN"),
    ("住院号九九七 七五洞，洞", "九九七 七五洞，洞", "MRN"),
    ("订单号是 幺幺二三 四五六七", "幺幺二三 四五六七", "ORDER_ID"),
    ("您的退款单号我报一下 T K 九二八二 拐二五八 三五二九 好的", "T K 九二八二 拐二五八 三五二九", "ORDER_ID"),
    # e-mails spelt out
    ("邮箱 zhang wei 一二三 at 一六三 点 com", "zhang wei 一二三 at 一六三 点 com", "EMAIL"),
    ("邮箱 wangfang 小老鼠 qq 点 c o m", "wangfang 小老鼠 qq 点 c o m", "EMAIL"),
    ("邮箱是d u y u 下划线 二 零 五 艾特 q q 点 com 报告发这", "d u y u 下划线 二 零 五 艾特 q q 点 com", "EMAIL"),
    ("报告发我邮箱 zhao8828#126。com 谢谢", "zhao8828#126。com", "EMAIL"),
    # names spelt by component, half hidden, in pinyin
    ("我姓张，弓长张，伟大的伟", "弓长张", "NAME"),
    ("我姓张，弓长张，伟大的伟", "伟大的伟", "NAME"),
    ("我叫潘华鹏，三点水的潘，中华的华", "三点水的潘", "NAME"),
    ("您说的是韦芳燕，芳是芬芳的芳对吧", "芳是芬芳的芳", "NAME"),
    ("我叫杜*春 在贵州", "杜*春", "NAME"),
    ("患者luo junhong 那天开始疼", "luo junhong", "NAME"),
    ("应该是吴英斌，那个斌是文武斌", "斌是文武斌", "NAME"),
    ("应该是吴英斌，那个斌是文武斌", "吴英斌", "NAME"),
    ("我叫杜峰勇 姓是木土杜那个杜 嗯", "木土杜那个杜", "NAME"),
    ("我婆婆叫汪 红，在长丰县", "汪 红", "NAME"),
    ("我叫QXS，拼音写的", "QXS", "NAME"),
    # a compound's building read out, a place named colloquially
    ("昆明市官渡区 就是 民主路 那边 紫荆园三栋三单元一六零五 好的", "紫荆园三栋三单元一六零五", "ADDRESS"),
    ("迎江区，就幸福里小区那一块 医生", "幸福里小区", "ADDRESS"),
    # dates read out
    ("我是八四年七月一号出生的", "八四年七月一号", "DATE"),
    ("那这个月二十七号再来", "这个月二十七号", "DATE"),
]

KEPT = ["血压一百四十五 九十", "体温三十八度五", "吃两片，一天三次", "空腹血糖七点八", "三十五岁", "打一二零", "幺幺零叫警察",
        "有事打一二三二零", "孩子上一二年级", "三四天了", "五六个", "手机尾号四三四一的那个不用了", "需要注意的是，美尼尔综合症的症状",
        "八五年去查的", "一月三次", "七月份开始", "I am at home now", "心率八八 血氧九八", "血压一四五 九零", "患者hi",
        "老人是河南人，口味重", "最常见的细菌是链球菌。", "今天是第三天", "他说的是感冒，感冒的感", "就是医院那边",
        "幺幺零 一一九 一二零 一二三二零", "一二三四五六七八九十都数过了", "血压一四零 九零 心率八八 血糖七点二", "电话会诊 两三天后再说",
        "订单一二三四个都退了", "体温三十八度二 三十七度九 三十九度一", "q 12h 静滴", "孩子二零一九年出生的", "就是去公园那边"]


@pytest.fixture(scope="module")
def spoken() -> SpokenDetector:
    return SpokenDetector()


@pytest.mark.parametrize(("text", "span", "category"), FOUND)
def test_spoken_identifiers_are_found(spoken: SpokenDetector, text: str, span: str, category: str) -> None:
    found = [(text[s.start:s.end], s.category) for s in spoken.find(text)]
    assert (span, category) in found, found


@pytest.mark.parametrize("text", KEPT)
def test_spoken_clinical_numbers_and_numerals_stay(spoken: SpokenDetector, text: str) -> None:
    assert spoken.find(text) == []


def test_the_default_detector_has_the_layer_and_the_switch_turns_it_off() -> None:
    text = "我电话幺三八 嗯 零零一二 三四五六，弓长张"
    on = build_text_detector(default_text_config())
    assert on.spoken is not None
    assert any("spoken" in s.detector for s in on.find(text))
    off = build_text_detector({**default_text_config(), "spoken": False})
    assert off.spoken is None
    assert not any("spoken" in s.detector for s in off.find(text))


def test_nothing_the_layer_finds_is_logged(caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.DEBUG)
    detector = build_text_detector(default_text_config())
    texts = [t for t, _, _ in FOUND]
    results = detector.detect(texts)
    assert all(results)
    logging.getLogger("medrealmm").debug("audit %s", [[s.audit() for s in spans] for spans in results])
    captured = capsys.readouterr()
    logged = caplog.text + captured.out + captured.err
    assert "text detector" in caplog.text          # the detector did log (counts only)
    assert not [span for _, span, _ in FOUND if span in logged]
