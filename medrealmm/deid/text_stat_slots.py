"""Names the statistical layer finds by the slot they stand in, whatever their shape.

China names people in many ways the surname-first shape of :mod:`medrealmm.deid.text_statistical`
misses: a surname alone before a title after any word (上次薛主任说, 这个问题吴教授更专业, 那边杨主任);
regional nicknames — 老/阿/小 + surname or given name (老符, 阿潘, 小雨), 尕 + a character in the
north-west (尕春), a given-name character + 娃/妹/仔/宝/子/儿 (琴娃, 佳妹, 敏宝, 英子, 兵儿), 大/二 + a
character (大军, 二丹), a reduplicated pair (军军); names without any Han surname (Tibetan, Mongolian,
Uyghur, Yi, Dai: 额尔德木图, 岩坎, 勒格阿果); rare surnames of the south-west and north-west (者, 刀,
拓, 眭, 种, 旷). Such a string is a name only where a person stands: a field label (姓名：, 户主,
收件人), a staff role (助理, 药师, 护士长), a recipient (…收，), a kinship word (我阿爸, 额婆), a
self-introduction (我是镇原的…), a list that ends with 我 (A、B、我，三个人都…), 我家那位…, 帮…看看,
请…到…诊室. Each slot and each form is written from general naming practice, not from a corpus.
"""

from __future__ import annotations

import re

from medrealmm.deid.spans import Span
from medrealmm.deid.text_lexicons import (AMBIGUOUS_SURNAMES, BEFORE_TITLE_WORDS, COMPOUND_SURNAMES, FOLK_GIVEN_NAMES,
                                          GIVEN_NAME_CHARS, SURNAMES)
from medrealmm.deid.text_stat_words import word_frequency

DETECTOR = "stat"

# surnames outside the common list, regional and rare (者 and 刀 in Yunnan, 拓 in Gansu and Shaanxi,
# 眭, 种, 旷, 郏, 奇 of Inner Mongolia), and 岩/玉, which open Dai men's and women's names: trusted only
# before a title or in a person slot, never in running text
RARE_SURNAMES = frozenset("者刀拓眭种旷郏奇岩昝禤蒯隗厍仉訾缑逯")

# kinship and address words of the regions (阿嬷, 阿叔, 阿佳 in Tibet, 巴郎子 in Xinjiang, 达达 in Shaanxi,
# 老汉 in Sichuan, 阿訇 an imam): what a nickname pattern would take for a name
KIN_WORDS = frozenset("""
阿嬷 阿妈 阿爸 阿公 阿婆 阿爷 阿奶 阿叔 阿伯 阿婶 阿姆 阿舅 阿妗 阿姑 阿姨 阿哥 阿姐 阿弟 阿妹 阿嫂 阿娘 阿翁 阿佳 阿訇
阿妈啦 阿爸啦 阿鹏 阿鹏哥 阿妹子 阿仔 阿囡 阿婆婆 阿达 阿大 阿二 阿三
妈妈 爸爸 爹娘 娃娃 娃子 尕娃 巴郎 巴郎子 达达 大大 爹爹 娘娘 嬢嬢 孃孃 婆婆 公公 爷爷 奶奶 姥姥 姥爷 舅舅 姑姑 叔叔 伯伯 婶婶 姨姨
哥哥 姐姐 弟弟 妹妹 宝宝 宝贝 幺妹 幺儿 幺娃 老汉 老汉儿 老头 老头子 老太 老太婆 老伴 老公 老婆 老人 老爷 老爷子 老娘
老妈 老爸 老大 老二 老三 老四 老幺 老舅 老表 老乡 老板 老师 老总 老外 老家 老年 小孩 小子 小伙 小伙子 小姐 小妹 小弟
小儿 小宝 小女 小娃 小娃娃 小朋友 大哥 大姐 大爷 大妈 大娘 大叔 大婶 大伯 大舅 大姨 二哥 二姐 二叔 二姨 二舅 大宝 二宝
妹子 妹仔 细佬 细妹 后生 后生仔 靓仔 靓女 囡囡 崽崽 娃儿 儿子 女儿 孙子 孙女 额吉 阿布 阿恰 帕帕
""".split())

