"""An owner's whole graph in the embedded store, read at once: exported, counted, checked.

Each reads the indexed graph as it is (the store holds its lock around the call).
"""

from collections import Counter

from graphmem.contract import GraphCounts, HealthCounts, OwnerGraph
from graphmem.model import NODE_LABELS, LinkType, Memory, MemoryKind, Tier
from graphmem.store.networkx_graph import IndexedGraph
from graphmem.store.rules import belief_bin


def owner_graph(graph: IndexedGraph, owner: str) -> OwnerGraph:
    """Every node, edge and tombstone of the owner (by label and id, type and ends, hash)."""
    nodes = [
        node
        for label in sorted(NODE_LABELS)
        for node in sorted(graph.nodes(owner, label), key=lambda node: node.id)
    ]
    links = sorted(
        ((source[1], target[1], link) for source, target, _type, link in graph.edges(owner)),
        key=lambda item: (
            item[2].type.value,
            item[2].source,
            item[2].target,
            item[0],
            item[1],
        ),
    )
    tombstones = [
        graph.at((owner, "Tombstone", tombstone))
        for tombstone in sorted(graph.ids.get((owner, "Tombstone"), {}))
    ]
    return OwnerGraph(nodes=nodes, links=links, tombstones=tombstones)


def graph_counts(graph: IndexedGraph, owner: str) -> GraphCounts:
    """The owner's nodes per label, edges per type, memories per tier and belief, tombstones."""
    nodes = {label: len(graph.ids.get((owner, label), {})) for label in NODE_LABELS}
    nodes["Session"] = sum(1 for session_owner, _key in graph.sessions if session_owner == owner)
    links: Counter[str] = Counter(
        edge_type for _source, _target, edge_type, _link in graph.edges(owner)
    )
    memories = [node for node in graph.nodes(owner, "Memory") if isinstance(node, Memory)]
    tiers = Counter(int(memory.tier) for memory in memories)
    return GraphCounts(
        nodes=nodes,
        links=dict(links),
        tiers={int(tier): tiers[int(tier)] for tier in Tier},
        beliefs=dict(Counter(belief_bin(memory.belief) for memory in memories)),
        tombstones=len(graph.ids.get((owner, "Tombstone"), {})),
    )


def health_counts(graph: IndexedGraph, owner: str) -> HealthCounts:
    """The owner's memories per kind, work queues, open contradictions and the like."""
    memories = [node for node in graph.nodes(owner, "Memory") if isinstance(node, Memory)]
    conjectured = [memory.created_at for memory in memories if memory.kind is MemoryKind.CONJECTURE]
    edges = [(source, target, edge_type) for source, target, edge_type, _link in graph.edges(owner)]
    merged = {source for source, _, kind in edges if kind == LinkType.MERGED_INTO.value}
    keys = [
        (owner, label, node_id)
        for label in NODE_LABELS
        for node_id in graph.ids.get((owner, label), {})
    ]
    return HealthCounts(
        kinds=dict(Counter(memory.kind.value for memory in memories)),
        pending_turns=len(graph.pending.get(owner, {})),
        awaiting_summary=len(graph.awaiting_summary.get(owner, {})),
        awaiting_consolidation=len(graph.awaiting_consolidation.get(owner, {})),
        open_contradictions=sum(
            1
            for source, target, edge_type in edges
            if edge_type == LinkType.CONTRADICTS.value
            and source not in merged
            and target not in merged
        ),
        superseded=sum(1 for memory in memories if memory.valid_until is not None),
        never_used=sum(1 for memory in memories if memory.accessed_at == memory.created_at),
        isolated=sum(1 for key in keys if graph.degree(key) == 0),
        first_conjecture_at=min(conjectured, default=None),
        last_conjecture_at=max(conjectured, default=None),
    )
