"""Faults during ingestion and the sleep job: afterwards the graph is that of a fault-free run.

The model is an OpenAI-compatible server on 127.0.0.1 that answers every task as the offline
cognition would, so a run through it is deterministic; faults are injected on a fixed schedule
of request numbers: server errors, garbage, hung requests, and a burst of errors longer than
the client's retries, which stops the sleep job until it is run again.
"""

import json
import os
import random
import signal
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from graphmem.cognition.offline import OfflineCognition
from graphmem.cognition.openai import OpenAICognition
from graphmem.contract import OwnerGraph
from graphmem.embedding import CachedEmbedder
from graphmem.errors import ModelError
from graphmem.memory import GraphMem
from graphmem.model import Turn
from graphmem.openai_endpoint import OpenAIEndpoint
from graphmem.store.base import Store
from graphmem.store.networkx import NetworkXStore
from graphmem.testing import (
    Reply,
    ScriptedServer,
    chat_reply,
    offline_answer,
    scripted_openai_server,
)

from .conftest import Forked, Neo4jServer, clean_env, forked_graphmem, run_forked
from .test_sleep_crash import CONVERSATION, JOB_AT, START, canonical, check_counts, observe_all
from .test_store_sleep import rounded

pytestmark = pytest.mark.long

KILLS = 3
"""graphmem observe is killed this many times a store, each in the middle of a random batch."""


