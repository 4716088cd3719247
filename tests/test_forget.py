"""Forgetting one message on both stores: what derives only from it goes, the rest is as if the
message had never been said (for what it did not colour through attention or consolidation).

The property test builds random conversations, forgets random messages, compares with the graph
built without them, and imports the whole conversation again, which stores nothing of the
forgotten messages (tests/test_forget_tombstones.py checks their tombstones by name); the
scenarios check each kind of re-derivation by name: a summary written again, an event told
again or gone, an impression's cue subtracted, a conjecture gone or made by a later cue, a
fact's validity restored.
"""

import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import neo4j  # noqa: TID251
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import SecretStr

import graphmem.cli
from graphmem.cognition.offline import offline_cognition
from graphmem.cognition.openai import OpenAICognition
from graphmem.config import Settings
from graphmem.contract import Forgotten, OwnerGraph, tombstone_hash
from graphmem.embedding import CachedEmbedder
from graphmem.errors import InvalidInputError, ModelError
from graphmem.memory import GraphMem
from graphmem.model import Event, Impression, LinkType, Memory, MemoryKind, Turn
from graphmem.openai_endpoint import OpenAIEndpoint
from graphmem.sleep import dialogue
from graphmem.store.base import Store
from graphmem.store.networkx import NetworkXStore
from graphmem.testing import Reply, scripted_openai_server

from .conftest import Neo4jServer

START = datetime(2026, 3, 1, 9, tzinfo=UTC)
HOUR = timedelta(hours=1)

SENTENCES = (
    "I have a sore throat.",
    "I started having a fever.",
    "I keep sneezing.",
    "I have a runny nose.",
    "We went on a trip to Disneyland with the kids.",
    "Another day at Disneyland, the kids rode Space Mountain.",
    "I live in Paris.",
    "I live in Berlin now.",
    "I helped my neighbour carry her groceries.",
    "The weather is mild today.",
    "我开始发烧了。",
    "我们去迪士尼玩了。",
)
"""What the random conversations say: cues of a cold and of kindness, an event, an update."""

Message = tuple[int, str]
"""A message of a random conversation: its sentence and its session."""


def marker(index: int) -> str:
    """The tag that starts message `index`'s text, so a trace of it is found by plain search."""
    return f"[k{index}]"


def history(messages: list[Message]) -> list[dict[str, Any]]:
    """The messages as items to observe, an hour apart, each with its id and session."""
    return [
        {
            "text": f"{marker(index)} {SENTENCES[sentence]}",
            "message_id": f"message-{index}",
            "at": START + index * HOUR,
            "session": session,
        }
        for index, (sentence, session) in enumerate(messages)
    ]


def said(memory: GraphMem, owner: str, messages: list[Message], left_out: set[int]) -> None:
    """Observe the messages but those left out, one by one, then run the sleep job."""
    for index, item in enumerate(history(messages)):
        if index not in left_out:
            memory.observe(owner, **item)
    memory.consolidate(owner, at=START + len(messages) * HOUR)


def texts(graph: OwnerGraph) -> list[str]:
    """Every text property of a graph: node texts and event titles."""
    found = [node.text for node in graph.nodes]
    return found + [node.title for node in graph.nodes if isinstance(node, Event)]


@pytest.fixture
def texts_of(request: pytest.FixtureRequest, store: Store) -> Iterator[Callable[[str], list[str]]]:
    """Every string property of every node of an owner, as the store under test holds it.

    On Neo4j a Cypher query over all the owner's nodes (bookkeeping nodes included), not the
    export; in the embedded store the export, which holds every node.
    """
    if isinstance(store, NetworkXStore):
        yield lambda owner: texts(store.export(owner))
        return
    server: Neo4jServer = request.getfixturevalue("neo4j_server")
    auth = (server.user, server.password.get_secret_value())
    with neo4j.GraphDatabase.driver(server.uri, auth=auth) as driver:

        def read(owner: str) -> list[str]:
            records, _summary, _keys = driver.execute_query(
                "MATCH (n {owner: $owner}) UNWIND keys(n) AS key WITH n[key] AS value"
                " WHERE value IS :: STRING RETURN value",
                {"owner": owner},
                database_="neo4j",
            )
            return [record["value"] for record in records]

        yield read


