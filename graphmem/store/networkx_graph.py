"""The embedded store's graph: every owner's nodes and edges in one networkx multigraph, indexed.

Beside the graph, kept in step by every method that changes it, the indexes the store reads:
ids by owner and label, the marks of work to do, content terms, sessions, causes, embeddings as
arrays, and each owner's searchable memories as the rows of one matrix (SearchRows), so that a
search by embedding costs one product, not a walk over the owner's memories. networkx is
imported in this module only: the store reads and changes its graph through IndexedGraph, and
results build theirs with `multigraph`. Not thread-safe: the store's lock guards every use.
"""

from collections.abc import Iterable, Iterator
from typing import Any, TypeAlias

import networkx as nx
import numpy as np

from graphmem.contract import SEARCHED_KINDS, Recall, Tombstone
from graphmem.mechanisms.attention import NodeRef
from graphmem.model import NODE_LABELS, Link, LinkType, Memory, Node, Tier, Turn
from graphmem.similarity import inner_products
from graphmem.terms import terms as content_terms

NodeKey = tuple[str, str, str]
"""A node of the graph is keyed by (owner, label, id); a forgotten message's tombstone, a node
without edges outside NODE_LABELS, by (owner, "Tombstone", hash)."""
MemoryGraph: TypeAlias = "nx.MultiDiGraph[str]"
"""The graph `multigraph` returns, keyed by string."""
FloatArray: TypeAlias = "np.ndarray[Any, np.dtype[np.float64]]"
"""An embedding as an array, or a matrix of similarities."""

WAKE_EDGES = (LinkType.RELATED.value, LinkType.CAUSES.value, LinkType.PART_OF.value)
"""Regional wake-up spreads along these edges, in both directions."""


FIRST_ROWS = 64
"""The rows an owner's SearchRows holds at first; it doubles them when they are full."""
NO_ROW = 127
"""The tier a row without a memory (one removed) is marked with: deeper than any search reads."""


class SearchRows:
    """An owner's searchable memories as the rows of one matrix, in the order they came.

    A memory's row holds its embedding, and beside it its norm and its tier, kept in step with
    the graph; a memory removed leaves its row marked NO_ROW. A search by embedding is one
    product with the rows, then the tiers it reads: a walk over the owner's memories made every
    turn's labelling cost grow with the owner's memory.
    """

    def __init__(self) -> None:
        self.ids: list[str] = []
        """The memory of each row (a removed one's id stays, its row marked NO_ROW)."""
        self._places: dict[str, int] = {}
        self._matrix: FloatArray = np.zeros((0, 0))
        self._norms: FloatArray = np.zeros(0)
        self._tiers = np.zeros(0, dtype=np.int8)

    def put(self, memory: Memory) -> None:
        """Keep a memory's embedding and tier in its row (a new row for a new memory)."""
        place = self._places.get(memory.id)
        if place is None:
            place = len(self.ids)
            self._grow(place + 1, len(memory.embedding or ()))
            self.ids.append(memory.id)
            self._places[memory.id] = place
        vector = np.asarray(memory.embedding, dtype=np.float64)
        self._matrix[place] = vector
        self._norms[place] = np.linalg.norm(vector)
        self._tiers[place] = memory.tier

    def drop(self, memory_id: str) -> None:
        """Take a memory out of the searches: its row is marked NO_ROW."""
        place = self._places.pop(memory_id, None)
        if place is not None:
            self._tiers[place] = NO_ROW

    def within(self, shallowest: Tier, deepest: Tier) -> list[int]:
        """The rows of the memories in tiers `shallowest` to `deepest`, in order."""
        tiers = self._tiers[: len(self.ids)]
        rows: list[int] = np.flatnonzero((tiers >= shallowest) & (tiers <= deepest)).tolist()
        return rows

    def similarities(self, rows: list[int], embeddings: Iterable[Iterable[float]]) -> FloatArray:
        """For each embedding (a row), the cosine similarity of each given row's memory to it."""
        queries = np.array(embeddings, dtype=np.float64)
        products = inner_products(queries, self._matrix[: len(self.ids)])[:, rows]
        norms = np.outer(np.linalg.norm(queries, axis=1), self._norms[rows])
        found: FloatArray = products / np.where(norms == 0.0, 1.0, norms)
        return found

    def _grow(self, rows: int, dimensions: int) -> None:
        """Make room for `rows` rows, doubling what is held."""
        if rows <= len(self._tiers):
            return
        size = max(FIRST_ROWS, 2 * len(self._tiers))
        held = len(self.ids)
        matrix = np.zeros((size, self._matrix.shape[1] if held else dimensions))
        norms = np.zeros(size)
        tiers = np.full(size, NO_ROW, dtype=np.int8)
        if held:
            matrix[:held] = self._matrix[:held]
            norms[:held] = self._norms[:held]
            tiers[:held] = self._tiers[:held]
        self._matrix, self._norms, self._tiers = matrix, norms, tiers


