"""Development corpus I for Chinese text de-identification: the paperwork patients paste into consultations.

Provenance: a development generator, written from the category definitions alone (the ``text.policy`` block
of ``conf/deid/default.yaml`` with its comments, and the module docstrings of ``benchmarks/corpora/consult_b.py``
to ``consult_g.py``), without reading the detector, its rules, lexicons, statistical layer, tests, benchmark
script or the code of the other corpora, and without ever running a detector on it.  It is open to tuning:
its misses may be read to find failure classes, and once that has happened it no longer measures anything
held-out.

Pure standard library; deterministic given a seed (one ``random.Random(seed)``, lists and tuples only, no
set/dict iteration order or hash randomisation).  The corpus for seed 0 / 3000 messages is frozen by
``CORPUS_SHA256`` (sha256 of ``json.dumps(generate(0, 3000), ensure_ascii=False, sort_keys=True)``);
``verify()`` regenerates it and raises if a single character moved.  ``python benchmarks/corpora/consult_i.py``
prints the counts per category and keep kind, the share of messages with an identifier, the number of
consultations and a few marked samples (``--verify`` checks the hash).

Each message::

    {"text": str, "role": "patient" | "doctor",
     "consultation": int,                        # index of the consultation; its messages are consecutive
     "spans": [[start, end, CATEGORY], ...],     # identifiers that must be masked
     "keep":  [[start, end, kind], ...]}         # clinical numbers that must NOT be masked

Offsets are Python ``str`` (code point) offsets, end exclusive, sorted; spans never overlap each other or a
keep span; no span or keep span starts or ends with whitespace (a span may contain spaces and line breaks,
see below).  ``generate(seed, n)`` returns the first ``n`` messages of an endless stream of whole
consultations, so a shorter corpus is a prefix of a longer one.  For seed 0 / 3000 messages: about 170
consultations, about 60 % of the messages carry an identifier.

Design (unlike B's fixed scenarios, C's slot grammar, D's case-then-turns co-reference, E's per-message case
record, F's platform service flows and G's writers with habits): the unit is a consultation built around
DOCUMENTS, the paperwork of Chinese healthcare as it arrives in a chat -- photographed and run through the
platform's text recognition, pasted from an e-document, or typed by hand.  A case is drawn (patient of one of
six kinds: adult, elder with a child writing, child with a parent writing, woman of child-bearing age; the
relative; five staff names; a home place; a local hospital, a famous or city hospital and a grassroots one;
the visit date and the record numbers, kept so they recur), then one to four documents, each with its real
field layout: 门诊病历, 诊断证明书 / 病假证明, 双向转诊单, 医保结算单 (with its fee table), 电子票据 (票据代码,
校验码 and amounts beside the 票据号码), 处方笺 (Rp lines with 用法 and the pharmacists), 检验报告单 (a result
table flattened into lines, flags, reference ranges, 采集/报告时间, 检验者/审核者), CT / 超声 reports, 病理报告,
出院小结 (with the 复查 date in the orders), 入院记录 / 病案首页 (籍贯, 出生地, 联系人), 预防接种证 (a vaccine
table with lot numbers and the nurse), 出生医学证明 (the mother's and father's names and the mother's ID),
入职 / 学生体检表, 预约挂号凭条 (就诊序号, 取号密码), 知情同意书 (two signatures), 孕产妇保健手册 (末次月经,
预产期, 孕周) and a photographed drug box (国药准字, 批号, 生产日期: no identifier at all).  Layouts per
document: one field a line; two to four fields run together in a row (two columns read as one line); labels
and values glued without colons ("姓名王建国性别男"); a row of labels followed by a row of values (the value
far from its label); a label with its value on the next line; spaced labels ("姓    名"); colon styles.
OCR noise per document at four levels: look-alike characters in the text (日/曰, 期/朗, 诊/珍, 住/往, 院/阮 ...),
rarely inside names, hospitals and addresses ("林淑珍" read "材淑珍"), unreadable characters as "□", digits
read as letters inside numbers and dates (0/O, 1/l, 5/S, 8/B, 2/Z, 6/b, 9/g), stray spaces inside words and
numbers, lines broken inside a word or inside an identifier, a stamp's text (hospital + 门诊专用章 ...) as a line
of its own, run into the end of a field row, or split with the hospital's name lines above its label.  Long
documents are sometimes pasted in two messages (the second half starts without a header).  The chat around
them: the patient's intro ("看看这个单子", "[图片文字识别]", "这是上次在某院开的诊断证明"), the doctor reading it
(clinical values, the hospital, the date, the names), the doctor asking about a field ("单子上住院号那一栏写的是
… 吗？"), the patient's bare confirmation or retyped value, the patient correcting a misread field, a name
misspelt on a certificate, questions about reimbursement and sick leave, the doctor issuing an e-document
(诊断证明, 处方, 转诊单) in the chat, contacts offered and declined, sign-offs.

Pools are this module's own: surnames weighted by rough census shares with rare (禚, 隗, 仉, 逄, 訾 ...) and
compound ones (欧阳, 皇甫, 万俟 ...); given names by decade of birth (1930s to 2010s), Cantonese and Minnan
flavours, Uyghur, Tibetan, Mongolian and Yi names in their regions; all 31 provincial units with prefectures
and districts / counties / banners; towns, villages (王家湾村, 石门村) with 组/队/社, roads, compounds and
栋/单元/室 composed from roots; famous hospitals with full official names and short forms (campuses added);
generated city, county, town, village, community, private and chain institutions.  Hard negatives: brand
drugs and drug makers named after places (立普妥, 京都念慈菴, 齐鲁制药, 上海信谊药厂), eponym and place-named
diseases (桥本甲状腺炎, 川崎病, 日本脑炎, 香港脚), place-named foods (兰州拉面, 金华火腿), words beginning with
a surname character (白细胞, 马上, 常规, 华法林), everyday words that are names (高峰, 夏天, 平安), platforms and
provincial apps (好大夫在线, 浙里办, 粤省事), generic hospital phrases (当地医院, 县医院, 市人民医院), a province
alone (籍贯：河南省, 我是四川的), service numbers (120, 12320, 12393), and the numbers of a document that are
not the person's: ICD codes (I10.x00), bed and queue numbers, amounts, 票据代码 and 校验码, 医疗机构编码,
vaccine and drug lot numbers, approval numbers, production and expiry dates on a drug box.

Annotation conventions (those of corpora B-G, which define the categories; choices this corpus had to make are
marked "choice"):

* NAME: the name only, never the title, kinship word or field label: patients, relatives, guardians, the
  mother and father on a birth certificate, every staff name in a document (医师, 审核药师, 调配, 检验者, 审核者,
  报告医师, 经办人, 收款人, 复核人, 接种者, 谈话医师, 检查者), a surname with a title (【王】主任), the pet name of
  a child.  Choice: a name as the OCR read it (a look-alike character, a "□", a space or line break inside)
  is still NAME, one span; a misspelt name a patient quotes ("写成【林淑兰】了") is NAME.
* PHONE: mobiles in any grouping, +86, landlines with area code and 转/- extension inside, a department's or a
  hospital's switchboard in a document footer.  120 / 110 / 114 / 12320 / 12345 / 12393 / 10086 / 95518 plain.
* ID: resident ID numbers with a valid GB 11643 check digit (also the payer's "统一社会信用代码" on an
  e-receipt, which is the ID number), the mother's ID on a birth certificate.  Choices: the 出生医学证明编号
  identifies one person and is ID; staff numbers (工号) are ID (corpus G's choice).
* EMAIL; URL: links (a hospital's report site in a footer, a shared article or questionnaire), WeChat IDs.
* ADDRESS: every unit below the province, alone or chained (参保地 "海东", 住址, 家庭现住址, 户籍地址, 出生地点,
  a hospital's own address in a footer), a province in front inside the span.  A province alone (籍贯 河南省,
  参保地 of a municipality written as the municipality alone) is plain.  Choice: an address the OCR spaced or
  broke over two lines ("吉林省 长春市 朝阳区…", "辽宁省\\n沈阳市和\\n平区") is one span; a school named after
  its place (学校：光山县实验中学) has only the place as ADDRESS (corpus G's choice).
* HOSPITAL: named institutions in full or short, with the campus inside, health centres, village clinics,
  community centres, private clinics, chains (爱尔眼科, 美年大健康 …分院), place-named hospitals whole (郸城县人民
  医院).  Choices: the hospital name inside a stamp's text is HOSPITAL and the stamp's label (门诊专用章,
  财务专用章 …) plain, also when the stamp interrupts a row; a county's 疾病预防控制中心 as a vaccination unit is
  HOSPITAL.  Generic phrases plain; the department after a hospital plain.
* DATE: every date finer than a year tied to the person or their care, in every document form (2024-03-05,
  2024年03月05日, 2024/3/5, 2024.03.05, 20240305, 二〇二四年三月五日 on certificates, 3月5号 in chat, bare 3/5 or
  3.5 only after 预约, year + month), visit, birth, admission, discharge, specimen, report, vaccination, last
  period, due date and appointment dates, sick leave from-to as two spans.  A clock time after a date is a
  separate keep "time".  Choice: a date misread by the OCR ("2O24-O3-O5", "20 25.o6.o7") is still one DATE span.
  Choice: the production date, lot number and expiry month printed on a drug box date the box, not the person,
  and are plain.
* MRN: 门诊号, 住院号, 病案号, 病历号, ID号, 就诊卡号, 医保卡号 / 个人编号, 标本号, 条码号, 检查号 / 影像号 /
  登记号, 病理号, 建档号 / 儿童编码, 证明编号.  Choice: a 体检编号 (check-up number) is MRN.  ORDER_ID:
  处方编号, 转诊单号, 交易 / 业务流水号, 结算编号, 票据号码, 预约码 / 取号密码.  Choice: the 票据代码 (a batch code
  shared by a region's receipts), the 校验码, the 医疗机构编码 and the 就诊序号 (a queue number) are plain.
  The cue is outside every span; a number the OCR misread (digits as letters, spaces or a line break inside)
  is one span of its category.
* Keep: "age" (58岁, 75周岁, 八十一岁, 3岁半, 8个月, a bare number after 年龄, the mother's age), "duration"
  (病程, 建议休息7天, 住院天数 with 天, 孕周 38+4周), "dose" (one dose in 用法: 1片, 12单位, 15ml), "lab" (test
  + value as written, with its unit when given, a result cell of a flattened table, a reference range alone,
  lesion and specimen sizes, a Ki-67 share), "vital" (sign + value, birth weight and length, 胎心, 宫高, the
  eyesight values of a check-up), "time" (clock times and time slots after a date, relative days, 3个月后 in
  advice).
"""
from __future__ import annotations

import hashlib
import json
import random
import re
import sys

CATEGORIES = ("NAME", "PHONE", "ID", "EMAIL", "URL", "ADDRESS", "HOSPITAL", "DATE", "MRN", "ORDER_ID")
KEEP_KINDS = ("age", "duration", "dose", "lab", "vital", "time")

# ----------------------------------------------------------------------------------------------------------
# pools
# ----------------------------------------------------------------------------------------------------------

# (surname, rough weight per mille of the population)
SURNAMES = [
    ("王", 72), ("李", 72), ("张", 68), ("刘", 54), ("陈", 46), ("杨", 32), ("黄", 24), ("赵", 20), ("吴", 20),
    ("周", 19), ("徐", 16), ("孙", 15), ("马", 15), ("朱", 14), ("胡", 13), ("郭", 12), ("何", 12), ("林", 11),
    ("高", 11), ("罗", 11), ("郑", 10), ("梁", 10), ("谢", 8), ("宋", 8), ("唐", 8), ("许", 7), ("韩", 7),
    ("冯", 7), ("邓", 7), ("曹", 7), ("彭", 6), ("曾", 6), ("肖", 6), ("田", 6), ("董", 6), ("袁", 5), ("潘", 5),
    ("于", 5), ("蒋", 5), ("蔡", 5), ("余", 5), ("杜", 5), ("叶", 5), ("程", 5), ("苏", 4), ("魏", 4), ("吕", 4),
    ("丁", 4), ("任", 4), ("沈", 4), ("姚", 4), ("卢", 4), ("姜", 4), ("崔", 3), ("钟", 3), ("谭", 3), ("陆", 3),
    ("汪", 3), ("范", 3), ("金", 3), ("石", 3), ("廖", 3), ("贾", 3), ("夏", 3), ("韦", 3), ("付", 3), ("方", 3),
    ("白", 3), ("邹", 3), ("孟", 3), ("熊", 3), ("秦", 3), ("邱", 3), ("江", 3), ("尹", 3), ("薛", 2), ("闫", 2),
    ("段", 2), ("雷", 2), ("侯", 2), ("龙", 2), ("史", 2), ("陶", 2), ("黎", 2), ("贺", 2), ("顾", 2), ("毛", 2),
    ("郝", 2), ("龚", 2), ("邵", 2), ("万", 2), ("钱", 2), ("严", 2), ("覃", 2), ("武", 2), ("戴", 2), ("莫", 2),
    ("孔", 2), ("向", 2), ("汤", 2), ("常", 2), ("温", 1), ("康", 1), ("施", 1), ("文", 1), ("牛", 1), ("樊", 1),
    ("葛", 1), ("邢", 1), ("安", 1), ("齐", 1), ("易", 1), ("乔", 1), ("伍", 1), ("庞", 1), ("颜", 1), ("倪", 1),
    ("庄", 1), ("聂", 1), ("章", 1), ("鲁", 1), ("岳", 1), ("翟", 1), ("殷", 1), ("詹", 1), ("申", 1), ("欧", 1),
    ("耿", 1), ("关", 1), ("兰", 1), ("焦", 1), ("俞", 1), ("左", 1), ("柳", 1), ("甘", 1), ("祝", 1), ("包", 1),
    ("宁", 1), ("尚", 1), ("符", 1), ("舒", 1), ("阮", 1), ("柯", 1), ("纪", 1), ("梅", 1), ("童", 1), ("凌", 1),
    ("毕", 1), ("单", 1), ("季", 1), ("裴", 1), ("霍", 1), ("涂", 1), ("成", 1), ("苗", 1), ("谷", 1), ("盛", 1),
    ("曲", 1), ("翁", 1), ("冉", 1), ("骆", 1), ("蓝", 1), ("路", 1), ("游", 1), ("辛", 1), ("靳", 1), ("管", 1),
]
RARE_SURNAMES = ["禚", "隗", "仉", "逄", "訾", "佘", "亓", "郗", "晁", "缪", "揭", "栾", "眭", "蔺", "昝", "檀", "麴",
                 "剧", "冼", "区", "种", "是", "朴", "那", "东", "浦", "战", "党", "桂", "后", "练", "占", "巫", "山"]
COMPOUND_SURNAMES = ["欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "尉迟", "公孙", "慕容", "令狐", "长孙", "万俟",
                     "澹台", "夏侯", "宇文", "司徒", "端木", "呼延", "南宫", "闻人"]

GIVEN = {  # by the decade of birth: (male, female)
    1930: ("福贵 德胜 广田 永贵 长林 守仁 玉山 金堂 有财 振邦 树德 殿臣",
           "秀英 桂英 玉兰 凤英 淑珍 桂兰 素芬 翠花 秀兰 金凤 玉珍 巧云"),
    1950: ("建国 国庆 德明 志华 卫国 援朝 建华 国强 新民 振华 跃进 爱民 解放 和平",
           "秀珍 淑华 桂芳 玉梅 凤兰 美英 爱华 秀云 春兰 建英 素琴 月娥"),
    1960: ("卫东 建军 红兵 志刚 文革 向阳 建平 海涛 立新 永红 卫红 国平 长青",
           "红梅 丽华 春梅 海燕 红霞 秀梅 卫红 建萍 玉霞 小红 彩霞 丽萍 桂香"),
    1970: ("志强 勇 伟 军 斌 建勇 海波 永刚 明 刚 晓峰 国栋 宏伟 卫平",
           "丽 静 艳 敏 燕 丽娟 晓燕 红英 美玲 秀娟 春燕 玉洁 莉"),
    1980: ("磊 鹏 晓东 涛 浩 俊杰 亮 超 强 剑 健 晓明 志勇 海龙 凯",
           "婷婷 丽娜 雪 晶 娟 倩 佳 琳 慧 晓丽 莉莉 颖 芳芳 蕾"),
    1990: ("宇航 子豪 浩然 博文 俊熙 鑫 帅 晨 杰 嘉豪 家乐 振宇 博 宇",
           "思雨 梦瑶 欣怡 佳怡 雨婷 诗涵 梦琪 静怡 晓雯 心怡 一帆 若彤 甜甜"),
    2010: ("梓轩 一诺 沐宸 浩宇 子墨 宇泽 奕辰 俊熙 梓睿 煜祺 铭泽 锦程 承泽 皓轩",
           "梓涵 若汐 语桐 芊芊 一诺 可馨 雨桐 欣妍 梓萱 诗琪 安然 沐晴 悦溪 语嫣"),
}
GIVEN = {k: (m.split(), f.split()) for k, (m, f) in GIVEN.items()}
CANTONESE_GIVEN = ["伟文", "嘉欣", "咏诗", "志荣", "家辉", "婉婷", "锦华", "少芬", "国雄", "丽萍", "俊豪", "颖欣"]
MINNAN_GIVEN = ["阿水", "金木", "美珠", "淑惠", "文雄", "秀治", "俊宏", "雅婷", "志明", "春娇"]
MINORITY = {
    "新疆维吾尔自治区": ["阿依古丽·买买提", "艾合买提·吐尔逊", "古丽娜尔·艾力", "麦麦提·阿卜杜拉", "热依拉·吾甫尔",
                   "努尔艾力·库尔班", "帕提古丽·赛买提", "阿不都热合曼·依明"],
    "西藏自治区": ["扎西顿珠", "次仁卓玛", "格桑梅朵", "平措旺堆", "央金拉姆", "尼玛次仁", "达瓦卓嘎", "洛桑丹增"],
    "内蒙古自治区": ["巴特尔", "乌云其其格", "苏日娜", "额尔敦", "娜仁花", "哈斯巴根", "萨仁高娃", "朝鲁门"],
    "四川省": ["吉克阿依", "阿西木呷", "沙马拉毅", "海来阿木", "俄底伍沙", "吉木约作"],
}
NICK_CHILD = ["豆豆", "乐乐", "朵朵", "果果", "航航", "糖糖", "贝贝", "宝宝", "悠悠", "小鱼", "团团", "甜甜", "阳阳",
              "皮皮", "妞妞", "轩轩", "可可", "多多", "嘟嘟", "壮壮"]

