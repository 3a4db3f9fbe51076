"""A seeded, labelled corpus of consultation sentences for testing and benchmarking text de-identification.

Real consultations carrying real identifiers cannot be shared, so tests and benchmarks use sentences
written from templates of online-consultation phrasing (patient and doctor voices), filled with
identifiers from Faker's ``zh_CN`` locale (names, valid resident IDs, phones, e-mails, URLs, places)
and composed ones (hospitals, sub-city addresses, dates in several formats, order and record numbers).
Every identifier comes with its gold span; clinical values that must survive (ages, durations,
relative time, doses, lab values, vitals, drugs, departments, words that start with a surname
character, generic hospital phrases) come with "keep" spans.

Four kinds of sentences: ``identifier`` (identifiers with the cues people use), ``clinical``
(no identifier at all: every mask there is a false positive), ``hard`` (identifiers without a
cue — a bare name, an abbreviation, a bare district, an obfuscated number — that rules are not
expected to catch; reported apart, they show what the agent pass is for) and ``heldout``
(templates written after the rules were tuned, never used to tune them).
"""

from __future__ import annotations

import datetime
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from medrealmm.deid.spans import CATEGORIES, Span

KEEP_KINDS: tuple[str, ...] = ("age", "duration", "relative", "dose", "lab", "vital", "time", "year", "month",
                               "drug", "department", "word", "generic")
"""Kinds of clinical "keep" spans; the targets name ages, durations, doses and lab values."""


@dataclass(frozen=True)
class KeepSpan:
    start: int
    end: int
    kind: str


@dataclass(frozen=True)
class LabelledSentence:
    text: str
    spans: tuple[Span, ...]          # gold identifiers, detector "gold"
    keep: tuple[KeepSpan, ...]       # clinical values that must survive
    voice: str                       # "patient" | "doctor"
    kind: str                        # "identifier" | "clinical" | "hard" | "heldout"
    template: int                    # index of the template within its kind (for error analysis)


# ---------------------------------------------------------------------------------------------
# templates: {UPPER} identifier slots, {lower} keep slots, {lower_} plain text slots (not scored)

_IDENT_PATIENT = (
    "医生您好，我叫{NAME}，今年{age}，{duration}前开始{symptom_}，上次在{HOSPITAL}做的检查，{lab}。",
    "您好，我是{NAME}的家属，他{age}，身份证号{ID}，想问一下{lab}正常吗？",
    "医生，我的手机号是{PHONE}，有问题可以直接联系我。",
    "我{relative}在{HOSPITAL}{department}看过，医生开了{drug}，{dose}。",
    "订单号{ORDER_ID}，我已经付款了，但是医生还没回复。",
    "病历号：{MRN}，这是我{DATE}的化验单，{lab}。",
    "我家住在{city_}{ADDRESS}，离{HOSPITAL}比较近，要不要{relative}过去看看？",
    "孩子{age}，{duration}了还在{symptom_}，{vital}，我的邮箱是{EMAIL}，麻烦把报告发给我。",
    "{SURNAME}医生您好，我{DATE}做的手术，现在{duration}了伤口还有点{symptom_}。",
    "我是{NAME}，住院号{MRN}，{relative}要出院了，出院带药是{drug}吗？",
    "{SURNAME}主任，我妈妈{age}，{word}{duration}了，{relative}量的{vital}。",
    "我在网上看到{URL}说{drug}可以治，是真的吗？",
    "我微信号是{WECHAT}，您方便加一下吗？",
    "出生日期：{BIRTH}，性别女，{age}，{symptom_}{duration}。",
    "我老公叫{NAME}，{age}，{DATE}在{HOSPITAL}查出{word}。",
    "发票号{ORDER_ID}，能开一下{department}的诊断证明吗？",
    "医保卡号{MRN}，{drug}能报销吗？",
    "就诊卡号是{MRN}，预约的是{DATE_MD}上午的号。",
    "我的电话{LANDLINE}，白天打这个就行。",
    "{DATE_YM}开始{symptom_}，当时在{HOSPITAL}住院{duration}。",
    "地址：{city_}{ADDRESS}，收件人{NAME}，电话{PHONE}，药寄到这里。",
    "姓名：{NAME} 性别：男 年龄：{age} 门诊号：{MRN} 检查日期：{DATE}",
    "报告医师：{NAME} 审核医师：{NAME}",
    "我在{HOSPITAL}做的{department}检查，{lab}，{lab}。",
    "{DATE}体检发现{lab}，{relative}复查{lab}。",
    "医生你好，我姓{SURNAME}，{age}，{symptom_}{duration}了。",
    "交易号{ORDER_ID}，退款什么时候到账？",
    "我叫{NAME}，手机{PHONE}，身份证{ID}，麻烦帮我开个证明。",
    "上次是{HOSPITAL}的{SURNAME}医生给我做的手术，{DATE}。",
    "我儿子叫{NAME}，{age}，{duration}前{symptom_}。",
    "我是{NAME}，上次咨询过您的，{drug}已经吃了{duration}。",
    "联系人：{NAME}，{PHONE}",
    "感谢{SURNAME}医生的耐心解答！",
    "请问{SURNAME}教授{relative}有门诊吗？",
    "麻烦转告{SURNAME}大夫，{drug}吃完了。",
    "就诊人：{NAME}，证件号码：{ID}",
    "护照号{PASSPORT}，在国外买的{drug}能带回来吃吗？",
    "我是{DATE}做的人流，到现在{duration}了还没来月经。",
    "末次月经是{DATE_MD}，已经{duration}没来了。",
    "{DATE}抽血{lab}，{DATE}复查{lab}。",
    "预产期是{DATE}，现在孕{duration}，{lab}。",
    "生日是{DATE_MD}，今年{age}。",
    "我住{city_}{ADDRESS}，最近搬家了，{duration}没吃药。",
    "我们小区是{ADDRESS}，楼下就有药店。",
    "老家在{province_}{city_}{ADDRESS}，孩子{age}了。",
    "身份证{ID}，电话{PHONE}，麻烦帮我挂{relative}的号。",
    "{SURNAME}医生，{relative}的{lab}我发您了，订单{ORDER_ID}。",
    "我女儿叫{NAME}，{age}，出生日期{BIRTH}，{symptom_}{duration}。",
    "快递单号{ORDER_ID}，药寄到{city_}{ADDRESS}了吗？",
    "家属{NAME}，电话{LANDLINE}，病人在{HOSPITAL}住院。",
    "挂号单号{MRN}，{DATE_MD}下午{department}。",
    "请加我微信{WECHAT}，我把{DATE}的片子发给您。",
    "医生好，我是{HOSPITAL}的护士，患者{NAME}想咨询一下{drug}的用法。",
)

