"""The observe pipeline: turns stored, then their memories derived a chunk at a time.

A turn whose message was forgotten earlier (its id has a tombstone) is not stored, unless the
caller readmits it (its tombstone is deleted). A chunk of turns (the facade's OBSERVE_CHUNK,
fewer when the model's context is too small for that many) is embedded at once, each turn's
working memory found (the hot memories and the chunk's earlier turns most like it), the
cognition asked once what each turn deserves (`perceive`: attention, related memories,
impressions), and the memories, links and impressions written in one transaction. A chunk the
model cannot answer about is asked about again turn by turn (in halves when longer than its
context); the turns it cannot answer about alone stay pending for the sleep job. If the model
fails otherwise (unreachable, refusing), the turns not derived yet stay pending and say so, for
a later observe, `complete_pending` or the sleep job; when the model answers, a few older
pending turns of the owner are derived too (PENDING_PER_OBSERVE). Every `summary_turns` turns of
a session, and when a new session starts (the ones before have ended), the dialogue that is
ready is summarised and its events tagged (a model failure leaves that to the sleep job).
"""

import gc
import logging
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from graphmem.cognition.base import (
    CausalRule,
    CountedCognition,
    PerceivedItem,
    PerceptionQuestion,
    Recalled,
)
from graphmem.cognition.base import (
    Impression as InferredImpression,
)
from graphmem.cognition.offline import OfflineCognition
from graphmem.contract import Observation
from graphmem.embedding import Embedder
from graphmem.errors import (
    ConflictError,
    ModelError,
    ModelOutputError,
    ModelTooLongError,
    as_invalid_input,
)
from graphmem.ids import impression_id, knowledge_id, observation_id
from graphmem.mechanisms.attention import (
    WORKING_MEMORY,
    AttentionPolicy,
    current_attention,
    initial_attention,
)
from graphmem.mechanisms.beliefs import BeliefPolicy
from graphmem.mechanisms.events import SummaryPolicy
from graphmem.mechanisms.impressions import ImpressionPolicy, conjecture_memory
from graphmem.mechanisms.tiers import TierPolicy, tier_for
from graphmem.model import Impression, Link, LinkType, Memory, MemoryKind, Turn, check_text
from graphmem.similarity import inner_products
from graphmem.sleep import AWAITING_BATCH, Sleep
from graphmem.store.base import Store
from graphmem.store.changes import Derivation, Impressed
from graphmem.store.findings import SimilarMemory

PENDING_PER_OBSERVE = 3
"""How many older pending turns an observe call derives after its own, when the model answers."""

KNOWLEDGE_IMPORTANCE = 5.0
"""Importance of causal knowledge taught with `learn`."""

log = logging.getLogger("graphmem")

Derived = tuple[list[Memory], list[Memory]]
"""What deriving a turn gave: its memories, and the conjectures its impressions made."""


