"""The embedded store's file: reopened intact, never corrupted by a crash, one process at a time."""

import json
import os
import random
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem.embedding import CachedEmbedder
from graphmem.errors import StoreError
from graphmem.mechanisms.attention import initial_attention
from graphmem.model import LinkType, Memory, MemoryKind, Tier, Turn
from graphmem.store.networkx import NetworkXStore

from .conftest import ROOT
from .test_store_contract import TEXTS, fill

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_a_closed_store_reopens_with_everything(
    tmp_path: Path, owner: str, embedder: CachedEmbedder
) -> None:
    path = tmp_path / "graph.json"
    store = NetworkXStore.open(path)
    fill(store, owner, embedder)
    [query] = embedder.embed(["milk"], "query")
    before = store.find_similar_memories(owner, query, 10)
    store.close()
    assert not path.with_name("graph.json.journal").read_text()
    reopened = NetworkXStore.open(path)
    try:
        assert reopened.find_similar_memories(owner, query, 10) == before
        assert reopened.count_graph(owner).nodes["Turn"] == len(TEXTS)
    finally:
        reopened.close()


def test_a_failed_snapshot_leaves_the_previous_file_and_loses_nothing(
    tmp_path: Path, owner: str, embedder: CachedEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "graph.json"
    store = NetworkXStore.open(path)
    fill(store, owner, embedder)
    store.close()
    previous = path.read_bytes()

    store = NetworkXStore.open(path)
    fill(store, owner + "-2", embedder)

    def disk_full(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError, match="No space left"):
        store.close()
    monkeypatch.undo()
    assert path.read_bytes() == previous

    reopened = NetworkXStore.open(path)
    try:
        assert reopened.count_graph(owner).nodes["Memory"] == len(TEXTS)
        assert reopened.count_graph(owner + "-2").nodes["Memory"] == len(TEXTS)
    finally:
        reopened.close()


@pytest.mark.parametrize("seed", range(6))
def test_a_killed_writer_loses_no_acknowledged_write(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "graph.json"
    kill_after = random.Random(seed).randint(5, 80)
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.networkx_writer", str(path), "4"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    acknowledged = -1
    for line in writer.stdout:
        acknowledged = int(line)
        if acknowledged >= kill_after:
            writer.send_signal(signal.SIGKILL)
            break
    writer.wait()
    for line in writer.stdout:  # what it acknowledged between our last read and the kill
        acknowledged = int(line)
    writer.stdout.close()
    assert writer.returncode == -signal.SIGKILL

    store = NetworkXStore.open(path)
    try:
        counts = store.count_graph("crash")
        # Everything acknowledged is there, and at most the one write in flight besides.
        assert acknowledged + 1 <= counts.nodes["Turn"] <= acknowledged + 2
        assert acknowledged + 1 <= counts.nodes["Memory"] <= counts.nodes["Turn"]
        # One stream of turns (no session): each after the first is NEXT from the one before.
        assert counts.links == {"FROM": counts.nodes["Memory"], "NEXT": counts.nodes["Turn"] - 1}
    finally:
        store.close()


def test_one_process_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    store = NetworkXStore.open(path)
    try:
        with pytest.raises(StoreError, match="is open in another process"):
            NetworkXStore.open(path)
    finally:
        store.close()
    NetworkXStore.open(path).close()


def test_an_unreadable_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    path.write_text('{"format": "something else"}')
    with pytest.raises(StoreError, match="is not a graphmem graphmem-networkx file"):
        NetworkXStore.open(path)
    assert path.read_text() == '{"format": "something else"}'


def test_a_journal_written_by_pythons_json_replays(tmp_path: Path) -> None:
    """Stores written before the journal was encoded by orjson open with everything."""
    path = tmp_path / "graph.json"
    turn = Turn(id="m1", owner="alice", text="我对牛奶过敏 — allergic", created_at=NOW)
    change = {"op": "save_turns", "turns": [turn.model_dump(mode="json")], "sequence": 1}
    path.with_name("graph.json.journal").write_text(
        json.dumps(change, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    store = NetworkXStore.open(path)
    try:
        assert store.export("alice").nodes == [turn.model_copy(update={"position": 0})]
    finally:
        store.close()


def test_a_journal_entry_of_one_summary_replays(tmp_path: Path) -> None:
    """Journals written before summaries were stored in batches open with their summaries."""
    path = tmp_path / "graph.json"
    turn = Turn(id="m1", owner="alice", text="We flew to Disneyland.", created_at=NOW)
    summary = Memory(
        id="s1",
        owner="alice",
        text="A trip to Disneyland.",
        created_at=NOW,
        kind=MemoryKind.SUMMARY,
        importance=5.0,
        attention=initial_attention(5.0, NOW),
        tier=Tier.HOT,
        embedding=[1.0, 0.0],
        accessed_at=NOW,
    )
    changes = [
        {"op": "save_turns", "turns": [turn.model_dump(mode="json")], "sequence": 1},
        {
            "op": "save_summary",
            "owner": "alice",
            "summary": summary.model_dump(mode="json"),
            "turns": ["m1"],
            "events": [],
            "sequence": 2,
        },
    ]
    journal = "".join(json.dumps(change) + "\n" for change in changes)
    path.with_name("graph.json.journal").write_text(journal, encoding="utf-8")
    store = NetworkXStore.open(path)
    try:
        graph = store.export("alice")
        assert summary in graph.nodes
        assert [link.type for _s, _t, link in graph.links] == [LinkType.FROM]
        assert store.turns_awaiting_summary("alice", 10) == []
    finally:
        store.close()
