"""The recall pipeline: from a query to the ranked, related-context subgraph, waking it.

The query's motivation (its attention label, unless given) sets how deep in the tiers the
search reads; while the best relevance found stays below the sufficiency threshold, recall
thinks again with raised motivation and reads the next tier. The candidates are the memories
most similar to the query and those sharing its words; their neighbours (turns of the same
session, linked memories) join by association; retrieval.score ranks them all; the memories
used are woken with their neighbours, unless the recall only peeks.
"""

import logging
import math
import time
from datetime import datetime
from itertools import zip_longest

from graphmem.cognition.base import (
    AttentionLabel,
    AttentionQuestion,
    CountedCognition,
    RelatedMemory,
)
from graphmem.embedding import Embedder
from graphmem.errors import InvalidInputError, ModelError
from graphmem.inputs import is_number
from graphmem.mechanisms.attention import WORKING_MEMORY, AttentionPolicy, current_attention
from graphmem.mechanisms.tiers import TierPolicy, depth_for
from graphmem.model import Tier
from graphmem.results import Attempt, Recall, RecalledMemory
from graphmem.retrieval import (
    FOCUS_SHARE,
    QUERY_EMBEDDING_CHARS,
    Query,
    RecallPolicy,
    Weights,
    score,
)
from graphmem.store.base import Neighbourhood, SimilarMemory, Store

log = logging.getLogger("graphmem")


class Budget:
    """A recall's time budget, from its start, and the steps skipped once it was spent."""

    def __init__(self, seconds: float) -> None:
        if not (is_number(seconds) and seconds > 0):
            raise InvalidInputError(f"budget_seconds is {seconds!r}; it must be a number above 0")
        self._deadline = time.perf_counter() + seconds
        self.skipped: list[str] = []

    def spent(self, step: str) -> bool:
        """Whether the time is up; if so, `step` is recorded as skipped."""
        if time.perf_counter() < self._deadline:
            return False
        self.skipped.append(step)
        return True


