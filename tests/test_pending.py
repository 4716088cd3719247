"""Nothing is lost when the model fails: turns are stored first, pending work completes later."""

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import SecretStr

import graphmem.memory
from graphmem.cognition.offline import OfflineCognition
from graphmem.cognition.openai import OpenAICognition
from graphmem.embedding import CachedEmbedder
from graphmem.mechanisms.beliefs import BeliefPolicy
from graphmem.memory import GraphMem
from graphmem.model import Memory
from graphmem.openai_endpoint import OpenAIEndpoint
from graphmem.scoring import RecallPolicy
from graphmem.store.base import Store
from graphmem.testing import (
    Reply,
    ScriptedServer,
    chat_reply,
    offline_answer,
    scripted_openai_server,
)

from .test_sleep_crash import canonical
from .test_store_sleep import FIRST_NIGHT, SECOND_NIGHT

START = datetime(2026, 8, 1, 8, tzinfo=UTC)
DAY = timedelta(days=1)
HOUR = timedelta(hours=1)
TURNS = [f"Day {number}: I walked {number} kilometres along the river." for number in range(12)]


def model(body: dict[str, Any]) -> Reply:
    """A stand-in language model: scores each item by its length, and infers nothing."""
    question = json.loads(body["messages"][-1]["content"])
    if body["response_format"]["json_schema"]["name"] == "Perceptions":
        items = [
            {"score": min(len(item["item"]) / 10, 10), "reason": "length", "impressions": []}
            for item in question["items"]
        ]
        return chat_reply(json.dumps({"items": items}))
    return chat_reply(
        json.dumps({"score": min(len(question["item"]) / 10, 10), "reason": "length"})
    )


OFFLINE = OfflineCognition()


def model_memory(
    store: Store, embedder: CachedEmbedder, server: ScriptedServer, *, retries: int
) -> tuple[GraphMem, OpenAIEndpoint]:
    """A memory whose cognition asks the scripted server, and the endpoint it asks through."""
    endpoint = OpenAIEndpoint(
        server.base_url,
        SecretStr("sk-test"),
        timeout_seconds=2,
        max_retries=retries,
        backoff_seconds=0.01,
    )
    return GraphMem(store, embedder, OpenAICognition(endpoint, "scripted")), endpoint


def offline_model(body: dict[str, Any]) -> Reply:
    """A model that answers every task as the offline cognition does."""
    return chat_reply(offline_answer(OFFLINE, body))


def asked_about(body: dict[str, Any]) -> list[Any]:
    """The questions in a chat completion request's messages (a repair request repeats one)."""
    questions = []
    for message in body["messages"]:
        try:
            questions.append(json.loads(message["content"]))
        except (TypeError, ValueError):
            continue
    return questions


def cannot_perceive_day_six(body: dict[str, Any]) -> Reply:
    """The offline model, except that its answer is cut short whenever it is asked to perceive
    day 6 (the request to repair it included)."""
    for question in asked_about(body):
        if any(item["item"].startswith("Day 6:") for item in question.get("items", [])):
            return chat_reply("{")
    return offline_model(body)


