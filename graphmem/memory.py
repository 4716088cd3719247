"""The facade an agent holds: observe what it perceives, recall what relates to a query."""

import gc
import logging
import math
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import zip_longest
from types import TracebackType
from typing import Any, Self, TypeVar

import numpy as np
from pydantic import ValidationError

from graphmem.cognition.base import (
    AttentionLabel,
    AttentionQuestion,
    CausalRule,
    Cognition,
    CountedCognition,
    PerceivedItem,
    PerceptionQuestion,
    Recalled,
    RelatedMemory,
)
from graphmem.cognition.base import (
    Impression as InferredImpression,
)
from graphmem.cognition.offline import OfflineCognition
from graphmem.cognition.openai import OpenAICognition
from graphmem.config import Settings
from graphmem.embedding import CachedEmbedder, E5Embedder, Embedder, OpenAIEmbedder
from graphmem.errors import (
    ConfigurationError,
    ConflictError,
    InvalidInputError,
    ModelError,
    ModelOutputError,
    ModelTooLongError,
)
from graphmem.forgetting import Forget
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
from graphmem.mechanisms.tiers import TierPolicy, depth_for, tier_for
from graphmem.model import (
    MAX_TEXT_CHARS,
    Impression,
    Link,
    LinkType,
    Memory,
    MemoryKind,
    Tier,
    Turn,
    check_identifier,
    check_owner,
    check_speaker,
    check_text,
)
from graphmem.openai_endpoint import Accounting, OpenAIEndpoint, ResponseCache
from graphmem.results import (
    Attempt,
    Forgotten,
    GraphCounts,
    Health,
    Observation,
    OwnerGraph,
    Recall,
    RecalledMemory,
    SleepProgress,
    SleepReport,
    StoreTraffic,
)
from graphmem.retrieval import (
    DEFAULT_PRESET,
    FOCUS_SHARE,
    PRESETS,
    QUERY_EMBEDDING_CHARS,
    Query,
    QueryTurn,
    RecallPolicy,
    Weights,
    score,
)
from graphmem.similarity import inner_products
from graphmem.sleep import AWAITING_BATCH, Sleep
from graphmem.store.base import (
    Derivation,
    Impressed,
    Neighbourhood,
    SimilarMemory,
    Store,
)
from graphmem.store.neo4j import Neo4jStore
from graphmem.store.networkx import NetworkXStore

OBSERVED_FIELDS = {"text", "message_id", "at", "speaker", "session"}
"""What an item given to `observe_many` may say."""
MAX_RECALL = 100
"""The most memories one recall returns."""
MAX_LOAD_ITEMS = 20_000
"""Nodes and edges together that one `load` writes (one transaction); `graphmem import` splits."""

OBSERVE_CHUNK = 64
"""Turns derived together: one batched embedding, one working-memory search, one model call
(`perceive`), one write; fewer once the model's context refuses that many."""
PENDING_PER_OBSERVE = 3
"""How many older pending turns an observe call derives after its own, when the model answers."""

FORGET_ATTEMPTS = 5
"""How often `forget_message` works its change out again when the graph changed meanwhile."""

KNOWLEDGE_IMPORTANCE = 5.0
"""Importance of causal knowledge taught with `learn`."""

log = logging.getLogger("graphmem")

T = TypeVar("T")

Derived = tuple[list[Memory], list[Memory]]
"""What deriving a turn gave: its memories, and the conjectures its impressions made."""


class _Budget:
    """A recall's time budget, from its start, and the steps skipped once it was spent."""

    def __init__(self, seconds: float) -> None:
        if not (_is_number(seconds) and seconds > 0):
            raise InvalidInputError(f"budget_seconds is {seconds!r}; it must be a number above 0")
        self._deadline = time.perf_counter() + seconds
        self.skipped: list[str] = []

    def spent(self, step: str) -> bool:
        """Whether the time is up; if so, `step` is recorded as skipped."""
        if time.perf_counter() < self._deadline:
            return False
        self.skipped.append(step)
        return True


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


