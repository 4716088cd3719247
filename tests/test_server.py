"""`graphmem serve` as a real process on 127.0.0.1, driven by the real client, on both stores."""

import asyncio
import http.client
import inspect
import json
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from langchain.agents import create_agent
from langchain_openai import ChatOpenAI
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from openai import AsyncOpenAI

from graphmem.client import AsyncGraphMemClient, GraphMemClient
from graphmem.contract import Recall
from graphmem.errors import AccessError, InvalidInputError, RequestRefusedError
from graphmem.integrations.base import MemoryContext
from graphmem.integrations.langchain import GraphMemMiddleware
from graphmem.integrations.openai_agents import GraphMemSession, memory_tools
from graphmem.memory import GraphMem
from graphmem.model import Memory, Turn
from graphmem.server import owners as owner_routes
from graphmem.serving import LISTENING
from graphmem.testing import chat_reply, scripted_openai_server, tool_call_reply

from .conftest import ROOT, Neo4jServer, clean_env, free_port
from .test_cli import ASKED, ASKED_JSON, settings_of, store_arguments, told
from .test_concurrency import QUERIES, increments, message
from .test_pending import offline_model

START = datetime(2026, 3, 1, 9, tzinfo=UTC)

set_tracing_disabled(True)  # the OpenAI Agents SDK would export traces to OpenAI's servers


@dataclass
class Served:
    """A running `graphmem serve`: its address, and the keys made for it."""

    url: str
    ann: str
    """The owner of the key `alice` (fresh for each test: Neo4j is shared)."""
    ben: str
    """The owner of the key `bob`."""
    team: str
    """The owner prefix the key `alice` also has."""
    alice: str
    """A key for the owner ann and the owners starting with team."""
    bob: str
    """A key for the owner ben only."""
    admin: str
    command: list[str]
    """The flags that name its store, to run other commands on it."""


def graphmem(*arguments: str) -> subprocess.CompletedProcess[str]:
    """Run one CLI command with no GRAPHMEM_* variables."""
    return subprocess.run(
        [sys.executable, "-m", "graphmem", *arguments],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )


def new_secret(store: list[str], *scope: str) -> str:
    """A key made with `graphmem keys create`, its secret."""
    done = graphmem("keys", "create", *scope, "--json", *store)
    assert done.returncode == 0, done.stderr
    secret: str = json.loads(done.stdout)["secret"]
    return secret


StartServer = Callable[..., str]
"""Start `graphmem serve` on a store's flags (and extra flags, and GRAPHMEM_* `variables`); its
address once it is ready."""


