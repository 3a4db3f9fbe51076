"""Held-out test corpus D for text de-identification: whole online consultations, turn by turn.

Provenance: a fourth generator, written from the category definitions alone (the ``text.policy`` block of
``conf/deid/default.yaml`` and its comments, and the annotation conventions in the docstrings of
``benchmarks/corpora/consult_b.py`` and ``consult_c.py``), without reading the detector, its rules, its
lexicons, its statistical layer, its own synthetic generator, the benchmark script or the code of the other
corpora, and without ever running a detector on it.  Frozen: measurement only, never tuning.  If a rule is
changed because of a message in this corpus, the corpus no longer measures anything; write a new one.

Pure standard library; deterministic given a seed (one ``random.Random(seed)``, lists only, no set/dict
iteration order or hash randomisation).  The corpus for seed 0 / 3000 messages is frozen by
``CORPUS_SHA256`` (sha256 of ``json.dumps(generate(0, 3000), ensure_ascii=False, sort_keys=True)``);
``verify()`` regenerates it and raises if a single character moved.  ``python
benchmarks/corpora/consult_d.py`` prints the counts per category, the share of messages with an identifier
and a few marked samples.

Each message::

    {"text": str, "role": "patient" | "doctor",
     "spans": [[start, end, CATEGORY], ...],     # identifiers that must be masked
     "keep":  [[start, end, kind], ...]}         # clinical numbers that must NOT be masked

Offsets are Python ``str`` (code point) offsets, end exclusive, sorted; spans never overlap each other or
a keep span; no span or keep span starts or ends with whitespace.  About 60 % of the messages carry at
least one identifier.  ``generate(seed, n)`` returns the first ``n`` messages of an endless stream of
consultations, so a shorter corpus is a prefix of a longer one.

Design (unlike corpus B's fixed scenarios and corpus C's per-message slot grammar): the unit is a whole
CONSULTATION of 6-20 turns between a patient-side speaker (the patient, or a parent, child or spouse
writing for them) and a doctor.  A case is drawn first (patient, speaker, relatives with generational
given names, nicknames, doctor, the hospitals the patient went to, a place hierarchy down to
village/compound/room, phones, WeChat, e-mail, ID, record and order numbers, dates around a consultation
day) and the turns then refer back to it the way chats do: a relative is introduced with a kinship word
("我哥李德华") and later called by the bare given name or a nickname ("德华", "豆豆", "老李"); an address
comes piecewise (the district first, the street, compound and room in a later message, or the two
fields of a pasted delivery slip); a number is asked for and comes back bare ("13912345678 李娟"); the doctor
repeats the patient's name, sometimes with a homophone slip (德明 -> 德铭); a hospital is named in full,
then by its short form (浙一, 华西, 协和, 附一, 市二院) or by a generic word (县医院, 省人医); dates are
absolute and relative.  Registers per conversation and message: voice-to-text transcripts (no
punctuation, fillers, numbers as words: 幺三九…, 六十八岁, 三月五号), pasted lab reports, discharge
summaries and prescriptions with their header fields (姓名 性别 年龄 科室 床号 住院号 …), forwarded
WeChat contact cards, pasted delivery and payment details, doctors' template replies, colloquial typos
and homophones, ASCII / full-width / no punctuation, full-width digits, emoji.  Clinical turns carry the
hard negatives: brand drugs (立普妥, 波立维, 拜新同, 马应龙, 云南白药, 江中, 汤臣倍健, 999感冒灵),
eponyms and place-named diseases (桥本甲状腺炎, 帕金森, 川崎病, 克山病, 香港脚, 日本脑炎), place-named
foods (兰州拉面, 柳州螺蛳粉, 西湖醋鱼, 金华火腿), words starting with a surname character (马上, 白细胞,
高血压, 周一, 万一, 石膏, 叶酸), everyday words that are also names (高峰, 夏天, 文静, 平安), platforms
(丁香医生, 平安好医生), generic hospitals (当地医院, 社区医院, 三甲医院, 县医院, 省人医), a province
alone (我是河南的), emergency and service numbers (120, 110, 12320), and clinical numbers (keep spans).

Annotation conventions (those of corpora B and C, which define the categories, plus the choices below):

* NAME: the name only, never the title or kinship word ("我爸【李德明】", "【王】医生", "【张】阿姨",
  "【刘】主任").  Bare given names (【德华】), nicknames (【老李】, 【阿娟】, 【小敏】, doubled
  【豆豆】, Latin 【Amy】), misspelt echoes (【李德铭】), minority names whole (【阿依古丽·买买提】,
  【扎西顿珠】, 【巴特尔】), names of staff in report footers (检验者：【陈静怡】) are NAME.  The
  names of institutions (邵逸夫医院), brands (马应龙) and platforms (丁香医生) are not names.
* PHONE: mobiles plain, 3-4-4 with dashes or spaces, +86, read out in Chinese numerals (一/幺),
  landlines with area code and extension (转NNN inside the span), a department's landline, and a
  bare number given as the whole reply.
  120 / 110 / 12320 / 12345 are plain.
* ID: 18-digit resident IDs with a valid GB 11643 check digit (also grouped 6-8-4 with spaces and with
  lower-case x), passports (E + 8 digits, E + letter + 7), Hong Kong-Macau permits (C + 8), social
  security card numbers after a 社保卡 cue.
* EMAIL (incl. ``#``/``(at)`` for ``@``); URL: links (any link, a doctor's page or an article), short
  links, WeChat IDs, QQ numbers; the cue (微信号, QQ) is outside the span.  Choice: a mobile number given
  as a WeChat ID ("加我微信吧 139…") is URL, as the cue says what it is used as.
* ADDRESS: every geographic unit below the province, alone or in a chain: a city alone, district, county,
  banner, town/街道, village/组/屯/社区, road + number, compound + building/unit/room; a province written
  directly in front is inside the span; levels separated by spaces (a contact card's "地区：浙江 杭州",
  a pasted "浙江省 杭州市 西湖区") are one span; a chain split over two fields or two messages is two
  spans.  Choice: a 邮编 (postal code) names an area below the province and is ADDRESS.  A province alone
  (我是河南的, 在广东打工) is plain; place names inside food, drug, disease or hospital names are not
  ADDRESS (inside a hospital name they belong to the HOSPITAL span).
* HOSPITAL: named institutions and their short forms (协和, 华西, 301, 浙一, 附一, 市二院, 省肿瘤医院,
  县中医院, 郸城县人民医院), health centres (吴台镇卫生院), village clinics (王庄村卫生室), community
  health service centres named by their 街道, private clinics (刘氏诊所), named eye/check-up chains
  (爱尔眼科, 美年大健康体检中心); a place or a person inside the name (邵逸夫医院) belongs to the
  HOSPITAL span; the department after it is plain.  Choices: the policy keeps 市人民医院 without a place
  name, so 县人民医院, 省人民医院 and their colloquial short forms (县医院, 市医院, 区医院, 省医, 省人医)
  are plain even when the conversation named the hospital in full earlier (a co-reference does not make
  a generic phrase identifying); so are 镇上卫生院, 村卫生室, 诊所 used as back-references and the other
  generic phrases (当地医院, 社区医院, 三甲医院, 大医院, 私立医院, 药店).
* DATE: every calendar date finer than a year, whatever it dates (onset, visits, surgery, report and
  order times, birthdays, appointments): in a consultation they are all tied to the patient.  Forms:
  2024年3月5日, 2024-03-05, 2024/3/5, 24.3.5, 20240305, 3月5号, 3月5日, 3.5号, 今年/去年 + month (+ day)
  whole, 2023年5月 (year + month), 二〇二四年三月五日, 三月五号 (voice), lunar 农历八月初三.  Bare 3/5 and
  3.5 appear only after 预约/复查 or before 那天.  A range is two spans.  Clock times (14:23, 上午9点)
  are keep "time", never inside the DATE span.  A year alone, a month alone (5月份), weekdays (周三),
  relative days (三天前, 昨天, 下周) are keep "time" or plain text.
* MRN: 门诊号, 住院号, 病案号, 病历号, ID号, 就诊卡号, 医保卡号, 条码号, 标本号, 报告编号, 影像号,
  病理号.  Choice: bed numbers (床号：12, 12床) are plain; so are the other header fields of a pasted form
  (性别, 科室, 费别, 临床诊断) while 年龄 is a keep "age".
* ORDER_ID: platform orders, refunds, WeChat Pay / Alipay transaction numbers, prescription numbers,
  registration numbers, appointment codes, consultation numbers, courier waybill numbers.
* Keep spans: "age" (58岁, 六十八岁, 8个月, 3岁半), "duration" (3天, 两周, 半年), "dose" (amount + unit:
  20mg, 1片, 10单位; frequency plain), "lab" (test name + value + unit; reference ranges alone; lesion
  sizes), "vital" (sign + value: 血压150/95mmHg, 高压160, 体温38.5℃, 心率102次/分, 体重65kg), "time"
  (relative days, times of day, clock times, a year alone, a month alone).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

CATEGORIES = ["NAME", "PHONE", "ID", "EMAIL", "URL", "ADDRESS", "HOSPITAL", "DATE", "MRN", "ORDER_ID"]
KEEP_KINDS = ["age", "duration", "dose", "lab", "vital", "time"]

CORPUS_SHA256 = "2f27f3a00d84b8925280d9f6a372a50e25594e588eec047263253672eb85bbb9"

# ----------------------------------------------------------------------------------------------- pools

_SURNAMES_COMMON = list("王李张刘陈杨黄赵吴周徐孙马朱胡郭何林高罗")
_SURNAMES_MID = list("郑梁谢宋唐许韩冯邓曹彭曾肖田董潘袁蔡蒋余于杜叶程魏苏吕丁任卢姚沈钟姜崔谭陆范汪廖石金韦贾夏付方邹熊白孟秦邱侯江尹薛闫段雷龙黎史陶贺毛郝顾龚邵万覃武钱戴严莫孔向常汤")
_SURNAMES_RARE = list("佘禚隗仉笪亓綦逄郗訾闵麻母揭冼滕")
_SURNAMES_COMPOUND = ["欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "尉迟", "公孙", "令狐", "慕容", "夏侯", "端木"]

_GIVEN_M1 = list("伟强磊军勇杰涛斌超明刚平辉鹏华飞鑫波宇浩凯健俊帆帅旭宁龙林阳坤峰")
_GIVEN_F1 = list("芳娜敏丽艳娟霞燕玲婷萍红琳倩颖洁雪慧莉")
_GIVEN_M2 = ["建国", "建华", "国强", "志强", "志明", "永刚", "海涛", "晓东", "文博", "子轩", "浩然", "宇航",
             "梓豪", "俊杰", "一鸣", "思远", "长林", "福生", "金宝", "卫东", "红军", "振华", "博文", "沐阳"]
_GIVEN_F2 = ["桂英", "秀英", "秀兰", "玉兰", "桂兰", "丽娟", "淑珍", "凤英", "晓燕", "雪梅", "美玲", "欣怡",
             "梓涵", "诗涵", "雨桐", "可馨", "一诺", "语嫣", "思琪", "佳怡", "静怡", "慧敏", "春梅", "翠花"]
_GENERATION = list("德家宏传国世永兴继绍")
_GEN_SECOND_M = list("明华成林海山军斌福才")
_GEN_SECOND_F = list("芬英兰珍霞琴梅")
_MINORITY = [("阿依古丽·买买提", "F", "阿依古丽"), ("艾力·吐尔逊", "M", "艾力"), ("古丽娜尔·阿不都", "F", "古丽娜尔"),
             ("买买提·艾则孜", "M", "买买提"), ("扎西顿珠", "M", "扎西"), ("次仁卓玛", "F", "卓玛"),
             ("格桑梅朵", "F", "梅朵"), ("尼玛次仁", "M", "次仁"), ("巴特尔", "M", "巴特尔"),
             ("其木格", "F", "其木格"), ("乌云娜", "F", "乌云娜"), ("吉克阿依", "F", "阿依")]
_LATIN_NICK = ["Amy", "Tony", "Lily", "Kevin", "Coco", "Jack", "Emma", "Leo"]
_HOMOPHONE = {"明": "铭", "华": "桦", "丽": "莉", "娟": "鹃", "伟": "炜", "杰": "洁", "芳": "方", "英": "瑛",
              "兰": "岚", "林": "琳", "军": "君", "强": "墙", "平": "萍", "燕": "艳", "静": "婧", "涛": "韬"}

# province, city ("" for a municipality), district/county, towns/街道
_PLACES = [
    ("浙江省", "杭州市", "西湖区", ["三墩镇", "留下街道", "文新街道", "蒋村街道"]),
    ("浙江省", "杭州市", "余杭区", ["良渚街道", "仓前街道", "径山镇", "瓶窑镇"]),
    ("浙江省", "杭州市", "萧山区", ["瓜沥镇", "北干街道", "义桥镇"]),
    ("浙江省", "温州市", "瑞安市", ["塘下镇", "飞云街道"]),
    ("浙江省", "金华市", "义乌市", ["稠城街道", "佛堂镇"]),
    ("河南省", "郑州市", "金水区", ["花园路街道", "丰产路街道"]),
    ("河南省", "郑州市", "中牟县", ["白沙镇", "官渡镇"]),
    ("河南省", "周口市", "郸城县", ["吴台镇", "宁平镇"]),
    ("河南省", "周口市", "太康县", ["马头镇", "逊母口镇"]),
    ("河南省", "南阳市", "邓州市", ["穰东镇", "构林镇"]),
    ("四川省", "成都市", "武侯区", ["玉林街道", "簇桥街道"]),
    ("四川省", "成都市", "郫都区", ["犀浦街道", "友爱镇"]),
    ("四川省", "南充市", "营山县", ["回龙镇", "绿水镇"]),
    ("四川省", "凉山彝族自治州", "西昌市", ["安宁镇", "川兴镇"]),
    ("广东省", "广州市", "天河区", ["石牌街道", "棠下街道"]),
    ("广东省", "广州市", "白云区", ["江高镇", "人和镇"]),
    ("广东省", "深圳市", "宝安区", ["西乡街道", "福永街道"]),
    ("广东省", "佛山市", "顺德区", ["大良街道", "容桂街道", "乐从镇"]),
    ("山东省", "临沂市", "沂南县", ["依汶镇", "界湖街道"]),
    ("山东省", "潍坊市", "寿光市", ["文家街道", "稻田镇"]),
    ("山东省", "济南市", "历下区", ["泉城路街道", "甸柳街道"]),
    ("黑龙江省", "哈尔滨市", "南岗区", ["和兴路街道", "大成街道"]),
    ("黑龙江省", "哈尔滨市", "五常市", ["拉林满族镇", "山河镇"]),
    ("黑龙江省", "齐齐哈尔市", "克山县", ["北联镇", "西城镇"]),
    ("湖南省", "长沙市", "岳麓区", ["望月湖街道", "坪塘街道"]),
    ("湖南省", "邵阳市", "邵东市", ["廉桥镇", "两市塘街道"]),
    ("广西壮族自治区", "百色市", "田阳区", ["百育镇", "那坡镇"]),
    ("内蒙古自治区", "赤峰市", "敖汉旗", ["新惠镇", "四家子镇"]),
    ("北京市", "", "朝阳区", ["望京街道", "三里屯街道"]),
    ("北京市", "", "海淀区", ["中关村街道", "学院路街道"]),
    ("上海市", "", "浦东新区", ["张江镇", "川沙新镇"]),
    ("上海市", "", "闵行区", ["莘庄镇", "七宝镇"]),
    ("江苏省", "南京市", "鼓楼区", ["宁海路街道", "湖南路街道"]),
    ("江苏省", "苏州市", "昆山市", ["玉山镇", "花桥镇"]),
]
_PROV_SHORT = {"浙江省": "浙江", "河南省": "河南", "四川省": "四川", "广东省": "广东", "山东省": "山东",
               "黑龙江省": "黑龙江", "湖南省": "湖南", "广西壮族自治区": "广西", "内蒙古自治区": "内蒙古",
               "北京市": "北京", "上海市": "上海", "江苏省": "江苏"}
_POSTCODE = {"浙江省": "31", "河南省": "46", "四川省": "61", "广东省": "51", "山东省": "27", "黑龙江省": "15",
             "湖南省": "41", "广西壮族自治区": "53", "内蒙古自治区": "02", "北京市": "10", "上海市": "20",
             "江苏省": "21"}
_ID_REGION = {"浙江省": ["330106", "330110", "330381", "330782"], "河南省": ["410105", "411625", "411627", "411381"],
              "四川省": ["510107", "510124", "511322", "513401"], "广东省": ["440106", "440306", "440606"],
              "山东省": ["371321", "370783", "370102"], "黑龙江省": ["230103", "230184", "230229"],
              "湖南省": ["430104", "430521"], "广西壮族自治区": ["451003"], "内蒙古自治区": ["150430"],
              "北京市": ["110105", "110108"], "上海市": ["310115", "310112"], "江苏省": ["320106", "320583"]}
_VILLAGE_A = ["王庄", "李家", "张楼", "刘集", "后营", "前进", "东风", "杨湾", "柳林", "石桥", "马店", "新河", "大坪", "黄土坡"]
_VILLAGE_B = ["村", "村", "村", "社区"]
_GROUP = ["一组", "二组", "三组", "五组", "七组", "二社", "四社"]
_TUN = ["李家屯", "前屯", "后屯", "三家子屯"]
_ROADS = ["文一西路", "中山路", "人民路", "建设路", "解放路", "新华街", "长江路", "黄河路", "学院路", "朝阳路",
          "光明街", "和平路", "文化路", "团结路", "东风路", "滨江大道"]
_COMPOUND_A = ["阳光", "碧桂园", "万科", "金色", "幸福", "锦绣", "翠苑", "世纪", "御景", "丽都", "绿城", "恒大"]
_COMPOUND_B = ["小区", "花园", "苑", "公寓", "家园", "新村", "华府", "名邸"]

# full name, [(short form, marked)], province of the hospital ("" = national draw)
_HOSPITALS = [
    ("北京协和医院", [("协和", True), ("协和医院", True)], "北京市"),
    ("中国人民解放军总医院", [("301", True), ("301医院", True), ("解放军总医院", True)], "北京市"),
    ("北京大学第一医院", [("北大医院", True), ("北大一院", True)], "北京市"),
    ("首都医科大学附属北京同仁医院", [("同仁", True), ("同仁医院", True)], "北京市"),
    ("四川大学华西医院", [("华西", True), ("华西医院", True)], "四川省"),
    ("中南大学湘雅医院", [("湘雅", True), ("湘雅医院", True)], "湖南省"),
    ("中南大学湘雅二医院", [("湘雅二院", True), ("湘雅二", True)], "湖南省"),
    ("复旦大学附属中山医院", [("中山医院", True)], "上海市"),
    ("上海交通大学医学院附属瑞金医院", [("瑞金", True), ("瑞金医院", True)], "上海市"),
    ("复旦大学附属华山医院", [("华山", True), ("华山医院", True)], "上海市"),
    ("浙江大学医学院附属第一医院", [("浙大一院", True), ("浙一", True)], "浙江省"),
    ("浙江大学医学院附属邵逸夫医院", [("邵逸夫", True), ("邵逸夫医院", True)], "浙江省"),
    ("浙江大学医学院附属儿童医院", [("浙大儿院", True), ("浙大儿保", True)], "浙江省"),
    ("山东大学齐鲁医院", [("齐鲁", True), ("齐鲁医院", True)], "山东省"),
    ("郑州大学第一附属医院", [("郑大一附院", True), ("郑大一", True), ("附一", True)], "河南省"),
    ("中山大学附属第一医院", [("中山一院", True), ("附一", True)], "广东省"),
    ("江苏省人民医院", [("省人医", False), ("省人民医院", False)], "江苏省"),
    ("河南省人民医院", [("省人民医院", False), ("省医", False)], "河南省"),
    ("华中科技大学同济医学院附属协和医院", [("武汉协和", True), ("协和", True)], ""),
    ("华中科技大学同济医学院附属同济医院", [("同济", True), ("同济医院", True)], ""),
    ("哈尔滨医科大学附属第一医院", [("哈医大一院", True), ("哈医大", True)], "黑龙江省"),
    ("广西医科大学第一附属医院", [("广西医大一附院", True), ("医大一附院", True)], "广西壮族自治区"),
    ("河南省肿瘤医院", [("省肿瘤医院", True), ("省肿瘤", True)], "河南省"),
    ("浙江省肿瘤医院", [("省肿瘤医院", True), ("省肿瘤", True)], "浙江省"),
    ("湖南省儿童医院", [("省儿童医院", True), ("省儿童", True)], "湖南省"),
    ("杭州市第一人民医院", [("市一医院", True), ("杭州市一", True)], "浙江省"),
    ("郑州市第二人民医院", [("市二院", True)], "河南省"),
    ("临沂市人民医院", [("市人民医院", False), ("市医院", False)], "山东省"),
    ("成都市妇女儿童中心医院", [("市妇儿中心", True), ("市妇幼", True)], "四川省"),
    ("温州医科大学附属第一医院", [("温医大附一", True), ("附一", True)], "浙江省"),
    ("广州医科大学附属第一医院", [("广医一院", True), ("附一", True)], "广东省"),
    ("爱尔眼科医院", [("爱尔眼科", True)], ""),
    ("美年大健康体检中心", [("美年", True)], ""),
]
_DEPTS = ["心内科", "消化内科", "内分泌科", "呼吸科", "神经内科", "骨科", "普外科", "妇产科", "儿科", "皮肤科",
          "泌尿外科", "肿瘤科", "眼科", "耳鼻喉科", "肾内科", "风湿免疫科", "甲乳外科", "中医科"]

_MOBILE_PREFIX = ["130", "131", "132", "133", "135", "136", "137", "138", "139", "150", "151", "152", "153", "155",
                  "156", "157", "158", "159", "166", "173", "177", "180", "181", "182", "183", "185", "186", "187",
                  "188", "189", "191", "198", "199"]
_AREA_CODE = {"浙江省": "0571", "河南省": "0371", "四川省": "028", "广东省": "020", "山东省": "0539", "黑龙江省": "0451",
              "湖南省": "0731", "广西壮族自治区": "0776", "内蒙古自治区": "0476", "北京市": "010", "上海市": "021",
              "江苏省": "025"}
_MAIL_DOMAIN = ["163.com", "qq.com", "126.com", "sina.com", "foxmail.com", "gmail.com", "hotmail.com", "139.com"]
_PINYIN = ["zhang", "wang", "li", "liu", "chen", "yang", "huang", "zhao", "wu", "zhou", "xu", "sun", "ma", "zhu",
           "hu", "guo", "he", "lin", "gao", "luo", "xiaoyu", "jianguo", "lili", "weiwei", "haitao", "xiaofang",
           "ouyang", "tiantian", "dahai", "mingming"]
_EMOJI = ["🙏", "😊", "👍", "😭", "🌹", "[抱拳]", "[捂脸]", "[流泪]", "[玫瑰]", "😔", "❤️", "[OK]", "🙏🙏"]
_TYPOS = [("已经", "以经"), ("应该", "因该"), ("什么", "啥"), ("怎么", "咋"), ("检查", "检察"), ("症状", "证状"),
          ("咳嗽", "咳簌"), ("谢谢", "谢谢啦"), ("在吃", "再吃"), ("吗", "嘛"), ("严重", "严种"), ("的话", "滴话"),
          ("好的", "好滴"), ("这个", "这个这个"), ("医生", "大夫")]

# hard negatives (plain text, never inside a span)
_BRANDS = [("阿托伐他汀", "立普妥", "20mg"), ("氯吡格雷", "波立维", "75mg"), ("硝苯地平控释片", "拜新同", "30mg"),
           ("氨氯地平", "络活喜", "5mg"), ("二甲双胍", "格华止", "0.5g"), ("左甲状腺素钠片", "优甲乐", "50μg"),
           ("布洛芬缓释胶囊", "芬必得", "0.3g"), ("蒙脱石散", "思密达", "1袋"), ("阿司匹林肠溶片", "拜阿司匹灵", "100mg"),
           ("门冬胰岛素", "诺和锐", "8单位"), ("奥美拉唑", "洛赛克", "20mg"), ("瑞舒伐他汀", "可定", "10mg")]
_OTC = ["云南白药气雾剂", "马应龙痔疮膏", "999感冒灵", "江中健胃消食片", "汤臣倍健蛋白粉", "金嗓子喉片", "片仔癀",
        "六味地黄丸", "连花清瘟胶囊", "王老吉", "同仁堂的安宫牛黄丸", "白云山板蓝根"]
_DISEASES = ["桥本甲状腺炎", "帕金森", "川崎病", "克山病", "香港脚", "日本脑炎", "阿尔茨海默病", "唐氏综合征",
             "克罗恩病", "格林巴利综合征", "库欣综合征", "布鲁氏菌病"]
_FOODS = ["兰州拉面", "柳州螺蛳粉", "西湖醋鱼", "金华火腿", "重庆火锅", "北京烤鸭", "武汉热干面", "沙县小吃",
          "宁夏枸杞", "德州扒鸡", "长沙臭豆腐", "新疆葡萄干"]
_GENERIC_HOSP = ["当地医院", "社区医院", "三甲医院", "大医院", "县医院", "附近的诊所", "药店", "乡镇卫生院", "私立医院",
                 "县人民医院", "市人民医院"]
_PLATFORMS = ["丁香医生", "平安好医生", "好大夫", "微医", "京东健康"]

# labs: name, low, high, decimals, unit, reference range
_LABS = [("空腹血糖", 4.2, 13.5, 1, "mmol/L", "3.9-6.1"), ("糖化血红蛋白", 5.0, 10.8, 1, "%", "4.0-6.0"),
         ("总胆固醇", 3.5, 7.9, 2, "mmol/L", "<5.2"), ("甘油三酯", 0.8, 6.5, 2, "mmol/L", "<1.7"),
         ("低密度脂蛋白", 1.8, 5.6, 2, "mmol/L", "<3.4"), ("尿酸", 280, 620, 0, "μmol/L", "208-428"),
         ("肌酐", 48, 210, 0, "μmol/L", "57-111"), ("谷丙转氨酶", 12, 160, 0, "U/L", "9-50"),
         ("白细胞", 2.8, 16.5, 1, "×10^9/L", "3.5-9.5"), ("血红蛋白", 78, 168, 0, "g/L", "115-150"),
         ("血小板", 70, 420, 0, "×10^9/L", "125-350"), ("TSH", 0.05, 12.0, 2, "mIU/L", "0.27-4.2"),
         ("C反应蛋白", 0.5, 86, 1, "mg/L", "0-10"), ("癌胚抗原", 0.8, 22, 2, "ng/mL", "0-5"),
         ("同型半胱氨酸", 6, 35, 1, "μmol/L", "0-15")]
_SYMPTOMS = ["头晕", "胸闷", "咳嗽", "发烧", "拉肚子", "胃疼", "腰疼", "失眠", "心慌", "皮疹", "关节肿", "乏力",
             "便血", "尿频", "耳鸣", "手麻"]
_DIAG = ["高血压", "2型糖尿病", "冠心病", "慢性胃炎", "甲状腺结节", "高尿酸血症", "肺结节", "腰椎间盘突出", "湿疹",
         "支气管炎", "脂肪肝", "桥本甲状腺炎"]

_CN_DIGIT = "〇一二三四五六七八九"
_FW = str.maketrans("0123456789", "０１２３４５６７８９")


# ----------------------------------------------------------------------------------------- small tools

def id_check_char(body17: str) -> str:
    """GB 11643-1999 check character of the first 17 digits."""
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return "10X98765432"[sum(int(c) * k for c, k in zip(body17, w)) % 11]


def id_check_ok(id18: str) -> bool:
    id18 = id18.upper()
    return len(id18) == 18 and id18[:17].isdigit() and id_check_char(id18[:17]) == id18[17]


def _cn_int(n: int) -> str:
    """0..199 as spoken Chinese (二十三, 一百零五)."""
    if n < 10:
        return _CN_DIGIT[n] if n else "零"
    if n < 20:
        return "十" + (_CN_DIGIT[n % 10] if n % 10 else "")
    if n < 100:
        return _CN_DIGIT[n // 10] + "十" + (_CN_DIGIT[n % 10] if n % 10 else "")
    rest = n % 100
    head = "一百"
    if rest == 0:
        return head
    if rest < 10:
        return head + "零" + _CN_DIGIT[rest]
    return head + (_CN_DIGIT[rest // 10] + "十" + (_CN_DIGIT[rest % 10] if rest % 10 else ""))


def _cn_digits(s: str, yao: bool = False) -> str:
    out = []
    for c in s:
        if c.isdigit():
            out.append("幺" if (yao and c == "1") else _CN_DIGIT[int(c)])
        else:
            out.append(c)
    return "".join(out)


def _days_in(y: int, m: int) -> int:
    if m == 2:
        return 29 if (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)) else 28
    return 30 if m in (4, 6, 9, 11) else 31


def _shift(d, days: int):
    y, m, dd = d
    dd += days
    while dd < 1:
        m -= 1
        if m < 1:
            m, y = 12, y - 1
        dd += _days_in(y, m)
    while dd > _days_in(y, m):
        dd -= _days_in(y, m)
        m += 1
        if m > 12:
            m, y = 1, y + 1
    return (y, m, dd)


class M:
    """A message under construction: parts of (text, label); label None = plain, CATEGORY, or keep kind."""

    def __init__(self, role: str, pasted: bool = False):
        self.role = role
        self.pasted = pasted  # a pasted form, card or slip: never a voice transcript
        self.parts: list[list] = []

    def p(self, *items):
        for it in items:
            if isinstance(it, str):
                if it:
                    self.parts.append([it, None])
            elif isinstance(it, M):
                self.parts.extend([list(x) for x in it.parts])
            elif isinstance(it, list):
                self.p(*it)
            else:
                self.parts.append([it[0], it[1]])
        return self

    def has_id(self) -> bool:
        return any(lab in CATEGORIES for _, lab in self.parts)


# --------------------------------------------------------------------------------------------- the case

class Case:
    pass


class Gen:
    def __init__(self, rng: random.Random):
        self.r = rng
        self.child = False

    # --- basic draws
    def ch(self, seq):
        return seq[self.r.randrange(len(seq))]

    def var(self, c, key: str, n: int) -> int:
        """A variant 0..n-1 of a turn not yet used in this conversation (any once all were used)."""
        used = c.var.setdefault(key, [])
        free = [k for k in range(n) if k not in used] or list(range(n))
        k = self.ch(free)
        used.append(k)
        return k

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def digits(self, n: int) -> str:
        return "".join(str(self.r.randrange(10)) for _ in range(n))

    def surname(self) -> str:
        x = self.r.random()
        if x < 0.55:
            return self.ch(_SURNAMES_COMMON)
        if x < 0.93:
            return self.ch(_SURNAMES_MID)
        if x < 0.97:
            return self.ch(_SURNAMES_RARE)
        return self.ch(_SURNAMES_COMPOUND)

    def given(self, sex: str, modern: bool) -> str:
        if sex == "M":
            one, two = _GIVEN_M1, _GIVEN_M2
        else:
            one, two = _GIVEN_F1, _GIVEN_F2
        if self.chance(0.3):
            return self.ch(one)
        g = self.ch(two)
        if modern and self.chance(0.5):
            g = self.ch(two[12:])
        elif not modern and self.chance(0.5):
            g = self.ch(two[:12])
        return g

    def person(self, sex: str, surname: str | None = None, modern: bool = False, gen: str | None = None) -> dict:
        if surname is None and gen is None and self.chance(0.05):
            full, s2, short = self.ch(_MINORITY)
            return {"full": full, "sur": "", "given": short, "sex": s2, "minority": True}
        sur = surname or self.surname()
        if gen:
            given = gen + self.ch(_GEN_SECOND_M if sex == "M" else _GEN_SECOND_F)
        else:
            given = self.given(sex, modern)
        return {"full": sur + given, "sur": sur, "given": given, "sex": sex, "minority": False}

    def nickname(self, p: dict, age: int) -> str:
        if p["minority"]:
            return p["given"]
        last = p["given"][-1]
        if age < 14:
            return self.ch([last + last, "小" + last, self.ch(["豆豆", "乐乐", "果果", "糖糖", "阳阳", "朵朵"])])
        if age >= 50 and len(p["sur"]) == 1:
            return self.ch(["老" + p["sur"], "阿" + last])
        return self.ch(["小" + last, "阿" + last, self.ch(_LATIN_NICK)])

    def mobile(self) -> str:
        return self.ch(_MOBILE_PREFIX) + self.digits(8)

    def resident_id(self, prov: str, birth) -> str:
        body = self.ch(_ID_REGION[prov]) + "%04d%02d%02d" % birth + self.digits(3)
        return body + id_check_char(body)

    # --- a whole case
    def case(self) -> Case:
        r = self.r
        c = Case()
        c.now = (self.ch([2023, 2024, 2025]), r.randrange(1, 13), r.randrange(1, 29))
        x = r.random()
        c.age = r.randrange(1, 13) if x < 0.2 else (r.randrange(18, 60) if x < 0.65 else r.randrange(60, 90))
        c.infant = c.age <= 1 and self.chance(0.5)
        c.sex = self.ch(["M", "F"])
        c.place = self.ch(_PLACES)
        prov = c.place[0]
        # speaker and patient
        if c.age < 14:
            c.speaker_rel = self.ch(["妈妈", "妈妈", "爸爸", "奶奶"])
            c.pat_word = self.ch(["我儿子", "孩子", "宝宝", "我家孩子"]) if c.sex == "M" else self.ch(["我女儿", "孩子", "宝宝", "我闺女"])
        elif c.age >= 60:
            c.speaker_rel = self.ch(["儿子", "女儿", "本人"])
            c.pat_word = ("我爸" if c.sex == "M" else "我妈") if c.speaker_rel != "本人" else "我"
        else:
            c.speaker_rel = self.ch(["本人", "本人", "本人", "妻子" if c.sex == "M" else "老公"])
            c.pat_word = "我" if c.speaker_rel == "本人" else ("我老公" if c.sex == "M" else "我老婆")
        fam_sur = self.surname()
        gen = self.ch(_GENERATION) if self.chance(0.4) else None
        c.pat = self.person(c.sex, surname=fam_sur, modern=c.age < 30, gen=gen if c.age >= 14 else None)
        if self.chance(0.05):
            c.pat = self.person(c.sex)
        c.nick = self.nickname(c.pat, c.age)
        # a sibling with the same generational character, and the speaker
        sib_sex = self.ch(["M", "F"])
        c.sib_word = self.ch(["哥", "姐", "弟", "妹"]) if c.age >= 14 else self.ch(["哥哥", "姐姐"])
        sib_sex = "M" if c.sib_word in ("哥", "弟", "哥哥") else "F"
        if gen and len(c.pat["given"]) == 2 and not c.pat["minority"]:
            c.sib = self.person(sib_sex, surname=c.pat["sur"], gen=c.pat["given"][0])
        else:
            c.sib = self.person(sib_sex, surname=c.pat["sur"] or None, modern=c.age < 30)
        if c.sib["full"] == c.pat["full"]:
            c.sib = self.person(sib_sex, surname=c.pat["sur"] or None, modern=True)
        if c.speaker_rel == "本人":
            c.spk = c.pat
        elif c.speaker_rel in ("爸爸", "儿子"):
            c.spk = self.person("M", surname=c.pat["sur"] or None, modern=c.speaker_rel == "儿子")
        else:
            c.spk = self.person("F" if c.speaker_rel != "老公" else "M")
        c.spk_nick = self.nickname(c.spk, 30)
        # doctor and staff
        c.doc = self.person(self.ch(["M", "F"]))
        c.doc_title = self.ch(["医生", "医生", "主任", "大夫", "教授", "老师"])
        c.asst = self.person("F", modern=True)
        c.lab_staff = [self.person(self.ch(["M", "F"])), self.person(self.ch(["M", "F"]))]
        # hospitals: a local one first visited, a big one (the doctor's or the referral)
        same = [h for h in _HOSPITALS if h[2] == prov]
        c.big = self.ch(same) if same and self.chance(0.6) else self.ch(_HOSPITALS)
        c.local = self.local_hospital(c)
        c.big_named = False
        c.dept = self.ch(_DEPTS)
        # contact and record numbers
        c.phone = self.mobile()
        c.phone2 = self.mobile()
        c.landline = (_AREA_CODE[prov], self.ch("2345678") + self.digits(7 if len(_AREA_CODE[prov]) == 3 else 6))
        c.wx = self.ch([self.ch(_PINYIN) + self.digits(self.r.randrange(2, 5)), "wxid_" + "".join(
            self.ch("abcdefghijkmnpqrstuvwxyz0123456789") for _ in range(12)), self.ch(_PINYIN) + "_" +
            str(self.r.randrange(1960, 2010)), self.ch(_PINYIN) + self.ch(["ya", "mm", "ge", "jie"]) + self.digits(3)])
        c.qq = str(self.r.randrange(1, 10)) + self.digits(self.r.randrange(7, 10))
        c.email = self.ch([self.ch(_PINYIN) + self.digits(self.r.randrange(2, 5)) + "@" + self.ch(_MAIL_DOMAIN),
                           c.qq + "@qq.com", self.ch(_PINYIN) + "." + self.ch(_PINYIN) + "@" + self.ch(_MAIL_DOMAIN)])
        c.doc_email = self.ch(_PINYIN) + self.digits(2) + "@" + self.ch(["zju.edu.cn", "163.com", "126.com", "hospital.cn"])
        birth_y = c.now[0] - c.age - (1 if self.chance(0.5) else 0)
        c.birth = (birth_y, self.r.randrange(1, 13), self.r.randrange(1, 29))
        c.idno = self.resident_id(prov, c.birth)
        c.spk_id = self.resident_id(prov, (c.now[0] - self.r.randrange(25, 60), self.r.randrange(1, 13),
                                           self.r.randrange(1, 29)))
        c.mrn = self.ch([self.digits(10), "ZY" + str(c.now[0]) + self.digits(5), self.digits(7),
                         "00" + self.digits(8), "MZ" + self.digits(9)])
        c.card = self.ch([self.digits(12), "A" + self.digits(8), "9" + self.digits(15)])
        c.onset = _shift(c.now, -self.r.randrange(3, 70))
        c.visit = _shift(c.now, -self.r.randrange(1, 30))
        c.surgery = _shift(c.now, -self.r.randrange(60, 700))
        c.follow = _shift(c.now, self.r.randrange(3, 40))
        c.symptom = self.ch(_SYMPTOMS)
        c.diag = self.ch(_DIAG)
        c.drug = self.ch(_BRANDS)
        c.voice = self.chance(0.2)
        c.addr_told = False
        c.sib_told = False
        c.pat_told = False
        c.var = {}
        c.uses = [0] * len(_MIDDLE)
        return c

    def local_hospital(self, c):
        prov, city, dist, towns = c.place
        town = self.ch(towns)
        kind = self.r.randrange(7)
        if kind == 0 and not dist.endswith("区"):
            return (dist + "人民医院", [("县医院" if dist.endswith("县") else "市医院", False)])
        if kind == 1 and dist.endswith("县"):
            return (dist + "中医院", [("县中医院", True)])
        if kind == 2 and town.endswith("镇"):
            return (town + "卫生院", [("镇上卫生院", False), ("卫生院", False)])
        if kind == 3 and town.endswith("街道"):
            return (town + "社区卫生服务中心", [("社区医院", False)])
        if kind == 4:
            return (self.ch(_VILLAGE_A) + "村卫生室", [("村卫生室", False)])
        if kind == 5:
            s = self.ch(_SURNAMES_COMMON + _SURNAMES_MID)
            return (s + "氏" + self.ch(["诊所", "中医诊所", "口腔诊所"]), [("诊所", False)])
        return (dist + self.ch(["第一人民医院", "中医院", "妇幼保健院"]), [("区医院" if dist.endswith("区") else "县医院", False)])

    # --- renderers (each returns a list of parts)
    def r_phone(self, c, num: str, voice: bool):
        if voice:
            yao = self.chance(0.6)
            return [(_cn_digits(num, yao), "PHONE")]
        k = self.r.randrange(9)
        if k == 0:
            t = num[:3] + "-" + num[3:7] + "-" + num[7:]
        elif k == 1:
            t = num[:3] + " " + num[3:7] + " " + num[7:]
        elif k == 2:
            t = self.ch(["+86 ", "+86", "(+86)", "+86-"]) + num
        elif k == 3:
            t = num[:3] + num[3:7] + " " + num[7:]
        else:
            t = num
        return [(t, "PHONE")]

    def r_landline(self, c):
        area, local = c.landline
        t = self.ch([area + "-" + local, "(" + area + ")" + local, area + " " + local, area + local])
        if self.chance(0.3):
            t += "转" + self.digits(self.r.randrange(3, 5))
        return [(t, "PHONE")]

    def r_date(self, d, c, voice: bool = False, day=True):
        y, m, dd = d
        if voice:
            if y == c.now[0] or self.chance(0.5):
                t = _cn_int(m) + "月" + _cn_int(dd) + self.ch(["号", "日"])
                if self.chance(0.3):
                    t = ("今年" if y == c.now[0] else "去年" if y == c.now[0] - 1 else "") + t
                return [(t, "DATE")]
            return [(_cn_digits(str(y)) + "年" + _cn_int(m) + "月" + _cn_int(dd) + "号", "DATE")]
        if not day:
            t = self.ch(["%d年%d月" % (y, m), ("今年" if y == c.now[0] else "去年" if y == c.now[0] - 1 else "%d年" % y)
                         + "%d月" % m if self.chance(0.9) else "%d年%d月" % (y, m), "%d年%d月份" % (y, m)])
            return [(t, "DATE")]
        k = self.r.randrange(12)
        forms = ["%d年%d月%d日" % d, "%d-%02d-%02d" % d, "%d/%d/%d" % d, "%02d.%d.%d" % (y % 100, m, dd),
                 "%d%02d%02d" % d, "%d月%d号" % (m, dd), "%d月%d日" % (m, dd), "%d.%d号" % (m, dd),
                 ("今年" if y == c.now[0] else "去年") + "%d月%d号" % (m, dd),
                 _cn_digits(str(y)).replace("0", "〇") + "年" + _cn_int(m) + "月" + _cn_int(dd) + "日",
                 "%d月%d日" % (m, dd), "%d年%d月%d号" % d]
        t = forms[k]
        if k == 8 and y < c.now[0] - 1:
            t = forms[0]
        return [(t, "DATE")]

    def r_id(self, idno: str):
        k = self.r.randrange(6)
        if k == 0:
            t = idno[:6] + " " + idno[6:14] + " " + idno[14:]
        elif k == 1 and idno.endswith("X"):
            t = idno[:-1] + "x"
        else:
            t = idno
        return [(t, "ID")]

    def r_addr_head(self, c, with_prov=False, spaced=False):
        prov, city, dist, _ = c.place
        seq = [prov] if (with_prov or not city) else []
        if city:
            seq.append(city)
        seq.append(dist)
        return (" " if spaced else "").join(seq)

    def r_street(self, c, voice=False):
        prov, city, dist, towns = c.place
        town = self.ch(towns)
        if dist.endswith("区") or town.endswith("街道") or self.chance(0.3):
            comp = self.ch(_COMPOUND_A) + self.ch(_COMPOUND_B)
            road = self.ch(_ROADS) + str(self.r.randrange(1, 999)) + "号"
            k = self.r.randrange(3 if voice else 4)
            if k == 0:
                unit = "%d栋%d单元%d%02d室" % (self.r.randrange(1, 30), self.r.randrange(1, 6), self.r.randrange(1, 33), self.r.randrange(1, 5))
            elif k == 1:
                unit = "%d号楼%d单元%d%02d" % (self.r.randrange(1, 30), self.r.randrange(1, 6), self.r.randrange(1, 20), self.r.randrange(1, 5))
            elif k == 2:
                unit = "%d幢%d%02d室" % (self.r.randrange(1, 30), self.r.randrange(1, 20), self.r.randrange(1, 5))
            else:
                unit = "%d-%d-%d%02d" % (self.r.randrange(1, 30), self.r.randrange(1, 6), self.r.randrange(1, 20), self.r.randrange(1, 5))
            parts = [town] if self.chance(0.4) else []
            parts += [road] if self.chance(0.7) else []
            parts += [comp, unit]
            return "".join(parts)
        vil = self.ch(_VILLAGE_A) + self.ch(_VILLAGE_B)
        if prov == "黑龙江省" and self.chance(0.6):
            return town + self.ch(_VILLAGE_A) + "村" + self.ch(_TUN)
        return town + vil + (self.ch(_GROUP) if vil.endswith("村") and self.chance(0.7) else "")

    def r_hosp(self, c, full=None):
        """The big hospital: in full the first time, then a short form (which may be a plain generic one)."""
        name, shorts, _ = c.big
        if full is None:
            full = not c.big_named or self.chance(0.15)
        c.big_named = True
        if full:
            return [(name, "HOSPITAL")]
        s, marked = self.ch(shorts)
        return [(s, "HOSPITAL")] if marked else [s]

    def r_local(self, c, full=True):
        name, shorts = c.local
        if full:
            return [(name, "HOSPITAL")]
        s, marked = self.ch(shorts)
        return [(s, "HOSPITAL")] if marked else [s]

    def doc_ref(self, c):
        """How the patient side addresses the doctor: surname + title, or nothing."""
        d = c.doc
        if d["minority"]:
            return [(d["given"], "NAME"), c.doc_title]
        return [(d["sur"], "NAME"), c.doc_title] if self.chance(0.75) else [(d["full"], "NAME"), c.doc_title]

    def pat_ref(self, c):
        """The patient as a third party in the speaker's words: kinship word, name or nickname."""
        k = self.r.randrange(4) if c.pat_told else 3
        if c.pat_word == "我":
            return ["我"]
        if k == 0:
            return [(c.nick, "NAME")]
        if k == 1 and not c.pat["minority"] and len(c.pat["given"]) == 2:
            return [(c.pat["given"], "NAME")]
        return [c.pat_word]

    def echo_name(self, c):
        """The doctor repeating the patient's name (full, with a title, or with a homophone slip)."""
        p = c.pat
        if p["minority"]:
            return [(p["full"] if self.chance(0.5) else p["given"], "NAME")]
        k = self.r.randrange(5)
        if k == 0 and p["given"][-1] in _HOMOPHONE:
            return [(p["sur"] + p["given"][:-1] + _HOMOPHONE[p["given"][-1]], "NAME")]
        if k == 1 and c.age >= 18:
            return [(p["sur"], "NAME"), self.ch(["先生", "大爷", "师傅"]) if p["sex"] == "M" else self.ch(["女士", "阿姨", "大姐"])]
        if k == 2 and c.age < 14:
            return [(c.nick, "NAME")]
        return [(p["full"], "NAME")]

    # --- clinical material (keep spans and hard negatives, no identifiers)
    def k_age(self, c, voice):
        if c.infant:
            return [(("%d个月" % self.r.randrange(2, 12)) if not voice else _cn_int(self.r.randrange(2, 12)) + "个月", "age")]
        if voice:
            return [(_cn_int(c.age) + "岁", "age")]
        return [(str(c.age) + self.ch(["岁", "岁", "周岁"]) + ("半" if c.age < 10 and self.chance(0.3) else ""), "age")]

    def k_dur(self, voice=False, short=False):
        """A duration; short ones (days to weeks) for courses, follow-ups and supplies."""
        if short:
            unit = self.ch(["天", "周", "个月"])
            n = self.r.randrange(2, 15) if unit == "天" else self.r.randrange(1, 5)
            words = [_cn_int(n) + unit, "两" + unit, "半个月", "一个月"]
        else:
            unit = self.ch(["天", "个月", "周", "年", "小时"])
            n = self.r.randrange(2, 12)
            words = [_cn_int(n) + unit, "两" + unit, "半个月", "一年多", "十几年", "大半年"]
        if voice or self.chance(0.3):
            t = self.ch(words)
        else:
            t = str(n) + unit
        return [(t, "duration")]

    def k_vital(self):
        k = self.r.randrange(7) if not self.child else self.ch([2, 2, 3, 5])  # a child: temperature, pulse, SpO2
        if k == 0:
            sbp = self.r.randrange(100, 190)
            return [("血压" + "%d/%d" % (sbp, sbp - self.r.randrange(30, 70)) + self.ch(["", "mmHg"]), "vital")]
        if k == 1:
            return [("高压%d" % self.r.randrange(130, 200), "vital"), "，", ("低压%d" % self.r.randrange(80, 120), "vital")]
        if k == 2:
            return [("体温%.1f" % (self.r.randrange(370, 405) / 10) + self.ch(["℃", "度"]), "vital")]
        if k == 3:
            return [("心率%d" % self.r.randrange(48, 130) + self.ch(["次/分", "", "次"]), "vital")]
        if k == 4:
            return [(self.ch(["体重%dkg" % self.r.randrange(40, 110), "体重%d斤" % self.r.randrange(80, 220)]), "vital")]
        if k == 5:
            return [("血氧%d%%" % self.r.randrange(88, 100), "vital")]
        sbp = self.r.randrange(100, 190)
        return [("BP %d/%d" % (sbp, sbp - self.r.randrange(30, 70)), "vital")]

    def k_lab(self, lab=None, with_ref=False):
        name, lo, hi, dec, unit, ref = lab or self.ch(_LABS)
        v = lo + (hi - lo) * self.r.random()
        val = ("%." + str(dec) + "f") % v
        out = [(name + self.ch(["", " ", "：" if self.chance(0.5) else ""]) + val + unit, "lab")]
        if with_ref:
            out += ["（参考", (ref, "lab"), "）"]
        return out

    def k_dose(self, drug):
        return [(drug[2], "dose")]

    def k_time(self, future=False):
        if future:
            return [(self.ch(["明天", "下周三", "下周", "明天上午", "后天", "下个月", "周五上午"]), "time")]
        return [(self.ch(["三天前", "昨天晚上", "前天", "上周", "今天早上", "凌晨3点", "前几天", "上个月",
                          "2019年", "2021年", "5月份", "去年", "半夜", "早上8点", "晚上10点多"]), "time")]

    def negative(self):
        k = self.r.randrange(12)
        if k == 0:
            return ["平时一直吃", self.ch(_OTC), "，有影响吗"]
        if k == 1:
            return ["之前查出来有", self.ch(_DISEASES), "，跟这个有关系吗"]
        if k == 2:
            return ["前天吃了", self.ch(_FOODS), "之后就开始不舒服"]
        if k == 3:
            return ["在", self.ch(_GENERIC_HOSP), "看过，说没什么大问题"]
        if k == 4:
            return ["我是", self.ch(["河南", "四川", "山东", "广西", "湖南", "黑龙江", "内蒙古", "浙江"]), self.ch(["的", "人", "那边的"]),
                    "，这边饮食偏", self.ch(["咸", "辣", "油"])]
        if k == 5:
            return [self.ch(["马上", "万一", "周一", "白天", "高血压", "石膏", "叶酸", "方便", "程度", "常规"]), "要注意什么"]
        if k == 6:
            return [self.ch(["早高峰挤地铁", "夏天", "她性格比较文静", "只求平安", "一到夏天"]), "的时候更明显"]
        if k == 7:
            return ["之前在", self.ch(_PLATFORMS), "上问过"]
        if k == 8:
            return ["晚上不舒服要不要打", self.ch(["120", "12320"])]
        if k == 9:
            return ["白细胞", self.ch(["有点高", "偏低", "正常吗"])]
        if k == 10:
            return ["家里有人得过", self.ch(_DISEASES)]
        return ["能不能吃", self.ch(_FOODS)]