def comparable(graph: OwnerGraph) -> dict[str, Any]:
    """What forgetting must leave as a graph built without the message would have it.

    Turns whole; observations by text, kind, time and turn; impressions with their beliefs and
    times; conjectures with their beliefs; the turns' NEXT and the INFERRED_FROM edges. Not
    what a message colours in others through attention (labels, tiers, RELATED edges) or
    consolidation (beliefs moved, SUPPORTS and the like), nor dialogue summaries and events,
    whose chunks depend on every turn of their session (checked apart).
    """
    sources = {
        link.source: link.target for _a, _b, link in graph.links if link.type is LinkType.FROM
    }
    memories = [node for node in graph.nodes if isinstance(node, Memory)]
    return {
        "turns": [node.model_dump() for node in graph.nodes if isinstance(node, Turn)],
        "observations": sorted(
            (memory.id, memory.text, memory.created_at, sources[memory.id])
            for memory in memories
            if memory.kind is MemoryKind.OBSERVATION
        ),
        "conjectures": sorted(
            (memory.id, memory.text, memory.created_at, round(memory.belief or 0.0, 9))
            for memory in memories
            if memory.kind is MemoryKind.CONJECTURE
        ),
        "impressions": sorted(
            (
                node.id,
                node.text,
                node.created_at,
                round(node.belief, 9),
                node.belief_at,
                node.conjectured_at,
            )
            for node in graph.nodes
            if isinstance(node, Impression)
        ),
        "edges": sorted(
            (link.type.value, link.source, link.target, link.belief)
            for source_label, _target_label, link in graph.links
            if link.type is LinkType.INFERRED_FROM
            or (link.type is LinkType.NEXT and source_label == "Turn")
        ),
    }


def conjectures(graph: OwnerGraph) -> list[Memory]:
    """The conjecture memories of a graph, oldest first."""
    found = [
        node
        for node in graph.nodes
        if isinstance(node, Memory) and node.kind is MemoryKind.CONJECTURE
    ]
    return sorted(found, key=lambda memory: memory.created_at)


def check_derived_again(graph: OwnerGraph, forgotten: set[str], embedder: CachedEmbedder) -> None:
    """Summaries come from kept turns only and say what the memory's offline cognition (which
    reads meaning with the embedder) says of them."""
    cognition = offline_cognition(embedder)
    turns = {node.id: node for node in graph.nodes if isinstance(node, Turn)}
    covered: dict[str, list[Turn]] = {}
    for _a, _b, link in graph.links:
        if link.type is LinkType.FROM and link.target in turns:
            covered.setdefault(link.source, []).append(turns[link.target])
    for node in graph.nodes:
        if isinstance(node, Memory) and node.kind is MemoryKind.SUMMARY:
            chunk = sorted(covered[node.id], key=lambda turn: (turn.created_at, turn.id))
            assert not {turn.id for turn in chunk} & forgotten
            assert node.text == cognition.digest_dialogue(dialogue(chunk)).summary
    members = {link.target for _a, _b, link in graph.links if link.type is LinkType.PART_OF}
    assert {node.id for node in graph.nodes if isinstance(node, Event)} <= members


