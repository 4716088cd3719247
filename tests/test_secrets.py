"""Secrets and access: credentials come only from settings, never reach errors or logs.

Neo4j's password and the model endpoint's key are given distinctive values; every failure a
user can meet (refused, unreachable, HTTP 401/500, an invalid answer) is provoked, and the
secret is looked for in the error, its whole cause/context chain, the printed traceback and
every log record at DEBUG, the Neo4j driver's, openai's and httpx's included. Where a server
is reached, the test also shows the secret was used (the key arrives as the Bearer token; the
driver logged its login; the command line got past "needs a password"), so that its absence
from the output proves something. Wrong Neo4j logins use
a fresh nonexistent user: Neo4j locks a user out after 3 failures in a row, and user neo4j is
shared with the rest of the suite. The Neo4j that scripts/neo4j launches is checked to listen
on 127.0.0.1 only (its listening sockets read from /proc/net) and to refuse Bolt and HTTP
without valid credentials.
"""

import base64
import ipaddress
import itertools
import json
import logging
import socket
import subprocess
import sys
import threading
import traceback
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# Bolt without any credentials (the "none" scheme) cannot be asked for through graphmem, which
# always logs in; the driver is handed to graphmem's store, which then reports the refusal.
import neo4j  # noqa: TID251
import pytest
from pydantic import SecretStr

from graphmem.config import Settings
from graphmem.errors import ConfigurationError, GraphMemError, ModelError, StoreUnavailableError
from graphmem.memory import GraphMem
from graphmem.store.neo4j import Neo4jStore
from graphmem.testing import Reply, chat_reply, embeddings_reply

from .conftest import ROOT, Neo4jServer, clean_env

NEO4J_SECRET = "pw-7f3a9c-graphmem-neo4j-secret"
API_KEY = "sk-4d2b8e-graphmem-openai-secret"
LOGGERS = ("neo4j", "openai", "httpx", "httpcore", "graphmem")
"""Set to DEBUG one by one as well, in case a library gave its logger a level of its own."""
DIMENSIONS = 4
"""Vector size of the stand-in embeddings endpoint."""


def stranger() -> str:
    """A user name Neo4j does not know, new each time: failing as it cannot lock anyone out."""
    return f"graphmem-test-nobody-{uuid.uuid4().hex[:12]}"


