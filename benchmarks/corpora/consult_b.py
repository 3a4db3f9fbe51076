"""Held-out test corpus B for the text de-identification rules (online consultation messages).

Status since 2026-12-01: DEVELOPMENT material (after three sessions' claims as a held-out corpus its misses may be read and tuned on;
benchmarks/deid_text.py reports it as ``dev``). Its generator stays frozen.

Written independently of the rules, their lexicons and their own synthetic generator, from the category
definitions only, so that it measures the rules on material their author did not write.  Pure standard
library; deterministic given a seed (one ``random.Random(seed)``, lists only, no set/dict iteration order
or hash randomisation involved).  The corpus for seed 0 / 3000 messages is frozen by ``CORPUS_SHA256``;
``verify()`` regenerates it and raises if a single character moved.  ``python benchmarks/corpora/consult_b.py``
prints the counts and ten marked samples.

Each message::

    {"text": str, "role": "patient" | "doctor",
     "spans": [[start, end, CATEGORY], ...],     # identifiers that must be masked
     "keep":  [[start, end, kind], ...]}         # clinical numbers that must NOT be masked

Offsets are Python ``str`` (code point) offsets, end exclusive.  About 60 % of the messages carry at least
one identifier; the others carry none but always carry clinical keep spans.

Design: about sixty identifier scenarios (family members asking on behalf of relatives, pasted lab report
forms, delivery addresses, refund complaints, real-name forms, bare "name id phone" replies, doctors'
referrals, schedules, sign-offs, nurses' follow-ups ...) and sixteen clinical-only ones, with identifiers at
the start, in the middle, in lists and parentheses, after the thing they belong to, with and without cue
words, plus afterthoughts appended to a third of the messages.  Each message draws a writing style:
Chinese / ASCII / space / mixed punctuation, full-width digits in some or all numbers, colloquial typos
(patients only), line breaks, emoji.

Annotation conventions (what a careful annotator would mark):

* NAME covers the name only, never the title or kinship word around it ("【王建国】主任", "我爸【李强】",
  "【林红霞】女士").  A surname used with a title ("【李】主任") is marked as the name part of that reference.
  Nicknames formed with 小/老/阿 ("【小芳】", "【老周】", "【阿娟】") are marked whole: they are the form of
  the name in use.  Names that read as everyday words (高峰, 夏天, 江山) only occur where a cue or a title
  makes them names.
* PHONE includes a written country code (+86, (+86)) and area-code brackets, and an extension written as
  转NNN or -NNN; 400/800 service lines are PHONE.  "120" (emergency) is not an identifier.
* URL covers links, WeChat IDs and QQ numbers; the cue (微信/VX/QQ) is not part of the span.
  A QQ mail address is EMAIL.
* ID covers resident ID numbers (18 digits with a valid GB 11643 check digit, region and birth date, or 15
  legacy digits), passports, social security card numbers (after a 社保卡 cue) and military IDs (the whole
  "军字第NNNNNNN号").  A 医保卡号 is MRN.
* ORDER_ID: platform orders, WeChat / Alipay transaction and merchant numbers, prescription numbers,
  registration / appointment / referral numbers and codes.  MRN: 门诊号, 住院号, 病案号, 病历号, ID号,
  就诊卡号, 医保卡号, 建档号, specimen / barcode, report, imaging and pathology numbers.
* DATE covers any date finer than a year ("今年3月8日" whole, "2023年5月" too, birthdays incl. 农历);
  a from-to pair is two DATE spans.  A year alone ("2020年"), a month alone ("5月份"), relative days and
  times of day are keep spans of kind "time".  The ambiguous shapes 11/9 and 5.12 appear only after
  预约/复查 (or before 那天), never as a vital sign; blood pressure always carries 血压/BP/高压.
* HOSPITAL covers named institutions including short forms (市二院, 省肿瘤医院, 华西, 中山一院), clinics
  (张氏诊所), health centres, village clinics and named outpatient departments; the department after it is
  not part of the span.  Generic phrases (当地医院, 大医院, 三甲医院, 社区医院, 县城的医院) are plain text.
* ADDRESS covers everything below province level (city alone, district, county, town, village, street and
  number, compound, building / unit / room); when a province is written directly in front of the rest of
  an address it is inside the span, a province on its own ("我是河南的", "老家四川") is plain text.
* Keep spans: "age", "duration", "dose", "lab" (test name + value + unit, and reference ranges on their
  own), "vital" (sign + value), "time" (times of day, relative days, a year alone, a month alone).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from datetime import date, timedelta

CATEGORIES = ("NAME", "ID", "PHONE", "EMAIL", "URL", "ORDER_ID", "MRN", "DATE", "HOSPITAL", "ADDRESS")
KEEP_KINDS = ("age", "duration", "dose", "lab", "vital", "time")

CORPUS_SHA256 = "0885dd1bd46920f2a0d42203c8d8f92096caa72bb9fb846959a7a53a8c4adce6"

# ----------------------------------------------------------------------------------------------- names
_SURNAMES_COMMON = list(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁"
    "任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴"
    "莫孔向汤")
_SURNAMES_RARE = list(
    "聂晏佘禹阮訾仝冼喻揭糜蒯邝亓阙滕桑厍蔺贲逯甄缪苗庞樊靳牛党卜储牟巫栾盛车麦衡扈荆兰卓干鞠芮安常齐"
    "甘包练查柴岑邬敖")
_SURNAMES_COMPOUND = ["欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "尉迟", "公孙", "慕容", "令狐", "夏侯",
                      "长孙", "宇文", "司徒", "端木", "西门", "呼延", "南宫", "轩辕", "独孤", "澹台", "万俟",
                      "申屠", "钟离"]
_GIVEN_1 = list("伟芳娜敏静丽强磊军洋勇艳杰娟涛明超霞平刚辉鹏华飞鑫波斌宇浩凯健俊帆帅旭宁龙林欢阳佳琳萍莉"
                "婷雪倩颖玲红梅兰英凤云峰亮坤琴蓉")
_GIVEN_2 = ["建国", "建华", "国强", "志强", "秀兰", "桂芳", "海燕", "春花", "玉兰", "文静", "子涵", "梓轩",
            "浩然", "雨桐", "欣怡", "一诺", "思远", "晓东", "红梅", "丽华", "德福", "金凤", "小龙", "天佑",
            "家豪", "佳琪", "婷婷", "亮亮", "平安", "和平", "胜利", "向东", "卫东", "爱国", "淑珍", "秀珍",
            "凤英", "永刚", "长江", "海涛", "春生", "秋菊", "冬梅", "雪梅", "建军", "红旗", "跃进", "美玲",
            "晨曦", "沐阳", "若曦", "可欣", "诗涵", "宇航", "桂兰", "玉梅", "振华", "志明", "国庆", "建平",
            "秀云", "翠花", "大勇", "二妮", "铁柱", "来福", "招娣", "梦琪", "子墨", "俊杰", "明轩", "雅婷",
            "嘉怡", "思琪", "文博", "志伟", "晓燕", "慧敏", "丽娟", "金花", "水生", "根生", "有才", "淑芬",
            "春燕", "红霞", "玉珍", "小红", "小军", "立新", "新华", "满仓", "大山", "石头", "乐乐", "安琪",
            "一鸣", "子轩", "诗雨", "雨萱", "书瑶", "佳怡", "凯文", "海峰", "秀梅", "兰芝"]
# Whole names that read as everyday words.
_WORDY_NAMES = ["高峰", "白雪", "向阳", "江山", "夏天", "黄河", "林森", "常青", "万里", "何平", "金鑫",
                "马力", "田野", "石磊", "于洋", "高山", "方圆", "齐心", "甘甜", "钱多多", "任重", "文明",
                "叶青", "龙飞", "胡蝶", "安宁", "乐天", "时光", "王者"]
_MINORITY_NAMES = ["阿依古丽", "买买提", "扎西顿珠", "卓玛", "格桑梅朵", "古丽娜", "巴特尔", "其木格",
                   "热依拉", "次仁"]

# ---------------------------------------------------------------------------------------------- places
# (province, city, [districts / counties / county-level cities / banners])
_PLACES = [
    ("河南省", "周口市", ["郸城县", "淮阳区", "鹿邑县", "项城市", "商水县", "太康县"]),
    ("河南省", "驻马店市", ["确山县", "汝南县", "平舆县", "驿城区"]),
    ("河南省", "南阳市", ["邓州市", "镇平县", "唐河县", "宛城区"]),
    ("四川省", "绵阳市", ["涪城区", "三台县", "江油市", "游仙区"]),
    ("四川省", "南充市", ["顺庆区", "阆中市", "营山县", "仪陇县"]),
    ("四川省", "成都市", ["武侯区", "锦江区", "双流区", "郫都区", "金堂县"]),
    ("浙江省", "杭州市", ["西湖区", "余杭区", "萧山区", "临安区", "桐庐县", "拱墅区"]),
    ("浙江省", "温州市", ["鹿城区", "瑞安市", "乐清市", "苍南县"]),
    ("江苏省", "南京市", ["鼓楼区", "江宁区", "浦口区", "玄武区"]),
    ("江苏省", "徐州市", ["铜山区", "邳州市", "睢宁县", "新沂市"]),
    ("山东省", "临沂市", ["兰山区", "沂南县", "郯城县", "平邑县"]),
    ("山东省", "潍坊市", ["寿光市", "青州市", "诸城市", "奎文区"]),
    ("广东省", "深圳市", ["南山区", "福田区", "龙岗区", "宝安区"]),
    ("广东省", "湛江市", ["霞山区", "雷州市", "徐闻县", "廉江市"]),
    ("广东省", "梅州市", ["梅江区", "兴宁市", "五华县"]),
    ("湖南省", "长沙市", ["岳麓区", "开福区", "浏阳市", "宁乡市"]),
    ("湖南省", "邵阳市", ["双清区", "隆回县", "洞口县", "邵东市"]),
    ("湖北省", "武汉市", ["武昌区", "洪山区", "江夏区", "黄陂区"]),
    ("湖北省", "黄冈市", ["麻城市", "浠水县", "蕲春县", "黄州区"]),
    ("河北省", "保定市", ["莲池区", "涿州市", "高碑店市", "易县"]),
    ("河北省", "邯郸市", ["丛台区", "魏县", "大名县", "武安市"]),
    ("安徽省", "阜阳市", ["颍州区", "临泉县", "太和县", "界首市"]),
    ("安徽省", "合肥市", ["蜀山区", "包河区", "肥西县", "长丰县"]),
    ("江西省", "赣州市", ["章贡区", "于都县", "瑞金市", "兴国县"]),
    ("福建省", "泉州市", ["丰泽区", "晋江市", "安溪县", "惠安县"]),
    ("广西壮族自治区", "玉林市", ["玉州区", "北流市", "博白县", "陆川县"]),
    ("云南省", "曲靖市", ["麒麟区", "宣威市", "会泽县"]),
    ("贵州省", "遵义市", ["红花岗区", "仁怀市", "湄潭县"]),
    ("陕西省", "咸阳市", ["秦都区", "兴平市", "礼泉县"]),
    ("甘肃省", "天水市", ["秦州区", "甘谷县", "武山县"]),
    ("山西省", "运城市", ["盐湖区", "永济市", "临猗县"]),
    ("黑龙江省", "齐齐哈尔市", ["龙沙区", "讷河市", "克山县"]),
    ("吉林省", "长春市", ["南关区", "朝阳区", "农安县"]),
    ("辽宁省", "大连市", ["甘井子区", "瓦房店市", "庄河市"]),
    ("内蒙古自治区", "赤峰市", ["红山区", "宁城县", "敖汉旗"]),
    ("海南省", "海口市", ["龙华区", "美兰区", "秀英区"]),
    ("青海省", "西宁市", ["城西区", "湟中区", "城东区"]),
    ("重庆市", "重庆市", ["万州区", "渝北区", "江津区", "綦江区"]),
    ("上海市", "上海市", ["浦东新区", "闵行区", "徐汇区", "宝山区"]),
    ("北京市", "北京市", ["朝阳区", "海淀区", "丰台区", "昌平区"]),
]
_MUNICIPALITIES = ("北京市", "上海市", "重庆市", "天津市")
_PROVINCES_BARE = ["河南", "山东", "四川", "湖南", "湖北", "广东", "广西", "安徽", "江西", "河北", "山西",
                   "陕西", "甘肃", "云南", "贵州", "浙江", "江苏", "福建", "黑龙江", "吉林", "辽宁", "内蒙",
                   "新疆", "海南", "青海", "宁夏"]
_TOWNS = ["城关镇", "柳林镇", "王楼镇", "张集镇", "石桥镇", "黄庄镇", "新店镇", "双河镇", "白沙镇", "龙泉镇",
          "马坊镇", "桃园镇", "高桥镇", "南湖乡", "东风乡", "小店乡", "大营乡", "汲冢镇", "胡集乡", "钱店镇",
          "古荡街道", "文新街道", "三里桥街道", "长安街道", "花园街道"]
_VILLAGES = ["李庄村", "后王村", "大刘庄村", "前进村", "杨湾村", "赵家洼村", "小河村", "张家沟村", "石门村",
             "新民村", "红星村", "东岳村", "陈家坝村", "上河村", "三合村", "孙楼村", "马营村", "柏树村",
             "黄土坡村", "牛王庙村"]
_STREETS = ["文三路", "解放路", "人民路", "中山路", "建设大道", "长江路", "和平街", "友谊路", "胜利街",
            "黄河路", "淮海中路", "北京路", "延安西路", "天府大道", "南京东路", "工农路", "光明街", "学院路",
            "新华北路", "青年路", "五一路", "迎宾大道", "滨河路", "朝阳路"]
_COMPOUNDS = ["阳光小区", "幸福家园", "碧桂园", "万科城", "金色家园", "翠苑一区", "锦绣华庭", "紫薇苑",
              "和谐雅居", "恒大名都", "绿地国际花都", "保利香槟国际", "建业森林半岛", "滨江花园",
              "纺织厂家属院", "教师新村", "桂花园小区", "龙湖春江郦城", "香榭里小区", "电力宿舍"]

# ------------------------------------------------------------------------------------------- hospitals
_HOSP_FAMOUS = ["北京协和医院", "复旦大学附属华山医院", "上海交通大学医学院附属瑞金医院", "四川大学华西医院",
                "中南大学湘雅医院", "湘雅二院", "湘雅三医院", "中山大学附属第一医院", "中山一院", "浙大一院",
                "浙大二院", "浙江大学医学院附属邵逸夫医院", "邵逸夫医院", "郑大一附院", "郑州大学第一附属医院",
                "山东大学齐鲁医院", "齐鲁医院", "武汉协和医院", "同济医院", "西京医院", "301医院",
                "解放军总医院", "北医三院", "北大人民医院", "天坛医院", "安贞医院", "阜外医院",
                "复旦大学附属肿瘤医院", "中山大学肿瘤防治中心", "北京儿童医院", "重医附一院", "南方医院",
                "广医一院", "江苏省人民医院", "南京鼓楼医院", "西南医院", "新桥医院", "华西医院", "瑞金医院",
                "仁济医院", "长海医院", "宣武医院", "上海市第六人民医院", "河南省人民医院", "华西二院",
                "湘雅附二", "中山眼科中心", "广州市妇女儿童医疗中心", "首都医科大学附属北京安定医院"]
_HOSP_SHORT_BARE = ["华西", "湘雅", "协和", "华山", "瑞金", "齐鲁", "同济", "中山一院", "市二院", "市一院",
                    "市三院", "市中医院", "省人民医院", "省肿瘤医院", "省儿童医院", "省中医院", "省立医院",
                    "省妇幼"]
_HOSP_BRANDS = ["仁爱", "康华", "德济", "瑞康", "同济堂", "百姓", "惠民", "博爱", "安康", "济民", "仁和",
                "益康", "杏林", "华夏", "美年"]
_DEPTS = ["心内科", "消化内科", "内分泌科", "呼吸科", "神经内科", "妇科", "产科", "儿科", "皮肤科", "泌尿外科",
          "骨科", "眼科", "耳鼻喉科", "肿瘤科", "甲乳外科", "肝胆外科", "感染科", "风湿免疫科", "肾内科",
          "血液科", "中医科", "康复科", "老年科", "普外科", "胸外科"]

# ------------------------------------------------------------------------------------------- misc pools
_ID_REGIONS = ["110101", "110105", "110108", "120101", "310101", "310104", "310115", "320102", "320106",
               "320303", "330106", "330102", "330302", "340104", "341202", "350503", "360702", "370102",
               "371302", "410102", "411625", "411627", "420106", "421181", "430104", "430181", "440106",
               "440305", "450102", "500112", "510104", "510703", "520302", "530102", "610113", "620502",
               "140802", "130602", "230202", "220102", "210211", "150402", "460106", "630104", "650102"]
_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
_ID_CHECK = "10X98765432"
_MOBILE_PREFIXES = ["130", "131", "132", "133", "134", "135", "136", "137", "138", "139", "145", "147", "150",
                    "151", "152", "153", "155", "156", "157", "158", "159", "166", "173", "175", "176", "177",
                    "178", "180", "181", "182", "183", "184", "185", "186", "187", "188", "189", "191", "193",
                    "195", "198", "199"]
_AREA_3 = ["010", "020", "021", "022", "023", "024", "025", "027", "028", "029"]
_AREA_4 = ["0571", "0755", "0371", "0531", "0731", "0851", "0871", "0816", "0394", "0551", "0591", "0791",
           "0311", "0351", "0931", "0451", "0431", "0411", "0898", "0971", "0577", "0512", "0532", "0757",
           "0769", "0396", "0817", "0539"]
_PINYIN = ["zhangwei", "lina", "wangfang", "liuyang", "chenjing", "xiaoyu", "mingming", "huanghe", "sunli",
           "zhaolei", "wuxiao", "yangyang", "helen", "tony", "lucy", "doctorli", "qingqing", "fangfang", "momo",
           "jiajia", "ouyang", "shangguan", "xiaomei", "dabao", "tiantian", "laoliu", "guoqiang", "meimei",
           "sunny", "kevin", "chenxi", "lulu"]
_MAIL_DOMAINS = ["163.com", "126.com", "qq.com", "foxmail.com", "sina.com", "sohu.com", "gmail.com",
                 "outlook.com", "yeah.net", "139.com", "aliyun.com", "hotmail.com", "hospital.edu.cn",
                 "zju.edu.cn", "whu.edu.cn"]
_URL_DOMAINS = ["www.jiankang365.cn", "m.yihu-health.com", "h5.zixun-yisheng.cn", "report.labcloud.cn",
                "www.dxy-medical.com", "wx.renmin-yiyuan.com", "yuyue.hz-health.cn", "www.ganbing400.com",
                "m.120ask-zixun.com", "cloud.pacs-view.cn", "www.sfyy-hospital.org.cn", "app.quyiyuan.com",
                "mp.weixin.qq.com", "www.jk51dr.com", "h5.haoyisheng.cn"]
_ALNUM = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ"
_FW = str.maketrans("0123456789", "０１２３４５６７８９")
_FW_BACK = str.maketrans("０１２３４５６７８９", "0123456789")
_ASCII_PUNCT = str.maketrans({"，": ",", "：": ":", "（": "(", "）": ")", "；": ";", "！": "!", "？": "?"})
_FW_OK = ("PHONE", "ID", "DATE", "MRN", "ORDER_ID", "ADDRESS", "HOSPITAL")

_TITLES_DOC = ["医生", "主任", "副主任", "大夫", "教授", "老师", "主任医师", "院长"]
_TITLES_NURSE = ["护士长", "护士", "老师"]
_TITLES_LAY = ["女士", "先生", "阿姨", "叔叔", "大爷", "奶奶", "姐", "哥"]
_SYMPTOMS = ["胸闷", "头晕", "咳嗽", "胃胀", "拉肚子", "发烧", "失眠", "腰疼", "起皮疹", "月经不调", "尿频",
             "心慌", "腿肿", "嗓子疼", "关节疼", "手麻", "便血", "反酸", "耳鸣", "视力模糊", "掉头发", "乏力"]
_DX = ["甲状腺结节", "乳腺结节", "肺结节", "胆囊结石", "2型糖尿病", "高血压", "冠心病", "慢性胃炎", "脂肪肝",
       "乙肝", "子宫肌瘤", "肾结石", "腰椎间盘突出", "痛风", "房颤", "肠息肉", "桥本甲状腺炎", "多囊卵巢"]
_EXAMS = ["胃镜", "肠镜", "CT", "核磁", "B超", "彩超", "心脏彩超", "甲状腺彩超", "钼靶", "穿刺", "冠脉造影",
          "24小时动态心电图", "肺功能", "骨密度", "PET-CT", "血常规", "肝功能", "甲功"]
# drug -> doses that fit it (a list of pairs, not a dict: the order is part of the frozen corpus)
_DRUG_DOSES = [
    ("二甲双胍", ["500mg", "0.5g", "850mg", "每日两次 1片", "0.5g tid", "一次1片，一天3次"]),
    ("氨氯地平", ["5mg", "5mg qd", "每天1片", "半片", "2.5mg"]),
    ("阿托伐他汀", ["20mg", "10mg qn", "每晚1片", "40mg"]),
    ("阿司匹林", ["100mg", "100mg qd", "每天1片"]),
    ("奥美拉唑", ["20mg", "20mg bid", "早晚各1粒", "每日1次 1粒"]),
    ("左甲状腺素钠", ["50μg", "25μg", "75μg", "1/4片", "半片", "每天早上1片"]),
    ("布洛芬", ["0.3g", "一次1粒", "200mg"]),
    ("头孢克肟", ["100mg bid", "一次2粒", "0.1g"]),
    ("缬沙坦", ["80mg", "80mg qd", "每天1粒"]),
    ("美托洛尔", ["25mg bid", "47.5mg", "半片", "12.5mg"]),
    ("达格列净", ["10mg", "10mg qd", "每天1片"]),
    ("瑞舒伐他汀", ["10mg", "5mg qn", "每晚1片"]),
    ("非布司他", ["20mg", "40mg qd", "半片"]),
    ("孟鲁司特钠", ["10mg", "4mg", "每晚1片"]),
    ("蒙脱石散", ["一次1袋", "3g tid", "一天3次，每次一袋"]),
    ("甲钴胺", ["0.5mg tid", "一次1片，一天3次", "500μg"]),
    ("恩替卡韦", ["0.5mg", "0.5mg qd", "每天1片"]),
    ("硝苯地平控释片", ["30mg", "30mg qd", "每天1片"]),
    ("胰岛素", ["8单位", "12个单位", "16u", "10IU", "每晚10个单位"]),
    ("维生素D3", ["800IU", "2000IU", "400IU"]),
    ("泼尼松", ["5mg", "10mg qd", "一天4片"]),
    ("氯沙坦", ["50mg", "100mg qd"]),
]
_FEVER_DRUGS = [("美林", ["5ml", "4ml", "7.5ml", "一次5毫升"]), ("布洛芬混悬液", ["5ml", "4ml", "8ml"]),
                ("对乙酰氨基酚", ["0.5g", "一次1片", "250mg"])]
_SLEEP_DRUGS = [("艾司唑仑", ["1mg", "半片", "1片"]), ("右佐匹克隆", ["3mg", "1.5mg", "半片"]),
                ("阿普唑仑", ["0.4mg", "半片"])]
_WEEKDAYS = ["周一", "周二", "周三", "周四", "周五", "周六", "周日", "星期二", "星期四"]


def _cn_num(n: int) -> str:
    """1..99 in Chinese numerals (十二, 二十一)."""
    d = "零一二三四五六七八九"
    if n < 10:
        return d[n]
    if n < 20:
        return "十" + (d[n % 10] if n % 10 else "")
    return d[n // 10] + "十" + (d[n % 10] if n % 10 else "")


def _cn_year(y: int) -> str:
    return "".join("〇一二三四五六七八九"[int(ch)] for ch in str(y))


def _id_check(body17: str) -> str:
    return _ID_CHECK[sum(int(a) * w for a, w in zip(body17, _ID_WEIGHTS)) % 11]


class _Msg:
    """One message under construction: a list of (text, type, label) parts, plus the generators."""

    def __init__(self, rng: random.Random, role: str):
        self.r = rng
        self.role = role
        self.parts: list[tuple[str, str | None, str | None]] = []
        # message-level writing style
        x = rng.random()
        self.punct = "cn" if x < 0.62 else ("ascii" if x < 0.80 else ("space" if x < 0.92 else "mixed"))
        y = rng.random()
        self.fw_p = 0.0 if y < 0.80 else (0.5 if y < 0.93 else 1.0)
        self.typo = rng.random() < 0.12 and role == "patient"
        self.last_date = None
        self.last_form = None

    # ------------------------------------------------------------------ basics
    def c(self, seq):
        return seq[self.r.randrange(len(seq))]

    def p(self, prob: float) -> bool:
        return self.r.random() < prob

    def n(self, a: int, b: int) -> int:
        return self.r.randint(a, b)

    def t(self, *texts: str) -> "_Msg":
        for s in texts:
            if s:
                self.parts.append((s, None, None))
        return self

    def i(self, text: str, cat: str) -> str:
        assert cat in CATEGORIES, cat
        self.parts.append((text, "id", cat))
        return text

    def k(self, text: str, kind: str) -> str:
        assert kind in KEEP_KINDS, kind
        self.parts.append((text, "keep", kind))
        return text

    # ------------------------------------------------------------------ NAME
    def name_text(self, cued: bool = True) -> str:
        x = self.r.random()
        if cued and x < 0.07:
            return self.c(_WORDY_NAMES)
        if x < 0.10:
            return self.c(_MINORITY_NAMES)
        if x < 0.22:
            return self.c(_SURNAMES_COMPOUND) + (self.c(_GIVEN_1) if self.p(0.5) else self.c(_GIVEN_2))
        sur = self.c(_SURNAMES_RARE) if self.p(0.18) else self.c(_SURNAMES_COMMON)
        return sur + (self.c(_GIVEN_1) if self.p(0.35) else self.c(_GIVEN_2))

    def nick_text(self) -> str:
        x = self.r.random()
        if x < 0.45:
            return "小" + (self.c(_GIVEN_1) if self.p(0.6) else self.c(_SURNAMES_COMMON))
        if x < 0.85:
            return "老" + self.c(_SURNAMES_COMMON)
        return "阿" + self.c(_GIVEN_1)

    def name(self, cued: bool = True) -> str:
        return self.i(self.name_text(cued), "NAME")

    def nick(self) -> str:
        return self.i(self.nick_text(), "NAME")

    def staff(self, titles=None, surname_only_p: float = 0.10) -> str:
        """A doctor / nurse / staff reference: name span, then the title as plain text."""
        title = self.c(titles or _TITLES_DOC)
        if self.p(surname_only_p):
            self.i(self.c(_SURNAMES_COMMON), "NAME")
        else:
            self.name(cued=True)
        self.t(title)
        return title

    # ------------------------------------------------------------------ ID
    def _id18_raw(self) -> str:
        region = self.c(_ID_REGIONS)
        birth = date(1936, 1, 1) + timedelta(days=self.n(0, 31500))
        body = region + birth.strftime("%Y%m%d") + "%03d" % self.n(0, 999)
        return body + _id_check(body)

    def id_card(self) -> str:
        x = self.r.random()
        if x < 0.86:
            s = self._id18_raw()
            if s.endswith("X") and self.p(0.2):
                s = s[:-1] + "x"
            y = self.r.random()
            if y < 0.10:
                s = s[:6] + " " + s[6:14] + " " + s[14:]
            elif y < 0.15:
                s = " ".join(s[j:j + 4] for j in range(0, 18, 4))
        else:
            region = self.c(_ID_REGIONS)
            birth = date(1930, 1, 1) + timedelta(days=self.n(0, 25000))
            s = region + birth.strftime("%y%m%d") + "%03d" % self.n(0, 999)
        return self.i(s, "ID")

    def passport(self) -> str:
        x = self.r.random()
        if x < 0.5:
            s = "E" + "%08d" % self.n(0, 99999999)
        elif x < 0.75:
            s = "E" + self.c(_UPPER) + "%07d" % self.n(0, 9999999)
        elif x < 0.9:
            s = "G" + "%08d" % self.n(10000000, 99999999)
        else:
            s = self.c(["P", "K", "S"]) + "%07d" % self.n(0, 9999999)
        return self.i(s, "ID")

    def social_card(self) -> str:
        x = self.r.random()
        if x < 0.45:
            s = self.c(_UPPER) + "%08d" % self.n(0, 99999999)
        elif x < 0.7:
            s = "%09d" % self.n(100000000, 999999999)
        else:
            s = self._id18_raw()
        return self.i(s, "ID")

    def military(self) -> str:
        width = self.c([7, 8])
        s = self.c(["军", "南", "北", "沈", "兰", "成", "广", "济", "海", "空", "政", "后", "武"]) + "字第" \
            + "%0*d" % (width, self.n(0, 10 ** width - 1)) + "号"
        return self.i(s, "ID")

    # ------------------------------------------------------------------ PHONE
    def mobile_text(self) -> str:
        d = self.c(_MOBILE_PREFIXES) + "%08d" % self.n(0, 99999999)
        x = self.r.random()
        if x < 0.42:
            s = d
        elif x < 0.55:
            s = d[:3] + "-" + d[3:7] + "-" + d[7:]
        elif x < 0.70:
            s = d[:3] + " " + d[3:7] + " " + d[7:]
        elif x < 0.76:
            s = "+86 " + d
        elif x < 0.80:
            s = "+86-" + d[:3] + "-" + d[3:7] + "-" + d[7:]
        elif x < 0.84:
            s = "+86 " + d[:3] + " " + d[3:7] + " " + d[7:]
        elif x < 0.87:
            s = "(+86)" + d
        elif x < 0.90:
            s = "86-" + d
        elif x < 0.95:
            s = d[:3] + "-" + d[3:]
        else:
            s = d[:4] + " " + d[4:7] + " " + d[7:]
        return s

    def landline_text(self) -> str:
        if self.p(0.45):
            area, local = self.c(_AREA_3), "%d%07d" % (self.n(2, 8), self.n(0, 9999999))
        else:
            area = self.c(_AREA_4)
            local = "%d%07d" % (self.n(2, 8), self.n(0, 9999999)) if self.p(0.6) else \
                "%d%06d" % (self.n(2, 8), self.n(0, 999999))
        x = self.r.random()
        if x < 0.4:
            s = area + "-" + local
        elif x < 0.55:
            s = area + " " + (local[:4] + " " + local[4:] if len(local) == 8 else local)
        elif x < 0.68:
            s = "(" + area + ")" + local
        elif x < 0.78:
            s = "（" + area + "）" + (local[:4] + "-" + local[4:] if len(local) == 8 else local)
        elif x < 0.86:
            s = area + local
        else:
            s = area + "-" + local
            s += ("转" if self.p(0.6) else "-") + "%d" % self.n(100, 8999)
        return s

    def service_text(self) -> str:
        head = self.c(["400", "400", "400", "800"])
        a, b = "%03d" % self.n(0, 999), "%04d" % self.n(0, 9999)
        if head == "400":
            a = str(self.n(1, 9)) + a[1:]
        x = self.r.random()
        if x < 0.5:
            return head + "-" + a + "-" + b
        if x < 0.75:
            return head + a + b
        return head + " " + a + " " + b

    def phone(self, kind: str | None = None) -> str:
        if kind is None:  # patients give their own numbers, doctors also hand out service lines
            kind = self.c(["m", "m", "m", "m", "m", "m", "l", "l"] + (["s"] if self.role == "doctor" else []))
        s = {"m": self.mobile_text, "l": self.landline_text, "s": self.service_text}[kind]()
        return self.i(s, "PHONE")

    # ------------------------------------------------------------------ EMAIL / URL
    def email(self, qq: bool = False) -> str:
        if qq or self.p(0.25):
            s = "%d@qq.com" % self.n(10000, 3999999999)
        else:
            local = self.c(_PINYIN)
            x = self.r.random()
            if x < 0.3:
                local += str(self.n(1, 2024))
            elif x < 0.5:
                local += "." + self.c(_PINYIN)
            elif x < 0.7:
                local += "_" + str(self.n(60, 99))
            elif x < 0.8:
                local = self.c(["dr.", "mr.", "ms."]) + local
            s = local + "@" + self.c(_MAIL_DOMAINS)
        return self.i(s, "EMAIL")

    def _alnum(self, n: int) -> str:
        return "".join(self.c(_ALNUM) for _ in range(n))

    def url(self, kind: str | None = None) -> str:
        kind = kind or self.c(["full", "full", "query", "www", "short", "short", "pan", "digits"])
        dom = self.c(_URL_DOMAINS)
        if kind == "full":
            path = self.c(["doctor/%d.html" % self.n(1000, 9999999), "article/%s" % self._alnum(8),
                           "s/%s" % self._alnum(6), "report/view/%d" % self.n(100000, 99999999),
                           "h5/followup/index.html"])
            s = self.c(["https://", "https://", "http://"]) + dom + "/" + path
        elif kind == "query":
            s = "https://" + dom + "/" + self.c(["report", "view", "pay/detail", "im/chat", "q"]) + "?" + \
                self.c(["id", "rid", "orderId", "uid", "code"]) + "=" + str(self.n(10000, 999999999)) + \
                self.c(["", "&from=wx", "&t=%d" % self.n(1600000000, 1730000000), "&share=1"])
        elif kind == "www":
            s = dom if dom.startswith("www.") else "www." + dom.split(".", 1)[1]
            if self.p(0.4):
                s += "/" + self._alnum(5)
        elif kind == "short":
            s = self.c(["t.cn/", "https://t.cn/", "dwz.cn/", "https://url.cn/", "http://suo.im/"]) + \
                self._alnum(self.n(5, 8))
        elif kind == "pan":
            s = "https://pan.baidu.com/s/1" + self._alnum(self.n(14, 20))
        else:  # links with digits, 400 numbers in them
            s = self.c(["https://www.kf400-health.com/tel/400-%03d-%04d" % (self.n(100, 999), self.n(0, 9999)),
                        "http://400.yiliao-fuwu.cn/%d" % self.n(100, 99999),
                        "https://m.120ask-zixun.com/q/%d.htm" % self.n(10000000, 99999999),
                        "www.hospital%d.cn/yuyue" % self.n(100, 999),
                        "https://yy.%s/dept/%d?date=20%02d%02d%02d" % (self.c(["sxyy.cn", "hzsy.org"]),
                                                                        self.n(10, 99), self.n(22, 25),
                                                                        self.n(1, 12), self.n(1, 28))])
        return self.i(s, "URL")

    def wechat(self) -> str:
        x = self.r.random()
        if x < 0.3:
            s = "wxid_" + "".join(self.c("abcdefghijkmnpqrstuvwxyz0123456789") for _ in range(self.n(8, 14)))
        elif x < 0.6:
            s = self.c(_PINYIN) + str(self.n(1, 2024))
        elif x < 0.8:
            s = self.c(_PINYIN) + self.c(["_", "-"]) + self.c(_PINYIN + ["%d" % self.n(10, 99)])
        else:
            s = self.c(_PINYIN).capitalize() + self.c(["_", ""]) + "%04d" % self.n(0, 9999)
        return self.i(s, "URL")

    def qq(self) -> str:
        return self.i(str(self.n(10000, 3999999999)), "URL")

    # ------------------------------------------------------------------ ORDER_ID / MRN
    def _ymd8(self, y0: int = 2019, y1: int = 2024) -> str:
        d = date(y0, 1, 1) + timedelta(days=self.n(0, (y1 - y0 + 1) * 365 - 1))
        return d.strftime("%Y%m%d")

    def order(self, kind: str | None = None) -> str:
        kind = kind or self.c(["plat", "plat", "pay", "rx", "reg", "appt"])
        if kind == "plat":
            x = self.r.random()
            if x < 0.4:
                s = self._ymd8() + "%010d" % self.n(0, 9999999999)
            elif x < 0.7:
                s = self.c(["WZ", "DD", "ZX", "TW"]) + self._ymd8() + "%06d" % self.n(0, 999999)
            else:
                s = "%d" % self.n(10 ** 15, 10 ** 17)
        elif kind == "pay":
            if self.p(0.5):
                s = "4200" + "%06d" % self.n(0, 999999) + self._ymd8() + "%010d" % self.n(0, 9999999999)
            else:
                s = self._ymd8() + "2200" + "%016d" % self.n(0, 10 ** 16 - 1)
            if self.p(0.1):
                s = " ".join(s[j:j + 4] for j in range(0, len(s), 4))
        elif kind == "rx":
            s = self.c(["CF", "RX", "Rx", "CF-"]) + self._ymd8()[2:] + "%05d" % self.n(0, 99999)
        elif kind == "reg":
            s = self.c(["GH", "GH", "MZGH", ""]) + self._ymd8()[2:] + "%06d" % self.n(0, 999999)
        else:
            x = self.r.random()
            if x < 0.4:
                s = "YY" + self._ymd8() + "-" + "%04d" % self.n(1, 9999)
            elif x < 0.7:
                s = "".join(self.c(_UPPER + "23456789") for _ in range(self.c([6, 8])))
            else:
                s = "%d%s%04d" % (self.n(1, 9), self.c(_UPPER), self.n(0, 9999))
        return self.i(s, "ORDER_ID")

    def mrn(self, kind: str | None = None) -> str:
        kind = kind or self.c(["mz", "zy", "ba", "card", "spec", "report", "img", "path", "yb"])
        if kind == "mz":
            s = self.c(["%010d" % self.n(0, 9999999999), "MZ%d" % self.n(2015, 2024) + "%06d" % self.n(0, 999999),
                        "%08d" % self.n(0, 99999999)])
        elif kind == "zy":
            s = self.c(["ZY%d%05d" % (self.n(2016, 2024), self.n(0, 99999)), "%07d" % self.n(0, 9999999),
                        "%d%06d" % (self.n(2016, 2024), self.n(0, 999999))])
        elif kind == "ba":
            s = "%0*d" % (self.c([6, 7, 8]), self.n(0, 999999))
        elif kind == "card":
            d = "%016d" % self.n(10 ** 14, 10 ** 16 - 1)
            s = d if self.p(0.6) else " ".join(d[j:j + 4] for j in range(0, 16, 4))
        elif kind == "spec":
            s = self._ymd8() + self.c(["A", "B", "S", ""]) + "%04d" % self.n(0, 9999)
        elif kind == "report":
            s = self.c(["RPT-%d-%06d" % (self.n(2018, 2024), self.n(0, 999999)),
                        "BG%s%05d" % (self._ymd8()[2:], self.n(0, 99999))])
        elif kind == "img":
            s = self.c(["CT", "MR", "US", "DR", "X"]) + self._ymd8() + "%03d" % self.n(0, 999)
        elif kind == "path":
            s = self.c(["P", "B", "BL"]) + "%d-%05d" % (self.n(2016, 2024), self.n(0, 99999))
        else:  # 医保卡号
            s = self.c(["%s%02d%010d" % (self.c(_UPPER), self.n(11, 65), self.n(0, 9999999999)),
                        self.c(_ID_REGIONS) + "%010d" % self.n(0, 9999999999)])
        return self.i(s, "MRN")

    # ------------------------------------------------------------------ DATE
    def date_text(self, kind: str = "event", amb: bool = False, d: date | None = None,
                  form: str | None = None) -> str:
        if d is None and kind == "birth":
            d = date(1938, 1, 1) + timedelta(days=self.n(0, 31000))
        elif d is None and kind == "appt":
            d = date(2023, 1, 1) + timedelta(days=self.n(0, 3 * 365))
        elif d is None and kind == "recent":
            d = date(2021, 1, 1) + timedelta(days=self.n(0, 4 * 365))
        elif d is None:
            d = date(2016, 1, 1) + timedelta(days=self.n(0, 9 * 365))
        self.last_date = d
        y, m, dd = d.year, d.month, d.day
        if kind == "birth":
            forms = ["ymd"] * 14 + ["ymd_hao"] * 4 + ["iso"] * 9 + ["slash"] * 5 + ["doty"] * 4 + \
                    ["compact"] * 3 + ["yy"] * 5 + ["lunar"] * 2 + ["cn"] * 2
        else:
            forms = ["ymd"] * 14 + ["ymd_hao"] * 4 + ["iso"] * 9 + ["slash"] * 6 + ["doty"] * 4 + ["md"] * 16 + \
                    ["md_hao"] * 12 + ["ym"] * 4 + ["rel"] * 5 + ["cn"] * 3 + ["mddot_hao"] * 4 + ["yy"] * 2
        if amb:
            forms += ["md_slash"] * 12 + ["md_dot"] * 6
        f = form or self.c(forms)
        self.last_form = f
        if f == "ymd":
            return "%d年%d月%d日" % (y, m, dd)
        if f == "ymd_hao":
            return "%d年%d月%d号" % (y, m, dd)
        if f == "iso":
            return "%d-%02d-%02d" % (y, m, dd) if self.p(0.75) else "%d-%d-%d" % (y, m, dd)
        if f == "slash":
            return "%d/%d/%d" % (y, m, dd) if self.p(0.6) else "%d/%02d/%02d" % (y, m, dd)
        if f == "doty":
            return "%d.%d.%d" % (y, m, dd)
        if f == "md":
            return "%d月%d日" % (m, dd)
        if f == "md_hao":
            return "%d月%d号" % (m, dd)
        if f == "ym":
            return "%d年%d月" % (y, m)
        if f == "rel":
            return self.c(["今年", "去年", "前年"]) + "%d月%d%s" % (m, dd, self.c(["日", "号"]))
        if f == "cn":
            if self.p(0.5):
                return "%s月%s%s" % (_cn_num(m), _cn_num(dd), self.c(["号", "日"]))
            return "%s年%s月%s日" % (_cn_year(y), _cn_num(m), _cn_num(dd))
        if f == "mddot_hao":
            return "%d.%d号" % (m, dd)
        if f == "yy":
            return "%02d年%d月%d%s" % (y % 100, m, dd, self.c(["日", "号"]))
        if f == "compact":
            return "%d%02d%02d" % (y, m, dd)
        if f == "lunar":
            days = ["初一", "初三", "初八", "初十", "十五", "十八", "廿二", "廿六"]
            return "农历" + self.c(["正", "二", "三", "五", "八", "九", "腊"]) + "月" + self.c(days)
        if f == "md_slash":
            return "%d/%d" % (m, dd)
        return "%d.%d" % (m, dd)  # md_dot: the template supplies 号/那天 after it

    def date_pair(self, joiner=None) -> None:
        """A from-to pair (admission - discharge, sick leave), the second a few days to weeks later."""
        self.date()
        d2 = self.last_date + timedelta(days=self.n(2, 40))
        f = self.last_form
        if f in ("ym", "rel", "md_dot", "md_slash"):
            f = "md"
        self.t(joiner or self.c(["-", "至", "到", "~"]))
        self.i(self.date_text(d=d2, form=f), "DATE")

    def date(self, kind: str = "event", amb: bool = False) -> str:
        s = self.date_text(kind, amb)
        if amb and "/" not in s and "." in s and "号" not in s and s.count(".") == 1:
            self.i(s, "DATE")
            self.t(self.c(["那天", "那次", "那天"]))
            return s
        return self.i(s, "DATE")

    # ------------------------------------------------------------------ HOSPITAL / ADDRESS
    def place(self):
        return self.c(_PLACES)

    @staticmethod
    def _short_city(city: str) -> str:
        return city[:-1] if city.endswith("市") else city

    def hosp_text(self, allow_bare_short: bool = True, place=None, big: bool = False) -> str:
        """A hospital name.  With ``place`` the hospital is one of that city / county; ``big`` leaves out
        clinics, village / town health centres and outpatient departments (for admissions, referrals)."""
        while True:
            s, small = self._hosp_once(allow_bare_short, place)
            if not (big and small):
                return s

    def _hosp_once(self, allow_bare_short: bool, place):
        x = self.r.random()
        prov, city, subs = place or self.place()
        mun = city in _MUNICIPALITIES
        cshort = self._short_city(city)
        nth = self.c(["第一", "第二", "第三", "第四", "第五", "第六", "第七"])
        if place is not None:
            x = 0.34 + 0.66 * x  # no famous / bare short names: they would not belong to the place
        if x < 0.26:
            return self.c(_HOSP_FAMOUS), False
        if x < 0.34:
            if allow_bare_short:
                return self.c(_HOSP_SHORT_BARE), False
            return self.c(_HOSP_FAMOUS), False
        if x < 0.50:
            if mun:
                return cshort + self.c(["市" + nth + "人民医院", "市中医医院", "市儿童医院", "市胸科医院",
                                        "市肿瘤医院"]), False
            return self.c([city + nth + "人民医院", cshort + "市中心医院", cshort + "市中医院",
                           cshort + "市妇幼保健院", cshort + "市儿童医院", cshort + nth + "人民医院",
                           cshort + "市人民医院"]), False
        if x < 0.60:
            sub = self.c(subs)
            if sub.endswith("区") and self.p(0.5):
                return sub + self.c(["人民医院", "中医院", "妇幼保健院"]), False
            return sub + self.c(["人民医院", "人民医院", "中医院", "第二人民医院"]), False
        if x < 0.66:
            if prov.endswith("省"):
                return prov[:-1] + self.c(["省人民医院", "省肿瘤医院", "省妇幼保健院", "省中医院",
                                           "省儿童医院"]), False
            if mun:
                return cshort + self.c(["市第一人民医院", "市第六人民医院", "市胸科医院"]), False
            return prov + self.c(["人民医院", "肿瘤医院"]), False
        if x < 0.74:
            town = self.c(_TOWNS)
            if town.endswith("街道"):
                return town + "社区卫生服务中心", True
            return town + self.c(["卫生院", "中心卫生院", "卫生院"]), True
        if x < 0.80:
            return self.c(_VILLAGES) + "卫生室", True
        if x < 0.88:
            return self.c([self.c(_SURNAMES_COMMON) + "氏" + self.c(["诊所", "中医诊所", "骨科诊所", "口腔诊所"]),
                           self.name_text() + "诊所", self.c(_HOSP_BRANDS) + "诊所",
                           self.c(_HOSP_BRANDS) + self.c(["中医", "口腔", "综合"]) + "诊所"]), True
        if x < 0.95:
            pre = cshort if self.p(0.4) else ""
            return pre + self.c(_HOSP_BRANDS) + self.c(["中医门诊部", "口腔门诊部", "门诊部", "综合门诊部",
                                                        "医疗美容门诊部"]), True
        if self.p(0.3):
            return cshort + self.c(["爱尔眼科医院", "华厦眼科医院", "美中宜和妇儿医院"]), True
        return cshort + self.c(["和睦家医院", "博爱医院", "协和医院", "仁爱医院", "长安医院"]), False

    def hosp(self, allow_bare_short: bool = True, place=None, big: bool = False) -> str:
        return self.i(self.hosp_text(allow_bare_short, place, big), "HOSPITAL")

    def addr_text(self, kind: str | None = None, place=None) -> str:
        prov, city, subs = place or self.place()
        mun = city in _MUNICIPALITIES
        cshort = self._short_city(city)
        sub = self.c(subs)
        kind = kind or self.c(["city", "city", "city_sub", "county", "rural", "rural", "rural_mid", "town",
                               "urban", "urban", "compound", "street"])
        if mun and kind in ("city", "county"):
            kind = "city_sub"
        if kind == "city":
            return city if self.p(0.4) else cshort
        if kind == "city_sub":
            return (cshort if self.p(0.4) and not mun else city) + sub
        if kind == "county":
            if sub.endswith("县") and len(sub) >= 3 and self.p(0.35):
                return sub[:-1]
            return sub
        bldg = self.c(["%d栋%d单元%d室" % (self.n(1, 30), self.n(1, 6), self.n(1, 33) * 100 + self.n(1, 4)),
                       "%d号楼%d单元%d" % (self.n(1, 30), self.n(1, 6), self.n(1, 28) * 100 + self.n(1, 4)),
                       "%d幢%d" % (self.n(1, 40), self.n(1, 33) * 100 + self.n(1, 6)),
                       "%s座%d" % (self.c("ABCDE"), self.n(1, 33) * 100 + self.n(1, 9)),
                       "%d-%d-%d" % (self.n(1, 20), self.n(1, 6), self.n(1, 18) * 100 + self.n(1, 4))])
        if kind == "rural":
            head = (prov + city) if (not mun and self.p(0.45)) else (city if self.p(0.6) else cshort)
            tail = self.c(_TOWNS).replace("街道", "镇") + self.c(_VILLAGES)
            if self.p(0.35):
                tail += self.c(["%d组" % self.n(1, 12), "%s组" % _cn_num(self.n(1, 9)), "%d号" % self.n(1, 120)])
            return head + sub + tail
        if kind == "rural_mid":
            return sub + self.c(_TOWNS).replace("街道", "镇") + self.c(_VILLAGES)
        if kind == "town":
            return self.c(_TOWNS) if self.p(0.6) else sub + self.c(_TOWNS)
        if kind == "urban":
            head = (prov + city) if (not mun and self.p(0.25)) else (city if self.p(0.7) else cshort)
            s = head + sub + self.c(_STREETS) + "%d号" % self.n(1, 999)
            if self.p(0.6):
                s += self.c(_COMPOUNDS)
            if self.p(0.7):
                s += bldg
            return s
        if kind == "compound":
            return self.c(_COMPOUNDS) + (bldg if self.p(0.6) else "")
        return self.c(_STREETS) + "%d号" % self.n(1, 999) + (self.c(["院", "附%d号" % self.n(1, 9), ""]))

    def addr(self, kind: str | None = None, place=None) -> str:
        return self.i(self.addr_text(kind, place), "ADDRESS")

    # ------------------------------------------------------------------ keep spans
    def age(self, kind: str | None = None) -> str:
        kind = kind or self.c(["adult", "adult", "adult", "elder", "child"])
        x = self.r.random()
        if kind == "elder":
            s = "%d岁" % self.n(55, 95) if x < 0.8 else \
                self.c(["七十多岁", "八十二岁", "六十来岁", "九十岁", "六十八周岁", "七十五岁"])
        elif kind == "adult":
            if x < 0.8:
                s = "%d岁" % self.n(18, 75)
            elif x < 0.9:
                s = "%d周岁" % self.n(18, 75)
            else:
                s = self.c(["三十五岁", "四十多岁", "五十出头", "二十六岁", "三十来岁"])
        elif kind == "child":
            if x < 0.55:
                s = "%d岁" % self.n(1, 14)
            elif x < 0.75:
                s = "%d岁半" % self.n(1, 8)
            elif x < 0.9:
                s = "%d岁%d个月" % (self.n(1, 5), self.n(1, 11))
            else:
                s = self.c(["三岁", "五岁多", "七岁", "十岁"])
        else:  # infant
            s = "%d个月大" % self.n(1, 11) if x < 0.5 else (
                "%d个月" % self.n(1, 11) if x < 0.85 else "%d天" % self.n(3, 28))
        return self.k(s, "age")

    def age_since(self, born: date) -> str:
        """The age of a child born on ``born``, as of spring 2025."""
        months = (2025 - born.year) * 12 + (3 - born.month)
        if months < 12:
            s = "%d个月" % max(1, months) + self.c(["", "大"])
        elif months < 36 and self.p(0.5):
            s = "%d岁%d个月" % (months // 12, months % 12) if months % 12 else "%d岁" % (months // 12)
        else:
            s = "%d岁" % (months // 12) + ("半" if 5 <= months % 12 <= 7 and self.p(0.5) else "")
        return self.k(s, "age")

    def dur(self, kind: str | None = None) -> str:
        """short: hours to a fortnight; mid: weeks to months; long: years; None: any."""
        kind = kind or self.c(["short", "short", "mid", "mid", "long"])
        if kind == "short":
            s = self.c(["3天", "两天", "一周", "48小时", "5个小时", "十来天", "%d天" % self.n(2, 15),
                        "一个星期", "半个月", "三四天", "好几天", "%d小时" % self.c([2, 6, 12, 24, 72]), "两周"])
        elif kind == "mid":
            s = self.c(["%d周" % self.n(2, 12), "%d个月" % self.n(1, 11), "一个多月", "两三个月", "半年",
                        "%d个多月" % self.n(1, 8), "大半年", "四十天"])
        else:
            s = self.c(["%d年" % self.n(1, 20), "%d年多" % self.n(1, 15), "十几年", "一年多", "五六年", "好多年"])
        return self.k(s, "duration")

    def dose(self, drug: str | None = None) -> str:
        if drug is not None:
            for name, doses in _DRUG_DOSES:
                if name == drug:
                    return self.k(self.c(doses), "dose")
        return self.k(self.c(["1片", "一次2片", "一天3次", "每日两次 1片", "每次10ml", "半片", "一次1袋"]), "dose")

    def drug_dose(self, drugs=None) -> str:
        name, doses = self.c(drugs or _DRUG_DOSES)
        self.t(name)
        self.k(self.c(doses), "dose")
        return name

    _LABS = [
        ("血糖", 4.0, 20.0, 1, "mmol/L"), ("空腹血糖", 4.0, 15.0, 1, "mmol/L"),
        ("餐后2小时血糖", 6.0, 22.0, 1, "mmol/L"), ("糖化血红蛋白", 5.0, 12.0, 1, "%"),
        ("HbA1c", 5.0, 12.0, 1, "%"), ("白细胞", 2.0, 25.0, 2, "×10^9/L"), ("WBC", 2.0, 25.0, 1, "×10^9/L"),
        ("中性粒细胞百分比", 40.0, 95.0, 1, "%"), ("血红蛋白", 60, 170, 0, "g/L"), ("Hb", 60, 170, 0, "g/L"),
        ("血小板", 50, 450, 0, "×10^9/L"), ("PLT", 50, 450, 0, "×10^9/L"), ("肌酐", 40, 900, 0, "μmol/L"),
        ("尿酸", 200, 700, 0, "μmol/L"), ("总胆固醇", 3.0, 8.0, 2, "mmol/L"), ("甘油三酯", 0.5, 6.0, 2, "mmol/L"),
        ("低密度脂蛋白", 1.5, 5.5, 2, "mmol/L"), ("LDL-C", 1.5, 5.5, 2, "mmol/L"), ("谷丙转氨酶", 10, 400, 0, "U/L"),
        ("ALT", 10, 400, 0, "U/L"), ("AST", 10, 300, 0, "U/L"), ("TSH", 0.005, 20.0, 3, "mIU/L"),
        ("FT4", 8.0, 30.0, 2, "pmol/L"), ("C反应蛋白", 0.5, 200.0, 1, "mg/L"), ("CRP", 0.5, 200.0, 1, "mg/L"),
        ("甲胎蛋白", 1.0, 30000.0, 2, "ng/mL"), ("AFP", 1.0, 30000.0, 1, "ng/ml"), ("CEA", 0.5, 50.0, 2, "ng/mL"),
        ("CA125", 5.0, 2000.0, 1, "U/mL"), ("CA19-9", 2.0, 1000.0, 2, "U/ml"),
        ("D-二聚体", 0.1, 20.0, 2, "mg/L"), ("肌钙蛋白I", 0.001, 5.0, 3, "ng/mL"), ("BNP", 10, 5000, 0, "pg/mL"),
        ("血钾", 2.8, 6.5, 2, "mmol/L"), ("PSA", 0.1, 100.0, 2, "ng/mL"), ("维生素D", 5.0, 60.0, 2, "ng/mL"),
        ("同型半胱氨酸", 5.0, 40.0, 1, "μmol/L"), ("尿蛋白定量", 0.1, 5.0, 2, "g/24h"),
        ("总胆红素", 3.0, 300.0, 1, "μmol/L"), ("铁蛋白", 5.0, 2000.0, 1, "ng/mL"), ("INR", 0.8, 4.0, 2, ""),
    ]
    _RANGES = [("血糖", "3.9-6.1"), ("空腹血糖", "3.9-6.1"), ("白细胞", "3.5-9.5"), ("WBC", "3.5-9.5"),
               ("血小板", "125-350"), ("PLT", "125-350"), ("血钾", "3.5-5.5"), ("TSH", "0.27-4.2"),
               ("肌酐", "57-111"), ("尿酸", "208-428"), ("ALT", "9-50"), ("谷丙转氨酶", "9-50"),
               ("总胆固醇", "0-5.18"), ("CEA", "0-5"), ("甘油三酯", "0-1.7"), ("血红蛋白", "130-175"),
               ("FT4", "12-22"), ("AFP", "0-7"), ("甲胎蛋白", "0-7"), ("CRP", "0-10"), ("D-二聚体", "0-0.5")]

    def lab(self, with_range_p: float = 0.3, name: str | None = None) -> str:
        if name is None and self.p(0.06):
            s = "HBV-DNA%s%s×10^%d IU/mL" % (self.c([" ", "：", ""]), "%.2f" % (1 + self.r.random() * 8.9),
                                              self.n(3, 8))
            return self.k(s, "lab")
        row = self.c(self._LABS)
        if name is not None:
            row = [x for x in self._LABS if x[0] == name][0]
        name, lo, hi, nd, unit = row
        frac = self.r.random()
        v = lo + (hi - lo) * frac
        val = ("%d" % round(v)) if nd == 0 else ("%.*f" % (nd, v))
        sep = self.c(["", " ", "：", ":", " "])
        if name[-1].isdigit() and not sep:
            sep = " "
        u = unit if (unit and self.p(0.75)) else ""
        if u and self.p(0.4) and not u.startswith("×") and not u.startswith("%"):
            u = " " + u
        s = name + sep + val + u
        self.k(s, "lab")
        rng = [r for n_, r in self._RANGES if n_ == name]
        if self.p(0.12):
            self.t(self.c(["↑", "（偏高）", "(H)"]) if frac > 0.5 else self.c(["↓", "（偏低）", "(L)"]))
        elif rng and self.p(with_range_p):
            opener = self.c(["（参考值", "（正常", "(参考范围", "（", "，参考值", " 参考"])
            self.t(opener)
            self.k(rng[0], "lab")
            self.t("）" if opener.startswith("（") else (")" if opener.startswith("(") else ""))
        return s

    def vital(self, kind: str | None = None) -> str:
        kind = kind or self.c(["bp", "bp", "bp", "bp2", "hr", "hr", "temp", "temp", "spo2", "weight", "resp"])
        if kind == "bp":
            sbp = self.n(95, 200)
            dbp = self.n(55, min(125, sbp - 25))
            s = self.c(["血压", "血压", "血压", "BP"]) + self.c(["", " ", "：", ":"]) + \
                "%d/%d" % (sbp, dbp) + self.c(["", "", "mmHg", " mmHg"])
        elif kind == "bp2":
            sbp = self.n(130, 210)
            dbp = self.n(80, 125)
            s = "高压%d低压%d" % (sbp, dbp) if self.p(0.6) else "高压%d，低压%d" % (sbp, dbp)
        elif kind == "hr":
            s = self.c(["心率", "心率", "脉搏", "心跳"]) + self.c(["", " ", "："]) + "%d" % self.n(45, 150) + \
                self.c(["次/分", "次/分", "bpm", "", "次每分"])
        elif kind == "temp":
            t = 37.3 + self.r.random() * 2.9
            s = self.c(["体温" + self.c(["", " ", "："]) + "%.1f℃" % t, "体温%.1f度" % t,
                        "烧到%.1f度" % t, "%d度%d" % (int(t), int(t * 10) % 10 or 5), "体温%.1f°C" % t])
        elif kind == "spo2":
            s = "血氧" + self.c(["", " ", "饱和度"]) + "%d%%" % self.n(85, 99)
        elif kind == "weight":
            s = "体重" + self.c(["%dkg" % self.n(45, 110), "%.1f公斤" % (40 + self.r.random() * 60),
                                 "%d斤" % self.n(80, 220)])
        elif kind == "weight_child":
            s = "体重" + self.c(["%.1fkg" % (5 + self.r.random() * 30), "%d斤" % self.n(12, 70)])
        else:
            s = "呼吸%d次/分" % self.n(14, 40)
        return self.k(s, "vital")

    def tm(self, kind: str | None = None) -> str:
        """clock: a time of day; rel: a relative day / week; year / month: a year or a month alone."""
        kind = kind or self.c(["clock", "rel", "rel", "year", "month"])
        if kind == "appt":
            s = self.c(["上午8点半", "上午9点", "上午10点", "下午2点", "下午3点半", "8:30", "14:00", "上午9:30",
                        "下午1点半", "早上8点"])
        elif kind == "med":
            s = self.c(["每天早上", "早饭后", "睡前", "晚饭后", "早上8点", "饭前半小时", "每天晚上"])
        elif kind == "clock":
            if self.p(0.5):
                s = self.c(["晚上8点", "凌晨3点多", "早上7点半", "中午12点", "下午2点", "半夜", "下午3点左右",
                            "早上6:30", "晚上9:00", "每天晚上", "饭后半小时", "睡前"])
            else:
                part, lo, hi = self.c([("早上", 5, 9), ("上午", 8, 11), ("下午", 1, 6), ("晚上", 6, 11),
                                       ("凌晨", 1, 5)])
                s = part + "%d点" % self.n(lo, hi) + self.c(["", "半", "多", "左右"])
        elif kind == "rel":
            s = self.c(["上周三", "昨天下午", "前天晚上", "今天早上", "上个月", "上周末", "昨晚11点", "上礼拜",
                        "大前天", "今早", "前天", "上周五", "三天前", "半个月前"])
        elif kind == "year":
            s = "%d年" % self.n(2008, 2023)
        else:
            s = "%d月份" % self.n(1, 12) if self.p(0.7) else "%s月份" % _cn_num(self.n(1, 12))
        return self.k(s, "time")

    # ------------------------------------------------------------------ assembly
    def build(self) -> dict:
        text_parts: list[str] = []
        spans: list[list] = []
        keeps: list[list] = []
        pos = 0
        for s, tp, lab in self.parts:
            if tp is None:
                s = self._style_plain(s)
            elif (tp == "keep" or lab in _FW_OK) and self.fw_p and self.r.random() < self.fw_p:
                s = s.translate(_FW)
            if tp == "id":
                spans.append([pos, pos + len(s), lab])
            elif tp == "keep":
                keeps.append([pos, pos + len(s), lab])
            text_parts.append(s)
            pos += len(s)
        return {"text": "".join(text_parts), "spans": spans, "keep": keeps, "role": self.role}

    _TYPOS = [("医生", "医深"), ("怎么办", "肿么办"), ("什么", "啥"), ("吗", "嘛"), ("谢谢", "3q"),
              ("现在", "先在"), ("一下", "一哈"), ("这样", "酱紫"), ("没有", "木有"), ("的", "滴"),
              ("您好", "你好"), ("是不是", "是布是")]

    def _style_plain(self, s: str) -> str:
        if self.typo:
            for a, b in self._TYPOS:
                if a in s and self.r.random() < 0.35:
                    s = s.replace(a, b, 1)
        if self.punct == "ascii":
            s = s.translate(_ASCII_PUNCT)
        elif self.punct == "space":
            s = "".join((" " if ch in "，。；" and self.r.random() < 0.7 else ch) for ch in s)
        elif self.punct == "mixed":
            s = "".join((ch.translate(_ASCII_PUNCT) if self.r.random() < 0.5 else ch) for ch in s)
        return s


# =============================================================================================== templates
# Each template writes one message into m.  ID templates always write at least one identifier;
# clinical templates never write one and always write at least one keep span.

_P_OPEN = ["医生您好，", "医生你好", "大夫您好！", "您好，", "在吗医生？", "医生，", "主任好，", "", "", "", "",
           "打扰了，", "你好医生~", "医生在吗\n", "急！", "请问一下，"]
_P_CLOSE = ["", "", "", "谢谢！", "谢谢医生", "麻烦您了🙏", "急！！", "在线等", "。", "～", "😭", "，谢谢您",
            "？", "👍"]
_D_OPEN = ["", "", "您好，", "你好，", "收到。", "好的，", "嗯，"]


def _p_open(m: _Msg) -> None:
    m.t(m.c(_P_OPEN))


def _p_close(m: _Msg) -> None:
    m.t(m.c(_P_CLOSE))


def _sym(m: _Msg) -> str:
    return m.c(_SYMPTOMS)


def t_intro_list(m):  # "欧阳晓东，56岁，男，郸城县人，反复胸闷两周了"
    _p_open(m)
    pl = m.place()
    if m.p(0.3):
        m.t(m.c(["患者", "病人", "姓名："]))
        m.name(cued=True)
    else:
        m.name(cued=False)
    m.t("，")
    m.age(m.c(["adult", "elder"]))
    m.t("，" + m.c(["男", "女", "男性", "女性"]))
    if m.p(0.6):
        m.t("，")
        m.addr(m.c(["city", "county", "city_sub", "rural_mid"]), place=pl)
        m.t(m.c(["人", "人", "", "的"]))
    m.t("，" + m.c(["反复", "最近", "", "间断"]) + _sym(m))
    m.dur(m.c(["short", "mid"]))
    m.t(m.c(["了。", "了", "，加重", "。"]))
    if m.p(0.5):
        m.t(m.c(["在", "之前在", "上周在"]))
        m.hosp(place=pl if m.p(0.6) else None)
        m.t(m.c(["查了", "查过", "测了"]))
        m.lab()
        m.t(m.c(["。", "，说没事。", "，开了点药。"]))
    _p_close(m)


def t_family_on_behalf(m):
    _p_open(m)
    m.t("我是")
    m.name()
    rel = m.c(["女儿", "儿子", "爱人", "家属", "孙女", "外甥"])
    m.t("的" + rel + "，")
    m.t(m.c(["我妈", "我爸"] if rel in ("女儿", "儿子") else ["她", "他", "老人家"]) + m.c(["今年", "", "现在"]))
    m.age("elder")
    m.t("，")
    m.date()
    m.t("在")
    m.hosp(big=True)
    m.t("做的" + m.c(_EXAMS) + "，")
    m.t(m.c(["报告单号", "检查号", "报告编号：", "单号 "]))
    m.mrn(m.c(["report", "img", "spec", "path"]))
    m.t(m.c(["，想请您帮忙看看", "，麻烦帮忙解读一下", "，结果看不懂"]))
    if m.p(0.5):
        m.t("，上面写")
        m.lab()
    _p_close(m)


def t_report_form(m):
    fields = []
    fields.append(("姓名", lambda: m.name(cued=True)))
    fields.append(("性别", lambda: m.t(m.c(["男", "女"]))))
    fields.append(("年龄", lambda: m.age()))
    fields.append((m.c(["门诊号", "病历号", "住院号", "ID号", "门诊ID", "病案号"]), lambda: m.mrn(m.c(["mz", "zy", "ba"]))))
    if m.p(0.5):
        fields.append((m.c(["标本号", "条码号", "样本编号"]), lambda: m.mrn("spec")))
    if m.p(0.6):
        def _dt():
            m.date()
            if m.p(0.4):
                m.t(" ")
                m.k("%02d:%02d" % (m.n(6, 18), m.n(0, 59)), "time")
        fields.append((m.c(["送检日期", "采样时间", "报告日期", "检查日期"]), _dt))
    if m.p(0.4):
        fields.append((m.c(["送检医生", "申请医生", "检验者", "审核者"]), lambda: m.name(cued=True)))
    if m.p(0.3):
        fields.append((m.c(["科室", "科别"]), lambda: m.t(m.c(_DEPTS))))
    head = m.p(0.4)
    if m.p(0.3):
        m.t(m.c(["发一下报告：", "报告如下", "化验单内容："]) + "\n")
    if head:
        m.hosp(big=True)
        m.t(m.c(["检验报告单", "检验科报告", "  检查报告"]) + "\n")
    colon = m.c(["：", ":", " ", "："])
    joiner = m.c(["\n", "\n", "  ", "；"])
    order = list(range(len(fields)))
    if m.p(0.3):
        m.r.shuffle(order)
    for j, ix in enumerate(order):
        label, fn = fields[ix]
        m.t(label + colon)
        fn()
        m.t(joiner)
    for j in range(m.n(1, 4)):
        m.lab()
        m.t(m.c(["\n", "；", "，", "\n"]))
    m.t(m.c(["医生帮忙看看这个报告", "这个要紧吗", "", "请问严重吗？"]))


def _cue_phone(m):
    cue = m.c(["电话", "手机", "手机号：", "tel:", "联系电话 ", "或者直接打", "打我电话", "座机", "家里座机："])
    m.t(cue)
    m.phone("l" if "座机" in cue else ("m" if ("手机" in cue or m.p(0.8)) else "l"))


def t_contact_multi(m):
    _p_open(m)
    items = []
    items.append(lambda: (m.t(m.c(["加我微信", "微信：", "VX ", "vx:", "v信", "微信号是", "wx "])), m.wechat()))
    items.append(lambda: _cue_phone(m))
    if m.p(0.5):
        items.append(lambda: (m.t(m.c(["邮箱", "邮箱 ", "email:", "邮件发到"])), m.email()))
    if m.p(0.25):
        items.append(lambda: (m.t(m.c(["QQ", "扣扣", "qq号"])), m.qq()))
    m.r.shuffle(items)
    m.t(m.c(["方便的话", "有结果了麻烦告诉我，", "我不太会用这个APP，", "线下联系也行，", ""]))
    for j, fn in enumerate(items):
        if j:
            m.t(m.c(["，", "，或者", "；", " ", "\n", "，也可以"]))
        fn()
        if m.p(0.2):
            m.t(m.c(["（白天）", "（晚上都在）", "(24小时开机)", "（我女儿的）"]))
    _p_close(m)


def t_order_issue(m):
    _p_open(m)
    m.tm("rel")
    m.t(m.c(["在平台上付了问诊费，", "付了图文问诊的钱，", "买了电话问诊，"]))
    m.t(m.c(["订单号", "订单编号：", "单号", "订单 "]))
    m.order("plat")
    m.t(m.c(["，一直没医生回复", "，到现在没人接诊", "，医生一直没回"]))
    if m.p(0.6):
        m.t(m.c(["，支付宝交易号", "，微信支付单号", "，交易单号："]))
        m.order("pay")
    m.t(m.c(["，能退吗？", "，请尽快处理。", "，麻烦查一下"]))
    if m.p(0.6):
        m.t(m.c(["手机", "联系我：", "电话"]))
        m.phone("m")
    if m.p(0.3):
        m.t(m.c(["（账号是", "（注册的名字是"]))
        m.name()
        m.t("）")
    _p_close(m)


def t_doc_reply_named(m):
    m.t(m.c(["收到，", "你好，", "", "好的，"]))
    m.name(cued=False)
    if m.p(0.35):
        m.t(m.c(["女士", "先生", "阿姨", "大爷", "女士"]))
    m.t(m.c(["，", "，", "你好，", "家属，"]))
    if m.p(0.5):
        m.lab()
    else:
        m.vital(m.c(["bp", "bp2", "hr"]))
    m.t(m.c(["确实偏高，", "有点高，", "不太理想，"]))
    m.t("建议")
    if m.p(0.5):
        m.date("appt")
        m.t("之前")
    m.t("到")
    m.hosp(big=True)
    m.t(m.c(_DEPTS) + "复查")
    if m.p(0.7):
        pre, post = m.c([("，可以挂", "的号。"), ("，找", "看看。"), ("，可以约", "的专家号。"), ("。挂", "的号就行。")])
        m.t(pre)
        m.staff(["主任", "副主任", "医生", "教授"])
        m.t(post)
    else:
        m.t("。")
    if m.p(0.4):
        m.t("先吃")
        m.drug_dose()
        m.t("。")


def t_referral(m):
    m.t(m.c(_D_OPEN))
    m.t(m.c(["我这边给你开了转诊单，转到", "建议转诊到", "已经帮您联系好了，去"]))
    m.hosp(big=True)
    m.t("，")
    m.t(m.c(["预约号", "转诊编号", "预约码", "挂号单号"]))
    m.order(m.c(["appt", "reg"]))
    m.t("，")
    m.date("appt")
    if m.p(0.3):
        m.k(m.c(["早上8点前", "上午9点", "下午2点前", "8:00前"]), "time")
    else:
        m.t(m.c(["上午", "下午", ""]))
    m.t("去" + m.c(_DEPTS) + m.c(["找", "挂", "见"]))
    m.staff()
    if m.p(0.6):
        m.t(m.c(["，有问题打护士站电话", "，科室电话", "，联系电话", "。咨询电话："]))
        m.phone(m.c(["l", "l", "s"]))
    m.t(m.c(["。", "", "，带好之前的片子。"]))


def t_delivery(m):
    v = m.n(0, 3)
    if v == 0:
        _p_open(m)
        m.t(m.c(["药寄到", "麻烦把药寄到", "邮寄地址："]))
        m.addr(m.c(["urban", "rural", "urban"]))
        m.t(m.c(["，收件人", "，收货人", " ", "，"]))
        m.name(cued=False)
        m.t(m.c(["，电话", "，", " ", "，手机"]))
        m.phone("m")
    elif v == 1:
        m.t(m.c(["收件人：", "收件人:", "姓名："]))
        m.name(cued=True)
        m.t(m.c(["  ", " ", "\n"]))
        m.t(m.c(["电话：", "", "手机 "]))
        m.phone("m")
        m.t("\n" + m.c(["地址：", "地址:", "收货地址："]))
        m.addr(m.c(["urban", "rural"]))
    elif v == 2:
        m.t(m.c(["寄这个地址：", "地址发您：", ""]))
        m.addr(m.c(["urban", "rural", "compound"]))
        m.t(" ")
        m.name(cued=False)
        m.t(" ")
        m.phone("m")
    else:
        m.t(m.c(["寄给我" + m.c(["妈", "爸", "婆婆"]) + "吧，", "直接寄老家，"]))
        m.name(cued=False)
        m.t("（")
        m.phone("m")
        m.t("），")
        m.addr("rural")
        m.t(m.c(["，农村的快递可能要", "，大概要"]))
        m.dur("short")
    _p_close(m)


def t_id_for_rx(m):
    _p_open(m)
    m.t(m.c(["开处方需要身份证吗？", "实名认证要填身份证号，", "医保报销要身份证，"]))
    m.t(m.c(["我的是", "身份证号", "证件号：", "身份证：", "", "号码 "]))
    m.id_card()
    if m.p(0.5):
        cue = m.c(["，医保卡号", "，医保卡：", "，社保卡号"])
        m.t(cue)
        if "医保" in cue:
            m.mrn("yb")
        else:
            m.social_card()
    if m.p(0.5):
        m.t("，")
        m.name()
        m.t(m.c(["本人", "（本人）", "，就是我"]))
    _p_close(m)


def t_inpatient(m):
    _p_open(m)
    m.t(m.c(["我和", "我跟", "昨天我和"]))
    m.name(cued=False)
    m.t(m.c(["一起去的", "陪着去了"]))
    m.hosp(big=True)
    m.t(m.c(["，医生说要住院，", "，直接收住院了，"]))
    m.date()
    m.t(m.c(["办的入院", "住进去的", "入的院"]))
    m.t(m.c(["，住院号", "，住院号是", "，住院号："]))
    m.mrn("zy")
    if m.p(0.3):
        m.t(m.c(["，病人身份证", "，他身份证号"]))
        m.id_card()
    m.t("，现在")
    m.vital(m.c(["temp", "bp", "hr", "spo2"]))
    if m.p(0.5):
        m.t("，")
        m.lab()
    m.t(m.c(["，要紧吗", "，接下来要注意什么", "。"]))


def t_two_parents(m):
    _p_open(m)
    m.t("我爸")
    m.name()
    m.t("（")
    m.age("elder")
    m.t("）和我妈")
    m.name()
    m.t("（")
    m.age("elder")
    m.t("）都有高血压，我爸")
    m.vital(m.c(["bp", "bp2"]))
    m.t("，我妈吃")
    m.drug_dose([d for d in _DRUG_DOSES if d[0] in ("氨氯地平", "缬沙坦", "硝苯地平控释片", "美托洛尔", "氯沙坦")])
    m.t(m.c(["，能一起看吗", "，想给他们俩都问问", "。"]))
    if m.p(0.3):
        m.t("他们住")
        m.addr(m.c(["city", "county", "rural_mid"]))
        m.t("，来一趟不方便。")


def t_timeline(m):
    _p_open(m)
    j = m.c(["，", "\n", "；", "。"])
    m.date()
    m.t("在")
    m.hosp(big=True)
    m.t("查出" + m.c(_DX) + j)
    m.date()
    if m.p(0.6):
        m.t(m.c(["做的手术", "做的切除"]) + j + "术后")
    else:
        m.t("开始吃药" + j + "吃了")
    m.dur("mid")
    m.t("复查")
    m.lab()
    if m.p(0.5):
        m.t(j)
        m.date()
        m.t("又查")
        m.lab()
    m.t(m.c(["，现在要不要调药？", "。请问需要再手术吗", "，正常吗"]))


def t_schedule(m):
    if m.p(0.6):
        m.name(cued=False)
        if m.p(0.4):
            m.t(m.c(["女士", "先生"]))
    else:
        m.nick()
    m.t(m.c(["您好，", "你好，", "，"]))
    m.t(m.c(["已为您预约", "给您约了", "帮你挂了"]))
    m.date("appt")
    if m.p(0.3):
        m.t("（" + "周" + "一二三四五六日"[m.last_date.weekday()] + "）")
    m.tm("appt")
    m.t("的号，就诊地点：")
    m.hosp(big=True)
    m.t(m.c(["门诊楼3楼", "2号楼", "门诊"]) + m.c(_DEPTS))
    m.t(m.c(["，挂号单号", "，预约凭证号", "，取号码"]))
    m.order(m.c(["reg", "appt"]))
    if m.p(0.7):
        m.t(m.c(["，如需改约请拨打", "，改约电话", "。有问题打"]))
        m.phone(m.c(["l", "s", "l"]))
    m.t("。")


def t_send_files(m):
    if m.role == "patient":
        _p_open(m)
        m.t(m.c(["片子太大传不上来，我放网盘了 ", "影像资料在这个链接：", "报告在这 ", "云胶片："]))
        m.url(m.c(["pan", "short", "query", "full"]))
        m.t(m.c([" ，或者我发您邮箱？", "，您看下", " 打不开的话我再发一遍", "看一下"]))
    else:
        m.t(m.c(["资料可以发到我邮箱", "发", "片子请发到"]))
        m.email()
        m.t(m.c(["，我晚上看", "，注明姓名和年龄", "。"]))
        if m.p(0.4):
            m.t("，也可以上传到")
            m.url("www")


def t_passport(m):
    _p_open(m)
    m.t(m.c(["我人在国外，", "我在外地出差，用的是护照，", "孩子在国外读书，"]))
    m.t(m.c(["护照号", "护照号码：", "护照"]))
    m.passport()
    m.t("，")
    if m.p(0.6):
        m.t("之前在")
        m.hosp()
        m.t("看过，")
    m.t(m.c(["能线上开药寄到", "能寄药到"]))
    m.addr(m.c(["urban", "city_sub"]))
    m.t("吗")
    _p_close(m)


def t_nurse_follow(m):
    m.t("您好，我是")
    m.hosp(big=True)
    m.t(m.c(_DEPTS) + "的" + m.c(["护士", "随访护士", "责任护士"]))
    m.name(cued=True)
    m.t("，")
    m.name(cued=True)
    m.t(m.c(_TITLES_LAY[:4]))
    m.date()
    m.t(m.c(["出院后恢复得怎么样？", "出院，最近伤口怎么样？"]))
    if m.p(0.6):
        m.t("记得")
        m.tm("med")
        m.t("按时吃药，")
        m.drug_dose()
        m.t("。")
    if m.p(0.3):
        m.t("有事打科室电话")
        m.phone("l")
        m.t("。")


def t_birth(m):
    _p_open(m)
    m.t(m.c(["孩子是", "宝宝", "我家小孩"]))
    m.date("recent")
    m.t("出生的，现在")
    m.age_since(m.last_date)
    m.t("，")
    m.t(m.c(["发烧", "咳嗽", "拉肚子", "吐奶", "出疹子"]))
    m.dur("short")
    m.t("了，")
    m.vital(m.c(["temp", "hr", "weight_child"]))
    if m.p(0.4):
        m.t("，在")
        m.hosp(big=True)
        m.t("建的档，建档号")
        m.mrn(m.c(["mz", "card"]))
    _p_close(m)


def t_complaint(m):
    m.date()
    m.t(m.c(["我在你们平台找", "在这个APP上找", "我找"]))
    m.staff(["医生", "主任", "大夫"])
    pre = m.c(["问诊，订单号", "看病，订单号", "问诊（订单"])
    m.t(pre)
    m.order("plat")
    m.t("），" if "（" in pre else "，")
    m.t("医生")
    m.dur("short")
    m.t(m.c(["都没回复，要求退款。", "才回了一句话，太不负责了！", "没回，钱也不退"]))
    if m.p(0.4):
        m.t("联系方式")
        m.phone("m")


def t_companion(m):
    _p_open(m)
    m.t(m.c(["陪我来看病的是邻居", "这次是我同事", "陪诊的是我朋友"]))
    m.name(cued=False)
    if m.p(0.3):
        m.t(m.c(["阿姨", "大姐", "叔"]))
    m.t(m.c(["，他电话", "，她的电话是", "，她手机号", "（电话"]))
    m.phone("m")
    m.t(m.c(["，有事可以找她", "）", "，我耳朵不好", "，检查结果可以告诉她"]))
    _p_close(m)


def t_nocue_phone(m):
    if m.p(0.5):
        m.phone("m")
        m.t(m.c(["，这是我电话，", " 我的号码，", "，我手机，"]))
        if m.p(0.5):
            m.t(m.c(["打不通就找", "没人接就联系"]))
            m.name(cued=False)
        else:
            m.t(m.c(["有结果麻烦打给我", "方便的话回个电话"]))
    else:
        _p_open(m)
        m.t(m.c(["有事打", "急事请打", "回电到"]))
        m.phone()
        m.t(m.c(["找我或者", "，找我或者找"]))
        m.name(cued=False)
        m.t("都行")
    _p_close(m)


def t_contact_card(m):
    lines = [("联系人", lambda: m.name(cued=True)), ("手机", lambda: m.phone("m"))]
    if m.p(0.5):
        lines.append((m.c(["座机", "家里电话", "固话"]), lambda: m.phone("l")))
    if m.p(0.7):
        lines.append((m.c(["住址", "家庭住址", "现住址", "地址"]), lambda: m.addr(m.c(["urban", "rural"]))))
    if m.p(0.3):
        lines.append(("邮箱", lambda: m.email()))
    if m.p(0.3):
        lines.append(("与患者关系", lambda: m.t(m.c(["父女", "母子", "夫妻", "儿子"]))))
    colon = m.c(["：", ":", " "])
    if m.p(0.4):
        m.t(m.c(["补充联系方式\n", "家属信息：\n", "紧急联系人\n"]))
    for j, (lab, fn) in enumerate(lines):
        if j:
            m.t(m.c(["\n", "\n", "；", " "]))
        m.t(lab + colon)
        fn()


def t_qq(m):
    _p_open(m)
    m.t(m.c(["QQ", "我的QQ：", "扣扣", "qq "]))
    m.qq()
    m.t(m.c(["，QQ邮箱", "，邮箱", "，报告发qq邮箱也行："]))
    m.email(qq=True)
    if m.p(0.4):
        m.t("，我")
        m.k(m.c(["晚上8点以后", "每天晚上", "中午12点到1点", "下午5点后", "周末"]), "time")
        m.t("都在线")
    _p_close(m)


def t_doc_clinic_info(m):
    pl = m.place()
    pre, post = m.c([("我" + m.c(_WEEKDAYS) + "上午在", "出诊，"), ("线下可以来", "找我，"), ("我的门诊在", "，")])
    m.t(pre)
    m.hosp(place=pl, big=True)
    m.t(post)
    if m.p(0.6):
        m.t(m.c(["地址是", "位置：", "在"]))
        m.addr(m.c(["urban", "street", "city_sub"]), place=pl)
        m.t("，")
    m.t(m.c(["咨询电话", "预约电话：", "电话"]))
    m.phone(m.c(["l", "s"]))
    if m.p(0.5):
        m.t(m.c(["，也可以在官网", "，网上预约：", "，公众号链接"]))
        m.url(m.c(["www", "full", "digits", "query"]))
        m.t(m.c(["预约", "", "挂号"]))
    m.t("。")


def t_spouse(m):
    _p_open(m)
    m.t("我是")
    m.name()
    m.t(m.c(["的爱人，他", "的老婆，他", "家属，患者"]))
    m.date()
    m.t("在")
    m.hosp(big=True)
    m.t(m.c(["住院，", "做了支架，", "查出" + m.c(_DX) + "，"]))
    m.t("出院时")
    m.lab()
    m.t(m.c(["，主治医生是", "，管床的是"]))
    m.staff(["医生", "大夫", "主任"])
    m.t(m.c(["，现在要不要复查", "，出院后一直" + m.c(_SYMPTOMS)]))
    _p_close(m)


def t_colloquial(m):
    pl = m.place()
    m.t(m.c(["大夫 ", "医生 ", "dr ", ""]))
    m.t(m.c(["我妈", "我老爹", "俺娘", "我家老太太"]))
    m.age("elder")
    m.t(m.c(["了 最近老是头晕 在", "了，最近老头晕，在", "了 老说心慌 在"]))
    m.addr(m.c(["town", "county", "city"]), place=pl)
    m.t("那边的")
    m.hosp(allow_bare_short=False, place=pl)
    m.t("量" if m.p(0.5) else "测")
    m.vital(m.c(["bp", "bp2", "hr"]))
    m.t(m.c([" 咋整啊", " 要紧不", "，肿么办", "。。。"]))


def t_family_list(m):
    _p_open(m)
    m.t(m.c(["家里三口人都不舒服：", "我们一家都想问问：", "登记一下家里人："]))
    m.t(m.c(["\n", "", " "]))
    seps = m.c(["；", "\n", "；\n", "，"])
    rels = [("父亲", "elder"), ("母亲", "elder"), ("我", "adult"), ("奶奶", "elder"), ("儿子", "child"),
            ("女儿", "child"), ("爱人", "adult")]
    m.r.shuffle(rels)
    for j in range(m.n(2, 4)):
        rel, akind = rels[j]
        if j:
            m.t(seps)
        if m.p(0.5):
            m.name(cued=True)
            m.t("（" + rel + "，")
            m.age(akind)
            m.t("）")
        else:
            m.t(rel + " ")
            m.name(cued=True)
            m.t(" ")
            m.age(akind)
            if m.p(0.5):
                m.t(" ")
                m.vital(m.c(["bp", "hr", "temp"]) if akind != "child" else m.c(["temp", "hr"]))


def t_after_owner(m):
    v = m.n(0, 3)
    _p_open(m)
    if v == 0:
        m.t(m.c(["电话", "手机", ""]))
        m.phone("m")
        m.t("（")
        m.name(cued=False)
        m.t(m.c(["）", "的）", "，家属）"]))
    elif v == 1:
        m.phone("m")
        m.t(" ")
        m.name(cued=False)
        m.t(m.c(["收", " 收", "（收）"]))
    elif v == 2:
        m.t(m.c(["身份证", "证件号"]))
        m.id_card()
        m.t(m.c(["（患者", "（"]))
        m.name(cued=True)
        m.t(m.c(["本人）", "）"]))
    else:
        m.t("病历号")
        m.mrn(m.c(["mz", "ba"]))
        m.t("（")
        m.name(cued=True)
        m.t("，")
        m.age()
        m.t("）")
    m.t(m.c(["，医生看看", "，上面是我的信息", "，麻烦登记一下", ""]))


def t_lab_series(m):
    _p_open(m)
    for j in range(m.n(2, 3)):
        if j:
            m.t(m.c(["；", "\n", "。", "，"]))
        m.date()
        m.t(m.c(["复查：", "查的：", " ", "："]))
        m.lab()
        m.t(m.c(["，", "，", " "]))
        m.lab()
    m.t(m.c(["\n是不是在好转？", "，指标降得慢正常吗", "。"]))


def t_appt_slash(m):
    _p_open(m)
    pre, post = m.c([("预约的", "复查，"), ("复查约在", "，"), ("医生让我", "去复查，"), ("预约了", "的复查，"),
                     ("复查时间是", "，")])
    m.t(pre)
    m.date("appt", amb=True)
    m.t(post)
    m.t("这两天")
    m.vital(m.c(["bp", "hr", "temp"]))
    m.t(m.c(["，要不要提前去？", "，能推迟吗", "，还需要加药吗"]))


def t_url_digits(m):
    m.t(m.c(["扫码或打开", "请点击", "随访表填写地址："]))
    m.url(m.c(["digits", "query", "short"]))
    m.t(m.c(["填写随访表，", " 填写问卷，", " 完成登记，"]))
    m.t(m.c(["客服", "有问题打客服", "咨询"]))
    m.phone("s")
    m.t("。")


def t_social(m):
    _p_open(m)
    cue = m.c(["社保卡号", "社保卡：", "医保卡号", "社保卡号码是"])
    m.t(cue)
    if "社保" in cue:
        m.social_card()
    else:
        m.mrn("yb")
    m.t(m.c(["，参保地", "，在", "，卡是"]))
    m.addr(m.c(["city", "county", "city_sub"]))
    m.t(m.c(["办的，", "的，"]))
    m.t(m.c(["能用医保吗", "线上问诊能报销吗", "异地能用吗"]))
    _p_close(m)


def t_military(m):
    _p_open(m)
    m.t(m.c(["我是现役军人，", "我爱人是军人，", "退役前"]))
    m.t(m.c(["军官证号", "军官证：", "士兵证号", "证件"]))
    m.military()
    m.t("，在")
    m.hosp()
    m.t(m.c(["看病能报销吗", "能走军人优先吗", "就诊要带什么"]))
    _p_close(m)


def t_specimen(m):
    m.t(m.c(["标本号", "样本号", "条码"]))
    m.mrn("spec")
    m.t(m.c(["，报告编号", "，报告单号", "；报告号"]))
    m.mrn("report")
    m.t("，")
    m.name(cued=False)
    m.t(m.c(["的", "的结果：", "：", "这份"]))
    m.lab()
    m.t(m.c(["，", "；"]))
    m.lab()
    m.t(m.c(["，结果已经出来了。", "，请核对。", "。"]))


def t_bare_list(m):
    joiner = m.c([" ", " ", "\n", "，", "  "])
    items = [lambda: m.name(cued=False), lambda: m.id_card(), lambda: m.phone("m")]
    if m.p(0.4):
        items.append(lambda: m.addr(m.c(["urban", "rural"])))
    if m.p(0.3):
        items.insert(1, lambda: m.date("birth"))
    for j, fn in enumerate(items):
        if j:
            m.t(joiner)
        fn()


def t_nick(m):
    _p_open(m)
    v = m.n(0, 2)
    if v == 0:
        m.t(m.c(["我们家", "我家", "我儿子", "我闺女"]))
        m.i("小" + m.c(_GIVEN_1), "NAME")
        m.t("今年")
        m.age("child")
        m.t("，")
        m.t(m.c(["最近", "这两天"]) + m.c(["发烧", "咳嗽", "不吃饭"]) + "，")
        m.vital(m.c(["temp", "hr", "weight_child"]))
    elif v == 1:
        m.t(m.c(["邻居", "同事", "朋友"]))
        m.nick()
        m.t(m.c(["介绍我来找您的，", "推荐的您，"]))
        m.t("我" + _sym(m))
        m.dur(m.c(["short", "mid"]))
        m.t("了")
    else:
        m.nick()
        m.t(m.c(["说", "跟我说"]) + "在")
        m.hosp()
        m.t("看好的，")
        m.t(m.c(["他那个", "她"]) + m.c(_DX) + "，吃了")
        m.dur("mid")
        m.t("药就好了")
    _p_close(m)


def t_doc_colleague(m):
    if m.p(0.5):
        m.t(m.c(["这个问题我同事", "这方面我们科"]))
        m.staff(["副主任", "主任", "医生", "教授"])
        m.t("更擅长，")
    else:
        pre = m.c(["建议挂", "可以挂", "可以去找"])
        m.t(pre)
        m.staff(["副主任", "主任", "医生", "教授"])
        m.t("，" if pre == "可以去找" else m.c(["的号，", "的专家号，"]))
    m.t(m.c(["她在", "他在", "在"]))
    m.hosp(big=True)
    m.t(m.c(_DEPTS) + "，" + m.c(_WEEKDAYS) + m.c(["上午出诊", "下午有特需门诊"]) + "。")


def t_sick_note(m):
    _p_open(m)
    m.t(m.c(["需要开病假条，单位要求写：", "麻烦开个诊断证明，信息如下："]))
    m.name(cued=True)
    m.t(m.c(["，身份证号", "，身份证", " 证件号"]))
    m.id_card()
    if m.p(0.6):
        m.t(m.c(["，住址", "，家庭住址：", "，住"]))
        m.addr(m.c(["urban", "rural"]))
    m.t("，")
    m.date_pair()
    m.t(m.c(["休息", "需要休息", "病休"]))
    _p_close(m)


def t_payment(m):
    _p_open(m)
    m.t(m.c(["微信支付交易单号", "支付宝交易号", "交易单号："]))
    m.order("pay")
    if m.p(0.6):
        m.t(m.c(["，商户单号", "，平台订单号"]))
        m.order("plat")
    else:
        m.t(m.c(["，处方号", "，处方编号"]))
        m.order("rx")
    m.t("，退款")
    m.dur("short")
    m.t(m.c(["了还没到账", "了没动静"]))
    _p_close(m)


def t_signoff(m):
    m.t(m.c(["药物调整：", "建议：", "处理意见："]))
    m.drug_dose()
    m.t("，")
    m.dur(m.c(["short", "mid"]))
    m.t("后复查")
    m.lab()
    m.t(m.c(["。\n——", "。\n", "。 "]))
    m.hosp(big=True)
    m.t(m.c([" ", "", " "]) + m.c(_DEPTS) + " ")
    m.name(cued=True)
    if m.p(0.4):
        m.t(m.c(["\n处方编号：", " 处方号"]))
        m.order("rx")


def t_starts_hosp(m):
    m.hosp()
    pre, post = m.c([("的报告，", "做的，医生帮忙看下："), ("开的单子，", "出的结果："), ("，", "查的 "),
                     (" ", "抽的血：")])
    m.t(pre)
    m.date()
    m.t(post)
    m.lab()
    m.t("，")
    m.lab()
    _p_close(m)


def t_starts_addr(m):
    m.addr(m.c(["city", "city", "county", "city_sub"]))
    v = m.n(0, 2)
    if v == 0:
        m.t(m.c(["这边有没有能做", "那边哪里能做"]) + m.c(_EXAMS) + m.c(["的医院？", "的地方？"]))
    elif v == 1:
        m.t(m.c(["本地能做", "能做"]) + m.c(_EXAMS) + m.c(["吗，还是要去大医院", "吗？"]))
    else:
        m.t(m.c(["的医院能看", "这边能不能看"]) + m.c(_DX) + m.c(["吗", "？"]))
    if m.p(0.5):
        m.t("我" + _sym(m))
        m.dur(m.c(["short", "mid"]))
        m.t("了。")


def t_starts_date(m):
    m.date()
    m.t(m.c(["做的" + m.c(_EXAMS) + "，", "查的血，", "开始" + _sym(m) + "，"]))
    m.lab() if m.p(0.6) else m.vital()
    m.t(m.c(["，", "。"]))
    m.t(m.c(["已经", "到现在"]))
    m.dur(m.c(["short", "mid"]))
    m.t(m.c(["了还没好", "了", "了，需要复查吗"]))
    if m.p(0.3):
        m.t("（")
        m.name(cued=True)
        m.t("，")
        m.age()
        m.t("）")


def t_doc_name_hello(m):
    m.staff(["医生", "主任", "大夫", "教授"], surname_only_p=0.15)
    m.t(m.c(["您好，", "你好，", "，"]))
    m.t("我是")
    m.date()
    m.t(m.c(["在您那看过的", "找您看过的", "您门诊的"]))
    m.name(cued=True)
    v = m.n(0, 2)
    if v == 1:
        m.t("，门诊号")
        m.mrn("mz")
        m.t("，")
    elif v == 2:
        m.t("（门诊号")
        m.mrn("mz")
        m.t("），")
    else:
        m.t("，")
    m.t("吃药" if m.p(0.5) else "用药")
    m.dur("mid")
    m.t("后")
    m.lab()
    m.t(m.c(["，还需要继续吃吗", "，可以减量吗"]))
    _p_close(m)


def t_moving(m):
    _p_open(m)
    m.t("我们家从")
    m.addr(m.c(["city", "county"]))
    m.t("搬到")
    pl = m.place()
    m.addr(m.c(["city", "city_sub", "city"]), place=pl)
    pre, post = m.c([("了，以后在", "复查可以吗"), ("了，能不能转到", "继续治疗"), ("了，以后去", "看行吗")])
    m.t(pre)
    m.hosp(allow_bare_short=False, place=pl if m.p(0.7) else None)
    m.t(post)
    if m.p(0.4):
        m.t("？原来的病案号是")
        m.mrn("ba")
    _p_close(m)


def t_wechat_group(m):
    m.t(m.c(["加一下我们科室的随访微信", "术后随访加护士站微信：", "有问题可以加我助理的VX "]))
    m.wechat()
    m.t(m.c(["，备注姓名和住院号即可", "，备注手术日期", "。"]))
    if m.p(0.5):
        m.t(m.c(["，或者联系", "。负责随访的是"]))
        m.staff(_TITLES_NURSE)
        m.t("。")


def t_typo(m):
    m.typo = True
    m.t(m.c(["医深你好 我是", "医生 我是", "你好 我系"]))
    m.name(cued=True)
    m.t(m.c([" 上次在", " 上个月在", "，在"]))
    m.hosp()
    m.t(m.c(["开的药吃完了 能不能在开点", "开滴药吃完了，能布能再开点"]))
    m.t(m.c([" 电话", " 手机", "，打", " "]))
    m.phone("m")
    if m.p(0.3):
        m.t(" 我")
        m.tm("clock")
        m.t("有空")


def t_baby(m):
    _p_open(m)
    m.t("宝宝")
    born = m.date_text("recent")
    m.age_since(m.last_date)
    m.t("，")
    m.i(born, "DATE")
    m.t("出生，出生")
    m.k("体重%.2fkg" % (2.2 + m.r.random() * 2.2) if m.p(0.6) else "体重%d斤%d两" % (m.n(4, 8), m.n(1, 9)),
        "vital")
    m.t("，在")
    m.hosp(big=True)
    m.t(m.c(["生的，", "出生的，"]))
    m.t(m.c(["黄疸", "湿疹", "奶量少"]) + m.c(["一直没退", "反复"]) + "，")
    m.lab()
    _p_close(m)


def t_insurance(m):
    _p_open(m)
    m.t(m.c(["保险公司要理赔材料，需要", "报销要"]))
    m.hosp(big=True)
    m.t(m.c(["盖章的病历，", "的出院小结，"]))
    m.t(m.c(["病案号", "住院号"]))
    m.mrn(m.c(["ba", "zy"]))
    m.t("，住院时间")
    m.date_pair()
    if m.p(0.4):
        m.t(m.c(["，被保险人身份证号", "，身份证"]))
        m.id_card()
    m.t(m.c(["，线上能开吗", "，怎么复印"]))
    _p_close(m)


def t_doc_to_family(m):
    m.name(cued=False)
    m.t(m.c(["家属您好，", "的家属，你好，"]))
    m.t("病人")
    m.lab()
    m.t(m.c(["，比", "，比起"]))
    m.date()
    m.t(m.c(["那次好多了", "的结果有下降"]))
    m.t("，")
    m.drug_dose()
    m.t("继续，")
    m.dur(m.c(["short", "mid"]))
    m.t("后来")
    m.hosp(big=True)
    m.t("复诊。")


def t_mixed_parens(m):
    _p_open(m)
    m.t(m.c(["我（", "本人（", "患者（"]))
    m.name(cued=True)
    m.t("，")
    m.age("adult")
    m.t("，")
    m.addr(m.c(["city", "county", "city_sub"]))
    m.t(m.c(["）", ")"]))
    m.t(m.c(["最近", "", "这"]))
    m.dur(m.c(["short", "mid"]))
    m.t(_sym(m) + "，")
    m.vital(m.c(["bp", "hr", "temp", "spo2"]))
    m.t(m.c(["，需要去医院吗？", "，能在线开药吗"]))


def t_landline_home(m):
    _p_open(m)
    m.t(m.c(["老人不会用手机，打家里座机", "家里电话", "座机："]))
    m.phone("l")
    m.t(m.c(["，找", "，", "（"]))
    m.name(cued=False)
    m.t(m.c(["就行", "接", "）"]))
    if m.p(0.5):
        m.t("，住在")
        m.addr(m.c(["rural_mid", "compound", "town"]))
    _p_close(m)


def t_doctor_email(m):
    m.t(m.c(["我是", "这里是"]))
    m.hosp(big=True)
    m.t(m.c(_DEPTS))
    m.t(m.c(["的", ""]))
    m.staff(["医生", "主治医师", "住院医师", "护士"], surname_only_p=0.0)
    m.t(m.c(["，病理报告请发到", "，资料发我邮箱"]))
    m.email()
    m.t(m.c(["，标题写", "，注明"]))
    m.t("患者姓名和")
    m.t(m.c(["病理号", "住院号"]))
    m.t("。")


def t_records_request(m):
    m.t(m.c(["请提供一下：", "麻烦补充："]))
    m.t(m.c(["门诊号", "就诊卡号", "医保卡号", "门诊ID"]))
    m.t("和出生日期")
    m.t(m.c(["。", "，方便查记录。"]))
    if m.p(0.5):
        m.t("——")
        m.hosp()
        m.t(m.c(_DEPTS))
        m.name(cued=True)
    else:
        m.t("之前在")
        m.hosp()
        m.t("看过吗")


def t_records_reply(m):
    m.t(m.c(["就诊卡号", "门诊号", "卡号", "门诊ID:"]))
    m.mrn(m.c(["card", "mz"]))
    m.t(m.c(["，出生日期", "，生日", " 出生"]))
    m.date("birth")
    if m.p(0.5):
        m.t(m.c(["，", "，名字是"]))
        m.name(cued=True)
    _p_close(m)


def t_realname(m):
    if m.p(0.55):
        m.t(m.c(["实名信息：\n", "就诊人信息\n", "补充一下就诊人资料：\n", ""]))
        rows = [("姓名", lambda: m.name(cued=True)),
                (m.c(["身份证", "身份证号", "证件号码"]), lambda: m.id_card()),
                (m.c(["手机", "手机号", "电话"]), lambda: m.phone("m"))]
        if m.p(0.35):
            rows.append(("邮箱", lambda: m.email()))
        if m.p(0.5):
            rows.append((m.c(["住址", "现住址", "户籍地址"]), lambda: m.addr(m.c(["urban", "rural"]))))
        if m.p(0.3):
            rows.insert(2, ("出生日期", lambda: m.date("birth")))
        colon = m.c(["：", ":", "："])
        for j, (lab, fn) in enumerate(rows):
            if j:
                m.t(m.c(["\n", "\n", "；"]))
            m.t(lab + colon)
            fn()
    else:
        _p_open(m)
        m.t(m.c(["实名认证填的是", "就诊人是", "挂号用的是"]))
        m.name(cued=True)
        m.t(m.c(["，", "的，", " "]))
        m.id_card()
        m.t(m.c(["，手机", "，手机号", " "]))
        m.phone("m")
        m.t(m.c(["，但是一直提示信息不符", "，帮忙看下哪里错了", "，改不了"]))


def t_email_report(m):
    v = m.n(0, 3)
    if v == 0:
        m.email()
        m.t(m.c([" 这是我邮箱，报告能发过来吗", "，我邮箱，片子发这里就行", " 麻烦发一下电子版"]))
    elif v == 1:
        _p_open(m)
        m.t(m.c(["报告能发我邮箱吗（", "电子发票能发邮箱吗（"]))
        m.email()
        m.t("）")
    elif v == 2:
        m.t(m.c(["邮箱：", "邮箱 ", "E-mail:"]))
        m.email()
        m.t("，")
        m.name(cued=False)
        m.t(m.c(["收", "（本人）"]))
    else:
        _p_open(m)
        m.t(m.c(["资料发到", "病历发"]))
        m.email()
        m.t(m.c(["谢谢", "就行", "，或者", "吧"]))
        if m.parts[-1][0] == "，或者":
            m.email()
    _p_close(m)


def t_wechat_patient(m):
    _p_open(m)
    m.t(m.c(["加个微信吧，", "方便加微信吗？", "我不常看APP，"]))
    m.t(m.c(["我微信", "vx：", "VX ", "微信号：", "wx:"]))
    m.wechat()
    if m.p(0.5):
        m.t(m.c(["，备注", "，验证消息写"]))
        m.name(cued=True)
        m.t(m.c(["家属", "", "的妈妈"]))
    if m.p(0.3):
        m.t(m.c(["，或者QQ", "，QQ也行："]))
        m.qq()
    _p_close(m)


def t_link_share(m):
    if m.role == "patient":
        _p_open(m)
        m.t(m.c(["网上看到这篇 ", "我看了这个 ", "朋友转给我的链接："]))
        m.url()
        m.t(m.c([" 说" + m.c(_DRUG_DOSES)[0] + "伤肝，是真的吗", "，上面说" + m.c(_DX) + "会癌变？",
                 " 里面的方法靠谱吗"]))
    else:
        m.t(m.c(["可以看看这个科普 ", "饮食注意事项见：", "用药说明："]))
        m.url(m.c(["full", "www", "short"]))
        m.t(m.c(["，", "。"]))
        m.drug_dose()
        m.t(m.c(["，别自己加量。", "，饭后吃。"]))


def t_where_live(m):
    _p_open(m)
    pl = m.place()
    m.t(m.c(["我住", "家在", "我家住在", "住在"]))
    m.addr(m.c(["urban", "rural", "rural_mid", "compound", "town", "county"]), place=pl)
    m.t(m.c(["，离", "，去"]))
    m.hosp(place=pl if m.p(0.6) else None)
    m.t(m.c(["挺远的", "要", "坐车"]))
    if m.parts[-1][0] != "挺远的":
        m.k(m.c(["两个小时", "3个多小时", "一个半小时", "大半天", "40分钟"]), "duration")
    m.t(m.c(["，能在线复诊吗", "，每次复查都很麻烦", "，老人折腾不起"]))
    _p_close(m)


def t_travel(m):
    _p_open(m)
    pl = m.place()
    m.t(m.c(["我现在在", "人在", "在"]))
    m.addr(m.c(["city", "city", "city_sub"]), place=pl)
    m.t(m.c(["出差，", "旅游，", "打工，"]))
    m.t(_sym(m))
    m.dur("short")
    m.t("了，附近有")
    m.hosp(allow_bare_short=False, place=pl)
    m.t(m.c(["，去那里看可以吗", "，能挂" + m.c(_DEPTS) + "吗"]))


def _extra_sep(m, seps) -> None:
    last = m.parts[-1][0] if m.parts else ""
    if last and last[-1] in "。！？!?~～.，,；;\n🙏😭👍":
        m.t(m.c(["\n", " ", ""]))
    else:
        m.t(m.c(seps))


def _extra_patient(m):
    """An afterthought appended to a patient message: one or two more identifiers."""
    v = m.n(0, 8)
    _extra_sep(m, ["\n", "。", "，", " ", "。\n"])
    if v == 0:
        cue = m.c(["我电话", "联系电话：", "回电请打", "手机", "手机号"])
        m.t(cue)
        m.phone("m" if "手机" in cue else None)
    elif v == 1:
        m.t(m.c(["——", "家属", "（代问："]))
        m.name(cued=True)
        if m.parts[-2][0].startswith("（"):
            m.t("）")
    elif v == 2:
        m.t(m.c(["人在", "现在住", "我们是"]))
        m.addr(m.c(["city", "county", "city_sub", "town"]))
        m.t(m.c(["", "的", "这边"]))
    elif v == 3:
        m.t(m.c(["身份证号补一下：", "证件号", "身份证"]))
        m.id_card()
    elif v == 4:
        m.t(m.c(["之前在", "以前在"]))
        m.hosp()
        m.t(m.c(["看过", "住过院", "也查过"]))
    elif v == 5:
        m.t(m.c(["下次想约", "能约"]))
        m.date("appt")
        m.t(m.c(["吗", "的号吗", "复查吗"]))
    elif v == 6:
        m.t(m.c(["病历号", "门诊号", "就诊卡号"]))
        m.mrn(m.c(["mz", "card", "ba"]))
    elif v == 7:
        m.t(m.c(["邮箱", "报告可发"]))
        m.email()
    else:
        m.t(m.c(["微信", "VX"]))
        m.wechat()


def _extra_doctor(m):
    v = m.n(0, 3)
    _extra_sep(m, ["\n", "。", " ", "\n——"])
    if v == 0:
        m.staff(["医生", "医生团队", "主任", "护士"], surname_only_p=0.0)
    elif v == 1:
        m.hosp(big=True)
        m.t(m.c(_DEPTS) + " ")
        m.name(cued=True)
    elif v == 2:
        m.t(m.c(["科室电话", "随访电话", "咨询"]))
        m.phone(m.c(["l", "s"]))
    else:
        m.t(m.c(["复诊时间", "下次复查"]))
        m.date("appt")


_ID_TEMPLATES = [
    # (weight, role, fn)
    (5, "patient", t_intro_list), (5, "patient", t_family_on_behalf), (6, "patient", t_report_form),
    (4, "patient", t_contact_multi), (3, "patient", t_order_issue), (4, "doctor", t_doc_reply_named),
    (4, "doctor", t_referral), (5, "patient", t_delivery), (4, "patient", t_id_for_rx),
    (3, "patient", t_inpatient), (3, "patient", t_two_parents), (4, "patient", t_timeline),
    (4, "doctor", t_schedule), (2, "patient", t_send_files), (1, "doctor", t_send_files),
    (2, "patient", t_passport), (3, "doctor", t_nurse_follow), (2, "patient", t_birth),
    (2, "patient", t_complaint), (2, "patient", t_companion), (3, "patient", t_nocue_phone),
    (3, "patient", t_contact_card), (2, "patient", t_qq), (3, "doctor", t_doc_clinic_info),
    (3, "patient", t_spouse), (3, "patient", t_colloquial), (3, "patient", t_family_list),
    (3, "patient", t_after_owner), (3, "patient", t_lab_series), (3, "patient", t_appt_slash),
    (2, "doctor", t_url_digits), (2, "patient", t_social), (1, "patient", t_military),
    (2, "doctor", t_specimen), (4, "patient", t_bare_list), (3, "patient", t_nick),
    (3, "doctor", t_doc_colleague), (2, "patient", t_sick_note), (2, "patient", t_payment),
    (3, "doctor", t_signoff), (3, "patient", t_starts_hosp), (3, "patient", t_starts_addr),
    (3, "patient", t_starts_date), (3, "patient", t_doc_name_hello), (2, "patient", t_moving),
    (2, "doctor", t_wechat_group), (2, "patient", t_typo), (2, "patient", t_baby),
    (2, "patient", t_insurance), (3, "doctor", t_doc_to_family), (2, "patient", t_mixed_parens),
    (2, "patient", t_landline_home), (2, "doctor", t_doctor_email), (2, "doctor", t_records_request),
    (2, "patient", t_records_reply), (4, "patient", t_realname), (4, "patient", t_email_report),
    (3, "patient", t_wechat_patient), (2, "patient", t_link_share), (1, "doctor", t_link_share),
    (4, "patient", t_where_live), (3, "patient", t_travel),
]


# ------------------------------------------------------------------------------ messages with no identifier
def c_symptom(m):
    _p_open(m)
    m.tm(m.c(["rel", "rel", "month"]))
    m.t("开始" + _sym(m) + "，")
    m.dur(m.c(["short", "mid"]))
    m.t("了，")
    m.t(m.c(["量了一下", "自己测了", "在家量"]))
    m.vital(m.c(["bp", "bp2", "hr", "temp", "spo2"]))
    m.t("，吃了")
    m.drug_dose()
    m.t(m.c(["也没用", "好一点了", "，还是不舒服"]))
    _p_close(m)


def c_lab_upload(m):
    _p_open(m)
    m.t(m.c(["血常规结果：", "化验结果出来了\n", "体检报告上写着"]))
    for j in range(m.n(2, 4)):
        if j:
            m.t(m.c(["，", "\n", "；", " "]))
        m.lab(with_range_p=0.5)
    m.t(m.c(["，要紧吗", "\n这些箭头是什么意思", "，需要吃药吗？"]))


def c_doc_dose(m):
    m.t(m.c(_D_OPEN))
    m.t("建议")
    m.drug_dose()
    if m.p(0.5):
        m.t("，另外加")
        m.drug_dose()
    m.t("，连用")
    m.dur(m.c(["short", "mid"]))
    m.t("，")
    m.dur(m.c(["short", "mid"]))
    m.t("后复查" + m.c(["血常规", "肝功能", "血糖", "甲功", "肾功能"]) + "。")


def c_child_fever(m):
    _p_open(m)
    m.t(m.c(["宝宝", "孩子", "我家闺女"]))
    m.age(m.c(["child", "infant"]))
    m.t("，发烧")
    m.dur("short")
    m.t("，最高")
    m.vital("temp")
    m.t("，" + m.c(["吃了", "喂了"]))
    m.drug_dose(_FEVER_DRUGS)
    m.t("，")
    m.tm(m.c(["clock", "rel"]))
    m.t(m.c(["又烧起来了", "退了又烧", "开始咳嗽"]))
    _p_close(m)


def c_chronic(m):
    _p_open(m)
    m.tm(m.c(["year", "year", "month", "rel"]))
    drug, doses = m.c(_DRUG_DOSES)
    m.t("查出" + m.c(_DX) + "，一直" + ("在打" if drug == "胰岛素" else "在吃") + drug)
    m.k(m.c(doses), "dose")
    m.t("，最近")
    m.lab()
    m.t(m.c(["，是不是要加药", "，控制得怎么样", "，偏高吗"]))


def c_generic_hosp(m):
    _p_open(m)
    m.t(m.c(["在当地医院看过", "去社区医院查过", "在县城的医院看过", "镇上卫生院看过"]))
    m.t("，说是" + m.c(_DX) + "，")
    m.lab() if m.p(0.5) else m.vital()
    m.t(m.c(["，要不要去大医院？", "，需要去三甲医院再查吗", "，小诊所的药能吃吗", "，有必要去省里看吗"]))


def c_province(m):
    _p_open(m)
    m.t(m.c(["我是" + m.c(_PROVINCES_BARE) + "的，", "老家" + m.c(_PROVINCES_BARE) + "，",
             "在" + m.c(_PROVINCES_BARE) + "打工，", m.c(_PROVINCES_BARE) + "人，"]))
    m.age("adult")
    m.t("，" + _sym(m))
    m.dur(m.c(["short", "mid"]))
    m.t(m.c(["了，", "，"]))
    m.t(m.c(["想来大城市看看", "本地医院看不好", "请问挂什么科"]))
    _p_close(m)


def c_doc_bp(m):
    m.t(m.c(_D_OPEN))
    m.vital(m.c(["bp", "bp2", "hr"]))
    m.t(m.c(["偏高", "控制得不理想", "还可以"]) + "，")
    m.tm("clock")
    m.t(m.c(["再量一次", "再测一下", "复测"]) + "，")
    m.t(m.c(["连续测", "坚持记录"]))
    m.dur("short")
    if m.p(0.5):
        m.t("，")
        m.drug_dose([d for d in _DRUG_DOSES if d[0] in ("氨氯地平", "缬沙坦", "硝苯地平控释片", "美托洛尔", "氯沙坦")])
        m.t(m.c(["继续吃", "先别停"]))
    m.t("。")


def c_pregnancy(m):
    _p_open(m)
    m.t("怀孕")
    m.k(m.c(["%d周" % m.n(5, 38), "%d周+%d" % (m.n(5, 38), m.n(1, 6)), "%d个多月" % m.n(2, 8)]), "duration")
    m.t("，")
    if m.p(0.4):
        m.lab(name=m.c(["血红蛋白", "TSH", "空腹血糖", "血小板", "FT4"]))
    else:
        m.k("β-HCG %d mIU/mL" % m.n(500, 180000), "lab")
    m.t("，")
    if m.p(0.5):
        m.k("孕酮" + m.c(["", " ", "："]) + "%.1f ng/ml" % (5 + m.r.random() * 30), "lab")
        m.t("，")
    m.t(m.c(["正常吗", "需要保胎吗", "胎儿发育好吗"]))


def c_followup(m):
    m.t(m.c(_D_OPEN))
    m.dur(m.c(["short", "mid"]))
    m.t("后复查，")
    m.t(m.c(["如果", "若"]))
    m.vital(m.c(["bp", "temp"]))
    m.t(m.c(["以上", "持续不降"]) + "，" + m.c(["及时就医", "来医院急诊", "线上联系我"]) + "。")


def c_emergency(m):
    m.t(m.c(_D_OPEN))
    m.t(m.c(["胸痛超过", "症状持续"]))
    m.k(m.c(["20分钟", "半小时", "15分钟"]), "duration")
    m.t(m.c(["不缓解，立即打120", "不缓解的话马上拨打120或去急诊"]))
    m.t("，硝酸甘油可以先含")
    m.k(m.c(["1片", "0.5mg", "一片"]), "dose")
    m.t("。")


def c_month(m):
    _p_open(m)
    m.tm(m.c(["month", "year"]))
    m.t(m.c(["开始", "的时候就"]) + _sym(m) + "，")
    m.t("当时")
    m.lab() if m.p(0.5) else m.vital()
    m.t(m.c(["，现在", "，这次"]))
    m.lab() if m.p(0.5) else m.vital()
    m.t(m.c(["，好转了吗", "，变化大吗"]))


def c_colloquial(m):
    m.t(m.c(["医生 ", "大夫", "在吗 "]))
    m.t(m.c(["俺", "我"]) + m.c(["拉肚子", "胃疼", "头疼得厉害", "咳个不停"]))
    m.dur("short")
    m.t(m.c(["了 ", "了，"]))
    if m.p(0.6):
        m.t(m.c(["喝了藿香正气水 ", "吃了蒙脱石散 ", "吃了点感冒药 "]))
        m.dose()
        m.t(m.c([" 没用", " 还是难受", ""]))
    else:
        m.t(m.c(["吃啥药啊", "要不要输液"]))
    m.t(m.c(["", "？？", "。。。"]))


def c_sleep(m):
    _p_open(m)
    m.t("每天")
    m.tm("clock")
    m.t("才睡着，")
    m.tm("clock")
    m.t("就醒，")
    m.dur("mid")
    m.t("了，吃了")
    m.drug_dose(_SLEEP_DRUGS)
    m.t(m.c(["，有依赖性吗", "，能长期吃吗"]))


def c_doc_interpret(m):
    m.t(m.c(_D_OPEN))
    m.t("你这个")
    name, rng = m.c(_Msg._RANGES)
    m.lab(with_range_p=0.0, name=name)
    m.t(m.c(["，正常范围是", "，参考值"]))
    m.k(rng, "lab")
    m.t(m.c(["，稍微有点偏，问题不大", "，需要复查", "，要结合症状看"]))
    if m.p(0.5):
        m.t("，")
        m.age(m.c(["adult", "elder"]))
        m.t(m.c(["的人这个数值常见", "这个年纪可以观察"]))
    m.t("。")


def c_weight(m):
    _p_open(m)
    who = m.c(["孩子", "我"])
    m.t(who)
    m.age("child" if who == "孩子" else "adult")
    m.t("，")
    m.vital("weight_child" if who == "孩子" else "weight")
    m.t("，")
    m.k("身高%dcm" % (m.n(70, 160) if who == "孩子" else m.n(150, 190)), "vital")
    m.t(m.c(["，偏胖吗", "，算正常吗", "，要减肥吗"]))


_CLIN_TEMPLATES = [
    (5, "patient", c_symptom), (5, "patient", c_lab_upload), (5, "doctor", c_doc_dose),
    (3, "patient", c_child_fever), (4, "patient", c_chronic), (3, "patient", c_generic_hosp),
    (2, "patient", c_province), (3, "doctor", c_doc_bp), (2, "patient", c_pregnancy),
    (2, "doctor", c_followup), (1, "doctor", c_emergency), (2, "patient", c_month),
    (2, "patient", c_colloquial), (2, "patient", c_sleep), (3, "doctor", c_doc_interpret),
    (1, "patient", c_weight),
]


_NO_EXTRA = (t_signoff, t_doctor_email, t_records_request)


def _pick(rng: random.Random, table):
    total = sum(w for w, _, _ in table)
    x = rng.random() * total
    for w, role, fn in table:
        x -= w
        if x < 0:
            return role, fn
    return table[-1][1], table[-1][2]


# ------------------------------------------------------------------------------------------ checking
_NAME_TAILS = tuple(_TITLES_DOC + _TITLES_NURSE + _TITLES_LAY + ["的", "收"])


def _require(ok, what) -> None:
    """The generator's self-check; raises (unlike assert, it survives python -O)."""
    if not ok:
        raise ValueError("consult_b self-check failed: %r" % (what,))