# phrases of dialect greetings and asking that a slot could read as a name (亚克西 good, 打扰晒, 问哈子)
_DIALECT_PHRASES = frozenset("亚克西 打扰晒 问哈子 问一哈 想问下 问一下 问下子 麻达 没麻达 咋整 得劲 不得劲 晓得 巴适".split())

_NOT_NICK = frozenset("""
小时 小便 小腿 小区 小学 小儿 小孩 小米 小麦 小心 小说 小组 小吃 小肠 小腹 小脑 小姑 小叔 小舅 小姨 小伙 小子 小姐
老年 老人 老家 老师 老板 老乡 老是 老实 老化 老公 老婆 老伴 老汉 老花 老鼠 老大 老二 老三 老友 老毛 老总 老百
大便 大腿 大脑 大夫 大学 大家 大概 大约 大量 大人 大小 大肠 大姐 大哥 大爷 大妈 大娘 大叔 大伯 大夫 大宝 大病 大多
二胎 二宝 二甲 二尖 二便 二次 二级 二手 二楼 二院 二附 二哥 二姐
子宫 儿童 儿科 儿子 宝宝 宝贝 妹妹 妹子 娃娃 娃儿
""".split())
# reduplicated adverbs a kinship word may precede (宝宝刚刚10天, 孩子天天哭): not a pet name there
_ADVERB_PAIRS = frozenset("""
刚刚 天天 常常 偏偏 渐渐 慢慢 往往 仅仅 明明 好好 快快 早早 稍稍 微微 久久 多多 样样 人人 个个 次次 年年 月月 日日 时时
处处 连连 频频 纷纷 默默 悄悄 轻轻 静静 乖乖 白白 大大 小小 满满 长长 高高 匆匆 够够
""".split())

_GIVEN = GIVEN_NAME_CHARS
_INTERJECTIONS = frozenset("哈哈 呵呵 嘿嘿 嗯嗯 嘻嘻 谢谢 拜拜 哦哦 啊啊 对对 是是 好好 行行 棒棒 呜呜 嘤嘤 哎哎 喔喔 噢噢 咳咳".split())
_SUR = SURNAMES | RARE_SURNAMES
_NICK_SUFFIX = frozenset("娃妹仔宝子儿哥")
_CJK = r"[\u4e00-\u9fff]"


def _cjk(c: str) -> bool:
    return "\u4e00" <= c <= "\u9fff"


def nickname(x: str, *, pet: bool = False) -> bool:
    """Whether the two characters ``x`` read as a regional nickname or pet name (see the module doc);
    with ``pet`` (after a kinship word or before a parent's title) a reduplicated pair of any
    character (果果, 朵朵, 糖糖)."""
    if len(x) != 2 or x in KIN_WORDS or x in _NOT_NICK or x in _DIALECT_PHRASES or not (_cjk(x[0]) and _cjk(x[1])):
        return False
    a, b = x[0], x[1]
    if a == b:
        return a in _GIVEN or pet and a not in _SLOT_STOP and x not in _INTERJECTIONS
    if a == "老":
        return b in _SUR
    if a in "小阿":
        return b in _GIVEN or b in _SUR
    if a == "尕":
        return True
    if a in "大二":
        return b in _GIVEN
    if b in _NICK_SUFFIX:
        return a in _GIVEN
    return False


def full_name(x: str, *, rare: bool = True) -> bool:
    """A surname (common, compound or, with ``rare``, rare) and one or two given-name characters."""
    sl = 2 if x[:2] in COMPOUND_SURNAMES else 1 if (x[:1] in SURNAMES or rare and x[:1] in RARE_SURNAMES) else 0
    given = x[sl:]
    return bool(sl) and 1 <= len(given) <= 2 and all(c in _GIVEN for c in given[-1:]) and x not in KIN_WORDS


