"""Substance over small talk: the attention label decides where relevance cannot (issue 61).

A new user's first turns hold greetings, thanks and replies that only echo, among a few facts.
Their attention labels (offline: cognition.meaning's small talk; OpenAI: the model's label as the
prompt asks for it) must put every statement that answers a question above them, in English and
Chinese, on both stores. The wording here is the tests' own: none is a prototype.
"""

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import SecretStr

from graphmem.cognition.openai import OpenAICognition
from graphmem.cognition.prototypes import SENTENCES
from graphmem.contract import Recall
from graphmem.embedding import CachedEmbedder
from graphmem.memory import GraphMem
from graphmem.openai_endpoint import OpenAIEndpoint
from graphmem.store.base import Store
from graphmem.testing import Reply, chat_reply, scripted_openai_server

START = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)
FIRST_HOUR = {
    "en": [
        ("user", "Hey, good evening!"),
        ("assistant", "Good evening! What can I do for you?"),
        ("user", "I can't have shellfish, it makes my throat close up."),
        ("assistant", "Understood."),
        ("user", "Much appreciated!"),
        ("assistant", "Anytime!"),
        ("user", "My cousin Leo arrives from Lisbon on Friday."),
        ("assistant", "Oh lovely, have a great time with him!"),
    ],
    "zh": [
        ("user", "晚上好呀！"),
        ("assistant", "晚上好！需要我做什么？"),
        ("user", "我不能吃虾蟹，吃了喉咙会肿。"),
        ("assistant", "明白。"),
        ("user", "太感谢了！"),
        ("assistant", "随时效劳！"),
        ("user", "我表哥小李周五从上海过来。"),
        ("assistant", "哇，那祝你们玩得愉快！"),
    ],
}
"""Each language's first hour: two facts among greetings, thanks and an echoing reply."""
SMALL_TALK = {
    "en": {
        "Hey, good evening!",
        "Understood.",
        "Much appreciated!",
        "Anytime!",
        "Oh lovely, have a great time with him!",
    },
    "zh": {"晚上好呀！", "明白。", "太感谢了！", "随时效劳！", "哇，那祝你们玩得愉快！"},
}
ANSWERS = {
    "en": [
        (
            "Which foods are dangerous for me?",
            "I can't have shellfish, it makes my throat close up.",
        ),
        ("Who is coming to see me?", "My cousin Leo arrives from Lisbon on Friday."),
    ],
    "zh": [
        ("哪些食物对我有危险？", "我不能吃虾蟹，吃了喉咙会肿。"),
        ("谁要来看我？", "我表哥小李周五从上海过来。"),
    ],
}
"""Each language's questions, and the statement that answers each."""


def first_hour(memory: GraphMem, owner: str, language: str) -> None:
    """Observe the language's first hour, a turn a minute."""
    for minute, (speaker, text) in enumerate(FIRST_HOUR[language]):
        memory.observe(owner, text, speaker=speaker, at=START + timedelta(minutes=minute))


def ranked(memory: GraphMem, owner: str, question: str) -> list[str]:
    """The texts recalled for a question, best first (no floor: every memory found)."""
    found: Recall = memory.recall(
        owner, question, k=8, peek=True, min_confidence=0.0, at=START + timedelta(hours=1)
    )
    return [item.memory.text for item in found.memories]


def test_the_tests_wording_is_no_prototype() -> None:
    """The first hours' texts are the tests' own: the offline cognition knows none of them."""
    said = {text for turns in FIRST_HOUR.values() for _speaker, text in turns}
    assert not said & set(SENTENCES)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_small_talk_never_outranks_the_statement_that_answers(
    memory: GraphMem, owner: str, language: str
) -> None:
    """Offline: each answer comes first, and no small talk is recalled above it."""
    first_hour(memory, owner, language)
    for question, answer in ANSWERS[language]:
        texts = ranked(memory, owner, question)
        assert texts[0] == answer, (question, texts)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_small_talk_is_labelled_below_every_statement(
    memory: GraphMem, owner: str, language: str
) -> None:
    """Offline: greetings, thanks and echoes get a lower label than any fact told."""
    first_hour(memory, owner, language)
    labels = {
        node.text: node.importance
        for node in memory.export(owner).nodes
        if hasattr(node, "importance") and hasattr(node, "text")
    }
    told = {answer for _question, answer in ANSWERS[language]}
    assert max(labels[text] for text in SMALL_TALK[language]) < min(labels[text] for text in told)


def labelling_model(labels: dict[str, float]) -> Any:
    """A scripted model that perceives each item with the label given for its text (else 2)."""

    def answer(body: dict[str, Any]) -> Reply:
        asked = json.loads(next(m for m in body["messages"] if m["role"] == "user")["content"])
        schema = body["response_format"]["json_schema"]["name"]
        if schema != "Perceptions":
            raise AssertionError(f"unexpected task {schema}")
        items = [
            {
                "score": labels.get(item["item"], 2.0),
                "related": [],
                "reason": "as labelled",
                "impressions": [],
            }
            for item in asked["items"]
        ]
        return chat_reply(json.dumps({"items": items}))

    return answer


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_openai_labels_put_substance_first(
    store: Store, embedder: CachedEmbedder, owner: str, language: str
) -> None:
    """With the OpenAI cognition, the model's small-talk label of 0 decides as the offline one.

    The prompt asks for 0 for small talk; a model that does so gets each answer ranked first.
    """
    labels = dict.fromkeys(SMALL_TALK[language], 0.0) | {
        answer: 6.0 for _question, answer in ANSWERS[language]
    }
    with scripted_openai_server(responder=labelling_model(labels)) as server:
        endpoint = OpenAIEndpoint(
            server.base_url,
            SecretStr("sk-test"),
            timeout_seconds=5,
            max_retries=0,
            backoff_seconds=0.01,
            max_concurrent=2,
            json_mode="json_schema",
        )
        memory = GraphMem(store, embedder, OpenAICognition(endpoint, "m"))
        first_hour(memory, owner, language)
        for question, answer in ANSWERS[language]:
            assert ranked(memory, owner, question)[0] == answer
        prompt = json.dumps(server.requests[0]["body"])
        assert "small talk" in prompt
