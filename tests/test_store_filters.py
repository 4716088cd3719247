"""A recall's filters inside the store's searches, on both stores: each search filtered finds
what it would find unfiltered among every memory, less those the filter does not admit, so the
limit is taken after the filter, never before; and recall, on every face, refuses a filter that
admits nothing by name."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from graphmem.contract import ANY_MEMORY, MemoryFilter
from graphmem.embedding import CachedEmbedder
from graphmem.errors import InvalidInputError
from graphmem.mechanisms.attention import initial_attention
from graphmem.memory import GraphMem
from graphmem.model import Link, LinkType, Memory, MemoryKind, Tier, Turn
from graphmem.store.base import Store
from graphmem.store.changes import Derivation
from graphmem.store.findings import SimilarMemory
from graphmem.terms import terms

START = datetime(2026, 5, 1, 9, tzinfo=UTC)
TOLD = [  # text, session, speaker, hours after START, kind, belief
    ("I'm allergic to milk.", "s1", "user", 0, MemoryKind.OBSERVATION, None),
    ("You should avoid milk and cheese then.", "s1", "assistant", 1, MemoryKind.OBSERVATION, None),
    ("Milk makes my skin itch.", "s2", "user", 24, MemoryKind.OBSERVATION, None),
    ("Milk allergies cause hives.", "s2", "user", 25, MemoryKind.KNOWLEDGE, 0.9),
    ("The user may dislike milk and dairy.", "s3", "user", 48, MemoryKind.CONJECTURE, 0.3),
    ("Milk tea is my favourite drink.", "s3", "user", 49, MemoryKind.OBSERVATION, None),
    ("We watched a film about whales.", "s3", "user", 50, MemoryKind.OBSERVATION, None),
]
FILTERS = {
    "sessions": MemoryFilter(sessions=["s1", "s3"]),
    "speakers": MemoryFilter(speakers=["assistant"]),
    "since": MemoryFilter(since=START + timedelta(hours=24)),
    "until": MemoryFilter(until=START + timedelta(hours=24)),
    "since and until": MemoryFilter(
        since=START + timedelta(hours=1), until=START + timedelta(hours=48)
    ),
    "kinds": MemoryFilter(kinds=[MemoryKind.KNOWLEDGE, MemoryKind.CONJECTURE]),
    "min_belief": MemoryFilter(min_belief=0.5),
    "all at once": MemoryFilter(
        sessions=["s2", "s3"], speakers=["user"], since=START, kinds=[MemoryKind.OBSERVATION]
    ),
}
ADMITTED = {  # by hand: the numbers of the TOLD memories each filter admits
    "sessions": {0, 1, 4, 5, 6},
    "speakers": {1},
    "since": {2, 3, 4, 5, 6},
    "until": {0, 1},
    "since and until": {1, 2, 3},
    "kinds": {3, 4},
    "min_belief": {0, 1, 2, 3, 5, 6},
    "all at once": {2, 5, 6},
}


def told(store: Store, owner: str, embedder: CachedEmbedder) -> list[Memory]:
    """The TOLD memories, each FROM a turn of its own, in sessions as TOLD says."""
    memories = []
    for number, (text, session, speaker, hours, kind, belief) in enumerate(TOLD):
        at = START + timedelta(hours=hours)
        [turn] = store.save_turns(
            owner,
            [
                Turn(
                    id=f"msg-{number}",
                    owner=owner,
                    text=text,
                    created_at=at,
                    session=session,
                    speaker=speaker,
                )
            ],
        )
        [embedding] = embedder.embed([text], "passage")
        memory = Memory(
            id=f"mem-{number}",
            owner=owner,
            text=text,
            created_at=at,
            kind=kind,
            belief=belief,
            importance=5.0,
            attention=initial_attention(5.0, at),
            tier=Tier.HOT,
            embedding=embedding,
            accessed_at=at,
        )
        store.save_memories(owner, [Derivation(source=turn, memories=[memory])])
        memories.append(memory)
    return memories


def ids(found: list[SimilarMemory]) -> list[str]:
    """The ids of what a search found, in its order."""
    return [item.memory.id for item in found]


@pytest.mark.parametrize("name", list(FILTERS))
def test_a_filtered_search_finds_the_best_it_admits_not_the_admitted_among_the_best(
    store: Store, owner: str, embedder: CachedEmbedder, name: str
) -> None:
    told(store, owner, embedder)
    where = FILTERS[name]
    admitted = {f"mem-{number}" for number in ADMITTED[name]}
    [query] = embedder.embed(["Can I drink milk?"], "query")
    every = ids(store.find_similar_memories(owner, query, 100))
    assert len(every) == len(TOLD)
    for limit in (1, 2, 100):
        found = ids(store.find_similar_memories(owner, query, limit, where=where))
        assert found == [memory for memory in every if memory in admitted][:limit]
    weights = {term: 1.0 for term in terms("milk drink")}
    mentioning = ids(store.find_memories_mentioning(owner, weights, query, 100))
    assert set(mentioning) == {f"mem-{number}" for number in range(6)}  # all but the whales
    for limit in (1, 2, 100):
        found = ids(store.find_memories_mentioning(owner, weights, query, limit, where=where))
        assert found == [memory for memory in mentioning if memory in admitted][:limit]


def test_a_filtered_neighbourhood_holds_only_what_the_filter_admits_before_the_strongest_are_taken(
    store: Store, owner: str, embedder: CachedEmbedder
) -> None:
    memories = told(store, owner, embedder)
    store.link_memories(
        owner,
        [
            Link(type=LinkType.RELATED, source="mem-0", target="mem-4", weight=0.9),
            Link(type=LinkType.RELATED, source="mem-0", target="mem-3", weight=0.5),
        ],
    )
    [query] = embedder.embed(["milk"], "query")
    assert memories[0].embedding is not None

    def neighbours(where: MemoryFilter) -> list[str]:
        found = store.find_neighbours(owner, ["mem-0"], query, window=1, links=1, where=where)
        return ids(found.memories)

    assert neighbours(ANY_MEMORY) == ["mem-1", "mem-4"]  # the turn after, the strongest link
    assert neighbours(FILTERS["min_belief"]) == ["mem-1", "mem-3"]  # the next strongest
    assert neighbours(FILTERS["sessions"]) == ["mem-1", "mem-4"]
    assert neighbours(MemoryFilter(speakers=["user"])) == ["mem-4"]
    assert neighbours(FILTERS["kinds"]) == ["mem-4"]


@pytest.mark.parametrize(
    ("filters", "problem"),
    [
        ({"sessions": []}, "sessions: List should have at least 1 item"),
        ({"sessions": "s1"}, "sessions: Input should be a valid list"),
        ({"kinds": ["summary"]}, "kinds may name observation, knowledge, conjecture"),
        ({"kinds": ["fact"]}, "profile shows the facts"),
        ({"kinds": ["feeling"]}, "kinds.0: Input should be"),
        ({"min_belief": 1.5}, "min_belief: Input should be less than or equal to 1"),
        ({"since": datetime(2026, 5, 2)}, "since: must have a UTC offset"),
        (
            {"since": START + timedelta(days=1), "until": START},
            "since (2026-05-02 09:00:00+00:00) must be before until",
        ),
    ],
)
def test_a_filter_that_cannot_hold_is_refused_by_name(
    memory: GraphMem, owner: str, filters: dict[str, object], problem: str
) -> None:
    memory.observe(owner, "I'm allergic to milk.", message_id="m1", at=START)
    with pytest.raises(InvalidInputError, match=re.escape(problem)):
        memory.recall(owner, "milk", **filters)
    assert memory.statistics(owner).nodes["Memory"] == 1


def test_a_recall_filtered_to_a_session_and_a_speaker_returns_only_theirs(
    memory: GraphMem, owner: str
) -> None:
    for number, (text, session, speaker, hours, _kind, _belief) in enumerate(TOLD):
        memory.observe(
            owner,
            text,
            message_id=f"m{number}",
            at=START + timedelta(hours=hours),
            session=session,
            speaker=speaker,
        )
    asked = START + timedelta(days=3)
    found = memory.recall(owner, "milk", sessions=["s1"], k=100, at=asked, peek=True)
    assert {turn.session for item in found.memories for turn in item.turns} == {"s1"}
    assert len(found.memories) == 2
    said = memory.recall(owner, "milk", speakers=["assistant"], at=asked, peek=True)
    assert [item.memory.text for item in said.memories] == [TOLD[1][0]]
    recent = memory.recall(owner, "milk", since=START + timedelta(hours=30), at=asked, peek=True)
    assert {item.memory.text for item in recent.memories} == {text for text, *_ in TOLD[4:]}
