"""What the store gives back across a face: counts, what a recall woke, traffic, an owner's graph.

An exported graph (`OwnerGraph`) holds the owner's nodes, edges and tombstones in a fixed order,
as records that `load` takes back; a tombstone keeps the hash of a forgotten message's id. The
export file (`graphmem export` and `import`, HTTP's export) is JSON lines: a header naming the
format, its version and the owner, then the records.
"""

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from itertools import chain
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

from graphmem.errors import InvalidInputError, validation_problems
from graphmem.model import NODE_LABELS, Link, Node, Owner, Tier


class Woken(BaseModel):
    """A node whose attention a recall raised: used itself, or woken as a neighbour."""

    model_config = ConfigDict(frozen=True)

    id: str
    label: str
    used: bool
    short_term_gain: float
    tier: Tier
    """The node's tier after waking."""


class GraphCounts(BaseModel):
    """How many nodes per label and edges per type one owner has, and its memories' spread.

    `tiers` counts memories per tier (every tier present, zeros included); `beliefs` counts
    memories per tenth of belief ("0.0" for [0, 0.1) up to "0.9" for [0.9, 1]; only tenths
    that hold a memory) and "unset" for memories without a belief.
    """

    model_config = ConfigDict(frozen=True)

    nodes: dict[str, int]
    links: dict[str, int]
    tiers: dict[int, int]
    beliefs: dict[str, int]
    tombstones: int = 0
    """The tombstones of the messages the owner forgot (Tombstone), kept apart from `nodes`."""

    @property
    def total(self) -> int:
        """Nodes, edges and tombstones together."""
        return sum(self.nodes.values()) + sum(self.links.values()) + self.tombstones


class HealthCounts(BaseModel):
    """What an owner's health report counts besides GraphCounts (see GraphMem.health)."""

    model_config = ConfigDict(frozen=True)

    kinds: dict[str, int]
    """Memories per kind (observation, fact, knowledge, summary, conjecture): kinds present."""
    pending_turns: int
    """Turns whose memories are not derived yet (a model call failed or was cut short)."""
    awaiting_summary: int
    """Turns that no dialogue summary covers yet: the sleep job's queue."""
    awaiting_consolidation: int
    """Facts the sleep job has not weighed against older ones yet."""
    open_contradictions: int
    """CONTRADICTS edges whose two sides both stand (neither was MERGED_INTO another memory)."""
    superseded: int
    """Facts a newer one UPDATES: their validity ended (valid_until), and they are kept."""
    never_used: int
    """Memories that no recall returned and no duplicate reinforced: accessed_at = created_at."""
    isolated: int
    """Turns, memories, events and impressions without any edge."""
    first_conjecture_at: datetime | None
    last_conjecture_at: datetime | None
    """When the oldest and the newest conjecture memory were made."""


class StoreTraffic(BaseModel):
    """What a store has asked of its database since it was opened."""

    model_config = ConfigDict(frozen=True)

    transactions: int
    """Write transactions committed (on the embedded store, changes written: a journal entry
    each when it keeps a file)."""
    statements: int
    """Cypher statements sent to the server, retries included (none on the embedded store)."""


class Tombstone(BaseModel):
    """What is kept of a forgotten message: its owner and the hash of its id, never its text.

    Observing a message whose id has a tombstone stores nothing (unless readmitted); the hash
    is tombstone_hash(message id).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    owner: Owner
    hash: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


def tombstone_hash(message_id: str) -> str:
    """The hash a forgotten message's tombstone keeps: the SHA-256 of its id, in hex."""
    return hashlib.sha256(message_id.encode("utf-8")).hexdigest()


def tombstone_of(owner: str, message_id: str) -> Tombstone:
    """The tombstone that forgetting one of the owner's messages leaves."""
    return Tombstone(owner=owner, hash=tombstone_hash(message_id))


