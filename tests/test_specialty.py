"""Specialty groups: default coverage, loading/validation, the polars expression, unmapped names."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import yaml
from omegaconf import OmegaConf

from medrealmm.data import load_dataset
from medrealmm.data.specialty import DEFAULT_GROUPS, OTHER, load_groups, specialty_expr, unmapped

SAMPLE_DEPARTMENTS = [
    "皮肤科", "内分泌科", "精神科", "呼吸内科", "骨科", "心血管内科",
    "妇产科", "眼科", "儿科", "消化内科", "中医科", "泌尿外科",
]


def test_sample_departments_all_map() -> None:
    groups = load_groups()
    assert unmapped(SAMPLE_DEPARTMENTS, groups) == []
    assert groups["皮肤科"] == "皮肤与性病"
    assert groups["骨科"] == groups["泌尿外科"] == "外科"
    assert groups["心血管内科"] == groups["呼吸内科"] == groups["内分泌科"] == "内科"
    assert groups["中医科"] == "中医"


def test_bundled_sample_dataset_is_fully_mapped() -> None:
    ds = load_dataset({"name": "sample", "format": "sample", "check_images": False})
    assert unmapped((c.department for c in ds), load_groups()) == []


def test_default_groups_shape() -> None:
    assert 10 <= len(DEFAULT_GROUPS) <= 14
    names = [d for depts in DEFAULT_GROUPS.values() for d in depts]
    assert len(names) == len(set(names)) >= 80  # no department in two groups
    assert OTHER not in DEFAULT_GROUPS


@pytest.mark.parametrize(
    "a,b",
    [("心内科", "心血管内科"), ("耳鼻喉科", "耳鼻咽喉科"), ("传染科", "感染科"), ("心理科", "精神科"),
     ("妇科", "产科"), ("新生儿科", "儿科"), ("性病科", "皮肤科"), ("肿瘤内科", "放疗科"),
     ("针灸科", "中医科"), ("心胸外科", "胸外科")],
)
def test_aliases_map_to_the_same_group(a: str, b: str) -> None:
    groups = load_groups()
    assert groups[a] == groups[b]


def test_mapping_spec_and_omegaconf() -> None:
    spec = {"心脏": ["心内科", " 心血管内科\u3000"], "皮肤": "皮肤科"}
    expected = {"心内科": "心脏", "心血管内科": "心脏", "皮肤科": "皮肤"}
    assert load_groups(spec) == expected
    assert load_groups(OmegaConf.create(spec)) == expected
    assert load_groups(OmegaConf.to_container(OmegaConf.create(spec))) == expected


def test_duplicate_department_names_both_groups() -> None:
    with pytest.raises(ValueError) as e:
        load_groups({"内科": ["心内科"], "外科": ["骨科", "心内科"]})
    msg = str(e.value)
    assert "心内科" in msg and "内科" in msg and "外科" in msg


@pytest.mark.parametrize(
    "spec",
    [{"": ["皮肤科"]}, {"皮肤": [""]}, {"皮肤": ["  "]}, {"皮肤": [3]}, {"皮肤": {"a": "b"}}, {"皮肤": 5}],
)
def test_invalid_names_are_rejected(spec) -> None:
    with pytest.raises(ValueError):
        load_groups(spec)


def test_yaml_file(tmp_path: Path) -> None:
    f = tmp_path / "groups.yaml"
    f.write_text(yaml.safe_dump({"内科": ["心内科", "呼吸科"], "外科": ["骨科"]}, allow_unicode=True),
                 encoding="utf-8")
    assert load_groups(f) == {"心内科": "内科", "呼吸科": "内科", "骨科": "外科"}
    assert load_groups(str(f)) == load_groups(f)


def test_json_file(tmp_path: Path) -> None:
    f = tmp_path / "groups.json"
    f.write_text(json.dumps({"眼耳鼻喉": ["眼科", "耳鼻喉科"]}, ensure_ascii=False), encoding="utf-8")
    assert load_groups(f) == {"眼科": "眼耳鼻喉", "耳鼻喉科": "眼耳鼻喉"}


def test_duplicate_in_file_names_the_file(tmp_path: Path) -> None:
    f = tmp_path / "dup.yaml"
    f.write_text("内科:\n  - 心内科\n外科:\n  - 心内科\n", encoding="utf-8")
    with pytest.raises(ValueError, match="dup.yaml") as e:
        load_groups(f)
    assert "内科" in str(e.value) and "外科" in str(e.value) and "心内科" in str(e.value)


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    f = tmp_path / "nope.yaml"
    with pytest.raises(FileNotFoundError, match="nope.yaml"):
        load_groups(f)


def test_bad_files(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="broken.json"):
        load_groups(broken)
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("a: [b\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.yaml"):
        load_groups(bad_yaml)
    a_list = tmp_path / "list.yaml"
    a_list.write_text("- 皮肤科\n- 眼科\n", encoding="utf-8")
    with pytest.raises(ValueError, match="list.yaml"):
        load_groups(a_list)


def test_expression_on_a_frame() -> None:
    df = pl.DataFrame({"department": ["心内科", "皮肤科", None, "emergency_referrals", "\u3000眼科 ", "骨科"],
                       "score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    out = df.with_columns(specialty_expr(load_groups()))
    assert out["specialty"].to_list() == ["内科", "皮肤与性病", OTHER, OTHER, "五官科", "外科"]
    assert out["department"].to_list() == df["department"].to_list()


def test_expression_options() -> None:
    df = pl.DataFrame({"dept": ["a", "b", None]}, schema={"dept": pl.Categorical})
    out = df.select(specialty_expr({"a": "A"}, column="dept", other="?", alias="grp"))
    assert out.columns == ["grp"]
    assert out["grp"].to_list() == ["A", "?", "?"]
    assert df.select(specialty_expr({}, column="dept"))["specialty"].to_list() == [OTHER] * 3


def test_unmapped() -> None:
    groups = load_groups()
    depts = ["皮肤科", "hedging", "communication", "hedging", None, " ", "未知科 "]
    assert unmapped(depts, groups) == sorted(["communication", "hedging", "未知科"])
    assert unmapped([], groups) == []


def test_naming_rules_put_tcm_and_paediatric_subspecialties_in_their_groups() -> None:
    from medrealmm.data.specialty import assign, load_groups, unmapped

    groups = load_groups(None)
    got = assign(["中医皮肤科", "儿童皮肤科", "小儿皮肤科", "新生儿重症科", "中西医结合肿瘤科", "乳腺甲状腺外科",
                  "风湿免疫内科", "皮肤科", "某某科", None, " "], groups)
    assert {d: g for d, (g, _) in got.items()} == {
        "中医皮肤科": "中医", "儿童皮肤科": "儿科", "小儿皮肤科": "儿科", "新生儿重症科": "儿科", "中西医结合肿瘤科": "中医",
        "乳腺甲状腺外科": "外科", "风湿免疫内科": "内科", "皮肤科": "皮肤与性病", "某某科": "其他"}
    assert got["皮肤科"][1] == "exact" and got["中医皮肤科"][1] == "prefix 中医" and got["某某科"][1] == "none"
    assert assign(["中医皮肤科"], groups, rules=False)["中医皮肤科"] == ("其他", "none")
    assert unmapped(["中医皮肤科", "某某科"], groups, rules=True) == ["某某科"]


def test_review_sampling_counts_paediatric_subspecialties_as_sensitive() -> None:
    from medrealmm.deid.review import Sampling

    picked = dict(Sampling(share=0.0).select([{"id": "a", "department": "儿童皮肤科"}, {"id": "b", "department": "皮肤科"}]))
    assert picked == {"a": "all cases of 儿科"}
