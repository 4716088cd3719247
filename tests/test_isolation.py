"""Tenants never see each other: random operations on three owners, checked after every step.

Hypothesis draws scripts of observe, recall, consolidate, learn, export, forget and load
operations on three owners who talk about the same things (milk, colds, Disneyland, kind
acts), so that a query or a search that forgot its owner would find another owner's memories.
After every step each owner's graph is checked: every node it returns carries its owner, every
edge stays among its nodes, its turns are exactly the message ids the test observed for it, and
the owners the step did not touch are unchanged. On Neo4j raw Cypher also counts every node
with the owner's property (any label) and every edge touching them, edges reaching another
owner included. (The MCP server's replies are left to tests/test_mcp.py.)
"""

import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import LiteralString, TypeVar

# Raw Cypher counts every node that carries an owner, whatever its label, and every edge
# touching them: the store's verbs (one owner, known labels) cannot see what they missed.
import neo4j  # noqa: TID251
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.cognition.lexicon import CAUSAL_KNOWLEDGE
from graphmem.contract import GraphCounts, OwnerGraph
from graphmem.embedding import CachedEmbedder
from graphmem.errors import ConflictError
from graphmem.memory import GraphMem
from graphmem.model import Event, Impression, LinkType, Memory, MemoryKind, Node, Turn
from graphmem.store.base import Store
from graphmem.store.networkx import NetworkXStore

from .conftest import DIMENSIONS, Neo4jServer

pytestmark = pytest.mark.long

T = TypeVar("T")
N = TypeVar("N", bound=Node)

START = datetime(2026, 3, 2, 8, tzinfo=UTC)
OWNER_NAMES = ("ann", "bob", "cy")
SESSIONS = ("", "morning", "evening")
EXAMPLES = 20
MIN_STEPS, MAX_STEPS = 15, 25
"""Operations per run: hypothesis may shrink a failing script down to the minimum."""

SENTENCES = (
    "I'm allergic to milk, even a drop makes me ill.",
    "There's half a glass of milk on the table.",
    "We bought oat milk for the kids instead.",
    "My throat hurts and I have a runny nose.",
    "I think I caught a cold, I have a fever tonight.",
    "The kids have a cold too, sneezing all day.",
    "We booked a trip to Disneyland for the summer.",
    "At Disneyland the castle was huge and the parade was loud.",
    "I helped my neighbour carry her groceries upstairs.",
    "I volunteered at the food bank after work.",
    "I donated blood at the hospital this morning.",
    "I can't sleep, I'm worried about my exams.",
    "My boss moved the project deadline to Friday.",
    "我嗓子疼，可能感冒了。",
    "我们周末去迪士尼乐园玩。",
    "我帮助邻居搬了家。",
)
WORDS = tuple(
    "milk cold fever throat Disneyland parade kids neighbour helped donated volunteered"
    " exams boss allergic table trip 牛奶 感冒 迪士尼".split()
)
QUERIES = (
    "Can I drink this milk?",
    "Am I sick?",
    "What did we do at Disneyland?",
    "Who did I help?",
    "How are the kids?",
    "When is the deadline?",
    "我感冒了吗？",
)
LESSONS = (
    ("Disneyland", "The user loves theme parks", 0.9),
    ("milk", "The user avoids dairy", 0.8),
    ("exams", "The user is a student", 0.9),
)
"""Causal knowledge an owner may learn; its effects must never show up in another owner."""
BUILT_IN_EFFECTS = frozenset(effect for _cause, effect, _sufficiency in CAUSAL_KNOWLEDGE)
RELATIONS = (LinkType.SUPPORTS, LinkType.CONTRADICTS, LinkType.UPDATES, LinkType.MERGED_INTO)
"""The edges the sleep job makes between a fact and older ones, each counted in its report."""
SLEEP_COUNTS = frozenset(
    {"derived", "summaries", "profile facts", "events started", "events continued", "facts"}
    | {"retiered", *RELATIONS}
)
"""What a sleep job with the offline cognition may count (it leaves nothing for later)."""

