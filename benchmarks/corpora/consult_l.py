"""Held-out test corpus L for Chinese text de-identification: internet writing and deliberate obfuscation.

Provenance: a new blind generator, written from the category definitions alone (the ``text.policy`` block of
``conf/deid/default.yaml`` with its comments, and the MODULE DOCSTRINGS ONLY of ``benchmarks/corpora/consult_b.py``
to ``consult_i.py``), without reading the detector, its rules, lexicons, statistical layer, policy module, tests,
tools, benchmark scripts or the code of any other corpus, and without ever running a detector (or anything from
``medrealmm``) on it.  Frozen: measurement only, never tuning.  If a rule is changed because of a message in this
corpus, the corpus no longer measures anything; write a new one instead.

Pure standard library; deterministic given a seed (one ``random.Random(seed)``, lists and tuples only, no set/dict
iteration order or hash randomisation; dicts are only looked up).  The corpus for seed 0 / 3000 messages is frozen
by ``CORPUS_SHA256`` (sha256 of ``json.dumps(generate(0, 3000), ensure_ascii=False, sort_keys=True)``);
``verify()`` regenerates it and raises if a single character moved.  ``python benchmarks/corpora/consult_l.py``
prints the counts per category and keep kind, the share of messages with an identifier, the number of
consultations and a few marked samples (``--verify`` checks the hash).

Each message::

    {"text": str, "role": "patient" | "doctor",
     "consultation": int,                        # index of the consultation; its messages are consecutive
     "spans": [[start, end, CATEGORY], ...],     # identifiers that must be masked
     "keep":  [[start, end, kind], ...]}         # clinical numbers that must NOT be masked

Offsets are Python ``str`` (code point) offsets, end exclusive, sorted; spans never overlap each other or a keep
span; no span or keep span starts or ends with whitespace (a span may contain spaces, dots, letters, words or
emoji between the groups of an obfuscated number, see below).  ``generate(seed, n)`` returns the first ``n``
messages of an endless stream of whole consultations, so a shorter corpus is a prefix of a longer one.  An
internal check (``_check``) validates every message and raises on a violation.  For seed 0 / 3000 messages: 234
consultations, about 55 % of the messages carry an identifier (about 3,500 identifier spans, 2,250 keep spans).

Design (unlike B's fixed scenarios, C's slot grammar, D's case-then-turns co-reference, E's per-message case
record, F's platform service flows, G's writers with habits, H's regions and I's pasted paperwork): the
consultation is written the way people write ON PHONES AND SOCIAL PLATFORMS, and the patient side often tries
to DODGE THE PLATFORM'S "NO CONTACT DETAILS" FILTER.  A consultation draws a case (patient, the writer -- the
patient or a relative --, a doctor with a screen handle, the doctor's assistant, a home city with its internet
nickname and districts, two hospitals with official names, online abbreviations, English names and typo forms,
phones, WeChat / QQ / e-mail / social handles, a resident ID, record and order numbers, dates) and a writer
style: Gen-Z (emoji, kaomoji, yyds / xswl / awsl / u1s1 / dbq, 宝子, ~~~), an elder on a phone (spaces for
punctuation, 🌹🙏, numbers in Chinese numerals), an evader (every contact obfuscated), an overseas Chinese or a
foreigner in China (English code-switching, pinyin names, English addresses and hospital names), a Hong Kong /
Taiwan / overseas writer in Traditional characters, a typist with 形近字 / homophone slips, a forwarder (【转】,
"//@xxx:" chains, 引用 / 回复 quotes, #话题# hashtags).  Obfuscations of identifiers: digit groups split by
spaces, dots, dashes, letters, emoji or words ("138 然后 1234 然后 5678"); digits as 壹贰叁, 一二三, circled
①②③, full-width, keycap emoji 1️⃣, homophones (幺 / 要 / 腰 for 1, 两 for 2, 洞 for 0, 拐 for 7, 勾 for 9) and
mixtures per group; a number split over two messages; a number written backwards with a note; contact cues
disguised (加薇, V信, 威信, vx, 卫星, 绿色软件, 扣扣, 企鹅号, 抖音号, 小红书号); e-mails with at / # / 艾特 / (at) /
(点) / dot; links with 点 for the dots; names in pinyin (zhang wei, Zhang W, W. Zhang), initials (ZW, 张W, z老师),
starred or x-ed by the writer (张*伟, 王**, 张x伟), spaced (张 伟), with a homophone or look-alike slip, in
Traditional characters, followed by emoji; cities by nickname (羊城, 蓉城, 鹏城, 江城, 冰城 ...) or pinyin
initials (sz, gz, cd), neighbourhoods by internet fame (五道口, 望京, 陆家嘴); hospitals by online abbreviation
(协和, 北医三院, 华西, 浙一, 郑大一), English name (PUMCH, West China Hospital), typo (协合医院) or hashtag
(#北京协和医院#).  The platform answers with its own lines: system warnings ("请勿发送联系方式"), auto-hidden
numbers (all stars), payment notices with the platform's starred names and numbers.  Clinical numbers are
written casually (血压140/90, 高压160, 血糖 7.8, 烧到38度5, 心率一百二, 每次两粒) and are keep spans.  Hard negatives:
internet number slang (666, 233333, 520, 1314, 886, 9494, "疯狂星期四v我50"), a phone's last four digits (尾号
5678), service numbers (120, 110, 12320, 12345, 10086), brand medicines (连花清瘟, 999感冒灵, 云南白药, 片仔癀,
马应龙, 京都念慈菴, 北京降压0号, 东阿阿胶), brands that are names (李宁, 老干妈), eponym and place-named diseases
(帕金森, 阿尔茨海默, 桥本, 川崎病, 克罗恩病, 香港脚), a province alone, the province-level municipalities alone and
their nicknames (北京, 魔都, 帝都, 山城), generic city lists (北上广深), a country alone, generic forms of address
(宝子, 家人们, 姐妹们, 集美, 老铁, 亲, 小哥哥, 小姐姐, 医生姐姐), platforms (好大夫, 丁香医生, 小红书, 抖音, B站),
everyday words that are also names (高峰, 夏天, 平安), HPV16, N95, COVID-19.

Roles: the patient and a relative writing for them are "patient"; the doctor, the doctor's assistant and the
platform's system and notice lines are "doctor" (corpus F's convention).

Annotation conventions (those of corpora B-I, which define the categories; choices this corpus had to make are
marked "choice"):

* NAME: the name only, never the kinship word, title or @ ("我妈【王秀英】", "【刘】主任", "@【李】医生").
  Nicknames (【老陈】, 【小敏】, 【朵朵】), pinyin and English names (【zhang wei】, 【Tom Becker】, Dr. 【Chen】)
  are NAME (corpus G's choice).  Choice: initials that stand for a person are NAME (【ZW】, 【张W】, 【z】老师,
  【W. Zhang】), like a surname with a title.  Choice: a name the writer starred or x-ed out in part is NAME
  whole with its stars, as long as any character of it is left (【张*伟】, 【王**】, 【张x伟】): what is left is at
  least the surname, which the conventions mark with a title; a name starred completely (***) is plain.  Choice:
  a name with spaces inside (【张 伟】), a homophone or look-alike slip (【章伟】) or in Traditional characters
  (【張偉】) is NAME, one span; emoji after it are outside.  Choice: a screen name (platform nickname) used to
  address or quote someone (@【快乐的小猪】, "//@【Lily_Chen】:", 楼主【不吃香菜的猫】) is NAME -- it is the form
  of the person's name in use on the platform (corpus G: a name after @ is NAME without the @); the @, the //
  and the colon are outside.  The same kind of handle given as a contact after a cue (抖音号, 小红书号, 微博号,
  B站UID) is URL (corpora C-H).  A doctor's handle built from a name ("@皮肤科【王】大夫") has only the name
  part marked.
* PHONE: mobiles and landlines however disguised.  Choice: an obfuscated number is ONE span from its first to
  its last digit-group, the spaces, dots, letters, emoji and filler words between the groups inside (they are
  part of how the number is written); digits in any script (壹, 一, 幺, ①, １, 1️⃣) count as digits.  A number
  split over two messages is two spans, even when a part is short ("拆开发：【192】" ... "后面【3259 7781】"): it
  completes the number of the other message.  A number written backwards ("倒过来 87654321831") is PHONE.  Choice: a
  number partly starred with seven or more digits left (138****5678) is PHONE; a phone's last four digits alone
  (尾号5678) and an all-star number (***********) are plain.  120 / 110 / 12320 / 12345 / 10086 are plain.
* ID: 18-digit resident IDs with a valid GB 11643 check digit, in any digit script, grouped or spaced;
  passports after their cue.  EMAIL: addresses with @ or a disguise of it (at, #, 艾特, (at), ＠) and of the dot
  (点, (点), dot), whole.  URL: links (also with 点 for the dots, short links b23.tv / xhslink), WeChat IDs, QQ
  numbers, social handles given as contacts; the cue (加薇, V信, 扣扣, 企鹅号 ...) outside.  Choice: a mobile given
  as a WeChat ID ("vx同手机号 139…") is URL (corpus D's choice).
* ADDRESS: every geographic unit below the province, alone or chained, a province or municipality written in
  front inside.  Choice: a city's nickname (羊城, 花城, 蓉城, 鹏城, 江城, 泉城, 春城, 冰城, 星城, 榕城, 鹭岛,
  金陵, 杭城) and its pinyin initials (gz, sz, cd, hz, wh) are ADDRESS like the city's name.  Choice: the
  province-level municipalities alone (北京, 上海, 重庆, 天津) and their nicknames alone (帝都, 魔都, 山城, 雾都,
  津门), like a province alone, are plain (corpus I: a municipality alone is plain); written in front of a
  district or neighbourhood they are inside its span ("魔都浦东", "帝都五道口", "bj海淀").  Choice: a
  neighbourhood known by internet fame (五道口, 望京, 回龙观, 天通苑, 陆家嘴, 张江, 光谷, 华强北, 科技园) is ADDRESS;
  the meme epithet in front of it ("宇宙中心五道口", "宇宙中心曹县") is plain, the place ADDRESS.  Generic lists
  (北上广深, 一线城市) are plain.  Choice: a foreign city (温哥华, Toronto, 悉尼) is ADDRESS, a foreign country
  or state alone (加拿大, 美国, California) plain.  An address in English ("Room 1203, Building 5, Wangjing SOHO,
  Chaoyang District, Beijing") is one span.
* HOSPITAL: named institutions, in full, abbreviated online (协和, 北医三院, 301, 华西, 浙一, 郑大一, 中山一院),
  in English (PUMCH, West China Hospital), with a typo (协合医院), in Traditional characters (北京協和醫院), level
  forms (市二院, 市妇幼); the department after it is plain.  Choice: in a hashtag (#北京协和医院#, #华西#) the
  hospital is HOSPITAL and the # marks are outside; a hashtag that is not a hospital (#魔都看病#) is plain.
  Generic phrases (当地医院, 三甲, 社区医院, 县医院, 市人民医院, 私立医院) and platforms are plain.
* DATE: every date finer than a year (2024.3.15, 3月15号, 3.15号, 24年3月15, 上个月15号, 今年3月, 去年腊月初八,
  Mar 15, 15th March, keycap 3️⃣月1️⃣5️⃣号); bare M/D or M.D only after 预约 / 复查.  A year alone, a month
  alone, weekdays, relative days and clock times are keep "time".  Festivals (春节, 国庆) plain.
* MRN: 门诊号, 住院号, 病历号, 就诊卡号, 医保卡号, ID号, 报告编号, 病理号 (cue outside, obfuscated digits inside).
  ORDER_ID: platform orders, payment transactions, prescription numbers, 加号码 / 预约码, refunds, waybills.
* Keep: "age" (35岁, 三十五岁, 8个月, 35y), "duration" (3天, 两周, 一个多月), "dose" (amount + unit: 两粒, 1片,
  5ml, 500mg; frequency plain), "lab" (test + value (+ unit) as written: 血糖 7.8, 糖化6.9%, TSH 8.9, hba1c
  7.2), "vital" (sign + value: 血压140/90, 高压160, BP 150/95, 体温38.6, a bare temperature after 烧到 such as
  38度5, 心率一百二, 体重130斤, 血氧95%), "time" (relative days, clock times, a year alone, a month alone).
"""

