"""Names found by the slot they stand in (medrealmm/deid/text_stat_slots.py): regional nicknames, names
without a Han surname, rare surnames, a surname alone before a title after any word. Sentences written
for these tests from general naming practice, not taken from any corpus."""

from __future__ import annotations

import pytest

from medrealmm.deid import detect_text


def _names(text: str) -> list[str]:
    return [text[a:b] for a, b, c in detect_text(text) if c == "NAME"]


@pytest.mark.parametrize("text, name", [
    ("上回那边魏主任讲可以先观察", "魏"),
    ("这个情况孔教授最清楚", "孔"),
    ("以前殷大夫给我开过降压药", "殷"),
    ("麻烦眭医生看一下片子", "眭"),
    ("欧阳大爷，腿好些没有", "欧阳"),
])
def test_surname_alone_before_a_title_after_a_word(text, name):
    assert name in _names(text)


@pytest.mark.parametrize("text", ["需要了解医生的意见", "班主任让我写个请假条", "明白了，谢谢医生", "好的，多谢大夫"])
def test_words_before_a_title_are_not_surnames(text):
    assert _names(text) == []


@pytest.mark.parametrize("text, name", [
    ("谢谢，我是仁寿的阿蓉，下次再来", "阿蓉"),
    ("好的，我是富顺的芳娃，先这样", "芳娃"),
    ("你让助理阿珍登记一下就行", "阿珍"),
    ("发到青年路18号吧，丽妹收，13912345678", "丽妹"),
    ("我阿公老蒙咳了一个多月", "老蒙"),
    ("俺娘尕梅腰疼得厉害", "尕梅"),
    ("桂桂（我阿妹）在县城上班", "桂桂"),
])
def test_regional_nicknames_in_person_slots(text, name):
    assert name in _names(text)


@pytest.mark.parametrize("text, name", [
    ("姓名：达娃央宗", "达娃央宗"),
    ("户主巴图孟和，电话13812345678", "巴图孟和"),
    ("收货人：刀玉香", "刀玉香"),
    ("我是库尔班·吐尔逊大夫，说一下情况", "库尔班·吐尔逊"),
    ("给热娜·买买提挂个号", "热娜·买买提"),
])
def test_names_without_a_han_surname_after_labels(text, name):
    assert name in _names(text)


def test_a_list_of_people_ending_with_the_writer():
    text = "姜兰、小菲、我，三个人都拉肚子"
    assert {"姜兰", "小菲"} <= set(_names(text))


def test_latin_names_in_person_slots():
    assert "WANG FANG" in _names("护照上的名字是WANG FANG，麻烦核对")
    assert "Kevin" in _names("我是Kevin妈妈，孩子发烧了")


@pytest.mark.parametrize("text", [
    "帮我阿嬷问一下，阿嬷腿疼",
    "我家娃娃说不想吃饭",
    "医生 亚克西 我发烧两天了",
    "海燕台风过去以后再来复查",
    "给孩子阿莫西林吃了三天",
    "我是孩子的妈妈，想问一下",
    "我是上次您看的湿疹患者",
    "头疼、恶心和我之前一样",
    "布洛芬（我吃的）管用吗",
])
def test_kinship_words_dialect_and_drugs_are_not_names(text):
    assert _names(text) == []


@pytest.mark.parametrize("text, name", [
    ("医生您好，我是果果妈妈，孩子咳嗽", "果果"),
    ("谢谢医生 老梁爸爸", "老梁"),
    ("好的，麻烦您了，秀兰", "秀兰"),
    ("我家孩子朵朵，3岁，发烧", "朵朵"),
    ("丽娟你好，药先吃着", "丽娟"),
])
def test_parents_greetings_and_signatures(text, name):
    assert name in _names(text), _names(text)


@pytest.mark.parametrize("text", ["我家宝宝刚刚10天，脸上长了疹子", "好的，我知道了，谢谢", "我是新手妈妈"])
def test_no_name_in_plain_replies(text):
    assert _names(text) == []


def test_account_handles_given_to_add():
    text = "随访群加lucky_2024，有问题随时问"
    assert (text.index("lucky"), text.index("，"), "URL") in detect_text(text)


@pytest.mark.parametrize("text, name", [
    ("县医院的者兰大夫看过，开了药", "者兰"),
    ("7712345@qq.com 刀玉芬", "刀玉芬"),
    ("出院小结：患者阿木古丽 女 五十岁", "阿木古丽"),
    ("达瓦卓嘎 540102199001011234 电话", "达瓦卓嘎"),
    ("挂号的时候报我名字德央就行", "德央"),
    ("我男人老蒋腰疼好久了", "老蒋"),
])
def test_more_person_slots(text, name):
    assert name in _names(text), _names(text)


@pytest.mark.parametrize("text", ["姓名：不详", "我的主治医生说可以", "患者：前天晚上失眠，心率99次/分。"])
def test_slots_that_hold_no_name(text):
    assert _names(text) == []
