"""What a reader browses in the embedded store: the timeline, a neighbourhood, events, impressions.

Each reads the indexed graph as it is (the store holds its lock around the call); memories come
without their embeddings.
"""

from datetime import datetime

from graphmem.contract import OwnerGraph, TimelineWanted
from graphmem.model import Event, Impression, LinkType, Memory, Turn
from graphmem.store.networkx_graph import IndexedGraph


def _unembedded(memory: Memory) -> Memory:
    """The memory without its embedding."""
    return memory.model_copy(update={"embedding": None})


def _turns_admitted(turns: list[Turn], wanted: TimelineWanted) -> bool:
    """Whether a memory of these turns meets the timeline's session and speaker conditions."""
    return (wanted.session is None or any(turn.session == wanted.session for turn in turns)) and (
        wanted.speaker is None or any(turn.speaker == wanted.speaker for turn in turns)
    )


def _memory_admitted(
    memory: Memory, wanted: TimelineWanted, cursor: tuple[datetime, str] | None, sought: str | None
) -> bool:
    """Whether a memory meets the timeline's conditions on itself (not on its turns).

    `cursor` is `wanted.cursor`, `sought` its `contains` in lower case, each read once a page.
    """
    return (
        (cursor is None or (memory.created_at, memory.id) < cursor)
        and (wanted.kinds is None or memory.kind in wanted.kinds)
        and (wanted.tiers is None or memory.tier in wanted.tiers)
        and (wanted.since is None or memory.created_at >= wanted.since)
        and (wanted.until is None or memory.created_at < wanted.until)
        and (sought is None or sought in memory.text.lower())
    )


def timeline(
    graph: IndexedGraph, owner: str, wanted: TimelineWanted, limit: int
) -> list[tuple[Memory, list[Turn]]]:
    """Up to `limit` of the owner's memories `wanted` admits, newest first, with their turns."""
    candidates = sorted(
        (memory for memory in graph.nodes(owner, "Memory") if isinstance(memory, Memory)),
        key=lambda memory: (memory.created_at, memory.id),
        reverse=True,
    )
    cursor, sought = wanted.cursor, None if wanted.contains is None else wanted.contains.lower()
    page: list[tuple[Memory, list[Turn]]] = []
    for memory in candidates:
        if len(page) == limit:
            break
        if not _memory_admitted(memory, wanted, cursor, sought):
            continue
        turns = graph.turns_of(memory)
        if _turns_admitted(turns, wanted):
            page.append((_unembedded(memory), turns))
    return page


def neighbourhood(graph: IndexedGraph, owner: str, label: str, node_id: str) -> OwnerGraph:
    """The node, every node one edge away and those edges (empty if there is no such node)."""
    key = (owner, label, node_id)
    if key not in graph:
        return OwnerGraph(nodes=[], links=[])
    each_once = {edge[:3]: edge for edge in [*graph.outgoing(key), *graph.incoming(key)]}
    edges = sorted(
        each_once.values(), key=lambda edge: (edge[3].type.value, edge[3].source, edge[3].target)
    )
    neighbours = sorted({other for edge in edges for other in edge[:2]} - {key})
    nodes = [graph.at(other) for other in [key, *neighbours]]
    return OwnerGraph(
        nodes=[_unembedded(node) if isinstance(node, Memory) else node for node in nodes],
        links=[(source[1], target[1], link) for source, target, _type, link in edges],
    )


def events(graph: IndexedGraph, owner: str) -> list[tuple[Event, int]]:
    """The owner's events (embeddings empty), latest update first, with their memories counted."""
    found = []
    for event in graph.nodes(owner, "Event"):
        assert isinstance(event, Event)
        incoming = graph.incoming((owner, "Event", event.id))
        members = sum(1 for edge in incoming if edge[2] == LinkType.PART_OF.value)
        found.append((event.model_copy(update={"embedding": []}), members))
    return sorted(found, key=lambda item: (-item[0].last_at.timestamp(), item[0].id))


def impressions(graph: IndexedGraph, owner: str) -> list[tuple[Impression, int, int]]:
    """The owner's impressions (embeddings empty) by id, with their cues and conjectures."""
    found = []
    for impression in sorted(graph.nodes(owner, "Impression"), key=lambda node: node.id):
        assert isinstance(impression, Impression)
        key = (owner, "Impression", impression.id)
        inferred = LinkType.INFERRED_FROM.value
        cues = sum(1 for edge in graph.outgoing(key) if edge[2] == inferred)
        conjectures = sum(1 for edge in graph.incoming(key) if edge[2] == inferred)
        found.append((impression.model_copy(update={"embedding": []}), cues, conjectures))
    return found