_IDENT_DOCTOR = (
    "{NAME}您好，根据您上传的报告，{lab}，建议{relative}到{HOSPITAL}{department}复查。",
    "{SURNAME}女士您好，{drug}{dose}，连续服用{duration}。",
    "{SURNAME}先生，您的{lab}偏高，建议{duration}后复查。",
    "您好，我是{department}的{SURNAME}医生，{relative}的化验结果我看了，{lab}。",
    "可以到{HOSPITAL}挂{department}的号，地址是{city_}{ADDRESS}。",
    "如有疑问可拨打{LANDLINE}咨询。",
    "您{DATE}的检查显示{lab}，这个结果需要结合症状看。",
    "请把病历号{MRN}发给我，我帮您查一下。",
    "我是{NAME}医生，在{HOSPITAL}{department}，{relative}有门诊。",
    "建议您{DATE_MD}前到{HOSPITAL}做检查，{drug}先停{duration}。",
    "{SURNAME}大夫让您{relative}来复诊，带上{DATE}的片子。",
    "详细的饮食建议可以看{URL}。",
    "有问题可以发邮件到{EMAIL}。",
    "患者{NAME}，{age}，因{symptom_}{duration}入院。",
    "{NAME}，男，{age}，住院号{MRN}，入院日期{DATE}。",
    "医生签名：{NAME}",
    "{NAME}您好，您的订单号{ORDER_ID}已完成，{drug}{dose}。",
    "家属{NAME}请注意，{relative}上午{time}前禁食。",
    "{SURNAME}护士会在{relative}给您打电话，号码是{PHONE}。",
    "我是{HOSPITAL}的{SURNAME}主任，您的片子我看了，{lab}。",
    "您好{SURNAME}女士，{DATE}的{lab}已经正常了，{drug}可以减量。",
    "预约电话{LANDLINE}，就诊地址{city_}{ADDRESS}。",
    "门诊号{MRN}的检查结果已出，{lab}，{lab}。",
    "{SURNAME}医生的门诊是{DATE_MD}，可以在{URL}预约。",
    "建议{relative}到{HOSPITAL}就诊，挂{SURNAME}主任的号。",
)

