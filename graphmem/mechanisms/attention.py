"""Attention that fades and wakes: both parts decay in closed form when read; use raises them.

A memory's attention is a long-term part and a short-term part, each stored with the time it was
set and decayed exponentially with its own half-life when read: decay costs no writes. Use (a
memory recalled and returned to the agent) adds a little to the long-term part and a lot to the
short-term part; regional wake-up adds short-term attention to the neighbours of used memories.
"""

import math
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from graphmem.model import Attention

WORKING_MEMORY = 5
"""How many related hot memories (a shallow recall) are the working memory of a new item."""


class AttentionPolicy(BaseModel):
    """Tunable attention defaults (docs/design.md, "Forgetting and wake-up")."""

    model_config = ConfigDict(frozen=True)

    long_term_half_life: timedelta = timedelta(days=30)
    short_term_half_life: timedelta = timedelta(hours=12)
    use_long_term: float = Field(1.0, ge=0, description="long-term gain of a used memory")
    use_short_term: float = Field(5.0, ge=0, description="short-term gain of a used memory")
    spread_per_hop: float = Field(0.5, ge=0, le=1, description="falloff of wake-up per hop")
    spread_hops: int = Field(2, ge=0, le=2, description="how far wake-up spreads")
    spread_fan_out: int = Field(
        3, ge=1, description="edges followed from each node, strongest first"
    )
    spread_min_gain: float = Field(
        1.0, ge=0, description="smaller wake-up gains are neither written nor spread further"
    )


def decay(value: float, since: datetime, now: datetime, half_life: timedelta) -> float:
    """Value after exponential decay from `since` to `now`; time before `since` does not grow it."""
    elapsed = max((now - since) / half_life, 0.0)
    return value * math.pow(0.5, elapsed)


def current_attention(attention: Attention, now: datetime, policy: AttentionPolicy) -> float:
    """Attention at `now`: the decayed long-term part plus the decayed short-term part."""
    long_term = decay(attention.long_term, attention.long_term_at, now, policy.long_term_half_life)
    short_term = decay(
        attention.short_term, attention.short_term_at, now, policy.short_term_half_life
    )
    return long_term + short_term


def initial_attention(label: float, now: datetime) -> Attention:
    """Attention of a new memory: its 0-10 label as the long-term part, nothing short-term yet."""
    return Attention(long_term=label, long_term_at=now, short_term=0.0, short_term_at=now)


def woken(
    attention: Attention,
    now: datetime,
    policy: AttentionPolicy,
    *,
    long_term_gain: float,
    short_term_gain: float,
) -> Attention:
    """Attention after gains at `now`: each part with a gain decayed to now plus it, set at now.

    A part without a gain is left as it is (its value at any time is the same, and nothing needs
    writing). A part set later than `now` keeps its time and value (plus the gain): time never
    runs back.
    """
    long_term, long_term_at = _raised(
        attention.long_term, attention.long_term_at, now, policy.long_term_half_life, long_term_gain
    )
    short_term, short_term_at = _raised(
        attention.short_term,
        attention.short_term_at,
        now,
        policy.short_term_half_life,
        short_term_gain,
    )
    return Attention(
        long_term=long_term,
        long_term_at=long_term_at,
        short_term=short_term,
        short_term_at=short_term_at,
    )


def _raised(
    value: float, since: datetime, now: datetime, half_life: timedelta, gain: float
) -> tuple[float, datetime]:
    """One attention part and its time after a gain at `now` (unchanged without a gain)."""
    if gain == 0:
        return value, since
    return decay(value, since, now, half_life) + gain, max(now, since)


NodeRef = tuple[str, str]
"""A node as (id, label); ordering by it orders by id first."""

Neighbours = Callable[[NodeRef], Iterable[tuple[NodeRef, float]]]
"""The nodes next to a node along wake-up edges, one entry per edge, with the edge's weight."""


def spread(
    used: Iterable[NodeRef], neighbours: Neighbours, policy: AttentionPolicy
) -> dict[NodeRef, float]:
    """Short-term gains that regional wake-up gives the neighbours of used nodes.

    From each node only the `spread_fan_out` strongest edges are followed (ties by node), so a
    hub cannot make one recall touch thousands of nodes. A node `h` hops away gains
    use_short_term * spread_per_hop ** h * the product of the edge weights on the way; reached
    along several paths, it gains the largest amount. Gains below `spread_min_gain` are dropped
    (and not spread further: they could only shrink). Used nodes gain nothing here.
    """
    sources = list(dict.fromkeys(used))
    gains: dict[NodeRef, float] = {}
    frontier = {node: policy.use_short_term for node in sources}
    for _hop in range(policy.spread_hops):
        reached: dict[NodeRef, float] = {}
        for node, amount in frontier.items():
            strongest = sorted(neighbours(node), key=lambda pair: (-pair[1], pair[0]))
            for neighbour, weight in strongest[: policy.spread_fan_out]:
                gain = amount * policy.spread_per_hop * weight
                reached[neighbour] = max(reached.get(neighbour, 0.0), gain)
        reached = {node: gain for node, gain in reached.items() if gain >= policy.spread_min_gain}
        for node, gain in reached.items():
            gains[node] = max(gains.get(node, 0.0), gain)
        frontier = reached
    for node in sources:
        gains.pop(node, None)
    return {node: gain for node, gain in gains.items() if gain > 0.0}


def lowered(attention: Attention, now: datetime, policy: AttentionPolicy, kept: float) -> Attention:
    """Attention cut to the share `kept`: each part decayed to `now`, times `kept`, set at now.

    A part set later than `now` keeps its time (time never runs back).
    """
    long_term = decay(attention.long_term, attention.long_term_at, now, policy.long_term_half_life)
    short_term = decay(
        attention.short_term, attention.short_term_at, now, policy.short_term_half_life
    )
    return Attention(
        long_term=long_term * kept,
        long_term_at=max(now, attention.long_term_at),
        short_term=short_term * kept,
        short_term_at=max(now, attention.short_term_at),
    )