class Log:
    """What a server writes on stderr, read as it comes, and a way to wait for a line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._written = threading.Condition()

    def read(self, stream: Iterable[str]) -> None:
        """Keep every line of the stream, saying so to those who wait."""
        for line in stream:
            with self._written:
                self.lines.append(line)
                self._written.notify_all()

    def wait_for(self, wanted: Callable[[str], bool]) -> bool:
        """Whether a line the server wrote, or writes within 30 s, is wanted."""
        with self._written:
            return self._written.wait_for(lambda: any(map(wanted, self.lines)), timeout=30)


LOGS: dict[str, Log] = {}
"""What each server started by a test writes on stderr, by its address."""


@pytest.fixture
def start_server() -> Iterator[StartServer]:
    """Start servers as a test needs them; stop them (and check they stopped well) after it."""
    started: list[tuple[subprocess.Popen[str], threading.Thread]] = []

    def start(store: list[str], *extra: str, variables: dict[str, str] | None = None) -> str:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        process = subprocess.Popen(
            [sys.executable, "-m", "graphmem", "serve", "--port", str(port), *extra, *store],
            cwd=ROOT,
            env=clean_env() | (variables or {}),
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stderr is not None
        log = LOGS[url] = Log()
        reader = threading.Thread(target=log.read, args=(process.stderr,), daemon=True)
        reader.start()  # drained as it writes, so that a full pipe never stops the server
        if not log.wait_for(lambda line: LISTENING in line):  # listening now
            process.kill()  # not left running behind the failed test
            process.wait(timeout=30)
            raise AssertionError(f"graphmem serve is not ready: {''.join(log.lines)}")
        started.append((process, reader))
        return url

    yield start
    for process, reader in started:
        process.terminate()
        assert process.wait(timeout=30) == 0  # stopped well: the memory closed
        reader.join(timeout=30)
        assert process.stderr is not None
        process.stderr.close()


@pytest.fixture(params=["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def served(request: pytest.FixtureRequest, tmp_path: Path, start_server: StartServer) -> Served:
    """A server on each store, with keys for two fresh owners and an admin."""
    store = store_arguments(request.param, request, tmp_path)
    fresh = uuid.uuid4().hex[:8]
    ann, ben, team = f"ann-{fresh}", f"ben-{fresh}", f"team-{fresh}-"
    alice = new_secret(store, "--owner", ann, "--owner-prefix", team)
    bob = new_secret(store, "--owner", ben)
    admin = new_secret(store, "--admin")
    url = start_server(store)
    return Served(url, ann, ben, team, alice, bob, admin, store)


def test_a_key_reaches_its_owners_memory_through_every_verb(served: Served) -> None:
    owner = f"{served.team}one"
    with GraphMemClient(served.url, served.alice) as client:
        first = client.observe(owner, "I'm allergic to milk.", message_id="m1", at=START)
        assert first.memories
        assert first.memories[0].importance >= 8
        assert first.memories[0].embedding is None  # answers carry no embeddings
        later = START + timedelta(hours=1)
        many = client.observe_many(
            owner,
            [
                {"text": "Someone left milk on my desk.", "message_id": "m2", "at": later},
                {"text": "I moved to Lyon.", "message_id": "m3", "at": later},
            ],
        )
        assert [item.turn.id for item in many] == ["m2", "m3"]
        assert client.observe(owner, "I'm allergic to milk.", message_id="m1").memories == []
        asked: dict[str, Any] = {"at": later, "peek": True, "min_confidence": 0.0}
        found = client.recall(owner, "What am I allergic to?", **asked)
        assert found.memories[0].memory.text == "I'm allergic to milk."
        assert "allergic to milk" in found.rendered
        fitted = client.recall(owner, "What am I allergic to?", **asked, max_tokens=20)
        assert [item.memory.text for item in fitted.memories] == ["I'm allergic to milk."]
        assert fitted.max_tokens == 20
        assert fitted.tokens is not None
        assert fitted.tokens <= 20
        until = client.recall(owner, "milk", **asked, until=START + timedelta(minutes=1))
        assert [item.memory.text for item in until.memories] == ["I'm allergic to milk."]
        with pytest.raises(InvalidInputError, match="kinds may name"):
            client.recall(owner, "milk", kinds=["summary"])
        assert client.statistics(owner).nodes["Turn"] == 3
        assert [turn.id for turn in client.turns(owner, session="")] == ["m1", "m2", "m3"]
        assert [turn.text for turn in client.turns(owner, session="", last=1)] == [
            "I moved to Lyon."
        ]
        with pytest.raises(
            InvalidInputError, match=r"^last: Input should be greater than or equal to 0"
        ):
            client.turns(owner, session="", last=-1)
        page = client.timeline(owner, kinds=["observation"], limit=2, at=later)
        assert {entry.memory.text for entry in page.entries} == {
            "Someone left milk on my desk.",
            "I moved to Lyon.",
        }
        assert page.next is not None
        rest = client.timeline(owner, kinds=["observation"], before=page.next, at=later)
        assert [entry.memory.text for entry in rest.entries] == ["I'm allergic to milk."]
        assert [turn.id for turn in rest.entries[0].turns] == ["m1"]
        assert rest.next is None
        milk = client.timeline(owner, contains="MILK", tiers=[0], since=later)
        assert [entry.memory.text for entry in milk.entries] == ["Someone left milk on my desk."]
        with pytest.raises(InvalidInputError, match=r"^before: .*a page's `next`"):
            client.timeline(owner, before="page two")
        around = client.neighbourhood(owner, "m1", label="Turn")
        assert [turn.id for turn in around.turns] == ["m1", "m2"]  # m1, then m2 NEXT to it
        assert ("NEXT", "m1", "m2") in {
            (link.type, link.source, link.target) for link in around.links
        }
        allergy = around.memories[0]
        assert (allergy.text, allergy.embedding) == ("I'm allergic to milk.", None)
        assert client.neighbourhood(owner, allergy.id).turns == around.turns[:1]
        assert owner in client.owners()
        assert served.ben not in client.owners()
        slept = client.consolidate(owner, at=later + timedelta(hours=8))
        assert (slept.owner, slept.counts) == (
            owner,
            {"summaries": 1, "profile facts": 2, "facts": 3, "retiered": 0},
        )  # the dialogue summarised, its allergy and home read, its three turns' facts weighed
        assert slept.model_calls == {"digest_dialogue": 1, "judge_facts": 1}
        health = client.health(owner, at=later)
        assert (health.owner, health.cognition) == (owner, "offline rules")
        assert health.counts.nodes["Memory"] == 6
        assert health.checks.kinds == {"observation": 3, "summary": 1, "fact": 2}
        checks = health.checks  # the night left no work waiting
        assert checks.pending_turns == checks.awaiting_summary == checks.awaiting_consolidation == 0
        profile = client.profile(owner, at=later + timedelta(hours=8))
        assert {fact.slot: fact.text for fact in profile.facts} == {
            "allergy: milk": "I'm allergic to milk.",
            "home": "I moved to Lyon.",
        }
        stored = client.export(owner).nodes
        events = client.events(owner, at=later + timedelta(hours=8))
        assert {entry.event.id for entry in events} == {
            node.id for node in stored if type(node).__name__ == "Event"
        }
        impressions = client.impressions(owner, at=later + timedelta(hours=8))
        assert {entry.impression.id for entry in impressions} == {
            node.id for node in stored if type(node).__name__ == "Impression"
        }
        assert all(entry.impression.embedding == [] for entry in impressions)
        assert client.complete_pending(owner) == 0  # none pending: the next test makes some
        client.learn(owner, "sore throat", "a cold", 0.7, at=later)
        assert client.statistics(owner).tiers == {0: 6, 1: 0, 2: 2, 3: 0}
        assert client.retier(owner, at=later) == 0  # none has faded yet
        assert client.retier(owner, at=later + timedelta(days=30)) == 6  # a month unused
        assert client.statistics(owner).tiers == {0: 0, 1: 6, 2: 2, 3: 0}
        assert client.forget_message(owner, "no-such-message").found is False
        gone = client.forget_message(owner, "m3")
        assert gone.found
        assert gone.deleted["Turn"] == 1
        graph = client.export(owner)
        assert {node.id for node in graph.nodes if type(node).__name__ == "Turn"} == {"m1", "m2"}
        assert client.forget(owner).total == 0
        client.load(owner, graph)
        assert client.export(owner) == graph


@pytest.mark.parametrize("kind", ["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_a_recall_answers_the_recall_itself_with_the_facades_rendered_text(
    kind: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    start_server: StartServer,
    owner: str,
) -> None:
    store = store_arguments(kind, request, tmp_path)
    expected = told(settings_of(store, clean_env()), owner)
    key = new_secret(store, "--owner", owner)
    url = start_server(store)
    answer = httpx.post(
        f"{url}/v1/owners/{owner}/recall",
        json=ASKED_JSON,
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    recall = answer.json()
    assert recall["owner"] == owner  # the Recall itself, not wrapped
    assert recall["rendered"] == expected.render()  # the profile lines first, then the memories
    assert recall["profile"] == expected.profile
    assert recall["confidence"] == expected.confidence
    assert recall["nothing_relevant"] is expected.nothing_relevant is False
    with GraphMemClient(url, key) as client:
        found = client.recall(owner, **ASKED)
    assert found == expected
    assert found.rendered == recall["rendered"]

    async def awaited() -> Recall:
        async with AsyncGraphMemClient(url, key) as client:
            return await client.recall(owner, **ASKED)

    assert asyncio.run(awaited()).rendered == expected.render()


@pytest.mark.parametrize("kind", ["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_turns_observed_while_the_model_was_down_are_derived_by_complete_pending(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path, start_server: StartServer
) -> None:
    with scripted_openai_server(responder=offline_model) as model:
        port = model.port  # nothing listens there once the block ends: the model is down
    store = store_arguments(kind, request, tmp_path)
    owner = f"ann-{uuid.uuid4().hex[:8]}"
    key = new_secret(store, "--owner", owner)
    chat_model = {
        "GRAPHMEM_COGNITION": "openai",
        "GRAPHMEM_OPENAI_API_KEY": "sk-test",
        "GRAPHMEM_OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "GRAPHMEM_OPENAI_MAX_RETRIES": "0",
    }
    url = start_server(store, variables=chat_model)
    later = START + timedelta(days=1)
    with GraphMemClient(url, key) as client:
        for number, text in enumerate(["I'm allergic to milk.", "I moved to Lyon."]):
            at = START + timedelta(hours=number)
            observed = client.observe(owner, text, message_id=f"m{number}", at=at)
            assert (observed.pending, observed.memories) == (True, [])
        assert client.complete_pending(owner) == 0  # the model is still down: both wait
        assert client.health(owner, at=later).checks.pending_turns == 2
        with scripted_openai_server(responder=offline_model, port=port) as model:
            assert client.complete_pending(owner) == 2
            found = client.recall(
                owner, "What am I allergic to?", at=later, peek=True, min_confidence=0.0
            )
        assert found.memories[0].memory.text == "I'm allergic to milk."
        health = client.health(owner, at=later)
        assert (health.checks.pending_turns, health.checks.kinds) == (0, {"observation": 2})
        assert client.complete_pending(owner) == 0  # none is derived twice
    questions = [json.loads(sent["body"]["messages"][-1]["content"]) for sent in model.requests]
    assert [[item["item"] for item in question["items"]] for question in questions] == [
        ["I'm allergic to milk.", "I moved to Lyon."],  # the two turns, perceived together
        ["What am I allergic to?"],  # the recall's query
    ]


def owner_verbs() -> set[str]:
    """The public verbs of GraphMem whose first argument is an owner."""
    return {
        name
        for name, function in inspect.getmembers(GraphMem, inspect.isfunction)
        if not name.startswith("_")
        and list(inspect.signature(function).parameters)[1:2] == ["owner"]
    }


def routes_with_an_owner() -> list[tuple[str, str]]:
    """Every (method, path) of the app that names an owner, read from the app's own routers."""
    found = []
    for route in owner_routes.routes:
        for method in sorted(getattr(route, "methods", set())):
            path: str = getattr(route, "path", "")
            if "{owner}" in path:
                found.append((method, path))
    return found