conversations = st.lists(
    st.tuples(st.integers(0, len(SENTENCES) - 1), st.sampled_from(["s1", "s2"])),
    min_size=2,
    max_size=9,
)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(messages=conversations, data=st.data())
def test_forgetting_leaves_the_graph_built_without_the_messages(
    store: Store,
    embedder: CachedEmbedder,
    texts_of: Callable[[str], list[str]],
    messages: list[Message],
    data: st.DataObject,
) -> None:
    """The graph built without the messages is made in an embedded store, for the same owner.

    Then the whole conversation is imported again (observe_many, as `graphmem import-history`
    does): the forgotten messages are reported forgotten, the others already stored, and the
    graph stays exactly as forgetting left it.
    """
    forgotten = data.draw(
        st.lists(
            st.integers(0, len(messages) - 1), min_size=1, max_size=len(messages), unique=True
        ),
        label="forgotten",
    )
    owner = f"test-{uuid.uuid4().hex[:12]}"
    memory = GraphMem(store, embedder)
    said(memory, owner, messages, left_out=set())
    for done, index in enumerate(forgotten, start=1):
        outcome = memory.forget_message(owner, f"message-{index}")
        assert outcome.found
        assert outcome.deleted["Turn"] == 1
        leftover = [text for text in texts_of(owner) if marker(index) in text]
        assert leftover == [], f"message {index}'s text is still in the graph"
        kept_turns = {node.id for node in store.export(owner).nodes if isinstance(node, Turn)}
        assert kept_turns == {
            f"message-{other}" for other in range(len(messages)) if other not in forgotten[:done]
        }
    rebuilt = NetworkXStore.open()
    said(GraphMem(rebuilt, embedder), owner, messages, left_out=set(forgotten))
    after = store.export(owner)
    assert comparable(after) == comparable(rebuilt.export(owner))
    check_derived_again(after, {f"message-{index}" for index in forgotten}, embedder)
    assert not memory.forget_message(owner, f"message-{forgotten[0]}").found
    assert store.export(owner) == after
    assert {tombstone.hash for tombstone in after.tombstones} == {
        tombstone_hash(f"message-{index}") for index in forgotten
    }

    again = memory.observe_many(owner, history(messages))

    assert [seen.forgotten for seen in again] == [
        index in forgotten for index in range(len(messages))
    ]
    assert [seen.memories for seen in again] == [[]] * len(messages)
    assert not [seen.turn.id for seen in again if seen.pending]
    assert store.export(owner) == after
    assert comparable(store.export(owner)) == comparable(rebuilt.export(owner))
    for index in forgotten:
        assert not [text for text in texts_of(owner) if marker(index) in text]


def test_forgetting_subtracts_a_cue_and_moves_the_conjecture_to_a_later_one(
    memory: GraphMem, owner: str
) -> None:
    """A sore throat (0.72) made the cold a conjecture; without it, the third cue after does."""
    cues = {"throat": "My throat hurts.", "fever": "I started having a fever."}
    cues |= {"nose": "I have a runny nose.", "sneezing": "I keep sneezing."}
    for hours, (message_id, text) in enumerate(cues.items()):
        memory.observe(owner, text, message_id=message_id, at=START + hours * HOUR)
    assert [conjecture.created_at for conjecture in conjectures(memory.export(owner))] == [START]

    outcome = memory.forget_message(owner, "throat")

    graph = memory.export(owner)
    [impression] = [node for node in graph.nodes if isinstance(node, Impression)]
    [conjecture] = conjectures(graph)
    assert impression.created_at == START + HOUR
    hour = 0.5 ** (1 / 24 / impression.half_life_days)  # what an hour's decay leaves
    nose = 1 - (1 - 0.4 * hour) * (1 - 0.48)
    assert impression.belief == pytest.approx(1 - (1 - nose * hour) * (1 - 0.24))
    assert conjecture.created_at == START + 3 * HOUR
    assert conjecture.belief == pytest.approx(impression.belief)
    assert outcome.deleted == {"Turn": 1, "Memory": 2}
    assert outcome.rewritten == {"impressions": 1, "conjectures": 1}


