"""One contract for every face: each face's options are the contract's, and a field added to the
recall's options reaches every face with no other edit."""

import argparse
import asyncio
import inspect
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from graphmem.aio import AsyncGraphMem
from graphmem.cli.grammar import parser
from graphmem.cli.options import flag_of
from graphmem.client import AsyncGraphMemClient, Calls, GraphMemClient
from graphmem.contract import (
    STATUSES,
    KeyRequest,
    Lesson,
    Limit,
    MessageRef,
    NodeWanted,
    ObserveMany,
    ObserveOne,
    RecallQuestion,
    TimelineWanted,
    TurnsWanted,
    When,
    error_of,
    status_of,
)
from graphmem.errors import GraphMemError, InvalidInputError, StoreError
from graphmem.gate import Limits
from graphmem.mcp_server import MemoryTools, _server
from graphmem.memory import GraphMem
from graphmem.server import create_app
from graphmem.store.networkx import NetworkXStore

from .conftest import ROOT

PYTHON_FACES = (GraphMem, AsyncGraphMem, GraphMemClient, AsyncGraphMemClient)
"""The faces a Python program calls: in process, for asyncio, and over HTTP."""
VERB_OPTIONS: dict[str, type[BaseModel]] = {
    "observe": ObserveOne,
    "learn": Lesson,
    "retier": When,
    "health": When,
    "profile": When,
    "forget_message": MessageRef,
    "complete_pending": Limit,
    "turns": TurnsWanted,
    "timeline": TimelineWanted,
    "neighbourhood": NodeWanted,
    "events": When,
    "impressions": When,
}
"""The verbs whose keywords are a contract model's fields, one for one."""
NOT_OPTIONS = {"self", "owner", "progress"}
"""A Python verb's parameters that are no option: the owner, and what cannot cross HTTP."""


def keywords(verb: Callable[..., Any]) -> set[str]:
    """The options a Python verb takes by name."""
    return set(inspect.signature(verb).parameters) - NOT_OPTIONS


@pytest.mark.parametrize("face", PYTHON_FACES, ids=lambda face: face.__name__)
def test_each_python_face_takes_its_verbs_options_as_the_contract_has_them(face: type) -> None:
    for verb, options in VERB_OPTIONS.items():
        assert keywords(getattr(face, verb)) == set(options.model_fields), (face, verb)
    recall = inspect.signature(getattr(face, "recall")).parameters  # noqa: B009 (any face)
    assert list(recall) == ["self", "owner", "query", "options"]
    assert recall["options"].kind is inspect.Parameter.VAR_KEYWORD
    assert "RecallQuestion" in str(recall["query"].annotation)


class Letters:
    """A tiny embedder for the faces' schemas: how often each letter occurs."""

    name = "letters"
    dimensions = 26

    def embed(self, texts: Sequence[str], purpose: str) -> list[list[float]]:
        """One vector a text."""
        return [[text.lower().count(chr(97 + i)) + 0.1 for i in range(26)] for text in texts]

    def close(self) -> None:
        """Nothing to release."""


SERVER_OPTIONS: dict[tuple[str, str], type[BaseModel]] = {
    ("post", "observe"): ObserveOne,
    ("post", "observe_many"): ObserveMany,
    ("post", "recall"): RecallQuestion,
    ("post", "learn"): Lesson,
    ("post", "consolidate"): When,
    ("post", "retier"): When,
    ("post", "forget_message"): MessageRef,
    ("post", "complete_pending"): Limit,
    ("get", "turns"): TurnsWanted,
    ("get", "timeline"): TimelineWanted,
    ("get", "neighbourhood"): NodeWanted,
    ("get", "events"): When,
    ("get", "impressions"): When,
    ("get", "health"): When,
    ("get", "profile"): When,
}
"""Each route of an owner's memory that takes options, and the contract's model of them."""
MCP_OPTIONS: dict[str, type[BaseModel]] = {
    "observe": ObserveOne,
    "observe_many": ObserveMany,
    "recall": RecallQuestion,
    "profile": When,
    "consolidate": When,
    "forget_message": MessageRef,
}
"""Each MCP tool, and the contract's model of its arguments (besides the owner)."""


def test_the_server_takes_the_contracts_models_as_they_are() -> None:
    memory = AsyncGraphMem(GraphMem(NetworkXStore(), Letters()))
    schema = create_app(memory, Limits(), open_access=True).openapi()
    for (method, verb), options in SERVER_OPTIONS.items():
        route = schema["paths"]["/v1/owners/{owner}/" + verb][method]
        if method == "post":
            body = route["requestBody"]["content"]["application/json"]["schema"]
            assert body == {"$ref": f"#/components/schemas/{options.__name__}"}, verb
            given = set(schema["components"]["schemas"][options.__name__]["properties"])
        else:
            given = {part["name"] for part in route["parameters"] if part["in"] == "query"}
        assert given == set(options.model_fields), verb


def test_the_mcp_tools_take_the_contracts_models_and_the_owner() -> None:
    tools = _server(MemoryTools(GraphMem(NetworkXStore(), Letters()), None, max_messages=None))
    listed = {tool.name: tool for tool in asyncio.run(tools.list_tools())}
    assert set(listed) == set(MCP_OPTIONS)
    for name, options in MCP_OPTIONS.items():
        arguments = set(listed[name].input_schema["properties"])
        assert arguments == {*options.model_fields, "owner"}, name


