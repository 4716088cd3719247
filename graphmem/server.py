"""`graphmem serve`: the facade's verbs over HTTP and JSON, behind keys scoped to owners.

One resource per owner, one route per verb, named as the verb is everywhere else
(`POST /v1/owners/{owner}/recall` is `GraphMem.recall`); `/openapi.json` describes every
request and response with the models the Python API returns. The app runs the verbs through
`AsyncGraphMem`, so its event loop never waits on the store or the model.

Keys: a request names its key as `Authorization: Bearer <secret>` (graphmem.keys). A key may
touch only its owners: any other owner gets 403, the same whether or not that owner has a
memory. Admin keys may touch every owner and manage keys. With no key in the store the server
is open, which `serve` allows on a loopback address only.

Errors are JSON, `{"error": {"code", "message", "field"?, "request_id"}}`: 400 bad input (the
facade's message names the field), 401 no or unknown key, 403 another owner's memory, 404
unknown message or key, 409 conflict, 413 body over `max_body` bytes, 422 a request that does
not fit its schema, 429 over the key's request rate (token bucket, `Retry-After`), 503 store
unreachable (`Retry-After`), 502 model endpoint failed. Every response carries `X-Request-Id`,
which the server's log line of the request carries too. The MCP tools are served at /mcp
behind the same keys (graphmem.mcp_server.http_app). FastAPI, uvicorn and starlette are
imported here only, which is why this is one module: the request models, the middleware, the
routes and `serve` all speak FastAPI's or starlette's types; the verbs themselves are the
facade's.
"""

import json
import logging
import math
import re
import signal
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from http import HTTPStatus
from typing import Annotated, Any
from urllib.parse import quote

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from graphmem.errors import ConfigurationError

try:
    import uvicorn
    from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse, StreamingResponse
    from starlette.exceptions import HTTPException as StarletteHTTPException
    from starlette.types import ASGIApp, Message, Receive, Scope, Send
except ModuleNotFoundError as missing:
    raise ConfigurationError(
        f"graphmem serve needs FastAPI and uvicorn ({missing}): pip install 'graphmem[server]'"
    ) from None

from graphmem import __version__
from graphmem.aio import AsyncGraphMem
from graphmem.config import Settings
from graphmem.errors import (
    ConflictError,
    GraphMemError,
    InvalidInputError,
    ModelError,
    StoreUnavailableError,
)
from graphmem.inputs import EARLIEST, LATEST, keepable
from graphmem.keys import ApiKey, KeyInfo, NewKey
from graphmem.mcp_server import PERMITTED, http_app
from graphmem.memory import MAX_RECALL, GraphMem
from graphmem.model import Memory, Turn, check_owner, check_text
from graphmem.results import (
    Forgotten,
    GraphCounts,
    Health,
    Observation,
    OwnerGraph,
    Profile,
    Recall,
    SleepReport,
)
from graphmem.retrieval import DEFAULT_PRESET, PRESETS, QueryTurn, Weights

log = logging.getLogger("graphmem.server")

RETRY_AFTER_SECONDS = 5
"""What `Retry-After` says when the store cannot be reached."""
UNAUTHORIZED = "send a valid key as Authorization: Bearer <key> (graphmem keys create)"
"""The message of a 401."""
KEEP_ALIVE_SECONDS = 75
"""How long an idle connection stays open: longer than a client's pool keeps one (httpx: 5 s)
or a load balancer's idle timeout (often 60 s), so that the client closes it first. Were the
server first, a request sent on a connection as it closes would fail without an answer."""

MCP_PATH = "/mcp"
"""Where the MCP tools are served over streamable HTTP."""
REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A caller's X-Request-Id that the server keeps; any other is replaced by a new one."""
MAX_INTEGER = 2**63 - 1
"""The largest whole number a store keeps (Neo4j's are 64-bit)."""
MAX_MESSAGE_CHARS = 500
"""The most of an error's message an answer carries (a message quoting a huge input is cut)."""


