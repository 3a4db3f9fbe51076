"""Development corpus E for the Chinese text de-identification detector (online consultation messages).

Provenance: written from the category definitions only (the ``text.policy`` block of
``conf/deid/default.yaml`` and the annotation conventions in the docstring of ``consult_b.py``) and from
general knowledge of Chinese online consultations; the detector, its lexicons, its tests and the other
corpora's generators were not read, and no detector was run on this corpus while it was written.  It is a
DEVELOPMENT corpus: detectors may be tuned on it, so once that has happened it measures nothing held-out.

Pure standard library; deterministic given a seed (one ``random.Random(seed)``, lists and tuples only, no
set/dict iteration order or hash randomisation involved).  The corpus for seed 0 / 3000 messages is frozen
by ``CORPUS_SHA256``; ``verify()`` regenerates it and raises if a single character moved.
``python benchmarks/corpora/consult_e.py`` prints the counts per category and a few marked samples.

Each message (consult_b's format)::

    {"text": str, "role": "patient" | "doctor",
     "spans": [[start, end, CATEGORY], ...],     # identifiers that must be masked
     "keep":  [[start, end, kind], ...]}         # clinical numbers that must NOT be masked

Offsets are Python ``str`` (code point) offsets, end exclusive, each list sorted; spans never overlap each
other or a keep span.  About 60 % of the messages carry at least one identifier; the others carry none but
carry clinical keep spans and, often, hard negatives.

Design (persona first): every message draws a fake case record -- a patient (name, sex, age, birth date,
resident ID with a valid GB 11643 check digit, phone, WeChat / QQ / e-mail), two or three relatives with
kinship words, names and nicknames, a home address down to village + group or street + compound +
building / unit / room (a place hierarchy written by hand for eight provinces, with plausible invented towns
and villages), a workplace town, the hospitals visited (a county hospital, a city hospital, a provincial or
national one, a clinic; each with full and short forms), the doctors' and nurses' names, visit dates,
record and order numbers -- and renders parts of it through one of 53 identifier scenarios in patient,
relative and doctor voices: names without any cue (opening a list, in a list of names, before an ID number,
after a phone number, addressed in a reply, as a companion, signing off), names with titles (医生, 主任,
副主任, 护士长, 女士, 阿姨, 家属 ...), parents addressed by the child's name ("朵朵妈妈"), @mentions, addresses
glued to other words, towns and villages, a city alone, hospitals in full / short / abbreviated forms and
glued to a department, dates in many written forms and from-to pairs, landlines without separators, 400 /
800 lines, URLs with numbers, record-number cues; a third get an afterthought (another hospital, a phone, a
record number, thanks to a doctor).  Twelve clinical-only scenarios carry no identifier.  Styles: 6 % of the
messages use full-width digits throughout, 8 % ASCII punctuation (both one-to-one, so offsets hold), some
line breaks and emoji.  Clinical-only messages carry keep spans and hard negatives: brand
medicines (云南白药, 马应龙, 同仁堂 ...), place-named diseases and foods (兰州拉面, 香港脚 ...), words that
begin with a surname character (高血压, 黄疸, 陈皮 ...), everyday words that are also names (高峰期, 夏天),
generic hospitals (当地医院, 市人民医院, 县医院), a province alone, emergency and public numbers (120, 110, 999,
the 12320 health hotline).
``generate_annotated`` also returns the hard-negative positions so that tests can check them.

Annotation conventions (consult_b's, restated; decisions where it is silent are marked "decided"):

* NAME: the name only, never the title or kinship word ("我爸【刘平】", "【李建国】主任"); a surname with a
  title ("【李】主任", "【王】护士长") is the name part; nicknames with 小/老/阿 and reduplicated pet names
  ("【小芳】", "【老周】", "【阿娟】", "【朵朵】") are marked whole.  Decided: staff names (doctors, nurses,
  pharmacists) and every relative's name are NAME (policy: every person's name); minority names keep their
  middle dot inside one span ("【阿依古丽·买买提】").  Everyday-word names (高峰, 夏天 ...) are never
  generated as names.
* PHONE: mobiles and landlines in any separator style, including none (037165432100), with +86 / (+86)
  and area-code brackets and 转NNN extensions inside the span; 400/800 lines are PHONE; 120 / 110 are not.
* URL: links, WeChat IDs and QQ numbers; the cue (微信/VX/QQ) is outside the span.  QQ mail is EMAIL.
* ID: 18-digit resident IDs (valid check digit), passports, social security numbers after a 社保卡 cue,
  military IDs "军字第NNNNNNN号" whole.
* MRN: 门诊号, 门诊ID, 住院号, 病案号, 病历号, ID号, 就诊卡号, 医保卡号, 建档号, barcode / specimen, report,
  imaging and pathology numbers.  ORDER_ID: platform orders, WeChat / Alipay transaction numbers,
  prescription, registration, appointment and referral numbers.  The cue is outside the span.
* DATE: any date finer than a year, in any form ("2023年5月12日", "2023-05-12", "5.12号", "12.10号",
  "今年3月8日" whole, "2023年5月", birthdays incl. lunar ones "腊月二十三").  "11/9"-style dates only after
  预约/复查 or before 那天.  Decided: a relative year with a month ("去年腊月", "去年12月") is DATE (a month
  of a known year, as 2023年5月), a relative day ("上周三", "昨天", "前天") stays a keep span of kind
  "time" as in consult_b, as do a year alone, a month alone ("5月份") and times of day.
* HOSPITAL: named institutions incl. short forms (市二院, 省肿瘤医院, 附一院, 华西, 湘雅二院, 浙一),
  health centres, village clinics, named clinics and outpatient departments; the department after it is
  outside.  Decided: a place name inside a hospital's name is part of the HOSPITAL span, not ADDRESS;
  level + specialty forms (市中医院, 县妇幼, 省儿童医院) are HOSPITAL, while 市人民医院, 县人民医院, 县医院,
  当地医院, 三甲医院, 社区医院 without a place stay plain text (policy ``level_hospitals``).
* ADDRESS: everything below the province, a city alone included ("杭州", "杭州市"), county short forms
  ("伊川的"), towns, villages + groups, streets + numbers, compounds, building / unit / room, as one span
  when contiguous; a province written in front of the rest is inside; a province alone is plain.
  Decided: place names inside disease / food / brand words (兰州拉面, 香港脚, 云南白药) are plain.
* Keep: "age", "duration", "dose" (amount + unit), "lab" (test + value + unit), "vital" (sign + value:
  blood pressure, temperature, pulse, weight, height), "time".
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

CORPUS_SHA256 = "ea90b5e090dee41c4886b942ec877f4cf8fa240bf088b0ed034f0689ae185cb7"

CATEGORIES = ("NAME", "PHONE", "ID", "EMAIL", "URL", "ADDRESS", "HOSPITAL", "DATE", "MRN", "ORDER_ID")

# ----------------------------------------------------------------------------------------------- names
# (surname, weight): weights roughly follow frequency; rare and compound surnames get small weights.
_SURNAMES = (
    ("王", 70), ("李", 70), ("张", 68), ("刘", 55), ("陈", 50), ("杨", 33), ("黄", 25), ("赵", 22),
    ("吴", 21), ("周", 21), ("徐", 13), ("孙", 13), ("马", 12), ("朱", 11), ("胡", 11), ("郭", 10),
    ("何", 10), ("林", 9), ("罗", 9), ("郑", 9), ("梁", 8), ("谢", 7), ("宋", 7), ("唐", 7), ("许", 6),
    ("韩", 6), ("冯", 6), ("邓", 6), ("曹", 6), ("彭", 5), ("曾", 5), ("肖", 5), ("田", 5), ("董", 5),
    ("袁", 4), ("潘", 4), ("于", 4), ("蒋", 4), ("蔡", 4), ("余", 4), ("杜", 4), ("叶", 4), ("程", 4),
    ("苏", 3), ("魏", 3), ("吕", 3), ("丁", 3), ("任", 3), ("沈", 3), ("姚", 3), ("卢", 3), ("姜", 3),
    ("崔", 3), ("钟", 3), ("谭", 3), ("陆", 3), ("汪", 3), ("范", 3), ("金", 3), ("石", 3), ("廖", 3),
    ("贾", 3), ("夏", 2), ("韦", 2), ("付", 2), ("方", 2), ("白", 2), ("邹", 2), ("孟", 2), ("熊", 2),
    ("秦", 2), ("邱", 2), ("江", 2), ("尹", 2), ("薛", 2), ("闫", 2), ("段", 2), ("雷", 2), ("侯", 2),
    ("龙", 2), ("史", 2), ("陶", 2), ("黎", 2), ("贺", 2), ("顾", 2), ("毛", 2), ("郝", 2), ("龚", 2),
    ("邵", 2), ("万", 2), ("钱", 2), ("严", 2), ("覃", 2), ("武", 2), ("戴", 2), ("莫", 2), ("孔", 2),
    ("向", 2), ("汤", 2), ("禤", 1), ("佘", 1), ("訾", 1), ("逄", 1), ("亓", 1), ("笪", 1), ("蒯", 1),
    ("隗", 1), ("冼", 1), ("缪", 1), ("昝", 1), ("欧阳", 2), ("司马", 1), ("上官", 1), ("诸葛", 1),
    ("东方", 1), ("皇甫", 1), ("慕容", 1), ("令狐", 1), ("司徒", 1), ("夏侯", 1), ("尉迟", 1),
    ("公孙", 1), ("端木", 1), ("长孙", 1),
)
_SURNAME_LIST = [s for s, _ in _SURNAMES]
_SURNAME_W = [w for _, w in _SURNAMES]

_GIVEN_OLD_M = ("建国", "建华", "国庆", "德福", "有才", "长林", "保国", "卫东", "红军", "振华", "学文", "桂林",
                "永贵", "金山", "富贵", "玉峰", "广田", "树林", "志刚", "文斌", "明", "军", "华", "强", "福")
_GIVEN_OLD_F = ("秀英", "桂英", "桂芝", "秀兰", "玉兰", "凤英", "金凤", "翠花", "秀珍", "淑珍", "玉珍", "素芬",
                "春兰", "冬梅", "兰英", "月娥", "淑华", "凤琴", "芳", "霞", "英")
_GIVEN_MID_M = ("伟", "强", "磊", "军", "勇", "杰", "涛", "超", "鹏", "斌", "俊", "凯", "刚", "辉", "亮", "帅",
                "志强", "志明", "海涛", "建军", "晓东", "文杰", "国华", "永强", "宏伟", "春雷", "立新", "海波")
_GIVEN_MID_F = ("娟", "敏", "静", "丽", "艳", "婷", "琳", "慧", "萍", "玲", "燕", "红霞", "丽娟", "海燕",
                "春梅", "晓雯", "丽华", "雪梅", "美玲", "小红", "晓燕", "丽萍", "秋菊", "彩霞")
_GIVEN_YOUNG_M = ("子轩", "浩然", "宇航", "一鸣", "子豪", "家乐", "梓豪", "俊熙", "宇轩", "皓轩", "奕辰",
                  "博文", "沐阳", "承泽", "睿", "浩", "宇", "晨", "博", "锦程", "思远", "天佑")
_GIVEN_YOUNG_F = ("欣怡", "梓涵", "雨桐", "诗琪", "可馨", "佳怡", "思雨", "紫萱", "语嫣", "梦琪", "一诺",
                  "若曦", "子涵", "悦", "彤", "琪", "馨月", "安琪", "雨萱", "芷若", "沐晴", "欣妍")
_MINORITY = (("阿依古丽·买买提", "F"), ("热依拉·艾山", "F"), ("古丽娜尔·艾力", "F"), ("次仁卓玛", "F"),
             ("格桑梅朵", "F"), ("央金拉姆", "F"), ("乌兰图雅", "F"), ("萨仁高娃", "F"),
             ("阿卜杜拉·吐尔逊", "M"), ("艾克拜尔·吾买尔", "M"), ("扎西顿珠", "M"), ("巴特尔", "M"),
             ("多吉次仁", "M"), ("阿迪力·买合木提", "M"), ("其其格", "F"), ("哈斯朝鲁", "M"))
_PET = ("朵朵", "豆豆", "乐乐", "果果", "贝贝", "糖糖", "妞妞", "壮壮", "点点", "团团", "小宝", "甜甜")
# full names that read as everyday words or places: never generated
_NAME_BLOCK = ("金华", "高峰", "高明", "高平", "高强", "石林", "龙华", "陆军", "金平", "罗平", "雷波",
               "黄平", "江华", "武平", "江东", "夏天", "江山", "黄海", "东海", "江海", "白雪", "田林", "潘婷",
               "万福", "何强", "于是", "方明", "金山", "周到", "江涛", "马强", "叶明", "程明", "朱华", "向明",
               "黎明", "石强", "龙凤", "钟华", "金桂林", "董事", "白强", "史明", "范军", "陶华", "孔明")

# ----------------------------------------------------------------------------------------------- places
# province -> cities -> (district/county, GB/T 2260 code, towns); invented towns and villages are plausible.
_PLACES = (
    ("河南", "河南省", (
        ("郑州", (("金水区", "410105", "街"), ("二七区", "410103", "街"), ("中原区", "410102", "街"),
                 ("新郑市", "410184", "镇"))),
        ("洛阳", (("涧西区", "410305", "街"), ("伊川县", "410329", "镇"), ("宜阳县", "410327", "镇"))),
        ("周口", (("商水县", "411623", "镇"), ("郸城县", "411625", "镇"), ("鹿邑县", "411628", "镇"))),
        ("南阳", (("卧龙区", "411303", "街"), ("邓州市", "411381", "镇"), ("镇平县", "411324", "镇"))),
        ("信阳", (("固始县", "411525", "镇"), ("潢川县", "411526", "镇"))),
    )),
    ("四川", "四川省", (
        ("成都", (("武侯区", "510107", "街"), ("锦江区", "510104", "街"), ("双流区", "510116", "街"),
                 ("郫都区", "510117", "街"))),
        ("绵阳", (("涪城区", "510703", "街"), ("江油市", "510781", "镇"), ("三台县", "510722", "镇"))),
        ("南充", (("顺庆区", "511302", "街"), ("阆中市", "511381", "镇"), ("营山县", "511322", "镇"))),
        ("宜宾", (("翠屏区", "511502", "街"), ("南溪区", "511503", "镇"))),
    )),
    ("广东", "广东省", (
        ("广州", (("天河区", "440106", "街"), ("越秀区", "440104", "街"), ("海珠区", "440105", "街"),
                 ("番禺区", "440113", "街"))),
        ("深圳", (("南山区", "440305", "街"), ("福田区", "440304", "街"), ("宝安区", "440306", "街"),
                 ("龙岗区", "440307", "街"))),
        ("佛山", (("顺德区", "440606", "街"), ("南海区", "440605", "街"))),
        ("湛江", (("雷州市", "440882", "镇"), ("廉江市", "440881", "镇"))),
    )),
    ("浙江", "浙江省", (
        ("杭州", (("西湖区", "330106", "街"), ("拱墅区", "330105", "街"), ("余杭区", "330110", "街"),
                 ("萧山区", "330109", "街"))),
        ("温州", (("鹿城区", "330302", "街"), ("瑞安市", "330381", "镇"), ("乐清市", "330382", "镇"))),
        ("金华", (("义乌市", "330782", "镇"), ("东阳市", "330783", "镇"))),
    )),
    ("山东", "山东省", (
        ("济南", (("历下区", "370102", "街"), ("槐荫区", "370104", "街"))),
        ("临沂", (("兰山区", "371302", "街"), ("沂南县", "371321", "镇"), ("费县", "371325", "镇"))),
        ("潍坊", (("寿光市", "370783", "镇"), ("诸城市", "370782", "镇"))),
        ("菏泽", (("曹县", "371721", "镇"), ("单县", "371722", "镇"))),
    )),
    ("湖南", "湖南省", (
        ("长沙", (("岳麓区", "430104", "街"), ("雨花区", "430111", "街"), ("浏阳市", "430181", "镇"))),
        ("邵阳", (("邵东市", "430521", "镇"), ("隆回县", "430524", "镇"))),
        ("衡阳", (("衡南县", "430422", "镇"), ("蒸湘区", "430408", "街"))),
    )),
    ("黑龙江", "黑龙江省", (
        ("哈尔滨", (("南岗区", "230103", "街"), ("道里区", "230102", "街"), ("呼兰区", "230111", "镇"))),
        ("齐齐哈尔", (("龙沙区", "230202", "街"), ("讷河市", "230281", "镇"))),
    )),
    ("新疆", "新疆维吾尔自治区", (
        ("乌鲁木齐", (("天山区", "650102", "街"), ("沙依巴克区", "650103", "街"))),
        ("喀什", (("疏勒县", "653122", "镇"), ("疏附县", "653121", "镇"))),
    )),
)
_TOWN_STEMS = ("柳林", "石桥", "高庄", "王集", "李店", "马坊", "河口", "新安", "龙泉", "白马", "三里河", "黄土岗",
               "大营", "双河", "青石", "桃源", "杨湖", "沙河", "古城", "清水", "太平", "东关", "北湖", "长岭",
               "金盆", "安乐", "观音桥", "回龙", "永兴", "红星")
_VILLAGE_STEMS = ("张庄", "后刘", "大王庄", "东湖", "五里铺", "小李庄", "前郭", "杨树湾", "石门", "枣林",
                  "河西", "孙楼", "赵岗", "柿子沟", "七里营", "马家湾", "黄泥塘", "塘坊", "新村", "上岗")
_STREETS = ("建设路", "人民路", "解放路", "文化路", "中山路", "黄河路", "长江路", "花园路", "东风路",
            "胜利街", "滨江路", "工农路", "健康路", "学府路", "光明街", "朝阳路", "金水路", "纬五路")
_COMPOUNDS = ("阳光花园", "锦绣家园", "幸福小区", "金色港湾", "翠苑三区", "万科城", "碧桂园", "御景湾",
              "和谐家园", "紫荆花园", "名门世家", "春天里", "绿城桂花园", "铁路家属院", "供电局宿舍",
              "城市花园", "康桥华城", "建业森林半岛", "保利香槟国际", "龙湖时代天街")
_SUBDISTRICT_STEMS = ("丰产路", "花园路", "南湖", "城关", "东大", "北门", "西湖", "文峰", "沙口路", "新华")

# ----------------------------------------------------------------------------------------------- hospitals
# per city: (full name, short forms)
_CITY_HOSP = {
    "郑州": (("郑州大学第一附属医院", ("郑大一附院", "郑大一", "郑大一附属医院")), ("河南省肿瘤医院", ("省肿瘤医院", "省肿瘤")),
            ("郑州市第一人民医院", ("市一院", "郑州一院")), ("河南省儿童医院", ("省儿童医院", "省儿童"))),
    "洛阳": (("河南科技大学第一附属医院", ("河科大一附院", "科大一附院")), ("洛阳市中心医院", ("洛阳中心医院",))),
    "周口": (("周口市中心医院", ("周口中心医院",)), ("周口市第二人民医院", ("市二院", "周口二院"))),
    "南阳": (("南阳市中心医院", ("南阳中心医院", "南阳市中心")), ("南阳市第二人民医院", ("市二院", "南阳二院"))),
    "信阳": (("信阳市中心医院", ("信阳中心医院",)),),
    "成都": (("四川大学华西医院", ("华西", "华西医院")), ("四川省肿瘤医院", ("省肿瘤医院", "省肿瘤")),
            ("成都市第三人民医院", ("成都三医院", "市三医院")), ("四川大学华西第二医院", ("华西二院", "华西附二院"))),
    "绵阳": (("绵阳市中心医院", ("绵阳中心医院",)), ("绵阳市第三人民医院", ("市三医院", "绵阳三院"))),
    "南充": (("川北医学院附属医院", ("川北医学院附院", "附属医院川北")), ("南充市中心医院", ("南充中心医院",))),
    "宜宾": (("宜宾市第一人民医院", ("宜宾一医院", "市一医院")),),
    "广州": (("中山大学附属第一医院", ("中山一院", "附一院")), ("南方医科大学南方医院", ("南方医院",)),
            ("广州医科大学附属第一医院", ("广医一院",)), ("广州市妇女儿童医疗中心", ("市妇儿", "广州妇儿中心"))),
    "深圳": (("北京大学深圳医院", ("北大深圳医院",)), ("深圳市第二人民医院", ("市二院", "深圳二院")),
            ("香港大学深圳医院", ("港大深圳医院", "港大医院"))),
    "佛山": (("佛山市第一人民医院", ("佛山一院", "市一院")),),
    "湛江": (("广东医科大学附属医院", ("广医附院",)), ("湛江中心人民医院", ("湛江中心医院",))),
    "杭州": (("浙江大学医学院附属第一医院", ("浙一", "浙大一院")), ("浙江大学医学院附属第二医院", ("浙二", "浙大二院")),
            ("浙江大学医学院附属邵逸夫医院", ("邵逸夫", "邵逸夫医院")), ("浙江省肿瘤医院", ("省肿瘤医院", "省肿瘤"))),
    "温州": (("温州医科大学附属第一医院", ("温医附一院", "附一院", "温附一")), ("温州市中心医院", ("温州中心医院",))),
    "金华": (("金华市中心医院", ("金华中心医院",)),),
    "济南": (("山东大学齐鲁医院", ("齐鲁医院", "齐鲁")), ("山东省立医院", ("省立医院",)),
            ("山东省千佛山医院", ("千佛山医院", "千佛山"))),
    "临沂": (("临沂市人民医院", ("临沂人民医院",)), ("临沂市肿瘤医院", ("市肿瘤医院",))),
    "潍坊": (("潍坊市人民医院", ("潍坊人民医院",)), ("潍坊医学院附属医院", ("潍医附院",))),
    "菏泽": (("菏泽市立医院", ("菏泽市立", "市立医院")),),
    "长沙": (("中南大学湘雅医院", ("湘雅", "湘雅医院")), ("中南大学湘雅二医院", ("湘雅二院", "湘雅二")),
            ("湖南省肿瘤医院", ("省肿瘤医院", "省肿瘤")), ("湖南省儿童医院", ("省儿童医院", "省儿童"))),
    "邵阳": (("邵阳市中心医院", ("邵阳中心医院",)),),
    "衡阳": (("南华大学附属第一医院", ("南华附一", "附一院")),),
    "哈尔滨": (("哈尔滨医科大学附属第一医院", ("哈医大一院", "哈医大一")), ("哈尔滨医科大学附属第二医院", ("哈医大二院",))),
    "齐齐哈尔": (("齐齐哈尔市第一医院", ("齐市一院",)),),
    "乌鲁木齐": (("新疆医科大学第一附属医院", ("新医大一附院", "医大一附院")), ("新疆维吾尔自治区人民医院", ("区人民医院", "自治区人民医院"))),
    "喀什": (("喀什地区第一人民医院", ("地区一院", "喀什一院")),),
}
_NATIONAL_HOSP = (("北京协和医院", ("协和医院",)), ("复旦大学附属中山医院", ("中山医院",)),
                  ("上海交通大学医学院附属瑞金医院", ("瑞金医院",)), ("中国医学科学院肿瘤医院", ("医科院肿瘤医院",)),
                  ("首都医科大学附属北京天坛医院", ("天坛医院",)), ("复旦大学附属儿科医院", ("复旦儿科",)))
_CLINIC_NAMES = ("张氏诊所", "李记中医诊所", "康华门诊部", "惠民门诊部", "仁心中医诊所", "益康诊所", "济世堂中医馆",
                 "博爱口腔门诊部", "阳光儿科门诊部", "刘氏正骨诊所")
_DEPTS = ("心内科", "消化内科", "呼吸科", "内分泌科", "神经内科", "肾内科", "普外科", "骨科", "泌尿外科", "妇科",
          "产科", "儿科", "皮肤科", "眼科", "耳鼻喉科", "肿瘤科", "血液科", "风湿免疫科", "中医科", "急诊科")
_TITLES = ("医生", "大夫", "主任", "副主任", "教授", "主治", "老师")
_NURSE_TITLES = ("护士", "护士长", "护士")

# ----------------------------------------------------------------------------------------------- negatives
_NEG_BRANDS = ("云南白药", "马应龙", "同仁堂", "片仔癀", "王老吉", "白云山", "江中健胃消食片", "汤臣倍健", "东阿阿胶",
               "九芝堂", "三九感冒灵", "华佗再造丸", "六味地黄丸", "太极藿香正气水", "仲景六味地黄丸", "修正斯达舒",
               "葵花牌小儿肺热咳喘口服液", "扬子江黄芪精", "汇仁肾宝", "白加黑")
_NEG_PLACEFOOD = ("兰州拉面", "重庆火锅", "沙县小吃", "柳州螺蛳粉", "武汉热干面", "扬州炒饭", "宁夏枸杞", "西湖龙井",
                  "长白山人参", "四川泡菜", "新疆哈密瓜", "北京烤鸭", "东北大米", "长沙臭豆腐", "湖南米粉", "金华火腿",
                  "德州扒鸡", "天津麻花")
_NEG_PLACEDIS = ("香港脚", "克山病", "日本脑炎", "新疆出血热", "中东呼吸综合征", "巴西紫癜热", "西尼罗热", "莱姆病",
                 "地中海贫血", "川崎病", "桥本甲状腺炎", "马尔堡病毒")
_NEG_WORDS = ("高血压", "黄疸", "陈皮", "黄芪", "朱砂", "胡萝卜", "杨梅", "石膏", "金银花", "叶酸", "丁香", "白细胞",
              "高烧", "毛囊炎", "白带", "龙眼", "雷贝拉唑", "华法林", "夏枯草", "关节", "胡椒", "田七", "石斛",
              "甘草", "白内障", "黄体酮", "马齿苋", "杜仲", "钙片")
_NEG_PHRASES = ("万一是癌怎么办", "马上要考试了", "方便的话", "许多人都说", "任何药都没吃", "月经周期不规律", "严重程度",
                "常规检查都做了", "何况还有糖尿病", "余下的药还吃吗", "钟点工说", "温度变化大", "江湖郎中开的",
                "于是就停了", "高中生", "周末", "宋体字看不清", "方向感差", "王道是多喝水")
_NEG_NAMEWORDS = ("血压高峰期", "夏天", "平安", "很文静", "江山", "建国", "高峰", "海燕", "国庆", "红军", "春梅",
                  "长林", "明华", "晓东", "立新", "志刚", "文斌", "振华")
# everyday sentences carrying those words (each word above appears in one of these)
_NEG_NAMEWORD_SENT = (("早上是", "血压高峰期", "，"), ("一到", "夏天", "就犯，"), ("只求", "平安", "，"),
                      ("孩子平时", "很文静", "，最近老发脾气，"), ("", "江山", "易改本性难移，戒烟太难了，"),
                      ("说是", "建国", "前后就有的老病根，"), ("上班", "高峰", "挤地铁就头晕，"),
                      ("家里", "立新", "规矩了，按时吃药，"), ("一年到头", "平安", "无事，就是这两天"))
_NEG_HOSP = ("当地医院", "大医院", "三甲医院", "社区医院", "市人民医院", "县人民医院", "县医院", "乡卫生院", "专科医院",
             "私立医院", "附近的诊所", "县城的医院")
_NEG_PROV = ("我是河南的", "老家四川", "我们广东这边", "浙江人", "山东老家", "湖南那边", "在新疆打工", "黑龙江冬天冷")
_NEG_EMERG = ("打120", "叫了120", "报110", "120急救车", "拨打120", "999急救")


# ----------------------------------------------------------------------------------------------- helpers
def _id_check(body17: str) -> str:
    w = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    s = sum(int(c) * k for c, k in zip(body17, w))
    return "10X98765432"[s % 11]


_CN_D = "零一二三四五六七八九"


def _cn_num(n: int) -> str:
    if n < 10:
        return _CN_D[n]
    if n < 20:
        return "十" + (_CN_D[n % 10] if n % 10 else "")
    return _CN_D[n // 10] + "十" + (_CN_D[n % 10] if n % 10 else "")


_LUNAR_M = ("正月", "二月", "三月", "四月", "五月", "六月", "七月", "八月", "九月", "十月", "冬月", "腊月")


def _lunar_day(d: int) -> str:
    if d <= 10:
        return "初" + ("十" if d == 10 else _CN_D[d])
    if d < 20:
        return "十" + _CN_D[d - 10]
    if d == 20:
        return "二十"
    if d < 30:
        return "廿" + _CN_D[d - 20]
    return "三十"


class _M:
    """A message under construction: parts appended in order, spans / keep recorded as they go."""

    def __init__(self, role: str):
        self.role = role
        self.parts: list[str] = []
        self.spans: list[list] = []
        self.keep: list[list] = []
        self.negs: list[list] = []
        self.n = 0

    def add(self, *items) -> "_M":
        for it in items:
            if isinstance(it, str):
                s, cat = it, None
            else:
                s, cat = it
            if not s:
                continue
            start = self.n
            self.parts.append(s)
            self.n += len(s)
            if cat is None:
                continue
            if cat.startswith("k:"):
                self.keep.append([start, self.n, cat[2:]])
            elif cat == "neg":
                self.negs.append([start, self.n, s])
            else:
                self.spans.append([start, self.n, cat])
        return self

    def p(self, mark: str) -> str:
        """``mark`` unless the text already ends in a sentence mark (no doubled punctuation)."""
        return "" if self.parts and self.parts[-1][-1] in "。！？!?，,～" else mark

    def msg(self) -> dict:
        return {"text": "".join(self.parts), "role": self.role, "spans": self.spans, "keep": self.keep}


def N(s):
    return (s, "NAME")


def K(s, kind):
    return (s, "k:" + kind)


def G(s):
    return (s, "neg")


# ----------------------------------------------------------------------------------------------- persona
class _P:
    pass


def _pick_name(r: random.Random, sex: str, gen: str) -> tuple[str, str, str]:
    """(full, surname, given); gen in old / mid / young."""
    while True:
        if r.random() < 0.04:
            full, sx = r.choice(_MINORITY)
            if sx == sex:
                return full, "", full
            continue
        sur = r.choices(_SURNAME_LIST, _SURNAME_W)[0]
        pool = {"old": (_GIVEN_OLD_M, _GIVEN_OLD_F), "mid": (_GIVEN_MID_M, _GIVEN_MID_F),
                "young": (_GIVEN_YOUNG_M, _GIVEN_YOUNG_F)}[gen][0 if sex == "M" else 1]
        given = r.choice(pool)
        full = sur + given
        if full in _NAME_BLOCK or any(full in blk for blk in _NEG_NAMEWORDS):
            continue
        return full, sur, given


def _nick(r: random.Random, full: str, sur: str, given: str, gen: str) -> str:
    if not sur:
        return full
    c = r.random()
    if gen == "young" and c < 0.5:
        return r.choice(_PET)
    if gen == "old" or c < 0.3:
        return "老" + sur if len(sur) == 1 else full
    if c < 0.7:
        return "小" + given[-1]
    if len(given) == 2 and c < 0.85:
        return given
    return "阿" + given[-1]


def _mobile(r: random.Random) -> str:
    p = r.choice(("130", "131", "132", "133", "135", "136", "137", "138", "139", "150", "151", "152", "155",
                  "156", "157", "158", "159", "166", "176", "177", "180", "181", "182", "183", "185", "186",
                  "187", "188", "189", "191", "198", "199"))
    return p + "".join(r.choice("0123456789") for _ in range(8))


def _digits(r: random.Random, k: int, lead: str = "123456789") -> str:
    return r.choice(lead) + "".join(r.choice("0123456789") for _ in range(k - 1))


_AREA = {"郑州": "0371", "洛阳": "0379", "周口": "0394", "南阳": "0377", "信阳": "0376", "成都": "028", "绵阳": "0816",
         "南充": "0817", "宜宾": "0831", "广州": "020", "深圳": "0755", "佛山": "0757", "湛江": "0759", "杭州": "0571",
         "温州": "0577", "金华": "0579", "济南": "0531", "临沂": "0539", "潍坊": "0536", "菏泽": "0530", "长沙": "0731",
         "邵阳": "0739", "衡阳": "0734", "哈尔滨": "0451", "齐齐哈尔": "0452", "乌鲁木齐": "0991", "喀什": "0998"}


def _fmt_mobile(r: random.Random, num: str) -> str:
    c = r.random()
    if c < 0.5:
        return num
    if c < 0.65:
        return num[:3] + " " + num[3:7] + " " + num[7:]
    if c < 0.78:
        return num[:3] + "-" + num[3:7] + "-" + num[7:]
    if c < 0.88:
        return "+86 " + num
    if c < 0.94:
        return "+86-" + num
    return "(+86)" + num


def _landline(r: random.Random, city: str) -> str:
    area = _AREA[city]
    loc = _digits(r, 8 if len(area) == 4 or area in ("020", "028") else 7, "2345678")
    c = r.random()
    if c < 0.3:
        s = area + loc            # no separator
    elif c < 0.6:
        s = area + "-" + loc
    elif c < 0.75:
        s = "(" + area + ")" + loc
    elif c < 0.85:
        s = "（" + area + "）" + loc
    else:
        s = area + " " + loc
    if r.random() < 0.15:
        s += "转" + _digits(r, r.choice((3, 4)))
    return s


def _date_forms(r: random.Random, y: int, mo: int, d: int, with_year_p: float = 0.5) -> str:
    c = r.random()
    if r.random() < with_year_p:
        forms = (f"{y}年{mo}月{d}日", f"{y}-{mo:02d}-{d:02d}", f"{y}/{mo}/{d}", f"{y}.{mo}.{d}",
                 f"{y}年{mo}月{d}号", f"{y}{mo:02d}{d:02d}", f"{y % 100}年{mo}月{d}号", f"{y}年{mo:02d}月{d:02d}日")
    else:
        forms = (f"{mo}月{d}日", f"{mo}月{d}号", f"{mo}.{d}号", f"{mo}月{d}", f"{_cn_num(mo)}月{_cn_num(d)}号",
                 f"{mo}月{d}日", f"{mo}.{d}日")
    return forms[int(c * len(forms))]


def _persona(r: random.Random) -> _P:
    p = _P()
    prov = r.choice(_PLACES)
    p.prov_short, p.prov_full, cities = prov
    city, dists = r.choice(cities)
    p.city = city
    dist, code, kind = r.choice(dists)
    p.dist, p.code = dist, code
    p.rural = kind == "镇" and r.random() < 0.75
    p.town = r.choice(_TOWN_STEMS) + r.choice(("镇", "镇", "乡")) if p.rural else r.choice(_SUBDISTRICT_STEMS) + "街道"
    p.village = r.choice(_VILLAGE_STEMS) + "村"
    p.group = r.choice((f"{r.randint(1, 12)}组", f"{_cn_num(r.randint(1, 9))}组", f"{r.randint(1, 8)}队",
                        f"{_cn_num(r.randint(1, 6))}组"))
    p.street = r.choice(_STREETS)
    p.street_no = f"{r.randint(1, 399)}号"
    p.compound = r.choice(_COMPOUNDS)
    p.bldg = r.choice((f"{r.randint(1, 30)}号楼", f"{r.randint(1, 30)}栋", f"{r.randint(1, 20)}幢",
                       f"{r.choice('ABCDEFG')}座"))
    p.unit = f"{r.randint(1, 6)}单元"
    fl = r.randint(1, 33)
    p.room = f"{fl}{r.randint(1, 4):02d}" + r.choice(("室", "室", "", "号"))
    # workplace: another town/district
    city2, dists2 = r.choice(cities)
    p.work_city = city2
    p.work_dist = r.choice(dists2)[0]
    # patient
    p.sex = r.choice("MF")
    band = r.random()
    if band < 0.2:
        p.gen, p.age = "young", r.randint(1, 15)
    elif band < 0.55:
        p.gen, p.age = "mid", r.randint(20, 55)
    else:
        p.gen, p.age = "old", r.randint(56, 88)
    p.name, p.sur, p.given = _pick_name(r, p.sex, p.gen)
    p.nick = _nick(r, p.name, p.sur, p.given, p.gen)
    p.year = 2023 + r.randint(0, 1)
    p.by = p.year - p.age
    p.bm, p.bd = r.randint(1, 12), r.randint(1, 28)
    body = p.code + f"{p.by:04d}{p.bm:02d}{p.bd:02d}" + f"{r.randint(0, 99):02d}" + str(
        r.choice((1, 3, 5, 7, 9)) if p.sex == "M" else r.choice((0, 2, 4, 6, 8)))
    p.idno = body + _id_check(body)
    p.phone = _mobile(r)
    p.landline = _landline(r, p.city)
    # relatives
    p.rels = []
    kin_pool = (("old", "我爸", "M", "mid"), ("old", "我妈", "F", "mid"), ("old", "父亲", "M", "mid"),
                ("old", "母亲", "F", "mid"), ("old", "老伴", "X", "old"), ("mid", "我老公", "M", "mid"),
                ("mid", "我爱人", "X", "mid"), ("mid", "我媳妇", "F", "mid"), ("young", "孩子", "X", "young"),
                ("young", "我儿子", "M", "young"), ("young", "我女儿", "F", "young"), ("mid", "我姐", "F", "mid"),
                ("mid", "我哥", "M", "mid"), ("old", "我奶奶", "F", "old"), ("old", "我外公", "M", "old"),
                ("old", "我婆婆", "F", "old"), ("mid", "我弟", "M", "mid"))
    for _ in range(3):
        ptgen, kin, sx, rgen = r.choice(kin_pool)
        if sx == "X":
            sx = "F" if p.sex == "M" else "M"
        name, sur, given = _pick_name(r, sx, rgen)
        if rgen in ("old", "mid") and p.sur and r.random() < 0.5 and kin in ("我爸", "父亲", "我哥", "我弟", "我姐"):
            name = p.sur + r.choice(_GIVEN_MID_M if sx == "M" else _GIVEN_MID_F)
            sur, given = p.sur, name[len(p.sur):]
            if name in _NAME_BLOCK:
                name, sur, given = _pick_name(r, sx, rgen)
        p.rels.append((kin, name, _nick(r, name, sur, given, rgen), _mobile(r)))
    # hospitals
    local = _CITY_HOSP[p.city]
    p.hosp_city = r.choice(local)
    p.hosp_big = r.choice(_NATIONAL_HOSP + tuple(_CITY_HOSP[c][0] for c, _ in cities))
    dist_stem = p.dist[:-1] if len(p.dist) > 2 else p.dist
    cty = p.dist if p.dist.endswith(("县", "市")) else p.city + "市" + p.dist
    p.hosp_county = (cty + r.choice(("人民医院", "中医院", "妇幼保健院", "第二人民医院")),
                     (dist_stem + r.choice(("人民医院", "医院", "中医院")), p.dist + r.choice(("医院", "中医院", "妇幼"))))
    p.hosp_county_lvl = r.choice(("县中医院", "县妇幼", "市中医院", "县二院", "市妇幼", "县一院", "区中医院"))
    p.health = p.town + "卫生院" if p.rural else p.town + "社区卫生服务中心"
    p.village_clinic = p.village + "卫生室"
    p.clinic = r.choice(_CLINIC_NAMES)
    p.dept = r.choice(_DEPTS)
    # doctors & nurse
    p.docs = []
    for _ in range(2):
        sx = r.choice("MF")
        name, sur, given = _pick_name(r, sx, "mid")
        while not sur:
            name, sur, given = _pick_name(r, sx, "mid")
        p.docs.append((name, sur, r.choice(_TITLES)))
    name, sur, given = _pick_name(r, "F", "mid")
    while not sur:
        name, sur, given = _pick_name(r, "F", "mid")
    p.nurse = (name, sur, r.choice(_NURSE_TITLES))
    # dates
    p.visits = []
    for _ in range(3):
        p.visits.append((p.year - r.choice((0, 0, 0, 1)), r.randint(1, 12), r.randint(1, 28)))
    # records
    y2 = p.visits[0][0]
    p.mrn_cue, p.mrn = r.choice((
        ("门诊号", _digits(r, r.choice((7, 8, 10)), "0123")), ("住院号", "ZY" + str(y2) + _digits(r, 5, "0")),
        ("住院号", _digits(r, 8)), ("病案号", _digits(r, r.choice((6, 7)))), ("门诊ID", _digits(r, 9)),
        ("门诊ID", "MZ" + _digits(r, 8)), ("病历号", _digits(r, 8)), ("ID号", _digits(r, 10, "0")),
        ("就诊卡号", _digits(r, 12)), ("医保卡号", _digits(r, 10)), ("建档号", "JD" + _digits(r, 7)),
        ("条码号", str(y2 % 100) + _digits(r, 10)), ("影像号", "CT" + str(y2 % 100) + _digits(r, 6, "0")),
        ("病理号", f"B{y2 % 100}-" + _digits(r, 5, "0")), ("报告单号", "R" + _digits(r, 11))))
    p.order_cue, p.order = r.choice((
        ("订单号", _digits(r, 19)), ("订单编号", _digits(r, 16)), ("挂号单号", "GH" + _digits(r, 12)),
        ("处方号", "CF" + str(y2) + _digits(r, 8)), ("预约号", _digits(r, 8)), ("交易单号", "42000" + _digits(r, 23)),
        ("商户单号", "M" + _digits(r, 15)), ("转诊单号", "ZZ" + _digits(r, 10)), ("预约码", _digits(r, 6)),
        ("支付宝交易号", str(y2) + "0" + _digits(r, 23))))
    p.wx = r.choice(("wxid_" + "".join(r.choice("abcdefghijkmnpqrstuvwxyz0123456789") for _ in range(12)),
                     (p.sur and "".join(r.choice("abcdefghjklmnpqrstwxyz") for _ in range(r.randint(3, 6))) or "lin")
                     + _digits(r, r.randint(3, 6)),
                     "a" + _digits(r, 9), "xiaoyu_" + str(p.by), "mama" + _digits(r, 4) + "hz"))
    p.qq = _digits(r, r.randint(8, 10))
    p.email = r.choice((p.qq + "@qq.com", "".join(r.choice("abcdefghklmnpqrstwxyz") for _ in range(5)) + str(p.by)
                        + r.choice(("@163.com", "@126.com", "@sina.com", "@gmail.com", "@foxmail.com", "@139.com")),
                        "zh" + _digits(r, 6) + "@yeah.net"))
    return p


# ----------------------------------------------------------------------------------------------- renderers
def _addr(r: random.Random, p: _P, depth: str | None = None) -> str:
    """An address string (one span) at a random depth; never a province alone."""
    depth = depth or r.choice(("full", "city_down", "dist_down", "town_down", "village", "city", "dist",
                               "city_dist", "street", "compound"))
    city = p.city + r.choice(("市", "市", ""))
    prov = p.prov_full if r.random() < 0.6 else p.prov_short
    if p.rural:
        tail = [p.town, p.village, p.group if r.random() < 0.7 else ""]
    else:
        tail = [p.street, p.street_no if r.random() < 0.6 else "", p.compound, p.bldg + p.unit + p.room
                if r.random() < 0.7 else p.bldg]
    tail = "".join(tail)
    if depth == "full":
        return prov + city + p.dist + tail
    if depth == "city_down":
        return city + p.dist + tail
    if depth == "dist_down":
        return p.dist + tail
    if depth == "town_down":
        return tail
    if depth == "village":
        return (p.village + (p.group if r.random() < 0.5 else "")) if p.rural else p.compound
    if depth == "city":
        return city
    if depth == "dist":
        return p.dist
    if depth == "city_dist":
        return city + p.dist
    if depth == "street":
        return p.street + p.street_no if not p.rural else p.town
    return p.compound + (p.bldg + p.unit + p.room if r.random() < 0.5 else "") if not p.rural else p.village


def _hosp(r: random.Random, h) -> str:
    return h[0] if r.random() < 0.45 else r.choice(h[1])


def _any_hosp(r: random.Random, p: _P) -> str:
    c = r.random()
    if c < 0.3:
        return _hosp(r, p.hosp_city)
    if c < 0.5:
        return _hosp(r, p.hosp_big)
    if c < 0.65:
        return _hosp(r, p.hosp_county)
    if c < 0.75:
        return p.hosp_county_lvl
    if c < 0.85:
        return p.health
    if c < 0.92:
        return p.clinic
    return p.village_clinic


def _date(r: random.Random, p: _P, i: int = 0, year_p: float = 0.5) -> str:
    y, mo, d = p.visits[i % len(p.visits)]
    return _date_forms(r, y, mo, d, year_p)


def _age(r: random.Random, p: _P) -> str:
    if p.age < 3 and r.random() < 0.5:
        return f"{p.age * 12 + r.randint(0, 11)}个月"
    if r.random() < 0.15 and p.age >= 20:
        return _cn_num(p.age) + "岁"
    return f"{p.age}岁"


_DUR = ("3天", "两天", "一周", "两周", "半个月", "一个多月", "3个月", "半年", "两年多", "十来天", "5天", "四五天",
        "一年", "7天", "2个月", "十几年")
_SYMPT = ("胸闷", "咳嗽", "头晕", "胃疼", "腰疼", "失眠", "发烧", "拉肚子", "皮疹", "心慌", "腿肿", "尿频", "耳鸣",
          "关节疼", "乏力", "反酸", "便血", "手麻")
_LABS = (("空腹血糖", lambda r: f"{r.uniform(5.0, 14.0):.1f}mmol/L"), ("肌酐", lambda r: f"{r.randint(50, 400)}μmol/L"),
         ("ALT", lambda r: f" {r.randint(20, 300)}U/L"), ("血红蛋白", lambda r: f"{r.randint(70, 160)}g/L"),
         ("糖化血红蛋白", lambda r: f"{r.uniform(5.5, 11.0):.1f}%"), ("尿酸", lambda r: f"{r.randint(300, 650)}μmol/L"),
         ("白细胞", lambda r: f"{r.uniform(3.0, 18.0):.1f}×10^9/L"), ("TSH", lambda r: f" {r.uniform(0.1, 12):.2f}mIU/L"),
         ("总胆固醇", lambda r: f"{r.uniform(3.5, 8.0):.2f}mmol/L"), ("CEA", lambda r: f" {r.uniform(1, 30):.1f}ng/ml"),
         ("血小板", lambda r: f"{r.randint(50, 450)}×10^9/L"), ("甘油三酯", lambda r: f"{r.uniform(0.8, 6.0):.2f}mmol/L"))
_DRUGS = (("二甲双胍", ("0.5g", "500mg", "0.85g")), ("氨氯地平", ("5mg", "2.5mg")), ("阿托伐他汀", ("20mg", "10mg")),
          ("阿司匹林", ("100mg",)), ("奥美拉唑", ("20mg",)), ("左甲状腺素钠", ("50μg", "25μg")),
          ("布洛芬混悬液", ("5ml", "4ml")), ("头孢克肟", ("100mg",)), ("硝苯地平控释片", ("30mg",)),
          ("胰岛素", ("12个单位", "8u")), ("美托洛尔", ("25mg", "47.5mg")), ("蒙脱石散", ("1袋", "半袋")))


def _lab(r):
    name, f = r.choice(_LABS)
    return K(name + f(r), "lab")


def _vital(r):
    c = r.randint(0, 6)
    if c == 0:
        return K(f"血压{r.randint(100, 190)}/{r.randint(60, 115)}mmHg", "vital")
    if c == 1:
        return K(f"高压{r.randint(130, 200)}", "vital")
    if c == 2:
        return K(f"体温{r.randint(36, 40)}.{r.randint(0, 9)}℃", "vital")
    if c == 3:
        return K(f"心率{r.randint(48, 140)}次/分", "vital")
    if c == 4:
        return K(f"体重{r.randint(8, 95)}kg", "vital")
    if c == 5:
        return K(f"BP {r.randint(100, 190)}/{r.randint(60, 115)}", "vital")
    return K(f"烧到{r.randint(38, 40)}.{r.randint(0, 9)}度", "vital")


def _dose(r):
    name, doses = r.choice(_DRUGS)
    return name, K(r.choice(doses), "dose")


def _dur(r):
    return K(r.choice(_DUR), "duration")


def _time(r):
    return K(r.choice(("昨天", "前天", "上周三", "今天上午", "晚上10点", "上个月", "2020年", "5月份", "前年",
                       "大前天", "上周五", "这两天", "凌晨3点", "去年")), "time")


def _sym(r):
    return r.choice(_SYMPT)


def _doc(r, p, i=0, full_p=0.6):
    """(name-part, title) for a doctor: full name or surname with a title."""
    name, sur, title = p.docs[i % 2]
    return (name if r.random() < full_p else sur), title


def _rel(r, p, i=0):
    return p.rels[i % len(p.rels)]


def _sep(r):
    return r.choice(("，", "，", ",", " ", "、"))


def _clinical_tail(r, m):
    c = r.randint(0, 4)
    if c == 0:
        m.add("，", _lab(r), "，这个要紧吗？")
    elif c == 1:
        m.add("，量了", _vital(r), "，需要调药吗")
    elif c == 2:
        d, k = _dose(r)
        m.add("，现在吃", d, "每次", k, "，", _dur(r), "了")
    elif c == 3:
        m.add("，", _sym(r), "有", _dur(r), "了")
    else:
        m.add("，麻烦医生看看")


# ---- identifier scenarios (each adds at least one identifier span)
def s_list_open(r, m, p):  # 刘平，56岁，男，…
    m.add(N(p.name), _sep(r), K(_age(r, p), "age"), _sep(r), "男" if p.sex == "M" else "女", _sep(r),
          _sym(r), _dur(r))
    _clinical_tail(r, m)


def s_family(r, m, p):
    kin, name, nick, ph = _rel(r, p)
    rel = {"young": ("妈妈", "爸爸", "奶奶", "家长"), "mid": ("爱人", "姐姐", "弟弟", "家属", "同事"),
           "old": ("女儿", "儿子", "孙女", "家属", "老伴", "外孙")}[p.gen]
    m.add(r.choice(("医生您好，", "你好，", "", "大夫，")), "我是", N(p.name), "的", r.choice(rel),
          r.choice(("，", "，替", "，帮")), "ta问一下，", K(_age(r, p), "age"), "，", _sym(r), _dur(r))
    _clinical_tail(r, m)


def s_kin_named(r, m, p):
    kin, name, nick, ph = _rel(r, p)
    form = r.random()
    if form < 0.4:
        m.add(kin, N(name), "，", K(f"{r.randint(50, 85)}岁", "age"), "，")
    elif form < 0.7:
        m.add(kin, "（", N(name), "）")
    else:
        m.add(kin, "叫", N(name), "，")
    m.add("在", (_hosp(r, p.hosp_city), "HOSPITAL"), r.choice(("查出", "确诊", "诊断")),
          r.choice(("胃溃疡", "冠心病", "肺结节", "糖尿病肾病", "慢阻肺")), "，", _lab(r), "，想问下下一步怎么办")


def s_nick(r, m, p):
    kin, name, nick, ph = _rel(r, p, 1)
    m.add(r.choice(("我家", "我们家", "")), N(nick), r.choice(("这几天", "从", "")), _time(r), "开始", _sym(r), "，",
          _vital(r))
    m.add("，", r.choice(("要去医院吗", "能吃药吗", "需要打针吗")))


def s_reply_addr(r, m, p):  # doctor addressing patient
    m.add(r.choice(("收到，", "好的，", "", "您好，")), N(p.name if r.random() < 0.6 else p.nick),
          r.choice(("，", "，", " ")), "报告我看了，", _lab(r), r.choice(("偏高", "偏低", "还可以")), "，")
    d, k = _dose(r)
    m.add(d, "先吃", k, "，", _dur(r), "后复查")
    m.role = "doctor"


def s_companion(r, m, p):
    kin, name, nick, ph = _rel(r, p)
    m.add("我和", N(name), r.choice(("都是", "一起", "两个人都")), r.choice(("查出", "有", "得了")),
          r.choice(("幽门螺杆菌阳性", "乙肝小三阳", "脂肪肝", "甲状腺结节")), "，", "是不是会传染？")


def s_id_line(r, m, p):
    m.add(r.choice(("", "实名信息：", "挂号要填：", "补充一下，")), N(p.name), r.choice((" ", "，", "  ")),
          (p.idno, "ID"), r.choice(("", "，", " ")))
    if r.random() < 0.6:
        m.add((_fmt_mobile(r, p.phone), "PHONE"))
    else:
        m.add(K(_age(r, p), "age"))


def s_name_id_phone(r, m, p):
    sep = r.choice(("\n", "，", " ", "；"))
    m.add("姓名：", N(p.name), sep, "身份证号：", (p.idno, "ID"), sep, r.choice(("电话：", "手机号：", "联系方式：")),
          (_fmt_mobile(r, p.phone), "PHONE"))
    if r.random() < 0.5:
        m.add(sep, "地址：", (_addr(r, p, "full"), "ADDRESS"))


def s_delivery(r, m, p):
    kin, name, nick, ph = _rel(r, p)
    m.add(r.choice(("药寄到", "收货地址：", "麻烦寄到", "快递地址")), (_addr(r, p, r.choice(("full", "city_down", "dist_down"))),
                                                            "ADDRESS"), r.choice(("，", " ", "，收件人")),
          N(r.choice((p.name, name))), " ", (_fmt_mobile(r, r.choice((p.phone, ph))), "PHONE"))


def s_glued_addr(r, m, p):
    c = r.random()
    if c < 0.25:
        m.add("我们住", (_addr(r, p, r.choice(("city_dist", "dist", "dist_down"))), "ADDRESS"), "那边，")
    elif c < 0.5:
        m.add("从", (_addr(r, p, r.choice(("town_down", "dist_down", "dist"))), "ADDRESS"), "过来的，")
    elif c < 0.7:
        st = p.dist[:-1] if len(p.dist) > 2 and p.dist.endswith(("县", "区")) else p.dist
        m.add("老家是", (st, "ADDRESS"), "的，")
    elif c < 0.85:
        m.add("在", (p.work_city, "ADDRESS"), r.choice(("打工", "上班", "带孙子")), "，")
    else:
        m.add("人在", (p.work_city + "市" + p.work_dist, "ADDRESS"), "，")
    m.add(K(_age(r, p), "age"), "，", _sym(r), _dur(r), "，", r.choice(("在那边能看吗", "需要回来看吗", "当地能治吗")))


def s_village(r, m, p):
    if p.rural:
        m.add(r.choice(("我们", "俺们", "")), (p.town + p.village, "ADDRESS") if r.random() < 0.5 else (p.village, "ADDRESS"),
              r.choice(("的", "这边的", "")), (p.village_clinic, "HOSPITAL") if r.random() < 0.4 else "村医",
              "说是", r.choice(("胃炎", "感冒", "风湿")), "，开了", r.choice(("输液", "药")), "，", _dur(r), "没好")
    else:
        m.add("住", (p.compound, "ADDRESS"), r.choice(("，离", "，到", "，去")), (p.health, "HOSPITAL"),
              r.choice(("很近", "挺近的", "不远")), "，能在那开", _dose(r)[0], "吗")


def s_city_alone(r, m, p):
    c = r.random()
    city = p.city + ("市" if r.random() < 0.3 else "")
    if c < 0.3:
        m.add("人在", (city, "ADDRESS"), "，", r.choice(("能线上开药吗", "明天能过去挂号吗", "想去你们医院看")))
    elif c < 0.6:
        m.add((city, "ADDRESS"), r.choice(("这边", "哪家医院", "有没有")), r.choice(("看", "治", "做")),
              r.choice(("甲状腺", "乳腺结节", "痛风")), "比较好？")
    else:
        m.add("明天从", (city, "ADDRESS"), "坐高铁去", (p.work_city if p.work_city != p.city else p.hosp_big[0],
                                                       "ADDRESS" if p.work_city != p.city else "HOSPITAL"), "，", _dur(r), "了")


def s_hosp_full(r, m, p):
    doc, title = _doc(r, p)
    m.add(r.choice(("在", "之前在", "去年在")), (_hosp(r, p.hosp_city), "HOSPITAL"), p.dept, "看过，", N(doc), title,
          r.choice(("说", "建议", "让")), r.choice(("手术", "先吃药观察", "复查CT", "做穿刺")), "，", _lab(r))


def s_hosp_short(r, m, p):
    h = r.choice((p.hosp_county_lvl, r.choice(p.hosp_city[1]), r.choice(p.hosp_big[1]), r.choice(p.hosp_county[1])))
    m.add(r.choice(("", "之前")), (h, "HOSPITAL"), r.choice(("的", "做的", "查的")), r.choice(("彩超", "CT", "胃镜", "血常规")),
          r.choice(("说", "显示")), r.choice(("没事", "有结节", "有点炎症")), "，", _sym(r), "还是", _dur(r), "了")


def s_clinic(r, m, p):
    h = r.choice((p.clinic, p.health, p.village_clinic))
    m.add("在", (h, "HOSPITAL"), r.choice(("输了", "挂了")), _dur(r), "水，", _vital(r), "，", r.choice(("还要去大医院吗", "需要换药吗")))


def s_doctor_title(r, m, p):
    doc, title = _doc(r, p, r.randint(0, 1))
    m.add(r.choice(("", "请问")), N(doc), title, r.choice(("您好", "，您好", "在吗", "，打扰了")), "，",
          r.choice(("我是", "")), r.choice(("上次", "前几天")), r.choice(("找您看", "找您复诊", "您看的")),
          r.choice(("那个", "")), r.choice(("糖尿病", "高血压", "胃病", "湿疹")), "患者，", _lab(r))


def s_staff(r, m, p):
    nurse, nsur, nt = p.nurse
    doc, title = _doc(r, p, 1, 0.5)
    m.add(r.choice(("", "您好，")), "我是", (_hosp(r, p.hosp_city), "HOSPITAL"), p.dept, "的", N(nurse if r.random() < 0.5 else nsur), nt,
          "，", N(doc), title, r.choice(("让我提醒您", "让我通知您")), "，",
          r.choice(("明天上午空腹来抽血", "按时吃药", "下周来复查")))
    m.role = "doctor"


def s_doc_signoff(r, m, p):
    doc, title = _doc(r, p, 0, 0.8)
    d, k = _dose(r)
    m.add(d, "每天", k, "，", _dur(r), "后复查，有问题随时联系。——", (_hosp(r, p.hosp_city), "HOSPITAL"), " ",
          p.dept, " ", N(doc))
    m.role = "doctor"


def s_date_visit(r, m, p):
    m.add(r.choice(("我", "患者", kin_of(r, p))), r.choice(("是", "")), (_date(r, p, 0), "DATE"),
          r.choice(("做的手术", "住的院", "查出来的", "开始吃药的")), "，", r.choice(("现在", "到现在")), _dur(r), "了，",
          _sym(r), "还有")


def kin_of(r, p):
    return _rel(r, p, r.randint(0, 2))[0]


def s_date_slash(r, m, p):
    y, mo, d = p.visits[1]
    c = r.random()
    if c < 0.35:
        m.add(r.choice(("预约", "复查")), r.choice(("", "在")), (f"{mo}/{d}", "DATE"), r.choice(("，", "那天")),
              r.choice(("需要空腹吗", "要带什么资料")))
    elif c < 0.6:
        m.add((f"{mo}/{d}", "DATE"), "那天", r.choice(("去拍的片子", "抽的血")), "，", _lab(r))
    else:
        m.add("约的", (f"{mo}.{d}号", "DATE"), r.choice(("复查", "做胃镜", "拆线")), "，", _time(r), "又开始", _sym(r))


def s_date_ym(r, m, p):
    y, mo, d = p.visits[2]
    c = r.random()
    if c < 0.35:
        m.add((f"{y}年{mo}月", "DATE"), r.choice(("查出", "确诊")), r.choice(("糖尿病", "乳腺癌", "肺结节")), "，",
              _time(r), "复查", _lab(r))
    elif c < 0.6:
        ym = r.choice(("去年", "今年")) + r.choice(_LUNAR_M[10:] + (f"{mo}月",))
        m.add((ym, "DATE"), r.choice(("开始", "就")), _sym(r), "，吃了", _dose(r)[0], _dur(r))
    elif c < 0.8:
        m.add(r.choice(("生日", "出生日期：", "出生")), ((f"{p.by}年" if r.random() < 0.5 else "") + f"{p.bm}月{p.bd}日", "DATE"), "，",
              K(_age(r, p), "age"))
    else:
        m.add("农历生日是", (_LUNAR_M[p.bm - 1] + _lunar_day(p.bd), "DATE"), "，", K(_age(r, p), "age"), "，",
              r.choice(("属龙", "属马", "属兔")))


def s_today_date(r, m, p):
    y, mo, d = p.visits[0]
    m.add((f"今年{mo}月{d}日" if r.random() < 0.5 else f"{mo}月{d}号", "DATE"), r.choice(("在", "去")),
          (_any_hosp(r, p), "HOSPITAL"), r.choice(("做了", "查了")), r.choice(("CT", "核磁", "胃镜", "心电图")), "，",
          _vital(r))


def s_phone(r, m, p):
    c = r.random()
    if c < 0.4:
        m.add(r.choice(("我电话", "手机", "联系电话", "有事打我电话", "我手机号是")), r.choice(("", "：", " ")),
              (_fmt_mobile(r, p.phone), "PHONE"))
    elif c < 0.7:
        m.add(r.choice(("科室电话", "家里座机", "护士站电话", "座机")), r.choice(("", "：")), (p.landline, "PHONE"))
    else:
        kin, name, nick, ph = _rel(r, p)
        m.add(kin, N(name), "的电话", (_fmt_mobile(r, ph), "PHONE"), "，", r.choice(("白天打这个", "我不在就打这个")))
    if r.random() < 0.3:
        m.add("，急的话", G(r.choice(("打120", "叫120", "拨打120"))))


def s_hotline(r, m, p):
    sp = r.choice(("-", "", " "))
    m.add("客服电话", (r.choice(("400", "800")) + sp + _digits(r, 3) + sp + _digits(r, 4), "PHONE"),
          "，", r.choice(("一直打不通", "说退款要", "让我等")), _dur(r) if r.random() < 0.5 else "", "，订单号",
          (p.order, "ORDER_ID"))


def s_order(r, m, p):
    m.add(r.choice(("", "你好，")), p.order_cue, r.choice(("：", "", " ", "是")), (p.order, "ORDER_ID"), "，",
          r.choice(("药还没发货", "想退款", "医生一直没回复", "支付了没显示")))


def s_mrn(r, m, p):
    c = r.random()
    if c < 0.4:
        m.add(r.choice(("患者", "病人", "")), N(p.name), r.choice(("，", "的")))
    elif c < 0.6:
        m.add("我", r.choice(("妈", "爸", "老公")), "的")
    m.add(p.mrn_cue, r.choice(("：", "", " ", "是")), (p.mrn, "MRN"), "，", r.choice(("报告出来了吗", "能帮忙查一下吗",
                                                                                   "病理结果多久出")))


def s_mrn_hosp(r, m, p):
    m.add((_hosp(r, p.hosp_city), "HOSPITAL"), p.mrn_cue, (p.mrn, "MRN"), "，", r.choice(("出院记录", "检查单", "报告")),
          r.choice(("发您了", "在这")), "，", _lab(r))


def s_wechat(r, m, p):
    c = r.random()
    if c < 0.35:
        m.add(r.choice(("加我微信", "微信", "VX", "vx", "微信号")), r.choice(("", "：", " ")), (p.wx, "URL"),
              r.choice(("，发图片方便", "", "，拍了片子发您")))
    elif c < 0.6:
        m.add(r.choice(("QQ", "qq", "扣扣")), r.choice(("", "：", "号")), (p.qq, "URL"), "，", r.choice(("报告传不上来", "加一下")))
    elif c < 0.8:
        m.add(r.choice(("邮箱", "报告发我邮箱", "Email：")), r.choice(("", " ", "：")), (p.email, "EMAIL"))
    else:
        link = r.choice((f"https://m.jd.com/order/{p.order[:10]}", f"http://weixin.qq.com/r/{_digits(r, 8)}",
                         f"https://h5.haodf.com/doctor/{_digits(r, 7)}.html",
                         f"https://www.xiaohongshu.com/user/{_digits(r, 10)}",
                         f"https://v.douyin.com/{_digits(r, 6)}a/",
                         f"http://report.{_digits(r, 3)}yy.cn/q?id={_digits(r, 9)}"))
        m.add(r.choice(("报告链接", "您看这个", "查询地址")), r.choice(("：", " ")), (link, "URL"), r.choice(("", " 打不开")))


def s_other_id(r, m, p):
    c = r.random()
    if c < 0.3:
        m.add("护照号", r.choice(("", "：")), ("E" + _digits(r, 8, "0123456789"), "ID"), "，", r.choice(("在国外想咨询", "出国体检")))
    elif c < 0.55:
        m.add("社保卡号", r.choice(("", "：")), (_digits(r, 9), "ID"), "，", "报销比例是多少")
    elif c < 0.75:
        m.add("军官证", ("军字第" + _digits(r, 7) + "号", "ID"), "，", r.choice(("能用吗", "能挂号吗")))
    else:
        body = p.code + f"{p.by % 100:02d}{p.bm:02d}{p.bd:02d}" + _digits(r, 3, "0123456789")
        m.add(r.choice(("老身份证号", "我妈的身份证是老的")), "：", (body, "ID"), "，", K(_age(r, p), "age"))


def s_referral(r, m, p):
    doc, title = _doc(r, p, 0, 1.0)
    m.add("建议转", (_hosp(r, p.hosp_big), "HOSPITAL"), r.choice(("进一步治疗", "做PET-CT", "手术")), "，可以找", N(doc), title,
          "，", "转诊单号", (p.order if "转诊" in p.order_cue else "ZZ" + _digits(r, 10), "ORDER_ID"))
    m.role = "doctor"


def s_schedule(r, m, p):
    doc, title = _doc(r, p, 1, 0.6)
    y, mo, d = p.visits[2]
    m.add(N(doc), title, r.choice(("周二上午", "每周四", "下周一下午")), "在", (_hosp(r, p.hosp_city), "HOSPITAL"),
          r.choice(("出门诊", "坐诊")), "，", r.choice(("我给您加了号", "你可以预约")), "，", (f"{mo}月{d}号", "DATE"), "过来")
    m.role = "doctor"


def s_history(r, m, p):
    m.add(N(p.name), "，", "男" if p.sex == "M" else "女", "，", K(_age(r, p), "age"), "，", (p.dist + (p.town if p.rural else ""), "ADDRESS"),
          "人。", (_date(r, p, 0, 0.9), "DATE"), "因", _sym(r), "于", (_any_hosp(r, p), "HOSPITAL"), "就诊，", _lab(r), "。")
    m.role = r.choice(("doctor", "patient"))


def s_form(r, m, p):
    sep = r.choice(("\n", "  ", "；"))
    m.add((_hosp(r, p.hosp_city), "HOSPITAL"), "检验报告单", sep, "姓名：", N(p.name), sep, "性别：",
          "男" if p.sex == "M" else "女", sep, "年龄：", K(_age(r, p), "age"), sep, p.mrn_cue, "：", (p.mrn, "MRN"), sep,
          "送检日期：", (_date_forms(r, *p.visits[0], with_year_p=1.0), "DATE"), sep, _lab(r), sep, _lab(r))


def s_kinship_multi(r, m, p):
    (k1, n1, nk1, _), (k2, n2, nk2, _) = p.rels[0], p.rels[1]
    m.add(k1, N(r.choice((n1, nk1))), "和", k2.replace("我", ""), N(r.choice((n2, nk2))), r.choice(("都", "一起")),
          r.choice(("高血压", "血糖高")), "，", _vital(r), "，", r.choice(("是遗传吗", "能吃一样的药吗")))


def s_minor(r, m, p):
    kin, name, nick, ph = _rel(r, p, 2)
    m.add(r.choice(("孩子", "宝宝", "娃")), N(r.choice((name, nick))), "，", K(f"{r.randint(1, 11)}岁", "age"), "，",
          _vital(r), "，在", (p.hosp_county_lvl if r.random() < 0.5 else _hosp(r, p.hosp_city), "HOSPITAL"), "开了",
          _dose(r)[0])


def s_title_family(r, m, p):
    kin, name, nick, ph = _rel(r, p)
    m.add("家属", N(name), r.choice(("，", "：", " ")), r.choice(("患者", "病人")), r.choice(("术后", "化疗后")), _dur(r),
          "，", _vital(r), "，", r.choice(("能出院吗", "伤口有点渗液")))


def s_address_room(r, m, p):
    m.add(r.choice(("上门护理地址：", "家在", "住在")), (p.compound + p.bldg + p.unit + p.room if not p.rural else
                                              p.town + p.village + p.group, "ADDRESS"),
          "，", r.choice(("老人行动不便", "卧床", "没法出门")), "，", K(f"{r.randint(70, 95)}岁", "age"))


def s_workplace(r, m, p):
    m.add("我在", (p.work_city + ("市" if r.random() < 0.4 else "") + p.work_dist, "ADDRESS"), r.choice(("的工地", "一个厂里", "的饭店")),
          r.choice(("上班", "干活")), "，", _sym(r), _dur(r), "，", r.choice(("是职业病吗", "能请假吗")))


def s_self_intro(r, m, p):
    c = r.random()
    if c < 0.35:
        m.add(r.choice(("我叫", "本人", "患者本人", "您好我是")), N(p.name), "，", K(_age(r, p), "age"), "，")
    elif c < 0.6:
        m.add(r.choice(("医生好，", "")), N(p.name), r.choice(("，", " ")), "复诊", "，")
    else:
        m.add("挂号人：", N(p.name), "（", "男" if p.sex == "M" else "女", "，", K(_age(r, p), "age"), "）", "，")
    m.add(_sym(r), _dur(r), "，", r.choice((_lab(r), _vital(r))))


def s_polite_title(r, m, p):
    sx_t = ("先生", "叔叔", "大爷") if p.sex == "M" else ("女士", "阿姨", "大妈")
    if not p.sur:
        nm, t = p.name, r.choice(("", "同志"))
    else:
        nm = p.name if r.random() < 0.5 else p.sur
        t = r.choice(sx_t)
    m.add(N(nm), t, r.choice(("您好", "，您好", "你好")), "，", r.choice(("您的", "")), _lab(r),
          r.choice(("偏高", "已经正常了", "比上次好")), "，", r.choice(("继续吃药", "下个月复查", "注意饮食")))
    m.role = "doctor"


def s_child_parent(r, m, p):
    kin, name, nick, ph = _rel(r, p, 2)
    pet = r.choice(_PET)
    m.add(N(r.choice((pet, name))), r.choice(("妈妈", "爸爸", "家长")), r.choice(("您好，", "你好，", "，")), "孩子",
          _vital(r), "，", r.choice(("布洛芬混悬液", "头孢克肟颗粒", "对乙酰氨基酚混悬滴剂", "阿莫西林颗粒")), "按", K(f"体重{r.randint(3, 20)}kg", "vital"), "算，每次",
          K(r.choice(("5ml", "4ml", "2.5ml")), "dose"))
    m.role = "doctor"


def s_at(r, m, p):
    doc, title = _doc(r, p, r.randint(0, 1), 0.4)
    m.add("@", N(doc), title, " ", r.choice(("麻烦看下", "您好")), "，", _lab(r), "，", _lab(r))


def s_signoff_patient(r, m, p):
    kin, name, nick, ph = _rel(r, p)
    m.add(r.choice(("谢谢医生！", "辛苦了。", "麻烦您了，")), _dur(r), "后再来复查。",
          r.choice(("——", "患者家属：", "家属 ", "")), N(r.choice((name, p.name))), r.choice(("", "敬上")))


def s_date_range(r, m, p):
    y, mo, d = p.visits[0]
    d2 = min(d + r.randint(3, 14), 28)
    c = r.random()
    if c < 0.4:
        a, b = f"{mo}月{d}日", f"{mo}月{d2}日"
    elif c < 0.7:
        a, b = f"{mo}.{d}", f"{mo}.{d2}"
    else:
        a, b = f"{y}年{mo}月{d}日", f"{mo}月{d2}日"
    m.add((a, "DATE"), r.choice(("至", "到", "-")), (b, "DATE"), "在", (_any_hosp(r, p), "HOSPITAL"), "住院，",
          r.choice(("出院后", "现在")), _vital(r))


def s_short_ym(r, m, p):
    y, mo, d = p.visits[1]
    m.add(r.choice(("", "我")), (f"{y % 100}年{mo}月", "DATE"), r.choice(("做的支架", "生的孩子", "查出的甲亢")), "，",
          r.choice(("现在", "目前")), _lab(r))


def s_town_glued(r, m, p):
    if p.rural:
        m.add("在", (p.town, "ADDRESS"), r.choice(("上开了个小卖部", "上打零工", "赶集的时候")), "，", _sym(r), _dur(r), "，",
              (p.health, "HOSPITAL"), r.choice(("说", "的医生说")), r.choice(("去大医院看", "血压高")), "，", _vital(r))
    else:
        m.add("我们", (p.town, "ADDRESS"), r.choice(("这边", "附近")), "有", (p.health, "HOSPITAL"), "，能开",
              _dose(r)[0], "吗？", _vital(r))


def s_hosp_dept_glued(r, m, p):
    h = r.choice(p.hosp_city[1] + p.hosp_big[1])
    doc, title = _doc(r, p, 0, 0.3)
    y, mo, d = p.visits[1]
    m.add("挂了", (h, "HOSPITAL"), p.dept, r.choice(("的号", "专家号")), "，", N(doc), title, r.choice(("那里", "")),
          "，", (r.choice((_date_forms(r, y, mo, d, 0.0), f"{mo}/{d}")), "DATE"), "那天", r.choice(("去", "看")))


def s_mixed_neg(r, m, p):
    m.add("先在", G(r.choice(("当地医院", "县医院", "社区医院", "市人民医院"))), "看的，后来去了",
          (_hosp(r, p.hosp_city), "HOSPITAL"), "，", r.choice(("吃了", "开了")), G(r.choice(_NEG_BRANDS)), "，",
          G(r.choice(("高血压", "黄疸", "关节疼"))), "还是", r.choice(("没好", "反复")), "，", _vital(r))


def s_landline_plain(r, m, p):
    ll = _AREA[p.city] + _digits(r, 8 if len(_AREA[p.city]) == 4 or p.city in ("广州", "成都") else 7, "2345678")
    m.add(r.choice(("打了", "拨", "问了")), (ll, "PHONE"), r.choice(("没人接", "说要预约")), "，",
          (_hosp(r, p.hosp_city), "HOSPITAL"), r.choice(("还有别的电话吗", "怎么挂号")))


def s_name_list(r, m, p):
    (k1, n1, _, _), (k2, n2, _, _) = p.rels[0], p.rels[1]
    sep = r.choice(("、", "和", "，", " "))
    m.add(N(p.name), sep, N(n1))
    if r.random() < 0.5:
        m.add(sep if sep != "和" else "、", N(n2))
    m.add(r.choice(("都", "三个人都", "一家人都")), r.choice(("查出幽门螺杆菌", "血脂高", "乙肝表面抗原阳性")), "，",
          r.choice(("要一起治吗", "碗筷要分开吗")), "，", _lab(r))


def s_phone_name(r, m, p):
    kin, name, nick, ph = _rel(r, p)
    c = r.random()
    if c < 0.5:
        m.add((_fmt_mobile(r, ph), "PHONE"), r.choice((" ", "，", "  ")), N(name), r.choice(("，下午都在", "，打这个", "")))
    else:
        m.add("有事联系", N(nick if r.random() < 0.4 else name), r.choice(("：", " ", "，")), (_fmt_mobile(r, ph), "PHONE"))
    if r.random() < 0.4:
        m.add("，别打", G("12320"), "，那个问不到")


def s_contact(r, m, p):
    items = [("微信", p.wx, "URL"), ("QQ", p.qq, "URL"), ("邮箱", p.email, "EMAIL"), ("手机", _fmt_mobile(r, p.phone), "PHONE"),
             ("座机", p.landline, "PHONE")]
    r.shuffle(items)
    k = r.randint(2, 3)
    m.add(r.choice(("联系方式：", "方便联系：", "", "我的联系方式 ")))
    for i, (cue, val, cat) in enumerate(items[:k]):
        m.add("，" if i else "", cue, r.choice(("：", " ", "")), (val, cat))
    if r.random() < 0.5:
        m.add("，", r.choice(("检查结果发邮箱就行", "晚上才能回", "找", "联系人")), N(p.name) if r.random() < 0.3 else "")


def s_email(r, m, p):
    doc, title = _doc(r, p, 0)
    c = r.random()
    if c < 0.5:
        m.add(N(doc), title, r.choice(("，", "您好，")), "片子能发您邮箱吗？", r.choice(("我的是", "我邮箱")),
              (p.email, "EMAIL"))
    else:
        dmail = r.choice(("doctor", "dr.", "")) + "".join(r.choice("abcdefghjklmnpqrstwxyz") for _ in range(5)) + r.choice(
            ("@163.com", "@hospital.cn", "@qq.com", "@126.com"))
        m.add("资料发我邮箱", (dmail, "EMAIL"), "，", r.choice(("我看完回复您", "注明姓名和年龄")))
        m.role = "doctor"


_ID_SCEN = (s_name_list, s_phone_name, s_delivery, s_glued_addr, s_name_id_phone, s_id_line, s_address_room, s_mrn, s_order, s_village,
            s_history, s_form, s_other_id, s_self_intro, s_polite_title, s_child_parent, s_at, s_signoff_patient, s_date_range, s_short_ym,
            s_town_glued, s_hosp_dept_glued, s_mixed_neg, s_landline_plain, s_contact, s_email, s_wechat, s_list_open, s_family, s_kin_named, s_nick, s_reply_addr, s_companion, s_id_line, s_name_id_phone,
            s_delivery, s_glued_addr, s_village, s_city_alone, s_hosp_full, s_hosp_short, s_clinic, s_doctor_title,
            s_staff, s_doc_signoff, s_date_visit, s_date_slash, s_date_ym, s_today_date, s_phone, s_hotline, s_order,
            s_mrn, s_mrn_hosp, s_wechat, s_other_id, s_referral, s_schedule, s_history, s_form, s_kinship_multi,
            s_minor, s_title_family, s_address_room, s_workplace)


# ---- clinical-only scenarios (keep spans, hard negatives, no identifier)
def c_lab(r, m):
    m.add(r.choice(("医生，", "", "您好，")), _lab(r), "，", _lab(r), "，", r.choice(("和", "跟")), G(r.choice(_NEG_WORDS)),
          r.choice(("有关系吗？", "有关吗")))


def c_phrase(r, m):
    m.add(G(r.choice(_NEG_PHRASES)), "，", _sym(r), _dur(r), "，", r.choice((_lab(r), _vital(r))))


def c_disease(r, m):
    pre, post = r.choice((("是", "吗？"), ("会不会是", "？"), ("查出", "，"), ("怀疑", "，")))
    m.add(pre, G(r.choice(_NEG_PLACEDIS)), post, _dur(r), "了，", _vital(r))


def c_brand(r, m):
    m.add(r.choice(("能吃", "可以用", "在吃")), G(r.choice(_NEG_BRANDS)), "吗？", _sym(r), _dur(r), "，", _vital(r))


def c_food(r, m):
    pre, post = r.choice((("昨天吃了", "，"), ("平时爱吃", "，"), ("能吃", "吗？"), ("吃了点", "，")))
    m.add(pre, G(r.choice(_NEG_PLACEFOOD)), post, _time(r),
          "开始", _sym(r), "，", _vital(r))


def c_generic_hosp(r, m):
    m.add(r.choice(("在", "去了", "之前在")), G(r.choice(_NEG_HOSP)), r.choice(("查了", "看了")), "，", _lab(r), "，",
          r.choice(("还要去", "要不要去")), G(r.choice(("大医院", "三甲医院", "专科医院"))), "？")


def c_province(r, m):
    m.add(G(r.choice(_NEG_PROV)), "，", K(f"{r.randint(20, 80)}岁", "age"), "，", _sym(r), _dur(r), "，", _vital(r))


def c_emerg(r, m):
    m.add(K(r.choice(("昨天", "前天", "上周三", "大前天", "上周五")), "time"), "晚上突然", r.choice(("胸痛", "抽搐", "昏倒")), "，", G(r.choice(_NEG_EMERG)), "送去的，", _vital(r), "，",
          r.choice(("现在怎么护理", "还会复发吗")))


def c_nameword(r, m):
    pre, w, post = r.choice(_NEG_NAMEWORD_SENT)
    m.add(pre, G(w), post, _vital(r), "，", r.choice(("正常吗", "要加药吗", "怎么调理")))


def c_dose(r, m):
    d, k = _dose(r)
    m.add(d, "一天", r.choice(("两次", "三次", "一次")), "每次", k, "，吃了", _dur(r), "，", _lab(r))
    m.role = r.choice(("doctor", "patient"))


def c_doc_advice(r, m):
    d, k = _dose(r)
    m.add("建议", d, k, "皮下注射" if d == "胰岛素" else r.choice(("口服", "睡前", "饭后")), "，", _dur(r), "后复查",
          r.choice(("肝功能", "血常规", "血糖")), "，注意", G(r.choice(("戴口罩", "饮食清淡", "多喝温开水", "忌口陈皮"))))
    m.role = "doctor"


def c_age_history(r, m):
    m.add(K(f"{r.randint(2, 90)}岁", "age"), "，", G(r.choice(("高血压", "黄疸", "关节")) ), "病史", _dur(r), "，", _time(r),
          "测", _vital(r), "，", _vital(r))


_PLAIN_SCEN = (c_phrase, c_disease, c_lab, c_brand, c_food, c_generic_hosp, c_province, c_emerg, c_nameword, c_dose, c_doc_advice,
               c_age_history)


def _afterthought(r, m, p):
    c = r.randint(0, 5)
    if c == 0:
        m.add(m.p("。"), "另外", (_any_hosp(r, p), "HOSPITAL"), "的片子也有")
    elif c == 1:
        m.add("（我电话", (_fmt_mobile(r, p.phone), "PHONE"), "）")
    elif c == 2:
        m.add(m.p("。"), "PS：", p.mrn_cue, (p.mrn, "MRN"))
    elif c == 3:
        m.add(m.p("，"), _time(r), "测了", _vital(r))
    elif c == 4:
        m.add(m.p("，"), "平时吃", G(r.choice(_NEG_BRANDS)))
    elif c == 5 and r.random() < 0.5:
        m.add(m.p("，"), "微信同号")
    else:
        m.add(m.p("，"), "谢谢", N(_doc(r, p)[0]), _doc(r, p)[1])


_FW_DIGITS = str.maketrans("0123456789", "０１２３４５６７８９")  # full-width digits throughout
_ASCII_PUNCT = str.maketrans("，：；？！（）", ",:;?!()")  # ASCII punctuation


def generate_annotated(seed: int, n: int) -> tuple[list[dict], list[list]]:
    """The messages and, per message, the hard-negative positions ``[start, end, string]``."""
    r = random.Random(seed)
    out, negs = [], []
    for _ in range(n):
        m = _M("patient")
        if r.random() < 0.615:
            p = _persona(r)
            r.choice(_ID_SCEN)(r, m, p)
            if r.random() < 0.3:
                _afterthought(r, m, p)
        else:
            r.choice(_PLAIN_SCEN)(r, m)
            if r.random() < 0.3:
                m.add(m.p("，"), K(r.choice(("昨天", "今天早上", "刚才", "前天晚上")), "time"), "又",
                      r.choice(("量了", "测了")), _vital(r))
        if r.random() < 0.2:
            m.add(r.choice(("", m.p("！"), m.p("？"), m.p("。"), "～", "🙏", "[抱拳]")))
        msg = m.msg()
        st = r.random()
        tbl = _FW_DIGITS if st < 0.06 else _ASCII_PUNCT if st < 0.14 else None
        if tbl is not None:  # one-to-one character maps: offsets do not move
            msg["text"] = msg["text"].translate(tbl)
            m.negs = [[a, b, w.translate(tbl)] for a, b, w in m.negs]
        out.append(msg)
        negs.append(m.negs)
    return out, negs


def generate(seed: int, n: int) -> list[dict]:
    return generate_annotated(seed, n)[0]


def corpus_hash(msgs: list[dict]) -> str:
    return hashlib.sha256(json.dumps(msgs, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def verify() -> list[dict]:
    msgs = generate(0, 3000)
    h = corpus_hash(msgs)
    if h != CORPUS_SHA256:
        raise AssertionError(f"consult_e corpus changed: {h} != {CORPUS_SHA256}")
    return msgs


def _mark(m: dict) -> str:
    t, out, i = m["text"], [], 0
    for s, e, c in m["spans"]:
        out.append(t[i:s] + "【" + t[s:e] + "|" + c + "】")
        i = e
    return "".join(out) + t[i:]


def main() -> None:
    msgs = generate(0, 3000)
    counts = {c: 0 for c in CATEGORIES}
    for m in msgs:
        for _, _, c in m["spans"]:
            counts[c] += 1
    keep = {}
    for m in msgs:
        for _, _, k in m["keep"]:
            keep[k] = keep.get(k, 0) + 1
    print(f"messages {len(msgs)}  with identifiers {sum(1 for m in msgs if m['spans'])}  sha256 {corpus_hash(msgs)}")
    for c in CATEGORIES:
        print(f"  {c:9s} {counts[c]}")
    print("keep", ", ".join(f"{k} {keep[k]}" for k in sorted(keep)))
    for m in msgs[:12]:
        print(f"[{m['role']}] {_mark(m)}")


if __name__ == "__main__":
    sys.exit(main())
