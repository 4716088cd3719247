"""GraphMem for asyncio callers: the same verbs, awaitable, run by the same code in threads.

`AsyncGraphMem` is not a second implementation of the pipelines: each verb runs the
synchronous `GraphMem` verb of the same name in a bounded pool of worker threads
(`concurrent.futures.ThreadPoolExecutor`), so the event loop never blocks on the store, the
embedder or the model, and many coroutines may call it at once (GraphMem is safe to share
between threads: each store verb is one transaction or holds the store's lock). At most
`workers` verbs run at a time; the others wait their turn in the pool's queue.

Cancelling a call leaves the whole effect or none: a call still waiting for a worker when the
event loop next runs is withdrawn from the pool and never starts; a call a worker has taken
goes on to its end in its thread (a turn is stored or not, never half; an observation's
derivation completes or stays pending), and its result is discarded. `progress` callbacks are
called in the worker thread.
"""

import asyncio
import contextvars
import functools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Self, TypeVar

from graphmem.cognition.base import Cognition
from graphmem.config import Settings
from graphmem.contract import (
    LEASE,
    EventEntry,
    Forgotten,
    GraphCounts,
    Health,
    ImpressionEntry,
    KeyInfo,
    NewKey,
    NightProgress,
    NightReport,
    NodeNeighbourhood,
    Observation,
    OwnerGraph,
    Profile,
    QueryTurn,
    Recall,
    RecallQuestion,
    SleepProgress,
    SleepReport,
    StoreTraffic,
    TimelinePage,
)
from graphmem.embedding import Embedder
from graphmem.keys import ApiKey
from graphmem.memory import GraphMem
from graphmem.model import Turn
from graphmem.telemetry import Telemetry

T = TypeVar("T")

DEFAULT_WORKERS = 8
"""Verbs that run at once by default: enough to overlap store round trips and model calls."""