def test_the_agent_frameworks_take_the_http_clients_as_their_memory(served: Served) -> None:
    owner = f"{served.team}agents"
    context = MemoryContext(owner, "chat-1")
    with scripted_openai_server() as model:
        openai = AsyncOpenAI(base_url=model.base_url, api_key="scripted", max_retries=0)
        chat = OpenAIChatCompletionsModel(model="scripted", openai_client=openai)

        async def agents_sdk() -> None:
            async with AsyncGraphMemClient(served.url, served.alice) as client:
                tools = memory_tools(client, min_confidence=0.0)
                agent = Agent[MemoryContext](name="a", model=chat, tools=tools)
                session = GraphMemSession(client, context)
                model.script(chat_reply("Noted."))
                await Runner.run(
                    agent, "I'm allergic to peanuts.", session=session, context=context
                )
                model.script(tool_call_reply("recall_memory", {"query": "food"}), chat_reply("Ok"))
                later = MemoryContext(owner, "chat-2")
                await Runner.run(agent, "What can't I eat?", context=later)
                assert await session.pop_item() == {"role": "assistant", "content": "Noted."}

        asyncio.run(agents_sdk())
        assert "allergic to peanuts" in json.dumps(model.requests[2]["body"]["messages"])
        with GraphMemClient(served.url, served.alice) as client:
            assert [turn.text for turn in client.turns(owner, session="chat-1")] == [
                "I'm allergic to peanuts."
            ]
            agent = create_agent(
                model=ChatOpenAI(
                    model="scripted", base_url=model.base_url, api_key="scripted", max_retries=0
                ),
                middleware=[GraphMemMiddleware(client, min_confidence=0.0)],
                context_schema=MemoryContext,
            )
            model.script(chat_reply("Avoid peanuts."))
            asked: Any = {"messages": [{"role": "user", "content": "Which food is risky for me?"}]}
            agent.invoke(asked, context=MemoryContext(owner, "chat-3"))
            assert "allergic to peanuts" in model.requests[-1]["body"]["messages"][0]["content"]
            assert client.turns(owner, session="chat-3", last=1)[0].text == "Avoid peanuts."


