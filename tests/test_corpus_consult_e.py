"""Development de-identification corpus E (benchmarks/corpora/consult_e.py): frozen by its hash, shape and
offsets valid, deterministic, every category present, resident IDs with valid GB 11643 check digits, hard
negatives never marked."""

from __future__ import annotations

import re

import pytest

from tests.support.corpora import load_generator

ce = load_generator("consult_e")


@pytest.fixture(scope="module")
def corpus():
    return ce.verify()  # regenerates seed 0 / 3000 messages and raises if the hash moved


def test_verify_and_shape(corpus):
    assert len(corpus) == 3000
    share = sum(1 for m in corpus if m["spans"]) / len(corpus)
    assert 0.55 <= share <= 0.65
    assert sorted({m["role"] for m in corpus}) == ["doctor", "patient"]
    plain = [m for m in corpus if not m["spans"]]
    assert all(m["keep"] for m in plain)  # every identifier-free message carries clinical numbers to keep


def test_offsets_valid(corpus):
    cats = set(ce.CATEGORIES)
    kinds = {"age", "duration", "dose", "lab", "vital", "time"}
    for m in corpus:
        assert set(m) == {"text", "role", "spans", "keep"}
        text = m["text"]
        assert isinstance(text, str) and text
        for lst, labels in ((m["spans"], cats), (m["keep"], kinds)):
            assert lst == sorted(lst)
            for s, e, c in lst:
                assert 0 <= s < e <= len(text) and c in labels
                assert text[s:e] == text[s:e].strip(), (text, text[s:e])  # no edge whitespace
        both = sorted([(s, e) for s, e, _ in m["spans"]] + [(s, e) for s, e, _ in m["keep"]])
        for (s1, e1), (s2, e2) in zip(both, both[1:], strict=False):
            assert e1 <= s2, (text, m["spans"], m["keep"])


def test_deterministic():
    a = ce.generate(7, 300)
    assert a == ce.generate(7, 300)
    assert a != ce.generate(8, 300)
    assert ce.generate(0, 50) == ce.generate(0, 3000)[:50]


def test_every_category_present(corpus):
    counts = {c: 0 for c in ce.CATEGORIES}
    for m in corpus:
        for _, _, c in m["spans"]:
            counts[c] += 1
    for c in ce.CATEGORIES:
        assert counts[c] >= 50, (c, counts)


_FW = str.maketrans("０１２３４５６７８９", "0123456789")


def _check_ok(idno: str) -> bool:
    w = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    s = sum(int(ch) * k for ch, k in zip(idno[:17], w, strict=True))
    return "10X98765432"[s % 11] == idno[17]


def test_resident_ids_valid(corpus):
    n18 = 0
    for m in corpus:
        for s, e, c in m["spans"]:
            v = m["text"][s:e].translate(_FW)  # full-width digits in some messages
            if c == "ID" and re.fullmatch(r"\d{17}[\dX]", v):
                n18 += 1
                assert _check_ok(v), v
                y, mo, d = int(v[6:10]), int(v[10:12]), int(v[12:14])
                assert 1900 < y < 2025 and 1 <= mo <= 12 and 1 <= d <= 31
    assert n18 >= 50


def test_hard_negatives_unmarked():
    msgs, negs = ce.generate_annotated(0, 3000)
    total = 0
    for m, ns in zip(msgs, negs, strict=True):
        for s, e, word in ns:
            total += 1
            assert m["text"][s:e] == word
            for a, b, c in m["spans"]:
                assert b <= s or a >= e, (m["text"], word, c)
    assert total >= 500
    # the emergency number and a province alone are never inside a span anywhere
    for m in msgs:
        for a, b, c in m["spans"]:
            assert m["text"][a:b] not in ("120", "110", "河南", "四川", "广东", "浙江", "山东", "湖南")


def test_spans_have_no_cue_words(corpus):
    for m in corpus:
        for s, e, c in m["spans"]:
            v = m["text"][s:e]
            if c == "NAME":
                assert not v.endswith(("医生", "主任", "护士", "大夫", "女士", "先生")), v
                assert not v.startswith(("我爸", "我妈", "家属")), v
            if c in ("MRN", "ORDER_ID", "URL"):
                assert not v.startswith(("门诊号", "住院号", "订单号", "微信", "QQ")), v
