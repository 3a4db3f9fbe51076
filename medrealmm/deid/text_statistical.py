"""The statistical layer of text de-identification: names, places and hospitals without cue words.

The rules (:mod:`medrealmm.deid.text_rules`) need a shape or a cue; people write ``刘平，56岁``,
``收到，郑洋，您说的…``, ``我和郭桂芝都是…``, ``我在萧山上班``, ``上次在华西看的``. This layer
reads the text the way a segmenter does — jieba's dictionary and HMM (``rjieba``, the Rust port: MIT,
dictionary inside the wheel, no download, ~100k sentences/s) give words and part-of-speech tags
(``nr`` person, ``ns`` place, ``nz``/``nt`` other proper nouns) — and decides with evidence that does
not depend on any one corpus:

- NAME: a surname (single or compound) starting a word boundary, followed by one or two given-name
  characters that end on a word boundary. Each candidate gets a score: the tagger's person tag,
  given-name plausibility (:data:`~medrealmm.deid.text_lexicons.GIVEN_NAME_CHARS`), surname
  frequency, the words on either side (``和``/``，`` before, ``的``/``都``/``，`` after), minus how
  common the string is as a dictionary word (阳光, 安静, 张力 are words, 郑洋 is not) and whether it
  is a known everyday, medical or place word. Candidates at or above the threshold are names.
  Candidates also start inside a segmenter word when it glued a word that takes a person to the
  surname (带张 + 英去, 爸周 + 宏伟, 孩子王 + 思雨). Names without a surname-first shape are found by
  their context: nicknames (老李, 小张) standing alone or after a kinship word or a contact verb;
  pet and given names right after a kinship word (我家思远, 孩子壮壮, 我媳妇小玲) or addressed
  (收到，小刚，); a child's name before a parent's title (糖糖妈妈); Tibetan and Mongolian names of two
  name elements (次仁卓玛, 乌兰图雅); the doctor in a consultation's signature (——哈医大二院 肿瘤科 谢伟).
- ADDRESS: cities, counties and districts from the gazetteer (:mod:`medrealmm.deid.text_gazetteer`),
  in full anywhere and in short form where the tagger reads a proper noun or a cue leaves no other
  reading (老家是疏勒的, 在金华打工, 金华义乌市); towns, townships, villages and roads by their suffix
  after a proper noun (李楼乡, 王庄村, 文三路); a compound lived in, named without 小区 (住康桥华城，).
- HOSPITAL: short forms (市二院, 省肿瘤医院, 中山一院, 郑大一附院, 哈医大一院, 广医一院, 附一院, 地区一院,
  菏泽市立, 广州妇儿中心, 曹县妇幼), famous short names in a hospital context (在华西看的, 千佛山急诊科),
  the hospital in a signature, and full names whose left edge the segmenter finds better than a
  stop list (如皋市人民医院, 仁爱门诊部).

The segmenter loads on first use (~0.3 s) and is cached for the process.
"""

from __future__ import annotations

import functools
import logging
import math
import re
from collections.abc import Collection, Sequence
from typing import NamedTuple

from medrealmm.deid.spans import CATEGORIES, Span, detect_each, merge_spans
from medrealmm.deid.text_gazetteer import Gazetteer, gazetteer
from medrealmm.deid.text_lexicons import (AMBIGUOUS_SURNAMES, BEFORE_TITLE_WORDS, COMMON_SURNAMES, COMMON_WORDS,
                                          COMPOUND_SURNAMES, DRUG_BRANDS, FOLK_GIVEN_NAMES, GIVEN_NAME_CHARS, HOSPITAL_ABBREVIATIONS, MID_SURNAMES,
                                          NAME_LEFT, NAME_RIGHT, PERSON_VERBS, STOP_CHARS, SURNAMES)
from medrealmm.deid.text_policy import TextPolicy
from medrealmm.deid.text_rules import generic_hospital_phrase, normalize
from medrealmm.deid.text_stat_hospitals import hospitals as nickname_hospitals
from medrealmm.deid.text_stat_places import places as rural_places
from medrealmm.deid.text_stat_slots import not_a_name, slot_names
from medrealmm.deid.text_stat_words import segmenter, word_frequency

_jieba = segmenter   # the name other modules import

log = logging.getLogger(__name__)

DETECTOR = "stat"

NAME_THRESHOLD = 2.0
"""Score at or above which a candidate is a name (see :func:`name_score`)."""


class Token(NamedTuple):
    """One word of the segmenter: offsets into the text, the word, its part-of-speech tag."""

    start: int
    end: int
    word: str
    tag: str


def tokens(text: str) -> list[Token]:
    """jieba's words and tags with their offsets (the words concatenate to ``text``)."""
    out: list[Token] = []
    pos = 0
    make = Token
    for word, tag in _jieba().tag(text):
        end = pos + len(word)
        out.append(make(pos, end, word, tag))
        pos = end
    if pos != len(text):  # never seen; a segmenter that drops characters would shift every offset
        raise RuntimeError("the segmenter did not return the whole text")
    return out


def _cjk(c: str) -> bool:
    return "\u4e00" <= c <= "\u9fff"


# ---------------------------------------------------------------------------------------------
# names

# Words that start with a surname character, are not in jieba's dictionary as common words, and
# still are not names here: medical and everyday words the dictionary lacks or tags as a person.
NOT_NAMES: frozenset[str] = frozenset("""
仲景 张仲景 华佗 扁鹊 孙思邈 李时珍 葛洪 白芍 白芷 白术 白及 白果 黄芩 黄柏 黄芪 黄精 甘草 甘遂 杜仲 柴胡 桑叶 桑枝
温开水 温水 安康 健康 平安 顺利 快乐 幸福 吉祥 如意 万事 康泰 石斛 石淋 石膏 姜半夏 法半夏 清半夏 连翘 金银花 金钱草 党参 丹参 何首乌 苏叶 薄荷 车前 车前子 牛黄 麦冬 秦艽 防风 龙骨 牡蛎 安宫 安神 安眠
安胎 安慰 安抚 明目 利尿 利湿 宁心 宁神 康复 康宁 温补 温经 温阳 温通 温和 温水 温度 和胃 和解 宣肺 通便 江湖
曲美 曲安 苏打 毛孔 毛囊 毛发 包皮 包块 戴套 关元 关节 任脉 督脉 冲脉 阳虚 阴虚 阳明 少阳 太阳 太阴 厥阴 少阴
钟乳 金刚 金黄 黄褐 黄白 白斑 白带 白睛 黄疸 黄痰 白痰 白苔 黄苔 齐全 全面 全身 程度 祝您 祝你 谢谢 谢您 于是
常见 平时 平常 平躺 时间 时候 方面 方法 余下 何时 和平 安全 安静 易感 易怒 易于 伍用 严重 严格 雷同 高热 高烧
钱包 文中 明显 明确 明白 司机 马上 周岁 周期 周围 孟鲁 孟鲁司特 卡松 罗红 罗红霉素 阿莫 阿奇 阿昔 艾司 艾灸 艾叶
房事 房颤 单纯 单侧 单一 施治 施用 项目 路线 凌晨 尤其 蒙脱 蒙脱石 舒张 舒服 舒适 邹缩 冯特 简单 甄别 宫颈 宫腔
宫缩 经期 经血 经量 经前 经后 经络 过敏 过度 红肿 红疹 红斑 史料 雷诺 欧莱雅 乐亦康 爱赛平 汤药 汤剂 左侧 右侧
左边 右边 左右 查明 查体 查出 修正 修复 米粉 米汤 姜汤 姜茶 黑木耳 黑芝麻 雪梨 燕麦 丁香 丁桂 胡椒 胡子 沙眼
沙参 葛根 柏子 柏子仁 柯萨奇 毕业 成分 成人 成年 成长 成熟 向来 元素 夏季 秋季 冬季 春季 金属 银屑 龙胆 包括
梁丘 季节 应当 应该 应用 能量 伊曲 伊曲康唑 司可 计量 计算 相当 相应 相关 谷维素 谷物 苗条 武器 申请 焦虑 焦急
王老吉 黄氏 白云山 马应龙 汤臣 汤臣倍健 同仁堂 江中 金嗓子 华素 白加黑 葵花 修正 仁和 哈药 扬子江 石药 齐鲁 恒瑞
吴太 叶开泰 陈李济 胡庆余堂 雷允上 童涵春 蔡同德 方回春堂 施尔康 伊可新 贝因美 飞鹤 君乐宝 伊利 蒙牛 美赞臣 惠氏 雀巢
雅培 合生元 贝亲 娃哈哈 康师傅 白大夫 史克 严迪 易坦静 沐舒坦 贺普丁 贺维力 韦瑞德 康恩贝 康缘 步长 以岭 万通 九芝堂
东阿 福牌 朗迪 钙尔奇 迪巧 纽崔莱 安利 白云 江小白 田七 甘霖 金戈 万艾可 希爱力 柯尼卡 宋河 洪湖 许氏 范志
贾第 郎中 韩式 欧式 美式 日式 中式 法式 王道 孙子 孙女 斯达舒 修正 那敏 黄那敏 周黑 周黑鸭 黎明
""".split())

# Characters that end a given name: particles, pronouns, verbs and clinical words (a smaller set than
# the rules' STOP_CHARS, which also holds name characters such as 克, 能, 明 that a cue makes safe).
NOT_GIVEN: frozenset[str] = frozenset(
    "的了是在和跟与及或就也都还又再才已很太最吗呢吧啊呀哦嗯么啥怎什谁哪这那该每各某其此我你您他她它们说问看找请帮"
    "谢因所如虽即比之前后里外上下左右间次个岁年日周号点时分今昨早晚午夜男女患病症状医院科室诊疗治检查化验药片粒支"
    "瓶升做去来到从于给被把对往回转住出入起过得着没不无要想会应当让叫吃喝服用打挂约询烧咳痛痒肿热冷血尿便等内陪"
    "类型状性素碱酸酶胺醇酮脂糖膏汤丸散粉液有加则肩腰腿脚头眼耳鼻牙胸背腹胃肝肾肺肠颈臂膝踝骨肤手发，"
    "村镇乡屯寨区县市省州路街巷副氏式")

# Given-name characters that are also word characters kept out of names above (维生素, 有点, 想要): a
# name holds them only where the segmenter reads the whole candidate as one person (廖素芬, 王有才, 李想),
# and not last in a two-character given name (叶黄素, 白介素 are nutrients).
_SOFT_NOT_GIVEN = frozenset("素有想发")

# Relatives and children named by a kinship word glued to the surname by the segmenter (爸周 + 宏伟, 娃陆琳)
_KIN_CHARS = frozenset("爸妈哥姐弟妹娃婆爷奶叔姨舅姑嫂下")     # 下: 看下 + 罗勇, 看下马 + 瑞

# Titles and roles right before a name (经理杨建新, 医生刘平, 护士长王芳, 总工程师曹新民).
_NAME_LEFT_WORDS = re.compile(r"(?:医生|大夫|医师|护士|护士长|主任|教授|院长|老师|经理|总监|工程师|记者|主席|书记|局长|部长|"
                              r"科长|处长|厂长|校长|队长|班长|组长|律师|会计|司机|师傅|同事|同学|朋友|邻居|室友|丈夫|妻子|"
                              r"老公|老婆|爱人|儿子|女儿|爸爸|妈妈|父亲|母亲|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆|患儿|"
                              r"宝宝|孩子|小孩|亲戚|家人|病友|联系人|负责人|公公|婆婆|岳父|岳母|丈母娘|老丈人|表哥|表姐|"
                              r"表弟|表妹|堂哥|堂姐|堂弟|堂妹|姐夫|妹夫|嫂子|弟媳|闺蜜|老伴|外甥|外甥女|侄子|侄女|孙子|"
                              r"孙女|外孙|外孙女|舅舅|姑姑|阿姨|叔叔|伯伯|姨妈|舅妈|婶婶|领导|老板|对象|男朋友|女朋友|男友|"
                              r"女友|未婚夫|未婚妻|我姐|我哥|我弟|我妹)$")

