"""Faults during ingestion and the sleep job: afterwards the graph is that of a fault-free run.

The model is an OpenAI-compatible server on 127.0.0.1 that answers every task as the offline
cognition would, so a run through it is deterministic; faults are injected on a fixed schedule
of request numbers: server errors, garbage, hung requests, and a burst of errors longer than
the client's retries, which stops the sleep job until it is run again.
"""

import json
import random
import subprocess
import sys
import threading
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from graphmem.cognition.offline import OfflineCognition
from graphmem.cognition.openai import OpenAICognition
from graphmem.embedding import CachedEmbedder
from graphmem.errors import ModelError
from graphmem.memory import GraphMem
from graphmem.model import Turn
from graphmem.openai_endpoint import OpenAIEndpoint
from graphmem.store.base import OwnerGraph, Store
from graphmem.store.networkx import NetworkXStore
from graphmem.testing import (
    Reply,
    ScriptedServer,
    chat_reply,
    offline_answer,
    scripted_openai_server,
)

from .conftest import Neo4jServer, clean_env
from .test_sleep_crash import CONVERSATION, JOB_AT, START, canonical, check_counts, observe_all
from .test_store_sleep import rounded

pytestmark = pytest.mark.long

KILLS = 3
"""graphmem observe is killed this many times a store, each after a random number of messages."""


class OfflineModel:
    """A model server's answers: the offline cognition's, with faults on a schedule once armed.

    Counting requests from arming: every 7th is a 500, every 11th garbage (the client asks for
    a repair), every 13th hangs past the client's timeout, and requests 20-29 all fail with 503
    (more than the client retries: the job stops with a ModelError).
    """

    def __init__(self) -> None:
        self._cognition = OfflineCognition()
        self._lock = threading.Lock()
        self._armed = False
        self._count = 0
        self.faults: Counter[str] = Counter()

    def arm(self) -> None:
        """Start injecting faults."""
        with self._lock:
            self._armed = True

    def __call__(self, body: dict[str, Any]) -> Reply:
        """Answer one chat completion request."""
        with self._lock:
            self._count += self._armed
            fault = self._fault(self._count) if self._armed else None
            if fault is not None:
                self.faults[fault] += 1
        if fault == "error":
            return Reply(status=500 if self._count < 20 else 503, body={"error": "scripted"})
        if fault == "garbage":
            return chat_reply('{"this is": not json')
        if fault == "hang":
            return Reply(hang=True)
        return chat_reply(offline_answer(self._cognition, body))

    @staticmethod
    def _fault(number: int) -> str | None:
        """The fault of the number-th armed request, if any."""
        if 20 <= number < 30 or number % 7 == 0:
            return "error"
        if number % 11 == 0:
            return "garbage"
        if number % 13 == 0:
            return "hang"
        return None


def memory_through(server: ScriptedServer, store: Store, embedder: CachedEmbedder) -> GraphMem:
    """A GraphMem whose cognition is the model behind the server (short timeout, 3 retries)."""
    endpoint = OpenAIEndpoint(
        server.base_url,
        SecretStr("sk-test"),
        timeout_seconds=0.5,
        max_retries=3,
        backoff_seconds=0.01,
        max_concurrent=1,
        cache=None,
    )
    return GraphMem(store, embedder, OpenAICognition(endpoint, "offline-model"))


