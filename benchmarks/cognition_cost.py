"""What the cognition costs per ingested turn: model calls and tokens by task, live and imported.

    python benchmarks/cognition_cost.py [--days 30] [--turns 1000] [--out RESULT.json]

The workload is the sleep benchmark's month (benchmarks/sleep.py: 1,000 turns in 30 daily
sessions), ingested with the OpenAI cognition against a stand-in model on 127.0.0.1
(graphmem.testing) that answers every task as the offline cognition would, so the graph grows
as it does offline and the calls are those a real model would get. Two ways:
- live: as an agent observes, one `observe` a turn, and the sleep job each night;
- import: the whole month in one `observe_many` (chunks of OBSERVE_CHUNK turns), then one sleep
  job, as `graphmem import-history` does.
Calls, prompt tokens and completion tokens come from the endpoint's accounting (and the store's
write transactions per turn from its traffic, GraphMem.store_traffic); the stand-in
counts tokens with the XLM-R tokenizer of the offline embedder (the messages as sent, the
schema among them; a server that also renders the response format's schema for the model, as
OpenAI's does, reads it twice).
"""

import argparse
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from provenance import write_result
from pydantic import SecretStr
from sleep import START, conversation

from graphmem.cognition.offline import OfflineCognition
from graphmem.cognition.openai import OpenAICognition
from graphmem.embedding import CachedEmbedder, E5Embedder
from graphmem.memory import OBSERVE_CHUNK, GraphMem
from graphmem.openai_endpoint import OpenAIEndpoint
from graphmem.store.networkx import NetworkXStore
from graphmem.testing import Reply, chat_reply, offline_answer, scripted_openai_server


def stand_in_model(embedder: E5Embedder) -> Any:
    """A model that answers as the offline cognition, reporting tokens as XLM-R counts them."""
    offline = OfflineCognition()

    def answer(body: dict[str, Any]) -> Reply:
        answered = offline_answer(offline, body)
        sent = json.dumps(body["messages"], ensure_ascii=False)  # the schema is in the prompt
        return chat_reply(
            answered,
            prompt_tokens=embedder.count_tokens(sent),
            completion_tokens=embedder.count_tokens(answered),
        )

    return answer


def ingest(memory: GraphMem, days: list[list[str]], *, live: bool) -> None:
    """The month observed live (a turn a call, a sleep job a night) or imported (one batch)."""
    items: list[list[dict[str, Any]]] = [
        [
            {
                "text": text,
                "message_id": f"d{day}-{number}",
                "at": START + timedelta(days=day, minutes=25 * number),
                "session": f"day {day + 1}",
            }
            for number, text in enumerate(texts)
        ]
        for day, texts in enumerate(days)
    ]
    if not live:
        memory.observe_many("bench", [item for day in items for item in day])
        memory.consolidate("bench", at=START + timedelta(days=len(days), hours=15))
        return
    for day, turns in enumerate(items):
        for item in turns:
            memory.observe("bench", **item)
        memory.consolidate("bench", at=START + timedelta(days=day, hours=15))


def measure(days: list[list[str]], embedder: E5Embedder, *, live: bool) -> dict[str, Any]:
    """Calls and tokens per ingested turn, by task, for one way of ingesting the month."""
    turns = sum(len(texts) for texts in days)
    with scripted_openai_server(responder=stand_in_model(embedder)) as server:
        endpoint = OpenAIEndpoint(
            server.base_url, SecretStr("local"), timeout_seconds=60, max_retries=0
        )
        cognition = OpenAICognition(endpoint, "stand-in")
        with GraphMem(NetworkXStore.open(None), CachedEmbedder(embedder), cognition) as memory:
            ingest(memory, days, live=live)
            traffic = memory.store_traffic
        usage = endpoint.accounting.by_operation()
    tasks = {
        task: {
            "calls_per_turn": round(used.calls / turns, 3),
            "prompt_tokens_per_turn": round(used.prompt_tokens / turns, 1),
            "completion_tokens_per_turn": round(used.completion_tokens / turns, 1),
            "prompt_tokens_per_call": round(used.prompt_tokens / max(used.calls, 1)),
        }
        for task, used in sorted(usage.items())
    }
    total = endpoint.accounting.total()
    return {
        "turns": turns,
        "tasks": tasks,
        "calls_per_turn": round(total.calls / turns, 3),
        "tokens_per_turn": round((total.prompt_tokens + total.completion_tokens) / turns, 1),
        "store_transactions_per_turn": round(traffic.transactions / turns, 3),
    }


def main() -> None:
    """Measure both ways of ingesting; print a table and write JSON when asked."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    days = conversation(arguments.days, arguments.turns, seed=7)
    embedder = E5Embedder()
    ways = {
        "live": measure(days, embedder, live=True),
        "import": measure(days, embedder, live=False),
    }
    print(
        "| task | live: calls / turn | live: tokens / turn | import: calls / turn |"
        " import: tokens / turn |"
    )
    print("|---|---|---|---|---|")
    for name in sorted(set(ways["live"]["tasks"]) | set(ways["import"]["tasks"])):
        cells = []
        for way in ways.values():
            figures = way["tasks"].get(name, {})
            tokens = figures.get("prompt_tokens_per_turn", 0) + figures.get(
                "completion_tokens_per_turn", 0
            )
            cells += [str(figures.get("calls_per_turn", 0)), f"{tokens:.1f}"]
        print(f"| {name} | {' | '.join(cells)} |")
    totals = [f"{way['calls_per_turn']} | {way['tokens_per_turn']}" for way in ways.values()]
    print(f"| all | {' | '.join(totals)} |")
    transactions = [str(way["store_transactions_per_turn"]) for way in ways.values()]
    print(f"| store write transactions | {transactions[0]} | | {transactions[1]} | |")
    if arguments.out:
        write_result(arguments.out, {"chunk": OBSERVE_CHUNK, **ways})


if __name__ == "__main__":
    main()
