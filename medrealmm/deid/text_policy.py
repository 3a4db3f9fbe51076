"""What counts as identifying in consultation text: the policy every text detector follows.

The policy, and the switch for each choice that trades privacy against clinical utility
(``deid.text.policy`` in conf/deid/default.yaml; defaults in brackets):

- People: every person's name is identifying — the patient's, a relative's (我和郭桂芝, 我老公张军),
  and the staff's (王医生 masks 王 and keeps 医生). A surname alone before a title or after 我姓
  counts. Nicknames built on a surname (小王, 老张) count where they name someone. Names are found
  with a cue (rules) and without one (the statistical layer: a segmenter's person tags, a surname
  list, given-name plausibility and the words around the candidate). ``staff_names`` [true]: false
  keeps the names of doctors and nurses before their title (王医生) — for corpora where staff names
  are public anyway; patients' and relatives' names are always masked.
- Places: every geographic unit below the province is identifying — prefecture-level cities
  (杭州, 杭州市, 恩施州), counties and districts (西湖区, 桐庐县, 萧山), towns, townships and
  subdistricts (李楼乡, 望京街道), villages and communities (王庄村, 翠湖社区), roads with or
  without a number (建国路88号), neighbourhoods named after a district (朝阳区望京), compounds and
  buildings (阳光小区3栋2单元501室) and postcodes. A place that names a product, a dish or a disease
  (兰州拉面, 东阿阿胶, 广州管圆线虫病) is not where someone lives and stays.
  Provinces, autonomous regions and the four municipalities (北京, 上海, 天津, 重庆) stay: as coarse
  as a region of residence, and often clinically relevant (endemic diseases). ``city`` [true]: false
  keeps a prefecture-level city named on its own (HIPAA Safe Harbor masks it; some studies keep it).
  ``province_in_address`` [true]: a province written as the head of a longer address
  (浙江省杭州市西湖区…, 海南三亚) is masked with the rest, so the address is one placeholder, as
  annotators mark an address; false leaves the province readable before ``[ADDRESS]``.
- Dates: every date tied to the person finer than the year is identifying — day-month-year, month+day
  (5月12日, 12.10号, 11/9那天) and year+month (2023年5月, ``year_month`` [true]). A year alone, a month
  alone (5月份), a duration (3天), an age, a relative time (上周) and a time of day stay. A bare
  ``M.D`` or ``M/D`` counts only where the words around it make it a date (12.10号, 11/9那天开始,
  在5.12复查, 复查是3/15, 周三(11/22), 11.20-11.25住院): otherwise it is a decimal, a fraction, a
  reference range or a lab value and stays (复查是6.5, 3.9-6.1).
- Numbers: resident IDs (checksum), passports and other certificates (cue), phones (mobile, landline
  with or without separators, 400/800), e-mails, URLs and account handles (微信号, 小红书 @昵称), order /
  invoice / payment numbers, medical-record, outpatient, inpatient, insurance and registration numbers (病历号, 门诊ID …).
  Clinical numbers never: ages, durations, doses, lab values, vitals.
- Hospitals: every named hospital, clinic or health centre, in full or short (北京协和医院, 湘雅二院,
  华西, 中山一院, 仁济东院, 仁爱门诊部, 张氏诊所, a chain such as 爱尔眼科). A type without a place or
  proper name (医院, 当地医院, 三甲医院, 社区医院, 儿童医院, 市人民医院, 县医院, 县城医院) names no
  hospital and stays. ``level_hospitals`` [true]: a level with an ordinal or a specialty (市二院,
  省肿瘤医院, 县中医院, 市妇幼) and an ordinal hospital without its place (第一人民医院) name the one
  hospital of that kind in the patient's city or province and are masked; false keeps them.
"""

from __future__ import annotations

from medrealmm.config_schema import Settings

__all__ = ["TextPolicy"]


class TextPolicy(Settings):
    """The switches of the policy above (``deid.text.policy``; an unknown key is an error: a typo must not
    weaken the policy); every detector reads the same instance."""

    city: bool = True
    province_in_address: bool = True
    year_month: bool = True
    staff_names: bool = True
    level_hospitals: bool = True
    cueless_dates: bool = True

