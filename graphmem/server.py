"""`graphmem serve`: the facade's verbs over HTTP and JSON, behind keys scoped to owners.

One resource per owner, one route per verb, named as the verb is everywhere else
(`POST /v1/owners/{owner}/recall` is `GraphMem.recall`); `/openapi.json` describes every
request and response with the models the Python API returns. The app runs the verbs through
`AsyncGraphMem`, so its event loop never waits on the store or the model.

Keys: a request names its key as `Authorization: Bearer <secret>` (graphmem.keys). A key may
touch only its owners: any other owner gets 403, the same whether or not that owner has a
memory. Admin keys may touch every owner and manage keys. With no key in the store the server
is open, which `serve` allows on a loopback address only, until the first key is made. Who
reaches the app at all is the Gate's to decide, from the headers alone (docs/security.md).

Errors are JSON, `{"error": {"code", "message", "field"?, "request_id"}}`: 400 bad input (the
facade's message names the field) or two keys, 401 no or unknown key, 403 another owner's
memory, 404 unknown key, 408 a body too slow, 409 conflict, 413 a body over `max_body` bytes or
a batch over `max_messages`, 415 not JSON, 421 a Host not this server's, 422 a request that
does not fit its schema, 429 over the key's rate or requests in flight (`Retry-After`), 503
store unreachable (`Retry-After`), 502 model endpoint failed. Every response carries
`X-Request-Id`, which the server's log line of the request carries too. The MCP tools are
served at /mcp behind the same gate (graphmem.mcp_server.http_app). FastAPI, uvicorn and
starlette are imported here only, which is why this is one module: the request models, the
middleware, the routes and `serve` all speak FastAPI's or starlette's types; the verbs
themselves are the facade's.
"""

import asyncio
import errno
import ipaddress
import json
import logging
import math
import re
import signal
import socket
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from http import HTTPStatus
from typing import Annotated, Any, TypeVar
from urllib.parse import quote, urlsplit

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from graphmem.errors import ConfigurationError

try:
    import h11
    import uvicorn
    from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse, StreamingResponse
    from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
    from fastapi_offline import FastAPIOffline
    from starlette.exceptions import HTTPException as StarletteHTTPException
    from starlette.types import ASGIApp, Message, Receive, Scope, Send
    from uvicorn.protocols.http.h11_impl import H11Protocol
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
from graphmem.file_formats import export_records
from graphmem.inputs import EARLIEST, LATEST, keepable
from graphmem.keys import PREFIX_ENDS, ApiKey, KeyInfo, NewKey
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
from graphmem.scoring import DEFAULT_PRESET, PRESETS, QueryTurn, Weights

log = logging.getLogger("graphmem.server")
T = TypeVar("T")

RETRY_AFTER_SECONDS = 5
"""What `Retry-After` says when the store cannot be reached."""
UNAUTHORIZED = (
    "send a valid key as Authorization: Bearer <key>; an admin makes one with POST /v1/keys,"
    " or with graphmem keys create while no server holds the store"
)
"""The message of a 401."""
NO_KEY_NOR_JSON = (
    "send Content-Type: application/json (or a key): a request with neither could come from any"
    " web page, so a server without keys refuses it"
)
"""The message of a 415 for a request without a key on an open server."""
NOT_JSON = "send the body as JSON, with Content-Type: application/json"
"""The message of a 415 for a body that is not declared as JSON."""
MCP_REFUSED = -32001
"""The JSON-RPC error code of a request to /mcp that the gate refuses (a server error code)."""
MAX_BUCKETS = 10_000
"""Rate buckets kept at most (one a key or client address): beyond, the least recently used go."""
LOOPBACK = {"127.0.0.1", "::1", "localhost"}
"""The hosts a server without keys may listen on, and the names it answers to there."""
EVERY_ADDRESS = {"0.0.0.0", "::", ""}  # noqa: S104 (names them, binds nothing)
"""The hosts that listen on every address of the machine."""
DOCS_ASSETS = "/docs/assets"
"""Where Swagger UI's files are served from (inside the package: /docs works offline)."""
PUBLIC_PATHS = {"/healthz", "/readyz", "/docs", "/openapi.json"}
"""The paths that serve neither memory nor keys, open to any caller the Host check admits."""
KEEP_ALIVE_SECONDS = 75
"""How long an idle connection stays open: longer than a client's pool keeps one (httpx: 5 s)
or a load balancer's idle timeout (often 60 s), so that the client closes it first. Were the
server first, a request sent on a connection as it closes would fail without an answer."""

