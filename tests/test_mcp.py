"""`graphmem mcp` end to end: the server as a process, driven by the MCP SDK's own client."""

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from graphmem.contract import RecallQuestion
from graphmem.model import Turn
from graphmem.store.base import Store
from graphmem.store.networkx import NetworkXStore

from .conftest import ROOT, Neo4jServer, clean_env, free_port
from .test_cli import ASKED_JSON, settings_of, told

T = TypeVar("T")

BERLIN = timezone(timedelta(hours=1))
YESTERDAY = (datetime.now(UTC) - timedelta(days=1)).astimezone(BERLIN).replace(microsecond=0)
COMPONENTS = {
    "relevance",
    "lexical",
    "time_match",
    "speaker_match",
    "asker_match",
    "statement",
    "importance",
    "attention",
    "recency",
    "association",
}
START_TIMEOUT = 60.0
"""Seconds the HTTP server may take to listen (it loads the embedder first)."""


@dataclass(frozen=True)
class Launch:
    """How to start `graphmem mcp` on one store, and how to open that store afterwards."""

    arguments: tuple[str, ...]
    env: dict[str, str]
    open_store: Callable[[], Store]

    def command(self, *extra: str) -> list[str]:
        return [sys.executable, "-m", "graphmem", "mcp", *self.arguments, *extra]


def networkx_launch(tmp_path: Path) -> Launch:
    path = tmp_path / "graph.json"
    return Launch(
        ("--store", "networkx", "--path", str(path)),
        clean_env(),
        lambda: NetworkXStore.open(path),
    )