# ------------------------------------------------------------------------------------------------ turns

def _p(c):
    return M("patient")


def _d(c):
    return M("doctor")


def t_open(g: Gen, c: Case):
    m, v = _p(c), c.voice
    hi = g.ch(["医生您好，", "大夫你好，", "您好，", "你好医生，", "在吗医生，", ""]) if not v else g.ch(["喂医生你好 那个", "医生你好 就是", "嗯 医生"])
    k = g.var(c, "t_open.k", 5)
    if c.pat_word == "我":
        if k <= 1:
            m.p(hi, "我叫", (c.pat["full"], "NAME"), "，今年", g.k_age(c, v), "，", c.symptom, g.k_dur(v), "了")
        else:
            m.p(hi, "我今年", g.k_age(c, v), "，最近", c.symptom, "，大概有", g.k_dur(v), "了，想咨询一下")
    elif k == 0:
        rel = {"妈妈": "妈妈", "爸爸": "爸爸", "奶奶": "奶奶", "儿子": "儿子", "女儿": "女儿", "妻子": "爱人", "老公": "爱人"}[c.speaker_rel]
        m.p(hi, "我是", (c.pat["full"], "NAME"), "的", rel, "，", c.pat_word, "今年", g.k_age(c, v), "，", c.symptom, g.k_dur(v), "了")
    elif k == 1:
        m.p(hi, "帮", c.pat_word, (c.pat["full"], "NAME"), "问一下，", g.k_age(c, v), "，", c.symptom, "，", g.k_time(), "开始的")
    elif k == 2 and c.age < 14:
        m.p(hi, "我家", (c.nick, "NAME"), g.k_age(c, v), "了，", g.k_time(), "开始", c.symptom, "，", g.k_vital())
    else:
        m.p(hi, c.pat_word, "今年", g.k_age(c, v), "，", c.symptom, "有", g.k_dur(v), "了，", g.k_vital())
    if g.chance(0.3):
        m.p("。", g.negative())
    return [m]


