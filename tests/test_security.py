"""`graphmem serve` against the world around it: web pages, slow and greedy clients, look-alike
keys. Each test sends the exact request that got through before the server was hardened."""

import asyncio
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, InitializeResult

from graphmem import __version__
from graphmem.client import GraphMemClient
from graphmem.gate import MAX_BUCKETS, Limits, RateLimiter
from graphmem.keys import new_key
from graphmem.mcp_server import MemoryTools
from graphmem.memory import GraphMem
from graphmem.store.networkx import NetworkXStore

from .conftest import free_port
from .test_cli import store_arguments
from .test_server import LOGS, StartServer, graphmem, new_secret, start_server

__all__ = ["start_server"]  # the fixture, imported to be used here

JSON = {"Content-Type": "application/json"}


def address(url: str) -> tuple[str, int]:
    """The host and port of a server's URL."""
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


@contextmanager
def held_connection(url: str, request: bytes) -> Iterator[socket.socket]:
    """A connection that has sent these bytes and waits, open, until the block ends."""
    with socket.create_connection(address(url), timeout=60) as connection:
        connection.sendall(request)
        yield connection


def open_server(start: StartServer, tmp_path: Path, *extra: str) -> str:
    """A server on a fresh store with no key (open to loopback callers)."""
    return start(["--store", "networkx", "--path", str(tmp_path / "open.json")], *extra)


def keyed_server(
    start: StartServer, tmp_path: Path, request: pytest.FixtureRequest, *extra: str
) -> tuple[str, str, str]:
    """A server on a store with a key for alice; its address, alice's and an admin's secret."""
    store = store_arguments("networkx", request, tmp_path)
    alice = new_secret(store, "--owner", "alice")
    admin = new_secret(store, "--admin")
    return start(store, *extra), alice, admin


def test_a_host_header_that_names_another_server_is_refused_on_every_route(
    tmp_path: Path, start_server: StartServer
) -> None:
    url = open_server(start_server, tmp_path, "--allowed-host", "memory.example")
    port = address(url)[1]
    routes = ["/v1/owners", "/v1/owners/victim/export", "/healthz", "/docs", "/openapi.json"]
    with httpx.Client(base_url=url, timeout=60, headers=JSON) as http:
        for route in routes:  # DNS rebinding: a page at evil.example whose name now points here
            rebound = http.get(route, headers={"Host": f"evil.example:{port}"})
            assert rebound.status_code == 421, route
            assert "--allowed-host" in rebound.json()["error"]["message"]
        to_mcp = http.post("/mcp", json={}, headers={"Host": f"evil.example:{port}"})
        assert to_mcp.status_code == 421
        for name in ("127.0.0.1", "localhost", "memory.example"):
            assert http.get("/v1/owners", headers={"Host": f"{name}:{port}"}).status_code == 200


def test_a_web_page_cannot_reach_an_open_server_with_a_form_or_a_simple_request(
    tmp_path: Path, start_server: StartServer
) -> None:
    url = open_server(start_server, tmp_path)
    with GraphMemClient(url) as client:
        client.observe("victim", "My PIN is 4821.", message_id="pin")
    form = httpx.post(
        f"{url}/v1/owners/victim/forget",
        headers={"Origin": "https://evil.example"},
        data={"x": "1"},  # application/x-www-form-urlencoded, as a cross-site <form> sends
    )
    assert form.status_code == 415
    assert "Content-Type: application/json" in form.json()["error"]["message"]
    simple = httpx.get(f"{url}/v1/owners/victim/export")  # no preflight for a plain GET either
    assert simple.status_code == 415
    with GraphMemClient(url) as client:
        assert client.statistics("victim").total > 0  # nothing was forgotten
        assert client.export("victim").nodes


def test_the_first_key_made_over_http_closes_an_open_server_at_once(
    tmp_path: Path, start_server: StartServer
) -> None:
    url = open_server(start_server, tmp_path)
    with httpx.Client(base_url=url, timeout=60) as http:
        made = http.post("/v1/keys", json={"admin": True})
        assert made.status_code == 200
        assert made.headers["cache-control"] == "no-store"  # it carries a secret
        secret = made.json()["secret"]
        assert http.get("/v1/keys", headers=JSON).status_code == 401
        garbage = {"Authorization": "Bearer garbage", **JSON}
        assert http.get("/v1/keys", headers=garbage).status_code == 401
        keyed = http.get("/v1/keys", headers={"Authorization": f"Bearer {secret}"})
        assert keyed.status_code == 200


