"""Clients of `graphmem serve`: the facade's verbs and return types, over HTTP (httpx, here only).

`GraphMemClient(url, key)` and `AsyncGraphMemClient(url, key)` offer the verbs of `GraphMem` and
`AsyncGraphMem` under the same names, with the same arguments and the same pydantic models
back, so an agent moves between in-process and remote memory by changing the line that opens
it. What cannot cross HTTP is left out: `progress` callbacks, and the counters of the process
(`model_calls`, `store_traffic`), which are the server's.

Each verb's options are the contract's models (graphmem.contract), checked here as the server
checks them: a bad one is an InvalidInputError naming the field before anything is sent. Errors
come back as the contract's table of statuses says (`error_of`: 400 and 422 InvalidInputError,
409 ConflictError, 502 ModelError, 503 StoreUnavailableError, 401 and 403 AccessError, 413 and
429 RequestRefusedError); a key unknown to `revoke_key` (404) gives None, as in process. A call
that changes nothing more when repeated (a read, a peek, an observe whose messages all have ids,
the sleep job, forgetting) is tried again after a connection error or a 503, and any call after
a 429, up to `retries` times, waiting what Retry-After says or else `backoff` seconds, doubled
each time.

An export answers the lines of the file `graphmem export` writes (a header, then the records):
the client reads it as `graphmem import` does, and the answer saved to a file imports as it is.

Each verb's request is built once (`Calls`); the two clients differ only in sending it, so
their verbs are one-line twins, kept explicit for their signatures and docstrings.
"""

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, Generic, Self, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter

from graphmem.contract import (
    EventEntry,
    Forgotten,
    GraphCounts,
    Health,
    ImpressionEntry,
    KeyInfo,
    KeyRequest,
    Lesson,
    Limit,
    MessageRef,
    NewKey,
    NodeNeighbourhood,
    NodeWanted,
    Observation,
    ObserveMany,
    ObserveOne,
    OwnerGraph,
    Profile,
    QueryTurn,
    Recall,
    RecallQuestion,
    Records,
    SleepReport,
    TimelinePage,
    TimelineWanted,
    TurnsWanted,
    When,
    error_of,
    options_of,
    read_export,
)
from graphmem.errors import (
    InvalidInputError,
    StoreError,
    StoreUnavailableError,
)
from graphmem.model import Turn

T = TypeVar("T")


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request of a verb, whether repeating it changes nothing more, how to read its answer."""

    method: str
    path: str
    read: Callable[[httpx.Response], T]
    body: Any = None
    params: Mapping[str, Any] | None = None
    idempotent: bool = False
    missing: Callable[[], T] | None = None
    """What a 404 means, for a verb whose answer says when something is not there."""


def _reader(kind: type[T]) -> Callable[[httpx.Response], T]:
    """A reader of an answer holding one value of `kind`."""
    adapter = TypeAdapter(kind)
    return lambda response: adapter.validate_json(response.content)


def _graph(response: httpx.Response) -> OwnerGraph:
    """The graph an export streamed: the lines of an export file, its header first."""
    try:
        _owner, graph = read_export(response.text.splitlines())
    except InvalidInputError as error:
        raise StoreError(f"graphmem serve's export is not an export file: {error}") from None
    return graph


def _batch(items: Sequence[Mapping[str, Any]], readmit_forgotten: bool) -> ObserveMany:
    """observe_many's items as the contract's batch (InvalidInputError names a bad one)."""
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Sequence):
        raise InvalidInputError("items must be a non-empty list of {text, message_id, ...} maps")
    return options_of(ObserveMany, messages=list(items), readmit_forgotten=readmit_forgotten)


def _body(options: BaseModel) -> dict[str, Any]:
    """Options as a request sends them: JSON, the defaults left to the server."""
    return options.model_dump(mode="json", exclude_defaults=True)


def _owner_path(owner: str, verb: str) -> str:
    """The path of a verb on an owner's memory (the owner escaped as one path segment)."""
    return f"/v1/owners/{quote(owner, safe='')}/{verb}"