def t_greet(g: Gen, c: Case):
    m = _d(c)
    k = g.var(c, "t_greet.k", 5)
    if k == 0:
        m.p("您好，我是", g.r_hosp(c, full=True), c.dept, "的", (c.doc["full"], "NAME"), "医生，已经看到您的问诊信息。请问",
            c.symptom, "是一直有还是时有时无？")
    elif k == 1:
        m.p(g.echo_name(c), "您好，请问目前在吃什么药？有没有", g.ch(["高血压", "糖尿病", "过敏史"]), "？")
    elif k == 2:
        m.p("您好，我是", (c.doc["sur"] or c.doc["given"], "NAME"), g.ch(["医生", "大夫"]), "。麻烦补充一下：既往病史、目前用药、最近有没有做过检查。")
    else:
        m.p("您好，", c.symptom, "多久了？有没有", g.ch(["发热", "恶心呕吐", "胸痛", "体重下降"]), "？")
    return [m]


def t_symptom(g: Gen, c: Case):
    m, v = _p(c), c.voice
    k = g.var(c, "t_symptom.k", 6)
    if k == 0:
        m.p(g.r_date(c.onset, c, v), "开始", c.symptom, "的，", (g.ch(["晚上", "早上起来", "半夜", "下午", "饭后"]), "time"), "最厉害，", g.k_vital())
    elif k == 1:
        m.p(g.pat_ref(c), "一直有", c.diag, "，", g.k_dur(v), "了，", g.k_vital(), "，", g.negative())
    elif k == 2:
        m.p(g.k_time(), "量了一下", g.k_vital(), "，", g.ch(["吓死了", "这正常吗", "要紧吗", "需要去医院吗"]))
    elif k == 3:
        m.p("吃了", c.drug[0], "（", c.drug[1], "）", g.k_dose(c.drug), "，", g.k_dur(v), "了，", g.negative())
    elif k == 5 and not v:
        m.p(g.r_date(_shift(c.onset, -g.r.randrange(30, 300)), c, day=False), "就开始有点", c.symptom, "，", g.ch(["一直没管", "以为是累的", "吃了点药好了又犯"]))
    else:
        m.p(g.negative(), "，", g.k_vital())
    return [m]


