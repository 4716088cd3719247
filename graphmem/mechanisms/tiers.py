"""Tiers by current attention, bounded in size; motivation decides how deep a recall searches.

Tier 0 (hot) holds what has attention of at least the first floor, tier 1 the second, tier 2
the third, tier 3 (deep) everything else. Each of tiers 0-2 also has a capacity per owner: the
re-tier step moves the least attended members beyond it one tier down. A shallow recall searches
tier 0 only, so its cost is bounded by that capacity, not by the number of memories.
"""

from pydantic import BaseModel, ConfigDict, Field

from graphmem.model import Tier


class TierPolicy(BaseModel):
    """Tunable tier defaults (docs/design.md, "Tiers and motivation")."""

    model_config = ConfigDict(frozen=True)

    floors: tuple[float, float, float] = Field(
        (5.0, 2.5, 1.0), description="least current attention of tiers 0, 1 and 2"
    )
    capacities: tuple[int, int, int] = Field(
        (1_000, 10_000, 100_000), description="most memories of one owner in tiers 0, 1 and 2"
    )


def tier_for(attention: float, policy: TierPolicy) -> Tier:
    """The tier a memory of this current attention belongs to, capacities aside."""
    return Tier(sum(1 for floor in policy.floors if attention < floor))


def depth_for(motivation: float) -> Tier:
    """The deepest tier a recall of this motivation (0-10) searches."""
    if motivation < 4:
        return Tier.HOT
    if motivation < 7:
        return Tier.WARM
    if motivation < 9:
        return Tier.COOL
    return Tier.DEEP