LISTENING = "graphmem serve listening on"
"""How the log line that says the server takes requests begins."""
MCP_PATH = "/mcp"
"""Where the MCP tools are served over streamable HTTP."""
REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A caller's X-Request-Id that the server keeps; any other is replaced by a new one."""
MAX_INTEGER = 2**63 - 1
"""The largest whole number a store keeps (Neo4j's are 64-bit)."""
TIME_EXAMPLE = "2026-12-07T09:30:00+00:00"
"""A time as a request gives one, for the errors that ask for one."""
REQUEST = ConfigDict(extra="forbid", allow_inf_nan=False)
"""Every request model's: an unknown field, NaN or Infinity is a 422 naming the field."""
MAX_MESSAGE_CHARS = 500
"""The most of an error's message an answer carries (a message quoting a huge input is cut)."""


@dataclass(frozen=True)
class Limits:
    """What one request may send, how fast, and how often and how much at once one key may ask."""

    max_body: int = 1_000_000
    """Bytes of a request body (413 beyond)."""
    max_messages: int = 100
    """Messages one `observe_many` may carry (413 beyond)."""
    rate: float = 50.0
    """Requests a second one key may make, on average."""
    burst: int = 100
    """Requests one key may make at once."""
    in_flight: int = 4
    """Requests of one key in progress at once (429 beyond): the rest of the verbs' threads stay
    free for the other keys."""
    header_timeout: float = 10.0
    """Seconds a request's headers may take to arrive (the connection is dropped then)."""
    body_timeout: float = 30.0
    """Seconds a request's body may take to arrive once its headers have (408 then)."""


@dataclass(frozen=True)
class Perimeter:
    """Who may reach the server: the names it answers to and the proxies it believes."""

    allowed_hosts: tuple[str, ...] = ()
    """Host names it answers to besides the address it listens on (serve --allowed-host)."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses whose X-Forwarded-For names the client (serve --trusted-proxy)."""


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
            raise ValueError(
                f"must be a datetime in ISO 8601, not {value[:40]!r}, e.g. {TIME_EXAMPLE}"
            ) from None
    if moment.utcoffset() is None:
        raise ValueError(f"must have a UTC offset, e.g. {TIME_EXAMPLE}")
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

    model_config = REQUEST

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

    model_config = REQUEST

    messages: list[ObservedMessage] = Field(description="the messages, oldest first")
    readmit_forgotten: bool = Field(
        False, description="store messages forgotten earlier again (their tombstones go)"
    )


class RecallQuestion(BaseModel):
    """What to recall, and how."""

    model_config = REQUEST

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

    model_config = REQUEST

    at: Moment = None


class MessageRef(BaseModel):
    """A message by its id."""

    model_config = REQUEST

    message_id: str = Field(description="the id the message was observed with")


Text = Annotated[str, AfterValidator(check_text)]
"""A text as a memory holds it, checked before it is embedded (a megabyte would take minutes)."""


class Cause(BaseModel):
    """Knowledge to teach: a cause, its effect, how surely one brings the other."""

    model_config = REQUEST

    cause: Text
    effect: Text
    sufficiency: float = Field(ge=0, le=1)
    at: Moment = None


class KeyRequest(BaseModel):
    """What a new key may touch."""

    model_config = REQUEST

    owners: list[str] = Field([], description="owners the key may touch")
    owner_prefix: Annotated[str, AfterValidator(check_owner)] | None = Field(
        None, description="it may touch owners starting with this (itself an owner's name)"
    )
    admin: bool = Field(False, description="it may touch every owner and manage keys")