def t_ask(g: Gen, c: Case):
    m = _d(c)
    k = g.var(c, "t_ask.k", 7)
    if k == 0:
        m.p("血压平时多少？有没有按时吃药？")
    elif k == 1:
        m.p("可以先查个", g.ch(["血常规", "甲功", "肝肾功能", "心电图", "胸部CT", "腹部B超"]), "，结果出来发给我看看。")
    elif k == 2:
        m.p(c.drug[0], "可以继续吃，每次", g.k_dose(c.drug), "，每天1次，", g.k_dur(short=True), "后复查", g.ch(["血脂", "血糖", "肝功能"]), "。")
    elif k == 3:
        m.p(g.ch(_DISEASES), "一般不会这样，不用太担心。", g.ch(_FOODS), "这类重口味的先别吃。")
    elif k == 4:
        m.p("之前在哪里看过？有没有检查报告？")
    elif k == 6:
        m.p("先在", g.ch(_GENERIC_HOSP), "查个", g.ch(["血常规", "甲功", "B超"]), "，不放心再去", g.ch(["三甲医院", "大医院", "省会的医院"]),
            "。", g.ch(_OTC), "这类", g.ch(["可以暂时用", "先别吃", "没有必要"]), "。")
    else:
        m.p("注意休息，", g.k_lab(), "偏", g.ch(["高", "低"]), "，要复查。", g.ch(["马上", "尽快", "周一"]), "去医院抽血。")
    return [m]