class OfflineModel:
    """A model server's answers: the offline cognition's, with faults on a schedule once armed.

    Counting requests from arming (the job makes about nine when nothing fails): the second is
    garbage (the client asks for a repair), the third hangs past the client's timeout, every
    7th is a 500, and requests 4-13 all fail with 503 (more than the client retries: the job
    stops with a ModelError until it is run again).
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
            burst = 4 <= self._count < 14
            return Reply(status=503 if burst else 500, body={"error": "scripted"})
        if fault == "garbage":
            return chat_reply('{"this is": not json')
        if fault == "hang":
            return Reply(hang=True)
        return chat_reply(offline_answer(self._cognition, body))

    @staticmethod
    def _fault(number: int) -> str | None:
        """The fault of the number-th armed request, if any."""
        if number == 2:
            return "garbage"
        if number == 3:
            return "hang"
        if 4 <= number < 14 or number % 7 == 0:
            return "error"
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


@pytest.fixture(scope="module")
def fault_free(embedder: CachedEmbedder, tmp_path_factory: pytest.TempPathFactory) -> OwnerGraph:
    """The conversation and the sleep job through the model server without faults (on the
    embedded store): the graph that the runs with faults must end in, on either store."""
    reference_store = NetworkXStore.open(tmp_path_factory.mktemp("fault-free") / "graph.json")
    with scripted_openai_server(OfflineModel()) as server:
        reference = memory_through(server, reference_store, embedder)
        observe_all(reference, "fault-free")
        reference.consolidate("fault-free", at=JOB_AT)
    expected = reference_store.export("fault-free")
    reference_store.close()
    check_counts(expected)
    return expected


def test_model_errors_garbage_and_hangs_during_the_sleep_job_change_nothing(
    store: Store,
    embedder: CachedEmbedder,
    fault_free: OwnerGraph,
    owner: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
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
    assert rounded(canonical(store.export(owner))) == rounded(canonical(fault_free))
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
                "message_id": f"m{number}",
                "at": (START + timedelta(days=days[session], hours=4 * (number % 4))).isoformat(),
                "session": session,
            }
        )
        for number, (session, text) in enumerate(CONVERSATION)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def run_to_the_end(command: list[str], environment: dict[str, str]) -> int:
    """Run a CLI command again until it succeeds, each failure because Neo4j was away.

    Returns how many runs failed."""
    failed = 0
    while (done := run_forked(command, environment)).returncode != 0:
        check_unreachable(done.stderr)
        failed += 1
        assert failed < 3
    return failed


def check_unreachable(errors: str) -> None:
    """A failed run says, without a traceback, that Neo4j could not be reached."""
    assert "Traceback" not in errors
    assert "Neo4j could not be reached" in errors, errors


def under_way(run: Forked) -> None:
    """Wait until a forked graphmem process has printed three lines."""
    for _line in range(3):
        assert run.out.readline()


RETRIED = "Transaction failed and will be retried"
"""What the Neo4j driver logs, a warning on standard error, when it retries a failed transaction."""


def meet_neo4j_away(run: Forked) -> None:
    """Wait until a forked graphmem process working while Neo4j is away has met it away: its
    driver is to retry a transaction that failed, or the process ended (a minute at most)."""
    deadline = time.monotonic() + 60
    while RETRIED not in run.errors.read_text() and run.process.exitcode is None:
        assert time.monotonic() < deadline, "the run did not meet Neo4j away"
        run.process.join(0.05)  # waits for the process to end, or 50 ms


def send(run: Forked, signal_number: int) -> None:
    """Send a signal to a forked graphmem process, unless it has ended."""
    assert run.process.pid is not None
    if run.process.exitcode is None:
        os.kill(run.process.pid, signal_number)


@pytest.mark.neo4j
def test_neo4j_restarted_during_ingestion_and_the_sleep_job_loses_nothing(
    neo4j_server: Neo4jServer,
    owner: str,
    embedder: CachedEmbedder,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The suite's one restart of Neo4j: what was written before it is read and recalled after
    it, and work it struck in flight is retried and ends as if there had been no restart."""
    if neo4j_server.home is None:
        pytest.fail("this test restarts Neo4j: run it on the server the tests start themselves")
    messages = messages_file(tmp_path / "messages.jsonl")
    environment = {
        **clean_env(),
        "GRAPHMEM_STORE": "neo4j",
        "GRAPHMEM_NEO4J_URI": neo4j_server.uri,
        "GRAPHMEM_NEO4J_PASSWORD": neo4j_server.password.get_secret_value(),
    }

    def observe(whom: str) -> list[str]:
        # Batches of five: the restart comes after the first batch, with more to write.
        return ["observe", "--owner", whom, str(messages), "--batch", "5"]

    def job(whom: str) -> list[str]:
        return ["consolidate", "--owner", whom, "--at", JOB_AT.isoformat(), "--log-every", "1"]

    calm, ingested, slept = f"{owner}-calm", f"{owner}-ingested", f"{owner}-slept"
    failed_runs = 0
    for command in (observe(calm), job(calm), observe(slept)):
        failed_runs += run_to_the_end(command, environment)
    # One restart for both, striking both mid-work: the ingestion of one owner, once under way
    # (three of its 16 lines printed), is held with SIGSTOP; so is the sleep job of another once
    # under way (three of its 19 steps). Neo4j stops under their open connections and both go
    # on until each has met it away: a transaction it was running failed and its driver waits
    # to retry it (or, had it run a statement the driver does not retry, the run ended saying
    # Neo4j could not be reached: it is run again). Held again while Neo4j starts, as the
    # driver gives up 30 s after a first failure, they go on and the retries find Neo4j back.
    interrupted = {ingested: observe(ingested), slept: job(slept)}
    retries: dict[str, list[str]] = {}
    with forked_graphmem(interrupted[ingested], environment) as ingestion:
        under_way(ingestion)
        send(ingestion, signal.SIGSTOP)
        with forked_graphmem(interrupted[slept], environment) as sleep:
            under_way(sleep)
            send(sleep, signal.SIGSTOP)
            runs = {ingested: ingestion, slept: sleep}
            neo4j_server.script("stop")
            for run in runs.values():
                send(run, signal.SIGCONT)
            for run in runs.values():
                meet_neo4j_away(run)
                send(run, signal.SIGSTOP)
            neo4j_server.script("start")
            for run in runs.values():
                send(run, signal.SIGCONT)
            for whom, run in runs.items():
                run.process.join()
                errors = run.errors.read_text()
                retries[whom] = [line for line in errors.splitlines() if RETRIED in line]
                if retries[whom]:  # struck in flight: the retry found Neo4j back
                    assert run.process.exitcode == 0, errors
                else:  # struck, and ended by it
                    check_unreachable(errors)
                    failed_runs += 1 + run_to_the_end(interrupted[whom], environment)
    assert any(retries.values())  # a transaction in flight when Neo4j went was retried
    failed_runs += run_to_the_end(job(ingested), environment)
    store = neo4j_server.store()
    try:
        graphs = {whom: store.export(whom) for whom in (calm, ingested, slept)}
        # Written before the restart: found again through the indexes too.
        recalled = GraphMem(store, embedder).recall(calm, "peanuts", k=3, peek=True)
    finally:
        store.close()
    found = {item.memory.text: [turn.id for turn in item.turns] for item in recalled.memories}
    assert found["I'm allergic to peanuts, so I check every label."] == ["m3"]
    check_counts(graphs[calm])
    for whom in (ingested, slept):
        turns = [node.id for node in graphs[whom].nodes if isinstance(node, Turn)]
        assert sorted(turns) == sorted(f"m{number}" for number in range(len(CONVERSATION)))
        assert canonical(graphs[whom]) == canonical(graphs[calm]), whom
    with capsys.disabled():
        print(
            f"\nNeo4j restarted once under an ingestion and a sleep job, both mid-work:"
            f" transactions retried {[len(lines) for lines in retries.values()]} times,"
            f" runs failed and run again: {failed_runs}; {len(CONVERSATION)} turns, each once;"
            " same graphs"
        )


