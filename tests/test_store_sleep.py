"""The store contract of the sleep job's verbs, on both stores, and one graph compared across."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem import sleep
from graphmem.contract import OwnerGraph
from graphmem.embedding import CachedEmbedder
from graphmem.mechanisms.attention import AttentionPolicy, initial_attention
from graphmem.mechanisms.beliefs import AttentionChange, BeliefMove, BeliefPolicy, Settlement
from graphmem.mechanisms.impressions import ImpressionPolicy
from graphmem.memory import GraphMem
from graphmem.model import Event, Impression, Link, LinkType, Memory, MemoryKind, Tier, Turn
from graphmem.store.base import Store
from graphmem.store.changes import Derivation, EventChange, Impressed, SummaryChange
from graphmem.store.networkx import NetworkXStore

from .conftest import Neo4jServer
from .test_sleep_crash import CONVERSATION, JOB_AT, canonical, observe_all
from .test_store_contract import new_event

START = datetime(2026, 6, 1, 9, tzinfo=UTC)


def turn_and_memory(
    store: Store, owner: str, embedder: CachedEmbedder, number: int, text: str, **changes: object
) -> tuple[Turn, Memory]:
    [turn] = store.save_turns(
        owner,
        [
            Turn(
                id=f"t{number}",
                owner=owner,
                text=text,
                created_at=START + timedelta(hours=number),
                pending=True,
                awaiting_summary=True,
            )
        ],
    )
    [embedding] = embedder.embed([text], "passage")
    values: dict[str, object] = {
        "id": f"m{number}",
        "owner": owner,
        "text": text,
        "created_at": turn.created_at,
        "kind": MemoryKind.OBSERVATION,
        "importance": 6.0,
        "attention": initial_attention(6.0, turn.created_at),
        "tier": Tier.HOT,
        "belief": 0.8,
        "embedding": embedding,
        "accessed_at": turn.created_at,
        "awaiting_consolidation": True,
    }
    values.update(changes)
    return turn, Memory.model_validate(values)


def save(store: Store, owner: str, turn: Turn, memories: list[Memory]) -> None:
    """Store the owner's memories FROM one stored turn."""
    store.save_memories(owner, [Derivation(source=turn, memories=memories)])