def test_a_key_for_alice_is_refused_on_bobs_memory_by_every_route(served: Served) -> None:
    routes = routes_with_an_owner()
    verbs = {path.rsplit("/", 1)[-1] for _method, path in routes}
    assert verbs == owner_verbs()  # every verb of the facade that takes an owner has its route
    with httpx.Client(base_url=served.url, timeout=60) as http:
        http.post(
            f"/v1/owners/{served.ben}/observe",
            json={"text": "My secret.", "message_id": "s1"},
            headers={"Authorization": f"Bearer {served.bob}"},
        ).raise_for_status()
        for method, path in routes:
            url = path.replace("{owner}", served.ben)
            body: dict[str, str] | None = {} if method == "POST" else None
            for headers, status in [
                ({}, 401),
                ({"Authorization": "Bearer gmk_0000000000000000_" + "x" * 43}, 401),
                ({"Authorization": f"Bearer {served.alice}"}, 403),
            ]:
                answer = http.request(method, url, json=body, headers=headers)
                assert answer.status_code == status, (method, path, answer.text)
                error = answer.json()["error"]
                assert "My secret" not in answer.text
                assert error["request_id"] == answer.headers["x-request-id"]
            unknown = http.request(
                method,
                path.replace("{owner}", "carol"),
                json=body,
                headers={"Authorization": f"Bearer {served.alice}"},
            )
            assert unknown.status_code == 403  # the same answer whether or not it exists


