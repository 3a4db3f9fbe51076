"""Spoken and disguised identifiers: numbers read out digit by digit, contact cues written around a
platform's filter, e-mails spelt out, names spelt by their components.

Online consultations carry identifiers that were SPOKEN and transcribed (voice messages, phone
transcripts) or DISGUISED to pass a "no contact details" filter: 幺三八 嗯 零零一二 三四五六,
①③⑧…, 壹叁捌…, 138.1234.5678, 加薇 / V信 / 扣扣 / 企鹅号, "zhang wei 一二三 at 一六三 点 com",
弓长张, 立早章, "伟大的伟". The rules (:mod:`medrealmm.deid.text_rules`) read ASCII digits; this layer
reads a *digit view* of the text:

- every digit written another way (Chinese 零〇一幺二两三…九, the military 洞 拐 勾, the financial
  壹贰叁…, circled and full-width digits) counts as its ASCII digit, and a *run* of them may be cut by
  spaces, dots, dashes, commas, "…", an emoji, a single letter or a filler word (嗯, 那个, 然后);
  a self-correction (不对, 说错了) inside a run replaces the group before it;
- a run is an identifier by its shape alone when it is a mobile (11 digits from 1[3-9], with or without
  86), a landline with its area code (0 + 9–11 digits), or a resident ID (18 characters with a valid
  GB 11643 check character, spoken as 叉 / X / 埃克斯; 15 digits with a valid region and birth date);
- after a cue (电话, 电联, 手机尾号, 加薇, V信, vx, 扣扣, 企鹅号, 球球, 身份证, 病历号, 订单号 …) a shorter
  run is the cue's identifier: a QQ number (5–11 digits), a record, card or order number, a phone's last
  four digits;
- e-mail and web addresses spelt out: ``at`` / 圈a / 艾特 / # for @, 点 / dian / (点) / dot for the dot;
- a surname spelt by its components (弓长张, 立早章, 耳东陈, 木子李 …) and a given-name character
  explained by a word (伟大的伟, 建是建国的建).

Clinical numbers stay: a positional numeral (一百四十五, 三十八度五) is no digit run (十 百 千 万 cut it),
and a run without a cue must have an identifier's full shape, so 一二年级, 三四天, 一天三次, 幺幺零,
一二零 and 一二三二零 stay. Pure ASCII runs are left to the rules unless written with separators the
rules do not read (an emoji, "…", one digit at a time).

The detector never logs what it finds (spans hold offsets, not text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from medrealmm.deid.spans import Span, merge_spans
from medrealmm.deid.text_lexicons import AMBIGUOUS_SURNAMES, SURNAMES
from medrealmm.deid.text_rules import valid_resident_id

DETECTOR = "spoken"

# --- the digit view ------------------------------------------------------------------------------------

_DIGIT_OF: dict[str, str] = {}
for _d, _chars in enumerate(("零〇洞⓪０", "一幺壹①❶➀⑴⒈１", "二两贰貳②❷➁⑵⒉２", "三叁參③❸➂⑶⒊３", "四肆④❹➃⑷⒋４",
                             "五伍⑤❺➄⑸⒌５", "六陆陸⑥❻➅⑹⒍６", "七柒拐⑦❼➆⑺⒎７", "八捌⑧❽➇⑻⒏８", "九玖勾⑨❾➈⑼⒐９")):
    for _c in _chars:
        _DIGIT_OF[_c] = str(_d)
for _d in range(10):
    _DIGIT_OF[str(_d)] = str(_d)
_ALT_DIGITS = "".join(c for c in _DIGIT_OF if not c.isascii())
_D = "[0-9" + _ALT_DIGITS + "]"
_ALT = re.compile("[" + _ALT_DIGITS + "]")
_SPOKEN = re.compile("[" + "".join(c for c in _ALT_DIGITS if not "０" <= c <= "９") + "]")   # not full-width

# what may stand between two digits of one number as it is read out or disguised
_FILLER = (r"嗯+|啊|呃|额|哦|噢|唔|呢|吧|那个|这个|就是|然后|接着|再|是|对对|对|和|加|杠|横杠|减|到|后面是?|中间是?|最后是?|"
           r"后四位是?|前三位是?|中间四位是?")
_CORRECTION = r"不对不对|不对|不是|说错了|错了|我说错了|重说|更正一下|哦不|啊不"
_EMOJI = "\U0001F300-\U0001FAFF\u2600-\u2775\u2794-\u27BF\u2B00-\u2BFF\uFE0F\u200D\u2764\u2665\u2661\u2606\u2605"
_PUNCT = r" \t\u3000\u00a0.,，、\-_—–·•・/|~～…:：*＊+()（）\[\]【】<>《》\"'“”‘’"
_SEP1 = "[" + _PUNCT + _EMOJI + "]"
_SEP = r"(?:" + _SEP1 + r"|(?:" + _CORRECTION + r")|(?:" + _FILLER + r")|(?<=[0-9" + _ALT_DIGITS + r"])[A-Za-z](?=" + _D + r"))"
# a run: at least four digits, separators of at most five characters between two of them
_RUN = re.compile(r"(?<![0-9" + _ALT_DIGITS + r"十百千万点])" + _D + r"(?:" + _SEP + r"{0,5}" + _D + r"){2,}")
_CHECK = re.compile(r"\s*(?:大写的?|小写的?)?\s*(?:[Xx×ⅹＸｘ]|叉|埃克斯|艾克斯|爱克斯|挨克斯)")
_LETTERS_BEFORE = re.compile(r"(?:[A-Z]\s?){1,3}$")
_CORRECTION_RX = re.compile(_CORRECTION)
_SERVICE = frozenset({"110", "112", "114", "119", "120", "122", "999", "12315", "12320", "12345", "12356", "10086", "10010",
                      "10000", "95598"})     # service numbers said in a row are no record number
_DATE_AFTER = re.compile(r"\s*(?:年|月|日|号)")
_GROUP_SEP = re.compile(r"[^0-9" + _ALT_DIGITS + r"]+")
_AFTER_DIGIT_STOP = re.compile(r"\s*(?:十|百|千|万|点[0-9" + _ALT_DIGITS + r"]|\.[0-9]|度|岁|次|片|粒|毫|克|斤|公斤|米|厘米|分|秒|"
                               r"小时|天|周|月|年|号楼|单元|层|室|块|元|个|mg|ml|g|kg|mmol|%)")

# --- cues -------------------------------------------------------------------------------------------------

_CUES = (
    ("qq", r"[Qq]{2}号?|[Qq]号|(?<![A-Za-z])[Qq](?=是|\s|[:：])|扣扣号?|抠抠号?|叩叩号?|企鹅号?|球球号?|寇寇号?"),
    ("wechat", r"微信号?|[VvWw]信号?|威信号?|薇信号?|徽信号?|维信号?|卫信号?|加薇|薇❤|薇心|加[VvWw]|[VvWw][Xx]号?|"
               r"[Ww]ei\s?[Xx]in|[Ww]e[Cc]hat|绿泡泡|加个?微|加我微|微[:：]|薇[:：]|[VvWw]❤|[VvWw]心|[+➕][VvWw]|[Ww]ei信"),
    ("tail", r"手机尾号|电话尾号|号码尾号|尾号是?|后四位是?|末四位是?"),
    ("part", r"分开说|分开发|拆开说|拆开发|接上条|接上一条|后面是|剩下的是?|后半段是?|前半段是?|前面是"),
    ("phone", r"手机号码?|手机|电话号码?|联系电话|电话|电联|联系方式|联系我|打我|打给我|拨打|致电|座机号?|固话|号码是|"
              r"[Tt][Ee][Ll]|[Cc]all|新的|号码|可以打|打这个|打"),
    ("id", r"身份证号码?|身份证|证件号码?|身份号码?|身份证件号"),
    ("mrn", r"病历号|病案号|住院号|门诊号|就诊卡号?|诊疗卡号?|医保卡号?|医保号|社保卡号?|健康卡号?|档案号|登记号|病人号|患者号|"
            r"卡号|检查号|条码号|门诊ID|患者ID|就诊号|挂号号|病历编号|住院编号|门诊编号|报告编号|报告单号|检验号|就诊卡"),
    ("order", r"订单号|订单编号|订单|单号|流水号|预约号|预约码|挂号单号|问诊单号|交易号|快递单号|运单号|发票号|取药码|验证码|"
              r"退款单号|退款编号|挂号单"),
)
_CUE_FIRST = "+➕QqVvWwTtCc扣抠叩企球寇微威薇徽维卫加绿手电号尾后末分拆接剩前联打拨致座固新身证病住门就诊医社健档登卡检条患挂报订单流预问交快运发取验退"
_CUE_RX = re.compile("(?=[" + _CUE_FIRST + "])(?:" + "|".join(f"(?P<{k}>{v})" for k, v in _CUES) + ")")
_CUE_GAP = re.compile(r"(?:[\s:：是为\-—,，.的号码→>＞=A-Z]|我|报|说|念|发|一下|给您|给你|你|您|记一下|嘛|吧|呢|哈|啊|呃|嗯|那个|就是|"
                      r"写|这样|是)*$")
# --- dates read out (八四年七月一号, 这个月二十七号, 二三年四月十九住的院) -------------------------------------
# an ASCII number written around a filter: a separator the rules do not read between two digits, or one digit at a time
_ODD_NUMBER = re.compile(r"[0-9](?:[ \t]?(?:[" + _EMOJI + r"…、·•・/~～*＊_|]|[A-Za-z]|" + _CORRECTION + "|" + _FILLER
                         + r")[ \t]?)+[0-9]|[0-9](?: [0-9]){3}")
_HANDLE_GATE = re.compile(r"[微薇威徽维卫扣企球泡QqVvWw]")
_PLAIN = re.compile(r"[0-9 \-.,，:：/]+")

_ZD = r"(?:三十一?|二十[一二三四五六七八九]?|十[一二三四五六七八九]?|[一二三四五六七八九])"
_ZM = r"(?:十[一二]|[一二三四五六七八九十])"
_SPOKEN_DATE = re.compile(
    r"(?<![〇零一二三四五六七八九十两百千万几])(?:(?P<y>(?:[〇零一二三四五六七八九]{4}|[〇零一二三四五六七八九]{2})年|去年|今年|前年|明年)"
    r"(?P<m>" + _ZM + r")月份?(?:(?P<d>" + _ZD + r")(?P<s>号|日)?)?"
    r"|(?P<m2>" + _ZM + r")月(?P<d2>" + _ZD + r")(?P<s2>号|日)"
    r"|(?:这个月|上个月|下个月|本月|上月|下月)(?P<d3>" + _ZD + r")(?:号|日))"
    r"(?![〇零一二三四五六七八九十])")
_DATE_WORD_AFTER = re.compile(r"\s?(?:住|出生|生的|生|开始|入院|出院|做|那天|来|复查|手术|去|查|发|病|确诊|的时候|号)")


# --- a compound's building read out (翠湖花园二十三栋二单元四零一), a place named colloquially (就是 民主路 那边) --

_ZN = r"[一二三四五六七八九十零〇幺两]"
_SPOKEN_BUILDING = re.compile(r"[\u4e00-\u9fff]{1,5}(?:小区|花园|家园|公寓|宿舍|新村|新城|大院|家属院|苑|园|湾|府|城|里|庭|居|阁|村)" + _ZN + r"{1,3}(?:栋|号楼|幢|座)"
                              + _ZN + r"{1,2}单元" + _ZN + r"{3,4}(?:室|号)?")
_COLLOQUIAL_PLACE = re.compile(r"(?:就是|就|呃|嗯|那个)[\s，,]*(?P<p>[\u4e00-\u9fff]{2,4}(?:路|街|大道|小区|花园|家园|宿舍|新村|新城|大院|家属院|园|苑|湾))"
                               r"[\s，,]*(?:那边|那一块|那块|附近|那儿|那里)")
_PLACE_START_STOP = frozenset("的了在是我你他她这那就还也都去到往从回来个")
_GENERIC_PLACE = frozenset({"公园", "花园", "家园", "乐园", "动物园", "幼儿园", "校园", "菜园", "果园", "庄园", "马路", "大街", "大道",
                            "小区", "街道", "新村", "新城", "大院", "宿舍"})


# --- e-mails and web addresses spelt out ----------------------------------------------------------------

_A = "[" + _ALT_DIGITS + "]"
_LOCAL_CH = r"(?:[A-Za-z0-9_.\-]|" + _A + r"|下划线|横杠|杠|点)"
_DOM_CH = r"(?:[A-Za-z0-9\-]|" + _A + r")"
_AT = r"(?:\s?(?:(?<![A-Za-z])at(?![A-Za-z])|(?<![A-Za-z])AT(?![A-Za-z])|艾特|爱特|小老鼠|圈\s?[Aa]|@|＠|#|＃|[（(\[【]\s*(?:at|AT|@|艾特)\s*[)）\]】])\s?)"
_DOT = r"(?:\s?(?:点|\.|。|[（(\[【]\s*(?:点|dot|\.)\s*[)）\]】]|(?<![A-Za-z])(?:dot|DOT|dian)(?![A-Za-z]))\s?)"
_TLD = r"(?:c\s?o\s?m|c\s?n|n\s?e\s?t|o\s?r\s?g|edu|gov|top|cc|me|io|biz|info)"
_EMAIL = re.compile(r"(?<![A-Za-z0-9_])" + _LOCAL_CH + r"(?:\s?" + _LOCAL_CH + r"){0,40}?" + _AT + r"(?:" + _DOM_CH + r"(?:\s?"
                    + _DOM_CH + r"){0,20}" + _DOT + r")+" + _TLD + r"(?![A-Za-z])", re.I)
_AT_GATE = re.compile(r"(?<![A-Za-z])at(?![A-Za-z])|艾特|爱特|老鼠|圈\s?[Aa]|[@＠#＃]", re.I)
_WEB = re.compile(r"(?<![A-Za-z0-9_])(?:https?://\s?|www" + _DOT + r")(?:[A-Za-z0-9\-_]+" + _DOT + r")*[A-Za-z0-9\-_]+" + _DOT
                  + _TLD + r"(?![A-Za-z])(?:/[A-Za-z0-9_\-./?=&%]*)?", re.I)
# a handle read out letter by letter after a WeChat cue (微信号我说一下 w x p a n h 六 一 零)
_SPOKEN_HANDLE = re.compile(r"(?:微信号?|[VvWw]信号?|威信号?|薇信号?|[VvWw][Xx]号?|加薇|扣扣号?|[Qq]{2}号?)(?:我说一下|说一下|我报一下|是|[\s:：，,]|嗯|呃|然后呢?|那个|对对|就是)*"
                            r"(?P<h>(?:[A-Za-z0-9]|" + _A + r"|下划线|杠)(?:\s?(?:[A-Za-z0-9]|" + _A + r"|下划线|杠)){4,30})")


# --- names spelt by their components --------------------------------------------------------------------

_SURNAME_PARTS = ("西早覃", "木土杜", "四夕罗", "金中钟", "刍耳邹", "丘耳邱", "文武斌", "单人何", "双人徐", "双人彭",
                  "日召昭", "木易杨", "三石磊", "三金鑫", "三木森", "三水淼", "双火炎", "日生星", "田力男", "少女妙", "王令玲",
                  "王其琪", "木每梅", "弓虽强", "山夆峰", "日青晴", "白王皇", "三日晶", "言身寸谢", "工口呈", "口王呈", "土口吉",
                  "弓长张", "立早章", "耳东陈", "木子李", "口天吴", "草头黄", "双木林", "古月胡", "三横王", "三横一竖王",
                  "人可何", "言午许", "走肖赵", "文刀刘", "关耳郑", "禾呈程", "双口吕", "子小孙", "耳东阵", "弓长章",
                  "十八子李", "口十叶", "女子好", "日月明", "三点水的江", "提手旁", "单人旁", "双人徐", "双人余", "木易杨",
                  "草头萧", "宝盖", "人尔你", "月半胖", "王白皇", "千里重", "马户驴", "土也地", "白水泉", "虫工虹",
                  "口吉周", "夕夕多", "又鸟鸡", "木公松", "立青靖", "言射谢", "金艮银", "金失铁", "山鬼嵬", "女马妈")
_SPELLED_FORMS = sorted((p for p in _SURNAME_PARTS if len(p) >= 3 and p[-1] not in "旁盖"), key=len, reverse=True)
_SPELLED = re.compile("(?=[" + "".join(sorted({p[0] for p in _SPELLED_FORMS})) + "])(?:" + "|".join(_SPELLED_FORMS) + ")")
_RADICAL = re.compile(r"(?=[三两单双木草提女王绞言金立耳宝口日月火土山竹雨走反病广门石禾米车马鱼])(?:三点水|两点水|单人旁|双人旁|木字旁|草字头|草头|提手旁|女字旁|王字旁|绞丝旁|言字旁|金字旁|立刀旁|耳刀旁|"
                      r"宝盖头?|口字旁|日字旁|月字旁|火字旁|土字旁|山字旁|竹字头|雨字头|走之旁?|反犬旁|病字头|广字头|门字框|"
                      r"双耳旁?|石字旁|禾木旁|米字旁|车字旁|马字旁|鱼字旁|三横一竖|三横)(?:的|那个)?[\u4e00-\u9fff]")
# 伟大的伟, 芳是芬芳的芳, 曾经的曾那个曾: a character explained by a word that holds it
_EXPLAINED = re.compile(r"(?:(?P<c>[\u4e00-\u9fff])是(?=[\u4e00-\u9fff]{1,3}的(?P=c)))?(?P<w>[\u4e00-\u9fff]{2,3})的(?P<x>[\u4e00-\u9fff])(?:那个(?P=x))?")
_PARTS_OF = re.compile(r"(?P<c>[\u4e00-\u9fff])是(?P<w>[\u4e00-\u9fff]{2})(?P=c)(?=$|[\s，,。；;对吧那])")   # 斌是文武斌
# the name a spelling is about, said just before it (应该是吴英斌，那个斌是文武斌)
_NAME_BEFORE = re.compile(r"(?:是|叫|写我|名字|[：:，,\s])(?P<n>[\u4e00-\u9fff]{2,3})(?=[\s，,。]|就是|那个|对吧)")
_EXPLAIN_CUE = re.compile(r"姓|名|叫|字|写|哪个")
_EXPLAIN_END = re.compile(r"$|[\s，,。.、；;！!？?）)]|对|吧|那|和|跟|呢|啊|嗯|不")
_EXPLAIN_STOP = frozenset("的了是我你他她这那有没不也都就还在个么吗呢")
# 杜**, 杜*春, 胡x主任: a name half hidden
_MASKED_NAME = re.compile(r"(?P<s>[\u4e00-\u9fff])(?:[*＊]{1,3}|[xX×][*＊]?(?=主任|医生|大夫|护士|老师|女士|先生))(?:[\u4e00-\u9fff](?=[\s，,。、在]))?")
_AGENT_NICK = re.compile(r"客服(?:人员)?(?P<n>[小阿][\u4e00-\u9fff])(?![\u4e00-\u9fff])")
_PINYIN_SYL = (r"(?:zh|ch|sh|[bpmfdtnlgkhjqxrzcsyw])?(?:iang|iong|uang|ang|eng|ing|ong|uan|ian|iao|uai|ai|ei|ao|ou|an|en|in|un|"
               r"ia|ie|iu|ua|uo|ue|ui|er|a|o|e|i|u|v)")
_SYLLABLES = re.compile("(?:" + _PINYIN_SYL + "){2,4}")
_PINYIN_NAME = re.compile(r"(?:我叫|名字是?|姓名|患者|病人叫?|叫)[:：\s]*(?P<n>(?i:(?:" + _PINYIN_SYL + r"){1,2}(?:\s?(?:" + _PINYIN_SYL
                          + r"){1,3})?)|[\u4e00-\u9fff][A-Z]{1,3})(?![A-Za-z])")


_HARD = re.compile(r"[，,。;；:：\n]")
_ODD = re.compile(r"[" + _EMOJI + r"…、·•・/~～*＊_]|[A-Za-z]|[\u4e00-\u9fff]")


@dataclass(frozen=True)
class _Group:
    start: int
    end: int
    digits: str
    hard_before: bool     # a comma, full stop or colon between this group and the one before
    soft_hard: bool       # … only a comma (0874，8612256: a number written in two parts)
    odd_before: bool      # a separator the rules do not read (an emoji, …, a filler word, a letter)


def _groups(text: str, start: int, end: int) -> list[_Group]:
    out: list[_Group] = []
    pos = start
    for m in _DIGITS_RX.finditer(text, start, end):
        sep = text[pos:m.start()]
        hard = bool(out) and _HARD.search(sep) is not None
        out.append(_Group(m.start(), m.end(), "".join(_DIGIT_OF[c] for c in m.group()), hard,
                          hard and sep.strip() in ("，", ","), bool(out) and _ODD.search(sep) is not None))
        pos = m.end()
    return out


_DIGITS_RX = re.compile(_D + "+")


def _mobile(d: str) -> bool:
    if d.startswith("86") and len(d) == 13:
        d = d[2:]
    return len(d) == 11 and d[0] == "1" and d[1] in "3456789"


def _landline(d: str) -> bool:
    if len(d) < 10 or d[0] != "0" or d[1] == "0":
        return False
    if d[1] in "12":                       # 010, 02x: 8 digits after
        return len(d) in (10, 11) and d[3] in "23456789"
    return len(d) in (11, 12) and d[4] in "23456789"


def _shape(d: str, check: str = "") -> str | None:
    """The category a digit string's shape alone makes it, or None."""
    if check:
        return "ID" if len(d) == 17 and valid_resident_id(d + "X") else None
    if len(d) in (15, 18) and valid_resident_id(d):
        return "ID"
    if _mobile(d) or _landline(d):
        return "PHONE"
    return None