import hashlib
import json
import random
import re
import sys

CORPUS_SHA256 = "ad6a4c660a094228da99796a9e310882e26d64400e6cc9b297ffaca14f977c61"

CATEGORIES = ("NAME", "ADDRESS", "HOSPITAL", "DATE", "PHONE", "ID", "EMAIL", "URL", "MRN", "ORDER_ID")
KEEP_KINDS = ("age", "duration", "dose", "lab", "vital", "time")

# ---------------------------------------------------------------------------------------------- pools

SURNAMES = (
    ("王", "wang", 9), ("李", "li", 9), ("张", "zhang", 8), ("刘", "liu", 7), ("陈", "chen", 6), ("杨", "yang", 4),
    ("黄", "huang", 3), ("赵", "zhao", 3), ("吴", "wu", 3), ("周", "zhou", 3), ("徐", "xu", 2), ("孙", "sun", 2),
    ("马", "ma", 2), ("朱", "zhu", 2), ("胡", "hu", 2), ("郭", "guo", 2), ("何", "he", 2), ("林", "lin", 2),
    ("罗", "luo", 1), ("郑", "zheng", 1), ("梁", "liang", 1), ("谢", "xie", 1), ("宋", "song", 1), ("唐", "tang", 1),
    ("许", "xu", 1), ("韩", "han", 1), ("冯", "feng", 1), ("邓", "deng", 1), ("曹", "cao", 1), ("彭", "peng", 1),
    ("曾", "zeng", 1), ("田", "tian", 1), ("董", "dong", 1), ("潘", "pan", 1), ("蒋", "jiang", 1), ("蔡", "cai", 1),
    ("叶", "ye", 1), ("苏", "su", 1), ("卢", "lu", 1), ("钟", "zhong", 1), ("陆", "lu", 1), ("贾", "jia", 1),
    ("龙", "long", 1), ("顾", "gu", 1), ("万", "wan", 1), ("钱", "qian", 1), ("汤", "tang", 1), ("欧阳", "ouyang", 1),
    ("司马", "sima", 1), ("上官", "shangguan", 1), ("禚", "zhuo", 1), ("仉", "zhang", 1), ("覃", "qin", 1),
)
SURNAME_BAG = tuple(s for s in SURNAMES for _ in range(s[2]))

GIVEN = (
    ("伟", "wei"), ("芳", "fang"), ("娜", "na"), ("敏", "min"), ("静", "jing"), ("丽", "li"), ("强", "qiang"),
    ("磊", "lei"), ("军", "jun"), ("洋", "yang"), ("勇", "yong"), ("艳", "yan"), ("杰", "jie"), ("娟", "juan"),
    ("涛", "tao"), ("明", "ming"), ("超", "chao"), ("秀", "xiu"), ("霞", "xia"), ("刚", "gang"), ("桂", "gui"),
    ("英", "ying"), ("华", "hua"), ("建", "jian"), ("国", "guo"), ("文", "wen"), ("辉", "hui"), ("玲", "ling"),
    ("红", "hong"), ("梅", "mei"), ("鹏", "peng"), ("宇", "yu"), ("浩", "hao"), ("子", "zi"), ("涵", "han"),
    ("欣", "xin"), ("怡", "yi"), ("晨", "chen"), ("轩", "xuan"), ("博", "bo"), ("思", "si"), ("佳", "jia"),
    ("俊", "jun"), ("凯", "kai"), ("婷", "ting"), ("雪", "xue"), ("琳", "lin"), ("颖", "ying"), ("慧", "hui"),
    ("春", "chun"), ("兰", "lan"), ("德", "de"), ("志", "zhi"), ("海", "hai"), ("斌", "bin"), ("萍", "ping"),
    ("燕", "yan"), ("亮", "liang"), ("晓", "xiao"), ("丹", "dan"), ("彤", "tong"), ("瑶", "yao"), ("泽", "ze"),
    ("诺", "nuo"), ("梓", "zi"), ("铭", "ming"), ("淑", "shu"), ("秋", "qiu"), ("凤", "feng"), ("荣", "rong"),
)
# homophone / look-alike slips of given-name characters (a writer dodging or mistyping)
SLIP = {"伟": "玮", "芳": "方", "敏": "闵", "静": "婧", "丽": "莉", "强": "墙", "军": "君", "杰": "洁", "娟": "绢",
        "涛": "滔", "明": "名", "华": "桦", "建": "健", "国": "囯", "辉": "晖", "玲": "铃", "红": "虹", "梅": "媚",
        "鹏": "朋", "宇": "雨", "浩": "皓", "欣": "心", "怡": "宜", "晨": "辰", "婷": "亭", "琳": "林", "慧": "惠",
        "兰": "岚", "德": "得", "志": "智", "海": "嗨", "萍": "苹", "燕": "雁", "亮": "量", "丹": "单", "瑶": "遥",
        "王": "汪", "李": "里", "张": "章", "刘": "柳", "陈": "程", "杨": "扬", "黄": "皇", "赵": "照", "吴": "无",
        "周": "舟", "徐": "许", "孙": "荪", "林": "琳"}
NICK_FIRST = ("朵朵", "豆豆", "乐乐", "糖糖", "果果", "安安", "小宝", "团团", "多多", "可乐")
EN_GIVEN = ("Tom Becker", "Anna Schmidt", "David Miller", "Sophie Martin", "James O'Brien", "Lucas Silva",
            "Emma Johansson", "Mark Evans", "Olga Petrova", "Daniel Kim")
EN_NICK = ("Lily", "Kevin", "Coco", "Amy", "Jason", "Vivian", "Eric", "Cindy")

SN_ADJ = ("快乐的", "不吃香菜的", "爱睡觉的", "熬夜的", "想暴富的", "会飞的", "失眠的", "佛系", "暴躁", "emo的")
SN_NOUN = ("小猪", "猫", "橘子", "咸鱼", "仙女", "打工人", "胖虎", "小熊软糖", "土豆", "蘑菇", "柠檬精")

# province, city, nickname(s), pinyin initials, districts, famous neighbourhoods, english city, english districts,
# municipality?
PLACES = (
    ("北京", "北京", ("帝都",), "bj", ("海淀区", "朝阳区", "丰台区", "昌平区", "东城区"),
     ("五道口", "望京", "回龙观", "天通苑", "中关村"), "Beijing", ("Haidian District", "Chaoyang District"), True),
    ("上海", "上海", ("魔都",), "sh", ("浦东新区", "徐汇区", "闵行区", "静安区"),
     ("陆家嘴", "张江", "莘庄", "五角场"), "Shanghai", ("Pudong New Area", "Xuhui District"), True),
    ("重庆", "重庆", ("山城", "雾都"), "cq", ("渝中区", "江北区", "沙坪坝区", "九龙坡区"),
     ("解放碑", "观音桥", "大学城"), "Chongqing", ("Yuzhong District", "Jiangbei District"), True),
    ("天津", "天津", ("津门",), "tj", ("南开区", "河西区", "和平区"), ("五大道", "小白楼"), "Tianjin",
     ("Nankai District", "Hexi District"), True),
    ("广东", "广州", ("羊城", "花城"), "gz", ("天河区", "越秀区", "海珠区", "番禺区", "白云区"),
     ("珠江新城", "岗顶", "客村", "体育西"), "Guangzhou", ("Tianhe District", "Yuexiu District"), False),
    ("广东", "深圳", ("鹏城",), "sz", ("南山区", "福田区", "宝安区", "龙岗区", "龙华区"),
     ("科技园", "华强北", "西丽", "蛇口"), "Shenzhen", ("Nanshan District", "Futian District"), False),
    ("四川", "成都", ("蓉城",), "cd", ("武侯区", "锦江区", "成华区", "郫都区"), ("春熙路", "玉林", "九眼桥"),
     "Chengdu", ("Wuhou District", "Jinjiang District"), False),
    ("湖北", "武汉", ("江城",), "wh", ("武昌区", "洪山区", "江汉区", "汉阳区"), ("光谷", "汉口", "街道口"),
     "Wuhan", ("Wuchang District", "Hongshan District"), False),
    ("浙江", "杭州", ("杭城",), "hz", ("西湖区", "滨江区", "余杭区", "拱墅区"), ("西溪", "未来科技城", "武林"),
     "Hangzhou", ("Xihu District", "Binjiang District"), False),
    ("江苏", "南京", ("金陵",), "nj", ("鼓楼区", "玄武区", "江宁区", "秦淮区"), ("新街口", "仙林", "河西"),
     "Nanjing", ("Gulou District", "Jiangning District"), False),
    ("山东", "济南", ("泉城",), "jn", ("历下区", "槐荫区", "市中区"), ("泉城路", "洪家楼"), "Jinan",
     ("Lixia District",), False),
    ("云南", "昆明", ("春城",), "km", ("五华区", "盘龙区", "官渡区"), ("翠湖", "南屏街"), "Kunming",
     ("Wuhua District",), False),
    ("黑龙江", "哈尔滨", ("冰城",), "heb", ("南岗区", "道里区", "香坊区"), ("中央大街", "学府路"), "Harbin",
     ("Nangang District",), False),
    ("湖南", "长沙", ("星城",), "cs", ("岳麓区", "雨花区", "开福区"), ("五一广场", "梅溪湖", "坡子街"), "Changsha",
     ("Yuelu District",), False),
    ("福建", "福州", ("榕城",), "fz", ("鼓楼区", "仓山区", "晋安区"), ("三坊七巷", "东街口"), "Fuzhou",
     ("Cangshan District",), False),
    ("福建", "厦门", ("鹭岛",), "xm", ("思明区", "湖里区", "集美区"), ("中山路", "软件园"), "Xiamen",
     ("Siming District",), False),
    ("河南", "郑州", ("商都",), "zz", ("金水区", "二七区", "中原区"), ("郑东新区", "二七广场"), "Zhengzhou",
     ("Jinshui District",), False),
    ("山东", "菏泽", (), "hz", ("牡丹区", "曹县", "单县"), ("曹县",), "Heze", ("Cao County",), False),
)
ROADS = ("中山路", "人民路", "解放路", "建设路", "和平路", "文化路", "学院路", "科技路", "滨河路", "长江路", "望京街",
         "五一路", "青年路", "幸福路")
COMPOUNDS = ("阳光小区", "碧桂园", "万科城", "绿地世纪城", "保利花园", "幸福里", "金色家园", "锦绣华庭", "翠湖苑",
             "恒大名都", "望京SOHO", "融创壹号院")
FOREIGN = (("温哥华", "加拿大"), ("多伦多", "加拿大"), ("悉尼", "澳洲"), ("墨尔本", "澳洲"), ("洛杉矶", "美国"),
           ("伦敦", "英国"), ("东京", "日本"), ("首尔", "韩国"))
FOREIGN_EN = (("Vancouver", "Canada"), ("Toronto", "Canada"), ("Sydney", "Australia"), ("Melbourne", "Australia"),
              ("San Jose", "California"), ("Manchester", "the UK"), ("Auckland", "New Zealand"))