def test_forgetting_the_last_cue_deletes_the_impression_and_its_conjecture(
    memory: GraphMem, owner: str
) -> None:
    memory.observe(owner, "My throat hurts.", message_id="throat", at=START)

    outcome = memory.forget_message(owner, "throat")

    assert outcome.deleted == {"Turn": 1, "Memory": 2, "Impression": 1}
    assert memory.export(owner).nodes == []


def test_forgetting_writes_the_summary_and_the_event_again_without_the_message(
    memory: GraphMem, texts_of: Callable[[str], list[str]], owner: str
) -> None:
    lines = [
        "We arrived at Disneyland today, the kids loved the castle.",
        "Dinner was pasta.",
        "Second day at Disneyland: we rode Space Mountain twice.",
        "The weather is mild today.",
    ]
    for index, line in enumerate(lines):
        memory.observe(owner, line, message_id=f"day-{index}", at=START + index * HOUR)
    memory.consolidate(owner, at=START + 5 * HOUR)
    [event] = [node for node in memory.export(owner).nodes if isinstance(node, Event)]
    assert "Space Mountain" in event.text

    outcome = memory.forget_message(owner, "day-2")

    graph = memory.export(owner)
    [summary] = [
        node for node in graph.nodes if isinstance(node, Memory) and node.kind is MemoryKind.SUMMARY
    ]
    [told] = [node for node in graph.nodes if isinstance(node, Event)]
    assert "Space Mountain" not in summary.text
    assert "castle" in summary.text
    assert told.id == event.id
    assert (
        told.text == f"{START:%Y-%m-%d}: We arrived at Disneyland today, the kids loved the castle."
    )
    assert told.last_at == START
    assert told.attention == event.attention
    assert not [text for text in texts_of(owner) if "Space Mountain" in text]
    turns = sorted(
        (node for node in graph.nodes if isinstance(node, Turn)),
        key=lambda turn: turn.position or 0,
    )
    assert [(turn.id, turn.position) for turn in turns] == [
        ("day-0", 0),
        ("day-1", 1),
        ("day-3", 2),
    ]
    next_edges = {
        (link.source, link.target)
        for a, _b, link in graph.links
        if link.type is LinkType.NEXT and a == "Turn"
    }
    assert next_edges == {("day-0", "day-1"), ("day-1", "day-3")}
    assert outcome.rewritten == {"summaries": 1, "events": 1}

    memory.forget_message(owner, "day-0")

    assert not [node for node in memory.export(owner).nodes if isinstance(node, Event)]


def test_forgetting_the_newer_value_makes_the_older_one_current_again(
    memory: GraphMem, owner: str
) -> None:
    memory.observe(owner, "I live in Paris.", message_id="paris", at=START)
    memory.observe(owner, "I live in Berlin now.", message_id="berlin", at=START + 30 * 24 * HOUR)
    memory.consolidate(owner, at=START + 31 * 24 * HOUR)
    [paris] = [
        node
        for node in memory.export(owner).nodes
        if isinstance(node, Memory)
        and node.kind is MemoryKind.OBSERVATION
        and node.text == "I live in Paris."
    ]
    assert paris.valid_until == START + 30 * 24 * HOUR
    [home] = memory.profile(owner, at=START + 32 * 24 * HOUR).facts
    assert (home.slot, home.text) == ("home", "I live in Berlin now.")
    assert [value.text for value in home.earlier] == ["I live in Paris."]

    outcome = memory.forget_message(owner, "berlin")

    [paris] = [
        node
        for node in memory.export(owner).nodes
        if isinstance(node, Memory)
        and node.kind is MemoryKind.OBSERVATION
        and node.text == "I live in Paris."
    ]
    assert paris.valid_until is None
    assert outcome.rewritten["facts"] == 1
    recall = memory.recall(owner, "Where do I live?", k=3, peek=True, at=START + 32 * 24 * HOUR)
    assert recall.memories[0].memory.text == "I live in Paris."
    assert "until" not in recall.render()
    [home] = memory.profile(owner, at=START + 32 * 24 * HOUR).facts
    assert (home.text, home.earlier) == ("I live in Paris.", [])