class HoldingModel:
    """A model server's answers, the offline cognition's, but for one perception held unanswered.

    `hold(texts)` picks the batch: the next request to perceive exactly those texts never gets
    an answer, and `asked` is set when it comes, while its process waits for the answer.
    """

    def __init__(self) -> None:
        self._cognition = OfflineCognition()
        self._lock = threading.Lock()
        self._held: list[str] | None = None
        self.asked = threading.Event()

    def hold(self, texts: list[str]) -> None:
        """Hold the next request to perceive these texts, in this order."""
        with self._lock:
            self._held = texts
            self.asked.clear()

    def __call__(self, body: dict[str, Any]) -> Reply:
        """Answer one chat completion request, or hold it."""
        if body["response_format"]["json_schema"]["name"] == "Perceptions":
            asked = next(message for message in body["messages"] if message["role"] == "user")
            texts = [entry["item"] for entry in json.loads(asked["content"])["items"]]
            with self._lock:
                held = texts == self._held
                if held:
                    self._held = None
            if held:
                self.asked.set()
                return Reply(hang=True)
        return chat_reply(offline_answer(self._cognition, body))


def observed_lines(output: str) -> dict[str, str]:
    """What `graphmem observe` printed of each message: its id and its state."""
    lines = [line.split(": ", 1) for line in output.splitlines() if not line.startswith(" ")]
    return {message_id: state for message_id, state in lines}


