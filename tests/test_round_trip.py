"""What one face gives, another takes: HTTP's export to HTTP's load and to `graphmem import`,
`graphmem export`'s file to HTTP's load (the same counts on both sides); and over HTTP an
observation says `already_stored` and an unknown message is forgotten as in process."""

import asyncio
import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.error import URLError
from urllib.parse import quote

import pytest

from graphmem.client import AsyncGraphMemClient, GraphMemClient
from graphmem.contract import GraphCounts, read_export
from graphmem.embedding import CachedEmbedder
from graphmem.memory import GraphMem
from graphmem.store.networkx import NetworkXStore

from .conftest import DIMENSIONS, ROOT, clean_env, free_port
from .test_cli import store_arguments
from .test_server import graphmem, new_secret

START = datetime(2026, 3, 1, 9, tzinfo=UTC)
READY_WITHIN = 60.0
"""Seconds `graphmem serve` may take to answer /readyz."""


@dataclass
class Running:
    """A running `graphmem serve`: its address, an admin key's secret, its store's flags."""

    url: str
    admin: str
    store: list[str]


Serve = Callable[[list[str]], Running]
"""Start `graphmem serve` on a store's flags, with an admin key made for it; once it is ready."""


def ready(url: str) -> bool:
    """Whether the server at `url` answers /readyz."""
    try:
        with urllib.request.urlopen(f"{url}/readyz", timeout=5) as answer:
            return bool(answer.status == 200)
    except (URLError, OSError):
        return False


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    """Start servers as a test needs them (each logging to a file); stop them after it."""
    started: list[subprocess.Popen[bytes]] = []

    def start(store: list[str]) -> Running:
        admin = new_secret(store, "--admin")
        port = free_port()
        log = tmp_path / f"serve-{port}.log"
        with log.open("wb") as written:
            process = subprocess.Popen(
                [sys.executable, "-m", "graphmem", "serve", "--port", str(port), *store],
                cwd=ROOT,
                env=clean_env(),
                stdout=subprocess.DEVNULL,
                stderr=written,
            )
        started.append(process)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + READY_WITHIN
        while not ready(url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"graphmem serve is not ready: {log.read_text()}")
            time.sleep(0.1)
        return Running(url, admin, store)

    yield start
    for process in started:
        process.terminate()
        assert process.wait(timeout=30) == 0  # stopped well: the memory closed