CLI_OPTIONS: dict[str, type[BaseModel]] = {
    "recall": RecallQuestion,
    "learn": Lesson,
    "turns": TurnsWanted,
    "timeline": TimelineWanted,
    "neighbourhood": NodeWanted,
    "complete-pending": Limit,
    "keys create": KeyRequest,
}
"""Each command whose flags the contract's model makes (and the shared --at, the query)."""


def test_the_command_line_has_a_flag_for_each_option() -> None:
    [commands] = [
        action for action in parser()._actions if isinstance(action, argparse._SubParsersAction)
    ]
    for name, options in CLI_OPTIONS.items():
        command = commands.choices[name.split()[0]]
        if " " in name:  # an action of a command: its own parser
            [actions] = [
                action
                for action in command._actions
                if isinstance(action, argparse._SubParsersAction)
            ]
            command = actions.choices[name.split()[1]]
        flags = {action.dest for action in command._actions}
        assert set(options.model_fields) <= flags, name
    assert flag_of("sessions", RecallQuestion.model_fields["sessions"]) == "--session"
    assert flag_of("max_tokens", RecallQuestion.model_fields["max_tokens"]) == "--max-tokens"


def test_a_recall_option_the_contract_does_not_know_is_refused_by_name() -> None:
    with pytest.raises(InvalidInputError, match=r"^colour: Extra inputs are not permitted"):
        RecallQuestion.of("tea?", {"colour": "red"})
    given = RecallQuestion(query="tea?", k=3)
    assert RecallQuestion.of(given, {}) is given
    with pytest.raises(InvalidInputError, match="not both"):
        RecallQuestion.of(given, {"k": 4})


def test_the_client_sends_what_was_given_and_leaves_the_defaults_to_the_server() -> None:
    question = RecallQuestion.of("tea?", {"k": 3, "since": "2026-01-01T00:00:00+00:00"})
    call = Calls.recall("ann", question)
    assert call.body == {"query": "tea?", "k": 3, "since": "2026-01-01T00:00:00Z"}
    assert call.idempotent is False
    assert Calls.recall("ann", RecallQuestion(query="tea?", peek=True)).idempotent is True


def test_the_typescript_client_raises_what_the_table_says() -> None:
    table = (ROOT / "clients" / "typescript" / "src" / "errors.ts").read_text(encoding="utf-8")
    block = table.split("export const ERRORS")[1].split("};")[0]
    rows = dict(re.findall(r"^\s+(\d+): (\w+),$", block, flags=re.MULTILINE))
    assert rows == {str(row.status): row.error.__name__ for row in STATUSES}


def test_one_table_answers_errors_and_raises_them_back() -> None:
    for row in STATUSES:
        assert issubclass(error_of(row.status), row.error)
    for error in (row.error("x") for row in STATUSES):
        assert isinstance(error, error_of(status_of(error).status))
    assert status_of(GraphMemError("x")).status == 500
    assert error_of(500) is StoreError


ADDED_FIELD = """
    note: str | None = Field(None, description="a note the test added to the contract")
"""
"""What the test adds to RecallQuestion, after its last field."""

PROBE = '''
import asyncio, json, sys
from graphmem.aio import AsyncGraphMem
from graphmem.cli.grammar import parser
from graphmem.cli.options import options_given
from graphmem.client import Calls
from graphmem.contract import RecallQuestion
from graphmem.gate import Limits
from graphmem.mcp_server import arguments_of
from graphmem.memory import GraphMem
from graphmem.server import create_app
from graphmem.store.networkx import NetworkXStore


class Letters:
    """A tiny embedder: how often each letter occurs."""

    name = "letters"
    dimensions = 26

    def embed(self, texts, purpose):
        return [[text.lower().count(chr(97 + i)) + 0.1 for i in range(26)] for text in texts]

    def close(self):
        pass


memory = GraphMem(NetworkXStore(), Letters())
memory.observe("ann", "I like green tea.", message_id="m1")
found = {
    "facade": len(memory.recall("ann", "tea?", note="x", min_confidence=0.0).memories),
    "asyncio": len(
        asyncio.run(AsyncGraphMem(memory).recall("ann", "tea?", note="x", min_confidence=0.0))
        .memories
    ),
    "client": Calls.recall("ann", RecallQuestion.of("tea?", {"note": "x"})).body["note"],
    "server": "note" in create_app(AsyncGraphMem(memory), Limits(), open_access=True)
    .openapi()["components"]["schemas"]["RecallQuestion"]["properties"],
    "mcp": "note" in arguments_of(RecallQuestion).model_json_schema()["properties"],
    "cli": options_given(
        parser().parse_args(["recall", "--in-memory", "--owner", "ann", "tea?", "--note", "x"]),
        RecallQuestion,
    )["note"],
}
print(json.dumps(found))
'''
"""What each face makes of the added field, in a fresh interpreter over the edited copy."""


def test_a_field_added_to_the_recall_options_reaches_every_face(tmp_path: Path) -> None:
    copy = tmp_path / "graphmem"
    shutil.copytree(ROOT / "graphmem", copy, ignore=shutil.ignore_patterns("__pycache__"))
    options = copy / "contract" / "options.py"
    source = options.read_text(encoding="utf-8")
    first_method = "\n    @classmethod\n    def of(cls, query"
    assert source.count(first_method) == 1
    options.write_text(source.replace(first_method, ADDED_FIELD + first_method), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    assert found == {
        "facade": 1,
        "asyncio": 1,
        "client": "x",
        "server": True,
        "mcp": True,
        "cli": "x",
    }