class Limit(BaseModel):
    """How many at most."""

    model_config = REQUEST

    limit: int = Field(1000, ge=1, le=MAX_INTEGER, description="the most to do in this call")


class Records(BaseModel):
    """An owner's graph as the records `export` streams."""

    model_config = REQUEST

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
    """A caller's token bucket: tokens now, refilled at the rate up to the burst."""

    tokens: float
    updated: float


@dataclass
class RateLimiter:
    """Token buckets per key (or per client address when the server is open).

    At most MAX_BUCKETS of them: the least recently used goes first.
    """

    limits: Limits
    buckets: dict[str, Bucket] = field(default_factory=dict)

    def wait(self, caller: str) -> float:
        """Seconds to wait before the caller may ask again; 0 takes a token now."""
        now = time.monotonic()
        bucket = self.buckets.pop(caller, None) or Bucket(float(self.limits.burst), now)
        if len(self.buckets) >= MAX_BUCKETS:
            self._forget_oldest()
        self.buckets[caller] = bucket  # last: the dict is in the order of last use
        bucket.tokens = min(
            float(self.limits.burst), bucket.tokens + (now - bucket.updated) * self.limits.rate
        )
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) / self.limits.rate

    def _forget_oldest(self) -> None:
        """Drop the bucket used longest ago (a dict keeps the order of last use)."""
        del self.buckets[next(iter(self.buckets))]


class KeyChecks:
    """Key checks in threads of their own: a flood of verbs never delays a 401 or /readyz."""

    def __init__(self, memory: GraphMem, *, open_access: bool) -> None:
        self.memory = memory
        self.open = open_access
        """No live key in the store: any local caller is let in. Once a key exists it is closed
        for good (checked again on each request without a key)."""
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="graphmem-keys")

    async def key(self, authorization: bytes) -> ApiKey | None:
        """The live key an Authorization header names as `Bearer <secret>`, if any."""
        scheme, _, secret = authorization.decode("latin-1").partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            return None
        return await self._run(self.memory.authenticate, secret.strip())

    async def still_open(self) -> bool:
        """Whether the server is still open: no live key has been made since it started."""
        if self.open:
            self.open = not await self._run(self._any_live_key)
        return self.open

    async def ready(self) -> None:
        """Nothing, once the store has answered (StoreUnavailableError otherwise)."""
        await self._run(self.memory.list_keys)

    def _any_live_key(self) -> bool:
        """Whether the store holds a key that is not revoked."""
        return any(key.revoked_at is None for key in self.memory.list_keys())

    async def _run(self, check: Callable[..., T], *args: Any) -> T:
        """Run a check in the checks' own threads."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, check, *args)

    def close(self) -> None:
        """Stop the checks' threads."""
        self._pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class Hosts:
    """The Host headers the server answers to.

    Its own address; on loopback, the loopback names; on every address, any address (a name
    could be rebound); and the names allowed.
    """

    listening: str
    allowed: tuple[str, ...] = ()

    def admit(self, header: str) -> bool:
        """Whether a Host header names this server (so no rebound DNS name reaches it)."""
        name = _host_name(header)
        if name in {self.listening.lower(), *(host.lower() for host in self.allowed)}:
            return True
        if self.listening in LOOPBACK:
            return name in LOOPBACK
        return self.listening in EVERY_ADDRESS and _is_address(name)


def _host_name(header: str) -> str:
    """The name of a Host header without its port: `[::1]:8420` is `::1`."""
    if header.startswith("["):
        return header[1:].partition("]")[0].lower()
    name, colon, port = header.rpartition(":")
    return (name if colon and port.isdigit() else header).lower().removesuffix(".")


