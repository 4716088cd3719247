"""The OpenAI cognition against a scripted local server: answers, repairs, retries, accounting."""

import json
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import SecretStr

from graphmem.cognition.base import (
    AttentionQuestion,
    Dialogue,
    DialogueLine,
    FactComparison,
    FactComparisons,
    OlderFact,
    RelatedMemory,
)
from graphmem.cognition.offline import OfflineCognition
from graphmem.cognition.openai import OpenAICognition
from graphmem.config import Settings
from graphmem.errors import ModelError, ModelOutputError, ModelRequestError, ModelTooLongError
from graphmem.memory import GraphMem
from graphmem.model import MAX_TEXT_CHARS
from graphmem.openai_endpoint import OpenAIEndpoint, OperationUsage, ResponseCache
from graphmem.testing import (
    Reply,
    ScriptedServer,
    chat_reply,
    offline_answer,
    scripted_openai_server,
)

QUESTION = AttentionQuestion(
    item="桌上有半杯牛奶。",
    speaker="user",
    working_memory=[RelatedMemory(text="我对牛奶过敏。", attention=8.5)],
)
AT = datetime(2026, 5, 1, 9, tzinfo=UTC)
LABEL = json.dumps({"score": 7.5, "reason": "与牛奶过敏有关"}, ensure_ascii=False)


def cognition(
    server: ScriptedServer,
    *,
    max_retries: int = 2,
    timeout_seconds: float = 5,
    cache: Path | None = None,
    max_concurrent: int = 4,
    json_mode: Literal["json_schema", "json_object"] | None = "json_schema",
) -> tuple[OpenAICognition, OpenAIEndpoint]:
    endpoint = OpenAIEndpoint(
        server.base_url,
        SecretStr("sk-test"),
        timeout_seconds=timeout_seconds,
        max_retries=max_retries,
        backoff_seconds=0.01,
        max_concurrent=max_concurrent,
        cache=None if cache is None else ResponseCache(cache),
        json_mode=json_mode,
    )
    return OpenAICognition(endpoint, "scripted-model"), endpoint


def test_a_valid_answer_is_typed_and_counted() -> None:
    with scripted_openai_server() as server:
        server.script(chat_reply(LABEL, prompt_tokens=321, completion_tokens=17))
        model, endpoint = cognition(server)
        label = model.label_attention(QUESTION)
        endpoint.close()
    assert (label.score, label.reason) == (7.5, "与牛奶过敏有关")
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    body = request["body"]
    assert body["model"] == "scripted-model"
    assert body["response_format"]["json_schema"]["schema"]["properties"]["score"]["maximum"] == 10
    told, system, user = body["messages"]
    assert told["content"].startswith("Answer with a JSON object that follows this JSON schema:")
    assert '"description"' in told["content"]  # the fields' descriptions, which servers that
    # only constrain the output by the schema would never show the model otherwise
    assert "language the user wrote in" in system["content"]
    assert json.loads(user["content"])["item"] == "桌上有半杯牛奶。"
    assert endpoint.accounting.by_operation() == {
        "label_attention": OperationUsage(
            calls=1, requests=1, prompt_tokens=321, completion_tokens=17
        )
    }


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (chat_reply('{"score": 7.5, "reason": '), "Invalid JSON"),
        (chat_reply('{"score": 42, "reason": "x"}'), "less than or equal to 10"),
        (chat_reply("Sure! Here is the JSON you asked for."), "Invalid JSON"),
    ],
    ids=["malformed", "out-of-range", "prose"],
)
def test_an_invalid_answer_gets_one_repair(bad: Reply, problem: str) -> None:
    with scripted_openai_server() as server:
        server.script(bad, chat_reply(LABEL))
        model, endpoint = cognition(server)
        assert model.label_attention(QUESTION).score == 7.5
        endpoint.close()
    repair = server.requests[1]["body"]["messages"]
    assert repair[-2]["role"] == "assistant"
    assert problem in repair[-1]["content"]
    usage = endpoint.accounting.by_operation()["label_attention"]
    assert (usage.calls, usage.requests, usage.repairs, usage.failures) == (1, 2, 1, 0)


def test_an_answer_invalid_twice_is_a_typed_error() -> None:
    with scripted_openai_server() as server:
        server.script(chat_reply("not json"), chat_reply('{"score": "high"}'))
        model, endpoint = cognition(server)
        with pytest.raises(ModelOutputError, match=r"invalid twice.*reason: Field required"):
            model.label_attention(QUESTION)
        endpoint.close()
    usage = endpoint.accounting.total()
    assert (usage.requests, usage.repairs, usage.failures) == (2, 1, 1)