_SAY_AFTER = re.compile(r"表示|介绍|认为|指出|称|告诉|透露|回答|觉得|感觉|发现|说过|提到|问|答|也|还|曾|正|将|已|被|对|把|给")

_NAME_RIGHT_WORDS = re.compile(r"(?:今天|昨天|明天|现在|刚才|最近|一直|已经|目前|这次|上次|这边|那边|一起|两人|"
                               r"发来|发了|发给|打来|打了|打电话|过来|回来|来了|去了|值班|接诊|前年|去年|今年|那年|当年|"
                               r"前天|上个月|上周|这两天|这几天|两个人|俩|敬上|拜上|谨上|"
                               r"女士|先生|同志|老师|阿姨|叔叔|爷爷|奶奶|妈妈|爸爸|家属|本人|患者|病人|你好|您好)")
_DRUG_FORM_AFTER = re.compile(r"(?:乳膏|软膏|膏|片|胶囊|颗粒|口服液|注射液|注射|针|喷雾|气雾|滴眼|滴耳|滴鼻|滴剂|凝胶|搽剂|"
                              r"洗剂|栓|丸|散|贴|混悬|糖浆|缓释|控释|肠溶|分散|咀嚼|泡腾|益生菌|等药)")
_BRAND_RX = re.compile("|".join(sorted((b for b in DRUG_BRANDS if len(b) >= 3 or b in NOT_NAMES), key=len, reverse=True)))
_BRAND_FIRST = frozenset(b[0] for b in DRUG_BRANDS)
# what follows a drug and never a person (安博维效果怎么样, 蒙诺的副作用, 乐松怎么吃)
_DRUG_CONTEXT_AFTER = re.compile(r"(?:的)?(?:效果|疗效|药效|副作用|不良反应|说明书|怎么吃|怎么用|怎么服用|一天几|每天几|一次几|"
                                 r"多少钱|能不能吃|能吃吗|可以吃吗|能一起吃|剂量|用量|吃多久|用多久|停药|减量|加量|过敏|"
                                 r"胶囊|片剂|缓释|控释|针剂|注射|口服|外用|软膏|乳膏|滴眼液|喷剂)")
_DRUG_VERB_BEFORE = re.compile(r"(?:用|服|吃|涂|抹|喷|含|口服|外用|使用|服用|加用|联用|联合|配合|开具|开了|换成|换用|停用|祝|祝您|祝你|喝|多喝)$")
_DRUG_BRAND = re.compile(r"(?:片|膏|液|剂|囊|粒|丸|散|松|林|平)\s*[(（]$")
_DISEASE_AFTER = re.compile(r"综合征|综合症|氏症|病(?![人房历友区床号])|的时候")   # also 黎明的时候: a time
_PLACE_SUFFIX_CHARS = frozenset("村镇乡屯寨区县市省州路街巷")
_VERB_AFTER_NAME = frozenset("开去来说讲打问拿送陪带找看买交签填约挂讲提")
_TITLE_AFTER = re.compile(r"医生|大夫|医师|主任|主治|教授|院长|护士|药师|技师|老师|先生|女士|小姐|同志")


def _surname_len(t: str, p: int) -> int:
    if t[p:p + 2] in COMPOUND_SURNAMES:
        return 2
    return 1 if t[p] in SURNAMES else 0


def name_score(t: str, start: int, end: int, *, tagged_person: bool, place: bool,
               tagged_surname: bool = False) -> float:
    """Evidence that ``t[start:end]`` is a person's name (higher is more likely; see the module doc).

    Each term is a log-odds-like weight: the tagger's word (+2.5 when it reads a person), each
    given-name character (+1 if common in names, -1.5 if not), the surname (+0.5 common, -1 rare,
    -2.5 a function word such as 和/于/都), the edges (+1 each for punctuation, a sentence edge or a
    word that goes with people), minus log10 of the dictionary frequency (a common word is not a name).
    """
    cand = t[start:end]
    sl = 2 if cand[:2] in COMPOUND_SURNAMES else 1
    given = cand[sl:]
    soft = len(given) == 2 and given[0] in _SOFT_NOT_GIVEN and given[1] in GIVEN_NAME_CHARS   # 王有才, 张有福
    folk = given in FOLK_GIVEN_NAMES                  # 韩来福, 柴铁柱, 龙红旗: a whole given name of its era
    if not given or len(given) > 2 or not folk and any(c in NOT_GIVEN and not ((tagged_person or soft) and c in _SOFT_NOT_GIVEN
                                                                   and (k == 0 or len(given) == 1))
                                          for k, c in enumerate(given)):
        return -9.0
    if cand in NOT_NAMES or cand in COMMON_WORDS or cand[:3] in COMMON_WORDS or place or cand in DRUG_BRANDS \
            or cand[:2] in DRUG_BRANDS or t[start:start + 4] in DRUG_BRANDS:
        return -9.0
    prefix_word = cand[:2] in NOT_NAMES or cand[:2] in COMMON_WORDS
    if prefix_word and (len(cand) == 2 or sl == 2 or not tagged_person or given[-1] not in GIVEN_NAME_CHARS):
        return -9.0
    if len(given) == 2 and given[0] == given[1] == cand[0]:
        return -9.0
    if len(given) == 1 and given == cand[0]:
        return -9.0                                   # 常常, 明明: reduplicated words
    score = 2.5 if tagged_person else 1.5 if tagged_surname else 0.0
    if soft and not tagged_person:
        score -= 1.0
    if prefix_word:
        score -= 3.0                                  # 王子 + 涵: a word that a given-name character extends
    score += 2.0 if folk else sum(1.0 if c in GIVEN_NAME_CHARS else 0.0 if soft and k == 0 else -1.5
                                  for k, c in enumerate(given))
    sur = cand[:sl]
    if sur in AMBIGUOUS_SURNAMES and sl == 1:
        score -= 2.5
    elif sl == 2 or sur in COMMON_SURNAMES:
        score += 0.5
    elif sur not in MID_SURNAMES:
        score -= 1.0
    if not tagged_person and end < len(t) and word_frequency(t[end - 1:end + 1]) >= 2000:
        score -= 3.0                                  # 易消 + 化, 高可 + 能: the last character starts a word
    freq = word_frequency(cand)
    if freq:
        score -= math.log10(freq + 1) + 0.5
    if len(given) == 2 and not tagged_person and (gfreq := word_frequency(given)) >= 10:
        score -= math.log10(gfreq) / 2              # 高+水平, 黄+蓝光: a surname character before a word
    if _DISEASE_AFTER.match(t, end):
        return -9.0                                   # 马凡综合征, 唐氏: a disease named after a person is no person here
    return score + _context_score(t, start, end)


def _context_score(t: str, start: int, end: int) -> float:
    """The words around a name candidate: -4 for a drug's (莫米松乳膏, 钠片（安必生）, 服用舒敏康), +1 for
    each edge that goes with people (punctuation, 和/找 before, 的/说 or a title after), -1 before a word
    that a title makes (当时医生)."""
    score = 0.0
    if _DRUG_FORM_AFTER.match(t, end) or _DRUG_CONTEXT_AFTER.match(t, end) or _DRUG_BRAND.search(t, max(0, start - 3), start) \
            or _DRUG_VERB_BEFORE.search(t, max(0, start - 2), start):
        score -= 4.0
    prev = t[start - 1] if start else ""
    if not prev or not _cjk(prev) or prev in NAME_LEFT or _NAME_LEFT_WORDS.search(t, max(0, start - 3), start) \
            or t[max(0, start - 2):start] in PERSON_VERBS:
        score += 1.0
    elif t[max(0, start - 2):start] in BEFORE_TITLE_WORDS:
        score -= 1.0
    nxt = t[end] if end < len(t) else ""
    if not nxt or not _cjk(nxt) or nxt in NAME_RIGHT or _NAME_RIGHT_WORDS.match(t, end) or _TITLE_AFTER.match(t, end) \
            or _SAY_AFTER.match(t, end):
        score += 1.0
    return score


def _name_candidates(t: str, toks: Sequence[Token], gaz: Gazetteer) -> list[tuple[int, int, float]]:
    """(start, end, score) of the best candidate at every token that starts with a surname."""
    out: list[tuple[int, int, float]] = []
    n = len(toks)
    for i, tok in enumerate(toks):
        start = tok.start
        if tok.word[0] not in SURNAMES and tok.word[:2] not in COMPOUND_SURNAMES:
            # the segmenter glued a word that takes a person to the surname after it (带张 + 英去, 带高敏,
            # 替黎欢): a name may start on the token's second character when the token is no dictionary word
            w = tok.word
            if len(w) < 2:
                continue
            if (w[0] in NAME_LEFT or w[0] in _KIN_CHARS) and (w[1] in SURNAMES or w[1:3] in COMPOUND_SURNAMES):
                k = 1
            elif len(w) >= 3 and w[2] in SURNAMES and _NAME_LEFT_WORDS.search(w[:2]):
                k = 2
            else:
                continue
            if word_frequency(tok.word) >= 50 and not (k == 2 and tok.end == tok.start + 3 and i + 1 < n
                                                       and toks[i + 1].tag.startswith("n")):
                continue                              # 孩子王 + 思雨: the name goes on past the word
            start = tok.start + k
        sl = _surname_len(t, start)
        if not sl:
            continue
        inner = start > tok.start
        best: tuple[int, int, float] | None = None
        scored: list[tuple[int, int, float]] = []
        ends = [(toks[j].end, j, 0.0) for j in range(i, min(i + 3, n))]
        if tok.tag in ("nr", "nrfg") and tok.end - start > sl + 1:
            # the segmenter glued the verb after a name into its person word (武晓静开, 邵华去)
            ends += [(e, i, -0.5) for e in range(start + sl + 1, min(tok.end, start + sl + 3))
                     if (t[e] in NOT_GIVEN or t[e] in _VERB_AFTER_NAME) and t[e] not in _PLACE_SUFFIX_CHARS
                     and word_frequency(t[e - 1:e + 1]) < 1000]      # not 易消 + 化: 消化 is a word
        # a name glued to the word after it (朱凤 + 英收): end inside a token, before a name-final word
        ends += [(e, j, -0.5) for j in range(i + 1, min(i + 3, n)) for e in range(toks[j].start + 1, toks[j].end)
                 if t[e] in NAME_RIGHT and toks[j].end - e == 1]
        for end, j, bonus in ends:
            length = end - start
            if length > sl + 2 or length < sl + 1 or not all(_cjk(c) for c in t[start:end]):
                continue
            cand = t[start:end]
            tagged = tok.tag in ("nr", "nrfg") and (j == i or tok.end - start > sl)
            alone = tok.tag in ("nr", "nrfg") and tok.end - start == sl and j > i    # 杨 + 建新: the surname tagged alone
            # 张 + 桂花, 妈王 + 红梅: the given name is the segmenter's person word after the surname
            alone = alone or (j == i + 1 and tok.end - start == sl and toks[j].tag in ("nr", "nrt", "nrfg")
                              and toks[j].end == end and not tagged and t[start] not in AMBIGUOUS_SURNAMES)
            place = gaz.level(cand) is not None
            score = bonus + name_score(t, start, end, tagged_person=tagged, place=place, tagged_surname=alone)
            if inner:
                score -= 0.5
            scored.append((start, end, score))
            if best is None or score > best[2]:
                best = (start, end, score)
        if best is not None:
            # a shorter name that stops before a character no name ends on (严屹 + 宽说) gives way to
            # the longer one that ends at a boundary, when that one passes as a name too
            if best[1] < len(t) and _cjk(t[best[1]]) and t[best[1]] not in NAME_RIGHT:
                longer = [c for c in scored if c[1] > best[1] and c[2] >= NAME_THRESHOLD]
                if longer:
                    best = max(longer, key=lambda c: c[2])
            out.append(best)
    return out


