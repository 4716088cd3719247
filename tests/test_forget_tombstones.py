"""Forgetting is remembered, on both stores: a forgotten message leaves a tombstone (the hash of
its id, never its text), so observing or importing it again stores nothing, until the caller
readmits it; forgetting the owner clears its tombstones; an export carries them.
"""

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.contract import OwnerGraph, Tombstone, tombstone_hash
from graphmem.embedding import CachedEmbedder
from graphmem.errors import InvalidInputError
from graphmem.memory import GraphMem
from graphmem.model import Turn
from graphmem.store.networkx import NetworkXStore

START = datetime(2026, 3, 1, 9, tzinfo=UTC)
HOUR = timedelta(hours=1)

MESSAGES = {
    "m1": "My throat hurts.",
    "m2": "I live in Paris.",
    "m3": "We adopted a cat named Miso.",
}


def item(message_id: str) -> dict[str, Any]:
    """The message of MESSAGES with this id as an item to observe, an hour after the one before."""
    return {
        "text": MESSAGES[message_id],
        "message_id": message_id,
        "at": START + list(MESSAGES).index(message_id) * HOUR,
    }


def turn_ids(graph: OwnerGraph) -> list[str]:
    """The ids of a graph's turns, sorted."""
    return sorted(node.id for node in graph.nodes if isinstance(node, Turn))


def test_a_forgotten_message_observed_again_stores_nothing_and_says_so(
    memory: GraphMem, owner: str
) -> None:
    memory.observe_many(owner, [item("m1"), item("m2")])
    memory.forget_message(owner, "m1")
    before = memory.export(owner)

    again = memory.observe_many(owner, [item("m1"), item("m2"), item("m3")])

    assert [(seen.turn.id, seen.forgotten) for seen in again] == [
        ("m1", True),
        ("m2", False),
        ("m3", False),
    ]
    forgotten, stored, new = again
    assert (forgotten.memories, forgotten.pending, forgotten.conjectures) == ([], False, [])
    assert forgotten.turn.text == MESSAGES["m1"]
    assert (stored.memories, stored.pending) == ([], False)  # already stored
    assert [derived.text for derived in new.memories] == [MESSAGES["m3"]]
    assert sum(seen.forgotten for seen in again) == 1
    after = memory.export(owner)
    assert turn_ids(after) == ["m2", "m3"]
    assert not [node for node in after.nodes if MESSAGES["m1"] in node.text]
    assert (
        after.tombstones == before.tombstones == [Tombstone(owner=owner, hash=tombstone_hash("m1"))]
    )
    # One message: forgotten too, whatever its text now (there is nothing to conflict with).
    alone = memory.observe(owner, "My throat is fine now.", message_id="m1", at=START + 9 * HOUR)
    assert (alone.forgotten, alone.memories) == (True, [])
    assert turn_ids(memory.export(owner)) == ["m2", "m3"]
    assert memory.statistics(owner).tombstones == 1


def test_readmitting_a_forgotten_message_stores_it_again_until_it_is_forgotten_again(
    memory: GraphMem, owner: str
) -> None:
    memory.observe_many(owner, [item("m1"), item("m2")])
    memory.forget_message(owner, "m1")

    again = memory.observe_many(owner, [item("m1"), item("m3")], readmit_forgotten=True)

    assert [seen.forgotten for seen in again] == [False, False]
    assert [[derived.text for derived in seen.memories] for seen in again] == [
        [MESSAGES["m1"]],
        [MESSAGES["m3"]],
    ]
    assert turn_ids(memory.export(owner)) == ["m1", "m2", "m3"]
    assert memory.export(owner).tombstones == []
    assert memory.statistics(owner).tombstones == 0
    assert memory.observe(owner, **item("m1")).forgotten is False  # stored, not forgotten

    assert memory.forget_message(owner, "m1").found
    assert memory.observe(owner, **item("m1")).forgotten
    readmitted = memory.observe(owner, **item("m1"), readmit_forgotten=True)
    assert (readmitted.forgotten, readmitted.turn.id) == (False, "m1")
    assert [derived.text for derived in readmitted.memories] == [MESSAGES["m1"]]


def test_a_message_without_an_id_is_never_taken_for_a_forgotten_one(
    memory: GraphMem, owner: str
) -> None:
    first = memory.observe(owner, MESSAGES["m1"], at=START)
    assert memory.forget_message(owner, first.turn.id).found

    second = memory.observe(owner, MESSAGES["m1"], at=START + HOUR)

    assert second.turn.id != first.turn.id
    assert (second.forgotten, [derived.text for derived in second.memories]) == (
        False,
        [MESSAGES["m1"]],
    )


