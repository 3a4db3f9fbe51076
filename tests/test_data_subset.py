"""data.subset: a seeded, order-independent, nested random sample of the valid cases."""

from __future__ import annotations

import random
from typing import Any

import pytest

from medrealmm.data import LoadOptions, RawRecord, build_dataset, load_dataset, select_subset, subset_key
from medrealmm.schema import CaseError


def raw_case(cid: str) -> dict[str, Any]:
    return {
        "id": cid,
        "department": "儿科",
        "intent": "medication",
        "stage": "follow-up",
        "patient": {"age": 4, "sex": "male"},
        "turns": [{"role": "patient", "text": f"孩子发烧两天了（{cid}）"}],
        "y_orig": "对症退热，观察精神状态。",
        "rubric": [{"id": "c1", "text": "询问体温", "weight": 5}],
    }


IDS = [f"case-{i:03d}" for i in range(40)]


def load(ids: list[str], **opts: Any):
    records = [RawRecord(raw=raw_case(cid), file="cases.jsonl") for cid in ids]
    return build_dataset(records, name="t", root=None, source="mem",
                         options=LoadOptions.from_mapping({"check_images": False, **opts}))


def ids_of(ds) -> list[str]:
    return [c.id for c in ds.cases]


def test_subset_is_deterministic_and_keeps_dataset_order() -> None:
    a, b = load(IDS, subset=10), load(IDS, subset=10)
    assert ids_of(a) == ids_of(b)
    assert len(a) == 10
    assert ids_of(a) == sorted(ids_of(a))  # IDS is sorted, so original order == sorted order
    expected = sorted(IDS, key=lambda cid: subset_key(cid, 0))[:10]
    assert set(ids_of(a)) == set(expected)


def test_subset_is_independent_of_file_order() -> None:
    shuffled = IDS[:]
    random.Random(7).shuffle(shuffled)
    a, b = load(IDS, subset=12), load(shuffled, subset=12)
    assert set(ids_of(a)) == set(ids_of(b))
    # each keeps its own file order
    assert ids_of(b) == [cid for cid in shuffled if cid in set(ids_of(a))]


def test_subsets_are_nested() -> None:
    for seed in (0, 1, 42):
        small = set(ids_of(load(IDS, subset=5, subset_seed=seed)))
        large = set(ids_of(load(IDS, subset=10, subset_seed=seed)))
        assert len(small) == 5 and len(large) == 10
        assert small <= large


def test_seed_changes_the_choice() -> None:
    assert set(ids_of(load(IDS, subset=10, subset_seed=0))) != set(ids_of(load(IDS, subset=10, subset_seed=1)))


def test_subset_at_least_the_size_keeps_everything() -> None:
    assert ids_of(load(IDS, subset=40)) == IDS
    assert ids_of(load(IDS, subset=1000)) == IDS
    assert ids_of(load(IDS, subset=None)) == IDS


def test_rejected_cases_are_kept_as_errors() -> None:
    records = [RawRecord(raw=raw_case(cid), file="cases.jsonl") for cid in IDS]
    bad = raw_case("bad-1")
    bad.pop("turns")
    records.insert(3, RawRecord(raw=bad, file="cases.jsonl"))
    records.insert(8, RawRecord(raw=None, file="cases.jsonl", error=CaseError("unreadable", case_id="bad-2")))
    ds = build_dataset(records, name="t", root=None, source="mem",
                       options=LoadOptions(check_images=False, subset=5))
    assert len(ds) == 5
    assert sorted(e.case_id for e in ds.errors) == ["bad-1", "bad-2"]


@pytest.mark.parametrize("bad", [0, -3])
def test_subset_must_be_positive(bad: int) -> None:
    with pytest.raises(ValueError, match=r"data.subset must be >= 1 or null"):
        LoadOptions.from_mapping({"subset": bad})


def test_options_parse_strings_from_the_command_line() -> None:
    opts = LoadOptions.from_mapping({"subset": "200", "subset_seed": "3"})
    assert opts.subset == 200 and opts.subset_seed == 3
    assert LoadOptions.from_mapping({"subset": None}).subset is None


def test_select_subset_directly() -> None:
    cases = load(IDS).cases
    picked = select_subset(cases, 3, seed=5)
    assert [c.id for c in picked] == [c.id for c in cases if c in picked]
    assert len(picked) == 3
    assert select_subset(cases, 100) == cases


def test_load_dataset_sample_subset() -> None:
    cfg = {"name": "sample", "format": "sample", "path": None, "strict": False, "limit": None,
           "case_ids": None, "subset": 5, "subset_seed": 0, "check_images": True, "workers": 0}
    full = load_dataset({**cfg, "subset": None})
    ds = load_dataset(cfg)
    assert len(ds) == 5
    assert set(ids_of(ds)) <= set(ids_of(full))
    assert ids_of(ds) == [cid for cid in ids_of(full) if cid in set(ids_of(ds))]
    assert ids_of(load_dataset(cfg)) == ids_of(ds)


def test_config_composes_with_subset() -> None:
    from medrealmm.config import compose

    cfg = compose(["data=sample", "data.subset=5", "data.subset_seed=2"])
    assert cfg["data"]["subset"] == 5 and cfg["data"]["subset_seed"] == 2
    assert len(load_dataset(cfg["data"])) == 5
