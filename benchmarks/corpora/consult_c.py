"""Held-out test corpus C for text de-identification: online consultation messages from a slot grammar.

Status since 2026-12-02: DEVELOPMENT material (after three looks as a held-out corpus its misses may be read and tuned on;
benchmarks/deid_text.py reports it as ``dev``). Its generator stays frozen.

Provenance: a third generator, written from the category definitions alone (the policy in
``medrealmm/conf/deid/default.yaml`` and the annotation conventions in the docstring of
``benchmarks/corpora/consult_b.py``), without reading the rules, their lexicons, their statistical layer,
their own synthetic generator, their benchmark or their tests, and without ever running a detector on
it.  Frozen: measurement only, never tuning.  If a rule is changed because of a message in this corpus,
the corpus no longer measures anything; write a new one instead.

Pure standard library; deterministic given a seed (one ``random.Random(seed)``, lists only, no set/dict
iteration order or hash randomisation).  The corpus for seed 0 / 3000 messages is frozen by
``CORPUS_SHA256`` (sha256 of ``json.dumps(generate(0, 3000), ensure_ascii=False, sort_keys=True)``);
``verify()`` regenerates it and raises if a single character moved.  ``python
benchmarks/corpora/consult_c.py`` prints the counts per category, the share of messages with an
identifier and ten marked samples.

Each message::

    {"text": str, "role": "patient" | "doctor",
     "spans": [[start, end, CATEGORY], ...],     # identifiers that must be masked
     "keep":  [[start, end, kind], ...]}         # clinical numbers that must NOT be masked

Offsets are Python ``str`` (code point) offsets, end exclusive, sorted; spans never overlap each other
or a keep span.  About 60 % of the messages carry at least one identifier; the others carry none.

Design (unlike corpus B's fixed scenarios): a message is a grammar derivation.  A message draws a
persona (patient, relative, doctor, nurse, home place), a role and a shape (chat turn, pasted form,
pasted thread from another platform, bare reply, delivery slip), then an opener, one to four clauses
and a sign-off.  Clauses are templates with typed slots (``{P}`` the patient's name, ``{Ds}`` the
doctor's surname, ``{A}`` an address at a random depth, ``{MRN}`` a cue plus a record number, ``{lab}``
a lab value ...); every slot returns parts labelled plain, an identifier category or a keep kind, so the
offsets are computed once, when the parts are joined.  Identifier clauses are drawn per category by
weight; clinical clauses and hard negatives (brand drugs 立普妥/波立维, disease names with places or
people in them 日本脑炎/桥本甲状腺炎/唐氏综合征, food named after cities 兰州拉面, herbs 何首乌/陈皮/杜仲,
surname-initial words 马上/白细胞/周一, everyday words that are also names 高峰/夏天/文静, generic
hospitals 当地医院/市人民医院, a province alone, 120) fill the rest.  A style then rewrites the plain
parts (ASCII or space punctuation, colloquial typos for patients, emoji, line breaks) and the digits
(full-width in every number, in the identifiers only, or nowhere); identifier text is never rewritten
except for full-width digits, which the check accounts for.

Annotation conventions (those of corpus B, which define the categories, plus the choices below):

* NAME: the name only, never the title or kinship word ("我妈【王秀英】", "【欧阳】医生", "【李】阿姨").
  Surnames are common, rare (佘, 禚, 隗, 仉, 是, 单, 区, 种 ...) or compound (欧阳, 司马, 万俟 ...);
  Uyghur names keep their dot ("【阿依古丽·买买提】"), Tibetan, Mongolian and Yi names are whole.
  Nicknames with 小/老/阿, doubled given names (【乐乐】妈妈), Latin nicknames (助理【Amy】) and the pinyin
  name on a passport (【ZHANG WEI】) are NAME.  Names that read as words (高峰, 夏天, 文静) are names only
  after a cue or before a title; the same words elsewhere are plain text.  Given names alone are NAME.
* PHONE: mobiles with or without separators, +86/(+86), landlines with area code and extension (转NNN
  inside the span), 400/800 lines, mobiles read out in Chinese numerals.  120/110/12345 are plain.
* ID: 18-digit resident IDs with a valid GB 11643 check digit (sometimes grouped 6-8-4 with spaces,
  lower-case x), 15-digit legacy IDs, passports (E/EA/G), Hong Kong-Macau permits (C...), military IDs
  ("军字第NNNNNNN号" whole), social security card numbers after a 社保卡 cue.
* EMAIL (including QQ mail and addresses written with ``#`` or ``(at)`` for ``@``); URL: links, short
  links, WeChat IDs, QQ numbers and Douyin IDs, the cue word outside the span.
* ADDRESS: every level below the province (a city alone, district, county, banner, town, village and its
  group, street and number, crossing, compound, building / unit / room); a province written directly in
  front is inside the span; a province alone ("我是河南人") is plain.  An address written with spaces
  between its levels is one span.  Place names inside product, food and disease names are plain.
  Province-level municipalities (北京, 上海, 天津, 重庆) only occur inside longer addresses or hospitals.
* HOSPITAL: named institutions and their short forms (协和, 华西, 301, 市二院, 省肿瘤医院, 县中医院),
  campuses (浙一余杭院区), clinics, 门诊部, 卫生院, 卫生室, 社区卫生服务中心, named check-up centres; a
  place in the hospital's name is inside the HOSPITAL span; the department after it is not.  Generic
  phrases are plain, and so are 市人民医院 / 县人民医院 / 省人民医院 without a place name (the policy keeps
  them: every city has one).
* DATE: every date finer than a year, whatever it dates (onset of symptoms, surgery, menstruation,
  visits, orders, birthdays): onset dates belong to the patient's history and are tied to the person.
  Forms: 2024年3月5日, 24.3.5, 2024-03-05, 20240305, 3月5号, 3.5号, 二〇二三年五月六日, 今年/去年 +
  month (+ day) whole, 2023年5月, lunar days (农历八月初三, 正月十五, 腊月二十三).  The shapes 3/5 and
  3.5 without 号 appear only after 预约/复查 or before 那天.  A range is two spans.  Festival names
  (春节, 国庆) are plain.  A year alone, a month alone, relative days and times of day are keep "time".
* MRN: 门诊号, 住院号, 病案号, 病历号, ID号, 就诊卡号, 医保卡号, 建档号, 条码号, 标本号, 报告编号, 影像号,
  检查号, 病理号, 登记号.  Bed numbers (12床) are plain.
* ORDER_ID: platform orders, refunds, WeChat Pay / Alipay transaction numbers, prescription numbers,
  registration numbers, appointment codes, consultation numbers and (a choice corpus B leaves open)
  courier / logistics waybill numbers.
* Keep spans: "age" (58岁, 五十八岁, 8个月), "duration", "dose" (amount + unit only: 20mg, 1片, 10单位;
  the frequency is plain), "lab" (test name + value + unit; lesion sizes), "vital" (sign + value; blood
  pressure always with 血压/BP/高压), "time" (relative days, times of day, a year alone, a month alone).
"""

from __future__ import annotations

import calendar
import hashlib
import json
import random
import re
import sys

CATEGORIES = ("NAME", "PHONE", "ID", "EMAIL", "URL", "ADDRESS", "HOSPITAL", "DATE", "MRN", "ORDER_ID")
KEEP_KINDS = ("age", "duration", "dose", "lab", "vital", "time")
CORPUS_SHA256 = "c4bd71e6e1f99dc45e94f70bbef51e2de464c40a22a6ca6c9fd6738a0a652222"

# ----------------------------------------------------------------------------------------------- pools

SUR_COMMON = list("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶"
                  "程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾"
                  "毛郝龚邵万钱严覃武戴莫孔向汤")
SUR_RARE = list("佘禚隗訾蒯逄仉厍郏滕闵晏牟柏邝庹蹇巫勾冼揭敖漆宓眭阚靳聂岑詹缪粟旷寇阮喻冉是种单查区仇"
                "解乐那才母")
SUR_COMPOUND = ["欧阳", "司马", "诸葛", "上官", "皇甫", "尉迟", "公孙", "慕容", "夏侯", "令狐", "东方", "端木",
                "长孙", "宇文", "司徒", "轩辕", "呼延", "澹台", "万俟", "南宫", "独孤", "申屠", "钟离", "闻人"]
GIVEN_1 = list("伟强磊军勇杰涛斌超明刚平辉鹏华飞鑫波宇浩凯健俊帆帅旭宁龙林阳芳娜敏静丽艳娟霞燕玲婷雪琳倩"
               "颖洁慧萍红梅莉")
GIVEN_A = list("建志国文俊子浩宇嘉梓思雨欣晓海春秀玉丽淑桂红美佳一若诗语铁德永学家振立少瑞心亚秋冬")
GIVEN_B = list("国华军明强平伟峰涛辉兰英芳萍霞敏静燕娟婷琳涵轩泽睿萱怡悦彤然杰豪成林东生福荣珍梅凤云霜")
GIVEN_OLD = ["秀英", "桂兰", "淑珍", "玉梅", "凤英", "德福", "根生", "长贵", "招娣", "来弟", "有才", "富贵",
             "翠花", "金凤", "银花", "满仓", "桂芝", "春生", "秋菊", "水生"]
WORDLIKE = ["高峰", "夏天", "江山", "文静", "海燕", "向阳", "常青", "金凤", "安宁", "白雪", "马力", "龙飞",
            "方圆", "杨柳", "田园", "于洋", "齐心", "甘露"]