@pytest.fixture(params=["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def source(request: pytest.FixtureRequest, tmp_path: Path, serve: Serve) -> Running:
    """A server on each store in turn."""
    return serve(store_arguments(request.param, request, tmp_path))


def remember(memory: GraphMem | GraphMemClient, owner: str) -> GraphCounts:
    """Give an owner a memory with a bit of everything (turns, a tombstone, knowledge, the sleep
    job's summaries and facts); its counts."""
    memory.observe_many(
        owner,
        [
            {"text": text, "message_id": f"m{index}", "at": START + index * timedelta(minutes=1)}
            for index, text in enumerate(
                [
                    "I'm allergic to milk.",
                    "I moved to Lyon last spring.",
                    "My PIN is 47-11.",
                    "I play the cello on Sundays.",
                ]
            )
        ],
    )
    assert memory.forget_message(owner, "m2").found
    memory.learn(owner, "sore throat", "a cold", 0.7, at=START)
    memory.consolidate(owner, at=START + timedelta(hours=8))
    counts = memory.statistics(owner)
    assert counts.tombstones == 1
    return counts


def exported_bytes(served: Running, owner: str) -> bytes:
    """What GET /export answers, byte for byte, as `curl` would save it."""
    request = urllib.request.Request(
        f"{served.url}/v1/owners/{quote(owner, safe='')}/export",
        headers={"Authorization": f"Bearer {served.admin}"},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        body: bytes = answer.read()
        return body


def posted_load(served: Running, owner: str, records: list[object]) -> GraphCounts:
    """POST /load with a body of records; the counts it answers."""
    request = urllib.request.Request(
        f"{served.url}/v1/owners/{quote(owner, safe='')}/load",
        data=json.dumps({"records": records}).encode(),
        headers={"Authorization": f"Bearer {served.admin}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return GraphCounts.model_validate_json(answer.read())


def cli_counts(store: list[str], owner: str) -> GraphCounts:
    """An owner's counts as `graphmem stats --json` prints them."""
    done = graphmem("stats", "--owner", owner, "--json", *store)
    assert done.returncode == 0, done.stderr
    return GraphCounts.model_validate_json(done.stdout)


def test_an_http_export_loads_over_http_into_another_memory(
    source: Running, serve: Serve, tmp_path: Path, owner: str
) -> None:
    copy = serve(["--store", "networkx", "--path", str(tmp_path / "copy.json")])
    with GraphMemClient(source.url, source.admin) as client:
        counts = remember(client, owner)
        graph = client.export(owner)
    assert len(graph.tombstones) == 1
    with GraphMemClient(copy.url, copy.admin) as other:
        assert other.load(owner, graph) == counts
        assert other.statistics(owner) == counts
        assert other.export(owner) == graph


def test_an_http_export_saved_to_a_file_is_what_graphmem_import_takes(
    source: Running, tmp_path: Path, owner: str
) -> None:
    with GraphMemClient(source.url, source.admin) as client:
        counts = remember(client, owner)
        graph = client.export(owner)
    saved = tmp_path / "exported.jsonl"
    saved.write_bytes(exported_bytes(source, owner))  # curl .../export > exported.jsonl
    assert read_export(saved.read_text(encoding="utf-8").splitlines()) == (owner, graph)
    copy = ["--store", "networkx", "--path", str(tmp_path / "copy.json")]  # not the server's
    imported = graphmem("import", str(saved), *copy)
    assert imported.returncode == 0, imported.stderr
    assert cli_counts(copy, owner) == counts


def test_a_graphmem_export_file_loads_over_http(
    source: Running, embedder: CachedEmbedder, tmp_path: Path, owner: str
) -> None:
    kept = NetworkXStore.open(tmp_path / "elsewhere.json")  # a store the server does not hold
    kept.prepare(DIMENSIONS)
    try:
        counts = remember(GraphMem(kept, embedder), owner)
    finally:
        kept.close()
    elsewhere = ["--store", "networkx", "--path", str(tmp_path / "elsewhere.json")]
    written = tmp_path / "exported.jsonl"
    exported = graphmem("export", "--owner", owner, "--out", str(written), *elsewhere)
    assert exported.returncode == 0, exported.stderr
    header, *records = map(json.loads, written.read_text(encoding="utf-8").splitlines())
    assert header["owner"] == owner
    assert posted_load(source, owner, records) == counts
    with GraphMemClient(source.url, source.admin) as client:
        assert client.statistics(owner) == counts


def test_over_http_an_observation_says_when_its_message_was_already_stored(
    source: Running, owner: str
) -> None:
    with GraphMemClient(source.url, source.admin) as client:
        first = client.observe(owner, "I keep bees.", message_id="b1", at=START)
        again = client.observe(owner, "I keep bees.", message_id="b1", at=START)
        many = client.observe_many(
            owner, [{"text": "I keep bees.", "message_id": "b1"}, {"text": "I sing in a choir."}]
        )
        unknown = client.forget_message(owner, "never-said")
    assert (first.already_stored, bool(first.memories)) == (False, True)
    assert (again.already_stored, again.memories, again.turn) == (True, [], first.turn)
    assert [observed.already_stored for observed in many] == [True, False]
    assert (unknown.found, unknown.deleted, unknown.rewritten) == (False, {}, {})

    async def awaited() -> bool:
        async with AsyncGraphMemClient(source.url, source.admin) as client:
            return (await client.observe(owner, "I keep bees.", message_id="b1")).already_stored

    assert asyncio.run(awaited())
