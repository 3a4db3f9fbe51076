"""Text de-identification rules: each category found, clinical values kept, nothing identifying logged.

Fast (no engine). The recall/precision floors on the synthetic corpus sit just under what the rules
measure there (benchmarks/deid_text.py prints the figures), so a regression shows up here.
"""

from __future__ import annotations

import logging
import time

import pytest

from benchmarks.corpora.ours import generate_corpus, score_corpus
from medrealmm.deid.spans import Span, apply_placeholders, merge_spans
from medrealmm.deid.text_rules import (RuleDetector, find_identifiers, generic_hospital_phrase, id_check_digit,
                                       looks_clinical, normalize, valid_resident_id)

ID_BASE = "11010519491231002"
VALID_ID = ID_BASE + id_check_digit(ID_BASE)                       # 11010519491231002X
WRONG_CHECK = ID_BASE + ("1" if VALID_ID[-1] != "1" else "2")


def found(text: str) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.category) for s in find_identifiers(text)]


# --- positives, one or more per category ------------------------------------------------------

POSITIVES = [
    # ID
    (f"身份证号{VALID_ID}，麻烦开个证明", VALID_ID, "ID"),
    (f"我的证件是{VALID_ID}", VALID_ID, "ID"),
    ("110105 19491231 002X", "110105 19491231 002X", "ID"),
    ("老身份证号码：110105491231002", "110105491231002", "ID"),
    ("护照号 E12345678，在国外买的药", "E12345678", "ID"),
    ("军官证号：军字第20231234号".replace("军字第", ""), "20231234", "ID"),
    ("社保卡号 3201001234567", "3201001234567", "ID"),
    # PHONE
    ("电话13812345678", "13812345678", "PHONE"),
    ("手机 138-1234-5678 有事打", "138-1234-5678", "PHONE"),
    ("+86 139 1234 5678", "+86 139 1234 5678", "PHONE"),
    ("座机010-62345678转123", "010-62345678转123", "PHONE"),
    ("(0755)83456789", "(0755)83456789", "PHONE"),
    ("客服 400-123-4567", "400-123-4567", "PHONE"),
    ("联系电话：87654321", "87654321", "PHONE"),
    ("打02087654321找我", "02087654321", "PHONE"),              # a landline without separators or cue
    ("电话是幺三八一二三四五六七八", "幺三八一二三四五六七八", "PHONE"),
    ("https://a.com/400-820-1234/x", "https://a.com/400-820-1234/x", "URL"),   # the 400 number stays inside
    ("门诊ID：88765432", "88765432", "MRN"),
    ("客服400-8123-456", "400-8123-456", "PHONE"),
    ("电话+86-10-62345678", "+86-10-62345678", "PHONE"),
    ("http://192.168.1.10:8080/report", "http://192.168.1.10:8080/report", "URL"),
    ("交易4200001234202305121234已退款", "4200001234202305121234", "ORDER_ID"),   # ten digits or more, no cue
    ("ZY20230512001的病历", "ZY20230512001", "MRN"),                            # capitals + digits, no cue
    ("5月12去的医院", "5月12", "DATE"),
    ("2023年5月12复查", "2023年5月12", "DATE"),
    ("12/05/2023", "12/05/2023", "DATE"),
    ("上个月15号开始疼", "15号", "DATE"),
    ("去年5月做的手术", "去年5月", "DATE"),
    ("我叫Lily，5岁", "Lily", "NAME"),
    ("买买提·艾力今天发烧", "买买提·艾力", "NAME"),
    ("电话：１３８１２３４５６７８", "１３８１２３４５６７８", "PHONE"),              # full-width digits
    # EMAIL / URL
    ("邮箱zhang.wei@163.com，发给我", "zhang.wei@163.com", "EMAIL"),
    ("详见 https://www.example.com/a/b?x=1 。", "https://www.example.com/a/b?x=1", "URL"),
    ("网址www.haodf.com", "www.haodf.com", "URL"),
    ("在 jd.com 买的药", "jd.com", "URL"),
    ("我微信号是 zw_19900307", "zw_19900307", "URL"),
    ("加我VX：abc_12345", "abc_12345", "URL"),
    ("QQ：12345678", "12345678", "URL"),
    # ORDER_ID / MRN
    ("订单号是202305121234567，还没回复", "202305121234567", "ORDER_ID"),
    ("发票号码 No.12345678", "No.12345678", "ORDER_ID"),
    ("交易流水号：4200001234202305121234", "4200001234202305121234", "ORDER_ID"),
    ("病历号：ZY20230001", "ZY20230001", "MRN"),
    ("住院号 00123456，明天出院", "00123456", "MRN"),
    ("医保卡号：1234567890", "1234567890", "MRN"),
    ("就诊卡号是MZ0098765", "MZ0098765", "MRN"),
    # DATE
    ("2023年5月12日做的手术", "2023年5月12日", "DATE"),
    ("2023-05-12复查", "2023-05-12", "DATE"),
    ("2023/5/12", "2023/5/12", "DATE"),
    ("2023.05.12抽的血", "2023.05.12", "DATE"),
    ("5月12日开始发烧", "5月12日", "DATE"),
    ("末次月经3月8号", "3月8号", "DATE"),
    ("23年5月12日", "23年5月12日", "DATE"),
    ("出生日期：19900307", "19900307", "DATE"),
    ("2023年5月份开始咳嗽", "2023年5月", "DATE"),
    ("二〇二三年五月十二日", "二〇二三年五月十二日", "DATE"),
    ("生日：3.12", "3.12", "DATE"),
    ("12.10号复查了B超", "12.10号", "DATE"),                    # a bare M.D with 号
    ("11/9那天开始发烧的", "11/9", "DATE"),                      # a bare M/D before a date word
    ("在5.12复查", "5.12", "DATE"),
    # HOSPITAL
    ("上次在北京协和医院做的检查", "北京协和医院", "HOSPITAL"),
    ("四川大学华西医院的报告", "四川大学华西医院", "HOSPITAL"),
    ("湘雅二院看过", "湘雅二院", "HOSPITAL"),
    ("华西附院", "华西附院", "HOSPITAL"),
    ("去了301医院", "301医院", "HOSPITAL"),
    ("荆门市第一人民医院", "荆门市第一人民医院", "HOSPITAL"),
    ("我在张氏诊所打的针", "张氏诊所", "HOSPITAL"),
    ("在仁爱门诊部打的点滴", "仁爱门诊部", "HOSPITAL"),
    ("朝阳区社区卫生服务中心", "朝阳区社区卫生服务中心", "HOSPITAL"),
    ("宁波市鄞州区中医医院", "宁波市鄞州区中医医院", "HOSPITAL"),
    ("北京儿童医院挂的号", "北京儿童医院", "HOSPITAL"),
    # ADDRESS (the city stays)
    ("家住北京市朝阳区建国路88号", "朝阳区建国路88号", "ADDRESS"),
    ("上海市浦东新区张江路123弄45号1201室", "浦东新区张江路123弄45号1201室", "ADDRESS"),
    ("我住在杭州市西湖区", "西湖区", "ADDRESS"),
    ("阳光小区3栋2单元501室", "阳光小区3栋2单元501室", "ADDRESS"),
    ("河南省周口市郸城县李楼乡王庄村3组", "郸城县李楼乡王庄村3组", "ADDRESS"),
    ("住在翠湖社区", "翠湖社区", "ADDRESS"),
    ("邮编100020", "100020", "ADDRESS"),
    ("北京朝阳区望京街道", "朝阳区望京街道", "ADDRESS"),
    ("地址是朝阳区建国路728号的话可以去市里", "朝阳区建国路728号", "ADDRESS"),   # a later place word
    # NAME
    ("医生您好，我叫张伟，今年35岁", "张伟", "NAME"),
    ("姓名：欧阳娜娜 性别：女", "欧阳娜娜", "NAME"),
    ("患者王建国，男，58岁", "王建国", "NAME"),
    ("王建国，男，58岁，住院号000123", "王建国", "NAME"),
    ("我是李秀英的家属", "李秀英", "NAME"),
    ("我女儿叫王芳，今年5岁", "王芳", "NAME"),
    ("我姓刘，45岁", "刘", "NAME"),
    ("签名：孙丽", "孙丽", "NAME"),
    ("联系人：刘强，电话13900001111", "刘强", "NAME"),
    ("王芳您好，根据您的报告", "王芳", "NAME"),
    ("我是小王", "小王", "NAME"),
    # how numbers and dates are written on forms and in chat (sentences written for this test)
    ("回电请打1391 234 5678，谢谢", "1391 234 5678", "PHONE"),               # a mobile grouped 4-3-4
    ("挂号单号QWERTZ，明早来", "QWERTZ", "MRN"),                             # a code of capitals after its cue
    ("样本编号：20240105K3321", "20240105K3321", "MRN"),
    ("报告号RPT-2023-118204，请查收", "RPT-2023-118204", "MRN"),
    ("在省医院建的档，建档号1234 5678 9012 3456", "1234 5678 9012 3456", "MRN"),
    ("当兵时的证件是空字第1234567号", "空字第1234567号", "ID"),              # a certificate's own form
    ("帮你挂了2024-03-158:30的号", "2024-03-15", "DATE"),                     # a clock time right after
    ("预约了7/21的复查", "7/21", "DATE"),
    ("复查时间是2.14号，要空腹吗", "2.14号", "DATE"),                          # 号 with the date
    ("资料在 https://pan.example.com/s/1AbWxK9 里", "https://pan.example.com/s/1AbWxK9", "URL"),
    ("QQ 88123456 VX Lily_2020 都行", "Lily_2020", "URL"),                   # a handle after a number
    # a date after its label as OCR reads a form: look-alike letters for digits, stray spaces
    ("入院日期： Z0 22年03月1Z日 10:20", "Z0 22年03月1Z日", "DATE"),
    ("报告日朗:2024. 05.17 某某医院", "2024. 05.17", "DATE"),
    ("采集时间2023.10. 14 17:48", "2023.10. 14", "DATE"),
    ("出院日期：20210B28", "20210B28", "DATE"),
    ("单子上写的5/13复查，到时候挂您", "5/13", "DATE"),
    ("可以预约8.6上午来门诊", "8.6", "DATE"),
]