# full name, online short forms, typo / variant forms, English name (or ""), city
HOSPITALS = (
    ("北京协和医院", ("协和", "协和医院", "老协和"), ("协合医院", "北京协和医阮"), "PUMCH", "北京"),
    ("北京大学第三医院", ("北医三院", "北三院"), ("北医叁院", "北医3院"), "Peking University Third Hospital", "北京"),
    ("中国人民解放军总医院", ("301", "301医院", "解放军总医院"), ("三零幺医院",), "PLA General Hospital", "北京"),
    ("首都医科大学附属北京天坛医院", ("天坛医院", "天坛"), ("天谈医院",), "Beijing Tiantan Hospital", "北京"),
    ("北京积水潭医院", ("积水潭", "积水潭医院"), ("积水谭医院",), "Jishuitan Hospital", "北京"),
    ("复旦大学附属华山医院", ("华山", "华山医院"), ("华三医院",), "Huashan Hospital", "上海"),
    ("上海交通大学医学院附属瑞金医院", ("瑞金", "瑞金医院"), ("瑞今医院",), "Ruijin Hospital", "上海"),
    ("复旦大学附属中山医院", ("上海中山", "中山医院"), ("中山医阮",), "Zhongshan Hospital", "上海"),
    ("重庆医科大学附属第一医院", ("重医附一院", "重医一院"), ("重医付一院",), "", "重庆"),
    ("天津医科大学总医院", ("天医总", "天医大总医院"), ("天医大总医阮",), "", "天津"),
    ("中山大学附属第一医院", ("中山一院", "中山一"), ("中山壹院",), "First Affiliated Hospital of SYSU", "广州"),
    ("南方医科大学南方医院", ("南方医院", "南医"), ("南方医阮",), "Nanfang Hospital", "广州"),
    ("香港大学深圳医院", ("港大深圳医院", "港深"), ("港大深圳医阮",), "HKU-Shenzhen Hospital", "深圳"),
    ("北京大学深圳医院", ("北大深圳医院", "北大深圳"), ("北大深镇医院",), "Peking University Shenzhen Hospital", "深圳"),
    ("四川大学华西医院", ("华西", "华西医院"), ("华希医院", "化西医院"), "West China Hospital", "成都"),
    ("四川省人民医院", ("川省医", "四川省医"), ("四川省人民医阮",), "Sichuan Provincial People's Hospital", "成都"),
    ("华中科技大学同济医学院附属同济医院", ("同济", "武汉同济"), ("同齐医院",), "Tongji Hospital", "武汉"),
    ("武汉大学中南医院", ("中南医院", "武大中南"), ("中男医院",), "Zhongnan Hospital", "武汉"),
    ("浙江大学医学院附属第一医院", ("浙一", "浙大一院"), ("浙壹",), "", "杭州"),
    ("浙江大学医学院附属邵逸夫医院", ("邵逸夫", "邵逸夫医院"), ("邵意夫医院",), "Sir Run Run Shaw Hospital", "杭州"),
    ("南京鼓楼医院", ("鼓楼医院", "南京鼓楼"), ("鼓搂医院",), "Nanjing Drum Tower Hospital", "南京"),
    ("江苏省人民医院", ("江苏省人医", "苏省人医"), ("江苏省人民医阮",), "", "南京"),
    ("山东大学齐鲁医院", ("齐鲁医院", "齐鲁"), ("齐噜医院",), "Qilu Hospital", "济南"),
    ("昆明医科大学第一附属医院", ("昆医附一院", "昆医大附一"), ("昆医付一院",), "", "昆明"),
    ("哈尔滨医科大学附属第一医院", ("哈医大一院", "哈医大一"), ("哈医大壹院",), "", "哈尔滨"),
    ("中南大学湘雅医院", ("湘雅", "湘雅医院"), ("湘亚医院", "相雅"), "Xiangya Hospital", "长沙"),
    ("中南大学湘雅二医院", ("湘雅二院", "湘雅二"), ("湘亚二院",), "", "长沙"),
    ("福建医科大学附属协和医院", ("福建协和", "福州协和"), ("福建协合",), "", "福州"),
    ("厦门大学附属中山医院", ("厦门中山医院", "厦大中山"), ("厦门中山医阮",), "", "厦门"),
    ("郑州大学第一附属医院", ("郑大一附院", "郑大一"), ("郑大壹附院", "正大一附院"), "", "郑州"),
    ("菏泽市立医院", ("菏泽市立",), ("荷泽市立医院",), "", "菏泽"),
    ("曹县人民医院", ("曹县医院",), ("曹县人民医阮",), "", "菏泽"),
)
LEVEL_HOSP = ("市二院", "市一院", "市中医院", "市妇幼", "区中医院", "市第三人民医院", "省肿瘤医院", "省儿童医院")
PRIVATE_HOSP = ("和睦家", "爱尔眼科", "美年大健康", "卓正医疗")
GENERIC_HOSP = ("当地医院", "三甲医院", "社区医院", "县医院", "市人民医院", "私立医院", "大医院", "小诊所", "药店")
DEPTS = ("内分泌科", "心内科", "皮肤科", "儿科", "消化科", "甲乳外科", "神经内科", "呼吸科", "妇科", "骨科", "风湿免疫科")

BRANDS = ("连花清瘟", "999感冒灵", "云南白药", "片仔癀", "马应龙", "京都念慈菴", "北京降压0号", "东阿阿胶", "江中健胃消食片",
          "汤臣倍健", "白加黑", "同仁堂安宫牛黄丸", "金嗓子喉片", "王老吉")
EPONYMS = ("帕金森", "阿尔茨海默", "桥本甲状腺炎", "川崎病", "克罗恩病", "唐氏综合征", "香港脚", "格林巴利", "雷诺综合征",
           "日本脑炎")
SLANG = ("yyds", "xswl", "awsl", "u1s1", "dbq", "nsdd", "zqsg", "绝绝子", "破防了", "emo了", "蚌埠住了", "芭比Q了",
         "我真的会谢", "救命", "栓Q", "hhhh", "233333", "666", "9494", "886")
ADDRESSEES = ("宝子们", "家人们", "姐妹们", "集美们", "老铁们", "亲", "医生姐姐", "小哥哥", "大夫", "老师")
EMOJI = ("😭", "🙏", "😂", "🥺", "😷", "🤒", "💊", "😅", "🤔", "👍", "🌹", "❤️", "😱", "🆘", "🥲", "😓", "🙈", "✨")
KAOMOJI = ("(╥﹏╥)", "(｡•́︿•̀｡)", "QAQ", "orz", "(ಥ_ಥ)", "＞︿＜", "(°ー°〃)", "( ̄▽ ̄)", "TAT", "o(╥﹏╥)o")
PROVINCES = ("河南", "四川", "湖南", "安徽", "山东", "广东", "东北", "江西", "湖北", "广西", "河北", "甘肃")

TRAD = {}
for _s, _t in ("张張", "伟偉", "刘劉", "陈陳", "杨楊", "黄黃", "赵趙", "吴吳", "孙孫", "马馬", "罗羅", "郑鄭", "谢謝",
               "许許", "韩韓", "冯馮", "邓鄧", "叶葉", "苏蘇", "卢盧", "钟鍾", "谭譚", "陆陸", "贾賈", "龙龍", "顾顧",
               "万萬", "钱錢", "汤湯", "丽麗", "军軍", "杰傑", "涛濤", "华華", "国國", "辉輝", "红紅", "鹏鵬", "轩軒",
               "凯凱", "颖穎", "兰蘭", "宁寧", "晓曉", "阳陽", "泽澤", "诺諾", "铭銘", "凤鳳", "荣榮", "医醫", "门門",
               "诊診", "号號", "县縣", "区區", "广廣", "东東", "湾灣", "们們", "这這", "个個", "说說", "话話", "时時",
               "后後", "来來", "没沒", "为為", "吗嗎", "过過", "还還", "么麼", "会會", "现現", "检檢", "药藥", "开開",
               "疗療", "请請", "问問", "发發", "烧燒", "头頭", "觉覺", "间間", "电電", "码碼", "联聯", "妈媽", "岁歲",
               "几幾", "应應", "该該", "复復", "压壓", "脏臟", "肾腎", "细細", "验驗", "报報", "单單", "邮郵", "长長",
               "让讓", "帮幫", "对對", "样樣", "点點", "儿兒", "边邊", "见見", "给給", "从從", "经經", "谁誰", "实實",
               "准準", "结結", "样樣", "爷爺", "挂掛", "线線", "网網", "约約", "系係", "体體", "温溫", "热熱", "师師",
               "糖糖", "血血", "厦廈", "门門", "庆慶", "汉漢", "阴陰", "协協", "齐齊", "鲁魯", "际際", "总總", "军軍"):
    TRAD[_s] = _t

CN_D = "零一二三四五六七八九"
DAXIE = "零壹贰叁肆伍陆柒捌玖"
CIRCLED = "⓪①②③④⑤⑥⑦⑧⑨"
FULL = "０１２３４５６７８９"
HOMO = (("洞", "零", "〇"), ("幺", "要", "腰"), ("两", "二"), ("三", "叁"), ("四", "肆"), ("五", "午"), ("六", "陆"),
        ("拐", "七"), ("八", "捌"), ("勾", "九"))
KEYCAP = "\u20e3"

# ---------------------------------------------------------------------------------------------- helpers


