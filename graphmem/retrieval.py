"""Retrieval scoring (Generative Agents' memory stream, with attention): components and weights.

Each candidate gets five components: relevance (cosine similarity to the query), lexical (BM25
of the query's content terms over the candidates), importance (its attention label), attention
(current attention) and recency (0.995 ** hours since last access). Each is min-max normalised
over the candidates and the normalised values are combined with weights; every scored memory
keeps its raw and normalised components as its reasons.
"""

import math
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from graphmem.mechanisms.attention import AttentionPolicy, current_attention
from graphmem.model import Memory, Turn
from graphmem.store.base import SimilarMemory
from graphmem.terms import terms

RECENCY_PER_HOUR = 0.995
BM25_K1 = 1.5
BM25_B = 0.75


class RecallPolicy(BaseModel):
    """How recall searches: candidates per search, when to think again, and how far."""

    model_config = ConfigDict(frozen=True)

    candidates: int = Field(50, ge=1, description="memories scored per search")
    sufficient_relevance: float = Field(
        0.85,
        description="best cosine similarity that answers a query; below it recall thinks again"
        " (0.85 suits the offline e5 embedder, whose similarities lie between 0.7 and 1)",
    )
    rethinks: int = Field(2, ge=0, description="how many times recall may think again")
    rethink_motivation: float = Field(
        4.0, gt=0, description="motivation added per rethink (two reach the deepest tier from 1)"
    )
    default_motivation: float = Field(
        5.0, ge=0, le=10, description="motivation when the cognition cannot label the query"
    )


class Weights(BaseModel):
    """How much each normalised component counts in a memory's score."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    relevance: float = Field(1.0, ge=0)
    lexical: float = Field(0.0, ge=0)
    importance: float = Field(0.0, ge=0)
    attention: float = Field(0.0, ge=0)
    recency: float = Field(0.0, ge=0)


PRESETS: dict[str, Weights] = {
    "balanced": Weights(relevance=1.0, lexical=0.5, importance=0.25, attention=0.25, recency=0.1),
    "relevance": Weights(relevance=1.0, lexical=0.5),
    "generative_agents": Weights(relevance=1.0, importance=1.0, recency=1.0),
}
"""Named weights. `balanced` is the default: relevance leads, because equal weights let recency
rank long histories by age (on LoCoMo equal weights drop evidence Recall@10 from 47 to 7)."""
DEFAULT_PRESET = "balanced"


class Components(BaseModel):
    """The four components of a score."""

    model_config = ConfigDict(frozen=True)

    relevance: float
    lexical: float
    importance: float
    attention: float
    recency: float


class Scored(BaseModel):
    """A candidate memory with its score and the components behind it."""

    model_config = ConfigDict(frozen=True)

    memory: Memory
    turns: list[Turn]
    score: float
    raw: Components
    normalised: Components


def _normalised(values: list[float]) -> list[float]:
    """Min-max normalisation; all-equal values count fully (1.0)."""
    low, high = min(values), max(values)
    if high == low:
        return [1.0 for _ in values]
    return [(value - low) / (high - low) for value in values]


def bm25(query: str, documents: list[str]) -> list[float]:
    """BM25 of a query against each document, with statistics from these documents only.

    Content terms (graphmem.terms) count once per text, which suits short memories.
    """
    wanted = terms(query)
    sets = [terms(document) for document in documents]
    if not wanted or not sets:
        return [0.0 for _ in documents]
    average = sum(len(found) for found in sets) / len(sets) or 1.0
    idf = {
        term: math.log(1 + (len(sets) - frequency + 0.5) / (frequency + 0.5))
        for term in wanted
        if (frequency := sum(1 for found in sets if term in found))
    }
    return [
        sum(
            weight * (BM25_K1 + 1) / (1 + BM25_K1 * (1 - BM25_B + BM25_B * len(found) / average))
            for term, weight in idf.items()
            if term in found
        )
        for found in sets
    ]


def score(
    query: str,
    candidates: list[SimilarMemory],
    now: datetime,
    weights: Weights,
    policy: AttentionPolicy,
) -> list[Scored]:
    """Score candidates and return them best first (ties by memory id)."""
    if not candidates:
        return []
    lexical = bm25(query, [item.memory.text for item in candidates])
    raw = [
        Components(
            relevance=item.similarity,
            lexical=lexical[index],
            importance=item.memory.importance,
            attention=current_attention(item.memory.attention, now, policy),
            recency=RECENCY_PER_HOUR
            ** max((now - item.memory.accessed_at).total_seconds() / 3600, 0.0),
        )
        for index, item in enumerate(candidates)
    ]
    columns = {
        name: _normalised([getattr(components, name) for components in raw])
        for name in Components.model_fields
    }
    scored = []
    for index, item in enumerate(candidates):
        normalised = Components(**{name: values[index] for name, values in columns.items()})
        total = sum(
            getattr(weights, name) * getattr(normalised, name) for name in Components.model_fields
        )
        scored.append(
            Scored(
                memory=item.memory,
                turns=item.turns,
                score=total,
                raw=raw[index],
                normalised=normalised,
            )
        )
    return sorted(scored, key=lambda item: (-item.score, item.memory.id))
