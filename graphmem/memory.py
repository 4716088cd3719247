"""The facade an agent holds: observe what it perceives, recall what relates to a query.

`GraphMem` opens and closes what a memory is made of (store, embedder, cognition), checks what
callers give its verbs, and hands the work to the pipelines: graphmem.ingestion (observe),
graphmem.recall_pipeline (recall), graphmem.sleep (consolidate) and graphmem.forgetting
(forget_message). Each verb runs in a block of the memory's telemetry (graphmem.telemetry), which
reports nothing unless the settings ask for OpenTelemetry. What the verbs take and return is in
graphmem.contract.
"""

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Self

from graphmem.cognition.base import Cognition
from graphmem.config import Settings
from graphmem.contract import (
    LEASE,
    EventEntry,
    Forgotten,
    GraphCounts,
    Health,
    ImpressionEntry,
    Limit,
    NightProgress,
    NightReport,
    NodeNeighbourhood,
    NodeWanted,
    Observation,
    OwnerGraph,
    Profile,
    QueryTurn,
    Recall,
    RecallQuestion,
    SleepProgress,
    SleepReport,
    StoreTraffic,
    TimelineEntry,
    TimelinePage,
    TimelineWanted,
    TurnsWanted,
    options_of,
    page_cursor,
)
from graphmem.embedding import Embedder
from graphmem.errors import as_invalid_input
from graphmem.health import health_report
from graphmem.inputs import (
    check_loadable,
    checked,
    moment_or_now,
    observed_turns,
    query_of,
)
from graphmem.key_verbs import KeyVerbs
from graphmem.mechanisms.attention import AttentionPolicy, current_attention
from graphmem.mechanisms.beliefs import BeliefPolicy
from graphmem.mechanisms.events import SummaryPolicy, is_open, open_until
from graphmem.mechanisms.impressions import ImpressionPolicy, decayed_belief
from graphmem.mechanisms.profile import ProfilePolicy
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.model import (
    Event,
    Impression,
    Memory,
    Turn,
    check_identifier,
    check_owner,
    check_session,
)
from graphmem.nightly import NightlyJob, check_options
from graphmem.openai_endpoint import Accounting, OpenAIEndpoint
from graphmem.opening import open_parts, wire_pipelines
from graphmem.recall_pipeline import Budget
from graphmem.scoring import RecallPolicy
from graphmem.store.base import Store
from graphmem.telemetry import Telemetry, Verb

MAX_LOAD_ITEMS = 20_000
"""Nodes and edges together that one `load` writes (one transaction); `graphmem import` splits."""

OBSERVE_CHUNK = 64
"""Turns derived together: one batched embedding, one working-memory search, one model call
(`perceive`), one write; fewer once the model's context refuses that many."""