def test_the_key_is_checked_before_the_body_is_read(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    url, _alice, _admin = keyed_server(start_server, tmp_path, request)
    # Headers that promise a body of 999,999 bytes, and no body at all: the answer comes anyway.
    with held_connection(
        url,
        b"POST /v1/owners/alice/observe HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 999999\r\n\r\n{",
    ) as connection:
        answer = http.client.HTTPResponse(connection)
        answer.begin()
        assert answer.status == 401
        assert json.loads(answer.read())["error"]["code"] == "unauthorized"


def test_slow_headers_drop_the_connection_and_a_slow_body_gets_408(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    url, alice, _admin = keyed_server(
        start_server, tmp_path, request, "--header-timeout", "1", "--body-timeout", "1"
    )
    started = time.monotonic()
    with held_connection(url, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n") as slow:
        assert slow.recv(1024) == b""  # closed by the server, headers never finished
    assert time.monotonic() - started < 30  # not the client's own timeout of 60 s
    with held_connection(
        url,
        b"POST /v1/owners/alice/observe HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + f"Authorization: Bearer {alice}\r\n".encode()
        + b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    ) as dribbling:
        answer = b""
        while chunk := dribbling.recv(65536):  # until the server closes it
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 408")
    assert b"--body-timeout" in answer


def test_a_client_that_sends_a_long_line_before_reading_reads_its_400_whole(
    tmp_path: Path, start_server: StartServer
) -> None:
    url = open_server(start_server, tmp_path)
    line = b"GET /" + b"k" * 8_000_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with socket.create_connection(address(url), timeout=60) as client:
        client.sendall(line)  # more than the buffers hold: the server must go on reading it
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 400")
    assert body  # h11's words, not a reset that drops them


def test_a_batch_over_the_cap_is_413_naming_the_cap_on_rest_and_mcp(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    url, alice, _admin = keyed_server(start_server, tmp_path, request, "--max-messages", "3")
    messages = [{"text": f"Message {number}.", "message_id": f"m{number}"} for number in range(4)]
    headers = {"Authorization": f"Bearer {alice}"}
    over = httpx.post(
        f"{url}/v1/owners/alice/observe_many", json={"messages": messages}, headers=headers
    )
    assert over.status_code == 413
    assert "at most 3" in over.json()["error"]["message"]
    result = asyncio.run(mcp_call(url, alice, "observe_many", {"messages": messages}))
    assert result.is_error
    assert "at most 3" in str(result.content)
    with GraphMemClient(url, alice) as client:
        assert client.statistics("alice").total == 0  # neither stored a message


def test_one_key_has_at_most_its_requests_in_flight_and_others_are_not_held(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    store = store_arguments("networkx", request, tmp_path)
    alice = new_secret(store, "--owner", "alice")
    bob = new_secret(store, "--owner", "bob")
    url = start_server(store, "--in-flight", "1")
    body = json.dumps({"text": "Hello.", "message_id": "h"}).encode()
    head = (
        b"POST /v1/owners/alice/observe HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + f"Authorization: Bearer {alice}\r\n".encode()
        + f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
    )
    with (
        httpx.Client(base_url=url, timeout=60) as http,
        held_connection(url, head) as first,  # in flight: its body is still to come
    ):
        deadline = time.monotonic() + 30
        statuses: list[int] = []
        while 429 not in statuses and time.monotonic() < deadline:  # until the server has it
            answer = http.get(
                "/v1/owners/alice/statistics", headers={"Authorization": f"Bearer {alice}"}
            )
            statuses.append(answer.status_code)
        assert statuses[-1] == 429
        assert answer.headers["retry-after"] == "1"
        assert "in progress" in answer.json()["error"]["message"]
        for_bob = http.get("/v1/owners/bob/statistics", headers={"Authorization": f"Bearer {bob}"})
        assert for_bob.status_code == 200  # another key is not held by alice's
        first.sendall(body)
        assert first.recv(65536).startswith(b"HTTP/1.1 200")
        again = http.get(
            "/v1/owners/alice/statistics", headers={"Authorization": f"Bearer {alice}"}
        )
        assert again.status_code == 200


def test_x_forwarded_for_is_believed_from_trusted_proxies_only(
    tmp_path: Path, start_server: StartServer
) -> None:
    limits = ("--rate", "0.01", "--burst", "1")
    untrusting = open_server(start_server, tmp_path, *limits)
    trusting = start_server(
        ["--store", "networkx", "--path", str(tmp_path / "behind-proxy.json")],
        *limits,
        "--trusted-proxy",
        "127.0.0.1",
    )

    def status(url: str, client: str) -> int:
        headers = {"X-Forwarded-For": client, **JSON}
        return httpx.get(f"{url}/v1/owners", headers=headers).status_code

    assert [status(untrusting, "1.2.3.4"), status(untrusting, "5.6.7.8")] == [200, 429]
    assert [status(trusting, client) for client in ("1.2.3.4", "5.6.7.8", "1.2.3.4")] == [
        200,
        200,
        429,
    ]


def test_rate_buckets_are_bounded_and_the_least_recently_used_goes_first() -> None:
    limiter = RateLimiter(Limits(rate=0.001, burst=1))
    assert limiter.wait("kept") == 0
    for number in range(MAX_BUCKETS + 50):
        limiter.wait(f"10.0.{number // 256}.{number % 256}")
        if number % 1000 == 0:
            assert limiter.wait("kept") > 0  # used again: kept, and still empty
    assert len(limiter.buckets) == MAX_BUCKETS
    assert "kept" in limiter.buckets
    assert "10.0.0.1" not in limiter.buckets


def test_an_owner_prefix_must_end_at_a_separator(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    url, _alice, admin = keyed_server(start_server, tmp_path, request)
    with httpx.Client(
        base_url=url, timeout=60, headers={"Authorization": f"Bearer {admin}"}
    ) as http:
        refused = http.post("/v1/keys", json={"owner_prefix": "tenant-7"})
        assert refused.status_code == 400
        assert "separator" in refused.json()["error"]["message"]
        secret = http.post("/v1/keys", json={"owner_prefix": "tenant-7:"}).json()["secret"]
    with GraphMemClient(url, secret) as tenant:
        assert tenant.statistics("tenant-7:x").total == 0
        with pytest.raises(Exception, match="may not touch"):
            tenant.statistics("tenant-70:x")
    store = store_arguments("networkx", request, tmp_path / "other")
    by_cli = graphmem("keys", "create", "--owner-prefix", "tenant-7", *store)
    assert by_cli.returncode != 0
    assert "separator" in by_cli.stderr


def test_two_authorization_headers_are_refused_on_every_route(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    url, alice, admin = keyed_server(start_server, tmp_path, request)
    for method, route in [("GET", "/v1/owners/alice/statistics"), ("POST", "/mcp")]:
        connection = http.client.HTTPConnection(*address(url), timeout=60)
        try:
            connection.putrequest(method, route)
            connection.putheader("Authorization", f"Bearer {alice}")
            connection.putheader("Authorization", f"Bearer {admin}")
            connection.putheader("Content-Type", "application/json")
            connection.putheader("Content-Length", "2")
            connection.endheaders(b"{}")
            answer = connection.getresponse()
            assert answer.status == 400, route
            assert b"one Authorization header" in answer.read()
        finally:
            connection.close()


async def mcp_session_call(
    url: str, secret: str | None, tool: str, arguments: Mapping[str, Any]
) -> tuple[InitializeResult, CallToolResult]:
    """An MCP session with a key, initialized, and one tool call: both results."""
    headers = {} if secret is None else {"Authorization": f"Bearer {secret}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        initialized = await session.initialize()
        return initialized, await session.call_tool(tool, dict(arguments))


async def mcp_call(
    url: str, secret: str | None, tool: str, arguments: Mapping[str, Any]
) -> CallToolResult:
    """One tool call over MCP with a key."""
    _initialized, result = await mcp_session_call(url, secret, tool, arguments)
    return result


def test_mcp_names_its_version_takes_a_sole_owner_and_refuses_what_it_does_not_take(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    url, alice, _admin = keyed_server(start_server, tmp_path, request)
    observe = {"text": "I'm allergic to milk.", "message_id": "m1"}
    initialized, observed = asyncio.run(mcp_session_call(url, alice, "observe", observe))
    assert initialized.server_info.version == __version__
    assert "owner alice only" in (initialized.instructions or "")
    assert not observed.is_error  # the owner left out: alice's key covers alice only
    cases: list[tuple[dict[str, Any], str]] = [
        ({"query": "milk", "topk": 5}, "'topk'"),
        ({"query": "milk", "at": "yesterday"}, "at: must be a datetime"),
    ]
    for arguments, named in cases:
        refused = asyncio.run(mcp_call(url, alice, "recall", arguments))
        assert refused.is_error
        assert named in str(refused.content)
        assert "pydantic" not in str(refused.content)
    raw = (  # the SDK's client sends NaN as null; a client of another language may not
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call",'
        ' "params": {"name": "recall", "arguments": {"query": "milk", "motivation": NaN}}}'
    )
    headers = {"Authorization": f"Bearer {alice}", "Accept": "application/json, text/event-stream"}
    nan = httpx.post(f"{url}/mcp", content=raw, headers={**headers, **JSON}).json()
    assert nan["result"]["isError"]
    assert "motivation: NaN" in nan["result"]["content"][0]["text"]
    wrong_type = asyncio.run(mcp_call(url, alice, "recall", {"query": "milk", "k": "many"}))
    assert wrong_type.is_error
    assert "k:" in str(wrong_type.content)
    assert "errors.pydantic.dev" not in str(wrong_type.content)


def test_an_mcp_client_shows_why_its_key_is_refused(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    url, _alice, _admin = keyed_server(start_server, tmp_path, request)
    with pytest.raises(ExceptionGroup) as failed:  # the SDK's client raises it in a group
        asyncio.run(mcp_call(url, "gmk_0000000000000000_wrong", "profile", {}))
    refused = failed.value.subgroup(MCPError)
    assert refused is not None
    assert "send a valid key as Authorization: Bearer" in str(refused.exceptions)


def test_mcp_is_rate_limited_with_the_same_buckets_as_rest(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    url, alice, _admin = keyed_server(
        start_server, tmp_path, request, "--rate", "0.01", "--burst", "2"
    )
    headers = {"Authorization": f"Bearer {alice}"}
    assert httpx.get(f"{url}/v1/owners/alice/statistics", headers=headers).status_code == 200
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    accept = {"Accept": "application/json, text/event-stream", **headers}
    assert httpx.post(f"{url}/mcp", json=call, headers=accept).status_code == 200
    over = httpx.post(f"{url}/mcp", json=call, headers=accept)
    assert over.status_code == 429
    assert over.json()["error"]["message"].startswith("over 0.01 requests a second")


def test_mcp_calls_of_one_owner_do_not_hold_another_owners(tmp_path: Path) -> None:
    tools = MemoryTools(GraphMem.open(), None, max_messages=None)
    finished = threading.Event()

    def bobs_profile() -> None:
        tools.profile(owner="bob")
        finished.set()

    try:
        with tools._call("alice"):  # alice's call in progress
            other = threading.Thread(target=bobs_profile)
            other.start()
            other.join(timeout=60)
            assert finished.is_set()
    finally:
        tools.close()


def test_every_answer_says_nosniff_and_memory_is_not_cached(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    url, alice, _admin = keyed_server(start_server, tmp_path, request)
    headers = {"Authorization": f"Bearer {alice}"}
    with httpx.Client(base_url=url, timeout=60, headers=headers) as http:
        answers = {
            "recall": http.post("/v1/owners/alice/recall", json={"query": "milk"}),
            "export": http.get("/v1/owners/alice/export"),
            "refused": http.get("/v1/owners/bob/export"),
            "health": http.get("/healthz"),
            "docs": http.get("/docs"),
        }
    for name, answer in answers.items():
        assert answer.headers["x-content-type-options"] == "nosniff", name
    for name in ("recall", "export", "refused"):
        assert answers[name].headers["cache-control"] == "no-store", name


def test_the_api_docs_work_offline_and_take_a_key(
    tmp_path: Path, start_server: StartServer
) -> None:
    url = open_server(start_server, tmp_path)
    page = httpx.get(f"{url}/docs").text
    assert "https://" not in page  # nothing from a CDN
    assert "/docs/assets/swagger-ui-bundle.js" in page
    script = httpx.get(f"{url}/docs/assets/swagger-ui-bundle.js")
    assert script.status_code == 200
    assert len(script.content) > 100_000
    schema = httpx.get(f"{url}/openapi.json").json()
    schemes = schema["components"]["securitySchemes"]
    assert [scheme["scheme"] for scheme in schemes.values()] == ["bearer"]
    recall = schema["paths"]["/v1/owners/{owner}/recall"]["post"]
    assert recall["security"]  # /docs sends the key it was given with this route


def test_one_mistake_gets_one_clear_answer(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    url, alice, _admin = keyed_server(start_server, tmp_path, request)
    headers = {"Authorization": f"Bearer {alice}"}
    recall = f"{url}/v1/owners/alice/recall"
    with httpx.Client(timeout=60, headers=headers) as http:
        for field in ("motivation", "min_belief"):
            nan = http.post(recall, content=f'{{"query": "x", "{field}": NaN}}', headers=JSON)
            assert (nan.status_code, nan.json()["error"]["field"]) == (422, field)
        weights = http.post(
            recall, content='{"query": "x", "weights": {"relevance": Infinity}}', headers=JSON
        )
        assert weights.status_code == 422
        assert "relevance" in weights.json()["error"]["message"]
        broken = http.post(recall, content='{"query": "x",', headers=JSON)
        assert broken.status_code == 422
        assert "not JSON at position 14" in broken.json()["error"]["message"]
        untyped = http.post(recall, content='{"query": "x"}')
        assert untyped.status_code == 415
        assert "Content-Type: application/json" in untyped.json()["error"]["message"]
        naive = http.post(
            f"{url}/v1/owners/alice/observe", json={"text": "x", "at": "2026-01-01T10:00:00"}
        )
        assert naive.status_code == 422
        assert naive.json()["error"]["field"] == "at"
        assert "e.g. 2026-" in naive.json()["error"]["message"]
        unknown = http.post(recall, json={"query": "x", "topk": 3})
        assert unknown.status_code == 422
        assert "https://" not in unknown.text
        bad_record = {"label": "Memory", "node": {"id": 1}}
        loaded = http.post(f"{url}/v1/owners/alice/load", json={"records": [bad_record]})
        assert loaded.status_code == 400
        assert "not a node or edge record: id: Input should be a valid string" in loaded.text
        assert "https://" not in loaded.text  # no links of pydantic's
        forgotten = http.post(
            f"{url}/v1/owners/alice/forget_message", json={"message_id": "never-said"}
        )
        assert (forgotten.status_code, forgotten.json()["found"]) == (200, False)


def test_a_429_says_the_wait_its_retry_after_says(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    url, alice, _admin = keyed_server(
        start_server, tmp_path, request, "--rate", "0.2", "--burst", "1"
    )
    headers = {"Authorization": f"Bearer {alice}"}
    httpx.get(f"{url}/v1/owners/alice/statistics", headers=headers)
    over = httpx.get(f"{url}/v1/owners/alice/statistics", headers=headers)
    assert over.status_code == 429
    assert f"retry in {over.headers['retry-after']} s" in over.json()["error"]["message"]


def test_a_port_in_use_is_one_line_naming_it_and_the_log_names_the_store(
    tmp_path: Path, start_server: StartServer
) -> None:
    path = tmp_path / "logged.json"
    url = start_server(["--store", "networkx", "--path", str(path)])
    port = str(address(url)[1])
    second = graphmem("serve", "--port", port, "--path", str(tmp_path / "second.json"))
    assert second.returncode == 1
    [line] = [line for line in second.stderr.splitlines() if line.strip()]
    assert f"port {port} is in use" in line
    assert "--port" in line
    assert LOGS[url].wait_for(lambda logged: f"serving the file {path}" in logged)
    assert LOGS[url].wait_for(lambda logged: "no key exists" in logged)


def test_a_store_in_process_is_refused_on_every_address_with_what_to_do() -> None:
    refused = graphmem("serve", "--host", "0.0.0.0", "--port", str(free_port()), "--in-memory")
    assert refused.returncode == 1
    assert "starts with no key" in refused.stderr
    assert "--path FILE" in refused.stderr


def test_a_key_made_before_the_separator_rule_is_named_when_the_server_starts(
    tmp_path: Path, start_server: StartServer
) -> None:
    path = tmp_path / "old.json"
    record, _secret = new_key(owners=["x"], owner_prefix=None, admin=False, now=datetime.now(UTC))
    store = NetworkXStore.open(path)
    try:  # as an earlier graphmem made it: a prefix that runs on into other owners' names
        store.save_key(record.model_copy(update={"owners": (), "owner_prefix": "tenant-7"}))
    finally:
        store.close()
    url = start_server(["--store", "networkx", "--path", str(path)])
    assert LOGS[url].wait_for(lambda line: "owner prefix 'tenant-7'" in line and "revoke" in line)
