"""The ranking rule of recall: attention, importance and recency only break near-ties."""

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.model import Attention, Memory, MemoryKind, Tier, Turn
from graphmem.retrieval import PRESETS, Association, Query, Scored, Weights, score
from graphmem.store.base import SimilarMemory

NOW = datetime(2026, 1, 1, tzinfo=UTC)
WORDS = ["dumplings", "milk", "allergy", "fever", "disneyland", "passport", "exam", "ginger"]


@st.composite
def found_memories(draw: st.DrawFn) -> list[SimilarMemory]:
    """Memories as a search finds them: any similarity, words, attention, importance and age."""
    count = draw(st.integers(min_value=2, max_value=12))
    found = []
    for index in range(count):
        words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))
        attention = draw(st.floats(min_value=0, max_value=10))
        hours = draw(st.floats(min_value=0, max_value=24 * 365))
        at = NOW - timedelta(hours=hours)
        memory = Memory(
            id=f"m{index}",
            owner="alice",
            text=" ".join(words),
            created_at=at,
            kind=MemoryKind.OBSERVATION,
            importance=draw(st.floats(min_value=0, max_value=10)),
            attention=Attention(
                long_term=attention, long_term_at=at, short_term=0.0, short_term_at=at
            ),
            tier=Tier.HOT,
            embedding=None,
            accessed_at=at,
        )
        turn = Turn(
            id=f"t{index}",
            owner="alice",
            text=memory.text,
            created_at=at,
            session=draw(st.sampled_from(["a", "b"])),
            position=index,
        )
        similarity = draw(st.floats(min_value=0.5, max_value=1.0))
        found.append(SimilarMemory(memory=memory, similarity=similarity, turns=[turn]))
    return found


def relevance_part(item: Scored, weights: Weights) -> float:
    """What a memory's score owes to the query: its relevance, lexical match and association."""
    normalised = item.normalised
    return (
        weights.relevance * normalised.relevance
        + weights.lexical * normalised.lexical
        + weights.association * normalised.association
    )


@settings(max_examples=300, deadline=None)
@given(found=found_memories(), query=st.sampled_from(WORDS))
def test_a_clearly_more_relevant_memory_is_never_outranked_by_a_more_attended_one(
    found: list[SimilarMemory], query: str
) -> None:
    weights = PRESETS["balanced"]
    bound = weights.tie_break_bound
    assert bound <= 0.15  # attention, importance and recency together: near-ties only
    ranked = score(
        Query.of(query),
        found,
        [],
        now=NOW,
        weights=weights,
        policy=AttentionPolicy(),
        association=Association(),
        limit=len(found),
    )
    assert len(ranked) == len(found)
    for position, better in enumerate(ranked):
        for worse in ranked[position + 1 :]:
            assert relevance_part(worse, weights) <= relevance_part(better, weights) + bound