def test_an_answer_cut_off_at_the_length_limit_is_not_repaired() -> None:
    with scripted_openai_server() as server:
        server.script(chat_reply('{"score": 7.5, "rea', finish_reason="length"), chat_reply(LABEL))
        model, endpoint = cognition(server)
        with pytest.raises(ModelOutputError, match="cut off at the length limit"):
            model.label_attention(QUESTION)
        endpoint.close()
    usage = endpoint.accounting.total()
    assert (usage.requests, usage.repairs, usage.failures) == (1, 0, 1)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "request (20855 tokens) exceeds the available context size (8192 tokens)"),
        (400, "This model's maximum context length is 4096 tokens. However, you requested 5000"),
        (413, "Input is longer than the model's context length"),
    ],
    ids=["llama.cpp", "openai-vllm", "413"],
)
def test_a_question_longer_than_the_context_is_refused_as_too_long(
    status: int, message: str
) -> None:
    with scripted_openai_server() as server:
        server.script(Reply(status, {"error": {"message": message, "type": "invalid_request"}}))
        model, endpoint = cognition(server)
        with pytest.raises(ModelTooLongError, match="longer than the model's context") as raised:
            model.label_attention(QUESTION)
        endpoint.close()
    assert message in str(raised.value)
    assert isinstance(raised.value, ModelOutputError)  # the model cannot answer as asked
    assert len(server.requests) == 1
    assert endpoint.json_mode == "json_schema"


def test_no_answer_cap_is_sent_unless_set() -> None:
    with scripted_openai_server() as server:
        server.script(chat_reply(LABEL))
        model, endpoint = cognition(server)
        model.label_attention(QUESTION)
        endpoint.close()
    assert "max_tokens" not in server.requests[0]["body"]


def test_the_answer_cap_setting_is_sent_with_every_question() -> None:
    offline = OfflineCognition()
    with scripted_openai_server(
        responder=lambda body: chat_reply(offline_answer(offline, body))
    ) as server:
        settings = Settings(
            cognition="openai",
            openai_base_url=server.base_url,
            openai_api_key=SecretStr("sk-test"),
            openai_max_tokens=300,
        )
        with GraphMem.open(settings) as memory:
            assert not memory.observe("alice", "I'm allergic to milk.").pending
    assert server.requests
    assert all(request["body"]["max_tokens"] == 300 for request in server.requests)


def test_the_facts_a_model_reads_in_a_dialogue_reach_the_profile() -> None:
    offline = OfflineCognition()
    digest = {
        "summary": "The user moved to Lisbon.",
        "events": [],
        "facts": [
            {"slot": " Home ", "statement": "The user lives in Lisbon.", "line": 0},
            {"slot": "job", "statement": "The user is a nurse.", "line": 7},  # no such line
        ],
    }

    def answer(body: dict[str, Any]) -> Reply:
        if body["response_format"]["json_schema"]["name"] == "DialogueDigest":
            return chat_reply(json.dumps(digest))
        return chat_reply(offline_answer(offline, body))

    with scripted_openai_server(responder=answer) as server:
        settings = Settings(
            cognition="openai", openai_base_url=server.base_url, openai_api_key=SecretStr("sk-t")
        )
        with GraphMem.open(settings) as memory:
            memory.observe("alice", "I just moved to Lisbon!", at=AT)
            report = memory.consolidate("alice", at=AT + timedelta(days=1))
            profile = memory.profile("alice", at=AT + timedelta(days=1))
    assert report.counts["profile facts"] == 1
    [fact] = profile.facts
    assert (fact.slot, fact.text, fact.since) == ("home", "The user lives in Lisbon.", AT)
    [asked] = [
        request["body"]
        for request in server.requests
        if request["body"]["response_format"]["json_schema"]["name"] == "DialogueDigest"
    ]
    schema = asked["response_format"]["json_schema"]["schema"]
    assert "slot" in schema["$defs"]["StatedFact"]["properties"]


def test_rate_limits_are_retried_after_the_time_asked() -> None:
    with scripted_openai_server() as server:
        server.script(
            Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "1"}),
            chat_reply(LABEL),
        )
        model, endpoint = cognition(server)
        started = time.monotonic()
        assert model.label_attention(QUESTION).score == 7.5
        waited = time.monotonic() - started
        endpoint.close()
    assert waited >= 1.0
    usage = endpoint.accounting.total()
    assert (usage.requests, usage.retries, usage.failures) == (2, 1, 0)