class Calls:
    """The request of each verb, shared by the two clients."""

    @staticmethod
    def turns(owner: str, wanted: TurnsWanted) -> Call[list[Turn]]:
        """The request of turns."""
        return Calls.get(_owner_path(owner, "turns"), _reader(list[Turn]), _body(wanted))

    @staticmethod
    def timeline(owner: str, wanted: TimelineWanted) -> Call[TimelinePage]:
        """The request of timeline."""
        path = _owner_path(owner, "timeline")
        return Calls.get(path, _reader(TimelinePage), _body(wanted))

    @staticmethod
    def neighbourhood(owner: str, wanted: NodeWanted) -> Call[NodeNeighbourhood]:
        """The request of neighbourhood."""
        path = _owner_path(owner, "neighbourhood")
        return Calls.get(path, _reader(NodeNeighbourhood), _body(wanted))

    @staticmethod
    def observe(owner: str, message: ObserveOne) -> Call[Observation]:
        """The request of observe: repeating it changes nothing more once it has an id."""
        path, idempotent = _owner_path(owner, "observe"), message.message_id is not None
        return Call("POST", path, _reader(Observation), _body(message), None, idempotent)

    @staticmethod
    def observe_many(owner: str, batch: ObserveMany) -> Call[list[Observation]]:
        """The request of observe_many: repeating it changes nothing more once all have ids."""
        idempotent = all(message.message_id is not None for message in batch.messages)
        path = _owner_path(owner, "observe_many")
        return Call("POST", path, _reader(list[Observation]), _body(batch), None, idempotent)

    @staticmethod
    def recall(owner: str, question: RecallQuestion) -> Call[Recall]:
        """The request of recall: the question as the server reads it (defaults left out)."""
        path = _owner_path(owner, "recall")
        return Call("POST", path, _reader(Recall), _body(question), None, question.peek)

    @staticmethod
    def post(owner: str, verb: str, kind: type[T], options: BaseModel | None) -> Call[T]:
        """A verb of an owner's memory that repeating changes nothing more (None: no options)."""
        body = {} if options is None else _body(options)
        return Call("POST", _owner_path(owner, verb), _reader(kind), body, None, True)

    @staticmethod
    def create_key(wanted: KeyRequest) -> Call[NewKey]:
        """The request of create_key."""
        return Call("POST", "/v1/keys", _reader(NewKey), _body(wanted))

    @staticmethod
    def revoke_key(key_id: str) -> Call[KeyInfo | None]:
        """The request of revoke_key: a 404 is a key that does not exist."""
        path = f"/v1/keys/{quote(key_id, safe='')}/revoke"
        return Call("POST", path, _reader(KeyInfo), {}, None, True, lambda: None)

    @staticmethod
    def get(path: str, read: Callable[[httpx.Response], T], params: Any = None) -> Call[T]:
        """A read."""
        return Call("GET", path, read, None, params, True)


class _Client:
    """What both clients share: the key, the retries, and reading an answer."""

    def __init__(self, key: str | None, retries: int, backoff: float) -> None:
        self.headers = {"Content-Type": "application/json"}
        """Declared on every request, a GET's too: a server without keys asks it of a caller
        without one (no web page can send it without the server's consent)."""
        if key:
            self.headers["Authorization"] = f"Bearer {key}"
        self._retries = retries
        self._backoff = backoff

    def _wait(self, call: Call[Any], attempt: int, response: httpx.Response | None) -> float | None:
        """Seconds to wait before trying the call again, or None to give up and answer."""
        if attempt >= self._retries:
            return None
        if response is None:
            return self._backoff * 2**attempt if call.idempotent else None
        status = response.status_code
        if not (status == 429 or (status == 503 and call.idempotent)):
            return None
        given = response.headers.get("retry-after", "")
        return float(given) if given.isdigit() else self._backoff * 2**attempt

    @staticmethod
    def _answer(call: Call[T], response: httpx.Response) -> T:
        """The call's result, or the error the server answered with."""
        if response.is_success:
            return call.read(response)
        if response.status_code == 404 and call.missing is not None:
            return call.missing()
        try:
            error = response.json()["error"]
            message = f"{error['message']} (request {error.get('request_id', '?')})"
        except (ValueError, KeyError, TypeError):
            message = f"HTTP {response.status_code}: {response.text[:200]}"
        raise error_of(response.status_code)(message)

    @staticmethod
    def _unreachable(error: httpx.TransportError) -> StoreUnavailableError:
        """The error of a server that could not be reached."""
        return StoreUnavailableError(f"graphmem serve could not be reached: {error}")