def test_a_model_that_dies_mid_ingestion_loses_nothing(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    with scripted_openai_server(responder=model) as server:
        port = server.port
        memory, endpoint = model_memory(store, embedder, server, retries=1)
        for number in range(4):
            at = START + timedelta(hours=number)
            assert not memory.observe(owner, TURNS[number], message_id=f"t{number}", at=at).pending
    # The model server is gone: every turn is still stored, and marked pending.
    for number in range(4, 10):
        at = START + timedelta(hours=number)
        observed = memory.observe(owner, TURNS[number], message_id=f"t{number}", at=at)
        assert observed.pending
        assert observed.memories == []
    assert store.count_graph(owner).nodes["Turn"] == 10
    assert [turn.id for turn in store.pending_turns(owner, 100)] == [f"t{n}" for n in range(4, 10)]
    assert memory.complete_pending(owner) == 0

    with scripted_openai_server(responder=model, port=port):
        at = START + timedelta(hours=10)
        observed = memory.observe(owner, TURNS[10], message_id="t10", at=at)
        assert not observed.pending
        assert len(store.pending_turns(owner, 100)) == 3  # three of six done by the way
        assert memory.complete_pending(owner) == 3
        again = memory.observe(owner, TURNS[10], message_id="t10", at=at)
        assert (again.pending, again.memories) == (False, [])
    endpoint.close()

    counts = store.count_graph(owner)
    assert counts.nodes == {"Turn": 11, "Memory": 11, "Event": 0, "Impression": 0, "Session": 1}
    assert counts.links == {"FROM": 11, "NEXT": 10}
    assert store.pending_turns(owner, 100) == []
    usage = endpoint.accounting.by_operation()["perceive"]
    assert usage.failures == 7  # six observes and one complete_pending while the model was down
    assert usage.calls == 4 + 7 + 1 + 2  # the six pending turns: two calls of three turns each


def test_a_model_failure_mid_batch_leaves_that_chunk_and_the_rest_pending(
    store: Store, embedder: CachedEmbedder, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(graphmem.memory, "OBSERVE_CHUNK", 4)

    def fails_on_day_six(body: dict[str, Any]) -> Reply:
        """The model, except that it answers HTTP 500 about day 6."""
        if "Day 6:" in body["messages"][-1]["content"]:
            return Reply(status=500, body={"error": "down"})
        return model(body)

    items = [
        {"text": text, "message_id": f"t{number}", "at": START + timedelta(hours=number)}
        for number, text in enumerate(TURNS)
    ]
    with scripted_openai_server(responder=fails_on_day_six) as server:
        memory, endpoint = model_memory(store, embedder, server, retries=0)
        observed = memory.observe_many(owner, items)
        # Chunks of four: t0-t3 derived; t4-t7 failed at t6, so nothing of them is written;
        # t8-t11 were not tried. Every turn is stored.
        assert [item.pending for item in observed] == [False] * 4 + [True] * 8
        assert [len(item.memories) for item in observed] == [1] * 4 + [0] * 8
        assert store.count_graph(owner).nodes["Turn"] == 12
        assert store.count_graph(owner).nodes["Memory"] == 4
        pending = [turn.id for turn in store.pending_turns(owner, 100)]
        assert pending == [f"t{number}" for number in range(4, 12)]
    with scripted_openai_server(responder=model, port=server.port):
        assert memory.complete_pending(owner) == 8
    endpoint.close()
    assert store.pending_turns(owner, 100) == []
    assert store.count_graph(owner).nodes["Memory"] == 12


def test_a_turn_the_model_cannot_answer_about_twice_is_perceived_offline_never_asked_again(
    store: Store, embedder: CachedEmbedder, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(graphmem.memory, "OBSERVE_CHUNK", 4)
    items = [
        {"text": text, "message_id": f"t{number}", "at": START + timedelta(hours=number)}
        for number, text in enumerate(TURNS)
    ]
    with scripted_openai_server(responder=lambda body: Reply(status=503)) as server:
        memory, endpoint = model_memory(store, embedder, server, retries=0)
        assert all(item.pending for item in memory.observe_many(owner, items))
    with scripted_openai_server(responder=cannot_perceive_day_six, port=server.port):
        report = memory.consolidate(owner, at=START + timedelta(days=1))
    assert store.pending_turns(owner, 100) == []
    assert (report.counts["derived"], report.counts["derived offline"]) == (11, 1)
    assert report.counts["summaries"] == 1  # the job went on: the session is summarised
    assert report.counts["facts"] == 12  # day 6's memory too
    memories = [node for node in store.export(owner).nodes if isinstance(node, Memory)]
    offline = [memory.text for memory in memories if memory.offline]
    assert offline == [TURNS[6]]  # marked: the offline cognition perceived it
    with scripted_openai_server(responder=cannot_perceive_day_six, port=server.port) as again:
        later = memory.consolidate(owner, at=START + timedelta(days=2))
        assert again.requests == []  # nothing left to ask: day 6 is not asked about again
    endpoint.close()
    assert not {"derived", "derived offline"} & set(later.counts)
    assert store.count_graph(owner).nodes["Memory"] == 12 + 1  # the turns' and the summary


def test_a_chunk_or_a_fact_the_model_cannot_answer_about_waits_and_the_job_goes_on(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    def garbles_a_digest_and_a_judgement(body: dict[str, Any]) -> Reply:
        """The offline cognition, except that it cannot digest a dialogue with day 3 in it nor
        judge day 5 as a new statement."""
        for question in asked_about(body):
            lines = [line["text"] for line in question.get("lines", [])]
            new = [comparison["new"] for comparison in question.get("comparisons", [])]
            if any(text.startswith("Day 3:") for text in lines) or any(
                text.startswith("Day 5:") for text in new
            ):
                return chat_reply("{")
        return offline_model(body)

    with scripted_openai_server(responder=offline_model) as server:
        memory, endpoint = model_memory(store, embedder, server, retries=0)
        for number, text in enumerate(TURNS):
            at = START + timedelta(hours=number)
            assert not memory.observe(owner, text, message_id=f"t{number}", at=at).pending
    with scripted_openai_server(responder=garbles_a_digest_and_a_judgement, port=server.port):
        report = memory.consolidate(owner, at=START + timedelta(days=1))
    assert report.counts["left unsummarised"] == len(TURNS)  # one chunk: the session's turns
    assert report.counts["left unjudged"] == 1
    assert report.counts["facts"] == len(TURNS) - 1
    assert "summaries" not in report.counts
    assert [fact.text for fact in store.memories_awaiting_consolidation(owner, 100)] == [TURNS[5]]
    with scripted_openai_server(responder=offline_model, port=server.port):
        again = memory.consolidate(owner, at=START + timedelta(days=2))
    endpoint.close()
    assert (again.counts["summaries"], again.counts["facts"]) == (1, 1)
    assert not {"left unjudged", "left unsummarised"} & set(again.counts)
    assert store.memories_awaiting_consolidation(owner, 100) == []
    assert store.turns_awaiting_summary(owner, 100) == []


def test_observe_does_not_ask_again_about_a_turn_the_model_answered_invalidly(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    with scripted_openai_server(responder=cannot_perceive_day_six) as server:
        memory, endpoint = model_memory(store, embedder, server, retries=0)
        observed = [
            memory.observe(owner, text, message_id=f"t{n}", at=START + timedelta(hours=n))
            for n, text in enumerate(TURNS)
        ]
        assert [item.pending for item in observed] == [n == 6 for n in range(len(TURNS))]
        perceived = endpoint.accounting.by_operation()["perceive"]
        # One call a turn: the six observes after day 6 did not ask about it again.
        assert (perceived.calls, perceived.failures) == (len(TURNS), 1)
        report = memory.consolidate(owner, at=START + timedelta(days=1))
    endpoint.close()
    assert report.counts["derived offline"] == 1  # the sleep job asked once more, alone
    assert endpoint.accounting.by_operation()["perceive"].calls == len(TURNS) + 1


def test_observe_does_not_ask_again_about_a_dialogue_the_model_could_not_digest(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    def cannot_digest_day_one(body: dict[str, Any]) -> Reply:
        """The offline model, except that it cannot digest a dialogue with day 1 in it."""
        for question in asked_about(body):
            if any(line["text"].startswith("Day 1:") for line in question.get("lines", [])):
                return chat_reply("{")
        return offline_model(body)

    with scripted_openai_server(responder=cannot_digest_day_one) as server:
        memory, endpoint = model_memory(store, embedder, server, retries=0)
        for number, text in enumerate(TURNS):  # four sessions of three turns
            at = START + timedelta(days=number // 3, hours=number % 3)
            memory.observe(owner, text, message_id=f"t{number}", at=at, session=f"{number // 3}")
        digested = endpoint.accounting.by_operation()["digest_dialogue"]
        # Sessions 0-2 were digested as the next began (the fourth is going on); the sessions
        # that began after the first failed did not ask about it again.
        assert (digested.calls, digested.failures) == (3, 1)
        report = memory.consolidate(owner, at=START + timedelta(days=5))
    endpoint.close()
    assert report.counts["left unsummarised"] == 3  # the sleep job asked once more
    assert report.counts["summaries"] == 1  # the fourth session
    assert endpoint.accounting.by_operation()["digest_dialogue"].calls == 5


def test_turns_too_many_for_the_model_context_are_derived_in_halves_and_fewer_from_then_on(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    def small_context(body: dict[str, Any]) -> Reply:
        """The offline model with a context for questions about three turns at most, and too
        small for day 6's question even alone."""
        for question in asked_about(body):
            items = [item["item"] for item in question.get("items", [])]
            if len(items) > 3 or any(text.startswith("Day 6:") for text in items):
                refusal = "request (9000 tokens) exceeds the available context size (8192 tokens)"
                return Reply(400, {"error": {"message": refusal, "type": "exceed_context_size"}})
        return offline_model(body)

    def turns_asked(server: ScriptedServer) -> list[int]:
        """How many turns each perceive request asked about, in order."""
        return [
            len(question["items"])
            for request in server.requests
            for question in asked_about(request["body"])
            if "items" in question
        ]

    items = [
        {"text": f"Day {day}: I walked {day} kilometres.", "message_id": f"t{day}", "at": START}
        for day in range(18)
    ]
    with scripted_openai_server(responder=small_context) as server:
        memory, endpoint = model_memory(store, embedder, server, retries=0)
        observed = memory.observe_many(owner, items[:12])
        assert [item.pending for item in observed] == [day == 6 for day in range(12)]
        # 12 and 6 refused, 3 and 3 answered: three at a time from then on. Then t6-t11: 6
        # refused, and 3, 2 and 1 with day 6 in them refused; the halves without it answered.
        assert turns_asked(server) == [12, 6, 3, 3, 6, 3, 2, 1, 1, 1, 3]
        server.requests.clear()
        assert all(not item.pending for item in memory.observe_many(owner, items[12:]))
        assert turns_asked(server) == [3, 3]
        assert memory.complete_pending(owner) == 0  # day 6 is left to the sleep job
        assert turns_asked(server) == [3, 3]
        report = memory.consolidate(owner, at=START + timedelta(days=1))
    endpoint.close()
    assert report.counts["derived offline"] == 1  # asked once more, alone, then perceived offline
    assert store.pending_turns(owner, 100) == []


def test_facts_too_many_for_the_model_context_are_judged_in_halves(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    def small_context(body: dict[str, Any]) -> Reply:
        """The offline model with a context for questions about two facts at most."""
        for question in asked_about(body):
            if len(question.get("comparisons", [])) > 2:
                refusal = "the request exceeds the available context size"
                return Reply(400, {"error": {"message": refusal, "type": "exceed_context_size"}})
        return offline_model(body)

    graphs: list[tuple[list[str], list[str]]] = []
    asked: list[list[int]] = []
    for responder in (offline_model, small_context):
        with scripted_openai_server(responder=responder) as server:
            endpoint = OpenAIEndpoint(
                server.base_url, SecretStr("sk-test"), timeout_seconds=2, max_retries=0
            )
            cognition = OpenAICognition(endpoint, "scripted")
            memory = GraphMem(store, embedder, cognition, beliefs=BeliefPolicy(related=1))
            who = f"{owner}-{len(graphs)}"
            for night, texts in enumerate((FIRST_NIGHT, SECOND_NIGHT)):
                for number, text in enumerate(texts):
                    at = START + timedelta(days=night, minutes=10 * number)
                    memory.observe(who, text, message_id=f"{night}-{number}", at=at)
                server.requests.clear()
                report = memory.consolidate(who, at=START + timedelta(days=night, hours=20))
            endpoint.close()
        asked.append(
            [
                len(question["comparisons"])
                for request in server.requests
                for question in asked_about(request["body"])
                if "comparisons" in question
            ]
        )
        assert "left unjudged" not in report.counts
        graphs.append(canonical(store.export(who)))
    assert graphs[1] == graphs[0]
    assert asked == [[6], [6, 3, 1, 2, 3, 1, 2]]  # refused: 6 and both 3s


def test_a_recall_perceives_its_query_through_the_model_and_goes_on_without_it(
    store: Store, embedder: CachedEmbedder, owner: str
) -> None:
    day_one = [  # as tests/test_scenarios_attention.py tells the fever story
        "My throat is sore and I've been tired all day.",
        "I'm allergic to milk: even a little gives me hives.",
        "We bought a new sofa for the living room.",
        "My sister called about her new job.",
    ]
    with scripted_openai_server(responder=offline_model) as server:
        memory, endpoint = model_memory(store, embedder, server, retries=1)
        for number, text in enumerate(day_one):
            memory.observe(owner, text, message_id=f"d{number}", at=START + number * HOUR)
        told = memory.recall(owner, "I started having a fever", k=3, peek=True, at=START + DAY)
        [asked] = json.loads(server.requests[-1]["body"]["messages"][-1]["content"])["items"]
    assert (asked["item"], asked["speaker"]) == ("I started having a fever", "query")
    assert told.motivation >= 8
    assert told.memories[0].memory.text == day_one[0]
    assert [impression.text for impression in told.impressions] == ["The user has a cold"]
    # The model server is gone: the recall goes on at the default motivation, evoking nothing.
    alone = memory.recall(owner, "I started having a fever", k=3, peek=True, at=START + DAY)
    endpoint.close()
    assert alone.attempts[0].motivation == RecallPolicy().default_motivation
    assert alone.impressions == []
    assert alone.memories[0].memory.text == day_one[1]  # the allergy, a little closer in meaning
    usage = endpoint.accounting.by_operation()["perceive"]
    assert (usage.calls, usage.failures) == (len(day_one) + 2, 1)