_CLINICAL_PATIENT = (
    "孩子{age}，发烧{duration}了，{vital}，吃了{drug}{dose}还是不退。",
    "{relative}查的{lab}，{lab}，需要吃药吗？",
    "我{age}，{word}{duration}了，一直吃{drug}，{dose}。",
    "{time}开始{symptom_}，量了一下{vital}。",
    "{year}做过手术，{month}又开始{symptom_}。",
    "我是{word}患者，{age}，最近{symptom_}。",
    "去{generic}看了，说是{word}，开了{drug}。",
    "宝宝{age}，{vital}，{vital}，发育正常吗？",
    "谢谢医生，我{relative}就去{generic}。",
    "你好医生，我{duration}前开始{symptom_}，{relative}加重了。",
    "孕{duration}，{lab}，{vital}，正常吗？",
    "走路的时候膝盖疼，{duration}了，是关节炎吗？",
    "尿路感染{duration}了，吃了{drug}，{dose}。",
    "吃了镇痛药以后好一点，{time}又疼了。",
    "两个有什么区别？我在{generic}拍的片子。",
    "我老公{age}，{word}，{relative}在{generic}住院。",
    "孩子肌张力高，{age}，需要做康复训练吗？",
    "医生说我这是老毛病了，{duration}犯一次。",
    "小时候得过{word}，现在{age}了。",
    "老师说孩子上课注意力不集中，{age}，需要看{department}吗？",
    "我是第一次怀孕，{duration}，{lab}。",
    "白天还好，{time}咳得厉害，{duration}了。",
    "我是个{age}的男生，{vital}，{vital}，算胖吗？",
    "我家孩子{age}，王子面吃多了会不会上火？",
    "请问医生，{drug}和{drug}能一起吃吗？{dose}。",
)

_CLINICAL_DOCTOR = (
    "建议您{relative}去{generic}{department}复查，{drug}{dose}，连续{duration}。",
    "您这个{lab}不算高，{duration}后复查就行。",
    "{drug}每次{dose}，饭后服用，{duration}后来复诊。",
    "从您发的报告看，{lab}，{lab}，考虑{word}。",
    "{age}的孩子{vital}属于正常范围，不用担心。",
    "建议到{generic}做个{department}检查，{relative}空腹抽血。",
    "这种情况一般{duration}能好，{drug}{dose}。",
    "您好，{word}需要长期管理，{dose}，每{duration}复查一次。",
    "如果{time}以后还发烧超过{vital}，要及时去{generic}。",
    "{year}的检查和{relative}的比，{lab}有所下降。",
    "先吃{drug}{duration}，{month}再来看看。",
    "高危人群建议每{duration}查一次{lab}。",
)

# Written after the rules were tuned and not used to tune them: a check that the figures on the
# templates above are not only the rules agreeing with the phrasing they were written against.
_HELDOUT = (
    "您好大夫，本人{NAME}，{age}，{symptom_}{duration}，之前的报告单号{MRN}。",
    "我媳妇{NAME}在{HOSPITAL}生的孩子，{DATE}出院的。",
    "回复{SURNAME}医生：{drug}已经停了{duration}。",
    "{SURNAME}老师您好，孩子{age}，{symptom_}{duration}了。",
    "我的手机：{PHONE}（微信同号）",
    "座机号码{LANDLINE}，找{SURNAME}女士。",
    "有事请发邮件{EMAIL}或者打{PHONE}。",
    "挂号时用的是我老婆的身份证{ID}。",
    "住院期间（{DATE}至{DATE}）一直{symptom_}。",
    "{DATE}入院，{DATE}出院，出院诊断{word}。",
    "药是在{URL}上买的，订单号：{ORDER_ID}",
    "退款单号{ORDER_ID}，麻烦查一下。",
    "我们是{city_}{ADDRESS}的，坐车{duration}才到{HOSPITAL}。",
    "户籍地址：{province_}{city_}{ADDRESS}",
    "收货地址{city_}{ADDRESS}，{NAME}收，{PHONE}",
    "检查单上写着姓名{NAME}、病历号{MRN}、日期{DATE}。",
    "复诊约在{DATE_MD}，到时候找{SURNAME}主任。",
    "{HOSPITAL}的医生说是{word}，让{relative}再去。",
    "医生，{HOSPITAL}和{HOSPITAL}哪个看{department}更好？",
    "{NAME}（女，{age}）{symptom_}{duration}，{lab}。",
)

_HARD = (
    "{NAME}的检查结果出来了吗？",
    "{NAME}今天好多了，{drug}还要继续吃吗？",
    "上次在{ABBR}看的，说是{word}。",
    "我在{DISTRICT}那边住，去医院不方便。",
    "电话是{PHONE_ZH}，晚上打。",
    "{DATE_DOT}那天开始疼的，{duration}了。",
    "我跟{NAME}一起来的，她也{symptom_}。",
    "可以到{ROAD}那边的药店买{drug}。",
    "加我V信{WECHAT}，发您照片。",
    "你好，{GIVEN}妈妈，孩子{age}，{symptom_}{duration}。",
)


# ---------------------------------------------------------------------------------------------
# slot values

_ZH_DIGITS = "〇一二三四五六七八九"
_SYMPTOMS = ("发烧", "咳嗽", "头痛", "腹痛", "起红疹", "腹泻", "胸闷", "失眠", "关节疼", "乏力", "心慌", "恶心",
             "皮肤瘙痒", "腰疼", "尿频", "头晕", "耳鸣", "呕吐")
