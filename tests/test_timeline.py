"""Reading an owner's memory as the console does: timeline, neighbourhood, events, impressions."""

from datetime import UTC, datetime, timedelta

import pytest

from graphmem.errors import InvalidInputError
from graphmem.memory import GraphMem
from graphmem.model import Event, Impression, LinkType, MemoryKind, Tier

from .test_sleep_crash import JOB_AT, observe_all

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SAID = [
    ("I'm allergic to milk.", "user", "breakfast"),
    ("Noted: no milk in your coffee.", "assistant", "breakfast"),
    ("My sister Ana lives in Porto.", "user", "family"),
    ("We booked the train to Porto for May.", "user", "family"),
    ("The milk for the cake went sour.", "user", "baking"),
]


def said(memory: GraphMem, owner: str) -> None:
    """Observe SAID an hour apart, message ids m0, m1, …"""
    for index, (text, speaker, session) in enumerate(SAID):
        at = START + timedelta(hours=index)
        memory.observe(owner, text, message_id=f"m{index}", at=at, speaker=speaker, session=session)


def texts(memory: GraphMem, owner: str, **wanted: object) -> list[str]:
    """The observations' texts of every page of the timeline, page by page, two a page."""
    found: list[str] = []
    before = None
    while True:
        page = memory.timeline(owner, kinds=["observation"], limit=2, before=before, **wanted)  # type: ignore[arg-type]
        assert len(page.entries) <= 2
        found += [entry.memory.text for entry in page.entries]
        if page.next is None:
            return found
        before = page.next


def test_the_timeline_pages_through_every_memory_newest_first(memory: GraphMem, owner: str) -> None:
    said(memory, owner)
    assert texts(memory, owner) == [text for text, _speaker, _session in reversed(SAID)]
    page = memory.timeline(owner, limit=500, at=START + timedelta(days=1))
    assert {entry.memory.kind for entry in page.entries} >= {MemoryKind.OBSERVATION}
    assert all(entry.memory.embedding is None for entry in page.entries)
    allergy = next(entry for entry in page.entries if entry.memory.text == SAID[0][0])
    [turn] = allergy.turns
    assert (turn.id, turn.speaker, turn.session) == ("m0", "user", "breakfast")
    assert allergy.attention > 0
    assert page.next is None


def test_the_timeline_keeps_only_what_each_condition_admits(memory: GraphMem, owner: str) -> None:
    said(memory, owner)
    assert texts(memory, owner, contains="MILK") == [SAID[4][0], SAID[1][0], SAID[0][0]]
    assert texts(memory, owner, session="family") == [SAID[3][0], SAID[2][0]]
    assert texts(memory, owner, speaker="assistant") == [SAID[1][0]]
    assert texts(
        memory, owner, since=START + timedelta(hours=1), until=START + timedelta(hours=3)
    ) == [
        SAID[2][0],
        SAID[1][0],
    ]
    assert texts(memory, owner, contains="milk", speaker="user", session="breakfast") == [
        SAID[0][0]
    ]
    by_tier = {tier: texts(memory, owner, tiers=[tier]) for tier in Tier}
    assert sorted(text for found in by_tier.values() for text in found) == sorted(
        texts(memory, owner)
    )
    for entry in memory.timeline(owner, kinds=["observation"]).entries:
        assert entry.memory.text in by_tier[entry.memory.tier]


def test_a_page_of_an_owner_never_shows_anothers(memory: GraphMem, owner: str) -> None:
    said(memory, owner)
    assert memory.timeline(owner + "-other").entries == []
    assert memory.neighbourhood(owner + "-other", "m0", label="Turn").turns == []


@pytest.mark.parametrize(
    ("wanted", "named"),
    [
        ({"before": "yesterday"}, "before"),
        ({"before": "2026-03-02T09:00:00+00:00"}, "before"),
        ({"limit": 0}, "limit"),
        ({"limit": 501}, "limit"),
        ({"tiers": [7]}, "tiers"),
        ({"kinds": ["dream"]}, "kinds"),
        ({"since": START, "until": START}, "since"),
        ({"contains": ""}, "contains"),
    ],
)
def test_a_bad_page_is_named(
    memory: GraphMem, owner: str, wanted: dict[str, object], named: str
) -> None:
    with pytest.raises(InvalidInputError, match=named):
        memory.timeline(owner, **wanted)  # type: ignore[arg-type]


