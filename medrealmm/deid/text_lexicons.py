"""Word lists behind the text rules: surnames, stop characters, generic words that are not names.

Kept apart from the rules so they can be reviewed (and extended) without touching regexes. The
surname list is the usual list of common Chinese surnames (top ~500 singles plus the compound ones);
it makes name cues precise: ``王医生`` masks ``王`` because 王 is a surname, ``好医生`` masks nothing.
"""

from __future__ import annotations

# Single-character surnames, roughly by frequency (the 500-odd that cover >99 % of the population).
_SINGLE = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖萧田董袁潘于蒋蔡余杜叶程苏魏"
    "吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫阎段雷侯龙史陶黎贺顾毛郝龚邵万"
    "钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁"
    "尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆"
    "农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商"
    "刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝官封谈匡鞠惠荆乐冀郁胥南班储原栗燕楚鄢劳谌奚皮粟冼蔺"
    "楼盘满闻位厉伊仝区郜海阚花权强帅屠豆朴盖练廉禹井祖漆巴丰支卿国狄平计索宣晋相初门云容敬来扈晁芮"
    "都普阙浦戈伏鹿薄邸雍辜羊阿乌母裘亓修邰赫杭况那宿鲜印逯隆茹诸战慕危玉银亢嵇公哈湛宾戎勾茅利呼居"
    "揭干但尉冶斯元束檀衣信展阴昝智幸奉植衡富尧闭由郗庹訾蹇沃税代伦蓬庚琚邴乜佴隗骞荀羿鄂逄桓仉督夹"
    "祭绪双年归爱蔚谯笪凤酆郦雒经喜操越丘邝鄞黑蓟才贲芈禄臧钮龙殳赖洪蒯毋矫厍糜郇禚宓折竺禤暨"
)
_COMPOUND = (
    "欧阳", "司马", "诸葛", "上官", "东方", "皇甫", "尉迟", "公孙", "慕容", "长孙", "宇文", "司徒", "夏侯",
    "轩辕", "令狐", "独孤", "端木", "南宫", "西门", "百里", "呼延", "万俟", "澹台", "公冶", "宗政", "濮阳",
    "太叔", "申屠", "钟离", "闻人", "赫连", "拓跋", "东郭", "第五", "司空", "左丘", "子车", "亓官", "公羊",
)

SURNAMES: frozenset[str] = frozenset(_SINGLE) | frozenset(_COMPOUND)
COMPOUND_SURNAMES: tuple[str, ...] = _COMPOUND

# Surnames that are also everyday function words (向医生咨询, 我和医生说, 求助于医生): alone before a
# title they count as a name only right after punctuation or a clear cue, never after any character.
AMBIGUOUS_SURNAMES: frozenset[str] = frozenset("向和于但由那都来位时应祝才")

# Characters that cannot be part of a given name here: particles, pronouns, verbs and clinical
# words that follow a name in running text. A name candidate stops before them.
STOP_CHARS: frozenset[str] = frozenset(
    "的了是在有和跟同与及或而且但并就也都还又再才已曾很太最挺吗呢吧啊呀哦嗯么啥怎什谁哪这该每各某其此"
    "我你您他她它们自己说讲问答看找请帮谢因为所以如果虽即比较之前后里外上下左右间次个岁年日周号点时分"
    "今昨早晚午夜男女性别患病症状医院科室诊疗治检查化验药片粒支瓶克升做去来到从于给被把对向往回转住出"
    "入起过得着没不无要想会能应当让叫吃喝服用打挂约咨询复已经发烧咳痛痒肿热冷血尿便，"
)

# After a weak cue (我是, 患者, 病人, 叫 …) a name must be followed by one of these or by a non-Chinese
# character: "我是张伟，" and "患者张伟因发热" are names, "我是南方人" is not.
STRONG_NEXT: frozenset[str] = frozenset("的今是因于在从自诉男女年岁之和与及也都就说想要来去做这那我你您他她，主近请")