def t_history(g: Gen, c: Case):
    m, v = _p(c), c.voice
    k = g.var(c, "t_history.k", 5)
    if k == 0:
        m.p(g.r_date(c.visit, c, v), "在", g.r_local(c), "看过，开了", c.drug[1], "，", g.k_dur(v), "了没见好")
    elif k == 1:
        m.p(g.pat_ref(c), (g.ch(["上个月", "去年", "前年", "2021年", "2022年", "上周"]), "time"), "在", g.r_hosp(c), "做的", g.ch(["胃镜", "手术", "CT", "支架", "甲状腺穿刺"]), "，", g.ch(["医生说要复查", "报告还没出", "说是良性的"]))
    elif k == 2:
        m.p(g.r_date(c.surgery, c, v), "在", g.r_hosp(c), "做的手术，", "术后一直吃", c.drug[1], g.k_dose(c.drug))
    elif k == 3:
        m.p("先是在", g.r_local(c), "，后来转到", g.r_hosp(c), g.ch(["", c.dept]), "，住了", g.k_dur(v))
    else:
        m.p("去年在", g.r_local(c, full=False), "查过，", g.k_lab(), "，", g.negative())
    return [m]


def t_report(g: Gen, c: Case):
    """A pasted form (lab report, discharge summary or prescription) and the doctor's reading of it."""
    m = _p(c)
    m.pasted = True
    p = c.pat
    sex = "男" if p["sex"] == "M" else "女"
    nl = g.ch(["\n", "\n", " ", "  "])
    col = g.ch(["：", ":", " ", "："])
    k = g.var(c, "t_report.k", 3)
    rd = _shift(c.now, -g.r.randrange(0, 10))
    if k == 0:
        bar = g.digits(g.ch([10, 12]))
        m.p(g.ch(["【检验报告单】", "检验报告", ""]), nl, g.r_hosp(c, full=True), "检验科", nl,
            "姓名", col, (p["full"], "NAME"), "  性别", col, sex, "  年龄", col, g.k_age(c, False), nl,
            "科室", col, c.dept, "  床号", col, str(g.r.randrange(1, 60)), "  ", g.ch(["住院号", "门诊号", "病历号"]), col, (c.mrn, "MRN"), nl,
            "标本", col, "血清  ", g.ch(["条码号", "标本号"]), col, (bar, "MRN"), nl)
        labs = g.r.sample(range(len(_LABS)), g.r.randrange(2, 5))
        for i in labs:
            m.p(g.k_lab(_LABS[i]), " ", g.ch(["↑", "↓", ""]), " 参考 ", (_LABS[i][5], "lab"), nl)
        m.p("送检日期", col, (("%d-%02d-%02d" % rd), "DATE"), " ", (g.ch(["08:12", "09:35", "10:03", "14:20"]), "time"), nl,
            "检验者", col, (c.lab_staff[0]["full"], "NAME"), "  审核者", col, (c.lab_staff[1]["full"], "NAME"))
    elif k == 1:
        d_in = _shift(rd, -g.r.randrange(4, 15))
        m.p("出院记录", nl, "姓名", col, (p["full"], "NAME"), " 性别", col, sex, " 年龄", col, g.k_age(c, False), " 住院号", col, (c.mrn, "MRN"), nl,
            (["身份证号", col, g.r_id(c.idno), nl] if g.chance(0.4) else []),
            "入院日期", col, (("%d年%d月%d日" % d_in), "DATE"), " 出院日期", col, (("%d年%d月%d日" % rd), "DATE"), nl,
            "入院诊断", col, c.diag, nl, "出院医嘱", col, c.drug[0], " ", g.k_dose(c.drug), " 每日1次，", g.k_dur(short=True), "后",
            g.r_hosp(c, full=False), "门诊复查", nl, "主治医师", col, (c.doc["full"], "NAME"))
    else:
        m.p("处方笺", nl, g.r_hosp(c, full=True), nl, "处方号", col, ("CF" + str(c.now[0]) + g.digits(7), "ORDER_ID"), "  费别", col, "医保", nl,
            "姓名", col, (p["full"], "NAME"), " 性别", col, sex, " 年龄", col, g.k_age(c, False), " 门诊号", col, (c.mrn, "MRN"), nl,
            "临床诊断", col, c.diag, nl, "Rp：", c.drug[0], "（", c.drug[1], "） ", g.k_dose(c.drug), "×", ("28片", "dose"),
            "  用法：", g.k_dose(c.drug), " 口服 每日1次", nl, "医师", col, (c.doc["full"], "NAME"), "  日期", col, (("%d-%02d-%02d" % rd), "DATE"))
    d = _d(c)
    j = g.var(c, "t_report.j", 4)
    if j == 0:
        d.p(g.echo_name(c), "的报告我看了，", g.k_lab(), "偏高，建议到", g.r_hosp(c, full=False), c.dept, "复查。")
    elif j == 1:
        d.p("报告看了，", g.ch(["问题不大", "需要重视"]), "。", c.drug[0], "先吃着，", g.k_dose(c.drug), "每天一次。")
    elif j == 2:
        d.p("这个", g.k_lab(), "还好，", g.ch(["白细胞不高", "不像感染", "不用太担心"]), "，", g.k_dur(short=True), "后复查。")
    else:
        d.p("报告里写的是", c.diag, "，可以来", g.r_hosp(c, full=False), "找我，我周", g.ch(["一", "三", "四", "五"]), "上午门诊。")
    return [m, d]