_NOT_SLOT = frozenset("""
患者 病人 本人 家属 孩子 宝宝 小孩 老人 医生 大夫 专家 主任 护士 朋友 同事 邻居 自己 大家 我们 他们 她们 你们 别人 家人
性别 年龄 电话 身份 地址 住址 科室 日期 时间 信息 单位 职业 民族 籍贯 手机 备注 姓名 名字 不详 未知 同上 本地 城里
""".split())
_SLOT_STOP = frozenset("的了是在跟与及或就也都还又再已很我你您他她它们这那哪谁啥个些种科院室医病药岁号年月日周次点"
                       "吗呢吧啊呀说问看找请去到从给被把对要想会能没不多少家人烧痛咳疼痒肿吐泻晕酸胀麻复治压电话性男女证卡码订微信")


def any_name(x: str) -> bool:
    """In a slot only a person fills: any two to six characters with no particle, pronoun or
    clinical character (拓忠, 额尔德木图, 勒格阿果), a nickname, or a full name."""
    if not 2 <= len(x) <= 6 or x in _NOT_SLOT or x in KIN_WORDS or x in _DIALECT_PHRASES or not all(_cjk(c) for c in x):
        return False
    if nickname(x) or full_name(x) or x in FOLK_GIVEN_NAMES:
        return True
    return not any(c in _SLOT_STOP for c in x) and word_frequency(x) < 50


def given_pair(x: str) -> bool:
    """Two given-name characters no common word is made of (满仓, 秀涛, 建荣)."""
    return len(x) == 2 and (x in FOLK_GIVEN_NAMES or x[0] in _GIVEN and x[1] in _GIVEN and x not in KIN_WORDS
                            and x not in _NOT_NICK and word_frequency(x) < 50)


# -- a surname alone before a title, after a word that ends right before it ---------------------------

_TITLE = re.compile(r"(?:副主任医师|主任医师|副主任|副教授|主治医师|医生|大夫|医师|主任|教授|院长|护士长|大爷|大妈|大娘|大叔)"
                    r"(?!\w{0,1}(?:科|室|团队))")
# words a surname + title follows (上次, 之前, 那边, 这个问题, 麻烦, 谢谢): the time, the place, the topic;
# any other common dictionary word that ends right before the surname does too (这个情况孔教授)
_TITLE_LEFT_WORDS = re.compile(r"(?:上次|这次|那次|之前|以前|后来|先前|那边|这边|那个|这个|那位|这位|问题|麻烦|谢谢|多谢|感谢|"
                               r"推荐|介绍|建议|就是|还是|我们|我们科|你们|他们|好的|收到|您好|你好|可以找|去找|找|让|跟|和|"
                               r"请|问|听|给|是|叫|等|被|说|帮|由|向|对|的|滴|了|科|院|室)$")


_TITLE_WORDS = frozenset("班主任 系主任 科主任 室主任 组主任 段主任 车间主任 居委会主任 教导主任 全科医生 专科医生 中医大夫".split())


def _titled(t: str) -> list[Span]:
    out = []
    for m in _TITLE.finditer(t):
        s = m.start()
        if s >= 2 and t[s - 2:s] in COMPOUND_SURNAMES:
            k = s - 2
        elif s >= 1 and (t[s - 1] in SURNAMES or t[s - 1] in RARE_SURNAMES and m.group() not in ("大爷", "大妈", "大娘", "大叔")):
            k = s - 1
        else:
            continue
        sur = t[k:s]
        if t[k:m.end()] in _TITLE_WORDS:
            continue                                  # 班主任, 系主任: a word, no surname
        if sur in AMBIGUOUS_SURNAMES and not t.endswith(("那边", "这边"), 0, k):
            continue
        if k == 0 or not _cjk(t[k - 1]):
            out.append(Span(k, s, "NAME", DETECTOR))
        elif _TITLE_LEFT_WORDS.search(t, max(0, k - 4), k) is not None or word_frequency(t[max(0, k - 2):k]) >= 300:
            pair = t[k - 1:k + 1]
            if pair in BEFORE_TITLE_WORDS or word_frequency(pair) >= 200:
                continue                              # 了解医生, 说明医生, 及时医生: the surname ends a word
            out.append(Span(k, s, "NAME", DETECTOR))
    return out


