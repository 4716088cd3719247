"""The embedded default store: the graph in process memory, kept safe in files.

The graph and the indexes kept beside it are one structure (networkx_graph.IndexedGraph) under
this store's lock. Every verb reads it: searches (networkx_searches), provenance and profiles
(networkx_trails), counts and export (networkx_census). Every write is a change, worked out on
the graph (networkx_writes), journalled, then applied to it (networkx_appliers), which applies
it again when the journal is replayed. The files it is kept in, a journal of the changes and a
snapshot, and their format are graphmem.store.journal's.
"""

import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from graphmem.contract import (
    ANY_MEMORY,
    GraphCounts,
    HealthCounts,
    MemoryFilter,
    OwnerGraph,
    StoreTraffic,
    TimelineWanted,
    Tombstone,
    Woken,
    tombstone_hash,
)
from graphmem.errors import StoreError
from graphmem.keys import ApiKey
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.mechanisms.beliefs import BeliefPolicy, Settlement
from graphmem.mechanisms.impressions import ImpressionPolicy
from graphmem.mechanisms.profile import ProfileSources
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.model import Embedding, Event, Impression, Link, Memory, Node, Tier, Turn
from graphmem.store import networkx_appliers as appliers
from graphmem.store import networkx_browsing as browsing
from graphmem.store import networkx_census as census
from graphmem.store import networkx_searches as searches
from graphmem.store import networkx_trails as trails
from graphmem.store import networkx_writes as writes
from graphmem.store.changes import Cause, Derivation, Forgetting, SummaryChange
from graphmem.store.findings import Neighbourhood, OwnerClaim, Provenance, SimilarMemory
from graphmem.store.journal import Journal, KeyFile
from graphmem.store.networkx_graph import IndexedGraph, MemoryGraph, multigraph
from graphmem.store.rules import check_nodes, check_tombstones

__all__ = ["MemoryGraph", "NetworkXStore", "multigraph"]

NO_LEASE = OwnerClaim(
    claimed=False, holder=None, until=None, slept_at=None, slept_by=None, failure=None
)
"""The lease record of an owner no worker has claimed yet."""
SNAPSHOT_SHARE = 8
"""A snapshot is written once the changes since the last are `snapshot_every` and one for every
SNAPSHOT_SHARE nodes that snapshot held: it writes the whole graph, so a fixed interval made
its cost a change grow with the graph, and the journal a store replays when it opens stays a
share of its snapshot."""


