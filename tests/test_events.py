"""How an event is told: its first development starts the storyline, later ones are merged in."""

from datetime import UTC, datetime, timedelta

from graphmem.cognition.base import EventTag, EventUpdate, Storyline
from graphmem.mechanisms.events import first_storyline, merge_development
from graphmem.model import MAX_TEXT_CHARS, Attention, Event, Tier

START = datetime(2026, 3, 2, 9, tzinfo=UTC)
DAY = timedelta(days=1)


def trip(last_at: datetime) -> Event:
    """A trip told up to `last_at`, kept for 30 days without news."""
    return Event(
        id="trip",
        owner="ada",
        text="2026-03-02: we fly to Rome",
        created_at=START,
        category="travel",
        title="Trip to Rome",
        first_at=START,
        last_at=last_at,
        timeliness_days=30,
        importance=5,
        attention=Attention(long_term=1, long_term_at=START, short_term=0, short_term_at=START),
        tier=Tier.HOT,
        embedding=[1.0],
    )


def tag(detail: str, timeliness_days: float = 30) -> EventTag:
    """A travel development with this detail."""
    return EventTag(category="travel", title="Rome", detail=detail, timeliness_days=timeliness_days)


def test_the_first_development_starts_the_storyline_with_its_date_cut_to_fit() -> None:
    assert first_storyline(tag("we fly to Rome"), START) == "2026-03-02: we fly to Rome"
    long = first_storyline(tag("x" * MAX_TEXT_CHARS), START)
    assert len(long) == MAX_TEXT_CHARS
    assert long.startswith("2026-03-02: x")
    assert long.endswith("…")


def test_a_development_is_merged_from_the_event_as_it_stands() -> None:
    asked: list[EventUpdate] = []

    def merge(update: EventUpdate) -> Storyline:
        asked.append(update)
        return Storyline(title="Holiday in Rome", storyline="merged")

    event = trip(last_at=START + 3 * DAY)
    news = tag("Rome was sunny", timeliness_days=7)
    merged = merge_development(event, news, START + 5 * DAY, merge)

    assert asked == [
        EventUpdate(
            title="Trip to Rome",
            storyline="2026-03-02: we fly to Rome",
            last_at=START + 3 * DAY,
            development=news,
            at=START + 5 * DAY,
        )
    ]
    assert merged == event.model_copy(
        update={
            "text": "merged",
            "title": "Holiday in Rome",
            "last_at": START + 5 * DAY,
            "timeliness_days": 7,
        }
    )


def test_a_development_told_late_does_not_move_the_last_update_back() -> None:
    def merge(update: EventUpdate) -> Storyline:
        return Storyline(title=update.title, storyline=f"{update.storyline}\nearlier news")

    event = trip(last_at=START + 3 * DAY)
    merged = merge_development(event, tag("we packed"), START + DAY, merge)
    assert merged.last_at == START + 3 * DAY
    assert merged.first_at == START
    assert merged.text == "2026-03-02: we fly to Rome\nearlier news"