class Recalling:
    """One memory's recall pipeline: its store, embedder, cognition and policies."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        cognition: CountedCognition,
        *,
        policy: RecallPolicy,
        attention: AttentionPolicy,
        tiers: TierPolicy,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._cognition = cognition
        self._policy = policy
        self._attention = attention
        self._tiers = tiers

    def recall(
        self,
        owner: str,
        asked: Query,
        *,
        query: str,
        k: int,
        motivation: float | None,
        weights: Weights,
        peek: bool,
        now: datetime,
        budget: Budget,
    ) -> Recall:
        """The owner's k memories best related to a checked query (GraphMem.recall says how).

        `query` is the query as the caller gave it, or its turns as text.
        """
        embedding = self._query_embedding(asked)
        dense: list[SimilarMemory] = []  # the most similar memories of the tiers read so far
        searched: Tier | None = None  # the deepest tier read so far; each is read once
        if motivation is None:
            dense = self._read_deeper(owner, embedding, dense, searched, Tier.HOT)
            searched = Tier.HOT
            motivation = self._motivation(asked.focus, dense[:WORKING_MEMORY], now)
        attempts: list[Attempt] = []
        while True:
            depth = depth_for(motivation)
            if searched is None or depth > searched:
                dense = self._read_deeper(owner, embedding, dense, searched, depth)
                searched = depth
            best = dense[0].similarity if dense else None
            attempts.append(Attempt(motivation=motivation, depth=depth, best_relevance=best))
            sufficient = best is not None and best >= self._policy.sufficient_relevance
            if sufficient or depth == Tier.DEEP or len(attempts) > self._policy.rethinks:
                break
            if budget.spent("thinking again"):
                break
            motivation = min(10.0, motivation + self._policy.rethink_motivation)
        candidates, seeds = self._candidates(owner, asked, embedding, dense, depth)
        if budget.spent("association"):
            seeds = []  # no neighbours: only the edges among the candidates
        neighbourhood = Neighbourhood(memories=[], links=[])  # nothing found: nothing to read
        if candidates:
            neighbourhood = self._store.find_neighbours(
                owner,
                seeds,
                embedding,
                window=self._policy.association.window,
                links=self._policy.association.links,
                deepest=depth,
                known=[item.memory.id for item in candidates],
            )
        links = neighbourhood.links
        scored = score(
            asked,
            candidates + neighbourhood.memories,
            links,
            now=now,
            weights=weights,
            policy=self._attention,
            association=self._policy.association,
            limit=k,
        )
        used = [item.memory.id for item in scored]
        links = [link for link in links if link.source in used and link.target in used]
        woken = []
        if not peek and used:
            woken = self._store.wake(owner, used, now, self._attention, self._tiers)
        return Recall(
            owner=owner,
            query=query,
            motivation=motivation,
            attempts=attempts,
            memories=[
                RecalledMemory(
                    memory=item.memory,
                    turns=item.turns,
                    score=item.score,
                    components=item.raw,
                    normalised=item.normalised,
                    via=item.via,
                )
                for item in scored
            ],
            links=links,
            woken=woken,
            cut_short=budget.skipped,
        )

    def _read_deeper(
        self,
        owner: str,
        embedding: list[float],
        dense: list[SimilarMemory],
        searched: Tier | None,
        depth: Tier,
    ) -> list[SimilarMemory]:
        """The most similar memories down to `depth`, reading only the tiers below `searched`."""
        shallowest = Tier.HOT if searched is None else Tier(searched + 1)
        limit = self._policy.candidates
        deeper = self._store.find_similar_memories(
            owner, embedding, limit, depth, shallowest=shallowest
        )
        ranked = sorted(dense + deeper, key=lambda item: (-item.similarity, item.memory.id))
        return ranked[:limit]

    def _query_embedding(self, query: Query) -> list[float]:
        """The query's embedding: of its focus, moved towards its context if it is a dialogue."""
        if not query.is_dialogue:
            [embedding] = self._embedder.embed([query.focus[:QUERY_EMBEDDING_CHARS]], "query")
            return embedding
        focus, context = self._embedder.embed(
            [query.focus[:QUERY_EMBEDDING_CHARS], query.context], "query"
        )
        mixed = [
            FOCUS_SHARE * along + (1 - FOCUS_SHARE) * across
            for along, across in zip(focus, context, strict=True)
        ]
        length = math.sqrt(sum(value * value for value in mixed)) or 1.0
        return [value / length for value in mixed]

    def _candidates(
        self,
        owner: str,
        query: Query,
        embedding: list[float],
        dense: list[SimilarMemory],
        depth: Tier,
    ) -> tuple[list[SimilarMemory], list[str]]:
        """The candidates of the last search, and the seeds of association.

        Candidates are the most similar memories (`dense`, found already) and those sharing
        words; seeds the best of each list, alternately.
        """
        lexical = self._store.find_memories_mentioning(
            owner, query.term_weights(), embedding, self._policy.candidates, depth
        )
        pool = {item.memory.id: item for item in dense}
        for item in lexical:
            pool.setdefault(item.memory.id, item)
        alternating = [
            item.memory.id for pair in zip_longest(dense, lexical) for item in pair if item
        ]
        seeds = list(dict.fromkeys(alternating))[: self._policy.association.seeds]
        return list(pool.values()), seeds

    def _label(
        self, item: str, speaker: str, related: list[SimilarMemory], now: datetime
    ) -> AttentionLabel:
        """Ask the cognition how much attention an item deserves, given related memories."""
        return self._cognition.label_attention(
            AttentionQuestion(
                item=item,
                speaker=speaker,
                working_memory=[
                    RelatedMemory(
                        text=found.memory.text,
                        attention=current_attention(found.memory.attention, now, self._attention),
                    )
                    for found in related
                ],
            )
        )

    def _motivation(self, query: str, related: list[SimilarMemory], now: datetime) -> float:
        """A query's motivation: its attention label in the light of related hot memories."""
        try:
            return self._label(query, "query", related, now).score
        except ModelError as error:
            log.warning("recall uses the default motivation: %s", error)
            return self._policy.default_motivation