def test_forgetting_an_unknown_message_leaves_no_tombstone(memory: GraphMem, owner: str) -> None:
    memory.observe(owner, **item("m2"))

    assert not memory.forget_message(owner, "m1").found

    assert memory.export(owner).tombstones == []
    assert memory.observe(owner, **item("m1")).forgotten is False


def test_forgetting_the_owner_clears_its_tombstones_and_no_one_elses(
    memory: GraphMem, owner: str
) -> None:
    other = f"{owner}-other"
    for whom in (owner, other):
        memory.observe_many(whom, [item("m1"), item("m2")])
        memory.forget_message(whom, "m1")
        memory.forget_message(whom, "m2")
    counts = memory.statistics(owner)
    assert (sum(counts.nodes.values()), counts.tombstones, counts.total) == (0, 2, 2)

    left = memory.forget(owner)

    assert (left.tombstones, left.total) == (0, 0)
    assert memory.export(owner) == OwnerGraph(nodes=[], links=[])
    assert memory.observe(owner, **item("m1")).forgotten is False
    assert memory.statistics(other).tombstones == 2
    assert memory.observe(other, **item("m1")).forgotten


def test_an_export_carries_the_tombstones_and_loading_it_keeps_them(
    memory: GraphMem, owner: str
) -> None:
    memory.observe_many(owner, [item("m1"), item("m2")])
    remembered = memory.export(owner)  # before forgetting: m1 is in it
    memory.forget_message(owner, "m1")
    graph = memory.export(owner)
    assert OwnerGraph.from_records(graph.records()) == graph
    assert {"tombstone": {"owner": owner, "hash": tombstone_hash("m1")}} in graph.records()

    memory.forget(owner)
    memory.load(owner, OwnerGraph.from_records(graph.records()))

    assert memory.export(owner) == graph
    assert memory.observe(owner, **item("m1")).forgotten
    # A graph that holds the message brings it back: loaded, it is no longer forgotten.
    memory.load(owner, remembered)
    assert turn_ids(memory.export(owner)) == ["m1", "m2"]
    assert memory.export(owner).tombstones == []
    assert memory.observe(owner, **item("m1")).forgotten is False
    stranger = Tombstone(owner=f"{owner}-x", hash=tombstone_hash("m3"))
    with pytest.raises(InvalidInputError, match="belongs to"):
        memory.load(owner, OwnerGraph(nodes=[], links=[], tombstones=[stranger]))
    with pytest.raises(InvalidInputError, match="not a node or edge record"):
        OwnerGraph.from_records([{"tombstone": {"owner": owner, "hash": "m3"}}])


def test_the_embedded_store_keeps_tombstones_in_its_snapshot_and_journal(
    embedder: CachedEmbedder, owner: str, tmp_path: Path
) -> None:
    """Each copy of the files is taken while the store is open, as a crash would leave them."""
    path = tmp_path / "graph.json"
    store = NetworkXStore.open(path)
    memory = GraphMem(store, embedder)
    memory.observe(owner, "My secret is the blue door.", message_id="blue-door-id", at=START)
    memory.observe(owner, **item("m2"))
    memory.forget_message(owner, "blue-door-id")  # written to the snapshot at once
    files = [file for file in tmp_path.iterdir() if file.is_file()]
    kept = "".join(file.read_text(errors="replace") for file in files)
    assert tombstone_hash("blue-door-id") in kept
    assert "blue door" not in kept
    assert "blue-door-id" not in kept
    shutil.copytree(tmp_path, tmp_path.parent / "after-forgetting")

    memory.observe(
        owner, "My secret is the blue door.", message_id="blue-door-id", readmit_forgotten=True
    )  # in the journal only
    shutil.copytree(tmp_path, tmp_path.parent / "after-readmitting")
    store.close()  # the store only: the embedder is the session's

    copy = NetworkXStore.open(tmp_path.parent / "after-forgetting" / "graph.json")
    try:
        assert GraphMem(copy, embedder).observe(owner, **item("m1")).forgotten is False
        seen = GraphMem(copy, embedder).observe(owner, "Again.", message_id="blue-door-id")
        assert seen.forgotten
    finally:
        copy.close()
    copy = NetworkXStore.open(tmp_path.parent / "after-readmitting" / "graph.json")
    try:
        assert turn_ids(copy.export(owner)) == ["blue-door-id", "m2"]
        assert copy.export(owner).tombstones == []
    finally:
        copy.close()