@dataclass(frozen=True)
class Limits:
    """What one request may send and how often one key may ask."""

    max_body: int = 1_000_000
    """Bytes of a request body (413 beyond)."""
    rate: float = 50.0
    """Requests a second one key may make, on average."""
    burst: int = 100
    """Requests one key may make at once."""


def _iso_moment(value: object) -> object:
    """Read a time from ISO 8601 text only: left to pydantic, a number would become Unix time."""
    if value is None:
        return value
    if isinstance(value, datetime):
        moment = value
    elif not isinstance(value, str):
        raise ValueError(f"must be ISO 8601 text, not {type(value).__name__}")
    else:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"must be a datetime in ISO 8601, not {value[:40]!r}") from None
    return keepable(moment)  # the facade's own check, at the schema: a 422 naming the field


Moment = Annotated[
    datetime | None,
    BeforeValidator(_iso_moment),
    Field(
        description=f"ISO 8601 with a UTC offset (whole minutes), from the year {EARLIEST.year}"
        f" to {LATEST.year - 1}; default: now"
    ),
]


class ObservedMessage(BaseModel):
    """One message to observe."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(description="what was said or perceived")
    message_id: str | None = Field(
        None, description="the message's id in your system: one id stores once"
    )
    at: Moment = None
    speaker: str = Field("user", description="who said it, e.g. user or assistant")
    session: str = Field("", description="the conversation session it belongs to ('' for none)")


class ObserveOne(ObservedMessage):
    """A message to observe, and whether a message forgotten earlier may come back."""

    readmit_forgotten: bool = Field(
        False, description="store a message forgotten earlier again (its tombstone goes)"
    )


class ObserveMany(BaseModel):
    """Messages to observe in order, in one transaction."""

    model_config = ConfigDict(extra="forbid")

    messages: list[ObservedMessage] = Field(description="the messages, oldest first")
    readmit_forgotten: bool = Field(
        False, description="store messages forgotten earlier again (their tombstones go)"
    )


class RecallQuestion(BaseModel):
    """What to recall, and how."""

    model_config = ConfigDict(extra="forbid")

    query: str | list[QueryTurn] = Field(
        description="a question, or the recent conversation (oldest first, the last turn is"
        " what is asked)"
    )
    k: int | None = Field(
        None,
        ge=1,
        le=MAX_RECALL,
        description=f"how many memories to return at most; default 10, or {MAX_RECALL} with"
        " max_tokens",
    )
    motivation: float | None = Field(
        None, ge=0, le=10, description="how deep to search (0-10); default: the query's label"
    )
    weights: str | Weights = Field(
        DEFAULT_PRESET, description=f"the score's weights: a preset ({', '.join(PRESETS)}) or each"
    )
    peek: bool = Field(False, description="recall without waking anything")
    at: Moment = None
    budget_seconds: float | None = Field(
        None, gt=0, description="time after which thinking again and association are skipped"
    )
    max_tokens: int | None = Field(
        None, ge=1, description="keep what fits this many tokens of `rendered` (the most evidence)"
    )
    sessions: list[str] | None = Field(None, description="only memories from these sessions")
    speakers: list[str] | None = Field(None, description="only memories said by these speakers")
    since: Moment = Field(None, description="only memories made at or after this time")
    until: Moment = Field(None, description="only memories made before this time")
    kinds: list[str] | None = Field(
        None, description="only memories of these kinds: observation, knowledge, conjecture"
    )
    min_belief: float | None = Field(
        None, description="only memories holding a belief of at least this (0-1), or none"
    )


class Recalled(BaseModel):
    """A recall's subgraph, and its text as it would go into a prompt."""

    recall: Recall
    rendered: str = Field(description="Recall.render(): numbered memories, then their links")


class When(BaseModel):
    """A time to do something at."""

    model_config = ConfigDict(extra="forbid")

    at: Moment = None


class MessageRef(BaseModel):
    """A message by its id."""

    model_config = ConfigDict(extra="forbid")

    message_id: str = Field(description="the id the message was observed with")


