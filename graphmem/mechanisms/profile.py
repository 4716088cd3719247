"""The profile: who the user is now, as the graph holds it, read without a model.

Facts come in slots (the sleep job reads them in dialogues and names the slot: "home",
"allergy: milk", "mood at work"): of a slot's facts made by `at`, the latest is the value in
force and the others are the values it replaced, newest first; each shows the belief of the
observation it was read in (which consolidation moves), or the first-hand belief. A conjecture
shows while its impression's belief, decayed to `at`, stays at least `ProfilePolicy.faded_below`,
with the day it falls below: a cold conjectured a month ago has faded, a kind character has not.
An event shows while it is open (news at `at` would still join it), with its latest development
(its storyline's last line).
The owner's causal knowledge is counted. For a past `at`, what was made after it is left out;
beliefs and storylines are as stored now.
"""

import math
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from graphmem.contract import (
    EarlierValue,
    Profile,
    ProfileConjecture,
    ProfileEvent,
    ProfileFact,
)
from graphmem.mechanisms.events import is_open, open_until
from graphmem.mechanisms.impressions import decayed_belief
from graphmem.model import Event, Impression, Memory, Probability


class ProfilePolicy(BaseModel):
    """Tunable profile defaults."""

    model_config = ConfigDict(frozen=True)

    faded_below: float = Field(
        0.5, gt=0, le=1, description="belief under which a conjecture no longer shows"
    )


# -- what the store reads -------------------------------------------------------------------------


class SlotFact(BaseModel):
    """A fact memory, with the belief of the observation it was read in (None without one)."""

    model_config = ConfigDict(frozen=True)

    fact: Memory
    belief: Probability | None


class ConjecturedImpression(BaseModel):
    """An impression that made a conjecture, with the memories it rests on."""

    model_config = ConfigDict(frozen=True)

    impression: Impression
    rests_on: list[str]
    """Its conjectures' ids, then its cues', oldest first."""


class EventNews(BaseModel):
    """An event and the memories PART_OF it, oldest first."""

    model_config = ConfigDict(frozen=True)

    event: Event
    members: list[str]


class ProfileSources(BaseModel):
    """What the store reads for a profile at a time (Store.profile_sources says what)."""

    model_config = ConfigDict(frozen=True)

    facts: list[SlotFact]
    impressions: list[ConjecturedImpression]
    events: list[EventNews]
    causal_rules: int


# -- the profile ----------------------------------------------------------------------------------


def profile_of(
    owner: str, sources: ProfileSources, at: datetime, policy: ProfilePolicy, first_hand: float
) -> Profile:
    """The profile at `at` from what the store read (the module docstring says the rules).

    `first_hand` is the belief of a fact whose turn has no observation with a belief.
    """
    slots: dict[str, list[SlotFact]] = {}
    for item in sorted(sources.facts, key=lambda item: (item.fact.created_at, item.fact.id)):
        if item.fact.created_at <= at and item.fact.slot is not None:
            slots.setdefault(item.fact.slot, []).append(item)
    facts = [_in_force(slot, held, first_hand) for slot, held in sorted(slots.items())]
    conjectures = [
        conjecture
        for item in sources.impressions
        if (conjecture := _standing(item, at, policy)) is not None
    ]
    conjectures.sort(key=lambda item: (-item.belief, item.text))
    events = [
        _ongoing(item)
        for item in sources.events
        if item.event.first_at <= at and is_open(item.event, at)
    ]
    events.sort(key=lambda item: (-item.last_at.timestamp(), item.event))
    return Profile(
        owner=owner,
        at=at,
        facts=facts,
        conjectures=conjectures,
        events=events,
        causal_rules=sources.causal_rules,
    )


def _in_force(slot: str, held: list[SlotFact], first_hand: float) -> ProfileFact:
    """A slot's latest fact, with the ones before it as the values it replaced."""
    *before, latest = held
    return ProfileFact(
        slot=slot,
        text=latest.fact.text,
        belief=first_hand if latest.belief is None else latest.belief,
        since=latest.fact.created_at,
        rests_on=[latest.fact.id],
        earlier=[
            EarlierValue(id=item.fact.id, text=item.fact.text, since=item.fact.created_at)
            for item in reversed(before)
        ],
    )


def _standing(
    item: ConjecturedImpression, at: datetime, policy: ProfilePolicy
) -> ProfileConjecture | None:
    """An impression's conjecture at `at`, or None once its belief has faded."""
    impression = item.impression
    belief = decayed_belief(impression, at)
    if belief < policy.faded_below:
        return None
    half_lives = math.log2(impression.belief / policy.faded_below)
    fades_at = impression.belief_at + timedelta(days=impression.half_life_days * half_lives)
    return ProfileConjecture(
        text=impression.text,
        belief=belief,
        fades_at=fades_at,
        impression=impression.id,
        rests_on=item.rests_on,
    )


def _ongoing(item: EventNews) -> ProfileEvent:
    """An open event's line: its latest development and until when news would join it."""
    event = item.event
    return ProfileEvent(
        title=event.title,
        category=event.category,
        latest=event.text.strip().splitlines()[-1],
        last_at=event.last_at,
        open_until=open_until(event),
        event=event.id,
        rests_on=item.members,
    )