# (province, area code of the capital, id prefix, [(prefecture, [districts / counties]), ...])
PROVINCES = [
    ("北京市", "010", "11", [("北京市", "朝阳区 海淀区 丰台区 昌平区 通州区 大兴区 顺义区")]),
    ("天津市", "022", "12", [("天津市", "和平区 南开区 河西区 滨海新区 武清区 宝坻区 蓟州区")]),
    ("上海市", "021", "31", [("上海市", "浦东新区 徐汇区 闵行区 宝山区 松江区 嘉定区 崇明区")]),
    ("重庆市", "023", "50", [("重庆市", "渝中区 江北区 沙坪坝区 万州区 涪陵区 巫山县 奉节县 酉阳土家族苗族自治县")]),
    ("河北省", "0311", "13", [("石家庄市", "长安区 桥西区 正定县 赵县 辛集市"), ("保定市", "竞秀区 涿州市 高阳县 易县"),
                            ("邯郸市", "丛台区 武安市 涉县 魏县"), ("沧州市", "运河区 任丘市 献县 盐山县")]),
    ("山西省", "0351", "14", [("太原市", "小店区 迎泽区 清徐县"), ("大同市", "平城区 天镇县 广灵县"),
                            ("运城市", "盐湖区 永济市 临猗县"), ("长治市", "潞州区 襄垣县 沁县")]),
    ("内蒙古自治区", "0471", "15", [("呼和浩特市", "赛罕区 新城区 托克托县"), ("包头市", "昆都仑区 土默特右旗"),
                                ("赤峰市", "红山区 宁城县 克什克腾旗"), ("通辽市", "科尔沁区 开鲁县 奈曼旗")]),
    ("辽宁省", "024", "21", [("沈阳市", "和平区 皇姑区 新民市 康平县"), ("大连市", "甘井子区 瓦房店市 庄河市"),
                           ("鞍山市", "铁东区 海城市 台安县"), ("锦州市", "凌河区 黑山县 义县")]),
    ("吉林省", "0431", "22", [("长春市", "朝阳区 南关区 农安县 榆树市"), ("吉林市", "船营区 蛟河市 磐石市"),
                            ("延边朝鲜族自治州", "延吉市 珲春市 龙井市"), ("四平市", "铁西区 梨树县 双辽市")]),
    ("黑龙江省", "0451", "23", [("哈尔滨市", "南岗区 道里区 呼兰区 五常市 巴彦县"), ("齐齐哈尔市", "龙沙区 讷河市 拜泉县"),
                              ("牡丹江市", "爱民区 海林市 宁安市"), ("绥化市", "北林区 海伦市 望奎县")]),
    ("江苏省", "025", "32", [("南京市", "鼓楼区 玄武区 江宁区 浦口区 溧水区"), ("苏州市", "姑苏区 吴中区 昆山市 常熟市 张家港市"),
                           ("徐州市", "云龙区 铜山区 沛县 邳州市 睢宁县"), ("盐城市", "亭湖区 东台市 阜宁县 响水县"),
                           ("南通市", "崇川区 如皋市 海安市 启东市")]),
    ("浙江省", "0571", "33", [("杭州市", "西湖区 上城区 拱墅区 余杭区 萧山区 临安区 桐庐县 淳安县"),
                            ("宁波市", "海曙区 鄞州区 余姚市 慈溪市 象山县 宁海县"), ("温州市", "鹿城区 瑞安市 乐清市 苍南县 永嘉县"),
                            ("金华市", "婺城区 义乌市 东阳市 永康市 浦江县"), ("台州市", "椒江区 温岭市 临海市 天台县 仙居县")]),
    ("安徽省", "0551", "34", [("合肥市", "蜀山区 包河区 肥西县 长丰县 庐江县"), ("阜阳市", "颍州区 临泉县 太和县 阜南县 界首市"),
                            ("六安市", "金安区 霍邱县 舒城县 金寨县"), ("安庆市", "迎江区 桐城市 怀宁县 潜山市")]),
    ("福建省", "0591", "35", [("福州市", "鼓楼区 仓山区 闽侯县 福清市 长乐区"), ("厦门市", "思明区 湖里区 集美区 同安区"),
                            ("泉州市", "丰泽区 晋江市 石狮市 南安市 惠安县 安溪县"), ("漳州市", "芗城区 龙海区 漳浦县 平和县")]),
    ("江西省", "0791", "36", [("南昌市", "东湖区 青山湖区 南昌县 进贤县"), ("赣州市", "章贡区 瑞金市 于都县 兴国县 宁都县"),
                            ("上饶市", "信州区 鄱阳县 余干县 婺源县"), ("九江市", "浔阳区 瑞昌市 都昌县 修水县")]),
    ("山东省", "0531", "37", [("济南市", "历下区 市中区 章丘区 平阴县 商河县"), ("青岛市", "市南区 黄岛区 即墨区 胶州市 平度市"),
                            ("临沂市", "兰山区 沂南县 郯城县 费县 临沭县"), ("菏泽市", "牡丹区 曹县 单县 郓城县 鄄城县"),
                            ("潍坊市", "奎文区 寿光市 青州市 诸城市")]),
    ("河南省", "0371", "41", [("郑州市", "金水区 二七区 中原区 新郑市 登封市 中牟县"),
                            ("周口市", "川汇区 郸城县 鹿邑县 太康县 项城市 沈丘县"), ("洛阳市", "西工区 伊川县 栾川县 偃师区 汝阳县"),
                            ("南阳市", "卧龙区 邓州市 唐河县 镇平县 方城县"), ("信阳市", "浉河区 光山县 固始县 潢川县 商城县"),
                            ("驻马店市", "驿城区 上蔡县 汝南县 平舆县 确山县")]),
    ("湖北省", "027", "42", [("武汉市", "江汉区 武昌区 洪山区 江夏区 黄陂区 新洲区"), ("襄阳市", "樊城区 枣阳市 宜城市 南漳县"),
                           ("荆州市", "沙市区 监利市 洪湖市 公安县"), ("黄冈市", "黄州区 麻城市 蕲春县 浠水县 红安县"),
                           ("恩施土家族苗族自治州", "恩施市 利川市 巴东县")]),
    ("湖南省", "0731", "43", [("长沙市", "岳麓区 芙蓉区 雨花区 浏阳市 宁乡市 长沙县"), ("衡阳市", "蒸湘区 耒阳市 衡南县 祁东县"),
                            ("邵阳市", "大祥区 邵东市 隆回县 洞口县"), ("常德市", "武陵区 澧县 桃源县 汉寿县"),
                            ("怀化市", "鹤城区 沅陵县 溆浦县 芷江侗族自治县")]),
    ("广东省", "020", "44", [("广州市", "天河区 越秀区 海珠区 白云区 番禺区 花都区 增城区"), ("深圳市", "南山区 福田区 宝安区 龙岗区 龙华区"),
                           ("佛山市", "禅城区 南海区 顺德区"), ("东莞市", "长安镇 虎门镇 塘厦镇 樟木头镇"),
                           ("湛江市", "霞山区 雷州市 廉江市 徐闻县"), ("梅州市", "梅江区 兴宁市 五华县 大埔县"),
                           ("汕头市", "金平区 潮阳区 澄海区")]),
    ("广西壮族自治区", "0771", "45", [("南宁市", "青秀区 兴宁区 武鸣区 横州市 宾阳县"), ("桂林市", "秀峰区 临桂区 阳朔县 全州县"),
                                  ("玉林市", "玉州区 北流市 博白县 陆川县"), ("柳州市", "城中区 柳江区 融安县 三江侗族自治县")]),
    ("海南省", "0898", "46", [("海口市", "美兰区 龙华区 秀英区"), ("三亚市", "吉阳区 天涯区 崖州区")]),
    ("四川省", "028", "51", [("成都市", "武侯区 锦江区 青羊区 郫都区 双流区 都江堰市 金堂县"), ("绵阳市", "涪城区 江油市 三台县 梓潼县"),
                           ("南充市", "顺庆区 阆中市 营山县 仪陇县"), ("凉山彝族自治州", "西昌市 昭觉县 布拖县 会理市"),
                           ("宜宾市", "翠屏区 南溪区 江安县 珙县"), ("达州市", "通川区 渠县 宣汉县 大竹县")]),
    ("贵州省", "0851", "52", [("贵阳市", "云岩区 南明区 花溪区 修文县"), ("遵义市", "红花岗区 仁怀市 桐梓县 湄潭县"),
                            ("毕节市", "七星关区 威宁彝族回族苗族自治县 大方县 织金县"), ("黔东南苗族侗族自治州", "凯里市 雷山县 黎平县")]),
    ("云南省", "0871", "53", [("昆明市", "五华区 盘龙区 官渡区 呈贡区 宜良县"), ("曲靖市", "麒麟区 宣威市 会泽县 陆良县"),
                            ("大理白族自治州", "大理市 宾川县 祥云县 鹤庆县"), ("红河哈尼族彝族自治州", "蒙自市 个旧市 建水县 弥勒市")]),
    ("西藏自治区", "0891", "54", [("拉萨市", "城关区 堆龙德庆区 墨竹工卡县"), ("日喀则市", "桑珠孜区 江孜县 定日县")]),
    ("陕西省", "029", "61", [("西安市", "雁塔区 碑林区 未央区 长安区 临潼区 周至县 蓝田县"), ("宝鸡市", "渭滨区 岐山县 凤翔区 眉县"),
                           ("汉中市", "汉台区 城固县 勉县 洋县"), ("榆林市", "榆阳区 神木市 靖边县 绥德县")]),
    ("甘肃省", "0931", "62", [("兰州市", "城关区 七里河区 榆中县 永登县"), ("天水市", "秦州区 麦积区 甘谷县 秦安县"),
                            ("定西市", "安定区 通渭县 陇西县 岷县"), ("武威市", "凉州区 民勤县 古浪县")]),
    ("青海省", "0971", "63", [("西宁市", "城东区 城西区 湟中区 大通回族土族自治县"), ("海东市", "乐都区 平安区 互助土族自治县")]),
    ("宁夏回族自治区", "0951", "64", [("银川市", "兴庆区 金凤区 永宁县 贺兰县"), ("固原市", "原州区 西吉县 隆德县"),
                                  ("吴忠市", "利通区 青铜峡市 同心县")]),
    ("新疆维吾尔自治区", "0991", "65", [("乌鲁木齐市", "天山区 沙依巴克区 新市区 米东区"), ("喀什地区", "喀什市 疏附县 莎车县 叶城县"),
                                   ("伊犁哈萨克自治州", "伊宁市 霍城县 察布查尔锡伯自治县"), ("昌吉回族自治州", "昌吉市 阜康市 玛纳斯县")]),
]
MUNICIPALITIES = ("北京市", "天津市", "上海市", "重庆市")
PREF_SHORT = {"延边朝鲜族自治州": "延边", "恩施土家族苗族自治州": "恩施", "凉山彝族自治州": "凉山", "黔东南苗族侗族自治州": "黔东南",
              "大理白族自治州": "大理", "红河哈尼族彝族自治州": "红河", "喀什地区": "喀什", "伊犁哈萨克自治州": "伊犁",
              "昌吉回族自治州": "昌吉"}
PROV_SHORT = {"内蒙古自治区": "内蒙古", "广西壮族自治区": "广西", "西藏自治区": "西藏", "宁夏回族自治区": "宁夏",
              "新疆维吾尔自治区": "新疆", "黑龙江省": "黑龙江"}

TOWN_ROOTS = ("石桥 柳河 长岭 白沙 新集 黄泥 龙泉 高庄 双河 三里 东关 西岗 南湖 北坡 古城 马头 青山 梨园 杨柳 太平 "
              "红星 永安 油坊 李集 孙店 官桥 桥头 河口 沙河 清水 金山 白马 黄桥 塔山 凤凰 仙桥 王营 张店 何庄 周集 "
              "枣林 桃源 杏花 槐树 竹园 瓦窑 铁炉 盐井 湾里 大营 土桥 石门 新店 城关 后湖 庙岗 草坝 兴隆").split()
VILLAGE_TAILS = ["庄", "湾", "坪", "沟", "岭", "营", "寨", "洼", "坝", "冲", "屯", "堡", "台"]
ROAD_ROOTS = ("解放 人民 建设 中山 文化 胜利 新华 黄河 长江 青年 光明 东风 红旗 学府 朝阳 振兴 团结 环城 滨江 迎宾 "
              "站前 育才 工农 五一 民主 府前 金桥 丰收 纺织 机场 龙腾 文昌 体育 花园 凤鸣").split()
ROAD_TAILS = ["路", "路", "街", "大道", "东路", "西路", "南路", "北路", "大街", "巷"]
COMPOUND_ROOTS = ("阳光 锦绣 翠苑 金色 碧桂园 万科 绿城 世纪 丽景 名都 书香 凤凰城 翡翠 东方 星河 龙湖 香榭 御景 "
                  "紫金 和园 桂花 江南 馨苑 盛世 水岸 康城 景秀 鑫苑 华府 怡和").split()
COMPOUND_TAILS = ["小区", "花园", "家园", "苑", "新村", "公寓", "华庭", "一期", "二期", "嘉园", "雅居"]
WORK_ROOTS = ["实验小学", "第一中学", "第二中学", "实验中学", "职业技术学校", "中心小学", "幼儿园"]

# famous hospitals: (official name, [short forms], city)
FAMOUS = [
    ("中国医学科学院北京协和医院", ["北京协和医院", "协和"], "北京"), ("四川大学华西医院", ["华西医院", "华西"], "成都"),
    ("中国人民解放军总医院", ["301医院", "301"], "北京"), ("复旦大学附属中山医院", ["中山医院"], "上海"),
    ("复旦大学附属华山医院", ["华山医院", "华山"], "上海"), ("上海交通大学医学院附属瑞金医院", ["瑞金医院", "瑞金"], "上海"),
    ("浙江大学医学院附属第一医院", ["浙大一院", "浙一"], "杭州"), ("浙江大学医学院附属邵逸夫医院", ["邵逸夫医院", "邵逸夫"], "杭州"),
    ("浙江大学医学院附属第二医院", ["浙大二院", "浙二"], "杭州"), ("中南大学湘雅医院", ["湘雅医院", "湘雅"], "长沙"),
    ("中南大学湘雅二医院", ["湘雅二院"], "长沙"), ("中山大学附属第一医院", ["中山一院", "中大附一"], "广州"),
    ("华中科技大学同济医学院附属同济医院", ["同济医院", "武汉同济"], "武汉"), ("华中科技大学同济医学院附属协和医院", ["武汉协和"], "武汉"),
    ("郑州大学第一附属医院", ["郑大一附院", "郑大一"], "郑州"), ("山东大学齐鲁医院", ["齐鲁医院", "齐鲁"], "济南"),
    ("西安交通大学第一附属医院", ["西安交大一附院", "交大一附院"], "西安"), ("空军军医大学第一附属医院", ["西京医院", "西京"], "西安"),
    ("南京大学医学院附属鼓楼医院", ["南京鼓楼医院", "鼓楼医院"], "南京"), ("江苏省人民医院", ["江苏省人民医院"], "南京"),
    ("天津医科大学总医院", ["天津医大总医院", "天医总"], "天津"), ("中国医科大学附属第一医院", ["医大一院"], "沈阳"),
    ("中国医科大学附属盛京医院", ["盛京医院", "盛京"], "沈阳"), ("吉林大学第一医院", ["吉大一院"], "长春"),
    ("哈尔滨医科大学附属第一医院", ["哈医大一院", "哈医大"], "哈尔滨"), ("重庆医科大学附属第一医院", ["重医附一院", "重医一院"], "重庆"),
    ("重庆医科大学附属儿童医院", ["重医儿童医院", "重医附属儿童医院"], "重庆"), ("广西医科大学第一附属医院", ["广西医大一附院"], "南宁"),
    ("新疆医科大学第一附属医院", ["新医大一附院"], "乌鲁木齐"), ("昆明医科大学第一附属医院", ["昆医附一院", "昆医大附一院"], "昆明"),
    ("福建医科大学附属协和医院", ["福建协和医院", "福建协和"], "福州"), ("安徽医科大学第一附属医院", ["安医大一附院", "安医附院"], "合肥"),
    ("南昌大学第一附属医院", ["南大一附院", "南昌一附院"], "南昌"), ("河北医科大学第二医院", ["河北医大二院", "省二院"], "石家庄"),
    ("山西医科大学第一医院", ["山医大一院", "山大一院"], "太原"), ("兰州大学第一医院", ["兰大一院"], "兰州"),
    ("青海大学附属医院", ["青大附院"], "西宁"), ("宁夏医科大学总医院", ["宁医总院", "宁医附院"], "银川"),
    ("内蒙古医科大学附属医院", ["内医附院"], "呼和浩特"), ("海南省人民医院", ["海南省人民医院", "海南省医"], "海口"),
    ("贵州医科大学附属医院", ["贵医附院", "贵医"], "贵阳"), ("西藏自治区人民医院", ["西藏自治区人民医院", "区人民医院"], "拉萨"),
    ("首都医科大学附属北京天坛医院", ["天坛医院", "天坛"], "北京"), ("北京大学第三医院", ["北医三院"], "北京"),
    ("北京大学人民医院", ["北大人民医院"], "北京"), ("中国医学科学院肿瘤医院", ["医科院肿瘤医院", "北京肿瘤医院"], "北京"),
    ("复旦大学附属肿瘤医院", ["复旦肿瘤医院", "复旦肿瘤"], "上海"), ("中山大学肿瘤防治中心", ["中山肿瘤", "中肿"], "广州"),
    ("复旦大学附属儿科医院", ["复旦儿科医院", "复旦儿科"], "上海"), ("首都医科大学附属北京儿童医院", ["北京儿童医院", "北京儿研所"], "北京"),
    ("上海市第六人民医院", ["上海六院", "六院"], "上海"), ("广东省人民医院", ["广东省人民医院", "省医"], "广州"),
    ("南方医科大学南方医院", ["南方医院"], "广州"), ("深圳市人民医院", ["深圳市人民医院", "深圳人民医院"], "深圳"),
    ("首都医科大学附属北京安贞医院", ["安贞医院", "安贞"], "北京"), ("中国医学科学院阜外医院", ["阜外医院", "阜外"], "北京"),
    ("上海市精神卫生中心", ["宛平南路600号", "上海精卫中心"], "上海"), ("北京大学第六医院", ["北大六院"], "北京"),
]
CAMPUSES = ["总院", "东院区", "西院区", "南院区", "北院区", "庆春院区", "余杭院区", "光谷院区", "本部", "新院区", "滨江院区"]