def test_keys_are_managed_by_admin_keys_and_a_revoked_key_is_refused(served: Served) -> None:
    with GraphMemClient(served.url, served.alice) as alice:
        with pytest.raises(AccessError):
            alice.list_keys()
        with pytest.raises(AccessError):
            alice.create_key(admin=True)
    with GraphMemClient(served.url, served.admin) as admin:
        made = admin.create_key(owners=["dora"])
        listed = {key.id: key for key in admin.list_keys()}
        assert listed[made.key.id].owners == ("dora",)
        assert made.secret not in json.dumps(
            [key.model_dump(mode="json") for key in listed.values()]
        )
        with GraphMemClient(served.url, made.secret) as dora:
            assert dora.statistics("dora").total == 0
            revoked = admin.revoke_key(made.key.id)
            assert revoked is not None
            assert revoked.revoked_at is not None
            with pytest.raises(AccessError):
                dora.statistics("dora")
        assert admin.revoke_key("0123456789abcdef") is None
        assert admin.statistics("anyone").total == 0  # an admin key touches every owner
    listed_by_cli = graphmem("keys", "list", *served.command)
    if "neo4j" in served.command:  # the command line sees the keys the server made
        assert made.key.id in listed_by_cli.stdout
        assert "revoked" in listed_by_cli.stdout
        assert made.secret not in listed_by_cli.stdout
    else:  # the embedded store is the server's alone while it runs
        assert "open in another process" in listed_by_cli.stderr


def test_the_console_is_served_to_anyone_and_the_request_log_to_admins_only(
    served: Served,
) -> None:
    alice = {"Authorization": f"Bearer {served.alice}"}
    admin = {"Authorization": f"Bearer {served.admin}"}
    owner = f"{served.team}logged"
    assert any(f"the console: {served.url}/console/" in line for line in LOGS[served.url].lines)
    with httpx.Client(base_url=served.url, timeout=60) as http:
        page = http.get("/console/")  # no key: the page asks for one
        assert page.status_code == 200
        assert 'src="console.js"' in page.text
        policy = page.headers["content-security-policy"]
        assert "script-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy
        assert http.get("/console/console.js").status_code == 200
        assert http.get(f"/v1/owners/{owner}/statistics", headers=alice).status_code == 200
        assert http.get("/v1/requests", headers=alice).status_code == 403
        assert http.get("/v1/requests").status_code == 401
        log = http.get("/v1/requests", headers=admin, params={"limit": 5})
        assert log.status_code == 200
        entries = log.json()
        assert len(entries) == 5
        assert "content-security-policy" not in log.headers
    newest = [(entry["method"], entry["path"], entry["status"]) for entry in entries[:3]]
    assert newest == [
        ("GET", "/v1/requests", 401),
        ("GET", "/v1/requests", 403),
        ("GET", f"/v1/owners/{owner}/statistics", 200),
    ]
    assert entries[2]["owner"] == owner
    assert entries[2]["milliseconds"] >= 0
    assert served.alice not in log.text
    assert served.admin not in log.text