@contextmanager
def closed_port() -> Iterator[int]:
    """A port of 127.0.0.1 bound but not listening: connecting is refused, nobody can take it."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


def capture_all_logs(caplog: pytest.LogCaptureFixture) -> None:
    """Record every log record at DEBUG and above, from every logger."""
    caplog.set_level(logging.DEBUG)
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)


def exception_chain(error: BaseException) -> list[BaseException]:
    """The error and every exception reachable through __cause__ and __context__."""
    found: list[BaseException] = []
    waiting: list[BaseException | None] = [error]
    while waiting:
        current = waiting.pop()
        if current is None or any(current is seen for seen in found):
            continue
        found.append(current)
        waiting += [current.__cause__, current.__context__]
    return found


def assert_kept_secret(
    secret: str, error: BaseException, records: Sequence[logging.LogRecord]
) -> None:
    """The secret is in no exception of the chain, the traceback, nor any log record."""
    for link in exception_chain(error):
        shown = [str(link), repr(link), *map(repr, link.args)]
        assert not [text for text in shown if secret in text], type(link).__name__
    assert secret not in "".join(traceback.format_exception(error))
    assert loggers_showing(secret, records) == []


def loggers_showing(secret: str, records: Sequence[logging.LogRecord]) -> list[str]:
    """The loggers of the records whose text (message and traceback) holds the secret."""
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    return [record.name for record in records if secret in formatter.format(record)]


# --- Neo4j's password -------------------------------------------------------------------------


@pytest.mark.neo4j
def test_a_refused_neo4j_login_keeps_the_password_out_of_errors_and_logs(
    neo4j_server: Neo4jServer, caplog: pytest.LogCaptureFixture
) -> None:
    capture_all_logs(caplog)
    settings = Settings(
        store="neo4j",
        neo4j_uri=neo4j_server.uri,
        neo4j_user=stranger(),
        neo4j_password=SecretStr(NEO4J_SECRET),
    )
    with pytest.raises(ConfigurationError, match=r"^Neo4j refused the credentials") as caught:
        GraphMem.open(settings)
    assert_kept_secret(NEO4J_SECRET, caught.value, caplog.records)
    # The driver did log its login message at DEBUG, credentials and all (masked).
    logins = [
        record
        for record in caplog.records
        if record.name.startswith("neo4j") and "credentials" in record.getMessage()
    ]
    assert logins
    assert settings.neo4j_user in logins[0].getMessage()


def test_an_unreachable_neo4j_keeps_the_password_out_of_errors_and_logs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    capture_all_logs(caplog)
    with closed_port() as port:
        settings = Settings(
            store="neo4j",
            neo4j_uri=f"bolt://127.0.0.1:{port}",
            neo4j_password=SecretStr(NEO4J_SECRET),
        )
        with pytest.raises(StoreUnavailableError, match=r"^Neo4j could not be reached") as caught:
            GraphMem.open(settings)
    assert isinstance(caught.value.__cause__, neo4j.exceptions.ServiceUnavailable)
    assert any(record.name.startswith("neo4j") for record in caplog.records)
    assert_kept_secret(NEO4J_SECRET, caught.value, caplog.records)


@pytest.mark.parametrize(
    "failure", [pytest.param("refused", marks=pytest.mark.neo4j), "unreachable"]
)
def test_the_command_line_reports_neo4j_failures_without_the_password(
    failure: str, request: pytest.FixtureRequest
) -> None:
    environment = clean_env()
    environment["GRAPHMEM_NEO4J_PASSWORD"] = NEO4J_SECRET
    with closed_port() as port:
        if failure == "refused":
            server: Neo4jServer = request.getfixturevalue("neo4j_server")
            environment["GRAPHMEM_NEO4J_URI"] = server.uri
            environment["GRAPHMEM_NEO4J_USER"] = stranger()
            expected = "graphmem: Neo4j refused the credentials: "
        else:
            environment["GRAPHMEM_NEO4J_URI"] = f"bolt://127.0.0.1:{port}"
            expected = "graphmem: Neo4j could not be reached: "
        done = subprocess.run(
            [sys.executable, "-m", "graphmem", "stats", "--owner", "x", "--store", "neo4j"],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith(expected)
    assert "Traceback" not in done.stderr
    assert NEO4J_SECRET not in done.stderr


# --- where credentials come from ---------------------------------------------------------------


def test_no_credential_has_a_default_nor_comes_from_other_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for variable in [
        *(f"GRAPHMEM_{name.upper()}" for name in Settings.model_fields),
        "GRAPHMEM_CONFIG",
    ]:
        monkeypatch.delenv(variable, raising=False)
    # What Neo4j's image and the openai library would read; graphmem must not.
    monkeypatch.setenv("NEO4J_AUTH", f"neo4j/{NEO4J_SECRET}")
    monkeypatch.setenv("NEO4J_PASSWORD", NEO4J_SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    assert (Settings().neo4j_password, Settings().openai_api_key) == (None, None)
    settings = Settings.from_env()
    assert (settings.neo4j_password, settings.openai_api_key) == (None, None)
    with closed_port() as port:
        # Refused before any connection: an attempt would be StoreUnavailableError.
        monkeypatch.setenv("GRAPHMEM_STORE", "neo4j")
        monkeypatch.setenv("GRAPHMEM_NEO4J_URI", f"bolt://127.0.0.1:{port}")
        with pytest.raises(
            ConfigurationError, match=r"^the neo4j store needs GRAPHMEM_NEO4J_PASSWORD$"
        ):
            GraphMem.open()
    monkeypatch.setenv("GRAPHMEM_STORE", "networkx")
    monkeypatch.setenv("GRAPHMEM_COGNITION", "openai")
    with pytest.raises(ConfigurationError, match=r"need GRAPHMEM_OPENAI_API_KEY$"):
        GraphMem.open()


def test_settings_never_show_their_secrets(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {"GRAPHMEM_NEO4J_PASSWORD": NEO4J_SECRET, "GRAPHMEM_OPENAI_API_KEY": API_KEY}
    )
    assert settings.neo4j_password is not None
    assert settings.openai_api_key is not None
    assert settings.neo4j_password.get_secret_value() == NEO4J_SECRET
    assert settings.openai_api_key.get_secret_value() == API_KEY
    dumped = json.loads(settings.model_dump_json())
    assert (dumped["neo4j_password"], dumped["openai_api_key"]) == ("**********", "**********")
    shown = [
        repr(settings),
        str(settings),
        settings.model_dump_json(),
        repr(settings.model_dump()),
        json.dumps(settings.model_dump(mode="json")),
    ]
    for secret in (NEO4J_SECRET, API_KEY):
        assert not [text for text in shown if secret in text]
    # A secret pasted into the wrong variable or mistyped key is named, never quoted back.
    with pytest.raises(ConfigurationError, match="GRAPHMEM_OPENAI_TIMEOUT_SECONDS") as caught:
        Settings.from_env({"GRAPHMEM_OPENAI_TIMEOUT_SECONDS": API_KEY})
    assert API_KEY not in str(caught.value)
    file = tmp_path / "graphmem.toml"
    file.write_text(f'neo4j_pasword = "{NEO4J_SECRET}"\n')
    with pytest.raises(ConfigurationError, match=r"unknown settings \['neo4j_pasword'\]") as caught:
        Settings.from_env({}, file=file)
    assert NEO4J_SECRET not in str(caught.value)
    file.write_text(f'neo4j_password = "{NEO4J_SECRET}\n')
    with pytest.raises(ConfigurationError, match="cannot read the settings file") as caught:
        Settings.from_env({}, file=file)
    assert NEO4J_SECRET not in str(caught.value)


# --- the model endpoint's key ------------------------------------------------------------------


@dataclass
class StandIn:
    """An OpenAI-compatible server on 127.0.0.1 that records the Authorization header it got.

    graphmem.testing's ScriptedServer records paths and bodies only, not headers.
    """

    chat: Reply
    """The answer to every chat completion; embeddings always succeed."""
    base_url: str = ""
    seen: list[tuple[str, str | None]] = field(default_factory=list)
    """(path, Authorization header) of each request, in order."""


@contextmanager
def stand_in_endpoint(chat: Reply) -> Iterator[StandIn]:
    """Run a StandIn answering chat completions with `chat` for the block."""
    state = StandIn(chat=chat)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            state.seen.append((self.path, self.headers.get("Authorization")))
            reply = state.chat
            if self.path.endswith("/embeddings"):
                reply = embeddings_reply([[1.0] + [0.0] * (DIMENSIONS - 1)] * len(body["input"]))
            raw = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
            payload = raw.encode("utf-8")
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            """Keep the test output quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def model_settings(endpoint: StandIn) -> Settings:
    """Settings that send the cognition and the embedder to the stand-in, with API_KEY."""
    return Settings(
        cognition="openai",
        embedder="openai",
        openai_base_url=endpoint.base_url,
        openai_api_key=SecretStr(API_KEY),
        openai_embedding_dimensions=DIMENSIONS,
        openai_max_retries=1,
        openai_backoff_seconds=0,
    )