def test_a_neighbourhood_holds_the_node_its_neighbours_and_their_edges(
    memory: GraphMem, owner: str
) -> None:
    said(memory, owner)
    around_turn = memory.neighbourhood(owner, "m0", label="Turn")
    [allergy] = [item for item in around_turn.memories if item.kind is MemoryKind.OBSERVATION]
    assert [turn.id for turn in around_turn.turns][:1] == ["m0"]
    assert around_turn.turns[0].text == SAID[0][0]
    around = memory.neighbourhood(owner, allergy.id)
    assert (around.label, around.memories[0].id) == ("Memory", allergy.id)
    assert all(item.embedding is None for item in around.memories)
    ends = {(link.type, link.source, link.target) for link in around.links}
    assert (LinkType.FROM, allergy.id, "m0") in ends
    nodes = {
        node.id for node in [*around.turns, *around.memories, *around.events, *around.impressions]
    }
    for link in around.links:
        assert allergy.id in (link.source, link.target) or "m0" in (link.source, link.target)
        assert {link.source, link.target} <= nodes
    assert len(ends) == len(around.links)
    assert memory.neighbourhood(owner, "no-such-node").memories == []


def test_a_bad_neighbourhood_is_named(memory: GraphMem, owner: str) -> None:
    with pytest.raises(InvalidInputError, match="label"):
        memory.neighbourhood(owner, "m0", label="Session")


def test_events_and_impressions_are_listed_as_the_graph_holds_them(
    memory: GraphMem, owner: str
) -> None:
    observe_all(memory, owner)
    memory.consolidate(owner, at=JOB_AT)
    graph = memory.export(owner)
    stored_events = {node.id: node for node in graph.nodes if isinstance(node, Event)}
    stored_impressions = {node.id: node for node in graph.nodes if isinstance(node, Impression)}
    links = [link for _source, _target, link in graph.links]
    assert stored_events  # the week's dialogue made events,
    assert stored_impressions  # and its cues impressions
    later = JOB_AT + timedelta(days=20)
    events = memory.events(owner, at=later)
    assert [entry.event.id for entry in events] == sorted(
        stored_events, key=lambda key: (-stored_events[key].last_at.timestamp(), key)
    )
    for entry in events:
        event = stored_events[entry.event.id]
        assert entry.event == event.model_copy(update={"embedding": []})
        part_of = [link for link in links if link.type is LinkType.PART_OF]
        assert entry.memories == sum(link.target == event.id for link in part_of) > 0
        assert entry.open == (later <= entry.open_until)
    assert any(entry.open for entry in memory.events(owner, at=JOB_AT))
    impressions = memory.impressions(owner, at=later)
    assert {entry.impression.id for entry in impressions} == set(stored_impressions)
    assert [entry.belief for entry in impressions] == sorted(
        (entry.belief for entry in impressions), reverse=True
    )
    inferred = [link for link in links if link.type is LinkType.INFERRED_FROM]
    for listed in impressions:
        impression = stored_impressions[listed.impression.id]
        assert listed.impression == impression.model_copy(update={"embedding": []})
        assert listed.cues == sum(link.source == impression.id for link in inferred) > 0
        assert listed.conjectures == sum(link.target == impression.id for link in inferred)
        assert 0 < listed.belief < impression.belief  # faded since it was set
    first = min(event.first_at for event in stored_events.values())
    assert {entry.event.first_at for entry in memory.events(owner, at=first)} == {first}
    made = min(impression.created_at for impression in stored_impressions.values())
    early = memory.impressions(owner, at=made)
    assert {entry.impression.created_at for entry in early} == {made}
    assert memory.events(owner, at=first - timedelta(seconds=1)) == []
    assert memory.impressions(owner, at=made - timedelta(seconds=1)) == []
    assert memory.events(owner + "-other") == []
    assert memory.impressions(owner + "-other") == []
