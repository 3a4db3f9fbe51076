"""The learned character tagger (medrealmm/deid/text_learned.py) and its training tool (tools/deid_crf).

A small model trained here in seconds on a few hundred generated messages must find names, addresses and
hospitals in sentences written for this test (not corpus sentences) and leave clinical values alone; the
shipped model must load and find a name with no cue word; training is deterministic.
"""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("pycrfsuite")
pytest.importorskip("faker")

from medrealmm.deid.spans import Span
from medrealmm.deid.text_learned import (DEFAULT_MODEL, LearnedDetector, _segments, bio_labels, char_features, decode,
                                         feature_inputs_digest, in_context, inputs_file, plausible_name, train)
from tools.deid_crf.train import TRAINING, generator_examples, training_examples


@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    data = training_examples([7], 120)           # ~840 messages of the seven development generators
    return train(data, tmp_path_factory.mktemp("crf") / "small.crfsuite", max_iterations=60)


def _found(det: LearnedDetector, text: str) -> list[tuple[str, str]]:
    return [(s.category, text[s.start:s.end]) for s in det.find(text)]


def test_features_one_list_per_character():
    text = "我叫郑海波，住在成都市武侯区，ＢＰ 120/80"
    feats = char_features(text)
    assert len(feats) == len(text)
    assert all(f and f[0] == "bias" for f in feats)
    assert "sur" in feats[2]                         # 郑 is a surname
    assert any(x.startswith("gz=B") for x in feats[8])  # 成都市 starts a gazetteer name
    assert char_features("") == []


def test_bio_round_trip():
    text = "王芳在北京市海淀区，3月5日"
    labels = bio_labels(text, [(0, 2, "NAME"), (3, 9, "ADDRESS"), (10, 14, "DATE")])
    assert labels[:3] == ["B-NAME", "I-NAME", "O"]
    assert labels[10:] == ["O"] * 4                  # the rules find dates; the tagger does not learn them
    assert [(s.start, s.end, s.category) for s in decode(labels)] == [(0, 2, "NAME"), (3, 9, "ADDRESS")]
    assert [(s.start, s.end) for s in decode(["I-NAME", "I-NAME", "B-NAME"])] == [(0, 2), (2, 3)]


@pytest.mark.parametrize("text, expected", [
    ("医生您好，我叫郑海波，今年四十二岁，胸口闷了三天。", ("NAME", "郑海波")),
    ("我妈周桂兰最近血压一直偏高，收缩压160。", ("NAME", "周桂兰")),
    ("徐志刚下午来复诊，带上上次的片子。", ("NAME", "徐志刚")),
    ("我家住在成都市武侯区玉林南路18号，离医院很近。", ("ADDRESS", "成都市武侯区玉林南路18号")),
    ("之前在杭州市第一人民医院做的胃镜，医生说是浅表性胃炎。", ("HOSPITAL", "杭州市第一人民医院")),
])
def test_small_model_finds_identifiers(small_model, text, expected):
    # a model of 600 messages is rarely 90 % sure of anything: every tagged span, names still checked
    assert expected in _found(LearnedDetector(small_model, min_confidence=0.0), text)
    assert expected in _found(LearnedDetector(small_model, min_confidence=0.0, check_context=True), text)


@pytest.mark.parametrize("text", [
    "血红蛋白92g/L，白细胞11.2×10^9/L，要不要住院？",
    "孩子3岁，体温38.5度，吃了布洛芬5毫升。",
    "空腹血糖7.8mmol/L，二甲双胍0.5g每天两次，三个月后复查。",
])
def test_small_model_leaves_clinical_values(small_model, text):
    assert _found(LearnedDetector(small_model, min_confidence=0.0, check_names=False), text) == []