def test_server_errors_are_retried_then_reported() -> None:
    with scripted_openai_server() as server:
        server.script(*[Reply(500, {"error": {"message": "boom"}})] * 3)
        model, endpoint = cognition(server, max_retries=2)
        with pytest.raises(ModelError, match="failed label_attention after 3 attempts: HTTP 500"):
            model.label_attention(QUESTION)
        server.script(Reply(502, {"error": {"message": "bad gateway"}}), chat_reply(LABEL))
        assert model.label_attention(QUESTION).score == 7.5
        endpoint.close()
    usage = endpoint.accounting.total()
    assert (usage.calls, usage.requests, usage.retries, usage.failures) == (2, 5, 3, 1)


def test_a_body_that_is_not_json_is_retried_then_reported() -> None:
    with scripted_openai_server() as server:
        server.script(Reply(200, "<html>proxy error</html>"), Reply(200, "<html>again</html>"))
        model, endpoint = cognition(server, max_retries=1)
        with pytest.raises(ModelError, match="after 2 attempts: an answer that is not JSON"):
            model.label_attention(QUESTION)
        server.script(Reply(200, "not json"), chat_reply(LABEL))
        assert model.label_attention(QUESTION).score == 7.5
        endpoint.close()


def test_a_hung_connection_times_out_and_is_retried() -> None:
    with scripted_openai_server() as server:
        server.script(Reply(hang=True), Reply(hang=True))
        model, endpoint = cognition(server, max_retries=1, timeout_seconds=0.5)
        with pytest.raises(ModelError, match="after 2 attempts: APITimeoutError"):
            model.label_attention(QUESTION)
        endpoint.close()
    assert len(server.requests) == 2


def test_client_errors_are_not_retried() -> None:
    with scripted_openai_server() as server:
        server.script(Reply(400, {"error": {"message": "unknown  model\n 'x'"}}))
        model, endpoint = cognition(server)
        with pytest.raises(
            ModelRequestError, match=r"answered HTTP 400 to label_attention: unknown model 'x'$"
        ):
            model.label_attention(QUESTION)
        endpoint.close()
    assert len(server.requests) == 1


def test_the_response_cache_spares_a_rerun(tmp_path: Path) -> None:
    cache = tmp_path / "responses.sqlite"
    dialogue = Dialogue(
        lines=[
            DialogueLine(
                speaker="user", text="We fly to Disneyland on Friday!", at="2026-05-01T10:00:00Z"
            )
        ]
    )
    summary = json.dumps({"summary": "The user flies to Disneyland on Friday.", "events": []})
    with scripted_openai_server() as server:
        server.script(chat_reply(summary))
        first, endpoint = cognition(server, cache=cache)
        assert first.digest_dialogue(dialogue).summary.startswith("The user flies")
        endpoint.close()
        rerun, endpoint = cognition(server, cache=cache)
        assert rerun.digest_dialogue(dialogue).summary.startswith("The user flies")
        endpoint.close()
    assert len(server.requests) == 1
    usage = endpoint.accounting.by_operation()["digest_dialogue"]
    assert (usage.calls, usage.requests, usage.cache_hits) == (1, 0, 1)


def test_concurrent_calls_are_bounded() -> None:
    with scripted_openai_server(responder=lambda body: chat_reply(LABEL)) as server:
        server.hold = threading.Event()
        model, endpoint = cognition(server, max_concurrent=2)
        callers = [
            threading.Thread(target=model.label_attention, args=(QUESTION,)) for _ in range(6)
        ]
        for caller in callers:
            caller.start()
        with server.changed:
            assert server.changed.wait_for(
                lambda: server.in_flight == 2 and endpoint.accounting.total().calls == 6, timeout=10
            )
            # A third request would arrive now if the bound did not hold; give it the chance.
            assert not server.changed.wait_for(lambda: server.in_flight > 2, timeout=0.3)
        server.hold.set()
        for caller in callers:
            caller.join()
        endpoint.close()
    assert server.max_in_flight == 2
    assert endpoint.accounting.total().requests == 6


def test_a_blank_summary_is_invalid_and_an_overlong_one_is_cut() -> None:
    dialogue = Dialogue(lines=[DialogueLine(speaker="user", text="Hi.", at=AT)])
    overlong = json.dumps({"summary": "word " * 30_000, "events": []})
    with scripted_openai_server() as server:
        server.script(chat_reply('{"summary": " \\n ", "events": []}'), chat_reply(overlong))
        model, endpoint = cognition(server)
        summary = model.digest_dialogue(dialogue).summary
        endpoint.close()
    assert "text is empty" in server.requests[1]["body"]["messages"][-1]["content"]
    assert len(summary) == MAX_TEXT_CHARS
    assert summary.endswith("…")