class IndexedGraph:
    """Every owner's nodes, tombstones and edges, keyed by NodeKey, with indexes kept in step."""

    def __init__(self) -> None:
        self._graph: nx.MultiDiGraph[NodeKey] = nx.MultiDiGraph()
        self.ids: dict[tuple[str, str], dict[str, None]] = {}
        """Per (owner, label), the ids of its nodes (of "Tombstone": the hashes), as they came."""
        self.pending: dict[str, dict[str, None]] = {}
        self.awaiting_summary: dict[str, dict[str, None]] = {}
        self.awaiting_consolidation: dict[str, dict[str, None]] = {}
        """Per owner, the ids of the turns and memories that carry each mark."""
        self.mentions: dict[str, dict[str, set[str]]] = {}
        """Per owner, the ids of the memories whose text holds each content term."""
        self.causes: dict[str, dict[tuple[str, str], None]] = {}
        """Per owner, the (cause id, effect id) of its CAUSES edges, in the order they came."""
        self.sessions: dict[tuple[str, str], list[str]] = {}
        """Per (owner, session), the ids of its turns in the order they were stored."""
        self.vectors: dict[tuple[str, str], tuple[Memory, FloatArray, Memory]] = {}
        """Per (owner, memory id): the version last searched, its embedding as an array, and
        that version without its embedding (what a search returns)."""
        self.rows: dict[str, SearchRows] = {}
        """Per owner, its searchable memories (of SEARCHED_KINDS, with an embedding) as rows."""

    # -- reading -------------------------------------------------------------------------------

    def __contains__(self, key: object) -> bool:
        """Whether a node or tombstone with this key is stored."""
        return key in self._graph

    def at(self, key: NodeKey) -> Any:
        """The node or tombstone stored with this key (KeyError if none is)."""
        return self._graph.nodes[key]["node"]

    def node(self, owner: str, label: str, node_id: str) -> Node | None:
        """The node with this key, or None."""
        data = self._graph.nodes.get((owner, label, node_id))
        return None if data is None else data["node"]

    def nodes(self, owner: str, label: str) -> Iterator[Node]:
        """The owner's nodes of one label."""
        for node_id in self.ids.get((owner, label), {}):
            yield self._graph.nodes[(owner, label, node_id)]["node"]

    def tombstone(self, owner: str, tombstone: str) -> Tombstone | None:
        """The owner's tombstone of this hash, or None."""
        data = self._graph.nodes.get((owner, "Tombstone", tombstone))
        return None if data is None else data["node"]

    def oldest_first(self, owner: str, label: str, ids: Iterable[str], limit: int) -> list[Any]:
        """The owner's nodes of one label with these ids, oldest first (ties by id), limited."""
        nodes = [self._graph.nodes[(owner, label, node_id)]["node"] for node_id in ids]
        return sorted(nodes, key=lambda node: (node.created_at, node.id))[:limit]

    def incoming(self, key: NodeKey) -> Iterable[tuple[NodeKey, NodeKey, str, Link]]:
        """The edges into a node, as (source, target, type, link)."""
        return self._graph.in_edges(key, keys=True, data="link")

    def outgoing(self, key: NodeKey) -> Iterable[tuple[NodeKey, NodeKey, str, Link]]:
        """The edges out of a node, as (source, target, type, link)."""
        return self._graph.out_edges(key, keys=True, data="link")

    def edges(self, owner: str) -> Iterator[tuple[NodeKey, NodeKey, str, Link]]:
        """The owner's edges (source, target, type, link): those leaving its nodes.

        An edge never joins two owners' nodes, so this reads the owner's edges only, not every
        owner's.
        """
        for label in NODE_LABELS:
            for node_id in self.ids.get((owner, label), {}):
                yield from self._graph.out_edges((owner, label, node_id), keys=True, data="link")

    def link(self, source: NodeKey, target: NodeKey, edge_type: str) -> Link:
        """The edge of this type from one node to another (KeyError if there is none)."""
        link: Link = self._graph.edges[source, target, edge_type]["link"]
        return link

    def degree(self, key: NodeKey) -> int:
        """How many edges a node has, in and out."""
        degree: int = self._graph.degree(key)
        return degree

    def memories_from(self, owner: str, turn_id: str) -> Iterator[Memory]:
        """The memories that came from a turn."""
        for source, _target, edge_type in self._graph.in_edges((owner, "Turn", turn_id), keys=True):
            if edge_type == LinkType.FROM.value:
                yield self._graph.nodes[source]["node"]

    def turns_of(self, memory: Memory) -> list[Turn]:
        """The turns a memory came from, oldest first."""
        key: NodeKey = (memory.owner, "Memory", memory.id)
        turns = [
            self._graph.nodes[target]["node"]
            for _source, target, edge_type in self._graph.out_edges(key, keys=True)
            if edge_type == LinkType.FROM.value
        ]
        return sorted(turns, key=lambda turn: (turn.created_at, turn.id))

    def wake_neighbours(self, owner: str, node: NodeRef) -> list[tuple[NodeRef, float]]:
        """Memories and events next to a node along wake-up edges, one entry per edge."""
        node_id, label = node
        key: NodeKey = (owner, label, node_id)
        found = []
        for source, target, edge_type, link in [*self.outgoing(key), *self.incoming(key)]:
            other = target if source == key else source
            if edge_type in WAKE_EDGES and other[1] in ("Memory", "Event"):
                found.append(((other[2], other[1]), link.strength))
        return found

    def searched(self, memory: Memory) -> tuple[FloatArray, Memory]:
        """A stored memory's embedding as an array and the memory without it, kept per version."""
        key = (memory.owner, memory.id)
        kept = self.vectors.get(key)
        if kept is None or kept[0] is not memory:
            kept = (
                memory,
                np.asarray(memory.embedding, dtype=np.float64),
                memory.model_copy(update={"embedding": None}),
            )
            self.vectors[key] = kept
        return kept[1], kept[2]

    def size(self) -> int:
        """How many nodes and tombstones are stored, of every owner."""
        return len(self._graph)

    def every_node(self) -> Iterator[tuple[str, Node | Tombstone]]:
        """Every node and tombstone of every owner, with its label."""
        for (_owner, label, _id), attributes in self._graph.nodes(data=True):
            yield label, attributes["node"]

    def every_link(self) -> Iterator[tuple[str, str, str, Link]]:
        """Every edge of every owner, as (owner, source label, target label, link)."""
        for source, target, attributes in self._graph.edges(data=True):
            yield source[0], source[1], target[1], attributes["link"]

    # -- changing ------------------------------------------------------------------------------

    def add_node(self, node: Node) -> None:
        """Add a node unless one with its key exists (create-once, like MERGE ON CREATE)."""
        label = type(node).__name__
        key: NodeKey = (node.owner, label, node.id)
        if key not in self._graph:
            if isinstance(node, Turn):
                node = self._placed(node)
            self._graph.add_node(key, node=node)
            self.ids.setdefault((node.owner, label), {})[node.id] = None
            if isinstance(node, Turn) and node.pending:
                self.pending.setdefault(node.owner, {})[node.id] = None
            if isinstance(node, Turn) and node.awaiting_summary:
                self.awaiting_summary.setdefault(node.owner, {})[node.id] = None
            if isinstance(node, Memory) and node.awaiting_consolidation:
                self.awaiting_consolidation.setdefault(node.owner, {})[node.id] = None
            if isinstance(node, Memory):
                self._mention(node)
                self._search_row(node)

    def replace(self, node: Node) -> None:
        """Put a new version of a stored node in place, keeping the mark indexes in step."""
        label = type(node).__name__
        self._graph.nodes[(node.owner, label, node.id)]["node"] = node
        if isinstance(node, Turn) and not node.pending:
            self.pending.get(node.owner, {}).pop(node.id, None)
        if isinstance(node, Turn) and not node.awaiting_summary:
            self.awaiting_summary.get(node.owner, {}).pop(node.id, None)
        if isinstance(node, Memory) and not node.awaiting_consolidation:
            self.awaiting_consolidation.get(node.owner, {}).pop(node.id, None)
        if isinstance(node, Memory):
            self._search_row(node)

    def reindex_terms(self, memory: Memory) -> None:
        """Index a new version of a stored memory under its text's terms, not the stored one's."""
        self._unmention(memory.owner, memory.id)
        self._mention(memory)

    def remove_node(self, owner: str, label: str, node_id: str) -> None:
        """Delete a node (not a turn) with its edges and every index entry that names it."""
        key: NodeKey = (owner, label, node_id)
        if key not in self._graph:
            return
        if label == "Memory":
            self._unmention(owner, node_id)
            self.vectors.pop((owner, node_id), None)
            if owner in self.rows:
                self.rows[owner].drop(node_id)
            self.awaiting_consolidation.get(owner, {}).pop(node_id, None)
            causes = self.causes.get(owner, {})
            for pair in [pair for pair in causes if node_id in pair]:
                del causes[pair]
        self._graph.remove_node(key)
        self.ids.get((owner, label), {}).pop(node_id, None)

    def remove_turn(self, owner: str, turn_id: str) -> None:
        """Delete a turn: the later turns of its session move up one, NEXT joins its neighbours."""
        turn = self.node(owner, "Turn", turn_id)
        if not isinstance(turn, Turn):
            return
        session = self.sessions[(owner, turn.session)]
        place = session.index(turn_id)
        self._graph.remove_node((owner, "Turn", turn_id))
        self.ids.get((owner, "Turn"), {}).pop(turn_id, None)
        self.pending.get(owner, {}).pop(turn_id, None)
        self.awaiting_summary.get(owner, {}).pop(turn_id, None)
        del session[place]
        for position in range(place, len(session)):
            later = self._graph.nodes[(owner, "Turn", session[position])]["node"]
            self.replace(later.model_copy(update={"position": position}))
        if 0 < place < len(session):
            link = Link(type=LinkType.NEXT, source=session[place - 1], target=session[place])
            self.add_link(owner, "Turn", "Turn", link)
        if not session:
            del self.sessions[(owner, turn.session)]

    def forget(self, owner: str) -> None:
        """Delete every node and tombstone of an owner, with its edges and the indexes naming it."""
        for label in NODE_LABELS:
            for node_id in self.ids.pop((owner, label), {}):
                self._graph.remove_node((owner, label, node_id))
                self.vectors.pop((owner, node_id), None)
        for tombstone in self.ids.pop((owner, "Tombstone"), {}):
            self._graph.remove_node((owner, "Tombstone", tombstone))
        for marks in (
            self.pending,
            self.awaiting_summary,
            self.awaiting_consolidation,
            self.mentions,
            self.causes,
            self.rows,
        ):
            marks.pop(owner, None)
        for key in [key for key in self.sessions if key[0] == owner]:
            del self.sessions[key]

    def add_link(self, owner: str, source_label: str, target_label: str, link: Link) -> None:
        """Add an edge, at most one per type between two nodes."""
        source: NodeKey = (owner, source_label, link.source)
        target: NodeKey = (owner, target_label, link.target)
        self._graph.add_edge(source, target, key=link.type.value, link=link)
        if link.type is LinkType.CAUSES:
            self.causes.setdefault(owner, {})[(link.source, link.target)] = None

    def remove_link(self, owner: str, source_label: str, target_label: str, link: Link) -> None:
        """Delete the edge of the link's type between its ends, if there is one."""
        source: NodeKey = (owner, source_label, link.source)
        target: NodeKey = (owner, target_label, link.target)
        if self._graph.has_edge(source, target, key=link.type.value):
            self._graph.remove_edge(source, target, key=link.type.value)

    def add_tombstone(self, tombstone: Tombstone) -> None:
        """Add a tombstone unless the owner has it."""
        key: NodeKey = (tombstone.owner, "Tombstone", tombstone.hash)
        if key not in self._graph:
            self._graph.add_node(key, node=tombstone)
            self.ids.setdefault((tombstone.owner, "Tombstone"), {})[tombstone.hash] = None

    def remove_tombstone(self, owner: str, tombstone: str) -> None:
        """Delete the owner's tombstone of this hash, if it has one."""
        key: NodeKey = (owner, "Tombstone", tombstone)
        if key in self._graph:
            self._graph.remove_node(key)
            self.ids.get((owner, "Tombstone"), {}).pop(tombstone, None)

    def _placed(self, turn: Turn) -> Turn:
        """A new turn at the end of its session, linked NEXT from the turn before it."""
        session = self.sessions.setdefault((turn.owner, turn.session), [])
        if session:
            link = Link(type=LinkType.NEXT, source=session[-1], target=turn.id)
            self.add_link(turn.owner, "Turn", "Turn", link)
        session.append(turn.id)
        return turn.model_copy(update={"position": len(session) - 1})

    def _search_row(self, memory: Memory) -> None:
        """Keep a memory's row in its owner's SearchRows if searches read it, else none."""
        rows = self.rows.setdefault(memory.owner, SearchRows())
        if memory.kind in SEARCHED_KINDS and memory.embedding:
            rows.put(memory)
        else:
            rows.drop(memory.id)

    def _mention(self, memory: Memory) -> None:
        """Index a memory under the content terms of its text."""
        index = self.mentions.setdefault(memory.owner, {})
        for term in content_terms(memory.text):
            index.setdefault(term, set()).add(memory.id)

    def _unmention(self, owner: str, memory_id: str) -> None:
        """Take a stored memory out of the content-term index."""
        memory = self.node(owner, "Memory", memory_id)
        index = self.mentions.get(owner, {})
        if isinstance(memory, Memory):
            for term in content_terms(memory.text):
                index.get(term, set()).discard(memory_id)