def _cue_ok(cue: str, n: int) -> str | None:
    """The category a cue gives a run of ``n`` digits right after it, or None."""
    if cue == "qq":
        return "URL" if 5 <= n <= 12 else None
    if cue == "wechat":
        return "URL" if n >= 5 else None
    if cue == "tail":                      # 手机尾号4341: four digits of a number identify nobody
        return None
    if cue == "part":                      # 分开说 一八五七 后面的等下: a phone number sent in parts
        return "PHONE" if n >= 3 else None
    if cue == "phone":
        return "PHONE" if 7 <= n <= 14 or n == 4 else None
    if cue == "id":
        return "ID" if n >= 6 else None
    if cue == "mrn":
        return "MRN" if n >= 4 else None
    if cue == "order":
        return "ORDER_ID" if n >= 4 else None
    return None


class SpokenDetector:
    """Identifiers spoken or disguised (see the module docstring): ``find(text) -> list[Span]``."""

    name = DETECTOR

    def __init__(self, *, year_month: bool = True, detector: str = DETECTOR):
        self.name = detector
        self.year_month = year_month

    def find(self, text: str) -> list[Span]:
        if not text:
            return []
        out: list[Span] = []
        self._numbers(text, out)
        if _HANDLE_GATE.search(text) is not None:
            self._cued_handles(text, out)
        if _AT_GATE.search(text) is not None:
            out += [Span(*m.span(), "EMAIL", self.name) for m in _EMAIL.finditer(text)
                    if not _plain(m.group())]
        low = text.lower()
        if "www" in low or "http" in low:
            out += [Span(*m.span(), "URL", self.name) for m in _WEB.finditer(text) if not _plain(m.group())]
        if "月" in text:
            self._dates(text, out)
        if "单元" in text or "那" in text:
            self._places(text, out)
        self._names(text, out)
        return merge_spans(out)

    def _places(self, text: str, out: list[Span]) -> None:
        if "单元" in text:
            for m in _SPOKEN_BUILDING.finditer(text):
                b = m.start()
                while b < m.end() and text[b] in _PLACE_START_STOP:
                    b += 1
                out.append(Span(b, m.end(), "ADDRESS", self.name))
        for m in _COLLOQUIAL_PLACE.finditer(text):
            p = m.group("p")
            if p[0] not in _PLACE_START_STOP and p not in _GENERIC_PLACE and p[1:] not in _GENERIC_PLACE:
                out.append(Span(*m.span("p"), "ADDRESS", self.name))

    def _dates(self, text: str, out: list[Span]) -> None:
        for m in _SPOKEN_DATE.finditer(text):
            if m.group("y") and m.group("d") and not m.group("s") and _DATE_WORD_AFTER.match(text, m.end()) is None:
                out.append(Span(m.start(), m.end("m") + 1, "DATE", self.name))   # 八五年三月 then a count
                continue
            if m.group("y") and not m.group("d") and not self.year_month:
                continue
            out.append(Span(m.start(), m.end(), "DATE", self.name))

    # --- numbers ---------------------------------------------------------------------------------------
    def _numbers(self, text: str, out: list[Span]) -> None:
        if _ALT.search(text) is None and _CUE_RX.search(text) is None and _ODD_NUMBER.search(text) is None:
            return                             # ASCII digits only, written the plain way, no cue: the rules' part
        cues: list[tuple[int, str]] | None = None
        for m in _RUN.finditer(text):
            start = m.start()
            if cues is None:
                cues = [(c.end(), c.lastgroup or "") for c in _CUE_RX.finditer(text)]
            cue = None
            for e, kind in cues:
                if start - 14 <= e <= start and _CUE_GAP.match(text, e, start) is not None:
                    cue = kind
            if cue is None and _PLAIN.fullmatch(text, start, m.end()) is not None and text.count(" ", start, m.end()) < 6:
                continue                       # ASCII digits written the plain way: the rules' part
            self._run(text, start, m.end(), cue, out)

    def _run(self, text: str, start: int, end: int, cue: str | None, out: list[Span]) -> None:
        run = text[start:end]
        alt = _SPOKEN.search(run) is not None
        groups = _groups(text, start, end)
        if not alt and cue is None and _ALT.search(run) is None and not any(g.odd_before for g in groups) \
                and not (len(groups) >= 7 and all(len(g.digits) == 1 for g in groups)):
            return
        if _CORRECTION_RX.search(run) is not None and self._corrected(text, start, end, groups, cue, out):
            return
        i = 0
        k = len(groups)
        while i < k:
            best: tuple[int, str, int] | None = None        # (last group, category, end)
            digits = ""
            for j in range(i, min(k, i + 12)):
                if j > i and groups[j].hard_before and not alt and not groups[j].soft_hard:
                    break
                digits += groups[j].digits
                if len(digits) > 18:
                    break
                e = groups[j].end
                check = ""
                if len(digits) == 17 and (c := _CHECK.match(text, e)) is not None:
                    check, e = "X", c.end()
                shape = _shape(digits, check)
                if shape is not None:
                    if cue in ("qq", "wechat") and i == 0 and shape == "PHONE" and not _mobile(digits):
                        shape = "URL"
                    best = (j, shape, e)
            if best is None and i == 0 and cue is not None:
                digits = ""
                for j in range(0, k):
                    if j > 0 and groups[j].hard_before and not alt:
                        break
                    digits += groups[j].digits
                    e = groups[j].end
                    if cue == "id" and len(digits) == 17 and (c := _CHECK.match(text, e)) is not None:
                        e = c.end()
                    cat = _cue_ok(cue, len(digits))
                    if cat is not None and not _AFTER_DIGIT_STOP.match(text, groups[j].end):
                        best = (j, cat, e)
            if best is None and alt:
                # a long number read out digit by digit is no clinical value: a record or order number
                digits, last = "", i
                for j in range(i, k):
                    if j > i and groups[j].hard_before and not groups[j].soft_hard:
                        break
                    digits += groups[j].digits
                    last = j
                if len(digits) >= 10 and max(len(g.digits) for g in groups[i:last + 1]) >= 4 \
                        and not any(g.digits in _SERVICE for g in groups[i:last + 1]) \
                        and not _AFTER_DIGIT_STOP.match(text, groups[last].end) \
                        and not _DATE_AFTER.match(text, groups[last].end):
                    best = (last, "ORDER_ID", groups[last].end)
            if best is None:
                i += 1
                continue
            j, cat, e = best
            b = groups[i].start
            if i == 0 and cat in ("ORDER_ID", "MRN") and (x := _LETTERS_BEFORE.search(text, max(0, b - 6), b)) is not None:
                b = x.start()                  # T K 三三洞九 …: the letters the number begins with
            out.append(Span(b, e, cat, self.name))
            i = j + 1

    def _corrected(self, text: str, start: int, end: int, groups: list[_Group], cue: str | None,
                   out: list[Span]) -> bool:
        """A number with a self-correction inside (幺三八 零零 不对 零一 …): masked whole when the number
        as corrected, or as said again after the correction, has an identifier's shape."""
        run = text[start:end]
        if _AFTER_DIGIT_STOP.match(text, end):
            return False                       # 不对，三四个月后: the correction is about something else
        parts = _CORRECTION_RX.split(run)
        said = ["".join(_DIGIT_OF.get(c, "") for c in p) for p in parts]
        last_groups = [g for g in _GROUP_SEP.split(parts[0]) if g]
        cands = [said[-1], said[0][:len(said[0]) - (len(last_groups[-1]) if last_groups else 0)] + "".join(said[1:]),
                 "".join(said)]
        for d in cands:
            cat = _shape(d) or (_cue_ok(cue, len(d)) if cue else None)
            if cat is not None:
                out.append(Span(groups[0].start, groups[-1].end, cat, self.name))
                return True
        return False

    def _cued_handles(self, text: str, out: list[Span]) -> None:
        """A WeChat or QQ handle of letters after a disguised cue (加薇 zhangwei_88), or read out letter by
        letter after any (微信号我说一下 w x p a n h 六 一 零)."""
        for m in _SPOKEN_HANDLE.finditer(text):
            h = m.group("h")
            if " " in h.strip() and re.search(r"[A-Za-z]", h):
                s, e = m.start("h"), m.start("h") + len(h.rstrip())
                if not any(x.start < e and s < x.end for x in out):
                    out.append(Span(s, e, "URL", self.name))
        for m in _HANDLE.finditer(text):
            s, e = m.span("h")
            if not any(x.start < e and s < x.end for x in out):
                out.append(Span(s, e, "URL", self.name))

    # --- names -----------------------------------------------------------------------------------------
    def _names(self, text: str, out: list[Span]) -> None:
        found: list[Span] = []
        for rx in (_SPELLED, _RADICAL):
            found += [Span(*m.span(), "NAME", self.name) for m in rx.finditer(text)]
        if "的" in text and _explained_somewhere(text):
            for m in _EXPLAINED.finditer(text):
                w, x = m.group("w"), m.group("x")
                if x not in w or x in _EXPLAIN_STOP or (m.group("c") and m.group("c") != x):
                    continue
                if _EXPLAIN_END.match(text, m.end()) is None:
                    continue                   # 综合症的症状: the word goes on
                before = text[max(0, m.start() - 25):m.start()]
                near = any(0 <= m.start() - f.end <= 3 for f in found)
                if not (m.group("c") or near or _named_before(text, m.start(), x) or _EXPLAIN_CUE.search(before[-12:])):
                    continue
                b = m.start() + (1 if len(w) == 3 and w[0] in "是就叫" and not m.group("c") else 0)
                found.append(Span(b, m.end(), "NAME", self.name))
        if "是" in text:
            found += [Span(*m.span(), "NAME", self.name) for m in _PARTS_OF.finditer(text)
                      if m.group("c") not in _EXPLAIN_STOP and _named_before(text, m.start(), m.group("c"))]
        found = [_then_again(text, f) for f in found]
        for f in list(found):
            x = text[f.end - 1]
            for m in _NAME_BEFORE.finditer(text, max(0, f.start - 20), f.start):
                n = m.group("n")
                if x in n and n[0] in SURNAMES and n[0] not in AMBIGUOUS_SURNAMES:
                    found.append(Span(*m.span("n"), "NAME", self.name))
        if "叫" in text or "名字" in text:
            for m in _CUED_SHORT.finditer(text):
                n = m.group("n")
                if n[0] in SURNAMES or n[0].isascii() and n not in _NOT_INITIALS:
                    found.append(Span(*m.span("n"), "NAME", self.name))
        if "*" in text or "＊" in text or "x" in text or "X" in text:
            found += [Span(*m.span(), "NAME", self.name) for m in _MASKED_NAME.finditer(text) if m.group("s") in SURNAMES]
        if "客服" in text:
            found += [Span(*m.span("n"), "NAME", self.name) for m in _AGENT_NICK.finditer(text)]
        if _LATIN.search(text) is not None:
            for m in _PINYIN_NAME.finditer(text):
                n = m.group("n")
                if n[0].isascii() and not _SYLLABLES.fullmatch(n.replace(" ", "").lower()) \
                        or n[0].isascii() and " " not in n and len(n) < 4:
                    continue                   # hi, ok: one syllable is no name
                if n[0].isascii() or n[0] in SURNAMES:
                    found.append(Span(*m.span("n"), "NAME", self.name))
        out += found


