"""Rubric lint: every rule fires on a hand-made bad rubric and stays silent on a good one."""

from __future__ import annotations

import json
from types import SimpleNamespace

import polars as pl
import pytest

from medrealmm.data import sample_dir
from medrealmm.rubric.lint import (
    FINDING_SCHEMA,
    RULES,
    Finding,
    LintConfig,
    bundled_reason,
    copy_stats,
    lint_cases,
    lint_rubric,
    normalize,
)
from medrealmm.schema import Case, Criterion

POS = ["说明病情需要复查", "建议多饮水", "询问用药史", "告知警示症状", "推荐低盐饮食", "解释检查结果的意义",
       "提醒按时服药", "给出随访时间", "描述皮损的形态", "识别药盒上的药名", "交代药物的不良反应",
       "强调戒烟的重要性", "鼓励规律运动", "列出需要急诊的情况", "提出进一步检查的方案", "提供心理支持途径",
       "介绍治疗的选择", "安抚患者的焦虑情绪", "要求患者记录血压"]
NEG = ["推荐抗生素", "称结果正常", "建议立即手术", "忽视患者的担忧", "给出错误剂量", "建议自行停药", "夸大风险",
       "诊断为肿瘤"]


def rubric(n_pos: int, n_neg: int, *, weight: int = 5) -> list[Criterion]:
    pos = [Criterion(id=f"c{i + 1}", text=POS[i], weight=weight) for i in range(n_pos)]
    neg = [Criterion(id=f"c{n_pos + i + 1}", text=NEG[i], weight=-5) for i in range(n_neg)]
    return pos + neg


def rules(findings: list[Finding]) -> list[str]:
    return [f.rule for f in findings]


def test_good_rubric_is_silent() -> None:
    assert lint_rubric(rubric(6, 2), case_id="x", y_orig="您好，这是医生的回复，与准则无关。") == []


# --- counts ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("n_pos", "n_neg", "expected"), [
    (3, 0, []), (2, 1, []),                                   # 3 criteria: at the lower bound
    (2, 0, ["n_criteria"]),                                   # 2 criteria
    (12, 7, []),                                              # 19: at the upper bound
    (13, 7, ["n_criteria"]),                                  # 20
    (17, 2, []), (18, 1, ["n_positive"]),                      # positives: 17 ok, 18 too many
    (1, 2, ["n_positive"]),                                   # positives: 1 too few
    (5, 7, []), (5, 8, ["n_negative"]),                        # negatives: 7 ok, 8 too many
])
def test_count_bounds(n_pos: int, n_neg: int, expected: list[str]) -> None:
    pos = [Criterion(id=f"p{i}", text=f"第{i}项：{POS[i % len(POS)]}{i}", weight=3) for i in range(n_pos)]
    neg = [Criterion(id=f"n{i}", text=f"第{i}项：{NEG[i % len(NEG)]}{i}", weight=-3) for i in range(n_neg)]
    found = lint_rubric(pos + neg, case_id="x")
    assert rules(found) == expected
    for f in found:
        assert f.criterion_id is None and f.severity == "error" and f.case_id == "x"


def test_count_message_names_numbers() -> None:
    [f] = lint_rubric(rubric(2, 0), case_id="case-7")
    assert f.message == "the rubric has 2 criteria < minimum 3"
    assert f.as_dict() == {"case_id": "case-7", "criterion_id": None, "rule": "n_criteria", "severity": "error",
                           "message": f.message}


def test_unbounded_side() -> None:
    cfg = LintConfig.from_config({"n_criteria": [1, None], "n_positive": [1, None]})
    assert lint_rubric(rubric(1, 0), case_id="x", config=cfg) == []


# --- weights -----------------------------------------------------------------------------------------

def test_weight_range_bounds() -> None:
    crit = rubric(4, 2)
    ok = [crit[0].model_copy(update={"weight": 10}), crit[1], crit[2], crit[3],
          crit[4].model_copy(update={"weight": -10}), crit[5]]
    assert lint_rubric(ok, case_id="x") == []
    bad = [crit[0].model_copy(update={"weight": 11}), crit[1], crit[2], crit[3],
           crit[4].model_copy(update={"weight": -11}), crit[5]]
    found = lint_rubric(bad, case_id="x")
    assert [(f.rule, f.criterion_id) for f in found] == [("weight_range", "c1"), ("weight_range", "c5")]
    assert "weight 11 is outside [-10, 10]" in found[0].message