def _is_address(name: str) -> bool:
    """Whether a name is an IP address rather than a DNS name."""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _is_public(path: str) -> bool:
    """Whether a path serves no memory and no key: health, readiness, the API's description."""
    return path in PUBLIC_PATHS or path.startswith(DOCS_ASSETS + "/")


def _is_json(headers: dict[bytes, bytes]) -> bool:
    """Whether a request declares a JSON body, which no cross-site form or simple request can."""
    declared = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    return declared == b"application/json"


CLOSE = ((b"connection", b"close"),)
"""The header of an answer after which the server closes the connection."""


async def _answer(  # noqa: PLR0917 (the request, then the refusal)
    scope: Scope,
    send: Send,
    status: int,
    code: str,
    message: str,
    headers: tuple[tuple[bytes, bytes], ...] = (),
) -> None:
    """Answer a request from the gate, before the app.

    Its body, if any, is never parsed: what comes of it is discarded as it arrives, within the
    header timeout, and the connection kept (closed at once, a client still sending would get
    a reset instead of the answer). A 408 closes it (CLOSE): that client sends nothing more.
    On /mcp the answer is a JSON-RPC error, whose message an MCP client shows.
    """
    request_id = scope.get("state", {}).get("request_id", "")
    if scope["path"].startswith(MCP_PATH):
        error = {"code": MCP_REFUSED, "message": f"{message} ({code}, request {request_id})"}
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": None, "error": error}
    else:
        body = _error_body(code, message, request_id)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


