"""The embedded default store: the graph in process memory (networkx), kept safe in files.

One piece, though long: the graph and the indexes kept beside it (ids by owner and label, the
marks of work to do, content terms, sessions, causes, embeddings as arrays) are one structure
under one lock. Every verb reads it; every write is a change, journalled, then made to it by the
appliers below, which make it again when the journal is replayed; and networkx, which holds the
graph, is imported in this module only. The files it is kept in, a journal of the changes and a
snapshot, and their format are graphmem.store.journal's. In order: the verbs of the Store
protocol; the changes and how they apply; the reads they share; loading and snapshotting.
"""

import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeAlias

import networkx as nx
import numpy as np

from graphmem.errors import StoreError
from graphmem.keys import ApiKey
from graphmem.mechanisms.attention import (
    AttentionPolicy,
    NodeRef,
    current_attention,
    lowered,
    spread,
    woken,
)
from graphmem.mechanisms.beliefs import AttentionChange, BeliefPolicy, Settlement, moved
from graphmem.mechanisms.events import is_open
from graphmem.mechanisms.impressions import Cue, ImpressionPolicy, accumulated
from graphmem.mechanisms.profile import (
    ConjecturedImpression,
    EventNews,
    ProfileSources,
    SlotFact,
)
from graphmem.mechanisms.tiers import TierPolicy, tier_for
from graphmem.model import (
    NODE_LABELS,
    Embedding,
    Event,
    Impression,
    Link,
    LinkType,
    Memory,
    MemoryKind,
    Node,
    Tier,
    Turn,
)
from graphmem.similarity import inner_products
from graphmem.store.base import (
    ANY_MEMORY,
    SEARCHED_KINDS,
    Cause,
    Derivation,
    EventTrail,
    EvokedCue,
    Forgetting,
    GraphCounts,
    HealthCounts,
    ImpressionTrail,
    MemoryFilter,
    Neighbourhood,
    OwnerClaim,
    OwnerGraph,
    Provenance,
    SimilarMemory,
    Sourced,
    StoreTraffic,
    SummaryChange,
    Tombstone,
    UpdateTrail,
    Woken,
    belief_bin,
    check_nodes,
    check_tombstones,
    searched_terms,
    term_rarity,
    tombstone_hash,
    tombstone_of,
)
from graphmem.store.journal import Journal, KeyFile
from graphmem.terms import terms as content_terms

NodeKey = tuple[str, str, str]
"""A node of the graph is keyed by (owner, label, id); a forgotten message's tombstone, a node
without edges outside NODE_LABELS, by (owner, "Tombstone", hash)."""
MemoryGraph: TypeAlias = "nx.MultiDiGraph[str]"
"""The graph `multigraph` returns, keyed by string (networkx is imported in this module only)."""

WAKE_EDGES = (LinkType.RELATED.value, LinkType.CAUSES.value, LinkType.PART_OF.value)
"""Regional wake-up spreads along these edges, in both directions."""


def searchable(memory: Memory) -> bool:
    """Whether searches find the memory: of SEARCHED_KINDS (not a summary, not a fact)."""
    return memory.kind in SEARCHED_KINDS


NO_LEASE = OwnerClaim(
    claimed=False, holder=None, until=None, slept_at=None, slept_by=None, failure=None
)
"""The lease record of an owner no worker has claimed yet."""