@pytest.mark.parametrize("text, start, end, ok", [
    ("我叫郑海波，", 2, 5, True), ("欧阳娜娜来了", 0, 4, True), ("小芳发烧了", 0, 2, True),
    ("我会向医生咨询", 2, 3, False),      # a function word that is also a surname, before a title
    ("【由】医生评估病情", 1, 2, False),
    ("按黄医生的方子吃", 1, 2, True),      # a lone surname before a title
    ("黄说的对", 0, 1, False),            # ... but only before a title
    ("我是买买提·玉苏甫，想咨询", 2, 9, True),   # a transliterated name with a middle dot
    ("·玉苏甫", 0, 4, False),
    ("保持安静、清洁", 2, 4, False),      # an everyday word that starts with a surname
    ("但可以根据医生", 0, 5, False),      # too long, and particles inside
    ("一切顺利", 0, 4, False),            # no surname
])
def test_plausible_name(text, start, end, ok):
    assert plausible_name(text, start, end) is ok


@pytest.mark.parametrize("text, start, end, category, ok", [
    ("我叫郑海波，今年四十二岁", 2, 5, "NAME", True),
    ("我妈周桂兰最近血压高", 2, 5, "NAME", True),      # jieba reads 我妈周|桂兰: a noun cut, still a name
    ("之前在杭州市第一人民医院做的胃镜", 3, 12, "HOSPITAL", True),
    ("我们通常建议家长们留意", 3, 6, "NAME", False),   # 通常|建议: starts inside an adverb
    ("徐志刚下午来复诊，带上片子", 0, 3, "NAME", True),
    ("方甲氧那明胶囊(阿斯美)和神香苏合丸", 8, 11, "NAME", False),   # a brand in brackets after a drug
    ("建议您到正规中医医院找到一位医生", 4, 10, "HOSPITAL", False),  # opens with an adjective
    ("需要根据不同医院和医生的收费", 2, 8, "HOSPITAL", False),      # opens with a preposition
])
def test_in_context(text, start, end, category, ok):
    assert in_context(text, Span(start, end, category, "crf"), _segments(text)) is ok


def test_find_checked_agrees_with_find(small_model):
    det = LearnedDetector(small_model, min_confidence=0.5)
    for text in ("医生您好，我叫郑海波，住在成都市武侯区玉林南路18号。", "我们通常建议家长们留意孩子的体温。"):
        kept = [s for s, conf, name_ok, ctx_ok in det.find_checked(text) if conf >= 0.5 and name_ok and ctx_ok]
        assert kept == det.find(text)
        assert [(s, c) for s, c, _n, _x in det.find_checked(text)] == det.find_scored(text)


def test_training_refuses_held_out_generators():
    assert not {"consult_d", "consult_f", "consult_j", "consult_k", "consult_l"} & set(TRAINING)
    for name in ("consult_d", "consult_f", "consult_j"):
        with pytest.raises(ValueError):
            generator_examples(name, 1, 10)


def test_same_seed_same_model(small_model, tmp_path):
    again = train(training_examples([7], 120), tmp_path / "again.crfsuite", max_iterations=60)
    assert again.read_bytes() == small_model.read_bytes()


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="tools.deid_crf.train"):
        LearnedDetector(tmp_path / "none.crfsuite").find("王芳来了")


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="the shipped model is not built")
def test_shipped_model_finds_a_cueless_name():
    det = LearnedDetector()
    text = "刘建军昨天又吐了两次，今天能吃点粥。"
    assert ("NAME", "刘建军") in _found(det, text)
    assert det.detect(["", "ok"]) == [[], []]
    assert all(s.detector == "crf" for s in det.find(text))


def test_shipped_model_was_trained_on_todays_features():
    """Editing the lexicons, the gazetteer, the cue words or the feature code changes what the model sees:
    retrain it (python -m tools.deid_crf.train --out medrealmm/deid/models/text_crf.crfsuite)."""
    stored = inputs_file(DEFAULT_MODEL).read_text(encoding="utf-8").strip()
    assert stored == feature_inputs_digest(), "retrain the shipped CRF: its features' inputs changed"


def test_a_model_trained_on_other_features_warns_and_still_runs(small_model, tmp_path, caplog):
    assert inputs_file(small_model).read_text(encoding="utf-8").strip() == feature_inputs_digest()
    stale = tmp_path / "stale.crfsuite"
    stale.write_bytes(small_model.read_bytes())
    inputs_file(stale).write_text("0" * 64 + "\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="medrealmm.deid.text_learned"):
        LearnedDetector(stale).find("王芳来了")
    assert "retrain it" in caplog.text and "王芳" not in caplog.text
