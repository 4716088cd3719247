"""Consolidation arithmetic: how a new fact's judged relations to older facts move beliefs.

A model's estimate of a belief is noisy, so one answer never replaces a belief: it moves it part
of the way, `b += rate * (estimate - b)`. For each new fact the judgements are settled in a fixed
order: a duplicate first (the new fact merges into the older one, which gains belief and
attention, and nothing else is settled for it), then what supports it (its belief moves towards
each estimate), then what it contradicts: the side of lower belief after that (the newcomer when
they are equal: it is the one contradicting an established fact) moves towards the estimate
against it and loses attention; the contradiction is kept as an edge, nothing is deleted.
A fact that updates an older one (a new value of the same thing: "I moved to Berlin" after "I
live in Paris") moves no belief: both held, one after the other. It UPDATES the older one, whose
validity the store ends when the new one was stated (`valid_until`; the new one's `valid_from`).
"""

from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from graphmem.model import Identifier, Link, LinkType, Probability


class BeliefPolicy(BaseModel):
    """Tunable consolidation defaults (docs/design.md, "Consolidation")."""

    model_config = ConfigDict(frozen=True)

    rate: float = Field(0.3, gt=0, le=1, description="share of the way a belief moves")
    first_hand: float = Field(
        0.8, ge=0, le=1, description="belief of what a speaker states, before consolidation"
    )
    kept_attention: float = Field(
        0.5,
        ge=0,
        le=1,
        description="share of its attention the losing side of a contradiction keeps",
    )
    related: int = Field(5, ge=1, description="older facts weighed against each new fact")


class Relation(StrEnum):
    """How a new fact relates to an older one (the cognition's judgement)."""

    DUPLICATE = "duplicate"
    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"
    UPDATES = "updates"
    UNRELATED = "unrelated"


@dataclass(frozen=True)
class Judged:
    """An older fact, its belief, and the judged relation of the new fact to it with an estimate.

    `estimate` is how likely the new fact is true given the older one.
    """

    old: str
    old_belief: float
    relation: Relation
    estimate: float


class AttentionChange(StrEnum):
    """What settling a fact does to a memory's attention."""

    RAISE = "raise"
    """As if the memory were used: the use gains of mechanisms.attention."""
    LOWER = "lower"
    """Both parts decayed to now and cut to BeliefPolicy.kept_attention of it."""
    KEEP = "keep"


class BeliefMove(BaseModel):
    """One memory's belief moved part of the way towards an estimate, and its attention."""

    model_config = ConfigDict(frozen=True)

    id: Identifier
    estimate: Probability
    attention: AttentionChange


class Settlement(BaseModel):
    """What consolidating one new fact changes: belief moves, applied in order, and new edges."""

    model_config = ConfigDict(frozen=True)

    fact: str
    """The new fact's memory id (its awaiting_consolidation mark is cleared)."""
    moves: list[BeliefMove]
    links: list[Link]


def moved(belief: float, estimate: float, policy: BeliefPolicy) -> float:
    """A belief moved `rate` of the way towards an estimate."""
    return belief + policy.rate * (estimate - belief)


def settle(fact: str, belief: float, judged: list[Judged], policy: BeliefPolicy) -> Settlement:
    """The moves and edges that consolidate a new fact of this belief against older facts."""
    duplicate = next((item for item in judged if item.relation is Relation.DUPLICATE), None)
    if duplicate is not None:
        return Settlement(
            fact=fact,
            moves=[
                BeliefMove(
                    id=duplicate.old, estimate=duplicate.estimate, attention=AttentionChange.RAISE
                )
            ],
            links=[Link(type=LinkType.MERGED_INTO, source=fact, target=duplicate.old)],
        )
    moves: list[BeliefMove] = []
    links: list[Link] = []
    for item in judged:
        if item.relation is Relation.SUPPORTS:
            moves.append(
                BeliefMove(id=fact, estimate=item.estimate, attention=AttentionChange.KEEP)
            )
            belief = moved(belief, item.estimate, policy)
            links.append(Link(type=LinkType.SUPPORTS, source=fact, target=item.old))
    links += [
        Link(type=LinkType.UPDATES, source=fact, target=item.old)
        for item in judged
        if item.relation is Relation.UPDATES
    ]
    for item in judged:
        if item.relation is not Relation.CONTRADICTS:
            continue
        links.append(Link(type=LinkType.CONTRADICTS, source=fact, target=item.old))
        if belief <= item.old_belief:
            moves.append(
                BeliefMove(id=fact, estimate=item.estimate, attention=AttentionChange.LOWER)
            )
            belief = moved(belief, item.estimate, policy)
        else:
            moves.append(
                BeliefMove(id=item.old, estimate=1.0 - belief, attention=AttentionChange.LOWER)
            )
    return Settlement(fact=fact, moves=moves, links=links)
