"""One owner's health report: the store's counts and checks, and how old its conjectures are."""

from datetime import datetime

from graphmem.contract import Health
from graphmem.store.base import Store


def health_report(store: Store, owner: str, now: datetime, embedder: str, cognition: str) -> Health:
    """The report at `now` of a memory whose embedder and cognition have these names."""
    checks = store.count_health(owner)

    def days_before(moment: datetime | None) -> float | None:
        """Days from a moment to `now`, None for no moment."""
        return None if moment is None else (now - moment).total_seconds() / 86_400

    return Health(
        owner=owner,
        at=now,
        embedder=embedder,
        cognition=cognition,
        counts=store.count_graph(owner),
        checks=checks,
        oldest_conjecture_days=days_before(checks.first_conjecture_at),
        newest_conjecture_days=days_before(checks.last_conjecture_at),
    )