# A child's given name before a parent's title, the way pediatric consultations address a parent
# (红梅妈妈, 莹莹妈妈, 俊俊爸爸): a reduplicated pair or two given-name characters, after a greeting,
# punctuation or the start.
_CHILD_NAME = re.compile(r"(?:^|(?<=[，,。！？!?\s:：])|(?<=你好)|(?<=您好))(?P<n>[\u4e00-\u9fff]{2})(?=妈妈|爸爸|奶奶|爷爷|外婆|外公|家长)")
_NOT_CHILD_NAMES = frozenset("""
宝宝 孩子 小孩 宝贝 儿子 女儿 我家 他家 她家 你家 大家 新手 二胎 准备 孕妇 当了 做了 新生 年轻 单亲 全职 有的 很多 一些
各位 亲爱 这位 那位 家长 学生 病人 患者 姥姥 老公 老婆 爸爸 妈妈
""".split())


_NICKNAME_CUE = re.compile(r"(?:叫|小名|乳名|小名叫|乳名叫|名字是|名字叫|叫做)(?P<n>[\u4e00-\u9fff]{2})(?=[，,。！？!?\s、]|$)")


_TOP_SURNAMES = frozenset("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾")
_OLD_YOUNG = re.compile(r"[老小](?=[\u4e00-\u9fff])")
_KIN_LEFT = re.compile(r"(?:我家|我们家|俺家|咱家|家里|老伴|外公|外婆|爷爷|奶奶|姥姥|姥爷|公公|婆婆|老公|老婆|媳妇|爱人|丈夫|"
                       r"妻子|父亲|母亲|爸爸|妈妈|儿子|女儿|闺女|孩子|宝宝|娃|哥|姐|弟|妹|爸|妈|叔|舅|姨)$")


def _nickname_right(t: str, end: int) -> bool:
    nxt = t[end] if end < len(t) else ""
    return (not nxt or not _cjk(nxt) or nxt in NAME_RIGHT or nxt in "从这那" or _NAME_RIGHT_WORDS.match(t, end) is not None
            or _SAY_AFTER.match(t, end) is not None)


def _nicknames(t: str, toks: Sequence[Token]) -> list[Span]:
    """老张, 小李 (a common surname after 老/小, standing alone, or after a kinship word: 我外公老李,
    老伴老杨) and a pet name after 叫/小名 (朵朵). The whole nickname is masked: 老汤 is how he is known."""
    out = []
    for m in _OLD_YOUNG.finditer(t):
        p = m.start()
        w = t[p:p + 2]
        if w[1] not in COMMON_SURNAMES and not (w[1] in MID_SURNAMES and _KIN_LEFT.search(t, max(0, p - 3), p)) \
                or w[1] in AMBIGUOUS_SURNAMES:
            continue                                  # 老张; 奶奶老万 (a less common surname after a kinship word)
        tok = next((tk for tk in toks if tk.start == p), None)
        tagged = tok is not None and tok.word == w and tok.tag == "nr"
        freq = word_frequency(w)
        if freq >= 1000 or (freq >= 100 and not tagged and w[1] not in _TOP_SURNAMES):
            continue                                  # 老师, 小米, 小时, 老乡: words (老张, 老李 are nicknames)
        if p + 2 < len(t) and _cjk(t[p + 2]) and word_frequency(t[p + 1:p + 3]) >= 1000 \
                and not _NAME_RIGHT_WORDS.match(t, p + 2):
            continue                                  # 小 + 便秘, 老 + 年人: the surname starts a word
        prev = t[p - 1] if p else ""
        left = not prev or not _cjk(prev) or prev in NAME_LEFT or _KIN_LEFT.search(t, max(0, p - 3), p) is not None \
            or t[max(0, p - 2):p] in PERSON_VERBS
        if left and _nickname_right(t, p + 2):
            out.append(Span(p, p + 2, "NAME", DETECTOR))
    for m in _NICKNAME_CUE.finditer(t):
        n = m.group("n")
        if any(c in NOT_GIVEN for c in n) or n in _NOT_CHILD_NAMES or word_frequency(n) >= 100:
            continue
        if n[0] == n[1] or all(c in GIVEN_NAME_CHARS for c in n):
            out.append(Span(*m.span("n"), "NAME", DETECTOR))
    return out


# a relative or child called by a pet name or given name right after the kinship word (我家思远, 孩子壮壮,
# 我媳妇小玲, 老公志明, 娃阿华): a reduplicated pair, 小/阿 + a given-name character, or two given-name
# characters the dictionary does not hold as a word, before a clause edge or a word that goes with people
_KIN_NAME = re.compile(r"(?:我家|我们家|俺家|咱家|孩子|宝宝|娃|儿子|女儿|闺女|老公|老婆|媳妇|爱人|丈夫|妻子|老伴|外公|外婆|我妈|我爸|"
                       r"爷爷|奶奶|父亲|母亲|公公|婆婆|我姐|我哥|我弟|我妹|和姐|和哥|和弟|和妹|和爸|和妈)"
                       r"(?P<n>[\u4e00-\u9fff]{2})")
_NOT_PET_NAMES = frozenset("""
天天 常常 偏偏 刚刚 渐渐 慢慢 往往 仅仅 明明 好好 快快 早早 稍稍 微微 久久 多多 样样 人人 个个 次次 年年 月月 日日 时时
处处 连连 频频 屡屡 纷纷 默默 悄悄 轻轻 静静 乖乖 哥哥 姐姐 弟弟 妹妹 爷爷 奶奶 叔叔 姑姑 舅舅 婆婆 公公 爸爸 妈妈 宝宝
宝贝 小孩 小朋友 小便 小腿 小时 小区 小学 小儿 小姑 小叔 小舅 小姨 阿姨 阿婆 阿公 阿爸 阿妈 小宝 小子 小伙 老人 老家
""".split())


_GREETED_PET = re.compile(r"(?:^|收到[，,\s]|您好[，,\s]|你好[，,\s]|好的[，,\s]|联系)"
                          r"(?P<n>小[\u4e00-\u9fff]|(?P<r>[\u4e00-\u9fff])(?P=r)|阿[\u4e00-\u9fff])")


def _kin_names(t: str) -> list[Span]:
    out = []
    for m in _GREETED_PET.finditer(t):               # 收到，小刚，报告…; 乐乐这几天…: a pet name addressed or opening
        n = m.group("n")
        s, e = m.span("n")
        if n in _NOT_PET_NAMES or n in _NOT_CHILD_NAMES or word_frequency(n) >= 100 or not _nickname_right(t, e):
            continue
        if n[1] in GIVEN_NAME_CHARS:                  # 乐乐, 小刚 (not 痘痘, 泡泡)
            out.append(Span(s, e, "NAME", DETECTOR))
    for m in _KIN_NAME.finditer(t):
        n = m.group("n")
        s, e = m.span("n")
        if n in _NOT_PET_NAMES or n in _NOT_CHILD_NAMES or any(c in NOT_GIVEN for c in n) or not _nickname_right(t, e):
            continue
        if n[0] == n[1] or (n[0] in "小阿" and n[1] in GIVEN_NAME_CHARS) \
                or (all(c in GIVEN_NAME_CHARS for c in n) and word_frequency(n) < 50
                    and _jieba().tag(n)[0][1][:1] not in ("v", "a", "d")):    # 孩子长高: a verb
            out.append(Span(s, e, "NAME", DETECTOR))
    return out


def _child_names(t: str) -> list[Span]:
    out = []
    for m in _CHILD_NAME.finditer(t):
        n = m.group("n")
        if n in _NOT_CHILD_NAMES or (any(c in NOT_GIVEN for c in n) and n[0] != n[1]):
            continue                                  # 糖糖妈妈: a reduplicated pet name may be any character
        if n[0] == n[1] or all(c in GIVEN_NAME_CHARS for c in n):
            out.append(Span(*m.span("n"), "NAME", DETECTOR))
    return out


# Tibetan, Mongolian and Uyghur given-name elements, from naming practice in Tibet, Qinghai, Inner Mongolia
# and Xinjiang. A Tibetan or Mongolian name is usually two of them with no surname (次仁卓玛, 乌兰图雅); a
# Uyghur name is one given name, written in characters chosen for their sound (阿依古丽, 买买提, 热依拉).
_ETHNIC_ELEMENTS = frozenset("""
次仁 卓玛 格桑 梅朵 多吉 扎西 旺堆 达瓦 尼玛 央金 拉姆 德吉 平措 索朗 洛桑 强巴 旦增 顿珠 普布 白玛 巴桑 边巴 曲珍 措姆
仁增 益西 丹增 旺姆 央宗 卓嘎 次旦 罗布 拉巴 米玛 贡布 才让 卓玛 吉 桑吉 更登 久美 曲扎 仓决 德庆 玉珍 琼达 次珍 仁青
乌兰 图雅 其其格 斯琴 额尔敦 苏日娜 娜仁 高娃 敖登 格日勒 宝音 朝鲁 巴图 孟和 那日苏 阿拉坦 哈斯 乌力吉 萨仁 查干 巴特尔
图门 吉日嘎拉 乌云 塔娜 萨日娜 其木格 阿古达木 额尔德尼 满都拉 达来 布和 德力格尔 特木尔 格根
阿依 古丽 阿依古丽 买买提 麦麦提 艾力 阿力木 热依拉 古丽娜 努尔 阿不都 阿布都 热合曼 吐尔逊 依明 玉素甫 帕提古丽 迪丽娜
热娜 阿依努尔 米热古丽 祖丽菲亚 再努尔 艾尔肯 库尔班 亚森 伊力哈木 买合木提 吾斯曼 肉孜 托合提 阿迪力 木拉提 努尔兰
哈力克 巴哈尔 阿娜尔 苏比努尔 买尔旦 艾克拜尔 阿卜杜拉 阿里木 如克亚 排尔哈提 叶尔兰 别克 吐尔洪 热比亚 阿不力孜 塔依尔
""".split())
_ETHNIC_RX = re.compile("(?=[" + "".join(sorted({e[0] for e in _ETHNIC_ELEMENTS})) + "])(?:"
                        + "|".join(sorted(_ETHNIC_ELEMENTS, key=len, reverse=True)) + "){1,2}")


_ELDER_AFTER = re.compile(r"大爷|大妈|大叔|大娘|阿姨|叔叔|奶奶|爷爷|住院医师|主治医师")


def _ethnic_names(t: str) -> list[Span]:
    """A Tibetan, Mongolian or Uyghur name on word edges: two name elements in a row (次仁卓玛, 乌兰图雅),
    or one element of three or more characters that no dictionary holds (其木格, 买买提, 热依拉)."""
    out = []
    for m in _ETHNIC_RX.finditer(t):
        s, e = m.span()
        n = m.group()
        if len(n) < 3 or not (_nickname_right(t, e) or _TITLE_AFTER.match(t, e) or _ELDER_AFTER.match(t, e)):
            continue
        if n in _ETHNIC_ELEMENTS and not _left_edge(t, s):
            continue                                  # one element alone: only on a left edge too
        if len(n) >= 4 or n in _ETHNIC_ELEMENTS:
            out.append(Span(s, e, "NAME", DETECTOR))
    return out


# ---------------------------------------------------------------------------------------------
# person slots: positions in a sentence where only a person can stand, whatever the string there is
# (于洋 and 高峰 are words, 热依拉 has no surname). Chinese marks them on the right with what is said
# about a person — an age or a relation in brackets (于洋（72岁）, 储金花（父亲，72岁）), 的 + a kinship
# word after 我是 (我是廖和平的爱人), a companion's 陪着/一起 (我跟孟石头一起), a recipient's 收, a phone
# number, a title after a verb of seeing (见高山主任) — and on the left with a field label (收件人, 备注,
# 代问：) or a department before a signature (心内科 齐心).