# -- slots ---------------------------------------------------------------------------------------------

_EDGE = r"(?:^|(?<=[\s，,。；;！!？?：:、（(）)～~】\]]))"
_END = r"(?=[\s，,。；;！!？?：:、）)～~\[【]|$)"
_REGIONAL_KIN = (r"(?:阿爸|阿妈|阿爷|阿公|阿婆|阿嬷|阿奶|阿哥|阿姐|阿弟|阿妹|阿叔|阿伯|老汉|老舅|老表|老伴|额爸|额妈|额婆|额爷|"
                 r"额弟|额哥|额姐|俺爹|俺娘|俺爸|俺妈|我爹|我娘|我爸|我妈|我哥|我姐|我弟|我妹|我舅|我姨|我姑|我叔|我婆|"
                 r"姑娘|儿子|女儿|闺女|老公|老婆|媳妇|查某囝|后生|孙子|孙女|外孙|细佬|大哥|大姐|二哥|二姐|幺妹|幺儿|我男人|我女人|"
                 r"家娃娃|我家娃|我家|娃娃|孩子|宝宝)")
_REL_WORDS = (r"(?:爸|妈|爹|娘|哥|姐|弟|妹|舅|姨|姑|叔|伯|婶|公|婆|爷|奶|嬷|丈夫|妻子|老公|老婆|爱人|儿子|女儿|闺女|同事|战友|"
              r"朋友|同学|邻居|室友|师傅|徒弟|领导|女婿|儿媳|媳妇|孙子|孙女|外孙|侄子|侄女|外甥|嫂子|弟媳|姐夫|妹夫)")