UYGHUR = ["阿依古丽", "买买提", "热依拉", "艾力", "古丽米拉", "努尔艾力", "迪丽娜尔", "阿不都", "帕提古丽",
          "依明江", "吐尔逊", "麦尔丹", "阿迪力", "祖丽皮亚", "热合曼", "玉苏甫"]
TIBETAN = ["扎西顿珠", "次仁卓玛", "格桑梅朵", "央金拉姆", "达瓦次仁", "尼玛扎西", "洛桑群培", "德吉央宗",
           "索朗旺姆", "平措旺堆"]
MONGOL = ["巴特尔", "乌云其其格", "斯琴高娃", "额尔敦", "苏日娜", "其木格", "朝鲁门", "那仁图雅", "宝音德力格尔",
          "哈斯巴根"]
YI = ["吉克阿依", "阿牛木呷", "沙马拉毅", "阿苏拉则", "海来阿木", "吉伍伍各", "曲比阿乌"]
LATIN_NICK = ["Lily", "Coco", "Kevin", "Amy", "Tony", "Cindy", "Jack", "Vivian", "Momo", "Eric", "Grace"]
PINYIN_SUR = {"王": "WANG", "李": "LI", "张": "ZHANG", "刘": "LIU", "陈": "CHEN", "杨": "YANG", "黄": "HUANG",
              "赵": "ZHAO", "吴": "WU", "周": "ZHOU", "欧阳": "OUYANG", "司马": "SIMA"}
PINYIN_GIVEN = ["WEI", "JING", "LEI", "XIAOMING", "YUTING", "JIANGUO", "HAOYU", "SIQI", "MIN", "ZIHAN"]

REL_F = ["我妈", "我母亲", "我老婆", "我媳妇", "我爱人", "我姐", "我妹妹", "我女儿", "我婆婆", "我外婆", "我奶奶",
         "我岳母", "我丈母娘", "我小姨", "我姑姑", "我嫂子"]
REL_M = ["我爸", "我父亲", "我老公", "我爱人", "我哥", "我弟", "我儿子", "我公公", "我外公", "我爷爷", "我岳父",
         "我舅舅", "我姥爷", "我大伯", "我对象"]
CHILD = ["我儿子", "我女儿", "孩子", "宝宝", "我家孩子", "我家老二", "我家大宝"]
REL_WORD = ["我表姐", "我同事", "我邻居", "我闺蜜", "我室友", "我朋友", "我战友", "我们单位的"]
DTITLE = ["医生", "大夫", "主任", "教授", "老师", "院长", "主任医师"]
NTITLE = ["护士", "护士长", "随访护士", "责任护士", "药师", "医助", "助理"]
DEPTS = ["心内科", "消化内科", "内分泌科", "呼吸科", "神经内科", "肾内科", "风湿免疫科", "血液科", "普外科",
         "骨科", "泌尿外科", "妇科", "产科", "儿科", "新生儿科", "皮肤科", "眼科", "耳鼻喉科", "口腔科",
         "精神心理科", "感染科", "肿瘤科", "乳腺外科", "甲状腺外科", "急诊科", "康复科", "中医科", "生殖中心",
         "体检中心", "放射科", "检验科", "疼痛科"]
SYMS = ["咳嗽", "发烧", "头晕", "胸闷", "心慌", "肚子疼", "拉肚子", "便秘", "失眠", "腰疼", "关节肿痛", "起疹子",
        "皮肤瘙痒", "尿频", "月经推迟", "浑身乏力", "恶心想吐", "反酸烧心", "耳鸣", "看东西模糊", "手脚发麻",
        "气短", "夜里盗汗", "嗓子疼", "鼻塞流涕", "后脑勺疼", "脚踝肿", "口腔溃疡", "掉头发", "心里发慌"]
DRUGS = ["阿莫西林", "头孢克肟", "布洛芬", "对乙酰氨基酚", "二甲双胍", "氨氯地平", "缬沙坦", "阿托伐他汀",
         "瑞舒伐他汀", "阿司匹林", "氯吡格雷", "奥美拉唑", "雷贝拉唑", "左甲状腺素钠片", "甲巯咪唑", "孟鲁司特",
         "蒙脱石散", "泼尼松", "甲泼尼龙", "甘精胰岛素", "司美格鲁肽", "恩替卡韦", "替诺福韦", "舍曲林",
         "艾司西酞普兰", "唑吡坦", "坦索罗辛", "非那雄胺", "达格列净", "沙库巴曲缬沙坦", "利伐沙班", "华法林"]
BRANDS = ["立普妥", "波立维", "拜阿司匹灵", "络活喜", "格华止", "优甲乐", "达美康", "诺和灵", "来得时",
          "倍他乐克", "代文", "安博维", "可定", "舒降之", "捷诺维", "拜唐苹", "泰嘉", "易瑞沙", "格列卫",
          "赫赛汀", "泰瑞沙", "达菲", "芬必得", "泰诺林", "美林", "吗丁啉", "思密达", "妈咪爱", "左洛复",
          "来士普", "思诺思", "诺和锐", "拜新同", "信必可", "舒利迭", "顺尔宁", "马应龙痔疮膏", "王老吉",
          "云南白药", "片仔癀", "同仁堂牛黄清心丸", "东阿阿胶", "华佗再造丸", "仲景六味地黄丸", "九芝堂",
          "江中健胃消食片", "白云山板蓝根", "三九胃泰", "999感冒灵", "京都念慈菴枇杷膏"]
HERBS = ["陈皮", "杜仲", "何首乌", "黄芪", "白术", "甘草", "连翘", "金银花", "当归", "党参", "熟地", "枸杞",
         "柴胡", "半夏", "苏叶", "白芍", "石斛"]
DISEASES = ["日本脑炎", "克山病", "桥本甲状腺炎", "唐氏综合征", "川崎病", "白塞病", "马凡综合征", "香港脚",
            "地中海贫血", "帕金森病", "阿尔茨海默病", "格林巴利综合征", "克罗恩病", "德国麻疹", "库欣综合征",
            "柯萨奇病毒感染", "诺如病毒感染", "汉坦病毒感染", "莱姆病", "布鲁氏菌病", "大骨节病", "甲亢",
            "糖尿病", "高血压", "痛风", "胃食管反流", "幽门螺杆菌感染", "支原体肺炎", "带状疱疹", "湿疹"]
FOODS = ["兰州拉面", "沙县小吃", "德州扒鸡", "金华火腿", "螺蛳粉", "麻辣烫", "火锅", "烧烤", "海鲜",
         "冰淇淋", "柳州螺蛳粉", "武汉热干面", "阳澄湖大闸蟹", "宁夏枸杞", "新疆大枣"]
PROVS = ["河南", "四川", "湖南", "山东", "东北", "广东", "江西", "安徽", "河北", "甘肃", "贵州", "云南",
         "福建", "广西", "内蒙古", "新疆", "陕西", "山西"]
GENERIC_H = ["当地医院", "县医院", "镇上的卫生院", "社区医院", "三甲医院", "大医院", "私立医院", "中医院",
             "专科医院", "市人民医院", "县人民医院", "省人民医院", "省城的大医院", "附近的诊所", "药店",
             "妇幼保健院", "村里的卫生室", "体检机构"]
EVERYDAY = ["早高峰挤地铁的时候最难受", "一到夏天就特别明显", "孩子性格比较文静", "马上要期末考试了",
            "周一到周五都要上班", "江山易改本性难移，脾气改不了", "最近天气忽冷忽热", "老人家在安宁病房那边",
            "白天还好，晚上厉害", "单位体检没查这一项", "打了120送过去的", "方便的话麻烦您看一下",
            "钱不是问题，主要是想治好", "石头剪刀布都玩不了，手指僵", "王者荣耀打到半夜", "向阳的房间比较干燥",
            "按北京时间吃药还是按当地时间", "黄河边长大的，吃得咸", "高速上开了四个小时车", "平时爱喝王老吉",
            "过年的时候吃多了", "国庆回了趟老家", "春节前就开始了"]
BRANDS_RX = BRANDS[:BRANDS.index("马应龙痔疮膏")]
EMO = ["🙏", "😭", "[抱拳]", "[捂脸]", "～", "!!!", "。。。", "😊", "[流泪]", "?", "[可怜]"]

# (province, city, [districts], [counties]); province None: a province-level municipality
PLACES = [
    ("浙江省", "杭州市", ["西湖区", "上城区", "拱墅区", "滨江区", "余杭区", "萧山区"], ["桐庐县", "淳安县"]),
    ("浙江省", "温州市", ["鹿城区", "瓯海区"], ["苍南县", "永嘉县"]),
    ("江苏省", "南京市", ["鼓楼区", "玄武区", "江宁区"], ["高淳区"]),
    ("江苏省", "徐州市", ["云龙区", "泉山区"], ["丰县", "沛县"]),
    ("广东省", "广州市", ["天河区", "越秀区", "番禺区", "白云区"], ["从化区"]),
    ("广东省", "深圳市", ["南山区", "福田区", "宝安区", "龙岗区"], ["光明区"]),
    ("广东省", "梅州市", ["梅江区"], ["五华县", "大埔县"]),
    ("四川省", "成都市", ["武侯区", "锦江区", "青羊区", "双流区"], ["金堂县", "大邑县"]),
    ("四川省", "南充市", ["顺庆区"], ["营山县", "仪陇县"]),
    ("四川省", "凉山彝族自治州", ["西昌市"], ["昭觉县", "布拖县"]),
    ("河南省", "郑州市", ["金水区", "二七区", "中原区"], ["中牟县"]),
    ("河南省", "周口市", ["川汇区"], ["太康县", "郸城县"]),
    ("河南省", "驻马店市", ["驿城区"], ["上蔡县", "汝南县"]),
    ("山东省", "济南市", ["历下区", "市中区", "槐荫区"], ["平阴县"]),
    ("山东省", "青岛市", ["市南区", "崂山区", "黄岛区"], ["即墨区"]),
    ("山东省", "临沂市", ["兰山区"], ["沂南县", "郯城县"]),
    ("湖北省", "武汉市", ["武昌区", "洪山区", "江汉区", "硚口区"], ["蔡甸区"]),
    ("湖北省", "黄冈市", ["黄州区"], ["红安县", "罗田县", "蕲春县"]),
    ("湖南省", "长沙市", ["岳麓区", "芙蓉区", "天心区"], ["长沙县"]),
    ("湖南省", "邵阳市", ["双清区"], ["隆回县", "洞口县"]),
    ("河北省", "保定市", ["莲池区"], ["涞源县", "阜平县"]),
    ("云南省", "大理白族自治州", ["大理市"], ["宾川县", "弥渡县"]),
    ("新疆维吾尔自治区", "喀什地区", ["喀什市"], ["疏勒县", "莎车县"]),
    ("西藏自治区", "拉萨市", ["城关区"], ["墨竹工卡县"]),
    ("内蒙古自治区", "鄂尔多斯市", ["东胜区"], ["伊金霍洛旗", "鄂托克旗"]),
    ("广西壮族自治区", "百色市", ["右江区"], ["凌云县", "乐业县"]),
    ("黑龙江省", "哈尔滨市", ["南岗区", "道里区"], ["方正县"]),
    ("吉林省", "延边朝鲜族自治州", ["延吉市"], ["汪清县"]),
    ("甘肃省", "定西市", ["安定区"], ["岷县", "通渭县"]),
    ("贵州省", "毕节市", ["七星关区"], ["威宁彝族回族苗族自治县"]),
    ("陕西省", "西安市", ["雁塔区", "碑林区", "未央区"], ["蓝田县"]),
    ("福建省", "泉州市", ["丰泽区"], ["安溪县", "惠安县"]),
    ("安徽省", "阜阳市", ["颍州区"], ["临泉县", "太和县"]),
    ("江西省", "赣州市", ["章贡区"], ["于都县", "兴国县"]),
    ("山西省", "吕梁市", ["离石区"], ["临县"]),
    ("辽宁省", "大连市", ["中山区", "沙河口区"], ["庄河市"]),
    ("海南省", "三亚市", ["吉阳区"], ["崖州区"]),
    ("宁夏回族自治区", "固原市", ["原州区"], ["西吉县"]),
    ("青海省", "玉树藏族自治州", ["玉树市"], ["称多县"]),
    (None, "北京市", ["海淀区", "朝阳区", "东城区", "丰台区", "昌平区"], ["密云区"]),
    (None, "上海市", ["浦东新区", "徐汇区", "闵行区", "静安区"], ["崇明区"]),
    (None, "重庆市", ["渝中区", "江北区", "沙坪坝区", "万州区"], ["巫山县", "奉节县", "秀山土家族苗族自治县"]),
    (None, "天津市", ["南开区", "河西区"], ["蓟州区"]),
]
CITY_SHORT = {"凉山彝族自治州": "凉山州", "大理白族自治州": "大理州", "喀什地区": "喀什", "延边朝鲜族自治州": "延边",
              "玉树藏族自治州": "玉树"}
TOWN_STEM = ["青石", "柳河", "黄土坡", "石门", "白沙", "大王", "马坊", "龙泉", "桃源", "新安", "永和", "三河",
             "古城", "长乐", "东关", "太平", "瓦窑", "双桥", "北岗", "王庄", "杨家坪", "高桥", "金鸡", "红旗"]
VILLAGE_STEM = ["张家湾", "后营", "小王庄", "刘庄", "河西", "前进", "红星", "上坝", "下湾", "杨树沟", "石板桥",
                "沙窝", "东坪", "老鸦岭", "高家堡", "李家寨", "柏树", "南坡", "大槐树", "新民"]
STREET_STEM = ["人民路", "解放路", "中山路", "建设大道", "文一西路", "长江路", "黄河路", "和平街", "光明巷",
               "朝阳北路", "学院路", "工农路", "迎宾大道", "江南大道", "滨江路", "胜利街", "东风路", "新华街",
               "育才路", "五一路", "天府三街", "科技园南路"]
COMMUNITY = ["阳光花园", "金色家园", "翠苑一区", "万科城", "碧桂园", "锦绣江南", "幸福里", "和谐家园",
             "恒大名都", "绿城桂花园", "保利花园", "红星小区", "棉纺厂家属院", "供电局宿舍", "教师新村",
             "铁路新村", "龙湖春江郦城", "丽景苑", "桃李春风", "世纪城"]
COMMUNITY_2 = ["社区", "街道", "居委会"]
FAMOUS_H = [("北京协和医院", "协和"), ("四川大学华西医院", "华西"), ("中南大学湘雅二医院", "湘雅二院"),
            ("山东大学齐鲁医院", "齐鲁"), ("上海瑞金医院", "瑞金"), ("解放军总医院", "301"),
            ("北京大学第三医院", "北医三院"), ("中山大学附属第一医院", "中山一院"),
            ("浙江大学医学院附属第一医院", "浙一"), ("邵逸夫医院", "邵逸夫"), ("武汉同济医院", "同济"),
            ("西京医院", "西京"), ("北京天坛医院", "天坛"), ("北京安贞医院", "安贞"), ("阜外医院", "阜外"),
            ("北京积水潭医院", "积水潭"), ("宣武医院", "宣武"), ("上海仁济医院", "仁济"),
            ("复旦大学附属华山医院", "华山"), ("中山大学肿瘤防治中心", "中山肿瘤"), ("北京儿童医院", "北儿"),
            ("首都儿科研究所", "儿研所"), ("上海儿童医学中心", "上儿"), ("南方医院", "南方医院"),
            ("浙江大学医学院附属第二医院", "浙二"), ("武汉协和医院", "武汉协和"), ("郑大一附院", "郑大一附院"),
            ("湘雅医院", "湘雅"), ("北大人民医院", "北大人民")]
CAMPUS = ["浙一余杭院区", "华西天府院区", "协和西院", "瑞金北院", "中山一院东院", "郑大一附院东院区",
          "同济光谷院区"]
LEVEL_H = ["市二院", "市一医院", "市三医院", "市六医院", "省肿瘤医院", "省妇幼", "市妇幼", "省中医院", "市中医院",
           "县中医院", "市儿童医院", "省胸科医院", "市精神卫生中心", "市传染病医院", "省口腔医院", "区妇幼",
           "省儿童医院", "市中心血站"]
CLINIC_STEM = ["德仁堂", "仁爱", "康华", "济世", "同心", "惠民", "博爱", "安康", "百草堂", "益寿"]
CHAIN_H = ["美年大健康", "爱尔眼科", "和睦家", "瑞尔齿科", "爱康国宾", "通策口腔"]
MOBILE_PREFIX = ["130", "131", "132", "133", "135", "136", "137", "138", "139", "145", "147", "150", "151",
                 "152", "153", "155", "156", "157", "158", "159", "166", "170", "173", "176", "177", "178",
                 "180", "181", "182", "183", "185", "186", "187", "188", "189", "191", "198", "199"]
AREA3 = ["010", "020", "021", "022", "023", "024", "025", "027", "028", "029"]
AREA4 = ["0571", "0755", "0371", "0531", "0851", "0991", "0731", "0592", "0898", "0471", "0411", "0577"]
ID_REGIONS = ["110108", "310115", "330106", "440305", "510107", "420106", "370102", "410105", "320106",
              "500103", "130102", "610113", "430104", "350102", "340104", "650102", "540102", "411627",
              "522427", "513431", "152701", "632701"]
EMAIL_DOMAINS = ["qq.com", "163.com", "126.com", "sina.com", "foxmail.com", "gmail.com", "outlook.com",
                 "hotmail.com", "139.com", "yeah.net", "zju.edu.cn", "pku.edu.cn", "sohu.com", "aliyun.com"]
HANDLE = ["lily", "xiaoyu", "happy", "sunny", "dr_li", "tiantian", "mama", "baobao", "cat", "rain", "leo",
          "bluesky", "candy", "panda", "ming", "jj", "ann"]
CN_DIGIT = "零一二三四五六七八九"
CN_MONTH = ["正", "二", "三", "四", "五", "六", "七", "八", "九", "十", "冬", "腊"]
FW = str.maketrans("0123456789", "０１２３４５６７８９")
ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def id_check_char(first17: str) -> str:
    """GB 11643 check character of the first 17 digits of a resident ID."""
    return "10X98765432"[sum(int(c) * w for c, w in zip(first17, ID_WEIGHTS, strict=True)) % 11]


def id_check_ok(text: str) -> bool:
    """True for an 18-character resident ID (spaces, full-width digits allowed) with a valid check digit."""
    s = text.translate(str.maketrans("０１２３４５６７８９", "0123456789")).replace(" ", "").upper()
    return len(s) == 18 and s[:17].isdigit() and id_check_char(s[:17]) == s[17]


def _cn_num(n: int) -> str:
    """1..99 in Chinese numerals (十二, 二十, 五十八)."""
    if n < 10:
        return CN_DIGIT[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else CN_DIGIT[tens]) + "十" + (CN_DIGIT[ones] if ones else "")


def _lunar_day(d: int) -> str:
    if d <= 10:
        return "初" + ("十" if d == 10 else CN_DIGIT[d])
    if d < 20:
        return "十" + CN_DIGIT[d - 10]
    if d == 20:
        return "二十"
    return "廿" + CN_DIGIT[d - 20] if d < 30 else "三十"