# two-character words right before a person (with the kinship words of _KIN_LEFT and NAME_LEFT characters)
_PERSON_BEFORE_2 = frozenset("""
我是 我叫 我跟 我和 他是 她是 朋友 邻居 同事 同学 室友 家属 病人 患者 联系 找到 麻烦 告诉 通知 还有 以及 或者 老乡 你好 您好
我系
""".split())
_AGE = r"(?:\d{1,3}|[一二三四五六七八九十几两]{1,3})(?:来|多)?\s*(?:周岁|岁)"
_RELATION = (r"(?:本人|我|爱人|妻子|丈夫|老公|老婆|老伴|父亲|母亲|爸爸|妈妈|儿子|女儿|孙子|孙女|外孙|外孙女|爷爷|奶奶|外公|外婆|"
             r"姥姥|姥爷|哥哥|姐姐|弟弟|妹妹|公公|婆婆|岳父|岳母|家属|患者|病人|收)")
# what comes right after a person's name and after nothing else (the name ends where it starts)
_PERSON_AFTER = re.compile(
    r"(?=[\s（(,，的滴家陪一医大主教老您你推介收叔阿敬拜谨按多18+])(?:"      # the first characters of the marks: a fast test
    r"\s*[（(]\s*(?:" + _RELATION + r"\s*[,，、]?\s*)?(?:" + _AGE + r"|" + _RELATION + r")\s*[,，、)）]"
    r"|[,，]\s*" + _AGE + r"\s*[,，、;；)）]|[ \t]+" + _AGE + r"|(?:医生|大夫|主任|教授|老师)?(?:您好|你好)"
    r"|(?<=^.{2})(?:医生|大夫|主任|教授)(?=[，,])|(?<=^.{3})(?:医生|大夫|主任|教授)(?=[，,])"
    r"|\s*(?:叔|阿姨|大爷)?[（(](?:电话|手机)"
    r"|(?:的|滴)(?:老婆|老公|爱人|妻子|丈夫|女儿|儿子|外甥|外甥女|侄子|侄女|家属|孙子|孙女|媳妇|闺女|姐姐|妹妹|哥哥|弟弟)"
    r"|家属(?![院楼区])|\s*[（(]?收[)）]?(?=[\s，,。！!～~]|$)"
    r"|\s*(?:陪着|陪我|一起去|一起陪)"
    r"|\s*[（(]?\s*(?:\+?86[-\s]?|[（(]\+?86[)）]\s?)?1[3-9]\d[\d\s-]{8,11}(?!\d)"
    r"|(?:医生|主任|教授)团队|(?:推荐|介绍)(?:的|我|了)|敬上|拜上|谨上"
    r"|(?P<addr>按时吃药|多保重|的(?:片子|单子|报告|检查单|化验单)(?:我)?看))")
# a label or a verb of seeing before a person (收件人买买提, 备注柴铁柱, 代问：于坤, 见高山主任)
_FIELD_LABELS = r"家属|备注|代问|联系人|送检医生|收件人|收货人|名字是|账号是|验证消息写|病人"
"""Field labels a person's name follows (收件人：, 备注, 代问：): both the left edge of a person slot
(:data:`_PERSON_LABEL`) and a name after its label (:data:`_NAME_LABEL`) read them."""
_PERSON_LABEL = re.compile(r"(?:" + _FIELD_LABELS + r"|就诊人|陪诊人|管床的是|我是)\s*[:：]?\s*$")
_SEE_TITLE = re.compile(r"(?:(?<![寻查])找|见|约|挂[的滴]?|联系|问问|科的|转给)(?P<n>[\u4e00-\u9fff]{1,4}?)(?:[的滴]号|副主任医师|主任医师|住院医师|主治医师|副主任|院长|"
                        r"副教授|主任|教授|医生|大夫|医师|老师|护士长|护士)")
_DEPT_SIGNATURE = re.compile(r"(?:科[ \t]*|——\s*)(?P<n>[\u4e00-\u9fff]{2,4})(?=[ \t]*(?:\n|$))")
# characters no name holds in such a slot (particles, pronouns, measure and clinical words)
_SLOT_STOP = frozenset("的了是在跟与及或就也都还又再才已很我你您他她它们这那哪谁啥个位些种科院室医病药岁号年月日周次点"
                       "吗呢吧啊呀说问看找请去到从给被把对要想会能没不好多少大家人烧痛咳疼痒肿吐泻晕酸胀麻式复治压")
_NOT_PERSON = frozenset("""
患者 病人 本人 家属 孩子 宝宝 小孩 老人 老公 老婆 爱人 医生 大夫 专家 主任 护士 朋友 同事 邻居 自己 大家 我们 他们 她们
儿子 女儿 父亲 母亲 爸爸 妈妈 爷爷 奶奶 外公 外婆 姥姥 姥爷 家里 家人 亲戚 对象 老师 同学 领导 先生 女士 小姐 你们 别人 老乡
主治 值班 管床 家庭 责任 接诊 经治 门诊 专科 全科 实习 进修 住院 主管 今天 明天 昨天 每天 天天
年龄 年纪 性别 姓名 信息 住址 地址 科室 职业 民族 籍贯 婚姻 电话 手机 单位 孙子 孙女 身高 体重 血型 日期 时间 那么
大夫 医师 护士 大家 各位 亲们 宝妈 朋友们
""".split())
_TRANSLIT_CHARS = frozenset("阿依古丽买麦提热拉娜迪努尔艾力木吐逊明玉素甫帕祖菲亚再肯库班森伊哈合吾斯曼肉孜托克巴其格特乌兰"
                            "图雅琴额敦苏日仁高娃敖登勒宝音朝鲁那萨查干门达来布和德次卓玛桑梅朵多吉扎西旺堆瓦尼央金姆措平"
                            "索朗洛强旦增顿珠普白边曲才让罗更久美仓决庆琼青根坦")


def person_string(x: str, *, single: bool = False) -> bool:
    """Whether ``x``, standing where only a person can, reads as a name: a surname and one or two
    given-name characters (dictionary words too: 高峰, 和平), 小/老 + a surname, a transliterated
    name (热依拉, 次仁), or with ``single`` a surname alone (见熊教授)."""
    if not x or x in _NOT_PERSON or not all(_cjk(c) for c in x) or len(x) == 2 and x[0] == x[1]:
        return False                                  # 谢谢, 常常: reduplicated words
    if len(x) == 1:
        return single and x in SURNAMES
    if word_frequency(x) >= 10000:
        return False                                  # 信息, 单位: the commonest words are never names
    if len(x) >= 2 and all(c in _TRANSLIT_CHARS for c in x) and (len(x) >= 3 or word_frequency(x) < 100):
        return True
    if len(x) == 2 and x[0] in "小老" and (x[1] in SURNAMES or x[1] in GIVEN_NAME_CHARS) and x[1] not in _SLOT_STOP:
        return word_frequency(x) < 300
    sl = 2 if x[:2] in COMPOUND_SURNAMES else 1 if x[0] in SURNAMES else 0
    given = x[sl:]
    return bool(sl) and 1 <= len(given) <= 2 and (given in FOLK_GIVEN_NAMES or given[:1] * 2 == given
                                                   or not any(c in _SLOT_STOP for c in given))


# a label or a role right before a name, the name then running to the clause's end (家属韩有才, 备注：邱秋菊,
# 信息如下：马来福 证件号…, 随访护士胡蝶，, 找宇文刚就行, 我同事何来福 她…)
_NAME_LABEL = re.compile(r"(?:" + _FIELD_LABELS + r"|信息如下|要求写|"
                         r"随访护士|护士|我同事|我朋友|我邻居|同事|找|看过的|门诊的|(?<=[染泌儿外内妇骨眼])科|"
                         r"(?P<strong>检验者|审核者|检验人|审核人|丈夫|妻子|主治医师|她叫|他叫|名叫|@))[:：]?[ \t]*"
                         r"(?P<n>[\u4e00-\u9fff]{2,6})")
_PARTICLES = frozenset("的了是在我你他她它这那吗呢吧啊呀说")
_LABEL_TAIL = re.compile(r"(?:就行|就好|本人|叔叔|叔|阿姨|大爷|收|的|滴|医生|大夫|主任|教授|老师|护士|院长)$")


# a form's name field as OCR reads it (姓名：张 志华, 送检医生： 刘晓 丽, 审核药师【萨仁□娃】, 转诊医生 海来阿木):
# the label, then two to four characters with at most one space or unreadable mark inside
_FORM_NAME = re.compile(r"(?:姓\s*名|患者姓名|交款人|送检医生|检\s*验\s*(?:医师|者)?|经治医师|转诊医生|审核药师|审\s*核|调配|"
                        r"核对/发药|记录医师|谈话医师|医\s*师|医\s*生)(?:\s*[:：][ \t\u3000]*|[ \t\u3000]+)"
                        r"(?P<n>[\u4e00-\u9fff](?:[ □]?[\u4e00-\u9fff]){1,3})(?=[ \t\u3000]{1,}|\s*[\n（(]|$)")


def _form_names(t: str) -> list[Span]:
    out = []
    for m in _FORM_NAME.finditer(t):
        n = m.group("n")
        flat = n.replace(" ", "").replace("□", "")
        if 2 <= len(flat) <= 4 and len(n) - len(flat) <= 1 and flat not in _NOT_PERSON \
                and not any(c in _PARTICLES for c in flat) \
                and (person_string(flat) or given_string(flat, 1000) or len(flat) == 3 and word_frequency(flat) == 0
                     or all(c in _TRANSLIT_CHARS or c in _YI_CHARS for c in flat)):
            out.append(Span(*m.span("n"), "NAME", DETECTOR))
    return out


# characters of Yi names (海来阿木, 沙马拉毅, 吉克阿依, 阿西木呷, 俄底伍沙): clan name and given name in sound
_FORM_GATE = re.compile(r"[名医检核配款]")
_YI_CHARS = frozenset("海来阿木沙马拉毅吉克依西呷俄底伍曲比尔日果惹莫色子古体")


def _label_names(t: str) -> list[Span]:
    """A name after a label or a role that ends its clause (see :data:`_NAME_LABEL`)."""
    out: list[Span] = []
    pos = 0
    while (m := _NAME_LABEL.search(t, pos)) is not None:
        pos = m.start() + 1                           # labels may overlap (找您看过的 + 王者)
        s, e = m.span("n")
        if e < len(t) and _cjk(t[e]):
            continue                                  # the clause goes on: not a label's value
        n = m.group("n")
        if (tail := _LABEL_TAIL.search(n)) is not None:
            n = n[:tail.start()]
        if 2 <= len(n) <= 4 and (person_string(n) or m.group("strong") and (
                given_string(n, 1000) or len(n) == 2 and n not in _NOT_PERSON and not any(c in _PARTICLES for c in n))):
            out.append(Span(s, s + len(n), "NAME", DETECTOR))
    return out


# a person named after the role they play for the writer, in apposition (村医福贵说, 科室秘书赵会联系您, 闺蜜朵朵推荐,
# 班主任金老师, 宝宝糖糖的检查单, 楼下孙婶): the role, then a given name, a pet name, a nickname or a
# surname before a title, then what is said about the person
_ROLE_NAME = re.compile(
    r"(?=[村赤卫科秘助随护姥外奶爷班辅导幼同舍室闺邻楼隔拉组工男女孩我俺孙大二宝老爱小姐哥弟妹表堂儿Mm])"   # a fast test
    r"(?:村医|赤脚医生|卫生室的|科室秘书|秘书|助理|随访护士|护士|村里|姥姥|姥爷|外婆|外公|奶奶|爷爷|班主任|辅导员|导师|幼儿园|同桌|舍友|室友|闺蜜|邻居|楼下|隔壁|"
    r"拉长|班长|组长|工友|男朋友|女朋友|孩子爸爸|孩子妈妈|孩子他爸|孩子他妈|我爸|我妈|俺爸|俺妈|俺儿|我孙子|我孙女|"
    r"外孙女|外孙|孙子|孙女|大宝|二宝|宝宝|老伴|老公|老婆|爱人|小姨|姐姐|哥哥|弟弟|妹妹|表哥|表姐|表弟|表妹|堂哥|堂姐|"
    r"我家崽|儿子|女儿|闺女|我先生|"
    r"[Mm]y (?:mom|mother|dad|father|sister|brother|husband|wife|son|daughter) ?)"
    r"(?P<n>[\u4e00-\u9fff]{1,4}?)"
    r"(?=老师|医生|大夫|主任|院长|婶|奶奶|爷爷|大爷|哥|姐|叔|阿姨|说|推荐|介绍|陪|非要|会|一直|让|在|也|要|带|建议|今年|家推|"
    r"的(?![\u4e00-\u9fff])|"
    r"上周|昨天|今天|前天|走了|的检查|电话|[ \t，,。、！!？?]|\s*(?:\d{1,3}|[一二三四五六七八九十两])\s*(?:岁|个月|周岁))")
