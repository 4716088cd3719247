"""The rules both stores keep alike: search terms, their rarity, belief bins, write checks.

Which search terms count and how rare each is, a belief's bin, and the checks of what is
written (its owner, its tombstones).
"""

import math
from collections.abc import Mapping, Sequence

from graphmem.contract import SEARCHED_KINDS, Tombstone
from graphmem.errors import InvalidInputError
from graphmem.model import Memory, MemoryKind, Node

MAX_SEARCH_TERMS = 32
"""At most this many of a query's terms are searched for (the first given), on every store: on
Neo4j each is a Lucene clause and a count (cypher/count_memories_holding.cypher)."""


def searched_terms(terms: Mapping[str, float]) -> dict[str, float]:
    """Of a query's weighted terms, those a store searches for: the first MAX_SEARCH_TERMS."""
    return dict(list(terms.items())[:MAX_SEARCH_TERMS])


RARITY_COUNT = 10_000
"""Memories holding a term, and memories in all, are counted up to this many to weigh the term:
a term held by more is common either way, and on Neo4j counting more costs a read per memory."""


def term_rarity(holding: int, memories: int) -> float:
    """How rare a term held by `holding` of an owner's `memories` is: BM25's inverse frequency.

    Both counts are taken up to RARITY_COUNT. The lexical channel of recall weighs each term of
    the query by it, so that a memory sharing the query's rare words outranks one sharing as
    many common ones; both stores count the same way and so agree.
    """
    memories = min(memories, RARITY_COUNT)
    holding = min(holding, memories)
    return math.log((memories + 1) / (holding + 0.5))


def belief_bin(belief: float | None) -> str:
    """The GraphCounts.beliefs key of a belief: its tenth ("0.0" to "0.9"), or "unset"."""
    if belief is None:
        return "unset"
    return f"{min(int(belief * 10), 9) / 10:.1f}"


def check_nodes(owner: str, nodes: Sequence[Node]) -> None:
    """Refuse nodes of another owner, searchable memories without embedding, slotless facts."""
    for node in nodes:
        if node.owner != owner:
            raise InvalidInputError(
                f"{type(node).__name__} {node.id} belongs to {node.owner}, not {owner}"
            )
        if not isinstance(node, Memory):
            continue
        if node.embedding is None and node.kind in SEARCHED_KINDS:
            raise InvalidInputError(f"memory {node.id} has no embedding to store")
        if (node.slot is None) == (node.kind is MemoryKind.FACT):
            raise InvalidInputError(f"memory {node.id}: a fact, and only a fact, has a slot")


def check_tombstones(owner: str, tombstones: Sequence[Tombstone]) -> None:
    """Refuse tombstones of another owner."""
    for tombstone in tombstones:
        if tombstone.owner != owner:
            raise InvalidInputError(
                f"tombstone {tombstone.hash} belongs to {tombstone.owner}, not {owner}"
            )
