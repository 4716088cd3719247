"""The model as the Neo4j store's flat node properties and back, and policies as parameters.

The node properties are the names cypher/'s statements read and write: attention flattened into
four of them (ATTENTION_PROPERTIES), enums as their values, a mark such as `pending` only while
it is true (so its index holds only the nodes marked), and a memory's content terms as `terms`.
"""

from collections.abc import Callable, Mapping
from typing import Any

from graphmem.contract import tombstone_hash
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.model import Attention, Event, Impression, Memory, Node, Turn
from graphmem.terms import terms as content_terms

ATTENTION_PROPERTIES = {
    "long_term": "attention_long_term",
    "long_term_at": "attention_long_term_at",
    "short_term": "attention_short_term",
    "short_term_at": "attention_short_term_at",
}
"""Attention is flattened into these node properties so Browser shows each part by name."""


def native(value: Any) -> Any:
    """Turn driver temporal values into Python ones; leave the rest alone."""
    return value.to_native() if hasattr(value, "to_native") else value


def turn_row(turn: Turn) -> dict[str, Any]:
    """Node properties of a turn; each mark exists only while true (its index holds only those)."""
    row = turn.model_dump()
    row["pending"] = True if turn.pending else None
    row["awaiting_summary"] = True if turn.awaiting_summary else None
    return row


def saved_turn_row(turn: Turn) -> dict[str, Any]:
    """A row of save_turns.cypher: the turn's node properties and the hash of its tombstone."""
    return {"turn": turn_row(turn), "tombstone": tombstone_hash(turn.id)}


def turn_from(properties: Mapping[str, Any]) -> Turn:
    """A turn from its node properties."""
    return Turn.model_validate({key: native(value) for key, value in properties.items()})


def memory_row(memory: Memory) -> dict[str, Any]:
    """Node properties of a memory: attention flattened, enums as values, marks while true.

    With them `terms`, the content terms of its text (graphmem.terms) in one text, which the
    fulltext indexes read: the lexical channel matches the same terms as the embedded store's.
    """
    row = memory.model_dump(exclude={"attention"})
    row["kind"] = memory.kind.value
    row["tier"] = int(memory.tier)
    row["awaiting_consolidation"] = True if memory.awaiting_consolidation else None
    row["offline"] = True if memory.offline else None
    row["terms"] = indexed_terms(memory.text)
    row.update(_attention_row(memory.attention))
    return row


def indexed_terms(text: str) -> str:
    """A memory text's content terms as the fulltext indexes hold them: sorted, one space apart."""
    return " ".join(sorted(content_terms(text)))


def memory_from(properties: Mapping[str, Any]) -> Memory:
    """A memory from its node properties (a summary's have no embedding; terms are left out)."""
    data = {key: value for key, value in properties.items() if key != "terms"}
    return Memory.model_validate({"embedding": None, **_unflattened(data)})


def event_row(event: Event) -> dict[str, Any]:
    """Node properties of an event: attention flattened, the tier as its number."""
    row = event.model_dump(exclude={"attention"})
    row["tier"] = int(event.tier)
    row.update(_attention_row(event.attention))
    return row


def event_from(properties: Mapping[str, Any]) -> Event:
    """An event from its node properties."""
    return Event.model_validate(_unflattened(properties))


def impression_row(impression: Impression) -> dict[str, Any]:
    """Node properties of an impression."""
    return impression.model_dump()


def impression_from(properties: Mapping[str, Any]) -> Impression:
    """An impression from its node properties."""
    return Impression.model_validate({key: native(value) for key, value in properties.items()})


def _attention_row(attention: Attention) -> dict[str, Any]:
    """Attention as the flat node properties of ATTENTION_PROPERTIES."""
    return {name: getattr(attention, part) for part, name in ATTENTION_PROPERTIES.items()}


def _unflattened(properties: Mapping[str, Any]) -> dict[str, Any]:
    """Model data from node properties: temporal values native, attention gathered again."""
    data = {key: native(value) for key, value in properties.items()}
    data["attention"] = Attention.model_validate(
        {part: data.pop(name) for part, name in ATTENTION_PROPERTIES.items()}
    )
    return data


NODE_READERS: dict[str, Callable[[Mapping[str, Any]], Node]] = {
    "Turn": turn_from,
    "Memory": memory_from,
    "Event": event_from,
    "Impression": impression_from,
}
"""How each label's node properties become a model."""


# -- the policies as the statements' parameters ---------------------------------------------------


def half_lives(policy: AttentionPolicy) -> dict[str, float]:
    """The attention half-lives in seconds, as the wake and re-tier statements take them."""
    return {
        "long_half_life": policy.long_term_half_life.total_seconds(),
        "short_half_life": policy.short_term_half_life.total_seconds(),
    }
