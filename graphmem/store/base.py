"""The store protocol, in domain verbs; NetworkXStore and Neo4jStore implement it.

One piece, though long: the protocol and the data its verbs take and give back are read
together (each model is named in a verb's signature, and both stores must agree on it), so they
stand in one module. In order: what a search may find (MemoryFilter); the data of the verbs,
from searches and counts to what consolidation, summaries and forgetting write and an export
holds; the rules both stores share (search terms' rarity, belief bins, the checks of what is
written); and the protocol itself.
"""

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
)

from graphmem.contract import (
    ANY_MEMORY as ANY_MEMORY,
)
from graphmem.contract import (
    SEARCHED_KINDS as SEARCHED_KINDS,
)
from graphmem.contract import (
    GraphCounts as GraphCounts,
)
from graphmem.contract import (
    HealthCounts as HealthCounts,
)
from graphmem.contract import (
    MemoryFilter as MemoryFilter,
)
from graphmem.contract import (
    OwnerGraph as OwnerGraph,
)
from graphmem.contract import (
    StoreTraffic as StoreTraffic,
)
from graphmem.contract import (
    Tombstone as Tombstone,
)
from graphmem.contract import (
    Woken as Woken,
)
from graphmem.contract import (
    parse_record as parse_record,
)
from graphmem.contract import (
    tombstone_hash as tombstone_hash,
)
from graphmem.contract import (
    tombstone_of as tombstone_of,
)
from graphmem.errors import InvalidInputError
from graphmem.keys import ApiKey
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.mechanisms.beliefs import BeliefPolicy, Settlement
from graphmem.mechanisms.impressions import Cue, ImpressionPolicy
from graphmem.mechanisms.profile import ProfileSources
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.model import (
    Embedding,
    Event,
    Impression,
    Link,
    Memory,
    MemoryKind,
    Moment,
    Node,
    Tier,
    Turn,
)


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


MAX_SEARCH_TERMS = 32
"""At most this many of a query's terms are searched for (the first given), on every store: on
Neo4j each is a Lucene clause and a count (cypher/count_memories_holding.cypher)."""


def searched_terms(terms: Mapping[str, float]) -> dict[str, float]:
    """Of a query's weighted terms, those a store searches for: the first MAX_SEARCH_TERMS."""
    return dict(list(terms.items())[:MAX_SEARCH_TERMS])


RARITY_COUNT = 10_000
"""Memories holding a term, and memories in all, are counted up to this many to weigh the term:
a term held by more is common either way, and on Neo4j counting more costs a read per memory."""


def term_rarity(holding: int, memories: int) -> float:
    """How rare a term held by `holding` of an owner's `memories` is: BM25's inverse frequency.

    Both counts are taken up to RARITY_COUNT. The lexical channel of recall weighs each term of
    the query by it, so that a memory sharing the query's rare words outranks one sharing as
    many common ones; both stores count the same way and so agree.
    """
    memories = min(memories, RARITY_COUNT)
    holding = min(holding, memories)
    return math.log((memories + 1) / (holding + 0.5))


def belief_bin(belief: float | None) -> str:
    """The GraphCounts.beliefs key of a belief: its tenth ("0.0" to "0.9"), or "unset"."""
    if belief is None:
        return "unset"
    return f"{min(int(belief * 10), 9) / 10:.1f}"


def check_nodes(owner: str, nodes: Sequence[Node]) -> None:
    """Refuse nodes of another owner, searchable memories without embedding, slotless facts."""
    for node in nodes:
        if node.owner != owner:
            raise InvalidInputError(
                f"{type(node).__name__} {node.id} belongs to {node.owner}, not {owner}"
            )
        if not isinstance(node, Memory):
            continue
        if node.embedding is None and node.kind in SEARCHED_KINDS:
            raise InvalidInputError(f"memory {node.id} has no embedding to store")
        if (node.slot is None) == (node.kind is MemoryKind.FACT):
            raise InvalidInputError(f"memory {node.id}: a fact, and only a fact, has a slot")


