"""The stretches of time a text names ("two months ago", "in March", "去年"), as of a moment.

A recall asked "I mentioned visiting a museum two months ago" or "What did Maria donate in
December 2023?" names when the memory it wants was made. `named_timespans` finds such
expressions in English and Chinese and resolves them against the moment the question is asked;
`time_match` says how well a memory's time falls in them (scoring adds it to the score).

Understood, in English (case aside): "N days / weeks / months / years ago" (N a number, a
number word, "a", "a few", "a couple of", "several"); "the last / past N days ..." (up to
now); "last / this / past week, weekend, month, year"; "yesterday"; "last
Monday" ... "last Sunday"; a month ("in March", "March 2023", "23 January, 2022", "May 5";
"May" only with a day, a year or "in" / "of" / "since" ... before it, as it is also a verb); "in
2022"; "2023-05-20" and "2023/05/20". In Chinese: "三个月前", "两周前", "5天前", "半年前"; "最近
两个月", "过去三天"; 昨天, 前天, 大前天, 上周, 上上周, 本周, 上周末, 上个月, 上上个月, 这个月,
去年, 前年, 今年; "五月", "2023年5月", "5月20日"; "2022年". A month or date without a year is
its latest one up to now; one to come ("next March", 明年三月) names none. "Today" and "tonight"
are left out: a question with them asks about now ("What should I cook tonight?"), not about
the memories of the day.
"""

import calendar
import re
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

DAY = timedelta(days=1)
UNIT_DAYS = {"day": 1.0, "week": 7.0, "month": 30.44, "year": 365.25}
"""A unit of "N units ago" in days."""
MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
WEEKDAYS = {name.lower(): number for number, name in enumerate(calendar.day_name)}
ENGLISH_COUNTS = {
    "a": 1.0,
    "an": 1.0,
    "one": 1.0,
    "two": 2.0,
    "three": 3.0,
    "four": 4.0,
    "five": 5.0,
    "six": 6.0,
    "seven": 7.0,
    "eight": 8.0,
    "nine": 9.0,
    "ten": 10.0,
    "eleven": 11.0,
    "twelve": 12.0,
    "a couple of": 2.0,
    "a few": 3.0,
    "several": 3.0,
}
"""Counts in words; "a few" and "several" are taken as three."""
COUNT = r"(\d{1,3}|" + "|".join(sorted(ENGLISH_COUNTS, key=len, reverse=True)) + ")"
UNIT = r"(day|week|month|year)s?"
AGO = re.compile(rf"\b{COUNT}\s+{UNIT}\s+ago\b", re.IGNORECASE)
LAST_COUNT = re.compile(rf"\b(?:last|past)\s+{COUNT}\s+{UNIT}\b", re.IGNORECASE)
LAST_UNIT = re.compile(r"\b(last|this|past)\s+(week|weekend|month|year)\b", re.IGNORECASE)
DAY_WORD = re.compile(r"\byesterday\b", re.IGNORECASE)
LAST_WEEKDAY = re.compile(r"\blast\s+(" + "|".join(WEEKDAYS) + r")\b", re.IGNORECASE)
ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
MONTH = re.compile(
    rf"(?:\b{ORDINAL}\s+(?:of\s+)?)?\b({'|'.join(MONTHS)})\b(?:\s+{ORDINAL}\b)?(?:,?\s+(\d{{4}})\b)?",
    re.IGNORECASE,
)
VERB_MONTHS = frozenset({"may", "march"})
"""Month names that are also verbs: the month only with a day, a year, a word of MONTH_AFTER
before it, or ("March") capitalised."""
MONTH_AFTER = re.compile(
    r"\b(?:in|of|since|until|till|by|during|early|mid|late|last|this)\s+$", re.IGNORECASE
)
FUTURE_BEFORE = re.compile(r"\b(?:next|coming)\s+$", re.IGNORECASE)
"""Words that make the month after them one to come ("next March"), which no memory is of."""
HAN_FUTURE_BEFORE = re.compile(r"(?:明年|后年)$")
"""The same in Chinese: 明年三月, 后年五月."""
YEAR = re.compile(r"\b(?:in|during|since|of)\s+((?:19|20)\d{2})\b", re.IGNORECASE)
ISO_DATE = re.compile(r"\b((?:19|20)\d{2})[-/](\d{1,2})[-/](\d{1,2})\b")

