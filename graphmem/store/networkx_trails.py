"""What the embedded store's indexed graph says things rest on: provenance, profiles, causes.

A turn's provenance with the trails of what it gave, what an owner's profile is read from, and
the owner's causal rules. Each reads the graph as it is (the store holds its lock around the
call).
"""

from datetime import datetime

from graphmem.mechanisms.events import is_open
from graphmem.mechanisms.impressions import Cue
from graphmem.mechanisms.profile import (
    ConjecturedImpression,
    EventNews,
    ProfileSources,
    SlotFact,
)
from graphmem.model import Event, Impression, LinkType, Memory, MemoryKind, Turn
from graphmem.store.changes import Cause
from graphmem.store.findings import EventTrail, ImpressionTrail, Provenance, Sourced, UpdateTrail
from graphmem.store.networkx_graph import IndexedGraph, NodeKey


def provenance(graph: IndexedGraph, owner: str, turn: str) -> Provenance | None:
    """What was derived from one of the owner's turns (None if no such turn is stored)."""
    stored = graph.node(owner, "Turn", turn)
    if not isinstance(stored, Turn):
        return None
    memories = sorted(graph.memories_from(owner, turn), key=lambda memory: memory.id)
    keys = [(owner, "Memory", memory.id) for memory in memories]
    impressions = {
        source[2]
        for key in keys
        for source, _target, edge_type, _link in graph.incoming(key)
        if edge_type == LinkType.INFERRED_FROM.value and source[1] == "Impression"
    }
    events = {
        target[2]
        for key in keys
        for _source, target, edge_type, _link in graph.outgoing(key)
        if edge_type == LinkType.PART_OF.value
    }
    updated = {
        other[2]
        for key in keys
        for source, target, edge_type, _link in [*graph.outgoing(key), *graph.incoming(key)]
        if edge_type == LinkType.UPDATES.value
        for other in [target if source == key else source]
    } - {memory.id for memory in memories}
    return Provenance(
        turn=stored,
        memories=[Sourced(memory=memory, turns=graph.turns_of(memory)) for memory in memories],
        impressions=[_impression_trail(graph, owner, key) for key in sorted(impressions)],
        events=[_event_trail(graph, owner, key) for key in sorted(events)],
        updates=[_update_trail(graph, owner, key) for key in sorted(updated)],
    )


def profile_sources(graph: IndexedGraph, owner: str, at: datetime) -> ProfileSources:
    """What the owner's profile at `at` is read from (mechanisms.profile.ProfileSources)."""
    facts = [
        SlotFact(fact=memory, belief=_said_belief(graph, owner, memory))
        for memory in graph.nodes(owner, "Memory")
        if isinstance(memory, Memory) and memory.kind is MemoryKind.FACT and memory.created_at <= at
    ]
    return ProfileSources(
        facts=sorted(facts, key=lambda item: (item.fact.created_at, item.fact.id)),
        impressions=_conjectured(graph, owner, at),
        events=_open_events(graph, owner, at),
        causal_rules=len(graph.causes.get(owner, {})),
    )


def causal_rules(graph: IndexedGraph, owner: str) -> list[Cause]:
    """The owner's causal knowledge: every CAUSES edge, by cause and effect."""
    rules = []
    for cause, effect in graph.causes.get(owner, {}):
        link = graph.link(
            (owner, "Memory", cause), (owner, "Memory", effect), LinkType.CAUSES.value
        )
        rules.append(
            Cause(
                cause=graph.at((owner, "Memory", cause)).text,
                effect=graph.at((owner, "Memory", effect)).text,
                sufficiency=link.strength,
            )
        )
    return sorted(rules, key=lambda rule: (rule.cause, rule.effect))


def _conjectured(graph: IndexedGraph, owner: str, at: datetime) -> list[ConjecturedImpression]:
    """The owner's impressions with a conjecture made by `at`, by id, with what they rest on."""
    found = []
    for impression in graph.nodes(owner, "Impression"):
        assert isinstance(impression, Impression)
        key = (owner, "Impression", impression.id)
        conjectures = _linked_by(graph, key, LinkType.INFERRED_FROM, at, incoming=True)
        if conjectures:
            cues = _linked_by(graph, key, LinkType.INFERRED_FROM, at, incoming=False)
            rests_on = [memory.id for memory in [*conjectures, *cues]]
            found.append(ConjecturedImpression(impression=impression, rests_on=rests_on))
    return sorted(found, key=lambda item: item.impression.id)