def _check(msg: dict, want_id: bool) -> None:
    text = msg["text"]
    _require(msg["role"] in ("patient", "doctor"), msg["role"])
    spans = sorted(msg["spans"])
    keeps = sorted(msg["keep"])
    for s, e, cat in spans:
        _require(cat in CATEGORIES, cat)
        _require(0 <= s < e <= len(text), (s, e, text))
        seg = text[s:e]
        _require(seg.strip() and seg == seg.strip(), (seg, text))
        if cat == "NAME":
            _require(1 <= len(seg) <= 4 and not seg.endswith(_NAME_TAILS), (seg, text))
        if cat == "ID":
            digits = seg.translate(_FW_BACK).replace(" ", "").upper()
            if len(digits) == 18 and digits[:17].isdigit():
                _require(_id_check(digits[:17]) == digits[17], ("bad ID check digit", seg))
    for s, e, kind in keeps:
        _require(kind in KEEP_KINDS, kind)
        _require(0 <= s < e <= len(text), (s, e, text))
        seg = text[s:e]
        _require(seg.strip() and seg == seg.strip(), (seg, text))
    for a, b in zip(spans, spans[1:]):
        _require(a[1] <= b[0], ("identifier spans overlap", a, b, text))
    for a, b in zip(keeps, keeps[1:]):
        _require(a[1] <= b[0], ("keep spans overlap", a, b, text))
    for ks, ke, _ in keeps:
        for s, e, _ in spans:
            _require(ke <= s or e <= ks, ("keep overlaps identifier", text[ks:ke], text[s:e], text))
    if want_id:
        _require(spans, text)
    else:
        _require(not spans and keeps, text)


