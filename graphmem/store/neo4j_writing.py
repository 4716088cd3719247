"""The Neo4j store's writes of what an observation and an import bring: turns, memories, edges."""

from collections.abc import Sequence
from typing import Any

from graphmem.contract import OwnerGraph, tombstone_hash
from graphmem.errors import StoreError
from graphmem.mechanisms.impressions import ImpressionPolicy
from graphmem.model import Event, Impression, Link, Memory, Turn
from graphmem.store.changes import Derivation
from graphmem.store.neo4j_connection import Neo4jConnection, Transaction
from graphmem.store.neo4j_properties import (
    event_row,
    impression_row,
    memory_row,
    saved_turn_row,
    turn_from,
)
from graphmem.store.neo4j_statements import load_statement
from graphmem.store.rules import check_nodes, check_tombstones


class Neo4jWriting(Neo4jConnection):
    """The Neo4j store's writes of turns, the memories derived from them, knowledge and edges."""

    def save_turns(
        self, owner: str, turns: Sequence[Turn], *, readmit_forgotten: bool = False
    ) -> list[Turn]:
        """Store the owner's turns in order, each unless one with its id is stored; return them.

        One transaction. Returns, in input order, the stored turn of each: the new one, or the
        one already there (a turn never changes once stored). A turn whose id has a tombstone
        (a message the owner forgot) is neither stored nor returned, unless `readmit_forgotten`:
        then the turns' tombstones are deleted first, in the same transaction, and they are
        stored.
        """
        check_nodes(owner, turns)
        if not turns:
            return []
        statements = [
            (
                load_statement("save_turns"),
                {"owner": owner, "rows": [saved_turn_row(turn) for turn in turns]},
            )
        ]
        if readmit_forgotten:
            hashes = [tombstone_hash(turn.id) for turn in turns]
            statements.insert(
                0, (load_statement("delete_tombstones"), {"owner": owner, "hashes": hashes})
            )
        rows = self._write_together(owner, statements)[-1]
        return [turn_from(row["turn"]) for row in rows]

    def save_memories(
        self,
        owner: str,
        derivations: Sequence[Derivation],
        policy: ImpressionPolicy | None = None,
    ) -> list[list[Memory]]:
        """Store what turns gave, in order, in one transaction; clear the turns' pending marks.

        Each turn's memories come FROM it; edges whose ends are not stored are skipped (an edge
        may name a memory of an earlier derivation of the same call); memories already stored
        are kept as they are. While a turn is pending, each of its impressions accumulates on
        the owner's impression of its statement (INFERRED_FROM the turn's memories), and those
        that cross the threshold make their conjecture (INFERRED_FROM the impression). Returns
        the conjectures made, a list per derivation. `policy` (default ImpressionPolicy()) sets
        the threshold. StoreError if a turn is not stored (then nothing is).
        """
        check_nodes(owner, [node for derivation in derivations for node in derivation.nodes])
        if not derivations:
            return []
        parameters = {
            "owner": owner,
            "derivations": [
                {
                    "turn_id": derivation.source.id,
                    "rows": [memory_row(memory) for memory in derivation.memories],
                    "links": [link.model_dump(mode="json") for link in derivation.links],
                    "impressions": [
                        {
                            "impression": impression_row(item.impression),
                            "conjecture": memory_row(item.conjecture),
                        }
                        for item in derivation.impressions
                    ],
                }
                for derivation in derivations
            ],
            "threshold": (policy or ImpressionPolicy()).threshold,
        }

        def work(transaction: Transaction) -> list[dict[str, Any]]:
            rows = self._send(transaction, load_statement("save_memories"), parameters)
            saved = {row["turn_id"] for row in rows}
            missing = [item.source.id for item in derivations if item.source.id not in saved]
            if missing:  # raised inside the transaction function, so nothing is committed
                raise StoreError(f"turn {missing[0]!r} of owner {owner} is not stored")
            return rows

        rows = self._in_transaction(owner, work)
        return [
            [
                derivation.impressions[index].conjecture.model_copy(update={"belief": belief})
                for index, belief in row["conjectures"]
            ]
            for derivation, row in zip(derivations, rows, strict=True)
        ]

    def save_knowledge(self, owner: str, memories: Sequence[Memory], links: Sequence[Link]) -> None:
        """Store knowledge memories (from no turn) and edges among memories; idempotent by id."""
        check_nodes(owner, memories)
        self._write(
            owner,
            load_statement("save_knowledge"),
            {
                "owner": owner,
                "rows": [memory_row(memory) for memory in memories],
                "links": [link.model_dump(mode="json") for link in links],
            },
        )

    def link_memories(self, owner: str, links: Sequence[Link]) -> None:
        """Add edges between the owner's memories (one per type and pair; a repeat updates it)."""
        rows = [link.model_dump(mode="json") for link in links]
        [result] = self._write(
            owner, load_statement("link_memories"), {"owner": owner, "rows": rows}
        )
        if result["linked"] != len(rows):
            raise StoreError(f"{len(rows) - result['linked']} edges name memories not stored")

    def load(self, owner: str, graph: OwnerGraph) -> None:
        """Bulk-load an owner's nodes and edges, as `export` gives them; idempotent by id.

        One transaction; a node already stored keeps its properties; turns take their
        positions in the order of the positions they carry (those without one last); edges
        whose ends are not stored are skipped. Its tombstones are stored but those of its turns:
        a turn loaded is no longer forgotten (its tombstone goes). For imports and benchmarks,
        not for `observe`.
        """
        check_nodes(owner, graph.nodes)
        check_tombstones(owner, graph.tombstones)
        turns = [node for node in graph.nodes if isinstance(node, Turn)]
        turns.sort(key=lambda turn: (turn.position is None, turn.position or 0))
        self._write_together(
            owner,
            [
                (
                    load_statement("save_tombstones"),
                    {"owner": owner, "hashes": [item.hash for item in graph.tombstones]},
                ),
                (
                    load_statement("delete_tombstones"),
                    {"owner": owner, "hashes": [tombstone_hash(turn.id) for turn in turns]},
                ),
                (
                    load_statement("save_turns"),
                    {"owner": owner, "rows": [saved_turn_row(turn) for turn in turns]},
                ),
                (
                    load_statement("load"),
                    {
                        "owner": owner,
                        "memories": [
                            memory_row(node) for node in graph.nodes if isinstance(node, Memory)
                        ],
                        "events": [
                            event_row(node) for node in graph.nodes if isinstance(node, Event)
                        ],
                        "impressions": [
                            impression_row(node)
                            for node in graph.nodes
                            if isinstance(node, Impression)
                        ],
                        "links": [
                            {
                                **link.model_dump(mode="json"),
                                "source_label": source_label,
                                "target_label": target_label,
                            }
                            for source_label, target_label, link in graph.links
                        ],
                    },
                ),
            ],
        )