def multigraph(
    nodes: Iterable[tuple[str, dict[str, Any]]],
    edges: Iterable[tuple[str, str, str, dict[str, Any]]],
) -> MemoryGraph:
    """A networkx multigraph of (key, attributes) nodes and (source, target, type, attributes)."""
    graph: MemoryGraph = nx.MultiDiGraph()
    graph.add_nodes_from(nodes)
    for source, target, edge_type, attributes in edges:
        graph.add_edge(source, target, key=edge_type, type=edge_type, **attributes)
    return graph


def to_networkx(recall: Recall) -> MemoryGraph:
    """A recall's subgraph as a networkx multigraph: memories and turns, FROM and the links."""
    nodes: list[tuple[str, dict[str, Any]]] = []
    edges: list[tuple[str, str, str, dict[str, Any]]] = []
    for item in recall.memories:
        key = f"Memory:{item.memory.id}"
        attributes = item.memory.model_dump(exclude={"embedding", "attention"})
        nodes.append((key, {**attributes, "label": "Memory", "score": item.score}))
        for turn in item.turns:
            nodes.append((f"Turn:{turn.id}", {**turn.model_dump(), "label": "Turn"}))
            edges.append((key, f"Turn:{turn.id}", LinkType.FROM.value, {}))
    for link in recall.links:
        extra = link.model_dump(include={"weight", "sufficiency"}, exclude_none=True)
        edges.append((f"Memory:{link.source}", f"Memory:{link.target}", link.type.value, extra))
    return multigraph(nodes, edges)