def _open_events(graph: IndexedGraph, owner: str, at: datetime) -> list[EventNews]:
    """The owner's events begun by `at` and open then, by id, with their members by then."""
    found = []
    for event in graph.nodes(owner, "Event"):
        assert isinstance(event, Event)
        if event.first_at <= at and is_open(event, at):
            key = (owner, "Event", event.id)
            members = _linked_by(graph, key, LinkType.PART_OF, at, incoming=True)
            found.append(EventNews(event=event, members=[memory.id for memory in members]))
    return sorted(found, key=lambda item: item.event.id)


def _linked_by(
    graph: IndexedGraph, key: NodeKey, link: LinkType, at: datetime, *, incoming: bool
) -> list[Memory]:
    """The memories made by `at` joined to a node by edges of one type, oldest first.

    Those whose edge comes into the node when `incoming`, else those it goes out to; ties
    by id.
    """
    edges = graph.incoming(key) if incoming else graph.outgoing(key)
    ends = [source if incoming else target for source, target, kind, _link in edges if kind == link]
    memories = [graph.at(end) for end in ends]
    return sorted(
        (memory for memory in memories if memory.created_at <= at),
        key=lambda memory: (memory.created_at, memory.id),
    )


def _said_belief(graph: IndexedGraph, owner: str, fact: Memory) -> float | None:
    """The belief of the observation of the turn a fact was read in (None without one)."""
    for turn in graph.turns_of(fact):
        for source, _target, kind, _link in graph.incoming((owner, "Turn", turn.id)):
            memory = graph.at(source)
            if kind == LinkType.FROM.value and memory.kind is MemoryKind.OBSERVATION:
                belief: float | None = memory.belief
                return belief
    return None


def _impression_trail(graph: IndexedGraph, owner: str, impression_id: str) -> ImpressionTrail:
    """An impression with its cues (each with its turn, time and belief) and conjectures."""
    key: NodeKey = (owner, "Impression", impression_id)
    impression = graph.at(key)
    cues = []
    for _source, target, edge_type, link in graph.outgoing(key):
        if edge_type == LinkType.INFERRED_FROM.value:
            cue = graph.at(target)
            turns = graph.turns_of(cue)
            cues.append(
                Cue(
                    memory=cue.id,
                    turn=turns[0].id if turns else "",
                    at=cue.created_at,
                    belief=link.belief,
                    importance=cue.importance,
                )
            )
    conjectures = [
        graph.at(source)
        for source, _target, edge_type, _link in graph.incoming(key)
        if edge_type == LinkType.INFERRED_FROM.value
    ]
    return ImpressionTrail(
        impression=impression,
        cues=sorted(cues, key=lambda cue: cue.memory),
        conjectures=sorted(conjectures, key=lambda memory: memory.id),
    )


def _event_trail(graph: IndexedGraph, owner: str, event_id: str) -> EventTrail:
    """An event with its summaries and their turns, its members and its NEXT neighbours."""
    key: NodeKey = (owner, "Event", event_id)
    members = [
        graph.at(source)
        for source, _target, edge_type, _link in graph.incoming(key)
        if edge_type == LinkType.PART_OF.value
    ]
    summaries = sorted(
        (member for member in members if member.kind is MemoryKind.SUMMARY),
        key=lambda memory: (memory.created_at, memory.id),
    )
    neighbours = [
        (source[2], target[2])
        for source, target, edge_type, _link in [*graph.incoming(key), *graph.outgoing(key)]
        if edge_type == LinkType.NEXT.value
    ]
    return EventTrail(
        event=graph.at(key),
        developments=[
            Sourced(memory=summary, turns=graph.turns_of(summary)) for summary in summaries
        ],
        members=sorted(member.id for member in members),
        previous=sorted(source for source, target in neighbours if target == event_id),
        following=sorted(target for source, target in neighbours if source == event_id),
    )


def _update_trail(graph: IndexedGraph, owner: str, memory_id: str) -> UpdateTrail:
    """A fact with the facts that UPDATES it (id, made at) and those it UPDATES."""
    key: NodeKey = (owner, "Memory", memory_id)
    newer = [
        (source[2], graph.at(source).created_at)
        for source, _target, edge_type, _link in graph.incoming(key)
        if edge_type == LinkType.UPDATES.value
    ]
    older = [
        target[2]
        for _source, target, edge_type, _link in graph.outgoing(key)
        if edge_type == LinkType.UPDATES.value
    ]
    return UpdateTrail(memory=graph.at(key), newer=sorted(newer), older=sorted(older))
