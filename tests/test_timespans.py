"""The stretches of time a query names, in English and Chinese, resolved as of when it is asked."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from graphmem.timespans import Timespan, named_timespans, time_match

NOW = datetime(2023, 3, 11, 5, 28, tzinfo=UTC)  # a Saturday


def day(text: str) -> datetime:
    """Midnight (UTC) of an ISO date."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("How many pieces of jewelry did I buy in the last two months?", None, NOW),
        ("When did Melanie go camping in June?", day("2022-06-01"), day("2022-07-01")),
        (
            "How many doctor's appointments did I go to in March?",
            day("2023-03-01"),
            day("2023-04-01"),
        ),
        ("What did Maria donate in December 2023?", day("2023-12-01"), day("2024-01-01")),
        ("What did Joanna finish on 23 January, 2022?", day("2022-01-23"), day("2022-01-24")),
        ("What happened on May 5?", day("2022-05-05"), day("2022-05-06")),
        ("What did I do in May?", day("2022-05-01"), day("2022-06-01")),
        ("What did I do yesterday?", day("2023-03-10"), day("2023-03-11")),
        ("What did I cook last Friday?", day("2023-03-10"), day("2023-03-11")),
        ("Where did I go last week?", day("2023-02-27"), day("2023-03-06")),
        ("Where did I go last weekend?", day("2023-03-04"), day("2023-03-06")),
        ("What did I read last month?", day("2023-02-01"), day("2023-03-01")),
        ("How many weddings have I attended this year?", day("2023-01-01"), NOW),
        ("What did I start in 2021?", day("2021-01-01"), day("2022-01-01")),
        ("What did I note on 2023-01-11?", day("2023-01-11"), day("2023-01-12")),
        ("我去年去了哪里？", day("2022-01-01"), day("2023-01-01")),
        ("上个月我读了什么书？", day("2023-02-01"), day("2023-03-01")),
        ("上上个月我学了种花", day("2023-01-01"), day("2023-02-01")),
        ("大前天下雨了吗", day("2023-03-08"), day("2023-03-09")),
        ("我昨天吃了什么？", day("2023-03-10"), day("2023-03-11")),
        ("2022年5月20日那天我在做什么？", day("2022-05-20"), day("2022-05-21")),
        ("十二月我去了哪儿", day("2022-12-01"), day("2023-01-01")),
        ("最近两周我见了谁", NOW - timedelta(days=14), NOW),
    ],
)
def test_a_named_time_resolves_to_its_stretch(
    text: str, start: datetime | None, end: datetime | None
) -> None:
    [span] = named_timespans(text, NOW)
    if start is not None:
        assert span.start == start
    if end is not None:
        assert span.end == end
    assert span.start < span.end <= max(NOW, span.end)


@pytest.mark.parametrize(
    ("text", "months_back"),
    [
        ("I mentioned visiting a museum two months ago.", 2),
        ("three months ago", 3),
        ("a few months ago", 3),
        ("三个月前", 3),
        ("半年前", 6),
    ],
)
def test_an_amount_ago_centres_on_that_moment(text: str, months_back: int) -> None:
    [span] = named_timespans(text, NOW)
    centre = span.start + (span.end - span.start) / 2
    assert abs((NOW - centre).days - 30.44 * months_back) < 2


@pytest.mark.parametrize(
    "text",
    [
        "May I ask you something?",
        "We march on together.",
        "I have three months of savings.",
        "What is my favourite colour?",
        "What should I cook tonight?",
        "今天做什么菜好？",
        "What should I plan for next March?",
        "明年三月我想去日本",
        "我这个星期有三个月没见他了吗",  # "this week" only: one span
    ],
)
def test_words_that_are_no_time_name_none(text: str) -> None:
    spans = named_timespans(text, NOW)
    assert len(spans) == (1 if "星期" in text else 0)


def test_time_match_is_one_inside_and_falls_to_zero_one_length_away() -> None:
    span = Timespan(start=day("2023-01-01"), end=day("2023-01-11"))
    assert time_match(day("2023-01-05"), [span]) == 1.0
    assert time_match(day("2023-01-16"), [span]) == pytest.approx(0.5)
    assert time_match(day("2022-12-27"), [span]) == pytest.approx(0.5)
    assert time_match(day("2023-02-01"), [span]) == 0.0
    assert time_match(day("2023-01-05"), []) == 0.0


def test_a_month_without_a_year_is_its_latest_up_to_now() -> None:
    [march] = named_timespans("in March", NOW)
    [april] = named_timespans("in April", NOW)
    assert march.start.year == 2023
    assert april.start.year == 2022


def test_spans_take_the_time_zone_of_the_moment_asked() -> None:
    tokyo = NOW.astimezone(timezone(timedelta(hours=9)))
    [span] = named_timespans("on 2023-01-11", tokyo)
    assert span.start == datetime(2023, 1, 11, tzinfo=tokyo.tzinfo)
    assert span.start == day("2023-01-10") + timedelta(hours=15)
