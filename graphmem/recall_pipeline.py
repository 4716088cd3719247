"""The recall pipeline: from a query to the ranked, related-context subgraph, waking it.

Unless the motivation is given, the query is perceived as a new item is (one `perceive`
question, in the light of the hot memories most similar to it): its attention label is the
motivation, and the impressions it implies ("I started having a fever": the user has a cold)
evoke the owner's impressions of the same statements (in either language, for the impressions
of the offline cognition's knowledge: lexicon.IMPRESSION_WORDINGS). The motivation sets how deep
in the tiers the search reads; while the best relevance found stays below the sufficiency
threshold, recall thinks again with raised motivation and reads the next tier. The candidates
are the memories most similar to the query and those sharing its words; their neighbours (turns
of the same session, linked memories) and the cues of the evoked impressions (yesterday's sore
throat) join by association; how sure the recall is that they hold something relevant is its
confidence (graphmem.confidence), under the floor asked for nothing is returned; scoring.score
ranks them all; the memories used are woken with their neighbours, unless the recall only peeks.
"""

import logging
import math
import time
from collections.abc import Callable
from datetime import datetime
from itertools import zip_longest

from graphmem.cognition.base import (
    QUERY_SPEAKER,
    CausalRule,
    CountedCognition,
    PerceivedItem,
    Perception,
    PerceptionQuestion,
    Recalled,
)
from graphmem.cognition.lexicon import IMPRESSION_WORDINGS
from graphmem.cognition.meaning import Meaning
from graphmem.confidence import Signals, coverage
from graphmem.contract import (
    Attempt,
    EvokedImpression,
    MemoryFilter,
    Profile,
    Recall,
    RecalledMemory,
    Weights,
)
from graphmem.embedding import Embedder
from graphmem.errors import InvalidInputError, ModelError
from graphmem.ids import impression_id
from graphmem.inputs import is_number
from graphmem.mechanisms.attention import WORKING_MEMORY, AttentionPolicy, current_attention
from graphmem.mechanisms.impressions import decayed_belief, evocation
from graphmem.mechanisms.profile import ProfilePolicy, profile_of
from graphmem.mechanisms.tiers import TierPolicy, depth_for
from graphmem.model import Tier
from graphmem.scoring import (
    FOCUS_SHARE,
    QUERY_EMBEDDING_CHARS,
    Query,
    RecallPolicy,
    Scored,
    score,
)
from graphmem.store.base import Store
from graphmem.store.findings import EvokedCue, Neighbourhood, SimilarMemory

log = logging.getLogger("graphmem")