_LATIN = re.compile(r"[A-Za-z][a-z]|[\u4e00-\u9fff][A-Z]")
# after 我叫/名字: a name half hidden (李x, 冯x国), spaced (汪 红, 赵 晨 芳) or in initials (QXS, 名字ZX)
_CUED_SHORT = re.compile(r"(?:我叫|名字是?|叫)[:：\s]*(?P<n>[\u4e00-\u9fff][xX×](?:[\u4e00-\u9fff](?![\u4e00-\u9fff]))?|"
                         r"[\u4e00-\u9fff](?: [\u4e00-\u9fff]){1,2}(?=[\s，,。]|在|$)|(?<=我叫|名字|字是)[A-Z]{2,4}(?![A-Za-z]))")
_NOT_INITIALS = frozenset({"CT", "MRI", "DR", "PET", "ICU", "HIV", "HPV", "TCT", "BMI", "ECG", "EEG", "OK", "NO", "ID", "QQ"})


def _explained_somewhere(text: str) -> bool:
    """A cheap test for _EXPLAINED: a 的 followed by a character said in the three before it (伟大的伟)."""
    i = text.find("的", 2)
    while i != -1:
        if i + 1 < len(text) and text[i + 1] in text[max(0, i - 3):i]:
            return True
        i = text.find("的", i + 1)
    return False