Text = Annotated[str, AfterValidator(check_text)]
"""A text as a memory holds it, checked before it is embedded (a megabyte would take minutes)."""


class Cause(BaseModel):
    """Knowledge to teach: a cause, its effect, how surely one brings the other."""

    model_config = ConfigDict(extra="forbid")

    cause: Text
    effect: Text
    sufficiency: float = Field(ge=0, le=1)
    at: Moment = None


class KeyRequest(BaseModel):
    """What a new key may touch."""

    model_config = ConfigDict(extra="forbid")

    owners: list[str] = Field([], description="owners the key may touch")
    owner_prefix: Annotated[str, AfterValidator(check_owner)] | None = Field(
        None, description="it may touch owners starting with this (itself an owner's name)"
    )
    admin: bool = Field(False, description="it may touch every owner and manage keys")


class Limit(BaseModel):
    """How many at most."""

    model_config = ConfigDict(extra="forbid")

    limit: int = Field(1000, ge=1, le=MAX_INTEGER, description="the most to do in this call")


class Records(BaseModel):
    """An owner's graph as the records `export` streams."""

    model_config = ConfigDict(extra="forbid")

    records: list[dict[str, Any]]


class ErrorBody(BaseModel):
    """What went wrong."""

    code: str
    message: str
    field: str | None = None
    request_id: str


class ErrorAnswer(BaseModel):
    """The body of every error response."""

    error: ErrorBody


def refusal(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> HTTPException:
    """An HTTP refusal of the app's own (authentication, permission, limits, not found)."""
    return HTTPException(status, {"code": code, "message": message}, headers)


@dataclass
class Bucket:
    """A key's token bucket: tokens now, refilled at the rate up to the burst."""

    tokens: float
    updated: float


@dataclass
class RateLimiter:
    """Token buckets per key (or per client address when the server is open)."""

    limits: Limits
    buckets: dict[str, Bucket] = field(default_factory=dict)

    def wait(self, caller: str) -> float:
        """Seconds to wait before the caller may ask again; 0 takes a token now."""
        now = time.monotonic()
        bucket = self.buckets.setdefault(caller, Bucket(float(self.limits.burst), now))
        bucket.tokens = min(
            float(self.limits.burst), bucket.tokens + (now - bucket.updated) * self.limits.rate
        )
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) / self.limits.rate


class RequestIds:
    """ASGI middleware: a request id for every request, in the response and in the log."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on with its id; log it when answered."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode()),
                ]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            log.info(
                "%s %s %s -> %d in %.1f ms",
                request_id,
                scope["method"],
                # escaped: a decoded %0A in an owner would start a forged line of the log
                quote(scope["path"], safe="/:@", errors="backslashreplace"),
                status,
                1000 * (time.perf_counter() - started),
            )


class BodyLimit:
    """ASGI middleware: 413 for a body over `max_body` bytes, declared or streamed."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a declared length over the limit at once, a streamed one once it is over."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body:
            await self._refuse(scope, send)
            return
        received = 0

        async def receiving() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise refusal(413, "too_large", self._too_large())
            return message

        await self.app(scope, receiving, send)

    def _too_large(self) -> str:
        """The message of a 413."""
        return f"the request body is over {self.max_body} bytes (serve --max-body sets it)"

    async def _refuse(self, scope: Scope, send: Send) -> None:
        """Answer 413 without reading the body."""
        request_id = scope.get("state", {}).get("request_id", "")
        body = _error_body("too_large", self._too_large(), request_id)
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"connection", b"close")],
            }
        )
        await send({"type": "http.response.body", "body": json.dumps(body).encode()})


async def _key_of(memory: AsyncGraphMem, authorization: str) -> ApiKey | None:
    """The live key an Authorization header names as `Bearer <secret>`, if any."""
    scheme, _, secret = authorization.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    return await memory.authenticate(secret.strip())


