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
])
def test_parse_verdict(text, met) -> None:
    v = parse_verdict(text)
    assert (v.met if v else None) is met


def test_rationale_kept() -> None:
    v = parse_verdict('{"rationale": "指出了血红蛋白偏低", "met": true}')
    assert v is not None and v.rationale == "指出了血红蛋白偏低"