DEPTS = ("心内科 呼吸内科 消化内科 内分泌科 神经内科 肾内科 普外科 骨科 泌尿外科 妇科 产科 儿科 皮肤科 眼科 耳鼻喉科 "
         "口腔科 中医科 全科医学科 急诊科 感染科 肿瘤科 甲乳外科 风湿免疫科 康复医学科 精神心理科 血液科 神经外科 "
         "胸外科 肝胆外科 生殖医学科 儿童保健科").split()

# (diagnosis, ICD-10 code): the code shapes are hard negatives (plain)
DIAGNOSES = [
    ("原发性高血压", "I10.x00"), ("2型糖尿病", "E11.900"), ("急性上呼吸道感染", "J06.900"), ("腰椎间盘突出症", "M51.202"),
    ("慢性胃炎", "K29.500"), ("甲状腺结节", "E04.101"), ("桥本甲状腺炎", "E06.300"), ("社区获得性肺炎", "J18.900"),
    ("冠状动脉粥样硬化性心脏病", "I25.103"), ("胆囊结石", "K80.200"), ("痛风", "M10.900"), ("乳腺增生", "N60.200"),
    ("支气管哮喘", "J45.900"), ("帕金森病", "G20.x00"), ("急性胃肠炎", "K52.900"), ("过敏性鼻炎", "J30.400"),
    ("湿疹", "L30.900"), ("手足口病", "B08.401"), ("川崎病", "M30.300"), ("尿路感染", "N39.000"), ("高脂血症", "E78.500"),
    ("脑梗死", "I63.900"), ("骨质疏松", "M81.900"), ("抑郁状态", "F32.900"), ("足癣", "B35.300"), ("克罗恩病", "K50.900"),
    ("面神经炎", "G51.000"), ("梅尼埃病", "H81.000"), ("颈椎病", "M47.801"), ("慢性阻塞性肺疾病", "J44.900"),
    ("子宫肌瘤", "D25.900"), ("缺铁性贫血", "D50.900"), ("荨麻疹", "L50.900"), ("幽门螺杆菌感染", "B98.001"),
]
# (brand or trade name, generic, strength, one dose, frequency)
DRUGS = [
    ("拜新同", "硝苯地平控释片", "30mg", "1片", "每日1次"), ("络活喜", "苯磺酸氨氯地平片", "5mg", "1片", "每日1次"),
    ("立普妥", "阿托伐他汀钙片", "20mg", "1片", "每晚1次"), ("波立维", "硫酸氢氯吡格雷片", "75mg", "1片", "每日1次"),
    ("拜阿司匹灵", "阿司匹林肠溶片", "100mg", "1片", "每日1次"), ("格华止", "盐酸二甲双胍片", "0.5g", "1片", "每日3次"),
    ("优甲乐", "左甲状腺素钠片", "50μg", "1片", "每日1次"), ("倍他乐克", "酒石酸美托洛尔片", "25mg", "半片", "每日2次"),
    ("代文", "缬沙坦胶囊", "80mg", "1粒", "每日1次"), ("可定", "瑞舒伐他汀钙片", "10mg", "1片", "每晚1次"),
    ("诺和灵30R", "精蛋白生物合成人胰岛素注射液", "3ml:300单位", "12单位", "早晚餐前"),
    ("芬必得", "布洛芬缓释胶囊", "0.3g", "1粒", "必要时"), ("达喜", "铝碳酸镁咀嚼片", "0.5g", "2片", "每日3次"),
    ("开瑞坦", "氯雷他定片", "10mg", "1片", "每日1次"), ("顺尔宁", "孟鲁司特钠片", "10mg", "1片", "每晚1次"),
    ("舒利迭", "沙美特罗替卡松粉吸入剂", "50/250μg", "1吸", "每日2次"), ("易蒙停", "盐酸洛哌丁胺胶囊", "2mg", "1粒", "必要时"),
    ("京都念慈菴", "蜜炼川贝枇杷膏", "150ml", "15ml", "每日3次"), ("同仁堂", "六味地黄丸", "200丸", "8丸", "每日3次"),
    ("999", "感冒灵颗粒", "10g×9袋", "10g", "每日3次"), ("以岭", "连花清瘟胶囊", "0.35g", "4粒", "每日3次"),
    ("江中", "健胃消食片", "0.8g", "3片", "每日3次"), ("金水宝", "发酵虫草菌粉胶囊", "0.33g", "3粒", "每日3次"),
    ("美林", "布洛芬混悬液", "100ml", "5ml", "必要时"), ("泰诺林", "对乙酰氨基酚混悬滴剂", "15ml", "1.5ml", "必要时"),
    ("妈咪爱", "枯草杆菌二联活菌颗粒", "1g", "1袋", "每日2次"), ("思密达", "蒙脱石散", "3g", "1袋", "每日3次"),
    ("达克宁", "硝酸咪康唑乳膏", "20g", "适量", "每日2次"), ("奥美拉唑", "奥美拉唑肠溶胶囊", "20mg", "1粒", "每日1次"),
    ("雅培", "阿莫西林胶囊", "0.25g", "2粒", "每日3次"), ("片仔癀", "片仔癀胶囊", "0.3g", "2粒", "每日3次"),
]
BRAND_NEG = ["拜新同", "立普妥", "波立维", "优甲乐", "格华止", "云南白药", "马应龙", "片仔癀", "同仁堂", "东阿阿胶",
             "汤臣倍健", "江中健胃消食片", "999感冒灵", "连花清瘟", "京都念慈菴", "仁和可立克", "葵花牌小儿肺热咳喘口服液",
             "修正斯达舒", "白云山板蓝根", "太太乐", "哈药六厂钙片", "北京同仁堂安宫牛黄丸", "天津达仁堂", "上海硫磺皂",
             "兰州太宝", "西安杨森吗丁啉", "广州白云山", "曼秀雷敦", "乐敦"]
EPONYMS = ["桥本甲状腺炎", "帕金森", "阿尔茨海默病", "克罗恩病", "川崎病", "格林巴利综合征", "唐氏综合征", "库欣综合征",
           "白塞病", "雷诺现象", "贝尔面瘫", "梅尼埃病", "日本脑炎", "克山病", "香港脚", "中东呼吸综合征", "马尔堡病毒",
           "西尼罗热", "莱姆病", "汉坦病毒", "埃博拉", "大骨节病", "布鲁氏菌病", "巴雷特食管", "霍奇金淋巴瘤"]
FOODS = ["兰州拉面", "北京烤鸭", "柳州螺蛳粉", "重庆火锅", "武汉热干面", "长沙臭豆腐", "宁波汤圆", "金华火腿",
         "天津麻花", "新疆葡萄干", "德州扒鸡", "沙县小吃", "绍兴黄酒", "青岛啤酒", "云南普洱", "西湖龙井", "潮汕牛肉丸",
         "东北大米", "四川泡菜", "扬州炒饭", "桂林米粉", "信阳毛尖", "安吉白茶", "宁夏枸杞", "内蒙古牛肉干", "山西陈醋"]
SURNAME_WORDS = [("马上", "马上要去上班了"), ("白细胞", "白细胞有点高"), ("高血压", "家里人都有高血压"),
                 ("周一", "周一再去复查"), ("万一", "万一是不好的东西怎么办"), ("叶酸", "叶酸还在吃"),
                 ("黄疸", "宝宝黄疸退了没"), ("石膏", "石膏打了两周"), ("陈皮", "泡了点陈皮水喝"),
                 ("常规", "血常规也查了"), ("方便", "去医院不太方便"), ("程度", "疼的程度还能忍"),
                 ("何况", "何况他还有糖尿病"), ("毛病", "老毛病了"), ("许多", "许多人都说没事"),
                 ("严重", "会不会很严重"), ("任何", "没有任何不舒服"), ("金银花", "喝了金银花露"),
                 ("钱", "钱倒是无所谓"), ("杨梅", "吃了杨梅以后"), ("于是", "于是就停药了"), ("江湖郎中", "别信江湖郎中"),
                 ("林下参", "亲戚送了林下参"), ("华法林", "在吃华法林"), ("孙子", "帮孙子问的"), ("朱砂", "药里有朱砂吗"),
                 ("胡萝卜素", "吃胡萝卜素皮肤发黄"), ("宋朝", "听说这方子宋朝就有"), ("温水", "用温水擦身")]
NAMEY_WORDS = ["上下班高峰挤地铁", "一到夏天就犯", "孩子性格挺文静的", "只求平安就好", "天天在海边", "家里种了红梅",
               "人明显安静了", "心里很平静", "冬梅花开的时候", "盼着早日康复", "日子过得挺安康", "春天容易过敏",
               "想要孩子健康快乐", "前途一片光明", "我们家的小花猫", "他喜欢看长城的纪录片"]
PLATFORMS = ["好大夫在线", "微医", "丁香医生", "平安好医生", "京东健康", "阿里健康", "春雨医生", "支付宝", "微信",
             "国家医保服务平台", "浙里办", "粤省事", "随申办", "健康160", "小红书", "抖音", "医鹿"]
GENERIC_HOSP = ["当地医院", "县医院", "市医院", "市人民医院", "县人民医院", "三甲医院", "社区医院", "卫生院", "大医院",
                "专科医院", "上级医院", "定点医院", "私立医院", "附近的诊所", "村卫生室", "镇上卫生院", "省里的医院", "儿童医院",
                "中医院", "妇幼保健院"]
SERVICE_NUMS = [("120", "半夜打了120"), ("12320", "打12320卫生热线问过"), ("12345", "打12345投诉过"),
                ("12393", "医保的事打12393问了"), ("114", "打114查的挂号电话"), ("110", "差点打110"),
                ("10086", "手机号是10086客服帮忙查的"), ("95518", "保险公司95518说要发票原件")]
STAMPS = ["门诊专用章", "诊断证明专用章", "财务专用章", "检验专用章", "转诊专用章", "医务科", "住院收费专用章",
          "预防接种专用章", "体检专用章", "病理诊断专用章", "出生医学证明专用章"]
# OCR look-alikes (plain text; rarely inside names, hospitals and addresses)
CONF = {"日": "曰", "己": "已", "未": "末", "人": "入", "土": "士", "天": "夭", "贝": "见", "大": "太", "田": "由",
        "王": "玉", "科": "料", "姓": "娃", "诊": "珍", "师": "帅", "期": "朗", "证": "正", "明": "朋", "检": "捡",
        "查": "杳", "结": "洁", "疗": "疔", "历": "厉", "住": "往", "话": "活", "码": "玛", "龄": "铃", "末": "未",
        "治": "冶", "处": "外", "方": "万", "项": "顶", "部": "都", "血": "皿", "白": "自", "肝": "肚", "体": "休",
        "压": "庄", "名": "各", "号": "弓", "院": "阮", "医": "区", "断": "晰", "性": "牲", "口": "囗", "准": "淮",
        "床": "庆", "单": "箪", "书": "韦", "东": "车", "西": "酉", "市": "巿", "县": "具", "镇": "填", "村": "材",
        "路": "略", "室": "窒", "建": "健", "华": "毕", "林": "材", "国": "围", "玉": "王", "英": "荚", "秀": "委",
        "兰": "三", "梅": "海", "军": "车"}
DIGMIS = {"0": "OoD", "1": "lI", "5": "S", "8": "B", "2": "Z", "6": "b", "9": "g"}
CN_DIG = "〇一二三四五六七八九"


# ----------------------------------------------------------------------------------------------------------
# parts: a message is a list of (text, label); label None = plain, upper case = identifier, lower = keep kind
# ----------------------------------------------------------------------------------------------------------

def pl(s):
    return [(s, None)]


def lab(cat, s):
    return [(s, cat)]


_SUR_POOL = [s for s, w in SURNAMES for _ in range(w)]


def surname(r):
    x = r.random()
    if x < 0.025:
        return r.choice(COMPOUND_SURNAMES)
    if x < 0.06:
        return r.choice(RARE_SURNAMES)
    return r.choice(_SUR_POOL)


def decade_of(year):
    for d in (2010, 1990, 1980, 1970, 1960, 1950):
        if year >= d:
            return d
    return 1930


def given(r, sex, birth_year, prov=""):
    d = decade_of(birth_year)
    pool = GIVEN[d][0 if sex == "男" else 1]
    if prov == "广东省" and r.random() < 0.3:
        return r.choice(CANTONESE_GIVEN)
    if prov == "福建省" and r.random() < 0.25:
        return r.choice(MINNAN_GIVEN)
    g = r.choice(pool)
    if len(g) == 1 and d >= 1980 and r.random() < 0.3:
        g = g + r.choice(pool)[-1]
    return g


class Person:
    def __init__(self, r, sex, birth_year, prov, sur=None):
        self.sex = sex
        self.birth_year = birth_year
        self.minority = False
        if sur is None and prov in MINORITY and r.random() < 0.35:
            self.full = r.choice(MINORITY[prov])
            self.sur = ""
            self.given = self.full
            self.minority = True
        else:
            self.sur = sur or surname(r)
            self.given = given(r, sex, birth_year, prov)
            self.full = self.sur + self.given
        self.nick = None

    def short(self, r):
        """A form a reader knows: the bare given name, 老X / 小X, or the full name."""
        if self.minority:
            return self.full if "·" not in self.full else self.full.split("·")[0]
        x = r.random()
        if x < 0.35 and len(self.given) == 2:
            return self.given
        if x < 0.55:
            return ("老" if self.birth_year < 1975 else "小") + self.sur
        return self.full


class Place:
    """A home place: province, prefecture, county, town, village or road, compound."""

    def __init__(self, r):
        self.prov, self.area, self.pcode, prefs = r.choice(PROVINCES)
        self.pref, counties = r.choice(prefs)
        self.county = r.choice(counties.split())
        self.muni = self.prov in MUNICIPALITIES
        self.pref_short = PREF_SHORT.get(self.pref, self.pref[:-1] if self.pref.endswith("市") else self.pref)
        self.town = r.choice(TOWN_ROOTS) + r.choice(["镇", "镇", "乡", "街道"])
        if self.county.endswith("镇"):
            self.town = self.county
        self.street_town = r.choice(TOWN_ROOTS) + "街道"
        self.village = (r.choice(_SUR_POOL) + "家" + r.choice(VILLAGE_TAILS) + "村") if r.random() < 0.5 else (
            r.choice(TOWN_ROOTS) + "村")
        g = r.randint(1, 12)
        self.group = r.choice([f"{g}组", f"{CN_DIG[g] if g < 10 else '十' + CN_DIG[g - 10].replace('〇', '')}组",
                               f"{g}队", f"{g}社"])
        self.road = r.choice(ROAD_ROOTS) + r.choice(ROAD_TAILS)
        self.road_no = f"{r.randint(1, 999)}号"
        self.compound = r.choice(COMPOUND_ROOTS) + r.choice(COMPOUND_TAILS)
        b, u = r.randint(1, 32), r.randint(1, 6)
        room = f"{r.randint(1, 33)}{r.randint(1, 4):02d}"
        self.unit = r.choice([f"{b}栋{u}单元{room}室", f"{b}幢{u}单元{room}", f"{b}号楼{u}单元{room}室",
                              f"{b}-{u}-{room}", f"{b}栋{room}"])
        self.rural = r.random() < 0.45

    def chain(self, r, top=None, depth=None, sep=""):
        """An address chain as text (one ADDRESS span)."""
        if self.muni:
            levels = [self.prov, self.county]
        else:
            levels = [self.prov, self.pref, self.county]
        if self.rural:
            tail = [self.town, self.village, self.group] if self.town != self.county else [self.village, self.group]
        else:
            tail = [self.road + self.road_no, self.compound, self.unit]
            if r.random() < 0.4:
                tail = [self.street_town] + tail
        levels = levels + tail
        if top is None:
            top = r.choice([0, 0, 1, 1, 2]) if not self.muni else r.choice([0, 1])
        if self.muni and top == 1:
            top = 0 if r.random() < 0.5 else 1
        if depth is None:
            depth = len(levels)
        return sep.join(levels[top:depth])

    def city_alone(self, r):
        if self.muni:
            return self.county
        return r.choice([self.pref, self.pref_short, self.pref_short])

    def county_alone(self, r):
        c = self.county
        if c.endswith("县") and len(c) == 3 and r.random() < 0.5:
            return c[:-1]
        return c


# ----------------------------------------------------------------------------------------------------------
# hospitals
# ----------------------------------------------------------------------------------------------------------

def local_hospital(r, pl_, level=None):
    """(official name, short form or None) of a hospital near a place."""
    level = level or r.choice(["city", "city", "county", "county", "town", "village", "community", "private", "chain"])
    pref, ps = pl_.pref, pl_.pref_short
    if pl_.muni:
        pref, ps = pl_.prov, pl_.prov[:-1]
    if level == "city":
        kind = r.choice(["第一人民医院", "第二人民医院", "中心医院", "人民医院", "中医院", "妇幼保健院", "儿童医院", "第三人民医院",
                         "肿瘤医院", "精神卫生中心"])
        full = pref + kind
        short = None
        if kind.startswith("第") and kind.endswith("人民医院"):
            short = r.choice([ps + "市" + kind[1] + "院", "市" + kind[1] + "院", ps + kind[1] + "院"])
        elif kind == "中医院":
            short = ps + "中医院"
        elif kind == "妇幼保健院":
            short = r.choice([ps + "妇幼", "市妇幼"])
        elif kind == "中心医院":
            short = ps + "中心医院"
        return full, short
    if level == "county":
        c = pl_.county
        kind = r.choice(["人民医院", "人民医院", "中医院", "中医医院", "妇幼保健院", "第二人民医院"])
        full = c + kind
        short = None
        if c.endswith("县") and kind == "人民医院":
            short = r.choice([c + "医院", c[:-1] + "县医院", c[:-1] + "人民医院"]) if len(c) == 3 else c + "医院"
        return full, short
    if level == "town":
        return pl_.town + r.choice(["卫生院", "中心卫生院", "卫生院"]), None
    if level == "village":
        return pl_.village + "卫生室", None
    if level == "community":
        return pl_.street_town + "社区卫生服务中心", None
    if level == "private":
        s = surname(r)
        return r.choice([s + "氏诊所", s + "氏中医诊所", ps + "仁爱医院", ps + "博爱医院", s + "记口腔诊所",
                         ps + "和美妇产医院"]), None
    return r.choice([ps + "爱尔眼科医院", "美年大健康" + ps + "分院", "爱康国宾" + ps + "体检中心", ps + "瑞慈体检中心",
                     "通策" + ps + "口腔医院"]), None