class McpKeys:
    """ASGI middleware: /mcp asks for a key as every route does, and its tools see its scope."""

    def __init__(self, app: ASGIApp, memory: AsyncGraphMem, *, open_access: bool) -> None:
        self.app = app
        self.memory = memory
        self.open_access = open_access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass a request to /mcp on with its key's scope, or answer 401."""
        if scope["type"] != "http" or not scope["path"].startswith(MCP_PATH):
            await self.app(scope, receive, send)
            return
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        key = await _key_of(self.memory, header)
        if key is None and not self.open_access:
            request_id = scope.get("state", {}).get("request_id", "")
            body = _error_body("unauthorized", UNAUTHORIZED, request_id)
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b"Bearer"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": json.dumps(body).encode()})
            return
        token = PERMITTED.set(None if key is None else key.permits)
        try:
            await self.app(scope, receive, send)
        finally:
            PERMITTED.reset(token)


def _error_body(
    code: str, message: str, request_id: str, field_name: str | None = None
) -> dict[str, Any]:
    """The JSON of an error response."""
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS] + "…"
    error = ErrorBody(code=code, message=message, field=field_name, request_id=request_id)
    return ErrorAnswer(error=error).model_dump(mode="json", exclude_none=True)


def _request_id(request: Request) -> str:
    """The request's id (RequestIds set it)."""
    return str(request.scope.get("state", {}).get("request_id", ""))


ERROR_STATUSES = {
    400: "bad input; the message names the field",
    401: "no key, or an unknown or revoked one",
    403: "the key may not touch this owner",
    404: "no such message or key",
    409: "the input contradicts what is stored",
    413: "the request body is too large",
    422: "the request does not fit its schema",
    429: "too many requests for this key; see Retry-After",
    502: "the model endpoint failed",
    503: "the store cannot be reached; see Retry-After",
}
"""The error statuses every route may answer with, for the OpenAPI schema."""
ERRORS: list[tuple[type[GraphMemError], int, str]] = [
    (InvalidInputError, 400, "invalid_input"),
    (ConflictError, 409, "conflict"),
    (StoreUnavailableError, 503, "store_unavailable"),
    (ModelError, 502, "model_failed"),
    (GraphMemError, 500, "internal"),
]
"""How each error of graphmem is answered, the most specific first."""


def _without_embeddings(memories: list[Memory]) -> list[Memory]:
    """Memories as an HTTP answer carries them: without their embeddings."""
    return [memory.model_copy(update={"embedding": None}) for memory in memories]


def _observation(observation: Observation) -> Observation:
    """An observation as an HTTP answer carries it: memories without embeddings."""
    return observation.model_copy(
        update={
            "memories": _without_embeddings(observation.memories),
            "conjectures": _without_embeddings(observation.conjectures),
        }
    )


# The dependencies are coroutines, though none of them waits on the store itself: FastAPI runs a
# plain function in a thread of its own, a hop between threads for a few lines of Python.
async def _memory(request: Request) -> AsyncGraphMem:
    """The memory the app serves."""
    memory: AsyncGraphMem = request.app.state.memory
    return memory


Served = Annotated[AsyncGraphMem, Depends(_memory)]


async def _caller(request: Request, memory: Served) -> ApiKey | None:
    """The request's key (None on an open server), within its rate; 401 or 429 otherwise."""
    key = await _key_of(memory, request.headers.get("authorization", ""))
    if key is None and not request.app.state.open_access:
        raise refusal(401, "unauthorized", UNAUTHORIZED, {"WWW-Authenticate": "Bearer"})
    limiter: RateLimiter = request.app.state.limiter
    client = request.client.host if request.client else ""
    wait = limiter.wait(key.id if key else client)
    if wait > 0:
        raise refusal(
            429,
            "rate_limited",
            f"over {limiter.limits.rate:g} requests a second for this key; wait {wait:.2f} s",
            {"Retry-After": str(math.ceil(wait))},
        )
    return key


Caller = Annotated[ApiKey | None, Depends(_caller)]


async def _permitted(owner: str, key: Caller) -> str:
    """The owner of the route, if the request's key may touch it; 403 otherwise."""
    if key is not None and not key.permits(owner):
        raise refusal(403, "forbidden", "this key may not touch this owner")
    return owner