_ROLE_TITLE_AFTER = re.compile(r"老师|医生|大夫|主任|院长|婶|奶奶|爷爷|大爷|哥|姐|叔|阿姨|会|[，,]\s*\+?\d")


def given_string(x: str, limit: int = 100) -> bool:
    """Whether ``x`` reads as a given or pet name without a surname (福贵, 糖糖, 小旺, 阿明, 晓彤):
    a reduplicated pair, 小/老/阿 + a character, or two given-name characters that are no common word."""
    if len(x) != 2 or x in _NOT_PERSON or x in _NOT_PET_NAMES or x in _NOT_CHILD_NAMES or not all(_cjk(c) for c in x):
        return False
    if x in FOLK_GIVEN_NAMES:
        return True
    if x[0] == x[1]:
        return x[0] not in _PARTICLES and word_frequency(x) < max(400, limit)   # 糖糖, 点点: a pet name, any character
    if any(c in _SLOT_STOP or c in NOT_GIVEN for c in x):
        return False
    if x[0] in "小老阿":
        return word_frequency(x) < 100
    return all(c in GIVEN_NAME_CHARS for c in x) and (x in FOLK_GIVEN_NAMES or word_frequency(x) < limit)


def _role_names(t: str) -> list[Span]:
    """Names in apposition to a role (see :data:`_ROLE_NAME`)."""
    out: list[Span] = []
    for m in _ROLE_NAME.finditer(t):
        n = m.group("n")
        s, e = m.span("n")
        if len(n) == 1 or n in COMPOUND_SURNAMES:    # 王 + 大姐, 欧阳 + 老师: a surname alone before a title
            ok = n in SURNAMES and n not in AMBIGUOUS_SURNAMES and _ROLE_TITLE_AFTER.match(t, e) is not None
        else:
            ok = person_string(n) or given_string(n)
        if ok:
            out.append(Span(s, e, "NAME", DETECTOR))
    return out


# a name in Latin letters after an English kinship word or title, or a Chinese role (my mom Sun Xiuying,
# Dr. Huang, 助理Tony老师, 宝宝Jason)
_LATIN_PERSON = re.compile(r"(?:\b[Mm]y (?:mom|mother|mum|dad|father|husband|wife|son|daughter|grandma|grandpa|"
                           r"grandmother|grandfather|sister|brother)|\bDr\.?|\bMr\.?|\bMrs\.?|\bMs\.?|"
                           r"助理|秘书|护士|宝宝|孙子|孙女|儿子|女儿|老师|他叫|她叫|名叫)\s*(?P<n>[A-Z][a-z]{1,12}(?: [A-Z][a-z]{1,12})?)(?![A-Za-z])")


def _latin_persons(t: str) -> list[Span]:
    return [Span(*m.span("n"), "NAME", DETECTOR) for m in _LATIN_PERSON.finditer(t)] if _ASCII_UPPER.search(t) else []


_ASCII_UPPER = re.compile(r"[A-Z][a-z]")


def _left_edge(t: str, p: int) -> bool:
    """Whether a name may start at ``p``: the text's start, a non-Chinese character, a character or
    word that goes before people (和, 找, 我是, 朋友), a kinship word (我爸), or a label."""
    if p == 0 or not _cjk(t[p - 1]) or t[p - 1] in NAME_LEFT:
        return True
    return t[max(0, p - 2):p] in _PERSON_BEFORE_2 or _KIN_LEFT.search(t, max(0, p - 3), p) is not None \
        or _PERSON_LABEL.search(t, max(0, p - 6), p) is not None


def _slot_names(t: str) -> list[Span]:
    """Names in person slots (see above): the longest string of 2-4 characters before a right-hand
    mark that starts on a left edge and reads as a name; a name after a verb of seeing and before a
    title; the name closing a signature line after its department."""
    out: list[Span] = []
    for m in _PERSON_AFTER.finditer(t):
        e = m.start()
        for k in (4, 3, 2):
            s = e - k
            if s >= 0 and person_string(t[s:e]) and _left_edge(t, s):
                out.append(Span(s, e, "NAME", DETECTOR))
                break
        else:                                         # 翠花你好，我是…; 多多按时吃药: a given name the reply opens with
            s = e - 2
            if s >= 0 and (s == 0 or t[s - 1] in "\n ]】" or t[max(0, s - 4):s] in ("不客气，", "不客气,")) \
                    and (t.startswith(("你好", "您好"), e) or m.group("addr")) \
                    and (given_string(t[s:e], 5000) or person_string(t[s:e])):
                out.append(Span(s, e, "NAME", DETECTOR))
    for m in _SEE_TITLE.finditer(t):
        if person_string(m.group("n"), single=True):
            out.append(Span(*m.span("n"), "NAME", DETECTOR))
    for m in _DEPT_SIGNATURE.finditer(t):
        if person_string(m.group("n")):
            out.append(Span(*m.span("n"), "NAME", DETECTOR))
    out += _form_names(t) if _FORM_GATE.search(t) else []
    return out + _label_names(t) + _role_names(t) + _latin_persons(t)


# An online consultation's signature: —— hospital, department, doctor (——哈医大二院 肿瘤科 谢伟,
# ——附一院 骨科 沈): the hospital before the department, the surname or name after it
_SIGNATURE = re.compile(r"(?:——|--|—)\s*(?P<h>[^\s，,。！!？?:：；;]{2,16}?)\s*(?P<d>[\u4e00-\u9fff]{1,6}科)\s*"
                        r"(?P<n>[\u4e00-\u9fff]{1,4})?(?=[\s，,。！!～~\[（(]|$)")


def _signature(t: str, category: str) -> list[Span]:
    if "—" not in t and "--" not in t:
        return []
    out = []
    for m in _SIGNATURE.finditer(t):
        if category == "HOSPITAL" and not generic_hospital_phrase(m.group("h") + "医院"):
            out.append(Span(*m.span("h"), "HOSPITAL", DETECTOR))
        n = m.group("n")
        if category == "NAME" and n and (n[0] in SURNAMES or n[:2] in COMPOUND_SURNAMES):
            e = m.start("n") + len(n)
            title = _TITLE_AFTER.search(n)
            if title:
                e = m.start("n") + title.start()
            if e > m.start("n") and not any(c in NOT_GIVEN for c in t[m.start("n") + 1:e]):
                out.append(Span(m.start("n"), e, "NAME", DETECTOR))
    return out


# ---------------------------------------------------------------------------------------------
# places

_ADMIN_END_RX = re.compile("[省市县区旗州盟]")
_PLACE_CUE = re.compile(r"(?:住在|家在|住|来自|老家|老家在|户籍|籍贯|在|到|去|回|是|从|自|搬到|调到|嫁到|定居)$")
# a city's short form naming a dish or a product, not where someone is (兰州拉面, 青岛啤酒, 北京烤鸭)
_PRODUCT_AFTER = re.compile(r"拉面|烤鸭|小吃|火锅|小面|热干面|螺蛳粉|炒饭|米线|米粉|凉皮|肉夹馍|啤酒|白酒|黄酒|老窖|大曲|"
                            r"麻花|汤包|烧鸡|扒鸡|烤肉|烧烤|菜|风味|口味|特产|牌|话|方言|口音|阿胶|铁观音|大红袍|龙井|"
                            r"毛尖|普洱|红茶|绿茶|白茶|枸杞|人参|红枣|火腿|板鸭|管圆线虫|出血热|血吸虫|臭豆腐|腊肉|腊肠|烧饼|"
                            r"鸭脖|卤味|凉粉|酸奶|麻辣烫|豆腐|糕点|月饼|粽子|西瓜霜|盐水鸭|香醋|胡辣汤|葡萄干|板栗|大枣|肉干|"
                            r"醋|鸭|酒")
_PLACE_LAST = frozenset("街道镇乡村屯寨庄区木查路巷同弄")
_HANDLE_AFTER = re.compile(r"[A-Za-z]|\d{5,}")     # 威信wxid_…, 威信16564108003: 微信 misspelt, a handle after it
_PROPER_TAGS = frozenset({"ns", "nr", "nz", "nt", "nrt", "nrfg", "j"})
_VILLAGE_END = frozenset("村屯寨庄堡")
_TOWN_SUFFIX = re.compile(r"(?:街道|镇|乡|村|屯|寨|庄|社区|嘎查|苏木|区|县)$")   # 庄: a north-China village (西黄沟庄)
_ROAD_SUFFIX = re.compile(r"(?:大街|大道|路|街|巷|胡同|里弄)$")
_NOT_TOWN = frozenset("""
城镇 乡镇 集镇 小镇 古镇 重镇 名镇 本镇 该镇 全镇 农村 乡村 山村 渔村 本村 该村 全村 邻村 外村 新村 老村 故乡 家乡 老乡
同乡 他乡 异乡 城乡 下乡 回乡 返乡 思乡 梦乡 水乡 山乡 睡乡 醉乡 社区 小区 街道 一村 二村 三村 度假村 养老村 奥运村 地球村
村庄 山庄 农庄 饭庄 钱庄 茶庄 布庄 酒庄 票庄 庄园 端庄 新庄 老庄 田庄 庄庄 坐庄 做庄 庄家 山寨 营寨 城寨 村寨
城区 市区 郊区 病区 景区 园区 山区 牧区 灾区 疫区 矿区 校区 厂区 片区 辖区 地区 老区 新区 误区 禁区 盲区 分区 专区 特区 营区
静区 东区 西区 南区 北区 中区 开发区 保护区 服务区 商业区 住宅区 工业区 生活区 风景区 示范区 试验区 实验区 无人区 高发区
流行区 疫情区 重灾区 安全区 危险区 隔离区 洗浴区 功能区 办公区 候诊区 县城 郡县 州县 该县 本县 全县 我县 外县 邻县 各县
""".split())
_NOT_ROAD = frozenset("""
走路 马路 道路 公路 铁路 线路 思路 出路 进路 来路 去路 一路 半路 上路 岔路 小路 大路 山路 水路 陆路 网路 电路 回路 通路
门路 套路 弯路 近路 远路 老路 新路 后路 前路 退路 心路 末路 迷路 带路 让路 开路 拦路 赶路 问路 领路 引路 绕路 修路 找路
街道 大街 小街 上街 逛街 过街 沿街 当街 临街 满街 一街 路边 路口 路上 路人 路段 路过 胡同
""".split())


