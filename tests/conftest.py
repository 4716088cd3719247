"""Fixtures: a real Neo4j started through scripts/neo4j, store tests run on both stores, and a
data folder of its own for each test (the command line keeps its default file there)."""

import multiprocessing
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

import pytest
from pydantic import SecretStr

import graphmem.cli
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


FORKS = multiprocessing.get_context("forkserver")
"""Processes forked from a server that has imported graphmem once: each is a real process
(SIGKILL kills it as it would `python -m graphmem`) that starts without a second of imports."""
FORKS.set_forkserver_preload(["graphmem.cli", "tests.conftest"])


def _graphmem_in_fork(
    arguments: list[str], environment: dict[str, str], out: Connection, folder: str
) -> None:
    """The forked process: `python -m graphmem ARGUMENTS` with this environment, its standard
    output to `out`, its standard input and error the files stdin and stderr in `folder`."""
    os.environ.clear()
    os.environ.update(environment)
    os.dup2(out.fileno(), sys.stdout.fileno())
    out.close()
    with open(Path(folder) / "stderr", "w") as errors:
        os.dup2(errors.fileno(), sys.stderr.fileno())
    sys.stdin = open(Path(folder) / "stdin", encoding="utf-8")  # noqa: SIM115 (read until exit)
    sys.exit(graphmem.cli.main(arguments))


@dataclass(frozen=True)
class Forked:
    """A `graphmem` command running in a forked process: the process and its standard output."""

    process: BaseProcess
    out: TextIO
    errors: Path
    """The file of its standard error, there while the run is."""


@contextmanager
def forked_graphmem(
    arguments: list[str], environment: dict[str, str], stdin: str = ""
) -> Iterator[Forked]:
    """Run `graphmem ARGUMENTS` in a forked process, as `python -m graphmem` with this
    environment would; it is killed with SIGKILL if it still runs at the end."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "stdin").write_text(stdin, encoding="utf-8")
        (Path(folder) / "stderr").touch()
        reader, writer = FORKS.Pipe(duplex=False)
        process = FORKS.Process(
            target=_graphmem_in_fork, args=(arguments, environment, writer, folder)
        )
        process.start()
        writer.close()  # the child holds the only writing end: its exit ends the output
        try:
            with open(os.dup(reader.fileno()), encoding="utf-8") as out:
                reader.close()
                yield Forked(process, out, Path(folder) / "stderr")
        finally:
            if process.is_alive():
                process.kill()
            process.join()


@contextmanager
def forked_together(
    commands: list[list[str]], environment: dict[str, str]
) -> Iterator[tuple[list[BaseProcess], TextIO]]:
    """Run several `graphmem` commands in forked processes writing to one pipe: their lines
    come in the order they were written (a line is one write, atomic in a pipe). Each is killed
    with SIGKILL if it still runs at the end."""
    with tempfile.TemporaryDirectory() as folder:
        reader, writer = FORKS.Pipe(duplex=False)
        processes: list[BaseProcess] = []
        for number, arguments in enumerate(commands):
            own = Path(folder) / str(number)
            own.mkdir()
            (own / "stdin").touch()
            (own / "stderr").touch()
            processes.append(
                FORKS.Process(
                    target=_graphmem_in_fork, args=(arguments, environment, writer, str(own))
                )
            )
        for process in processes:
            process.start()
        writer.close()  # the children hold the only writing ends: their exits end the output
        try:
            with open(os.dup(reader.fileno()), encoding="utf-8") as out:
                reader.close()
                yield processes, out
        finally:
            for process in processes:
                if process.is_alive():
                    process.kill()
                process.join()


def run_forked(
    arguments: list[str], environment: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """Run `graphmem ARGUMENTS` to the end in a forked process: its exit code and output."""
    with forked_graphmem(arguments, environment, stdin) as forked:
        output = forked.out.read()
        forked.process.join()
        errors = forked.errors.read_text()
    code = forked.process.exitcode
    assert code is not None
    return subprocess.CompletedProcess(arguments, code, output, errors)


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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
        environment = {
            **os.environ,
            "GRAPHMEM_NEO4J_HOME": str(self.home),
            "GRAPHMEM_NEO4J_BOLT_PORT": str(urlsplit(self.uri).port),
            "GRAPHMEM_NEO4J_HTTP_PORT": str(urlsplit(self.http_url).port),
        }
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
    server = Neo4jServer(  # on free ports: the suite runs beside any other Neo4j
        uri=f"bolt://127.0.0.1:{free_port()}",
        user="neo4j",
        password=SecretStr(""),
        http_url=f"http://127.0.0.1:{free_port()}",
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


@pytest.fixture(autouse=True)
def user_data_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """XDG_DATA_HOME set to a folder of the test's own: no command run writes the user's file."""
    folder = tmp_path_factory.mktemp("xdg-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder
