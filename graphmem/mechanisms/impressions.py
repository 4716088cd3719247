"""Impression impact: weak inferences add up, fade with their half-life, tip into conjectures.

An impression's belief decays towards 0 by its half-life (days for a cold, a year for a trait).
A new impression of the same statement accumulates by noisy-OR on the decayed belief,
`b = 1 - (1 - b_old_decayed) * (1 - b_new)`, so one strong cue can cross the threshold at once
while weak cues need many, close enough together that decay does not undo them. The update
that carries the belief from below the threshold to it or above makes a conjecture (once per
half-life: a belief hovering at the threshold is one conjecture). A query that implies an
impression evokes its cues (`evocation`): recall reaches them by association.
"""

import math
from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from graphmem.ids import conjecture_id
from graphmem.mechanisms.attention import initial_attention
from graphmem.mechanisms.tiers import TierPolicy, tier_for
from graphmem.model import Impression, Memory, MemoryKind, Moment


class ImpressionPolicy(BaseModel):
    """Tunable impression defaults (docs/design.md, "Impression impact")."""

    model_config = ConfigDict(frozen=True)

    threshold: float = Field(
        0.7, gt=0, le=1, description="belief at which an impression becomes a conjecture"
    )


def decayed_belief(impression: Impression, now: datetime) -> float:
    """The impression's belief at `now`: halved every half-life since it was set."""
    elapsed = max((now - impression.belief_at) / timedelta(days=impression.half_life_days), 0.0)
    return impression.belief * math.pow(0.5, elapsed)


def evocation(
    implied: float, cue_belief: float, said_at: datetime, half_life_days: float, now: datetime
) -> float:
    """How strongly a query evokes a cue of an impression it implies as well.

    The query's belief in the impression times the belief the cue gave it, halved every
    half-life of the impression since the cue was said: both tell of one live situation (a fever
    today and a sore throat yesterday, of a cold), and a month-old sore throat of a cold that
    has passed is hardly evoked.
    """
    elapsed = max((now - said_at) / timedelta(days=half_life_days), 0.0)
    return implied * cue_belief * math.pow(0.5, elapsed)


def accumulated(
    stored: Impression | None, new: Impression, policy: ImpressionPolicy
) -> tuple[Impression, bool]:
    """The impression after a new one of the same statement, and whether it makes a conjecture.

    Noisy-OR on the decayed belief; `new` carries the new cue's belief, its time and half-life;
    the result keeps the stored impression's id and creation time. It makes a conjecture when
    the update carries the belief to the threshold from below, unless the impression made one
    within its half-life (a belief hovering at the threshold is one conjecture, not many).
    """
    before = 0.0 if stored is None else decayed_belief(stored, new.belief_at)
    belief = 1.0 - (1.0 - before) * (1.0 - new.belief)
    last = None if stored is None else stored.conjectured_at
    recent = last is not None and new.belief_at - last < timedelta(days=new.half_life_days)
    conjectures = before < policy.threshold <= belief and not recent
    base = new if stored is None else stored
    after = base.model_copy(
        update={
            "belief": belief,
            "belief_at": new.belief_at if stored is None else max(new.belief_at, stored.belief_at),
            "half_life_days": new.half_life_days,
            "conjectured_at": new.belief_at if conjectures else last,
        }
    )
    return after, conjectures


def conjecture_memory(
    impression: Impression,
    turn: str,
    at: datetime,
    *,
    importance: float,
    belief: float,
    tiers: TierPolicy,
) -> Memory:
    """The conjecture an impression makes when a turn's cue tips it over the threshold.

    It takes the cue memory's importance with the attention and tier that importance first
    gave it, the impression's text and embedding, and the belief it was tipped to.
    """
    return Memory(
        id=conjecture_id(impression.owner, turn, impression.id),
        owner=impression.owner,
        text=impression.text,
        created_at=at,
        kind=MemoryKind.CONJECTURE,
        importance=importance,
        attention=initial_attention(importance, at),
        tier=tier_for(importance, tiers),
        belief=belief,
        embedding=impression.embedding,
        accessed_at=at,
    )


class Cue(BaseModel):
    """A memory that gave an impression: its id, the turn it came from, when, and its belief."""

    model_config = ConfigDict(frozen=True)

    memory: str
    turn: str
    at: Moment
    belief: float | None
    """The belief this cue gave; None in graphs stored before cues kept theirs."""
    importance: float
    """The cue memory's importance, which a conjecture it makes takes."""


def replayed(
    impression: Impression, cues: Sequence[Cue], policy: ImpressionPolicy
) -> tuple[Impression, list[tuple[Cue, float]]]:
    """The impression its cues make, accumulated oldest first, and the cues that made conjectures.

    Each conjecture-making cue comes with the belief it carried the impression to. The
    impression keeps its id, text, embedding and half-life; it starts at the first cue. Cues
    must have their beliefs and there must be at least one.
    """
    stored: Impression | None = None
    made: list[tuple[Cue, float]] = []
    for cue in sorted(cues, key=lambda cue: (cue.at, cue.memory)):
        assert cue.belief is not None, "a cue without its belief cannot be replayed"
        new = impression.model_copy(
            update={
                "created_at": cue.at,
                "belief": cue.belief,
                "belief_at": cue.at,
                "conjectured_at": None,
            }
        )
        stored, conjectures = accumulated(stored, new, policy)
        if conjectures:
            made.append((cue, stored.belief))
    assert stored is not None, "an impression without cues is deleted, not replayed"
    return stored, made