_DRUGS = ("阿莫西林", "布洛芬", "二甲双胍", "氨氯地平", "奥美拉唑", "头孢克肟", "左甲状腺素钠片", "阿托伐他汀",
          "对乙酰氨基酚", "蒙脱石散", "甘草片", "黄连素", "白加黑", "氯雷他定", "孟鲁司特", "缬沙坦", "甲硝唑",
          "连花清瘟胶囊", "金银花颗粒", "双黄连口服液", "华法林", "阿司匹林")
_DEPARTMENTS = ("皮肤科", "心内科", "消化内科", "内分泌科", "儿科", "妇产科", "神经内科", "呼吸科", "骨科", "眼科",
                "耳鼻喉科", "泌尿外科", "中医科", "肾内科", "乳腺外科", "精神科", "口腔科", "风湿免疫科")
_WORDS = ("高血压", "白细胞偏高", "黄疸", "石膏固定", "甘油三酯高", "常规检查", "白内障", "高血脂", "甲状腺结节",
          "毛囊炎", "房颤", "宫颈糜烂", "胆结石", "关节炎", "周期性头痛", "白癜风", "高尿酸", "贾第虫感染",
          "方颅", "包皮过长", "史蒂文斯综合征", "龙胆泻肝汤", "常见病", "石淋", "马上风")
_GENERIC = ("医院", "当地医院", "大医院", "三甲医院", "社区医院", "附近的诊所", "市人民医院", "县医院", "正规医院",
            "儿童医院", "专科医院", "省妇幼保健院", "中医院", "社区卫生服务中心", "上级医院", "本地医院")
_RELATIVE = ("明天", "昨天", "上周", "下个月", "今天早上", "前天", "下周一", "上个月", "去年", "今晚", "后天", "下周",
             "这周", "最近", "上次")
_TIMES = ("晚上8点", "早上7点半", "下午3点", "凌晨2点", "中午12点", "夜里11点多", "晚饭后")
_FAMOUS = ("北京协和医院", "四川大学华西医院", "中南大学湘雅二医院", "复旦大学附属华山医院",
           "上海交通大学医学院附属瑞金医院", "中山大学附属第一医院", "浙江大学医学院附属第一医院",
           "华中科技大学同济医学院附属同济医院", "北京大学第三医院", "首都医科大学附属北京天坛医院", "解放军总医院",
           "301医院", "湘雅二院", "北医三院", "中山一院", "协和医院", "华西医院", "湘雅医院", "华西附院", "齐鲁医院",
           "西京医院", "阜外医院", "北京儿童医院", "上海市第六人民医院", "广东省人民医院")
_HOSP_TYPES = ("第一人民医院", "第二人民医院", "第三人民医院", "人民医院", "中医院", "中心医院", "妇幼保健院", "儿童医院",
               "肿瘤医院", "口腔医院", "中西医结合医院", "眼科医院", "第四医院", "妇产医院", "精神卫生中心")
_COMPOUND_NAMES = ("阳光", "幸福", "锦绣", "金色", "碧水", "翠湖", "和谐", "东方", "华庭", "绿地", "万科", "龙湖", "保利",
                   "紫荆", "丽景", "春天", "滨江", "世纪", "御景", "金桂", "书香", "盛世", "江南", "康城")
_COMPOUND_SUFFIX = ("小区", "花园", "家园", "新村", "公寓", "苑")
_VILLAGE_TAIL = ("庄", "家湾", "营", "寨", "屯", "堡", "集", "家村", "岗", "店")
_ABBR = ("协和", "华西", "湘雅", "同济", "瑞金", "华山", "齐鲁", "西京")
_ZH_NUMS = {1: "一", 2: "二", 3: "三", 4: "四", 5: "五", 6: "六", 7: "七", 8: "八", 9: "九", 10: "十", 11: "十一",
            12: "十二"}
_LAB = (("血糖", "mmol/L", 4.0, 15.0, 1), ("空腹血糖", "mmol/L", 4.0, 12.0, 1), ("白细胞", "×10^9/L", 2.0, 20.0, 1),
        ("血红蛋白", "g/L", 70, 170, 0), ("ALT", "U/L", 10, 200, 0), ("肌酐", "μmol/L", 40, 300, 0),
        ("TSH", "mIU/L", 0.1, 12.0, 2), ("尿酸", "μmol/L", 200, 650, 0), ("CRP", "mg/L", 0.5, 80, 1),
        ("甘油三酯", "mmol/L", 0.5, 6.0, 2), ("HbA1c", "%", 4.5, 11.0, 1), ("血小板", "×10^9/L", 60, 450, 0),
        ("总胆固醇", "mmol/L", 3.0, 8.0, 1), ("谷丙转氨酶", "U/L", 10, 180, 0), ("hCG", "mIU/mL", 5, 90000, 0),
        ("孕酮", "ng/mL", 5, 40, 1), ("中性粒细胞百分比", "%", 40, 90, 1), ("D-二聚体", "mg/L", 0.1, 3.0, 2))