# Words that begin with a surname character and are not names; a cue followed by one of these is
# not a name (我是高血压患者, 叫黄疸, 患者常常…). Checked on the first two and three characters.
COMMON_WORDS: frozenset[str] = frozenset("""
丁香 平安好 春雨 好大夫 周黑鸭
高血压 高血糖 高血脂 高烧 高热 高中 高兴 高度 高危 高龄 高压 高原 高三 高一 高二 高考 高铁 高级 高效 高峰
白细胞 白带 白天 白色 白斑 白癜风 白发 白内障 白血病 白酒 白领 白开水 黄疸 黄色 黄体 黄连 黄芪 黄豆 黄瓜
石膏 石头 王子 张力 张开 张口 常规 常见 常常 常用 常年 常态 甘油 毛发 毛囊 毛病 毛孔 苏醒 方便 方法 方面
方式 方案 方向 马上 周围 周期 周末 周岁 周身 于是 余下 何时 关节 关于 关注 关系 关心 谢谢 付费 司机 任何
任务 解决 解释 解除 解毒 解热 万一 全身 全部 全面 全职 全家 全天 全麻 向上 向下 车祸 车上 康复 安全 安排
安眠 安静 安慰 连续 连接 连花 程度 程序 程序员 管理 管床 管子 包括 包块 包皮 左侧 左边 左右 右侧 路上 路口
龙眼 齐全 温度 温水 温暖 温和 曾经 花粉 花生 花钱 申请 应该 应用 应激 应对 单位 单纯 单身 单独 单次 蒙脱石
成人 成年 成都 成绩 成功 成分 平时 平常 平衡 平躺 平均 平稳 明天 明显 明确 明白 明日 易感 文员 文件 文字
金属 金银花 云南 米饭 夏天 冬天 雷击 江苏 江西 胡萝卜 朱砂 杜仲 严重 严格 尚未 从小 门诊 门口 叶酸 初产
初次 初中 初期 初诊 初步 简单 牛奶 牛肉 羊肉 羊水 时间 时候 时常 时期 时段 田间 秦艽 杨梅 柳树 宁可 宁愿
尤其 尤为 阳性 阳光 阳痿 阳虚 施工 商量 商场 师傅 焦虑 焦急 岳父 岳母 甄别 符合 舒服 舒适 纪律 梅毒 童年
凌晨 毕业 季节 霍乱 涂抹 苗条 谷丙 谷草 谷氨 盛行 曲线 曲张 骆驼 蓝色 路径 游泳 辛苦 辛辣 管道 柴胡 蒙医
鲍鱼 华法林 蒲公英 房颤 房间 房事 屈光 屈曲 艾灸 艾滋 农药 农村 卓越 古代 车辆 项目 芦荟 麦粒肿 窦性
窦炎 党参 宫颈 宫缩 宫外孕 宫腔 费用 冷汗 冷敷 冷热 卫生 米索 桂枝 全血 边缘 和缓 沙丁胺醇 桑葚 桑叶 仲景
巩固 查体 查看 麻醉 麻木 麻疹 迟发 迟到 封闭 谈话 荆芥 乐观 郁闷 郁金 南瓜 南方 北方 班级 储存 原因 原发
原来 原则 栗子 燕窝 劳累 皮肤 皮疹 皮下 皮质 粟粒 楼上 楼下 满意 满月 闻到 位置 厉害 海鲜 海马 强烈 强直
豆类 豆浆 练习 廉价 祖传 巴氏 丰富 支气管 支架 国内 国外 国家 计划 相关 相当 相对 容易 来源 都是 普通 伏天
鹿茸 薄荷 阿司匹林 阿莫西林 乌鸡 母乳 母亲 修复 杭州 况且 那么 那些 那个 宿舍 鲜血 印象 隆起 诸如 战胜 危险
玉米 银屑病 亢进 公斤 公司 公分 利尿 利于 呼吸 居然 干燥 干咳 干眼 但是 元素 衣服 信息 展开 阴道 阴性
阴虚 智齿 智力 幸福 植物 富含 闭经 由于 钱包 经常 经期 经过 经验 双侧 双手 双眼 年龄 年纪 年轻 过敏 过度
过去 过程 爱人 才能 黑色 黑便 喜欢 操作 越来越 代谢 伦理 和平 和睦 向日葵 石家庄 韩国 欧美 申报 宣传
邢台 秦皇岛 沙发 荣幸 卫健委 晋升 燕麦 杨树 夏季 冬季 钟头 钟点 叶子 谷物 苗头 葛根 陈皮 甘草 白术
麻烦 相信 支持 信任 金牌 明星 温柔 严厉 陪同 跟随 关心 爱护 爱心 通过 申诉 华佗 扁鹊 名医 良医 庸医
""".split())