class Gate:
    """ASGI middleware: who may reach memory, decided from the headers before any body is read.

    Off the verbs' threads; then the body is read within its size and time.

    In order, on every path: the Host header must name this server (421); one Authorization
    header at most (400); a declared body within the size (413). Then on a path that serves
    memory or keys (every one but PUBLIC_PATHS): a live key (401), or on an open server none
    and a JSON content type instead (415: a web page cannot send one without the server's
    consent); the caller's rate (429) and requests in progress (429); the body's size (413)
    and time (408); a body declared as JSON (415). The key is left in the
    scope's state for the routes and in PERMITTED for the MCP tools.
    """

    def __init__(
        self,
        app: ASGIApp,
        checks: KeyChecks,
        limits: Limits,
        hosts: Hosts,
        trusted_proxies: tuple[str, ...],
    ) -> None:
        self.app = app
        self.checks = checks
        self.limits = limits
        self.hosts = hosts
        self.trusted_proxies = frozenset(trusted_proxies)
        self.limiter = RateLimiter(limits)
        self.in_flight: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Let a request in, or answer it here."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        authorizations = [value for name, value in scope["headers"] if name == b"authorization"]
        refused = self._refusal_on_every_path(headers, authorizations)
        if refused is not None:
            await _answer(scope, send, *refused)
            return
        if _is_public(scope["path"]):
            await self.app(scope, receive, send)
            return
        key = await self.checks.key(authorizations[0]) if authorizations else None
        if key is None and (authorizations or not await self.checks.still_open()):
            await _answer(
                scope, send, 401, "unauthorized", UNAUTHORIZED, ((b"www-authenticate", b"Bearer"),)
            )
            return
        declares_json = _is_json(headers)
        if key is None and not declares_json:
            await _answer(scope, send, 415, "not_json", NO_KEY_NOR_JSON)
            return
        caller = key.id if key else self._address(scope, headers)
        await self._within_limits(caller, key, scope, receive, send, declares_json=declares_json)

    def _refusal_on_every_path(
        self, headers: dict[bytes, bytes], authorizations: list[bytes]
    ) -> tuple[int, str, str] | None:
        """The status, code and message of a refusal any path gets, if the headers earn one."""
        host = headers.get(b"host", b"").decode("latin-1")
        if not self.hosts.admit(host):
            return (
                421,
                "wrong_host",
                f"this server does not answer to the host {host[:80]!r}"
                " (serve --allowed-host NAME adds a name it answers to)",
            )
        if len(authorizations) > 1:
            return 400, "two_keys", "send one Authorization header, not several"
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limits.max_body:
            return 413, "too_large", self._too_large()
        return None

    async def _within_limits(
        self,
        caller: str,
        key: ApiKey | None,
        scope: Scope,
        receive: Receive,
        send: Send,
        *,
        declares_json: bool,
    ) -> None:
        """Pass the request on if the caller is within its rate and its requests in progress."""
        whose = "this key" if key else "this address"
        wait = self.limiter.wait(caller)
        if wait > 0:
            seconds = math.ceil(wait)
            await _answer(
                scope,
                send,
                429,
                "rate_limited",
                f"over {self.limits.rate:g} requests a second for {whose}; retry in {seconds} s",
                ((b"retry-after", str(seconds).encode()),),
            )
            return
        if self.in_flight[caller] >= self.limits.in_flight:
            await _answer(
                scope,
                send,
                429,
                "too_many_in_flight",
                f"{self.limits.in_flight} requests of {whose} are in progress; retry in 1 s"
                " when one has been answered (serve --in-flight sets how many)",
                ((b"retry-after", b"1"),),
            )
            return
        self.in_flight[caller] += 1
        try:
            body = await self._body(scope, receive, send)
            if body is None:
                return
            if body and not declares_json:
                await _answer(scope, send, 415, "not_json", NOT_JSON)
                return
            scope.setdefault("state", {})["key"] = key
            permitted = PERMITTED.set(key)
            try:
                await self.app(scope, _replay(body, receive), send)
            finally:
                PERMITTED.reset(permitted)
        finally:
            self.in_flight[caller] -= 1
            if not self.in_flight[caller]:
                del self.in_flight[caller]

    async def _body(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """The request's whole body, or None once it has been answered.

        413 over the size, 408 past the time, nothing when the client went away.
        """
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.limits.body_timeout):
                more = True
                while more:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return None
                    chunks.append(message.get("body", b""))
                    size += len(chunks[-1])
                    if size > self.limits.max_body:
                        await _answer(scope, send, 413, "too_large", self._too_large())
                        return None
                    more = message.get("more_body", False)
        except TimeoutError:
            await _answer(
                scope,
                send,
                408,
                "too_slow",
                f"the request body did not arrive within {self.limits.body_timeout:g} s"
                " (serve --body-timeout)",
                CLOSE,
            )
            return None
        return b"".join(chunks)

    def _too_large(self) -> str:
        """The message of a 413 for a body over the limit."""
        return f"the request body is over {self.limits.max_body} bytes (serve --max-body)"

    def _address(self, scope: Scope, headers: dict[bytes, bytes]) -> str:
        """The client's address: the peer's, or what a trusted proxy says it is.

        From a trusted proxy: the last address its X-Forwarded-For names that is not itself a
        trusted proxy.
        """
        peer = scope["client"][0] if scope.get("client") else ""
        if peer not in self.trusted_proxies:
            return str(peer)
        forwarded = headers.get(b"x-forwarded-for", b"").decode("latin-1").split(",")
        for address in reversed([part.strip() for part in forwarded if part.strip()]):
            if address not in self.trusted_proxies:
                return address
        return str(peer)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the body read already, then what the connection says next."""
    given = False

    async def replayed() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed


class Answers:
    """ASGI middleware: every answer's headers, and every request's log line.

    Every answer gets a request id and `nosniff`, and `no-store` unless it is the API's public
    description; the log line carries the request id.
    """

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
        stamps = [(b"x-request-id", request_id.encode()), (b"x-content-type-options", b"nosniff")]
        if not _is_public(scope["path"]):
            stamps.append((b"cache-control", b"no-store"))
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), *stamps]
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
    400: "bad input; the message names the field (or two Authorization headers)",
    401: "no key, or an unknown or revoked one",
    403: "the key may not touch this owner",
    404: "no such key",
    408: "the request body did not arrive in time",
    409: "the input contradicts what is stored",
    413: "the request body is too large, or a batch has too many messages",
    415: "the body is not sent as application/json (or, on an open server, no key and no JSON)",
    421: "the Host header does not name this server",
    422: "the request does not fit its schema",
    429: "too many requests, or requests in progress, for this key; see Retry-After",
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


BEARER = HTTPBearer(auto_error=False, description="a key: graphmem keys create, or POST /v1/keys")
"""Declares the bearer scheme in /openapi.json, so that /docs asks for a key to try a route with."""


async def _caller(
    request: Request, _declared: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]
) -> ApiKey | None:
    """The request's key, which the gate checked (None on an open server)."""
    key: ApiKey | None = request.scope["state"]["key"]
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
async def ready(request: Request) -> dict[str, str]:
    """The store answers (503 otherwise)."""
    checks: KeyChecks = request.app.state.checks
    await checks.ready()
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
async def observe_many(
    owner: Owner, body: ObserveMany, memory: Served, request: Request
) -> list[Observation]:
    """GraphMem.observe_many: store messages in one transaction, then derive them.

    413 when the messages are more than the server takes in one request (serve --max-messages).
    """
    most = request.app.state.limits.max_messages
    if len(body.messages) > most:
        raise refusal(
            413,
            "too_many_messages",
            f"messages: {len(body.messages)} in one request, at most {most} (serve"
            " --max-messages): send them in several",
        )
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

    `found` is false when the owner has no such message (nothing changes), as on every face.
    """
    return await memory.forget_message(owner, body.message_id)


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
    """GraphMem.export: the export file's lines, a header then one JSON record a line.

    `graphmem import` reads it as it is; its records are what `load` takes.
    """
    graph = await memory.export(owner)

    async def lines() -> AsyncIterator[bytes]:
        for record in export_records(owner, graph):
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
    problems = error.errors() or [{"loc": (), "msg": "invalid request"}]
    first = max(problems, key=lambda problem: len(problem["loc"]))  # a union's: its deepest
    if first.get("type") == "json_invalid":  # its place: ("body", the offset of the mistake)
        position = first["loc"][-1]
        problem = first.get("ctx", {}).get("error", "")
        message = f"the body is not JSON at position {position}: {problem}".removesuffix(": ")
        body = _error_body("not_json", message, _request_id(request))
        return JSONResponse(body, status_code=422)
    where = ".".join(str(part) for part in first["loc"][1:] if not _union_member(part))
    message = f"{where or 'body'}: {str(first['msg']).removeprefix('Value error, ')}"
    body = _error_body("unfit_request", message, _request_id(request), where or None)
    return JSONResponse(body, status_code=422)


def _union_member(part: object) -> bool:
    """Whether a part of an error's place is a union's member (`Weights`, `str`), not a field."""
    return isinstance(part, str) and (part[:1].isupper() or "[" in part or part in TYPE_NAMES)


TYPE_NAMES = {"str", "int", "float", "bool", "list", "dict", "none"}
"""The names pydantic gives the plain members of a union in an error's place."""