def test_errors_name_the_problem_with_a_status_a_client_can_act_on(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=60) as http:
        headers = {"Authorization": f"Bearer {served.alice}", "X-Request-Id": "trace-42"}
        empty = http.post(f"/v1/owners/{served.ann}/observe", json={"text": ""}, headers=headers)
        assert empty.status_code == 400
        logged = LOGS[served.url].wait_for(
            lambda line: "trace-42 POST" in line and "-> 400" in line
        )
        assert logged  # the server's log line of the request carries its id
        assert "text" in empty.json()["error"]["message"]
        assert empty.headers["x-request-id"] == "trace-42"
        unfit = http.post(f"/v1/owners/{served.ann}/recall", json={"k": 3}, headers=headers)
        assert unfit.status_code == 422
        assert unfit.json()["error"]["field"] == "query"
        bad_owner = http.post("/v1/owners/al%20ice/recall", json={"query": "x"}, headers=headers)
        assert bad_owner.status_code == 403  # not alice's, whatever it is
    with GraphMemClient(served.url, served.admin) as admin:
        with pytest.raises(InvalidInputError, match="owner"):
            admin.recall("al ice", "milk")
        with pytest.raises(InvalidInputError, match="weights"):
            admin.recall(served.ann, "milk", weights="no-such-preset")
    openapi = httpx.get(f"{served.url}/openapi.json").json()
    assert {"/v1/owners/{owner}/recall", "/v1/keys", "/readyz"} <= set(openapi["paths"])
    assert httpx.get(f"{served.url}/readyz").json() == {"status": "ready"}


