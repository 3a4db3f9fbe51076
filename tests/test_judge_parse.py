from __future__ import annotations

import pytest

from medrealmm.judge.parse import parse_verdict


@pytest.mark.parametrize("text,met", [
    ('{"rationale": "提到了", "met": true}', True),
    ('{"rationale":"没有","met":false}', False),
    ('```json\n{"rationale": "ok", "met": "true"}\n```', True),
    ('<think>让我想想 {"met": false}</think>{"rationale": "满足", "met": true}', True),
    ('判定如下：{"explanation": "x", "criteria_met": false} 以上。', False),
    ('{"rationale": "含有 } 和 { 的理由", "met": true}', True),
    ('{"理由": "回复做到了", "判定": "满足"}', True),
    ('{"rationale": "截断', None),
    ('', None),
    (None, None),
    ('{"rationale": "no verdict key"}', None),
    ('{"rationale": "x", "met": "maybe"}', None),
    ('<think>{"met": true}', None),   # reasoning cut off: the verdict inside the thought does not count
    ('"met": false, trailing prose', False),
    ('示例：{"met": true}。实际判定：{"rationale":"未提及","met":false}', None),  # disagreeing objects
    ('{"rationale": "他说\\"好的\\"吗", "met": true}', True),  # escaped quotes in the rationale
    ('"met": true ... "met": false', None),
])
def test_parse_verdict(text, met) -> None:
    v = parse_verdict(text)
    assert (v.met if v else None) is met


def test_rationale_kept() -> None:
    v = parse_verdict('{"rationale": "指出了血红蛋白偏低", "met": true}')
    assert v is not None and v.rationale == "指出了血红蛋白偏低"
    v = parse_verdict('前言 {"rationale": "含\\"引号\\"", "met": false}')
    assert v is not None and v.rationale == '含"引号"' and v.met is False
