"""What the cognition costs per ingested turn: model calls by task, and prompt sizes in tokens.

    python benchmarks/cognition_cost.py ../shared/data/locomo/locomo_dev.json [--turns 100]
        [--out RESULT.json]

Ingests the first N turns of the first conversation through `GraphMem.observe` with the OpenAI
cognition, against a stand-in model on 127.0.0.1 (graphmem.testing) that answers every task with
a valid answer and reports prompt tokens counted with the XLM-R tokenizer of the offline
embedder. Calls come from the endpoint's accounting. Tasks that ingestion does not run (the
sleep job's) are measured on one typical input each.
"""

import argparse
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, SecretStr

from graphmem.cognition.base import (
    INFER_IMPRESSIONS,
    JUDGE_FACTS,
    LABEL_ATTENTION,
    MERGE_EVENT,
    SUMMARISE_DIALOGUE,
    TAG_EVENTS,
    CausalRule,
    Dialogue,
    DialogueLine,
    EventTag,
    EventUpdate,
    FactComparison,
    InferenceQuestion,
    OlderFact,
)
from graphmem.cognition.openai import OpenAICognition
from graphmem.embedding import CachedEmbedder, E5Embedder
from graphmem.memory import GraphMem
from graphmem.openai_endpoint import OpenAIEndpoint
from graphmem.store.networkx import NetworkXStore
from graphmem.testing import Reply, chat_reply, scripted_openai_server

OUTPUT_NAMES = {
    task.name: task.output.__name__
    for task in (
        LABEL_ATTENTION,
        SUMMARISE_DIALOGUE,
        TAG_EVENTS,
        MERGE_EVENT,
        JUDGE_FACTS,
        INFER_IMPRESSIONS,
    )
}
"""The output model a task's requests name in their schema."""

ANSWERS: dict[str, Any] = {
    "AttentionLabel": {"score": 5, "reason": "ordinary remark"},
    "DialogueSummary": {"summary": "The user talked about a trip."},
    "EventTags": {"events": []},
    "Storyline": {"title": "Trip", "storyline": "2026-01-01: left."},
    "FactJudgements": {
        "judgements": [{"relation": "unrelated", "belief": 0.5, "reason": "no link"}] * 5
    },
    "Impressions": {"impressions": []},
}


def main() -> None:
    """Run the measurement and print a table (and write JSON when asked)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    conversation = json.loads(arguments.data.read_text())[0]["conversation"]
    turns = [turn for number in range(1, 100) for turn in conversation.get(f"session_{number}", [])]
    turns = turns[: arguments.turns]

    embedder = E5Embedder()
    prompt_tokens: dict[str, list[int]] = {}

    def stand_in_model(body: dict[str, Any]) -> Reply:
        schema = body["response_format"]["json_schema"]
        sent = json.dumps(body["messages"], ensure_ascii=False) + json.dumps(schema["schema"])
        tokens = embedder.count_tokens(sent)
        prompt_tokens.setdefault(schema["name"], []).append(tokens)
        answer = json.dumps(ANSWERS[schema["name"]])
        return chat_reply(
            answer, prompt_tokens=tokens, completion_tokens=embedder.count_tokens(answer)
        )

    with scripted_openai_server(responder=stand_in_model) as server:
        endpoint = OpenAIEndpoint(
            server.base_url, SecretStr("local"), timeout_seconds=30, max_retries=0
        )
        cognition = OpenAICognition(endpoint, "stand-in")
        memory = GraphMem(NetworkXStore.open(None), CachedEmbedder(embedder), cognition)
        start = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
        for number, turn in enumerate(turns):
            memory.observe(
                "bench",
                f"{turn['speaker']}: {turn['text']}",
                message_id=turn["dia_id"],
                at=start + timedelta(minutes=number),
                speaker=turn["speaker"],
            )
        ingestion = endpoint.accounting.by_operation()
        for task, question in typical_questions(turns, start).items():
            getattr(cognition, task)(question)
        memory.close()

    rows = []
    for task in ["label_attention", *typical_questions(turns, start)]:
        usage = ingestion.get(task)
        calls_per_turn = 0.0 if usage is None else usage.calls / len(turns)
        sizes = prompt_tokens[OUTPUT_NAMES[task]]
        rows.append(
            {
                "task": task,
                "calls_per_ingested_turn": round(calls_per_turn, 3),
                "prompt_tokens_mean": round(sum(sizes) / len(sizes)),
                "prompt_tokens_max": max(sizes),
            }
        )
    print("| task | calls per ingested turn | prompt tokens (mean) | prompt tokens (max) |")
    print("|---|---|---|---|")
    for row in rows:
        print(f"| {' | '.join(str(value) for value in row.values())} |")
    if arguments.out:
        arguments.out.write_text(json.dumps({"turns": len(turns), "tasks": rows}, indent=2) + "\n")


def typical_questions(turns: list[dict[str, Any]], start: datetime) -> dict[str, BaseModel]:
    """One typical input for each task that ingestion does not run."""
    lines = [
        DialogueLine(speaker=turn["speaker"], text=turn["text"], at=start + timedelta(minutes=i))
        for i, turn in enumerate(turns[:10])
    ]
    tag = EventTag(category="travel", title="A trip", detail=turns[0]["text"], timeliness_days=30)
    return {
        "summarise_dialogue": Dialogue(lines=lines),
        "tag_events": Dialogue(lines=lines),
        "merge_event": EventUpdate(
            title="A trip", storyline=turns[1]["text"], last_at=start, development=tag, at=start
        ),
        "judge_facts": FactComparison(  # a new fact and the five (BeliefPolicy.related) nearest
            new=turns[2]["text"],
            older=[OlderFact(text=turn["text"], belief=0.7) for turn in turns[3:8]],
        ),
        "infer_impressions": InferenceQuestion(
            statement=turns[4]["text"],
            belief=0.9,
            rules=[
                CausalRule(cause="sore throat", effect="The user has a cold", sufficiency=0.6),
                CausalRule(cause="helped a stranger", effect="The user is kind", sufficiency=0.15),
                CausalRule(
                    cause="went to a support group", effect="seeks support", sufficiency=0.5
                ),
            ],
        ),
    }


if __name__ == "__main__":
    main()
