"""Held-out de-identification corpus C (benchmarks/corpora/consult_c.py): frozen by its hash, offsets valid,
deterministic, every category well covered, resident IDs with valid GB 11643 check digits."""

from __future__ import annotations


import pytest

from tests.support.corpora import load_generator

cc = load_generator("consult_c")


@pytest.fixture(scope="module")
def corpus():
    return cc.verify()  # regenerates seed 0 / 3000 messages and raises if the hash moved


def test_verify_and_shape(corpus):
    assert len(corpus) == 3000
    share = sum(1 for m in corpus if m["spans"]) / len(corpus)
    assert 0.55 <= share <= 0.65
    assert {m["role"] for m in corpus} == {"patient", "doctor"}
    plain = [m for m in corpus if not m["spans"]]
    assert sum(1 for m in plain if m["keep"]) > len(plain) / 2  # most carry clinical numbers to keep


def test_offsets_valid(corpus):
    for m in corpus:
        assert set(m) == {"text", "role", "spans", "keep"}
        cc._check(m)  # inside the text, no overlaps (spans or keeps), known labels, no edge whitespace
        for s, e, _ in m["spans"] + m["keep"]:
            assert isinstance(s, int) and isinstance(e, int) and m["text"][s:e].strip()


def test_deterministic():
    a = cc.generate(seed=5, n_messages=200)
    assert a == cc.generate(seed=5, n_messages=200)
    assert a != cc.generate(seed=6, n_messages=200)
    assert cc.generate(0, 300) == cc.generate(0, 3000)[:300]  # a prefix does not depend on n_messages


def test_category_coverage(corpus):
    counts = dict.fromkeys(cc.CATEGORIES, 0)
    kinds = dict.fromkeys(cc.KEEP_KINDS, 0)
    for m in corpus:
        for _, _, c in m["spans"]:
            counts[c] += 1
        for _, _, k in m["keep"]:
            kinds[k] += 1
    assert all(v >= 100 for v in counts.values()), counts
    assert all(v >= 100 for v in kinds.values()), kinds


def test_resident_id_check_digits(corpus):
    assert cc.id_check_char("11010519491231002") == "X"  # the GB 11643 example
    assert cc.id_check_ok("11010519491231002X") and not cc.id_check_ok("110105194912310021")
    n = 0
    for m in corpus:
        for s, e, c in m["spans"]:
            raw = m["text"][s:e].translate(str.maketrans("０１２３４５６７８９", "0123456789")).replace(" ", "")
            if c == "ID" and len(raw) == 18 and raw[:17].isdigit():
                assert cc.id_check_ok(raw), raw
                n += 1
    assert n >= 100


def test_negatives_stay_unmarked(corpus):
    """Brand drugs, place-named diseases and foods, herbs and generic hospitals are never inside a span."""
    words = ["立普妥", "波立维", "日本脑炎", "桥本甲状腺炎", "兰州拉面", "何首乌", "当地医院", "三甲医院"]
    seen = dict.fromkeys(words, 0)
    for m in corpus:
        for w in words:
            i = m["text"].find(w)
            while i >= 0:
                seen[w] += 1
                assert not any(s < i + len(w) and i < e for s, e, _ in m["spans"]), (w, m)
                i = m["text"].find(w, i + 1)
    assert all(seen.values()), seen