@pytest.mark.parametrize(("text", "substring", "category"), POSITIVES)
def test_positive(text: str, substring: str, category: str) -> None:
    spans = find_identifiers(text)
    start = text.index(substring)
    assert any(s.start <= start and start + len(substring) <= s.end and s.category == category for s in spans), \
        (text, found(text))


@pytest.mark.parametrize(("text", "names"), [
    ("王医生您好", ["王"]),                       # surname masked, title kept
    ("请问李主任明天有门诊吗", ["李"]),
    ("张伟医生说要复查", ["张伟"]),
    ("感谢王医生和李护士", ["王", "李"]),
    ("皮肤科王医生", ["王"]),
    ("转告高大夫", ["高"]),
    ("小李医生", ["李"]),
    ("您好杨女士", ["杨"]),
    ("欧阳医生在吗", ["欧阳"]),
    ("于医生您好", ["于"]),
    ("王建副主任说要复查", ["王建"]),              # the 副 of 副主任 is not part of the name
    ("张伟家属请到护士站", ["张伟"]),
])
def test_title_masks_the_name_and_keeps_the_title(text: str, names: list[str]) -> None:
    assert found(text) == [(n, "NAME") for n in names]


# --- negatives --------------------------------------------------------------------------------

NEGATIVES = [
    # surname characters without a cue
    "我是高血压患者，白细胞偏高", "新生儿黄疸3天了", "打了石膏", "孩子爱吃王子面", "肌张力增高",
    "甘油三酯2.3mmol/L", "毛囊炎反复发作", "房颤", "常规检查都正常", "白内障手术",
    # weak cues followed by ordinary words
    "我是一名护士", "我是南方人", "我是单身", "我是第一次来", "我是孕妇", "患者常常出现头痛", "患者应及时就医",
    "患者于2天前发热", "患者都需要手术", "叫救护车", "这叫什么病", "叫车去医院",
    # titles that are not preceded by a name
    "谢谢医生的建议", "感谢医生", "向医生咨询", "我和医生说", "后来医生说要手术", "当时医生说没事", "但医生说要复查",
    "这位医生很好", "家庭医生", "主治医生", "值班医生", "管床医生", "主任医师", "副主任医师", "同时遵循医生的嘱咐",
    "由专业医生评估", "检查医生说", "及时告知医生", "麻烦医生", "相信医生", "医生：高血压要长期吃药",
    # generic hospitals
    "去医院看看", "去大医院", "当地医院", "三甲医院", "市人民医院", "县医院", "社区医院", "中医院", "儿童医院",
    "附近的诊所", "上级医院", "根据不同医院的收费", "这些医院", "南京多家医院", "整形医院", "妇幼保健院",
    # places that are not sub-city addresses, and words with address suffixes
    "我在北京", "上海市", "走路膝盖疼", "尿路感染", "两者的区别", "病区", "市区", "镇痛药", "乡下", "我们小区",
    "遵守社区的规定", "北京地区的价格", "住在3楼",
    # clinical values and times
    "晚上8点吃的药", "3天", "两周", "半年", "35岁", "明天", "上周", "下个月", "5mg", "每日两次", "血糖7.8mmol/L",
    "白细胞 12.3×10^9/L", "身高170cm，体重65kg", "体温38.5℃", "血压140/90mmHg", "心率88次/分",
    "3月份", "2020年做的手术", "1月龄", "孕12周", "价格在2000-10000元", "1:5000高锰酸钾", "3/4片", "HPV16/18",
    "维生素D 20ng/ml", "q.d.", "13.5", "床号12", "血糖6.8开始吃药", "吃1/2片", "体温37.5开始退了", "1/3的患者",
    "国药准字H20030123", "5月12天", "制动5-7日", "12号床", "维生素B12 500ug", "CA125 35U/mL",
    "订单状态显示ABC", "条码扫不出来", "报告号码在哪看", "采集时间 08:30", "有效期 3年", "住院天数：10",
    "看了《一代宗师·叶问》",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negative(text: str) -> None:
    assert found(text) == []


# --- resident IDs -------------------------------------------------------------------------------

def test_id_checksum() -> None:
    assert VALID_ID.endswith("X") and valid_resident_id(VALID_ID)
    assert not valid_resident_id(WRONG_CHECK)
    assert valid_resident_id(WRONG_CHECK, check_digit=False)
    assert not valid_resident_id("99010519491231002X")          # no such region
    assert not valid_resident_id("11010519491331002X")          # month 13
    assert valid_resident_id("110105491231002")                 # legacy 15 digits
    assert not valid_resident_id("110105491331002")


def test_wrong_check_digit_is_not_an_id() -> None:
    # not an ID without its checksum — but no clinical value has ten digits in a row, so the number is
    # still masked, as the record or order number it most likely is
    assert found(f"编号{WRONG_CHECK}") == [(WRONG_CHECK, "ORDER_ID")]
    assert [c for _, c in found(f"化验单条码{WRONG_CHECK}，请查收")] in (["ORDER_ID"], ["MRN"])


def test_cued_id_with_a_typo_is_still_masked() -> None:
    # after 身份证号 a number of the right shape is that person's ID even with a wrong check digit
    assert found(f"身份证号{WRONG_CHECK}") == [(WRONG_CHECK, "ID")]


def test_anchored_numbers_are_not_read_as_other_shapes() -> None:
    order = "110105194912310021"        # shaped like an ID after an order cue: the cue decides
    assert ("订单号" + order, found("订单号" + order)) == ("订单号" + order, [(order, "ORDER_ID")])


# --- offsets, merging, placeholders ----------------------------------------------------------

def test_offsets_are_exact() -> None:
    text = f"医生您好，我叫张伟，身份证号{VALID_ID}，电话13812345678，5月12日在北京协和医院查的。"
    spans = find_identifiers(text)
    expected = [("张伟", "NAME"), (VALID_ID, "ID"), ("13812345678", "PHONE"), ("5月12日", "DATE"),
                ("北京协和医院", "HOSPITAL")]
    assert [(s.start, s.end, s.category, s.detector) for s in spans] == [
        (text.index(sub), text.index(sub) + len(sub), cat, "rules") for sub, cat in expected]
    assert spans == sorted(spans)


def test_fullwidth_offsets_match_the_original_text() -> None:
    text = "电话：１３８１２３４５６７８，邮箱ａｂｃ＠ｑｑ．ｃｏｍ"
    assert len(normalize(text)) == len(text)
    assert found(text) == [("１３８１２３４５６７８", "PHONE"), ("ａｂｃ＠ｑｑ．ｃｏｍ", "EMAIL")]


def test_rule_and_agent_spans_merge() -> None:
    text = "我叫张伟，住在阳光小区3栋"
    rules = find_identifiers(text)
    agent = [Span(2, 5, "NAME", "agent"), Span(7, 11, "ADDRESS", "agent")]  # "张伟，" overlaps, "阳光小区" inside
    merged = merge_spans([*rules, *agent])
    assert [(text[s.start:s.end], s.category, s.detector) for s in merged] == [
        ("张伟，", "NAME", "agent+rules"), ("阳光小区3栋", "ADDRESS", "agent+rules")]
    # the more specific category wins when they disagree: an ID inside an "address" is an ID
    assert merge_spans([Span(0, 10, "ADDRESS", "agent"), Span(2, 6, "ID", "rules")]) == [
        Span(0, 10, "ID", "agent+rules")]


def test_placeholders() -> None:
    text = "王医生您好，我叫李娜，电话13912345678，2023-05-12在湘雅二院查血糖7.8mmol/L，3天了，明天复查。"
    masked = apply_placeholders(text, find_identifiers(text))
    assert masked == "[NAME]医生您好，我叫[NAME]，电话[PHONE]，[DATE]在[HOSPITAL]查血糖7.8mmol/L，3天了，明天复查。"


CLINICAL = [
    "孩子3岁半，发烧两周了，体温39.2℃，吃了布洛芬5ml，每日两次，还是不退。",
    "空腹血糖7.8mmol/L，HbA1c 7.2%，白细胞 12.3×10^9/L，血红蛋白98g/L，ALT 56U/L。",
    "我今年35岁，身高170cm，体重65kg，血压140/90mmHg，心率88次/分，明天去当地医院复查。",
    "阿莫西林0.5g一日三次，连续7天，上周开始吃的，晚上8点吃最后一次。",
    "建议下个月去三甲医院的内分泌科复查甲状腺功能，左甲状腺素钠片25μg每日一次。",
    "2020年做过阑尾手术，3月份又开始腹痛，去了社区医院，医生说是肠胃炎。",
]


@pytest.mark.parametrize("text", CLINICAL)
def test_clinical_values_survive(text: str) -> None:
    assert find_identifiers(text) == []
    assert apply_placeholders(text, find_identifiers(text)) == text


def test_clinical_value_recogniser() -> None:
    for s in ("35岁", "3天", "两周", "半年", "明天", "上周", "5mg", "每日两次", "血糖7.8mmol/L", "白细胞 12.3×10^9/L",
              "体温38.5℃", "2个月", "每次2粒", "血压140/90mmHg"):
        assert looks_clinical(s), s
    for s in ("张伟", "13812345678", "北京协和医院", "2023年5月12日", VALID_ID):
        assert not looks_clinical(s), s


def test_generic_hospital_phrases() -> None:
    assert all(generic_hospital_phrase(p) for p in ("医院", "当地医院", "三甲医院", "县医院", "南京多家医院"))
    assert not any(generic_hospital_phrase(p) for p in ("北京协和医院", "协和", "湘雅二院", "张氏诊所"))


# --- detector options ------------------------------------------------------------------------

def test_detector_options() -> None:
    text = "我叫张伟，电话13812345678，2023年5月复查"
    assert [s.category for s in RuleDetector(["PHONE"]).find(text)] == ["PHONE"]
    assert [s.category for s in RuleDetector(year_month=False).find(text)] == ["NAME", "PHONE"]
    assert {s.detector for s in RuleDetector(detector="regex-v1").find(text)} == {"regex-v1"}
    with pytest.raises(ValueError, match="unknown categories"):
        RuleDetector(["SSN"])
    texts = [text, "", "没有标识符", "邮箱a@b.cn"]
    assert RuleDetector().detect(texts) == [find_identifiers(t) for t in texts]


# --- the synthetic corpus ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus():
    return generate_corpus(0)


def test_corpus_is_labelled_and_deterministic(corpus) -> None:
    assert generate_corpus(0, n_identifier=50, n_clinical=10, n_hard=5, n_heldout=5) == \
        generate_corpus(0, n_identifier=50, n_clinical=10, n_hard=5, n_heldout=5)
    kinds = {k: sum(s.kind == k for s in corpus) for k in ("identifier", "clinical", "hard", "heldout")}
    assert kinds == {"identifier": 2000, "clinical": 500, "hard": 200, "heldout": 200}
    assert {s.voice for s in corpus} == {"patient", "doctor"}
    for s in corpus:
        assert (s.kind == "clinical") == (not s.spans)
        for g in s.spans:
            assert s.text[g.start:g.end].strip() == s.text[g.start:g.end] != ""
        for k in s.keep:
            assert not any(k.start < g.end and g.start < k.end for g in s.spans)


def _main(corpus):
    return [s for s in corpus if s.kind in ("identifier", "clinical")]


def test_rules_on_the_synthetic_corpus(corpus) -> None:
    main = _main(corpus)
    t0 = time.perf_counter()
    preds = RuleDetector().detect([s.text for s in main])
    rate = len(main) / (time.perf_counter() - t0)
    score = score_corpus(main, preds)
    # measured on seed 0: recall 1.000 except NAME 0.991 and HOSPITAL 0.997; precision 1.000; keeps 1.000
    floors = {"ID": 0.99, "PHONE": 0.99, "EMAIL": 0.99, "URL": 0.99, "DATE": 0.99, "ORDER_ID": 0.99, "MRN": 0.99,
              "NAME": 0.97, "HOSPITAL": 0.97, "ADDRESS": 0.97}
    for cat, floor in floors.items():
        c = score.categories[cat]
        assert c.gold >= 50, cat
        assert c.recall >= floor, (cat, c.recall)
        assert c.precision >= 0.97, (cat, c.precision)
    assert score.keep_rate(["age", "duration", "dose", "lab"]) >= 0.99
    assert score.keep_rate() >= 0.98
    assert rate >= 1000, rate  # the benchmark checks >= 5,000/s; this only catches a pathological slowdown


def test_nothing_identifying_is_logged(corpus, caplog, capsys) -> None:
    caplog.set_level(logging.DEBUG)
    texts = [s.text for s in corpus]
    results = RuleDetector().detect(texts)
    logging.getLogger("medrealmm").debug("audit %s", [[s.audit() for s in spans] for spans in results[:50]])
    captured = capsys.readouterr()
    logged = caplog.text + captured.out + captured.err
    assert "rules:" in caplog.text  # the detector did log (counts only)
    golds = {s.text[g.start:g.end] for s in corpus for g in s.spans}
    assert golds and not [g for g in golds if g in logged]


def test_a_landlines_extension_goes_with_it():
    from medrealmm.deid import detect_text
    for text, phone in (("有急事打0851-56415904转分机9509。", "0851-56415904转分机9509"),
                        ("打059283768741转929没人接", "059283768741转929")):
        assert any(text[a:b] == phone and c == "PHONE" for a, b, c in detect_text(text))
