"""ChatGPT and Claude exports read as they stream: the current branch, what is left out, errors."""

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graphmem import chat_exports
from graphmem.chat_exports import ExportTally, export_turns, json_list_items
from graphmem.errors import InvalidInputError

from .test_cli import cli

T0 = 1_767_225_600.0  # 2026-01-01T00:00:00Z


def node(node_id: str, parent: str | None, children: list[str], message: Any) -> dict[str, Any]:
    """A node of a ChatGPT conversation's tree."""
    return {"id": node_id, "message": message, "parent": parent, "children": children}


def said(message_id: str, role: str, text: Any, seconds: float, **extra: Any) -> dict[str, Any]:
    """A ChatGPT message: text content unless `extra` gives another."""
    content = extra.pop("content", {"content_type": "text", "parts": [text]})
    return {
        "id": message_id,
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": T0 + seconds,
        "content": content,
        "metadata": extra.pop("metadata", {}),
        **extra,
    }


def chatgpt_conversation(key: str) -> dict[str, Any]:
    """A conversation whose answer was regenerated: the tree holds both, the branch the second."""
    hidden = {"is_visually_hidden_from_conversation": True}
    mapping = [
        node("root", None, ["sys"], None),
        node("sys", "root", ["u1"], said("sys", "system", "", 0, metadata=hidden)),
        node("u1", "sys", ["a1", "a2"], said("u1", "user", "I'm allergic to milk.", 1)),
        node("a1", "u1", [], said("a1", "assistant", "An answer left behind.", 2)),
        node("a2", "u1", ["t1"], said("a2", "assistant", "Noted: no milk for you.", 3)),
        node("t1", "a2", ["c1"], said("t1", "tool", "a search result", 4)),
        node(
            "c1",
            "t1",
            ["m1"],
            said("c1", "assistant", None, 5, content={"content_type": "code", "text": "x = 1"}),
        ),
        node(
            "m1",
            "c1",
            ["e1"],
            said(
                "m1",
                "user",
                None,
                6,
                content={
                    "content_type": "multimodal_text",
                    "parts": [{"asset_pointer": "file-service://x"}, "This is my cat Miso."],
                },
            ),
        ),
        node("e1", "m1", [], said("e1", "user", "", 7)),
    ]
    return {
        "title": "Milk",
        "create_time": T0,
        "conversation_id": key,
        "id": key,
        "current_node": "e1",
        "mapping": {item["id"]: item for item in mapping},
    }


def claude_conversation(key: str) -> dict[str, Any]:
    """A Claude conversation: two messages with text, one with an attachment only."""
    return {
        "uuid": key,
        "name": "Lyon",
        "created_at": "2026-02-01T10:00:00.000000Z",
        "chat_messages": [
            {
                "uuid": "h1",
                "sender": "human",
                "text": "I moved to Lyon.",
                "content": [{"type": "text", "text": "I moved to Lyon."}],
                "created_at": "2026-02-01T10:00:00.000000Z",
            },
            {
                "uuid": "b1",
                "sender": "assistant",
                "text": "",
                "content": [{"type": "text", "text": "Welcome to Lyon!"}],
                "created_at": "2026-02-01T10:00:05.000000Z",
            },
            {
                "uuid": "h2",
                "sender": "human",
                "text": "",
                "content": [],
                "attachments": [{"file_name": "photo.jpg"}],
                "created_at": "2026-02-01T10:01:00.000000Z",
            },
        ],
    }


def turns_of(text: str, format_name: str) -> tuple[list[dict[str, Any]], ExportTally]:
    """The turns an export's text gives, and its tally."""
    tally = ExportTally()
    return list(export_turns(io.StringIO(text), "export.json", format_name, tally)), tally


def test_chatgpt_turns_are_the_current_branch_with_what_was_left_out_counted() -> None:
    turns, tally = turns_of(json.dumps([chatgpt_conversation("c-1")]), "chatgpt")
    assert [(turn["message_id"], turn["speaker"], turn["text"]) for turn in turns] == [
        ("c-1:u1", "user", "I'm allergic to milk."),
        ("c-1:a2", "assistant", "Noted: no milk for you."),
        ("c-1:m1", "user", "This is my cat Miso."),
    ]
    assert {turn["session"] for turn in turns} == {"c-1"}
    assert [turn["at"] for turn in turns] == [
        datetime.fromtimestamp(T0 + seconds, UTC) for seconds in (1, 3, 6)
    ]
    assert (tally.conversations, tally.messages) == (1, 3)
    assert tally.skipped == {
        "system messages": 1,
        "tool messages": 1,
        "code content": 1,
        "messages without text": 1,
    }
    assert tally.summary() == (
        "conversations read 1, messages kept 3; left out: code content 1,"
        " messages without text 1, system messages 1, tool messages 1"
    )