class NetworkXStore:
    """The store kept in process memory, optionally persisted to a snapshot file plus a journal."""

    def __init__(self, path: Path | None = None, snapshot_every: int = 1000) -> None:
        self._journal = None if path is None else Journal(path)
        """The files the store is kept in; None for an in-memory store, and once closed."""
        self._snapshot_every = snapshot_every
        self._graph: nx.MultiDiGraph[NodeKey] = nx.MultiDiGraph()
        self._ids: dict[tuple[str, str], dict[str, None]] = {}
        self._pending: dict[str, dict[str, None]] = {}
        self._awaiting_summary: dict[str, dict[str, None]] = {}
        self._awaiting_consolidation: dict[str, dict[str, None]] = {}
        """Per owner, the ids of the turns and memories that carry each mark."""
        self._mentions: dict[str, dict[str, set[str]]] = {}
        """Per owner, the ids of the memories whose text holds each content term."""
        self._causes: dict[str, dict[tuple[str, str], None]] = {}
        """Per owner, the (cause id, effect id) of its CAUSES edges, in the order they came."""
        self._sessions: dict[tuple[str, str], list[str]] = {}
        """Per (owner, session), the ids of its turns in the order they were stored."""
        self._vectors: dict[
            tuple[str, str], tuple[Memory, np.ndarray[Any, np.dtype[np.float64]], Memory]
        ] = {}
        """Per (owner, memory id): the version last searched, its embedding as an array, and
        that version without its embedding (what a search returns)."""
        self._leases: dict[str, OwnerClaim] = {}
        """Per owner, the lease on its nightly job and how its last job ended: in process memory
        only, as the store is one process's (a job ends with the process that ran it)."""
        self._keys = KeyFile(path)
        self._lock = threading.RLock()
        self._unsnapshotted = 0
        self._transactions = 0

    @classmethod
    def open(cls, path: Path | None = None, snapshot_every: int = 1000) -> "NetworkXStore":
        """Open the store kept at `path` (created if missing), or an in-memory one for None."""
        store = cls(path, snapshot_every)
        if path is not None:
            try:
                store._load()
            except BaseException:
                store.close()
                raise
        return store

    # -- the verbs ---------------------------------------------------------------------------

    def prepare(self, dimensions: int) -> None:
        """Nothing to create in process memory; present for the protocol."""

    def save_turns(
        self, owner: str, turns: Sequence[Turn], *, readmit_forgotten: bool = False
    ) -> list[Turn]:
        """Store the owner's turns in order, each unless one with its id is stored; return them.

        One journal entry. Returns, in input order, the stored turn of each: the new one, or
        the one already there (a turn never changes once stored). A turn whose id has a
        tombstone (a message the owner forgot) is neither stored nor returned, unless
        `readmit_forgotten`: then its tombstone goes in the same entry and it is stored.
        """
        check_nodes(owner, turns)
        with self._lock:
            new: dict[str, Turn] = {}
            readmitted: dict[str, None] = {}
            for turn in turns:  # the first of a repeated id is the one stored, as on Neo4j
                tombstone = tombstone_hash(turn.id)
                if self._tombstone(owner, tombstone) is not None:
                    if not readmit_forgotten:
                        continue
                    readmitted[tombstone] = None
                if self._node(owner, "Turn", turn.id) is None:
                    new.setdefault(turn.id, turn)
            if new or readmitted:
                self._write(
                    {
                        "op": "save_turns",
                        "owner": owner,
                        "readmitted": list(readmitted),
                        "turns": list(new.values()),
                    }
                )
            stored = [self._node(owner, "Turn", turn.id) for turn in turns]
            return [turn for turn in stored if isinstance(turn, Turn)]

    def save_memories(
        self,
        owner: str,
        derivations: Sequence[Derivation],
        policy: ImpressionPolicy | None = None,
    ) -> list[list[Memory]]:
        """Store what turns gave, in order, in one journal entry; clear the turns' pending marks.

        Each turn's memories come FROM it; edges whose ends are not stored are skipped (an edge
        may name a memory of an earlier derivation of the same call); memories already stored
        are kept as they are. While a turn is pending, each of its impressions accumulates on
        the owner's impression of its statement (INFERRED_FROM the turn's memories), and those
        that cross the threshold make their conjecture (INFERRED_FROM the impression). Returns
        the conjectures made, a list per derivation. StoreError if a turn is not stored.
        """
        check_nodes(owner, [node for derivation in derivations for node in derivation.nodes])
        with self._lock:
            conjectures: list[list[Memory]] = []
            changes: list[dict[str, Any]] = []
            latest: dict[str, Impression] = {}
            """Impressions as this call left them, so two of one statement both count."""
            pending: set[str] = set()
            """The turns of this call whose pending mark is still set, as it proceeds."""
            for derivation in derivations:
                turn = self._node(owner, "Turn", derivation.source.id)
                if not isinstance(turn, Turn):
                    raise StoreError(
                        f"turn {derivation.source.id!r} of owner {owner} is not stored"
                    )
                if turn.pending:
                    pending.add(turn.id)
            for derivation in derivations:
                made: list[Memory] = []
                changed: list[dict[str, Any]] = []
                impressions = derivation.impressions if derivation.source.id in pending else []
                pending.discard(derivation.source.id)
                for item in impressions:
                    stored = latest.get(item.impression.id) or self._node(
                        owner, "Impression", item.impression.id
                    )
                    assert stored is None or isinstance(stored, Impression)
                    after, conjectured = accumulated(
                        stored, item.impression, policy or ImpressionPolicy()
                    )
                    latest[after.id] = after
                    conjecture = None
                    if conjectured:
                        conjecture = item.conjecture.model_copy(update={"belief": after.belief})
                        made.append(conjecture)
                    changed.append(
                        {
                            "impression": after,
                            "cue_belief": item.impression.belief,
                            "conjecture": conjecture,
                        }
                    )
                conjectures.append(made)
                changes.append(
                    {
                        "turn_id": derivation.source.id,
                        "memories": list(derivation.memories),
                        "links": list(derivation.links),
                        "impressions": changed,
                    }
                )
            if changes:
                self._write({"op": "save_derivations", "owner": owner, "derivations": changes})
            return conjectures

    def working_memories(
        self, owner: str, embeddings: Sequence[Embedding], size: int
    ) -> list[list[SimilarMemory]]:
        """For each embedding, the owner's `size` hot memories most similar to it (no turns).

        The working memory in whose light a new item is labelled; one search for many items.
        """
        with self._lock:
            hot = [
                node
                for node in self._nodes(owner, "Memory")
                if isinstance(node, Memory) and node.tier == Tier.HOT and searchable(node)
            ]
            if not hot or not embeddings:
                return [[] for _ in embeddings]
            found = []
            for row in self._similarity_matrix(hot, embeddings):
                top: Iterable[int] = range(len(hot))
                if len(hot) > size:  # the size best and every tie of the last, found by numpy
                    top = np.flatnonzero(row >= np.partition(row, -size)[-size]).tolist()
                ranked = sorted(top, key=lambda index: (-row[index], hot[index].id))[:size]
                found.append(
                    [
                        SimilarMemory(
                            memory=self._searched(hot[index])[1],
                            similarity=float(row[index]),
                            turns=[],
                        )
                        for index in ranked
                    ]
                )
            return found

    def save_knowledge(self, owner: str, memories: Sequence[Memory], links: Sequence[Link]) -> None:
        """Store knowledge memories (from no turn) and edges among memories; idempotent by id."""
        check_nodes(owner, memories)
        with self._lock:
            self._write(
                {
                    "op": "save_knowledge",
                    "owner": owner,
                    "memories": list(memories),
                    "links": list(links),
                }
            )

    def causal_rules(self, owner: str) -> list[Cause]:
        """The owner's causal knowledge: every CAUSES edge, by cause and effect."""
        with self._lock:
            rules = []
            for cause, effect in self._causes.get(owner, {}):
                edge = self._graph.edges[
                    (owner, "Memory", cause), (owner, "Memory", effect), LinkType.CAUSES.value
                ]
                rules.append(
                    Cause(
                        cause=self._graph.nodes[(owner, "Memory", cause)]["node"].text,
                        effect=self._graph.nodes[(owner, "Memory", effect)]["node"].text,
                        sufficiency=edge["link"].strength,
                    )
                )
            return sorted(rules, key=lambda rule: (rule.cause, rule.effect))

    def profile_sources(self, owner: str, at: datetime) -> ProfileSources:
        """What the owner's profile at `at` is read from (mechanisms.profile.ProfileSources)."""
        with self._lock:
            facts = [
                SlotFact(fact=memory, belief=self._said_belief(owner, memory))
                for memory in self._nodes(owner, "Memory")
                if isinstance(memory, Memory)
                and memory.kind is MemoryKind.FACT
                and memory.created_at <= at
            ]
            return ProfileSources(
                facts=sorted(facts, key=lambda item: (item.fact.created_at, item.fact.id)),
                impressions=self._conjectured(owner, at),
                events=self._open_events(owner, at),
                causal_rules=len(self._causes.get(owner, {})),
            )

    def _conjectured(self, owner: str, at: datetime) -> list[ConjecturedImpression]:
        """The owner's impressions with a conjecture made by `at`, by id, with what they rest on."""
        found = []
        for impression in self._nodes(owner, "Impression"):
            assert isinstance(impression, Impression)
            key = (owner, "Impression", impression.id)
            conjectures = self._linked_by(key, LinkType.INFERRED_FROM, at, incoming=True)
            if conjectures:
                cues = self._linked_by(key, LinkType.INFERRED_FROM, at, incoming=False)
                rests_on = [memory.id for memory in [*conjectures, *cues]]
                found.append(ConjecturedImpression(impression=impression, rests_on=rests_on))
        return sorted(found, key=lambda item: item.impression.id)

    def _open_events(self, owner: str, at: datetime) -> list[EventNews]:
        """The owner's events begun by `at` and open then, by id, with their members by then."""
        found = []
        for event in self._nodes(owner, "Event"):
            assert isinstance(event, Event)
            if event.first_at <= at and is_open(event, at):
                key = (owner, "Event", event.id)
                members = self._linked_by(key, LinkType.PART_OF, at, incoming=True)
                found.append(EventNews(event=event, members=[memory.id for memory in members]))
        return sorted(found, key=lambda item: item.event.id)

    def _linked_by(
        self, key: NodeKey, link: LinkType, at: datetime, *, incoming: bool
    ) -> list[Memory]:
        """The memories made by `at` joined to a node by edges of one type, oldest first.

        Those whose edge comes into the node when `incoming`, else those it goes out to; ties
        by id.
        """
        edges = (
            self._graph.in_edges(key, keys=True)
            if incoming
            else self._graph.out_edges(key, keys=True)
        )
        ends = [source if incoming else target for source, target, kind in edges if kind == link]
        memories = [self._graph.nodes[end]["node"] for end in ends]
        return sorted(
            (memory for memory in memories if memory.created_at <= at),
            key=lambda memory: (memory.created_at, memory.id),
        )

    def _said_belief(self, owner: str, fact: Memory) -> float | None:
        """The belief of the observation of the turn a fact was read in (None without one)."""
        for turn in self._turns_of(fact):
            for source, _target, kind in self._graph.in_edges((owner, "Turn", turn.id), keys=True):
                memory = self._graph.nodes[source]["node"]
                if kind == LinkType.FROM.value and memory.kind is MemoryKind.OBSERVATION:
                    belief: float | None = memory.belief
                    return belief
        return None

    def turns_awaiting_summary(self, owner: str, limit: int) -> list[Turn]:
        """The owner's turns that no dialogue summary covers yet, oldest first."""
        with self._lock:
            return self._oldest_first(owner, "Turn", self._awaiting_summary.get(owner, {}), limit)

    def importance_of(self, owner: str, ids: Sequence[str]) -> dict[str, float]:
        """The importance of each of these memories of the owner, by id (those stored)."""
        with self._lock:
            found = (self._node(owner, "Memory", memory_id) for memory_id in ids)
            return {node.id: node.importance for node in found if isinstance(node, Memory)}

    def latest_event(self, owner: str, category: str) -> Event | None:
        """The owner's event of this category updated last (ties by id), if any."""
        with self._lock:
            events = [
                node
                for node in self._nodes(owner, "Event")
                if isinstance(node, Event) and node.category == category
            ]
            return max(events, key=lambda event: (event.last_at, event.id), default=None)

    def save_summaries(self, owner: str, changes: Sequence[SummaryChange]) -> None:
        """Store dialogue summaries, in order, each FROM its turns with its events, at once.

        For each: clears the turns' summary marks; creates or updates each event, NEXT from its
        previous one and with its members PART_OF it; stores each fact FROM its turn. All or
        nothing (one transaction, one journal entry). Idempotent: a summary or fact already
        stored is kept.
        """
        for change in changes:
            check_nodes(owner, change.nodes())
        if changes:
            with self._lock:
                self._write({"op": "save_summaries", "owner": owner, "changes": list(changes)})

    def memories_awaiting_consolidation(self, owner: str, limit: int) -> list[Memory]:
        """The owner's facts not yet consolidated, oldest first, with their embeddings."""
        with self._lock:
            return self._oldest_first(
                owner, "Memory", self._awaiting_consolidation.get(owner, {}), limit
            )

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
        with self._lock:
            changed: dict[str, Memory] = {}

            def stored(memory_id: str) -> Node | None:
                """A memory as the facts settled so far leave it."""
                return changed.get(memory_id) or self._node(owner, "Memory", memory_id)

            settled = []
            for settlement in settlements:
                fact_memory = stored(settlement.fact)
                if not isinstance(fact_memory, Memory) or not fact_memory.awaiting_consolidation:
                    continue
                settled.append(settlement)
                for move in settlement.moves:
                    memory = stored(move.id)
                    if not isinstance(memory, Memory):
                        continue
                    belief = beliefs.first_hand if memory.belief is None else memory.belief
                    update: dict[str, Any] = {"belief": moved(belief, move.estimate, beliefs)}
                    if move.attention is AttentionChange.RAISE:
                        update["attention"] = woken(
                            memory.attention,
                            now,
                            attention,
                            long_term_gain=attention.use_long_term,
                            short_term_gain=attention.use_short_term,
                        )
                        update["accessed_at"] = max(now, memory.accessed_at)
                        update["tier"] = Tier.HOT
                    elif move.attention is AttentionChange.LOWER:
                        update["attention"] = lowered(
                            memory.attention, now, attention, beliefs.kept_attention
                        )
                    changed[move.id] = memory.model_copy(update=update)
                fact_memory = stored(settlement.fact)
                assert isinstance(fact_memory, Memory)  # read again: its own moves may change it
                changed[settlement.fact] = fact_memory.model_copy(
                    update={"awaiting_consolidation": False}
                )
                for link in settlement.links:
                    newer, older = stored(link.source), stored(link.target)
                    if link.type is not LinkType.UPDATES or not (
                        isinstance(newer, Memory) and isinstance(older, Memory)
                    ):
                        continue
                    until = min(older.valid_until or newer.created_at, newer.created_at)
                    changed[older.id] = older.model_copy(update={"valid_until": until})
                    changed[newer.id] = newer.model_copy(update={"valid_from": newer.created_at})
            if settled:
                self._write(
                    {
                        "op": "settle_facts",
                        "owner": owner,
                        "nodes": [
                            {"label": "Memory", "node": memory} for memory in changed.values()
                        ],
                        "links": [link for settlement in settled for link in settlement.links],
                    }
                )

    def provenance(self, owner: str, turn: str) -> Provenance | None:
        """What was derived from one of the owner's turns (None if no such turn is stored)."""
        with self._lock:
            stored = self._node(owner, "Turn", turn)
            if not isinstance(stored, Turn):
                return None
            memories = sorted(self._memories_from(owner, turn), key=lambda memory: memory.id)
            keys = [(owner, "Memory", memory.id) for memory in memories]
            impressions = {
                source[2]
                for key in keys
                for source, _target, edge_type in self._graph.in_edges(key, keys=True)
                if edge_type == LinkType.INFERRED_FROM.value and source[1] == "Impression"
            }
            events = {
                target[2]
                for key in keys
                for _source, target, edge_type in self._graph.out_edges(key, keys=True)
                if edge_type == LinkType.PART_OF.value
            }
            updated = {
                other[2]
                for key in keys
                for source, target, edge_type in [
                    *self._graph.out_edges(key, keys=True),
                    *self._graph.in_edges(key, keys=True),
                ]
                if edge_type == LinkType.UPDATES.value
                for other in [target if source == key else source]
            } - {memory.id for memory in memories}
            return Provenance(
                turn=stored,
                memories=[
                    Sourced(memory=memory, turns=self._turns_of(memory)) for memory in memories
                ],
                impressions=[self._impression_trail(owner, key) for key in sorted(impressions)],
                events=[self._event_trail(owner, key) for key in sorted(events)],
                updates=[self._update_trail(owner, key) for key in sorted(updated)],
            )

    def forget_turn(self, owner: str, forgetting: Forgetting) -> bool:
        """Write a Forgetting at once, unless the turn's provenance changed since; say if written.

        The turn's id leaves a tombstone (tombstone_of) in the same journal entry. Not written
        (False) when `provenance` now differs from `forgetting.provenance`: work it out again.
        A persisted store writes its snapshot afterwards, so the journal on disk keeps nothing
        of what went.
        """
        with self._lock:
            if self.provenance(owner, forgetting.provenance.turn.id) != forgetting.provenance:
                return False
            self._write(
                {
                    "op": "forget_turn",
                    "owner": owner,
                    "turn": forgetting.provenance.turn.id,
                    "deleted": forgetting.deleted,
                    "replaced": [
                        {"label": type(node).__name__, "node": node} for node in forgetting.replaced
                    ],
                    "added": list(forgetting.added),
                    "unlinked": [
                        [source_label, target_label, link]
                        for source_label, target_label, link in forgetting.unlinked
                    ],
                    "linked": [
                        [source_label, target_label, link]
                        for source_label, target_label, link in forgetting.linked
                    ],
                }
            )
            if self._journal is not None:
                self._snapshot()
            return True

    def owners(self) -> list[str]:
        """Every owner that has a turn, sorted."""
        with self._lock:
            return sorted(
                {owner for (owner, label), ids in self._ids.items() if label == "Turn" and ids}
            )

    def claim_owner(
        self, owner: str, worker: str, now: datetime, until: datetime, since: datetime
    ) -> OwnerClaim:
        """Claim (or renew) the lease on an owner's nightly job for `worker` until `until`."""
        with self._lock:
            lease = self._leases.get(owner, NO_LEASE)
            slept = lease.slept_at is not None and lease.slept_at >= since
            free = lease.holder in (None, worker) or (
                lease.until is not None and lease.until <= now
            )
            claimed = free and not slept
            if claimed:
                lease = lease.model_copy(update={"holder": worker, "until": until})
                self._leases[owner] = lease
            return lease.model_copy(update={"claimed": claimed})

    def release_owner(self, owner: str, worker: str, now: datetime, failure: str | None) -> bool:
        """End `worker`'s lease on the owner, its job ended at `now` (failed: why); say if held."""
        with self._lock:
            lease = self._leases.get(owner, NO_LEASE)
            if lease.holder != worker:
                return False
            self._leases[owner] = OwnerClaim(
                claimed=False,
                holder=None,
                until=None,
                slept_at=now,
                slept_by=worker,
                failure=failure,
            )
            return True

    def save_key(self, key: ApiKey) -> None:
        """Store a new API key's record, in the key file beside the store's."""
        with self._lock:
            if key.id in self._keys.keys:
                raise StoreError(f"a key with id {key.id} exists already")
            self._keys.save({**self._keys.keys, key.id: key})

    def find_key(self, key_id: str) -> ApiKey | None:
        """The API key with this id, or None."""
        with self._lock:
            return self._keys.keys.get(key_id)

    def list_keys(self) -> list[ApiKey]:
        """Every API key, oldest first."""
        with self._lock:
            return sorted(self._keys.keys.values(), key=lambda key: (key.created_at, key.id))

    def revoke_key(self, key_id: str, at: datetime) -> ApiKey | None:
        """Mark the key revoked at `at` (the first revocation's time stays); None if unknown."""
        with self._lock:
            key = self._keys.keys.get(key_id)
            if key is None or key.revoked_at is not None:
                return key
            revoked = key.model_copy(update={"revoked_at": at})
            self._keys.save({**self._keys.keys, key_id: revoked})
            return revoked

    def export(self, owner: str) -> OwnerGraph:
        """Every node, edge and tombstone of the owner (by label and id, type and ends, hash)."""
        with self._lock:
            nodes = [
                node
                for label in sorted(NODE_LABELS)
                for node in sorted(self._nodes(owner, label), key=lambda node: node.id)
            ]
            links = sorted(
                (
                    (source[1], target[1], attributes["link"])
                    for source, target, _type, attributes in self._edges(owner)
                ),
                key=lambda item: (
                    item[2].type.value,
                    item[2].source,
                    item[2].target,
                    item[0],
                    item[1],
                ),
            )
            tombstones = [
                self._graph.nodes[(owner, "Tombstone", tombstone)]["node"]
                for tombstone in sorted(self._ids.get((owner, "Tombstone"), {}))
            ]
            return OwnerGraph(nodes=nodes, links=links, tombstones=tombstones)

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
        Only memories `where` admits are found.
        """
        found_by = self._searchable_by(where)
        with self._lock:
            memories = [
                node
                for node in self._nodes(owner, "Memory")
                if isinstance(node, Memory)
                and shallowest <= node.tier <= deepest
                and found_by(node)
            ]
            ranked = sorted(
                (
                    (similarity, memory)
                    for similarity, memory in zip(
                        self._similarities(memories, embedding), memories, strict=True
                    )
                    if at_least is None or similarity >= at_least
                ),
                key=lambda pair: (-pair[0], pair[1].id),
            )[:limit]
            return [self._found(memory, similarity) for similarity, memory in ranked]

    def load(self, owner: str, graph: OwnerGraph) -> None:
        """Bulk-load an owner's nodes and edges, as `export` gives them; idempotent by id.

        One journal entry; a node already stored keeps its properties; turns take their
        positions in the order of the positions they carry (those without one last); edges
        whose ends are not stored are skipped. Its tombstones are stored but those of its turns:
        a turn loaded is no longer forgotten (its tombstone goes). For imports and benchmarks,
        not for `observe`.
        """
        check_nodes(owner, graph.nodes)
        check_tombstones(owner, graph.tombstones)
        with self._lock:
            self._write({"op": "load", "owner": owner, "records": graph.records()})

    def forget(self, owner: str) -> None:
        """Delete every node, edge and tombstone of the owner; other owners are untouched.

        One journal entry. A persisted store writes its snapshot afterwards, so the journal on
        disk keeps nothing of what went.
        """
        with self._lock:
            self._write({"op": "forget", "owner": owner})
            self._leases.pop(owner, None)
            if self._journal is not None:
                self._snapshot()

    def session_turns(self, owner: str, session: str, last: int | None) -> list[Turn]:
        """The turns of one session of the owner in their order: all, or the `last` of them."""
        with self._lock:
            ids = self._sessions.get((owner, session), [])
            ids = ids[len(ids) - min(last, len(ids)) :] if last is not None else ids
            return [self._graph.nodes[(owner, "Turn", turn_id)]["node"] for turn_id in ids]

    def pending_turns(self, owner: str, limit: int) -> list[Turn]:
        """The owner's turns whose memories are not derived yet, oldest first."""
        with self._lock:
            return self._oldest_first(owner, "Turn", self._pending.get(owner, {}), limit)

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
        Only the first MAX_SEARCH_TERMS terms are searched; only memories `where` admits found.
        """
        searched = searched_terms(terms)
        found_by = self._searchable_by(where)
        with self._lock:
            index = self._mentions.get(owner, {})
            memories = len(self._ids.get((owner, "Memory"), {}))
            matched: dict[str, float] = {}
            for term, weight in sorted(searched.items()):  # one order, so sums are the same
                holding = index.get(term, set())
                value = weight * term_rarity(len(holding), memories)
                for memory_id in holding:
                    matched[memory_id] = matched.get(memory_id, 0.0) + value
            found = [
                memory
                for memory_id in matched
                if isinstance(memory := self._node(owner, "Memory", memory_id), Memory)
                and memory.tier <= deepest
                and found_by(memory)
            ]
            # Similarity only decides among equal matches: read it for those that can make the
            # cut, not for every memory holding a common word.
            ranked = sorted(found, key=lambda memory: -matched[memory.id])
            floor = matched[ranked[limit - 1].id] if len(ranked) > limit else 0.0
            contenders = [memory for memory in ranked if matched[memory.id] >= floor]
            similarity: dict[str, float] = {}
            self._measure(contenders, embedding, similarity)
            best = sorted(
                contenders,
                key=lambda memory: (-matched[memory.id], -similarity[memory.id], memory.id),
            )
            return [self._found(memory, similarity[memory.id]) for memory in best[:limit]]

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
        are found, as neighbours or cues.
        """
        found_by = self._searchable_by(where)
        with self._lock:
            given = set(ids)
            found: dict[str, Memory] = {}
            similarity: dict[str, float] = {}  # to the embedding, each memory's read once
            for memory_id in dict.fromkeys(ids):
                memory = self._node(owner, "Memory", memory_id)
                if not isinstance(memory, Memory):
                    continue
                for turn in self._turns_of(memory):
                    assert turn.position is not None
                    session = self._sessions[(owner, turn.session)]
                    low = max(turn.position - window, 0)
                    for turn_id in session[low : turn.position + window + 1]:
                        for other in self._memories_from(owner, turn_id):
                            found.setdefault(other.id, other)
                strongest: dict[str, tuple[float, Memory]] = {}
                for (other_id, label), weight in self._linked(owner, memory_id):
                    linked = self._node(owner, label, other_id)
                    if (
                        isinstance(linked, Memory)
                        and linked.id not in given
                        and linked.tier <= deepest
                        and found_by(linked)
                        and weight > strongest.get(linked.id, (-1.0, linked))[0]
                    ):
                        strongest[linked.id] = (weight, linked)
                candidates = [linked for _weight, linked in strongest.values()]
                self._measure(candidates, embedding, similarity)
                ranked = sorted(
                    strongest.values(),
                    key=lambda pair: (-pair[0], -similarity[pair[1].id], pair[1].id),
                )
                for _weight, linked in ranked[:links]:
                    found.setdefault(linked.id, linked)
            cues = self._strongest_cues(owner, evoked, links, deepest, found_by)
            for cue in cues:
                memory = self._node(owner, "Memory", cue.memory)
                if isinstance(memory, Memory) and memory.id not in given:
                    found.setdefault(memory.id, memory)
            left_out = given.union(known)
            memories = sorted(
                (
                    memory
                    for memory in found.values()
                    if memory.id not in left_out and memory.tier <= deepest and found_by(memory)
                ),
                key=lambda memory: memory.id,
            )
            self._measure(memories, embedding, similarity)
            return Neighbourhood(
                memories=[self._found(memory, similarity[memory.id]) for memory in memories],
                links=self._links_among(owner, left_out.union(memory.id for memory in memories)),
                cues=cues,
            )

    def _strongest_cues(
        self,
        owner: str,
        evoked: Sequence[str],
        limit: int,
        deepest: Tier,
        found_by: Callable[[Memory], bool],
    ) -> list[EvokedCue]:
        """The `limit` cues of each impression that gave it the most belief, in tiers to `deepest`.

        Only memories that `found_by` finds are cues.

        Ties go to the latest cue, then the smaller id; cues without their belief are left out.
        """
        cues = []
        for impression_id in dict.fromkeys(evoked):
            key: NodeKey = (owner, "Impression", impression_id)
            if key not in self._graph:
                continue
            impression = self._graph.nodes[key]["node"].model_copy(update={"embedding": []})
            held: list[tuple[float, Memory]] = []
            link: Link
            for _source, target, edge_type, link in self._graph.out_edges(
                key, keys=True, data="link"
            ):
                memory = self._graph.nodes[target]["node"]
                if (
                    edge_type == LinkType.INFERRED_FROM.value
                    and link.belief is not None
                    and memory.tier <= deepest
                    and found_by(memory)
                ):
                    held.append((link.belief, memory))
            held.sort(key=lambda pair: (-pair[0], -pair[1].created_at.timestamp(), pair[1].id))
            cues += [
                EvokedCue(impression=impression, memory=memory.id, belief=belief)
                for belief, memory in held[:limit]
            ]
        return sorted(cues, key=lambda cue: (cue.impression.id, cue.memory))

    def link_memories(self, owner: str, links: Sequence[Link]) -> None:
        """Add edges between the owner's memories (one per type and pair; a repeat updates it)."""
        with self._lock:
            for link in links:
                for end in (link.source, link.target):
                    if self._node(owner, "Memory", end) is None:
                        raise StoreError(f"memory {end!r} of owner {owner} is not stored")
            self._write(
                {
                    "op": "link_memories",
                    "owner": owner,
                    "links": list(links),
                }
            )

    def wake(
        self,
        owner: str,
        used: Sequence[str],
        now: datetime,
        attention: AttentionPolicy,
        tiers: TierPolicy,
    ) -> list[Woken]:
        """Use memories and wake their neighbours (mechanisms.attention), all at once."""
        with self._lock:
            sources = [
                (memory_id, "Memory")
                for memory_id in dict.fromkeys(used)
                if self._node(owner, "Memory", memory_id) is not None
            ]
            gains = spread(sources, lambda node: self._wake_neighbours(owner, node), attention)
            changed: list[Node] = []
            result = []
            for node_id, label in sources:
                memory = self._graph.nodes[(owner, label, node_id)]["node"]
                changed.append(
                    memory.model_copy(
                        update={
                            "attention": woken(
                                memory.attention,
                                now,
                                attention,
                                long_term_gain=attention.use_long_term,
                                short_term_gain=attention.use_short_term,
                            ),
                            "accessed_at": max(now, memory.accessed_at),
                            "tier": Tier.HOT,
                        }
                    )
                )
                result.append(
                    Woken(
                        id=node_id,
                        label=label,
                        used=True,
                        short_term_gain=attention.use_short_term,
                        tier=Tier.HOT,
                    )
                )
            for (node_id, label), gain in gains.items():
                node = self._graph.nodes[(owner, label, node_id)]["node"]
                raised = woken(
                    node.attention, now, attention, long_term_gain=0.0, short_term_gain=gain
                )
                tier = min(node.tier, tier_for(current_attention(raised, now, attention), tiers))
                changed.append(node.model_copy(update={"attention": raised, "tier": tier}))
                result.append(
                    Woken(id=node_id, label=label, used=False, short_term_gain=gain, tier=tier)
                )
            self._put(changed)
            return sorted(result, key=lambda item: (item.label, item.id))

    def retier(
        self, owner: str, now: datetime, attention: AttentionPolicy, tiers: TierPolicy
    ) -> int:
        """Sink memories whose attention faded or that overflow a tier; return the moves made."""
        with self._lock:
            moved: dict[str, Memory] = {}
            moves = 0
            members: dict[Tier, list[tuple[float, Memory]]] = {tier: [] for tier in Tier}
            for stored in self._nodes(owner, "Memory"):
                assert isinstance(stored, Memory)
                if stored.tier == Tier.DEEP:
                    continue
                level = current_attention(stored.attention, now, attention)
                tier = max(stored.tier, tier_for(level, tiers))
                memory = stored if tier == stored.tier else stored.model_copy(update={"tier": tier})
                if memory is not stored:
                    moved[memory.id] = memory
                    moves += 1
                members[tier].append((level, memory))
            for tier, capacity in zip(Tier, tiers.capacities, strict=False):
                ranked = sorted(members[tier], key=lambda pair: (-pair[0], pair[1].id))
                for level, memory in ranked[capacity:]:
                    lower = memory.model_copy(update={"tier": Tier(tier + 1)})
                    moved[memory.id] = lower
                    moves += 1
                    members[Tier(tier + 1)].append((level, lower))
            self._put(list(moved.values()))
            return moves

    def count_graph(self, owner: str) -> GraphCounts:
        """Count the owner's nodes per label, edges per type, memories per tier and belief.

        With them its tombstones.
        """
        with self._lock:
            nodes = {label: len(self._ids.get((owner, label), {})) for label in NODE_LABELS}
            nodes["Session"] = sum(
                1 for session_owner, _key in self._sessions if session_owner == owner
            )
            links: Counter[str] = Counter(
                edge_type for _source, _target, edge_type, _attributes in self._edges(owner)
            )
            memories = [node for node in self._nodes(owner, "Memory") if isinstance(node, Memory)]
            tiers = Counter(int(memory.tier) for memory in memories)
            return GraphCounts(
                nodes=nodes,
                links=dict(links),
                tiers={int(tier): tiers[int(tier)] for tier in Tier},
                beliefs=dict(Counter(belief_bin(memory.belief) for memory in memories)),
                tombstones=len(self._ids.get((owner, "Tombstone"), {})),
            )

    def count_health(self, owner: str) -> HealthCounts:
        """Count the owner's memories per kind, work queues, open contradictions and the like."""
        with self._lock:
            memories = [node for node in self._nodes(owner, "Memory") if isinstance(node, Memory)]
            conjectured = [
                memory.created_at for memory in memories if memory.kind is MemoryKind.CONJECTURE
            ]
            edges = [
                (source, target, edge_type)
                for source, target, edge_type, _attributes in self._edges(owner)
            ]
            merged = {source for source, _, kind in edges if kind == LinkType.MERGED_INTO.value}
            keys = [
                (owner, label, node_id)
                for label in NODE_LABELS
                for node_id in self._ids.get((owner, label), {})
            ]
            return HealthCounts(
                kinds=dict(Counter(memory.kind.value for memory in memories)),
                pending_turns=len(self._pending.get(owner, {})),
                awaiting_summary=len(self._awaiting_summary.get(owner, {})),
                awaiting_consolidation=len(self._awaiting_consolidation.get(owner, {})),
                open_contradictions=sum(
                    1
                    for source, target, edge_type in edges
                    if edge_type == LinkType.CONTRADICTS.value
                    and source not in merged
                    and target not in merged
                ),
                superseded=sum(1 for memory in memories if memory.valid_until is not None),
                never_used=sum(1 for memory in memories if memory.accessed_at == memory.created_at),
                isolated=sum(1 for key in keys if self._graph.degree(key) == 0),
                first_conjecture_at=min(conjectured, default=None),
                last_conjecture_at=max(conjectured, default=None),
            )

    def traffic(self) -> StoreTraffic:
        """Write transactions committed and statements sent since the store was opened."""
        with self._lock:
            return StoreTraffic(transactions=self._transactions, statements=0)

    def close(self) -> None:
        """Write a final snapshot and release the files; the store is not used afterwards."""
        with self._lock:
            try:
                if self._journal is not None and self._unsnapshotted:
                    self._snapshot()
            finally:
                if self._journal is not None:
                    self._journal.close()
                    self._journal = None

    # -- changes: every write goes through the journal, then into the graph --------------------

    def _write(self, change: dict[str, Any]) -> None:
        """Journal a change (fsynced when persisted), apply it, and snapshot when due."""
        if self._journal is not None:
            self._journal.append(change)
        self._apply(change)
        self._transactions += 1
        self._unsnapshotted += 1
        if self._journal is not None and self._unsnapshotted >= self._snapshot_every:
            self._snapshot()

    def _put(self, nodes: Sequence[Node]) -> None:
        """Journal and apply new versions of existing nodes."""
        if nodes:
            self._write(
                {
                    "op": "put_nodes",
                    "nodes": [{"label": type(node).__name__, "node": node} for node in nodes],
                }
            )

    def _apply(self, change: dict[str, Any]) -> None:
        """Apply one journalled change to the graph; applying it twice changes nothing more."""
        appliers = {
            "save_turns": self._apply_save_turns,
            "save_derivations": self._apply_save_derivations,
            "save_turn": self._apply_save_turn,
            "save_memories": self._apply_save_memories,
            "load": self._apply_load,
            "forget": self._apply_forget,
            "forget_turn": self._apply_forget_turn,
            "save_knowledge": self._apply_save_knowledge,
            "save_summaries": self._apply_save_summaries,
            "save_summary": self._apply_save_summary,
            "link_memories": self._apply_link_memories,
            "put_nodes": self._apply_put_nodes,
            "settle_facts": self._apply_settle_facts,
            "settle_fact": self._apply_settle_facts,  # one fact's entry, as written before
        }
        applier = appliers.get(change["op"])
        if applier is None:
            raise StoreError(f"unknown change {change['op']!r} in the journal")
        applier(change)

    def _apply_save_turns(self, change: dict[str, Any]) -> None:
        """The tombstones of readmitted turns gone, then new turns, in order.

        Entries written before tombstones have neither `owner` nor `readmitted`.
        """
        for tombstone in change.get("readmitted", []):
            self._remove_tombstone(change["owner"], tombstone)
        for data in change["turns"]:
            self._add_node(Turn.model_validate(data))

    def _apply_save_derivations(self, change: dict[str, Any]) -> None:
        """What turns gave, in order: as `_apply_save_memories` for each."""
        for derivation in change["derivations"]:
            self._apply_save_memories({"owner": change["owner"], **derivation})

    def _apply_save_turn(self, change: dict[str, Any]) -> None:
        """A new turn (a journal entry written before `save_turns` existed)."""
        self._add_node(Turn.model_validate(change["turn"]))

    def _apply_save_memories(self, change: dict[str, Any]) -> None:
        """A turn's memories, their edges and impressions; the turn's pending mark cleared."""
        owner, turn_id = change["owner"], change["turn_id"]
        self._clear_pending(owner, turn_id)
        memories = [Memory.model_validate(data) for data in change["memories"]]
        for memory in memories:
            self._add_memory_from(owner, turn_id, memory)
        self._add_memory_links(owner, change.get("links", []))
        for item in change.get("impressions", []):
            self._add_impression(owner, item, [memory.id for memory in memories])

    def _apply_load(self, change: dict[str, Any]) -> None:
        """A bulk-loaded graph: tombstones, turns by position (their tombstones gone), the rest."""
        owner = change["owner"]
        graph = OwnerGraph.from_records(change["records"])
        turns = [node for node in graph.nodes if isinstance(node, Turn)]
        for tombstone in graph.tombstones:
            self._add_tombstone(tombstone)
        for turn in turns:
            self._remove_tombstone(owner, tombstone_hash(turn.id))
        for turn in sorted(turns, key=lambda turn: (turn.position is None, turn.position or 0)):
            self._add_node(turn)
        for node in graph.nodes:
            if not isinstance(node, Turn):
                self._add_node(node)
        for source_label, target_label, link in graph.links:
            ends = [
                self._node(owner, source_label, link.source),
                self._node(owner, target_label, link.target),
            ]
            if None not in ends:
                self._add_link(owner, source_label, target_label, link)

    def _apply_forget(self, change: dict[str, Any]) -> None:
        """Every node and tombstone of one owner gone, with its edges and the indexes naming it."""
        owner = change["owner"]
        for label in NODE_LABELS:
            for node_id in self._ids.pop((owner, label), {}):
                self._graph.remove_node((owner, label, node_id))
                self._vectors.pop((owner, node_id), None)
        for tombstone in self._ids.pop((owner, "Tombstone"), {}):
            self._graph.remove_node((owner, "Tombstone", tombstone))
        for marks in (
            self._pending,
            self._awaiting_summary,
            self._awaiting_consolidation,
            self._mentions,
            self._causes,
        ):
            marks.pop(owner, None)
        for key in [key for key in self._sessions if key[0] == owner]:
            del self._sessions[key]

    def _apply_forget_turn(self, change: dict[str, Any]) -> None:
        """A forgotten turn: it and the nodes derived only from it gone, the rest re-derived.

        The turn's id leaves its tombstone.
        """
        owner = change["owner"]
        self._remove_turn(owner, change["turn"])
        self._add_tombstone(tombstone_of(owner, change["turn"]))
        for label, node_id in change["deleted"]:
            self._remove_node(owner, label, node_id)
        for item in change["replaced"]:
            node = NODE_LABELS[item["label"]].model_validate(item["node"])
            if isinstance(node, Memory):
                self._unmention(node.owner, node.id)
                self._mention(node)
            self._replace(node)
        for data in change["added"]:
            self._add_node(Memory.model_validate(data))
        for source_label, target_label, data in change["unlinked"]:
            link = Link.model_validate(data)
            source: NodeKey = (owner, source_label, link.source)
            target: NodeKey = (owner, target_label, link.target)
            if self._graph.has_edge(source, target, key=link.type.value):
                self._graph.remove_edge(source, target, key=link.type.value)
        for source_label, target_label, data in change["linked"]:
            link = Link.model_validate(data)
            ends = [
                self._node(owner, source_label, link.source),
                self._node(owner, target_label, link.target),
            ]
            if None not in ends:
                self._add_link(owner, source_label, target_label, link)

    def _apply_save_knowledge(self, change: dict[str, Any]) -> None:
        """Knowledge memories and their edges."""
        for data in change["memories"]:
            self._add_node(Memory.model_validate(data))
        self._add_memory_links(change["owner"], change["links"])

    def _apply_link_memories(self, change: dict[str, Any]) -> None:
        """Edges between memories."""
        self._add_memory_links(change["owner"], change["links"])

    def _apply_put_nodes(self, change: dict[str, Any]) -> None:
        """New versions of stored nodes."""
        for item in change["nodes"]:
            self._replace(NODE_LABELS[item["label"]].model_validate(item["node"]))

    def _apply_settle_facts(self, change: dict[str, Any]) -> None:
        """Consolidated facts: new versions of the memories they moved, and their edges."""
        self._apply_put_nodes(change)
        self._add_memory_links(change["owner"], change["links"])

    def _add_impression(self, owner: str, item: dict[str, Any], cues: list[str]) -> None:
        """Store an accumulated impression INFERRED_FROM its cues, and its conjecture if made.

        Each INFERRED_FROM edge keeps the belief the cue gave (journal entries written before
        cues kept theirs have none).
        """
        impression = Impression.model_validate(item["impression"])
        if self._node(owner, "Impression", impression.id) is None:
            self._add_node(impression)
        else:
            self._replace(impression)
        for cue in cues:
            link = Link(
                type=LinkType.INFERRED_FROM,
                source=impression.id,
                target=cue,
                belief=item.get("cue_belief"),
            )
            self._add_link(owner, "Impression", "Memory", link)
        if item["conjecture"] is not None:
            conjecture = Memory.model_validate(item["conjecture"])
            self._add_node(conjecture)
            link = Link(type=LinkType.INFERRED_FROM, source=conjecture.id, target=impression.id)
            self._add_link(owner, "Memory", "Impression", link)

    def _apply_save_summaries(self, change: dict[str, Any]) -> None:
        """Store each summary FROM its turns, clear their marks, create or update its events."""
        owner = change["owner"]
        for data in change["changes"]:
            self._apply_summary_change(owner, SummaryChange.model_validate(data))

    def _apply_save_summary(self, change: dict[str, Any]) -> None:
        """Replay a journal entry of one summary, as written before summaries were batched."""
        fields = ("summary", "turns", "events")
        summary = SummaryChange.model_validate({name: change[name] for name in fields})
        self._apply_summary_change(change["owner"], summary)

    def _apply_summary_change(self, owner: str, change: SummaryChange) -> None:
        """Store a summary FROM its turns (marks cleared), its events, its facts FROM theirs."""
        summary = change.summary
        self._add_node(summary)
        for turn_id in change.turns:
            turn = self._node(owner, "Turn", turn_id)
            if isinstance(turn, Turn):
                self._add_memory_from(owner, turn_id, summary)
                self._replace(turn.model_copy(update={"awaiting_summary": False}))
        for event_change in change.events:
            event = event_change.event
            stored = self._node(owner, "Event", event.id)
            if isinstance(stored, Event):
                kept = ("attention", "tier", "first_at", "importance", "created_at")
                self._replace(
                    event.model_copy(update={name: getattr(stored, name) for name in kept})
                )
            else:
                self._add_node(event)
            previous = event_change.previous
            if previous is not None and self._node(owner, "Event", previous) is not None:
                link = Link(type=LinkType.NEXT, source=previous, target=event.id)
                self._add_link(owner, "Event", "Event", link)
            for member in event_change.members:
                if self._node(owner, "Memory", member) is not None:
                    link = Link(type=LinkType.PART_OF, source=member, target=event.id)
                    self._add_link(owner, "Memory", "Event", link)
        for item in change.facts:
            if self._node(owner, "Turn", item.turn) is not None:
                self._add_memory_from(owner, item.turn, item.fact)

    def _replace(self, node: Node) -> None:
        """Put a new version of a stored node in place, keeping the mark indexes in step."""
        label = type(node).__name__
        self._graph.nodes[(node.owner, label, node.id)]["node"] = node
        if isinstance(node, Turn) and not node.pending:
            self._pending.get(node.owner, {}).pop(node.id, None)
        if isinstance(node, Turn) and not node.awaiting_summary:
            self._awaiting_summary.get(node.owner, {}).pop(node.id, None)
        if isinstance(node, Memory) and not node.awaiting_consolidation:
            self._awaiting_consolidation.get(node.owner, {}).pop(node.id, None)

    def _add_node(self, node: Node) -> None:
        """Add a node unless one with its key exists (create-once, like MERGE ON CREATE)."""
        label = type(node).__name__
        key: NodeKey = (node.owner, label, node.id)
        if key not in self._graph:
            if isinstance(node, Turn):
                node = self._placed(node)
            self._graph.add_node(key, node=node)
            self._ids.setdefault((node.owner, label), {})[node.id] = None
            if isinstance(node, Turn) and node.pending:
                self._pending.setdefault(node.owner, {})[node.id] = None
            if isinstance(node, Turn) and node.awaiting_summary:
                self._awaiting_summary.setdefault(node.owner, {})[node.id] = None
            if isinstance(node, Memory) and node.awaiting_consolidation:
                self._awaiting_consolidation.setdefault(node.owner, {})[node.id] = None
            if isinstance(node, Memory):
                self._mention(node)

    def _mention(self, memory: Memory) -> None:
        """Index a memory under the content terms of its text."""
        index = self._mentions.setdefault(memory.owner, {})
        for term in content_terms(memory.text):
            index.setdefault(term, set()).add(memory.id)

    def _unmention(self, owner: str, memory_id: str) -> None:
        """Take a stored memory out of the content-term index."""
        memory = self._node(owner, "Memory", memory_id)
        index = self._mentions.get(owner, {})
        if isinstance(memory, Memory):
            for term in content_terms(memory.text):
                index.get(term, set()).discard(memory_id)

    def _remove_node(self, owner: str, label: str, node_id: str) -> None:
        """Delete a node (not a turn) with its edges and every index entry that names it."""
        key: NodeKey = (owner, label, node_id)
        if key not in self._graph:
            return
        if label == "Memory":
            self._unmention(owner, node_id)
            self._vectors.pop((owner, node_id), None)
            self._awaiting_consolidation.get(owner, {}).pop(node_id, None)
            causes = self._causes.get(owner, {})
            for pair in [pair for pair in causes if node_id in pair]:
                del causes[pair]
        self._graph.remove_node(key)
        self._ids.get((owner, label), {}).pop(node_id, None)

    def _tombstone(self, owner: str, tombstone: str) -> Tombstone | None:
        """The owner's tombstone of this hash, or None."""
        data = self._graph.nodes.get((owner, "Tombstone", tombstone))
        return None if data is None else data["node"]

    def _add_tombstone(self, tombstone: Tombstone) -> None:
        """Add a tombstone unless the owner has it."""
        key: NodeKey = (tombstone.owner, "Tombstone", tombstone.hash)
        if key not in self._graph:
            self._graph.add_node(key, node=tombstone)
            self._ids.setdefault((tombstone.owner, "Tombstone"), {})[tombstone.hash] = None

    def _remove_tombstone(self, owner: str, tombstone: str) -> None:
        """Delete the owner's tombstone of this hash, if it has one."""
        key: NodeKey = (owner, "Tombstone", tombstone)
        if key in self._graph:
            self._graph.remove_node(key)
            self._ids.get((owner, "Tombstone"), {}).pop(tombstone, None)

    def _remove_turn(self, owner: str, turn_id: str) -> None:
        """Delete a turn: the later turns of its session move up one, NEXT joins its neighbours."""
        turn = self._node(owner, "Turn", turn_id)
        if not isinstance(turn, Turn):
            return
        session = self._sessions[(owner, turn.session)]
        place = session.index(turn_id)
        self._graph.remove_node((owner, "Turn", turn_id))
        self._ids.get((owner, "Turn"), {}).pop(turn_id, None)
        self._pending.get(owner, {}).pop(turn_id, None)
        self._awaiting_summary.get(owner, {}).pop(turn_id, None)
        del session[place]
        for position in range(place, len(session)):
            later = self._graph.nodes[(owner, "Turn", session[position])]["node"]
            self._replace(later.model_copy(update={"position": position}))
        if 0 < place < len(session):
            link = Link(type=LinkType.NEXT, source=session[place - 1], target=session[place])
            self._add_link(owner, "Turn", "Turn", link)
        if not session:
            del self._sessions[(owner, turn.session)]

    def _placed(self, turn: Turn) -> Turn:
        """A new turn at the end of its session, linked NEXT from the turn before it."""
        session = self._sessions.setdefault((turn.owner, turn.session), [])
        if session:
            link = Link(type=LinkType.NEXT, source=session[-1], target=turn.id)
            self._add_link(turn.owner, "Turn", "Turn", link)
        session.append(turn.id)
        return turn.model_copy(update={"position": len(session) - 1})

    def _add_memory_from(self, owner: str, turn_id: str, memory: Memory) -> None:
        """Add a memory (unless stored) and its FROM edge to a stored turn."""
        self._add_node(memory)
        link = Link(type=LinkType.FROM, source=memory.id, target=turn_id)
        self._add_link(owner, "Memory", "Turn", link)

    def _add_memory_links(self, owner: str, links: list[dict[str, Any]]) -> None:
        """Add journalled edges between memories, skipping those whose ends are not stored."""
        for data in links:
            link = Link.model_validate(data)
            ends = [self._node(owner, "Memory", end) for end in (link.source, link.target)]
            if None not in ends:
                self._add_link(owner, "Memory", "Memory", link)

    def _clear_pending(self, owner: str, turn_id: str) -> None:
        """Mark a turn's memories as derived."""
        turn = self._graph.nodes[(owner, "Turn", turn_id)]["node"]
        if turn.pending:
            self._replace(turn.model_copy(update={"pending": False}))

    def _add_link(self, owner: str, source_label: str, target_label: str, link: Link) -> None:
        """Add an edge, at most one per type between two nodes."""
        source: NodeKey = (owner, source_label, link.source)
        target: NodeKey = (owner, target_label, link.target)
        self._graph.add_edge(source, target, key=link.type.value, link=link)
        if link.type is LinkType.CAUSES:
            self._causes.setdefault(owner, {})[(link.source, link.target)] = None

    # -- reading -------------------------------------------------------------------------------

    def _oldest_first(self, owner: str, label: str, ids: Iterable[str], limit: int) -> list[Any]:
        """The owner's nodes of one label with these ids, oldest first (ties by id), limited."""
        nodes = [self._graph.nodes[(owner, label, node_id)]["node"] for node_id in ids]
        return sorted(nodes, key=lambda node: (node.created_at, node.id))[:limit]

    def _node(self, owner: str, label: str, node_id: str) -> Node | None:
        """The node with this key, or None."""
        data = self._graph.nodes.get((owner, label, node_id))
        return None if data is None else data["node"]

    def _nodes(self, owner: str, label: str) -> Iterator[Node]:
        """The owner's nodes of one label."""
        for node_id in self._ids.get((owner, label), {}):
            yield self._graph.nodes[(owner, label, node_id)]["node"]

    def _edges(self, owner: str) -> Iterator[tuple[NodeKey, NodeKey, str, dict[str, Any]]]:
        """The owner's edges (source, target, type, attributes): those leaving its nodes.

        An edge never joins two owners' nodes, so this reads the owner's edges only, not every
        owner's.
        """
        for label in NODE_LABELS:
            for node_id in self._ids.get((owner, label), {}):
                yield from self._graph.out_edges((owner, label, node_id), keys=True, data=True)

    def _memories_from(self, owner: str, turn_id: str) -> Iterator[Memory]:
        """The memories that came from a turn."""
        for source, _target, edge_type in self._graph.in_edges((owner, "Turn", turn_id), keys=True):
            if edge_type == LinkType.FROM.value:
                yield self._graph.nodes[source]["node"]

    def _searchable_by(self, where: MemoryFilter) -> Callable[[Memory], bool]:
        """Whether a search that `where` filters finds a memory (searchable, and admitted)."""
        if where == ANY_MEMORY:
            return searchable
        return lambda memory: searchable(memory) and where.admits(memory, self._turns_of)

    def _turns_of(self, memory: Memory) -> list[Turn]:
        """The turns a memory came from, oldest first."""
        key: NodeKey = (memory.owner, "Memory", memory.id)
        turns = [
            self._graph.nodes[target]["node"]
            for _source, target, edge_type in self._graph.out_edges(key, keys=True)
            if edge_type == LinkType.FROM.value
        ]
        return sorted(turns, key=lambda turn: (turn.created_at, turn.id))

    def _impression_trail(self, owner: str, impression_id: str) -> ImpressionTrail:
        """An impression with its cues (each with its turn, time and belief) and conjectures."""
        key: NodeKey = (owner, "Impression", impression_id)
        impression = self._graph.nodes[key]["node"]
        cues = []
        link: Link
        for _source, target, edge_type, link in self._graph.out_edges(key, keys=True, data="link"):
            if edge_type == LinkType.INFERRED_FROM.value:
                cue = self._graph.nodes[target]["node"]
                turns = self._turns_of(cue)
                cues.append(
                    Cue(
                        memory=cue.id,
                        turn=turns[0].id if turns else "",
                        at=cue.created_at,
                        belief=link.belief,
                        importance=cue.importance,
                    )
                )
        conjectures = [
            self._graph.nodes[source]["node"]
            for source, _target, edge_type in self._graph.in_edges(key, keys=True)
            if edge_type == LinkType.INFERRED_FROM.value
        ]
        return ImpressionTrail(
            impression=impression,
            cues=sorted(cues, key=lambda cue: cue.memory),
            conjectures=sorted(conjectures, key=lambda memory: memory.id),
        )

    def _event_trail(self, owner: str, event_id: str) -> EventTrail:
        """An event with its summaries and their turns, its members and its NEXT neighbours."""
        key: NodeKey = (owner, "Event", event_id)
        members = [
            self._graph.nodes[source]["node"]
            for source, _target, edge_type in self._graph.in_edges(key, keys=True)
            if edge_type == LinkType.PART_OF.value
        ]
        summaries = sorted(
            (member for member in members if member.kind is MemoryKind.SUMMARY),
            key=lambda memory: (memory.created_at, memory.id),
        )
        neighbours = [
            (source[2], target[2])
            for source, target, edge_type in [
                *self._graph.in_edges(key, keys=True),
                *self._graph.out_edges(key, keys=True),
            ]
            if edge_type == LinkType.NEXT.value
        ]
        return EventTrail(
            event=self._graph.nodes[key]["node"],
            developments=[
                Sourced(memory=summary, turns=self._turns_of(summary)) for summary in summaries
            ],
            members=sorted(member.id for member in members),
            previous=sorted(source for source, target in neighbours if target == event_id),
            following=sorted(target for source, target in neighbours if source == event_id),
        )

    def _update_trail(self, owner: str, memory_id: str) -> UpdateTrail:
        """A fact with the facts that UPDATES it (id, made at) and those it UPDATES."""
        key: NodeKey = (owner, "Memory", memory_id)
        newer = [
            (source[2], self._graph.nodes[source]["node"].created_at)
            for source, _target, edge_type in self._graph.in_edges(key, keys=True)
            if edge_type == LinkType.UPDATES.value
        ]
        older = [
            target[2]
            for _source, target, edge_type in self._graph.out_edges(key, keys=True)
            if edge_type == LinkType.UPDATES.value
        ]
        return UpdateTrail(
            memory=self._graph.nodes[key]["node"], newer=sorted(newer), older=sorted(older)
        )

    def _links_among(self, owner: str, ids: set[str]) -> list[Link]:
        """The edges between the given memories, ordered by type, source and target."""
        keys = {(owner, "Memory", memory_id) for memory_id in ids}
        links: list[Link] = [
            attributes["link"]
            for key in keys
            if key in self._graph
            for _source, target, attributes in self._graph.out_edges(key, data=True)
            if target in keys
        ]
        return sorted(links, key=lambda link: (link.type.value, link.source, link.target))

    def _wake_neighbours(self, owner: str, node: NodeRef) -> list[tuple[NodeRef, float]]:
        """Memories and events next to a node along wake-up edges, one entry per edge."""
        node_id, label = node
        key: NodeKey = (owner, label, node_id)
        found = []
        for source, target, edge_type, link in [
            *self._graph.out_edges(key, keys=True, data="link"),
            *self._graph.in_edges(key, keys=True, data="link"),
        ]:
            other = target if source == key else source
            if edge_type in WAKE_EDGES and other[1] in ("Memory", "Event"):
                found.append(((other[2], other[1]), link.strength))
        return found

    def _linked(self, owner: str, memory_id: str) -> list[tuple[NodeRef, float]]:
        """A memory's neighbours along wake-up edges, and its event mates (strength 1)."""
        neighbours = self._wake_neighbours(owner, (memory_id, "Memory"))
        mates = [
            ((source[2], source[1]), 1.0)
            for (event_id, label), _weight in neighbours
            if label == "Event"
            for source, _target, edge_type in self._graph.in_edges(
                (owner, "Event", event_id), keys=True
            )
            if edge_type == LinkType.PART_OF.value and source[2] != memory_id
        ]
        return neighbours + mates

    def _measure(
        self, memories: Sequence[Memory], embedding: Embedding, similarity: dict[str, float]
    ) -> None:
        """Add to `similarity` each memory's similarity to the embedding that it lacks."""
        unmeasured = [memory for memory in memories if memory.id not in similarity]
        similarity.update(
            zip(
                (memory.id for memory in unmeasured),
                self._similarities(unmeasured, embedding),
                strict=True,
            )
        )

    def _similarities(self, memories: Sequence[Memory], embedding: Embedding) -> list[float]:
        """The cosine similarity of each stored memory's embedding to an embedding."""
        if not memories:
            return []
        similarities: list[float] = self._similarity_matrix(memories, [embedding])[0].tolist()
        return similarities

    def _similarity_matrix(
        self, memories: Sequence[Memory], embeddings: Sequence[Embedding]
    ) -> "np.ndarray[Any, np.dtype[np.float64]]":
        """For each embedding (a row), the cosine similarity of each stored memory's to it."""
        matrix = np.stack([self._searched(memory)[0] for memory in memories])
        queries = np.array(embeddings, dtype=np.float64)
        norms = np.outer(np.linalg.norm(queries, axis=1), np.linalg.norm(matrix, axis=1))
        similarities: np.ndarray[Any, np.dtype[np.float64]] = inner_products(
            queries, matrix
        ) / np.where(norms == 0.0, 1.0, norms)
        return similarities

    def _searched(self, memory: Memory) -> "tuple[np.ndarray[Any, np.dtype[np.float64]], Memory]":
        """A stored memory's embedding as an array and the memory without it, kept per version."""
        key = (memory.owner, memory.id)
        kept = self._vectors.get(key)
        if kept is None or kept[0] is not memory:
            kept = (
                memory,
                np.asarray(memory.embedding, dtype=np.float64),
                memory.model_copy(update={"embedding": None}),
            )
            self._vectors[key] = kept
        return kept[1], kept[2]

    def _found(self, memory: Memory, similarity: float) -> SimilarMemory:
        """A search result: the memory without its embedding, its similarity and its turns."""
        return SimilarMemory(
            memory=self._searched(memory)[1], similarity=similarity, turns=self._turns_of(memory)
        )

    # -- the files -----------------------------------------------------------------------------

    def _load(self) -> None:
        """Read the snapshot, replay the journal and, if it held anything, snapshot afresh."""
        assert self._journal is not None
        stored = self._journal.open()
        for node in stored.nodes:
            if isinstance(node, Tombstone):
                self._add_tombstone(node)
            else:
                self._add_node(node)
        for owner, source_label, target_label, link in stored.links:
            self._add_link(owner, source_label, target_label, link)
        for change in stored.changes:
            self._apply(change)
        if stored.journalled:
            self._snapshot()

    def _snapshot(self) -> None:
        """Write the whole graph to the snapshot file, which empties the journal."""
        assert self._journal is not None
        self._journal.snapshot(
            nodes=(
                (label, attributes["node"])
                for (_owner, label, _id), attributes in self._graph.nodes(data=True)
            ),
            links=(
                (source[0], source[1], target[1], attributes["link"])
                for source, target, attributes in self._graph.edges(data=True)
            ),
        )
        self._unsnapshotted = 0


def multigraph(
    nodes: Iterable[tuple[str, dict[str, Any]]],
    edges: Iterable[tuple[str, str, str, dict[str, Any]]],
) -> MemoryGraph:
    """A networkx multigraph of (key, attributes) nodes and (source, target, type, attributes)."""
    graph: MemoryGraph = nx.MultiDiGraph()
    graph.add_nodes_from(nodes)
    for source, target, edge_type, attributes in edges:
        graph.add_edge(source, target, key=edge_type, type=edge_type, **attributes)
    return graph