def _cn_num(n):
    if n < 10:
        return CN_D[n]
    if n < 20:
        return "十" + (CN_D[n % 10] if n % 10 else "")
    return CN_D[n // 10] + "十" + (CN_D[n % 10] if n % 10 else "")


def _digits(rng, s, mode):
    out = []
    for ch in s:
        if not ch.isdigit():
            out.append(ch)
            continue
        d = int(ch)
        if mode == "ascii":
            out.append(ch)
        elif mode == "full":
            out.append(FULL[d])
        elif mode == "cn":
            out.append("幺" if d == 1 and rng.random() < 0.5 else CN_D[d])
        elif mode == "daxie":
            out.append(DAXIE[d])
        elif mode == "circled":
            out.append(CIRCLED[d])
        elif mode == "keycap":
            out.append(ch + "\ufe0f" + KEYCAP)
        elif mode == "homo":
            out.append(rng.choice(HOMO[d]))
        else:
            raise ValueError(mode)
    return "".join(out)


DIGIT_MODES = ("ascii", "ascii", "ascii", "full", "cn", "daxie", "circled", "keycap", "homo")
SEPS = (" ", " ", ".", "-", " - ", "·", "/", "  ", " 然后 ", "🍎", "哈", "x", "ab", " 空格 ", "🌸", "，", "_", "~")


def _obf_number(rng, s, groups, level):
    """Render the digit string s in groups, disguised at level 0 (plain) .. 3 (heavy)."""
    if level == 0:
        return s
    parts, i = [], 0
    for g in groups:
        parts.append(s[i:i + g])
        i += g
    if i < len(s):
        parts.append(s[i:])
    if level == 1:
        sep = rng.choice((" ", "-", ".", " "))
        mode = rng.choice(("ascii", "ascii", "full"))
        return sep.join(_digits(rng, p, mode) for p in parts)
    if level == 2:
        mode = rng.choice(DIGIT_MODES[3:])
        sep = rng.choice(("", " ", " ", ".", "-"))
        return sep.join(_digits(rng, p, mode) for p in parts)
    out = []
    for k, p in enumerate(parts):
        out.append(_digits(rng, p, rng.choice(DIGIT_MODES)))
        if k < len(parts) - 1:
            out.append(rng.choice(SEPS))
    return "".join(out)


def _id_number(rng):
    region = rng.choice(("110108", "110105", "310115", "310104", "440106", "440305", "510107", "420111", "330106",
                         "320106", "370102", "530102", "230103", "430104", "350102", "350203", "410105", "371721"))
    y = rng.randint(1940, 2020)
    m = rng.randint(1, 12)
    d = rng.randint(1, 28)
    body = "%s%04d%02d%02d%03d" % (region, y, m, d, rng.randint(1, 999))
    w = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    check = "10X98765432"[sum(int(body[i]) * w[i] for i in range(17)) % 11]
    return body + check


def _mobile(rng):
    return rng.choice(("13", "15", "18", "17", "19")) + str(rng.randint(0, 9)) + "%08d" % rng.randint(0, 99999999)


class Msg:
    """Parts of one message: (text, tag) where tag is None, a CATEGORY or 'k:kind'."""

    def __init__(self):
        self.parts = []

    def t(self, text):
        self.parts.append((text, None))
        return self

    def s(self, text, cat):
        self.parts.append((text, cat))
        return self

    def k(self, text, kind):
        self.parts.append((text, "k:" + kind))
        return self

    def has_ident(self):
        return any(tag is not None and not tag.startswith("k:") for _, tag in self.parts)


# ---------------------------------------------------------------------------------------------- case


class Case:
    pass


def _person(rng):
    sur = rng.choice(SURNAME_BAG)
    n = 1 if rng.random() < 0.3 else 2
    given = [rng.choice(GIVEN) for _ in range(n)]
    return (sur[0], sur[1], "".join(g[0] for g in given), "".join(g[1] for g in given))


def _new_case(rng):
    c = Case()
    c.rng = rng
    c.patient = _person(rng)
    c.writer_rel = rng.choice((None, None, "我妈", "我爸", "我老公", "我老婆", "我奶奶", "我姥爷", "我女儿", "我儿子",
                               "我家宝宝", "我对象", "我婆婆"))
    c.writer = _person(rng) if c.writer_rel else c.patient
    c.doctor = _person(rng)
    c.doctor2 = _person(rng)
    c.asst = _person(rng)
    c.kid_nick = rng.choice(NICK_FIRST)
    c.place = rng.choice(PLACES)
    same = [h for h in HOSPITALS if h[4] == c.place[1]]
    c.hosp = rng.choice(same) if same and rng.random() < 0.8 else rng.choice(HOSPITALS)
    c.hosp2 = rng.choice(HOSPITALS)
    c.dept = rng.choice(DEPTS)
    c.mobile = _mobile(rng)
    c.mobile2 = _mobile(rng)
    c.landline = rng.choice(("010", "021", "020", "0755", "028", "027", "0571", "025", "0531", "023")) + \
        "-" + str(rng.randint(5, 8)) + "%07d" % rng.randint(0, 9999999)
    base = rng.choice(("lily", "momo", "xiaoyu", "tiantian", "summer", "kiki", "aa", "jojo", "dudu", "leo"))
    c.wx = rng.choice((base + str(rng.randint(10, 9999)), c.patient[1] + c.patient[3] + str(rng.randint(80, 2005)),
                       "wxid_" + "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(10)),
                       base.capitalize() + "_" + str(rng.randint(1, 99))))
    c.qq = str(rng.randint(10000, 3999999999))
    c.email_user = rng.choice((c.patient[1] + c.patient[3], base, c.patient[3] + c.patient[1])) + \
        rng.choice(("", str(rng.randint(1, 99)), "_" + str(rng.randint(1960, 2010))))
    c.email_dom = rng.choice(("163.com", "qq.com", "126.com", "gmail.com", "outlook.com", "sina.com", "foxmail.com"))
    c.idno = _id_number(rng)
    c.mrn = rng.choice(("", "MZ", "ZY", "")) + "%d" % rng.randint(10 ** 7, 10 ** 10)
    c.order = "%d" % rng.randint(10 ** 17, 10 ** 19)
    rel = c.writer_rel
    if rel in ("我家宝宝", "我女儿", "我儿子"):
        c.age = rng.randint(1, 12)
    elif rel in ("我奶奶", "我姥爷", "我婆婆"):
        c.age = rng.randint(62, 92)
    elif rel in ("我妈", "我爸"):
        c.age = rng.randint(42, 78)
    elif rel:
        c.age = rng.randint(22, 58)
    else:
        c.age = rng.randint(16, 70)
    c.year = rng.choice((2023, 2024, 2025))
    c.sn = _screen_name(rng)
    c.style = rng.choice(("genz", "genz", "elder", "evader", "evader", "overseas", "trad", "typo", "forward", "plain"))
    c.fullwidth = rng.random() < 0.06
    return c


def _screen_name(rng):
    r = rng.random()
    if r < 0.45:
        return rng.choice(SN_ADJ) + rng.choice(SN_NOUN)
    if r < 0.7:
        return rng.choice(EN_NICK) + rng.choice(("_", "", ".")) + rng.choice(("Chen", "Wang", "Li", "Zhang", "Liu")) \
            + rng.choice(("", str(rng.randint(1, 99))))
    if r < 0.85:
        sur = rng.choice(SURNAME_BAG)[0]
        return sur + rng.choice(GIVEN)[0] + rng.choice(("爱吃鱼", "不熬夜", "在减肥", "的日常", "plus", "酱"))
    return rng.choice(SN_NOUN) + rng.choice(("233", "_520", "1314", "777", "0908", "妈妈"))


# ---------------------------------------------------------------------------------------------- renderers


def name_form(c, person, m, style=None):
    """Append a (possibly disguised) rendering of a person's full name."""
    rng = c.rng
    sur, sur_py, giv, giv_py = person
    st = style or rng.choice(("plain", "plain", "plain", "star", "pinyin", "initials", "spaced", "slip", "x",
                              "emoji", "pinyin_cap"))
    if st == "plain":
        m.s(sur + giv, "NAME")
    elif st == "star":
        if len(giv) == 2 and rng.random() < 0.6:
            m.s(sur + "*" + giv[1], "NAME")
        else:
            m.s(sur + "*" * len(giv), "NAME")
    elif st == "x":
        m.s(sur + "x" + giv[-1] if len(giv) == 2 else sur + "x", "NAME")
    elif st == "pinyin":
        m.s(sur_py + " " + giv_py, "NAME")
    elif st == "pinyin_cap":
        f = rng.choice((0, 1, 2))
        if f == 0:
            m.s(sur_py.capitalize() + " " + giv_py.capitalize(), "NAME")
        elif f == 1:
            m.s(sur_py.capitalize() + " " + giv_py[0].upper(), "NAME")
        else:
            m.s(giv_py[0].upper() + ". " + sur_py.capitalize(), "NAME")
    elif st == "initials":
        f = rng.choice((0, 1))
        if f == 0:
            m.s((sur_py[0] + giv_py[0]).upper(), "NAME")
        else:
            m.s(sur + giv_py[0].upper(), "NAME")
    elif st == "spaced":
        m.s(" ".join(sur + giv), "NAME")
    elif st == "slip":
        chars = list(sur + giv)
        idx = [i for i in range(len(chars)) if chars[i] in SLIP]
        if idx:
            i = rng.choice(idx)
            chars[i] = SLIP[chars[i]]
        m.s("".join(chars), "NAME")
    elif st == "emoji":
        m.s(sur + giv, "NAME").t(rng.choice(EMOJI))
    return m


def phone_form(c, m, num=None, level=None):
    rng = c.rng
    num = num or c.mobile
    lv = level if level is not None else (rng.choice((2, 3, 3)) if c.style == "evader" else rng.choice((0, 1, 1, 2, 3)))
    r = rng.random()
    if r < 0.05 and lv >= 2:
        m.t(rng.choice(("倒过来写的：", "反着念 ", "倒序：")))
        m.s(num[::-1], "PHONE")
        return m
    if r < 0.1:
        m.s(num[:3] + "****" + num[7:], "PHONE")
        return m
    if r < 0.15:
        m.s("+86 " + _obf_number(rng, num, (3, 4, 4), min(lv, 1)), "PHONE")
        return m
    m.s(_obf_number(rng, num, rng.choice(((3, 4, 4), (3, 4, 4), (3, 3, 5), (4, 4, 3), (2, 3, 3, 3))), lv), "PHONE")
    return m


def wx_cue(rng):
    return rng.choice(("加薇", "V信", "威信", "vx", "VX", "卫星", "绿色软件", "wx", "薇❤", "微❤️", "徽信", "v"))


def qq_cue(rng):
    return rng.choice(("扣扣", "企鹅号", "企鹅", "qq", "QQ", "Q号", "扣扣号"))


def wx_form(c, m):
    rng = c.rng
    if rng.random() < 0.2:
        m.s(_obf_number(rng, c.mobile2, (3, 4, 4), rng.choice((0, 1, 2, 3))), "URL")
        return m
    w = c.wx
    r = rng.random()
    if r < 0.5 or c.style not in ("evader",):
        m.s(w, "URL")
    elif r < 0.7:
        m.s(" ".join(w), "URL")
    elif r < 0.85:
        m.s(w.replace("_", "（下划线）"), "URL")
    else:
        m.s("".join(ch.upper() if ch.islower() and rng.random() < 0.4 else ch for ch in w), "URL")
    return m


def email_form(c, m):
    rng = c.rng
    u, dom = c.email_user, c.email_dom
    host, tld = dom.split(".")
    f = rng.choice(("plain", "at", "hash", "aite", "paren", "dian", "fullat", "dot"))
    if c.style != "evader" and rng.random() < 0.4:
        f = "plain"
    if f == "plain":
        e = u + "@" + dom
    elif f == "at":
        e = u + " at " + host + " dot " + tld
    elif f == "hash":
        e = u + "#" + dom
    elif f == "aite":
        e = u + "艾特" + host + "点" + tld
    elif f == "paren":
        e = u + "(at)" + host + "(点)" + tld
    elif f == "dian":
        e = u + "@" + host + "点" + tld
    elif f == "fullat":
        e = u + "＠" + dom
    else:
        e = u + " [at] " + host + " [dot] " + tld
    m.s(e, "EMAIL")
    return m


def date_form(c, m, bare_ok=False):
    rng = c.rng
    mo, d = rng.randint(1, 12), rng.randint(1, 28)
    y = c.year
    forms = ["%d.%d.%d" % (y, mo, d), "%d月%d号" % (mo, d), "%d.%d号" % (mo, d), "%d年%d月%d" % (y % 100, mo, d),
             "上个月%d号" % d, "今年%d月" % mo, "%d年%d月%d日" % (y, mo, d), "%d-%02d-%02d" % (y, mo, d),
             "%d月%d" % (mo, d), "去年腊月初%s" % CN_D[rng.randint(1, 9)], _cn_num(mo) + "月" + _cn_num(d) + "号",
             "%s月%s号" % (_digits(rng, str(mo), "keycap"), _digits(rng, str(d), "keycap"))]
    if c.style == "overseas":
        months = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
        forms += ["%s %d" % (months[mo - 1], d),
                  "%dth %s" % (d if d > 3 and d < 21 else 15, ("January", "March", "June", "October")[mo % 4])]
    if bare_ok:
        forms = ["%d/%d" % (mo, d), "%d.%d" % (mo, d), "%d月%d号" % (mo, d), "%d.%d号" % (mo, d)]
    m.s(rng.choice(forms), "DATE")
    return m


def hosp_form(c, m, h=None, allow_en=True):
    rng = c.rng
    h = h or c.hosp
    r = rng.random()
    if c.style == "overseas" and h[3] and allow_en and r < 0.6:
        m.s(h[3], "HOSPITAL")
    elif c.style == "typo" and r < 0.6:
        m.s(rng.choice(h[2]), "HOSPITAL")
    elif r < 0.35:
        m.s(h[0], "HOSPITAL")
    elif r < 0.85:
        m.s(rng.choice(h[1]), "HOSPITAL")
    elif r < 0.93:
        m.s(rng.choice(h[2]), "HOSPITAL")
    else:
        m.s(rng.choice(LEVEL_HOSP + PRIVATE_HOSP), "HOSPITAL")
    return m


def where_form(c, m):
    """A place the writer lives in, written the online way."""
    rng = c.rng
    prov, city, nicks, ini, dists, hoods, cen, dens, muni = c.place
    r = rng.random()
    if muni:
        opts = [lambda: (rng.choice(nicks) if nicks and rng.random() < 0.6 else city) + rng.choice(dists + hoods),
                lambda: rng.choice(hoods), lambda: rng.choice(dists), lambda: ini + rng.choice(dists)[:2]]
    else:
        opts = [lambda: rng.choice(nicks) if nicks else city, lambda: city + rng.choice(dists),
                lambda: (rng.choice(nicks) if nicks else city) + rng.choice(hoods), lambda: ini,
                lambda: ini + rng.choice(dists)[:2], lambda: rng.choice(hoods), lambda: prov + city + rng.choice(dists)]
    if r < 0.12 and "五道口" in hoods:
        m.t("宇宙中心").s("五道口", "ADDRESS")
        return m
    if r < 0.12 and "曹县" in hoods:
        m.t("宇宙中心").s("曹县", "ADDRESS")
        return m
    m.s(rng.choice(opts)(), "ADDRESS")
    return m


def full_address(c, m):
    rng = c.rng
    prov, city, nicks, ini, dists, hoods, cen, dens, muni = c.place
    if c.style == "overseas" and rng.random() < 0.6:
        m.s("Room %d%02d, Building %d, %s, %s, %s" % (rng.randint(1, 30), rng.randint(1, 6), rng.randint(1, 12),
                                                         rng.choice(("Wangjing SOHO", "Vanke City", "Sunshine Garden",
                                                                     "Poly Garden")),
                                                         rng.choice(dens), cen), "ADDRESS")
        return m
    head = (city if muni else rng.choice((prov + "省" + city + "市", city + "市", city))) + rng.choice(dists)
    tail = rng.choice(ROADS) + "%d号" % rng.randint(1, 300) + rng.choice(COMPOUNDS) + \
        "%d栋%d单元%d%02d" % (rng.randint(1, 30), rng.randint(1, 6), rng.randint(1, 33), rng.randint(1, 4))
    if rng.random() < 0.3:
        m.s(head + " " + tail, "ADDRESS")
    else:
        m.s(head + tail, "ADDRESS")
    return m


def mrn_form(c, m):
    rng = c.rng
    cue = rng.choice(("门诊号", "住院号", "病历号", "就诊卡号", "医保卡号", "ID号", "报告编号", "病理号"))
    m.t(cue + rng.choice(("", "：", " ", "是")))
    digits = re.sub(r"\D", "", c.mrn)
    prefix = c.mrn[:len(c.mrn) - len(digits)]
    lv = rng.choice((0, 0, 1, 2, 3)) if c.style == "evader" else rng.choice((0, 0, 0, 1))
    m.s(prefix + _obf_number(rng, digits, (4, 4), lv), "MRN")
    return m


def order_form(c, m):
    rng = c.rng
    cue = rng.choice(("订单号", "订单编号", "交易单号", "处方编号", "加号码", "退款单号", "快递单号", "商户单号"))
    m.t(cue + rng.choice(("", "：", " ", "是")))
    o = c.order
    if cue == "快递单号":
        o = rng.choice(("SF", "JD", "YT", "")) + o[:13]
    if cue == "加号码":
        o = o[:6]
    m.s(o if rng.random() < 0.7 else _obf_number(rng, o, (4, 4, 4, 4, 4), 1), "ORDER_ID")
    return m


def id_form(c, m):
    rng = c.rng
    lv = rng.choice((0, 1, 2, 3)) if c.style == "evader" else rng.choice((0, 0, 1))
    s = c.idno
    if rng.random() < 0.2:
        s = s[:-1] + s[-1].lower()
    m.s(_obf_number(rng, s, rng.choice(((6, 8, 4), (4, 4, 4, 4, 2), (6, 4, 4, 4))), lv), "ID")
    return m


# clinical keep renderers -------------------------------------------------------------------------------


def k_bp(c, m):
    rng = c.rng
    hi, lo = rng.randint(118, 185), rng.randint(70, 115)
    f = rng.randint(0, 5)
    if f == 0:
        m.k("血压%d/%d" % (hi, lo), "vital")
    elif f == 1:
        m.k("高压%d" % hi, "vital").t(rng.choice(("，", " ", "  "))).k("低压%d" % lo, "vital")
    elif f == 2:
        m.k("BP %d/%d" % (hi, lo), "vital")
    elif f == 3:
        m.k("血压 %d/%dmmHg" % (hi, lo), "vital")
    elif f == 4:
        m.k("高压%d" % hi, "vital")
    else:
        m.k("血压一百%s" % ("二三四五六七八"[rng.randint(0, 6)] + "十" + rng.choice(("", "五"))), "vital")
    return m


def k_temp(c, m):
    rng = c.rng
    a, b = rng.randint(37, 40), rng.randint(1, 9)
    f = rng.randint(0, 3)
    if f == 0:
        m.t(rng.choice(("烧到", "最高烧到", "一直烧到"))).k("%d度%d" % (a, b), "vital")
    elif f == 1:
        m.k("体温%d.%d" % (a, b), "vital")
    elif f == 2:
        m.k("体温%d.%d℃" % (a, b), "vital")
    else:
        m.t("烧到").k("%s十%s度%s" % (CN_D[a // 10], CN_D[a % 10], CN_D[b]), "vital")
    return m


def k_lab(c, m):
    rng = c.rng
    f = rng.randint(0, 11)
    if f == 0:
        m.k("血糖 %d.%d" % (rng.randint(5, 16), rng.randint(0, 9)), "lab")
    elif f == 1:
        m.k("空腹血糖%d.%dmmol/L" % (rng.randint(5, 12), rng.randint(0, 9)), "lab")
    elif f == 2:
        m.k("糖化%d.%d%%" % (rng.randint(5, 11), rng.randint(0, 9)), "lab")
    elif f == 3:
        m.k("hba1c %d.%d" % (rng.randint(5, 11), rng.randint(0, 9)), "lab")
    elif f == 4:
        m.k("尿酸%d" % rng.randint(380, 640), "lab")
    elif f == 5:
        m.k("TSH %d.%d" % (rng.randint(0, 25), rng.randint(0, 9)), "lab")
    elif f == 6:
        m.k("ALT %d" % rng.randint(20, 180), "lab")
    elif f == 7:
        m.k("白细胞%d.%d" % (rng.randint(3, 20), rng.randint(0, 9)), "lab")
    elif f == 8:
        m.k("CRP %d" % rng.randint(1, 120), "lab")
    elif f == 9:
        m.k("甘油三酯%d.%d" % (rng.randint(1, 8), rng.randint(0, 9)), "lab")
    elif f == 10:
        m.k("低密度%d.%d" % (rng.randint(2, 6), rng.randint(0, 9)), "lab")
    else:
        m.k("结节%d*%dmm" % (rng.randint(3, 20), rng.randint(2, 15)), "lab")
    return m


def k_vital(c, m):
    rng = c.rng
    f = rng.randint(0, 4)
    if f == 0:
        m.k("心率%d" % rng.randint(50, 140), "vital")
    elif f == 1:
        m.k("心率一百%s" % rng.choice(("二", "一", "三", "出头")), "vital")
    elif f == 2:
        m.k("体重%d斤" % rng.randint(60, 220), "vital")
    elif f == 3:
        m.k("血氧%d%%" % rng.randint(88, 99), "vital")
    else:
        m.k("心跳%d" % rng.randint(55, 130), "vital")
    return m


def k_age(c, m, who_age=None):
    rng = c.rng
    a = who_age if who_age is not None else c.age
    f = rng.randint(0, 4)
    if a <= 1 or f == 4 and a < 3:
        m.k("%d个月" % rng.randint(2, 11), "age")
    elif f == 0:
        m.k("%d岁" % a, "age")
    elif f == 1 and a == 2:
        m.k("两岁", "age")
    elif f == 1 and a < 100:
        m.k((CN_D[a // 10] + "十" if a >= 20 else ("十" if a >= 10 else ""))
            + (CN_D[a % 10] if a % 10 else "") + "岁", "age")
    elif f == 2:
        m.k("%d周岁" % a, "age")
    else:
        m.k("%dy" % a if c.style in ("genz", "overseas") else "%d岁" % a, "age")
    return m


def k_dur(c, m):
    m.k(c.rng.choice(("3天", "两天", "一周", "两周", "半个月", "一个多月", "三个月", "半年", "5天", "十来天", "2个月",
                      "一年多", "四五天")), "duration")
    return m


def k_dose(c, m):
    m.k(c.rng.choice(("两粒", "1片", "半片", "5ml", "500mg", "一袋", "2粒", "10ml", "0.5g", "一片", "25mg", "4单位")), "dose")
    return m


def k_time(c, m):
    m.k(c.rng.choice(("昨天", "前天晚上", "凌晨3点", "今早", "上周", "2022年", "5月份", "下午两点", "半夜", "今天早上",
                      "大前天", "晚上11点")), "time")
    return m


# ---------------------------------------------------------------------------------------------- turns
# Each turn builder returns (role, Msg).  Patient side: identifiers and clinical; doctor side likewise.


def _emo(c):
    rng = c.rng
    if c.style == "genz":
        return rng.choice(EMOJI) * rng.randint(1, 3) if rng.random() < 0.6 else rng.choice(KAOMOJI)
    if c.style == "elder":
        return rng.choice(("🌹🌹🌹", "🙏🙏", "👍", "", " "))
    return rng.choice(EMOJI) if rng.random() < 0.35 else ""


def _slang(c):
    return c.rng.choice(SLANG) if c.style in ("genz", "typo", "forward") and c.rng.random() < 0.5 else ""


def _kin_name(c, m):
    """Writer's relative (or themselves) introduced by name."""
    rng = c.rng
    if c.writer_rel:
        m.t(rng.choice(("帮", "替", "代")) + c.writer_rel + rng.choice(("问的，", "问一下 ", "咨询，")))
        m.t(rng.choice(("ta叫", "名字", "患者", "")))
        if c.writer_rel == "我家宝宝" and rng.random() < 0.5:
            m.s(c.kid_nick, "NAME")
        else:
            name_form(c, c.patient, m)
    else:
        m.t(rng.choice(("我是", "本人", "患者本人 ", "我叫", "me: ")))
        name_form(c, c.patient, m)
    m.t(rng.choice(("，", " ", "，今年", "  ")))
    k_age(c, m)
    return m


def t_intro(c):
    rng = c.rng
    m = Msg()
    if rng.random() < 0.3:
        m.t("@")
        if rng.random() < 0.5:
            m.s(c.doctor[0], "NAME").t(rng.choice(("医生", "大夫", "主任")))
        else:
            m.t(rng.choice(DEPTS)).s(c.doctor[0], "NAME").t(rng.choice(("大夫", "医生")))
        m.t(" ")
    m.t(rng.choice(("医生您好", "在吗在吗", "hello医生", "大夫好", "您好～", "doctor在不")) + _emo(c) + " ")
    _kin_name(c, m)
    if rng.random() < 0.5:
        m.t("，坐标")
        where_form(c, m)
    m.t(_emo(c))
    return "patient", m


def t_symptom(c):
    rng = c.rng
    m = Msg()
    if rng.random() < 0.15:
        m.t(rng.choice(("从", "", "自从")))
        date_form(c, m).t(rng.choice(("开始，", "那天起 ", "之后，")))
    f = rng.randint(0, 9)
    if f == 0:
        m.t("最近")
        k_dur(c, m).t("一直头晕，量了下")
        k_bp(c, m).t("，是不是高血压啊" + _emo(c))
    elif f == 1:
        k_time(c, m).t("开始发烧，")
        k_temp(c, m).t("，吃了美林")
        k_dose(c, m).t("，现在还是蔫蔫的" + _emo(c))
    elif f == 2:
        m.t("体检")
        k_lab(c, m).t("，")
        k_lab(c, m).t("，吓死宝宝了" + _emo(c))
    elif f == 3:
        m.t(rng.choice(("我妈", "我", "老人家")) + rng.choice(EPONYMS) + "确诊")
        k_dur(c, m).t("了，现在吃" + rng.choice(BRANDS) + "可以吗")
    elif f == 4:
        k_time(c, m).t("空腹")
        k_lab(c, m).t("，这个算糖尿病吗？？" + _slang(c))
    elif f == 5:
        m.t(_slang(c) + " 我居然对" + rng.choice(BRANDS) + "过敏？起了一身疹子 ")
        k_dur(c, m).t("了还没退" + _emo(c))
    elif f == 6:
        m.t("心慌，")
        k_vital(c, m).t("，")
        k_bp(c, m).t("，")
        k_time(c, m).t("开始的")
    elif f == 7:
        m.t("医生 " + rng.choice(BRANDS) + "和布洛芬能一起吃不 每次")
        k_dose(c, m).t("，一天三次")
    elif f == 8:
        k_vital(c, m).t("，比上个月重了，")
        k_lab(c, m).t(" 要不要吃药" + _emo(c))
    else:
        m.t("咳嗽")
        k_dur(c, m).t("了，晚上咳得睡不着，" + rng.choice(("没发烧", "有点低烧", "嗓子疼")) + _emo(c))
    return "patient", m


def t_symptom_neg(c):
    """Clinical with hard negatives, no identifier."""
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 11)
    if f == 0:
        m.t("人在" + rng.choice(PROVINCES) + "，" + rng.choice(("这边", "我们这儿")) + "的" +
            rng.choice(GENERIC_HOSP) + "说没事，")
        k_lab(c, m).t("真的没事吗")
    elif f == 1:
        m.t("手机尾号%04d那个是我，刚才打电话的" % rng.randint(0, 9999) + _emo(c))
    elif f == 2:
        m.t("疯狂星期四v我50 哈哈哈 开玩笑的，说正事，")
        k_bp(c, m).t("要紧吗")
    elif f == 3:
        m.t("半夜疼得不行 要不要打120" + _emo(c) + " 还是去" + rng.choice(GENERIC_HOSP))
    elif f == 4:
        m.t("在" + rng.choice(("小红书", "抖音", "B站", "知乎", "丁香医生", "好大夫")) + "上看到说" +
            rng.choice(EPONYMS) + "会遗传，" + rng.choice(ADDRESSEES) + "是真的吗")
    elif f == 5:
        m.t(rng.choice(("北上广深", "一线城市", "魔都", "帝都", "山城", "北京", "上海")) + "的医院是不是都要提前抢号" +
            _emo(c) + " " + rng.choice(("#魔都看病#", "#看病难#", "#挂号攻略#", _slang(c))))
    elif f == 6:
        m.t("我爸穿" + rng.choice(("李宁", "安踏", "回力")) + "的鞋走路还是脚疼，")
        k_lab(c, m)
    elif f == 7:
        m.t("打了HPV疫苗还要筛查吗 之前查HPV16阳性" + _emo(c))
    elif f == 8:
        m.t("一直戴N95口罩，" + rng.choice(("高峰期", "夏天", "平安夜")) + "挤地铁喘不上气，")
        k_vital(c, m)
    elif f == 9:
        m.t("吃了" + rng.choice(BRANDS) + "，")
        k_time(c, m).t("开始好点了 " + rng.choice(("666", "1314", "520", "233333", "9494", "886")))
    elif f == 10:
        m.t("打了12320问也说不清楚，" + rng.choice(ADDRESSEES) + "帮帮忙" + _emo(c))
    else:
        m.t("我是" + rng.choice(PROVINCES) + "的，在" + rng.choice(("加拿大", "美国", "澳洲", "日本", "英国")) +
            "读书，回国看病要带什么")
    return "patient", m


def t_where(c):
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 5)
    if f == 0:
        m.t("坐标")
        where_form(c, m).t("，" + rng.choice(ADDRESSEES) + "有没有推荐看" + c.dept + "的" + _emo(c))
    elif f == 1:
        m.t("老家" + rng.choice(PROVINCES) + "的，现在在")
        where_form(c, m).t("打工，离")
        hosp_form(c, m).t("近吗")
    elif f == 2:
        m.t("#")
        m.s(c.hosp[0], "HOSPITAL").t("# #" + c.dept + "# 挂不上号" + _emo(c) + " 有没有黄牛（不是）")
    elif f == 3:
        m.t("人在")
        fc = rng.choice(FOREIGN)
        m.s(fc[0], "ADDRESS").t("（" + fc[1] + "），下个月回")
        where_form(c, m).t("，能约")
        hosp_form(c, m).t("的号吗")
    elif f == 4:
        m.t("住")
        where_form(c, m).t(" 去")
        hosp_form(c, m).t("方便还是去")
        hosp_form(c, m, c.hosp2).t("方便")
    else:
        m.t("药能寄到")
        full_address(c, m).t("吗，收件人")
        name_form(c, c.writer, m, "plain")
        m.t("，")
        phone_form(c, m, c.mobile, rng.choice((0, 1)))
    return "patient", m


def t_hospital(c):
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 5)
    if f == 0:
        m.t("之前在")
        hosp_form(c, m).t(c.dept + "看过，")
        date_form(c, m).t("做的检查，")
        k_lab(c, m)
    elif f == 1:
        m.t("挂了")
        hosp_form(c, m).t(rng.choice(("", " ")))
        m.s(c.doctor2[0], "NAME").t(rng.choice(("主任", "医生", "教授")) + "的号，")
        date_form(c, m).t("去，有没有" + rng.choice(ADDRESSEES) + "去过的" + _emo(c))
    elif f == 2:
        m.t("#")
        m.s(rng.choice(c.hosp[1]), "HOSPITAL").t("# 求问")
        m.s(c.doctor2[0], "NAME").t("医生怎么样，" + _slang(c))
    elif f == 3:
        m.t("上次")
        hosp_form(c, m).t("的")
        m.s(c.doctor2[1][0], "NAME").t(rng.choice(("老师", "主任", "医生")) + "说要复查，")
        k_dur(c, m).t("后")
    elif f == 4:
        hosp_form(c, m).t("开的药吃完了，")
        m.t(rng.choice(BRANDS) + "每次")
        k_dose(c, m)
    else:
        m.t(rng.choice(("病历上写的", "单子上"))).t("“")
        hosp_form(c, m, allow_en=False).t(" " + c.dept + "”，")
        date_form(c, m).t("出院的")
    m.t(_emo(c))
    return "patient", m


def t_contact(c):
    """The writer pushes a contact past the platform's filter."""
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 7)
    if f == 0:
        m.t(rng.choice(("医生能", "方便", "大夫可以")) + rng.choice(("加个", "加下", "")) + wx_cue(rng) +
            rng.choice(("吗 ", "不，", "：", " ")))
        wx_form(c, m).t(" 图片发不出来" + _emo(c))
    elif f == 1:
        m.t("我" + qq_cue(rng) + rng.choice((" ", "：", "是")))
        m.s(_obf_number(rng, c.qq, (3, 3, 4), rng.choice((0, 1, 2, 3))), "URL")
        m.t("，医生方便的话加一下")
    elif f == 2:
        m.t(rng.choice(("手机号发不出去，", "号码被屏蔽了", "发数字会被吞", "")) + rng.choice(("电话", "手机", "tel", "联系方式")) +
            rng.choice(("：", " ", "是")))
        phone_form(c, m)
        m.t(_emo(c))
    elif f == 3:
        m.t("报告太大传不上来，发您邮箱？我的是 ")
        email_form(c, m)
    elif f == 4:
        cue = rng.choice(("抖音号", "小红书号", "微博号", "B站UID"))
        m.t(cue + rng.choice(("：", " ", "搜 ")))
        if cue == "抖音号":
            m.s(c.wx if "wxid" not in c.wx else c.email_user, "URL")
        elif cue == "微博号":
            m.s(c.sn, "URL")
        else:
            m.s(c.qq[:rng.randint(8, 10)], "URL")
        m.t(" 私信我也行" + _emo(c))
    elif f == 5:
        m.t("打我电话吧 ")
        phone_form(c, m, level=3)
        m.t(" 或者" + wx_cue(rng) + "同手机号")
    elif f == 6:
        m.t("照片传网盘了 ")
        alnum = "abcdefghijkmnpqrstuvwxyzABCDEFGH0123456789"
        link = rng.choice(("https://pan.baidu.com/s/1" + "".join(rng.choice(alnum) for _ in range(10)),
                           "b23.tv/" + "".join(rng.choice("abcdefghijkmnpqrstuvwxyz0123456789") for _ in range(7)),
                           "xhslink.com/a/" + "".join(rng.choice("abcdefghijkmnpqrstuvwxyz0123456789")
                                                      for _ in range(8)),
                           "www点" + re.sub(r"[^a-z]", "", c.email_user.lower()) + "点com"))
        m.s(link, "URL")
        m.t(" 提取码" + "".join(rng.choice("abcdefghijkmnpqrstuvwxyz0123456789") for _ in range(4)))
    else:
        m.t("我" + wx_cue(rng) + "：")
        wx_form(c, m).t("，" + qq_cue(rng) + "：")
        m.s(_obf_number(rng, c.qq, (4, 4), rng.choice((1, 2, 3))), "URL")
    return "patient", m


def t_phone_split(c):
    """A number split over two messages; returns two turns."""
    rng = c.rng
    a = Msg()
    b = Msg()
    cut = rng.choice((3, 7))
    num = c.mobile
    a.t(rng.choice(("分开发，前面是", "拆开发：", "号码前半段 ")))
    a.s(_obf_number(rng, num[:cut], (cut,), rng.choice((0, 2, 3))) if cut == 3 else
        _obf_number(rng, num[:cut], (3, 4), rng.choice((1, 2, 3))), "PHONE")
    b.t(rng.choice(("后面", "后半段", "接上 ")))
    b.s(_obf_number(rng, num[cut:], (4, 4) if cut == 3 else (4,), rng.choice((0, 1, 2, 3))), "PHONE")
    b.t(_emo(c))
    return [("patient", a), ("patient", b)]


def t_id_info(c):
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 3)
    if f == 0:
        m.t("身份证")
        id_form(c, m).t("，名字")
        name_form(c, c.patient, m, "plain")
        m.t("，麻烦加个号" + _emo(c))
    elif f == 1:
        m.t(rng.choice(("姓名：", "name: ")))
        name_form(c, c.patient, m, rng.choice(("plain", "plain", "pinyin_cap")))
        m.t("\n" + rng.choice(("身份证号：", "证件号 ")))
        id_form(c, m).t("\n手机：")
        phone_form(c, m, level=rng.choice((0, 1, 2)))
    elif f == 2:
        mrn_form(c, m).t("，")
        order_form(c, m).t("，帮忙查下处方发了没")
    else:
        order_form(c, m).t(" 钱扣了两次" + _emo(c) + " 能退吗")
    return "patient", m


def t_forward(c):
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 3)
    if f == 0:
        m.t("【转】")
        m.s(_screen_name(rng), "NAME").t("：求推荐")
        where_form(c, m).t("看" + c.dept + "的医生 //@")
        m.s(_screen_name(rng), "NAME").t(":同问 //@")
        m.s(_screen_name(rng), "NAME").t(":")
        hosp_form(c, m).t("的")
        m.s(c.doctor2[0], "NAME").t("主任" + rng.choice(("yyds", "人超好", "超耐心")))
    elif f == 1:
        m.t("引用 @")
        m.s(_screen_name(rng), "NAME").t(" 的发言：“")
        hosp_form(c, m).t("加号要提前一周”\n————\n我家也是，" + rng.choice(("后来好了", "蹲一个后续", "同款症状")))
    elif f == 2:
        m.t("楼主")
        m.s(_screen_name(rng), "NAME").t("说")
        k_lab(c, m).t("就要吃药了，" + _slang(c) + " 真的假的")
    else:
        m.t("回复 @")
        m.s(c.sn, "NAME").t("：谢谢" + rng.choice(ADDRESSEES) + "，我")
        date_form(c, m).t("去")
        hosp_form(c, m).t("看了" + _emo(c))
    return "patient", m