def t_delivery(g: Gen, c: Case):
    """An address given piecewise: district first, street and room later; or a pasted delivery slip."""
    v = c.voice
    prov, city, dist, towns = c.place
    out = []
    m = _p(c)
    if g.chance(0.6):
        head = g.r_addr_head(c, with_prov=g.chance(0.3))
        if g.chance(0.3) and city:
            head = city
        m.p(g.ch(["药能寄吗？", "可以邮寄吗，", "能快递过来吗 "]), "我们在", (head, "ADDRESS"), g.ch(["", "这边", "，离得远"]))
        out.append(m)
        d = _d(c)
        d.p(g.ch(["可以，", "能寄，", "可以的，"]), "麻烦发一下详细地址、收件人和电话。")
        out.append(d)
        m2 = _p(c)
        rec = g.ch([c.spk, c.pat])
        k = g.var(c, "t_delivery.k", 3)
        if k == 0:
            m2.p((g.r_street(c, v), "ADDRESS"), "，", (rec["full"], "NAME"), "，", g.r_phone(c, c.phone, v))
        elif k == 1:
            m2.p("地址", g.ch(["：", ":", " "]), (g.r_street(c), "ADDRESS"), " 收件人", (rec["full"], "NAME"), " 电话", g.r_phone(c, c.phone, v))
        else:
            m2.p((g.r_street(c, v), "ADDRESS"), g.ch(["，写我名字就行，", " 寄给"]), (rec["full"], "NAME"), g.ch(["，手机", " "]), g.r_phone(c, c.phone, v))
        out.append(m2)
    else:
        m.pasted = True
        rec = g.ch([c.spk, c.pat])
        spaced = g.chance(0.5)
        if g.chance(0.5):
            m.p("收货人：", (rec["full"], "NAME"), "\n手机号码：", g.r_phone(c, c.phone, False), "\n所在地区：",
                (g.r_addr_head(c, with_prov=True, spaced=spaced), "ADDRESS"), "\n详细地址：", (g.r_street(c), "ADDRESS"))
        else:
            m.p((rec["full"], "NAME"), "，", g.r_phone(c, c.phone, False), "，",
                (g.r_addr_head(c, with_prov=True, spaced=spaced) + " " + g.r_street(c), "ADDRESS"))
            if g.chance(0.5):
                m.p("，邮编", (_POSTCODE[prov] + g.digits(4), "ADDRESS"))
        out.append(m)
        d = _d(c)
        d.p(g.ch(["收到，", "好的，"]), "药明天", g.ch(["寄出", "发顺丰"]), "，一共", g.k_dur(short=True), "的量。")
        out.append(d)
    c.addr_told = True
    return out


def t_waybill(g: Gen, c: Case):
    d = _d(c)
    no = g.ch(["SF" + g.digits(13), "YT" + g.digits(13), "JT" + g.digits(13), "7" + g.digits(14), "JD" + g.digits(13)])
    d.p(g.ch(["药已经寄出，快递单号", "快递单号：", "发货了，单号"]), (no, "ORDER_ID"), g.ch(["，注意查收。", "", "，到了说一声"]))
    return [d]


def t_appoint(g: Gen, c: Case):
    d = _d(c)
    d.p("可以来", g.r_hosp(c), g.ch(["门诊", c.dept]), "找我，我周", g.ch(["一", "二", "三", "四"]), g.ch(["上午", "下午", "全天"]),
        "坐诊，", g.ch(["在医院公众号上挂号就行", "提前一周放号", "挂不上号的话跟我说"]), "。")
    m = _p(c)
    k = g.var(c, "t_appoint.k", 4)
    v = c.voice
    if k == 0:
        m.p("约上了，", g.r_date(c.follow, c, v), g.ch(["上午", "下午"]), "的号，", g.ch(["预约码", "挂号单号", "预约号"]),
            (g.digits(g.ch([6, 8, 12])), "ORDER_ID"))
    elif k == 1:
        m.p("好的，", g.ch(["预约", "复查"]), ("%d/%d" % (c.follow[1], c.follow[2]), "DATE"), "那天过去可以吗")
    elif k == 2:
        m.p("挂好了，", g.r_date(c.follow, c, v), "，就诊卡号", (c.card, "MRN"))
    else:
        m.p("好的", g.k_time(future=True), "过去，", g.ch(["要空腹吗", "需要带什么", "要带之前的片子吗"]))
    return [d, m]