class Ingestion:
    """One memory's observe pipeline, and what it learnt of its model in this process.

    It remembers the turns the model could not answer about alone (left to the sleep job), how
    many turns the model's context takes at once, and the dialogue it could not summarise.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        cognition: CountedCognition,
        sleep: Sleep,
        *,
        offline: OfflineCognition,
        chunk_turns: int,
        attention: AttentionPolicy,
        tiers: TierPolicy,
        beliefs: BeliefPolicy,
        impressions: ImpressionPolicy,
        summaries: SummaryPolicy,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._cognition = cognition
        self._sleep = sleep
        self._attention = attention
        self._tiers = tiers
        self._beliefs = beliefs
        self._impressions = impressions
        self._summaries = summaries
        self._unanswered: set[tuple[str, str]] = set()
        """(owner, turn id) of the pending turns the model could not answer about, alone, in
        this process: `complete_pending` leaves them to the sleep job, which asks once more."""
        self._offline = offline
        """Perceives a turn the model cannot answer about even alone, asked twice."""
        self._chunk_turns = chunk_turns
        """How many turns are derived at once: `chunk_turns`, halved when the model's context
        refuses a question (ModelTooLongError)."""
        self._unsummarised: dict[str, set[str]] = {}
        """Per owner, the turns of the dialogue chunks the model could not answer about when
        `observe` summarised them in this process: later observes leave them to the sleep job,
        which asks again (without this, every new session asked about every such chunk again)."""

    def observe(
        self,
        owner: str,
        turns: list[Turn],
        progress: Callable[[int], None] | None,
        *,
        readmit_forgotten: bool,
    ) -> list[Observation]:
        """Store checked turns in one transaction, derive their memories; one observation each.

        GraphMem.observe_many says what happens.
        """
        saved = self._store.save_turns(owner, turns, readmit_forgotten=readmit_forgotten)
        stored = {turn.id: turn for turn in saved}
        # The store leaves out the turns of messages forgotten earlier (unless readmitted).
        forgotten = {turn.id for turn in turns if turn.id not in stored}
        conflicts = {
            turn.id for turn in turns if turn.id in stored and stored[turn.id].text != turn.text
        }
        if conflicts:
            others = " (the batch's other turns are stored, pending)" if len(stored) > 1 else ""
            named = ", ".join(map(repr, sorted(conflicts)))
            many = len(conflicts) > 1
            raise ConflictError(
                f"message id{'s' if many else ''} {named} of owner {owner}"
                f" {'are' if many else 'is'} already stored with another text{others}"
            )
        pending = [turn for turn in stored.values() if turn.pending]
        # A new turn is stored pending: one that is not was stored and derived by an earlier call.
        already = {turn.id for turn in stored.values() if not turn.pending}
        derived: dict[str, Derived] = {}
        with _collector_paused():
            for chunk in self._chunks(pending):
                try:
                    self._derive_or_leave(owner, chunk, derived)
                except ModelError as error:
                    left = len(pending) - len(derived)
                    log.warning("%d turns of %s stay pending: %s", left, owner, error)
                    break
                if progress is not None:
                    progress(len(derived))
            pending_left = {turn.id for turn in pending} - set(derived)
            if derived:
                self.complete_pending(owner, PENDING_PER_OBSERVE)
                if any(self._readies_dialogue(stored[turn_id]) for turn_id in derived):
                    try:
                        self._sleep.summarise(
                            owner,
                            everything=False,
                            done=lambda _item: None,
                            left=self._unsummarised.setdefault(owner, set()),
                        )
                    except ModelError as error:
                        log.warning(
                            "dialogue of %s waits for the sleep job's summary: %s", owner, error
                        )
        observations = []
        for turn in turns:
            if turn.id in forgotten:
                observations.append(
                    Observation(
                        turn=turn.model_copy(update={"pending": False}),
                        memories=[],
                        pending=False,
                        forgotten=True,
                    )
                )
                continue
            memories, conjectures = derived.get(turn.id, ([], []))
            observations.append(
                Observation(
                    turn=stored[turn.id].model_copy(update={"pending": turn.id in pending_left}),
                    memories=memories,
                    pending=turn.id in pending_left,
                    conjectures=conjectures,
                    already_stored=turn.id in already,
                )
            )
        return observations

    def complete_pending(self, owner: str, limit: int) -> int:
        """Derive the memories of up to `limit` pending turns, oldest first; return how many.

        GraphMem.complete_pending says which.
        """
        derived: dict[str, Derived] = {}
        pending = [
            turn
            for turn in self._store.pending_turns(owner, limit + len(self._unanswered))
            if (owner, turn.id) not in self._unanswered
        ]
        for chunk in self._chunks(pending[:limit]):
            try:
                self._derive_or_leave(owner, chunk, derived)
            except ModelError as error:
                log.warning("pending turns of %s wait for the model: %s", owner, error)
                break
        return len(derived)

    def derive_all_pending(self, owner: str, done: Callable[[str], None]) -> Counter[str]:
        """Derive every pending turn, each heard by `done`; count them "derived".

        A turn the model cannot answer about even alone, asked once more here, is perceived by
        the offline cognition instead, its memory marked `offline` (counted "derived offline"):
        so no night asks the model about it again.
        """
        counts: Counter[str] = Counter()
        while pending := self._store.pending_turns(owner, AWAITING_BATCH):
            for chunk in self._chunks(pending):
                derived: dict[str, Derived] = {}
                stuck = self._derive_or_leave(owner, chunk, derived)
                for turn in stuck:
                    log.warning("turn %s of %s is perceived offline", turn.id, owner)
                    self._derive(owner, [turn], offline=True)
                    self._unanswered.discard((owner, turn.id))
                    counts["derived offline"] += 1
                    done("derived offline")
                for _turn in derived:
                    counts["derived"] += 1
                    done("derived")
        return counts

    def learn(self, owner: str, cause: str, effect: str, sufficiency: float, now: datetime) -> None:
        """Store `cause` and `effect` as knowledge memories joined by CAUSES."""
        with as_invalid_input():
            for text in (cause, effect):  # before embedding: a megabyte would take minutes
                check_text(text)
            embeddings = self._embedder.embed([cause, effect], "passage")
            memories = [
                Memory(
                    id=knowledge_id(owner, text),
                    owner=owner,
                    text=text,
                    created_at=now,
                    kind=MemoryKind.KNOWLEDGE,
                    importance=KNOWLEDGE_IMPORTANCE,
                    attention=initial_attention(KNOWLEDGE_IMPORTANCE, now),
                    tier=tier_for(KNOWLEDGE_IMPORTANCE, self._tiers),
                    embedding=embedding,
                    accessed_at=now,
                )
                for text, embedding in zip([cause, effect], embeddings, strict=True)
            ]
            causes = Link(
                type=LinkType.CAUSES,
                source=memories[0].id,
                target=memories[1].id,
                sufficiency=sufficiency,
            )
        self._store.save_knowledge(owner, memories, [causes])

    def _readies_dialogue(self, turn: Turn) -> bool:
        """Whether a new turn makes dialogue ready to summarise.

        It does when it opens a session (the ones before have ended) or completes
        `summary_turns` turns of its session.
        """
        if turn.position is None:
            return False
        return turn.position == 0 or (turn.position + 1) % self._summaries.summary_turns == 0

    def _chunks(self, turns: Sequence[Turn]) -> Iterator[Sequence[Turn]]:
        """The turns in order, as many at a time as are derived at once (read for each chunk)."""
        start = 0
        while start < len(turns):
            chunk = turns[start : start + self._chunk_turns]
            yield chunk
            start += len(chunk)

    def _derive_or_leave(
        self, owner: str, turns: Sequence[Turn], derived: dict[str, Derived]
    ) -> list[Turn]:
        """Derive pending turns into `derived` (by turn id); return those left pending.

        Turns the model cannot answer about together (ModelOutputError: an invalid or cut-off
        answer) are derived again turn by turn, so that one turn the model cannot answer about
        holds back no other; a question longer than the model's context (ModelTooLongError) is
        asked again in halves, and when both halves were answered whole, half as many turns are
        derived at once from then on. The turns the model cannot answer about alone are left
        pending and noted, not asked about again by `complete_pending`. A model that fails
        otherwise (unreachable, refusing) raises its ModelError: the turns not derived yet stay
        pending, those derived before it are in `derived`.
        """

        def derive(part: Sequence[Turn]) -> tuple[list[Turn], bool]:
            """The turns of `part` left pending, and whether one question derived it all."""
            try:
                results = self._derive(owner, part)
            except ModelOutputError as error:
                if len(part) == 1:
                    log.warning("turn %s of %s stays pending: %s", part[0].id, owner, error)
                    self._unanswered.add((owner, part[0].id))
                    return list(part), False
                too_long = isinstance(error, ModelTooLongError)
                size = (len(part) + 1) // 2 if too_long else 1
                outcomes = [derive(part[at : at + size]) for at in range(0, len(part), size)]
                if (
                    too_long
                    and all(whole for _left, whole in outcomes)
                    and size < self._chunk_turns
                ):
                    self._chunk_turns = size
                    log.warning("deriving %d turns at a time from now on: %s", size, error)
                return [turn for left, _whole in outcomes for turn in left], False
            self._unanswered.difference_update((owner, turn.id) for turn in part)
            derived.update(zip((turn.id for turn in part), results, strict=True))
            return [], True

        return derive(turns)[0]

    def _derive(self, owner: str, turns: Sequence[Turn], *, offline: bool = False) -> list[Derived]:
        """Embed, perceive and store stored turns' memories with their impressions, at once.

        One batched embedding, one working-memory search, one `perceive` judgement and one write
        for all the turns. Each turn's working memory is the hot memories and the earlier turns
        of `turns` most similar to it. Returns each turn's memories and the conjectures it made.
        A ModelError leaves every turn as it was (pending). `offline`: the offline cognition
        perceives them, and their memories say so.
        """
        embeddings = self._embedder.embed([turn.text for turn in turns], "passage")
        found = self._store.working_memories(owner, embeddings, WORKING_MEMORY)
        rules = [
            CausalRule(cause=rule.cause, effect=rule.effect, sufficiency=rule.sufficiency)
            for rule in self._store.causal_rules(owner)
        ]
        among = _cosines(embeddings)
        ids = [observation_id(owner, turn.id) for turn in turns]
        working_memories = [
            _working_memory(
                stored, [(ids[earlier], among[index][earlier]) for earlier in range(index)]
            )
            for index, stored in enumerate(found)
        ]
        items = [
            PerceivedItem(
                item=turn.text,
                speaker=turn.speaker,
                working_memory=[
                    Recalled(
                        text=entry.memory.text,
                        attention=current_attention(
                            entry.memory.attention, turn.created_at, self._attention
                        ),
                    )
                    if isinstance(entry, SimilarMemory)
                    else Recalled(text=turns[entry.index].text, attention=None, earlier=entry.index)
                    for entry in working_memory
                ],
            )
            for turn, working_memory in zip(turns, working_memories, strict=True)
        ]
        belief = self._beliefs.first_hand
        cognition = self._offline if offline else self._cognition
        perceptions = cognition.perceive(
            PerceptionQuestion(items=items, belief=belief, rules=rules)
        ).items
        statements = [
            item.statement for perception in perceptions for item in perception.impressions
        ]
        vectors = iter(self._embedder.embed(statements, "passage") if statements else [])
        derivations = []
        for turn, memory_id, embedding, working_memory, perception in zip(
            turns, ids, embeddings, working_memories, perceptions, strict=True
        ):
            memory = Memory(
                id=memory_id,
                owner=owner,
                text=turn.text,
                created_at=turn.created_at,
                kind=MemoryKind.OBSERVATION,
                importance=perception.score,
                attention=initial_attention(perception.score, turn.created_at),
                tier=tier_for(perception.score, self._tiers),
                belief=belief,
                embedding=embedding,
                accessed_at=turn.created_at,
                awaiting_consolidation=True,
                offline=offline,
            )
            links = [
                Link(
                    type=LinkType.RELATED,
                    source=memory.id,
                    target=_memory_id(working_memory[relation.index]),
                    weight=relation.strength,
                )
                for relation in perception.related
                if relation.index < len(working_memory)
            ]
            impressions = [
                self._impressed(turn, memory, item, next(vectors))
                for item in perception.impressions
            ]
            derivations.append(
                Derivation(source=turn, memories=[memory], links=links, impressions=impressions)
            )
        conjectures = self._store.save_memories(owner, derivations, self._impressions)
        return [
            (derivation.memories, made)
            for derivation, made in zip(derivations, conjectures, strict=True)
        ]

    def _impressed(
        self, turn: Turn, memory: Memory, item: InferredImpression, embedding: list[float]
    ) -> Impressed:
        """An impression a turn's memory gives, with the conjecture it would make."""
        impression = Impression(
            id=impression_id(turn.owner, item.statement),
            owner=turn.owner,
            text=item.statement,
            created_at=turn.created_at,
            belief=item.belief,
            belief_at=turn.created_at,
            half_life_days=item.half_life_days,
            embedding=embedding,
        )
        conjecture = conjecture_memory(
            impression,
            turn.id,
            turn.created_at,
            importance=memory.importance,
            belief=item.belief,
            tiers=self._tiers,
        )
        return Impressed(impression=impression, conjecture=conjecture)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector, if it runs, until the block ends.

    Deriving a batch builds hundreds of thousands of small objects (models, questions, rows,
    edges) and keeps many in the graph; the collector, woken every 700 of them, would walk the
    ever larger set of live objects again and again (about a fifth of an import's time on the
    embedded store). Reference counting still frees what is dropped; the collector resumes
    after the block, and finds there the cycles the block left.
    """
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()


def _cosines(embeddings: Sequence[Sequence[float]]) -> list[list[float]]:
    """The cosine similarity of every pair of embeddings, as a square matrix."""
    matrix = np.array(embeddings, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1)
    unit = matrix / np.where(norms == 0.0, 1.0, norms)[:, None]
    similarities: list[list[float]] = inner_products(unit, unit).tolist()
    return similarities


@dataclass(frozen=True)
class _Earlier:
    """An earlier turn of a batch in a later one's working memory: its place, its memory's id."""

    index: int
    id: str


def _working_memory(
    stored: list[SimilarMemory], earlier: list[tuple[str, float]]
) -> list[SimilarMemory | _Earlier]:
    """The WORKING_MEMORY most similar of the hot memories found and of a batch's earlier turns.

    The earlier turns come as (memory id, similarity), in their order; best first, ties by id.
    """
    entries: list[tuple[float, str, SimilarMemory | _Earlier]] = [
        (found.similarity, found.memory.id, found) for found in stored
    ]
    entries += [
        (similarity, memory_id, _Earlier(index=index, id=memory_id))
        for index, (memory_id, similarity) in enumerate(earlier)
    ]
    entries.sort(key=lambda entry: (-entry[0], entry[1]))
    return [entry for _similarity, _id, entry in entries[:WORKING_MEMORY]]


def _memory_id(entry: SimilarMemory | _Earlier) -> str:
    """The id of the memory a working-memory entry stands for."""
    return entry.memory.id if isinstance(entry, SimilarMemory) else entry.id
