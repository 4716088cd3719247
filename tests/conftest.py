"""Fixtures: a real Neo4j started through scripts/neo4j, and store tests run on both stores."""

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import SecretStr

from graphmem.embedding import CachedEmbedder, E5Embedder
from graphmem.memory import GraphMem
from graphmem.store.base import Store
from graphmem.store.neo4j import Neo4jStore
from graphmem.store.networkx import NetworkXStore

ROOT = Path(__file__).resolve().parents[1]
DIMENSIONS = E5Embedder.dimensions


def clean_env() -> dict[str, str]:
    """The tests' environment without GRAPHMEM_* settings, as on a newcomer's machine."""
    return {key: value for key, value in os.environ.items() if not key.startswith("GRAPHMEM_")}


@dataclass(frozen=True)
class Neo4jServer:
    """How the tests reach Neo4j, and how they restart it when the tests started it."""

    uri: str
    user: str
    password: SecretStr
    http_url: str
    home: Path | None
    """The launcher's folder when the tests started the server; None for an external one."""

    def script(self, command: str) -> str:
        """Run scripts/neo4j with this server's folder; return its standard output."""
        assert self.home is not None, "only a server the tests started can be driven"
        environment = {**os.environ, "GRAPHMEM_NEO4J_HOME": str(self.home)}
        environment.setdefault("GRAPHMEM_NEO4J_PAGE_CACHE", "512m")
        environment.setdefault("GRAPHMEM_NEO4J_HEAP", "1g")
        done = subprocess.run(
            [str(ROOT / "scripts" / "neo4j"), command],
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"scripts/neo4j {command} failed:\n{done.stderr}")
        return done.stdout

    def store(self) -> Neo4jStore:
        """A connected store with the schema prepared."""
        store = Neo4jStore.connect(self.uri, self.user, self.password, "neo4j")
        store.prepare(DIMENSIONS)
        return store


@pytest.fixture(scope="session")
def neo4j_server() -> Iterator[Neo4jServer]:
    """Neo4j for the session: GRAPHMEM_TEST_NEO4J_URI if set, else one started on clean data."""
    external = os.environ.get("GRAPHMEM_TEST_NEO4J_URI")
    if external:
        yield Neo4jServer(
            uri=external,
            user=os.environ.get("GRAPHMEM_TEST_NEO4J_USER", "neo4j"),
            password=SecretStr(os.environ["GRAPHMEM_TEST_NEO4J_PASSWORD"]),
            http_url=os.environ.get("GRAPHMEM_TEST_NEO4J_HTTP", "http://127.0.0.1:7474"),
            home=None,
        )
        return
    home = Path(os.environ.get("GRAPHMEM_TEST_NEO4J_HOME", ROOT / ".neo4j-test"))
    shutil.rmtree(home / "data", ignore_errors=True)
    server = Neo4jServer(
        uri="bolt://127.0.0.1:7687",
        user="neo4j",
        password=SecretStr(""),
        http_url="http://127.0.0.1:7474",
        home=home,
    )
    server.script("start")
    server = Neo4jServer(
        uri=server.uri,
        user=server.user,
        password=SecretStr(server.script("password").strip()),
        http_url=server.http_url,
        home=home,
    )
    try:
        yield server
    finally:
        server.script("stop")


@pytest.fixture(scope="session")
def embedder() -> CachedEmbedder:
    """The offline embedder, cached in memory for the whole session."""
    return CachedEmbedder(E5Embedder())


@pytest.fixture
def owner() -> str:
    """A fresh owner, so tests never see each other's memories."""
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture(params=["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """Each store in turn: a test runs on networkx (persisted to a file) and on Neo4j."""
    opened: Store
    if request.param == "neo4j":
        opened = request.getfixturevalue("neo4j_server").store()
    else:
        opened = NetworkXStore.open(tmp_path / "graph.json")
        opened.prepare(DIMENSIONS)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def memory(store: Store, embedder: CachedEmbedder) -> GraphMem:
    """The facade over each store in turn (closed with the store)."""
    return GraphMem(store, embedder)