def t_english(c):
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 3)
    if f == 0:
        m.t("Hi Dr. ").s(c.doctor[1].capitalize(), "NAME")
        m.t(", my " + rng.choice(("mom", "dad", "grandma", "wife")) + " ")
        name_form(c, c.patient, m, rng.choice(("pinyin_cap", "pinyin", "plain")))
        m.t(" (")
        k_age(c, m).t(") lives in ")
        full_address(c, m) if rng.random() < 0.4 else where_form(c, m)
        m.t(". She saw a doctor at ")
        hosp_form(c, m).t(" on ")
        date_form(c, m).t(", ")
        k_bp(c, m).t(" 怎么办")
    elif f == 1:
        fc = rng.choice(FOREIGN_EN)
        m.t("I'm ")
        m.s(rng.choice(EN_GIVEN), "NAME").t(", teaching English in ")
        if rng.random() < 0.4:
            m.parts[-1] = (", passport ", None)
            m.s(rng.choice(("C", "E", "")) + rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") + "%07d" % rng.randint(0, 9999999),
                "ID")
            m.t(", teaching English in ")
        where_form(c, m).t(" now, before that ")
        m.s(fc[0], "ADDRESS").t(", " + fc[1] + ". 发烧 ")
        k_dur(c, m).t(", is ")
        hosp_form(c, m).t(" ok for foreigners?")
    elif f == 2:
        m.t("my colleague ")
        m.s(rng.choice(("Xiao ", "Lao ")) + c.writer[1].capitalize(), "NAME").t(" said I should 挂" + c.dept +
                                                                              " at ")
        hosp_form(c, m).t(". ")
        k_lab(c, m).t(" is that bad? " + _emo(c))
    else:
        m.t("sorry my Chinese not good, 我的 phone ")
        phone_form(c, m)
        m.t(", email ")
        email_form(c, m)
    return "patient", m