# --- duplicates ------------------------------------------------------------------------------------

def test_exact_duplicate_after_normalising() -> None:
    crit = rubric(4, 1)
    crit.append(Criterion(id="c6", text=" 建议多饮水。", weight=3))          # c2 with punctuation/space
    crit.append(Criterion(id="c7", text="推荐ＡＣＥＩ类药物", weight=3))
    crit.append(Criterion(id="c8", text="推荐acei类药物！", weight=-3))     # full-width and case; other sign
    found = lint_rubric(crit, case_id="x")
    assert [(f.rule, f.criterion_id) for f in found] == [("duplicate", "c6"), ("duplicate", "c8")]
    assert "c6 repeats c2" in found[0].message and "c8 repeats c7" in found[1].message


def test_near_duplicate_vs_distinct() -> None:
    crit = rubric(4, 1)
    crit.append(Criterion(id="c6", text="建议患者多饮水", weight=2))        # ~ c2 "建议多饮水"
    found = lint_rubric(crit, case_id="x")
    assert [(f.rule, f.criterion_id, f.severity) for f in found] == [("near_duplicate", "c6", "warning")]
    assert "c6 nearly repeats c2" in found[0].message
    distinct = rubric(4, 1) + [Criterion(id="c6", text="建议戒烟限酒", weight=2)]
    assert lint_rubric(distinct, case_id="x") == []


def test_near_duplicate_mirror_pair_of_opposite_sign() -> None:
    crit = rubric(3, 0) + [Criterion(id="c4", text="建议患者戒烟", weight=5),
                           Criterion(id="c5", text="不建议患者戒烟", weight=-5)]
    assert lint_rubric(crit, case_id="x") == []
    cfg = LintConfig.from_config({"near_duplicate": {"same_sign_only": False}})
    assert rules(lint_rubric(crit, case_id="x", config=cfg)) == ["near_duplicate"]
    strict = LintConfig.from_config({"near_duplicate": 0.95})
    same = rubric(3, 0) + [Criterion(id="c4", text="建议患者多饮水", weight=5)]
    assert lint_rubric(same, case_id="x", config=strict) == []


# --- bundled -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "询问发热、咳嗽和胸痛",                                    # one requirement, a list of objects
    "建议做血常规、肝功能及甲状腺超声等检查",
    "结合年龄和高血压评估卒中风险（CHA2DS2-VASc≥2分），说明需要考虑口服抗凝治疗",   # context lead-in
    "说明约6mm结石可先尝试药物排石（如坦索罗辛），而不是立即手术",                   # contrast
    "建议患者自行停药，或换用其他药物",                         # alternative
    "读出PHQ-9总分19分，并解释为中重度抑郁症状",                 # interpretation of the same finding
    "说明不推荐交替使用，并解释原因（易重复用药）",                # justification
    "描述照片中的皮损特点，并据此考虑体癣",                        # interpretive verb
    "回应患者的担忧，说明短期使用对肝肾影响小",                    # answering = the explanation
    "建议服用1.5～2年，T值-3.2时需复查",
])
def test_not_bundled(text: str) -> None:
    assert bundled_reason(text) is None


@pytest.mark.parametrize("text", [
    "询问发热、咳嗽和胸痛，并说明需要复查血常规",
    "指出药膏含糖皮质激素，可能加重感染，建议停用",
    "说明饮食控制的原则；建议每周运动150分钟",
    "建议戒烟，另外戒酒",
    "建议复查超声；同时监测血压",
    "1. 询问过敏史 2. 建议皮肤科就诊",
    "（1）询问过敏史（2）建议皮肤科就诊",
    "①询问过敏史②建议皮肤科就诊",
    "强烈建议戒烟，并提供戒烟门诊等支持途径",
    "明确建议不要自行停药，并向患者说明可能出现停药反应",
])
def test_bundled(text: str) -> None:
    assert bundled_reason(text) is not None