Owner = Annotated[str, Depends(_permitted)]


async def _admin(key: Caller) -> None:
    """Nothing, if the key is an admin key (or the server is open); 403 otherwise."""
    if key is not None and not key.admin:
        raise refusal(403, "forbidden", "only an admin key manages keys")


Admin = Depends(_admin)

service = APIRouter(tags=["service"])
owners = APIRouter(prefix="/v1/owners", tags=["memory"])
keys = APIRouter(prefix="/v1/keys", tags=["keys"], dependencies=[Admin])


@service.get("/healthz")
async def alive() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@service.get("/readyz")
async def ready(memory: Served) -> dict[str, str]:
    """The store answers (503 otherwise)."""
    await memory.list_keys()
    return {"status": "ready"}


@owners.get("")
async def list_owners(memory: Served, key: Caller) -> list[str]:
    """The owners with a memory that this key may touch."""
    return [owner for owner in await memory.owners() if key is None or key.permits(owner)]


@owners.post("/{owner}/observe")
async def observe(owner: Owner, body: ObserveOne, memory: Served) -> Observation:
    """GraphMem.observe: store a message and derive its memory."""
    observed = await memory.observe(
        owner,
        body.text,
        message_id=body.message_id,
        at=body.at,
        speaker=body.speaker,
        session=body.session,
        readmit_forgotten=body.readmit_forgotten,
    )
    return _observation(observed)


@owners.post("/{owner}/observe_many")
async def observe_many(owner: Owner, body: ObserveMany, memory: Served) -> list[Observation]:
    """GraphMem.observe_many: store messages in one transaction, then derive them."""
    items = [message.model_dump() for message in body.messages]
    observed = await memory.observe_many(owner, items, readmit_forgotten=body.readmit_forgotten)
    return [_observation(item) for item in observed]


@owners.post("/{owner}/recall")
async def recall(owner: Owner, body: RecallQuestion, memory: Served) -> Recalled:
    """GraphMem.recall: the related-context subgraph, with its text for a prompt."""
    # Turns go as data, which the facade checks (QueryTurn objects it would take as they are).
    query: str | list[dict[str, Any]] = (
        body.query if isinstance(body.query, str) else [turn.model_dump() for turn in body.query]
    )
    found = await memory.recall(
        owner,
        query,
        k=body.k,
        motivation=body.motivation,
        weights=body.weights,
        peek=body.peek,
        at=body.at,
        budget_seconds=body.budget_seconds,
        max_tokens=body.max_tokens,
        sessions=body.sessions,
        speakers=body.speakers,
        since=body.since,
        until=body.until,
        kinds=body.kinds,
        min_belief=body.min_belief,
    )
    return Recalled(recall=found, rendered=found.render())


@owners.post("/{owner}/consolidate")
async def consolidate(owner: Owner, body: When, memory: Served) -> SleepReport:
    """GraphMem.consolidate: the sleep job for this owner."""
    return await memory.consolidate(owner, at=body.at)


@owners.post("/{owner}/complete_pending")
async def complete_pending(owner: Owner, body: Limit, memory: Served) -> int:
    """GraphMem.complete_pending: derive pending turns' memories; how many."""
    return await memory.complete_pending(owner, limit=body.limit)


@owners.post("/{owner}/learn")
async def learn(owner: Owner, body: Cause, memory: Served) -> dict[str, str]:
    """GraphMem.learn: teach that a cause leads to an effect."""
    await memory.learn(owner, body.cause, body.effect, body.sufficiency, at=body.at)
    return {"status": "learnt"}


@owners.post("/{owner}/retier")
async def retier(owner: Owner, body: When, memory: Served) -> int:
    """GraphMem.retier: sink faded memories to their tiers; how many moved."""
    return await memory.retier(owner, at=body.at)