OTHER_WORDING = dict(IMPRESSION_WORDINGS) | {zh: en for en, zh in IMPRESSION_WORDINGS}
"""An impression of the knowledge in one language, and the same impression in the other. An
impression is named as it was inferred, in its cause's language (graphmem.forgetting must
leave a graph as it would be without a forgotten message, so history names nothing), and a
fever told in English evokes the cold that a sore throat made in Chinese through this."""


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
        first_hand: float,
        profile: ProfilePolicy,
        count_tokens: Callable[[str], int],
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._cognition = cognition
        self._policy = policy
        self._attention = attention
        self._tiers = tiers
        self._first_hand = first_hand
        """The belief of what a speaker states, which the query's impressions start from."""
        self._profile = profile
        self._count_tokens = count_tokens
        """The tokenizer a recall's budget is counted in."""
        self._meaning = Meaning(embedder)
        """What the query is measured against: everyday language (graphmem.confidence)."""

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
        max_tokens: int | None,
        min_confidence: float,
        where: MemoryFilter,
    ) -> Recall:
        """The owner's k memories best related to a checked query (GraphMem.recall says how).

        `query` is the query as the caller gave it, or its turns as text. Every search finds
        only the memories `where` admits. Cut to `max_tokens`, the recall puts the facts and
        conjectures of the owner's profile first (whatever `where` admits; its open events are
        what association reaches when they bear on the query) and wakes only the memories that
        fit. Below `min_confidence` (graphmem.confidence) it returns no memory and says so.
        """
        embedding = self._query_embedding(asked)
        dense: list[SimilarMemory] = []  # the most similar memories of the tiers read so far
        searched: Tier | None = None  # the deepest tier read so far; each is read once
        implied: dict[str, float] = {}  # impression id: the query's belief in it
        if motivation is None:
            dense = self._read_deeper(owner, embedding, dense, searched, Tier.HOT, where=where)
            searched = Tier.HOT
            perception = self._perceive(owner, asked.focus, dense[:WORKING_MEMORY], now)
            motivation = self._policy.default_motivation if perception is None else perception.score
            for impression in [] if perception is None else perception.impressions:
                statement = impression.statement
                for wording in (statement, OTHER_WORDING.get(statement, statement)):
                    implied[impression_id(owner, wording)] = impression.belief
        attempts: list[Attempt] = []
        while True:
            depth = depth_for(motivation)
            if searched is None or depth > searched:
                dense = self._read_deeper(owner, embedding, dense, searched, depth, where=where)
                searched = depth
            best = dense[0].similarity if dense else None
            attempts.append(Attempt(motivation=motivation, depth=depth, best_relevance=best))
            sufficient = best is not None and best >= self._policy.sufficient_relevance
            if sufficient or depth == Tier.DEEP or len(attempts) > self._policy.rethinks:
                break
            if budget.spent("thinking again"):
                break
            motivation = min(10.0, motivation + self._policy.rethink_motivation)
        candidates, seeds = self._candidates(owner, asked, embedding, dense, depth, where=where)
        evoking = list(implied)
        if budget.spent("association"):
            seeds, evoking = [], []  # no neighbours nor cues: only the edges among the candidates
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
                evoked=evoking,
                where=where,
            )
        links = neighbourhood.links
        found = candidates + neighbourhood.memories
        evoked = _evoked(neighbourhood.cues, implied, found, now)
        scored = score(
            asked,
            found,
            links,
            now=now,
            weights=weights,
            policy=self._attention,
            association=self._policy.association,
            limit=k,
            evoked={
                memory: (strength, cue.impression.id) for memory, (strength, cue) in evoked.items()
            },
        )
        signals = self._signals(asked, embedding, best, found, scored[:1])
        sure = signals.confidence(self._policy.confidence)
        relevant = sure >= min_confidence
        if not relevant:
            scored = []
        used = [item.memory.id for item in scored]
        recalled = Recall(
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
                    evoked_by=item.evoked_by,
                )
                for item in scored
            ],
            links=[link for link in links if link.source in used and link.target in used],
            impressions=_impressions(evoked, used, implied, now),
            woken=[],
            cut_short=budget.skipped,
            confidence=sure,
            nearness=signals.nearness,
            coverage=signals.coverage,
            first_coverage=signals.first_coverage,
            nothing_relevant=not relevant,
        )
        if max_tokens is not None:
            profile = self.profile(owner, now)
            recalled = recalled.within(max_tokens, self._count_tokens, profile)
        if peek or not recalled.memories:
            return recalled
        shown = [item.memory.id for item in recalled.memories]
        woken = self._store.wake(owner, shown, now, self._attention, self._tiers)
        return recalled.model_copy(update={"woken": woken})

    def profile(self, owner: str, now: datetime) -> Profile:
        """The owner's profile at `now`: one store read, then mechanisms.profile's rules."""
        sources = self._store.profile_sources(owner, now)
        return profile_of(owner, sources, now, self._profile, self._first_hand)

    def _signals(
        self,
        asked: Query,
        embedding: list[float],
        best: float | None,
        found: list[SimilarMemory],
        first: list[Scored],
    ) -> Signals:
        """What the recall's confidence is read from: how near, how much of the query held."""
        return Signals(
            nearness=(
                -1.0
                if best is None
                else best - self._meaning.everyday_nearness(embedding, asked.focus)
            ),
            coverage=coverage(asked.focus, found),
            first_coverage=coverage(asked.focus, first),
        )

    def _read_deeper(
        self,
        owner: str,
        embedding: list[float],
        dense: list[SimilarMemory],
        searched: Tier | None,
        depth: Tier,
        *,
        where: MemoryFilter,
    ) -> list[SimilarMemory]:
        """The most similar memories down to `depth`, reading only the tiers below `searched`.

        Once `limit` are held, the deeper tiers are asked only for memories at least as similar
        as the worst of them: no other could enter.
        """
        shallowest = Tier.HOT if searched is None else Tier(searched + 1)
        limit = self._policy.candidates
        at_least = dense[limit - 1].similarity if len(dense) >= limit else None
        deeper = self._store.find_similar_memories(
            owner, embedding, limit, depth, shallowest=shallowest, at_least=at_least, where=where
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
        *,
        where: MemoryFilter,
    ) -> tuple[list[SimilarMemory], list[str]]:
        """The candidates of the last search, and the seeds of association.

        Candidates are the most similar memories (`dense`, found already) and those sharing
        words; seeds the best of each list, alternately.
        """
        lexical = self._store.find_memories_mentioning(
            owner, query.term_weights(), embedding, self._policy.candidates, depth, where=where
        )
        pool = {item.memory.id: item for item in dense}
        for item in lexical:
            pool.setdefault(item.memory.id, item)
        alternating = [
            item.memory.id for pair in zip_longest(dense, lexical) for item in pair if item
        ]
        seeds = list(dict.fromkeys(alternating))[: self._policy.association.seeds]
        return list(pool.values()), seeds

    def _perceive(
        self, owner: str, query: str, related: list[SimilarMemory], now: datetime
    ) -> Perception | None:
        """The query perceived in the light of related hot memories; None if the model failed."""
        rules = [
            CausalRule(cause=rule.cause, effect=rule.effect, sufficiency=rule.sufficiency)
            for rule in self._store.causal_rules(owner)
        ]
        item = PerceivedItem(
            item=query,
            speaker=QUERY_SPEAKER,
            working_memory=[
                Recalled(
                    text=found.memory.text,
                    attention=current_attention(found.memory.attention, now, self._attention),
                )
                for found in related
            ],
        )
        question = PerceptionQuestion(items=[item], belief=self._first_hand, rules=rules)
        try:
            [perception] = self._cognition.perceive(question).items
        except ModelError as error:
            log.warning("recall uses the default motivation and evokes nothing: %s", error)
            return None
        return perception