# fixed ranges, not "the last three years": the corpus must not change with the day it is generated
_ORDER_FROM, _DATE_FROM, _TO = datetime.date(2022, 1, 1), datetime.date(2019, 1, 1), datetime.date(2025, 12, 31)
_BIRTH_FROM, _BIRTH_TO = datetime.date(1935, 1, 1), datetime.date(2023, 12, 31)


def _zh_number(n: int) -> str:
    return "".join(_ZH_DIGITS[int(c)] for c in str(n))


class _Values:
    """Draws slot values; ``faker`` is a seeded ``Faker("zh_CN")``."""

    def __init__(self, rng: random.Random, faker) -> None:
        self.rng, self.fk = rng, faker

    # --- identifiers -----------------------------------------------------------------------
    def NAME(self) -> str:
        return self.fk.name()

    def SURNAME(self) -> str:
        return self.fk.last_name()

    def GIVEN(self) -> str:
        """A given name as a child is called: 秀英, or 伟伟 for a one-character name."""
        g = self.fk.first_name()
        return g * 2 if len(g) == 1 else g

    def ID(self) -> str:
        ssn = self.fk.ssn()
        r = self.rng.random()
        if r < 0.08:  # legacy 15-digit: no century, no check digit
            return ssn[:6] + ssn[8:17]
        if r < 0.13:
            return f"{ssn[:6]} {ssn[6:14]} {ssn[14:]}"
        return ssn

    def PASSPORT(self) -> str:
        return self.rng.choice("EGP") + "".join(self.rng.choice("0123456789") for _ in range(8))

    def PHONE(self) -> str:
        p = self.fk.phone_number()
        r = self.rng.random()
        if r < 0.55:
            return p
        if r < 0.7:
            return f"{p[:3]}-{p[3:7]}-{p[7:]}"
        if r < 0.85:
            return f"{p[:3]} {p[3:7]} {p[7:]}"
        return ("+86 " if r < 0.93 else "+86") + p

    def PHONE_ZH(self) -> str:
        return "".join("幺一二三四五六七八九"[int(c)] if c != "0" else "零" for c in self.fk.phone_number())

    def LANDLINE(self) -> str:
        rng = self.rng
        area = rng.choice(("010", "021", "022", "023", "020", "0755", "0571", "025", "027", "028", "0531", "0371"))
        local = str(rng.randint(2, 8)) + "".join(rng.choice("0123456789") for _ in range(7 if len(area) == 3 else 6))
        r = rng.random()
        if r < 0.5:
            return f"{area}-{local}"
        if r < 0.7:
            return f"({area}){local}"
        if r < 0.85:
            return f"{area}-{local}转{rng.randint(100, 8999)}"
        return f"{rng.choice('48')}00-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"

    def EMAIL(self) -> str:
        return self.fk.email() if self.rng.random() < 0.5 else self.fk.free_email()

    def URL(self) -> str:
        r = self.rng.random()
        if r < 0.4:
            return self.fk.url()
        if r < 0.7:
            return "www." + self.fk.domain_name()
        if r < 0.85:
            return f"https://{self.fk.domain_name()}/{self.fk.uri_path()}"
        return self.fk.domain_name() + "/" + self.fk.uri_page()

    def WECHAT(self) -> str:
        """A WeChat ID: 6-20 letters, digits, _ or -, starting with a letter (WeChat's own rule)."""
        rng = self.rng
        base = self.fk.user_name()
        if not base[0].isalpha():
            base = "wx" + base
        if rng.random() < 0.6 or len(base) < 6:
            base += rng.choice(("", "_", "-")) + str(rng.randint(1, 9999)).zfill(max(1, 6 - len(base) - 1))
        return base[:20]

    def ORDER_ID(self) -> str:
        rng = self.rng
        d = self.fk.date_between(_ORDER_FROM, _TO).strftime("%Y%m%d")
        r = rng.random()
        if r < 0.4:
            return d + "".join(rng.choice("0123456789") for _ in range(rng.randint(6, 10)))
        if r < 0.7:
            return rng.choice(("DD", "E", "WX", "ZF", "JD", "SF")) + d + str(rng.randint(1000, 999999))
        return "".join(rng.choice("0123456789") for _ in range(rng.randint(12, 20)))

    def MRN(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.4:
            return str(rng.randint(100000, 99999999)).zfill(rng.choice((8, 10)))
        if r < 0.8:
            return rng.choice(("ZY", "MZ", "BL", "P", "H", "JZ")) + str(rng.randint(2015, 2025)) + str(
                rng.randint(1, 99999)).zfill(5)
        return f"{rng.randint(10, 99)}-{rng.randint(100000, 999999)}"

    def _ymd(self) -> tuple[int, int, int]:
        d = self.fk.date_between(_DATE_FROM, _TO)
        return d.year, d.month, d.day

    def DATE(self) -> str:
        y, m, d = self._ymd()
        fmt = self.rng.choice(("cn", "cn", "cn", "dash", "dash0", "slash", "dot", "md", "mdh", "y2", "zh"))
        return {"cn": f"{y}年{m}月{d}日", "dash": f"{y}-{m:02d}-{d:02d}", "dash0": f"{y}-{m}-{d}",
                "slash": f"{y}/{m}/{d}", "dot": f"{y}.{m:02d}.{d:02d}", "md": f"{m}月{d}日", "mdh": f"{m}月{d}号",
                "y2": f"{y % 100:02d}年{m}月{d}日",
                "zh": f"{_zh_number(y)}年{_ZH_NUMS[m]}月{self._zh_day(d)}日"}[fmt]

    @staticmethod
    def _zh_day(d: int) -> str:
        if d <= 10:
            return _ZH_NUMS[d]
        tens, ones = divmod(d, 10)
        return ("" if tens == 1 else _ZH_NUMS[tens]) + "十" + (_ZH_NUMS[ones] if ones else "")

    def DATE_MD(self) -> str:
        _, m, d = self._ymd()
        return f"{m}月{d}{self.rng.choice('日号')}"

    def DATE_YM(self) -> str:
        y, m, _ = self._ymd()
        return self.rng.choice((f"{y}年{m}月", f"{y}-{m:02d}", f"{y}年{m}月"))

    def DATE_DOT(self) -> str:
        _, m, d = self._ymd()
        return f"{m}.{d}"

    def BIRTH(self) -> str:
        d = self.fk.date_between(_BIRTH_FROM, _BIRTH_TO)
        return d.strftime("%Y%m%d") if self.rng.random() < 0.5 else f"{d.year}年{d.month}月{d.day}日"

    def HOSPITAL(self) -> str:
        rng, fk = self.rng, self.fk
        r = rng.random()
        if r < 0.3:
            return rng.choice(_FAMOUS)
        city = fk.city_name()
        if r < 0.6:
            return city + rng.choice(("", "市")) + rng.choice(_HOSP_TYPES)
        if r < 0.7:
            return f"{city}医科大学附属第{rng.choice('一二三')}医院"
        if r < 0.8:
            return fk.district() + rng.choice(("区", "")) + rng.choice(("社区卫生服务中心", "人民医院", "中医院"))
        if r < 0.9:
            return fk.last_name() + rng.choice(("氏诊所", "氏中医诊所", "口腔诊所", "氏骨科诊所"))
        return fk.city_name() + rng.choice(("镇卫生院", "乡卫生院", "镇中心卫生院"))

    def ABBR(self) -> str:
        return self.rng.choice(_ABBR)

    def _compound(self) -> str:
        return self.rng.choice(_COMPOUND_NAMES) + self.rng.choice(_COMPOUND_SUFFIX)

    def _building(self) -> str:
        rng = self.rng
        n, u, room = rng.randint(1, 30), rng.randint(1, 6), rng.randint(1, 33) * 100 + rng.randint(1, 4)
        return rng.choice((f"{n}栋{u}单元{room}室", f"{n}号楼{u}单元{room}", f"{n}幢{room}室", f"{n}栋{room}",
                           f"{n}号楼{room}室"))

    def _street(self) -> str:
        rng = self.rng
        return self.fk.street_name() + f"{rng.randint(1, 999)}号"

    def ADDRESS(self) -> str:
        rng, fk = self.rng, self.fk
        r = rng.random()
        district = fk.district() + rng.choice(("区", "区", "县"))
        if r < 0.3:
            return district + self._street() + (self._building() if rng.random() < 0.3 else "")
        if r < 0.5:
            return self._street() + self._compound() + self._building()
        if r < 0.65:
            return self._compound() + self._building()
        if r < 0.8:
            village = fk.last_name() + rng.choice(_VILLAGE_TAIL)
            return (fk.city_name() + "县" + fk.city_name()[:2] + rng.choice("镇乡") + village + "村"
                    + rng.choice((f"{rng.randint(1, 12)}组", f"{rng.randint(1, 200)}号", "")))
        if r < 0.9:
            return district + fk.district() + rng.choice(("街道", "街道办"))
        return district + rng.choice(_COMPOUND_NAMES) + "小区"

    def DISTRICT(self) -> str:
        return self.fk.district() + "区"

    def ROAD(self) -> str:
        return self.fk.street_name()

    # --- keep values -------------------------------------------------------------------------
    def age(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.7:
            return f"{rng.randint(1, 85)}岁"
        if r < 0.8:
            return f"{rng.randint(1, 11)}个月"
        if r < 0.9:
            return f"{rng.randint(2, 9)}岁半"
        return f"{rng.randint(18, 80)}周岁"

    def duration(self) -> str:
        rng = self.rng
        return rng.choice((f"{rng.randint(2, 30)}天", "两周", "半年", f"{rng.randint(2, 11)}个月", "十来天", "一个多月",
                           f"{rng.randint(1, 20)}年", f"{rng.randint(2, 48)}小时", "一周", "半个月", "三天",
                           f"{rng.randint(6, 40)}周", "两三天"))

    def relative(self) -> str:
        return self.rng.choice(_RELATIVE)

    def dose(self) -> str:
        rng = self.rng
        return rng.choice((f"{rng.choice((5, 10, 20, 25, 50, 100, 250, 500))}mg", "每日两次", "0.5g", "一次1片",
                           f"{rng.choice((5, 10, 15))}ml", f"每次{rng.randint(1, 3)}粒", "一天三次", "每晚1片",
                           f"{rng.choice((10, 20, 40))}mg/日", "每次半片", f"一次{rng.randint(1, 2)}袋"))

    def lab(self) -> str:
        rng = self.rng
        name, unit, lo, hi, nd = rng.choice(_LAB)
        v = rng.uniform(lo, hi)
        value = f"{v:.{nd}f}" if nd else str(int(v))
        return name + rng.choice(("", " ", "：", "是")) + value + unit

    def vital(self) -> str:
        rng = self.rng
        return rng.choice((f"身高{rng.randint(50, 190)}cm", f"体重{rng.randint(3, 110)}kg",
                           f"体温{rng.uniform(36.0, 40.5):.1f}℃", f"血压{rng.randint(90, 180)}/{rng.randint(55, 110)}mmHg",
                           f"心率{rng.randint(55, 130)}次/分", f"体温{rng.uniform(37.0, 40.0):.1f}度",
                           f"体重{rng.randint(40, 100)}公斤"))

    def time(self) -> str:
        return self.rng.choice(_TIMES)

    def year(self) -> str:
        return f"{self.rng.randint(1995, 2024)}年"

    def month(self) -> str:
        return self.rng.choice((f"{self.rng.randint(1, 12)}月份", "五月份", "下半年"))

    def drug(self) -> str:
        return self.rng.choice(_DRUGS)

    def department(self) -> str:
        return self.rng.choice(_DEPARTMENTS)

    def word(self) -> str:
        return self.rng.choice(_WORDS)

    def generic(self) -> str:
        return self.rng.choice(_GENERIC)

    # --- plain text (not scored) --------------------------------------------------------------
    def symptom_(self) -> str:
        return self.rng.choice(_SYMPTOMS)

    def city_(self) -> str:
        return self.rng.choice(("", self.fk.city_name() + "市", self.fk.province() + self.fk.city_name() + "市"))

    def province_(self) -> str:
        return self.fk.province()


# slot name -> category of the gold span (None: a keep slot or plain text)
_SLOT_CATEGORY = {"NAME": "NAME", "SURNAME": "NAME", "GIVEN": "NAME", "ID": "ID", "PASSPORT": "ID", "PHONE": "PHONE",
                  "PHONE_ZH": "PHONE", "LANDLINE": "PHONE", "EMAIL": "EMAIL", "URL": "URL", "WECHAT": "URL",
                  "ORDER_ID": "ORDER_ID", "MRN": "MRN", "DATE": "DATE", "DATE_MD": "DATE", "DATE_YM": "DATE",
                  "DATE_DOT": "DATE", "BIRTH": "DATE", "HOSPITAL": "HOSPITAL", "ABBR": "HOSPITAL", "ADDRESS": "ADDRESS",
                  "DISTRICT": "ADDRESS", "ROAD": "ADDRESS"}
_SLOT = re.compile(r"\{([A-Za-z_]+)\}")


def _render(template: str, values: _Values) -> tuple[str, list[Span], list[KeepSpan]]:
    parts: list[str] = []
    spans: list[Span] = []
    keep: list[KeepSpan] = []
    pos = 0
    length = 0
    for m in _SLOT.finditer(template):
        lit = template[pos:m.start()]
        parts.append(lit)
        length += len(lit)
        slot = m.group(1)
        value = getattr(values, slot)()
        if value:
            if slot in _SLOT_CATEGORY:
                spans.append(Span(length, length + len(value), _SLOT_CATEGORY[slot], "gold"))
            elif not slot.endswith("_"):
                keep.append(KeepSpan(length, length + len(value), slot))
        parts.append(value)
        length += len(value)
        pos = m.end()
    parts.append(template[pos:])
    return "".join(parts), spans, keep


def generate_corpus(seed: int = 0, *, n_identifier: int = 2000, n_clinical: int = 500, n_hard: int = 200,
                    n_heldout: int = 200) -> list[LabelledSentence]:
    """``n_identifier`` + ``n_clinical`` + ``n_hard`` + ``n_heldout`` labelled sentences, the same for the same seed
    (and Faker version). Templates are drawn round-robin after a seeded shuffle, so every template
    is used about equally often."""
    try:
        from faker import Faker
    except ImportError as e:  # Faker is a development dependency
        raise ImportError("the synthetic corpus needs Faker (pip install Faker); it is a dev dependency") from e
    rng = random.Random(seed)
    fk = Faker("zh_CN")
    fk.seed_instance(seed)
    values = _Values(rng, fk)
    out: list[LabelledSentence] = []
    groups: list[tuple[str, Sequence[tuple[str, str]], int]] = [
        ("identifier", [(t, "patient") for t in _IDENT_PATIENT] + [(t, "doctor") for t in _IDENT_DOCTOR],
         n_identifier),
        ("clinical", [(t, "patient") for t in _CLINICAL_PATIENT] + [(t, "doctor") for t in _CLINICAL_DOCTOR],
         n_clinical),
        ("hard", [(t, "patient") for t in _HARD], n_hard),
        ("heldout", [(t, "patient") for t in _HELDOUT], n_heldout),
    ]
    for kind, templates, n in groups:
        order = list(range(len(templates)))
        for i in range(n):
            if i % len(order) == 0:
                rng.shuffle(order)
            k = order[i % len(order)]
            template, voice = templates[k]
            text, spans, keep = _render(template, values)
            out.append(LabelledSentence(text, tuple(spans), tuple(keep), voice, kind, k))
    return out


# ---------------------------------------------------------------------------------------------
# scoring

@dataclass
class CategoryScore:
    gold: int = 0
    masked: int = 0          # gold spans fully covered by predicted spans (any category)
    typed: int = 0           # ... covered by predicted spans of the gold category
    predicted: int = 0
    correct: int = 0         # predicted spans that overlap a gold identifier

    @property
    def recall(self) -> float:
        return self.masked / self.gold if self.gold else float("nan")

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else float("nan")

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p == p and r == r and p + r else float("nan")


@dataclass
class CorpusScore:
    categories: dict[str, CategoryScore] = field(default_factory=dict)
    keep_total: dict[str, int] = field(default_factory=dict)
    keep_kept: dict[str, int] = field(default_factory=dict)
    misses: list[tuple[int, Span]] = field(default_factory=list)         # (sentence index, gold span)
    false_positives: list[tuple[int, Span]] = field(default_factory=list)
    broken_keeps: list[tuple[int, KeepSpan]] = field(default_factory=list)

    def keep_rate(self, kinds: Iterable[str] | None = None) -> float:
        kinds = list(kinds) if kinds is not None else list(self.keep_total)
        total = sum(self.keep_total.get(k, 0) for k in kinds)
        return sum(self.keep_kept.get(k, 0) for k in kinds) / total if total else float("nan")

    def overall(self) -> CategoryScore:
        s = CategoryScore()
        for c in self.categories.values():
            s.gold += c.gold
            s.masked += c.masked
            s.typed += c.typed
            s.predicted += c.predicted
            s.correct += c.correct
        return s


def _covered(g: Span, preds: Sequence[Span], category: str | None = None) -> bool:
    """Every character of ``g`` lies inside some predicted span (of ``category`` when given)."""
    chars = set(range(g.start, g.end))
    for p in preds:
        if category is None or p.category == category:
            chars -= set(range(p.start, p.end))
    return not chars


def score_corpus(corpus: Sequence[LabelledSentence], predictions: Sequence[Sequence[Span]]) -> CorpusScore:
    """Recall counts a gold identifier as found when the predictions mask all of it (whatever their
    category; ``typed`` also asks for the right one); precision counts a predicted span as right
    when it overlaps a gold identifier. A keep span survives when no prediction touches it."""
    if len(corpus) != len(predictions):
        raise ValueError(f"{len(corpus)} sentences but {len(predictions)} predictions")
    result = CorpusScore({c: CategoryScore() for c in CATEGORIES})
    for i, (sent, preds) in enumerate(zip(corpus, predictions, strict=True)):
        for g in sent.spans:
            c = result.categories[g.category]
            c.gold += 1
            if _covered(g, preds):
                c.masked += 1
                c.typed += _covered(g, preds, g.category)
            else:
                result.misses.append((i, g))
        for p in preds:
            c = result.categories[p.category]
            c.predicted += 1
            if any(p.start < g.end and g.start < p.end for g in sent.spans):
                c.correct += 1
            else:
                result.false_positives.append((i, p))
        for k in sent.keep:
            result.keep_total[k.kind] = result.keep_total.get(k.kind, 0) + 1
            if any(p.start < k.end and k.start < p.end for p in preds):
                result.broken_keeps.append((i, k))
            else:
                result.keep_kept[k.kind] = result.keep_kept.get(k.kind, 0) + 1
    return result