# Labelless on purpose: a node of any label that carries the owner counts.
RAW_COUNTS: LiteralString = """
UNWIND $owners AS owner
OPTIONAL MATCH (n {owner: owner})
OPTIONAL MATCH (n)-[r]-(other)
RETURN owner,
       count(DISTINCT CASE WHEN NOT n:Owner THEN n END) AS nodes,
       count(DISTINCT CASE WHEN n:Owner THEN n END) AS locks,
       count(DISTINCT r) AS edges,
       count(DISTINCT CASE WHEN other.owner IS NULL OR other.owner <> owner THEN r END)
         AS crossing
"""


def weighted(*choices: tuple[int, st.SearchStrategy[T]]) -> st.SearchStrategy[T]:
    """Draw from one of the strategies, each as often as its weight."""
    return st.sampled_from([item for weight, item in choices for _copy in range(weight)]).flatmap(
        lambda chosen: chosen
    )


texts = weighted(
    # Mostly the shared sentences (embedded once per session), some made up.
    (4, st.sampled_from(SENTENCES)),
    (1, st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)),
    (
        1,
        st.text(
            st.characters(codec="utf-8", categories=["L", "N", "P", "Zs"]), min_size=1, max_size=20
        ).filter(str.strip),
    ),
)
queries = weighted((2, st.sampled_from(QUERIES)), (1, texts))


@dataclass(frozen=True)
class Observe:
    owner: int
    text: str
    session: str
    later: int


@dataclass(frozen=True)
class ObserveAgain:
    owner: int
    pick: int
    same: bool
    later: int


@dataclass(frozen=True)
class Recall:
    owner: int
    query: str
    k: int
    motivation: float | None
    peek: bool
    later: int


@dataclass(frozen=True)
class Consolidate:
    owner: int
    later: int


@dataclass(frozen=True)
class Learn:
    owner: int
    lesson: tuple[str, str, float]
    later: int


@dataclass(frozen=True)
class Export:
    owner: int


@dataclass(frozen=True)
class Forget:
    owner: int
    later: int


@dataclass(frozen=True)
class Load:
    """Forget an owner that has a kept export, then load that export back (skipped if none)."""

    pick: int
    later: int


Operation = Observe | ObserveAgain | Recall | Consolidate | Learn | Export | Forget | Load

owners = st.integers(0, len(OWNER_NAMES) - 1)
hours = st.integers(1, 30)
"""How far the clock moves before an operation: sessions part, attention fades."""
operations: st.SearchStrategy[Operation] = weighted(
    # Mostly new messages and recalls.
    (6, st.builds(Observe, owners, texts, st.sampled_from(SESSIONS), hours)),
    (1, st.builds(ObserveAgain, owners, st.integers(0, 50), st.booleans(), hours)),
    (
        3,
        st.builds(
            Recall,
            owners,
            queries,
            st.integers(1, 10),
            st.none() | st.floats(0, 10),
            st.booleans(),
            hours,
        ),
    ),
    (2, st.builds(Consolidate, owners, hours)),
    (1, st.builds(Learn, owners, st.sampled_from(LESSONS), hours)),
    (1, st.builds(Export, owners)),
    (2, st.builds(Forget, owners, hours)),
    (2, st.builds(Load, st.integers(0, 5), hours)),
)


@dataclass(frozen=True)
class RawCounts:
    """What raw Cypher finds of one owner: nodes (but its Owner node, the write lock), Owner
    nodes, edges touching them, edges to other owners."""

    nodes: int
    locks: int
    edges: int
    crossing: int


@dataclass
class Tally:
    """Operations tried and owner checks made over a whole test; leaks are checks that failed."""

    examples: int = 0
    operations: Counter[str] = field(default_factory=Counter)
    checked: int = 0
    recalled: int = 0
    leaks: int = 0


@dataclass(frozen=True)
class Model:
    """What the test itself knows one owner has: message id -> (text, session), lessons."""

    turns: dict[str, tuple[str, str]] = field(default_factory=dict)
    lessons: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Archive:
    """An export kept for `load`, with its counts and the model at the time."""

    graph: OwnerGraph
    counts: GraphCounts
    model: Model