def famous_hospital(r):
    full, shorts, city = r.choice(FAMOUS)
    return full, r.choice(shorts)


# ----------------------------------------------------------------------------------------------------------
# numbers and dates
# ----------------------------------------------------------------------------------------------------------

MOB = ["130", "131", "132", "133", "135", "136", "137", "138", "139", "150", "151", "152", "155", "157", "158", "159",
       "166", "173", "176", "177", "180", "181", "182", "183", "185", "186", "187", "188", "189", "191", "198", "199"]


def digits(r, n, first_nonzero=False):
    s = "".join(str(r.randint(0, 9)) for _ in range(n))
    if first_nonzero and s[0] == "0":
        s = str(r.randint(1, 9)) + s[1:]
    return s


def mobile(r):
    return r.choice(MOB) + digits(r, 8)


def fmt_mobile(r, m):
    x = r.random()
    if x < 0.6:
        return m
    if x < 0.75:
        return f"{m[:3]}-{m[3:7]}-{m[7:]}"
    if x < 0.9:
        return f"{m[:3]} {m[3:7]} {m[7:]}"
    return "+86 " + m if r.random() < 0.5 else "+86-" + m


def landline(r, area, ext=None):
    num = digits(r, 8 if len(area) == 3 else 7, True)
    x = r.random()
    s = f"{area}-{num}" if x < 0.5 else (f"({area}){num}" if x < 0.7 else (f"{area} {num}" if x < 0.85 else area + num))
    if ext or r.random() < 0.12:
        s += r.choice(["转", "-"]) + digits(r, 4, True)
    return s


def id_number(r, pcode, y, m, d, sex):
    region = pcode + f"{r.randint(1, 20):02d}" + f"{r.randint(1, 30):02d}"
    seq = digits(r, 2) + str(r.choice([1, 3, 5, 7, 9]) if sex == "男" else r.choice([0, 2, 4, 6, 8]))
    body = region + f"{y:04d}{m:02d}{d:02d}" + seq
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    c = "10X98765432"[sum(int(a) * b for a, b in zip(body, w, strict=True)) % 11]
    return body + c


DIM = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def add_days(y, m, d, k):
    while k > 0:
        dim = DIM[m - 1] + (1 if m == 2 and y % 4 == 0 else 0)
        if d < dim:
            d += 1
        else:
            d = 1
            m += 1
            if m > 12:
                m, y = 1, y + 1
        k -= 1
    while k < 0:
        if d > 1:
            d -= 1
        else:
            m -= 1
            if m < 1:
                m, y = 12, y - 1
            d = DIM[m - 1] + (1 if m == 2 and y % 4 == 0 else 0)
        k += 1
    return y, m, d


def cn_num(n):
    """1..31 in Chinese numerals as written on certificates."""
    if n < 10:
        return "一二三四五六七八九"[n - 1]
    t, u = divmod(n, 10)
    return ("" if t == 1 else "一二三"[t - 1]) + "十" + ("" if u == 0 else "一二三四五六七八九"[u - 1])


def fmt_date(r, ymd, style=None):
    y, m, d = ymd
    style = style or r.choice(["iso", "iso", "cn", "cn0", "slash", "dot", "compact"])
    if style == "iso":
        return f"{y}-{m:02d}-{d:02d}"
    if style == "cn":
        return f"{y}年{m}月{d}日"
    if style == "cn0":
        return f"{y}年{m:02d}月{d:02d}日"
    if style == "slash":
        return f"{y}/{m}/{d}"
    if style == "dot":
        return f"{y}.{m:02d}.{d:02d}"
    if style == "compact":
        return f"{y}{m:02d}{d:02d}"
    if style == "upper":
        return "".join(CN_DIG[int(c)] for c in str(y)) + f"年{cn_num(m)}月{cn_num(d)}日"
    if style == "md":
        return r.choice([f"{m}月{d}日", f"{m}月{d}号", f"{m}.{d}号"])
    if style == "ym":
        return r.choice([f"{y}年{m}月", f"{y}年{m}月份", f"{y}.{m:02d}"])
    return f"{y}-{m:02d}-{d:02d}"


def clock(r):
    return f"{r.randint(7, 21):02d}:{r.randint(0, 59):02d}" + (f":{r.randint(0, 59):02d}" if r.random() < 0.4 else "")


# ----------------------------------------------------------------------------------------------------------
# clinical keep spans
# ----------------------------------------------------------------------------------------------------------

# (Chinese name, abbreviation, unit, low, high, decimals, reference range)
LABS = [
    ("白细胞计数", "WBC", "10^9/L", 3.0, 16.0, 2, "3.5-9.5"), ("红细胞计数", "RBC", "10^12/L", 3.2, 5.8, 2, "4.3-5.8"),
    ("血红蛋白", "HGB", "g/L", 78, 168, 0, "130-175"), ("血小板计数", "PLT", "10^9/L", 80, 420, 0, "125-350"),
    ("中性粒细胞百分比", "NEUT%", "%", 40, 88, 1, "40-75"), ("淋巴细胞百分比", "LYMPH%", "%", 12, 50, 1, "20-50"),
    ("C反应蛋白", "CRP", "mg/L", 0.5, 86, 1, "0-10"), ("丙氨酸氨基转移酶", "ALT", "U/L", 8, 160, 0, "9-50"),
    ("天门冬氨酸氨基转移酶", "AST", "U/L", 10, 120, 0, "15-40"), ("总胆红素", "TBIL", "μmol/L", 5, 48, 1, "0-21"),
    ("肌酐", "CREA", "μmol/L", 45, 180, 0, "57-111"), ("尿素", "UREA", "mmol/L", 2.5, 12, 2, "3.1-8.0"),
    ("尿酸", "UA", "μmol/L", 220, 620, 0, "208-428"), ("葡萄糖", "GLU", "mmol/L", 4.1, 16.5, 2, "3.9-6.1"),
    ("糖化血红蛋白", "HbA1c", "%", 4.8, 11.2, 1, "4.0-6.0"), ("总胆固醇", "TC", "mmol/L", 3.2, 7.8, 2, "<5.2"),
    ("甘油三酯", "TG", "mmol/L", 0.6, 5.5, 2, "<1.7"), ("低密度脂蛋白胆固醇", "LDL-C", "mmol/L", 1.5, 5.2, 2, "<3.4"),
    ("促甲状腺激素", "TSH", "mIU/L", 0.1, 12, 2, "0.27-4.2"), ("游离甲状腺素", "FT4", "pmol/L", 8, 30, 2, "12-22"),
    ("甲状腺过氧化物酶抗体", "TPOAb", "IU/mL", 5, 600, 1, "0-34"), ("癌胚抗原", "CEA", "ng/mL", 0.5, 12, 2, "0-5"),
    ("甲胎蛋白", "AFP", "ng/mL", 1, 30, 2, "0-7"), ("D-二聚体", "D-D", "mg/L", 0.1, 3.2, 2, "0-0.5"),
    ("钾", "K", "mmol/L", 3.1, 5.6, 2, "3.5-5.3"), ("钠", "Na", "mmol/L", 132, 146, 1, "137-147"),
    ("降钙素原", "PCT", "ng/mL", 0.02, 2.5, 2, "<0.05"), ("铁蛋白", "FER", "ng/mL", 8, 400, 1, "30-400"),
    ("人绒毛膜促性腺激素", "β-HCG", "mIU/mL", 5, 90000, 0, "<5"), ("孕酮", "P", "ng/mL", 5, 40, 2, "—"),
]
VITALS = [
    (lambda r: f"血压{r.randint(100, 178)}/{r.randint(60, 108)}mmHg"),
    (lambda r: f"BP {r.randint(100, 178)}/{r.randint(60, 108)}mmHg"), (lambda r: f"高压{r.randint(130, 190)}"),
    (lambda r: f"体温{r.choice(['36.5', '37.2', '37.8', '38.3', '38.9', '39.4', '36.8'])}℃"),
    (lambda r: f"T {r.choice(['36.6', '37.9', '38.5', '39.1'])}℃"), (lambda r: f"心率{r.randint(56, 128)}次/分"),
    (lambda r: f"脉搏{r.randint(58, 118)}次/分"), (lambda r: f"P {r.randint(60, 110)}次/分"),
    (lambda r: f"呼吸{r.randint(16, 28)}次/分"), (lambda r: f"体重{r.randint(8, 95)}kg"),
    (lambda r: f"身高{r.randint(95, 186)}cm"), (lambda r: f"血氧{r.randint(90, 99)}%"),
]
DURATIONS = ["3天", "两天", "一周", "两周", "半个月", "1个月", "3个月", "半年", "一年多", "十来天", "5天", "7天", "2年",
             "三年", "四五天", "二十多天", "大半年", "10天", "14天", "6周"]
SYMPTOMS_C = ["头晕", "胸闷", "咳嗽", "发烧", "肚子疼", "腰疼", "起疹子", "心慌", "失眠", "拉肚子", "手脚发麻", "乏力", "胃胀",
              "关节疼", "嗓子疼", "尿频"]
FUTURE = ["下周", "三个月后", "半年后", "1个月后", "两周后", "明天", "下周一", "月底", "年后", "一周后"]
TIMES = ["昨天", "前天", "今天早上", "昨晚", "上周", "上个月", "凌晨三点", "下午", "中午", "晚上十点多", "去年", "前年",
         "今年", "周三", "上周五", "这两天", "下周", "三个月后", "半年后"]


def lab_value(r, item):
    name, ab, unit, lo, hi, dec, ref = item
    v = r.uniform(lo, hi)
    return f"{v:.{dec}f}" if dec else str(int(round(v)))


def lab_text(r, item=None):
    item = item or r.choice(LABS)
    name, ab, unit = item[0], item[1], item[2]
    v = lab_value(r, item)
    x = r.random()
    if x < 0.4:
        return f"{name}{v}{unit}"
    if x < 0.65:
        return f"{ab} {v}{unit}"
    if x < 0.8:
        return f"{ab}:{v}"
    return f"{name}{v}"


def age_text(r, age, form=None):
    form = form or r.choice(["岁", "岁", "岁", "周岁", "cn"])
    if age == 0:
        return r.choice([f"{r.randint(1, 11)}个月", f"{r.randint(2, 11)}月龄", f"{r.randint(3, 28)}天"])
    if form == "cn" and age < 100:
        t, u = divmod(age, 10)
        s = ("" if t == 0 else ("" if t == 1 else "一二三四五六七八九"[t - 1]) + "十") + ("" if u == 0 else "一二三四五六七八九"[u - 1])
        return s + "岁"
    if age < 6 and r.random() < 0.4:
        return r.choice([f"{age}岁半", f"{age}岁{r.randint(1, 11)}个月"])
    return f"{age}{form if form != 'cn' else '岁'}"


# ----------------------------------------------------------------------------------------------------------
# the case behind one consultation
# ----------------------------------------------------------------------------------------------------------

class Case:
    def __init__(self, r):
        self.r = r
        self.year = r.choice([2022, 2023, 2023, 2024, 2024, 2024, 2025])
        self.today = (self.year, r.randint(1, 12), r.randint(1, 28))
        self.home = Place(r)
        self.kind = r.choice(["adult", "adult", "elder", "elder", "child", "woman"])
        if self.kind == "child":
            self.age = r.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14])
        elif self.kind == "elder":
            self.age = r.randint(60, 91)
        elif self.kind == "woman":
            self.age = r.randint(22, 45)
        else:
            self.age = r.randint(18, 59)
        sex = "女" if self.kind == "woman" else r.choice(["男", "女"])
        by = self.year - self.age
        self.birth = (by, r.randint(1, 12), r.randint(1, 28))
        self.pat = Person(r, sex, by, self.home.prov)
        if self.kind == "child":
            self.pat.nick = r.choice(NICK_CHILD)
            parent_sex = r.choice(["男", "女", "女"])
            self.rel = Person(r, parent_sex, by - r.randint(24, 36), self.home.prov,
                              sur=self.pat.sur if parent_sex == "男" and self.pat.sur else None)
            self.relword = "爸爸" if parent_sex == "男" else "妈妈"
            self.writer = "rel"
        elif self.kind == "elder":
            csex = r.choice(["男", "女"])
            self.rel = Person(r, csex, by + r.randint(22, 34), self.home.prov,
                              sur=self.pat.sur if csex == "男" and self.pat.sur else None)
            self.relword = "儿子" if csex == "男" else "女儿"
            self.writer = "rel" if r.random() < 0.75 else "self"
        else:
            ssex = "男" if sex == "女" else "女"
            self.rel = Person(r, ssex, by + r.randint(-4, 4), self.home.prov)
            self.relword = "丈夫" if ssex == "男" else "妻子"
            self.writer = "self" if r.random() < 0.8 else "rel"
        # how the writer calls the patient
        if self.writer == "self":
            self.pword = "我"
        elif self.kind == "child":
            self.pword = r.choice(["孩子", "我家宝宝", "我儿子" if sex == "男" else "我女儿", "娃"])
        elif self.kind == "elder":
            self.pword = ("我爸" if sex == "男" else "我妈") if r.random() < 0.7 else ("我爷爷" if sex == "男" else "我奶奶")
        else:
            self.pword = "我老公" if sex == "男" else "我老婆"
        self.mobile = mobile(r)
        self.rel_mobile = mobile(r)
        self.idno = id_number(r, self.home.pcode, *self.birth, sex)
        self.docs = [Person(r, r.choice(["男", "女"]), r.randint(1960, 1992), self.home.prov) for _ in range(5)]
        self.sym = r.choice(SYMPTOMS_C)
        self.dept = r.choice(DEPTS) if self.kind != "child" else r.choice(["儿科", "儿童保健科", "小儿内科", "儿科门诊"])
        self.dx, self.icd = r.choice(DIAGNOSES)
        self.drugs = r.sample(DRUGS, 3)
        lv = r.choice(["city", "county", "city"])
        self.hosp = local_hospital(r, self.home, lv)
        self.hosp2 = famous_hospital(r) if r.random() < 0.6 else local_hospital(r, self.home, "city")
        self.hosp3 = local_hospital(r, self.home, r.choice(["town", "village", "community", "private", "chain"]))
        self.hosp_area = self.home.area
        self.fields = []        # identifier fields seen in the documents: (label, value, category)
        self.values = []        # clinical values seen in the documents: (text, kind)
        self.misread = []       # (label, correct value, category) of fields the OCR garbled
        self.visit = add_days(*self.today, -r.randint(1, 60))
        self.nums = {}

    def num(self, key, fn):
        if key not in self.nums:
            self.nums[key] = fn(self.r)
        return self.nums[key]

    def date_near(self, lo, hi):
        return add_days(*self.today, -self.r.randint(lo, hi))


# ----------------------------------------------------------------------------------------------------------
# documents: lines of fields, then an OCR pass
# ----------------------------------------------------------------------------------------------------------

def spaced_label(r, label):
    if len(label) == 2 and r.random() < 0.3:
        return label[0] + r.choice([" ", "  ", "   "]) + label[1]
    return label