def t_sign(c):
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 4)
    if f == 0:
        m.t("谢谢医生" + _emo(c) + " ——")
        name_form(c, c.writer, m, rng.choice(("star", "initials", "plain", "emoji")))
    elif f == 1:
        m.t("好的好的 谢谢").s(c.doctor[1][0], "NAME").t("老师" + _emo(c))
    elif f == 2:
        m.t(rng.choice(("感恩", "谢谢您", "3Q")) + _emo(c) + " " + _slang(c))
    elif f == 3:
        m.t("谢谢").s(c.doctor[0] + c.doctor[2], "NAME").t(rng.choice(("医生", "主任", "大夫")) + _emo(c))
    else:
        m.t("好的 886")
    return "patient", m


def t_kid(c):
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 3)
    if f == 0:
        m.s(c.kid_nick, "NAME").t(rng.choice(("妈妈", "麻麻", "爸爸")) + "在线求助🆘 娃")
        k_age(c, m).t("，")
        k_temp(c, m).t(_emo(c))
    elif f == 1:
        m.t("我家")
        m.s(c.kid_nick, "NAME").t("在")
        where_form(c, m).t("上幼儿园，")
        k_time(c, m).t("开始拉肚子")
    elif f == 2:
        m.t("幼儿园")
        m.s(c.asst[0], "NAME").t("老师说")
        m.s(c.kid_nick, "NAME").t("在学校吐了两次" + _emo(c))
    else:
        m.t("宝宝大名")
        name_form(c, c.patient, m, rng.choice(("plain", "star", "spaced")))
        m.t("，小名")
        m.s(c.kid_nick, "NAME").t("，")
        k_age(c, m)
    return "patient", m