class Backend:
    """Where each example's store comes from: a new networkx file, or the one Neo4j."""

    def __init__(self, folder: Path, server: Neo4jServer | None) -> None:
        self.folder = folder
        self.shared = None if server is None else server.store()
        self.driver = (
            None
            if server is None
            else neo4j.GraphDatabase.driver(
                server.uri, auth=(server.user, server.password.get_secret_value())
            )
        )
        self.opened = 0
        self.readers = ThreadPoolExecutor(len(OWNER_NAMES))
        """Reads each owner's graph in a thread of its own."""

    def store(self) -> Store:
        """A store for one example (Neo4j's is shared: examples use fresh owners)."""
        if self.shared is not None:
            return self.shared
        self.opened += 1
        store = NetworkXStore.open(self.folder / f"graph-{self.opened}.json")
        store.prepare(DIMENSIONS)
        return store

    def release(self, store: Store, owners: list[str]) -> None:
        """Close an example's networkx store; forget the example's owners on Neo4j."""
        if store is self.shared:
            for owner in owners:
                store.forget(owner)
        else:
            store.close()

    def raw_counts(self, owners: list[str]) -> dict[str, RawCounts] | None:
        """Raw Cypher counts per owner on Neo4j; None on networkx."""
        if self.driver is None:
            return None
        records, _summary, _keys = self.driver.execute_query(
            RAW_COUNTS, {"owners": owners}, routing_=neo4j.RoutingControl.READ
        )
        return {
            record["owner"]: RawCounts(
                record["nodes"], record["locks"], record["edges"], record["crossing"]
            )
            for record in records
        }

    def close(self) -> None:
        """Close Neo4j's store and driver, and the readers."""
        self.readers.shutdown()
        if self.shared is not None:
            self.shared.close()
        if self.driver is not None:
            self.driver.close()


