"""How `graphmem serve` runs an app: the memory opened, a socket listening, uvicorn until stopped.

`opened` opens the memory the settings name and says whether the server is open (no live key,
which only a loopback address may be); `run` serves the app on the socket with uvicorn, whose
HTTP/1.1 (`TimelyH11`) drops a client whose request headers come too slowly; `Listening` logs
LISTENING once it takes requests.
"""

import asyncio
import errno
import logging
import signal
import socket
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any
from urllib.parse import urlsplit

from graphmem.errors import ConfigurationError

try:
    import h11
    import uvicorn
    from starlette.types import ASGIApp
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ModuleNotFoundError as missing:
    raise ConfigurationError(
        f"graphmem serve needs FastAPI and uvicorn ({missing}): pip install 'graphmem[server]'"
    ) from None

from graphmem.config import Settings
from graphmem.contract import PREFIX_ENDS
from graphmem.gate import LOOPBACK
from graphmem.memory import GraphMem

log = logging.getLogger("graphmem.server")  # graphmem serve's log, whichever module writes

KEEP_ALIVE_SECONDS = 75
"""How long an idle connection stays open: longer than a client's pool keeps one (httpx: 5 s)
or a load balancer's idle timeout (often 60 s), so that the client closes it first. Were the
server first, a request sent on a connection as it closes would fail without an answer."""

LISTENING = "graphmem serve listening on"
"""How the log line that says the server takes requests begins."""


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
            address = f"http://{shown}:{self.config.port}"
            log.info(
                "%s %s (Ctrl-C stops it); the console: %s/console/", LISTENING, address, address
            )


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


@contextmanager
def opened(
    settings: Settings, *, host: str, port: int
) -> Iterator[tuple[GraphMem, socket.socket, bool]]:
    """The memory the settings name, a socket listening on the host and port, and whether open.

    The server is open when the store holds no live key, which only a loopback host may be:
    ConfigurationError otherwise, as for a port in use. Both are closed on the way out.
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
        yield memory, listener, _starts_open(memory, settings, host)
    finally:
        listener.close()
        memory.close()
        signal.signal(signal.SIGTERM, previous)


def _starts_open(memory: GraphMem, settings: Settings, host: str) -> bool:
    """Whether no live key exists, so that the server starts open; logs how it serves."""
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
    return open_access


def run(
    app: ASGIApp, listener: socket.socket, *, host: str, port: int, header_timeout: float
) -> None:
    """Serve the app on the listening socket until Ctrl-C or SIGTERM."""
    config = ServeConfig(
        app,
        header_timeout=header_timeout,
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