# Two-character words whose second character is a surname: before a title they are not a name
# (当时医生说, 后来医生说, 这位医生, 上周医生, 化验单医生…).
BEFORE_TITLE_WORDS: frozenset[str] = frozenset("""
当时 那时 这时 及时 到时 按时 准时 平时 同时 有时 此时 何时 临时 过来 后来 出来 回来 起来 下来 上来 进来 以来
看来 本来 原来 从来 将来 这位 那位 哪位 各位 每位 一位 几位 对方 上周 下周 这周 每周 本周 去年 今年 前年 明年
每年 验单 告单 说明 经常 正常 很高 较高 过高 偏高 升高 太高 最高 不高 蛋白 结石 病史 药方 处方 身高 地方 双方
一方 各方 西方 南方 北方 心房 病房 药房 乳房 开车 坐车 打车 出门 专门 部门 体温 相关 有关 无关 中国 全国 出国
回国 外国 单元 谢谢 感谢 多谢 致谢 道谢 由于 对于 关于 至于 属于 位于 等于 在于 用于 处于 终于 过于 小区 社区
病区 小时 老师 老公 小米 老年 责任 信任 主任 担任 新任 前任 护师 医师 药师 技师 律师 教师 导师 明白 空白 苍白
坦白 都是 还是 就是 要是 可是 只是 但是 于是 总是 老是 倒是 像是 算是 那么 一同 共同 相同 不同 合同 如同 陪同
了解 理解 缓解 分解 溶解 讲解 检查 复查 普查 筛查 详解 见解
""".split())

# Two-character verbs that put a person right after them (转告王医生, 您好杨女士).
PERSON_VERBS: frozenset[str] = frozenset("""
转告 告诉 通知 麻烦 拜托 感谢 谢谢 多谢 咨询 联系 请教 询问 推荐 预约 提醒 转给 交给 汇报 您好 你好 见到 遇到
找到 挂了 问问 约了 认识 知道 还有 以及 或者 还是 跟着 跟随 委托 介绍 请问 打扰 辛苦 回复 答复 留言 私信
""".split())

# Major cities written without 市 (北京朝阳区): a district right after one of them is sub-city.
MAJOR_CITIES: tuple[str, ...] = (
    "北京", "上海", "天津", "重庆", "广州", "深圳", "杭州", "南京", "苏州", "成都", "武汉", "西安", "长沙",
    "郑州", "济南", "青岛", "沈阳", "大连", "哈尔滨", "长春", "石家庄", "太原", "呼和浩特", "合肥", "福州",
    "厦门", "南昌", "南宁", "海口", "昆明", "贵阳", "兰州", "西宁", "银川", "乌鲁木齐", "拉萨", "宁波", "无锡",
    "佛山", "东莞", "温州", "珠海", "烟台", "徐州", "常州", "泉州", "惠州", "中山", "洛阳", "唐山", "保定",
)

# Famous hospitals known by a short name: 协和医院, 湘雅二院, 华西附院, 北医三院.
HOSPITAL_ABBREVIATIONS: tuple[str, ...] = (
    "协和", "华西", "湘雅", "同济", "瑞金", "华山", "中山", "齐鲁", "西京", "天坛", "宣武", "安贞", "朝阳",
    "积水潭", "北医", "仁济", "长海", "长征", "新华", "阜外", "中日友好", "301", "305", "儿研所", "邵逸夫",
    "浙一", "浙二", "省立", "南方", "珠江", "中南", "西南", "新桥", "大坪", "鼓楼", "宁夏", "盛京", "龙华",
    "千佛山", "湘雅二", "湘雅三", "华西二", "齐鲁", "附一", "附二",
)