@contextmanager
def _as_invalid_input() -> Iterator[None]:
    """Report validation failures of caller input as InvalidInputError."""
    try:
        yield
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, item['loc'])) or 'input'}: "
            + item["msg"].removeprefix("Value error, ")
            for item in error.errors()
        )
        raise InvalidInputError(problems) from None
    except ValueError as error:
        raise InvalidInputError(str(error)) from None


def _is_number(value: object) -> bool:
    """Whether a caller's value is an int or a float (a bool is neither here)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _aware(moment: object) -> datetime:
    """Return a timezone-aware datetime unchanged, else raise ValueError."""
    if not isinstance(moment, datetime):
        raise ValueError(f"at must be a datetime, not {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("at must be timezone-aware")
    return moment


def _query(query: object) -> Query:
    """Return a recall's query as a Query if it is a text or a list of turns, else ValueError."""
    if isinstance(query, str):
        return Query.of(check_text(query))
    if not isinstance(query, Sequence) or not query:
        raise ValueError(
            "query must be a text or a non-empty list of {speaker, text} turns,"
            f" not {type(query).__name__}"
        )
    turns = []
    for index, turn in enumerate(query):
        if isinstance(turn, Mapping) and set(turn) <= {"speaker", "text"} and "text" in turn:
            turns.append(
                QueryTurn(
                    speaker=check_speaker(turn.get("speaker", "")), text=check_text(turn["text"])
                )
            )
        elif isinstance(turn, QueryTurn):
            turns.append(turn)
        else:
            raise ValueError(f"query turn {index} must be {{speaker, text}}, not {turn!r:.80}")
    if sum(len(turn.text) for turn in turns) > MAX_TEXT_CHARS:
        raise ValueError(f"query has more than {MAX_TEXT_CHARS} characters")
    return Query(turns=turns)


def _listed(items: object) -> list[Mapping[str, Any]]:
    """Return a batch of items to observe as a list if it is a non-empty list of mappings."""
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Sequence) or not items:
        raise InvalidInputError("items must be a non-empty list of {text, message_id, ...} maps")
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"item {index} must be a map, not {type(item).__name__}")
        unknown = set(item) - OBSERVED_FIELDS
        if unknown or "text" not in item:
            raise InvalidInputError(
                f"item {index} must have a text and only {sorted(OBSERVED_FIELDS)},"
                f" not {sorted(map(str, item))}"
            )
    return list(items)


def _turn(owner: str, item: Mapping[str, Any]) -> Turn:
    """The pending turn of an item to observe (a new uuid without a message id, now without at)."""
    message_id = item.get("message_id")
    at = item.get("at")
    return Turn(
        id=message_id if message_id is not None else str(uuid.uuid4()),
        owner=owner,
        text=item["text"],
        created_at=_aware(at if at is not None else datetime.now(UTC)),
        speaker=item.get("speaker", "user"),
        session=item.get("session", ""),
        pending=True,
        awaiting_summary=True,
    )


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


def _checked(check: Callable[[object], T], value: object) -> T:
    """Run a model check on caller input, reporting failure as InvalidInputError."""
    with _as_invalid_input():
        return check(value)