def _evoked(
    cues: list[EvokedCue], implied: dict[str, float], found: list[SimilarMemory], now: datetime
) -> dict[str, tuple[float, EvokedCue]]:
    """Each evoked memory found, with how strongly the query evokes it and the cue it does so by.

    A memory that is the cue of several impressions the query implies is evoked by the strongest.
    """
    said = {item.memory.id: item.memory.created_at for item in found}
    evoked: dict[str, tuple[float, EvokedCue]] = {}
    for cue in cues:
        if cue.memory not in said:
            continue
        strength = evocation(
            implied[cue.impression.id],
            cue.belief,
            said[cue.memory],
            cue.impression.half_life_days,
            now,
        )
        if strength > evoked.get(cue.memory, (0.0, cue))[0]:
            evoked[cue.memory] = (strength, cue)
    return evoked


def _impressions(
    evoked: dict[str, tuple[float, EvokedCue]],
    used: list[str],
    implied: dict[str, float],
    now: datetime,
) -> list[EvokedImpression]:
    """The impressions that evoked a recalled memory: belief now, the query's, their cues."""
    reached: dict[str, list[str]] = {}
    impressions = {}
    for memory in used:
        if memory in evoked:
            cue = evoked[memory][1]
            reached.setdefault(cue.impression.id, []).append(memory)
            impressions[cue.impression.id] = cue.impression
    return [
        EvokedImpression(
            id=impression.id,
            text=impression.text,
            belief=decayed_belief(impression, now),
            implied=implied[impression.id],
            memories=reached[impression.id],
        )
        for impression in sorted(impressions.values(), key=lambda impression: impression.id)
    ]