def _place_spans(t: str, toks: Sequence[Token], gaz: Gazetteer, policy: TextPolicy) -> list[tuple[Span, bool]]:
    """Places, each with whether it rests on a short form or a suffix only (a name found at the same
    characters wins over those: 邹秀英 is a person, not 秀英区)."""
    out: list[tuple[Span, bool]] = []
    # full names anywhere, by their last character (杭州市, 西湖区, 恩施土家族苗族自治州)
    for m in _ADMIN_END_RX.finditer(t):
        end = m.end()
        for length in gaz.full_lengths:
            if length > end:
                continue
            level = gaz.full_level(t[end - length:end])
            if level is not None:
                if level == "district" or policy.city:
                    out.append((Span(end - length, end, "ADDRESS", DETECTOR), False))
                break
    # short forms the tagger reads as proper nouns (杭州, 萧山), towns, villages and roads
    shorts = _ALL_SHORT()
    for k, tok in enumerate(toks):
        w = tok.word
        if not _cjk(w[0]):
            continue
        if len(w) >= 2 and (w in shorts or w[-1] == "人"):      # a fast test: most words name no place
            short = _short_form_place(t, toks, k, gaz, policy, out)
            if short is not None:
                out.append((short, True))
                continue
        span = _suffixed_place(t, toks, k, gaz) if w[-1] in _PLACE_LAST else None
        if span is not None:
            # a town or village whose suffix sits inside the word (张江镇, 王庄村) is a place, whatever a
            # name candidate says about its first characters
            inside = span.start == tok.start and len(w) >= 3 and w[-1] in "镇乡村屯寨"
            out.append((span, not inside))
    _former_suffixes(t, gaz, out)
    _neighbourhoods(t, toks, gaz, out)
    if "站" in t:
        _stations(t, gaz, out)
    if "Room" in t or "Building" in t or "Flat" in t:
        out.extend((Span(*m.span(), "ADDRESS", DETECTOR), False) for m in _ENGLISH_ADDRESS.finditer(t))
    if policy.city:
        _cued_short_places(t, out)
    _compounds_lived_in(t, out)
    if " " in t:
        _labelled_compounds(t, out)
    return out


def _short_form_place(t: str, toks: Sequence[Token], k: int, gaz: Gazetteer, policy: TextPolicy,
                      out: list[tuple[Span, bool]]) -> Span | None:
    """A city or county named by its short form at token ``k``, where the tag or the words around it
    make it a place (杭州 tagged a place, 河南 + 周口, 从大连, 杭州人, 南通 + 海门); None for a product
    (桂林西瓜霜) or a handle after a misspelt 微信 (威信wxid_…)."""
    tok = toks[k]
    w = tok.word
    if len(w) < 2 or not (w in _ALL_SHORT() or w in gaz.district_short or w[-1] == "人"):
        return None                                   # most words: no place at all (a fast test)
    city = w in gaz.city_short and policy.city
    if (w in gaz.city_short or w in gaz.district_short) and (_PRODUCT_AFTER.match(t, tok.end)
                                                             or _HANDLE_AFTER.match(t, tok.end)):
        return None
    whole = Span(tok.start, tok.end, "ADDRESS", DETECTOR)
    if policy.city and w in _ALL_SHORT() and _after_province_or_label(toks, k, gaz):
        return whole                                  # 吉林 四平, 广东 东莞: even a short form that is a word
    if city and tok.tag in ("n", "j") and k > 0 and (
            gaz.level(toks[k - 1].word) == "province" or _PLACE_CUE.search(toks[k - 1].word)):
        return whole                                  # 河南 + 周口 (tagged a noun)
    if city and _city_in_context(t, toks, k, gaz):
        return whole                                  # 从大连搬到, 保定 + 涿州市
    if len(w) >= 3 and w[-1] == "人" and (w[:-1] in gaz.city_short and policy.city
                                           or w[:-1] in gaz.district_short or gaz.full_level(w[:-1])):
        return Span(tok.start, tok.end - 1, "ADDRESS", DETECTOR)     # 杭州人: where one is from
    if tok.tag in _PROPER_TAGS and (city or w in gaz.district_short and tok.tag in ("ns", "nr", "nz")):
        return whole
    if w in gaz.district_short and k > 0 and (
            gaz.level(toks[k - 1].word) is not None or any(p.end == tok.start for p, _ in out)):
        return whole                                  # 南通 + 海门: a county after its city
    return None


def _former_suffixes(t: str, gaz: Gazetteer, out: list[tuple[Span, bool]]) -> None:
    """A county's short form with a suffix the gazetteer no longer has (双流县 is 双流区 since 2016)."""
    for m in _ADMIN_END_RX.finditer(t):
        e = m.end() - 1
        for length in (3, 2):
            if e - length >= 0 and t[e - length:e] in gaz.district_short and m.group() in "县区市":
                if word_frequency(t[e - 1:e + 1]) < 1000:     # not 大 + 城市: the suffix makes a word with 城
                    out.append((Span(e - length, e + 1, "ADDRESS", DETECTOR), False))
                break


# a city's short form the tagger reads as another word (大连 an adverb, 保定 a verb): still the city after a
# word that takes a place (在/从/去/到…), before one of its counties (合肥 + 蜀山区), or as where one is from
# (，遵义的，); never the few that are everyday words first (日照 sunshine, 来宾 guests)
_PLACE_PREP = frozenset("在 从 去 到 回 来 住 是 来自 住在 老家 搬到 搬去 回到 家在".split())
_CITY_WORDS = frozenset("日照 来宾 白杨 新星 仙桃".split())
_PLACE_LABELS = frozenset("地区 地址 住址 籍贯 现居地 所在地 所在城市 城市 户籍".split())


def _after_province_or_label(toks: Sequence[Token], k: int, gaz: Gazetteer) -> bool:
    """Whether token ``k`` follows its province (河南 周口, a space between) or a place label (地区：)."""
    j = k - 2 if k >= 2 and toks[k - 1].word == " " else k - 1
    return j >= 0 and (gaz.level(toks[j].word) == "province" or toks[j].word in ("：", ":") and j > 0
                       and toks[j - 1].word in _PLACE_LABELS)


def _city_in_context(t: str, toks: Sequence[Token], k: int, gaz: Gazetteer) -> bool:
    if toks[k].word in _CITY_WORDS:
        return False
    nxt = toks[k + 1].word if k + 1 < len(toks) else ""
    if nxt and gaz.full_level(nxt) == "district":
        return True
    prev = toks[k - 1].word if k else ""
    if prev in _PLACE_PREP:
        return True
    if _after_province_or_label(toks, k, gaz):
        return True
    after = toks[k + 2].word if k + 2 < len(toks) else ""
    return (not prev or not _cjk(prev[-1])) and nxt == "的" and (not after or not _cjk(after[0]))


# a place named right after words that can only take a place (老家是疏勒的, 在金华打工, 人在金华，, 金华哪家医院)
_STRONG_PLACE_CUE = re.compile(r"(?:老家是|老家在|老家|来自|祖籍|籍贯|户籍|家在|住在|人在|定居在|定居|搬到|搬去|嫁到)$")
_WEAK_PLACE_CUE = re.compile(r"(?:在|去|到|从|回)$")
_PLACE_ACTIVITY = re.compile(r"(?:打工|上班|工作|干活|生活|定居|读书|上学|带孙子|带孩子|住|坐|出发|过来|回来|的饭店|的厂|"
                             r"一个厂|哪家|有没有|有什么|看病|的医院|的人|人[，,。]|那边|这边|这里|那里|[，,])")


_PLACE_QUESTION = re.compile(r"哪家|哪里|有没有|有什么")
# where a cued short form can start: after a cue, at the start, after anything not Chinese
_SHORT_PLACE_AT = re.compile(r"^|[\s，,。；;！!？?：:、(（]|老家是|老家在|老家|来自|祖籍|籍贯|户籍|家在|住在|人在|定居在|定居|搬到|搬去|"
                             r"嫁到|在|去|到|从|回")
_LIVING_THERE = re.compile(r"打工|上班|工作|干活|生活|定居|读书|上学|住")


def _cued_short_places(t: str, out: list[tuple[Span, bool]]) -> None:
    """A city or county named by its short form, the everyday-word ones too (金华, 中原, 疏勒), where
    a place cue comes before it (老家是, 人在) or a place cue before and an activity after (在金华打工)."""
    shorts = _ALL_SHORT()
    heads = _SHORT_HEADS()
    n = len(t)
    starts = {p for m in _SHORT_PLACE_AT.finditer(t) if t[(p := m.end()):p + 2] in heads}
    starts.update(sp.start - k for sp, _ in out if sp.category == "ADDRESS" for k in (4, 3, 2)
                  if t[max(0, sp.start - k):sp.start - k + 2] in heads)
    for p in sorted(starts):
        if p < 0 or p >= n - 1 or not _cjk(t[p]):
            continue
        for k in (4, 3, 2):
            name = t[p:p + k]
            if len(name) < k or name not in shorts:
                continue
            strong = _STRONG_PLACE_CUE.search(t, max(0, p - 3), p) is not None
            if not strong and word_frequency(name) >= 300:
                # 比如 (比如县), 中山: words first, places only where nothing else fits (在中山打工)
                if _WEAK_PLACE_CUE.search(t, max(0, p - 1), p) and _LIVING_THERE.match(t, p + k):
                    out.append((Span(p, p + k, "ADDRESS", DETECTOR), True))
                break
            act = _PLACE_ACTIVITY.match(t, p + k)
            weak = act is not None and (_WEAK_PLACE_CUE.search(t, max(0, p - 1), p) is not None
                                        or (p == 0 or not _cjk(t[p - 1]) and not t[p - 1].isdigit())
                                        ) \
                or (p == 0 or not _cjk(t[p - 1])) and _PLACE_QUESTION.match(t, p + k) is not None
            heads = any(sp.start == p + k and sp.category == "ADDRESS" for sp, _ in out)   # 金华 + 义乌市
            if (strong or weak or heads) and not _PRODUCT_AFTER.match(t, p + k):
                end = p + k
                if end < n and t[end] in "市县区":
                    end += 1
                out.append((Span(p, end, "ADDRESS", DETECTOR), True))
            break


# a residential compound lived in, named without 小区 (住名门世家，, 住在春天里，, 住康桥华城，): a name the
# dictionary does not hold or holds as a rare word (碧桂园), ending as compounds end, after 住/住在/家住
_LIVE_IN = re.compile(r"(?:住在|家住|家在|住)(?P<n>[\u4e00-\u9fff]{2,7}?)(?=[，,。；;！!？?\s]|的|那边|这边|附近|$)")
_COMPOUND_END = frozenset("园苑府城庭湾居阁轩邸里墅寓家院区舍岛街苑汇邦都景")
_NOT_COMPOUND = frozenset("的我你他她自己别亲朋儿女父母爸妈哥姐弟妹了过着得不这那哪宾酒病医")
_NOT_COMPOUND_FIRST = frozenset("院进几一两多在")


# a parcel label: the compound, the recipient, the phone (碧桂园 查伟 178…, 地址发您：万科城 叶胜利 173…)
_LABEL_COMPOUND = re.compile(r"(?:^|(?<=[:：\s\]】]))(?P<n>[\u4e00-\u9fff]{2,8})(?=[ \t]+[\u4e00-\u9fff]{2,4}[ \t]+[+(（]?\d)")


def _labelled_compounds(t: str, out: list[tuple[Span, bool]]) -> None:
    for m in _LABEL_COMPOUND.finditer(t):
        name = m.group("n")
        if name[-1] in _COMPOUND_END and not any(c in _NOT_COMPOUND for c in name) and word_frequency(name) < 20:
            out.append((Span(*m.span("n"), "ADDRESS", DETECTOR), False))


def _compounds_lived_in(t: str, out: list[tuple[Span, bool]]) -> None:
    if "住" not in t and "家在" not in t:
        return
    for m in _LIVE_IN.finditer(t):
        name = m.group("n")
        if name[-1] not in _COMPOUND_END or name[0] in _NOT_COMPOUND_FIRST or any(c in _NOT_COMPOUND for c in name) \
                or word_frequency(name) >= 20 or any(name.endswith(x) for x in _NOT_TOWN if len(x) >= 2):
            continue
        out.append((Span(*m.span("n"), "ADDRESS", DETECTOR), False))