HAN_DIGITS = {
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
HAN_WORD_COUNTS = {"半": 0.5, "几": 3.0}
"""Counts in words: 半 a half, 几 (a few) taken as three."""
HAN_NUMBER = r"(\d{1,3}|[一二两三四五六七八九十]{1,3}|半|几)"
HAN_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week"}
HAN_UNITS |= {"月": "month", "年": "year"}
HAN_UNIT = r"(天|日|周|星期|礼拜|月|年)"
HAN_AGO = re.compile(rf"{HAN_NUMBER}\s*(?:个\s*)?{HAN_UNIT}(?:之|以)?前")
HAN_LAST_COUNT = re.compile(rf"(?:最近|过去|近)\s*(?:的\s*)?{HAN_NUMBER}\s*(?:个\s*)?{HAN_UNIT}")
HAN_DAYS = {"大前天": 3, "前天": 2, "昨天": 1, "昨日": 1}
HAN_RELATIVE = {
    "上上周": ("week", -2),
    "上上个月": ("month", -2),
    "上周末": ("weekend", -1),
    "上个星期": ("week", -1),
    "上星期": ("week", -1),
    "上礼拜": ("week", -1),
    "上周": ("week", -1),
    "这个星期": ("week", 0),
    "这周": ("week", 0),
    "本周": ("week", 0),
    "上个月": ("month", -1),
    "上月": ("month", -1),
    "这个月": ("month", 0),
    "本月": ("month", 0),
    "前年": ("year", -2),
    "去年": ("year", -1),
    "今年": ("year", 0),
}
HAN_RELATIVE_WORD = re.compile("|".join(sorted(HAN_RELATIVE, key=len, reverse=True)))
HAN_DAY_WORD = re.compile("|".join(sorted(HAN_DAYS, key=len, reverse=True)))
HAN_MONTH = re.compile(
    r"(?:(\d{4})\s*年\s*)?(\d{1,2}|十[一二]?|[一二三四五六七八九])\s*月(?!前)"
    r"(?:\s*(\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])\s*[日号])?"
)
HAN_YEAR = re.compile(r"(\d{4})\s*年(?!\s*(?:\d{1,2}|十[一二]?|[一二三四五六七八九])\s*月)")


class Timespan(BaseModel):
    """A stretch of time a text names, from `start` up to `end`."""

    model_config = ConfigDict(frozen=True)

    start: datetime
    end: datetime


def named_timespans(text: str, now: datetime) -> list[Timespan]:
    """The stretches of time the text names, resolved as of `now` (none: an empty list)."""
    today = _start_of_day(now)
    spans = [_ago(_english_count(match[1]), match[2], now) for match in AGO.finditer(text)]
    spans += [_last(_english_count(match[1]), match[2], now) for match in LAST_COUNT.finditer(text)]
    spans += [
        _english_unit(match[1].lower(), match[2].lower(), now) for match in LAST_UNIT.finditer(text)
    ]
    spans += [_day_before(today, 1) for _ in DAY_WORD.finditer(text)]
    spans += [
        _day_before(today, (today.weekday() - WEEKDAYS[match[1].lower()] - 1) % 7 + 1)
        for match in LAST_WEEKDAY.finditer(text)
    ]
    spans += [span for match in MONTH.finditer(text) if (span := _english_month(match, now))]
    spans += [_year(int(match[1]), now) for match in YEAR.finditer(text)]
    spans += [
        span
        for match in ISO_DATE.finditer(text)
        if (span := _date(int(match[1]), int(match[2]), int(match[3]), now))
    ]
    return spans + _chinese(text, now, today)


def time_match(at: datetime, spans: list[Timespan]) -> float:
    """How well a time falls in the spans: 1 inside one, falling to 0 one span's length away."""
    best = 0.0
    for span in spans:
        if span.start <= at <= span.end:
            return 1.0
        width = max(span.end - span.start, DAY)
        away = span.start - at if at < span.start else at - span.end
        best = max(best, 1 - away / width)
    return best


def _chinese(text: str, now: datetime, today: datetime) -> list[Timespan]:
    """The stretches of time named in Chinese."""
    spans = [
        _ago(count, HAN_UNITS[match[2]], now)
        for match in HAN_AGO.finditer(text)
        if (count := _han_count(match[1]))
    ]
    spans += [
        _last(count, HAN_UNITS[match[2]], now)
        for match in HAN_LAST_COUNT.finditer(text)
        if (count := _han_count(match[1]))
    ]
    spans += [_day_before(today, HAN_DAYS[match[0]]) for match in HAN_DAY_WORD.finditer(text)]
    spans += [
        _calendar_unit(*HAN_RELATIVE[match[0]], now) for match in HAN_RELATIVE_WORD.finditer(text)
    ]
    for match in HAN_MONTH.finditer(text):
        if HAN_FUTURE_BEFORE.search(text[: match.start()]):
            continue
        month, day = _han_count(match[2]), _han_count(match[3]) if match[3] else None
        year = int(match[1]) if match[1] else None
        if month and (
            span := _month_or_day(year, int(month), None if day is None else int(day), now)
        ):
            spans.append(span)
    spans += [_year(int(match[1]), now) for match in HAN_YEAR.finditer(text)]
    return spans


def _english_count(word: str) -> float:
    """A count written in digits or words."""
    return float(word) if word.isdigit() else ENGLISH_COUNTS[" ".join(word.lower().split())]


def _han_count(word: str) -> float | None:
    """A count in digits or Chinese numerals (半 a half, 几 three, 一两 two); None if none."""
    if word.isdigit():
        return float(word)
    if word in HAN_WORD_COUNTS:
        return HAN_WORD_COUNTS[word]
    tens, ten, ones = word.rpartition("十")
    if not ten:
        return float(max(HAN_DIGITS[digit] for digit in word))  # 一两天: one or two days
    if len(tens) > 1 or len(ones) > 1 or "十" in tens:
        return None
    return float(10 * (HAN_DIGITS[tens] if tens else 1) + (HAN_DIGITS[ones] if ones else 0))


def _ago(count: float, unit: str, now: datetime) -> Timespan:
    """Count units ago: around that moment, half a unit or a quarter of the way either side."""
    days = UNIT_DAYS[unit.lower()]
    centre = now - count * days * DAY
    half = max(days / 2, count * days / 4) * DAY
    return Timespan(start=centre - half, end=min(centre + half, now))


def _last(count: float, unit: str, now: datetime) -> Timespan:
    """The last count units: from then up to now."""
    return Timespan(start=now - count * UNIT_DAYS[unit.lower()] * DAY, end=now)


def _english_unit(which: str, unit: str, now: datetime) -> Timespan:
    """Last, this or past week, weekend, month or year (past: one unit up to now)."""
    if which == "past" and unit != "weekend":
        return Timespan(start=now - UNIT_DAYS[unit] * DAY, end=now)
    return _calendar_unit(unit, -1 if which in ("last", "past") else 0, now)


def _calendar_unit(unit: str, offset: int, now: datetime) -> Timespan:
    """The calendar week, weekend, month or year `offset` of them from now's (0: up to now)."""
    today = _start_of_day(now)
    if unit in ("week", "weekend"):
        monday = today - today.weekday() * DAY + offset * 7 * DAY
        if unit == "weekend":
            return Timespan(start=monday + 5 * DAY, end=monday + 7 * DAY)
        return Timespan(start=monday, end=now if offset == 0 else monday + 7 * DAY)
    if unit == "month":
        months = now.year * 12 + now.month - 1 + offset
        start = datetime(months // 12, months % 12 + 1, 1, tzinfo=now.tzinfo)
        return Timespan(start=start, end=now if offset == 0 else _month_end(start))
    year = _year(now.year + offset, now)
    return Timespan(start=year.start, end=now if offset == 0 else year.end)


def _english_month(match: re.Match[str], now: datetime) -> Timespan | None:
    """The month or day a MONTH match names, if it is one ("may" only as the month)."""
    day_before, name, day_after, year = match[1], match[2], match[3], match[4]
    day = day_before or day_after
    before = match.string[: match.start()]
    verb = name.lower() in VERB_MONTHS and not (day or year) and name != "March"
    if (verb and not MONTH_AFTER.search(before)) or FUTURE_BEFORE.search(before):
        return None
    return _month_or_day(
        int(year) if year else None, MONTHS[name.lower()], int(day) if day else None, now
    )


def _month_or_day(year: int | None, month: int, day: int | None, now: datetime) -> Timespan | None:
    """A month, or a day of it, of the year given or else the latest up to now; None if no date."""
    if not 1 <= month <= 12:
        return None
    if year is None:
        year = now.year if (month, day or 1) <= (now.month, now.day) else now.year - 1
    if day is None:
        start = datetime(year, month, 1, tzinfo=now.tzinfo)
        return Timespan(start=start, end=_month_end(start))
    return _date(year, month, day, now)


def _date(year: int, month: int, day: int, now: datetime) -> Timespan | None:
    """One calendar day in now's time zone, or None if there is no such date."""
    try:
        start = datetime(year, month, day, tzinfo=now.tzinfo)
    except ValueError:
        return None
    return Timespan(start=start, end=start + DAY)


def _start_of_day(now: datetime) -> datetime:
    """Midnight at the start of now's day, in now's time zone."""
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def _day_before(today: datetime, back: int) -> Timespan:
    """The calendar day `back` days before the one starting at `today`."""
    return Timespan(start=today - back * DAY, end=today - (back - 1) * DAY)


def _month_end(start: datetime) -> datetime:
    """The first moment of the month after the one `start` opens."""
    return start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)


def _year(year: int, now: datetime) -> Timespan:
    """A calendar year in now's time zone."""
    return Timespan(
        start=datetime(year, 1, 1, tzinfo=now.tzinfo),
        end=datetime(year + 1, 1, 1, tzinfo=now.tzinfo),
    )
