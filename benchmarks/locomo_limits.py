"""What bounds graphmem's LoCoMo figures: signals' ceiling, speakers, questions, recall's steps.

    python benchmarks/locomo_limits.py DATA.json [--store networkx|neo4j] [--out RESULT.json]

Four measurements behind the figures issue 6 asks for (Recall@10 82 and multi-hop 50 on LoCoMo,
reached on 4 December 2026; a recall p95 under 50 ms on Neo4j, not reached):

ceiling: for a depth d of 10, 20 and 50, the share of each question's evidence turns found in
the union of the top d turns of the four baselines of benchmarks/locomo.py (bm25, dense:e5,
rrf:e5, context+session:e5), per category. A union of four top-10 lists holds up to 40 turns: a
ranking made of these signals would have to fit into 10 what they spread over up to 40.

speakers: for the questions that name exactly one of the conversation's two speakers, the share
of their evidence turns spoken by the speaker named, per category. It shows why weighting the
named speaker's turns helps some categories and costs others (adversarial questions ask one
speaker about what the other said).

questions: the share of turns that ask and tell nothing of their speaker (a question mark and
no first-person word: the `statement` component's 0, graphmem.scoring), among all turns and
among each category's evidence turns. It shows why such a turn, which shares the words of a
later question about the same thing, counts less.

recall steps (--store neo4j only): graphmem ingests the conversations (offline cognition, as
benchmarks/locomo.py does) into the embedded store and into Neo4j, one after the other, then
recalls every question in peek mode twice on each (the first pass warms caches and the server);
on Neo4j each store read of the second pass is timed: calls per recall, mean and p95
milliseconds of each, and the mean of the server's own time for it. Both stores' whole recall
p50 and p95 (as locomo.py measures it) and their ratio, same conversations, same run, and the
same on a pass filtered by a `since` that every memory meets (the cost of a filter, which the
vector index cannot apply: Neo4j compares every memory then); the rest
of a recall (the query's embedding, from the benchmark's cache, and the scoring) runs in
Python. Neo4j's address comes from GRAPHMEM_* variables (graphmem.config); the owners are
forgotten at the end.

These read questions and evidence to describe the data; no method uses what they find.
"""

import argparse
import gc
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from locomo import (
    BASELINES,
    CACHE,
    CATEGORIES,
    Sample,
    Vectors,
    embed_all,
    generative_agents_scores,
    ingest_all,
    load,
    recall_pass,
)
from provenance import write_result

from graphmem.config import Settings
from graphmem.embedding import CachedEmbedder, E5Embedder
from graphmem.memory import GraphMem
from graphmem.model import EARLIEST
from graphmem.scoring import only_asks
from graphmem.store.base import Store
from graphmem.store.neo4j import Neo4jStore
from graphmem.store.networkx import NetworkXStore

DEPTHS = (10, 20, 50)
K = 10
"""Memories a timed recall returns, as benchmarks/locomo.py asks for by default."""
TIMED_READS = (
    "find_similar_memories",
    "causal_rules",
    "find_memories_mentioning",
    "find_neighbours",
)
"""The store reads a recall makes (a peek recall writes nothing); find_memories_mentioning is
two statements (the terms' counts, then the search), its server time their sum."""


def percent(values: list[float]) -> float:
    """The mean of shares (0-1) as a percentage with one decimal."""
    return round(100 * statistics.fmean(values), 1)


def ceiling(samples: list[Sample], vectors: dict[str, Vectors]) -> dict[str, dict[str, float]]:
    """Per depth, the evidence found in the union of the baselines' top turns, by category."""
    rankers = [scorer for scorer in BASELINES.values() if scorer is not generative_agents_scores]
    result = {}
    for depth in DEPTHS:
        found: dict[str, list[float]] = defaultdict(list)
        for sample in samples:
            conversation = sample.conversation
            tops = [  # ties in turn order, as benchmarks/locomo.py ranks
                np.argsort(
                    -scorer(conversation, vectors[conversation.sample_id]), axis=1, kind="stable"
                )[:, :depth]
                for scorer in rankers
            ]
            for index, gold in enumerate(sample.gold):
                union = {conversation.turns[turn].id for top in tops for turn in top[index]}
                share = len(union & gold.evidence) / len(gold.evidence)
                found[CATEGORIES[gold.category]].append(share)
                found["overall"].append(share)
        order = [*CATEGORIES.values(), "overall"]
        result[str(depth)] = {name: percent(found[name]) for name in order if name in found}
    return result