def observe_then_consolidate(memory: GraphMem, owner: str) -> None:
    """Observe a message (a model failure leaves it pending), then run the sleep job on it."""
    observed = memory.observe(owner, "I'm allergic to milk.")
    assert observed.pending
    memory.consolidate(owner)


@pytest.mark.parametrize(
    ("answer", "error", "message"),
    [
        (
            Reply(401, {"error": {"message": "invalid key"}}),
            ConfigurationError,
            r"^the model endpoint refused the API key \(HTTP 401\)$",
        ),
        (
            Reply(500, {"error": {"message": "boom"}}),
            ModelError,
            "^the model endpoint failed perceive after 2 attempts: HTTP 500$",
        ),
    ],
    ids=["401", "500"],
)
def test_the_api_key_is_sent_but_never_shown(
    answer: Reply,
    error: type[GraphMemError],
    message: str,
    owner: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    capture_all_logs(caplog)
    with stand_in_endpoint(answer) as endpoint:
        memory = GraphMem.open(model_settings(endpoint))
        try:
            with pytest.raises(error, match=message) as caught:
                observe_then_consolidate(memory, owner)
        finally:
            memory.close()
    assert {path for path, _ in endpoint.seen} == {"/v1/embeddings", "/v1/chat/completions"}
    assert {authorization for _, authorization in endpoint.seen} == {f"Bearer {API_KEY}"}
    assert any(record.name.startswith("httpx") for record in caplog.records)
    assert_kept_secret(API_KEY, caught.value, caplog.records)


def test_the_api_key_is_sent_but_never_shown_when_the_answers_are_garbage(
    owner: str, caplog: pytest.LogCaptureFixture
) -> None:
    capture_all_logs(caplog)
    with stand_in_endpoint(chat_reply("Sure! Here is the JSON.")) as endpoint:
        memory = GraphMem.open(model_settings(endpoint))
        try:
            observed = memory.observe(owner, "I'm allergic to milk.")
            report = memory.consolidate(owner)  # perceived offline; the job goes on
        finally:
            memory.close()
    assert observed.pending
    assert report.counts["derived offline"] == 1
    warnings = [record.getMessage() for record in caplog.records if record.name == "graphmem"]
    assert any("the model's answer to perceive was invalid twice" in text for text in warnings)
    assert {authorization for _, authorization in endpoint.seen} == {f"Bearer {API_KEY}"}
    assert loggers_showing(API_KEY, caplog.records) == []


@pytest.mark.parametrize("status", [401, 500])
def test_an_endpoint_that_echoes_the_key_does_not_get_it_shown(
    status: int, owner: str, caplog: pytest.LogCaptureFixture
) -> None:
    capture_all_logs(caplog)
    echo = Reply(status, {"error": {"message": f"Incorrect API key provided: {API_KEY}"}})
    with stand_in_endpoint(echo) as endpoint:
        memory = GraphMem.open(model_settings(endpoint))
        try:
            with pytest.raises(GraphMemError) as caught:
                observe_then_consolidate(memory, owner)
        finally:
            memory.close()
    assert ("/v1/chat/completions", f"Bearer {API_KEY}") in endpoint.seen
    assert f"HTTP {status}" in str(caught.value)
    assert API_KEY not in str(caught.value)
    assert API_KEY not in "".join(traceback.format_exception(caught.value))
    assert loggers_showing(API_KEY, caplog.records) == []


# --- the Neo4j of scripts/neo4j -----------------------------------------------------------------


def listening_addresses(port: int) -> set[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The local addresses of the TCP sockets listening on `port` (IPv4-mapped ones unmapped)."""
    found: set[ipaddress.IPv4Address | ipaddress.IPv6Address] = set()
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        if not table.exists():  # no IPv6 on this machine
            continue
        for line in table.read_text().splitlines()[1:]:
            local, _remote, state = line.split()[1:4]
            address, port_hex = local.split(":")
            if state != "0A" or int(port_hex, 16) != port:  # 0A: LISTEN
                continue
            # The kernel prints each 32-bit word of the address as a number in host order.
            raw = b"".join(
                int(address[start : start + 8], 16).to_bytes(4, sys.byteorder)
                for start in range(0, len(address), 8)
            )
            ip = ipaddress.ip_address(raw)
            mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
            found.add(mapped or ip)
    return found


def other_local_addresses() -> list[str]:
    """Addresses of this machine that are not 127.0.0.1: 127.0.0.2 and the non-loopback ones."""
    addresses = ["127.0.0.2"]  # also on lo: reached if the server listened on 0.0.0.0
    lines = Path("/proc/net/fib_trie").read_text().splitlines()
    for above, line in itertools.pairwise(lines):
        if "/32 host LOCAL" in line:
            address = ipaddress.IPv4Address(above.split()[-1])
            if not address.is_loopback and str(address) not in addresses:
                addresses.append(str(address))
    inet6 = Path("/proc/net/if_inet6")
    for line in inet6.read_text().splitlines() if inet6.exists() else []:
        hexadecimal, _index, _length, scope = line.split()[:4]
        if scope == "00":  # global scope (link-local ones would need an interface)
            addresses.append(str(ipaddress.IPv6Address(bytes.fromhex(hexadecimal))))
    return addresses


def accepts(host: str, port: int) -> bool:
    """Whether a TCP connection to host:port is accepted."""
    try:
        with socket.create_connection((host, port), timeout=5):
            return True
    except ConnectionRefusedError:
        return False


@pytest.mark.neo4j
def test_neo4j_listens_on_127_0_0_1_only(neo4j_server: Neo4jServer) -> None:
    if not Path("/proc/net/tcp").exists():
        pytest.skip("reads the listening sockets from Linux's /proc/net")
    ports = [
        urllib.parse.urlsplit(neo4j_server.uri).port,
        urllib.parse.urlsplit(neo4j_server.http_url).port,
    ]
    for port in ports:
        assert port is not None
        assert listening_addresses(port) == {ipaddress.IPv4Address("127.0.0.1")}, port
        assert accepts("127.0.0.1", port)
        reached = [host for host in other_local_addresses() if accepts(host, port)]
        assert reached == [], port


def transaction(http_url: str, authorization: str | None) -> int:
    """The HTTP status of RETURN 1 on the transactional endpoint, with this Authorization."""
    request = urllib.request.Request(
        f"{http_url}/db/neo4j/tx/commit",
        data=json.dumps({"statements": [{"statement": "RETURN 1"}]}).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        method="POST",
    )
    if authorization is not None:
        request.add_header("Authorization", authorization)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.close()
        return error.code


def basic(user: str, password: str) -> str:
    """An HTTP basic Authorization header value."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.neo4j
def test_neo4j_wants_credentials_over_bolt_and_http(neo4j_server: Neo4jServer) -> None:
    anonymous = Neo4jStore(neo4j.GraphDatabase.driver(neo4j_server.uri, auth=None), "neo4j")
    try:
        with pytest.raises(ConfigurationError, match=r"^Neo4j refused the credentials"):
            anonymous.owners()
    finally:
        anonymous.close()
    password = neo4j_server.password.get_secret_value()
    Neo4jStore.connect(neo4j_server.uri, neo4j_server.user, neo4j_server.password, "neo4j").close()
    assert transaction(neo4j_server.http_url, None) == 401
    assert transaction(neo4j_server.http_url, basic(stranger(), NEO4J_SECRET)) == 401
    assert transaction(neo4j_server.http_url, basic(neo4j_server.user, password)) == 200
