"""Attention that fades: both parts decay exponentially, computed in closed form when read."""

import math
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from graphmem.model import Attention


class AttentionPolicy(BaseModel):
    """Tunable attention defaults (DESIGN.md, mechanism 2)."""

    model_config = ConfigDict(frozen=True)

    long_term_half_life: timedelta = timedelta(days=30)
    short_term_half_life: timedelta = timedelta(hours=12)


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