def check_tombstones(owner: str, tombstones: Sequence[Tombstone]) -> None:
    """Refuse tombstones of another owner."""
    for tombstone in tombstones:
        if tombstone.owner != owner:
            raise InvalidInputError(
                f"tombstone {tombstone.hash} belongs to {tombstone.owner}, not {owner}"
            )


class Store(Protocol):
    """Where an owner's graph lives; every verb is scoped to one owner.

    The searches (find_similar_memories, find_memories_mentioning, find_neighbours) never
    return dialogue summaries: a summary restates its turns' memories, which are found instead.
    """

    def prepare(self, dimensions: int) -> None:
        """Create what the store needs for embeddings of this size; safe to call again."""

    def save_turns(
        self, owner: str, turns: Sequence[Turn], *, readmit_forgotten: bool = False
    ) -> list[Turn]:
        """Store the owner's turns in order, each unless one with its id is stored; return them.

        One transaction. Returns, in input order, the stored turn of each: the new one, or the
        one already there (a turn never changes once stored). A turn whose id has a tombstone
        (a message the owner forgot) is neither stored nor returned, unless `readmit_forgotten`:
        then the turns' tombstones are deleted first and they are stored.
        """

    def save_memories(
        self,
        owner: str,
        derivations: Sequence[Derivation],
        policy: ImpressionPolicy | None = None,
    ) -> list[list[Memory]]:
        """Store what turns gave, in order, in one transaction; clear the turns' pending marks.

        Each turn's memories come FROM it; edges whose ends are not stored are skipped (an edge
        may name a memory of an earlier derivation of the same call); memories already stored
        are kept as they are. While a turn is pending, each of its impressions accumulates on
        the owner's impression of its statement (INFERRED_FROM the turn's memories), and those
        that cross the threshold make their conjecture (INFERRED_FROM the impression). Returns
        the conjectures made, a list per derivation. `policy` (default ImpressionPolicy()) sets
        the threshold. StoreError if a turn is not stored (then nothing is).
        """

    def working_memories(
        self, owner: str, embeddings: Sequence[Embedding], size: int
    ) -> list[list[SimilarMemory]]:
        """For each embedding, the owner's `size` hot memories most similar to it (no turns).

        The working memory in whose light a new item is labelled; one search for many items.
        """

    def save_knowledge(self, owner: str, memories: Sequence[Memory], links: Sequence[Link]) -> None:
        """Store knowledge memories (from no turn) and edges among memories; idempotent by id."""

    def causal_rules(self, owner: str) -> list[Cause]:
        """The owner's causal knowledge: every CAUSES edge, by cause and effect."""

    def load(self, owner: str, graph: OwnerGraph) -> None:
        """Bulk-load an owner's nodes and edges, as `export` gives them; idempotent by id.

        One transaction; a node already stored keeps its properties; turns take their
        positions in the order of the positions they carry (those without one last); edges
        whose ends are not stored are skipped. Its tombstones are stored but those of its turns:
        a turn loaded is no longer forgotten (its tombstone goes). For imports and benchmarks,
        not for `observe`.
        """

    def forget(self, owner: str) -> None:
        """Delete every node, edge and tombstone of the owner; other owners are untouched.

        Neo4j deletes in batches of committed transactions: if interrupted, run it again.
        """

    def pending_turns(self, owner: str, limit: int) -> list[Turn]:
        """The owner's turns whose memories are not derived yet, oldest first."""

    def session_turns(self, owner: str, session: str, last: int | None) -> list[Turn]:
        """The turns of one session of the owner in their order: all, or the `last` of them."""

    def profile_sources(self, owner: str, at: datetime) -> ProfileSources:
        """What the owner's profile at `at` is read from, in one read.

        Its facts made by `at`, each with the belief of the observation of its turn; its
        impressions with a conjecture made by `at`, each resting on those conjectures and its
        cues made by then, oldest first; its events begun by `at` and still open then
        (mechanisms.events.is_open), each with the memories PART_OF it made by then, oldest
        first; and its CAUSES edges counted. Facts by time then id, the others by id.
        """

    def turns_awaiting_summary(self, owner: str, limit: int) -> list[Turn]:
        """The owner's turns that no dialogue summary covers yet, oldest first."""

    def importance_of(self, owner: str, ids: Sequence[str]) -> dict[str, float]:
        """The importance of each of these memories of the owner, by id (those stored)."""

    def latest_event(self, owner: str, category: str) -> Event | None:
        """The owner's event of this category updated last (ties by id), if any."""

    def save_summaries(self, owner: str, changes: Sequence[SummaryChange]) -> None:
        """Store dialogue summaries, in order, each FROM its turns with its events, at once.

        For each: clears the turns' summary marks; creates or updates each event, NEXT from its
        previous one and with its members PART_OF it; stores each fact FROM its turn. All or
        nothing (one transaction, one journal entry). Idempotent: a summary or fact already
        stored is kept.
        """

    def memories_awaiting_consolidation(self, owner: str, limit: int) -> list[Memory]:
        """The owner's facts not yet consolidated, oldest first, with their embeddings."""

    def settle_facts(
        self,
        owner: str,
        settlements: Sequence[Settlement],
        now: datetime,
        *,
        beliefs: BeliefPolicy,
        attention: AttentionPolicy,
    ) -> None:
        """Apply facts' consolidations in order, at once (one transaction, one journal entry).

        Each fact's moves in order, its edges, its mark cleared. A move sets belief b to
        b + rate * (estimate - b) (b of a memory without one is the first-hand belief); its
        attention change is that of mechanisms.beliefs (raise: the use gains, accessed_at and
        tier 0 as in `wake`; lower: mechanisms.attention.lowered). Moves and edges naming
        memories not stored are skipped. An UPDATES edge ends the older memory's validity when
        the newer one was made (`valid_until`, the earliest if several) and starts the newer
        one's (`valid_from`). A fact not awaiting consolidation (settled by another job since it
        was read, or gone) is skipped whole, so that settling twice moves no belief twice.
        """

    def provenance(self, owner: str, turn: str) -> Provenance | None:
        """What was derived from one of the owner's turns (None if no such turn is stored)."""

    def forget_turn(self, owner: str, forgetting: Forgetting) -> bool:
        """Write a Forgetting at once, unless the turn's provenance changed since; say if written.

        The turn's id leaves a tombstone (tombstone_of), in the same transaction. Not written
        (False) when `provenance` now differs from `forgetting.provenance`: work it out again.
        The embedded store writes a snapshot afterwards, so no journal on disk keeps what went.
        """

    def owners(self) -> list[str]:
        """Every owner that has a turn, sorted."""

    def claim_owner(
        self, owner: str, worker: str, now: datetime, until: datetime, since: datetime
    ) -> OwnerClaim:
        """Claim (or renew) the lease on an owner's nightly job for `worker` until `until`.

        Claimed when no worker holds the lease, this one does, or the holder's lapsed (its
        `until` is not after `now`); not when the owner's last job ended at or after `since`
        (done already by this night's work), nor while another worker's lease holds. One
        atomic step: two workers claiming at once never both get the lease.
        """

    def release_owner(self, owner: str, worker: str, now: datetime, failure: str | None) -> bool:
        """End `worker`'s lease on the owner, its job ended at `now` (failed: why); say if held.

        Nothing changes (False) when another worker holds the lease now.
        """

    def save_key(self, key: ApiKey) -> None:
        """Store a new API key's record, outside every owner's graph."""

    def find_key(self, key_id: str) -> ApiKey | None:
        """The API key with this id, or None."""

    def list_keys(self) -> list[ApiKey]:
        """Every API key, oldest first."""

    def revoke_key(self, key_id: str, at: datetime) -> ApiKey | None:
        """Mark the key revoked at `at` (the first revocation's time stays); None if unknown."""

    def export(self, owner: str) -> OwnerGraph:
        """Every node, edge and tombstone of the owner (by label and id, type and ends, hash)."""

    def find_similar_memories(
        self,
        owner: str,
        embedding: Embedding,
        limit: int,
        deepest: Tier = Tier.DEEP,
        *,
        shallowest: Tier = Tier.HOT,
        at_least: float | None = None,
        where: MemoryFilter = ANY_MEMORY,
    ) -> list[SimilarMemory]:
        """The owner's memories in tiers `shallowest` to `deepest` most similar to an embedding.

        With `at_least`, only those whose similarity is at least that: a recall reading deeper
        tiers asks for no memory less similar than the worst of the `limit` it holds already.
        Only memories `where` admits are found (before the `limit` best are taken).
        """

    def find_memories_mentioning(
        self,
        owner: str,
        terms: Mapping[str, float],
        embedding: Embedding,
        limit: int,
        deepest: Tier = Tier.DEEP,
        *,
        where: MemoryFilter = ANY_MEMORY,
    ) -> list[SimilarMemory]:
        """The owner's memories down to `deepest` best matching these weighted content terms.

        Terms are those of graphmem.terms, each with the query's weight for it; each memory
        comes with its similarity to the embedding. Ranked by the sum, over the terms a memory
        holds, of weight times the term's rarity among all the owner's memories (term_rarity);
        ties by similarity, then id, so that the owner's name (in every id) decides nothing.
        Only the first MAX_SEARCH_TERMS terms are searched (searched_terms); only memories
        `where` admits are found (before the `limit` best are taken).
        """

    def find_neighbours(
        self,
        owner: str,
        ids: Sequence[str],
        embedding: Embedding,
        *,
        window: int,
        links: int,
        deepest: Tier = Tier.DEEP,
        known: Sequence[str] = (),
        evoked: Sequence[str] = (),
        where: MemoryFilter = ANY_MEMORY,
    ) -> Neighbourhood:
        """Memories next to the given ones, where association spreads relevance, and the edges.

        Those FROM the turns within `window` positions of theirs in the same session, and
        the `links` most strongly linked to each by RELATED, CAUSES or PART_OF either way, or
        through an event both are PART_OF (strength 1; ties by similarity to the embedding,
        then id), and the `links` cues of each `evoked` impression (by id) that gave it the
        most belief (ties: the latest, then id; cues stored without their belief left out); in
        tiers down to `deepest`; each with its similarity to the embedding; the given and the
        `known` ones left out. With them, the edges among the given, known and found memories,
        and those cues, known ones included (one read for all). Only memories `where` admits
        are found, as neighbours or cues (before the strongest are taken).
        """

    def link_memories(self, owner: str, links: Sequence[Link]) -> None:
        """Add edges between the owner's memories (one per type and pair; a repeat updates it)."""

    def wake(
        self,
        owner: str,
        used: Sequence[str],
        now: datetime,
        attention: AttentionPolicy,
        tiers: TierPolicy,
    ) -> list[Woken]:
        """Use memories and wake their neighbours (mechanisms.attention), all at once."""

    def retier(
        self, owner: str, now: datetime, attention: AttentionPolicy, tiers: TierPolicy
    ) -> int:
        """Sink memories whose attention faded or that overflow a tier; return the moves made."""

    def count_graph(self, owner: str) -> GraphCounts:
        """Count the owner's nodes per label, edges per type, memories per tier and belief.

        With them its tombstones.
        """

    def count_health(self, owner: str) -> HealthCounts:
        """Count the owner's memories per kind, work queues, open contradictions and the like."""

    def traffic(self) -> StoreTraffic:
        """Write transactions committed and statements sent since the store was opened."""

    def close(self) -> None:
        """Release connections and files; the store is not used afterwards."""
