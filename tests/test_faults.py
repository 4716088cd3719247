"""Faults during ingestion and the sleep job: afterwards the graph is that of a fault-free run.

The model is an OpenAI-compatible server on 127.0.0.1 that answers every task as the offline
cognition would, so a run through it is deterministic; faults are injected on a fixed schedule
of request numbers: server errors, garbage, hung requests, and a burst of errors longer than
the client's retries, which stops the sleep job until it is run again.
"""

import threading
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, SecretStr

from graphmem.cognition.base import (
    AttentionQuestion,
    Dialogue,
    EventUpdate,
    FactPair,
    InferenceQuestion,
)
from graphmem.cognition.offline import OfflineCognition
from graphmem.cognition.openai import OpenAICognition
from graphmem.embedding import CachedEmbedder
from graphmem.errors import ModelError
from graphmem.memory import GraphMem
from graphmem.openai_endpoint import OpenAIEndpoint
from graphmem.store.base import Store
from graphmem.store.networkx import NetworkXStore
from graphmem.testing import Reply, ScriptedServer, chat_reply, scripted_openai_server

from .test_sleep_crash import JOB_AT, canonical, check_counts, observe_all
from .test_store_sleep import rounded

QUESTIONS: dict[str, tuple[str, type[BaseModel]]] = {
    "AttentionLabel": ("label_attention", AttentionQuestion),
    "DialogueSummary": ("summarise_dialogue", Dialogue),
    "EventTags": ("tag_events", Dialogue),
    "Storyline": ("merge_event", EventUpdate),
    "FactJudgement": ("judge_facts", FactPair),
    "Impressions": ("infer_impressions", InferenceQuestion),
}
"""Each task by the name of its answer's schema: the offline method and its question."""


class OfflineModel:
    """A model server's answers: the offline cognition's, with faults on a schedule once armed.

    Counting requests from arming: every 7th is a 500, every 11th garbage (the client asks for
    a repair), every 13th hangs past the client's timeout, and requests 40-49 all fail with 503
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
            return Reply(status=500 if self._count < 40 else 503, body={"error": "scripted"})
        if fault == "garbage":
            return chat_reply('{"this is": not json')
        if fault == "hang":
            return Reply(hang=True)
        method, question = QUESTIONS[body["response_format"]["json_schema"]["name"]]
        asked = next(message for message in body["messages"] if message["role"] == "user")
        answer = getattr(self._cognition, method)(question.model_validate_json(asked["content"]))
        return chat_reply(answer.model_dump_json())

    @staticmethod
    def _fault(number: int) -> str | None:
        """The fault of the number-th armed request, if any."""
        if 40 <= number < 50 or number % 7 == 0:
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
    store: Store, embedder: CachedEmbedder, owner: str, tmp_path: Path
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
    print(
        f"\nmodel faults in the sleep job: {dict(model.faults)}, job stopped {stopped}x: same graph"
    )