async def _failed(request: Request, error: Exception) -> JSONResponse:
    """The JSON answer of a GraphMemError (ERRORS says which status)."""
    status, code = next((s, c) for kind, s, c in ERRORS if isinstance(error, kind))
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if status == 503 else {}
    if status >= 500:
        log.warning("%s: %s", _request_id(request), error)
    body = _error_body(code, str(error), _request_id(request))
    return JSONResponse(body, status_code=status, headers=headers)


def create_app(
    memory: AsyncGraphMem,
    limits: Limits,
    *,
    open_access: bool,
    host: str = "127.0.0.1",
    perimeter: Perimeter = Perimeter(),
) -> FastAPI:
    """The app: every verb a route, and the MCP tools at /mcp, behind keys unless `open_access`.

    `open_access` is for a store with no key (the first key made closes it); `host` is where the
    app listens, whose address (and the perimeter's names) the Host header must name.
    """
    checks = KeyChecks(memory.memory, open_access=open_access)
    tools = http_app(memory.memory, max_messages=limits.max_messages)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with tools.router.lifespan_context(tools):  # the MCP sessions' task group
            yield
        checks.close()

    app = FastAPIOffline(
        lifespan=lifespan,
        title="graphmem",
        version=__version__,
        description="Long-term memory for conversational agents: the facade's verbs over HTTP."
        " Send `Authorization: Bearer <key>` (Authorize, above, to try a route here); a key"
        " touches only its owners.",
        responses={
            status: {"model": ErrorAnswer, "description": description}
            for status, description in ERROR_STATUSES.items()
        },
        redoc_url=None,
        static_url=DOCS_ASSETS,
        favicon_url=f"{DOCS_ASSETS}/favicon.png",
    )
    app.state.memory = memory
    app.state.checks = checks
    app.state.limits = limits
    for router in (service, owners, keys):
        app.include_router(router)
    app.router.routes.extend(tools.routes)  # POST /mcp, as `graphmem mcp --transport http` has
    # Starlette's, of which FastAPI's is a kind: the router's 404 and 405, the body parser's 400.
    app.add_exception_handler(StarletteHTTPException, _refused)
    app.add_exception_handler(RequestValidationError, _unfit)
    app.add_exception_handler(GraphMemError, _failed)
    hosts = Hosts(host, perimeter.allowed_hosts)
    app.add_middleware(
        Gate, checks=checks, limits=limits, hosts=hosts, trusted_proxies=perimeter.trusted_proxies
    )
    app.add_middleware(Answers)  # outermost: every answer, a refusal included, has its id
    return app