def speakers(samples: list[Sample]) -> dict[str, dict[str, float]]:
    """Per category, questions naming one speaker and the share of evidence that speaker said."""
    named_questions: dict[str, int] = defaultdict(int)
    by_named: dict[str, list[float]] = defaultdict(list)
    for sample in samples:
        conversation = sample.conversation
        speaker_of = {turn.id: turn.speaker for turn in conversation.turns}
        names = sorted(set(speaker_of.values()))
        for question, gold in zip(conversation.questions, sample.gold, strict=True):
            named = [name for name in names if re.search(rf"\b{re.escape(name)}\b", question)]
            if len(named) != 1:
                continue
            category = CATEGORIES[gold.category]
            named_questions[category] += 1
            by_named[category] += [speaker_of[turn] == named[0] for turn in gold.evidence]
    return {
        category: {
            "questions": named_questions[category],
            "evidence_by_named_speaker": percent(by_named[category]),
        }
        for category in CATEGORIES.values()
        if category in by_named
    }


def questions(samples: list[Sample]) -> dict[str, dict[str, float]]:
    """The share of turns that only ask (scoring.only_asks), among all and the evidence."""
    everything: list[float] = []
    by_category: dict[str, list[float]] = defaultdict(list)
    for sample in samples:
        text_of = {turn.id: turn.text for turn in sample.conversation.turns}
        everything += [float(only_asks(text)) for text in text_of.values()]
        for gold in sample.gold:
            by_category[CATEGORIES[gold.category]] += [
                float(only_asks(text_of[turn])) for turn in gold.evidence
            ]
    rows = {"all turns": {"turns": len(everything), "only_asking": percent(everything)}}
    for category in CATEGORIES.values():
        if category in by_category:
            found = by_category[category]
            rows[f"evidence: {category}"] = {"turns": len(found), "only_asking": percent(found)}
    return rows


class TimedNeo4jStore(Neo4jStore):
    """The Neo4j store, timing each of the reads a recall makes: in Python and on the server.

    The server's time of a statement is what its summary reports: until the first record was
    ready plus until the last was sent (result_available_after + result_consumed_after, in
    whole milliseconds).
    """

    def __init__(self, *arguments: Any, **keywords: Any) -> None:
        super().__init__(*arguments, **keywords)
        self.seconds: dict[str, list[float]] = defaultdict(list)
        self.server_milliseconds: dict[str, list[float]] = defaultdict(list)
        self._reading: str | None = None
        self._server = 0.0
        """The server's milliseconds for the statements of the read being timed."""
        execute = self._driver.execute_query

        def server_timed(*arguments: Any, **keywords: Any) -> Any:
            result = execute(*arguments, **keywords)
            if self._reading is not None:
                summary = result.summary
                self._server += summary.result_available_after + summary.result_consumed_after
            return result

        self._driver.execute_query = server_timed  # type: ignore[method-assign]

    def find_similar_memories(self, *arguments: Any, **keywords: Any) -> Any:
        """Timed."""
        return self._timed("find_similar_memories", super().find_similar_memories)(
            *arguments, **keywords
        )

    def find_memories_mentioning(self, *arguments: Any, **keywords: Any) -> Any:
        """Timed."""
        return self._timed("find_memories_mentioning", super().find_memories_mentioning)(
            *arguments, **keywords
        )

    def find_neighbours(self, *arguments: Any, **keywords: Any) -> Any:
        """Timed."""
        return self._timed("find_neighbours", super().find_neighbours)(*arguments, **keywords)

    def causal_rules(self, *arguments: Any, **keywords: Any) -> Any:
        """Timed."""
        return self._timed("causal_rules", super().causal_rules)(*arguments, **keywords)

    def _timed(self, name: str, read: Callable[..., Any]) -> Callable[..., Any]:
        """The read, adding its wall time to `seconds[name]`."""

        def timed(*arguments: Any, **keywords: Any) -> Any:
            started = time.perf_counter()
            self._reading, self._server = name, 0.0
            try:
                return read(*arguments, **keywords)
            finally:
                self._reading = None
                self.seconds[name].append(time.perf_counter() - started)
                self.server_milliseconds[name].append(self._server)

        return timed


def milliseconds(seconds: list[float]) -> dict[str, float]:
    """Mean and p95 of durations, in milliseconds with one decimal."""
    p95 = statistics.quantiles(seconds, n=20, method="inclusive")[18]
    return {"mean_ms": round(1000 * statistics.fmean(seconds), 1), "p95_ms": round(1000 * p95, 1)}