class Tenants:
    """One example's world: a store, three fresh owners, and what the test knows of each."""

    def __init__(self, backend: Backend, embedder: CachedEmbedder, tally: Tally) -> None:
        self.backend = backend
        self.tally = tally
        self.store = backend.store()
        # Never closed: that would close the session's embedder; `release` frees the store.
        self.memory = GraphMem(self.store, embedder)
        run = uuid.uuid4().hex[:10]
        self.owners = [f"iso-{run}-{name}" for name in OWNER_NAMES]
        self.now = START
        self.models = {owner: Model() for owner in self.owners}
        self.numbers: Counter[str] = Counter()
        self.exports = {owner: OwnerGraph(nodes=[], links=[]) for owner in self.owners}
        self.archives: dict[str, Archive] = {}
        self.leaks: list[str] = []

    def release(self) -> None:
        """Free the store (on Neo4j: forget this example's owners)."""
        self.backend.release(self.store, self.owners)

    def apply(self, operation: Operation) -> None:
        """Run one operation and check every owner after it (an inapplicable one is skipped)."""
        match operation:
            case Observe():
                self.observe(operation)
            case ObserveAgain():
                self.observe_again(operation)
            case Recall():
                self.recall(operation)
            case Consolidate():
                self.consolidate(operation)
            case Learn():
                self.learn(operation)
            case Export():
                self.export(operation)
            case Forget():
                self.forget(operation)
            case Load():
                self.load(operation)

    # -- operations ----------------------------------------------------------------------------

    def observe(self, operation: Observe) -> None:
        """A new message: its turn and memory are the owner's, its id is in the model."""
        owner = self.step(operation.owner, "observe", operation.later)
        self.numbers[owner] += 1
        message_id = f"m{self.numbers[owner]}"  # the same ids recur across owners on purpose
        text, session = operation.text, operation.session
        observed = self.memory.observe(
            owner, text, message_id=message_id, at=self.now, session=session
        )
        model = self.models[owner]
        self.models[owner] = Model({**model.turns, message_id: (text, session)}, model.lessons)
        assert (observed.turn.id, observed.turn.text, observed.pending) == (message_id, text, False)
        assert [memory.text for memory in observed.memories] == [text]
        mine = keys(self.settle(owner))
        for node in [observed.turn, *observed.memories, *observed.conjectures]:
            self.owns(owner, "observed", node, mine)
        self.report()

    def observe_again(self, operation: ObserveAgain) -> None:
        """A known message id again: the same text stores nothing, another text conflicts."""
        owner = self.owners[operation.owner]
        known = sorted(self.models[owner].turns)
        if not known:
            return
        self.step(operation.owner, "observe again", operation.later)
        message_id = known[operation.pick % len(known)]
        text, session = self.models[owner].turns[message_id]
        if operation.same:
            observed = self.memory.observe(
                owner, text, message_id=message_id, at=self.now, session=session
            )
            assert (observed.turn.owner, observed.turn.text) == (owner, text)
            assert observed.memories == []
        else:
            with pytest.raises(ConflictError, match=f"{message_id!r}"):
                self.memory.observe(
                    owner, text + " (edited)", message_id=message_id, at=self.now, session=session
                )
        before = self.exports[owner]
        assert self.settle(owner) == before

    def recall(self, operation: Recall) -> None:
        """Every memory, turn, link and woken node a recall returns is the owner's own."""
        owner = self.step(operation.owner, "recall", operation.later)
        found = self.memory.recall(
            owner,
            operation.query,
            k=operation.k,
            motivation=operation.motivation,
            peek=operation.peek,
            at=self.now,
        )
        mine = keys(self.settle(owner))
        assert found.owner == owner
        assert len(found.memories) <= operation.k
        assert not (operation.peek and found.woken)
        recalled = {item.memory.id for item in found.memories}
        self.tally.recalled += len(found.memories)
        for item in found.memories:
            for node in [item.memory, *item.turns]:
                self.owns(owner, "recalled", node, mine)
        for link in found.links:
            for end in (link.source, link.target):
                self.within(owner, "recalled link end", ("Memory", end), mine)
                assert end in recalled
        for woken in found.woken:
            self.within(owner, "woken", (woken.label, woken.id), mine)
        self.report()

    def consolidate(self, operation: Consolidate) -> None:
        """The sleep job of one owner counts what it did to that owner's graph, and no more."""
        owner = self.step(operation.owner, "consolidate", operation.later)
        before = self.exports[owner]
        report = self.memory.consolidate(owner, at=self.now)
        assert report.owner == owner
        assert self.memory.retier(owner, at=self.now) == 0  # the job left none to move
        after = self.settle(owner)
        counts = Counter(report.counts)
        assert set(counts) <= SLEEP_COUNTS, counts
        assert counts["derived"] == 0  # the offline cognition leaves no turn pending
        assert counts["summaries"] == len(memories(after, MemoryKind.SUMMARY)) - len(
            memories(before, MemoryKind.SUMMARY)
        )
        assert counts["profile facts"] == len(memories(after, MemoryKind.FACT)) - len(
            memories(before, MemoryKind.FACT)
        )
        assert counts["events started"] == len(nodes(after, Event)) - len(nodes(before, Event))
        assert counts["facts"] == len(awaiting_consolidation(before))
        assert awaiting_consolidation(after) == []
        assert not any(turn.awaiting_summary for turn in nodes(after, Turn))
        made = relations(after) - relations(before)
        assert {relation: counts[relation] for relation in RELATIONS} == {
            relation: made[relation] for relation in RELATIONS
        }

    def learn(self, operation: Learn) -> None:
        """Causal knowledge of one owner: its impressions may follow, no other owner's."""
        owner = self.step(operation.owner, "learn", operation.later)
        cause, effect, sufficiency = operation.lesson
        self.memory.learn(owner, cause, effect, sufficiency, at=self.now)
        model = self.models[owner]
        self.models[owner] = Model(model.turns, model.lessons | {effect})
        self.settle(owner)

    def export(self, operation: Export) -> None:
        """Export an owner (checked like every step) and keep it for a later `load`."""
        owner = self.step(operation.owner, "export", 0)
        graph = self.memory.export(owner)
        assert graph == self.settle(owner)
        self.archives[owner] = Archive(graph, self.memory.statistics(owner), self.models[owner])

    def forget(self, operation: Forget) -> None:
        """Forget an owner, keeping its last export for `load`."""
        owner = self.step(operation.owner, "forget", operation.later)
        if self.exports[owner].nodes:
            self.archives[owner] = Archive(
                self.exports[owner], self.memory.statistics(owner), self.models[owner]
            )
        self.wipe(owner)

    def wipe(self, owner: str) -> None:
        """Nothing of the owner is left, counted by the store and by raw Cypher."""
        assert self.memory.forget(owner).total == 0
        self.models[owner] = Model()
        assert self.settle(owner) == OwnerGraph(nodes=[], links=[])
        assert self.memory.statistics(owner).total == 0
        assert owner not in self.memory.owners()
        raw = self.backend.raw_counts([owner])
        if raw is not None:
            assert raw[owner] == RawCounts(nodes=0, locks=0, edges=0, crossing=0)

    def load(self, operation: Load) -> None:
        """An earlier export loaded back into its owner, forgotten: the same graph comes back."""
        kept = sorted(self.archives)
        if not kept:
            return
        owner = kept[operation.pick % len(kept)]
        self.step(self.owners.index(owner), "load", operation.later)
        if self.exports[owner].nodes:
            self.wipe(owner)
        archive = self.archives[owner]
        loaded = self.memory.load(owner, OwnerGraph.from_records(archive.graph.records()))
        self.models[owner] = archive.model
        assert loaded == archive.counts
        assert self.settle(owner) == archive.graph

    # -- checks --------------------------------------------------------------------------------

    def step(self, number: int, operation: str, later: int) -> str:
        """Count an operation, move the clock on; return the owner it is about."""
        self.tally.operations[operation] += 1
        self.now += timedelta(hours=later)
        return self.owners[number]

    def settle(self, touched: str) -> OwnerGraph:
        """Check every owner's graph after a step on `touched`; return that owner's export.

        Owners other than `touched` must be exactly as before the step.
        """
        raw = self.backend.raw_counts(self.owners)
        owners = set(self.memory.owners())
        # Reads only, so the owners' exports and counts are read at the same time.
        reads = self.backend.readers.map(
            lambda owner: (self.memory.export(owner), self.memory.statistics(owner)), self.owners
        )
        for owner, (graph, counts) in zip(self.owners, reads, strict=True):
            if owner != touched:
                assert graph == self.exports[owner], f"{owner} changed by a step on {touched}"
            self.exports[owner] = graph
            self.check_graph(owner, graph)
            model = self.models[owner]
            assert counts.nodes.get("Session", 0) == len({s for _t, s in model.turns.values()})
            assert {label: n for label, n in counts.nodes.items() if n and label != "Session"} == (
                Counter(type(node).__name__ for node in graph.nodes)
            )
            assert sum(counts.links.values()) == len(graph.links)
            assert (owner in owners) == bool(model.turns)
            if raw is not None:
                assert raw[owner] == RawCounts(
                    nodes=sum(counts.nodes.values()),
                    locks=min(raw[owner].locks, 1),  # one once the owner has written
                    edges=len(graph.links),
                    crossing=0,
                ), f"raw Cypher counts of {owner}"
        self.report()
        return self.exports[touched]

    def check_graph(self, owner: str, graph: OwnerGraph) -> None:
        """One owner's export: its own nodes and edges only; exactly the turns it observed."""
        mine = keys(graph)
        for node in graph.nodes:
            self.owns(owner, "exported", node, mine)
        for source_label, target_label, link in graph.links:
            self.within(owner, "exported edge source", (source_label, link.source), mine)
            self.within(owner, "exported edge target", (target_label, link.target), mine)
        model = self.models[owner]
        turns = [node for node in graph.nodes if isinstance(node, Turn)]
        assert {turn.id: (turn.text, turn.session) for turn in turns} == model.turns
        for session in {turn.session for turn in turns}:
            positions = sorted(turn.position or 0 for turn in turns if turn.session == session)
            assert positions == list(range(len(positions))), f"positions of session {session!r}"
        place = {turn.id: (turn.session, turn.position) for turn in turns}
        for source_label, target_label, link in graph.links:
            if link.type is LinkType.NEXT and source_label == target_label == "Turn":
                (session, position), after = place[link.source], place[link.target]
                assert after == (session, (position or 0) + 1), f"NEXT {link}"
        allowed = BUILT_IN_EFFECTS | model.lessons
        for node in graph.nodes:
            if isinstance(node, Impression):
                self.tally.checked += 1
                if node.text not in allowed:
                    self.leak(f"{owner} has an impression it never learned: {node}")

    def owns(self, owner: str, what: str, node: Node, mine: dict[tuple[str, str], Node]) -> None:
        """Check that a node returned to the owner is its own: its owner, id and text."""
        self.tally.checked += 1
        key = (type(node).__name__, node.id)
        stored = mine.get(key)
        if node.owner != owner or stored is None or stored.text != node.text:
            self.leak(f"{what} {key[0]} {node.id} of {node.owner} ({node.text!r}) reached {owner}")

    def within(
        self, owner: str, what: str, key: tuple[str, str], mine: dict[tuple[str, str], Node]
    ) -> None:
        """Check that a node named in a reply to the owner (by label and id) is its own."""
        self.tally.checked += 1
        if key not in mine:
            self.leak(f"{what} {key[0]} {key[1]} is not a node of {owner}")

    def leak(self, found: str) -> None:
        """Note a leak: something of one owner reached another."""
        self.tally.leaks += 1
        self.leaks.append(found)

    def report(self) -> None:
        """Fail on the leaks found so far, naming them."""
        assert not self.leaks, "\n".join(self.leaks)