def test_bodies_over_the_limit_get_413_and_requests_over_the_rate_429(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    store = store_arguments("networkx", request, tmp_path)
    secret = new_secret(store, "--owner", "alice")
    url = start_server(store, "--max-body", "2000", "--rate", "0.01", "--burst", "3")
    headers = {"Authorization": f"Bearer {secret}"}
    with httpx.Client(base_url=url, timeout=60) as http:
        big = http.post("/v1/owners/alice/observe", json={"text": "x" * 5000}, headers=headers)
        assert big.status_code == 413
        assert "2000 bytes" in big.json()["error"]["message"]
        answers = [http.get("/v1/owners/alice/statistics", headers=headers) for _ in range(4)]
        assert [answer.status_code for answer in answers] == [200, 200, 200, 429]  # burst 3
        assert int(answers[-1].headers["retry-after"]) >= 1
    with GraphMemClient(url, secret, retries=0) as client, pytest.raises(RequestRefusedError):
        client.statistics("alice")


def test_without_keys_the_server_is_open_on_loopback_only(
    tmp_path: Path, request: pytest.FixtureRequest, start_server: StartServer
) -> None:
    store = store_arguments("networkx", request, tmp_path)
    refused = graphmem("serve", "--host", "0.0.0.0", "--port", str(free_port()), *store)
    assert refused.returncode == 1
    assert "graphmem keys create --admin" in refused.stderr
    url = start_server(store)
    with GraphMemClient(url) as client:
        client.observe("alice", "Hello.", message_id="h1")
        assert client.owners() == ["alice"]


def test_the_mcp_tools_are_served_at_mcp_behind_the_same_keys(served: Served) -> None:
    async def call(key: str | None, owner: str) -> CallToolResult:
        headers = {} if key is None else {"Authorization": f"Bearer {key}"}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            streamable_http_client(f"{served.url}/mcp", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.call_tool(
                "observe", {"owner": owner, "text": "I'm allergic to milk.", "message_id": "m1"}
            )
            asked = {"owner": owner, "query": "milk", "min_confidence": 0}
            return await session.call_tool("recall", asked)

    found = asyncio.run(call(served.alice, served.ann))
    assert not found.is_error
    assert found.structured_content is not None
    assert found.structured_content["memories"][0]["memory"]["text"] == "I'm allergic to milk."
    other = asyncio.run(call(served.alice, served.ben))
    assert other.is_error
    assert "may not touch this owner" in str(other.content)
    with pytest.raises(ExceptionGroup):  # the SDK's client fails on the 401
        asyncio.run(call(None, served.ann))
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    answer = httpx.post(f"{served.url}/mcp", json=initialize)
    assert answer.status_code == 401
    assert answer.json()["error"]["message"].startswith("send a valid key")  # a JSON-RPC error
    with GraphMemClient(served.url, served.bob) as bob:
        assert bob.statistics(served.ben).total == 0  # ben's memory untouched


def test_an_idle_connection_outlives_the_clients_pool_so_the_client_closes_it_first(
    tmp_path: Path, start_server: StartServer
) -> None:
    """httpx keeps an idle pooled connection 5 s; were the server to close it then too, a
    request sent on it as it closes would fail without an answer (15 of 768 did, before)."""
    url = start_server(["--store", "networkx", "--path", str(tmp_path / "graph.json")])
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request("GET", "/healthz")
        first = connection.getresponse()
        first.read()
        socket_used = connection.sock
        time.sleep(5.5)  # the idleness under test: longer than httpx keeps a connection
        connection.request("GET", "/healthz")
        again = connection.getresponse()
        again.read()
        assert connection.sock is socket_used is not None  # the same connection, still open
    finally:
        connection.close()
    assert (first.status, again.status) == (200, 200)


@pytest.mark.neo4j
def test_two_servers_on_one_neo4j_store_each_message_once_and_lose_no_attention(
    request: pytest.FixtureRequest, tmp_path: Path, start_server: StartServer
) -> None:
    """Two `graphmem serve` processes on one Neo4j, every client using both: each message is
    observed once through each server at once (a retry sent to the other process), readers
    recall through both, and two owners are written together."""
    store = store_arguments("neo4j", request, tmp_path)
    fresh = uuid.uuid4().hex[:8]
    owners = [f"ann-{fresh}", f"ben-{fresh}"]
    secret = new_secret(store, "--owner", owners[0], "--owner", owners[1])
    urls = [start_server(store), start_server(store)]
    at = datetime(2026, 10, 5, 9, tzinfo=UTC)  # one instant: attention does not decay between
    writers, per_writer, readers, per_reader = 4, 6, 4, 6
    texts = {owner: f"{owner} says: " for owner in owners}

    def write(writer: int) -> None:
        owner = owners[writer % 2]
        with GraphMemClient(urls[0], secret) as one, GraphMemClient(urls[1], secret) as other:
            for number in range(writer, writers * per_writer, writers):
                message_id, text = message(number)
                with ThreadPoolExecutor(2) as both:  # the same message through both at once
                    sent = [
                        both.submit(
                            client.observe,
                            owner,
                            texts[owner] + text,
                            message_id=message_id,
                            at=at,
                            session="s",
                        )
                        for client in (one, other)
                    ]
                    [future.result() for future in sent]

    def read(reader: int) -> list[tuple[str, Recall]]:
        owner = owners[reader % 2]
        with GraphMemClient(urls[reader % 2], secret) as client:
            return [
                (
                    owner,
                    client.recall(
                        owner, QUERIES[turn % len(QUERIES)], k=3, at=at, min_confidence=0.0
                    ),
                )
                for turn in range(per_reader)
            ]

    with GraphMemClient(urls[0], secret) as client:  # something to recall from the start
        for owner in owners:
            for number in range(100, 103):
                message_id, text = message(number)
                client.observe(owner, texts[owner] + text, message_id=message_id, at=at)
    with ThreadPoolExecutor(writers + readers) as pool:
        writes = [pool.submit(write, writer) for writer in range(writers)]
        reads = [pool.submit(read, reader) for reader in range(readers)]
        [future.result() for future in writes]
        recalls = [found for future in reads for found in future.result()]
    neo4j: Neo4jServer = request.getfixturevalue("neo4j_server")
    checked = neo4j.store()
    try:
        for number, owner in enumerate(owners):
            graph = checked.export(owner)
            turns = Counter(node.id for node in graph.nodes if isinstance(node, Turn))
            mine = range(number, writers * per_writer, 2)  # the even writers write owner 0
            wanted = Counter(message(n)[0] for n in [*mine, 100, 101, 102])
            assert turns == wanted, owner  # each message once
            other = texts[owners[1 - number]]
            memories = {node.id: node for node in graph.nodes if isinstance(node, Memory)}
            assert not any(other in node.text for node in memories.values())
            owned = [found for whose, found in recalls if whose == owner]
            recalled = [item.memory.text for found in owned for item in found.memories]
            assert len(recalled) == len(owned) * 3  # each owner had three memories at first
            assert not any(other in text for text in recalled)
            lost, doubled, uses = increments(owned, memories)
            assert uses == len(recalled)
            assert (lost, doubled) == (0, 0), owner
    finally:
        for owner in owners:
            checked.forget(owner)
        checked.close()