def test_bundled_finding_and_negative_criteria() -> None:
    crit = rubric(3, 1) + [Criterion(id="c5", text="建议复查超声，并告知出现发热时立即就诊", weight=8),
                           Criterion(id="c6", text="诊断为结膜炎，并建议在家观察", weight=-8)]
    found = lint_rubric(crit, case_id="x")
    assert [(f.rule, f.criterion_id, f.severity) for f in found] == [("bundled", "c5", "warning")]
    assert "divide its 8 points" in found[0].message
    cfg = LintConfig.from_config({"bundled": {"check_negative": True}})
    assert [f.criterion_id for f in lint_rubric(crit, case_id="x", config=cfg)] == ["c5", "c6"]


# --- copies the reply --------------------------------------------------------------------------------

Y_ORIG = ("从照片看是典型的荨麻疹。生活上：限制碘摄入，避免海带、紫菜等高碘食物；两次之间至少间隔6小时，"
          "24小时内不超过4次。如出现呼吸困难、口唇肿胀、喉头发紧、声音嘶哑、头晕心慌、剧烈腹痛，请立即拨打120急救电话。")


def test_copy_stats() -> None:
    cov, longest = copy_stats("建议限制碘摄入，避免海带、紫菜等高碘食物", Y_ORIG)
    assert cov > 0.85 and longest == 16
    cov, longest = copy_stats("建议评估甲状腺功能", Y_ORIG)
    assert cov == 0.0 and longest < 6
    assert copy_stats("任意文字", "") == (0.0, 0)


def test_copies_reply_fires_and_stays_silent() -> None:
    base = rubric(4, 1)
    copied = Criterion(id="c6", text="建议限制碘摄入，避免海带、紫菜等高碘食物", weight=4)
    own = Criterion(id="c7", text="说明高碘饮食可能加重甲亢，需要控制碘的摄入", weight=4)
    found = lint_rubric([*base, copied, own], case_id="x", y_orig=Y_ORIG)
    assert [(f.rule, f.criterion_id, f.severity) for f in found] == [("copies_reply", "c6", "warning")]
    assert "限制" not in found[0].message and "碘" not in found[0].message     # never quotes y_orig
    # without y_orig the rule is skipped
    assert lint_rubric([*base, copied, own], case_id="x") == []


def test_copies_reply_long_run_alone() -> None:
    # a long criterion that is mostly its own wording, but holds a 20+ character verbatim run
    text = "告知如出现呼吸困难、口唇肿胀、喉头发紧、声音嘶哑、头晕心慌等表现时须当即前往就近医院处理并且不要等待观察"
    cov, longest = copy_stats(text, Y_ORIG)
    assert cov < 0.7 and longest >= 20
    found = lint_rubric([*rubric(4, 1), Criterion(id="c6", text=text, weight=5)], case_id="x", y_orig=Y_ORIG)
    assert rules(found) == ["copies_reply"]
    loose = LintConfig.from_config({"copies_reply": {"longest_run": 40}})
    assert lint_rubric([*rubric(4, 1), Criterion(id="c6", text=text, weight=5)], case_id="x", y_orig=Y_ORIG,
                       config=loose) == []


# --- config, order, table ------------------------------------------------------------------------------

def test_order_is_rubric_level_then_by_criterion() -> None:
    crit = [Criterion(id="c1", text="建议复查超声，并告知出现发热时立即就诊", weight=12),
            Criterion(id="c2", text="建议复查超声，并告知出现发热时立即就诊", weight=3)]
    found = lint_rubric(crit, case_id="x")
    assert [(f.rule, f.criterion_id) for f in found] == [
        ("n_criteria", None), ("weight_range", "c1"), ("bundled", "c1"), ("duplicate", "c2"), ("bundled", "c2")]
    assert found == lint_rubric(crit, case_id="x")


def test_severity_override_and_off() -> None:
    cfg = LintConfig.from_config({"severity": {"n_criteria": "warning", "bundled": "off"}})
    crit = [Criterion(id="c1", text="建议复查超声，并告知出现发热时立即就诊", weight=5),
            Criterion(id="c2", text="询问用药史", weight=5)]
    found = lint_rubric(crit, case_id="x", config=cfg)
    assert [(f.rule, f.severity) for f in found] == [("n_criteria", "warning")]