def t_payment(g: Gen, c: Case):
    m = _p(c)
    m.pasted = True
    k = g.var(c, "t_payment.k", 5)
    if k == 0:
        m.p("已经付款了，订单号", g.ch(["：", ":", " ", ""]), (g.digits(g.ch([12, 18, 19])), "ORDER_ID"))
    elif k == 1:
        m.p("支付凭证\n交易单号：", ("4200" + g.digits(24), "ORDER_ID"), "\n商户单号：", ("M" + g.digits(g.ch([18, 20])), "ORDER_ID"),
            "\n支付时间：", ("%d-%02d-%02d" % c.visit, "DATE"), " ", ("%02d:%02d:%02d" % (g.r.randrange(24), g.r.randrange(60), g.r.randrange(60)), "time"))
    elif k == 2:
        m.p("退款怎么还没到？退款单号", (g.digits(20), "ORDER_ID"), g.ch(["", "，已经", "都"]), g.k_dur(short=True), "了")
    elif k == 3:
        m.p("支付宝付的，交易号", (str(c.visit[0]) + "%02d%02d" % c.visit[1:] + "2200" + g.digits(16), "ORDER_ID"))
    else:
        m.p("问诊单号", (g.ch(["WZ", "HD", ""]) + g.digits(12), "ORDER_ID"), "，上次的问诊没回复能退吗")
    return [m]


def t_card(g: Gen, c: Case):
    prov, city, dist, _ = c.place
    if g.var(c, "t_card", 2) == 0:
        m = _p(c)
        m.pasted = True
        who = g.ch([c.spk, c.sib])
        region = _PROV_SHORT[prov] + " " + (city[:-1] if city.endswith("市") else dist)
        m.p("[个人名片]\n", (who["full"], "NAME"), "\n微信号：", (c.wx, "URL"), "\n地区：", (region, "ADDRESS"))
        d = _d(c)
        d.p("好的，", g.ch(["已加", "通过了", "我让助理加你"]), "。")
        return [m, d]
    d = _d(c)
    k = g.var(c, "t_card.k", 3)
    if k == 0:
        d.p("后续可以加我助理", (c.asst["full"], "NAME"), "的微信", (c.wx, "URL"), "，她会提醒复查。")
        if g.chance(0.4):
            d.p("资料也可以发邮箱", (c.doc_email, "EMAIL"))
    elif k == 1:
        d.p("推荐", (c.asst["full"] if g.chance(0.5) else g.ch(_LATIN_NICK), "NAME"), "的名片给你\n[个人名片] 微信号：", (c.wx, "URL"))
    else:
        d.p("有问题可以加QQ群，或者加我QQ", (c.qq, "URL"))
    return [d]


def t_realname(g: Gen, c: Case):
    m = _p(c)
    m.pasted = True
    k = g.var(c, "t_realname.k", 6)
    if k == 0:
        m.p("实名信息：", (c.pat["full"], "NAME"), " ", g.r_id(c.idno), " ", g.r_phone(c, c.phone, False))
    elif k == 1:
        m.p("身份证号", g.ch(["：", ":", "是", " "]), g.r_id(c.idno), g.ch(["，麻烦帮忙开个证明", "，建档用的", ""]))
    elif k == 2:
        m.p(g.pat_ref(c), "的社保卡号", g.ch(["：", "是"]), (g.ch([c.idno, g.ch("ABCDEFGH") + g.digits(8)]), "ID"))
    elif k == 3:
        m.p("我在国外，", g.ch(["护照号", "护照"]), (g.ch(["E" + g.digits(8), "E" + g.ch("ABCDEFG") + g.digits(7)]), "ID"), "，能开国际处方吗")
    elif k == 4:
        m.p("港澳通行证", ("C" + g.digits(8), "ID"), "，下个月过来看病")
    else:
        m.p("出生日期", g.r_date(c.birth, c), "，身份证", g.r_id(c.idno), g.ch(["", "，医保卡号", ""]))
        if m.parts[-1][0] == "，医保卡号":
            m.p((c.card, "MRN"))
    return [m]


def t_email(g: Gen, c: Case):
    m, d = _p(c), _d(c)
    if g.var(c, "t_email", 2) == 0:
        m.p("片子原始文件太大了发不上来，", g.ch(["能发邮箱吗", "有邮箱吗"]))
        mail = c.doc_email
        if g.chance(0.2):
            mail = mail.replace("@", g.ch(["#", "(at)"]))
        d.p(g.ch(["发到", "可以，", ""]), (mail, "EMAIL"), g.ch(["", "，注明姓名", " 标题写上名字"]))
        return [m, d]
    m.p(g.ch(["报告", "病历", "结果"]), "发我邮箱", (c.email, "EMAIL"), "就行", g.ch(["", "，谢谢"]))
    d.p("好的，", g.ch(["已发送", "稍后发", "发过去了"]), "。")
    return [m, d]


def t_sibling(g: Gen, c: Case):
    m = _p(c)
    v = c.voice
    if not c.sib_told:
        n = g.r.randrange(1, 12)
        dur = (_cn_int(n) if v else str(n)) + g.ch(["年", "年多", "个月"])
        m.p("我" if c.pat_word == "我" else c.pat_word + "的", c.sib_word, (c.sib["full"], "NAME"), "也有", c.diag, "，", (dur, "duration"), "了，会不会遗传")
        c.sib_told = True
        d = _d(c)
        d.p(c.diag, "有一定家族聚集性，", g.ch(["建议家里人都查一下", "不一定遗传", "注意饮食"]), "。")
        return [m, d]
    ref = c.sib["given"] if (not c.sib["minority"] and len(c.sib["given"]) == 2 and g.chance(0.6)) else c.sib["full"]
    m.p((ref, "NAME"), g.ch(["说" + ("他" if c.sib["sex"] == "M" else "她"), "那边"]), "吃", c.drug[1], "效果还行，", g.pat_ref(c), "能吃吗")
    return [m]


def t_home(g: Gen, c: Case):
    m = _p(c)
    prov, city, dist, towns = c.place
    v = c.voice
    k = g.var(c, "t_home.k", 4)
    if k == 0:
        m.p("我们是", (dist + g.ch(towns), "ADDRESS"), "的，", g.ch(["去大医院不方便", "离市里远", "路上要" + g.ch(["两个", "三个", "四个"]) + "小时"]))
    elif k == 1:
        m.p("老家", (city or prov + dist, "ADDRESS"), "的，现在在", (g.ch(_PLACES)[2], "ADDRESS"), "打工")
    elif k == 2:
        m.p("我是", _PROV_SHORT[prov], "人，住", (dist, "ADDRESS"), "，", g.ch(["附近有", "只去过"]), g.r_local(c))
    else:
        m.p("我们在", (g.r_street(c, v), "ADDRESS"), "这边，", g.negative())
    c.addr_told = True
    return [m]


def t_contact(g: Gen, c: Case):
    d = _d(c)
    k = g.var(c, "t_contact.k", 4)
    if k == 0:
        d.p("有急事打科室电话", g.r_landline(c), "，晚上不舒服直接打120。")
    elif k == 1:
        d.p("我的主页", (g.ch(["https://www.haodf.com/doctor/", "https://m.haodf.com/kanbing/", "http://dxy.com/doctor/"]) + g.digits(g.ch([6, 9])) + ".html", "URL"),
            "，上面有出诊时间")
    elif k == 2:
        d.p("这篇科普可以看看 ", (g.ch(["https://mp.weixin.qq.com/s/", "t.cn/", "https://dwz.cn/", "https://b23.tv/"])
                                 + "".join(g.ch("abcdefghjkmnpqrstuvwxyzABCDEFGH23456789") for _ in range(g.ch([6, 8, 22]))), "URL"))
    elif k == 3 and g.chance(0.4):
        m = _p(c)
        m.p(g.ch(["我微信", "微信号", "加我微信吧 "]), (c.wx if g.chance(0.7) else c.phone, "URL"), g.ch(["", "，手机号同号", "，方便发片子"]))
        return [m]
    else:
        m = _p(c)
        m.p(g.ch(["我电话", "这是我手机", "方便的话打我电话", "电话"]), g.r_phone(c, g.ch([c.phone, c.phone2]), c.voice),
            g.ch(["", "，白天都在", "，随时打"]))
        return [m]
    return [d]


def t_callback(g: Gen, c: Case):
    """The doctor asks for a number; the reply is the bare number (sometimes with a second one)."""
    d = _d(c)
    d.p(g.ch(["方便留个电话吗？", "留个联系电话，", "电话多少？"]), g.ch(["我让助理打给你。", "检查结果出来通知你。", "有床位了联系你。", ""]))
    m = _p(c)
    v = c.voice
    k = g.var(c, "t_callback.k", 3)
    if k == 0:
        m.p(g.r_phone(c, c.phone, v))
    elif k == 1:
        m.p(g.r_phone(c, c.phone, v), g.ch(["，或者", " 备用", "/"]), g.r_phone(c, c.phone2, v))
    else:
        m.p(g.r_phone(c, c.phone, v), g.ch(["，", " "]), (c.spk["full"] if g.chance(0.7) else c.spk_nick, "NAME"))
    return [d, m]


def t_mrn(g: Gen, c: Case):
    m = _p(c)
    cues = ["住院号", "门诊号", "病案号", "病历号", "ID号", "就诊卡号", "医保卡号", "影像号", "病理号", "报告编号"]
    cue = cues[g.var(c, "t_mrn.cue", len(cues))]
    val = {"影像号": "CT" + g.digits(7), "病理号": g.ch(["B", "P"]) + str(c.now[0] % 100) + "-" + g.digits(5),
           "报告编号": "R" + g.digits(12), "医保卡号": c.card}.get(cue, c.mrn)
    m.p(g.pat_ref(c), "的", cue, g.ch(["：", "是", " ", ""]), (val, "MRN"), g.ch(["，您那边能查到吗", "，麻烦看看结果", "，能调出来吗"]))
    return [m]


def t_birthday(g: Gen, c: Case):
    m = _p(c)
    if g.chance(0.5):
        lunar = "农历" + g.ch(["正月", "二月", "三月", "五月", "八月", "腊月", "冬月"]) + g.ch(["初三", "初八", "十五", "二十三", "廿六"])
        tail = g.ch(["生的", "，属" + g.ch(["龙", "马", "兔"]) + "的", ""])
        m.p(g.pat_ref(c), g.ch(["生日是", "是"]), (lunar, "DATE"), tail)
    else:
        m.p(g.pat_ref(c), "是", g.r_date(c.birth, c), "出生的，", g.k_age(c, False), "，现在", g.k_vital())
    return [m]