class Doc:
    """A document being laid out: a list of lines, each a list of parts."""

    def __init__(self, r, case, title, hosp=None, q=1):
        self.r, self.case, self.title, self.q = r, case, title, q
        self.hosp = hosp
        self.lines = []
        self.colon = r.choice(["：", "：", ":", " ", "", "： "])
        self.layout = r.choice(["kv", "row", "row", "row", "glued", "split", "next"])
        if hosp is not None:
            h = hosp[0]
            if r.random() < 0.25 and hosp is not case.hosp3:
                h = h + r.choice(CAMPUSES) if h in [f[0] for f in FAMOUS] else h
            if r.random() < 0.5:
                self.lines.append(lab("HOSPITAL", h) + pl(r.choice([" ", "  ", ""]) + title))
            else:
                self.lines.append(lab("HOSPITAL", h))
                self.lines.append(pl(" ".join(title) if r.random() < 0.3 else title))
        else:
            self.lines.append(pl(title))

    def line(self, parts):
        self.lines.append(parts)

    def note(self, label, value_parts):
        """Remember identifier values (for the doctor's questions) and clinical values."""
        for t, c in value_parts:
            if c and c.isupper():
                self.case.fields.append(("工号" if c == "ID" and "证" not in label and "号" not in label else label, t, c))
            elif c:
                self.case.values.append((t, c))

    def fields(self, fields, layout=None):
        r = self.r
        layout = layout or self.layout
        fields = [(lb, v) for lb, v in fields if v is not None]
        for lb, v in fields:
            self.note(lb, v)
        if layout == "split" and len(fields) > 4:
            layout = "row"
        if layout == "kv":
            for lb, v in fields:
                self.lines.append(pl(spaced_label(r, lb) + self.colon) + v)
        elif layout == "next":
            for lb, v in fields:
                if r.random() < 0.4:
                    self.lines.append(pl(lb + self.colon.strip()))
                    self.lines.append(v)
                else:
                    self.lines.append(pl(lb + self.colon) + v)
        elif layout == "glued":
            row = []
            for lb, v in fields:
                row += pl(lb) + v
            self.lines.append(merge_plain(row))
        elif layout == "split":
            sep = r.choice(["  ", "   ", " "])
            self.lines.append(pl(sep.join(lb + self.colon.strip() for lb, v in fields)))
            row = []
            for i, (lb, v) in enumerate(fields):
                if i:
                    row += pl(sep)
                row += v
            self.lines.append(merge_plain(row))
        else:
            per = r.choice([2, 3, 3, 4])
            sep = r.choice(["  ", "    ", " ", "\u3000"])
            for i in range(0, len(fields), per):
                row = []
                for j, (lb, v) in enumerate(fields[i:i + per]):
                    if j:
                        row += pl(sep)
                    row += pl(spaced_label(r, lb) + self.colon) + v
                self.lines.append(merge_plain(row))

    def table(self, header, rows, sep=None):
        sep = sep or self.r.choice(["  ", " ", "   ", " | ", "\u3000"])
        self.lines.append(pl(sep.join(header)))
        for row in rows:
            out = []
            for i, cell in enumerate(row):
                if i:
                    out += pl(sep)
                out += cell
            self.lines.append(merge_plain(out))

    def stamp(self, text=None):
        r = self.r
        h = self.hosp[0] if self.hosp else None
        text = text or r.choice(STAMPS)
        if h is None:
            self.lines.append(pl("（" + text + "）"))
            return
        x = r.random()
        if x < 0.4:     # the stamp read as a line of its own
            self.lines.append(lab("HOSPITAL", h) + pl(r.choice([" ", "\n", "  "]) + text))
        elif x < 0.7 and self.lines:     # the stamp's text run into the end of a line
            i = r.randrange(1, len(self.lines)) if len(self.lines) > 1 else 0
            self.lines[i] = merge_plain(self.lines[i] + pl(r.choice(["  ", " ", "    "])) + lab("HOSPITAL", h)
                                        + pl(" " + text))
        else:           # the ring of the stamp read in two pieces, the name first
            self.lines.append(pl(text))
            self.lines.insert(max(1, len(self.lines) - 3), lab("HOSPITAL", h))

    def footer(self, addr=True, phone=True, url=False):
        r, c = self.r, self.case
        bits = []
        if addr and self.hosp is not None and r.random() < 0.5:
            p = c.home
            a = p.chain(r, top=r.choice([0, 1]), depth=3 if not p.muni else 2) if not p.muni else p.prov + p.county
            a = a + r.choice(ROAD_ROOTS) + r.choice(ROAD_TAILS) + f"{r.randint(1, 400)}号"
            bits += pl(r.choice(["医院地址：", "地址：", "院址："])) + lab("ADDRESS", a)
        if phone and r.random() < 0.45:
            if bits:
                bits += pl(r.choice(["  ", " "]))
            bits += pl(r.choice(["咨询电话：", "总机：", "科室电话：", "预约电话："])) + lab("PHONE", landline(r, c.hosp_area))
        if url and r.random() < 0.5:
            if bits:
                bits += pl(" ")
            host = r.choice(["www.", "report.", "m.", "wx."]) + r.choice(["zjsrmyy", "hxyy", "xxrmyy", "dyyy", "szrmyy",
                                                                        "cdfy", "xyyy", "slyy"]) + r.choice([".com", ".cn", ".org.cn"])
            bits += pl(r.choice(["查询网址：", "网址：", "扫码或登录"])) + lab("URL", host)
        if bits:
            self.lines.append(merge_plain(bits))
        if r.random() < 0.35:
            self.lines.append(pl(r.choice(["第1页/共1页", "第 1 页 共 2 页", "本报告仅对所检标本负责", "打印时间见右下角",
                                           "扫描二维码查看电子报告", "此证明仅供参考，涂改无效", "请妥善保管"])))

    def render(self):
        r, q = self.r, self.q
        parts = []
        for i, ln in enumerate(self.lines):
            if i:
                parts += pl("\n")
            parts += ln
        parts = merge_plain(parts)
        if q:
            parts = ocr_noise(r, parts, q, self.case)
        return merge_plain(parts)


def merge_plain(parts):
    out = []
    for t, c in parts:
        if not t:
            continue
        if c is None and out and out[-1][1] is None:
            out[-1] = (out[-1][0] + t, None)
        else:
            out.append((t, c))
    return out


def _interior_insert(r, s, p, ins):
    """Insert ins between two non-space characters of s with probability p per gap."""
    out = []
    for i, ch in enumerate(s):
        out.append(ch)
        if i < len(s) - 1 and not ch.isspace() and not s[i + 1].isspace() and r.random() < p:
            out.append(ins)
    return "".join(out)


def ocr_noise(r, parts, q, case):
    """OCR errors: look-alike characters, misread digits, stray spaces, lines broken inside a word."""
    out = []
    for t, c in parts:
        if c is None:
            s = "".join(CONF[ch] if ch in CONF and r.random() < 0.035 * q else ch for ch in t)
            if q >= 2:
                s = "".join("□" if "\u4e00" <= ch <= "\u9fff" and r.random() < 0.004 * q else ch for ch in s)
            s = _interior_insert(r, s, 0.01 * q, " ")
            if q >= 2 and r.random() < 0.1:
                s = s.replace("：", r.choice([":", " ", "", ".", "；"]), 1)
        elif c.isupper():
            if c in ("NAME", "HOSPITAL", "ADDRESS"):
                s = "".join(CONF[ch] if ch in CONF and r.random() < 0.015 * q else ch for ch in t)
                if q == 3 and len(s) >= 3 and r.random() < 0.05:
                    k = r.randrange(1, len(s) - 1)
                    s = s[:k] + "□" + s[k + 1:] if not s[k].isspace() else s
            elif c in ("PHONE", "ID", "MRN", "ORDER_ID", "DATE"):
                s = "".join(r.choice(DIGMIS[ch]) if ch in DIGMIS and r.random() < 0.025 * q else ch for ch in t)
            else:
                s = t
            s = _interior_insert(r, s, 0.012 * q, " ")
            if len(s) >= 5 and r.random() < 0.04 * q:
                s = _interior_insert(r, s, 1.0 / len(s), "\n") if "\n" not in s else s
            if s.replace(" ", "").replace("\n", "") != t.replace(" ", ""):
                case.misread.append((c, t))
        else:
            s = _interior_insert(r, t, 0.004 * q, " ")
        out.append((s, c))
    # a line broken inside a plain stretch
    res = []
    for t, c in out:
        if c is None and len(t) > 6 and r.random() < 0.05 * q:
            k = r.randrange(1, len(t) - 1)
            t = t[:k] + "\n" + t[k:]
        res.append((t, c))
    return res


# ----------------------------------------------------------------------------------------------------------
# record numbers
# ----------------------------------------------------------------------------------------------------------

def _up(r, n):
    return "".join(r.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(n))


NUMS = {
    "门诊号": lambda r: r.choice([digits(r, 10, True), "MZ" + digits(r, 8), "0000" + digits(r, 6, True), digits(r, 8, True)]),
    "住院号": lambda r: r.choice([digits(r, 6, True), digits(r, 7, True), "ZY" + digits(r, 8), str(r.randint(2019, 2025)) + digits(r, 5)]),
    "病历号": lambda r: r.choice([digits(r, 8, True), "BL" + digits(r, 8)]),
    "病案号": lambda r: r.choice([digits(r, 7, True), digits(r, 8, True)]),
    "ID号": lambda r: r.choice([digits(r, 9, True), digits(r, 10, True), "P" + digits(r, 9)]),
    "就诊卡号": lambda r: r.choice([digits(r, 12, True), digits(r, 16, True), "JZK" + digits(r, 9)]),
    "医保卡号": lambda r: r.choice([digits(r, 10, True), r.choice("ABCDEFGH") + digits(r, 8), digits(r, 20, True)]),
    "标本号": lambda r: r.choice([digits(r, 10, True), digits(r, 12, True)]),
    "条码号": lambda r: r.choice([digits(r, 10, True), digits(r, 12, True)]),
    "检查号": lambda r: r.choice(["CT", "MR", "US", "DR", "DX"]) + digits(r, 10, True),
    "病理号": lambda r: r.choice([f"B{r.randint(19, 25)}-{digits(r, 5)}", f"P{r.randint(2019, 2025)}{digits(r, 5)}",
                                f"{r.randint(19, 25)}-{digits(r, 4)}", f"F{r.randint(2019, 2025)}-{digits(r, 4)}"]),
    "体检编号": lambda r: r.choice(["TJ" + digits(r, 10), digits(r, 11, True), "0" + digits(r, 9)]),
    "报告编号": lambda r: digits(r, 12, True),
    "建档号": lambda r: r.choice([digits(r, 8, True), digits(r, 12, True)]),
    "处方编号": lambda r: r.choice([digits(r, 12, True), "CF" + digits(r, 10), str(r.randint(2022, 2025)) + digits(r, 8)]),
    "转诊单号": lambda r: r.choice([f"ZZ{r.randint(2022, 2025)}{digits(r, 6)}", digits(r, 10, True)]),
    "流水号": lambda r: r.choice([digits(r, 18, True), digits(r, 20, True), "420000" + digits(r, 22)]),
    "票据号码": lambda r: "00" + digits(r, 8),
    "结算编号": lambda r: r.choice(["JS" + digits(r, 14), _up(r, 4) + digits(r, 12), digits(r, 16, True)]),
    "预约码": lambda r: r.choice([digits(r, 6, True), _up(r, 8), digits(r, 8, True)]),
    "出生证编号": lambda r: r.choice("MNOPQR") + digits(r, 9, True),
    "社保卡号": lambda r: r.choice([r.choice("ABCDEFGHJK") + digits(r, 8), digits(r, 9, True)]),
    "工号": lambda r: r.choice([digits(r, 4, True), digits(r, 5, True), "Y" + digits(r, 4)]),
}
NUM_CAT = {"处方编号": "ORDER_ID", "转诊单号": "ORDER_ID", "流水号": "ORDER_ID", "票据号码": "ORDER_ID", "结算编号": "ORDER_ID",
           "预约码": "ORDER_ID", "出生证编号": "ID", "社保卡号": "ID", "工号": "ID"}


def num(r, c, key, label=None):
    """(label, parts) of a record number of the case (the same one whenever it recurs)."""
    v = c.num(key, NUMS[key])
    return (label or key), lab(NUM_CAT.get(key, "MRN"), v)


# ----------------------------------------------------------------------------------------------------------
# the documents
# ----------------------------------------------------------------------------------------------------------

def F_name(c, who=None):
    return lab("NAME", (who or c.pat).full)


def F_age(r, c):
    if r.random() < 0.3 and c.age > 0:
        return lab("age", str(c.age))
    return lab("age", age_text(r, c.age, r.choice(["岁", "岁", "周岁"])))


def F_date(r, ymd, style=None, with_time=False):
    p = lab("DATE", fmt_date(r, ymd, style))
    if with_time:
        p = p + pl(" ") + lab("time", clock(r))
    return p


def F_addr(r, c, top=None):
    return lab("ADDRESS", c.home.chain(r, top=top, sep=" " if r.random() < 0.12 else ""))


def staff(r, c, i, label, with_id=False):
    p = lab("NAME", c.docs[i % len(c.docs)].full)
    if with_id and r.random() < 0.25:
        k = num(r, c, "工号")
        p = p + pl("（工号") + k[1] + pl("）")
    return label, p


def insurance(r):
    return pl(r.choice(["城镇职工医保", "城乡居民医保", "新农合", "自费", "省直医保", "异地医保", "职工医保", "市医保", "公费"]))