def t_group(c):
    """A pasted family group chat: display names head the lines."""
    rng = c.rng
    m = Msg()
    m.t(rng.choice(("[聊天记录]", "【家族群】", "转发的群聊：", "相亲相爱一家人 的聊天记录")) + "\n")
    sp = _person(rng)
    m.s(sp[0] + sp[2], "NAME").t("：")
    name_form(c, c.patient, m, "plain")
    m.t(rng.choice(("的片子出来了吗", "去医院了没", "血压量了没")) + "\n")
    m.s(c.writer[0] + c.writer[2] if rng.random() < 0.5 else c.sn, "NAME").t("：还没，")
    m.k(rng.choice(("明天", "下午", "今天下午", "周五", "后天上午")), "time").t("去")
    hosp_form(c, m, allow_en=False).t("拿\n")
    if rng.random() < 0.5:
        m.s("老" + c.patient[0], "NAME").t(rng.choice(("：医生怎么说", "：要不要来省城看看", "：别拖了")) + "\n")
    m.s(_screen_name(rng), "NAME").t("：@")
    m.s(c.writer[2] if len(c.writer[2]) == 2 else c.writer[0] + c.writer[2], "NAME").t(" 拿到发群里" + rng.choice(EMOJI))
    return "patient", m


def t_correct(c):
    rng = c.rng
    m = Msg()
    sur, py, giv, gpy = c.patient
    wrong = "".join(SLIP.get(ch, ch) if i == len(sur + giv) - 1 else ch for i, ch in enumerate(sur + giv))
    if wrong == sur + giv:
        wrong = SLIP.get(sur[0], "张") + giv
    m.t(rng.choice(("刚打错了 是", "更正：名字是", "sorry打错字了，")))
    m.s(sur + giv, "NAME").t("不是")
    m.s(wrong, "NAME").t(rng.choice(("", "，输入法的锅", _emo(c))))
    return "patient", m


def t_voice(c):
    rng = c.rng
    m = Msg()
    m.t(rng.choice(("[语音转文字] ", "（语音转的）", "")) + "医生你好 我" + (c.writer_rel[1:] if c.writer_rel else "") + "叫")
    name_form(c, c.patient, m, rng.choice(("plain", "slip")))
    m.t(" 今年")
    m.k(_cn_num(c.age) + "岁" if c.age != 2 else "两岁", "age")
    m.t(" 住在")
    where_form(c, m).t(" 电话是")
    m.s(_digits(rng, c.mobile, "cn"), "PHONE")
    m.t(" 就是" + rng.choice(("头晕", "胸口闷", "腿肿")) + "好几天了")
    return "patient", m


def t_floor(c):
    rng = c.rng
    m = Msg()
    m.t("%d楼 " % rng.randint(2, 40))
    m.s(_screen_name(rng), "NAME").t("：同款，")
    hosp_form(c, m).t("的")
    m.s(c.doctor2[1][0], "NAME").t(rng.choice(("医生", "主任", "老师")) + "看好的\n%d楼 楼主：蹲一个" % rng.randint(41, 90))
    m.t(rng.choice(("", " " + _slang(c))))
    return "patient", m


def t_neg2(c):
    """More hard negatives: no identifier at all."""
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 7)
    if f == 0:
        m.t("号码发不了，医生私我吧" + _emo(c))
    elif f == 1:
        m.t("dd 在线等挺急的 " + rng.choice(ADDRESSEES) + "救救孩子" + rng.choice(KAOMOJI))
    elif f == 2:
        m.t("户口在" + rng.choice(("北京", "上海", "天津", "重庆") + PROVINCES) + "，异地医保能报吗")
    elif f == 3:
        m.t("看到" + rng.choice(("丁香医生", "好大夫", "微医", "京东健康")) + "说" + rng.choice(BRANDS) + "不能空腹吃，")
        k_dose(c, m).t("也不行吗")
    elif f == 4:
        m.t("爸妈在老家" + rng.choice(PROVINCES) + "，我在" + rng.choice(("魔都", "帝都", "山城", "一线城市")) +
            "上班，周末才能带他们去医院" + _emo(c))
    elif f == 5:
        m.t(rng.choice(("医生姐姐？医生哥哥？反正是个女医生，名字忘了", "阳了之后（COVID-19）一直咳，",
                        "10086发短信说我欠费了 手机号要停机 " + _slang(c) + " 先说正事，",
                        "被骗了打了110，气得胸口疼，", "打12345投诉过了挂号的事，")) + _emo(c))
    elif f == 6:
        m.t("吃老干妈会不会上火 " + _slang(c) + " ")
        k_bp(c, m)
    else:
        m.t("每天" + rng.choice(("10000步", "8000步", "跑5公里")) + "，")
        k_vital(c, m).t("，" + rng.choice(("高峰期", "夏天", "过年")) + "还会复发吗")
    return "patient", m


def d_echo(c):
    """The doctor repeats what the patient sent, or addresses a screen name."""
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 3)
    if f == 0:
        m.t("你发的")
        phone_form(c, m, level=rng.choice((1, 2, 3)))
        m.t("是患者本人的吗？平台不能私下联系哈")
    elif f == 1:
        m.t("@")
        m.s(c.sn, "NAME").t(" 你好，")
        k_lab(c, m).t("要复查")
    elif f == 2:
        m.t("——")
        m.s(c.doctor[0] + c.doctor[2], "NAME").t("医生团队 助理")
        m.s(rng.choice(("小", "")) + c.asst[2][-1] if rng.random() < 0.5 else c.asst[0] + c.asst[2], "NAME")
    else:
        m.t("【医生回复】")
        name_form(c, c.patient, m, "star")
        m.t("的家属您好，")
        k_bp(c, m).t("要规律吃药")
    return "doctor", m


# doctor side -----------------------------------------------------------------------------------------------