def test_claude_turns_are_its_messages_with_text_in_order() -> None:
    turns, tally = turns_of(json.dumps([claude_conversation("k-1")]), "claude")
    assert [(turn["message_id"], turn["speaker"], turn["text"]) for turn in turns] == [
        ("k-1:h1", "user", "I moved to Lyon."),
        ("k-1:b1", "assistant", "Welcome to Lyon!"),
    ]
    assert turns[1]["at"] == datetime(2026, 2, 1, 10, 0, 5, tzinfo=UTC)
    assert tally.skipped == {"messages without text": 1}


def test_a_list_is_read_an_item_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat_exports, "CHUNK", 7)
    items = [{"a": '[1, 2], {"}'}, {"b": [{"c": " ] "}]}, [], {"d": "星期一"}] * 10
    text = " \n[ " + " ,\n ".join(json.dumps(item, ensure_ascii=False) for item in items) + " ]\n"
    stream = io.StringIO(text)
    read = json_list_items(stream, "export.json")
    assert next(read) == items[0]
    assert stream.tell() < len(text) // 2  # the rest is not read yet
    assert list(read) == items[1:]
    assert list(json_list_items(io.StringIO("[]"), "export.json")) == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"a": 1}', "not a JSON list of conversations"),
        ("", "not a JSON list of conversations"),
        ('[{"a": 1}, 3]', "conversation 2 starts with '3'"),
        ('[{"a": 1} {"b": 2}]', "conversation 1: no ',' or ']' after it"),
        ('[{"a": 1}, {"b": ', "conversation 2: not JSON"),
        ('[{"a": 1}', "conversation 1: no ',' or ']' after it"),
    ],
)
def test_a_list_that_is_not_one_is_named_where_it_breaks(text: str, problem: str) -> None:
    with pytest.raises(InvalidInputError, match=f"^export.json: {problem}"):
        list(json_list_items(io.StringIO(text), "export.json"))


def test_a_conversation_that_cannot_be_read_is_named() -> None:
    broken = chatgpt_conversation("c-2") | {"current_node": "gone"}
    with pytest.raises(InvalidInputError, match=r"^conversation 2 \(c-2\): node 'gone'"):
        turns_of(json.dumps([chatgpt_conversation("c-1"), broken]), "chatgpt")
    timeless = chatgpt_conversation("c-3") | {"create_time": 1e300}
    with pytest.raises(InvalidInputError, match=r"^conversation 1 \(c-3\): create_time 1e\+300"):
        turns_of(json.dumps([timeless]), "chatgpt")
    nameless = claude_conversation("k-1") | {"uuid": None}
    with pytest.raises(InvalidInputError, match=r"^conversation 1: "):
        turns_of(json.dumps([nameless]), "claude")


def test_an_export_imported_twice_stores_nothing_twice_and_forgotten_stays_forgotten(
    tmp_path: Path,
) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([chatgpt_conversation("c-1"), chatgpt_conversation("c-2")]))
    command = ["import-history", "--owner", "ann", "--format", "chatgpt", str(export)]
    first = cli(where, *command)
    assert first.returncode == 0, first.stderr
    summary, held = first.stdout.splitlines()
    assert summary.startswith("imported 6 messages from 2 sessions: 6 new turns, 0 already stored")
    assert held == (
        "conversations read 2, messages kept 6; left out: code content 2,"
        " messages without text 2, system messages 2, tool messages 2"
    )
    assert cli(where, "forget", "--owner", "ann", "--message", "c-2:u1").returncode == 0
    again = cli(where, *command)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(
        "imported 6 messages from 2 sessions: 0 new turns, 5 already stored, 1 forgotten earlier"
    )
    broken = chatgpt_conversation("c-3") | {"current_node": "gone"}
    export.write_text(json.dumps([chatgpt_conversation("c-1"), broken]))
    refused = cli(where, *command)
    assert refused.returncode != 0
    assert "conversation 2 (c-3): node 'gone' is not in its tree" in refused.stderr