def test_facts_are_judged_in_one_call_and_a_judgement_short_is_an_error() -> None:
    question = FactComparisons(
        comparisons=[
            FactComparison(
                new="I moved to Berlin.",
                older=[
                    OlderFact(text="I live in Paris.", belief=0.8),
                    OlderFact(text="I cook.", belief=1),
                ],
            ),
            FactComparison(new="I ride a bike.", older=[OlderFact(text="I cycle.", belief=0.9)]),
        ]
    )
    judged = {"relation": "contradicts", "belief": 0.7, "reason": "one home at a time"}
    unrelated = {"relation": "unrelated", "belief": 0.5, "reason": "cooking is not a place"}
    same = {"relation": "duplicate", "belief": 0.9, "reason": "cycling is riding a bike"}
    with scripted_openai_server() as server:
        server.script(
            chat_reply(
                json.dumps({"facts": [{"judgements": [judged, unrelated]}, {"judgements": [same]}]})
            ),
            chat_reply(json.dumps({"facts": [{"judgements": [judged]}, {"judgements": [same]}]})),
            chat_reply(json.dumps({"facts": [{"judgements": [judged, unrelated]}]})),
        )
        model, endpoint = cognition(server)
        facts = model.judge_facts(question).facts
        with pytest.raises(ModelOutputError, match="statement 1 against 1 older statements of 2"):
            model.judge_facts(question)
        with pytest.raises(ModelOutputError, match="judged 1 new statements of 2"):
            model.judge_facts(question)
        endpoint.close()
    relations = [[judgement.relation for judgement in fact.judgements] for fact in facts]
    assert relations == [["contradicts", "unrelated"], ["duplicate"]]
    sent = json.loads(server.requests[0]["body"]["messages"][-1]["content"])
    assert [old["text"] for old in sent["comparisons"][0]["older"]] == [
        "I live in Paris.",
        "I cook.",
    ]
    assert endpoint.accounting.by_operation()["judge_facts"].calls == 3


def test_an_endpoint_that_fails_json_schema_is_asked_for_a_json_object_from_then_on() -> None:
    def llama_cpp(body: dict[str, Any]) -> Reply:
        """Like llama.cpp's own server: HTTP 500 to a JSON schema, answers to a JSON object."""
        if body["response_format"]["type"] == "json_schema":
            return Reply(status=500, body={"error": "unsupported"})
        return chat_reply(LABEL)

    with scripted_openai_server(responder=llama_cpp) as server:
        model, endpoint = cognition(server, max_retries=1, json_mode=None)
        assert model.label_attention(QUESTION).score == 7.5
        assert endpoint.json_mode == "json_object"
        assert model.label_attention(QUESTION).score == 7.5
        endpoint.close()
    kinds = [request["body"]["response_format"]["type"] for request in server.requests]
    assert kinds == ["json_schema", "json_schema", "json_object", "json_object"]
    told = server.requests[2]["body"]["messages"][0]["content"]
    assert told.startswith("Answer with a JSON object that follows this JSON schema:")
    assert '"score"' in told


def test_an_endpoint_that_answers_by_schema_keeps_being_asked_so() -> None:
    with scripted_openai_server(responder=lambda body: chat_reply(LABEL)) as server:
        model, endpoint = cognition(server, json_mode=None)
        model.label_attention(QUESTION)
        model.label_attention(QUESTION)
        endpoint.close()
    assert endpoint.json_mode == "json_schema"
    kinds = [request["body"]["response_format"]["type"] for request in server.requests]
    assert kinds == ["json_schema", "json_schema"]


def test_an_endpoint_that_is_down_at_first_keeps_being_asked_by_schema() -> None:
    with scripted_openai_server() as server:
        server.script(Reply(status=503, body={"error": "Loading model"}), chat_reply(LABEL))
        model, endpoint = cognition(server, max_retries=0, json_mode=None)
        with pytest.raises(ModelError, match="HTTP 503"):
            model.label_attention(QUESTION)
        assert endpoint.json_mode is None  # a server still loading refused no schema
        assert model.label_attention(QUESTION).score == 7.5
        endpoint.close()
    assert endpoint.json_mode == "json_schema"
    kinds = [request["body"]["response_format"]["type"] for request in server.requests]
    assert kinds == ["json_schema", "json_schema"]
