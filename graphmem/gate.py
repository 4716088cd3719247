"""The middleware in front of `graphmem serve`'s app: who may reach it, what each answer carries.

`Gate` decides from the headers alone, off the verbs' threads and before any body is read: the
Host header must name this server (`Hosts`), a key must be live (`KeyChecks`) or the server
open, the caller within its rate (`RateLimiter`) and its requests in progress; then the body is
read within its size and time (`Limits`). `Answers` gives every answer its request id and
headers, and logs every request in one line. A refusal is the app's error JSON (a JSON-RPC
error on /mcp); docs/security.md lists each check with its status, its flag and its test.
"""

import asyncio
import ipaddress
import json
import logging
import math
import re
import time
import uuid
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from typing import Any, TypeVar
from urllib.parse import quote

from graphmem.errors import ConfigurationError

try:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send
except ModuleNotFoundError as missing:
    raise ConfigurationError(
        f"graphmem serve needs FastAPI and uvicorn ({missing}): pip install 'graphmem[server]'"
    ) from None

from graphmem.contract import ServedRequest, error_answer
from graphmem.keys import ApiKey
from graphmem.mcp_server import PERMITTED
from graphmem.memory import GraphMem

log = logging.getLogger("graphmem.server")  # graphmem serve's log, whichever module writes
T = TypeVar("T")

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
CONSOLE_PATH = "/console"
"""Where the console's files are served (public: the page asks for a key, then calls the API)."""
CONSOLE_POLICY = (
    b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self';"
    b" connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
"""The console's Content-Security-Policy: its own files only, no inline script, no framing."""
REQUESTS_KEPT = 1000
"""How many of the latest requests the request log keeps."""
OWNER_PATH = re.compile(r"/v1/owners/([^/]+)/")
"""A path on an owner's memory, whose first group is the owner (as the path decodes it)."""
MCP_PATH = "/mcp"
"""Where the MCP tools are served over streamable HTTP."""
REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A caller's X-Request-Id that the server keeps; any other is replaced by a new one."""


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
    """Whether a path serves no memory and no key: health, the API's description, the console."""
    return path in PUBLIC_PATHS or path.startswith(DOCS_ASSETS + "/") or _is_console(path)


def _is_console(path: str) -> bool:
    """Whether a path is one of the console's files."""
    return path == CONSOLE_PATH or path.startswith(CONSOLE_PATH + "/")


def _is_json(headers: dict[bytes, bytes]) -> bool:
    """Whether a request declares a JSON body, which no cross-site form or simple request can."""
    declared = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    return declared == b"application/json"


CLOSE = ((b"connection", b"close"),)
"""The header of an answer after which the server closes the connection."""


class Gate:
    """ASGI middleware: who may reach memory, decided from the headers before any body is read.

    Off the verbs' threads; then the body is read within its size and time.

    In order, on every path: the Host header must name this server (421); one Authorization
    header at most (400); a declared body within the size (413). Then on a path that serves
    memory or keys (every one but PUBLIC_PATHS): a live key (401), or on an open server none
    and a JSON content type instead (415: a web page cannot send one without the server's
    consent); the caller's rate (429) and requests in progress (429); the body's size (413)
    and time (408); a body declared as JSON (415). The key is left in the
    scope's state for the routes and in PERMITTED for the MCP tools. A refusal's JSON is the
    contract's (`error_answer`), as the app's.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
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
            await self._answer(scope, send, *refused)
            return
        if _is_public(scope["path"]):
            await self.app(scope, receive, send)
            return
        key = await self.checks.key(authorizations[0]) if authorizations else None
        if key is None and (authorizations or not await self.checks.still_open()):
            await self._answer(
                scope, send, 401, "unauthorized", UNAUTHORIZED, ((b"www-authenticate", b"Bearer"),)
            )
            return
        declares_json = _is_json(headers)
        if key is None and not declares_json:
            await self._answer(scope, send, 415, "not_json", NO_KEY_NOR_JSON)
            return
        caller = key.id if key else self._address(scope, headers)
        await self._within_limits(caller, key, scope, receive, send, declares_json=declares_json)

    async def _answer(  # noqa: PLR0917 (the request, then the refusal)
        self,
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
            body = error_answer(code, message, request_id)
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
            await self._answer(
                scope,
                send,
                429,
                "rate_limited",
                f"over {self.limits.rate:g} requests a second for {whose}; retry in {seconds} s",
                ((b"retry-after", str(seconds).encode()),),
            )
            return
        if self.in_flight[caller] >= self.limits.in_flight:
            await self._answer(
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
                await self._answer(scope, send, 415, "not_json", NOT_JSON)
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
                        await self._answer(scope, send, 413, "too_large", self._too_large())
                        return None
                    more = message.get("more_body", False)
        except TimeoutError:
            await self._answer(
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


class RequestLog:
    """The latest requests answered, newest first: route, owner, status, time; no body, no key."""

    def __init__(self, kept: int = REQUESTS_KEPT) -> None:
        self._kept: deque[ServedRequest] = deque(maxlen=kept)

    def add(self, request: ServedRequest) -> None:
        """Keep a request answered (the oldest kept goes when the log is full)."""
        self._kept.appendleft(request)

    def latest(self, limit: int) -> list[ServedRequest]:
        """The latest `limit` requests, newest first."""
        return list(islice(self._kept, limit))


class Answers:
    """ASGI middleware: every answer's headers, and every request's log line and log entry.

    Every answer gets a request id and `nosniff`, and `no-store` unless it is the API's public
    description or the console; the console's its Content-Security-Policy. The log line carries
    the request id; the request log (`RequestLog`) keeps the request without its body or key.
    """

    def __init__(self, app: ASGIApp, *, requests: RequestLog) -> None:
        self.app = app
        self.requests = requests

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
        if _is_console(scope["path"]):
            stamps.append((b"content-security-policy", CONSOLE_POLICY))
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
            milliseconds = 1000 * (time.perf_counter() - started)
            # escaped: a decoded %0A in an owner would start a forged line of the log
            path = quote(scope["path"], safe="/:@", errors="backslashreplace")
            log.info(
                "%s %s %s -> %d in %.1f ms", request_id, scope["method"], path, status, milliseconds
            )
            owner = OWNER_PATH.match(scope["path"])
            self.requests.add(
                ServedRequest(
                    at=datetime.now(UTC),
                    method=scope["method"],
                    path=scope["path"],
                    owner=None if owner is None else owner.group(1),
                    status=status,
                    milliseconds=round(milliseconds, 1),
                    request_id=request_id,
                )
            )