def test_marks_list_the_work_awaiting_oldest_first(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    saved = []
    for number in (2, 0, 1):
        turn, memory = turn_and_memory(store, owner, embedder, number, f"Fact number {number}.")
        save(store, owner, turn, [memory])
        saved.append((turn, memory))
    assert [turn.id for turn in store.turns_awaiting_summary(owner, 10)] == ["t0", "t1", "t2"]
    assert [turn.id for turn in store.turns_awaiting_summary(owner, 2)] == ["t0", "t1"]
    awaiting = store.memories_awaiting_consolidation(owner, 10)
    assert [memory.id for memory in awaiting] == ["m0", "m1", "m2"]
    assert awaiting[0].embedding is not None
    assert store.turns_awaiting_summary(owner + "-b", 10) == []
    assert owner in store.owners()


def test_settling_moves_beliefs_in_order_and_clears_the_mark(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    old_turn, old = turn_and_memory(store, owner, embedder, 0, "I'm in a good mood.")
    new_turn, new = turn_and_memory(store, owner, embedder, 1, "I'm worried.", belief=None)
    save(store, owner, old_turn, [old])
    save(store, owner, new_turn, [new])
    now = START + timedelta(days=2)
    settlement = Settlement(
        fact="m1",
        moves=[
            BeliefMove(id="m1", estimate=1.0, attention=AttentionChange.KEEP),
            BeliefMove(id="m1", estimate=1.0, attention=AttentionChange.RAISE),
            BeliefMove(id="m0", estimate=0.1, attention=AttentionChange.LOWER),
            BeliefMove(id="missing", estimate=0.5, attention=AttentionChange.LOWER),
        ],
        links=[
            Link(type=LinkType.CONTRADICTS, source="m1", target="m0"),
            Link(type=LinkType.SUPPORTS, source="m1", target="missing"),
        ],
    )
    attention = AttentionPolicy()
    store.settle_facts(owner, [settlement], now, beliefs=BeliefPolicy(), attention=attention)
    graph = store.export(owner)
    memories = {node.id: node for node in graph.nodes if isinstance(node, Memory)}
    # b = 0.8 (first hand) -> 0.8 + 0.3 * 0.2 = 0.86 -> 0.86 + 0.3 * 0.14 = 0.902
    assert memories["m1"].belief == pytest.approx(0.902)
    assert memories["m0"].belief == pytest.approx(0.8 + 0.3 * (0.1 - 0.8))
    raised = memories["m1"].attention
    assert raised.long_term == pytest.approx(6.0 * 0.5 ** (47 / 720) + 1.0)
    assert (raised.short_term, raised.short_term_at, memories["m1"].accessed_at) == (5.0, now, now)
    lowered = memories["m0"].attention
    assert lowered.long_term == pytest.approx(6.0 * 0.5 ** (48 / 720) * 0.5)
    assert lowered.long_term_at == now
    assert memories["m0"].awaiting_consolidation  # only the settled fact's mark is cleared
    assert not memories["m1"].awaiting_consolidation
    assert [
        (link.type, link.source, link.target)
        for _s, _t, link in graph.links
        if link.type in {LinkType.CONTRADICTS, LinkType.SUPPORTS}
    ] == [(LinkType.CONTRADICTS, "m1", "m0")]


def test_facts_settled_at_once_are_applied_in_order(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    texts = ["I live in Paris.", "I moved to Lyon.", "I moved to Nice."]
    for number, text in enumerate(texts):
        turn, memory = turn_and_memory(store, owner, embedder, number, text, belief=None)
        save(store, owner, turn, [memory])
    settlements = [
        Settlement(
            fact=fact,
            moves=[BeliefMove(id="m0", estimate=0.1, attention=AttentionChange.KEEP)],
            links=[Link(type=LinkType.UPDATES, source=fact, target="m0")],
        )
        for fact in ("m1", "m2")
    ]
    now = START + timedelta(days=3)
    store.settle_facts(owner, settlements, now, beliefs=BeliefPolicy(), attention=AttentionPolicy())
    memories = {node.id: node for node in store.export(owner).nodes if isinstance(node, Memory)}
    once = 0.8 + 0.3 * (0.1 - 0.8)  # the second move starts where the first left the belief
    assert memories["m0"].belief == pytest.approx(once + 0.3 * (0.1 - once))
    assert memories["m0"].valid_until == memories["m1"].created_at  # the earlier update's
    assert [memories[fact].awaiting_consolidation for fact in ("m0", "m1", "m2")] == [
        True,
        False,
        False,
    ]


def test_a_fact_settled_again_or_gone_moves_nothing(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    # Two jobs that both read the fact as awaiting (one killed as its commit landed, run
    # again): the second settles nothing, so no belief moves twice.
    for number, text in enumerate(["I live in Paris.", "I moved to Lyon."]):
        turn, memory = turn_and_memory(store, owner, embedder, number, text, belief=None)
        save(store, owner, turn, [memory])
    settlement = Settlement(
        fact="m1",
        moves=[BeliefMove(id="m0", estimate=0.1, attention=AttentionChange.LOWER)],
        links=[Link(type=LinkType.UPDATES, source="m1", target="m0")],
    )
    gone = Settlement(
        fact="missing",
        moves=[BeliefMove(id="m0", estimate=0.1, attention=AttentionChange.LOWER)],
        links=[Link(type=LinkType.CONTRADICTS, source="m1", target="m0")],
    )
    now = START + timedelta(days=3)
    beliefs, attention = BeliefPolicy(), AttentionPolicy()
    store.settle_facts(owner, [settlement, settlement], now, beliefs=beliefs, attention=attention)
    once = store.export(owner)
    m0 = next(node for node in once.nodes if node.id == "m0")
    assert isinstance(m0, Memory)
    assert m0.belief == pytest.approx(0.8 + 0.3 * (0.1 - 0.8))
    later = now + timedelta(hours=1)
    store.settle_facts(owner, [settlement, gone], later, beliefs=beliefs, attention=attention)
    assert store.export(owner) == once


def test_impressions_accumulate_once_per_turn_and_tip_into_a_conjecture(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    [embedding] = embedder.embed(["The user has a cold"], "passage")

    def impressed(number: int, belief: float, at: datetime, whose: str = owner) -> Impressed:
        impression = Impression(
            id="cold",
            owner=whose,
            text="The user has a cold",
            created_at=at,
            belief=belief,
            belief_at=at,
            half_life_days=7.0,
            embedding=embedding,
        )
        conjecture = Memory(
            id=f"conjecture-{number}",
            owner=whose,
            text="The user has a cold",
            created_at=at,
            kind=MemoryKind.CONJECTURE,
            importance=8.0,
            attention=initial_attention(8.0, at),
            tier=Tier.HOT,
            belief=belief,
            embedding=embedding,
            accessed_at=at,
        )
        return Impressed(impression=impression, conjecture=conjecture)

    policy = ImpressionPolicy()
    both_turn, both = turn_and_memory(store, owner + "-b", embedder, 0, "I sneezed and coughed.")
    two = [impressed(number, 0.5, both.created_at, owner + "-b") for number in (7, 8)]
    [[made_of_both]] = store.save_memories(
        owner + "-b", [Derivation(source=both_turn, memories=[both], impressions=two)], policy
    )
    assert made_of_both.id == "conjecture-8"
    assert made_of_both.belief == pytest.approx(0.75)
    first_turn, first = turn_and_memory(store, owner, embedder, 0, "I sneezed.")
    [made] = store.save_memories(
        owner,
        [
            Derivation(
                source=first_turn,
                memories=[first],
                impressions=[impressed(0, 0.5, first.created_at)],
            )
        ],
        policy,
    )
    assert made == []
    second_turn, second = turn_and_memory(store, owner, embedder, 24, "My nose runs.")
    impression = impressed(1, 0.5, second.created_at)
    derived = Derivation(source=second_turn, memories=[second], impressions=[impression])
    [[conjecture]] = store.save_memories(owner, [derived], policy)
    expected = 1 - (1 - 0.5 * 0.5 ** (1 / 7)) * (1 - 0.5)
    assert conjecture.id == "conjecture-1"
    assert conjecture.belief == pytest.approx(expected)
    # The same turn again (no longer pending) changes no impression.
    assert store.save_memories(owner, [derived], policy) == [[]]
    graph = store.export(owner)
    [stored] = [node for node in graph.nodes if isinstance(node, Impression)]
    assert stored.belief == pytest.approx(expected)
    assert stored.conjectured_at == second.created_at
    inferred = {
        (link.source, link.target)
        for _s, _t, link in graph.links
        if link.type is LinkType.INFERRED_FROM
    }
    assert inferred == {("cold", "m0"), ("cold", "m24"), ("conjecture-1", "cold")}


def test_a_summary_stores_once_and_events_keep_their_attention(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    turn, memory = turn_and_memory(store, owner, embedder, 0, "We flew to Disneyland.")
    save(store, owner, turn, [memory])
    [embedding] = embedder.embed(["Disneyland"], "passage")
    summary = memory.model_copy(
        update={"id": "summary", "kind": MemoryKind.SUMMARY, "awaiting_consolidation": False}
    )
    event = new_event(
        owner,
        "trip",
        title="We flew to Disneyland",
        category="travel",
        embedding=embedding,
        at=START,
    )
    change = EventChange(event=event, previous=None, members=["summary", "m0"])
    made = SummaryChange(summary=summary, turns=["t0"], events=[change])
    store.save_summaries(owner, [made])
    store.save_summaries(owner, [made])
    assert store.turns_awaiting_summary(owner, 10) == []
    later = START + timedelta(days=2)
    continued = event.model_copy(
        update={
            "text": event.text + "\n2026-06-03: Day two.",
            "last_at": later,
            "attention": initial_attention(1.0, later),
        }
    )
    latest = later + timedelta(hours=1)
    second = event.model_copy(update={"id": "next-trip", "first_at": latest, "last_at": latest})
    last = latest + timedelta(days=40)
    third = event.model_copy(update={"id": "third-trip", "first_at": last, "last_at": last})
    store.save_summaries(  # in order: each summary sees the events stored by those before it
        owner,
        [
            SummaryChange(
                summary=summary.model_copy(update={"id": "summary-2"}),
                turns=[],
                events=[EventChange(event=continued, previous=None, members=[])],
            ),
            SummaryChange(
                summary=summary.model_copy(update={"id": "summary-3"}),
                turns=[],
                events=[EventChange(event=second, previous="trip", members=["summary-3"])],
            ),
            SummaryChange(
                summary=summary.model_copy(update={"id": "summary-4"}),
                turns=[],
                events=[EventChange(event=third, previous="next-trip", members=["summary-4"])],
            ),
        ],
    )
    graph = store.export(owner)
    events = {node.id: node for node in graph.nodes if isinstance(node, Event)}
    assert events["trip"].text.endswith("Day two.")
    assert events["trip"].last_at == later
    assert events["trip"].attention == event.attention  # kept: wake-ups are not undone
    assert store.latest_event(owner, "travel") == events["third-trip"]
    assert store.latest_event(owner, "illness") is None
    edges = {(link.type, link.source, link.target) for _s, _t, link in graph.links}
    assert {
        (LinkType.PART_OF, "summary", "trip"),
        (LinkType.PART_OF, "m0", "trip"),
        (LinkType.FROM, "summary", "t0"),
        (LinkType.NEXT, "trip", "next-trip"),
        (LinkType.PART_OF, "summary-3", "next-trip"),
        (LinkType.NEXT, "next-trip", "third-trip"),
        (LinkType.PART_OF, "summary-4", "third-trip"),
    } <= edges
    assert sum(1 for edge in edges if edge[0] is LinkType.PART_OF) == 4


def test_knowledge_gives_causal_rules(store: Store, owner: str, embedder: CachedEmbedder) -> None:
    memory = GraphMem(store, embedder)
    memory.learn(owner, "skipped lunch", "The user is hungry", 0.6, at=START)
    memory.learn(owner, "skipped lunch", "The user is hungry", 0.6, at=START)
    [rule] = store.causal_rules(owner)
    assert (rule.cause, rule.effect, rule.sufficiency) == (
        "skipped lunch",
        "The user is hungry",
        0.6,
    )
    observed = memory.observe(owner, "I skipped lunch today.", message_id="x", at=START)
    assert observed.conjectures == []  # 0.6 * 0.8 = 0.48, below the threshold
    assert store.causal_rules(owner + "-b") == []


FIRST_NIGHT = [
    "I'm allergic to peanuts.",
    "My sister lives in Lisbon.",
    "I play the cello on Sundays.",
    "Our cat is called Miso.",
    "I work as a nurse at night.",
    "I grow tomatoes on the balcony.",
    "My car is an old blue Volvo.",
    "I'm learning Japanese for a trip.",
    "I run five kilometres every morning.",
    "My favourite film is Spirited Away.",
    "I broke my wrist skiing last winter.",
    "We're saving for a house by the sea.",
]
SECOND_NIGHT = [  # each about a different fact of the first night
    "Peanut butter gives me hives.",
    "I'm visiting my sister in Portugal next month.",
    "Cello practice went well this Sunday.",
    "Miso the cat knocked over a vase.",
    "The night shifts at the hospital are tiring.",
    "The balcony tomatoes are finally red.",
]


def test_judging_facts_in_batches_settles_them_as_judging_one_at_a_time_does(
    store: Store, embedder: CachedEmbedder, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = GraphMem(store, embedder)
    graphs, calls = [], []
    for batch in (1, sleep.JUDGE_BATCH):
        monkeypatch.setattr(sleep, "JUDGE_BATCH", batch)
        observe_all(memory, f"{owner}-{batch}")
        report = memory.consolidate(f"{owner}-{batch}", at=JOB_AT)
        assert report.counts["facts"] == len(CONVERSATION)
        assert report.counts["SUPPORTS"] >= 2
        graphs.append(canonical(store.export(f"{owner}-{batch}")))
        calls.append(report.model_calls["judge_facts"])
    assert graphs[1] == graphs[0]
    assert calls[0] == len(CONVERSATION) - 1  # one a fact, but the first has nothing older
    assert calls[1] < calls[0]  # a fact joins a batch unless it is near one of the batch


def test_facts_about_different_things_are_judged_in_one_call(
    store: Store, embedder: CachedEmbedder, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = GraphMem(store, embedder, beliefs=BeliefPolicy(related=1))
    graphs, calls = [], []
    for batch in (1, sleep.JUDGE_BATCH):
        monkeypatch.setattr(sleep, "JUDGE_BATCH", batch)
        for night, texts in enumerate((FIRST_NIGHT, SECOND_NIGHT)):
            for number, text in enumerate(texts):
                at = START + timedelta(days=night, minutes=10 * number)
                memory.observe(f"{owner}-{batch}", text, message_id=f"{night}-{number}", at=at)
            report = memory.consolidate(
                f"{owner}-{batch}", at=START + timedelta(days=night, hours=20)
            )
        assert report.counts["SUPPORTS"] >= 3
        graphs.append(canonical(store.export(f"{owner}-{batch}")))
        calls.append(report.model_calls["judge_facts"])
    assert graphs[1] == graphs[0]
    assert calls == [len(SECOND_NIGHT), 1]


@pytest.mark.neo4j
def test_both_stores_end_the_sleep_job_with_the_same_graph(
    neo4j_server: Neo4jServer, embedder: CachedEmbedder, owner: str, tmp_path: Path
) -> None:
    graphs = []
    for store in (NetworkXStore.open(tmp_path / "graph.json"), neo4j_server.store()):
        memory = GraphMem(store, embedder)
        observe_all(memory, owner)
        memory.consolidate(owner, at=JOB_AT)
        graphs.append(rounded(canonical(store.export(owner))))
        store.close()
    assert graphs[0] == graphs[1]


def rounded(lines: tuple[list[str], list[str]]) -> tuple[list[str], list[str]]:
    """Canonical lines with every float rounded to 9 places (Cypher and Python may differ in
    the last bits)."""

    def tidy(value: object) -> object:
        if isinstance(value, float):
            return round(value, 9)
        if isinstance(value, list):
            return [tidy(item) for item in value]
        if isinstance(value, dict):
            return {key: tidy(item) for key, item in value.items()}
        return value

    nodes = []
    for line in lines[0]:
        head, _space, body = line.partition(" {")
        nodes.append(f"{head} {json.dumps(tidy(json.loads('{' + body)))}")
    return sorted(nodes), lines[1]


def test_an_exported_graph_loads_back_the_same_after_forgetting(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    memory = GraphMem(store, embedder)
    observe_all(memory, owner)
    memory.consolidate(owner, at=JOB_AT)
    memory.observe(owner + "-b", "A neighbour's note.", message_id="n1", at=JOB_AT)
    neighbour = store.export(owner + "-b")
    exported = store.export(owner)
    counts = store.count_graph(owner)
    assert {"Event", "Impression"} <= {type(node).__name__ for node in exported.nodes}
    assert sum(counts.tiers.values()) == counts.nodes["Memory"]
    assert sum(counts.beliefs.values()) == counts.nodes["Memory"]

    forgotten = memory.forget(owner)
    assert forgotten.total == 0
    assert store.export(owner) == OwnerGraph(nodes=[], links=[])
    assert store.export(owner + "-b") == neighbour
    assert owner not in store.owners()

    loaded = memory.load(owner, OwnerGraph.from_records(exported.records()))
    assert loaded == counts
    assert store.export(owner) == exported
    memory.load(owner, exported)
    assert store.count_graph(owner) == counts
    assert memory.consolidate(owner, at=JOB_AT).counts.get("facts", 0) == 0
