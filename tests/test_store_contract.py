"""The store contract: every test runs on both stores and must give the same results."""

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem.contract import OwnerGraph
from graphmem.embedding import CachedEmbedder
from graphmem.errors import InvalidInputError, StoreError
from graphmem.ids import impression_id
from graphmem.mechanisms.attention import initial_attention
from graphmem.mechanisms.impressions import conjecture_memory
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.model import Event, Impression, Link, LinkType, Memory, MemoryKind, Tier, Turn
from graphmem.store.base import Store
from graphmem.store.changes import Derivation, EventChange, Impressed, SummaryChange
from graphmem.store.findings import SimilarMemory
from graphmem.store.networkx import NetworkXStore
from graphmem.store.rules import MAX_SEARCH_TERMS, term_rarity
from graphmem.terms import terms

from .conftest import DIMENSIONS, Neo4jServer

START = datetime(2026, 5, 1, 9, tzinfo=UTC)
TEXTS = [
    "I'm allergic to milk.",
    "My throat is sore and I feel tired.",
    "We are planning a trip to Disneyland.",
    "我最近在学做川菜。",
    "The quarterly report is due on Friday.",
]


def make_turn(owner: str, number: int, text: str) -> Turn:
    return Turn(
        id=f"msg-{number}",
        owner=owner,
        text=text,
        created_at=START + timedelta(hours=number),
        session="s1",
    )


def make_memory(turn: Turn, embedder: CachedEmbedder, **changes: object) -> Memory:
    [embedding] = embedder.embed([turn.text], "passage")
    values: dict[str, object] = {
        "id": f"mem-{turn.id}",
        "owner": turn.owner,
        "text": turn.text,
        "created_at": turn.created_at,
        "kind": MemoryKind.OBSERVATION,
        "importance": 5.0,
        "attention": initial_attention(5.0, turn.created_at),
        "tier": Tier.HOT,
        "embedding": embedding,
        "accessed_at": turn.created_at,
    }
    values.update(changes)
    return Memory.model_validate(values)


def new_event(
    owner: str, event_id: str, *, title: str, category: str, embedding: list[float], at: datetime
) -> Event:
    """An event of one development, `title`, told at `at` and open for 30 days."""
    return Event(
        id=event_id,
        owner=owner,
        text=f"{at:%Y-%m-%d}: {title}.",
        created_at=at,
        category=category,
        title=title,
        first_at=at,
        last_at=at,
        timeliness_days=30,
        importance=5.0,
        attention=initial_attention(5.0, at),
        tier=Tier.HOT,
        embedding=embedding,
    )


def save(store: Store, owner: str, turn: Turn, memories: list[Memory]) -> list[list[Memory]]:
    """Store the owner's memories FROM one stored turn."""
    return store.save_memories(owner, [Derivation(source=turn, memories=memories)])


def fill(
    store: Store, owner: str, embedder: CachedEmbedder, texts: list[str] = TEXTS
) -> list[Memory]:
    """A memory for each text, FROM a turn of its own, ids in the order of the texts."""
    memories = []
    for number, text in enumerate(texts):
        [turn] = store.save_turns(owner, [make_turn(owner, number, text)])
        memory = make_memory(turn, embedder)
        save(store, owner, turn, [memory])
        memories.append(memory)
    return memories


def test_a_turn_is_stored_once_per_id(store: Store, owner: str) -> None:
    first = make_turn(owner, 1, "first text")
    [stored] = store.save_turns(owner, [first])
    assert stored == first.model_copy(update={"position": 0})
    [again] = store.save_turns(owner, [first.model_copy(update={"text": "another text"})])
    assert again == stored
    assert store.count_graph(owner).nodes["Turn"] == 1


