"""The sleep job's steps: dialogue summaries with their major events, and consolidation of facts.

Both are driven by marks in the graph (a turn awaiting its summary, a memory awaiting
consolidation), and each item is written by one store call that also clears its mark, so the
job can be killed at any point and run again: it starts where the marks say and does nothing
twice. What it makes has ids derived from what it was made from, so a redone item is the same.
"""

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from graphmem.cognition.base import (
    AttentionLabel,
    Cognition,
    Dialogue,
    DialogueLine,
    EventTag,
    EventUpdate,
    FactComparison,
    FactComparisons,
    FactJudgement,
    OlderFact,
)
from graphmem.embedding import Embedder
from graphmem.ids import event_id, observation_id, summary_id
from graphmem.mechanisms.attention import WORKING_MEMORY, AttentionPolicy, initial_attention
from graphmem.mechanisms.beliefs import BeliefPolicy, Judged, Relation, Settlement, settle
from graphmem.mechanisms.events import SummaryPolicy, chunks, is_open
from graphmem.mechanisms.tiers import TierPolicy, tier_for
from graphmem.model import Event, Memory, MemoryKind, Tier, Turn, fit_text
from graphmem.store.base import EventChange, SimilarMemory, Store

FACT_KINDS = (MemoryKind.OBSERVATION, MemoryKind.FACT)
"""The kinds of memory that consolidation weighs against each other."""

AWAITING_BATCH = 200
"""How many marked items one store read brings."""

JUDGE_BATCH = 16
"""At most this many new facts are judged in one model call."""

EVENT_EMBEDDING_CHARS = 500
"""An event is embedded by its title and latest news, cut to this length: a storyline grows
with every development, and an embedding's cost grows with its text."""

Labeller = Callable[[str, str, list[SimilarMemory], datetime], AttentionLabel]
"""Labels an item's attention in the light of related memories (GraphMem's labelling)."""


@dataclass(frozen=True)
class Weighing:
    """A new fact, the older facts it is to be weighed against and the memories it was near."""

    fact: Memory
    nearest: list[Memory]
    """The related older facts, most related first (at most BeliefPolicy.related)."""
    near: frozenset[str]
    """The memories found as near as the related facts or nearer, whether they became one or
    not: a fact settled meanwhile among them could have been one."""

    def comparison(self, beliefs: BeliefPolicy) -> FactComparison:
        """The question of how the fact relates to each older fact."""
        return FactComparison(
            new=self.fact.text,
            older=[
                OlderFact(
                    text=old.text,
                    belief=beliefs.first_hand if old.belief is None else old.belief,
                )
                for old in self.nearest
            ],
        )


def dialogue(turns: Sequence[Turn]) -> Dialogue:
    """The dialogue of some turns, oldest first, as the cognition reads it."""
    return Dialogue(
        lines=[
            DialogueLine(speaker=turn.speaker, text=turn.text, at=turn.created_at) for turn in turns
        ]
    )


def news(title: str, tag: EventTag) -> str:
    """What an event's embedding is made of: its title and its latest development."""
    text = f"{title}. {tag.detail}"
    return text[:EVENT_EMBEDDING_CHARS]