def test_a_model_failure_changes_nothing(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    offline = GraphMem(store, embedder)
    offline.observe(owner, "We arrived at Disneyland today.", message_id="a", at=START)
    offline.observe(owner, "Dinner was pasta.", message_id="b", at=START + HOUR)
    offline.consolidate(owner, at=START + 2 * HOUR)
    before = store.export(owner)
    with scripted_openai_server(lambda _body: Reply(500, {"error": {"message": "down"}})) as server:
        endpoint = OpenAIEndpoint(
            server.base_url,
            SecretStr("sk-test"),
            timeout_seconds=5,
            max_retries=1,
            backoff_seconds=0.01,
            cache=None,
        )
        failing = GraphMem(store, embedder, OpenAICognition(endpoint, "down-model"))
        with pytest.raises(ModelError, match="digest_dialogue"):
            failing.forget_message(owner, "a")
        endpoint.close()
    assert store.export(owner) == before


def test_forgetting_an_unknown_message_changes_nothing_and_bad_ids_are_refused(
    memory: GraphMem, owner: str
) -> None:
    memory.observe(owner, "I live in Paris.", message_id="paris", at=START)
    before = memory.export(owner)

    outcome = memory.forget_message(owner, "never-said")

    assert (outcome.found, outcome.deleted, outcome.rewritten) == (False, {}, {})
    assert memory.export(owner) == before
    with pytest.raises(InvalidInputError, match="id must be 1-256 characters"):
        memory.forget_message(owner, " ")
    with pytest.raises(InvalidInputError, match="owner"):
        memory.forget_message("", "paris")


def test_an_owner_whose_every_message_was_forgotten_is_no_longer_an_owner(
    memory: GraphMem, owner: str
) -> None:
    memory.observe(owner, "I live in Paris.", message_id="paris", at=START)
    assert owner in memory.owners()

    memory.forget_message(owner, "paris")

    assert owner not in memory.owners()


def test_no_file_of_the_embedded_store_keeps_a_forgotten_text(
    embedder: CachedEmbedder, owner: str, tmp_path: Path
) -> None:
    path = tmp_path / "graph.json"
    store = NetworkXStore.open(path)
    memory = GraphMem(store, embedder)
    memory.observe(owner, "My secret is the blue door.", message_id="secret", at=START)
    memory.observe(owner, "I live in Paris.", message_id="paris", at=START + HOUR)
    memory.forget_message(owner, "secret")
    files = [file for file in tmp_path.iterdir() if file.is_file()]
    assert not [file.name for file in files if "blue door" in file.read_text(errors="replace")]
    store.close()  # the store only: the embedder is the session's
    reopened = NetworkXStore.open(path)
    assert [node.id for node in reopened.export(owner).nodes if isinstance(node, Turn)] == ["paris"]
    reopened.close()


def test_the_command_line_forgets_messages_and_says_what_went(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "graph.json"
    with GraphMem.open(Settings(path=path)) as memory:
        memory.observe("ann", "My throat hurts.", message_id="throat", at=START)
        memory.observe("ann", "I live in Paris.", message_id="paris", at=START + HOUR)
    where = ["--owner", "ann", "--path", str(path)]

    assert graphmem.cli.main(["forget", *where, "--message", "throat", "--message", "nope"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "forgot message throat of ann: deleted Turn 1, Memory 2, Impression 1;"
        " derived again: nothing",
        "message nope of ann: not stored, nothing to forget",
    ]
    assert graphmem.cli.main(["forget", *where, "--message", "paris", "--json"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert Forgotten.model_validate_json(line).deleted == {"Turn": 1, "Memory": 1}
    assert graphmem.cli.main(["forget", "--owner", "", "--message", "x", "--path", str(path)]) == 1
    assert "owner '' is not 1-128 characters" in capsys.readouterr().err