class ServeConfig(uvicorn.Config):
    """uvicorn's configuration, and the seconds a request's headers may take to arrive."""

    def __init__(self, app: ASGIApp, *, header_timeout: float, **options: Any) -> None:
        super().__init__(app, **options)
        self.header_timeout = header_timeout


class TimelyH11(H11Protocol):
    """uvicorn's HTTP/1.1, except that slow request headers close the connection.

    Headers that take longer than `header_timeout` to arrive close it: a client that sends a
    line every few seconds, or nothing, would otherwise hold it for ever.
    """

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        assert isinstance(config, ServeConfig)
        self.header_timeout = config.header_timeout
        self.headers_due: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the connection, and the time its first request's headers have."""
        super().connection_made(transport)
        self.headers_due = self.loop.call_later(self.header_timeout, self.drop_slow_client)
        self.lingering: asyncio.TimerHandle | None = None

    def send_400_response(self, msg: str) -> None:
        """The 400 uvicorn sends for bytes that are no request, then a lingering close.

        Closed at once with the client's bytes still unread, the connection is reset, and a
        reset can drop the answer before the client reads it. So the server stops writing,
        drops what still comes until the client closes or `header_timeout` passes, then closes.
        """
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
        start = h11.Response(status_code=400, headers=headers, reason=b"Bad Request")
        for event in (start, h11.Data(data=msg.encode()), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.write_eof()
        self.lingering = self.loop.call_later(self.header_timeout, self.transport.close)

    def data_received(self, data: bytes) -> None:
        """Read what came; the headers' time starts at a request's first byte, ends with them."""
        if self.lingering is not None:
            return  # after a 400: dropped
        between_requests = self.cycle is None or self.cycle.response_complete
        if between_requests and self.headers_due is None:
            self.headers_due = self.loop.call_later(self.header_timeout, self.drop_slow_client)
        super().data_received(data)
        started = self.cycle is not None and not self.cycle.response_complete
        if started and self.headers_due is not None:
            self.headers_due.cancel()
            self.headers_due = None

    def connection_lost(self, exc: Exception | None) -> None:
        """End the connection and its timer."""
        for timer in (self.headers_due, self.lingering):
            if timer is not None:
                timer.cancel()
        self.headers_due = self.lingering = None
        super().connection_lost(exc)

    def drop_slow_client(self) -> None:
        """Close a connection whose request headers did not arrive in time."""
        self.headers_due = None
        if not self.transport.is_closing():
            self.transport.close()


class Listening(uvicorn.Server):
    """uvicorn's server, which says where it listens once it does.

    Given a socket, uvicorn says nothing; tests, benchmarks and users wait for LISTENING.
    """

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start serving, then say where."""
        await super().startup(sockets)
        if not self.should_exit:
            host = self.config.host
            shown = f"[{host}]" if ":" in host else host
            log.info("%s http://%s:%d (Ctrl-C stops it)", LISTENING, shown, self.config.port)


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to the host and port, or ConfigurationError in one line naming them."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            raise ConfigurationError(
                f"port {port} is in use on {host}: stop what listens there, or choose another"
                " port with --port"
            ) from None
        raise ConfigurationError(f"cannot listen on {host} port {port}: {error.strerror}") from None
    listener.listen(socket.SOMAXCONN)  # from now on, connections wait for the server
    return listener


def store_named(settings: Settings) -> str:
    """The store the settings name, for the log: a file, in process, or Neo4j (no credentials)."""
    if settings.store == "neo4j":
        address = urlsplit(settings.neo4j_uri)
        return f"Neo4j at {address.scheme}://{address.hostname}:{address.port or 7687}"
    return "in process (nothing kept)" if settings.path is None else f"the file {settings.path}"


def serve(
    settings: Settings,
    *,
    host: str,
    port: int,
    limits: Limits,
    workers: int,
    perimeter: Perimeter = Perimeter(),
) -> None:
    """Serve the memory the settings name until the process is stopped.

    With no live key in the store the server is open, which only a loopback host may be:
    ConfigurationError otherwise, as for a port in use.
    """
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if host not in LOOPBACK and settings.store == "networkx" and settings.path is None:
        raise ConfigurationError(
            f"a store in process starts with no key, and a server without keys listens on a"
            f" loopback address only, not {host}: serve a store file that holds a key"
            " (graphmem keys create --admin --path FILE, then graphmem serve --path FILE)"
        )
    listener = listening_socket(host, port)
    # SIGTERM stops the server as Ctrl-C does (uvicorn shuts down, then raises the signal
    # again), so that the memory is closed on the way out either way.
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        memory = GraphMem.open(settings)
    except BaseException:
        listener.close()
        signal.signal(signal.SIGTERM, previous)
        raise
    try:
        live = [key for key in memory.list_keys() if key.revoked_at is None]
        open_access = not live
        if open_access and host not in LOOPBACK:
            raise ConfigurationError(
                f"no key exists, and a server without keys listens on a loopback address only,"
                f" not {host}: create one first (graphmem keys create --admin)"
            )
        for key in live:
            if not key.separates_owners():
                log.warning(
                    "key %s has the owner prefix %r, which also reaches owners such as %r:"
                    " revoke it and make one whose prefix ends with one of %s",
                    key.id,
                    key.owner_prefix,
                    f"{key.owner_prefix}0",
                    " ".join(PREFIX_ENDS),
                )
        log.info(
            "serving %s; %s",
            store_named(settings),
            "keys enforced" if not open_access else "no key exists: open to this machine only",
        )
        if open_access:
            log.warning(
                "serving without keys: anyone on this machine may use every owner's memory"
                " (the first key made, with POST /v1/keys, closes the server to callers"
                " without one)"
            )
        served = AsyncGraphMem(memory, workers=workers)
        app = create_app(served, limits, open_access=open_access, host=host, perimeter=perimeter)
        config = ServeConfig(
            app,
            header_timeout=limits.header_timeout,
            http=TimelyH11,
            host=host,
            port=port,
            log_level="info",
            access_log=False,
            timeout_keep_alive=KEEP_ALIVE_SECONDS,
            proxy_headers=False,  # the gate reads X-Forwarded-For, from trusted proxies only
        )
        with suppress(KeyboardInterrupt):
            Listening(config).run(sockets=[listener])
    finally:
        listener.close()
        memory.close()
        signal.signal(signal.SIGTERM, previous)
