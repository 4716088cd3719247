"""A session's history: `turns` reads one session's turns in order, on both stores.

What the agent frameworks' sessions (graphmem.integrations) rest on: the turns of a session in
the order received, the last few of them, and the order kept when one is forgotten.
"""

from datetime import UTC, datetime, timedelta

import pytest

from graphmem.errors import InvalidInputError
from graphmem.memory import GraphMem

START = datetime(2026, 3, 2, tzinfo=UTC)


def observe_sessions(memory: GraphMem, owner: str) -> None:
    """Two sessions interleaved, and a turn without a session."""
    items = [
        {"text": "Hello, I'm planning a trip.", "message_id": "a1", "session": "a"},
        {"text": "My sister lives in Lyon.", "message_id": "b1", "session": "b"},
        {"text": "Where should we go?", "message_id": "a2", "session": "a", "speaker": "assistant"},
        {"text": "Somewhere warm, in May.", "message_id": "a3", "session": "a"},
        {"text": "A note without a session.", "message_id": "n1"},
    ]
    moments = [START + timedelta(minutes=index) for index in range(len(items))]
    memory.observe_many(owner, [item | {"at": at} for item, at in zip(items, moments, strict=True)])


def test_a_session_reads_back_in_the_order_received(memory: GraphMem, owner: str) -> None:
    observe_sessions(memory, owner)
    turns = memory.turns(owner, session="a")
    assert [turn.id for turn in turns] == ["a1", "a2", "a3"]
    assert [turn.position for turn in turns] == [0, 1, 2]
    assert [turn.speaker for turn in turns] == ["user", "assistant", "user"]
    assert turns[1].text == "Where should we go?"
    assert [turn.id for turn in memory.turns(owner, session="b")] == ["b1"]
    assert [turn.id for turn in memory.turns(owner, session="")] == ["n1"]
    assert memory.turns(owner, session="never") == []
    assert memory.turns("someone-else", session="a") == []


def test_last_reads_the_end_of_a_session(memory: GraphMem, owner: str) -> None:
    observe_sessions(memory, owner)
    assert [turn.id for turn in memory.turns(owner, session="a", last=2)] == ["a2", "a3"]
    assert [turn.id for turn in memory.turns(owner, session="a", last=3)] == ["a1", "a2", "a3"]
    assert [turn.id for turn in memory.turns(owner, session="a", last=50)] == ["a1", "a2", "a3"]
    assert memory.turns(owner, session="a", last=0) == []


def test_a_forgotten_turn_leaves_the_others_in_order(memory: GraphMem, owner: str) -> None:
    observe_sessions(memory, owner)
    assert memory.forget_message(owner, "a2").found
    memory.observe(owner, "What about Lisbon?", message_id="a4", session="a")
    turns = memory.turns(owner, session="a")
    assert [turn.id for turn in turns] == ["a1", "a3", "a4"]
    assert [turn.position for turn in turns] == [0, 1, 2]
    assert [turn.id for turn in memory.turns(owner, session="a", last=1)] == ["a4"]


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"session": "a", "last": -1}, "last: Input should be greater than or equal to 0"),
        ({"session": "a", "last": True}, "last: must be a whole number, not a truth value"),
        ({"session": "a", "last": "two"}, "last: Input should be a valid integer"),
        ({"session": 7}, "session"),
        ({"session": "x" * 300}, "session"),
    ],
)
def test_bad_arguments_are_refused_by_name(
    memory: GraphMem, owner: str, arguments: dict[str, object], named: str
) -> None:
    observe_sessions(memory, owner)
    with pytest.raises(InvalidInputError, match=named):
        memory.turns(owner, **arguments)  # type: ignore[arg-type]
    assert len(memory.turns(owner, session="a")) == 3
