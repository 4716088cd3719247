"""The embedded store's appliers: how each change in its journal applies to its indexed graph.

Every write of graphmem.store.networkx is a change, a JSON-ready dict named by its "op":
journalled, then applied here; and applied here again when the journal is replayed, so
applying a change twice changes nothing more. Ops that older stores wrote stay readable.
"""

from collections.abc import Callable
from typing import Any

from graphmem.contract import OwnerGraph, tombstone_hash, tombstone_of
from graphmem.errors import StoreError
from graphmem.model import NODE_LABELS, Event, Impression, Link, LinkType, Memory, Turn
from graphmem.store.changes import SummaryChange
from graphmem.store.networkx_graph import IndexedGraph


def apply(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """Apply one journalled change to the graph; applying it twice changes nothing more."""
    applier = APPLIERS.get(change["op"])
    if applier is None:
        raise StoreError(f"unknown change {change['op']!r} in the journal")
    applier(graph, change)


def _apply_save_turns(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """The tombstones of readmitted turns gone, then new turns, in order.

    Entries written before tombstones have neither `owner` nor `readmitted`.
    """
    for tombstone in change.get("readmitted", []):
        graph.remove_tombstone(change["owner"], tombstone)
    for data in change["turns"]:
        graph.add_node(Turn.model_validate(data))


def _apply_save_derivations(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """What turns gave, in order: as `_apply_save_memories` for each."""
    for derivation in change["derivations"]:
        _apply_save_memories(graph, {"owner": change["owner"], **derivation})


def _apply_save_turn(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """A new turn (a journal entry written before `save_turns` existed)."""
    graph.add_node(Turn.model_validate(change["turn"]))


def _apply_save_memories(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """A turn's memories, their edges and impressions; the turn's pending mark cleared."""
    owner, turn_id = change["owner"], change["turn_id"]
    _clear_pending(graph, owner, turn_id)
    memories = [Memory.model_validate(data) for data in change["memories"]]
    for memory in memories:
        _add_memory_from(graph, owner, turn_id, memory)
    _add_memory_links(graph, owner, change.get("links", []))
    for item in change.get("impressions", []):
        _add_impression(graph, owner, item, [memory.id for memory in memories])


def _apply_load(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """A bulk-loaded graph: tombstones, turns by position (their tombstones gone), the rest."""
    owner = change["owner"]
    loaded = OwnerGraph.from_records(change["records"])
    turns = [node for node in loaded.nodes if isinstance(node, Turn)]
    for tombstone in loaded.tombstones:
        graph.add_tombstone(tombstone)
    for turn in turns:
        graph.remove_tombstone(owner, tombstone_hash(turn.id))
    for turn in sorted(turns, key=lambda turn: (turn.position is None, turn.position or 0)):
        graph.add_node(turn)
    for node in loaded.nodes:
        if not isinstance(node, Turn):
            graph.add_node(node)
    for source_label, target_label, link in loaded.links:
        ends = [
            graph.node(owner, source_label, link.source),
            graph.node(owner, target_label, link.target),
        ]
        if None not in ends:
            graph.add_link(owner, source_label, target_label, link)


def _apply_forget(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """Every node and tombstone of one owner gone, with its edges and the indexes naming it."""
    graph.forget(change["owner"])


def _apply_forget_turn(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """A forgotten turn: it and the nodes derived only from it gone, the rest re-derived.

    The turn's id leaves its tombstone.
    """
    owner = change["owner"]
    graph.remove_turn(owner, change["turn"])
    graph.add_tombstone(tombstone_of(owner, change["turn"]))
    for label, node_id in change["deleted"]:
        graph.remove_node(owner, label, node_id)
    for item in change["replaced"]:
        node = NODE_LABELS[item["label"]].model_validate(item["node"])
        if isinstance(node, Memory):
            graph.reindex_terms(node)
        graph.replace(node)
    for data in change["added"]:
        graph.add_node(Memory.model_validate(data))
    for source_label, target_label, data in change["unlinked"]:
        graph.remove_link(owner, source_label, target_label, Link.model_validate(data))
    for source_label, target_label, data in change["linked"]:
        link = Link.model_validate(data)
        ends = [
            graph.node(owner, source_label, link.source),
            graph.node(owner, target_label, link.target),
        ]
        if None not in ends:
            graph.add_link(owner, source_label, target_label, link)


def _apply_save_knowledge(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """Knowledge memories and their edges."""
    for data in change["memories"]:
        graph.add_node(Memory.model_validate(data))
    _add_memory_links(graph, change["owner"], change["links"])


def _apply_link_memories(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """Edges between memories."""
    _add_memory_links(graph, change["owner"], change["links"])


def _apply_put_nodes(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """New versions of stored nodes."""
    for item in change["nodes"]:
        graph.replace(NODE_LABELS[item["label"]].model_validate(item["node"]))


def _apply_settle_facts(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """Consolidated facts: new versions of the memories they moved, and their edges."""
    _apply_put_nodes(graph, change)
    _add_memory_links(graph, change["owner"], change["links"])


def _apply_save_summaries(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """Store each summary FROM its turns, clear their marks, create or update its events."""
    owner = change["owner"]
    for data in change["changes"]:
        _apply_summary_change(graph, owner, SummaryChange.model_validate(data))


def _apply_save_summary(graph: IndexedGraph, change: dict[str, Any]) -> None:
    """Replay a journal entry of one summary, as written before summaries were batched."""
    fields = ("summary", "turns", "events")
    summary = SummaryChange.model_validate({name: change[name] for name in fields})
    _apply_summary_change(graph, change["owner"], summary)


APPLIERS: dict[str, Callable[[IndexedGraph, dict[str, Any]], None]] = {
    "save_turns": _apply_save_turns,
    "save_derivations": _apply_save_derivations,
    "save_turn": _apply_save_turn,
    "save_memories": _apply_save_memories,
    "load": _apply_load,
    "forget": _apply_forget,
    "forget_turn": _apply_forget_turn,
    "save_knowledge": _apply_save_knowledge,
    "save_summaries": _apply_save_summaries,
    "save_summary": _apply_save_summary,
    "link_memories": _apply_link_memories,
    "put_nodes": _apply_put_nodes,
    "settle_facts": _apply_settle_facts,
    "settle_fact": _apply_settle_facts,  # one fact's entry, as written before
}
"""The applier of each op a journal may hold."""


def _apply_summary_change(graph: IndexedGraph, owner: str, change: SummaryChange) -> None:
    """Store a summary FROM its turns (marks cleared), its events, its facts FROM theirs."""
    summary = change.summary
    graph.add_node(summary)
    for turn_id in change.turns:
        turn = graph.node(owner, "Turn", turn_id)
        if isinstance(turn, Turn):
            _add_memory_from(graph, owner, turn_id, summary)
            graph.replace(turn.model_copy(update={"awaiting_summary": False}))
    for event_change in change.events:
        event = event_change.event
        stored = graph.node(owner, "Event", event.id)
        if isinstance(stored, Event):
            kept = ("attention", "tier", "first_at", "importance", "created_at")
            graph.replace(event.model_copy(update={name: getattr(stored, name) for name in kept}))
        else:
            graph.add_node(event)
        previous = event_change.previous
        if previous is not None and graph.node(owner, "Event", previous) is not None:
            link = Link(type=LinkType.NEXT, source=previous, target=event.id)
            graph.add_link(owner, "Event", "Event", link)
        for member in event_change.members:
            if graph.node(owner, "Memory", member) is not None:
                link = Link(type=LinkType.PART_OF, source=member, target=event.id)
                graph.add_link(owner, "Memory", "Event", link)
    for item in change.facts:
        if graph.node(owner, "Turn", item.turn) is not None:
            _add_memory_from(graph, owner, item.turn, item.fact)


def _add_impression(graph: IndexedGraph, owner: str, item: dict[str, Any], cues: list[str]) -> None:
    """Store an accumulated impression INFERRED_FROM its cues, and its conjecture if made.

    Each INFERRED_FROM edge keeps the belief the cue gave (journal entries written before
    cues kept theirs have none).
    """
    impression = Impression.model_validate(item["impression"])
    if graph.node(owner, "Impression", impression.id) is None:
        graph.add_node(impression)
    else:
        graph.replace(impression)
    for cue in cues:
        link = Link(
            type=LinkType.INFERRED_FROM,
            source=impression.id,
            target=cue,
            belief=item.get("cue_belief"),
        )
        graph.add_link(owner, "Impression", "Memory", link)
    if item["conjecture"] is not None:
        conjecture = Memory.model_validate(item["conjecture"])
        graph.add_node(conjecture)
        link = Link(type=LinkType.INFERRED_FROM, source=conjecture.id, target=impression.id)
        graph.add_link(owner, "Memory", "Impression", link)


def _add_memory_from(graph: IndexedGraph, owner: str, turn_id: str, memory: Memory) -> None:
    """Add a memory (unless stored) and its FROM edge to a stored turn."""
    graph.add_node(memory)
    link = Link(type=LinkType.FROM, source=memory.id, target=turn_id)
    graph.add_link(owner, "Memory", "Turn", link)


def _add_memory_links(graph: IndexedGraph, owner: str, links: list[dict[str, Any]]) -> None:
    """Add journalled edges between memories, skipping those whose ends are not stored."""
    for data in links:
        link = Link.model_validate(data)
        ends = [graph.node(owner, "Memory", end) for end in (link.source, link.target)]
        if None not in ends:
            graph.add_link(owner, "Memory", "Memory", link)


def _clear_pending(graph: IndexedGraph, owner: str, turn_id: str) -> None:
    """Mark a turn's memories as derived."""
    turn = graph.at((owner, "Turn", turn_id))
    if turn.pending:
        graph.replace(turn.model_copy(update={"pending": False}))