# ------------------------------------------------------------------------------------------ public API
def generate(seed: int = 0, n_messages: int = 3000) -> list[dict]:
    """The corpus: ``n_messages`` consultation messages, about 60 % with identifiers."""
    rng = random.Random(seed)
    out: list[dict] = []
    for _ in range(n_messages):
        want_id = rng.random() < 0.60
        role, fn = _pick(rng, _ID_TEMPLATES if want_id else _CLIN_TEMPLATES)
        m = _Msg(rng, role)
        fn(m)
        if want_id and rng.random() < 0.35 and fn not in _NO_EXTRA:
            (_extra_patient if role == "patient" else _extra_doctor)(m)
        msg = m.build()
        _check(msg, want_id)
        msg["spans"] = sorted(msg["spans"])
        msg["keep"] = sorted(msg["keep"])
        out.append(msg)
    return out


def corpus_sha256(corpus: list[dict]) -> str:
    return hashlib.sha256(json.dumps(corpus, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def verify() -> None:
    """Regenerate seed 0 / 3000 messages and raise if it is not the frozen corpus."""
    got = corpus_sha256(generate(0, 3000))
    if got != CORPUS_SHA256:
        raise RuntimeError("consult_b corpus drifted: sha256 %s, frozen %s" % (got, CORPUS_SHA256))


def _marked(msg: dict) -> str:
    text = msg["text"]
    out, pos = [], 0
    for s, e, cat in msg["spans"]:
        out.append(text[pos:s])
        out.append("【%s｜%s】" % (text[s:e], cat))
        pos = e
    out.append(text[pos:])
    return "".join(out)


def main() -> None:
    corpus = generate(0, 3000)
    cats = {c: 0 for c in CATEGORIES}
    kinds = {k: 0 for k in KEEP_KINDS}
    for msg in corpus:
        for _, _, c in msg["spans"]:
            cats[c] += 1
        for _, _, k in msg["keep"]:
            kinds[k] += 1
    with_id = sum(1 for msg in corpus if msg["spans"])
    roles = {r: sum(1 for msg in corpus if msg["role"] == r) for r in ("patient", "doctor")}
    print("messages: %d (with identifiers %d = %.1f%%; patient %d, doctor %d)"
          % (len(corpus), with_id, 100.0 * with_id / len(corpus), roles["patient"], roles["doctor"]))
    print("identifier spans: %d" % sum(cats.values()))
    for c in CATEGORIES:
        print("  %-9s %5d" % (c, cats[c]))
    print("keep spans: %d" % sum(kinds.values()))
    for k in KEEP_KINDS:
        print("  %-9s %5d" % (k, kinds[k]))
    sha = corpus_sha256(corpus)
    print("sha256: %s (%s)" % (sha, "frozen, matches" if sha == CORPUS_SHA256 else "DOES NOT MATCH the frozen hash"))
    print("\nsamples (identifiers marked 【text｜CATEGORY】):")
    pick = random.Random(12345)
    for ix in sorted(pick.sample(range(len(corpus)), 10)):
        print("--- #%d [%s]" % (ix, corpus[ix]["role"]))
        print(_marked(corpus[ix]))


if __name__ == "__main__":
    main()