class AsyncGraphMem:
    """The facade for asyncio: every GraphMem verb, awaitable (see the module docstring)."""

    def __init__(self, memory: GraphMem, *, workers: int = DEFAULT_WORKERS) -> None:
        self.memory = memory
        """The synchronous facade whose verbs run in the pool."""
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="graphmem")

    @classmethod
    async def open(
        cls,
        settings: Settings | None = None,
        *,
        cognition: Cognition | None = None,
        embedder: Embedder | None = None,
        telemetry: Telemetry | None = None,
        workers: int = DEFAULT_WORKERS,
    ) -> "AsyncGraphMem":
        """Open a GraphMem as `GraphMem.open` does (in a thread) and wrap it."""
        opening = functools.partial(
            GraphMem.open, settings, cognition=cognition, embedder=embedder, telemetry=telemetry
        )
        memory = await asyncio.get_running_loop().run_in_executor(None, opening)
        return cls(memory, workers=workers)

    async def _run(self, verb: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Run a synchronous verb in the pool, in the caller's context (its trace), and await it."""
        call = functools.partial(contextvars.copy_context().run, verb, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._pool, call)

    async def observe(
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
        """GraphMem.observe, awaitable."""
        return await self._run(
            self.memory.observe,
            owner,
            text,
            message_id=message_id,
            at=at,
            speaker=speaker,
            session=session,
            readmit_forgotten=readmit_forgotten,
        )

    async def observe_many(
        self,
        owner: str,
        items: Sequence[Mapping[str, Any]],
        *,
        progress: Callable[[int], None] | None = None,
        readmit_forgotten: bool = False,
    ) -> list[Observation]:
        """GraphMem.observe_many, awaitable."""
        return await self._run(
            self.memory.observe_many,
            owner,
            items,
            progress=progress,
            readmit_forgotten=readmit_forgotten,
        )

    async def complete_pending(self, owner: str, *, limit: int = 1000) -> int:
        """GraphMem.complete_pending, awaitable."""
        return await self._run(self.memory.complete_pending, owner, limit=limit)

    async def learn(
        self,
        owner: str,
        cause: str,
        effect: str,
        sufficiency: float,
        *,
        at: datetime | None = None,
    ) -> None:
        """GraphMem.learn, awaitable."""
        await self._run(self.memory.learn, owner, cause, effect, sufficiency, at=at)

    async def consolidate(
        self,
        owner: str,
        *,
        at: datetime | None = None,
        progress: Callable[[SleepProgress], None] | None = None,
    ) -> SleepReport:
        """GraphMem.consolidate, awaitable."""
        return await self._run(self.memory.consolidate, owner, at=at, progress=progress)

    async def consolidate_all(
        self,
        *,
        at: datetime | None = None,
        prefix: str = "",
        workers: int = 1,
        lease: timedelta = LEASE,
        progress: Callable[[SleepProgress | NightProgress], None] | None = None,
    ) -> NightReport:
        """GraphMem.consolidate_all, awaitable (its workers are threads of their own)."""
        return await self._run(
            self.memory.consolidate_all,
            at=at,
            prefix=prefix,
            workers=workers,
            lease=lease,
            progress=progress,
        )

    async def owners(self) -> list[str]:
        """GraphMem.owners, awaitable."""
        return await self._run(self.memory.owners)

    async def create_key(
        self,
        *,
        owners: Sequence[str] = (),
        owner_prefix: str | None = None,
        admin: bool = False,
        at: datetime | None = None,
    ) -> NewKey:
        """GraphMem.create_key, awaitable."""
        return await self._run(
            self.memory.create_key, owners=owners, owner_prefix=owner_prefix, admin=admin, at=at
        )

    async def list_keys(self) -> list[KeyInfo]:
        """GraphMem.list_keys, awaitable."""
        return await self._run(self.memory.list_keys)

    async def revoke_key(self, key_id: str, *, at: datetime | None = None) -> KeyInfo | None:
        """GraphMem.revoke_key, awaitable."""
        return await self._run(self.memory.revoke_key, key_id, at=at)

    async def authenticate(self, secret: str) -> ApiKey | None:
        """GraphMem.authenticate, awaitable."""
        return await self._run(self.memory.authenticate, secret)

    async def export(self, owner: str) -> OwnerGraph:
        """GraphMem.export, awaitable."""
        return await self._run(self.memory.export, owner)

    async def load(self, owner: str, graph: OwnerGraph) -> GraphCounts:
        """GraphMem.load, awaitable."""
        return await self._run(self.memory.load, owner, graph)

    async def forget(self, owner: str) -> GraphCounts:
        """GraphMem.forget, awaitable."""
        return await self._run(self.memory.forget, owner)

    async def forget_message(self, owner: str, message_id: str) -> Forgotten:
        """GraphMem.forget_message, awaitable."""
        return await self._run(self.memory.forget_message, owner, message_id)

    async def turns(self, owner: str, *, session: str = "", last: int | None = None) -> list[Turn]:
        """GraphMem.turns, awaitable."""
        return await self._run(self.memory.turns, owner, session=session, last=last)

    async def timeline(
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
        """GraphMem.timeline, awaitable."""
        return await self._run(
            self.memory.timeline,
            owner,
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

    async def neighbourhood(
        self, owner: str, node_id: str, *, label: str = "Memory"
    ) -> NodeNeighbourhood:
        """GraphMem.neighbourhood, awaitable."""
        return await self._run(self.memory.neighbourhood, owner, node_id, label=label)

    async def events(self, owner: str, *, at: datetime | None = None) -> list[EventEntry]:
        """GraphMem.events, awaitable."""
        return await self._run(self.memory.events, owner, at=at)

    async def impressions(self, owner: str, *, at: datetime | None = None) -> list[ImpressionEntry]:
        """GraphMem.impressions, awaitable."""
        return await self._run(self.memory.impressions, owner, at=at)

    async def statistics(self, owner: str) -> GraphCounts:
        """GraphMem.statistics, awaitable."""
        return await self._run(self.memory.statistics, owner)

    async def health(self, owner: str, *, at: datetime | None = None) -> Health:
        """GraphMem.health, awaitable."""
        return await self._run(self.memory.health, owner, at=at)

    async def profile(self, owner: str, *, at: datetime | None = None) -> Profile:
        """GraphMem.profile, awaitable."""
        return await self._run(self.memory.profile, owner, at=at)

    async def recall(
        self,
        owner: str,
        query: str | Sequence[QueryTurn | Mapping[str, str]] | RecallQuestion,
        **options: Any,
    ) -> Recall:
        """GraphMem.recall, awaitable."""
        return await self._run(self.memory.recall, owner, query, **options)

    async def retier(self, owner: str, *, at: datetime | None = None) -> int:
        """GraphMem.retier, awaitable."""
        return await self._run(self.memory.retier, owner, at=at)

    @property
    def model_calls(self) -> Counter[str]:
        """GraphMem.model_calls (a counter read: nothing to await)."""
        return self.memory.model_calls

    @property
    def store_traffic(self) -> StoreTraffic:
        """GraphMem.store_traffic (a counter read: nothing to await)."""
        return self.memory.store_traffic

    async def close(self) -> None:
        """Wait for the running verbs, then close the memory."""
        await asyncio.get_running_loop().run_in_executor(None, self._pool.shutdown)
        self.memory.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()