def test_model_errors_garbage_and_hangs_during_the_sleep_job_change_nothing(
    store: Store,
    embedder: CachedEmbedder,
    owner: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    reference_store = NetworkXStore.open(tmp_path / "reference.json")
    with scripted_openai_server(OfflineModel()) as server:
        reference = memory_through(server, reference_store, embedder)
        observe_all(reference, owner)
        reference.consolidate(owner, at=JOB_AT)
    expected = reference_store.export(owner)
    reference_store.close()
    check_counts(expected)

    model = OfflineModel()
    with scripted_openai_server(model) as server:
        memory = memory_through(server, store, embedder)
        observe_all(memory, owner)
        model.arm()
        stopped = 0
        while True:
            try:
                memory.consolidate(owner, at=JOB_AT)
                break
            except ModelError:
                stopped += 1
                assert stopped < 5
    assert set(model.faults) == {"error", "garbage", "hang"}
    assert model.faults["error"] > 10  # the burst of ten stopped the job once
    assert stopped >= 1
    assert rounded(canonical(store.export(owner))) == rounded(canonical(expected))
    with capsys.disabled():
        print(
            f"\nmodel faults in the sleep job: {dict(model.faults)},"
            f" job stopped {stopped}x: same graph"
        )


def messages_file(path: Path) -> Path:
    """The conversation of test_sleep_crash as JSON lines for `graphmem observe`."""
    days = {"mon": 0, "tue": 1, "wed": 2, "fri": 4}
    lines = [
        json.dumps(
            {
                "text": text,
                "id": f"m{number}",
                "at": (START + timedelta(days=days[session], hours=4 * (number % 4))).isoformat(),
                "session": session,
            }
        )
        for number, (session, text) in enumerate(CONVERSATION)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def run_to_the_end(
    command: list[str], environment: dict[str, str], restart_after: int | None, server: Neo4jServer
) -> int:
    """Run a CLI command; restart Neo4j after it printed `restart_after` lines; run it again
    until it succeeds. Returns how many runs failed."""
    failed = 0
    while True:
        with subprocess.Popen(
            command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        ) as process:
            assert process.stdout is not None
            if restart_after is not None:
                for _line in range(restart_after):
                    process.stdout.readline()
                server.script("restart")
                restart_after = None
            _out, errors = process.communicate()
        if process.returncode == 0:
            return failed
        assert "Traceback" not in errors
        assert "Neo4j could not be reached" in errors, errors
        failed += 1
        assert failed < 3


@pytest.mark.neo4j
def test_neo4j_restarted_during_ingestion_and_the_sleep_job_loses_nothing(
    neo4j_server: Neo4jServer, owner: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if neo4j_server.home is None:
        pytest.fail("this test restarts Neo4j: run it on the server the tests start themselves")
    messages = messages_file(tmp_path / "messages.jsonl")
    environment = {
        **clean_env(),
        "GRAPHMEM_STORE": "neo4j",
        "GRAPHMEM_NEO4J_URI": neo4j_server.uri,
        "GRAPHMEM_NEO4J_PASSWORD": neo4j_server.password.get_secret_value(),
    }
    graphmem = [sys.executable, "-m", "graphmem"]
    graphs = []
    failed_runs = 0
    for whom, restart in ((owner + "-calm", None), (owner, 3)):
        observe = [*graphmem, "observe", "--owner", whom, str(messages)]
        failed_runs += run_to_the_end(observe, environment, restart, neo4j_server)
        job = [*graphmem, "consolidate", "--owner", whom, "--at", JOB_AT.isoformat()]
        job += ["--log-every", "1"]
        failed_runs += run_to_the_end(job, environment, restart, neo4j_server)
        store = neo4j_server.store()
        graphs.append(store.export(whom))
        store.close()
    calm, restarted = graphs
    check_counts(calm)
    turns = [node.id for node in restarted.nodes if isinstance(node, Turn)]
    assert sorted(turns) == sorted(f"m{number}" for number in range(len(CONVERSATION)))
    assert canonical(restarted) == canonical(calm)
    with capsys.disabled():
        print(
            f"\nNeo4j restarted twice (ingestion, sleep job): {failed_runs} runs failed and were"
            f" run again; {len(turns)} turns, each once; same graph"
        )


@pytest.mark.parametrize("store", ["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_ingestion_killed_at_random_points_loses_and_doubles_nothing(
    store: str,
    request: pytest.FixtureRequest,
    owner: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    messages = messages_file(tmp_path / "messages.jsonl")
    environment = clean_env()
    if store == "neo4j":
        server: Neo4jServer = request.getfixturevalue("neo4j_server")
        environment["GRAPHMEM_STORE"] = "neo4j"
        environment["GRAPHMEM_NEO4J_URI"] = server.uri
        environment["GRAPHMEM_NEO4J_PASSWORD"] = server.password.get_secret_value()
    graphmem = [sys.executable, "-m", "graphmem"]

    def where(whom: str) -> list[str]:
        return ["--path", str(tmp_path / f"{whom}.json")] if store == "networkx" else []

    def stored(whom: str) -> OwnerGraph:
        if store == "networkx":
            opened: Store = NetworkXStore.open(tmp_path / f"{whom}.json")
        else:
            opened = server.store()
        graph = opened.export(whom)
        opened.close()
        return graph

    def finish(whom: str) -> OwnerGraph:
        for command in ("observe", "consolidate"):
            # Batches of five, as in the killed runs: a turn's working memory holds the earlier
            # turns of its batch, so the batches must be the same for the graphs to be.
            arguments = (
                [str(messages), "--batch", "5"]
                if command == "observe"
                else ["--at", JOB_AT.isoformat()]
            )
            subprocess.run(
                [*graphmem, command, "--owner", whom, *where(whom), *arguments],
                env=environment,
                capture_output=True,
                check=True,
            )
        return stored(whom)

    calm = canonical(finish(owner + "-calm"))
    kills = []
    for seed in range(KILLS):
        whom = f"{owner}-{seed}"
        # Batches of five: the process is killed in the middle of a batch (the line it has
        # printed last ends the batch before), while deriving or writing its memories.
        command = [*graphmem, "observe", "--owner", whom, *where(whom), str(messages)]
        command += ["--batch", "5"]
        with subprocess.Popen(
            command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        ) as process:
            assert process.stdout is not None
            observed = random.Random(seed).randrange(len(CONVERSATION))
            printed = [process.stdout.readline() for _line in range(observed)]
            acknowledged = {line.split(":")[0] for line in printed if not line.startswith(" ")}
            process.kill()
            kills.append(observed)
        kept = {node.id for node in stored(whom).nodes if isinstance(node, Turn)}
        assert acknowledged <= kept
        graph = finish(whom)
        turns = [node.id for node in graph.nodes if isinstance(node, Turn)]
        assert sorted(turns) == sorted(f"m{number}" for number in range(len(CONVERSATION)))
        assert canonical(graph) == calm, f"seed {seed}"
    with capsys.disabled():
        print(
            f"\nSIGKILL of graphmem observe on {store}, after {kills} of {len(CONVERSATION)}"
            f" messages: turns lost 0, doubled 0; same graph"
        )