# ----------------------------------------------------------------------------------------------- persons

class _Person:
    __slots__ = ("call", "full", "given", "nick", "pinyin", "sur")

    def __init__(self, rng: random.Random, old: bool = False) -> None:
        r = rng.random()
        self.pinyin = ""
        if r < 0.07:  # minority-style names: no separate surname
            group = rng.choice([UYGHUR, TIBETAN, MONGOL, YI])
            if group is UYGHUR:
                a, b = rng.sample(UYGHUR, 2)
                self.full = a + rng.choice(["·", "·", "•", ""]) + b
                self.given = a
            else:
                self.full = rng.choice(group)
                self.given = self.full
            self.sur = ""
            self.call = self.given
            self.nick = "阿" + self.given[-1] if rng.random() < 0.5 else self.given
            return
        if r < 0.17:
            self.sur = rng.choice(SUR_COMPOUND)
        elif r < 0.33:
            self.sur = rng.choice(SUR_RARE)
        else:
            self.sur = rng.choice(SUR_COMMON)
        if old and rng.random() < 0.5:
            self.given = rng.choice(GIVEN_OLD)
        elif rng.random() < 0.3:
            self.given = rng.choice(GIVEN_1)
        else:
            self.given = rng.choice(GIVEN_A) + rng.choice(GIVEN_B)
        self.full = self.sur + self.given
        self.call = self.sur
        k = rng.random()
        last = self.given[-1]
        if k < 0.3:
            self.nick = "小" + last
        elif k < 0.45 and len(self.sur) == 1:
            self.nick = "老" + self.sur
        elif k < 0.6:
            self.nick = "阿" + last
        elif k < 0.85:
            self.nick = last + last
        else:
            self.nick = rng.choice(LATIN_NICK)
        if self.sur in PINYIN_SUR:
            self.pinyin = PINYIN_SUR[self.sur] + rng.choice([" ", " ", ", "]) + rng.choice(PINYIN_GIVEN)


# ----------------------------------------------------------------------------------------------- templates
# Slots: {X} resolves through _Msg.s_X.  Identifier clauses per category; each carries at least one span.

T_PATIENT = {
    "NAME": [
        "我是{P}，想咨询一下{sym}的问题", "{P}，{sex}，{age}，{sym}{dur}了", "本人{P}，{age}，{sym}",
        "{relf}{P}，今年{age}，{sym}{dur}", "帮{relm}问的，他叫{P}，{age}", "{child}{Pn}，{cage}，{sym}",
        "我和{relm}{O}一起去的医院", "这次是{O}陪我去的，{relword}", "{Ds}{dt}您好", "{D}主任好",
        "您好{Ds}大夫", "{Ds}老师在吗", "{D}医生，打扰您了", "上次{Ds}主任说{sym}不用管",
        "挂的{D}{dt}的号，没挂上", "{nt}{N}让我在这问您", "我们家{O}、{O2}和我都{sym}了",
        "{P}昨晚又{sym}了", "我老公叫{W}，{age}", "我是{Pn}妈妈", "回复@{D}：好的，谢谢",
        "{P}的报告出来了", "麻烦{Ds}{dt}帮{Pg}看看", "{Pg}最近老是{sym}", "给{O}挂个号可以吗",
        "之前{Ds}{dt}给开的{drug}", "{O}（{relword2}）也有这个毛病", "护照上的名字是{PY}",
        "{Pn}，{cage}，{sym}{dur}", "我家那位{W}也{sym}", "是{Ds}主任让我找您的", "你好 {D}",
        "助理{LN}说可以线上开药", "我替{O}问的，{sym}", "{O}推荐我来找您的", "{P}这周{sym}好多了",
        "昨天和{O}去吃了{food}，回来就{sym}", "{N}打电话让我{dur}后复查", "{O}、{Pn}、我，三个人都{sym}",
    ],
    "PHONE": [
        "我电话{phone}", "手机：{phone}", "有事打我{phone}，{time}都在", "{relm}的号码{phone}",
        "座机{land}", "加不了微信就打{phone}", "{phone}（微信同号）", "联系电话 {phone}", "打{land}没人接",
        "电话{phone}，{P}", "回电请拨{phone}", "号码是{phone_cn}", "我换号了，新号{phone}",
    ],
    "ID": [
        "身份证号{id}", "身份证：{id}", "{relf}身份证{id}，报销要用", "证件号码 {id}",
        "老身份证是15位的：{id15}", "护照号{pp}", "港澳通行证{hk}", "军官证{mil}", "社保卡号{ss}",
        "{P}\n{id}", "实名信息：{P} {id}", "身份证号码是{id}，您看对吗",
    ],
    "EMAIL": [
        "报告发我邮箱{email}", "邮箱：{email}", "发到{email}就行", "我的邮箱是{email}，麻烦了",
        "片子我发您邮箱了，我的是{email}", "{P} {email}",
    ],
    "URL": [
        "报告链接{url}", "微信{wx}", "加我微信：{wx}", "QQ {qq}", "扣扣{qq}", "抖音号{dy}",
        "检查结果在这 {url}", "我在这个网页上看到的 {url}", "vx：{wx}", "加个好友吧，{wx}",
    ],
    "ADDRESS": [
        "药寄到{A}，收件人{P}，{phone}", "我在{Acity}", "住在{Adist}这边", "老家是{Atown}的",
        "我们{Adist}没有好医生", "{Acomm}，{P}收", "地址：{A}", "我在{Acity}上班，老家{prov}的",
        "从{Acity}过去要多久", "家住{Astreet}附近", "{Avil}的，离县城远", "收货地址{A}",
        "我人在{Acity}，能线上开药吗", "{relm}住{Acomm}，离得近",
    ],
    "HOSPITAL": [
        "之前在{H}看的", "{H}{dept}说是{dis}", "{Dt}在{H}做的胃镜", "去{Hs}查了，没事", "{Hc}开的药",
        "你们{H}能做这个手术吗", "在{Hs}住了{dur}", "{Hs}{dept}的{Ds}主任推荐的您", "{H}排队太久了",
        "先在{Hc}输了{dur}液", "{Hs}和{H}哪个好", "转到{H}去了",
    ],
    "DATE": [
        "{Dt}开始{sym}的", "{Dmd}做的手术", "预约了{Damb}复查", "{Damb}那天{sym}", "出生日期{Dbirth}",
        "生日是{Dlunar}", "{Dfull}至{Dfull}住院", "末次月经{Dmd}", "{Dym}查出来的{dis}", "{Dlunar}那天摔了一跤",
        "{Dt}抽的血", "{Dmd}上午打的疫苗", "{Dfull}-{Dfull}吃的{drug}",
    ],
    "MRN": ["{MRN}", "{MRN}，您能查到吗", "我的{MRN}", "{P}，{MRN}", "{MRN}，{Dt}做的CT"],
    "ORDER_ID": ["{ORD}", "{ORD}，退款还没到账", "{ORD}，药还没发货", "{ORD}，麻烦查一下", "刚付了款，{ORD}"],
}
T_DOCTOR = {
    "NAME": [
        "{Pc}女士您好", "{Pc}先生您好", "{Pc}阿姨", "{Pc}叔叔，您好", "{Pg}你好", "{Pn}家长您好",
        "{P}同学", "我是{D}，{dept}的", "可以找我们科{D}主任", "{nt}{N}会联系您", "{D}医生团队",
        "我已经跟{Ds}护士长说了", "{Pc}大爷，{sym}好点没有", "{P}的家属在吗", "请{P}到3号诊室",
        "{N}会把单子发给您", "这个问题{Ds}教授更专业", "{Pn}这两天怎么样",
    ],
    "PHONE": ["科室电话{land}", "预约可以打{hot}", "有急事打{land}", "护士站电话：{land}", "我的工作手机{phone}"],
    "ID": ["请核对身份证号{id}", "登记的证件号{id}不对", "护照号{pp}已登记"],
    "EMAIL": ["可以发到我邮箱{email}", "资料发{email}", "{email}是科室的公共邮箱"],
    "URL": ["预约链接{url}", "这是科普文章 {url}", "随访群加{wx}", "报告在这里查：{url}"],
    "ADDRESS": ["门诊在{Astreet}", "您在{Acity}的话可以就近看", "{Adist}那边有分院", "药会寄到{A}"],
    "HOSPITAL": ["建议去{H}{dept}", "我周三在{H}出诊", "可以去{Hs}做个增强CT", "{Hc}就能打这个针",
                 "先在{Hs}住院观察", "转{H}{dept}"],
    "DATE": ["{Dmd}来复查", "请在{Dfull}前完成检查", "{Damb}复查甲功", "手术排在{Dmd}", "{Dt}的报告我看了"],
    "MRN": ["您的{MRN}", "{MRN}，到时候报号就行", "病历上{MRN}", "请提供{MRN}"],
    "ORDER_ID": ["{ORD}", "已开处方，{ORD}", "{ORD}，24小时内退款", "{ORD}，请在首页查看"],
}
CAT_WEIGHTS = [("NAME", 24), ("PHONE", 9), ("ID", 8), ("EMAIL", 6), ("URL", 7), ("ADDRESS", 12),
               ("HOSPITAL", 12), ("DATE", 12), ("MRN", 7), ("ORDER_ID", 7)]

