"""What the store's reads find: similar memories, neighbourhoods, cues, claims, trails.

Similar memories and their neighbourhood, the cues of evoked impressions, what a worker found
when it claimed an owner's nightly job, and what a message's forgetting must undo (its trail).
"""

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from graphmem.mechanisms.impressions import Cue
from graphmem.model import Event, Impression, Link, Memory, Moment, Turn


class SimilarMemory(BaseModel):
    """A memory found by similarity to a query, with the turns it came from (oldest first)."""

    model_config = ConfigDict(frozen=True)

    memory: Memory
    similarity: float
    turns: list[Turn]


class EvokedCue(BaseModel):
    """A memory an impression was inferred from, reached because a query evokes the impression."""

    model_config = ConfigDict(frozen=True)

    impression: Impression
    """The impression as stored, without its embedding."""
    memory: str
    """The cue memory's id."""
    belief: float
    """The belief this cue gave the impression when it was said."""


class Neighbourhood(BaseModel):
    """Memories next to some given ones, and the edges among them all: a recall's subgraph."""

    model_config = ConfigDict(frozen=True)

    memories: list[SimilarMemory]
    """The neighbours found, by id; neither the given memories nor the known ones."""
    links: list[Link]
    """The edges among the given, known and found memories, by type, source and target."""
    cues: list[EvokedCue] = []
    """The cues of the evoked impressions, by impression and memory id."""


class OwnerClaim(BaseModel):
    """What a worker found when it claimed an owner's nightly job (`Store.claim_owner`)."""

    model_config = ConfigDict(frozen=True)

    claimed: bool
    """The worker holds the owner's lease now (claimed or renewed)."""
    holder: str | None
    """The worker that holds the lease now, or None."""
    until: datetime | None
    """When the holder's lease lapses unless renewed."""
    slept_at: datetime | None
    """When the owner's last job ended (done or failed), and by which worker, with why if it
    failed."""
    slept_by: str | None
    failure: str | None


class Sourced(BaseModel):
    """A memory with every turn it came from, oldest first."""

    model_config = ConfigDict(frozen=True)

    memory: Memory
    turns: list[Turn]


class ImpressionTrail(BaseModel):
    """An impression with all its cues and the conjectures it made."""

    model_config = ConfigDict(frozen=True)

    impression: Impression
    cues: list[Cue]
    conjectures: list[Memory]


class EventTrail(BaseModel):
    """An event with what made it: its summaries with their turns, its members, its neighbours.

    `developments` are the dialogue summaries PART_OF it, oldest first, each with the turns it
    summarised; `members` every memory PART_OF it; `previous` and `following` the events of
    its category joined to it by NEXT.
    """

    model_config = ConfigDict(frozen=True)

    event: Event
    developments: list[Sourced]
    members: list[str]
    previous: list[str]
    following: list[str]


class UpdateTrail(BaseModel):
    """A fact joined by UPDATES: the newer facts that update it (id, made at), those it updates."""

    model_config = ConfigDict(frozen=True)

    memory: Memory
    newer: list[tuple[str, Moment]]
    older: list[str]


class Provenance(BaseModel):
    """What was derived from one turn: all that forgetting it must delete or derive again.

    `memories` came FROM the turn (with all their turns: a dialogue summary covers several);
    `impressions` were INFERRED_FROM one of them; `events` have one of them PART_OF them;
    `updates` are facts joined by UPDATES to one of them.
    """

    model_config = ConfigDict(frozen=True)

    turn: Turn
    memories: list[Sourced]
    impressions: list[ImpressionTrail]
    events: list[EventTrail]
    updates: list[UpdateTrail]