def doc_outpatient(r, c, q):
    d = Doc(r, c, r.choice(["门诊病历", "门诊病历记录", "门(急)诊病历", "电子病历"]), c.hosp, q)
    d.fields([("姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)), ("科室", pl(c.dept)),
              num(r, c, r.choice(["门诊号", "ID号", "就诊卡号"])), ("就诊日期", F_date(r, c.visit, with_time=r.random() < 0.5)),
              ("费别", insurance(r)) if r.random() < 0.5 else ("", None),
              ("住址", F_addr(r, c)) if r.random() < 0.4 else ("", None),
              ("电话", lab("PHONE", fmt_mobile(r, c.mobile))) if r.random() < 0.3 else ("", None)])
    v1, lab1 = VITALS[r.randrange(len(VITALS))](r), lab_text(r)
    dur = r.choice(DURATIONS)
    d.line(pl("主诉：" + r.choice(["反复头晕", "咳嗽咳痰", "上腹痛", "腰痛伴左下肢麻木", "发热", "皮疹瘙痒", "心慌胸闷", "乏力"]))
           + lab("duration", dur))
    d.note("", lab("duration", dur))
    d.line(pl("现病史：患者" + r.choice(["无明显诱因", "受凉后", "劳累后", "饮酒后"]) + "出现上述症状，" +
              r.choice(["曾在", "已于"])) + pl(r.choice(GENERIC_HOSP)) + pl("就诊，予" + c.drugs[0][1] + "治疗，效果欠佳。"))
    d.line(pl("既往史：" + r.choice(["否认高血压、糖尿病史", "有高血压病史", "有2型糖尿病史", "否认肝炎结核病史"]) + "。"))
    d.line(pl("查体：") + lab("vital", v1) + pl("，" + r.choice(["神清", "咽红", "双肺呼吸音清", "腹软"]) + "。"))
    d.note("", lab("vital", v1))
    d.line(pl("辅助检查：") + lab("lab", lab1))
    d.note("", lab("lab", lab1))
    d.line(pl(f"诊断：{c.dx}" + (f"（{c.icd}）" if r.random() < 0.4 else "")))
    drug = c.drugs[0]
    d.line(pl("处理：" + drug[1] + " ") + lab("dose", drug[3]) + pl(" " + drug[4] + "，" +
           r.choice(["1周后复诊", "不适随诊", "2周后复查", "门诊随访"])))
    d.fields([staff(r, c, 0, r.choice(["医师签名", "医生", "接诊医生", "医师"]), True)], "kv")
    if r.random() < 0.4:
        d.stamp("门诊专用章")
    d.footer()
    return d


def doc_certificate(r, c, q):
    d = Doc(r, c, r.choice(["诊断证明书", "疾病诊断证明书", "病假证明", "病情证明书", "休假证明"]), c.hosp, q)
    if r.random() < 0.4:
        d.line(pl("No.") + lab("MRN", c.num("证明编号", lambda rr: digits(rr, 8, True))))
        c.fields.append(("证明编号", c.nums["证明编号"], "MRN"))
    work = None
    if r.random() < 0.5:
        if c.kind == "child":
            school = r.choice(WORK_ROOTS)
            work = lab("ADDRESS", c.home.county_alone(r)) + pl(school)
        else:
            work = pl(r.choice(["个体", "务农", "退休", "无", "自由职业", "公司职员", "教师"]))
    d.fields([("姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)),
              ("身份证号", lab("ID", c.idno)) if r.random() < 0.5 else ("", None),
              ("工作单位" if c.kind != "child" else "学校", work) if work else ("", None),
              num(r, c, r.choice(["门诊号", "住院号", "病案号"]))])
    rest = r.choice(["3天", "7天", "一周", "两周", "1个月", "5天", "14天", "半个月"])
    d.line(pl("诊断：" + c.dx))
    d.line(pl("医嘱（建议）：" + r.choice(["注意休息，", "避免劳累，", "清淡饮食，", ""]) + "建议休息")
           + lab("duration", rest) + pl(r.choice(["。", "，门诊随诊。", "（自", ""])))
    d.note("", lab("duration", rest))
    if d.lines[-1][-1][0].endswith("（自"):
        a = add_days(*c.visit, 0)
        b = add_days(*c.visit, r.randint(3, 14))
        d.lines[-1] = merge_plain(d.lines[-1] + F_date(r, a, "cn") + pl("至") + F_date(r, b, "cn") + pl("）"))
    d.fields([staff(r, c, 1, r.choice(["医师", "经治医师", "医生签字"])),
              ("日期", F_date(r, c.visit, r.choice(["cn", "upper", "upper", "iso"])))], "row")
    d.stamp(r.choice(["诊断证明专用章", "医务科", "疾病诊断证明书专用章", "门诊专用章"]))
    if r.random() < 0.3:
        d.line(pl("（本证明仅限病假用，复印无效）"))
    return d


def doc_referral(r, c, q):
    src, dst = c.hosp, c.hosp2
    d = Doc(r, c, r.choice(["双向转诊单", "转诊单（转出）", "转院申请单", "医联体转诊单"]), src, q)
    d.fields([num(r, c, "转诊单号", r.choice(["转诊单号", "编号", "单号"])),
              ("患者姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)),
              ("身份证号", lab("ID", c.idno)), ("联系电话", lab("PHONE", fmt_mobile(r, c.mobile))),
              ("家庭住址", F_addr(r, c)) if r.random() < 0.7 else ("", None)])
    d.fields([("转出单位", lab("HOSPITAL", src[0])), ("转入单位", lab("HOSPITAL", dst[0])),
              ("转入科室", pl(c.dept))], r.choice(["kv", "row"]))
    d.line(pl("初步诊断：" + c.dx))
    lb = lab_text(r)
    d.line(pl("病情摘要：" + r.choice(["患者", "患儿"]) + "病程") + lab("duration", r.choice(DURATIONS)) + pl("，")
           + lab("lab", lb) + pl("，" + r.choice(["本院条件有限", "需进一步诊治", "建议上级医院明确诊断"]) + "。"))
    d.note("", lab("lab", lb))
    d.fields([staff(r, c, 0, "转诊医生"), ("联系电话", lab("PHONE", landline(r, c.hosp_area))),
              ("转诊日期", F_date(r, c.visit))], "row")
    if r.random() < 0.6:
        d.stamp("转诊专用章")
    return d


def doc_settlement(r, c, q):
    d = Doc(r, c, r.choice(["医疗保障基金结算清单", "住院费用结算单", "医保结算单", "门诊费用结算单（医保）"]), c.hosp, q)
    ins = r.choice(["城镇职工", "城乡居民", "异地就医"])
    fs = [num(r, c, "结算编号", r.choice(["结算编号", "结算ID", "交易流水号"])),
          ("姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)),
          ("证件号码", lab("ID", c.idno)),
          num(r, c, "医保卡号", r.choice(["医保卡号", "个人编号", "医保编号"])),
          ("参保地", lab("ADDRESS", c.home.city_alone(r) if r.random() < 0.7 else c.home.prov + c.home.pref)
           if not c.home.muni else pl(c.home.prov)),
          ("人员类别", pl(ins + r.choice(["在职", "退休", "居民"]))),
          num(r, c, "住院号")]
    d.fields(fs)
    a = add_days(*c.visit, -r.randint(3, 15))
    d.fields([("入院日期", F_date(r, a)), ("出院日期", F_date(r, c.visit)), ("住院天数", pl(str(r.randint(3, 15))))], "row")
    tot = r.randint(2000, 60000) + r.randint(0, 99) / 100
    d.table(["费用类别", "金额", "甲类", "乙类", "自费"],
            [[pl(k), pl(f"{r.randint(50, 9000)}.{r.randint(0, 99):02d}"), pl(f"{r.randint(0, 900)}.00"),
              pl(f"{r.randint(0, 900)}.00"), pl("0.00")] for k in r.sample(["西药费", "检查费", "化验费", "床位费", "治疗费", "护理费", "材料费"], 3)])
    d.line(pl(f"医疗费总额：{tot:.2f}  统筹基金支付：{tot * 0.62:.2f}  个人自付：{tot * 0.38:.2f}"))
    if r.random() < 0.3:
        d.line(pl("定点医疗机构编码：H" + c.home.pcode + digits(r, 9)) + pl("  医保服务热线：12393"))
    d.fields([("经办人", lab("NAME", Person(r, "女", 1985, c.home.prov).full)),
              ("结算日期", F_date(r, c.visit, with_time=r.random() < 0.5))], "row")
    d.stamp("住院收费专用章")
    return d


def doc_receipt(r, c, q):
    d = Doc(r, c, r.choice(["医疗门诊收费票据（电子）", "医疗住院收费票据", "浙江省医疗门诊收费票据（电子）", "电子票据"]), None, q)
    d.fields([("票据代码", pl(c.home.pcode + digits(r, 6))), num(r, c, "票据号码"),
              ("校验码", pl(_up(r, 6))), ("开票日期", F_date(r, c.visit))], "row")
    d.fields([("交款人", F_name(c)), ("交款人统一社会信用代码", lab("ID", c.idno)) if r.random() < 0.5 else ("", None),
              num(r, c, r.choice(["门诊号", "就诊卡号"])), num(r, c, "流水号", "业务流水号"),
              ("医保类型", insurance(r))])
    d.table(["项目名称", "数量", "单位", "金额(元)"],
            [[pl(k), pl(str(r.randint(1, 6))), pl(u), pl(f"{r.randint(5, 600)}.{r.randint(0, 99):02d}")]
             for k, u in r.sample([("西药费", "项"), ("检查费", "次"), ("化验费", "项"), ("诊察费", "次"), ("治疗费", "次"),
                                   ("中成药费", "项")], 3)])
    d.line(pl(f"合计（大写）：{r.choice(['叁佰', '贰佰', '壹仟', '伍佰'])}元整  （小写）{r.randint(200, 1500)}.00"))
    d.fields([("收款单位（章）", lab("HOSPITAL", c.hosp[0])), ("复核人", lab("NAME", Person(r, "女", 1988, c.home.prov).full)),
              ("收款人", lab("NAME", Person(r, "女", 1990, c.home.prov).full))], "row")
    if r.random() < 0.4:
        d.line(pl("财务专用章"))
    return d


def doc_prescription(r, c, q):
    d = Doc(r, c, r.choice(["处方笺", "处 方 笺", "门诊处方", "电子处方", "处方（普通）"]), c.hosp, q)
    d.fields([num(r, c, "处方编号", r.choice(["处方编号", "NO", "处方号"])), ("费别", insurance(r)),
              ("姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)),
              num(r, c, r.choice(["门诊号", "ID号"])), ("科别", pl(c.dept)),
              ("临床诊断", pl(c.dx)), ("开具日期", F_date(r, c.visit)),
              ("住址/电话", F_addr(r, c, top=2) + pl(" ") + lab("PHONE", c.mobile)) if r.random() < 0.25 else ("", None)])
    d.line(pl("Rp:"))
    for brand, gen, spec, dose, freq in c.drugs[:r.randint(1, 3)]:
        name = gen if r.random() < 0.5 else f"{gen}（{brand}）"
        d.line(pl(f"{name}  {spec}×{r.choice([7, 14, 24, 28, 30])}片/盒  ×{r.randint(1, 3)}盒"))
        d.line(pl("用法：" + r.choice(["口服", "po", "外用", "皮下注射"]) + " 每次") + lab("dose", dose) + pl(" " + freq))
        d.note("", lab("dose", dose))
    d.fields([staff(r, c, 0, "医师", True), staff(r, c, 2, r.choice(["审核药师", "审核"])),
              staff(r, c, 3, r.choice(["调配", "核对/发药"])), ("金额", pl(f"{r.randint(20, 600)}.{r.randint(0, 99):02d}元"))], "row")
    if r.random() < 0.3:
        d.line(pl("（处方当日有效，医保外配处方3日内有效）"))
    return d


def doc_lab(r, c, q):
    d = Doc(r, c, r.choice(["检验报告单", "临床检验报告单", "血常规检验报告", "生化检验报告单", "检 验 报 告 单"]), c.hosp, q)
    coll = c.visit
    d.fields([("姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)),
              num(r, c, r.choice(["ID号", "门诊号", "病历号", "住院号"])), num(r, c, r.choice(["标本号", "条码号"])),
              ("科别", pl(c.dept)), ("床号", pl(str(r.randint(1, 60))) if r.random() < 0.4 else pl("")),
              ("样本类型", pl(r.choice(["全血", "血清", "尿液", "血浆"]))), ("临床诊断", pl(c.dx))])
    items = r.sample(LABS, r.randint(3, 6))
    rows = []
    for i, it in enumerate(items):
        v = lab_value(r, it)
        flag = r.choice(["", "", "↑", "↓", "H", "L"])
        if r.random() < 0.5:
            cell = lab("lab", f"{it[0]} {v}" if r.random() < 0.5 else f"{it[1]} {it[0]} {v}")
            row = [pl(str(i + 1)), cell + pl(flag), pl(it[2]), lab("lab", it[6]) if it[6] != "—" else pl("—")]
        else:
            cell = lab("lab", f"{it[1]} {v}")
            row = [pl(it[0]), cell + pl(flag), pl(it[2]), lab("lab", it[6]) if it[6] != "—" else pl("—")]
        for cc in row:
            d.note("", cc)
        rows.append(row)
    d.table(["序号", "项目", "结果", "单位", "参考区间"] if r.random() < 0.3 else ["项目", "结果", "单位", "参考范围"], rows)
    d.fields([("采集时间", F_date(r, coll, with_time=True)), ("接收时间", F_date(r, coll, with_time=True)) if r.random() < 0.4
              else ("", None), ("报告时间", F_date(r, coll, with_time=True))], "row")
    d.fields([staff(r, c, 3, r.choice(["检验者", "检验", "检验医师"])), staff(r, c, 4, r.choice(["审核者", "审核"])),
              staff(r, c, 0, "送检医生") if r.random() < 0.4 else ("", None)], "row")
    if r.random() < 0.3:
        d.stamp("检验专用章")
    d.footer(addr=False, url=True)
    return d


def doc_imaging(r, c, q):
    mod = r.choice(["CT", "彩超", "MRI", "DR", "超声"])
    d = Doc(r, c, r.choice([f"{mod}检查报告单", f"{mod}诊断报告", "医学影像诊断报告", "超声检查报告"]), c.hosp, q)
    d.fields([("姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)),
              num(r, c, "检查号", r.choice(["检查号", "影像号", "登记号"])), num(r, c, r.choice(["门诊号", "住院号"])),
              ("检查部位", pl(r.choice(["甲状腺", "胸部", "腰椎", "上腹部", "双侧乳腺", "头颅", "子宫附件", "颈部血管"]))),
              ("检查日期", F_date(r, c.visit, with_time=r.random() < 0.3))])
    sz = f"{r.randint(3, 35) / 10}×{r.randint(3, 25) / 10}cm"
    sz2 = f"{r.randint(3, 30)}mm×{r.randint(3, 25)}mm"
    d.line(pl("检查所见：" + r.choice(["右叶", "左肺上叶", "肝右叶", "左侧乳腺", "L4/5椎间盘", "子宫前壁"]) + "见一")
           + pl(r.choice(["低回声结节", "磨玻璃结节", "低密度影", "等回声团块", "向后突出"])) + pl("，大小约")
           + lab("lab", r.choice([sz, sz2])) + pl("，" + r.choice(["边界清", "形态规则", "纵横比<1", "内见点状强回声"]) + "。"))
    d.line(pl("诊断意见：" + r.choice(["TI-RADS 3类", "BI-RADS 3类", "考虑良性", "建议随访", "腰4/5椎间盘突出", "胆囊结石"]) + "，"
              + r.choice(["建议", "请结合临床，"]) ) + lab("time", r.choice(["3个月后", "半年后", "一年后"])) + pl("复查"))
    d.fields([staff(r, c, 3, r.choice(["报告医师", "报告医生", "诊断医师"])), staff(r, c, 4, r.choice(["审核医师", "审核"])),
              ("报告日期", F_date(r, c.visit))], "row")
    d.footer(addr=False, url=True)
    return d


def doc_pathology(r, c, q):
    d = Doc(r, c, r.choice(["病理诊断报告书", "病理检查报告", "组织病理学诊断报告"]), c.hosp2, q)
    d.fields([num(r, c, "病理号"), ("姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)),
              ("送检医院", lab("HOSPITAL", c.hosp[0])), ("送检科室", pl(c.dept)), staff(r, c, 0, "送检医生"),
              num(r, c, "住院号"), ("送检日期", F_date(r, c.visit)), ("收到日期", F_date(r, add_days(*c.visit, 1)))])
    d.line(pl("肉眼所见：灰白组织" + r.choice(["一块", "两块", "数枚"]) + "，大小") + lab("lab", f"{r.randint(2, 30) / 10}×{r.randint(2, 20) / 10}×{r.randint(1, 9) / 10}cm"))
    d.line(pl("病理诊断：" + r.choice(["（甲状腺右叶）结节性甲状腺肿", "（胃窦）慢性非萎缩性胃炎，Hp（+）", "（乳腺）纤维腺瘤",
                                   "（结肠）管状腺瘤，低级别上皮内瘤变", "（胆囊）慢性胆囊炎伴胆囊结石"])))
    if r.random() < 0.4:
        d.line(pl("免疫组化：Ki-67（约") + lab("lab", f"{r.randint(1, 30)}%") + pl("+），" + r.choice(["CK19（+）", "Galectin-3（-）", "P53（野生型）"])))
    d.fields([staff(r, c, 3, "诊断医师"), staff(r, c, 4, "复核医师"), ("报告日期", F_date(r, add_days(*c.visit, r.randint(3, 7))))], "row")
    if r.random() < 0.5:
        d.stamp("病理诊断专用章")
    return d


def doc_discharge(r, c, q):
    d = Doc(r, c, r.choice(["出院小结", "出院记录", "出院证明书", "出 院 小 结"]), c.hosp, q)
    a = add_days(*c.visit, -r.randint(4, 20))
    d.fields([("姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)), ("科室", pl(c.dept)),
              ("床号", pl(f"{r.randint(1, 60)}床")), num(r, c, r.choice(["住院号", "住院号", "病案号"])),
              ("入院日期", F_date(r, a, with_time=r.random() < 0.3)), ("出院日期", F_date(r, c.visit))])
    days = f"{r.randint(4, 20)}天"
    d.line(pl("住院天数：") + lab("duration", days))
    d.line(pl("入院诊断：" + c.dx))
    v, lb, lb2 = VITALS[r.randrange(len(VITALS))](r), lab_text(r), lab_text(r)
    d.line(pl("入院情况：" + r.choice(["患者因", "患儿因"]) + r.choice(["胸闷", "发热咳嗽", "腹痛", "头晕"])
              + r.choice(["", "伴乏力"])) + lab("duration", r.choice(DURATIONS)) + pl("入院，查体：") + lab("vital", v) + pl("。"))
    d.line(pl("诊疗经过：入院后完善相关检查，") + lab("lab", lb) + pl("，") + lab("lab", lb2) + pl("，予" + c.drugs[1][1] + "等治疗。"))
    for t, k in ((v, "vital"), (lb, "lab"), (lb2, "lab")):
        c.values.append((t, k))
    d.line(pl("出院诊断：1." + c.dx + " 2." + r.choice(DIAGNOSES)[0]))
    drug = c.drugs[0]
    adv = pl("出院医嘱：1." + drug[1] + " ") + lab("dose", drug[3]) + pl(" " + drug[4] + "；2.")
    if r.random() < 0.5:
        adv += pl("于") + F_date(r, add_days(*c.visit, r.randint(7, 30)), r.choice(["md", "cn", "iso"])) + pl("复查")
        c.fields.append(("复查日期", adv[-2][0], "DATE"))
    else:
        adv += lab("time", r.choice(["1周后", "2周后", "1个月后", "出院后一周"])) + pl("门诊复查")
    adv += pl(r.choice(["；3.不适随诊。", "，" + c.dept + "门诊随访。", "。"]))
    d.line(merge_plain(adv))
    d.fields([staff(r, c, 0, r.choice(["主治医师", "经治医师", "医师签名"])), staff(r, c, 1, r.choice(["住院医师", "上级医师"]))], "row")
    d.footer()
    return d


def doc_admission(r, c, q):
    d = Doc(r, c, r.choice(["入院记录", "住院病案首页", "入 院 记 录"]), c.hosp, q)
    bp = c.home
    born = pl(bp.prov) if r.random() < 0.5 else lab("ADDRESS", bp.chain(r, top=0, depth=3 if not bp.muni else 2))
    d.fields([("姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)),
              ("出生日期", F_date(r, c.birth)) if r.random() < 0.6 else ("", None),
              ("民族", pl(r.choice(["汉族", "汉", "回族", "壮族", "满族", "土家族"]))), ("婚姻", pl(r.choice(["已婚", "未婚", "丧偶"]))),
              ("籍贯" if r.random() < 0.5 else "出生地", born),
              ("职业", pl(r.choice(["农民", "工人", "退休", "职员", "学生", "无"]))),
              ("身份证号", lab("ID", c.idno)), ("现住址", F_addr(r, c)),
              ("联系人", lab("NAME", c.rel.full)), ("关系", pl(c.relword[:1] if c.relword in ("儿子", "女儿") else c.relword)),
              ("联系电话", lab("PHONE", fmt_mobile(r, c.rel_mobile))),
              ("入院时间", F_date(r, add_days(*c.visit, -r.randint(1, 10)), with_time=True)),
              ("病史陈述者", pl("患者本人" if r.random() < 0.5 else "家属"))])
    d.line(pl("主诉：" + r.choice(["反复胸闷", "腹痛", "咳嗽", "头痛"])) + lab("duration", r.choice(DURATIONS)) + pl("，加重")
           + lab("duration", r.choice(["1天", "2天", "半天", "3天"])))
    d.line(pl("现病史：患者") + lab("time", r.choice(TIMES[:10])) + pl("起病，曾于") + lab("HOSPITAL", c.hosp3[0])
           + pl("就诊，" + r.choice(["未见好转", "症状反复", "予输液治疗"]) + "。"))
    v = VITALS[r.randrange(len(VITALS))](r)
    d.line(pl("体格检查：") + lab("vital", v) + pl("，") + lab("vital", VITALS[r.randrange(len(VITALS))](r)))
    d.fields([staff(r, c, 1, "记录医师"), ("记录时间", F_date(r, c.visit, with_time=True))], "row")
    return d


VACCINES = ["乙肝疫苗", "卡介苗", "脊灰灭活疫苗", "百白破疫苗", "麻腮风疫苗", "乙脑减毒活疫苗", "A群流脑多糖疫苗", "甲肝灭活疫苗",
            "13价肺炎球菌结合疫苗", "EV71疫苗", "水痘疫苗", "流感疫苗"]


def doc_vaccination(r, c, q):
    d = Doc(r, c, r.choice(["预防接种证", "儿童预防接种证", "预防接种记录"]), None, q)
    d.fields([("儿童姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("出生日期", F_date(r, c.birth)),
              ("监护人姓名", lab("NAME", c.rel.full)), ("与儿童关系", pl("父亲" if c.relword == "爸爸" else "母亲")),
              ("联系电话", lab("PHONE", fmt_mobile(r, c.rel_mobile))), ("家庭现住址", F_addr(r, c, top=r.choice([0, 1, 2]))),
              ("户籍地址", lab("ADDRESS", c.home.chain(r, top=0, depth=4))) if r.random() < 0.3 else ("", None),
              num(r, c, "建档号", r.choice(["儿童编码", "建档号", "接种编号"]))])
    unit = c.hosp3 if r.random() < 0.5 else (local_hospital(r, c.home, "community") if r.random() < 0.6 else
                                             (c.home.county + "疾病预防控制中心", None))
    rows = []
    day = c.birth
    for v in r.sample(VACCINES, r.randint(2, 4)):
        day = add_days(*day, r.randint(20, 90))
        rows.append([pl(v), pl(r.choice(["第1剂", "第2剂", "第3剂", "加强"])), lab("DATE", fmt_date(r, day, r.choice(["iso", "dot", "slash"]))),
                     pl(r.choice(["", "批号"]) + f"{r.choice(['2023', '2024', 'A', 'B'])}{digits(r, 5)}"),
                     lab("NAME", r.choice(c.docs[2:]).full) if r.random() < 0.7 else pl("")])
    d.table(["疫苗名称", "剂次", "接种日期", "疫苗批号", "接种者"], rows)
    d.fields([("接种单位", lab("HOSPITAL", unit[0]))], "kv")
    d.hosp = unit
    if r.random() < 0.5:
        d.stamp("预防接种专用章")
    if r.random() < 0.5:
        d.line(pl("下次接种：") + lab("time", r.choice(["满6月龄", "8月龄", "18月龄", "1个月后"])) + pl(" 请按时接种"))
    return d


def doc_birth(r, c, q):
    d = Doc(r, c, r.choice(["出生医学证明", "出生医学证明（副页）", "新生儿出生记录"]), None, q)
    mom = c.rel if c.rel.sex == "女" else Person(r, "女", c.rel.birth_year + 2, c.home.prov)
    dad = c.rel if c.rel.sex == "男" else Person(r, "男", c.rel.birth_year - 2, c.home.prov, sur=c.pat.sur or None)
    wt = f"{r.randint(2600, 4100)}g"
    ln = f"{r.randint(46, 54)}cm"
    c.values += [(wt, "vital"), (ln, "vital")]
    d.fields([num(r, c, "出生证编号", "编号"), ("新生儿姓名", F_name(c)), ("性别", pl(c.pat.sex)),
              ("出生时间", F_date(r, c.birth, r.choice(["cn", "upper"])) + pl(" ") + lab("time", f"{r.randint(0, 23)}时{r.randint(0, 59)}分")),
              ("出生孕周", lab("duration", f"{r.randint(37, 41)}+{r.randint(0, 6)}周")), ("出生体重", lab("vital", wt)),
              ("出生身长", lab("vital", ln)),
              ("出生地点", lab("ADDRESS", c.home.chain(r, top=0, depth=3 if not c.home.muni else 2))),
              ("母亲姓名", lab("NAME", mom.full)), ("母亲年龄", lab("age", f"{c.birth[0] - mom.birth_year}")),
              ("国籍", pl("中国")), ("民族", pl("汉族")),
              ("母亲身份证件号码", lab("ID", id_number(r, c.home.pcode, mom.birth_year, r.randint(1, 12), r.randint(1, 28), "女"))),
              ("父亲姓名", lab("NAME", dad.full))])
    unit = c.hosp if r.random() < 0.7 else local_hospital(r, c.home, "county")
    d.fields([("接生机构名称", lab("HOSPITAL", unit[0])), ("签发日期", F_date(r, add_days(*c.birth, r.randint(3, 30))))], "kv")
    d.hosp = unit
    d.stamp("出生医学证明专用章")
    return d


def doc_exam(r, c, q):
    unit = local_hospital(r, c.home, "chain") if r.random() < 0.5 else c.hosp
    d = Doc(r, c, r.choice(["健康体检报告", "入职体检表", "学生健康体检表", "从业人员健康检查表", "公务员录用体检表"]), unit, q)
    h, w = r.randint(150, 186), r.randint(45, 95)
    d.fields([num(r, c, "体检编号"), ("姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)),
              ("身份证号", lab("ID", c.idno)), ("联系电话", lab("PHONE", fmt_mobile(r, c.mobile))) if r.random() < 0.6 else ("", None),
              ("电子邮箱", lab("EMAIL", email(r, c))) if r.random() < 0.5 else ("", None),
              ("体检日期", F_date(r, c.visit))])
    d.line(pl("一般检查：") + lab("vital", f"身高{h}cm") + pl(" ") + lab("vital", f"体重{w}kg") + pl(" ")
           + lab("vital", f"血压{r.randint(100, 150)}/{r.randint(60, 96)}mmHg") + pl(" ") + lab("vital", f"心率{r.randint(60, 100)}次/分"))
    d.line(pl("视力：左") + lab("vital", f"{r.choice(['4.6', '4.8', '5.0', '5.1'])}") + pl(" 右") + lab("vital", f"{r.choice(['4.7', '4.9', '5.0'])}"))
    d.line(pl("实验室检查：") + lab("lab", lab_text(r)) + pl("  ") + lab("lab", lab_text(r)) + pl("  乙肝表面抗原：阴性"))
    d.line(pl("胸部X线：" + r.choice(["未见明显异常", "双肺纹理增粗", "心肺膈未见异常"]) + "  心电图：" + r.choice(["窦性心律", "正常心电图", "窦性心动过缓"])))
    d.line(pl("体检结论：" + r.choice(["合格", "未见明显异常", "建议复查肝功能", "甲状腺结节，建议专科随诊"])))
    d.fields([staff(r, c, 2, "主检医师"), ("总检日期", F_date(r, add_days(*c.visit, r.randint(1, 5))))], "row")
    d.stamp("体检专用章")
    d.footer(url=True)
    return d


def doc_appointment(r, c, q):
    d = Doc(r, c, r.choice(["预约挂号凭条", "挂号单", "门诊预约单", "预约成功凭证"]), c.hosp2, q)
    when = add_days(*c.today, r.randint(2, 20))
    a = r.randint(8, 16)
    d.fields([("患者姓名", F_name(c)), num(r, c, r.choice(["就诊卡号", "ID号"])), ("科室", pl(c.dept)),
              ("医生", lab("NAME", c.docs[4].full) + pl(r.choice(["（主任医师）", "（副主任医师）", " 专家", ""]))),
              ("就诊日期", F_date(r, when, r.choice(["iso", "cn", "slash"])) + pl(" ") + lab("time", f"{a:02d}:00-{a:02d}:30")),
              ("就诊序号", pl(str(r.randint(1, 60)))), ("挂号费", pl(f"{r.choice([10, 20, 30, 50, 100])}.00元")),
              num(r, c, r.choice(["预约码", "流水号"]), r.choice(["预约码", "取号密码", "交易流水号"])),
              ("就诊地点", pl(r.choice(["门诊楼3楼B区", "内科楼2楼", "门诊二楼", "综合楼5楼"])))])
    d.line(pl(r.choice(["请提前30分钟到自助机签到", "爽约3次将限制预约", "请携带身份证或医保卡就诊"])))
    d.footer(addr=r.random() < 0.5, phone=True)
    return d


def doc_consent(r, c, q):
    d = Doc(r, c, r.choice(["手术知情同意书", "麻醉知情同意书", "输血治疗知情同意书", "胃肠镜检查知情同意书"]), c.hosp, q)
    d.fields([("患者姓名", F_name(c)), ("性别", pl(c.pat.sex)), ("年龄", F_age(r, c)), num(r, c, "住院号"),
              ("拟行手术", pl(r.choice(["腹腔镜胆囊切除术", "甲状腺右叶切除术", "无痛胃镜", "腰椎间盘髓核摘除术", "经皮冠脉介入术"])))])
    d.line(pl("医生已向我详细告知手术风险，包括但不限于出血、感染、麻醉意外……我已知晓并同意。"))
    d.fields([("患者签名", F_name(c)), ("被委托人签名", lab("NAME", c.rel.full)),
              ("与患者关系", pl(c.relword)), ("联系电话", lab("PHONE", fmt_mobile(r, c.rel_mobile))),
              staff(r, c, 0, "谈话医师"), ("签字日期", F_date(r, c.visit, with_time=True))], r.choice(["row", "kv"]))
    return d


DRUG_MAKERS = ["扬子江药业集团有限公司", "石药集团欧意药业有限公司", "齐鲁制药有限公司", "修正药业集团股份有限公司",
               "哈药集团制药总厂", "上海信谊药厂有限公司", "华润双鹤药业股份有限公司", "北京同仁堂科技发展股份有限公司",
               "云南白药集团股份有限公司", "广州白云山制药股份有限公司", "拜耳医药保健有限公司", "辉瑞制药有限公司"]


def doc_drugbox(r, c, q):
    """A photographed drug box: no personal identifier, every number a hard negative."""
    brand, gen, spec, dose, freq = r.choice(DRUGS)
    d = Doc(r, c, f"{gen}", None, q)
    y = r.randint(2022, 2025)
    d.line(pl(f"规格：{spec}"))
    d.line(pl(f"国药准字H{r.randint(1990, 2023)}{digits(r, 4)}"))
    d.line(pl(f"生产批号：{str(y)[2:]}{r.randint(1, 12):02d}{digits(r, 3)}  生产日期：{y}{r.randint(1, 12):02d}{r.randint(1, 28):02d}"))
    d.line(pl(f"有效期至：{y + 2}.{r.randint(1, 12):02d}"))
    d.line(pl("用法用量：口服，一次") + lab("dose", dose) + pl("，" + freq + "或遵医嘱。"))
    d.line(pl("生产企业：" + r.choice(DRUG_MAKERS)))
    d.line(pl("OTC" if r.random() < 0.3 else "处方药"))
    return d


def doc_antenatal(r, c, q):
    unit = local_hospital(r, c.home, r.choice(["community", "county", "city"]))
    d = Doc(r, c, r.choice(["孕产妇保健手册", "母子健康手册", "产检记录", "孕期检查报告"]), unit, q)
    lmp = add_days(*c.today, -r.randint(60, 250))
    edd = add_days(*lmp, 280)
    w = r.randint(8, 38)
    husband = c.rel
    d.fields([num(r, c, "建档号"), ("孕妇姓名", F_name(c)), ("年龄", F_age(r, c)), ("身份证号", lab("ID", c.idno)),
              ("丈夫姓名", lab("NAME", husband.full)), ("丈夫电话", lab("PHONE", fmt_mobile(r, c.rel_mobile))),
              ("现住址", F_addr(r, c)), ("末次月经", F_date(r, lmp)), ("预产期", F_date(r, edd))])
    d.line(pl("孕周：") + lab("duration", f"{w}+{r.randint(0, 6)}周") + pl("  ") + lab("vital", f"体重{r.randint(50, 85)}kg")
           + pl("  ") + lab("vital", f"血压{r.randint(95, 140)}/{r.randint(60, 92)}mmHg") + pl("  胎心：") + lab("vital", f"{r.randint(120, 160)}次/分"))
    d.line(pl("宫高") + lab("vital", f"{r.randint(18, 34)}cm") + pl("  ") + lab("lab", lab_text(r)))
    d.fields([staff(r, c, 2, "检查者"), ("下次产检", F_date(r, add_days(*c.today, r.randint(7, 28)), r.choice(["md", "iso"])))], "row")
    return d


def email(r, c):
    base = r.choice([c.mobile[-8:], "".join(r.choice("abcdefghjkmnpqrstwxyz") for _ in range(r.randint(4, 8))),
                     "zhang" + digits(r, 3), "lily" + str(c.birth[0]), "wx" + digits(r, 6), "sun_" + digits(r, 4)])
    if r.random() < 0.3:
        base = str(r.randint(10000000, 999999999))
        return base + "@qq.com"
    return base + r.choice(["@163.com", "@126.com", "@qq.com", "@sina.com", "@foxmail.com", "@hotmail.com", "@139.com"])


DOC_TYPES = [
    ("outpatient", doc_outpatient, "门诊病历", 10), ("certificate", doc_certificate, "诊断证明", 8),
    ("referral", doc_referral, "转诊单", 6), ("settlement", doc_settlement, "结算单", 6), ("receipt", doc_receipt, "发票", 5),
    ("prescription", doc_prescription, "处方", 8), ("lab", doc_lab, "化验单", 12), ("imaging", doc_imaging, "报告", 7),
    ("pathology", doc_pathology, "病理报告", 4), ("discharge", doc_discharge, "出院小结", 8),
    ("admission", doc_admission, "入院记录", 4), ("vaccination", doc_vaccination, "接种本", 0),
    ("birth", doc_birth, "出生证明", 0), ("exam", doc_exam, "体检报告", 5), ("appointment", doc_appointment, "挂号单", 5),
    ("consent", doc_consent, "同意书", 3), ("drugbox", doc_drugbox, "药盒", 5), ("antenatal", doc_antenatal, "产检本", 0),
]


# ----------------------------------------------------------------------------------------------------------
# chat around the documents
# ----------------------------------------------------------------------------------------------------------

SYMPTOMS = ["头晕", "胸闷", "咳嗽", "发烧", "肚子疼", "腰疼", "起疹子", "心慌", "失眠", "拉肚子", "手脚发麻", "乏力", "胃胀",
            "关节疼", "嗓子疼", "尿频"]


def _wrong_name(r, full):
    chars = list(full)
    idx = [i for i, ch in enumerate(chars) if ch in CONF and i > 0]
    if idx:
        i = r.choice(idx)
        chars[i] = CONF[chars[i]]
        return "".join(chars)
    homo = {"明": "铭", "华": "桦", "军": "君", "静": "晶", "丽": "莉", "伟": "玮", "强": "蔷", "平": "萍", "英": "瑛",
            "芳": "方", "红": "宏", "杰": "洁", "浩": "皓", "涛": "韬", "宇": "雨", "梅": "玫", "霞": "侠", "勇": "永"}
    for i in range(len(chars) - 1, 0, -1):
        if chars[i] in homo:
            chars[i] = homo[chars[i]]
            return "".join(chars)
    return full[:-1] + ("兰" if full[-1] != "兰" else "岚")


def _mrn_field(c):
    for lb, v, cat in c.fields:
        if cat in ("MRN", "ORDER_ID"):
            return lb, v, cat
    return None


def slot(r, c, name):
    p = c.pat
    if name == "P":
        return lab("NAME", p.full)
    if name == "Pg":
        if c.kind == "child" and p.nick:
            return lab("NAME", p.nick)
        return lab("NAME", p.short(r))
    if name == "Pw":
        return lab("NAME", _wrong_name(r, p.full))
    if name == "R":
        return lab("NAME", c.rel.full)
    if name == "D":
        return lab("NAME", c.docs[0].full)
    if name in ("Ds", "Ds2"):
        d = c.docs[0 if name == "Ds" else 4]
        return lab("NAME", d.sur or d.full)
    if name == "H":
        h = c.hosp
        return lab("HOSPITAL", h[1] if h[1] and r.random() < 0.5 else h[0])
    if name == "H2":
        h = c.hosp2
        return lab("HOSPITAL", h[1] if h[1] and r.random() < 0.6 else h[0])
    if name == "H3":
        return lab("HOSPITAL", c.hosp3[0])
    if name == "city":
        return lab("ADDRESS", c.home.city_alone(r))
    if name == "county":
        return lab("ADDRESS", c.home.county_alone(r))
    if name == "town":
        t = c.home.town if r.random() < 0.6 else c.home.county + c.home.town
        return lab("ADDRESS", t)
    if name == "village":
        return lab("ADDRESS", c.home.village + (c.home.group if r.random() < 0.5 else ""))
    if name == "addr":
        return lab("ADDRESS", c.home.chain(r))
    if name == "phone":
        return lab("PHONE", fmt_mobile(r, c.mobile))
    if name == "rphone":
        return lab("PHONE", fmt_mobile(r, c.rel_mobile))
    if name == "idno":
        return lab("ID", c.idno)
    if name == "date":
        return lab("DATE", fmt_date(r, c.visit, r.choice(["md", "md", "cn", "iso"])))
    if name == "date2":
        return lab("DATE", fmt_date(r, c.date_near(60, 400), r.choice(["md", "cn", "ym", "iso"])))
    if name == "appt":
        y, m, d = add_days(*c.today, r.randint(2, 20))
        return lab("DATE", r.choice([f"{m}/{d}", f"{m}.{d}", f"{m}月{d}号"]))
    if name == "mrn":
        f = _mrn_field(c)
        if f is None:
            return lab("MRN", c.num("住院号", NUMS["住院号"]))
        return lab(f[2], f[1])
    if name == "order":
        return lab("ORDER_ID", c.num("转诊单号", NUMS["转诊单号"]))
    if name == "wx":
        return lab("URL", r.choice(["wxid_" + _up(r, 10).lower(), c.pat.full and ("a" + c.mobile[-6:]), "Lily" + digits(r, 4),
                                    c.mobile, str(r.randint(10000000, 999999999))]))
    if name == "mail":
        return lab("EMAIL", email(r, c))
    if name == "link":
        return lab("URL", r.choice(["https://", "http://", ""]) + r.choice(["m.haodf.com/s/", "t.cn/", "dwz.cn/", "wj.qq.com/s2/",
                                                                            "pan.baidu.com/s/1"]) + _up(r, 7))
    # keep kinds
    if name == "age":
        return lab("age", age_text(r, c.age))
    if name == "dur":
        return lab("duration", r.choice(DURATIONS))
    if name == "dose":
        return lab("dose", c.drugs[0][3])
    if name == "lab":
        vals = [v for v in c.values if v[1] == "lab"]
        if vals and r.random() < 0.5:
            t, k = r.choice(vals)
            return lab(k, t)
        return lab("lab", lab_text(r))
    if name == "vital":
        return lab("vital", VITALS[r.randrange(len(VITALS))](r))
    if name == "time":
        return lab("time", r.choice(TIMES))
    if name == "year":
        return lab("time", f"{r.randint(2008, c.year - 1)}年")
    if name == "month":
        return lab("time", f"{r.randint(1, 12)}月份")
    # plain words, hard negatives among them
    if name == "pw":
        return pl(c.pword)
    if name == "sym":
        return pl(c.sym if r.random() < 0.7 else r.choice(SYMPTOMS))
    if name == "ftime":
        return lab("time", r.choice(FUTURE))
    if name == "dx":
        return pl(c.dx)
    if name == "drug":
        return pl(c.drugs[0][1] if r.random() < 0.5 else c.drugs[0][0])
    if name == "freq":
        return pl(c.drugs[0][4])
    if name == "dept":
        return pl(c.dept)
    if name == "brand":
        return pl(r.choice(BRAND_NEG))
    if name == "epo":
        return pl(r.choice(EPONYMS))
    if name == "food":
        return pl(r.choice(FOODS))
    if name == "sword":
        return pl(r.choice(SURNAME_WORDS)[1])
    if name == "nword":
        return pl(r.choice(NAMEY_WORDS))
    if name == "plat":
        return pl(r.choice(PLATFORMS))
    if name == "hg":
        return pl(r.choice(GENERIC_HOSP))
    if name == "svc":
        return pl(r.choice(SERVICE_NUMS)[1])
    if name == "prov":
        pv = c.home.prov
        return pl(PROV_SHORT.get(pv, pv[:-1]) if r.random() < 0.6 else pv)
    if name == "labname":
        return pl(r.choice(LABS)[r.choice([0, 1])])
    if name == "docname":
        return pl(c.cur_doc)
    raise KeyError(name)


_SLOT = re.compile(r"\{(\w+)\}")


def fill(r, c, tpl):
    out = []
    for i, piece in enumerate(_SLOT.split(tpl)):
        if i % 2:
            out += slot(r, c, piece)
        elif piece:
            out += pl(piece)
    return merge_plain(out)


P_OPEN_ID = [
    "医生您好，{pw}叫{P}，{age}，最近{dur}一直{sym}",
    "您好，帮{pw}问一下，{pw}在{H}{dept}看的，说是{dx}",
    "医生好，我是{P}的家属，想问下{pw}的情况",
    "在吗医生？我们是{city}的，{pw}{age}，{dx}好几年了",
    "大夫您好，{pw}{P}，{date}在{H}做的检查，单子我发您",
    "您好，{Ds}主任让我们找您看看，{pw}{age}",
    "医生，我们在{county}，这边只有{hg}，{pw}{sym}{dur}了",
    "你好医生，{P}，{age}，{date}查出来{dx}",
]
P_OPEN_CLIN = [
    "医生你好，{pw}{age}，{dur}前开始{sym}，{vital}，需要去医院吗",
    "在吗医生，想咨询下{dx}的问题",
    "您好，{pw}最近{dur}{sym}，{time}在{hg}查了{lab}",
    "医生，{pw}{age}，{sword}，{vital}",
    "您好，{pw}{dur}{sym}，之前说是{epo}，吃了{brand}没用",
    "医生好，我是{prov}的，{pw}{sym}{dur}了，{hg}让去{hg}看",
    "你好，{pw}{time}吃了{food}以后就{sym}，{nword}",
]
D_ASK = [
    "您好，{sym}是持续的还是一阵一阵的？之前有没有查过？",
    "之前有没有高血压、糖尿病？现在吃什么药？",
    "方便把检查单子发过来看看吗？",
    "有没有去医院做过检查？有的话把报告拍照发我。",
    "最近{vital}吗？有没有其他不舒服？",
    "多久了？体温最高多少？",
    "以前有过类似情况吗？",
]
P_CLIN = [
    "{dur}了，{time}最厉害，{vital}",
    "在吃{drug}，每次{dose}，{freq}",
    "以前{hg}说是{dx}，{year}查出来的",
    "{sword}，{nword}",
    "没有高血压，就是{sym}，{month}开始的",
    "{time}量了一下{vital}，{time}又量是{vital}",
    "之前在{plat}上问过，说要查{labname}",
    "{svc}，当时{vital}",
    "吃了{brand}，没什么用，{sword}",
    "{epo}会不会遗传？家里人有",
    "平时爱吃{food}，是不是跟这个有关系",
    "{lab}，这个要紧吗",
    "孩子{age}，{vital}，精神还行",
    "有，{dur}前开始的，{lab}",
]
INTRO_PLAIN = ["看看这个单子", "这是{docname}，拍得不太清楚", "[图片]", "医生您看下这张", "发您看看", "单子上的字我看不懂，您帮忙看看",
               "识别出来的字有点乱，您将就看", "[图片] [图片]", "这是{docname}", "我把{docname}拍下来了", "刚拿到的{docname}",
               "图片发不了，我用文字识别复制过来了", "[图片文字识别]", "第二张是{docname}", "您看这个{docname}有问题吗"]
INTRO_ID = ["这是上次在{H}开的{docname}", "{date}在{H}拿的{docname}", "这张是{H2}的，{date}做的", "{pw}{P}的{docname}，您看下",
            "这是{H3}开的{docname}"]
D_READ = [
    "看到了，{lab}偏高，其他基本正常",
    "报告看了，问题不大，{ftime}复查就行",
    "这个{dx}需要规律吃药，{drug}每次{dose}，{freq}",
    "从单子上看，{lab}，需要注意一下",
    "片子看了，结节不大，{ftime}复查彩超就行",
    "{dx}不用太担心，{drug}继续吃，{dur}后复查{labname}",
    "单子拍糊了，{labname}那一栏看不清，能再拍一张吗？",
    "这个结果说明控制得还可以，{vital}的话药先不用加",
    "下次发图片可以把姓名、身份证号和电话遮一下，保护隐私。",
]
D_FIELD = ["单子上{label}那一栏写的是{value}吗？看不太清", "照片里{label}有点糊，是{value}吧？", "{label}是{value}对吧？我帮您备注一下",
           "这个{label}{value}是您本人的吗？"]
P_DOCQ = [
    "{date}那次查的{lab}，现在还要复查吗", "{H}的医生说是{dx}，您觉得呢", "{Ds}医生让吃{drug}，要吃多久",
    "这是{H2}的报告，和{H}的结果不一样，听哪个的", "单子上写的{appt}复查，到时候挂您的号吗", "{date}出院的，回家以后还是{sym}",
    "{pw}{Pg}这两天{vital}，单子上的药还吃吗", "在{H3}复查过一次，{lab}", "{Ds}主任说{ftime}要再做一次，有必要吗",
    "{date2}也查过一次，那时候{lab}",
]
D_READ_ID = [
    "{H}的报告看了，{lab}偏高，其他还行", "{date}的结果和这次比，好一些了", "{Ds}医生开的{drug}可以继续吃，每次{dose}",
    "{Pg}的片子我看了，结节不大，{ftime}复查", "{P}的单子看过了，{dx}诊断没问题", "{H}的诊断是对的，按{Ds}医生的方案治疗就行",
    "从{date}的化验看，{lab}，需要调药", "{H2}那边的检查更全一点，可以去{dept}再看看",
]
P_FIELD_YES = ["对的", "是的", "嗯，是", "对，没错", "是的医生"]
P_CORRECT = ["识别错了，应该是{value}", "不对，{label}是{value}，拍的时候反光了", "那个字识别错了，是{value}",
             "更正一下：{value}"]
D_ADVICE = [
    "建议{drug}每次{dose}，{freq}，先吃{dur}，{ftime}复查{labname}",
    "先观察{dur}，如果{vital}以上要及时就医",
    "注意休息，少吃{food}这类重口味的，{ftime}复查",
    "{dx}一般不传染，{drug}按时吃，{dur}后复查",
    "这种情况{hg}就能处理，不用专门跑大医院",
    "可以继续用{drug}，每次{dose}，如果{sym}加重就去{hg}急诊",
    "{epo}和这个没关系，不用担心",
    "{plat}上可以复诊续方，药吃完了再来找我",
    "孩子{age}的话，{drug}每次{dose}就够了",
]
D_ID = [
    "{P}您好，单子都看过了",
    "建议去{H2}{dept}看看，可以挂{Ds2}主任的号",
    "住院号{mrn}我这边查到了，结果都在系统里",
    "转诊单我开好了，单号{order}，拿着去窗口登记",
    "可以预约{appt}上午来门诊，带上之前的片子",
    "{Ds}主任的意见我同意，按他说的来",
    "您这个情况在{H}就能做，不用来{city}",
    "好的{Pg}，有事再联系",
]
P_ID = [
    "名字打错了，写成{Pw}了，{pw}叫{P}",
    "地址那栏写的是老家的，现在住在{addr}",
    "能加您微信吗？我的是{wx}",
    "报告能发我邮箱吗？{mail}",
    "我们在{city}，去{H2}远不远？",
    "我医保是{prov}的，在{city}看病能报吗",
    "有事可以打{pw}{R}的电话{rphone}",
    "我电话{phone}，方便的话打给我",
    "之前在{H3}看过，{date2}",
    "我是{prov}人，现在在{city}打工，回老家{town}不方便",
    "我们村是{village}的，离{county}挺远",
    "{Ds}医生说要复查，我预约了{appt}",
    "网上说要看这个链接 {link}",
    "单位体检报告发到我邮箱{mail}了，我转给您",
    "原图太大发不了，能发邮件吗？我的邮箱{mail}",
    "{pw}住{addr}，离{H}近一点",
    "我们是{town}的，{pw}在那边{H3}看过",
]
D_DECLINE = ["平台内沟通就可以，不方便加微信", "报告在平台上就能看，不用发邮箱", "好的，我这边记下了", "可以的，医保异地备案后能报"]
P_ASKDOC = ["这个{docname}能报销吗？{plat}上怎么弄", "单位要病假条，您这能开诊断证明吗", "能帮忙开个转诊单吗？我们想去{hg}",
            "药吃完了，能续方吗", "请问诊断证明上要写休息多久", "这个发票丢了能补吗？保险公司要"]
P_CLOSE = ["谢谢医生", "好的，谢谢您", "明白了，麻烦您了🙏", "好的好的，谢谢大夫", "知道了，谢谢", "收到，辛苦了"]
D_CLOSE = ["不客气，有问题随时联系", "祝早日康复", "不客气，{Pg}多保重", "{Pg}按时吃药，{appt}来复查", "好的{P}，祝早日康复"]


# ----------------------------------------------------------------------------------------------------------
# consultations
# ----------------------------------------------------------------------------------------------------------

def doc_weights(c):
    out = []
    for key, fn, word, w in DOC_TYPES:
        if key == "vaccination" and c.kind == "child":
            w = 10
        if key == "birth" and c.kind == "child" and c.age <= 1:
            w = 8
        if key == "antenatal" and c.kind == "woman":
            w = 8
        if key in ("exam", "consent", "admission") and c.kind == "child":
            w = 1
        out += [(key, fn, word)] * w
    return out


def split_doc(r, parts):
    """Cut a long pasted document into two messages at a line break (pasted in two goes)."""
    idx = [i for i, (t, cat) in enumerate(parts) if cat is None and "\n" in t]
    if len(idx) < 3:
        return [parts]
    i = r.choice(idx[len(idx) // 2:])
    t = parts[i][0]
    k = t.index("\n")
    first = parts[:i] + ([(t[:k], None)] if t[:k] else [])
    second = ([(t[k + 1:], None)] if t[k + 1:] else []) + parts[i + 1:]
    first, second = merge_plain(first), merge_plain(second)
    if not first or not second:
        return [parts]
    return [first, second]


def consultation(r, c):
    """A list of (role, parts)."""
    out = []

    def P(parts):
        out.append(("patient", parts))

    def D(parts):
        out.append(("doctor", parts))

    c.cur_doc = "单子"
    P(fill(r, c, r.choice(P_OPEN_ID if r.random() < 0.6 else P_OPEN_CLIN)))
    D(fill(r, c, r.choice(D_ASK)))
    P(fill(r, c, r.choice(P_CLIN)))
    if r.random() < 0.2:
        P(fill(r, c, r.choice(P_CLIN)))
    pool = doc_weights(c)
    used = []
    for k in range(r.choice([1, 2, 2, 2, 3, 3, 4])):
        key, fn, word = r.choice(pool)
        if key in used and r.random() < 0.8:
            continue
        used.append(key)
        c.cur_doc = word
        q = r.choice([0, 1, 1, 2, 2, 3])
        nmis = len(c.misread)
        c.fields = []
        doc = fn(r, c, q).render()
        x = r.random()
        if x < 0.4:        # the intro in a message of its own
            P(fill(r, c, r.choice(INTRO_ID if r.random() < 0.6 else INTRO_PLAIN)))
            body = [doc]
        elif x < 0.75:     # intro line then the text
            body = [merge_plain(fill(r, c, r.choice(INTRO_PLAIN + INTRO_ID[:2])) + pl(r.choice(["\n", "：\n", "\n\n", " "])) + doc)]
        else:
            body = [doc]
        if r.random() < 0.15:
            body = split_doc(r, body[0])
        for b in body:
            P(b)
        # the doctor reads it
        if r.random() < 0.55 and c.fields:
            lb, v, cat = r.choice([f for f in c.fields if f[0]] or c.fields)
            lb = lb or "这一栏"
            a, b = r.choice(D_FIELD).replace("{label}", lb).split("{value}")
            D(merge_plain(pl(a) + lab(cat, v) + pl(b)))
            if r.random() < 0.5:
                P(pl(r.choice(P_FIELD_YES)))
            else:
                P(merge_plain(pl(r.choice(["是的，", "对，", "嗯 ", "没错，"])) + lab(cat, v)))
        else:
            D(fill(r, c, r.choice(D_READ_ID if r.random() < 0.6 else D_READ)))
        if len(c.misread) > nmis and r.random() < 0.6:
            cat, v = c.misread[-1]
            word = {"NAME": "名字", "PHONE": "电话", "ID": "身份证号", "DATE": "日期", "MRN": "号码", "ORDER_ID": "单号",
                    "HOSPITAL": "医院名字", "ADDRESS": "地址", "URL": "网址", "EMAIL": "邮箱"}[cat]
            tpl = r.choice(P_CORRECT).replace("{label}", word)
            a, b = tpl.split("{value}")
            P(merge_plain(pl(a) + lab(cat, v) + pl(b)))
        if r.random() < 0.45:
            P(fill(r, c, r.choice(P_DOCQ if r.random() < 0.75 else P_CLIN)))
            D(fill(r, c, r.choice(D_READ_ID if r.random() < 0.4 else D_ADVICE)))
    D(fill(r, c, r.choice(D_ADVICE if r.random() < 0.5 else D_READ_ID)))
    if r.random() < 0.75:
        P(fill(r, c, r.choice(P_ID)))
        D(fill(r, c, r.choice(D_DECLINE + D_ID)))
    if r.random() < 0.3:
        c.cur_doc = r.choice(["诊断证明", "发票", "结算单", "病历"])
        P(fill(r, c, r.choice(P_ASKDOC)))
        if r.random() < 0.6:
            key, fn, word = r.choice([("certificate", doc_certificate, "诊断证明"), ("prescription", doc_prescription, "处方"),
                                      ("referral", doc_referral, "转诊单")])
            c.fields = []
            doc = fn(r, c, 0).render()
            D(merge_plain(pl(r.choice(["给您开好了，电子" + word + "如下：\n", "已开具" + word + "：\n", ""])) + doc))
        else:
            D(fill(r, c, r.choice(D_ADVICE + ["可以的，在平台上申请就行"])))
    if r.random() < 0.45:
        D(fill(r, c, r.choice(D_ID)))
    if r.random() < 0.7:
        P(pl(r.choice(P_CLOSE)))
    if r.random() < 0.5:
        D(fill(r, c, r.choice(D_CLOSE)))
    return out


def to_message(role, parts, ci):
    text, spans, keep, pos = [], [], [], 0
    for t, cat in parts:
        if cat is not None:
            s = t.strip()
            lead = len(t) - len(t.lstrip())
            if s:
                a, b = pos + lead, pos + lead + len(s)
                (spans if cat.isupper() else keep).append([a, b, cat])
        text.append(t)
        pos += len(t)
    return {"text": "".join(text), "role": role, "consultation": ci, "spans": spans, "keep": keep}


def generate(seed: int, n: int) -> list[dict]:
    """The first n messages of the endless stream of consultations for this seed."""
    r = random.Random(seed)
    out = []
    ci = 0
    while len(out) < n:
        c = Case(r)
        for role, parts in consultation(r, c):
            if len(out) >= n:
                break
            out.append(to_message(role, merge_plain(parts), ci))
        ci += 1
    return out


# ----------------------------------------------------------------------------------------------------------
# checks and the command line
# ----------------------------------------------------------------------------------------------------------

CORPUS_SHA256 = "63206b374e240a2531a75a0e9942a786d184620dc8358bb56bc8c23b85dfc6c7"


def corpus_sha256(seed: int = 0, n: int = 3000) -> str:
    return hashlib.sha256(json.dumps(generate(seed, n), ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def check(messages: list[dict]) -> None:
    """Raise on a malformed message: offsets, edges, overlaps, labels, consecutive consultations."""
    last = -1
    for i, m in enumerate(messages):
        t = m["text"]
        if m["role"] not in ("patient", "doctor"):
            raise ValueError(f"message {i}: role {m['role']!r}")
        if m["consultation"] < last or m["consultation"] > last + 1:
            raise ValueError(f"message {i}: consultation {m['consultation']} after {last}")
        last = m["consultation"]
        allspans = [(a, b, c, "span") for a, b, c in m["spans"]] + [(a, b, c, "keep") for a, b, c in m["keep"]]
        for kind, lst, names in (("span", m["spans"], CATEGORIES), ("keep", m["keep"], KEEP_KINDS)):
            if lst != sorted(lst):
                raise ValueError(f"message {i}: {kind}s not sorted")
            for a, b, c in lst:
                if c not in names:
                    raise ValueError(f"message {i}: label {c!r}")
                if not (0 <= a < b <= len(t)):
                    raise ValueError(f"message {i}: offsets {a}, {b}")
                if t[a].isspace() or t[b - 1].isspace():
                    raise ValueError(f"message {i}: whitespace at the edge of {t[a:b]!r}")
        allspans.sort()
        for (a1, b1, c1, k1), (a2, b2, c2, k2) in zip(allspans, allspans[1:], strict=False):
            if a2 < b1:
                raise ValueError(f"message {i}: overlap {t[a1:b1]!r} / {t[a2:b2]!r}")


def verify() -> None:
    """Regenerate the frozen corpus and raise if a single character moved."""
    msgs = generate(0, 3000)
    check(msgs)
    got = hashlib.sha256(json.dumps(msgs, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()
    if got != CORPUS_SHA256:
        raise AssertionError(f"consult_i corpus changed: {got} != {CORPUS_SHA256}")


def mark(m: dict) -> str:
    t, out, pos = m["text"], [], 0
    marks = sorted([(a, b, "【", "】" + c) for a, b, c in m["spans"]] + [(a, b, "〔", "〕" + c) for a, b, c in m["keep"]])
    for a, b, o, cl in marks:
        out.append(t[pos:a] + o + t[a:b] + cl)
        pos = b
    out.append(t[pos:])
    return "".join(out)


def main() -> None:
    msgs = generate(0, 3000)
    check(msgs)
    cats = {c: 0 for c in CATEGORIES}
    keeps = {k: 0 for k in KEEP_KINDS}
    for m in msgs:
        for a, b, c in m["spans"]:
            cats[c] += 1
        for a, b, c in m["keep"]:
            keeps[c] += 1
    with_id = sum(1 for m in msgs if m["spans"])
    print(f"messages {len(msgs)}, consultations {msgs[-1]['consultation'] + 1}")
    print(f"identifiers {sum(cats.values())}: " + ", ".join(f"{c} {v}" for c, v in cats.items()))
    print(f"keep spans {sum(keeps.values())}: " + ", ".join(f"{k} {v}" for k, v in keeps.items()))
    print(f"messages with an identifier: {with_id / len(msgs):.1%}")
    r = random.Random(7)
    for m in r.sample(msgs, 6):
        print("-" * 80)
        print(f"[{m['consultation']} {m['role']}]")
        print(mark(m))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--verify":
        verify()
        print("ok")
    else:
        main()