class Sleep:
    """The sleep job's steps over one store, with GraphMem's embedder, cognition and policies."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        cognition: Cognition,
        label: Labeller,
        *,
        attention: AttentionPolicy,
        tiers: TierPolicy,
        beliefs: BeliefPolicy,
        summaries: SummaryPolicy,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._cognition = cognition
        self._label = label
        self._attention = attention
        self._tiers = tiers
        self._beliefs = beliefs
        self._summaries = summaries

    def summarise(
        self, owner: str, *, everything: bool, done: Callable[[str], None]
    ) -> Counter[str]:
        """Summarise the owner's ready chunks of dialogue and tag their events; count what changed.

        Without `everything`, the newest turn's session is taken as still going on (see
        mechanisms.events). `done` hears "summary" after each chunk.
        """
        counts: Counter[str] = Counter()
        while ready := chunks(
            self._store.turns_awaiting_summary(owner, AWAITING_BATCH),
            self._summaries,
            everything=everything,
        ):
            for chunk in ready:
                counts.update(self._summarise_chunk(owner, chunk))
                done("summary")
        return counts

    def consolidate(
        self, owner: str, now: datetime, *, done: Callable[[str], None]
    ) -> Counter[str]:
        """Weigh each new fact against older related ones and settle beliefs; count relations.

        Facts are settled one by one in order, as if each were judged alone, but judged up to
        JUDGE_BATCH at a time in one model call: a fact joins the batch only if none of the
        memories its search found as near as its older facts or nearer (`Weighing.near`) is a
        fact of the batch or one that a fact of the batch is weighed against, the only ways
        settling the batch could change what the fact is weighed against. `done` hears "fact"
        after each fact.
        """
        counts: Counter[str] = Counter()
        while facts := self._store.memories_awaiting_consolidation(owner, AWAITING_BATCH):
            batch: list[Weighing] = []
            for fact in facts:
                weighing = self._weighing(owner, fact)
                touched = {item.fact.id for item in batch} | {
                    old.id for item in batch for old in item.nearest
                }
                dependent = not weighing.near.isdisjoint(touched)
                if dependent or len(batch) == JUDGE_BATCH:
                    counts.update(self._settle(owner, batch, now, done))
                    batch = []
                if dependent:  # weighed again, after the batch it depended on
                    weighing = self._weighing(owner, fact)
                batch.append(weighing)
            counts.update(self._settle(owner, batch, now, done))
        return counts

    def _summarise_chunk(self, owner: str, chunk: list[Turn]) -> Counter[str]:
        """One chunk: its summary memory, and the events it starts or continues."""
        lines = dialogue(chunk)
        text = self._cognition.summarise_dialogue(lines).summary
        tags = self._cognition.tag_events(lines).events
        at = chunk[-1].created_at
        [embedding] = self._embedder.embed([text], "passage")
        related = self._store.find_similar_memories(owner, embedding, WORKING_MEMORY, Tier.HOT)
        importance = self._label(text, "summary", related, at).score
        summary = Memory(
            id=summary_id(owner, chunk[0].id),
            owner=owner,
            text=text,
            created_at=at,
            kind=MemoryKind.SUMMARY,
            importance=importance,
            attention=initial_attention(importance, at),
            tier=tier_for(importance, self._tiers),
            embedding=embedding,
            accessed_at=at,
        )
        counts: Counter[str] = Counter(summaries=1)
        changes: dict[str, EventChange] = {}
        for tag in tags:
            tagged = [chunk[line] for line in tag.lines if 0 <= line < len(chunk)] or chunk
            change, started = self._event_change(
                owner, tag, tagged, changes.get(tag.category), summary
            )
            counts["events started" if started else "events continued"] += 1
            changes[tag.category] = change
        self._store.save_summary(summary, [turn.id for turn in chunk], list(changes.values()))
        return counts

    def _event_change(
        self,
        owner: str,
        tag: EventTag,
        tagged: list[Turn],
        earlier: EventChange | None,
        summary: Memory,
    ) -> tuple[EventChange, bool]:
        """The event a tag joins (the open one of its category) or starts (true), its members."""
        at = tagged[-1].created_at
        members = [summary.id, *(observation_id(owner, turn.id) for turn in tagged)]
        latest = earlier.event if earlier else self._store.latest_event(owner, tag.category)
        if latest is not None and is_open(latest, at):
            merged = self._cognition.merge_event(
                EventUpdate(
                    title=latest.title,
                    storyline=latest.text,
                    last_at=latest.last_at,
                    development=tag,
                    at=at,
                )
            )
            [embedding] = self._embedder.embed([news(merged.title, tag)], "passage")
            event = latest.model_copy(
                update={
                    "text": merged.storyline,
                    "title": merged.title,
                    "last_at": max(latest.last_at, at),
                    "timeliness_days": tag.timeliness_days,
                    "embedding": embedding,
                }
            )
            previous = earlier.previous if earlier else None
            kept = earlier.members if earlier else []
            change = EventChange(event=event, previous=previous, members=[*kept, *members])
            return change, False
        storyline = fit_text(f"{at:%Y-%m-%d}: {tag.detail}")
        [embedding] = self._embedder.embed([news(tag.title, tag)], "passage")
        event = Event(
            id=event_id(owner, tag.category, tagged[0].id),
            owner=owner,
            text=storyline,
            created_at=at,
            category=tag.category,
            title=tag.title,
            first_at=at,
            last_at=at,
            timeliness_days=tag.timeliness_days,
            importance=summary.importance,
            attention=initial_attention(summary.importance, at),
            tier=summary.tier,
            embedding=embedding,
        )
        previous = None if latest is None else latest.id
        return EventChange(event=event, previous=previous, members=members), True

    def _weighing(self, owner: str, fact: Memory) -> Weighing:
        """A fact with its related older facts: similar to it, or linked to it."""
        assert fact.embedding is not None
        limit = self._beliefs.related
        # Conjectures and knowledge are found too, so look further than `limit` for facts.
        similar = self._store.find_similar_memories(owner, fact.embedding, 4 * limit)
        linked = self._store.find_neighbours(
            owner, [fact.id], fact.embedding, window=0, links=limit
        )
        related: dict[str, Memory] = {}
        near: set[str] = set()
        for found in sorted(similar + linked, key=lambda item: (-item.similarity, item.memory.id)):
            memory = found.memory
            if len(related) == limit:
                break
            near.add(memory.id)
            if (
                memory.id != fact.id
                and memory.kind in FACT_KINDS
                and not memory.awaiting_consolidation
            ):
                related.setdefault(memory.id, memory)
        return Weighing(fact=fact, nearest=list(related.values()), near=frozenset(near - {fact.id}))

    def _settle(
        self, owner: str, batch: list[Weighing], now: datetime, done: Callable[[str], None]
    ) -> Counter[str]:
        """Judge a batch of facts in one model call, then settle and store each in order."""
        judged = [item for item in batch if item.nearest]
        verdicts = (
            self._cognition.judge_facts(
                FactComparisons(comparisons=[item.comparison(self._beliefs) for item in judged])
            ).facts
            if judged
            else []
        )
        judgements = {
            item.fact.id: verdict.judgements for item, verdict in zip(judged, verdicts, strict=True)
        }
        counts: Counter[str] = Counter()
        for item in batch:
            settlement = self._settlement(item, judgements.get(item.fact.id, []))
            self._store.settle_fact(
                owner,
                item.fact.id,
                settlement,
                now,
                beliefs=self._beliefs,
                attention=self._attention,
            )
            counts.update(link.type.value for link in settlement.links)
            counts["facts"] += 1
            done("fact")
        return counts

    def _settlement(self, weighing: Weighing, judgements: list[FactJudgement]) -> Settlement:
        """How a fact's judgements against its older facts settle beliefs (duplicates first)."""
        fact = weighing.fact
        belief = self._beliefs.first_hand if fact.belief is None else fact.belief
        judged = [
            Judged(
                old=memory.id,
                old_belief=old.belief,
                relation=Relation(judgement.relation),
                estimate=judgement.belief,
            )
            for memory, old, judgement in zip(
                weighing.nearest, weighing.comparison(self._beliefs).older, judgements, strict=True
            )
        ]
        duplicates = sorted(
            (item for item in judged if item.relation is Relation.DUPLICATE),
            key=lambda item: -item.old_belief,
        )
        others = [item for item in judged if item.relation is not Relation.DUPLICATE]
        return settle(fact.id, belief, duplicates + others, self._beliefs)