# --- the statistical layer (medrealmm/deid/text_statistical.py) -------------------------------------

# The most common single surnames (the first ~120 of the list above cover ~90 % of people): a name
# candidate with one of these needs less other evidence than one with a rare surname.
COMMON_SURNAMES: frozenset[str] = frozenset(_SINGLE[:120])
MID_SURNAMES: frozenset[str] = frozenset(_SINGLE[120:300])   # neither common nor rare: no weight either way

# Characters common in modern given names (both sexes, several generations), written from naming
# practice, not from any corpus this project is measured on. Given-name plausibility is one piece of
# evidence among several: many of these are also ordinary word characters.
GIVEN_NAME_CHARS: frozenset[str] = frozenset(
    "伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超兰霞平刚桂文辉玲华红鑫鹏飞斌宇浩凯健俊帆帅旭宁龙林欢阳建亮成佳嘉琳"
    "琪晶颖倩婷雪慧莉萍燕梅丹蓉凤洁玉珍琴云莲翠彩春菊芬淑惠珠雅芝娥素真环荣爱妹香月莺媛瑞凡琼勤贞娣叶璐娅琦"
    "妍茜秋珊莎锦黛青姣婉娴瑾露瑶怡婵雁蓓仪荷眉君蕊薇菁梦岚苑婕馨瑗琰韵融园艺咏卿聪澜纯毓悦昭冰爽琬茗羽希滢"
    "馥筠柔竹凝晓霄枫芸菲寒伊亚宜可舒影荔枝巧美毅峰东保力永世广志义兴良海山仁波贵福生元全国胜学祥才发武新利"
    "清彬富顺信子昌康星光天达安岩中茂进有坚和彪博诚先敬震振壮会思群豪心邦承乐绍功松善厚庆民友裕河哲江政谦亨"
    "奇固之翰朗伯宏言若鸣朋梁栋维启克伦翔泽晨辰士以家致树炎德行时泰盛雄琛钧冠策腾楠榕风航弘轩睿然梓涵一诺铭"
    "雨萱曦奕宸皓煜昊晟逸熙禹恒程彤婧语芮菡蕾雯潇金银铁钢根宝喜财旺冬夏德寿泉水田玮炜晖琦璇瑜璟琨珂玥瑛琛"
    "蕾薇莹萌蒙钰铮锋镇锐昕晗暄曼蔓楚琼岳嵘崇巍峥峻嵩渊涌淇湘潮澄灿烨焱煊熠琅瑭璋珏珺珩琮骏驰骁鸿鹤鹰凌冬"
    "霖霏雯露靖韬颂彦彰征徽忠怀恩惠慈慕憬扬振敖斐旻昀昱晋晔晏晴暖朔朝杉杨柏柯栋桐梧森楷樊欧歆毓汉沛沐河沁"
    "泓洪浚涵淼渝湛源溪滨漫潇澈濠瀚灵炅烁焕熙燊爵珑琳瑄璞甜畅皎盈睿知硕磊祎祺禾秀程穆笑策简粤紫红纬绮维绪"
    "缘美翊翡耀聪育胤舟航艺芊芷苗若茵荟莘莎菁萧葳蔚蓝蕴薛蘅虹诗诚谊豫贝贤赫超越跃轩辛达迪远逸道邦郁铠锦镕"
    "闯闻阔雅雍雷霆震霞韦韩顺颜飒馨骞高魁鹏麟黎鼎龄卫芹桃杏莉萍莲菊梅兰竹松柳樱娇媚嫣姝婷娉妮姗娟婕嫦"
    "二三小大少孟仲季伯叔幼长永福禄寿喜庆吉祥瑞宝贵富荣华昌盛兴旺发达欣坤")