@pytest.fixture(params=["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def launch(request: pytest.FixtureRequest, tmp_path: Path) -> Launch:
    """Each store in turn: a file of the networkx store, then the tests' Neo4j."""
    if request.param == "networkx":
        return networkx_launch(tmp_path)
    server: Neo4jServer = request.getfixturevalue("neo4j_server")
    env = clean_env() | {
        "GRAPHMEM_NEO4J_URI": server.uri,
        "GRAPHMEM_NEO4J_USER": server.user,
        "GRAPHMEM_NEO4J_PASSWORD": server.password.get_secret_value(),
    }
    return Launch(("--store", "neo4j"), env, server.store)


def run(scenario: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(scenario())


@asynccontextmanager
async def connected(launch: Launch, *extra: str) -> AsyncIterator[ClientSession]:
    """A client session with a server started over stdio; the server ends with the session."""
    program, *arguments = launch.command(*extra)
    parameters = StdioServerParameters(
        command=program, args=arguments, env=launch.env, cwd=str(ROOT)
    )
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def text(result: CallToolResult) -> str:
    return "\n".join(item.text for item in result.content if isinstance(item, TextContent))


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text(result)
    content: dict[str, Any] = result.structured_content
    assert isinstance(content, dict)
    return content


def refused(result: CallToolResult) -> str:
    """The message of a tool error (which carries no structured content)."""
    assert result.is_error
    assert result.structured_content is None
    return text(result)


def turns_of(store: Store, owner: str) -> list[Turn]:
    try:
        return [node for node in store.export(owner).nodes if isinstance(node, Turn)]
    finally:
        store.close()


def test_the_tools_are_listed_with_their_schemas(tmp_path: Path, owner: str) -> None:
    async def scenario() -> None:
        async with connected(networkx_launch(tmp_path), "--owner", owner) as session:
            assert session.instructions is not None
            assert f"serves owner {owner} only" in session.instructions
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == {
            "observe",
            "observe_many",
            "recall",
            "profile",
            "consolidate",
            "forget_message",
        }
        forget = tools["forget_message"]
        assert forget.input_schema["required"] == ["message_id"]
        assert forget.annotations is not None
        assert forget.annotations.destructive_hint is True
        assert not any(
            tool.annotations and tool.annotations.destructive_hint
            for name, tool in tools.items()
            if name != "forget_message"
        )
        assert forget.output_schema is not None
        assert {"found", "deleted", "rewritten"} <= set(forget.output_schema["properties"])
        observe, recall, consolidate = tools["observe"], tools["recall"], tools["consolidate"]
        assert observe.input_schema["required"] == ["text"]  # an id is asked for, as over HTTP
        arguments = observe.input_schema["properties"]
        assert set(arguments) == {
            "text",
            "message_id",
            "owner",
            "at",
            "speaker",
            "session",
            "readmit_forgotten",
        }
        assert {"format": "date-time", "type": "string"} in arguments["at"]["anyOf"]
        assert "UTC offset" in arguments["at"]["description"]
        assert recall.input_schema["required"] == ["query"]
        assert set(recall.input_schema["properties"]) == {*RecallQuestion.model_fields, "owner"}
        assert recall.input_schema["properties"]["k"]["default"] is None  # 10, 100 with a budget
        assert "required" not in consolidate.input_schema  # the owner may be omitted here
        for tool in tools.values():
            assert tool.description
            assert "owner" in tool.input_schema["properties"]
        assert observe.output_schema is not None
        assert set(observe.output_schema["properties"]) == {
            "turn",
            "memories",
            "pending",
            "conjectures",
            "forgotten",
            "already_stored",
        }
        assert "embedding" not in observe.output_schema["$defs"]["Memory"]["properties"]
        many = tools["observe_many"]
        assert many.input_schema["required"] == ["messages"]
        message = many.input_schema["$defs"]["ObservedMessage"]
        assert set(message["properties"]) == {"text", "message_id", "at", "speaker", "session"}
        assert message["required"] == ["text"]
        assert many.output_schema is not None
        assert set(many.output_schema["properties"]) == {"observations"}
        assert recall.output_schema is not None
        assert {
            *("memories", "links", "attempts", "woken"),
            *("rendered", "confidence", "nothing_relevant"),
        } <= set(recall.output_schema["properties"])
        assert "rendered" in recall.output_schema["required"]  # in every answer
        assert "embedding" not in recall.output_schema["$defs"]["Memory"]["properties"]
        assert consolidate.output_schema is not None
        assert {"counts", "model_calls", "seconds"} <= set(consolidate.output_schema["properties"])

    run(scenario)


def test_observe_recall_and_consolidate(launch: Launch, owner: str) -> None:
    async def scenario() -> None:
        async with connected(launch) as session:
            first = structured(
                await session.call_tool(
                    "observe",
                    {
                        "owner": owner,
                        "text": "I'm allergic to milk.",
                        "message_id": "m1",
                        "at": YESTERDAY.isoformat(),
                    },
                )
            )
            assert first["turn"]["id"] == "m1"
            assert datetime.fromisoformat(first["turn"]["created_at"]) == YESTERDAY
            assert first["pending"] is False
            assert first["already_stored"] is False
            [memory] = first["memories"]
            assert memory["text"] == "I'm allergic to milk."
            assert memory["kind"] == "observation"
            assert memory["importance"] > 5  # health
            assert "embedding" not in memory
            second = structured(
                await session.call_tool(
                    "observe",
                    {
                        "owner": owner,
                        "text": "There's half a glass of milk on the table.",
                        "message_id": "m2",
                        "at": (YESTERDAY + timedelta(minutes=1)).isoformat(),
                        "speaker": "user",
                    },
                )
            )
            assert second["turn"]["position"] == 1
            again = structured(
                await session.call_tool(
                    "observe", {"owner": owner, "text": "I'm allergic to milk.", "message_id": "m1"}
                )
            )
            assert again["memories"] == []  # a known message id stores nothing new
            assert again["already_stored"] is True

            asked = {"owner": owner, "query": "Can I drink this milk?", "min_confidence": 0}
            result = await session.call_tool("recall", asked | {"k": 5})
            recall = structured(result)
            assert recall["owner"] == owner
            found = {item["memory"]["text"]: item for item in recall["memories"]}
            allergy = found["I'm allergic to milk."]
            assert [turn["id"] for turn in allergy["turns"]] == ["m1"]
            assert set(allergy["components"]) == COMPONENTS
            assert allergy["components"]["relevance"] > 0
            assert allergy["score"] > 0
            assert "embedding" not in allergy["memory"]
            assert recall["attempts"]
            assert allergy["memory"]["id"] in {node["id"] for node in recall["woken"]}
            assert " I'm allergic to milk.\n" in text(result) + "\n"  # render(): [n] time text
            assert text(result) == recall["rendered"]
            assert 0 <= recall["confidence"] <= 1
            assert recall["nothing_relevant"] is False  # a floor of 0: what was found
            dialogue = "Ann: We had cake.\nassistant: Lovely!\nAnn: Can I drink this milk?"
            conversed = structured(
                await session.call_tool("recall", asked | {"query": dialogue, "k": 1})
            )
            assert conversed["query"] == dialogue
            assert conversed["memories"][0]["memory"]["text"] == "I'm allergic to milk."
            budgeted = await session.call_tool("recall", asked | {"max_tokens": 20})
            assert structured(budgeted)["tokens"] <= structured(budgeted)["max_tokens"] == 20
            assert text(budgeted).endswith(" I'm allergic to milk.")  # the first memory only
            spoken = await session.call_tool(
                "recall", {"owner": owner, "query": "milk", "speakers": ["nobody"]}
            )
            assert structured(spoken)["memories"] == []

            report = structured(await session.call_tool("consolidate", {"owner": owner}))
            assert report["owner"] == owner
            assert report["counts"]["facts"] == 2
            assert report["counts"]["summaries"] == 1
            assert report["model_calls"]
            rerun = structured(await session.call_tool("consolidate", {"owner": owner}))
            assert rerun["model_calls"] == {}  # nothing new, so no model call
            profiled = await session.call_tool("profile", {"owner": owner})
            assert text(profiled).startswith("allergy: milk — I'm allergic to milk. (belief 0.")
            [fact] = structured(profiled)["facts"]
            assert (fact["slot"], fact["earlier"]) == ("allergy: milk", [])

            forgotten = structured(
                await session.call_tool("forget_message", {"owner": owner, "message_id": "m2"})
            )
            assert forgotten["found"] is True
            assert forgotten["deleted"]["Turn"] == 1
            assert forgotten["rewritten"]["summaries"] == 1  # the summary of m1 and m2
            again = structured(
                await session.call_tool("forget_message", {"owner": owner, "message_id": "m2"})
            )
            assert again["found"] is False

    run(scenario)
    assert [turn.id for turn in turns_of(launch.open_store(), owner)] == ["m1"]


def test_the_recall_tools_text_is_the_rendered_text_of_the_facades_recall(
    launch: Launch, owner: str
) -> None:
    expected = told(settings_of(launch.arguments, launch.env), owner)
    asked = {"owner": owner, **ASKED_JSON}

    async def scenario() -> CallToolResult:
        async with connected(launch) as session:
            return await session.call_tool("recall", asked)

    result = run(scenario)
    assert text(result) == expected.render()  # the profile lines first, then the memories
    recall = structured(result)
    assert recall["rendered"] == expected.render()
    assert recall["profile"] == expected.profile
    assert recall["confidence"] == expected.confidence
    assert recall["nothing_relevant"] is expected.nothing_relevant is False


def test_observe_many_stores_a_batch_at_once_or_nothing_of_it(launch: Launch, owner: str) -> None:
    owner = f"अमित.{owner}"  # an owner may be named in any script
    said = [
        {"text": "I'm allergic to milk.", "message_id": "m1", "at": YESTERDAY.isoformat()},
        {"text": "Noted: no milk for you.", "message_id": "m2", "speaker": "assistant"},
    ]

    async def scenario() -> None:
        async with connected(launch) as session:
            bad = [*said, {"text": "Tea?", "message_id": "m3", "at": "2026-03-01T09:00:00"}]
            problem = refused(
                await session.call_tool("observe_many", {"owner": owner, "messages": bad})
            )
            assert "messages.2.at" in problem
            assert "UTC offset" in problem
            first = structured(
                await session.call_tool("observe_many", {"owner": owner, "messages": said})
            )
            again = structured(
                await session.call_tool("observe_many", {"owner": owner, "messages": said})
            )
        observations = first["observations"]
        assert [item["turn"]["id"] for item in observations] == ["m1", "m2"]
        assert [item["turn"]["speaker"] for item in observations] == ["user", "assistant"]
        assert datetime.fromisoformat(observations[0]["turn"]["created_at"]) == YESTERDAY
        assert [len(item["memories"]) for item in observations] == [1, 1]
        assert observations[0]["memories"][0]["importance"] > 5  # health
        assert [item["memories"] for item in again["observations"]] == [[], []]
        assert [item["already_stored"] for item in observations] == [False, False]
        assert [item["already_stored"] for item in again["observations"]] == [True, True]

    run(scenario)
    assert sorted(turn.id for turn in turns_of(launch.open_store(), owner)) == ["m1", "m2"]


def test_without_owner_each_call_names_one(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connected(networkx_launch(tmp_path)) as session:
            assert "serves every owner" in (session.instructions or "")
            for name, arguments in [
                ("observe", {"text": "I like tea.", "message_id": "m1"}),
                ("recall", {"query": "tea"}),
                ("consolidate", {}),
            ]:
                message = refused(await session.call_tool(name, arguments))
                assert "name the owner" in message
            structured(
                await session.call_tool(
                    "observe", {"owner": "ann", "text": "I like tea.", "message_id": "m1"}
                )
            )

    run(scenario)


def test_a_server_for_one_owner_refuses_every_other(launch: Launch, owner: str) -> None:
    other = f"{owner}-other"

    async def scenario() -> None:
        async with connected(launch, "--owner", owner) as session:
            structured(
                await session.call_tool("observe", {"text": "My PIN is 47-11.", "message_id": "m1"})
            )
            structured(
                await session.call_tool(
                    "observe", {"owner": owner, "text": "I live in Lyon.", "message_id": "m2"}
                )
            )
            calls: list[tuple[str, dict[str, Any]]] = [
                ("recall", {"owner": other, "query": "What is my PIN?", "peek": True}),
                ("observe", {"owner": other, "text": "Hello.", "message_id": "m3"}),
                ("consolidate", {"owner": other}),
            ]
            for name, arguments in calls:
                message = refused(await session.call_tool(name, arguments))
                assert f"owner {other!r} is not served here" in message
                assert "47-11" not in message  # no hex owner id holds it
                assert owner not in message.replace(other, "")
            mine = structured(
                await session.call_tool(
                    "recall", {"query": "What is my PIN?", "peek": True, "min_confidence": 0}
                )
            )
            assert "My PIN is 47-11." in [item["memory"]["text"] for item in mine["memories"]]
        assert turns_of(launch.open_store(), other) == []
        assert sorted(turn.id for turn in turns_of(launch.open_store(), owner)) == ["m1", "m2"]

    run(scenario)


def test_bad_input_is_a_tool_error_and_the_server_goes_on(launch: Launch, owner: str) -> None:
    async def scenario() -> None:
        async with connected(launch) as session:
            observe: dict[str, Any] = {"owner": owner, "text": "I like tea.", "message_id": "m1"}
            calls: list[tuple[str, dict[str, Any], str]] = [
                ("observe", observe | {"at": "2026-03-01T09:00:00"}, "UTC offset"),
                ("observe", observe | {"at": "next Tuesday"}, "datetime in ISO 8601"),
                ("observe", observe | {"text": "   "}, "text is empty"),
                ("observe", observe | {"owner": "no spaces please"}, "is not 1-128 characters"),
                ("recall", {"owner": owner, "query": "tea", "k": 0}, "k: Input should be"),
                ("recall", {"owner": owner, "query": "tea", "max_tokens": 0}, "max_tokens: Input"),
                ("recall", {"owner": owner, "query": "tea", "kinds": ["summary"]}, "kinds may"),
                ("recall", {"owner": owner, "query": "tea", "since": "soon"}, "since: must be"),
                ("recall", {"owner": owner, "query": "tea", "motivation": 11}, "motivation: Input"),
                ("recall", {"owner": owner, "query": ""}, "text is empty"),
                ("recall", {"owner": owner}, "query"),
                ("consolidate", {"owner": "-"}, "is not 1-128 characters"),
            ]
            for name, arguments, problem in calls:
                message = refused(await session.call_tool(name, arguments))
                assert problem in message, (name, arguments, message)
            structured(await session.call_tool("observe", observe))
            conflict = refused(await session.call_tool("observe", observe | {"text": "Coffee."}))
            assert "already stored with another text" in conflict
            found = {"owner": owner, "query": "tea", "peek": True, "min_confidence": 0}
            recall = structured(await session.call_tool("recall", found))
            assert [item["memory"]["text"] for item in recall["memories"]] == ["I like tea."]

    run(scenario)


def test_concurrent_calls_are_all_answered(launch: Launch, owner: str) -> None:
    async def scenario() -> None:
        async with connected(launch, "--owner", owner) as session:
            results = await asyncio.gather(
                *(
                    session.call_tool(
                        "observe",
                        {"text": f"Day {day}: I walked the dog.", "message_id": f"d{day}"},
                    )
                    for day in range(6)
                )
            )
        positions = sorted(structured(result)["turn"]["position"] for result in results)
        assert positions == list(range(6))

    run(scenario)


def wait_until_listening(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    """Return once the server accepts connections; fail if it exits or takes too long."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            try:  # the pause between tries doubles as the watch for an early exit
                code = process.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                continue
            pytest.fail(f"the server exited with {code}:\n{log.read_text()}")
        else:
            return
    pytest.fail(f"the server did not listen within {START_TIMEOUT} s:\n{log.read_text()}")


def test_streamable_http(tmp_path: Path, owner: str) -> None:
    launch = networkx_launch(tmp_path)
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            launch.command("--owner", owner, "--transport", "http", "--port", str(port)),
            cwd=ROOT,
            env=launch.env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until_listening(process, port, log)

        async def scenario() -> dict[str, Any]:
            url = f"http://127.0.0.1:{port}/mcp"
            async with (
                streamable_http_client(url) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                structured(
                    await session.call_tool(
                        "observe", {"text": "I'm allergic to milk.", "message_id": "m1"}
                    )
                )
                refused(await session.call_tool("recall", {"owner": "bob", "query": "milk"}))
                found = {"query": "milk", "min_confidence": 0}
                return structured(await session.call_tool("recall", found))

        recall = run(scenario)
        assert recall["memories"][0]["memory"]["text"] == "I'm allergic to milk."
        process.terminate()  # SIGTERM: the server shuts down and closes the memory
        assert process.wait(timeout=30) == 0, log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert [turn.id for turn in turns_of(launch.open_store(), owner)] == ["m1"]
    assert "Traceback" not in log.read_text()


def test_without_the_sdk_the_command_says_what_to_install(tmp_path: Path) -> None:
    hide_the_sdk = (
        "import sys; sys.modules['mcp'] = None; from graphmem.cli import main;"
        f" raise SystemExit(main(['mcp', '--path', {str(tmp_path / 'g.json')!r}]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", hide_the_sdk],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("graphmem: graphmem mcp needs the MCP SDK")
    assert done.stderr.endswith("pip install 'graphmem[mcp]'\n")


def test_a_bad_owner_to_serve_stops_the_command(tmp_path: Path) -> None:
    done = subprocess.run(
        networkx_launch(tmp_path).command("--owner", "two words"),
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("graphmem: --owner: owner 'two words' is not 1-128 characters")