# (kind, a fast test on the text, the slot's pattern with the name as group n)
_SLOTS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = tuple((k, re.compile(g), re.compile(p)) for k, g, p in (
    ("intro", r"我是", r"我是(?:" + _CJK + r"{2,8}?)[的滴](?P<n>" + _CJK + r"{2,6}?)(?=[\s，,。！!]|$)"),
    ("label", r"助理|医助|护士|药师|检验|技师|户主|收件人|收货人|实名信息|联系人|名字|大名|签名|姓名",
     r"(?:(?:助理|医助|护士长|随访护士|责任护士|护士|药师|检验者|检验员|技师|户主|收件人|收货人|实名信息|联系人|报我名字|名字是|"
     r"大名|签名)[:：\s]*)(?P<m>" + _CJK + r"{2,6}?)(?=登记|会联系|会把|就行|就可以)|"
     r"(?:(?:助理|医助|护士长|随访护士|责任护士|护士|药师|检验者|检验员|技师|户主|收件人|收货人|实名信息|联系人|报我名字|名字是|"
     r"大名|签名)[:：\s]*|姓名\s*[:：]\s*)(?P<n>" + _CJK + r"{2,6}?)(?![\u4e00-\u9fff])"),
    # a record's patient before the sex (患者勒格阿果 男 四十八岁), a name opening a line before an ID number
    ("record", r"患者", r"患者[:：]?(?P<n>" + _CJK + r"{2,6}?)[\s,，]+[男女](?![\u4e00-\u9fff])"),
    # someone's doctor by full name (…医院的潘博才教授看过, 的者婷大夫)
    ("staff", r"的", r"的(?P<n>" + _CJK + r"{2,3}?)(?:大夫|医生|教授|主任)(?=看过|说|开的|让|给)"),
    ("recv", r"收", _EDGE + r"(?P<n>" + _CJK + r"{2,4}?)收" + _END),
    ("kin", r"阿|老|额|俺|我|姑娘|儿|女|媳|查某|后生|孙|细佬|哥|姐|幺|家|娃|孩子|宝宝",
     r"(?=[阿老额俺我姑儿女闺媳查后孙外细大二幺家娃孩宝])" + _REGIONAL_KIN + r"(?P<n>" + _CJK + r"{2})"),
    ("rel", r"[（(]", _EDGE + r"(?P<n>" + _CJK + r"{2,6}?)[（(]\s*(?:我|额|俺)?(?:阿|老|额|表|堂)?" + _REL_WORDS + r"[)）]"),
    ("fam", r"家属", _EDGE + r"(?P<n>" + _CJK + r"{2,6}?)家属(?:你好|您好|在吗)"),
    ("doc", r"大夫|医生|教授|主任", r"(?:谢谢|我是|你好|您好)[，,\s]?(?P<n>" + _CJK + r"{2,6}?)(?:大夫|医生|教授|主任)"),
    ("spouse", r"那位", r"我家那位(?P<n>" + _CJK + r"{2,3}?)(?=也|的|最近|还|说|，|,)"),
    ("help", r"看看", r"帮(?P<n>" + _CJK + r"{2,5}?)看看"),
    ("call", r"诊室", r"请(?P<n>" + _CJK + r"{2,5}?)到\s*\d+\s*号诊室"),
    ("open", r"这两天怎么样|会联系您|会把单子|打电话让我|最近老是|岁|是我家|是额|是我[阿老]|（我|你好|您好",
     _EDGE + r"(?P<n>" + _CJK + r"{2,4}?)(?=这两天怎么样|会联系您|会把单子|打电话让我|最近老是|\s*\d{1,2}\s*岁|"
     r"[一二三四五六七八九十]{1,2}岁|是我家|是额|是我[阿老]|（我|(?:女士|先生|同学)?(?:你好|您好))"),
    # a child's name before the parent's title (我是小龙妈妈, 老岑爸爸, 小芝家长您好)
    ("parent", r"妈妈|爸爸|家长", r"(?:^|(?<=[\s，,。；;！!？?～~])|(?<=我是))(?P<n>" + _CJK + r"{2})(?=妈妈|爸爸|家长)"),
))
_SIGN_TRAIL = "!！.。~～?？ \t\n"
_SIGN_BEFORE = frozenset(" \t\n，,。；;！!？?～~")
_REPEAT = frozenset({"kin"})      # slots whose cue words overlap (我家 + 孩子涵涵): searched at every start

_STRICT = frozenset({"kin", "open", "help", "recv", "parent", "sign", "staff"})   # slots that also hold plain words: a nickname or a full name only


def _signature(t: str, out: list[Span]) -> None:
    """A name that closes the message, a signature (…，谢谢医生 建彤; …！满仓): two or three characters
    after a separator, before nothing but closing punctuation."""
    e = len(t.rstrip(_SIGN_TRAIL))
    for k in (2, 3):
        s = e - k
        if s > 0 and t[s - 1] in _SIGN_BEFORE and all(_cjk(c) for c in t[s:e]):
            _slot_one(t, "sign", s, e, out)
            return


_ID_NUMBER = re.compile(r"(?<!\d)(?:\d{17}[\dXx]|\d{15})(?!\d)")
_LINE_HEAD_NAME = re.compile(r"(?:^|(?<=[\n，,。]))(" + _CJK + r"{2,6})\s?$")