# Whole two-character given names of their era or of country naming (建国, 红旗, 向东, 跃进 in the
# 1950s-70s; 来福, 有才, 满仓, 石头, 铁柱 as rural names of good luck; 招娣, 来弟 asking for a son): common as
# names, yet their characters (来, 有, 石, 旗) read as words, so a surname before one of them is a name.
FOLK_GIVEN_NAMES: frozenset[str] = frozenset("""
建国 建军 建华 建平 建民 建设 国庆 国强 国华 国栋 红旗 红军 红兵 跃进 向东 卫东 卫国 卫红 卫兵 爱国 爱民 爱华 爱军
援朝 抗美 胜利 解放 和平 振华 振国 志强 志国 来福 有才 有福 有财 有田 满仓 石头 铁柱 铁蛋 狗蛋 二狗 富贵 金花 银花
春花 秋菊 桂兰 桂芝 桂英 翠花 招娣 来弟 盼弟 天佑 天赐 长江 长青 长生 春生 秋生 冬生 水生 根生 得胜 新华 文革 学军
""".split())

# Words after which a name often follows (我和郭桂芝, 收到，郑洋, 陪刘平去): the left edge of a candidate.
NAME_LEFT: frozenset[str] = frozenset("和跟与同给找叫让带陪替帮请问是被把对向及或、")

# What often follows a name (刘平，…, 郭桂芝都是…, 郑洋的报告): the right edge of a candidate.
NAME_RIGHT: frozenset[str] = frozenset("的说今昨明现都也和跟与是在从去来到让把被给对要想会能还又已刚就才吃做说问家收寄")


# Drug brand names (商品名) that read like a person's name (a surname, then name-like characters):
# never names. Hand-collected from common Chinese prescription and OTC brands; the statistical layer
# also lowers any candidate that a drug's context follows (效果, 副作用, 怎么吃 …).
DRUG_BRANDS: frozenset[str] = frozenset("""
施慧达 安博维 蒙诺 雅施达 洛汀新 诺和灵 诺和锐 诺和龙 诺和力 诺和泰 诺欣妥 华法林 尼膜同 乐松 英太青 泰诺 百服宁 易坦静
沐舒坦 仙特明 顺尔宁 信必可 万托林 思力华 达克宁 艾洛松 百多邦 京万红 乐肤液 优思明 达英 补佳乐 耐信 吗丁啉 达喜
易蒙停 丽珠得乐 汉森 太宁 尤卓尔 希克劳 泰力特 来立信 左克 大扶康 兰美抒 赛乐特 左洛复 来士普 黛力新 再普乐 维思通
安律凡 德巴金 利必通 开浦兰 妥泰 乐瑞卡 弥可保 善存 金施尔康 伊可新 星鲨 贝特令 欧唐宁 捷诺维 安达唐 欧唐静 度易达
长秀霖 甘舒霖 优思灵 宁心宝 韩金靓 罗盖全 毕生珍 金水宝 苏黄 康忻 高特 宁红 傲坦 美卡素 复代文 安内真 欧美宁 拜新同
伲福达 洛丁新 可定 舒降之 倍博特 万苏平 邦瑞特 温胃舒 百令 柯妥 解郁 曲美 司美 司美格鲁肽 安宫 黄氏 马应龙 康泰克
白加黑 金嗓子 华素 贺普丁 贺维力 韦瑞德 博路定 施尔康 钙尔奇 迪巧 朗迪 田七 洁尔阴 金鸡 宫炎平 妇科千金 花红
安神补脑 静心 乐孕宁 孕康 史克 严迪 希舒美 舒利迭 普米克 奥克 欧克 奥美 兰索 雷贝 潘妥 洛赛克 达芙通 芬必得 美林
扶他林 莫比可 西乐葆 安康信 乐芬 瑞巴派特 胃复春 江中 健胃 叶酸 爱乐维 玛特纳 福施福 斯利安 金双歧 培菲康 妈咪爱
斯达舒 修正斯达舒
""".split())
