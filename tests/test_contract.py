"""One contract for every face: each face's options are the contract's, and a field added to the
recall's options reaches every face with no other edit."""

import inspect
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from graphmem.aio import AsyncGraphMem
from graphmem.client import AsyncGraphMemClient, Calls, GraphMemClient
from graphmem.contract import (
    STATUSES,
    Lesson,
    Limit,
    MessageRef,
    ObserveOne,
    RecallQuestion,
    When,
    error_of,
    status_of,
)
from graphmem.errors import GraphMemError, InvalidInputError, StoreError
from graphmem.memory import GraphMem

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
    "facade": len(memory.recall("ann", "tea?", note="x").memories),
    "asyncio": len(asyncio.run(AsyncGraphMem(memory).recall("ann", "tea?", note="x")).memories),
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
