"""Dialogue summaries and major events: what a summary covers, when an event is open, its story.

Turns awaiting a summary are cut into chunks per session, in session order: a chunk is ready
when it holds `summary_turns` turns, or when its session has ended (a later turn of the owner
belongs to another session), or when the caller asks for everything (the sleep job). A tagged
event joins the owner's latest event of its category while that event is open: its last update
is no older than its timeliness window; otherwise a new event starts, linked NEXT from it.
An event's storyline starts as its first development's date and detail; each later development
is merged in by the model. The sleep job tells an event so, and forgetting tells it again alike.
"""

from collections.abc import Callable
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from graphmem.cognition.base import EventTag, EventUpdate, Storyline
from graphmem.model import Event, Turn, fit_text


class SummaryPolicy(BaseModel):
    """Tunable dialogue-summary defaults (docs/design.md, "Dialogue summaries and major events")."""

    model_config = ConfigDict(frozen=True)

    summary_turns: int = Field(20, ge=1, description="turns one dialogue summary covers at most")


def chunks(turns: list[Turn], policy: SummaryPolicy, *, everything: bool) -> list[list[Turn]]:
    """The chunks of turns ready to summarise, oldest first.

    `turns` are those awaiting a summary, oldest first. Without `everything`, the newest turn's
    session is still going on: only its full chunks are ready.
    """
    sessions: dict[str, list[Turn]] = {}
    for turn in sorted(turns, key=lambda turn: (turn.created_at, turn.id)):
        sessions.setdefault(turn.session, []).append(turn)
    ongoing = None if everything or not turns else max(turns, key=_order).session
    ready = []
    for session, members in sessions.items():
        members.sort(key=lambda turn: (turn.position or 0, turn.id))
        size = policy.summary_turns
        for start in range(0, len(members), size):
            chunk = members[start : start + size]
            if len(chunk) == size or session != ongoing:
                ready.append(chunk)
    return sorted(ready, key=lambda chunk: (chunk[0].created_at, chunk[0].id))


def _order(turn: Turn) -> tuple[datetime, str]:
    """Turns in the order they were said."""
    return turn.created_at, turn.id


def open_until(event: Event) -> datetime:
    """Until when news joins the event: its last update and its timeliness."""
    return event.last_at + timedelta(days=event.timeliness_days)


def is_open(event: Event, at: datetime) -> bool:
    """Whether news at `at` still belongs to the event: within its timeliness of its last update."""
    return at <= open_until(event)


def first_storyline(tag: EventTag, at: datetime) -> str:
    """An event's storyline told from its first development alone: its date and detail."""
    return fit_text(f"{at:%Y-%m-%d}: {tag.detail}")


def merge_development(
    event: Event, tag: EventTag, at: datetime, merge: Callable[[EventUpdate], Storyline]
) -> Event:
    """The event with a later development at `at` merged into its storyline by `merge`."""
    merged = merge(
        EventUpdate(
            title=event.title, storyline=event.text, last_at=event.last_at, development=tag, at=at
        )
    )
    return event.model_copy(
        update={
            "text": merged.storyline,
            "title": merged.title,
            "last_at": max(event.last_at, at),
            "timeliness_days": tag.timeliness_days,
        }
    )