C_PATIENT = [
    "{relf}{age}，{sym}{dur}了", "{time}量了{temp}", "吃了{drug}{dose}，还是{sym}", "化验单：{lab}，{lab}",
    "{bp}，{vital}", "{lab}，这个要紧吗", "{sym}{dur}了，{time}更严重", "{ht}，{wt}", "孩子{cage}，{temp}",
    "{drug}每天{dose}，吃了{dur}", "{lab}，{lab}，{lab}", "彩超说{size}", "{time}开始{sym}",
    "是不是{dis}啊", "听说{brand}效果好一些", "吃了点{food}就开始{sym}", "在{Hg}看过，说没事",
    "我是{prov}人，口味重", "{herb}泡水喝可以吗", "{everyday}", "{dis}会遗传吗", "网上说{brand}是进口的",
    "{brand}和{drug}能一起吃吗", "{year}查出来的{dis}", "{month}开始的，{dur}了", "住在12床，{sym}",
    "{rx}{dose}，早上吃", "{age}了，{bp}", "{time}{sym}，{vital}", "胰岛素每晚打{units}，{lab}",
]
C_DOCTOR = [
    "{drug}{dose}，一天两次", "{lab}，偏高", "{dur}后复查", "考虑{dis}可能", "{rx}先继续吃，{dose}",
    "先去{Hg}查个血常规", "{bp}，控制得还可以", "这个跟{dis}没关系", "{rx}和{drug}是一个东西",
    "{herb}不建议长期吃", "{size}，定期随访就行", "{lab}在正常范围", "{dur}内不要剧烈运动",
    "孩子{cage}，{drug}按体重{dose}", "{vital}不算高", "可以在{Hg}开", "{year}的片子也带上",
    "甘精胰岛素加到{units}", "美林{syrup}，烧到{temp}再吃",
]
OPEN_P = ["医生您好", "您好", "医生", "大夫你好", "在吗", "你好医生", "打扰了", "医生好"]
OPEN_D = ["您好", "你好", "收到", "看了您的资料", "好的"]
CLOSE_P = ["谢谢", "谢谢医生", "麻烦您了", "辛苦了", "感谢", "急，在线等"]
CLOSE_D = ["有问题随时联系", "祝早日康复", "按时吃药", "注意休息"]
SIGN_P = ["——{P}", "{P} 敬上", "家属{O}", "{Pn}爸爸", "{P}（{relword2}）", "患者：{P}", "{Pg}"]
SIGN_D = ["——{dept} {D}", "{D}", "{dept}{D}医生", "{nt}{N}"]
FORM_FIELDS = [("姓名", "P"), ("性别", "sex"), ("年龄", "age"), ("电话", "phone"), ("身份证", "id"),
               ("住址", "A"), ("就诊医院", "H"), ("就诊日期", "Dfull"), ("门诊号", "mrn"), ("主诉", "sym"),
               ("血压", "bpv"), ("联系人", "O"), ("邮箱", "email"), ("出生日期", "Dbirth")]
_SLOT = re.compile(r"\{(\w+)\}")


# ----------------------------------------------------------------------------------------------- message