class NetworkXStore:
    """The store kept in process memory, optionally persisted to a snapshot file plus a journal."""

    def __init__(self, path: Path | None = None, snapshot_every: int = 1000) -> None:
        self._journal = None if path is None else Journal(path)
        """The files the store is kept in; None for an in-memory store, and once closed."""
        self._snapshot_every = snapshot_every
        self._graph = IndexedGraph()
        self._leases: dict[str, OwnerClaim] = {}
        """Per owner, the lease on its nightly job and how its last job ended: in process memory
        only, as the store is one process's (a job ends with the process that ran it)."""
        self._keys = KeyFile(path)
        self._lock = threading.RLock()
        self._unsnapshotted = 0
        self._snapshotted_nodes = 0
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
                if self._graph.tombstone(owner, tombstone) is not None:
                    if not readmit_forgotten:
                        continue
                    readmitted[tombstone] = None
                if self._graph.node(owner, "Turn", turn.id) is None:
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
            stored = [self._graph.node(owner, "Turn", turn.id) for turn in turns]
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
            changes, conjectures = writes.accumulate_impressions(
                self._graph, owner, derivations, policy
            )
            if changes:
                self._write({"op": "save_derivations", "owner": owner, "derivations": changes})
            return conjectures

    def working_memories(
        self, owner: str, embeddings: Sequence[Embedding], size: int
    ) -> list[list[SimilarMemory]]:
        """For each embedding, the owner's `size` hot memories most similar to it (no turns)."""
        with self._lock:
            return searches.working_memories(self._graph, owner, embeddings, size)

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
            return trails.causal_rules(self._graph, owner)

    def profile_sources(self, owner: str, at: datetime) -> ProfileSources:
        """What the owner's profile at `at` is read from (mechanisms.profile.ProfileSources)."""
        with self._lock:
            return trails.profile_sources(self._graph, owner, at)

    def turns_awaiting_summary(self, owner: str, limit: int) -> list[Turn]:
        """The owner's turns that no dialogue summary covers yet, oldest first."""
        with self._lock:
            awaiting = self._graph.awaiting_summary.get(owner, {})
            return self._graph.oldest_first(owner, "Turn", awaiting, limit)

    def importance_of(self, owner: str, ids: Sequence[str]) -> dict[str, float]:
        """The importance of each of these memories of the owner, by id (those stored)."""
        with self._lock:
            found = (self._graph.node(owner, "Memory", memory_id) for memory_id in ids)
            return {node.id: node.importance for node in found if isinstance(node, Memory)}

    def latest_event(self, owner: str, category: str) -> Event | None:
        """The owner's event of this category updated last (ties by id), if any."""
        with self._lock:
            events = [
                node
                for node in self._graph.nodes(owner, "Event")
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
            awaiting = self._graph.awaiting_consolidation.get(owner, {})
            return self._graph.oldest_first(owner, "Memory", awaiting, limit)

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

        What each changes is networkx_writes.settle's.
        """
        with self._lock:
            settled, changed = writes.settle(
                self._graph, owner, settlements, now, beliefs=beliefs, attention=attention
            )
            if settled:
                self._write(
                    {
                        "op": "settle_facts",
                        "owner": owner,
                        "nodes": [{"label": "Memory", "node": memory} for memory in changed],
                        "links": [link for settlement in settled for link in settlement.links],
                    }
                )

    def provenance(self, owner: str, turn: str) -> Provenance | None:
        """What was derived from one of the owner's turns (None if no such turn is stored)."""
        with self._lock:
            return trails.provenance(self._graph, owner, turn)

    def forget_turn(self, owner: str, forgetting: Forgetting) -> bool:
        """Write a Forgetting at once, unless the turn's provenance changed since; say if written.

        The turn's id leaves a tombstone (tombstone_of) in the same journal entry. Not written
        (False) when `provenance` now differs from `forgetting.provenance`: work it out again.
        A persisted store writes its snapshot afterwards, so the journal on disk keeps nothing
        of what went.
        """
        with self._lock:
            turn = forgetting.provenance.turn.id
            if trails.provenance(self._graph, owner, turn) != forgetting.provenance:
                return False
            self._write(
                {
                    "op": "forget_turn",
                    "owner": owner,
                    "turn": turn,
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
                {
                    owner
                    for (owner, label), ids in self._graph.ids.items()
                    if label == "Turn" and ids
                }
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
            return census.owner_graph(self._graph, owner)

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
        """The owner's memories in tiers `shallowest` to `deepest` most similar to an embedding."""
        with self._lock:
            return searches.similar_memories(
                self._graph,
                owner,
                embedding,
                limit,
                deepest=deepest,
                shallowest=shallowest,
                at_least=at_least,
                where=where,
            )

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
            ids = self._graph.sessions.get((owner, session), [])
            ids = ids[len(ids) - min(last, len(ids)) :] if last is not None else ids
            return [self._graph.at((owner, "Turn", turn_id)) for turn_id in ids]

    def pending_turns(self, owner: str, limit: int) -> list[Turn]:
        """The owner's turns whose memories are not derived yet, oldest first."""
        with self._lock:
            return self._graph.oldest_first(
                owner, "Turn", self._graph.pending.get(owner, {}), limit
            )

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
        """The owner's memories down to `deepest` best matching these weighted content terms."""
        with self._lock:
            return searches.memories_mentioning(
                self._graph, owner, terms, embedding, limit, deepest=deepest, where=where
            )

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
        """Memories next to the given ones, where association spreads relevance, and the edges."""
        with self._lock:
            return searches.neighbourhood(
                self._graph,
                owner,
                ids,
                embedding,
                window=window,
                links=links,
                deepest=deepest,
                known=known,
                evoked=evoked,
                where=where,
            )

    def link_memories(self, owner: str, links: Sequence[Link]) -> None:
        """Add edges between the owner's memories (one per type and pair; a repeat updates it)."""
        with self._lock:
            for link in links:
                for end in (link.source, link.target):
                    if self._graph.node(owner, "Memory", end) is None:
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
            changed, woke = writes.wake(
                self._graph, owner, used, now, attention=attention, tiers=tiers
            )
            self._put(changed)
            return woke

    def retier(
        self, owner: str, now: datetime, attention: AttentionPolicy, tiers: TierPolicy
    ) -> int:
        """Sink memories whose attention faded or that overflow a tier; return the moves made."""
        with self._lock:
            sunk, moves = writes.retier(self._graph, owner, now, attention=attention, tiers=tiers)
            self._put(sunk)
            return moves

    def timeline(
        self, owner: str, wanted: TimelineWanted, limit: int
    ) -> list[tuple[Memory, list[Turn]]]:
        """Up to `limit` of the owner's memories `wanted` admits, newest first, with turns."""
        with self._lock:
            return browsing.timeline(self._graph, owner, wanted, limit)

    def events(self, owner: str) -> list[tuple[Event, int]]:
        """Every event of the owner (embedding empty), latest first, with its memories counted."""
        with self._lock:
            return browsing.events(self._graph, owner)

    def impressions(self, owner: str) -> list[tuple[Impression, int, int]]:
        """Every impression of the owner (embedding empty), with its cues and conjectures."""
        with self._lock:
            return browsing.impressions(self._graph, owner)

    def neighbourhood(self, owner: str, label: str, node_id: str) -> OwnerGraph:
        """The node, every node one edge away from it and those edges (empty if none)."""
        with self._lock:
            return browsing.neighbourhood(self._graph, owner, label, node_id)

    def count_graph(self, owner: str) -> GraphCounts:
        """Count the owner's nodes per label, edges per type, memories per tier and belief.

        With them its tombstones.
        """
        with self._lock:
            return census.graph_counts(self._graph, owner)

    def count_health(self, owner: str) -> HealthCounts:
        """Count the owner's memories per kind, work queues, open contradictions and the like."""
        with self._lock:
            return census.health_counts(self._graph, owner)

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
        appliers.apply(self._graph, change)
        self._transactions += 1
        self._unsnapshotted += 1
        due = max(self._snapshot_every, self._snapshotted_nodes // SNAPSHOT_SHARE)
        if self._journal is not None and self._unsnapshotted >= due:
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

    # -- the files -----------------------------------------------------------------------------

    def _load(self) -> None:
        """Read the snapshot, replay the journal and, if it held anything, snapshot afresh."""
        assert self._journal is not None
        stored = self._journal.open()
        for node in stored.nodes:
            if isinstance(node, Tombstone):
                self._graph.add_tombstone(node)
            else:
                self._graph.add_node(node)
        for owner, source_label, target_label, link in stored.links:
            self._graph.add_link(owner, source_label, target_label, link)
        for change in stored.changes:
            appliers.apply(self._graph, change)
        if stored.journalled:
            self._snapshot()

    def _snapshot(self) -> None:
        """Write the whole graph to the snapshot file, which empties the journal."""
        assert self._journal is not None
        self._journal.snapshot(nodes=self._graph.every_node(), links=self._graph.every_link())
        self._unsnapshotted = 0
        self._snapshotted_nodes = self._graph.size()
