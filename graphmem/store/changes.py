"""What the store's writes take: derivations, causes, the sleep job's changes, a forgetting.

Derived memories and impressions, causes, the sleep job's event, fact and summary changes, and a
forgetting worked out in full.
"""

from pydantic import BaseModel, ConfigDict

from graphmem.model import Event, Impression, Link, Memory, Node, Turn
from graphmem.store.findings import Provenance


class Impressed(BaseModel):
    """A new impression of a statement, and the conjecture to make if it tips the belief over.

    The impression carries the new cue's belief at `belief_at`; the store accumulates it on the
    stored one (mechanisms.impressions). The conjecture is stored only when the accumulated
    belief crosses the threshold, with that belief.
    """

    model_config = ConfigDict(frozen=True)

    impression: Impression
    conjecture: Memory


class Derivation(BaseModel):
    """What one stored turn gave: its memories, edges among memories and its impressions."""

    model_config = ConfigDict(frozen=True)

    source: Turn
    memories: list[Memory]
    links: list[Link] = []
    impressions: list[Impressed] = []

    @property
    def nodes(self) -> list[Node]:
        """Every node it names: the turn, its memories, impressions and would-be conjectures."""
        return [
            self.source,
            *self.memories,
            *(item.impression for item in self.impressions),
            *(item.conjecture for item in self.impressions),
        ]


class Cause(BaseModel):
    """Causal knowledge of an owner: a CAUSES edge between two knowledge memories."""

    model_config = ConfigDict(frozen=True)

    cause: str
    effect: str
    sufficiency: float


class EventChange(BaseModel):
    """An event as a dialogue summary leaves it, and what joins it.

    `event` is the new event or the new version of an open one (its storyline, title, last
    update, timeliness and embedding replace the stored ones; its attention is kept).
    `previous` is the event of the same category that a new one follows (NEXT from it).
    `members` are memory ids that become PART_OF the event.
    """

    model_config = ConfigDict(frozen=True)

    event: Event
    previous: str | None
    members: list[str]


class FactChange(BaseModel):
    """A fact memory the sleep job read in a dialogue, and the turn it is FROM."""

    model_config = ConfigDict(frozen=True)

    fact: Memory
    turn: str


class SummaryChange(BaseModel):
    """A dialogue summary memory, the turns it is FROM, the events it changed, its facts.

    The events in order; the facts are those read in its dialogue.
    """

    model_config = ConfigDict(frozen=True)

    summary: Memory
    turns: list[str]
    events: list[EventChange]
    facts: list[FactChange] = []

    def nodes(self) -> list[Node]:
        """The nodes it writes: the summary, its events, its facts."""
        return [
            self.summary,
            *(change.event for change in self.events),
            *(item.fact for item in self.facts),
        ]


class Forgetting(BaseModel):
    """What forgetting one turn writes, all at once: worked out before anything is written.

    The turn goes (the later turns of its session move up a position, NEXT joins its
    neighbours); then the nodes of `deleted` (label, id) go with their edges; the nodes of
    `replaced` take these versions; `added` memories are created; the edges of `unlinked` go
    and those of `linked` are made (each with its ends' labels). `provenance` is what it was
    worked out from: the store writes nothing if the turn's provenance changed meanwhile.
    """

    model_config = ConfigDict(frozen=True)

    provenance: Provenance
    deleted: list[tuple[str, str]]
    replaced: list[Node]
    added: list[Memory]
    unlinked: list[tuple[str, str, Link]]
    linked: list[tuple[str, str, Link]]