def _before_id_numbers(t: str, out: list[Span]) -> None:
    """A name opening a line before an ID number (吉克阿果 451227199612289156)."""
    for m in _ID_NUMBER.finditer(t):
        if (h := _LINE_HEAD_NAME.search(t, max(0, m.start() - 8), m.start())) is not None:
            _slot_one(t, "record_m", *h.span(1), out)


def _slot(t: str) -> list[Span]:
    out: list[Span] = []
    _signature(t, out)
    if any(c.isdigit() for c in t):
        _before_id_numbers(t, out)
    for g, gate, rx in _SLOTS:
        if gate.search(t) is not None:
            if g in _REPEAT:
                pos = 0
                while (m := rx.search(t, pos)) is not None:
                    _slot_one(t, g, *m.span("n"), out)
                    pos = m.start() + 1
            else:
                for m in rx.finditer(t):
                    if "m" in rx.groupindex and m.group("n") is None:
                        _slot_one(t, g + "_m", *m.span("m"), out)
                    else:
                        _slot_one(t, g, *m.span("n"), out)
    return out


def _slot_one(t: str, g: str, s: int, e: int, out: list[Span]) -> None:
    x = t[s:e]
    if g == "kin":
        if not nickname(x, pet=True) or x in _ADVERB_PAIRS or e < len(t) and _cjk(t[e]) and (x[1] + t[e] in _NOT_NICK or word_frequency(t[s:e + 1]) > 0
                                                             or word_frequency(t[s:e + 2]) > 0):
            return                                    # 孩子小腿, 孩子阿莫西林: the nickname starts a word
    elif g in _STRICT:
        if not (nickname(x, pet=g == "parent") or given_pair(x) or full_name(x, rare=g in ("sign", "staff")) and len(x) >= 3
                or g == "staff" and full_name(x)):
            return
    elif g == "intro":
        if x.endswith(("患者", "病人", "家属", "的人", "妈妈", "爸爸")) \
                or not (nickname(x) or full_name(x) or any_name(x) and word_frequency(x) < 5):
            return
    elif g == "label_m":
        if not (any_name(x) or 2 <= len(x) <= 4 and x not in _NOT_SLOT and x not in KIN_WORDS
                and not any(c in _SLOT_STOP for c in x)):
            return                                    # after its label any name, the dictionary's words too (拉姆)
    elif not any_name(x):
        return
    out.append(Span(s, e, "NAME", DETECTOR))


# A list of people that ends with the writer (张三、小福、我，三个人都…; 我们家钱水生、叶波和我都…)
_LIST = re.compile(r"(?:我们家|我家|咱家|俺家)?(?P<l>(?:" + _CJK + r"{2,4}、){1,4}" + _CJK + r"{2,4})(?:、|和)我(?=[，,\s]|都|三|两|俩)")


def _lists(t: str) -> list[Span]:
    out = []
    for m in _LIST.finditer(t):
        pos = m.start("l")
        for item in m.group("l").split("、"):
            x = item
            if any_name(x) and not x.startswith(("我", "他", "她")):
                out.append(Span(pos, pos + len(x), "NAME", DETECTOR))
            pos += len(x) + 1
    return out


# Latin names: a passport's name in capitals (ZHANG LEI), an English given name before a parent's title
# or opening a message before the age (Tony妈妈, Amy，11岁)
_LATIN: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple((re.compile(g), re.compile(p)) for g, p in (
    (r"名字是|拼音|英文名", r"(?:护照上[的滴]?名字是|拼音[:：]?|英文名[:：]?)\s*(?P<n>[A-Z]{2,12}(?: [A-Z]{2,12}){1,2})(?![A-Za-z])"),
    (r"妈妈|爸爸|家长", r"(?<![A-Za-z])(?P<n>[A-Z][a-z]{1,10})(?=妈妈|爸爸|家长|的妈妈|的爸爸)"),
    (r"岁", r"(?:^|(?<=[\s，,。]))(?P<n>[A-Z][a-z]{1,10})(?=[，,\s]*\d{1,2}\s*岁)"),
))