def test_from_config_defaults_and_errors() -> None:
    assert LintConfig.from_config(None) == LintConfig()
    assert LintConfig.from_config({}) == LintConfig()
    cfg = LintConfig.from_config({"n_criteria": [5, 12], "weight": {"min": -5, "max": 5}})
    assert cfg.n_criteria == (5, 12) and (cfg.weight_min, cfg.weight_max) == (-5, 5)
    with pytest.raises(ValueError, match="unknown key"):
        LintConfig.from_config({"n_critera": [3, 19]})
    with pytest.raises(ValueError, match="unknown key"):
        LintConfig.from_config({"weight": {"mn": 1}})
    with pytest.raises(ValueError, match="severity"):
        LintConfig.from_config({"severity": {"bundled": "fatal"}})
    with pytest.raises(ValueError, match="n_positive"):
        LintConfig.from_config({"n_positive": [5, 2]})
    with pytest.raises(ValueError, match=r"\[lo, hi\]"):
        LintConfig.from_config({"n_negative": 3})


def test_from_omegaconf() -> None:
    from omegaconf import OmegaConf

    cfg = LintConfig.from_config(OmegaConf.create({"n_criteria": [4, 10], "copies_reply": {"coverage": 0.5}}))
    assert cfg.n_criteria == (4, 10) and cfg.copy_coverage == 0.5


def test_normalize() -> None:
    assert normalize("ＣＲＰ 正常，（ＷＢＣ）１０！") == "crp正常wbc10"


def test_lint_cases_table() -> None:
    good = SimpleNamespace(id="a", rubric=tuple(rubric(4, 1)), y_orig="无关的回复内容")
    bad = SimpleNamespace(id="b", rubric=tuple(rubric(2, 0)), y_orig="无关的回复内容")
    df = lint_cases([good, bad])
    assert df.schema == pl.Schema(FINDING_SCHEMA)
    assert df.rows() == [("b", None, "n_criteria", "error", "the rubric has 2 criteria < minimum 3")]
    empty = lint_cases([good])
    assert empty.height == 0 and empty.schema == pl.Schema(FINDING_SCHEMA)
    assert lint_cases([]).columns == list(FINDING_SCHEMA)


def test_every_rule_can_fire() -> None:
    """A single table of findings over the hand-made bad rubrics covers every rule."""
    cases = [
        SimpleNamespace(id="few", rubric=rubric(1, 0), y_orig=""),
        SimpleNamespace(id="many-neg", rubric=rubric(2, 8), y_orig=""),
        SimpleNamespace(id="weights", rubric=[*rubric(3, 0), Criterion(id="c9", text="称检查正常", weight=-20),
                                              Criterion(id="c10", text="建议多饮水", weight=2),
                                              Criterion(id="c11", text="建议患者多饮水", weight=2),
                                              Criterion(id="c12", text="建议复查超声，并告知出现发热时立即就诊", weight=4),
                                              Criterion(id="c13", text="建议限制碘摄入，避免海带、紫菜等高碘食物", weight=3)],
                        y_orig=Y_ORIG),
    ]
    df = lint_cases(cases)
    assert set(df["rule"]) == set(RULES)


# --- the bundled sample ------------------------------------------------------------------------------

def sample_cases() -> list[Case]:
    path = sample_dir() / "cases.jsonl"
    if not path.is_file():
        pytest.skip(f"bundled sample not built yet ({path} missing)")
    return [Case.parse(json.loads(line), file=str(path)) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_sample_dataset_has_no_errors() -> None:
    df = lint_cases(sample_cases())
    errors = df.filter(pl.col("severity") == "error")
    assert errors.height == 0, errors.rows()
    # the warnings that remain are the reviewable kind only
    assert set(df["rule"]) <= {"bundled", "copies_reply", "near_duplicate"}


def test_the_rubric_settings_feed_the_lint_and_the_writer_bounds() -> None:
    from medrealmm.config_schema import ConfigError
    from medrealmm.rubric.settings import RubricSettings
    from medrealmm.rubric.writer import Bounds

    s = RubricSettings.of({"lint": {"near_duplicate": 0.9, "n_positive": [2, None]}}, "rubric")
    conf = LintConfig.from_config(s.lint.model_dump())
    assert conf.near_duplicate_threshold == 0.9 and conf.near_duplicate_same_sign_only
    assert Bounds.of(conf) == Bounds(max_positive=99)
    assert LintConfig.from_config(RubricSettings().lint.model_dump()) == LintConfig()
    with pytest.raises(ConfigError, match=r"rubric\.lint\.severity\.bundled"):
        RubricSettings.of({"lint": {"severity": {"bundled": "fatal"}}}, "rubric")
