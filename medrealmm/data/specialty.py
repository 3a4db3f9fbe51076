"""Specialty groups: departments (科室) grouped the way a Chinese hospital groups them.

MedRealMM has ~64 departments, too many for one breakdown row or heatmap column each, so the
report also aggregates by specialty (内科, 外科, 儿科, ...). :data:`DEFAULT_GROUPS` covers the
department names that Chinese online consultation platforms use, including common aliases
(心内科 = 心血管内科); a run can replace it with its own mapping (Hydra config or a YAML/JSON
file) through :func:`load_groups`.

Matching is predictable: a department matches when it is *exactly* equal to a listed name after
stripping surrounding whitespace (full-width 　 included); otherwise the naming rules of Chinese
hospitals decide, in order (:data:`PREFIX_RULES`, then :data:`SUFFIX_RULES`): a 中医/中西医
department is TCM (中医皮肤科 → 中医), a 儿童/小儿/新生儿 department is paediatrics (儿童皮肤科 → 儿科),
then …内科 → 内科 and …外科 → 外科. There is no fuzzy matching. Departments that match nothing fall
into ``其他`` and are listed by :func:`unmapped` (``report.specialty_strict=true`` refuses them), and
the report lists how every department was assigned, so gaps are visible rather than silently misgrouped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

OTHER = "其他"

DEFAULT_GROUPS: dict[str, tuple[str, ...]] = {
    "内科": (
        "内科", "普通内科", "大内科",
        "心血管内科", "心内科", "心脏内科",
        "呼吸内科", "呼吸科", "呼吸与危重症医学科",
        "消化内科", "消化科", "胃肠内科",
        "内分泌科", "内分泌代谢科", "内分泌内科",
        "肾内科", "肾脏内科", "肾病科",
        "神经内科", "神经科",
        "血液科", "血液内科",
        "风湿免疫科", "风湿科", "免疫科",
        "变态反应科", "过敏反应科",
        "老年科", "老年医学科",
    ),
    "外科": (
        "外科", "普外科", "普通外科",
        "骨科", "脊柱外科", "关节外科", "创伤骨科", "手外科", "运动医学科",
        "泌尿外科", "神经外科",
        "胸外科", "心胸外科", "心脏外科", "心血管外科", "血管外科",
        "肝胆外科", "肝胆胰外科", "胃肠外科",
        "乳腺外科", "甲状腺外科", "甲乳外科",
        "肛肠科", "肛肠外科",
        "整形外科", "整形美容科", "医学美容科",
        "烧伤科", "烧伤整形科",
    ),
    "妇产科与生殖": (
        "妇产科", "妇科", "产科",
        "生殖医学科", "生殖中心", "不孕不育科", "计划生育科",
        "男科",
    ),
    "儿科": (
        "儿科", "小儿科", "小儿内科", "新生儿科", "小儿外科", "儿外科", "儿童保健科",
    ),
    "皮肤与性病": ("皮肤科", "性病科", "皮肤性病科"),
    "五官科": (
        "眼科",
        "耳鼻喉科", "耳鼻咽喉科", "耳鼻咽喉头颈外科",
        "口腔科", "牙科", "口腔内科", "口腔颌面外科", "口腔正畸科",
    ),
    "精神心理": ("精神科", "心理科", "精神心理科", "心理咨询科", "临床心理科", "睡眠医学科"),
    "肿瘤": ("肿瘤科", "肿瘤内科", "肿瘤外科", "放疗科", "放射治疗科"),
    "感染与传染": ("感染科", "传染科", "感染性疾病科", "肝病科", "结核科"),
    "中医": (
        "中医科", "中医内科", "中医外科", "中医妇科", "中医儿科", "中西医结合科",
        "针灸科", "推拿科", "针灸推拿科",
    ),
    "急诊与全科": ("急诊科", "急诊医学科", "重症医学科", "全科", "全科医学科"),
    "康复与疼痛": ("康复科", "康复医学科", "理疗科", "疼痛科", "麻醉科"),
    "医技与其他": (
        "营养科", "临床营养科",
        "检验科", "医学检验科",
        "影像科", "医学影像科", "放射科", "超声科", "超声医学科", "介入科",
        "病理科", "核医学科",
        "药剂科", "临床药学科",
        "体检科", "健康管理科",
    ),
}


#: (prefix, group), tried in order when no exact name matches: the paper's TCM and paediatric
#: results depend on 中医皮肤科 and 儿童皮肤科 landing in 中医 and 儿科, not in 其他 or 皮肤.
PREFIX_RULES: tuple[tuple[str, str], ...] = (
    ("中西医", "中医"), ("中医", "中医"), ("儿童", "儿科"), ("小儿", "儿科"), ("新生儿", "儿科"),
)
#: (suffix, group), tried after the prefixes.
SUFFIX_RULES: tuple[tuple[str, str], ...] = (("内科", "内科"), ("外科", "外科"))


def assign(departments: Iterable[str | None], groups: Mapping[str, str], *, rules: bool = True
           ) -> dict[str, tuple[str, str]]:
    """Each department (stripped) -> (group, how): ``exact``, ``prefix 中医``, ``suffix 外科`` or ``none``
    (then the group is :data:`OTHER`)."""
    out: dict[str, tuple[str, str]] = {}
    for d in departments:
        if d is None or not _norm(d):
            continue
        name = _norm(d)
        if name in out:
            continue
        if name in groups:
            out[name] = (groups[name], "exact")
            continue
        found = None
        if rules:
            found = next(((g, f"prefix {p}") for p, g in PREFIX_RULES if name.startswith(p) and name != p), None)
            found = found or next(((g, f"suffix {x}") for x, g in SUFFIX_RULES if name.endswith(x) and name != x), None)
        out[name] = found or (OTHER, "none")
    return out


def _norm(name: str) -> str:
    """The matching form of a name: surrounding whitespace (incl. full-width 　) stripped."""
    return name.strip()


def load_groups(spec: Mapping[str, Any] | str | Path | None = None) -> dict[str, str]:
    """Department -> group, from :data:`DEFAULT_GROUPS` (``None``), a mapping or a YAML/JSON file.

    A mapping (or the file's top level) is ``{group: [department, ...]}``; a bare string is one
    department. A department under two groups is an error: which one a breakdown uses would
    otherwise depend on dict order.
    """
    source = ""
    if spec is None:
        raw: Any = DEFAULT_GROUPS
    elif isinstance(spec, (str, Path)):
        path = Path(spec)
        source = f" (in {path})"
        raw = _read_file(path)
    else:
        raw = _plain(spec)
    if not isinstance(raw, Mapping):
        raise ValueError(
            f"specialty groups must be a mapping of group -> list of departments, "
            f"got {type(raw).__name__}{source}"
        )
    out: dict[str, str] = {}
    for group, depts in raw.items():
        if not isinstance(group, str) or not _norm(group):
            raise ValueError(f"specialty group names must be non-empty strings, got {group!r}{source}")
        group = _norm(group)
        if isinstance(depts, str):
            depts = [depts]
        elif depts is None:
            depts = []
        elif not isinstance(depts, Iterable) or isinstance(depts, Mapping):
            raise ValueError(
                f"specialty group {group!r}: expected a list of departments, "
                f"got {type(depts).__name__}{source}"
            )
        for dept in depts:
            if not isinstance(dept, str) or not _norm(dept):
                raise ValueError(
                    f"specialty group {group!r}: departments must be non-empty strings, got {dept!r}{source}"
                )
            dept = _norm(dept)
            prev = out.get(dept)
            if prev is not None and prev != group:
                raise ValueError(
                    f"department {dept!r} is listed under two specialty groups, {prev!r} and {group!r}{source}"
                )
            out[dept] = group
    return out


def _plain(obj: Any) -> Any:
    from medrealmm.config import plain

    return plain(obj)


def _read_file(path: Path) -> Any:
    """The mapping in a ``.json`` file, or in a YAML file (any other suffix)."""
    if not path.is_file():
        raise FileNotFoundError(f"specialty groups file not found: {path}")
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix.lower() == ".json":
            return json.loads(text)
        import yaml

        return yaml.safe_load(text)
    except Exception as e:  # json.JSONDecodeError, yaml.YAMLError
        raise ValueError(f"cannot parse specialty groups file {path}: {e}") from None


def specialty_expr(
    groups: Mapping[str, str], *, column: str = "department", other: str = OTHER, alias: str = "specialty"
) -> pl.Expr:
    """An expression mapping ``column`` to its group; unmapped and null departments -> ``other``.

    ``replace_strict`` is a hash lookup, so this stays fast on millions of score rows.
    """
    keys = list(groups)
    values = [groups[k] for k in keys]
    return (
        pl.col(column)
        .cast(pl.String)
        .str.strip_chars()
        .replace_strict(keys, values, default=other, return_dtype=pl.String)
        .fill_null(other)
        .alias(alias)
    )


def unmapped(departments: Iterable[str | None], groups: Mapping[str, str], *, rules: bool = False) -> list[str]:
    """Sorted unique departments (stripped) that no group lists (with ``rules``: that no naming rule
    assigns either); null and blank ones are skipped."""
    if rules:
        return sorted(d for d, (_, how) in assign(departments, groups).items() if how == "none")
    missing = {_norm(d) for d in departments if d is not None and _norm(d)}
    return sorted(d for d in missing if d not in groups)
