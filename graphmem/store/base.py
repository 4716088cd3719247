"""The store protocol, in domain verbs; NetworkXStore and Neo4jStore implement it.

What its verbs give back to a face is the contract's (graphmem.contract); what they find and
take besides is in graphmem.store.findings and graphmem.store.changes, and the rules both
stores keep alike in graphmem.store.rules.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol

from graphmem.contract import (
    ANY_MEMORY,
    GraphCounts,
    HealthCounts,
    MemoryFilter,
    OwnerGraph,
    StoreTraffic,
    TimelineWanted,
    Woken,
)
from graphmem.keys import ApiKey
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.mechanisms.beliefs import BeliefPolicy, Settlement
from graphmem.mechanisms.impressions import ImpressionPolicy
from graphmem.mechanisms.profile import ProfileSources
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.model import (
    Embedding,
    Event,
    Impression,
    Link,
    Memory,
    Tier,
    Turn,
)
from graphmem.store.changes import (
    Cause,
    Derivation,
    Forgetting,
    SummaryChange,
)
from graphmem.store.findings import (
    Neighbourhood,
    OwnerClaim,
    Provenance,
    SimilarMemory,
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

    def timeline(
        self, owner: str, wanted: TimelineWanted, limit: int
    ) -> list[tuple[Memory, list[Turn]]]:
        """Up to `limit` of the owner's memories that `wanted` admits, without their embeddings.

        Newest first, ties by id (the greater first), from just before `wanted.before`; each with
        the turns it came from, oldest first. Memories of every kind, summaries and facts too.
        """

    def events(self, owner: str) -> list[tuple[Event, int]]:
        """Every event of the owner (the embedding left empty) and the memories PART_OF it.

        The latest update first, ties by id.
        """

    def impressions(self, owner: str) -> list[tuple[Impression, int, int]]:
        """Every impression of the owner (the embedding left empty), its cues and conjectures.

        By id; cues are the memories it was inferred from, conjectures those inferred from it.
        """

    def neighbourhood(self, owner: str, label: str, node_id: str) -> OwnerGraph:
        """The node, every node one edge away from it and those edges, each once.

        Edges by type, source and target; memories without their embeddings; no tombstones.
        Empty if the owner has no such node.
        """

    def count_health(self, owner: str) -> HealthCounts:
        """Count the owner's memories per kind, work queues, open contradictions and the like."""

    def traffic(self) -> StoreTraffic:
        """Write transactions committed and statements sent since the store was opened."""

    def close(self) -> None:
        """Release connections and files; the store is not used afterwards."""