def test_memories_round_trip_with_every_field(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    [turn] = store.save_turns(owner, [make_turn(owner, 1, "I'm allergic to milk.")])
    memory = make_memory(
        turn,
        embedder,
        belief=0.8,
        tier=Tier.COOL,
        kind=MemoryKind.KNOWLEDGE,
        importance=7.5,
        offline=True,
    )
    save(store, owner, turn, [memory])
    assert memory.embedding is not None
    [found] = store.find_similar_memories(owner, memory.embedding, 5)
    assert found.memory == memory.model_copy(update={"embedding": None})
    assert found.turns == [turn]
    assert found.similarity == pytest.approx(1.0, abs=1e-6)


def test_saving_memories_twice_keeps_one_copy_and_the_first_version(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    [turn] = store.save_turns(owner, [make_turn(owner, 1, "I'm allergic to milk.")])
    memory = make_memory(turn, embedder)
    save(store, owner, turn, [memory])
    save(store, owner, turn, [memory.model_copy(update={"importance": 9.0})])
    counts = store.count_graph(owner)
    assert counts.nodes == {"Turn": 1, "Memory": 1, "Event": 0, "Impression": 0, "Session": 1}
    assert counts.links == {"FROM": 1}
    [found] = store.find_similar_memories(owner, embedder.embed([turn.text], "passage")[0], 5)
    assert found.memory.importance == 5.0


def test_memories_need_their_turn_stored(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    turn = make_turn(owner, 1, "never stored")
    with pytest.raises(StoreError, match="is not stored"):
        save(store, owner, turn, [make_memory(turn, embedder)])
    assert store.count_graph(owner).nodes["Memory"] == 0


def test_similar_memories_come_best_first_with_their_turns(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    fill(store, owner, embedder)
    [query] = embedder.embed(["Can I drink milk?"], "query")
    found = store.find_similar_memories(owner, query, 3)
    assert found[0].memory.text == "I'm allergic to milk."
    assert len(found) == 3
    similarities = [item.similarity for item in found]
    assert similarities == sorted(similarities, reverse=True)
    assert all(item.turns[0].text == item.memory.text for item in found)


def test_a_search_for_memories_at_least_as_similar_leaves_out_only_the_less_similar(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    fill(store, owner, embedder)
    [query] = embedder.embed(["Can I drink milk?"], "query")
    every = store.find_similar_memories(owner, query, len(TEXTS))
    floor = every[2].similarity
    assert every[3].similarity < floor  # distinct similarities: the floor cuts after three
    assert store.find_similar_memories(owner, query, len(TEXTS), at_least=floor) == every[:3]
    assert store.find_similar_memories(owner, query, 2, at_least=floor) == every[:2]
    assert store.find_similar_memories(owner, query, len(TEXTS), at_least=1.01) == []


def test_owners_never_see_each_other(store: Store, owner: str, embedder: CachedEmbedder) -> None:
    fill(store, owner, embedder)
    stranger = owner + "-b"
    store.save_turns(stranger, [make_turn(stranger, 1, "A stranger's secret.")])
    [query] = embedder.embed(["milk allergy"], "query")
    assert store.find_similar_memories(stranger, query, 10) == []
    found = store.find_similar_memories(owner, query, 10)
    assert {item.memory.owner for item in found} == {owner}
    assert store.count_graph(stranger).nodes["Turn"] == 1
    assert store.count_graph(stranger).links == {}


def test_importance_is_read_for_the_owners_stored_memories_only(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    [turn] = store.save_turns(owner, [make_turn(owner, 0, TEXTS[0])])
    save(store, owner, turn, [make_memory(turn, embedder, importance=7.5)])
    stranger = owner + "-b"
    [theirs] = store.save_turns(stranger, [make_turn(stranger, 1, TEXTS[1])])
    save(store, stranger, theirs, [make_memory(theirs, embedder, importance=2.0)])
    asked = ["mem-msg-0", "mem-msg-1", "no-such-memory", "mem-msg-0"]
    assert store.importance_of(owner, asked) == {"mem-msg-0": 7.5}
    assert store.importance_of(stranger, asked) == {"mem-msg-1": 2.0}
    assert store.importance_of(owner, []) == {}


def _results(store: Store, owner: str, embedder: CachedEmbedder) -> list[SimilarMemory]:
    fill(store, owner, embedder)
    [query] = embedder.embed(["what should I cook this weekend?"], "query")
    return store.find_similar_memories(owner, query, len(TEXTS))


@pytest.mark.neo4j
def test_both_stores_give_the_same_results(
    neo4j_server: Neo4jServer, owner: str, embedder: CachedEmbedder, tmp_path: Path
) -> None:
    embedded = NetworkXStore.open(tmp_path / "graph.json")
    server = neo4j_server.store()
    try:
        ours = _results(embedded, owner, embedder)
        theirs = _results(server, owner, embedder)
    finally:
        embedded.close()
        server.close()
    assert [item.memory for item in ours] == [item.memory for item in theirs]
    assert [item.turns for item in ours] == [item.turns for item in theirs]
    for mine, other in zip(ours, theirs, strict=True):
        assert mine.similarity == pytest.approx(other.similarity, abs=1e-6)
    assert len(ours) == len(TEXTS)


def test_prepare_is_safe_to_repeat(store: Store, owner: str, embedder: CachedEmbedder) -> None:
    store.prepare(DIMENSIONS)
    store.prepare(DIMENSIONS)
    fill(store, owner, embedder)
    assert store.count_graph(owner).nodes["Memory"] == len(TEXTS)


def test_a_turn_is_pending_until_its_memories_are_saved(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    [first] = store.save_turns(
        owner, [make_turn(owner, 2, "second said").model_copy(update={"pending": True})]
    )
    [older] = store.save_turns(
        owner, [make_turn(owner, 1, "first said").model_copy(update={"pending": True})]
    )
    store.save_turns(owner, [make_turn(owner, 3, "never pending")])
    assert first.pending
    assert store.pending_turns(owner, 10) == [older, first]
    assert store.pending_turns(owner, 1) == [older]
    save(store, owner, older, [make_memory(older, embedder)])
    assert store.pending_turns(owner, 10) == [first]
    [found] = store.find_similar_memories(owner, embedder.embed([older.text], "passage")[0], 1)
    assert found.turns == [older.model_copy(update={"pending": False})]
    assert store.pending_turns(owner + "-b", 10) == []


def test_a_bulk_load_stores_turns_memories_and_edges_once(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    turns = [make_turn(owner, number, text) for number, text in enumerate(TEXTS)]
    memories = [make_memory(turn, embedder) for turn in turns]
    links = [
        ("Memory", "Turn", Link(type=LinkType.FROM, source=memory.id, target=turn.id))
        for turn, memory in zip(turns, memories, strict=True)
    ]
    related = Link(type=LinkType.RELATED, source="mem-msg-0", target="mem-msg-1", weight=0.5)
    graph = OwnerGraph(nodes=[*turns, *memories], links=[*links, ("Memory", "Memory", related)])
    store.load(owner, graph)
    store.load(owner, graph)
    counts = store.count_graph(owner)
    assert counts.nodes == {"Turn": 5, "Memory": 5, "Event": 0, "Impression": 0, "Session": 1}
    assert counts.links == {"FROM": 5, "RELATED": 1, "NEXT": 4}
    [query] = embedder.embed(["Can I drink milk?"], "query")
    [best] = store.find_similar_memories(owner, query, 1)
    assert best.memory == memories[0].model_copy(update={"embedding": None})
    assert best.turns == [turns[0].model_copy(update={"position": 0})]
    with pytest.raises(InvalidInputError, match="belongs to"):
        store.load(owner + "-b", OwnerGraph(nodes=turns, links=[]))


def test_turns_take_their_places_in_their_sessions(store: Store, owner: str) -> None:
    sessions = ["morning", "evening", "morning", "", "morning", "evening", ""]
    stored = [
        store.save_turns(
            owner, [make_turn(owner, number, f"said {number}").model_copy(update={"session": s})]
        )[0]
        for number, s in enumerate(sessions)
    ]
    assert [turn.position for turn in stored] == [0, 0, 1, 0, 2, 1, 1]
    assert store.save_turns(owner, [make_turn(owner, 2, "said 2")])[0].position == 1
    counts = store.count_graph(owner)
    assert counts.nodes["Session"] == 3
    assert counts.links == {"NEXT": 4}


def _session_of(store: Store, owner: str, embedder: CachedEmbedder, size: int) -> list[Memory]:
    """One session of `size` turns, each with its memory; memory i says 'topic i'."""
    memories = []
    for number in range(size):
        [turn] = store.save_turns(
            owner, [make_turn(owner, number, f"Topic number {number} of the day.")]
        )
        memory = make_memory(turn, embedder)
        save(store, owner, turn, [memory])
        memories.append(memory)
    return memories


def test_neighbours_are_the_turns_around_and_the_linked_memories(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    memories = _session_of(store, owner, embedder, 12)
    ids = [memory.id for memory in memories]
    [other] = store.save_turns(
        owner,
        [make_turn(owner, 50, "Another session entirely.").model_copy(update={"session": "s2"})],
    )
    far = make_memory(other, embedder, tier=Tier.COOL)
    save(store, owner, other, [far])
    weaker = make_memory(other, embedder, tier=Tier.COOL, id="mem-weaker")
    save(store, owner, other, [weaker])
    store.link_memories(
        owner,
        [
            Link(type=LinkType.RELATED, source=ids[5], target=far.id, weight=0.5),
            Link(type=LinkType.RELATED, source=weaker.id, target=ids[5], weight=0.4),
        ],
    )
    [query] = embedder.embed(["topic"], "query")
    found = store.find_neighbours(owner, [ids[5], ids[6]], query, window=2, links=1).memories
    assert [item.memory.id for item in found] == sorted([ids[3], ids[4], ids[7], ids[8], far.id])
    assert all(item.memory.embedding is None for item in found)
    both = store.find_neighbours(owner, [ids[5]], query, window=0, links=2).memories
    assert [item.memory.id for item in both] == sorted([far.id, weaker.id])
    shallow = store.find_neighbours(
        owner, [ids[5], ids[6]], query, window=2, links=1, deepest=Tier.HOT
    ).memories
    assert far.id not in [item.memory.id for item in shallow]
    assert len(shallow) == 4
    assert {item.memory.id: item.turns[0].position for item in found}[ids[3]] == 3
    first = store.find_neighbours(owner, [ids[0]], query, window=1, links=1)
    assert [item.memory.id for item in first.memories] == [ids[1]]
    assert first.links == []
    stranger = store.find_neighbours(owner + "-b", [ids[0]], query, window=3, links=1)
    assert stranger.memories == []
    assert stranger.links == []


def _cosine(left: list[float], right: list[float]) -> float:
    return sum(a * b for a, b in zip(left, right, strict=True))


def test_memories_holding_as_many_terms_come_most_similar_first_not_by_id(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    # Ids are drawn from the owner's name: among memories tied on terms, they must not decide.
    memories = fill(
        store,
        owner,
        embedder,
        ["The garden was wet today.", "The garden was sunny today.", "The garden was quiet today."],
    )
    [query] = embedder.embed(["a quiet, calm garden"], "query")
    closeness = [_cosine(query, memory.embedding or []) for memory in memories]
    assert closeness == sorted(closeness), "the premise: least similar first, by id too"
    [best] = store.find_memories_mentioning(owner, {"garde": 1.0}, query, 1)
    assert best.memory.id == memories[2].id
    found = store.find_memories_mentioning(owner, {"garde": 1.0}, query, 3)
    assert [item.memory.id for item in found] == [memory.id for memory in reversed(memories)]


def test_a_rare_term_held_outranks_a_common_one_unless_the_query_weighs_it_less(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    wet, sunny, gnome = fill(
        store,
        owner,
        embedder,
        ["The garden was wet.", "The garden was sunny.", "The gnome was red."],
    )
    [query] = embedder.embed(["a wet garden with a gnome"], "query")
    closeness = [_cosine(query, memory.embedding or []) for memory in (wet, sunny, gnome)]
    assert closeness[0] == max(closeness), "the premise: the wet garden is the most similar"
    # Each memory holds one of the terms: held by one memory of three, "gnome" is the rarer.
    assert term_rarity(1, 3) > term_rarity(2, 3)
    [best] = store.find_memories_mentioning(owner, {"garde": 1.0, "gnome": 1.0}, query, 1)
    assert best.memory.id == gnome.id
    # Weighed by the query at a fifth, it counts for less than the common term.
    assert 0.2 * term_rarity(1, 3) < term_rarity(2, 3)
    found = store.find_memories_mentioning(owner, {"garde": 1.0, "gnome": 0.2}, query, 3)
    assert [item.memory.id for item in found] == [wet.id, sunny.id, gnome.id]


def test_a_term_is_matched_whole_as_graphmem_terms_gives_it_not_as_a_prefix(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    texts = ["Which way home?", "Two ways to go.", "A wayward cat."]
    _stopword, plural, _longer = fill(store, owner, embedder, texts)
    # "way" is a stop word, "ways" is way's plural and "wayward" a word with a term of its own:
    # only the plural holds the term "way", on every store (a prefix would match all three).
    assert [sorted(terms(text)) for text in texts] == [["home"], ["way"], ["cat", "waywa"]]
    [query] = embedder.embed(["which way?"], "query")
    found = store.find_memories_mentioning(owner, {"way": 1.0}, query, 3)
    assert [item.memory.id for item in found] == [plural.id]


def test_only_the_first_terms_given_are_searched_on_every_store(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    [gnome] = fill(store, owner, embedder, ["The gnome was red."])
    [query] = embedder.embed(["a red gnome"], "query")
    unheld = {f"zz{number}": 1.0 for number in range(MAX_SEARCH_TERMS - 1)}
    [found] = store.find_memories_mentioning(owner, unheld | {"gnome": 1.0}, query, 3)
    assert found.memory.id == gnome.id
    assert store.find_memories_mentioning(owner, unheld | {"zz": 1.0, "gnome": 1.0}, query, 3) == []


def test_links_as_strong_join_the_neighbourhood_most_similar_first_not_by_id(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    given, *linked = fill(
        store,
        owner,
        embedder,
        [
            "Our garden chores this week.",
            "Picnic plan for the roses.",
            "Pruning plan for the roses.",
            "Watering plan for the roses.",
        ],
    )
    store.link_memories(
        owner,
        [
            Link(type=LinkType.RELATED, source=given.id, target=memory.id, weight=0.5)
            for memory in linked
        ],
    )
    [query] = embedder.embed(["when do I water the roses?"], "query")
    closeness = [_cosine(query, memory.embedding or []) for memory in linked]
    assert max(closeness) == closeness[-1], "the premise: the most similar has the last id"
    found = store.find_neighbours(owner, [given.id], query, window=0, links=1).memories
    assert [item.memory.id for item in found] == [linked[-1].id]


def test_an_event_lends_each_seed_its_mates_most_similar_first_as_many_as_links(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    texts = [
        "Our garden chores this week.",
        "Watering plan for the roses.",
        "Picnic plan for the roses.",
        "Pruning plan for the roses.",
        "We water the roses at dawn.",
        "A new hose for the roses.",
    ]
    tiers = [Tier.HOT, Tier.HOT, Tier.HOT, Tier.HOT, Tier.COOL, Tier.HOT]
    turns = store.save_turns(
        owner, [make_turn(owner, number, text) for number, text in enumerate(texts)]
    )
    memories = [
        make_memory(turn, embedder, tier=tier) for turn, tier in zip(turns, tiers, strict=True)
    ]
    for turn, memory in zip(turns, memories, strict=True):
        save(store, owner, turn, [memory])
    summary = memories[0].model_copy(update={"id": "summary", "kind": MemoryKind.SUMMARY})
    [embedding] = embedder.embed(["The roses"], "passage")
    event = new_event(
        owner, "roses", title="The roses", category="garden", embedding=embedding, at=START
    )
    members = ["summary", *(memory.id for memory in memories)]
    change = EventChange(event=event, previous=None, members=members)
    store.save_summaries(owner, [SummaryChange(summary=summary, turns=[], events=[change])])
    [query] = embedder.embed(["when do I water the roses?"], "query")
    closeness = {memory.id: _cosine(query, memory.embedding or []) for memory in memories}
    seeds = [memories[0].id, memories[1].id]
    assert max(closeness, key=closeness.__getitem__) == memories[1].id, "the premise: a seed"
    cool = memories[4].id
    assert sorted(closeness.values())[-2] == closeness[cool], "the premise: next, a cool one"

    def expected(deepest: Tier) -> list[str]:
        """The two most similar mates in tiers to `deepest`, seeds and the summary left out."""
        mates = [
            memory.id for memory in memories if memory.id not in seeds and memory.tier <= deepest
        ]
        return sorted(sorted(mates, key=lambda mate: (-closeness[mate], mate))[:2])

    for deepest in (Tier.HOT, Tier.COOL):
        found = store.find_neighbours(owner, seeds, query, window=0, links=2, deepest=deepest)
        assert [item.memory.id for item in found.memories] == expected(deepest)
    assert cool in expected(Tier.COOL)
    assert cool not in expected(Tier.HOT)


def test_neighbours_leave_out_the_known_memories_and_come_with_the_edges_among_all(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    memories = _session_of(store, owner, embedder, 6)
    ids = [memory.id for memory in memories]
    edges = [
        Link(type=LinkType.RELATED, source=ids[0], target=ids[5], weight=0.5),
        Link(type=LinkType.RELATED, source=ids[2], target=ids[1], weight=0.3),
        Link(type=LinkType.CAUSES, source=ids[1], target=ids[3], sufficiency=0.8),
        Link(type=LinkType.RELATED, source=ids[4], target=ids[5], weight=0.9),
    ]
    store.link_memories(owner, edges)
    [query] = embedder.embed(["topic"], "query")
    found = store.find_neighbours(owner, [ids[2]], query, window=1, links=0, known=[ids[1], ids[0]])
    assert [item.memory.id for item in found.memories] == [ids[3]]
    # Among 0, 1, 2 (given and known) and 3 (found): not the edges to 4 and 5.
    assert found.links == sorted(edges[1:3], key=lambda link: (link.type.value, link.source))
    candidates_only = store.find_neighbours(owner, [], query, window=1, links=1, known=ids[3:])
    assert candidates_only.memories == []
    assert candidates_only.links == [edges[3]]


def test_an_evoked_impression_brings_its_cues_that_gave_it_the_most_belief(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    cold = impression_id(owner, "The user has a cold")
    [embedding] = embedder.embed(["The user has a cold"], "passage")
    cues = [  # text, the belief it gives the cold, its tier
        ("My nose is runny.", 0.48, Tier.HOT),
        ("My throat is sore.", 0.72, Tier.HOT),
        ("My throat hurts again.", 0.72, Tier.WARM),
        ("I sneezed twice.", 0.24, Tier.HOT),
        ("My throat is so sore.", 0.72, Tier.DEEP),
    ]
    ids = []
    for number, (text, belief, tier) in enumerate(cues):
        pending = make_turn(owner, number, text).model_copy(update={"pending": True})
        [turn] = store.save_turns(owner, [pending])  # a turn's impressions count while pending
        memory = make_memory(turn, embedder, tier=tier)
        impression = Impression(
            id=cold,
            owner=owner,
            text="The user has a cold",
            created_at=turn.created_at,
            belief=belief,
            belief_at=turn.created_at,
            half_life_days=7.0,
            embedding=embedding,
        )
        conjecture = conjecture_memory(
            impression, turn.id, turn.created_at, importance=5.0, belief=belief, tiers=TierPolicy()
        )
        impressed = Impressed(impression=impression, conjecture=conjecture)
        store.save_memories(
            owner, [Derivation(source=turn, memories=[memory], impressions=[impressed])]
        )
        ids.append(memory.id)
    [query] = embedder.embed(["I have a fever"], "query")
    found = store.find_neighbours(
        owner, [], query, window=0, links=2, deepest=Tier.COOL, known=[ids[2]], evoked=[cold]
    )
    # The two that gave the most (0.72, the later first: 2 then 1; 4 is below COOL), the known
    # one among the cues but not among the memories found.
    assert [(cue.memory, cue.belief) for cue in found.cues] == sorted(
        [(ids[1], 0.72), (ids[2], 0.72)]
    )
    assert {cue.impression.id for cue in found.cues} == {cold}
    assert found.cues[0].impression.text == "The user has a cold"
    assert [item.memory.id for item in found.memories] == [ids[1]]
    stranger = store.find_neighbours(owner + "-b", [], query, window=0, links=2, evoked=[cold])
    assert (stranger.memories, stranger.cues) == ([], [])


def test_concurrent_writers_never_share_a_position(store: Store, owner: str) -> None:
    turns = [make_turn(owner, number, f"said {number}") for number in range(40)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        stored = list(pool.map(lambda turn: store.save_turns(owner, [turn])[0], turns))
    assert sorted(turn.position or 0 for turn in stored) == list(range(40))
    assert store.count_graph(owner).links == {"NEXT": 39}


def test_a_batch_of_turns_is_stored_in_order_each_id_once(store: Store, owner: str) -> None:
    turns = [make_turn(owner, number, f"said {number}") for number in range(3)]
    stored = store.save_turns(owner, turns)
    assert stored == [turn.model_copy(update={"position": n}) for n, turn in enumerate(turns)]
    assert sorted(
        (link.source, link.target)
        for _s, _t, link in store.export(owner).links
        if link.type is LinkType.NEXT
    ) == [("msg-0", "msg-1"), ("msg-1", "msg-2")]
    new = make_turn(owner, 3, "said 3")
    again = store.save_turns(
        owner,
        [
            turns[1].model_copy(update={"text": "another text"}),
            new,
            new.model_copy(update={"text": "said 3 again"}),
        ],
    )
    assert again == [stored[1], *[new.model_copy(update={"position": 3})] * 2]
    counts = store.count_graph(owner)
    assert counts.nodes["Turn"] == 4
    assert counts.nodes["Session"] == 1
    assert counts.links == {"NEXT": 3}
    assert store.save_turns(owner, []) == []


def test_a_derivation_may_link_to_a_memory_of_an_earlier_one_in_the_call(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    turns = store.save_turns(
        owner,
        [
            make_turn(owner, number, text).model_copy(update={"pending": True})
            for number, text in enumerate(TEXTS[:2])
        ],
    )
    first, second = (make_memory(turn, embedder) for turn in turns)
    link = Link(type=LinkType.RELATED, source=second.id, target=first.id, weight=0.5)
    made = store.save_memories(
        owner,
        [
            Derivation(source=turns[0], memories=[first]),
            Derivation(source=turns[1], memories=[second], links=[link]),
        ],
    )
    assert made == [[], []]
    [query] = embedder.embed(["topic"], "query")
    assert store.find_neighbours(
        owner, [], query, window=0, links=0, known=[first.id, second.id]
    ).links == [link]
    counts = store.count_graph(owner)
    assert counts.nodes["Memory"] == 2
    assert counts.links == {"FROM": 2, "NEXT": 1, "RELATED": 1}
    assert store.pending_turns(owner, 10) == []
    [found] = store.find_similar_memories(owner, embedder.embed([TEXTS[1]], "passage")[0], 1)
    assert found.memory == second.model_copy(update={"embedding": None})
    assert found.turns == [turns[1].model_copy(update={"pending": False})]


def test_a_turn_not_stored_fails_the_whole_call(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    [stored] = store.save_turns(
        owner, [make_turn(owner, 1, TEXTS[0]).model_copy(update={"pending": True})]
    )
    missing = make_turn(owner, 2, "never stored")
    with pytest.raises(StoreError, match="is not stored"):
        store.save_memories(
            owner,
            [
                Derivation(source=stored, memories=[make_memory(stored, embedder)]),
                Derivation(source=missing, memories=[make_memory(missing, embedder)]),
            ],
        )
    counts = store.count_graph(owner)
    assert counts.nodes["Memory"] == 0
    assert counts.links == {}
    assert store.pending_turns(owner, 10) == [stored]


def test_working_memories_are_the_most_similar_hot_ones_per_embedding(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    tiers = [Tier.HOT, Tier.HOT, Tier.COOL, Tier.HOT, Tier.COOL]
    turns = store.save_turns(
        owner, [make_turn(owner, number, text) for number, text in enumerate(TEXTS)]
    )
    memories = [
        make_memory(turn, embedder, tier=tier) for turn, tier in zip(turns, tiers, strict=True)
    ]
    store.save_memories(
        owner,
        [
            Derivation(source=turn, memories=[memory])
            for turn, memory in zip(turns, memories, strict=True)
        ],
    )
    summary = memories[0].model_copy(update={"id": "summary", "kind": MemoryKind.SUMMARY})
    store.save_summaries(owner, [SummaryChange(summary=summary, turns=[turns[0].id], events=[])])
    queries = embedder.embed(["Can I drink milk?", "Are we going to Disneyland?"], "query")
    trip = memories[2]
    assert store.find_similar_memories(owner, queries[1], 1)[0].memory.id == trip.id
    found = store.working_memories(owner, queries, 2)
    assert len(found) == 2
    assert found[0][0].memory == memories[0].model_copy(update={"embedding": None})
    for query, items in zip(queries, found, strict=True):
        expected = store.find_similar_memories(owner, query, 2, Tier.HOT)
        assert [item.memory for item in items] == [item.memory for item in expected]
        assert len(items) == 2
        assert all(item.memory.tier is Tier.HOT and item.turns == [] for item in items)
        assert [item.similarity for item in items] == pytest.approx(
            [item.similarity for item in expected], abs=1e-6
        )
        assert items[0].similarity >= items[1].similarity
    assert trip.id not in {item.memory.id for item in found[1]}
    assert [len(items) for items in store.working_memories(owner, queries, 10)] == [3, 3]
    assert store.working_memories(owner + "-b", queries, 2) == [[], []]


def test_traffic_counts_write_transactions_and_statements(store: Store, owner: str) -> None:
    before = store.traffic()
    turns = [make_turn(owner, number, TEXTS[number]) for number in range(2)]
    store.save_turns(owner, [turn.model_copy(update={"pending": True}) for turn in turns])
    written = store.traffic()
    assert written.transactions == before.transactions + 1  # both turns in one transaction
    assert [turn.id for turn in store.pending_turns(owner, 10)] == ["msg-0", "msg-1"]
    read = store.traffic()
    assert read.transactions == written.transactions
    if isinstance(store, NetworkXStore):  # in process: no statements
        assert read.statements == written.statements == before.statements == 0
    else:  # the owner's write lock and the turns, then the read
        assert (written.statements, read.statements) == (
            before.statements + 2,
            before.statements + 3,
        )
