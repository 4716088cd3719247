"""The files graphmem writes are their owner's alone: 0600, in folders it creates 0700, whatever
the umask; a folder that already exists keeps its mode."""

import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import graphmem.cli
from graphmem.embedding import CachedEmbedder
from graphmem.memory import GraphMem
from graphmem.openai_endpoint import ResponseCache
from graphmem.store.networkx import NetworkXStore

START = datetime(2026, 1, 1, tzinfo=UTC)
TEXTS = ["I'm allergic to milk.", "I live in Paris.", "My sister is called Ada."]


@pytest.fixture(autouse=True)
def permissive_umask() -> Iterator[None]:
    """The usual umask, 0o022, which leaves new files readable by everyone unless asked not to."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    """The permission bits of a file or folder."""
    return stat.S_IMODE(path.stat().st_mode)


def modes_under(folder: Path) -> dict[str, str]:
    """The permission bits (in octal) of every file and folder under `folder`, by its path there."""
    return {str(path.relative_to(folder)): oct(mode(path)) for path in sorted(folder.rglob("*"))}


def test_every_file_and_created_folder_of_the_store_is_private(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    tmp_path.chmod(0o755)  # a folder the user chose: kept as it is
    path = tmp_path / "data" / "graphmem" / "graph.json"
    store = NetworkXStore.open(path, snapshot_every=2)  # a snapshot every second write
    memory = GraphMem(store, embedder)
    for minute, text in enumerate(TEXTS):
        memory.observe("ann", text, at=START + timedelta(minutes=minute))
    memory.create_key(admin=True, at=START)
    created = memory.create_key(owners=["ann"], at=START)
    memory.revoke_key(created.key.id, at=START)
    memory.consolidate("ann", at=START + timedelta(hours=1))
    written = {
        "data": "0o700",
        "data/graphmem": "0o700",
        "data/graphmem/graph.json": "0o600",
        "data/graphmem/graph.json.journal": "0o600",
        "data/graphmem/graph.json.keys": "0o600",
        "data/graphmem/graph.json.lock": "0o600",
    }
    assert modes_under(tmp_path) == written
    store.close()  # the final snapshot (the memory would close the tests' shared embedder too)
    reopened = NetworkXStore.open(path)
    reopened.close()
    assert modes_under(tmp_path) == written
    assert mode(tmp_path) == 0o755


def test_an_existing_folder_keeps_its_mode_and_the_files_in_it_are_private(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    tmp_path.chmod(0o755)
    store = NetworkXStore.open(tmp_path / "graph.json")
    memory = GraphMem(store, embedder)
    memory.observe("ann", TEXTS[0], at=START)
    memory.create_key(admin=True, at=START)
    store.close()
    assert mode(tmp_path) == 0o755
    assert modes_under(tmp_path) == {
        "graph.json": "0o600",
        "graph.json.journal": "0o600",
        "graph.json.keys": "0o600",
        "graph.json.lock": "0o600",
    }


def test_files_an_earlier_graphmem_made_readable_by_all_are_narrowed(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    path = tmp_path / "graph.json"
    store = NetworkXStore.open(path)
    memory = GraphMem(store, embedder)
    memory.observe("ann", TEXTS[0], at=START)
    memory.create_key(admin=True, at=START)
    store.close()
    for file in tmp_path.iterdir():
        file.chmod(0o644)  # as graphmem made them before its files were private
    store = NetworkXStore.open(path)
    memory = GraphMem(store, embedder)
    memory.observe("ann", TEXTS[1], at=START + timedelta(minutes=1))
    memory.create_key(admin=True, at=START)
    store.close()
    assert set(modes_under(tmp_path).values()) == {"0o600"}


def test_the_per_user_folder_the_command_line_creates_is_private(user_data_folder: Path) -> None:
    user_data_folder.chmod(0o755)  # $XDG_DATA_HOME exists: the user's, kept as it is
    assert graphmem.cli.main(["keys", "create", "--admin"]) == 0
    assert mode(user_data_folder) == 0o755
    assert modes_under(user_data_folder) == {
        "graphmem": "0o700",
        "graphmem/graph.json.keys": "0o600",
        "graphmem/graph.json.lock": "0o600",
        "graphmem/graph.json.journal": "0o600",
    }


def test_a_umask_that_takes_the_owners_own_bits_is_overridden(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    os.umask(0o377)  # new files read-only to their owner, folders not even searchable
    store = NetworkXStore.open(tmp_path / "data" / "graph.json", snapshot_every=1)
    memory = GraphMem(store, embedder)
    memory.observe("ann", TEXTS[0], at=START)
    memory.create_key(admin=True, at=START)
    store.close()
    assert modes_under(tmp_path) == {
        "data": "0o700",
        "data/graph.json": "0o600",
        "data/graph.json.journal": "0o600",
        "data/graph.json.keys": "0o600",
        "data/graph.json.lock": "0o600",
    }


def test_the_caches_of_embeddings_and_model_answers_are_private(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    tmp_path.chmod(0o755)
    embeddings = CachedEmbedder(embedder, tmp_path / "cache" / "embeddings.sqlite")
    embeddings.embed(TEXTS, "passage")  # written: the file SQLite keeps them in
    answers = ResponseCache(tmp_path / "cache" / "answers" / "responses.sqlite")
    answers.close()
    assert modes_under(tmp_path) == {
        "cache": "0o700",
        "cache/answers": "0o700",
        "cache/answers/responses.sqlite": "0o600",
        "cache/embeddings.sqlite": "0o600",
    }
    assert mode(tmp_path) == 0o755
