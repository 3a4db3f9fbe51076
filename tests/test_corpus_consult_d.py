"""Held-out de-identification corpus D (benchmarks/corpora/consult_d.py): whole consultations, frozen by their
hash, offsets valid, deterministic, every category well covered, resident IDs with valid GB 11643 check digits,
hard negatives never inside a span."""

from __future__ import annotations

import re

import pytest

from tests.support.corpora import load_generator

cd = load_generator("consult_d")
_FW = str.maketrans("０１２３４５６７８９", "0123456789")


@pytest.fixture(scope="module")
def corpus():
    return cd.verify()  # regenerates seed 0 / 3000 messages and raises if the hash moved


def _occurrences(text: str, word: str):
    i = text.find(word)
    while i >= 0:
        yield i, i + len(word)
        i = text.find(word, i + 1)


def _inside_span(m: dict, s: int, e: int) -> bool:
    return any(a < e and s < b for a, b, _ in m["spans"])


def test_verify_and_shape(corpus):
    assert len(corpus) == 3000
    share = sum(1 for m in corpus if m["spans"]) / len(corpus)
    assert 0.55 <= share <= 0.65, share
    assert {m["role"] for m in corpus} == {"patient", "doctor"}
    patients = sum(1 for m in corpus if m["role"] == "patient") / len(corpus)
    assert 0.4 <= patients <= 0.75, patients
    plain = [m for m in corpus if not m["spans"]]
    assert sum(1 for m in plain if m["keep"]) > 0.4 * len(plain)  # many carry clinical numbers to keep


def test_offsets_valid(corpus):
    for m in corpus:
        assert set(m) == {"text", "role", "spans", "keep"}
        cd._check(m)  # inside the text, sorted, no overlaps (spans or keeps), known labels, no edge whitespace
        for s, e, _ in m["spans"] + m["keep"]:
            assert isinstance(s, int) and isinstance(e, int) and m["text"][s:e].strip()
        assert m["text"] == m["text"].strip()


def test_deterministic():
    a = cd.generate(seed=5, n=200)
    assert a == cd.generate(seed=5, n=200)
    assert a != cd.generate(seed=6, n=200)
    assert cd.generate(0, 300) == cd.generate(0, 3000)[:300]  # a prefix does not depend on n


def test_category_coverage(corpus):
    counts = dict.fromkeys(cd.CATEGORIES, 0)
    kinds = dict.fromkeys(cd.KEEP_KINDS, 0)
    for m in corpus:
        for _, _, c in m["spans"]:
            counts[c] += 1
        for _, _, k in m["keep"]:
            kinds[k] += 1
    assert all(v >= 100 for v in counts.values()), counts
    assert all(v >= 100 for v in kinds.values()), kinds


def test_resident_id_check_digits(corpus):
    assert cd.id_check_char("11010519491231002") == "X"  # the GB 11643 example
    assert cd.id_check_ok("11010519491231002X") and not cd.id_check_ok("110105194912310021")
    n = 0
    for m in corpus:
        for s, e, c in m["spans"]:
            raw = m["text"][s:e].translate(_FW).replace(" ", "")
            if c == "ID" and len(raw) == 18 and raw[:17].isdigit():
                assert cd.id_check_ok(raw), raw
                n += 1
    assert n >= 50


def test_negatives_stay_unmarked(corpus):
    """Brand drugs, eponyms and place-named diseases, place-named foods, surname-initial words, everyday words
    that are names elsewhere, platforms, generic hospitals (incl. the policy-kept 省人医 / 县医院), a province
    alone and emergency numbers are never inside a span."""
    words = ["立普妥", "波立维", "拜新同", "马应龙", "汤臣倍健", "桥本甲状腺炎", "克山病", "香港脚", "帕金森",
             "兰州拉面", "柳州螺蛳粉", "西湖醋鱼", "马上", "白细胞", "高血压", "周一", "夏天", "平安",
             "丁香医生", "当地医院", "社区医院", "县医院", "省人医", "打120"]
    seen = dict.fromkeys(words, 0)
    for m in corpus:
        for w in words:
            for s, e in _occurrences(m["text"], w):
                seen[w] += 1
                assert not _inside_span(m, s, e), (w, m)
    assert all(seen.values()), seen
    alone = 0  # a province alone: 我是河南的 / 我是四川人 / 我是广西那边的
    for m in corpus:
        for x in re.finditer("我是(河南|四川|山东|广西|湖南|黑龙江|内蒙古|浙江)(的|人|那边的)", m["text"]):
            alone += 1
            assert not _inside_span(m, x.start(1), x.end(1)), m
    assert alone >= 10


def test_registers_present(corpus):
    """The corpus carries the registers it claims: phones read out in Chinese numerals, full-width digits,
    pasted forms with header fields, contact cards, minority names, short hospital forms after full ones."""
    cn_phones = sum(1 for m in corpus for s, e, c in m["spans"]
                    if c == "PHONE" and re.search("[一二三四五六七八九〇幺]", m["text"][s:e]))
    assert cn_phones >= 10
    assert sum(1 for m in corpus if re.search("[０-９]", m["text"])) >= 50
    assert sum(1 for m in corpus if "姓名" in m["text"] and "床号" in m["text"]) >= 20
    assert sum(1 for m in corpus if m["text"].startswith("[个人名片]")) >= 20
    names = [m["text"][s:e] for m in corpus for s, e, c in m["spans"] if c == "NAME"]
    assert any("·" in n for n in names)
    hospitals = [m["text"][s:e] for m in corpus for s, e, c in m["spans"] if c == "HOSPITAL"]
    shorts = ["协和", "华西", "附一", "浙一", "301", "湘雅", "齐鲁", "市二院", "省肿瘤", "同济"]
    assert sum(1 for h in shorts if h in hospitals) >= 5  # short forms are marked too
    assert sum(1 for h in hospitals if len(h) <= 4) >= 30