class OwnerGraph(BaseModel):
    """Everything one owner has, in a fixed order, so two graphs compare equal by content.

    Nodes by label and id; edges as (source label, target label, link) by type and ends; the
    tombstones of the messages it forgot, by hash.
    """

    model_config = ConfigDict(frozen=True)

    nodes: list[Node]
    links: list[tuple[str, str, Link]]
    tombstones: list[Tombstone] = []

    def records(self) -> list[dict[str, Any]]:
        """The graph as JSON-ready records: {label, node} per node, one per edge, {tombstone}."""
        nodes = [
            {"label": type(node).__name__, "node": node.model_dump(mode="json")}
            for node in self.nodes
        ]
        links = [
            {
                "source_label": source_label,
                "target_label": target_label,
                "link": link.model_dump(mode="json", exclude_none=True),
            }
            for source_label, target_label, link in self.links
        ]
        tombstones = [{"tombstone": tombstone.model_dump()} for tombstone in self.tombstones]
        return nodes + links + tombstones

    @classmethod
    def from_records(cls, records: Sequence[Any]) -> "OwnerGraph":
        """The graph from `records()`; InvalidInputError names the first bad record (from 1)."""
        items = []
        for number, record in enumerate(records, start=1):
            try:
                items.append(parse_record(record))
            except InvalidInputError as error:
                raise InvalidInputError(f"record {number}: {error}") from None
        return cls.of(items)

    @classmethod
    def of(cls, items: Sequence["Node | tuple[str, str, Link] | Tombstone"]) -> "OwnerGraph":
        """The graph of parsed records, nodes, labelled edges and tombstones mixed, in order."""
        return cls(
            nodes=[item for item in items if isinstance(item, Node)],
            links=[item for item in items if isinstance(item, tuple)],
            tombstones=[item for item in items if isinstance(item, Tombstone)],
        )


def parse_record(record: Any) -> Node | tuple[str, str, Link] | Tombstone:
    """One record of OwnerGraph.records(): a node, an edge with its ends' labels, a tombstone."""
    try:
        if not isinstance(record, dict):
            raise TypeError("not a JSON object")
        if "node" in record:
            return NODE_LABELS[record["label"]].model_validate(record["node"])
        if "tombstone" in record:
            return Tombstone.model_validate(record["tombstone"])
        ends = (record["source_label"], record["target_label"])
        if not set(ends) <= set(NODE_LABELS):
            raise KeyError(f"labels {ends}")
        return (*ends, Link.model_validate(record["link"]))
    except ValidationError as error:
        raise InvalidInputError(
            f"not a node or edge record: {validation_problems(error)}"
        ) from None
    except (KeyError, TypeError) as error:
        raise InvalidInputError(f"not a node or edge record: {error}") from None


EXPORT_FORMAT = "graphmem-export"


EXPORT_VERSION = 2
"""The version export files are written in: 2 adds the tombstones of forgotten messages."""


READABLE_VERSIONS = (1, 2)
"""The versions `read_export` reads (a version 1 file has no tombstones)."""


def json_line(line: str, number: int) -> Any:
    """One line of JSON input, or InvalidInputError naming the line."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError) as error:
        raise InvalidInputError(f"line {number}: not JSON: {error}") from None


def export_records(owner: str, graph: OwnerGraph) -> Iterator[dict[str, Any]]:
    """The records of an export file: its header, then the graph's records."""
    header = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "owner": owner}
    return chain([header], graph.records())


def read_export(lines: Iterable[str]) -> tuple[str, OwnerGraph]:
    """The owner and the graph of an export file's lines, or InvalidInputError naming the line."""
    rows = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if not rows:
        raise InvalidInputError("nothing to import: the input is empty")
    header = json_line(rows[0][1], rows[0][0])
    if (
        not isinstance(header, dict)
        or header.get("format") != EXPORT_FORMAT
        or header.get("version") not in READABLE_VERSIONS
        or not isinstance(header.get("owner"), str)
    ):
        raise InvalidInputError(
            f"line 1: not a {EXPORT_FORMAT} header of version 1 or 2 with an owner"
        )
    items = []
    for number, line in rows[1:]:
        record = json_line(line, number)
        try:
            items.append(parse_record(record))
        except InvalidInputError as error:
            raise InvalidInputError(f"line {number}: {error}") from None
    return header["owner"], OwnerGraph.of(items)