def _named_before(text: str, start: int, x: str) -> bool:
    """Whether a name holding ``x`` (a surname first) was said just before ``start``."""
    return any(x in n.group("n") and n.group("n")[0] in SURNAMES and n.group("n")[0] not in AMBIGUOUS_SURNAMES
               for n in _NAME_BEFORE.finditer(text, max(0, start - 25), start))


def _then_again(text: str, span: Span) -> Span:
    """弓长张那个张: the character said once more goes with its spelling."""
    c = text[span.end - 1]
    if text.startswith("那个" + c, span.end):
        return Span(span.start, span.end + 3, span.category, span.detector)
    return span

_HANDLE = re.compile(r"(?:加薇|薇❤|威❤|加下威|薇心|薇[:：]|[VvWw]信号?|[Ww]ei信|加[VvWw][Xx]|威信号?|徽信号?|维信号?|卫信号?|加[VvWw]|企鹅号?|球球号?|扣扣号?|"
                     r"绿泡泡)(?:[\s:：]|是|号是|嘛|吧|呀|我说一下|说一下)*(?P<h>[A-Za-z][A-Za-z0-9_\-]{5,19})(?![A-Za-z0-9_\-])")


def _plain(s: str) -> bool:
    """An e-mail or address written the plain way (the rules read it)."""
    return re.search(r"点|。|\s|dian|dot|[（(\[【]|[" + _ALT_DIGITS + r"]", s, re.I) is None
