"""The sleep job: dialogue summaries with their major events, consolidation of facts, re-tiering.

Both are driven by marks in the graph (a turn awaiting its summary, a memory awaiting
consolidation), and each item is written by a store call that also clears its mark (several
by one call where nothing is read between them: the summaries of the chunks ready at once, the
facts of a judged batch), so the job can be killed at any point and run again: it starts
where the marks say and does nothing twice. What it makes has ids derived from what it was made
from, so a redone item is the same.
"""

import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from graphmem.cognition.base import (
    CountedCognition,
    Dialogue,
    DialogueLine,
    EventTag,
    FactComparison,
    FactComparisons,
    FactJudgement,
    OlderFact,
    StatedFact,
)
from graphmem.contract import SleepProgress, SleepReport
from graphmem.embedding import Embedder
from graphmem.errors import ModelOutputError, ModelTooLongError
from graphmem.ids import event_id, fact_id, observation_id, summary_id
from graphmem.mechanisms.attention import AttentionPolicy, initial_attention
from graphmem.mechanisms.beliefs import BeliefPolicy, Judged, Relation, Settlement, settle
from graphmem.mechanisms.events import (
    SummaryPolicy,
    chunks,
    first_storyline,
    is_open,
    merge_development,
)
from graphmem.mechanisms.tiers import TierPolicy, tier_for
from graphmem.model import Event, Memory, MemoryKind, Turn
from graphmem.store.base import Store
from graphmem.store.changes import EventChange, FactChange, SummaryChange

log = logging.getLogger("graphmem")

AWAITING_BATCH = 200
"""How many marked items one store read brings."""

JUDGE_BATCH = 16
"""At most this many new facts are judged in one model call."""

EVENT_EMBEDDING_CHARS = 500
"""An event is embedded by its title and latest news, cut to this length: a storyline grows
with every development, and an embedding's cost grows with its text."""


NOT_EMBEDDED: list[float] = []
"""The embedding of an event made before its batch is embedded (see Sleep._embedded)."""


@dataclass(frozen=True)
class _Draft:
    """A chunk's summary change before its events' embeddings, with what they are made of."""

    change: SummaryChange
    """Its events carry NOT_EMBEDDED until Sleep._embedded replaces it; its summary has no
    embedding (no search finds a summary)."""
    news: dict[str, str]
    """Each event's id and the text its embedding is made of, its title and latest news."""
    counts: Counter[str]
    """The summary and the events it started or continued."""


@dataclass(frozen=True)
class Weighing:
    """A new fact, the older facts it is to be weighed against and the memories it was near."""

    fact: Memory
    nearest: list[Memory]
    """The related older facts, most related first (at most BeliefPolicy.related)."""
    near: frozenset[str]
    """The memories found as near as the related facts or nearer, whether they became one or
    not: a fact settled meanwhile among them could have been one."""

    def asks(self, other: "Weighing", beliefs: BeliefPolicy) -> bool:
        """Whether this weighing asks the same question as another, of the same older facts."""
        return [old.id for old in self.nearest] == [old.id for old in other.nearest] and (
            self.comparison(beliefs) == other.comparison(beliefs)
        )

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