def d_clinical(c):
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 8)
    if f == 0:
        k_bp(c, m).t("偏高，建议先监测")
        k_dur(c, m).t("，早晚各量一次")
    elif f == 1:
        m.t("可以吃布洛芬，每次")
        k_dose(c, m).t("，间隔6小时以上，超过")
        k_dur(c, m).t("不退烧要去医院")
    elif f == 2:
        m.t("二甲双胍每次")
        k_dose(c, m).t("，一天两次饭后吃，")
        k_dur(c, m).t("后复查，")
        k_lab(c, m).t("还要再控制")
    elif f == 3:
        m.t("不排除" + rng.choice(EPONYMS) + "，建议查一下，")
        k_lab(c, m).t("这个数值要关注")
    elif f == 4:
        m.t("有胸痛、呼吸困难直接打120，别等。")
    elif f == 5:
        m.t(rng.choice(BRANDS) + "是中成药，可以吃，每次")
        k_dose(c, m).t("，别超过")
        k_dur(c, m)
    elif f == 6:
        m.t("目前")
        k_lab(c, m).t("、")
        k_vital(c, m).t("，问题不大，" + rng.choice(("当地医院", "社区医院", "县医院")) + "复查就行")
    elif f == 7 and c.age <= 12:
        m.t("孩子")
        k_age(c, m).t("的话，美林按体重给，")
        k_temp(c, m).t("以上再用")
    elif f == 7:
        m.t("退烧药对乙酰氨基酚每次")
        k_dose(c, m).t("，")
        k_temp(c, m).t("以上再用")
    else:
        m.t("先别焦虑，这个指标")
        k_lab(c, m).t("轻度异常，")
        k_time(c, m).t("吃的什么")
    return "doctor", m


def d_ident(c):
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 8)
    if f == 0:
        name_form(c, c.patient, m, "plain")
        m.t("你好，")
        k_lab(c, m).t("偏高，建议来门诊")
    elif f == 1:
        m.t("我是")
        m.s(c.doctor[0] + c.doctor[2], "NAME").t("主任的助理")
        m.s(rng.choice(("小", "")) + c.asst[2][-1] if rng.random() < 0.5 else c.asst[0] + c.asst[2], "NAME")
        m.t("，请提供患者姓名和手机号，帮您加号")
    elif f == 2:
        m.t("已加号：")
        date_form(c, m).t(" ")
        m.k(rng.choice(("上午8:30", "下午2点", "上午9点", "14:00")), "time").t("，")
        hosp_form(c, m, allow_en=False).t(c.dept + "，")
        order_form(c, m)
    elif f == 3:
        m.t("可以打我们科室电话")
        m.s(c.landline if rng.random() < 0.6 else c.landline.replace("-", ""), "PHONE")
        m.t("，工作日上午")
    elif f == 4:
        m.t("这个建议去")
        hosp_form(c, m, c.hosp2).t("找")
        m.s(c.doctor2[0] + c.doctor2[2], "NAME").t("医生，她看这个很专业")
    elif f == 5:
        m.t("预约")
        date_form(c, m, bare_ok=True).t("复查，带上之前的片子")
    elif f == 6:
        m.t("【系统消息】")
        name_form(c, c.patient, m, "star")
        m.t("已支付问诊费，")
        order_form(c, m)
    elif f == 7:
        m.t("收到，")
        mrn_form(c, m).t("我查到了，")
        k_lab(c, m)
    else:
        m.t("Hi ")
        name_form(c, c.patient, m, "pinyin_cap")
        m.t(", please come to ")
        hosp_form(c, m).t(" on ")
        date_form(c, m).t(" 门诊见")
    return "doctor", m


def d_platform(c):
    rng = c.rng
    m = Msg()
    f = rng.randint(0, 4)
    if f == 0:
        m.t("【平台提示】为保护您的隐私，请勿发送手机号、微信号、QQ等联系方式，违规将被封禁。")
    elif f == 1:
        m.t("【系统消息】检测到疑似联系方式，已自动隐藏：" + "*" * 11)
    elif f == 2:
        m.t("平台不允许私下加" + rng.choice(("微信", "vx", "联系方式")) + "哦，有问题这里留言，我看到会回")
    elif f == 3:
        m.t("【温馨提示】急症请拨打120或前往就近医院急诊，卫生热线12320。")
    else:
        m.t("【系统消息】***已接诊，问诊将在48小时后结束")
    return "doctor", m


PATIENT_TURNS = ((t_symptom, 22), (t_symptom_neg, 14), (t_where, 10), (t_hospital, 11), (t_contact, 13),
                 (t_id_info, 9), (t_forward, 6), (t_english, 4), (t_sign, 3), (t_kid, 3), (t_group, 2),
                 (t_correct, 1), (t_voice, 3), (t_floor, 3), (t_neg2, 8))


def _afterthought(c, m):
    """An identifier-bearing patient message sometimes gets a postscript with another identifier."""
    rng = c.rng
    f = rng.randint(0, 6)
    m.t(rng.choice((" ", "\n", "  ", "。")) + rng.choice(("ps：", "对了，", "补充：", "还有 ", "btw ", "")))
    if f == 0:
        m.t("上次是")
        date_form(c, m).t("查的")
    elif f == 1:
        m.t("电话")
        phone_form(c, m)
    elif f == 2:
        m.t("邮箱")
        email_form(c, m)
    elif f == 3:
        mrn_form(c, m)
    elif f == 4:
        m.t("身份证")
        id_form(c, m)
    elif f == 5:
        m.t("在")
        hosp_form(c, m, c.hosp2).t("也看过")
    else:
        m.t("家住")
        where_form(c, m)
    return m
DOCTOR_TURNS = ((d_clinical, 48), (d_ident, 30), (d_platform, 12), (d_echo, 8))


def _weighted(rng, table, style, c_age=None):
    bag = []
    for fn, w in table:
        if style == "evader" and fn is t_contact:
            w *= 2
        if style == "forward" and fn is t_forward:
            w *= 3
        if style == "overseas" and fn is t_english:
            w *= 5
        if fn is t_kid and c_age is not None and c_age > 12:
            w = 0
        bag.append(w)
    return rng.choices([fn for fn, _ in table], weights=bag)[0]


# ---------------------------------------------------------------------------------------------- styles

TYPO_SUBS = (("什么", "神马"), ("这样", "酱紫"), ("没有", "木有"), ("觉得", "jio得"), ("好的", "好哒"), ("是不是", "系不系"),
             ("知道", "造"), ("谢谢", "蟹蟹"), ("的", "滴"), ("医生", "医僧"), ("怎么", "咋"), ("喜欢", "稀饭"))


def _style_plain(c, text, role):
    rng = c.rng
    if role == "doctor":
        return text
    st = c.style
    if st == "elder":
        text = text.replace("，", " ").replace("。", " ").replace("？", "?")
    elif st == "genz":
        text = text.replace("。", "～").replace("？？", "？？？")
    elif st == "typo":
        for a, b in TYPO_SUBS:
            if a in text and rng.random() < 0.4:
                text = text.replace(a, b, 1)
    return text


def _render(c, role, m):
    """Join the parts into a message dict."""
    text = []
    spans = []
    keep = []
    pos = 0
    for seg, tag in m.parts:
        if tag is None:
            seg = _style_plain(c, seg, role)
        if c.fullwidth and role == "patient":
            seg = "".join(FULL[int(ch)] if "0" <= ch <= "9" and seg[i + 1:i + 2] != "\ufe0f" else ch
                          for i, ch in enumerate(seg))
        if c.style == "trad" and role == "patient":
            seg = "".join(TRAD.get(ch, ch) for ch in seg)
        if not seg:
            continue
        if tag is not None:
            # move whitespace at the edges out of the span
            lead = len(seg) - len(seg.lstrip())
            core = seg.strip()
            if lead:
                text.append(seg[:lead])
                pos += lead
            start = pos
            text.append(core)
            pos += len(core)
            if tag.startswith("k:"):
                keep.append([start, pos, tag[2:]])
            else:
                spans.append([start, pos, tag])
            trail = seg[lead + len(core):]
            if trail:
                text.append(trail)
                pos += len(trail)
        else:
            text.append(seg)
            pos += len(seg)
    out = "".join(text)
    # trim the message itself
    lead = len(out) - len(out.lstrip())
    out2 = out.strip()
    spans = [[s - lead, e - lead, k] for s, e, k in spans]
    keep = [[s - lead, e - lead, k] for s, e, k in keep]
    return {"text": out2, "role": role, "spans": spans, "keep": keep}


def _check(msg):
    text = msg["text"]
    if msg["role"] not in ("patient", "doctor"):
        raise AssertionError("role")
    allr = []
    for lst, allowed in ((msg["spans"], CATEGORIES), (msg["keep"], KEEP_KINDS)):
        prev = -1
        for s, e, k in lst:
            if k not in allowed:
                raise AssertionError("label %r" % k)
            if not (0 <= s < e <= len(text)):
                raise AssertionError("bounds %r in %r" % ((s, e, k), text))
            if s < prev:
                raise AssertionError("unsorted")
            prev = s
            frag = text[s:e]
            if frag != frag.strip():
                raise AssertionError("whitespace edge %r" % frag)
            allr.append((s, e))
    allr.sort()
    for i in range(1, len(allr)):
        if allr[i][0] < allr[i - 1][1]:
            raise AssertionError("overlap in %r" % text)


# ---------------------------------------------------------------------------------------------- consultations


def _consultation(rng):
    c = _new_case(rng)
    turns = [t_intro(c)]
    n = rng.randint(6, 18)
    side = "patient"
    while len(turns) < n:
        if side == "patient":
            burst = rng.choice((1, 1, 1, 2, 2, 3))
            for _ in range(burst):
                if c.style in ("evader", "genz") and rng.random() < 0.06:
                    turns.extend(t_phone_split(c))
                else:
                    role, m = _weighted(rng, PATIENT_TURNS, c.style, c.age)(c)
                    if m.has_ident() and rng.random() < 0.4:
                        _afterthought(c, m)
                    turns.append((role, m))
            side = "doctor"
        else:
            fn = _weighted(rng, DOCTOR_TURNS, c.style)
            if turns and turns[-1][1].has_ident() and rng.random() < 0.25:
                fn = d_platform
            turns.append(fn(c))
            if rng.random() < 0.25:
                turns.append(d_clinical(c))
            side = "patient"
    if rng.random() < 0.6:
        turns.append(t_sign(c))
    return [_render(c, role, m) for role, m in turns]


def generate(seed, n):
    rng = random.Random(seed)
    out = []
    k = 0
    while len(out) < n:
        for msg in _consultation(rng):
            msg["consultation"] = k
            _check(msg)
            out.append(msg)
        k += 1
    return out[:n]


def _digest(corpus):
    return hashlib.sha256(json.dumps(corpus, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def verify():
    got = _digest(generate(0, 3000))
    if got != CORPUS_SHA256:
        raise AssertionError("consult_l corpus changed: %s != %s" % (got, CORPUS_SHA256))
    return True


def _main(argv):
    corpus = generate(0, 3000)
    cats = [0] * len(CATEGORIES)
    kinds = [0] * len(KEEP_KINDS)
    with_id = 0
    for m in corpus:
        for s, e, k in m["spans"]:
            cats[CATEGORIES.index(k)] += 1
        for s, e, k in m["keep"]:
            kinds[KEEP_KINDS.index(k)] += 1
        if m["spans"]:
            with_id += 1
    print("messages", len(corpus), "consultations", corpus[-1]["consultation"] + 1)
    print("with identifier %.1f%%" % (100.0 * with_id / len(corpus)))
    for k, v in zip(CATEGORIES, cats, strict=True):
        print("  %-9s %d" % (k, v))
    print("  total     %d" % sum(cats))
    for k, v in zip(KEEP_KINDS, kinds, strict=True):
        print("  keep %-9s %d" % (k, v))
    print("sha256", _digest(corpus))
    rng = random.Random(1)
    for m in rng.sample(corpus, 12):
        t = m["text"]
        for s, e, k in sorted(m["spans"], reverse=True):
            t = t[:s] + "【" + t[s:e] + "】" + t[e:]
        print("-", m["role"], m["consultation"], t.replace("\n", "⏎"))
    if "--verify" in argv:
        verify()
        print("verify ok")


if __name__ == "__main__":
    _main(sys.argv[1:])