class _Msg:
    def __init__(self, rng: random.Random, role: str) -> None:
        self.rng = rng
        self.role = role
        self.pat = _Person(rng, old=rng.random() < 0.4)
        self.doc = _Person(rng)
        self.place = rng.choice(PLACES)
        self.sexw = rng.choice(["男", "女"])

    # -- helpers
    def d(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789") for _ in range(n))

    def c(self, seq):
        return self.rng.choice(seq)

    def fill(self, template: str) -> list[list]:
        parts: list[list] = []
        pos = 0
        for m in _SLOT.finditer(template):
            if m.start() > pos:
                parts.append([template[pos:m.start()], None])
            parts.extend(getattr(self, "s_" + m.group(1))())
            pos = m.end()
        if pos < len(template):
            parts.append([template[pos:], None])
        return parts

    # -- names
    def s_P(self):
        return [[self.pat.full, "NAME"]]

    def s_Pc(self):
        return [[self.pat.call, "NAME"]]

    def s_Pg(self):
        return [[self.pat.given if len(self.pat.given) > 1 else self.pat.full, "NAME"]]

    def s_Pn(self):
        return [[self.pat.nick, "NAME"]]

    def s_O(self):
        return [[_Person(self.rng, old=self.rng.random() < 0.3).full, "NAME"]]

    s_O2 = s_O

    def s_D(self):
        return [[self.doc.full, "NAME"]]

    def s_Ds(self):
        return [[self.doc.call, "NAME"]]

    def s_N(self):
        p = _Person(self.rng)
        return [[p.nick if self.rng.random() < 0.5 else p.full, "NAME"]]

    def s_W(self):
        return [[self.c(WORDLIKE), "NAME"]]

    def s_LN(self):
        return [[self.c(LATIN_NICK), "NAME"]]

    def s_PY(self):
        if not self.pat.pinyin:
            return [[self.c(["ZHANG", "LI", "WANG", "OUYANG"]) + " " + self.c(PINYIN_GIVEN), "NAME"]]
        return [[self.pat.pinyin, "NAME"]]

    def s_relf(self):
        return [[self.c(REL_F), None]]

    def s_relm(self):
        return [[self.c(REL_M), None]]

    def s_child(self):
        return [[self.c(CHILD), None]]

    def s_relword(self):
        return [["她是" + self.c(REL_WORD), None]]

    def s_relword2(self):
        return [[self.c(REL_WORD), None]]

    def s_dt(self):
        return [[self.c(DTITLE), None]]

    def s_nt(self):
        return [[self.c(NTITLE), None]]

    def s_sex(self):
        return [[self.sexw, None]]

    # -- contact
    def _mobile(self) -> str:
        return self.c(MOBILE_PREFIX) + self.d(8)

    def s_phone(self):
        m = self._mobile()
        f = self.rng.random()
        if f < 0.4:
            s = m
        elif f < 0.55:
            s = f"{m[:3]} {m[3:7]} {m[7:]}"
        elif f < 0.7:
            s = f"{m[:3]}-{m[3:7]}-{m[7:]}"
        elif f < 0.8:
            s = "+86 " + m
        elif f < 0.88:
            s = self.c(["(+86)", "（+86）", "+86-"]) + m
        elif f < 0.94:
            s = f"{m[:3]}{self.c([' ', '-'])}{m[3:]}"
        else:
            s = "86" + m
        return [[s, "PHONE"]]

    def s_phone_cn(self):
        m = self._mobile()
        s = "".join(("幺" if ch == "1" and self.rng.random() < 0.5 else CN_DIGIT[int(ch)]) for ch in m)
        return [[s, "PHONE"]]

    def s_land(self):
        if self.rng.random() < 0.4:
            area, num = self.c(AREA3), self.c("2345678") + self.d(7)
        else:
            area, num = self.c(AREA4), self.c("2345678") + self.d(self.c([6, 7]))
        f = self.rng.random()
        if f < 0.45:
            s = f"{area}-{num}"
        elif f < 0.65:
            s = self.c(["({a}){n}", "（{a}）{n}"]).format(a=area, n=num)
        elif f < 0.8:
            s = f"{area} {num[:4]} {num[4:]}"
        else:
            s = area + num
        if self.rng.random() < 0.25:
            s += self.c(["转", "-", "转分机"]) + self.d(self.c([3, 4]))
        return [[s, "PHONE"]]

    def s_hot(self):
        pre = self.c(["400", "800"])
        s = self.c(["{p}-{a}-{b}", "{p}{a}{b}", "{p} {a} {b}"]).format(p=pre, a=self.d(3), b=self.d(4))
        return [[s, "PHONE"]]

    def s_email(self):
        f = self.rng.random()
        if f < 0.3:
            local, dom = self.c("123456789") + self.d(self.rng.randint(5, 9)), "qq.com"
        elif f < 0.6:
            p = _Person(self.rng)
            local = (PINYIN_SUR.get(p.sur, "chen").lower() + self.c(["", ".", "_"])
                     + self.c(PINYIN_GIVEN).lower()
                     + self.c(["", self.d(2), "19" + self.d(2)]))
            dom = self.c(EMAIL_DOMAINS)
        else:
            local = self.c(HANDLE) + self.c(["", "_", "."]) + self.d(self.c([2, 3, 4]))
            dom = self.c(EMAIL_DOMAINS)
        at = "@" if self.rng.random() < 0.9 else self.c(["#", "(at)", "＠"])
        return [[local + at + dom, "EMAIL"]]

    def _token(self, n: int) -> str:
        return "".join(self.c("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(n))

    def s_url(self):
        f = self.c([
            "https://www.haodf.com/doctor/{n}.html", "http://m.yiyuan-cloud.cn/report?rid={t}&sign={t2}",
            "https://mp.weixin.qq.com/s/{t}", "t.cn/A6{t3}", "https://dwz.cn/{t3}",
            "www.jiankang{n3}.com/u/{n}",
            "https://pacs.hosp{n3}.com.cn/view/{n}", "https://h5.guahao.cn/order/{t}", "pan.baidu.com/s/1{t}",
        ])
        s = f.format(n=self.d(self.rng.randint(6, 9)), t=self._token(12), t2=self._token(8),
                     t3=self._token(5),
                     n3=self.d(2))
        return [[s, "URL"]]

    def s_wx(self):
        f = self.rng.random()
        if f < 0.3:
            s = "wxid_" + self._token(10).lower()
        elif f < 0.7:
            s = self.c(HANDLE) + self.c(["", "_", "-"]) + self.d(self.c([3, 4, 6]))
        else:
            s = self._mobile()
        return [[s, "URL"]]

    def s_qq(self):
        return [[self.c("123456789") + self.d(self.rng.randint(5, 9)), "URL"]]

    def s_dy(self):
        return [[self.c(["", "dy"]) + self.c(HANDLE) + self.d(self.c([4, 6])), "URL"]]

    # -- ID numbers
    def _id18(self) -> str:
        y = self.rng.randint(1938, 2021)
        m = self.rng.randint(1, 12)
        d = self.rng.randint(1, calendar.monthrange(y, m)[1])
        first = f"{self.c(ID_REGIONS)}{y:04d}{m:02d}{d:02d}{self.d(3)}"
        return first + id_check_char(first)

    def s_id(self):
        s = self._id18()
        f = self.rng.random()
        if f < 0.15:
            s = f"{s[:6]} {s[6:14]} {s[14:]}"
        if s.endswith("X") and self.rng.random() < 0.3:
            s = s[:-1] + "x"
        return [[s, "ID"]]

    def s_ss(self):
        return [[self._id18(), "ID"]]

    def s_id15(self):
        return [[self.c(ID_REGIONS) + f"{self.rng.randint(40, 84)}{self.rng.randint(1, 12):02d}"
                 f"{self.rng.randint(1, 28):02d}" + self.d(3), "ID"]]

    def s_pp(self):
        pre = self.c(["E", "E", "E", "EA", "EB", "G"])
        return [[pre + self.d(8 if len(pre) == 1 else 7), "ID"]]

    def s_hk(self):
        return [[self.c(["C", "CA", "CB"]) + self.d(7 if self.rng.random() < 0.5 else 8), "ID"]]

    def s_mil(self):
        return [["军字第" + self.d(7) + "号", "ID"]]

    # -- addresses
    def _cs(self, city: str) -> str:
        return CITY_SHORT.get(city, city[:-1] if city.endswith("市") else city)

    def _nonmuni(self):
        p = self.place
        while p[0] is None:
            p = self.c(PLACES)
        return p

    def _bldg(self) -> str:
        r = self.rng
        return self.c([
            f"{r.randint(1, 30)}栋{r.randint(1, 4)}单元{r.randint(1, 28)}0{r.randint(1, 4)}",
            f"{r.randint(1, 20)}幢{r.randint(1, 30)}0{r.randint(1, 6)}室",
            f"{r.randint(1, 12)}号楼{r.randint(1, 6)}门{r.randint(1, 6)}0{r.randint(1, 3)}",
            f"{self.c('ABCD')}座{r.randint(5, 32)}{r.randint(1, 20):02d}",
            f"{r.randint(1, 3)}期{r.randint(1, 20)}栋",
            f"{r.randint(1, 30)}-{r.randint(1, 4)}-{r.randint(1, 28)}0{r.randint(1, 4)}",
        ])

    def _street(self) -> str:
        return self.c(STREET_STEM) + f"{self.rng.randint(1, 999)}号"

    def _town(self) -> str:
        return self.c(TOWN_STEM) + self.c(["镇", "镇", "乡", "街道"])

    def _village(self) -> str:
        v = self.c(VILLAGE_STEM) + self.c(["村", "村", "村委会"])
        if self.rng.random() < 0.3:
            v += self.c([f"{self.rng.randint(1, 12)}组", _cn_num(self.rng.randint(1, 9)) + "组"])
        return v

    def s_A(self):
        prov, city, dists, counties = self.place
        f = self.rng.random()
        if f < 0.3:
            levels = [city, self.c(dists), self._street(), self.c(COMMUNITY), self._bldg()]
            if prov and self.rng.random() < 0.6:
                levels.insert(0, prov)
        elif f < 0.45:
            levels = [city, self.c(dists), self.c(COMMUNITY), self._bldg()]
        elif f < 0.55:
            levels = [self.c(dists), self._street()]
        elif f < 0.7:
            levels = [self.c(counties), self._town(), self._village()]
        elif f < 0.8:
            levels = [city, self.c(counties), self._town(), self._village()]
            if prov:
                levels.insert(0, prov)
        elif f < 0.88:
            levels = [self.c(COMMUNITY), self._bldg()]
        elif f < 0.94:
            levels = [self._cs(city), self.c(STREET_STEM) + "与" + self.c(STREET_STEM) + "交叉口"]
        else:
            levels = [self.c(dists), self._town(), self.c(COMMUNITY[:6]) + self.c(COMMUNITY_2)]
        sep = " " if self.rng.random() < 0.15 else ""
        return [[sep.join(levels), "ADDRESS"]]

    def s_Acity(self):
        p = self._nonmuni()
        return [[p[1] if self.rng.random() < 0.35 else self._cs(p[1]), "ADDRESS"]]

    def s_Adist(self):
        p = self.place
        return [[self.c(p[2] + p[3]), "ADDRESS"]]

    def s_Atown(self):
        p = self.place
        f = self.rng.random()
        if f < 0.4:
            s = self.c(p[3]) + self._town() + self._village()
        elif f < 0.7:
            s = self._town() + self._village()
        else:
            s = self._town()
        return [[s, "ADDRESS"]]

    def s_Avil(self):
        return [[self._village(), "ADDRESS"]]

    def s_Acomm(self):
        return [[self.c(COMMUNITY) + (self._bldg() if self.rng.random() < 0.6 else ""), "ADDRESS"]]

    def s_Astreet(self):
        return [[self._street() if self.rng.random() < 0.6 else self.c(STREET_STEM), "ADDRESS"]]

    # -- hospitals
    def _hplace(self) -> str:
        prov, city, dists, counties = self.place
        pre = city if city.endswith("市") else self._cs(city)
        return self.c([
            f"{pre}第{self.c('一二三四五六七')}人民医院", f"{pre}中医院", f"{pre}妇幼保健院", f"{pre}中心医院",
            f"{self.c(counties)}人民医院", f"{self.c(counties)}中医院", f"{self.c(dists)}人民医院",
            f"{self._cs(city)}第{self.c('一二三')}医院", f"{pre}儿童医院",
        ])

    def s_H(self):
        f = self.rng.random()
        if f < 0.35:
            s = self._hplace()
        elif f < 0.6:
            s = self.c(FAMOUS_H)[0]
        elif f < 0.7:
            s = self.c(CAMPUS)
        elif f < 0.85:
            s = self.c(LEVEL_H)
        else:
            s = self._clinic()
        return [[s, "HOSPITAL"]]

    def s_Hs(self):
        f = self.rng.random()
        s = self.c(FAMOUS_H)[1] if f < 0.55 else self.c(LEVEL_H)
        return [[s, "HOSPITAL"]]

    def _clinic(self) -> str:
        return self.c([
            self.c(TOWN_STEM) + self.c(["镇卫生院", "乡卫生院"]),
            self.c(VILLAGE_STEM) + "村卫生室", self.c(TOWN_STEM) + "街道社区卫生服务中心",
            self.c(COMMUNITY[:8]) + "社区卫生服务站", self.c(CLINIC_STEM) + self.c(["诊所", "门诊部", "中医诊所"]),
            self.c(SUR_COMMON) + "氏口腔诊所", self.c(CHAIN_H), self._cs(self._nonmuni()[1]) + self.c(CHAIN_H[:3]),
        ])

    def s_Hc(self):
        return [[self._clinic(), "HOSPITAL"]]

    def s_Hg(self):
        return [[self.c(GENERIC_H), None]]

    # -- dates
    def _ymd(self, lo: int = 2019, hi: int = 2025):
        y = self.rng.randint(lo, hi)
        m = self.rng.randint(1, 12)
        return y, m, self.rng.randint(1, calendar.monthrange(y, m)[1])

    def s_Dfull(self):
        y, m, d = self._ymd()
        s = self.c([
            f"{y}年{m}月{d}日", f"{y}年{m}月{d}号", f"{y}-{m:02d}-{d:02d}", f"{y}/{m}/{d}", f"{y}.{m}.{d}",
            f"{y % 100}.{m}.{d}", f"{y}{m:02d}{d:02d}", f"{y % 100}年{m}月{d}日",
        ])
        return [[s, "DATE"]]

    def s_Dmd(self):
        _, m, d = self._ymd()
        s = self.c([f"{m}月{d}日", f"{m}月{d}号", f"{m}.{d}号", f"{_cn_num(m)}月{_cn_num(d)}号",
                    f"今年{m}月{d}号", f"去年{m}月{d}日"])
        return [[s, "DATE"]]

    def s_Dym(self):
        y, m, _ = self._ymd(2010)
        return [[self.c([f"{y}年{m}月", f"去年{m}月", f"前年{m}月", f"{y}.{m}", f"{y}年{m}月份"]), "DATE"]]

    def s_Dlunar(self):
        m = self.rng.randint(1, 12)
        d = self.rng.randint(1, 29)
        s = self.c([f"农历{CN_MONTH[m - 1]}月{_lunar_day(d)}", f"{CN_MONTH[m - 1]}月{_lunar_day(d)}",
                    "正月十五", "腊月二十三", f"阴历{_cn_num(m)}月{_lunar_day(d)}", "大年初三"])
        return [[s, "DATE"]]

    def s_Damb(self):
        _, m, d = self._ymd()
        return [[self.c([f"{m}/{d}", f"{m}.{d}", f"{m:02d}/{d:02d}"]), "DATE"]]

    def s_Dbirth(self):
        y, m, d = self._ymd(1940, 2021)
        s = self.c([f"{y}年{m}月{d}日", f"{y}-{m:02d}-{d:02d}", f"{y}.{m:02d}.{d:02d}", f"{y}{m:02d}{d:02d}",
                    "".join(CN_DIGIT[int(ch)] for ch in str(y)).replace("零", "〇")
                    + f"年{_cn_num(m)}月{_cn_num(d)}日"])
        return [[s, "DATE"]]

    def s_Dt(self):
        f = self.rng.random()
        if f < 0.35:
            return self.s_Dfull()
        if f < 0.75:
            return self.s_Dmd()
        if f < 0.9:
            return self.s_Dym()
        return self.s_Dlunar()

    # -- record numbers
    def _sep(self) -> str:
        return self.c(["", "：", ":", " ", "是", "： "])

    def s_mrn(self):
        r = self.rng.random()
        if r < 0.45:
            s = self.d(self.rng.randint(6, 12))
        elif r < 0.7:
            pre = self.c(["ZY", "MZ", "BA", "CT", "MR", "DR", "US", "P", "B", "JY"])
            s = pre + self.d(self.rng.randint(6, 11))
        elif r < 0.85:
            s = f"{self.c(['B', 'P', 'F', 'BL'])}{self.rng.randint(2019, 2025)}-{self.d(self.c([4, 5]))}"
        else:
            s = f"{self.rng.randint(2019, 2025)}{self.d(self.c([6, 8]))}"
        return [[s, "MRN"]]

    def s_MRN(self):
        cue = self.c(["门诊号", "住院号", "病案号", "病历号", "ID号", "就诊卡号", "医保卡号", "建档号", "条码号",
                      "标本号", "报告编号", "影像号", "检查号", "病理号", "登记号", "住院号码", "就诊卡"])
        return [[cue + self._sep(), None], *self.s_mrn()]

    def s_ORD(self):
        r = self.rng.random()
        y = self.rng.randint(2022, 2025)
        if r < 0.2:
            cue, num = self.c(["订单号", "订单编号", "问诊单号", "挂号单号"]), f"{y}{self.d(self.rng.randint(12, 16))}"
        elif r < 0.32:
            cue, num = self.c(["退款单号", "售后单号"]), self.c(["TK", "RF", ""]) + f"{y}{self.d(12)}"
        elif r < 0.5:
            cue = self.c(["快递单号", "物流单号", "运单号"])
            num = self.c(["SF", "YT", "JD", "ZTO", "JT"]) + self.d(self.c([12, 13]))
            if self.rng.random() < 0.3:
                num = "7" + self.d(14)
        elif r < 0.62:
            cue, num = self.c(["交易单号", "微信支付单号"]), "42000" + self.d(5) + f"{y}" + self.d(14)
        elif r < 0.72:
            _, m, d = self._ymd()
            cue, num = self.c(["支付宝交易号", "交易号"]), f"{y}{m:02d}{d:02d}2200" + self.d(16)
        elif r < 0.84:
            cue, num = self.c(["处方编号", "处方号", "电子处方号"]), f"CF{y}{self.d(4)}-{self.d(4)}"
        elif r < 0.93:
            cue, num = self.c(["预约码", "取号码", "预约号"]), self._token(6).upper()
        else:
            cue, num = self.c(["转诊单号", "京东订单", "商户单号"]), self.d(self.rng.randint(11, 19))
        return [[cue + self._sep(), None], [num, "ORDER_ID"]]

    # -- keep (clinical numbers)
    def s_age(self):
        r = self.rng.random()
        n = self.rng.randint(16, 92)
        if r < 0.65:
            s = f"{n}岁"
        elif r < 0.85:
            s = _cn_num(n) + "岁"
        elif r < 0.93:
            s = f"{n}周岁"
        else:
            s = _cn_num(n // 10 * 10) + "多岁"
        return [[s, "k:age"]]

    def s_cage(self):
        r = self.rng.random()
        n = self.rng.randint(1, 14)
        if r < 0.45:
            s = f"{n}岁"
        elif r < 0.6:
            s = _cn_num(n) + "岁"
        elif r < 0.8:
            s = f"{self.rng.randint(1, 11)}个月"
        elif r < 0.9:
            s = f"{self.rng.randint(1, 9)}岁半"
        else:
            s = f"{self.rng.randint(1, 11)}个月大"
        return [[s, "k:age"]]

    def s_dur(self):
        r = self.rng
        s = self.c([f"{r.randint(2, 15)}天", f"{r.randint(1, 8)}周", f"{r.randint(2, 11)}个月",
                    "半年", "两三天", "一个多月", f"{self.rng.randint(2, 20)}年", "三四个月", "一周"])
        return [[s, "k:duration"]]

    def s_dose(self):
        r = self.rng
        s = self.c([f"{self.c([5, 10, 20, 25, 40, 50, 75, 100])}mg", f"{self.c(['0.25', '0.5', '1'])}g",
                    f"{r.randint(1, 3)}片", "半片", f"{r.randint(1, 2)}粒", f"{self.c([5, 10, 20])}毫克",
                    f"{self.c([0.5, 1.5, 2])}片"])
        return [[s, "k:dose"]]

    def s_lab(self):
        r = self.rng
        name, val, unit = self.c([
            ("空腹血糖", f"{r.randint(40, 150) / 10}", "mmol/L"), ("糖化血红蛋白", f"{r.randint(50, 110) / 10}", "%"),
            ("总胆固醇", f"{r.randint(30, 80) / 10}", "mmol/L"), ("尿酸", f"{r.randint(250, 650)}", "μmol/L"),
            ("肌酐", f"{r.randint(50, 300)}", "umol/L"), ("ALT", f"{r.randint(10, 200)}", "U/L"),
            ("TSH", f"{r.randint(1, 150) / 10}", "mIU/L"), ("白细胞", f"{r.randint(20, 180) / 10}", "×10^9/L"),
            ("血红蛋白", f"{r.randint(70, 170)}", "g/L"), ("血小板", f"{r.randint(50, 450)}", "×10^9/L"),
            ("CRP", f"{r.randint(1, 120)}", "mg/L"), ("CA125", f"{r.randint(50, 900) / 10}", "U/ml"),
            ("hCG", f"{r.randint(1000, 98000)}", "mIU/ml"),
            ("HBV-DNA", f"{r.randint(11, 99) / 10}×10^{r.randint(3, 7)}", "IU/ml"),
            ("D-二聚体", f"{r.randint(1, 40) / 10}", "mg/L"), ("低密度脂蛋白", f"{r.randint(15, 55) / 10}", "mmol/L"),
            ("CEA", f"{r.randint(5, 200) / 10}", "ng/ml"), ("25羟维生素D", f"{r.randint(8, 40)}", "ng/ml"),
            ("PSA", f"{r.randint(1, 300) / 10}", "ng/ml"), ("甘油三酯", f"{r.randint(5, 80) / 10}", ""),
        ])
        sep = self.c(["", " ", "：", ":"])
        return [[f"{name}{sep}{val}{unit}", "k:lab"]]

    def s_units(self):
        return [[f"{self.rng.randint(4, 36)}" + self.c(["单位", "U", "个单位"]), "k:dose"]]

    def s_syrup(self):
        return [[f"{self.rng.randint(2, 10)}" + self.c(["ml", "毫升"]), "k:dose"]]

    def s_size(self):
        a = self.rng.randint(3, 40) / 10
        b = self.rng.randint(3, 30) / 10
        return [["结节" if self.rng.random() < 0.5 else "囊肿", None], [f"{a}×{b}cm", "k:lab"]]

    def s_temp(self):
        t = self.rng.randint(365, 405) / 10
        return [[self.c(["体温", "", "腋温"]) + f"{t}" + self.c(["℃", "度", "°C"]), "k:vital"]]

    def s_bp(self):
        hi = self.rng.randint(95, 190)
        lo = self.rng.randint(55, min(115, hi - 25))
        s = self.c([f"血压{hi}/{lo}", f"BP {hi}/{lo}mmHg", f"高压{hi}低压{lo}", f"血压：{hi}/{lo}mmHg"])
        return [[s, "k:vital"]]

    def s_bpv(self):
        hi = self.rng.randint(95, 190)
        return [[f"{hi}/{self.rng.randint(55, min(115, hi - 25))}mmHg", "k:vital"]]

    def s_vital(self):
        r = self.rng
        s = self.c([f"心率{r.randint(48, 130)}次/分", f"血氧{r.randint(88, 100)}%", f"脉搏{r.randint(50, 120)}",
                    f"呼吸{r.randint(12, 30)}次/分", f"腰围{r.randint(60, 110)}cm"])
        return [[s, "k:vital"]]

    def s_ht(self):
        return [[f"身高{self.rng.randint(100, 190)}" + self.c(["cm", "厘米", ""]), "k:vital"]]

    def s_wt(self):
        return [[self.c([f"体重{self.rng.randint(15, 100)}kg", f"{self.rng.randint(80, 220)}斤"]), "k:vital"]]

    def s_time(self):
        s = self.c(["昨天", "前天晚上", "上周", "今天早上", "半夜", f"早上{self.rng.randint(5, 9)}点",
                    f"{self.rng.randint(2, 9)}天前", "上个月", "今天下午", "晚上"])
        return [[s, "k:time"]]

    def s_year(self):
        return [[f"{self.rng.randint(2005, 2024)}年", "k:time"]]

    def s_month(self):
        return [[f"{self.rng.randint(1, 12)}月份", "k:time"]]

    # -- plain fillers
    def s_sym(self):
        return [[self.c(SYMS), None]]

    def s_drug(self):
        return [[self.c(DRUGS), None]]

    def s_brand(self):
        return [[self.c(BRANDS), None]]

    def s_dis(self):
        return [[self.c(DISEASES), None]]

    def s_rx(self):
        return [[self.c(BRANDS_RX), None]]

    def s_herb(self):
        return [[self.c(HERBS), None]]

    def s_dept(self):
        return [[self.c(DEPTS), None]]

    def s_food(self):
        return [[self.c(FOODS), None]]

    def s_prov(self):
        return [[self.c(PROVS), None]]

    def s_everyday(self):
        return [[self.c(EVERYDAY), None]]

    # -- shapes
    def form(self) -> list[list]:
        fields = [f for f in FORM_FIELDS if self.rng.random() < 0.45]
        if not any(slot in ("P", "phone", "id", "A", "H", "Dfull", "mrn", "O", "email", "Dbirth")
                   for _, slot in fields):
            fields.insert(0, FORM_FIELDS[0])
        colon = self.c(["：", ":", " ", "：", "| "])
        joiner = self.c(["\n", "\n", " ", "，", " | "])
        parts: list[list] = [[self.c(["患者信息", "就诊人", "基本信息", "【问诊单】", "填一下资料"]) + joiner, None]]
        for i, (label, slot) in enumerate(fields):
            if i:
                parts.append([joiner, None])
            parts.append([label + colon, None])
            parts.extend(getattr(self, "s_" + slot)())
        return parts


def _clause_id(g: _Msg, cat: str) -> list[list]:
    table = T_PATIENT if g.role == "patient" else T_DOCTOR
    return g.fill(g.c(table[cat]))


def _pick_cat(rng: random.Random) -> str:
    total = sum(w for _, w in CAT_WEIGHTS)
    x = rng.uniform(0, total)
    for cat, w in CAT_WEIGHTS:
        x -= w
        if x <= 0:
            return cat
    return CAT_WEIGHTS[-1][0]


def _restyle(g: _Msg, parts: list[list]) -> list[list]:
    rng = g.rng
    punct = rng.random()
    fw = rng.random()
    typo = g.role == "patient" and rng.random() < 0.25
    out = []
    for text, label in parts:
        if label is None:
            if punct < 0.2:
                text = text.translate(str.maketrans("，。：？！（）", ",.:?!()"))
            elif punct < 0.3:
                text = text.replace("，", " ").replace("。", " ")
            if typo:
                for a, b in (("在", "再"), ("的", "滴"), ("吗", "嘛"), ("什么", "神马"), ("谢谢", "3q")):
                    if a in text and rng.random() < 0.4:
                        text = text.replace(a, b, 1)
        ascii_only = label in ("EMAIL", "URL") and not text.isdigit()  # links: whole or not at all
        if not ascii_only and (fw < 0.1 or (fw < 0.18 and label is not None and not label.startswith("k:"))):
            text = text.translate(FW)
        if text:
            out.append([text, label])
    return out


def _joiner(g: _Msg) -> str:
    if g.role == "patient":
        return g.c(["，", "，", "。", "\n", " ", "！", "；", "，"])
    return g.c(["，", "。", "。", "\n", "；"])


def _build(rng: random.Random, want_id: bool) -> dict:
    role = "patient" if rng.random() < 0.68 else "doctor"
    g = _Msg(rng, role)
    clin = C_PATIENT if role == "patient" else C_DOCTOR
    clauses: list[list[list]] = []
    shape = rng.random()
    if want_id and role == "patient" and shape < 0.08:
        clauses.append(g.form())
    elif want_id and role == "patient" and shape < 0.13:  # bare reply: identifiers only
        cats = rng.sample(["NAME", "PHONE", "ID", "ADDRESS", "MRN", "DATE"], rng.randint(2, 3))
        slot = {"NAME": "P", "PHONE": "phone", "ID": "id", "ADDRESS": "A", "MRN": "mrn", "DATE": "Dbirth"}
        sep = g.c([" ", "\n", "，", "/", "  "])
        parts: list[list] = []
        for i, c in enumerate(cats):
            if i:
                parts.append([sep, None])
            parts.extend(getattr(g, "s_" + slot[c])())
        clauses.append(parts)
    elif role == "patient" and shape < 0.2:  # pasted thread from another platform
        clauses.append([[g.c(["之前在别的平台问过：", "转发一下上次的聊天记录：", "这是上次的问诊记录"]), None]])
        me = g.c(["我：", "患者：", "问："])
        for i in range(rng.randint(2, 3)):
            who = g.c(["医生：", "答：", "大夫："]) if i % 2 else me
            pool = C_DOCTOR if i % 2 else C_PATIENT
            clauses.append([["\n" + who, None], *g.fill(g.c(pool))])
        if want_id:
            clauses.append([["\n", None], *_clause_id(g, _pick_cat(rng))])
    else:
        n_id = (1 + (rng.random() < 0.45) + (rng.random() < 0.15)) if want_id else 0
        n_clin = rng.randint(0 if n_id else 1, 3)
        body = [_clause_id(g, _pick_cat(rng)) for _ in range(n_id)]
        body += [g.fill(g.c(clin)) for _ in range(n_clin)]
        rng.shuffle(body)
        if rng.random() < 0.55:
            body.insert(0, [[g.c(OPEN_P if role == "patient" else OPEN_D), None]])
        if rng.random() < 0.4:
            body.append([[g.c(CLOSE_P if role == "patient" else CLOSE_D), None]])
        if want_id and rng.random() < 0.15:
            body.append(g.fill(g.c(SIGN_P if role == "patient" else SIGN_D)))
        clauses = body
    parts: list[list] = []
    for i, cl in enumerate(clauses):
        if i and not cl[0][0].startswith("\n"):
            parts.append([_joiner(g), None])
        if role == "patient" and rng.random() < 0.08:
            cl = [*cl, [g.c(EMO), None]]
        parts.extend(cl)
    if rng.random() < 0.5:
        parts.append([g.c(["。", "", "？", "!", "～"] if role == "patient" else ["。", ""]), None])
    parts = _restyle(g, parts)
    text, spans, keep, inserted = "", [], [], []
    for t, label in parts:
        s = len(text)
        text += t
        if label is None:
            continue
        if label.startswith("k:"):
            keep.append([s, len(text), label[2:]])
        else:
            spans.append([s, len(text), label])
        inserted.append((s, len(text), t))
    msg = {"text": text, "role": role, "spans": spans, "keep": keep}
    _check(msg, inserted)
    if want_id != bool(spans):
        raise AssertionError(f"identifier expectation broken: {msg}")
    return msg


def _check(msg: dict, inserted: list | None = None) -> None:
    """Offsets inside the text, spans and keeps non-overlapping, categories known, no edge whitespace, and
    (given the parts as inserted) every marked substring is exactly what its slot produced."""
    text = msg["text"]
    allm = sorted([*msg["spans"], *msg["keep"]])
    prev_end = 0
    for s, e, lab in allm:
        if not (0 <= s < e <= len(text)):
            raise AssertionError(f"offsets {s},{e} outside {text!r}")
        if s < prev_end:
            raise AssertionError(f"overlap at {s} in {text!r}")
        if lab not in CATEGORIES and lab not in KEEP_KINDS:
            raise AssertionError(f"unknown label {lab}")
        if text[s:e] != text[s:e].strip():
            raise AssertionError(f"edge whitespace in {text[s:e]!r}")
        prev_end = e
    for s, e, lab in msg["spans"]:
        if lab == "ID" and len(text[s:e].replace(" ", "")) == 18 and not id_check_ok(text[s:e]):
            raise AssertionError(f"bad ID check digit {text[s:e]!r}")
    if inserted is not None:
        if len(inserted) != len(allm):
            raise AssertionError("span count differs from inserted parts")
        for s, e, t in inserted:
            if text[s:e] != t:
                raise AssertionError(f"{text[s:e]!r} != inserted {t!r}")


def generate(seed: int = 0, n_messages: int = 3000) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for _ in range(n_messages):
        out.append(_build(rng, rng.random() < 0.6))
    return out


def corpus_hash(msgs: list[dict]) -> str:
    return hashlib.sha256(json.dumps(msgs, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def verify() -> list[dict]:
    """Regenerate the frozen corpus (seed 0, 3000 messages), check it, raise if it moved; returns it."""
    msgs = generate(0, 3000)
    for m in msgs:
        _check(m)
    h = corpus_hash(msgs)
    if h != CORPUS_SHA256:
        raise AssertionError(f"consult_c corpus changed: sha256 {h} != frozen {CORPUS_SHA256}")
    return msgs


def mark(msg: dict) -> str:
    """The text with 【span|CAT】 and «keep» marks."""
    text = msg["text"]
    marks = sorted([(s, e, "【", f"|{c}】") for s, e, c in msg["spans"]]
                   + [(s, e, "«", "»") for s, e, _ in msg["keep"]])
    out, pos = [], 0
    for s, e, a, b in marks:
        out += [text[pos:s], a, text[s:e], b]
        pos = e
    out.append(text[pos:])
    return "".join(out)


def main() -> None:
    msgs = generate(0, 3000)
    counts = {c: 0 for c in CATEGORIES}
    kcounts = {k: 0 for k in KEEP_KINDS}
    for m in msgs:
        for _, _, c in m["spans"]:
            counts[c] += 1
        for _, _, k in m["keep"]:
            kcounts[k] += 1
    with_id = sum(1 for m in msgs if m["spans"])
    print(f"messages: {len(msgs)}  with identifiers: {with_id} ({with_id / len(msgs):.1%})  "
          f"doctor: {sum(m['role'] == 'doctor' for m in msgs)}")
    for c in CATEGORIES:
        print(f"  {c:9s} {counts[c]}")
    print("keep: " + "  ".join(f"{k} {v}" for k, v in kcounts.items()))
    h = corpus_hash(msgs)
    print(f"sha256 {h}  frozen: {'ok' if h == CORPUS_SHA256 else 'DIFFERS from ' + CORPUS_SHA256}")
    rng = random.Random(1)
    for m in rng.sample(msgs, 10):
        print(f"--- [{m['role']}]\n{mark(m)}")


if __name__ == "__main__":
    main()
    sys.exit(0)