@owners.post("/{owner}/forget_message")
async def forget_message(owner: Owner, body: MessageRef, memory: Served) -> Forgotten:
    """GraphMem.forget_message: forget a message and what derives only from it.

    404 when the owner has no such message.
    """
    forgotten = await memory.forget_message(owner, body.message_id)
    if not forgotten.found:
        raise refusal(404, "not_found", "this owner has no message with this id")
    return forgotten


@owners.get("/{owner}/turns")
async def turns(
    owner: Owner,
    memory: Served,
    session: Annotated[
        str, Query(description='the session; "" (default) for turns without one')
    ] = "",
    last: Annotated[
        int | None, Query(ge=0, description="only the last this many; default: all")
    ] = None,
) -> list[Turn]:
    """GraphMem.turns: the turns of one session in the order received."""
    return await memory.turns(owner, session=session, last=last)


@owners.post("/{owner}/forget")
async def forget(owner: Owner, memory: Served) -> GraphCounts:
    """GraphMem.forget: delete everything of this owner."""
    return await memory.forget(owner)


@owners.get("/{owner}/health")
async def health(owner: Owner, memory: Served, at: Moment = None) -> Health:
    """GraphMem.health: what needs attention in this owner's memory."""
    return await memory.health(owner, at=at)


@owners.get("/{owner}/profile")
async def profile(owner: Owner, memory: Served, at: Moment = None) -> Profile:
    """GraphMem.profile: who the user is now, as the memory believes (no model call)."""
    return await memory.profile(owner, at=at)


@owners.get("/{owner}/statistics")
async def statistics(owner: Owner, memory: Served) -> GraphCounts:
    """GraphMem.statistics: the owner's nodes and edges counted."""
    return await memory.statistics(owner)


@owners.get(
    "/{owner}/export",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}}},
)
async def export(owner: Owner, memory: Served) -> StreamingResponse:
    """GraphMem.export: the owner's graph, one JSON record a line (what `load` takes)."""
    graph = await memory.export(owner)

    async def lines() -> AsyncIterator[bytes]:
        for record in graph.records():
            yield (json.dumps(record, ensure_ascii=False) + "\n").encode()

    return StreamingResponse(lines(), media_type="application/x-ndjson")


@owners.post("/{owner}/load")
async def load(owner: Owner, body: Records, memory: Served) -> GraphCounts:
    """GraphMem.load: add exported records to the owner's memory."""
    try:
        graph = OwnerGraph.from_records(body.records)
    except OverflowError as error:  # a time that is past datetime's range once in UTC
        raise InvalidInputError(f"records: a time out of range ({error})") from None
    return await memory.load(owner, graph)


@keys.post("")
async def create_key(body: KeyRequest, memory: Served) -> NewKey:
    """A new key (admin only); its secret is in this answer and nowhere else."""
    return await memory.create_key(
        owners=body.owners, owner_prefix=body.owner_prefix, admin=body.admin
    )


@keys.get("")
async def list_keys(memory: Served) -> list[KeyInfo]:
    """Every key, without its secret or its hash (admin only)."""
    return await memory.list_keys()


@keys.post("/{key_id}/revoke")
async def revoke_key(key_id: str, memory: Served) -> KeyInfo:
    """Revoke a key (admin only; 404 if there is no such key)."""
    revoked = await memory.revoke_key(key_id)
    if revoked is None:
        raise refusal(404, "not_found", f"no key {key_id!r}")
    return revoked


async def _refused(request: Request, error: Exception) -> JSONResponse:
    """The JSON answer of a refusal of the app's own."""
    assert isinstance(error, StarletteHTTPException)
    detail: dict[str, Any] = error.detail if isinstance(error.detail, dict) else {}
    phrase = HTTPStatus(error.status_code).phrase.lower().replace(" ", "_")
    code = str(detail.get("code", phrase))
    message = str(detail.get("message", error.detail))
    body = _error_body(code, message, _request_id(request))
    return JSONResponse(body, status_code=error.status_code, headers=error.headers)


