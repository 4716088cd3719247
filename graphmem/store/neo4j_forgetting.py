"""The Neo4j store's forgetting: what a turn gave, a message forgotten, an owner forgotten whole."""

from collections.abc import Mapping
from typing import Any

from graphmem.contract import tombstone_hash
from graphmem.mechanisms.impressions import Cue
from graphmem.model import Event, Impression, LinkType, Memory
from graphmem.store.changes import Forgetting
from graphmem.store.findings import EventTrail, ImpressionTrail, Provenance, Sourced, UpdateTrail
from graphmem.store.neo4j_connection import Neo4jConnection, Transaction
from graphmem.store.neo4j_properties import (
    event_from,
    event_row,
    impression_from,
    impression_row,
    memory_from,
    memory_row,
    native,
    turn_from,
)
from graphmem.store.neo4j_statements import load_statement
from graphmem.store.rules import check_nodes


def _sourced_from(item: Mapping[str, Any]) -> Sourced:
    """A memory with its turns from a map of memory and turns."""
    return Sourced(
        memory=memory_from(item["memory"]), turns=[turn_from(turn) for turn in item["turns"]]
    )


def _provenance_from(row: Mapping[str, Any]) -> Provenance:
    """A turn's provenance from the row of cypher/turn_provenance.cypher."""
    return Provenance(
        turn=turn_from(row["turn"]),
        memories=[_sourced_from(item) for item in row["memories"]],
        impressions=[
            ImpressionTrail(
                impression=impression_from(item["impression"]),
                cues=[
                    Cue.model_validate({key: native(value) for key, value in cue.items()})
                    for cue in item["cues"]
                ],
                conjectures=[memory_from(memory) for memory in item["conjectures"]],
            )
            for item in row["impressions"]
        ],
        events=[
            EventTrail(
                event=event_from(item["event"]),
                developments=[_sourced_from(summary) for summary in item["developments"]],
                members=item["members"],
                previous=item["previous"],
                following=item["following"],
            )
            for item in row["events"]
        ],
        updates=[
            UpdateTrail(
                memory=memory_from(item["memory"]),
                newer=[(memory_id, native(at)) for memory_id, at in item["newer"]],
                older=item["older"],
            )
            for item in row["updates"]
        ],
    )


class Neo4jForgetting(Neo4jConnection):
    """The Neo4j store's reading of what a turn gave, and its forgetting of a turn or an owner."""

    def provenance(self, owner: str, turn: str) -> Provenance | None:
        """What was derived from one of the owner's turns (None if no such turn is stored)."""
        rows = self._run(
            load_statement("turn_provenance"), {"owner": owner, "turn": turn}, read=True
        )
        return _provenance_from(rows[0]) if rows else None

    def forget_turn(self, owner: str, forgetting: Forgetting) -> bool:
        """Write a Forgetting at once, unless the turn's provenance changed since; say if written.

        One transaction, under the owner's write lock, reads the provenance again and writes
        only if it is unchanged (cypher/forget_turn.cypher), with the tombstone of the turn's
        id (cypher/save_tombstones.cypher).
        """
        check_nodes(owner, [*forgetting.replaced, *forgetting.added])
        turn = forgetting.provenance.turn.id
        deleted: dict[str, list[str]] = {label: [] for label in ("Memory", "Impression", "Event")}
        for label, node_id in forgetting.deleted:
            deleted[label].append(node_id)
        edges: dict[tuple[str, str, LinkType], list[dict[str, str]]] = {
            ("Event", "Event", LinkType.NEXT): [],
            ("Memory", "Event", LinkType.PART_OF): [],
            ("Memory", "Impression", LinkType.INFERRED_FROM): [],
        }
        for source_label, target_label, link in forgetting.linked:
            edges[(source_label, target_label, link.type)].append(
                {"source": link.source, "target": link.target}
            )
        parameters = {
            "owner": owner,
            "turn": turn,
            "deleted_memories": deleted["Memory"],
            "deleted_impressions": deleted["Impression"],
            "deleted_events": deleted["Event"],
            "memories": [
                memory_row(node) for node in forgetting.replaced if isinstance(node, Memory)
            ],
            "events": [event_row(node) for node in forgetting.replaced if isinstance(node, Event)],
            "impressions": [
                impression_row(node) for node in forgetting.replaced if isinstance(node, Impression)
            ],
            "added": [memory_row(memory) for memory in forgetting.added],
            "unlinked_members": [
                {"source": link.source, "target": link.target}
                for _source_label, _target_label, link in forgetting.unlinked
            ],
            "next": edges[("Event", "Event", LinkType.NEXT)],
            "members": edges[("Memory", "Event", LinkType.PART_OF)],
            "inferred": edges[("Memory", "Impression", LinkType.INFERRED_FROM)],
        }

        def work(transaction: Transaction) -> bool:
            provenance = {"owner": owner, "turn": turn}
            rows = self._send(transaction, load_statement("turn_provenance"), provenance)
            if not rows or _provenance_from(rows[0]) != forgetting.provenance:
                return False
            self._send(transaction, load_statement("forget_turn"), parameters)
            tombstone = {"owner": owner, "hashes": [tombstone_hash(turn)]}
            self._send(transaction, load_statement("save_tombstones"), tombstone)
            return True

        return self._in_transaction(owner, work)

    def forget(self, owner: str) -> None:
        """Delete every node, edge and tombstone of the owner; other owners are untouched.

        Deletes in batches of committed transactions: if interrupted, run it again.
        """
        self._run_batched(load_statement("forget_owner"), {"owner": owner})