def keys(graph: OwnerGraph) -> dict[tuple[str, str], Node]:
    """An export's nodes by (label, id)."""
    return {(type(node).__name__, node.id): node for node in graph.nodes}


def nodes(graph: OwnerGraph, label: type[N]) -> list[N]:
    """An export's nodes of one label."""
    return [node for node in graph.nodes if isinstance(node, label)]


def memories(graph: OwnerGraph, kind: MemoryKind) -> list[Memory]:
    """An export's memories of one kind."""
    return [memory for memory in nodes(graph, Memory) if memory.kind is kind]


def awaiting_consolidation(graph: OwnerGraph) -> list[Memory]:
    """An export's facts that the sleep job has not weighed yet."""
    return [memory for memory in nodes(graph, Memory) if memory.awaiting_consolidation]


def relations(graph: OwnerGraph) -> Counter[str]:
    """An export's edges that the sleep job makes between facts, by type."""
    return Counter(link.type.value for _s, _t, link in graph.links if link.type in RELATIONS)


@pytest.mark.parametrize("kind", ["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_owners_never_see_each_other(
    kind: str,
    request: pytest.FixtureRequest,
    embedder: CachedEmbedder,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = request.getfixturevalue("neo4j_server") if kind == "neo4j" else None
    tally = Tally()
    backend = Backend(tmp_path, server)

    @settings(  # the same scripts on every run and both stores; no example database kept
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(st.lists(operations, min_size=MIN_STEPS, max_size=MAX_STEPS))
    def run(script: list[Operation]) -> None:
        tally.examples += 1
        world = Tenants(backend, embedder, tally)
        try:
            for operation in script:
                world.apply(operation)
        finally:
            world.release()

    try:
        run()
    finally:
        backend.close()
    tried = ", ".join(f"{name} {n}" for name, n in sorted(tally.operations.items()))
    with capsys.disabled():
        print(
            f"\ntenant isolation on {kind}: {tally.examples} runs of 3 owners,"
            f" {tally.operations.total()} operations ({tried}),"
            f" {tally.checked} owner checks ({tally.recalled} recalled memories),"
            f" {tally.leaks} leaks"
        )
    assert tally.leaks == 0
    assert tally.recalled > 0, "no recall returned anything: the recall checks were vacuous"
    assert {"forget", "load", "consolidate"} <= set(tally.operations)