class GraphMem(KeyVerbs):
    """Long-term memory for an agent: `observe` every perceived item, `recall` before answering.

    It owns the store and the embedder it is given: `close()` closes both. `accounting` holds
    the model calls made through an OpenAI-compatible endpoint, when `open` made one. Its verbs
    report to `telemetry` (graphmem.telemetry; by default nothing is reported).
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
        profile: ProfilePolicy | None = None,
        accounting: Accounting | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        self._store = store
        self._telemetry = Telemetry() if telemetry is None else telemetry
        self._embedder = embedder
        self._parts = wire_pipelines(
            store,
            embedder,
            cognition,
            chunk_turns=OBSERVE_CHUNK,
            attention=attention,
            tiers=tiers,
            recall_policy=recall_policy,
            beliefs=beliefs,
            impressions=impressions,
            summaries=summaries,
            profile=profile,
        )
        """The cognition, the policies and the pipelines the verbs hand their work to."""
        self.accounting = accounting
        self._endpoint: OpenAIEndpoint | None = None
        """The endpoint `open` made, closed with the memory (the embedder may use it too)."""

    @classmethod
    def open(
        cls,
        settings: Settings | None = None,
        *,
        cognition: Cognition | None = None,
        embedder: Embedder | None = None,
        telemetry: Telemetry | None = None,
    ) -> "GraphMem":
        """Open the store, embedder and cognition the settings name (GRAPHMEM_* if not given).

        A `cognition` of your own (any implementation of the Cognition protocol) replaces the
        one the settings name; an `embedder` of your own (any Embedder) replaces theirs, and is
        cached as they say (`embedding_cache`) and closed with the memory; a `telemetry`
        (graphmem.telemetry.OtelTelemetry with providers of your own) replaces theirs.
        """
        settings = Settings.from_env() if settings is None else settings
        parts = open_parts(settings, cognition=cognition, embedder=embedder, telemetry=telemetry)
        accounting = None if parts.endpoint is None else parts.endpoint.accounting
        memory = cls(
            parts.store,
            parts.embedder,
            parts.cognition,
            accounting=accounting,
            telemetry=parts.telemetry,
        )
        memory._endpoint = parts.endpoint
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
        readmit_forgotten: bool = False,
    ) -> Observation:
        """Store a perceived item as a Turn, then derive its Memory; one message id stores once.

        The batch of one of `observe_many`, which says what happens (a message forgotten
        earlier is not stored again unless `readmit_forgotten`).
        """
        item = dict(text=text, message_id=message_id, at=at, speaker=speaker, session=session)
        with self._telemetry.verb("observe", owner) as verb:
            [observation] = self._observe(owner, [item], None, readmit_forgotten, verb)
            return observation

    def observe_many(
        self,
        owner: str,
        items: Sequence[Mapping[str, Any]],
        *,
        progress: Callable[[int], None] | None = None,
        readmit_forgotten: bool = False,
    ) -> list[Observation]:
        """Store perceived items as Turns in one transaction, then derive their Memories.

        Each item is `{text, message_id, at, speaker, session}` (all but text optional, as in
        `observe`); one message id stores once (observed again once derived, its observation
        says `already_stored`), and a message forgotten earlier not at all (its observation says
        `forgotten`), unless `readmit_forgotten` stores it afresh. The turns are stored, in
        order, before any model call; a turn the model fails on stays pending and says so
        (graphmem.ingestion says how memories are derived, OBSERVE_CHUNK turns a model call).
        `progress` hears how many of the batch's pending turns are derived, after each chunk.
        Returns one observation per item, in order.
        """
        with self._telemetry.verb("observe_many", owner) as verb:
            return self._observe(owner, items, progress, readmit_forgotten, verb)

    def _observe(
        self,
        owner: str,
        items: Sequence[Mapping[str, Any]],
        progress: Callable[[int], None] | None,
        readmit_forgotten: bool,
        verb: Verb,
    ) -> list[Observation]:
        """The work of `observe_many`, told to the verb it runs in."""
        checked(check_owner, owner)
        turns = observed_turns(owner, items)
        observations = self._parts.ingestion.observe(
            owner, turns, progress, readmit_forgotten=readmit_forgotten
        )
        pending = sum(observation.pending for observation in observations)
        verb.observed(turns=len(observations), pending=pending)
        return observations

    def complete_pending(self, owner: str, *, limit: int = 1000) -> int:
        """Derive the memories of up to `limit` pending turns, oldest first; return how many.

        Stops at the first model failure other than a turn it cannot answer about (the rest
        stays pending for a later try). Turns the model could not answer about alone in this
        process are left to the sleep job: asking again with every observe would pay a failing
        call each time.
        """
        with self._telemetry.verb("complete_pending", owner):
            checked(check_owner, owner)
            wanted = options_of(Limit, limit=limit)
            return self._parts.ingestion.complete_pending(owner, wanted.limit)

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
        with self._telemetry.verb("learn", owner):
            checked(check_owner, owner)
            now = moment_or_now(at)
            self._parts.ingestion.learn(owner, cause, effect, sufficiency, now)

    def consolidate(
        self,
        owner: str,
        *,
        at: datetime | None = None,
        progress: Callable[[SleepProgress], None] | None = None,
    ) -> SleepReport:
        """The sleep job for one owner: pending turns, summaries, consolidation, re-tiering.

        Resumable and idempotent (graphmem.sleep says how); `progress` hears about every item. A
        turn the model cannot answer about even alone is perceived by the offline cognition (its
        memory marked `offline`); a model that fails otherwise stops the job with its ModelError.
        """
        with self._telemetry.verb("consolidate", owner):
            checked(check_owner, owner)
            now = moment_or_now(at)
            derive = self._parts.ingestion.derive_all_pending
            return self._parts.sleep.run(owner, now, derive_pending=derive, progress=progress)

    def consolidate_all(
        self,
        *,
        at: datetime | None = None,
        prefix: str = "",
        workers: int = 1,
        lease: timedelta = LEASE,
        progress: Callable[[SleepProgress | NightProgress], None] | None = None,
    ) -> NightReport:
        """The sleep job for every owner whose name starts with `prefix`, by `workers` threads.

        Owners are claimed with leases kept in the store, so that jobs elsewhere sharing it take
        other owners and a dead worker's owners are taken over (graphmem.nightly says how); an
        owner whose job fails is reported and the job goes on. `progress` hears every item and
        every owner claimed or ended, one at a time.
        """
        with self._telemetry.verb("consolidate_all"):
            check_options(prefix, workers, lease)
            moment = None if at is None else moment_or_now(at)
            owners = [owner for owner in self._store.owners() if owner.startswith(prefix)]

            def consolidate(owner: str, told: Callable[[SleepProgress], None]) -> SleepReport:
                return self.consolidate(owner, at=moment, progress=told)

            job = NightlyJob(
                self._store, consolidate, lease=lease, progress=progress, telemetry=self._telemetry
            )
            return job.run(owners, workers)

    def owners(self) -> list[str]:
        """Every owner that has a turn stored, sorted."""
        with self._telemetry.verb("owners"):
            return self._store.owners()

    def export(self, owner: str) -> OwnerGraph:
        """Every node and edge of one owner, in a fixed order."""
        with self._telemetry.verb("export", owner):
            checked(check_owner, owner)
            return self._store.export(owner)

    def load(self, owner: str, graph: OwnerGraph) -> GraphCounts:
        """Add an exported graph to an owner's memory (nodes already there are kept); count.

        Refuses, storing nothing, nodes of another owner and embeddings whose size is not the
        embedder's (an export made with another embedder).
        """
        with self._telemetry.verb("load", owner):
            checked(check_owner, owner)
            check_loadable(graph, self._embedder.dimensions, MAX_LOAD_ITEMS)
            self._store.load(owner, graph)
            return self._store.count_graph(owner)

    def forget(self, owner: str) -> GraphCounts:
        """Delete everything of one owner, tombstones included; returns the counts left, zero."""
        with self._telemetry.verb("forget", owner):
            checked(check_owner, owner)
            self._store.forget(owner)
            return self._store.count_graph(owner)

    def forget_message(self, owner: str, message_id: str) -> Forgotten:
        """Delete a message and all that derives only from it; derive again what it shared.

        What it shared is derived again without it (graphmem.forgetting says what exactly);
        attention elsewhere stays as it was. All is worked out first and written in one
        transaction: a model failure (ModelError) changes nothing. Embedding-cache entries of
        the texts that went are dropped. The message's id leaves a tombstone (its hash), so
        that observing it again stores nothing.
        """
        with self._telemetry.verb("forget_message", owner):
            checked(check_owner, owner)
            checked(check_identifier, message_id)
            return self._parts.forget.forget_message(owner, message_id)

    def turns(self, owner: str, *, session: str = "", last: int | None = None) -> list[Turn]:
        """The turns of one session in the order received: all, or the `last` of them.

        A session's history as stored ("" is the turns observed without a session); a turn's
        id is its message id, which `forget_message` takes. No model call, no change.
        """
        with self._telemetry.verb("turns", owner):
            checked(check_owner, owner)
            checked(check_session, session)
            wanted = options_of(TurnsWanted, session=session, last=last)
            return self._store.session_turns(owner, session, wanted.last)

    def timeline(
        self,
        owner: str,
        *,
        kinds: Sequence[str] | None = None,
        tiers: Sequence[int] | None = None,
        session: str | None = None,
        speaker: str | None = None,
        contains: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        at: datetime | None = None,
        before: str | None = None,
        limit: int = 50,
    ) -> TimelinePage:
        """A page of the owner's memories, newest first, each with its turns and attention at `at`.

        Memories of every kind, those each condition given admits: of `kinds`, in `tiers`, of
        `session`, said by `speaker`, a text that `contains` (case ignored), made in [`since`,
        `until`). The page's `next`, given as `before`, reads the page after it: a page costs
        the same however deep into the timeline it is, and no answer holds the whole owner.
        No model call, no change.
        """
        with self._telemetry.verb("timeline", owner):
            checked(check_owner, owner)
            wanted = options_of(
                TimelineWanted,
                kinds=kinds,
                tiers=tiers,
                session=session,
                speaker=speaker,
                contains=contains,
                since=since,
                until=until,
                at=at,
                before=before,
                limit=limit,
            )
            now = moment_or_now(wanted.at)
            found = self._store.timeline(owner, wanted, wanted.limit + 1)
            entries = [
                TimelineEntry(
                    memory=memory,
                    turns=turns,
                    attention=current_attention(memory.attention, now, self._parts.attention),
                )
                for memory, turns in found[: wanted.limit]
            ]
            more = len(found) > wanted.limit
            cursor = page_cursor(entries[-1].memory) if more else None
            return TimelinePage(owner=owner, at=now, entries=entries, next=cursor)

    def neighbourhood(
        self, owner: str, node_id: str, *, label: str = "Memory"
    ) -> NodeNeighbourhood:
        """A node (a memory unless `label` says Turn, Event or Impression), its neighbours, edges.

        Every node one edge away from it, by label and id, and those edges; memories without
        their embeddings. Empty when the owner has no such node. No model call, no change.
        """
        with self._telemetry.verb("neighbourhood", owner):
            checked(check_owner, owner)
            wanted = options_of(NodeWanted, node_id=node_id, label=label)
            graph = self._store.neighbourhood(owner, wanted.label, wanted.node_id)
            return NodeNeighbourhood(
                owner=owner,
                node_id=wanted.node_id,
                label=wanted.label,
                turns=[node for node in graph.nodes if isinstance(node, Turn)],
                memories=[node for node in graph.nodes if isinstance(node, Memory)],
                events=[node for node in graph.nodes if isinstance(node, Event)],
                impressions=[node for node in graph.nodes if isinstance(node, Impression)],
                links=[link for _source, _target, link in graph.links],
            )

    def events(self, owner: str, *, at: datetime | None = None) -> list[EventEntry]:
        """Every event of the owner begun by `at` (now), open or closed, latest update first.

        Each with its storyline (the event's text, as it stands now: developments after `at`
        included), the memories PART_OF it, until when news joins it and whether it still would
        at `at`, and its attention then. No model call, no change.
        """
        with self._telemetry.verb("events", owner):
            checked(check_owner, owner)
            now = moment_or_now(at)
            return [
                EventEntry(
                    event=event,
                    memories=memories,
                    open_until=open_until(event),
                    open=is_open(event, now),
                    attention=current_attention(event.attention, now, self._parts.attention),
                )
                for event, memories in self._store.events(owner)
                if event.first_at <= now
            ]

    def impressions(self, owner: str, *, at: datetime | None = None) -> list[ImpressionEntry]:
        """Every impression of the owner made by `at` (now), its belief then, strongest first.

        Each with the memories it was inferred from (cues) and the conjectures it made counted;
        its belief halves every half-life from when it was set (one set after `at` is read as
        set). No model call, no change.
        """
        with self._telemetry.verb("impressions", owner):
            checked(check_owner, owner)
            now = moment_or_now(at)
            entries = [
                ImpressionEntry(
                    impression=impression,
                    belief=decayed_belief(impression, now),
                    cues=cues,
                    conjectures=conjectures,
                )
                for impression, cues, conjectures in self._store.impressions(owner)
                if impression.created_at <= now
            ]
            return sorted(entries, key=lambda entry: (-entry.belief, entry.impression.id))

    def statistics(self, owner: str) -> GraphCounts:
        """One owner's nodes per label, edges per type, memories per tier and belief."""
        with self._telemetry.verb("statistics", owner):
            checked(check_owner, owner)
            return self._store.count_graph(owner)

    def health(self, owner: str, *, at: datetime | None = None) -> Health:
        """One owner's health report at `at` (now if None): counts, work queues and checks."""
        with self._telemetry.verb("health", owner):
            checked(check_owner, owner)
            now = moment_or_now(at)
            return health_report(
                self._store, owner, now, self._embedder.name, self._parts.cognition_name
            )

    def profile(self, owner: str, *, at: datetime | None = None) -> Profile:
        """The user as graphmem believes them to be at `at` (now if None), read without a model.

        Current facts by slot (the latest of each, with the values it replaced), conjectures
        whose belief has not faded (with when it will), open events with their latest
        development, and the owner's causal rules counted; mechanisms.profile says how.
        """
        with self._telemetry.verb("profile", owner):
            checked(check_owner, owner)
            return self._parts.recalling.profile(owner, moment_or_now(at))

    @property
    def model_calls(self) -> Counter[str]:
        """The cognition calls made so far, by task (failures included)."""
        return Counter(self._parts.cognition.calls)

    @property
    def store_traffic(self) -> StoreTraffic:
        """The store's write transactions and statements so far (since it was opened)."""
        return self._store.traffic()

    def recall(
        self,
        owner: str,
        query: str | Sequence[QueryTurn | Mapping[str, str]] | RecallQuestion,
        **options: Any,
    ) -> Recall:
        """The owner's k memories best related to the query, with their turns and reasons.

        The options are RecallQuestion's fields (graphmem.contract), given as keywords, or the
        whole question given as a RecallQuestion in place of the query: a question, or the
        recent conversation (a list of {speaker, text} turns, or "speaker: text" lines).
        `motivation` sets how deep in the tiers the search goes (graphmem.recall_pipeline says
        how); the memories returned wake their neighbours, unless `peek`. Past its time budget
        (RecallPolicy.budget_seconds unless given) recall ranks what it has and names the steps
        it skipped in `cut_short`. With `max_tokens`, it holds what fits that many tokens of
        `render()` (`Recall.within`: the profile first, then the most evidence). The filters
        (MemoryFilter) narrow every search, so the k best are those they admit.
        """
        with self._telemetry.verb("recall", owner) as verb:
            checked(check_owner, owner)
            question = RecallQuestion.of(query, options)
            with as_invalid_input():
                asked = query_of(question.query)
            where = question.memory_filter()
            budget = Budget(question.budget_seconds or self._parts.recall_policy.budget_seconds)
            recalled = self._parts.recalling.recall(
                owner,
                asked,
                query=question.query if isinstance(question.query, str) else asked.text,
                k=question.size,
                motivation=question.motivation,
                weights=question.chosen_weights,
                peek=question.peek,
                now=moment_or_now(question.at),
                budget=budget,
                max_tokens=question.max_tokens,
                min_confidence=question.min_confidence,
                where=where,
            )
            verb.recalled(recalled)
            return recalled

    def retier(self, owner: str, *, at: datetime | None = None) -> int:
        """Sink the owner's memories whose attention faded or that overflow a tier (cheap)."""
        with self._telemetry.verb("retier", owner):
            checked(check_owner, owner)
            now = moment_or_now(at)
            return self._store.retier(owner, now, self._parts.attention, self._parts.tiers)

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