# a railway or bus station named by its city or district (商丘东站, 涪陵汽车站, 北京南站): a point where the
# writer is, finer than the city (a municipality's station too)
_STATION = re.compile(r"(?:[东西南北]站|汽车站|汽车东站|汽车西站|汽车南站|汽车北站|高铁站|火车站|客运站|客运中心站|站)(?![长点台着起住立])")
_MUNICIPALITIES = frozenset("北京 上海 天津 重庆".split())
# an address written in English, room first (Room 1102, Building 8, Binjiang Jiayuan, Wuhou District, Chengdu)
_ENGLISH_ADDRESS = re.compile(r"(?:Room|Rm\.?|Flat|Apt\.?|Unit)\s*\d+[A-Za-z]?"
                              r"(?:,\s*[A-Z0-9][A-Za-z0-9'\-]*(?: [A-Z0-9][A-Za-z0-9'\-]*)*)+")


def _stations(t: str, gaz: Gazetteer, out: list[tuple[Span, bool]]) -> None:
    for m in _STATION.finditer(t):
        s = m.start()
        for k in (4, 3, 2):
            name = t[s - k:s] if s >= k else ""
            if name and (name in _MUNICIPALITIES or gaz.level(name) in ("city", "district")):
                out.append((Span(s - k, m.end(), "ADDRESS", DETECTOR), False))
                break


_NEIGHBOURHOOD_END = re.compile(r"[，,。；;！!？?\s]|附近|这边|那边|一带|旁边|周边|这里|那里|那块|$")


def _neighbourhoods(t: str, toks: Sequence[Token], gaz: Gazetteer, out: list[tuple[Span, bool]]) -> None:
    """A neighbourhood right after a district (朝阳区望京, 昌平回龙观): a proper noun of 2-4 characters
    the dictionary lacks or tags as a place, ending the clause or before 附近/这边."""
    ends = {p.end for p, _ in out if p.category == "ADDRESS"}
    for k, tok in enumerate(toks):
        if tok.start not in ends or not 2 <= len(tok.word) <= 4 or not all(_cjk(c) for c in tok.word):
            continue
        if tok.tag not in ("ns", "nz", "nr", "nt") and word_frequency(tok.word) > 0:
            continue
        if gaz.level(tok.word) == "province" or tok.word[-1] in "的了是在":
            continue
        if _NEIGHBOURHOOD_END.match(t, tok.end):
            out.append((Span(tok.start, tok.end, "ADDRESS", DETECTOR), True))


def _with_province(t: str, span: Span, gaz: Gazetteer) -> Span:
    """The address with the province that heads it (浙江省 + 杭州市, 海南 + 三亚, 安徽 安庆 as a
    card's 地区 field writes it), when one does."""
    head = span.start - 1 if span.start > 2 and t[span.start - 1] == " " else span.start
    for length in range(min(8, head), 1, -1):
        if t[head - length:head] in gaz.provinces:
            return Span(head - length, span.end, span.category, span.detector)
    return span


def _join_spaced_places(t: str, spans: list[Span]) -> list[Span]:
    """Address parts written apart with one space (保定市 安国市): one address, the space inside it."""
    out: list[Span] = []
    for sp in sorted(spans, key=lambda x: x.start):
        if out and sp.category == "ADDRESS" == out[-1].category and sp.start == out[-1].end + 1 \
                and t[out[-1].end] == " ":
            sp = Span(out.pop().start, sp.end, "ADDRESS", sp.detector)
        out.append(sp)
    return out


def _proper_name(t: str, toks: Sequence[Token], first: int, last: int, gaz: Gazetteer) -> bool:
    """Whether tokens ``first..last`` read as a proper noun: tagged as one, not a dictionary word,
    or a division name."""
    name = t[toks[first].start:toks[last].end]
    if not 2 <= len(name) <= 5 or not all(_cjk(c) for c in name) or any(c in "的了是在我你他她这那" for c in name):
        return False
    if gaz.level(name) is not None:
        return True
    if first == last:
        tok = toks[first]
        return tok.tag in _PROPER_TAGS or word_frequency(tok.word) == 0
    return all(toks[k].tag in _PROPER_TAGS or word_frequency(toks[k].word) == 0 for k in range(first, last + 1))


def _suffixed_place(t: str, toks: Sequence[Token], k: int, gaz: Gazetteer) -> Span | None:
    """A town, village, district or road: a proper noun + 镇/乡/村/区/路/街… (王庄村 as one token,
    李楼 + 乡, 青 + 山镇), or any short name after a place cue (住在青山镇)."""
    tok = toks[k]
    w = tok.word
    for rx, stop in ((_TOWN_SUFFIX, _NOT_TOWN), (_ROAD_SUFFIX, _NOT_ROAD)):
        m = rx.search(w)
        if not m:
            continue
        if w in stop or any(w[-n:] in stop for n in range(2, len(w))):    # ends with a stop word (不是城镇)
            return None
        if gaz.level(w) == "province" or w.endswith(("自治区", "特别行政区")):
            return None                                  # a province stays (the policy)
        ss = tok.start + m.start()                       # where the suffix starts
        if m.start() >= 2 and (tok.tag in _PROPER_TAGS or word_frequency(w) == 0):
            return Span(tok.start, tok.end, "ADDRESS", DETECTOR)
        for first in (k - 1, k - 2):
            if first < 0:
                continue
            start = toks[first].start
            name = t[start:ss]
            if not 2 <= len(name) <= 5 or not all(_cjk(c) and c not in NOT_GIVEN for c in name):
                continue
            cued = _PLACE_CUE.search(t, max(0, start - 3), start) is not None
            proper = all(toks[x].tag in _PROPER_TAGS or word_frequency(toks[x].word) == 0 for x in range(first, k)) \
                or gaz.level(name) is not None
            if cued or proper:
                return Span(start, tok.end, "ADDRESS", DETECTOR)
        return None
    return None


# ---------------------------------------------------------------------------------------------
# hospitals

_ZH_ORD = r"[一二三四五六七八九十]"
_LEVEL = r"(?:省|市|县|区|州|旗)"
_SPECIALTY = (r"(?:肿瘤|儿童|妇幼保健|妇幼|妇产|妇女儿童|中医|中西医结合|口腔|眼科|眼|传染病|精神病|精神卫生|胸科|骨科|"
              r"皮肤病|结核病|妇婴|康复|老年病|心血管病|血液病|职业病|第" + _ZH_ORD + r"+人民|第" + _ZH_ORD + r"+)")
_LEVEL_HOSPITAL = re.compile(
    _LEVEL + r"(?:第?" + _ZH_ORD + r"{1,2}(?:人民)?医?院|" + _SPECIALTY + r"(?:医院|院|保健院|医学中心|中心))")
# an ordinal hospital without its place (第一人民医院, 第三医院): one hospital of the patient's city
_ORDINAL_HOSPITAL = re.compile(r"第" + _ZH_ORD + r"{1,3}(?:人民|中医|附属)?医院")
_NUMBERED_TAIL = re.compile(r"(?:大学)?(?:附属)?(?:第?" + _ZH_ORD + r"附院|附" + _ZH_ORD + r"院?|" + _ZH_ORD
                            + r"附院|" + _ZH_ORD + r"院|" + _ZH_ORD + r"医院)")
_HOSPITAL_CONTEXT_BEFORE = re.compile(r"(?:在|去|到|来|转|转到|转去|住|住在|送|送到|挂|找|是|就诊于|就诊|看过|去过|就诊地点[:：]|"
                                      r"地点[:：]|医院[:：])\s*$")
_HOSPITAL_CONTEXT_AFTER = re.compile(r"\s*(?:\d+号楼|检查报告|看|查|做|住院|就诊|复查|复诊|挂号|挂|手术|医生|专家|大夫|教授|主任|"
                                     r"的医生|的专家|的大夫|的教授|的主任|开的|拍的|确诊|诊断|治疗|那边|门诊|急诊|"
                                     r"出门诊|坐诊|检验报告|报告单|的片子|的报告|的检查|条码号|病案号|门诊ID|医保卡号|"
                                     r"就诊卡|[一二三四五六七八九]?[\u4e00-\u9fff]{0,3}(?:内|外|妇|儿|眼|骨|皮肤|口腔|耳鼻喉|"
                                     r"肿瘤|中医|产|血液|神经|呼吸|消化|心|泌尿|急诊)科)")
_CAMPUS = re.compile(r"[东西南北]院(?:区)?|分院|本部|总院|[\u4e00-\u9fff]{2}院区")
# hospital and clinic chains named without a suffix (在爱尔眼科做的): each name is one organisation
_HOSPITAL_BRANDS = re.compile(r"爱尔眼科|普瑞眼科|何氏眼科|华厦眼科|爱康国宾|美年大健康|瑞慈体检|和睦家|美中宜和|"
                              r"通策口腔|拜博口腔|瑞尔齿科|卓正医疗|玛丽妇婴|新世纪妇儿|新世纪儿童")
# a level with a specialty's short form (市妇幼, 县中医, 省肿瘤) before a verb or the clause's end
_LEVEL_SHORT = re.compile(r"(?:省|市|县|区)(?:妇幼|妇保|妇儿|中医|肿瘤|儿童|胸科|精卫|口腔)"
                          r"(?=[的看去查做开住拍生挂就出坐检条报门急复找抽建，,。！？!?\s)）、]|还有|电话|[\u4e00-\u9fff]{1,4}科|$)")
# short names of hospitals: a university's medical school and its ordinal (哈医大一院, 哈医大二, 广医一院, 温附一),
# an ordinal hospital of a prefecture (地区一院), a city's municipal hospital (菏泽市立), a university's
# children's hospital (复旦儿科), a city's women's and children's centre (广州妇儿中心)
_AFTER_GO = r"(?:(?<![\u4e00-\u9fff])|(?<=[在去到于转是了来]))"
_FAMOUS_ORDINAL = r"(?:湘雅|华西|齐鲁|同济|协和|中山|浙大|郑大|川大|北医)[一二三四五六七八九]"  # 湘雅二, 华西一院
_SHORT_HOSPITAL = re.compile(
    _AFTER_GO + r"(?:[^\W\d的了是在去到于我你他她这那转和与及从为]{1,2}医大(?:附属)?[一二三四五六七八九](?:院|附院)?"
    r"|[\u4e00-\u9fff]医[一二三四五六七八九]院"
    r"|" + _FAMOUS_ORDINAL + r"(?:院|附院)?(?![十百千万个次天年月号])"
    r"|[^\W\d的了是在去到于我你他她这那转和与及从为]?附[一二三四五六七八九]院?(?![张份个下些次点篇条页])"
    r"|(?:复旦|浙大|川大|北大|中大|重医|华科|交大)(?:儿科|儿院|妇产|眼耳鼻喉))"
    r"|地区[一二三四五六七八九]院|地区人民医院|地区医院")
_SHORT_HOSPITAL_GATE = re.compile(r"医大|医[一二三四五六七八九]院|附[一二三四五六七八九]|地区|儿科|儿院|妇产|眼耳鼻喉|"
                                  + _FAMOUS_ORDINAL)
_CITY_HOSPITAL = re.compile(r"市立(?:医院)?|市?妇儿(?:中心|医院)")
# a hospital's whole name between a verb of going/being somewhere and its suffix (去了人和医院, 在如意门诊部,
# 在可可西里卫生院): the rules cut such names at a common character (和, 如, 为, 以) and keep only the rest
_HOSPITAL_AFTER_VERB = re.compile(
    r"(?:在|去|到|了|于|转|住|送|进)(?P<h>(?:(?!医院|诊所|门诊|卫生)[^\s\d\W的了是在去到我你他她您这那哪些家个])"
    r"{2,8}(?:医院|门诊部|诊所|卫生院|卫生服务中心|医疗中心|保健院|中医馆))")
# a verb phrase before 医院 (在选择医院时, 在等待医院的结果, 前往医院) names no hospital
_HOSPITAL_PREFIX_VERB = re.compile(r"选择|选|等待|等|前往|寻找|找|联系|咨询|推荐|救护车|医生|大夫|手术|整形|美容|专科|治疗|"
                                   r"检查|看病|就诊|正规|靠谱|合适|适合|离开|回到|来到|进入|转诊|转院|住进|出院|入院")