def timed_recalls(store: Store, samples: list[Sample]) -> dict[str, Any]:
    """Ingest into a store, recall every question in peek mode twice; the second pass's cost.

    A TimedNeo4jStore times its reads of the second pass only. Between the two, a pass filtered
    by a `since` that every memory meets (EARLIEST): the cost of a filter, which on Neo4j the
    vector index cannot apply, and the share of the questions whose top 10 turns it leaves as
    they are.
    """
    embedder = CachedEmbedder(E5Embedder(), CACHE)
    store.prepare(embedder.dimensions)
    conversations = [sample.conversation for sample in samples]
    with GraphMem(store, embedder) as memory:
        owners = ingest_all(memory, conversations, facts=False).owners
        gc.freeze()  # as benchmarks/locomo.py does: no collector pauses from the harness's data
        recall_pass(memory, conversations, owners, K, memories=K, peek=True)  # warms the caches
        filtered = recall_pass(
            memory, conversations, owners, K, memories=K, peek=True, since=EARLIEST
        )
        if isinstance(store, TimedNeo4jStore):
            store.seconds.clear()
            store.server_milliseconds.clear()
        timed = recall_pass(memory, conversations, owners, K, memories=K, peek=True)
        for owner in owners.values():
            memory.forget(owner)
        gc.unfreeze()
    pairs = [
        (ranking, filtered.rankings[sample][number])
        for sample, rankings in timed.rankings.items()
        for number, ranking in enumerate(rankings)
    ]
    unchanged = sum(left == right for left, right in pairs) / len(pairs)
    return timed.cost | {
        "filtered_recall_p50_ms": filtered.cost["recall_p50_ms"],
        "filtered_recall_p95_ms": filtered.cost["recall_p95_ms"],
        "filtered_same_top10": round(100 * unchanged, 1),
    }


def recall_steps(samples: list[Sample]) -> tuple[dict[str, dict[str, float]], dict[str, Any]]:
    """Time peek recalls on the embedded store, then on Neo4j with each of its reads timed.

    Returns Neo4j's reads (calls a recall, mean and p95, the server's mean) and both stores'
    recall p50 and p95 with their ratio.
    """
    embedded = timed_recalls(NetworkXStore.open(None), samples)
    settings = Settings.from_env(store="neo4j")
    assert settings.neo4j_password is not None, "set GRAPHMEM_NEO4J_PASSWORD"
    store = TimedNeo4jStore.connect(
        settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database
    )
    assert isinstance(store, TimedNeo4jStore)  # connect makes the class it is called on
    neo4j = timed_recalls(store, samples)
    recalls = sum(len(sample.conversation.questions) for sample in samples)
    steps = {
        name: {"calls_per_recall": round(len(store.seconds[name]) / recalls, 2)}
        | milliseconds(store.seconds[name])
        | {"server_mean_ms": round(statistics.fmean(store.server_milliseconds[name]), 1)}
        for name in TIMED_READS
    }
    ratio = round(neo4j["recall_p50_ms"] / embedded["recall_p50_ms"], 2)
    return steps, {"embedded": embedded, "neo4j": neo4j, "neo4j_over_embedded_p50": ratio}


def print_table(title: str, rows: dict[str, dict[str, float]]) -> None:
    """A markdown table: one row per key, one column per measure."""
    columns = list(next(iter(rows.values())))
    print(f"\n{title}\n\n| | {' | '.join(columns)} |\n|---|{'---|' * len(columns)}")
    for name, row in rows.items():
        print(f"| {name} | {' | '.join(str(row.get(column, '-')) for column in columns)} |")


def main() -> None:
    """Measure, print the tables, write JSON when asked."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--store", choices=["networkx", "neo4j"], default="networkx")
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    samples = load(arguments.data)
    vectors, _cost = embed_all([sample.conversation for sample in samples])
    result: dict[str, Any] = {
        "data": str(arguments.data),
        "ceiling": ceiling(samples, vectors),
        "speakers": speakers(samples),
        "questions": questions(samples),
    }
    print_table("Evidence in the union of the baselines' top d turns (%)", result["ceiling"])
    print_table("Questions naming one speaker: evidence that speaker said (%)", result["speakers"])
    print_table("Turns that ask and tell nothing of their speaker (%)", result["questions"])
    if arguments.store == "neo4j":
        print("ingesting on Neo4j, then timing recalls", file=sys.stderr, flush=True)
        result["recall_steps"], result["recall"] = recall_steps(samples)
        print_table("A peek recall's store reads on Neo4j", result["recall_steps"])
        recall = result["recall"]
        for store in ("embedded", "neo4j"):
            print(
                f"\nrecall p50 / p95, {store}: {recall[store]['recall_p50_ms']}"
                f" / {recall[store]['recall_p95_ms']} ms; filtered by a since every memory"
                f" meets: {recall[store]['filtered_recall_p50_ms']}"
                f" / {recall[store]['filtered_recall_p95_ms']} ms, top 10 unchanged for"
                f" {recall[store]['filtered_same_top10']}% of the questions"
            )
        print(f"Neo4j over embedded at p50: {recall['neo4j_over_embedded_p50']}")
    if arguments.out:
        write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