class GraphMemClient(_Client):
    """The memory behind `graphmem serve`, with GraphMem's verbs (see the module docstring)."""

    def __init__(
        self,
        url: str,
        key: str | None = None,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.5,
    ) -> None:
        super().__init__(key, retries, backoff)
        self._http = httpx.Client(base_url=url, headers=self.headers, timeout=timeout)

    def _do(self, call: Call[T]) -> T:
        """Send a call, trying it again as the module docstring says; its result."""
        attempt = 0
        while True:
            try:
                response = self._http.request(
                    call.method, call.path, json=call.body, params=call.params
                )
            except httpx.TransportError as error:
                wait = self._wait(call, attempt, None)
                if wait is None:
                    raise self._unreachable(error) from None
            else:
                wait = self._wait(call, attempt, response)
                if wait is None:
                    return self._answer(call, response)
            time.sleep(wait)
            attempt += 1

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
        """GraphMem.observe, over HTTP."""
        message = options_of(
            ObserveOne,
            text=text,
            message_id=message_id,
            at=at,
            speaker=speaker,
            session=session,
            readmit_forgotten=readmit_forgotten,
        )
        return self._do(Calls.observe(owner, message))

    def observe_many(
        self,
        owner: str,
        items: Sequence[Mapping[str, Any]],
        *,
        readmit_forgotten: bool = False,
    ) -> list[Observation]:
        """GraphMem.observe_many, over HTTP."""
        return self._do(Calls.observe_many(owner, _batch(items, readmit_forgotten)))

    def recall(
        self,
        owner: str,
        query: str | Sequence[QueryTurn | Mapping[str, str]] | RecallQuestion,
        **options: Any,
    ) -> Recall:
        """GraphMem.recall, over HTTP."""
        return self._do(Calls.recall(owner, RecallQuestion.of(query, options)))

    def consolidate(self, owner: str, *, at: datetime | None = None) -> SleepReport:
        """GraphMem.consolidate, over HTTP."""
        when = options_of(When, at=at)
        return self._do(Calls.post(owner, "consolidate", SleepReport, when))

    def complete_pending(self, owner: str, *, limit: int = 1000) -> int:
        """GraphMem.complete_pending, over HTTP."""
        limited = options_of(Limit, limit=limit)
        return self._do(Calls.post(owner, "complete_pending", int, limited))

    def learn(
        self,
        owner: str,
        cause: str,
        effect: str,
        sufficiency: float,
        *,
        at: datetime | None = None,
    ) -> None:
        """GraphMem.learn, over HTTP."""
        lesson = options_of(Lesson, cause=cause, effect=effect, sufficiency=sufficiency, at=at)
        self._do(Calls.post(owner, "learn", dict[str, str], lesson))

    def retier(self, owner: str, *, at: datetime | None = None) -> int:
        """GraphMem.retier, over HTTP."""
        return self._do(Calls.post(owner, "retier", int, options_of(When, at=at)))

    def forget_message(self, owner: str, message_id: str) -> Forgotten:
        """GraphMem.forget_message, over HTTP."""
        message = options_of(MessageRef, message_id=message_id)
        return self._do(Calls.post(owner, "forget_message", Forgotten, message))

    def forget(self, owner: str) -> GraphCounts:
        """GraphMem.forget, over HTTP."""
        return self._do(Calls.post(owner, "forget", GraphCounts, None))

    def owners(self) -> list[str]:
        """GraphMem.owners, over HTTP: those this key may touch."""
        return self._do(Calls.get("/v1/owners", _reader(list[str])))

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
        """GraphMem.timeline, over HTTP."""
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
        return self._do(Calls.timeline(owner, wanted))

    def neighbourhood(
        self, owner: str, node_id: str, *, label: str = "Memory"
    ) -> NodeNeighbourhood:
        """GraphMem.neighbourhood, over HTTP."""
        wanted = options_of(NodeWanted, node_id=node_id, label=label)
        return self._do(Calls.neighbourhood(owner, wanted))

    def events(self, owner: str, *, at: datetime | None = None) -> list[EventEntry]:
        """GraphMem.events, over HTTP."""
        when = _body(options_of(When, at=at))
        return self._do(Calls.get(_owner_path(owner, "events"), _reader(list[EventEntry]), when))

    def impressions(self, owner: str, *, at: datetime | None = None) -> list[ImpressionEntry]:
        """GraphMem.impressions, over HTTP."""
        when = _body(options_of(When, at=at))
        read = _reader(list[ImpressionEntry])
        return self._do(Calls.get(_owner_path(owner, "impressions"), read, when))

    def statistics(self, owner: str) -> GraphCounts:
        """GraphMem.statistics, over HTTP."""
        return self._do(Calls.get(_owner_path(owner, "statistics"), _reader(GraphCounts)))

    def health(self, owner: str, *, at: datetime | None = None) -> Health:
        """GraphMem.health, over HTTP."""
        when = _body(options_of(When, at=at))
        return self._do(Calls.get(_owner_path(owner, "health"), _reader(Health), when))

    def profile(self, owner: str, *, at: datetime | None = None) -> Profile:
        """GraphMem.profile, over HTTP."""
        when = _body(options_of(When, at=at))
        return self._do(Calls.get(_owner_path(owner, "profile"), _reader(Profile), when))

    def turns(self, owner: str, *, session: str = "", last: int | None = None) -> list[Turn]:
        """GraphMem.turns, over HTTP."""
        wanted = options_of(TurnsWanted, session=session, last=last)
        return self._do(Calls.turns(owner, wanted))

    def export(self, owner: str) -> OwnerGraph:
        """GraphMem.export, over HTTP."""
        return self._do(Calls.get(_owner_path(owner, "export"), _graph))

    def load(self, owner: str, graph: OwnerGraph) -> GraphCounts:
        """GraphMem.load, over HTTP."""
        records = options_of(Records, records=graph.records())
        return self._do(Calls.post(owner, "load", GraphCounts, records))

    def create_key(
        self,
        *,
        owners: Sequence[str] = (),
        owner_prefix: str | None = None,
        admin: bool = False,
    ) -> NewKey:
        """GraphMem.create_key, over HTTP (an admin key's)."""
        wanted = options_of(KeyRequest, owners=owners, owner_prefix=owner_prefix, admin=admin)
        return self._do(Calls.create_key(wanted))

    def list_keys(self) -> list[KeyInfo]:
        """GraphMem.list_keys, over HTTP (an admin key's)."""
        return self._do(Calls.get("/v1/keys", _reader(list[KeyInfo])))

    def revoke_key(self, key_id: str) -> KeyInfo | None:
        """GraphMem.revoke_key, over HTTP (an admin key's); None if there is no such key."""
        return self._do(Calls.revoke_key(key_id))

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