_HOSPITAL_PREFIX_GENERIC = frozenset("""
省城 县城 市里 城里 镇上 乡下 乡里 村里 外面 外边 楼下 旁边 对面 门口 隔壁 周围 附近 老家 本市 本县 本省 本区 外地 外省 外市
大城市 小城市 城市 农村 乡镇 急诊 一般 普通 正规 专门 其他 其它 别的 好点 大点 小点 较大 较小 全国 国内 国外 海外 单位 公司 学校 部队
""".split())
_HOSP_TAIL = re.compile(r"(?:医院|门诊部|诊所|卫生院|卫生室|卫生服务中心|卫生服务站|医疗中心|医学中心|保健院|医馆|中医馆)")
_HOSP_LEFT_TAGS = frozenset({"ns", "nr", "nz", "nt", "nrt", "nrfg", "j", "n", "m", "b"})
_HOSP_LEFT_STOP = frozenset("在去到从和跟与或及是的了就也还又再才已我你他她您这那该哪家住找看做查转送给把被对往回来入如")


def _hospital_spans(t: str, toks: Sequence[Token], gaz: Gazetteer, policy: TextPolicy) -> list[Span]:
    out: list[Span] = []
    if policy.level_hospitals:
        for m in _LEVEL_HOSPITAL.finditer(t):
            out.append(Span(*m.span(), "HOSPITAL", DETECTOR))
        for m in _ORDINAL_HOSPITAL.finditer(t):
            out.append(Span(*m.span(), "HOSPITAL", DETECTOR))
        for m in _LEVEL_SHORT.finditer(t):
            out.append(Span(_division_before(t, m.start(), gaz), m.end(), "HOSPITAL", DETECTOR))   # 曹县妇幼
    for m in _NUMBERED_TAIL.finditer(t):
        span = _numbered_hospital(t, toks, gaz, m.start(), m.end())
        if span is not None:
            out.append(span)
    for k, tok in enumerate(toks):
        if tok.word in HOSPITAL_ABBREVIATIONS and len(tok.word) >= 2:
            before = _HOSPITAL_CONTEXT_BEFORE.search(t[max(0, tok.start - 6):tok.start]) is not None
            after = _HOSPITAL_CONTEXT_AFTER.match(t, tok.end) is not None
            campus = _CAMPUS.match(t, tok.end)
            if before and after or (_cjk(tok.word[0]) or campus) and (before or after or campus):   # 301: both
                out.append(Span(tok.start, campus.end() if campus else tok.end, "HOSPITAL", DETECTOR))
    for m in _HOSPITAL_BRANDS.finditer(t):
        out.append(Span(*m.span(), "HOSPITAL", DETECTOR))
    out += _placed_short_hospitals(t, gaz)
    if _SHORT_HOSPITAL_GATE.search(t):
        for m in _SHORT_HOSPITAL.finditer(t):
            out.append(Span(*m.span(), "HOSPITAL", DETECTOR))
    for m in _CITY_HOSPITAL.finditer(t) if "市立" in t or "妇儿" in t else ():   # 菏泽市立, 广州妇儿中心: after a city
        s = m.start()
        k = next((k for k in (3, 2) if s - k >= 0 and t[s - k:s] in _ALL_SHORT()), 0)
        if k:
            out.append(Span(s - k, m.end(), "HOSPITAL", DETECTOR))
    for m in _HOSPITAL_AFTER_VERB.finditer(t):
        h = m.group("h")
        prefix = _HOSP_TAIL.split(h)[0]
        if len(prefix) >= 2 and prefix not in _HOSPITAL_PREFIX_GENERIC and not generic_hospital_phrase(h) \
                and not any(prefix.startswith(g) for g in _HOSPITAL_PREFIX_GENERIC) \
                and _HOSPITAL_PREFIX_VERB.search(prefix) is None \
                and not (len(prefix) > 2 and prefix[-1] in "和或与及跟"):
            out.append(Span(*m.span("h"), "HOSPITAL", DETECTOR))
    for m in _HOSP_TAIL.finditer(t):
        span = _hospital_by_tokens(t, toks, gaz, m.start(), m.end())
        if span is not None:
            out.append(span)
    return out


# a hospital called by its place and its kind (青岛妇幼, 郫都妇幼, 红河州妇幼, 江苏省人医) or by its place and a
# famous name (武汉同济, 福建协和), and hospitals written in English (Xiangya Hospital, PUMCH)
_PLACED_KIND = re.compile(r"妇幼|妇保|妇儿|人医|协和|同济")
_ENGLISH_HOSPITAL = re.compile(r"(?:[A-Z][A-Za-z']+ ){1,5}(?:Hospital|Medical Center|Clinic)(?![A-Za-z])"
                               r"|(?<![A-Za-z])PUMCH(?![A-Za-z])")


def _placed_short_hospitals(t: str, gaz: Gazetteer) -> list[Span]:
    out = []
    for m in _PLACED_KIND.finditer(t):
        s = m.start()
        for k in (4, 3, 2):
            name = t[s - k:s] if s >= k else ""
            if name and (gaz.level(name) is not None or gaz.full_level(name) is not None
                         or name[-1] in "州市县区" and name[:-1] in _ALL_SHORT()) \
                    and not (m.group() in ("协和", "同济") and gaz.level(name) != "province" and name not in _ALL_SHORT()):
                out.append(Span(s - k, m.end(), "HOSPITAL", DETECTOR))
                break
    if _ASCII_UPPER.search(t) or "PUMCH" in t:
        out += [Span(*m.span(), "HOSPITAL", DETECTOR) for m in _ENGLISH_HOSPITAL.finditer(t)]
    return out


def _division_before(t: str, s: int, gaz: Gazetteer) -> int:
    """Start of a county or city whose suffix is the character at ``s`` (曹 + 县妇幼), else ``s``."""
    for k in (4, 3, 2, 1):
        if s - k >= 0 and gaz.full_level(t[s - k:s + 1]) is not None:
            return s - k
    return s


@functools.lru_cache(maxsize=1)
def _ALL_SHORT() -> frozenset[str]:
    """Every city and county short form, the everyday-word ones too (金华, 中原, 长寿): for places named
    after a strong cue, where the word cannot be read otherwise."""
    from medrealmm.deid.text_gazetteer import short_form

    gaz = gazetteer()
    return frozenset(x for n in gaz.cities | gaz.districts if len(x := short_form(n)) >= 2) - gaz.provinces


@functools.lru_cache(maxsize=1)
def _SHORT_HEADS() -> frozenset[str]:
    """The first two characters of every short form in :func:`_ALL_SHORT` (a cheap first test)."""
    return frozenset(x[:2] for x in _ALL_SHORT())


def _numbered_hospital(t: str, toks: Sequence[Token], gaz: Gazetteer, s: int, e: int) -> Span | None:
    """中山一院, 湘雅二院, 郑大一附院: a proper stem of 2-4 characters before an ordinal hospital."""
    for length in (4, 3, 2):
        if s - length < 0:
            continue
        stem = t[s - length:s]
        if not all(_cjk(c) for c in stem):
            continue
        proper = any(tk.start == s - length and tk.end == s and tk.tag in _PROPER_TAGS for tk in toks)
        if stem in HOSPITAL_ABBREVIATIONS or gaz.level(stem) is not None or proper:
            return Span(s - length, e, "HOSPITAL", DETECTOR)
    return None


def _hospital_by_tokens(t: str, toks: Sequence[Token], gaz: Gazetteer, s: int, e: int) -> Span | None:
    """A named hospital ending at ``e``: back over the nouns before its suffix, then forward again
    to the first proper noun (a division, a tagged proper noun, a word the dictionary lacks), so
    如皋市人民医院 keeps its 如 and 咨询当地医院 names nothing."""
    k = next((i for i, tk in enumerate(toks) if tk.start <= s < tk.end), None)
    if k is None:
        return None
    first = k
    i = k - 1
    while i >= 0 and s - toks[i].start <= 14:
        tk = toks[i]
        if tk.tag not in _HOSP_LEFT_TAGS or not all(_cjk(c) or c.isdigit() for c in tk.word):
            break
        first = i
        i -= 1
    for j in range(first, k + 1):
        tk = toks[j]
        if tk.start >= s:
            return None
        if _proper_token(tk, gaz):
            start = tk.start
            if generic_hospital_phrase(t[start:e]):
                return None
            return Span(start, e, "HOSPITAL", DETECTOR)
    return None


def _proper_token(tk: Token, gaz: Gazetteer) -> bool:
    if gaz.level(tk.word) is not None:
        return True
    if len(tk.word) < 2 or tk.word[0] in _HOSP_LEFT_STOP or tk.tag not in _PROPER_TAGS:
        return False
    return word_frequency(tk.word) > 0 or tk.word[0] not in STOP_CHARS


# ---------------------------------------------------------------------------------------------

class StatisticalDetector:
    """Names, places and hospitals without cues (see the module doc); ``categories`` limits what it
    reports, ``threshold`` is the name score at which a candidate is a name."""

    name = DETECTOR

    def __init__(self, categories: Collection[str] | None = None, *, policy: TextPolicy | None = None,
                 threshold: float = NAME_THRESHOLD, detector: str = DETECTOR):
        cats = frozenset(categories) if categories is not None else frozenset(CATEGORIES)
        unknown = cats - set(CATEGORIES)
        if unknown:
            raise ValueError(f"unknown categories {sorted(unknown)}; choose from {CATEGORIES}")
        self.categories = cats
        self.policy = policy or TextPolicy()
        self.threshold = threshold
        self.name = detector

    def find(self, text: str) -> list[Span]:
        """Merged, sorted spans of the names, places and hospitals found in ``text``."""
        if not text or not any(_cjk(c) for c in text):
            return []
        t = normalize(text)
        toks = tokens(t)
        gaz = gazetteer()
        places = _place_spans(t, toks, gaz, self.policy) if "ADDRESS" in self.categories else []
        spans: list[Span] = [p for p, short in places if not short]
        if "ADDRESS" in self.categories:
            spans += rural_places(t, gaz)
        if "HOSPITAL" in self.categories:
            spans += _hospital_spans(t, toks, gaz, self.policy) + _signature(t, "HOSPITAL") + nickname_hospitals(t)
        names: list[Span] = []
        if "NAME" in self.categories:
            taken = [(s.start, s.end) for s in spans]
            for s, e, score in _name_candidates(t, toks, gaz):
                if score >= self.threshold and not any(a < e and s < b for a, b in taken):
                    names.append(Span(s, e, "NAME", DETECTOR))
            names += _child_names(t) + _nicknames(t, toks) + _kin_names(t) + _ethnic_names(t) + _slot_names(t)
            names += [sp for sp in _signature(t, "NAME")]
            names += slot_names(t)
            names = [n for n in names if not not_a_name(t, n.start, n.end)]
        names = [n for n in names if not any(p.start <= n.start and n.end < p.end and t[n.end] in _VILLAGE_END
                                             for p, short in places if short)]     # 南梅堡 + 村: a village
        spans += names
        spans += [p for p, short in places if short and not any(n.start < p.end and p.start < n.end for n in names)]
        if self.policy.province_in_address:
            spans = [_with_province(t, sp, gaz) if sp.category == "ADDRESS" else sp for sp in spans]
        if " " in t:
            spans = _join_spaced_places(t, spans)
        brands = [m.span() for m in _BRAND_RX.finditer(t)] if _BRAND_FIRST.intersection(t) else []
        if brands:                                    # nothing inside a drug's brand name (安律凡, 欧唐宁, 安达唐)
            spans = [sp for sp in spans if sp.category == "HOSPITAL"
                     or not any(a < sp.end and sp.start < b for a, b in brands)]
        spans = [Span(s.start, s.end, s.category, self.name) for s in spans if s.category in self.categories]
        return merge_spans(spans)

    def detect(self, texts: Sequence[str]) -> list[list[Span]]:
        """One list of spans per text, in order."""
        return detect_each(self.find, texts, "stat", log)