async def _unfit(request: Request, error: Exception) -> JSONResponse:
    """The JSON answer of a request that does not fit its schema: the first problem, its field."""
    assert isinstance(error, RequestValidationError)
    [first, *_rest] = error.errors() or [{"loc": (), "msg": "invalid request"}]
    where = ".".join(str(part) for part in first["loc"] if part != "body")
    message = f"{where or 'body'}: {str(first['msg']).removeprefix('Value error, ')}"
    body = _error_body("unfit_request", message, _request_id(request), where or None)
    return JSONResponse(body, status_code=422)


async def _failed(request: Request, error: Exception) -> JSONResponse:
    """The JSON answer of a GraphMemError (ERRORS says which status)."""
    status, code = next((s, c) for kind, s, c in ERRORS if isinstance(error, kind))
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if status == 503 else {}
    if status >= 500:
        log.warning("%s: %s", _request_id(request), error)
    body = _error_body(code, str(error), _request_id(request))
    return JSONResponse(body, status_code=status, headers=headers)


def create_app(
    memory: AsyncGraphMem, limits: Limits, *, open_access: bool, host: str = "127.0.0.1"
) -> FastAPI:
    """The app: every verb a route, and the MCP tools at /mcp, behind keys unless `open_access`.

    `open_access` is for a store with no key; `host` is where the app listens (on a loopback
    address the MCP transport admits local Host headers only).
    """
    tools = http_app(memory.memory, host=host)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with tools.router.lifespan_context(tools):  # the MCP sessions' task group
            yield

    app = FastAPI(
        lifespan=lifespan,
        title="graphmem",
        version=__version__,
        description="Long-term memory for conversational agents: the facade's verbs over HTTP."
        " Send `Authorization: Bearer <key>`; a key touches only its owners.",
        responses={
            status: {"model": ErrorAnswer, "description": description}
            for status, description in ERROR_STATUSES.items()
        },
    )
    app.state.memory = memory
    app.state.open_access = open_access
    app.state.limiter = RateLimiter(limits)
    for router in (service, owners, keys):
        app.include_router(router)
    app.router.routes.extend(tools.routes)  # POST /mcp, as `graphmem mcp --transport http` has
    # Starlette's, of which FastAPI's is a kind: the router's 404 and 405, the body parser's 400.
    app.add_exception_handler(StarletteHTTPException, _refused)
    app.add_exception_handler(RequestValidationError, _unfit)
    app.add_exception_handler(GraphMemError, _failed)
    app.add_middleware(McpKeys, memory=memory, open_access=open_access)
    app.add_middleware(BodyLimit, max_body=limits.max_body)
    app.add_middleware(RequestIds)  # outermost: every answer, a 413 included, has its id
    return app


LOOPBACK = {"127.0.0.1", "::1", "localhost"}
"""The hosts a server without keys may listen on."""


def serve(settings: Settings, *, host: str, port: int, limits: Limits, workers: int) -> None:
    """Serve the memory the settings name until the process is stopped.

    With no live key in the store the server is open, which only a loopback host may be:
    ConfigurationError otherwise.
    """
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # SIGTERM stops the server as Ctrl-C does (uvicorn shuts down, then raises the signal
    # again), so that the memory is closed on the way out either way.
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    memory = GraphMem.open(settings)
    try:
        open_access = not any(key.revoked_at is None for key in memory.list_keys())
        if open_access and host not in LOOPBACK:
            raise ConfigurationError(
                f"no key exists, and a server without keys listens on a loopback address only,"
                f" not {host}: create one first (graphmem keys create --admin)"
            )
        if open_access:
            log.warning(
                "serving without keys: anyone on this machine may use every owner's memory"
                " (graphmem keys create makes the server ask for keys)"
            )
        served = AsyncGraphMem(memory, workers=workers)
        app = create_app(served, limits, open_access=open_access, host=host)
        with suppress(KeyboardInterrupt):
            uvicorn.run(
                app,
                host=host,
                port=port,
                log_level="info",
                access_log=False,
                timeout_keep_alive=KEEP_ALIVE_SECONDS,
            )
    finally:
        memory.close()
        signal.signal(signal.SIGTERM, previous)