@pytest.mark.parametrize("store", ["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_ingestion_killed_in_the_middle_of_a_batch_loses_and_doubles_nothing(
    store: str,
    request: pytest.FixtureRequest,
    owner: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`graphmem observe --batch 5` stores a batch's turns in one transaction, then derives
    their memories through the model in another. It is killed between the two, while it waits
    for the model's perception of a random batch: the batch's turns are stored and pending, none
    has a memory, and only the batches before it were acknowledged. Run again, it derives that
    batch alone, and the graph is the one of a run never killed."""
    messages = messages_file(tmp_path / "messages.jsonl")
    model = HoldingModel()
    with scripted_openai_server(model) as server:
        environment = {
            **clean_env(),
            "GRAPHMEM_COGNITION": "openai",
            "GRAPHMEM_OPENAI_BASE_URL": server.base_url,
            "GRAPHMEM_OPENAI_API_KEY": "sk-test",
            "GRAPHMEM_OPENAI_CHAT_MODEL": "offline-model",
        }
        if store == "neo4j":
            neo4j: Neo4jServer = request.getfixturevalue("neo4j_server")
            environment["GRAPHMEM_STORE"] = "neo4j"
            environment["GRAPHMEM_NEO4J_URI"] = neo4j.uri
            environment["GRAPHMEM_NEO4J_PASSWORD"] = neo4j.password.get_secret_value()

        def where(whom: str) -> list[str]:
            return ["--path", str(tmp_path / f"{whom}.json")] if store == "networkx" else []

        def stored(whom: str) -> OwnerGraph:
            if store == "networkx":
                opened: Store = NetworkXStore.open(tmp_path / f"{whom}.json")
            else:
                opened = neo4j.store()
            graph = opened.export(whom)
            opened.close()
            return graph

        def observe(whom: str) -> list[str]:
            # Batches of five, in the killed runs as in the others: a turn's working memory holds
            # the earlier turns of its batch, so the batches must be the same for the graphs to be.
            return ["observe", "--owner", whom, *where(whom), str(messages), "--batch", "5"]

        def finish(whom: str) -> tuple[dict[str, str], OwnerGraph]:
            """Observe every message and run the sleep job; what observe printed, and the graph."""
            observed = run_forked(observe(whom), environment)
            assert observed.returncode == 0, observed.stderr
            job = ["consolidate", "--owner", whom, *where(whom), "--at", JOB_AT.isoformat()]
            slept = run_forked(job, environment)
            assert slept.returncode == 0, slept.stderr
            return observed_lines(observed.stdout), stored(whom)

        every = [f"m{number}" for number in range(len(CONVERSATION))]
        batches = [every[first : first + 5] for first in range(0, len(every), 5)]
        calm = canonical(finish(owner + "-calm")[1])
        kills = []
        for seed in range(KILLS):
            whom = f"{owner}-{seed}"
            number = random.Random(seed).randrange(len(batches))
            batch, before = batches[number], set(every[: 5 * number])
            model.hold([CONVERSATION[int(message_id[1:])][1] for message_id in batch])
            with forked_graphmem(observe(whom), environment) as run:
                assert model.asked.wait(60), run.errors.read_text()
                run.process.kill()
                run.process.join()
                acknowledged = observed_lines(run.out.read())
            kills.append(number)
            # Killed in the middle of the batch: its turns are stored, pending, without memories,
            # after every batch before it, each done, and nothing of the batches after it.
            graph = stored(whom)
            turns = {node.id: node for node in graph.nodes if isinstance(node, Turn)}
            derived = {link.target for _s, _t, link in graph.links if link.type == "FROM"}
            assert set(acknowledged) == before
            assert sorted(turns) == sorted([*before, *batch])
            assert sorted(turn.id for turn in turns.values() if turn.pending) == sorted(batch)
            assert derived & set(batch) == set()
            assert before <= derived
            # Run again: the acknowledged turns are already stored, the batch derived now, once.
            replayed, graph = finish(whom)
            assert {
                message_id for message_id, state in replayed.items() if state == "already stored"
            } == before
            assert all(replayed[message_id].startswith("attention") for message_id in batch)
            turn_ids = [node.id for node in graph.nodes if isinstance(node, Turn)]
            assert sorted(turn_ids) == sorted(every)
            assert canonical(graph) == calm, f"seed {seed}"
    with capsys.disabled():
        print(
            f"\nSIGKILL of graphmem observe on {store} between the turns and the memories of"
            f" batch {kills} of {len(batches)}: each batch's turns stored and pending, none"
            " derived; run again: turns lost 0, doubled 0; same graph"
        )
