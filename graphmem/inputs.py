"""What callers hand the facade, checked: times, queries, items to observe, a graph to load.

Each check raises InvalidInputError naming the problem, before anything is stored or read.
The checks of single values (owner, text, identifiers) are the model's own (graphmem.model);
this module applies them to what the facade's verbs take.
"""

import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from graphmem.contract import OwnerGraph, QueryTurn
from graphmem.errors import InvalidInputError, as_invalid_input
from graphmem.model import (
    MAX_TEXT_CHARS,
    Turn,
    aware,
    check_speaker,
    check_text,
)
from graphmem.scoring import Query

OBSERVED_FIELDS = {"text", "message_id", "at", "speaker", "session"}
"""What an item given to `observe_many` may say."""

T = TypeVar("T")


def checked(check: Callable[[object], T], value: object) -> T:
    """Run a model check on caller input, reporting failure as InvalidInputError."""
    with as_invalid_input():
        return check(value)


def is_number(value: object) -> bool:
    """Whether a caller's value is an int or a float (a bool is neither here)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def moment_or_now(at: object) -> datetime:
    """A verb's `at`, checked to be timezone-aware; the current time if it is None."""
    return checked(aware, at if at is not None else datetime.now(UTC))


def query_of(query: str | list[QueryTurn]) -> Query:
    """A recall's query (shaped by RecallQuestion) as a Query, its texts checked (ValueError)."""
    if isinstance(query, str):
        return Query.of(check_text(query))
    turns = [
        QueryTurn(speaker=check_speaker(turn.speaker), text=check_text(turn.text)) for turn in query
    ]
    if sum(len(turn.text) for turn in turns) > MAX_TEXT_CHARS:
        raise ValueError(f"query has more than {MAX_TEXT_CHARS} characters")
    return Query(turns=turns)


def check_loadable(graph: OwnerGraph, dimensions: int, most: int) -> None:
    """Refuse a graph to `load` of more than `most` nodes and edges, or of foreign embeddings.

    An embedding whose size is not `dimensions` (the memory's embedder's) comes from an export
    made with another embedder.
    """
    items = len(graph.nodes) + len(graph.links)
    if items > most:
        raise InvalidInputError(
            f"the graph holds {items} nodes and edges; load at most {most} at a"
            " time (nodes before the edges between them)"
        )
    for node in graph.nodes:
        embedding = getattr(node, "embedding", None)
        if embedding is not None and len(embedding) != dimensions:
            raise InvalidInputError(
                f"{type(node).__name__} {node.id} has an embedding of {len(embedding)}"
                f" numbers; this memory's embedder makes {dimensions}"
            )


def observed_turns(owner: str, items: object) -> list[Turn]:
    """The pending turns of a batch to observe, in order, each item checked.

    A batch is a non-empty list of `{text, message_id, at, speaker, session}` maps (all but
    text optional); a turn without a message id gets a new uuid, one without `at` the current
    time. One message id given twice with different texts is refused.
    """
    listed = _listed(items)
    turns = []
    for index, item in enumerate(listed):
        try:
            with as_invalid_input():
                turns.append(_turn(owner, item))
        except InvalidInputError as error:
            if len(listed) == 1:
                raise
            raise InvalidInputError(f"item {index}: {error}") from None
    texts: dict[str, str] = {}
    conflicts = {turn.id for turn in turns if texts.setdefault(turn.id, turn.text) != turn.text}
    if conflicts:
        named = ", ".join(map(repr, sorted(conflicts)))
        raise InvalidInputError(f"message ids {named} come twice with different texts")
    return turns


def _listed(items: object) -> list[Mapping[str, Any]]:
    """Return a batch of items to observe as a list if it is a non-empty list of mappings."""
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Sequence) or not items:
        raise InvalidInputError("items must be a non-empty list of {text, message_id, ...} maps")
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"item {index} must be a map, not {type(item).__name__}")
        unknown = set(item) - OBSERVED_FIELDS
        if unknown or "text" not in item:
            raise InvalidInputError(
                f"item {index} must have a text and only {sorted(OBSERVED_FIELDS)},"
                f" not {sorted(map(str, item))}"
            )
    return list(items)


def _turn(owner: str, item: Mapping[str, Any]) -> Turn:
    """The pending turn of an item to observe (a new uuid without a message id, now without at)."""
    message_id = item.get("message_id")
    at = item.get("at")
    return Turn(
        id=message_id if message_id is not None else str(uuid.uuid4()),
        owner=owner,
        text=item["text"],
        created_at=moment_or_now(at),
        speaker=item.get("speaker", "user"),
        session=item.get("session", ""),
        pending=True,
        awaiting_summary=True,
    )