class GraphMem:
    """Long-term memory for an agent: `observe` every perceived item, `recall` before answering.

    It owns the store and the embedder it is given: `close()` closes both. `accounting` holds
    the model calls made through an OpenAI-compatible endpoint, when `open` made one.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        cognition: Cognition | None = None,
        *,
        attention: AttentionPolicy | None = None,
        tiers: TierPolicy | None = None,
        recall_policy: RecallPolicy | None = None,
        beliefs: BeliefPolicy | None = None,
        impressions: ImpressionPolicy | None = None,
        summaries: SummaryPolicy | None = None,
        accounting: Accounting | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        cognition = OfflineCognition() if cognition is None else cognition
        self._cognition = CountedCognition(cognition)
        self._cognition_name = cognition_name(cognition)
        self._attention = AttentionPolicy() if attention is None else attention
        self._tiers = TierPolicy() if tiers is None else tiers
        self._recall = RecallPolicy() if recall_policy is None else recall_policy
        self._beliefs = BeliefPolicy() if beliefs is None else beliefs
        self._impressions = ImpressionPolicy() if impressions is None else impressions
        self._summaries = SummaryPolicy() if summaries is None else summaries
        self._sleep = Sleep(
            store,
            embedder,
            self._cognition,
            attention=self._attention,
            tiers=self._tiers,
            beliefs=self._beliefs,
            summaries=self._summaries,
        )
        self._forget = Forget(
            self._cognition, embedder, impressions=self._impressions, tiers=self._tiers
        )
        self.accounting = accounting
        self._unanswered: set[tuple[str, str]] = set()
        """(owner, turn id) of the pending turns the model could not answer about, alone, in
        this process: `complete_pending` leaves them to the sleep job, which asks again."""
        self._chunk_turns = OBSERVE_CHUNK
        """How many turns are derived at once: OBSERVE_CHUNK, halved when the model's context
        refuses a question (ModelTooLongError)."""
        self._unsummarised: dict[str, set[str]] = {}
        """Per owner, the turns of the dialogue chunks the model could not answer about when
        `observe` summarised them in this process: later observes leave them to the sleep job,
        which asks again (without this, every new session asked about every such chunk again)."""
        self._endpoint: OpenAIEndpoint | None = None
        """The endpoint `open` made, closed with the memory (the embedder may use it too)."""

    @classmethod
    def open(
        cls,
        settings: Settings | None = None,
        *,
        cognition: Cognition | None = None,
        embedder: Embedder | None = None,
    ) -> "GraphMem":
        """Open the store, embedder and cognition the settings name (GRAPHMEM_* if not given).

        A `cognition` of your own (any implementation of the Cognition protocol) replaces the
        one the settings name; an `embedder` of your own (any Embedder) replaces theirs, and is
        cached as they say (`embedding_cache`) and closed with the memory.
        """
        settings = Settings.from_env() if settings is None else settings
        if settings.store == "neo4j" and settings.neo4j_password is None:
            raise ConfigurationError("the neo4j store needs GRAPHMEM_NEO4J_PASSWORD")
        model_cognition = cognition is None and settings.cognition == "openai"
        model_embedder = embedder is None and settings.embedder == "openai"
        with ExitStack() as opened:  # what was opened is closed again if a later step fails
            endpoint = _endpoint(settings) if model_cognition or model_embedder else None
            if endpoint is not None:
                opened.callback(endpoint.close)
            if embedder is None:
                embedder = _embedder(settings, endpoint)
            cached = CachedEmbedder(embedder, settings.embedding_cache)
            opened.callback(cached.close)
            if cognition is None:
                cognition = OfflineCognition()
                if endpoint is not None and model_cognition:
                    cognition = OpenAICognition(endpoint, settings.openai_chat_model)
            store: Store
            if settings.store == "neo4j":
                assert settings.neo4j_password is not None
                store = Neo4jStore.connect(
                    settings.neo4j_uri,
                    settings.neo4j_user,
                    settings.neo4j_password,
                    settings.neo4j_database,
                )
            else:
                store = NetworkXStore.open(settings.path)
            opened.callback(store.close)
            store.prepare(cached.dimensions)
            accounting = None if endpoint is None else endpoint.accounting
            memory = cls(store, cached, cognition, accounting=accounting)
            memory._endpoint = endpoint
            opened.pop_all()
        return memory

    def observe(
        self,
        owner: str,
        text: str,
        *,
        message_id: str | None = None,
        at: datetime | None = None,
        speaker: str = "user",
        session: str = "",
    ) -> Observation:
        """Store a perceived item as a Turn, then derive its Memory; one message id stores once.

        The batch of one of `observe_many`, which says what happens.
        """
        item = {
            "text": text,
            "message_id": message_id,
            "at": at,
            "speaker": speaker,
            "session": session,
        }
        [observation] = self.observe_many(owner, [item])
        return observation

    def observe_many(
        self,
        owner: str,
        items: Sequence[Mapping[str, Any]],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Observation]:
        """Store perceived items as Turns in one transaction, then derive their Memories.

        Each item is `{text, message_id, at, speaker, session}` (all but text optional, as in
        `observe`); one message id stores once. The turns are stored, in order, before any model
        call. Their memories are derived OBSERVE_CHUNK turns at a time (fewer when the model's
        context is too small for that many): one batched embedding, one working-memory search,
        one model call (`perceive`) and one store transaction a chunk; a turn's working memory
        holds the hot memories and the earlier turns of its chunk most like it. A chunk the
        model cannot answer about is asked about again turn by turn (in halves when longer than
        its context); the turns it cannot answer about alone stay pending for the sleep job. If
        the model fails otherwise (unreachable, refusing), the turns not derived yet stay
        pending and say so; when the model answers, up to PENDING_PER_OBSERVE older pending
        turns of the owner are derived too. Every `summary_turns` turns of a session, and when a
        new session starts (the ones before have ended), the dialogue that is ready is
        summarised and its events tagged (a model failure leaves that to the sleep job).
        `progress` hears how many of the batch's pending turns are derived, after each chunk.
        Returns one observation per item, in order.
        """
        _checked(check_owner, owner)
        turns = []
        for index, item in enumerate(_listed(items)):
            try:
                with _as_invalid_input():
                    turns.append(_turn(owner, item))
            except InvalidInputError as error:
                if len(items) == 1:
                    raise
                raise InvalidInputError(f"item {index}: {error}") from None
        texts: dict[str, str] = {}
        conflicts = {turn.id for turn in turns if texts.setdefault(turn.id, turn.text) != turn.text}
        if conflicts:
            named = ", ".join(map(repr, sorted(conflicts)))
            raise InvalidInputError(f"message ids {named} come twice with different texts")
        stored = {turn.id: turn for turn in self._store.save_turns(owner, turns)}
        conflicts = {turn.id for turn in turns if stored[turn.id].text != turn.text}
        if conflicts:
            others = " (the batch's other turns are stored, pending)" if len(stored) > 1 else ""
            named = ", ".join(map(repr, sorted(conflicts)))
            many = len(conflicts) > 1
            raise ConflictError(
                f"message id{'s' if many else ''} {named} of owner {owner}"
                f" {'are' if many else 'is'} already stored with another text{others}"
            )
        pending = [turn for turn in stored.values() if turn.pending]
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
                self.complete_pending(owner, limit=PENDING_PER_OBSERVE)
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
            memories, conjectures = derived.get(turn.id, ([], []))
            observations.append(
                Observation(
                    turn=stored[turn.id].model_copy(update={"pending": turn.id in pending_left}),
                    memories=memories,
                    pending=turn.id in pending_left,
                    conjectures=conjectures,
                )
            )
        return observations

    def complete_pending(self, owner: str, *, limit: int = 1000) -> int:
        """Derive the memories of up to `limit` pending turns, oldest first; return how many.

        Stops at the first model failure other than a turn it cannot answer about (the rest
        stays pending for a later try). Turns the model could not answer about alone in this
        process are left to the sleep job: asking again with every observe would pay a failing
        call each time.
        """
        _checked(check_owner, owner)
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

    def learn(
        self,
        owner: str,
        cause: str,
        effect: str,
        sufficiency: float,
        *,
        at: datetime | None = None,
    ) -> None:
        """Teach the owner's memory that `cause` leads to `effect` with this sufficiency (0-1).

        Stored as two knowledge memories joined by CAUSES; impressions use it from then on.
        """
        _checked(check_owner, owner)
        now = _checked(_aware, at if at is not None else datetime.now(UTC))
        with _as_invalid_input():
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

    def consolidate(
        self,
        owner: str,
        *,
        at: datetime | None = None,
        progress: Callable[[SleepProgress], None] | None = None,
    ) -> SleepReport:
        """The sleep job for one owner: pending turns, summaries, consolidation, re-tiering.

        Resumable and idempotent: its work is marked in the graph, each item is written at once
        with its mark cleared, so a run killed at any point and run again ends as one that was
        not, and a run with nothing new changes nothing. `progress` hears about every item. A
        turn the model cannot answer about (ModelOutputError), even alone, stays pending ("left
        pending") and the job goes on; a model that fails otherwise stops it with its ModelError.
        """
        _checked(check_owner, owner)
        now = _checked(_aware, at if at is not None else datetime.now(UTC))
        started = time.perf_counter()
        calls_before = Counter(self._cognition.calls)
        counts: Counter[str] = Counter()
        steps: Counter[str] = Counter()

        def done(step: str) -> None:
            steps[step] += 1
            if progress is not None:
                calls = sum(self._cognition.calls.values()) - sum(calls_before.values())
                progress(
                    SleepProgress(
                        owner=owner,
                        step=step,
                        done=steps[step],
                        model_calls=calls,
                        seconds=time.perf_counter() - started,
                    )
                )

        left: set[str] = set()
        while pending := [
            turn
            for turn in self._store.pending_turns(owner, AWAITING_BATCH + len(left))
            if turn.id not in left
        ]:
            for chunk in self._chunks(pending):
                derived: dict[str, Derived] = {}
                stuck = self._derive_or_leave(owner, chunk, derived)
                left.update(turn.id for turn in stuck)
                for _turn in derived:
                    counts["derived"] += 1
                    done("derived")
        if left:
            counts["left pending"] = len(left)
        counts.update(self._sleep.summarise(owner, everything=True, done=done))
        counts.update(self._sleep.consolidate(owner, now, done=done))
        counts["retiered"] = self.retier(owner, at=now)
        done("re-tier")
        calls = self._cognition.calls - calls_before
        return SleepReport(
            owner=owner,
            counts=dict(counts),
            model_calls=dict(calls),
            seconds=time.perf_counter() - started,
        )

    def owners(self) -> list[str]:
        """Every owner that has a turn stored, sorted."""
        return self._store.owners()

    def export(self, owner: str) -> OwnerGraph:
        """Every node and edge of one owner, in a fixed order."""
        _checked(check_owner, owner)
        return self._store.export(owner)

    def load(self, owner: str, graph: OwnerGraph) -> GraphCounts:
        """Add an exported graph to an owner's memory (nodes already there are kept); count.

        Refuses, storing nothing, nodes of another owner and embeddings whose size is not the
        embedder's (an export made with another embedder).
        """
        _checked(check_owner, owner)
        items = len(graph.nodes) + len(graph.links)
        if items > MAX_LOAD_ITEMS:
            raise InvalidInputError(
                f"the graph holds {items} nodes and edges; load at most {MAX_LOAD_ITEMS} at a"
                " time (nodes before the edges between them)"
            )
        size = self._embedder.dimensions
        for node in graph.nodes:
            embedding = getattr(node, "embedding", None)
            if embedding is not None and len(embedding) != size:
                raise InvalidInputError(
                    f"{type(node).__name__} {node.id} has an embedding of {len(embedding)}"
                    f" numbers; this memory's embedder makes {size}"
                )
        self._store.load(owner, graph)
        return self._store.count_graph(owner)

    def forget(self, owner: str) -> GraphCounts:
        """Delete everything of one owner; returns the counts left, all zero."""
        _checked(check_owner, owner)
        self._store.forget(owner)
        return self._store.count_graph(owner)

    def forget_message(self, owner: str, message_id: str) -> Forgotten:
        """Delete a message and all that derives only from it; derive again what it shared.

        The turn goes with its observation and what only they gave (an impression no other cue
        holds up, its conjectures); summaries and events that it shared with other turns are
        written again without it, impressions accumulated again from their other cues, facts'
        validity set again (forgetting.py says what exactly). Everything else, attention
        included, stays as it was. All is worked out first and written in one transaction: a
        model failure (ModelError) changes nothing, and forgetting a message again finds
        nothing. Embedding-cache entries of the texts that went are dropped.
        """
        _checked(check_owner, owner)
        _checked(check_identifier, message_id)
        for _attempt in range(FORGET_ATTEMPTS):
            provenance = self._store.provenance(owner, message_id)
            if provenance is None:
                return Forgotten(
                    owner=owner, message_id=message_id, found=False, deleted={}, rewritten={}
                )
            forgetting, rewritten = self._forget.forgetting(provenance)
            if self._store.forget_turn(owner, forgetting):
                if isinstance(self._embedder, CachedEmbedder):
                    self._embedder.forget(
                        [provenance.turn.text, *(item.memory.text for item in provenance.memories)]
                    )
                deleted = Counter(label for label, _id in forgetting.deleted)
                return Forgotten(
                    owner=owner,
                    message_id=message_id,
                    found=True,
                    deleted={"Turn": 1, **deleted},
                    rewritten=dict(rewritten),
                )
        raise ConflictError(
            f"message {message_id!r} of owner {owner} changed {FORGET_ATTEMPTS} times while it"
            " was being forgotten (new turns or a sleep job touching it); try again"
        )

    def statistics(self, owner: str) -> GraphCounts:
        """One owner's nodes per label, edges per type, memories per tier and belief."""
        _checked(check_owner, owner)
        return self._store.count_graph(owner)

    def health(self, owner: str, *, at: datetime | None = None) -> Health:
        """One owner's health report at `at` (now if None): counts, work queues and checks."""
        _checked(check_owner, owner)
        now = _checked(_aware, at if at is not None else datetime.now(UTC))
        checks = self._store.count_health(owner)

        def days_before(moment: datetime | None) -> float | None:
            """Days from a moment to `now`, None for no moment."""
            return None if moment is None else (now - moment).total_seconds() / 86_400

        return Health(
            owner=owner,
            at=now,
            embedder=self._embedder.name,
            cognition=self._cognition_name,
            counts=self._store.count_graph(owner),
            checks=checks,
            oldest_conjecture_days=days_before(checks.first_conjecture_at),
            newest_conjecture_days=days_before(checks.last_conjecture_at),
        )

    @property
    def model_calls(self) -> Counter[str]:
        """The cognition calls made so far, by task (failures included)."""
        return Counter(self._cognition.calls)

    @property
    def store_traffic(self) -> StoreTraffic:
        """The store's write transactions and statements so far (since it was opened)."""
        return self._store.traffic()

    def recall(
        self,
        owner: str,
        query: str | Sequence[QueryTurn | Mapping[str, str]],
        *,
        k: int = 10,
        motivation: float | None = None,
        weights: Weights | str = DEFAULT_PRESET,
        peek: bool = False,
        at: datetime | None = None,
        budget_seconds: float | None = None,
    ) -> Recall:
        """The owner's k memories best related to the query, with their turns and reasons.

        The query is a question, or the recent conversation: a list of {speaker, text} turns
        or a text of several lines ("speaker: text" each); its latest turn not spoken by the
        agent weighs most (retrieval.Query). Motivation (0-10; by default the focus's own
        attention label) sets how deep the search goes; when the best relevance stays below
        the sufficiency threshold, recall thinks again with raised motivation. The returned
        memories are used and wake their neighbours, unless `peek` is set. Past its time
        budget (RecallPolicy.budget_seconds unless given) recall stops thinking again and
        skips association, ranks what it has, and names what it skipped in `cut_short`.
        """
        _checked(check_owner, owner)
        asked = _checked(_query, query)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_RECALL:
            raise InvalidInputError(
                f"k is {k!r}; it must be a whole number between 1 and {MAX_RECALL}"
            )
        if motivation is not None and not (_is_number(motivation) and 0 <= motivation <= 10):
            raise InvalidInputError(
                f"motivation is {motivation!r}; it must be a number between 0 and 10"
            )
        if isinstance(weights, str) and weights not in PRESETS:
            raise InvalidInputError(f"no weights preset {weights!r}; presets: {sorted(PRESETS)}")
        if not isinstance(weights, str | Weights):
            raise InvalidInputError(
                f"weights must be a preset name or Weights, not {type(weights).__name__}"
            )
        budget = _Budget(self._recall.budget_seconds if budget_seconds is None else budget_seconds)
        chosen_weights = PRESETS[weights] if isinstance(weights, str) else weights
        now = _checked(_aware, at if at is not None else datetime.now(UTC))
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
            sufficient = best is not None and best >= self._recall.sufficient_relevance
            if sufficient or depth == Tier.DEEP or len(attempts) > self._recall.rethinks:
                break
            if budget.spent("thinking again"):
                break
            motivation = min(10.0, motivation + self._recall.rethink_motivation)
        candidates, seeds = self._candidates(owner, asked, embedding, dense, depth)
        if budget.spent("association"):
            seeds = []  # no neighbours: only the edges among the candidates
        neighbourhood = Neighbourhood(memories=[], links=[])  # nothing found: nothing to read
        if candidates:
            neighbourhood = self._store.find_neighbours(
                owner,
                seeds,
                embedding,
                window=self._recall.association.window,
                links=self._recall.association.links,
                deepest=depth,
                known=[item.memory.id for item in candidates],
            )
        links = neighbourhood.links
        scored = score(
            asked,
            candidates + neighbourhood.memories,
            links,
            now=now,
            weights=chosen_weights,
            policy=self._attention,
            association=self._recall.association,
            limit=k,
        )
        used = [item.memory.id for item in scored]
        links = [link for link in links if link.source in used and link.target in used]
        woken = []
        if not peek and used:
            woken = self._store.wake(owner, used, now, self._attention, self._tiers)
        return Recall(
            owner=owner,
            query=query if isinstance(query, str) else asked.text,
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

    def retier(self, owner: str, *, at: datetime | None = None) -> int:
        """Sink the owner's memories whose attention faded or that overflow a tier (cheap)."""
        _checked(check_owner, owner)
        now = _checked(_aware, at if at is not None else datetime.now(UTC))
        return self._store.retier(owner, now, self._attention, self._tiers)

    def close(self) -> None:
        """Close the store (writing its last snapshot), the embedder and the model endpoint."""
        self._store.close()
        self._embedder.close()
        if self._endpoint is not None:
            self._endpoint.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

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
        limit = self._recall.candidates
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
            owner, query.term_weights(), embedding, self._recall.candidates, depth
        )
        pool = {item.memory.id: item for item in dense}
        for item in lexical:
            pool.setdefault(item.memory.id, item)
        alternating = [
            item.memory.id for pair in zip_longest(dense, lexical) for item in pair if item
        ]
        seeds = list(dict.fromkeys(alternating))[: self._recall.association.seeds]
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
            return self._recall.default_motivation

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

    def _derive(self, owner: str, turns: Sequence[Turn]) -> list[Derived]:
        """Embed, perceive and store stored turns' memories with their impressions, at once.

        One batched embedding, one working-memory search, one `perceive` judgement and one write
        for all the turns. Each turn's working memory is the hot memories and the earlier turns
        of `turns` most similar to it. Returns each turn's memories and the conjectures it made.
        A ModelError leaves every turn as it was (pending).
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
        perceptions = self._cognition.perceive(
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


def cognition_name(cognition: Cognition) -> str:
    """How a health report names a cognition: offline rules, its chat model, or its class."""
    if isinstance(cognition, OfflineCognition):
        return "offline rules"
    if isinstance(cognition, OpenAICognition):
        return f"chat model {cognition.model}"
    return type(cognition).__name__


def _endpoint(settings: Settings) -> OpenAIEndpoint:
    """The OpenAI-compatible endpoint the settings name, for the embedder or the cognition."""
    if settings.openai_api_key is None:
        raise ConfigurationError("the openai embedder and cognition need GRAPHMEM_OPENAI_API_KEY")
    cache = settings.openai_response_cache
    return OpenAIEndpoint(
        settings.openai_base_url,
        settings.openai_api_key,
        timeout_seconds=settings.openai_timeout_seconds,
        max_retries=settings.openai_max_retries,
        backoff_seconds=settings.openai_backoff_seconds,
        max_concurrent=settings.openai_max_concurrent,
        json_mode=None if settings.openai_json_mode == "auto" else settings.openai_json_mode,
        cache=None if cache is None else ResponseCache(cache),
        max_tokens=settings.openai_max_tokens,
    )


def _embedder(settings: Settings, endpoint: OpenAIEndpoint | None) -> Embedder:
    """The embedder the settings name."""
    if settings.embedder == "openai" and endpoint is not None:
        return OpenAIEmbedder(
            endpoint, settings.openai_embedding_model, settings.openai_embedding_dimensions
        )
    return E5Embedder()