# an account handle given to be added (随访群加xiaoyu4430, 加个好友吧，ming-2695, vx：baobao_035): URL, as the
# rules count a handle after its platform
_HANDLE = re.compile(r"(?:随访群加|群里加|加个好友吧|加好友|加我|[Vv][Xx]|微信号|微信)[:：，,\s]{0,2}(?P<n>[A-Za-z][A-Za-z0-9_\-]{3,24})(?![A-Za-z0-9_\-])")


def _latin(t: str) -> list[Span]:
    return [Span(*m.span("n"), "NAME", DETECTOR) for g, rx in _LATIN if g.search(t) is not None
            for m in rx.finditer(t)]


# a transliterated full name with a middle dot (艾尔肯·哈里木, 帕提古丽·阿布拉), whatever stands on either side
_DOT = re.compile(_CJK + r"{2,8}[·•・]" + _CJK + r"{2,10}(?:[·•・]" + _CJK + r"{2,8})?")
_DOT_LEFT = re.compile(r"(?:(?:我是|我叫|那个|这个|那边|这边|那位|这位|患者|病人|收件人|收货人|姓名|找|给|帮|和|跟|叫|请|是|的|滴|谢谢|"
                       r"你好|您好|好的|了|在|去|到)+)")
_DOT_RIGHT = re.compile(r"(?:副主任医师|主任医师|大夫|医生|医师|主任|教授|院长|护士|老师|女士|先生|同志|"
                        r"(?P<h>诊所|医院|卫生院|卫生室|中医馆|门诊部)|挂|的|滴|说|在|是|和|也|今|家属|家|收|让|给|都|还|就|看|已|会)")


def _dotted(t: str) -> list[Span]:
    out = []
    for m in _DOT.finditer(t):
        s, e = m.span()
        if t.rfind("《", 0, s) > t.rfind("》", 0, s):
            continue                                  # 《一代宗师·叶问》: a work's title
        lm = _DOT_LEFT.match(t, s)
        if lm is not None and min(i for i in range(s, e) if t[i] in "·•・") - lm.end() >= 2:
            s = lm.end()
        dot = max(i for i in range(s, e) if t[i] in "·•・")
        r = _DOT_RIGHT.search(t, dot + 1, e)
        hosp = False
        if r is not None and r.start() - dot > 2:
            hosp = r.group("h") is not None
            e = r.start() + (len(r.group()) if hosp else 0)
        if t.find("·", s, e) - s >= 2 or t.find("•", s, e) - s >= 2 or t.find("・", s, e) - s >= 2:
            out.append(Span(s, e, "HOSPITAL" if hosp else "NAME", DETECTOR))
    return out


_ASCII_UPPER = re.compile(r"[A-Z]")
def slot_names(t: str) -> list[Span]:
    """Every name of this module's slots and forms in the normalised text ``t``."""
    out = _titled(t) if _TITLE.search(t) else []
    out += _slot(t)
    if "、" in t:
        out += _lists(t)
    if _ASCII_UPPER.search(t):
        out += _latin(t)
    if "加" in t or "x" in t or "X" in t or "微信" in t:
        out += [Span(*m.span("n"), "URL", DETECTOR) for m in _HANDLE.finditer(t)]
    if "·" in t or "•" in t or "・" in t:
        out += _dotted(t)
    return out


# -- what a name never is --------------------------------------------------------------------------------

_NOT_NAME_AFTER = re.compile(r"台风|牌|号台风")


def not_a_name(t: str, s: int, e: int) -> bool:
    """A NAME span that is a regional kinship word or a dialect phrase (阿嬷, 娃娃, 亚克西), or a
    typhoon's name (海燕台风)."""
    x = t[s:e]
    return x in KIN_WORDS or x in _DIALECT_PHRASES or _NOT_NAME_AFTER.match(t, e) is not None