def _commutes(weighing: Weighing, left: list[Weighing]) -> bool:
    """Whether a fact may be settled before the facts ahead of it that are left for later.

    Settling a fact changes only it and the older facts it is weighed against. A fact left,
    weighed again later, may then be weighed besides against facts settled before it, which
    are left too or were settled here; its search finds what it finds now or less.
    """
    changed_ahead = {item.fact.id for item in left} | {
        old.id for item in left for old in item.nearest
    }
    changed = {weighing.fact.id} | {old.id for old in weighing.nearest}
    return weighing.near.isdisjoint(changed_ahead) and all(
        item.near.isdisjoint(changed) for item in left
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
        cognition: CountedCognition,
        *,
        attention: AttentionPolicy,
        tiers: TierPolicy,
        beliefs: BeliefPolicy,
        summaries: SummaryPolicy,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._cognition = cognition
        self._attention = attention
        self._tiers = tiers
        self._beliefs = beliefs
        self._summaries = summaries

    def run(
        self,
        owner: str,
        now: datetime,
        *,
        derive_pending: Callable[[str, Callable[[str], None]], Counter[str]],
        progress: Callable[[SleepProgress], None] | None,
    ) -> SleepReport:
        """The whole job for one owner: pending turns, summaries, consolidation, re-tiering.

        `derive_pending(owner, done)` derives the owner's pending turns (the observe pipeline's
        work, which the job finishes) and counts them; `progress` hears about every item of
        every step (GraphMem.consolidate says what the job guarantees).
        """
        started = time.perf_counter()
        calls_before = Counter(self._cognition.calls_here())
        steps: Counter[str] = Counter()

        def done(step: str) -> None:
            """Count an item of `step` done and tell `progress`."""
            steps[step] += 1
            if progress is not None:
                calls = sum(self._cognition.calls_here().values()) - sum(calls_before.values())
                progress(
                    SleepProgress(
                        owner=owner,
                        step=step,
                        done=steps[step],
                        model_calls=calls,
                        seconds=time.perf_counter() - started,
                    )
                )

        counts = derive_pending(owner, done)
        counts.update(self.summarise(owner, everything=True, done=done))
        counts.update(self.consolidate(owner, now, done=done))
        counts["retiered"] = self._store.retier(owner, now, self._attention, self._tiers)
        done("re-tier")
        return SleepReport(
            owner=owner,
            counts=dict(counts),
            model_calls=dict(self._cognition.calls_here() - calls_before),
            seconds=time.perf_counter() - started,
        )

    def summarise(
        self,
        owner: str,
        *,
        everything: bool,
        done: Callable[[str], None],
        left: set[str] | None = None,
    ) -> Counter[str]:
        """Summarise the owner's ready chunks of dialogue and tag their events; count what changed.

        Without `everything`, the newest turn's session is taken as still going on (see
        mechanisms.events). The summaries of the chunks ready at once (up to AWAITING_BATCH
        turns) are stored together, in one store call, the events they changed embedded in one
        embedder call (a summary is not embedded: no search finds it), and `done` hears
        "summary" for each once they are. A chunk the model cannot answer about
        (ModelOutputError) stays awaiting its summary ("left unsummarised", its turns counted)
        and its turns are added to `left`, whose turns are not asked about again: a caller that
        keeps `left` from one call to the next asks about such a chunk once. A model that fails
        otherwise raises its ModelError, the summaries made before it stored.
        """
        counts: Counter[str] = Counter()
        left = set() if left is None else left
        while ready := chunks(
            [
                turn
                for turn in self._store.turns_awaiting_summary(owner, AWAITING_BATCH + len(left))
                if turn.id not in left
            ],
            self._summaries,
            everything=everything,
        ):
            made: list[_Draft] = []
            try:
                for chunk in ready:
                    try:
                        unsaved = [draft.change for draft in made]
                        made.append(self._summarise_chunk(owner, chunk, unsaved))
                    except ModelOutputError as error:
                        log.warning("dialogue of %s from %s waits: %s", owner, chunk[0].id, error)
                        left.update(turn.id for turn in chunk)
                        counts["left unsummarised"] += len(chunk)
            finally:
                self._store.save_summaries(owner, self._embedded(made))
            for draft in made:
                counts.update(draft.counts)
                done("summary")
        return counts

    def consolidate(
        self, owner: str, now: datetime, *, done: Callable[[str], None]
    ) -> Counter[str]:
        """Weigh each new fact against older related ones and settle beliefs; count relations.

        Facts end as if each were judged alone in order, but up to JUDGE_BATCH are judged in one
        model call. Each fact of a batch is asked about as it would be if the facts before it
        were settled and changed no belief; the batch is then settled in order, each fact weighed
        again first unless nothing its search found was settled before it or left unsettled. A
        fact whose question came out otherwise (a fact before it changed a belief it is weighed
        against), or that does not commute with one left for that reason, is left to the next
        batch, asked again. A fact the model cannot answer about, even alone, stays awaiting
        consolidation ("left unjudged") and is weighed in a later job. The facts settled are
        stored together, in one store call, before the store is read again (a fact weighed
        again, the next batch); `done` hears "fact" for each once stored.
        """
        counts: Counter[str] = Counter()
        unjudged: set[str] = set()
        while facts := [
            fact
            for fact in self._store.memories_awaiting_consolidation(
                owner, AWAITING_BATCH + len(unjudged)
            )
            if fact.id not in unjudged
        ]:
            while facts:
                asked: list[Weighing] = []
                for fact in facts[:JUDGE_BATCH]:
                    before = frozenset(item.fact.id for item in asked)
                    asked.append(self._weighing(owner, fact, settled=before))
                judgements = self._judge(asked)
                left: list[Weighing] = []
                changed: set[str] = set()  # the settled facts and what they were weighed against
                settled: list[Settlement] = []  # not stored yet
                for question in asked:
                    if question.fact.id not in judgements:
                        unjudged.add(question.fact.id)
                        counts["left unjudged"] += 1
                        continue
                    unsettled = unjudged | {item.fact.id for item in left}
                    if question.near.isdisjoint(changed | unsettled):
                        weighing = question  # found as asked: nothing it found has changed
                    else:
                        counts.update(self._store_settled(owner, settled, now, done))
                        settled = []
                        weighing = self._weighing(owner, question.fact)
                    if weighing.asks(question, self._beliefs) and _commutes(weighing, left):
                        settled.append(self._settlement(weighing, judgements[question.fact.id]))
                        changed |= {weighing.fact.id} | {old.id for old in weighing.nearest}
                    else:
                        left.append(weighing)
                counts.update(self._store_settled(owner, settled, now, done))
                facts = [item.fact for item in left] + facts[JUDGE_BATCH:]
        return counts

    def _summarise_chunk(
        self, owner: str, chunk: list[Turn], unsaved: list[SummaryChange]
    ) -> _Draft:
        """One chunk's summary memory and the events it starts or continues (not embedded yet).

        `unsaved` are the summaries made before it and not yet stored, whose events count as
        stored.
        """
        lines = dialogue(chunk)
        digest = self._cognition.digest_dialogue(lines)
        text = digest.summary
        at = chunk[-1].created_at
        observations = [observation_id(owner, turn.id) for turn in chunk]
        importances = self._store.importance_of(owner, observations)
        importance = max(importances.values(), default=0.0)
        summary = Memory(
            id=summary_id(owner, chunk[0].id),
            owner=owner,
            text=text,
            created_at=at,
            kind=MemoryKind.SUMMARY,
            importance=importance,
            attention=initial_attention(importance, at),
            tier=tier_for(importance, self._tiers),
            embedding=None,
            accessed_at=at,
        )
        counts: Counter[str] = Counter(summaries=1)
        changes: dict[str, EventChange] = {}
        news_of: dict[str, str] = {}
        for tag in digest.events:
            tagged = [chunk[line] for line in tag.lines if 0 <= line < len(chunk)] or chunk
            earlier = changes.get(tag.category)
            latest = earlier.event if earlier else self._latest_event(owner, tag.category, unsaved)
            change, started = self._event_change(
                owner, tag, tagged, summary, earlier=earlier, latest=latest
            )
            counts["events started" if started else "events continued"] += 1
            changes[tag.category] = change
            news_of[change.event.id] = news(change.event.title, tag)
        facts = self._facts(owner, digest.facts, chunk, importances)
        if facts:
            counts["profile facts"] = len(facts)
        made = SummaryChange(
            summary=summary,
            turns=[turn.id for turn in chunk],
            events=list(changes.values()),
            facts=facts,
        )
        return _Draft(change=made, news=news_of, counts=counts)

    def _facts(
        self,
        owner: str,
        stated: list[StatedFact],
        chunk: list[Turn],
        importances: dict[str, float],
    ) -> list[FactChange]:
        """The facts a chunk's digest read, each FROM its line's turn, as memories.

        Each takes the importance of its turn's observation; none is embedded (no search finds
        a fact).
        """
        facts: dict[str, FactChange] = {}
        for item in stated:
            if not 0 <= item.line < len(chunk):
                continue
            turn = chunk[item.line]
            importance = importances.get(observation_id(owner, turn.id), 0.0)
            fact = Memory(
                id=fact_id(owner, turn.id, item.slot),
                owner=owner,
                text=item.statement,
                created_at=turn.created_at,
                kind=MemoryKind.FACT,
                importance=importance,
                attention=initial_attention(importance, turn.created_at),
                tier=tier_for(importance, self._tiers),
                embedding=None,
                accessed_at=turn.created_at,
                slot=item.slot,
            )
            facts.setdefault(fact.id, FactChange(fact=fact, turn=turn.id))
        return list(facts.values())

    def _embedded(self, drafts: list[_Draft]) -> list[SummaryChange]:
        """The drafts' summary changes with their events embedded, in one embedder call.

        An event changed by several drafts is embedded once, by its latest news: the drafts are
        stored together, so only its last version is ever stored.
        """
        news_of = {event: text for draft in drafts for event, text in draft.news.items()}
        vectors = self._embedder.embed(list(news_of.values()), "passage") if news_of else []
        of_event = dict(zip(news_of, vectors, strict=True))
        return [
            draft.change.model_copy(
                update={
                    "events": [
                        change.model_copy(
                            update={
                                "event": change.event.model_copy(
                                    update={"embedding": of_event[change.event.id]}
                                )
                            }
                        )
                        for change in draft.change.events
                    ],
                }
            )
            for draft in drafts
        ]

    def _latest_event(
        self, owner: str, category: str, unsaved: list[SummaryChange]
    ) -> Event | None:
        """The owner's event of this category updated last (ties by id), unsaved ones counted."""
        events: dict[str, Event] = {}
        stored = self._store.latest_event(owner, category)
        if stored is not None:
            events[stored.id] = stored
        for made in unsaved:
            for change in made.events:
                if change.event.category == category:
                    events[change.event.id] = change.event
        return max(events.values(), key=lambda event: (event.last_at, event.id), default=None)

    def _event_change(
        self,
        owner: str,
        tag: EventTag,
        tagged: list[Turn],
        summary: Memory,
        *,
        earlier: EventChange | None,
        latest: Event | None,
    ) -> tuple[EventChange, bool]:
        """The event a tag joins (`latest`, when open) or starts (true), and its members.

        `earlier` is the change this chunk already made to an event of the tag's category.
        """
        at = tagged[-1].created_at
        members = [summary.id, *(observation_id(owner, turn.id) for turn in tagged)]
        if latest is not None and is_open(latest, at):
            merged = merge_development(latest, tag, at, self._cognition.merge_event)
            event = merged.model_copy(update={"embedding": NOT_EMBEDDED})
            previous = earlier.previous if earlier else None
            kept = earlier.members if earlier else []
            change = EventChange(event=event, previous=previous, members=[*kept, *members])
            return change, False
        event = Event(
            id=event_id(owner, tag.category, tagged[0].id),
            owner=owner,
            text=first_storyline(tag, at),
            created_at=at,
            category=tag.category,
            title=tag.title,
            first_at=at,
            last_at=at,
            timeliness_days=tag.timeliness_days,
            importance=summary.importance,
            attention=initial_attention(summary.importance, at),
            tier=summary.tier,
            embedding=NOT_EMBEDDED,
        )
        previous = None if latest is None else latest.id
        return EventChange(event=event, previous=previous, members=members), True

    def _weighing(
        self, owner: str, fact: Memory, settled: frozenset[str] = frozenset()
    ) -> Weighing:
        """A fact with its related older facts: similar to it, or linked to it.

        Facts still awaiting consolidation are not older facts unless listed in `settled`.
        """
        assert fact.embedding is not None
        limit = self._beliefs.related
        # Conjectures and knowledge are found too, so look further than `limit` for facts.
        similar = self._store.find_similar_memories(owner, fact.embedding, 4 * limit)
        linked = self._store.find_neighbours(
            owner, [fact.id], fact.embedding, window=0, links=limit
        ).memories
        related: dict[str, Memory] = {}
        near: set[str] = set()
        for found in sorted(similar + linked, key=lambda item: (-item.similarity, item.memory.id)):
            memory = found.memory
            if len(related) == limit:
                break
            near.add(memory.id)
            if (
                memory.id != fact.id
                and memory.kind is MemoryKind.OBSERVATION  # what consolidation weighs
                and (not memory.awaiting_consolidation or memory.id in settled)
            ):
                related.setdefault(memory.id, memory)
        return Weighing(fact=fact, nearest=list(related.values()), near=frozenset(near - {fact.id}))

    def _judge(self, batch: list[Weighing]) -> dict[str, list[FactJudgement]]:
        """Each fact's judgements against its older facts, from one model call (or none).

        A batch longer than the model's context (ModelTooLongError) is asked again in halves;
        one the model cannot answer about otherwise (ModelOutputError), a fact a call. A fact it
        cannot answer about alone is missing from the result.
        """
        judgements: dict[str, list[FactJudgement]] = {
            item.fact.id: [] for item in batch if not item.nearest
        }
        judged = [item for item in batch if item.nearest]
        if not judged:
            return judgements
        question = FactComparisons(comparisons=[item.comparison(self._beliefs) for item in judged])
        try:
            verdicts = self._cognition.judge_facts(question).facts
        except ModelOutputError as error:
            if len(judged) == 1:
                log.warning("fact %s waits for a later job: %s", judged[0].fact.id, error)
                return judgements
            parts = [[item] for item in judged]
            if isinstance(error, ModelTooLongError):
                middle = len(judged) // 2
                parts = [judged[:middle], judged[middle:]]
            for part in parts:
                judgements.update(self._judge(part))
            return judgements
        for item, verdict in zip(judged, verdicts, strict=True):
            judgements[item.fact.id] = verdict.judgements
        return judgements

    def _store_settled(
        self, owner: str, settled: list[Settlement], now: datetime, done: Callable[[str], None]
    ) -> Counter[str]:
        """Store facts' settlements at once; tell `done` of each; count their relations."""
        self._store.settle_facts(
            owner, settled, now, beliefs=self._beliefs, attention=self._attention
        )
        counts: Counter[str] = Counter()
        for settlement in settled:
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