def t_clinical(g: Gen, c: Case):
    m, d = _p(c), _d(c)
    v = c.voice
    k = g.var(c, "t_clinical.k", 6)
    if k == 0:
        m.p(c.drug[1], "能和", g.ch(_OTC), "一起吃吗？")
        d.p("可以，间隔", ("2小时", "duration"), "，", c.drug[0], "每次", g.k_dose(c.drug), "。")
    elif k == 1:
        m.p(g.k_lab(), "，", g.ch(["严重吗", "要吃药吗", "正常吗"]))
        d.p("轻度", g.ch(["升高", "异常"]), "，先调整饮食，少吃", g.ch(_FOODS), "，", g.k_dur(short=True), "后复查。")
    elif k == 2:
        m.p(g.k_time(), g.k_vital(), "，", g.negative())
        d.p("先观察，如果", g.k_vital(), "以上或者持续", g.k_dur(short=True), "，去当地医院看一下。")
    elif k == 3:
        m.p("孩子", g.k_age(c, v), "，", g.ch(["能用布洛芬吗", "能吃头孢吗", "发烧要不要去医院"]))
        d.p("按体重算，每次", ("%dml" % g.r.randrange(2, 10), "dose"), "，两次间隔", ("6小时", "duration"), "以上。")
    elif k == 4:
        m.p(g.negative())
        d.p(g.ch(["关系不大", "没有直接关系", "有一定关系"]), "，", g.ch(["先别担心", "注意观察", "规律作息"]), "。")
    else:
        m.p("B超说有个结节", ("%d×%dmm" % (g.r.randrange(3, 25), g.r.randrange(3, 20)), "lab"), "，", g.ch(["要手术吗", "是不是癌", "怎么办"]))
        d.p("这个大小先观察，", g.k_dur(short=True), "后复查B超，", g.ch(["不用手术", "TI-RADS 3类", "问题不大"]), "。")
    return [m, d]


def t_close(g: Gen, c: Case):
    d = _d(c)
    k = g.var(c, "t_close.k", 4)
    if k == 0:
        d.p("不客气，祝", g.echo_name(c), "早日康复！如症状加重请及时到当地医院就诊，紧急情况拨打120。")
    elif k == 1:
        d.p("【温馨提示】本次问诊已结束，", g.k_dur(short=True), "内可免费追问。")
        if g.chance(0.5):
            d.p("感谢您对", g.r_hosp(c, full=False), "的信任。")
        else:
            d.p("如有疑问请再次咨询。")
    elif k == 2:
        d.p("好的，按时吃药，", g.r_date(c.follow, c), "记得来复查。")
    else:
        d.p("不客气。", g.ch(["注意休息。", "有问题随时问。", "按医嘱吃药。"]))
    m = _p(c)
    j = g.var(c, "t_close.j", 4)
    if j == 0:
        m.p("谢谢", g.doc_ref(c), g.ch(["", "！", "了"]))
    elif j == 1:
        m.p(g.ch(["好的谢谢", "明白了谢谢您", "收到", "好的好的"]))
    elif j == 2:
        m.p("好的，", g.k_time(future=True), "去抽血，谢谢", g.doc_ref(c))
    else:
        m.p("谢谢医生，", g.ch(["辛苦了", "您真耐心", "太感谢了"]), "，", g.pat_ref(c), "好多了")
    return [d, m]


# turn, weight, most uses per conversation
_MIDDLE = [(t_symptom, 8, 3), (t_ask, 4, 3), (t_history, 7, 2), (t_report, 5, 2), (t_delivery, 4, 1), (t_waybill, 3, 1),
           (t_appoint, 4, 1), (t_payment, 3, 1), (t_card, 4, 1), (t_realname, 6, 2), (t_email, 6, 2), (t_sibling, 3, 2),
           (t_home, 3, 1), (t_contact, 4, 2), (t_mrn, 3, 2), (t_callback, 3, 1), (t_birthday, 2, 1), (t_clinical, 4, 99)]


def _pick(g: Gen, c: Case) -> int:
    """A middle turn by weight among those not used up (a waybill only after an address was given)."""
    rows = [i for i, (f, w, most) in enumerate(_MIDDLE) if c.uses[i] < most and (f is not t_waybill or c.addr_told)]
    total = sum(_MIDDLE[i][1] for i in rows)
    x = g.r.random() * total
    for i in rows:
        x -= _MIDDLE[i][1]
        if x < 0:
            return i
    return rows[-1]


def _told(c: Case, msgs: list[M]) -> None:
    for m in msgs:
        for t, lab in m.parts:
            if lab == "NAME" and t in (c.pat["full"], c.nick):
                c.pat_told = True


def _conversation(g: Gen) -> list[M]:
    c = g.case()
    g.child = c.age < 14
    target = g.r.randrange(6, 21)
    msgs = t_open(g, c) + t_greet(g, c)
    _told(c, msgs)
    while len(msgs) < target - 2:
        i = _pick(g, c)
        c.uses[i] += 1
        turn = _MIDDLE[i][0](g, c)
        _told(c, turn)
        msgs += turn
    msgs += t_close(g, c)
    c.fw = g.ch(["none"] * 8 + ["all", "ids"])
    c.punct = g.ch(["cn"] * 6 + ["ascii", "ascii", "space", "mixed"])
    out = []
    for m in msgs:
        out.append(_finish(g, c, m))
    return out


# ------------------------------------------------------------------------------------------ rendering

_ASCII_P = {"，": ",", "：": ":", "。": ".", "？": "?", "！": "!", "；": ";", "（": "(", "）": ")"}


def _punct(g: Gen, s: str, mode: str) -> str:
    if mode == "cn":
        return s
    out = []
    for ch in s:
        if ch in _ASCII_P or ch == "、":
            if mode == "none":
                out.append(" " if ch in "，。？！；：、" else "")
            elif mode == "space":
                out.append(" " if ch in "，。；、" else _ASCII_P.get(ch, ch))
            elif mode == "ascii" or (mode == "mixed" and g.chance(0.5)):
                out.append(_ASCII_P.get(ch, ch))
            else:
                out.append(ch)
        else:
            out.append(ch)
    return "".join(out)


def _finish(g: Gen, c: Case, m: M) -> dict:
    patient = m.role == "patient"
    voice = patient and c.voice and not m.pasted
    mode = "none" if voice else (g.ch(["cn", "ascii", "none"]) if patient and c.punct == "cn" and g.chance(0.15) else c.punct)
    parts = [list(x) for x in m.parts]
    if voice and g.chance(0.5):
        parts.insert(0, [g.ch(["嗯 ", "那个 ", "就是说 ", "喂 "]), None])
    typo = patient and g.chance(0.3)
    for p in parts:
        if p[1] is None:
            p[0] = _punct(g, p[0], mode)
            if typo:
                for a, b in _TYPOS:
                    if a in p[0] and g.chance(0.5):
                        p[0] = p[0].replace(a, b, 1)
                        typo = False
                        break
        if p[1] not in ("URL", "EMAIL") and (c.fw == "all" or (c.fw == "ids" and p[1] in CATEGORIES)):
            p[0] = p[0].translate(_FW)
    if g.chance(0.22 if patient else 0.08):
        parts.append([g.ch(_EMOJI), None])
    # trim the plain text at both ends, join, collect offsets
    while parts and parts[0][1] is None and not parts[0][0].strip():
        parts.pop(0)
    while parts and parts[-1][1] is None and not parts[-1][0].strip():
        parts.pop()
    if parts and parts[0][1] is None:
        parts[0][0] = parts[0][0].lstrip()
    if parts and parts[-1][1] is None:
        parts[-1][0] = parts[-1][0].rstrip()
    text, spans, keep, pos = [], [], [], 0
    for t, lab in parts:
        if lab in CATEGORIES:
            spans.append([pos, pos + len(t), lab])
        elif lab is not None:
            keep.append([pos, pos + len(t), lab])
        text.append(t)
        pos += len(t)
    msg = {"text": "".join(text), "role": m.role, "spans": spans, "keep": keep}
    _check(msg)
    return msg


def _check(m: dict) -> None:
    """Raise if a message's offsets are not valid: inside the text, sorted, disjoint, known labels, no edge spaces."""
    text = m["text"]
    allv = []
    for s, e, lab in m["spans"]:
        if lab not in CATEGORIES:
            raise ValueError("unknown category %r" % lab)
        allv.append((s, e))
    for s, e, lab in m["keep"]:
        if lab not in KEEP_KINDS:
            raise ValueError("unknown keep kind %r" % lab)
        allv.append((s, e))
    for lst in (m["spans"], m["keep"]):
        if [x[:2] for x in lst] != sorted(x[:2] for x in lst):
            raise ValueError("unsorted offsets")
    allv.sort()
    prev = 0
    for s, e in allv:
        if not (0 <= s < e <= len(text)):
            raise ValueError("offsets outside the text: %r" % ((s, e),))
        if s < prev:
            raise ValueError("overlapping spans in %r" % text)
        seg = text[s:e]
        if seg != seg.strip() or not seg.strip():
            raise ValueError("span with edge whitespace: %r" % seg)
        prev = e
    if m["role"] not in ("patient", "doctor"):
        raise ValueError("bad role")


# ------------------------------------------------------------------------------------------------- API

def generate(seed: int = 0, n: int = 3000) -> list[dict]:
    """The first n messages of the consultation stream for this seed (a prefix of any longer corpus)."""
    g = Gen(random.Random(seed))
    out: list[dict] = []
    while len(out) < n:
        out.extend(_conversation(g))
    return out[:n]


def corpus_hash(msgs: list[dict]) -> str:
    return hashlib.sha256(json.dumps(msgs, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def verify() -> list[dict]:
    """Regenerate the frozen corpus (seed 0, 3000 messages) and raise if its hash moved."""
    msgs = generate(0, 3000)
    h = corpus_hash(msgs)
    if h != CORPUS_SHA256:
        raise RuntimeError("corpus D moved: sha256 %s, frozen %s" % (h, CORPUS_SHA256))
    return msgs


def _marked(m: dict) -> str:
    t = m["text"]
    marks = sorted([(s, e, "【", "】" + lab) for s, e, lab in m["spans"]] + [(s, e, "〔", "〕") for s, e, _ in m["keep"]])
    out, pos = [], 0
    for s, e, a, b in marks:
        out.append(t[pos:s] + a + t[s:e] + b)
        pos = e
    out.append(t[pos:])
    return "".join(out)


def main() -> None:
    msgs = generate(0, 3000)
    counts = dict.fromkeys(CATEGORIES, 0)
    kinds = dict.fromkeys(KEEP_KINDS, 0)
    for m in msgs:
        for _, _, lab in m["spans"]:
            counts[lab] += 1
        for _, _, k in m["keep"]:
            kinds[k] += 1
    print("messages:", len(msgs), " sha256:", corpus_hash(msgs), " frozen:", corpus_hash(msgs) == CORPUS_SHA256)
    print("with an identifier: %.1f %%" % (100 * sum(1 for m in msgs if m["spans"]) / len(msgs)))
    for k in CATEGORIES:
        print("  %-9s %5d" % (k, counts[k]))
    print("keep:", ", ".join("%s %d" % (k, kinds[k]) for k in KEEP_KINDS))
    rng = random.Random(1)
    for i in sorted(rng.sample(range(len(msgs)), 10)):
        print("--- #%d %s\n%s" % (i, msgs[i]["role"], _marked(msgs[i])))


if __name__ == "__main__":
    sys.exit(main())