class AsyncGraphMemClient(_Client):
    """The memory behind `graphmem serve`, with AsyncGraphMem's verbs, awaitable."""

    def __init__(
        self,
        url: str,
        key: str | None = None,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.5,
    ) -> None:
        super().__init__(key, retries, backoff)
        self._http = httpx.AsyncClient(base_url=url, headers=self.headers, timeout=timeout)

    async def _do(self, call: Call[T]) -> T:
        """Send a call, trying it again as the module docstring says; its result."""
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    call.method, call.path, json=call.body, params=call.params
                )
            except httpx.TransportError as error:
                wait = self._wait(call, attempt, None)
                if wait is None:
                    raise self._unreachable(error) from None
            else:
                wait = self._wait(call, attempt, response)
                if wait is None:
                    return self._answer(call, response)
            await asyncio.sleep(wait)
            attempt += 1

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
        """GraphMem.observe, over HTTP, awaitable."""
        message = options_of(
            ObserveOne,
            text=text,
            message_id=message_id,
            at=at,
            speaker=speaker,
            session=session,
            readmit_forgotten=readmit_forgotten,
        )
        return await self._do(Calls.observe(owner, message))

    async def observe_many(
        self,
        owner: str,
        items: Sequence[Mapping[str, Any]],
        *,
        readmit_forgotten: bool = False,
    ) -> list[Observation]:
        """GraphMem.observe_many, over HTTP, awaitable."""
        return await self._do(Calls.observe_many(owner, _batch(items, readmit_forgotten)))

    async def recall(
        self,
        owner: str,
        query: str | Sequence[QueryTurn | Mapping[str, str]] | RecallQuestion,
        **options: Any,
    ) -> Recall:
        """GraphMem.recall, over HTTP, awaitable."""
        return await self._do(Calls.recall(owner, RecallQuestion.of(query, options)))

    async def consolidate(self, owner: str, *, at: datetime | None = None) -> SleepReport:
        """GraphMem.consolidate, over HTTP, awaitable."""
        when = options_of(When, at=at)
        return await self._do(Calls.post(owner, "consolidate", SleepReport, when))

    async def complete_pending(self, owner: str, *, limit: int = 1000) -> int:
        """GraphMem.complete_pending, over HTTP, awaitable."""
        limited = options_of(Limit, limit=limit)
        return await self._do(Calls.post(owner, "complete_pending", int, limited))

    async def learn(
        self,
        owner: str,
        cause: str,
        effect: str,
        sufficiency: float,
        *,
        at: datetime | None = None,
    ) -> None:
        """GraphMem.learn, over HTTP, awaitable."""
        lesson = options_of(Lesson, cause=cause, effect=effect, sufficiency=sufficiency, at=at)
        await self._do(Calls.post(owner, "learn", dict[str, str], lesson))

    async def retier(self, owner: str, *, at: datetime | None = None) -> int:
        """GraphMem.retier, over HTTP, awaitable."""
        return await self._do(Calls.post(owner, "retier", int, options_of(When, at=at)))

    async def forget_message(self, owner: str, message_id: str) -> Forgotten:
        """GraphMem.forget_message, over HTTP, awaitable."""
        message = options_of(MessageRef, message_id=message_id)
        return await self._do(Calls.post(owner, "forget_message", Forgotten, message))

    async def forget(self, owner: str) -> GraphCounts:
        """GraphMem.forget, over HTTP, awaitable."""
        return await self._do(Calls.post(owner, "forget", GraphCounts, None))

    async def owners(self) -> list[str]:
        """GraphMem.owners, over HTTP, awaitable: those this key may touch."""
        return await self._do(Calls.get("/v1/owners", _reader(list[str])))

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
        """GraphMem.timeline, over HTTP, awaitable."""
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
        return await self._do(Calls.timeline(owner, wanted))

    async def neighbourhood(
        self, owner: str, node_id: str, *, label: str = "Memory"
    ) -> NodeNeighbourhood:
        """GraphMem.neighbourhood, over HTTP, awaitable."""
        wanted = options_of(NodeWanted, node_id=node_id, label=label)
        return await self._do(Calls.neighbourhood(owner, wanted))

    async def events(self, owner: str, *, at: datetime | None = None) -> list[EventEntry]:
        """GraphMem.events, over HTTP, awaitable."""
        when = _body(options_of(When, at=at))
        read = _reader(list[EventEntry])
        return await self._do(Calls.get(_owner_path(owner, "events"), read, when))

    async def impressions(self, owner: str, *, at: datetime | None = None) -> list[ImpressionEntry]:
        """GraphMem.impressions, over HTTP, awaitable."""
        when = _body(options_of(When, at=at))
        read = _reader(list[ImpressionEntry])
        return await self._do(Calls.get(_owner_path(owner, "impressions"), read, when))

    async def statistics(self, owner: str) -> GraphCounts:
        """GraphMem.statistics, over HTTP, awaitable."""
        return await self._do(Calls.get(_owner_path(owner, "statistics"), _reader(GraphCounts)))

    async def health(self, owner: str, *, at: datetime | None = None) -> Health:
        """GraphMem.health, over HTTP, awaitable."""
        when = _body(options_of(When, at=at))
        return await self._do(Calls.get(_owner_path(owner, "health"), _reader(Health), when))

    async def profile(self, owner: str, *, at: datetime | None = None) -> Profile:
        """GraphMem.profile, over HTTP, awaitable."""
        when = _body(options_of(When, at=at))
        return await self._do(Calls.get(_owner_path(owner, "profile"), _reader(Profile), when))

    async def turns(self, owner: str, *, session: str = "", last: int | None = None) -> list[Turn]:
        """GraphMem.turns, over HTTP, awaitable."""
        wanted = options_of(TurnsWanted, session=session, last=last)
        return await self._do(Calls.turns(owner, wanted))

    async def export(self, owner: str) -> OwnerGraph:
        """GraphMem.export, over HTTP, awaitable."""
        return await self._do(Calls.get(_owner_path(owner, "export"), _graph))

    async def load(self, owner: str, graph: OwnerGraph) -> GraphCounts:
        """GraphMem.load, over HTTP, awaitable."""
        records = options_of(Records, records=graph.records())
        return await self._do(Calls.post(owner, "load", GraphCounts, records))

    async def create_key(
        self,
        *,
        owners: Sequence[str] = (),
        owner_prefix: str | None = None,
        admin: bool = False,
    ) -> NewKey:
        """GraphMem.create_key, over HTTP, awaitable (an admin key's)."""
        wanted = options_of(KeyRequest, owners=owners, owner_prefix=owner_prefix, admin=admin)
        return await self._do(Calls.create_key(wanted))

    async def list_keys(self) -> list[KeyInfo]:
        """GraphMem.list_keys, over HTTP, awaitable (an admin key's)."""
        return await self._do(Calls.get("/v1/keys", _reader(list[KeyInfo])))

    async def revoke_key(self, key_id: str) -> KeyInfo | None:
        """GraphMem.revoke_key, over HTTP, awaitable (an admin key's); None if there is none."""
        return await self._do(Calls.revoke_key(key_id))

    async def close(self) -> None:
        """Close the connections."""
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()
