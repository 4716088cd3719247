"""Memory over time on LoCoMo: conversations replayed at their dates, questions asked as they come.

    python benchmarks/lifetime.py DATA.json [--store networkx|neo4j] [--k 10] [--seed 0]
        [--attention W] [--recency W] [--conversations N] [--out RESULT.json]

Each conversation is observed by a fresh owner session by session, at its sessions' times, with
the nightly job (`consolidate`) at 03:00 of every night from its first session to its last
question. Each question with usable evidence is asked once, an hour after a session drawn (seed
--seed) among the session that holds its last evidence turn and the sessions after it: the
questions come interleaved with the conversation, some right after their evidence was said and
some months later; the questions of one session are asked in the dataset's order. A method's
ranking is the source turns of the memories it recalls, without repeats, cut at k, scored as in
locomo.py (Recall@5, Recall@10 and NDCG@10 of the evidence turns).

graphmem runs in two replays on the same schedule: `graphmem` recalls as an agent does, waking
what it uses; `graphmem:peek` wakes nothing. In graphmem's replay, right before each of its
recalls, a peek at motivation 10 reads every tier: `graphmem:always-deep`, the ceiling of what
any choice of tiers can give (under the default weights a ranking does not depend on attention,
so waking does not change it). --attention and --recency set those two weights of every
recall's scoring (default: the balanced preset's, 0 and 0), to measure what each adds.

Cost-matched baselines, in graphmem's replay: each question's always-deep ranking restricted to
as many memories as graphmem read for it, chosen without looking at the question: `recent` (the
most recent turns said so far), `label tiers` (the turns of the highest write-time attention
label, most recent first among equals: tiers without decay or wake-up) and `random tiers` (a
random choice, seed --seed). A recalled memory counts if its turns are all among those chosen.
The classic baselines rank the turns said so far: bm25, dense:e5, rrf:e5, context+session:e5
(locomo.py).

Cost of each graphmem recall: the memories read (the owner's memories in the tiers its searches
reached, counted just before it), their share of the owner's memories, its attempts, the deepest
tier, its time and, on Neo4j, its statements. The tables give each method overall, by how long
before the question its last evidence was said, and on the questions that follow a related one
(the question asked just before shares an evidence session with it and came within a day); then
the depth census (the share of recalls that ended at each tier), and graphmem's lead over each
baseline in Recall@10 with a 95% paired bootstrap interval.
"""

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
from locomo import (
    CATEGORIES,
    Conversation,
    DialogueTurn,
    Gold,
    Sample,
    Vectors,
    context_session_scores,
    dense_scores,
    embed_all,
    leads,
    load,
    ndcg,
    open_memory,
    print_leads,
    rrf_scores,
    turn_item,
)
from locomo import (
    bm25_scores as bm25_turn_scores,
)
from provenance import write_result

from graphmem.contract import MAX_RECALL, PRESETS, Weights
from graphmem.memory import GraphMem
from graphmem.model import Tier

ASKED_AFTER = timedelta(hours=1)
"""How long after the end of its session a question is asked."""
NIGHTLY_AT = timedelta(hours=3)
"""When the nightly job runs, after midnight."""
AGES = {
    "same day": timedelta(days=1),
    "1-7 days": timedelta(days=7),
    "8-30 days": timedelta(days=30),
    "31-90 days": timedelta(days=90),
    "over 90 days": timedelta.max,
}
"""Groups of questions by how long before them their last evidence was said (upper bounds)."""
RELATED_WITHIN = timedelta(days=1)
"""A question follows a related one if the one asked just before shares an evidence session and
came at most this long before it."""
CLASSIC = {
    "bm25": bm25_turn_scores,
    "dense:e5": dense_scores,
    "rrf:e5": rrf_scores,
    "context+session:e5": context_session_scores,
}
MATCHED = ("recent", "label tiers", "random tiers")


@dataclass(frozen=True)
class Question:
    """A question as the replay asks it: its text, gold, when, and after which session."""

    sample_id: str
    index: int
    """Its place among the sample's usable questions."""
    text: str
    gold: Gold
    after_session: int
    asked_at: datetime
    evidence_at: datetime
    """When its last evidence turn was said."""
    evidence_sessions: frozenset[int]


@dataclass
class Asked:
    """What the methods ranked for one question, and what graphmem's recall cost."""

    question: Question
    rankings: dict[str, list[str]] = field(default_factory=dict)
    read: int = 0
    memories: int = 0
    attempts: int = 0
    depth: int = 0
    milliseconds: float = 0.0
    statements: int = 0
    follows_related: bool = False


def schedule(sample: Sample, seed: int) -> list[Question]:
    """The sample's questions, each placed after a session drawn from its evidence's on."""
    conversation = sample.conversation
    draw = random.Random(f"{seed}:{conversation.sample_id}")  # noqa: S311 (a fixed draw)
    session_of = {turn.id: turn.session for turn in conversation.turns}
    ends = {turn.session: turn.at for turn in conversation.turns}
    last = max(ends)
    questions = []
    for index, (text, gold) in enumerate(zip(conversation.questions, sample.gold, strict=True)):
        sessions = frozenset(session_of[turn_id] for turn_id in gold.evidence)
        after = draw.randint(max(sessions), last)
        questions.append(
            Question(
                sample_id=conversation.sample_id,
                index=index,
                text=text,
                gold=gold,
                after_session=after,
                asked_at=ends[after] + ASKED_AFTER,
                evidence_at=ends[max(sessions)],
                evidence_sessions=sessions,
            )
        )
    return questions


def nights(start: datetime, end: datetime) -> Iterator[datetime]:
    """The nightly jobs' moments after `start` up to `end`."""
    night = start.replace(hour=0, minute=0, second=0, microsecond=0) + NIGHTLY_AT
    if night <= start:
        night += timedelta(days=1)
    while night <= end:
        yield night
        night += timedelta(days=1)


def replay(
    memory: GraphMem,
    sample: Sample,
    questions: list[Question],
    *,
    owner: str,
    waking: bool,
    k: int,
    seed: int,
    weights: Weights,
) -> list[Asked]:
    """Observe a conversation at its times with nightly jobs, asking each question in its place.

    In the waking replay, the always-deep peek and the cost-matched baselines are ranked too.
    """
    conversation = sample.conversation
    sessions: dict[int, list[DialogueTurn]] = {}
    for turn in conversation.turns:
        sessions.setdefault(turn.session, []).append(turn)
    labels: dict[str, float] = {}
    said: list[DialogueTurn] = []
    clock = conversation.turns[0].at - timedelta(days=1)
    asked: list[Asked] = []
    draw = random.Random(f"{seed}:{conversation.sample_id}:tiers")  # noqa: S311 (a fixed draw)
    for number, turns in sessions.items():
        for night in nights(clock, turns[0].at):
            memory.consolidate(owner, at=night)
        for turn in turns:
            [observation] = memory.observe_many(owner, [turn_item(turn)])
            labels[turn.id] = max((item.importance for item in observation.memories), default=0)
        said += turns
        clock = turns[-1].at
        for question in (item for item in questions if item.after_session == number):
            for night in nights(clock, question.asked_at):
                memory.consolidate(owner, at=night)
            clock = question.asked_at
            entry = Asked(question)
            if waking:
                deep = memory.recall(
                    owner,
                    question.text,
                    k=MAX_RECALL,
                    motivation=10.0,
                    peek=True,
                    at=question.asked_at,
                    weights=weights,
                )
                ranked = [[turn.id for turn in item.turns] for item in deep.memories]
                entry.rankings["graphmem:always-deep"] = first_turns(ranked, k)
            counts = memory.statistics(owner).tiers
            traffic = memory.store_traffic.statements
            started = time.perf_counter()
            found = memory.recall(
                owner, question.text, k=k, peek=not waking, at=question.asked_at, weights=weights
            )
            entry.milliseconds = 1000 * (time.perf_counter() - started)
            entry.statements = memory.store_traffic.statements - traffic
            name = "graphmem" if waking else "graphmem:peek"
            entry.rankings[name] = first_turns(
                [[turn.id for turn in item.turns] for item in found.memories], k
            )
            entry.attempts = len(found.attempts)
            entry.depth = int(found.attempts[-1].depth)
            entry.read = sum(count for tier, count in counts.items() if tier <= entry.depth)
            entry.memories = sum(counts.values())
            if waking:
                chosen = matched_turns(said, labels, entry.read, draw)
                for method, allowed in chosen.items():
                    inside = [turns for turns in ranked if set(turns) <= allowed]
                    entry.rankings[method] = first_turns(inside, k)
            asked.append(entry)
    mark_related(asked)
    return asked


def first_turns(ranked: list[list[str]], k: int) -> list[str]:
    """The first k distinct turn ids of ranked memories' source turns."""
    return list(dict.fromkeys(turn_id for turns in ranked for turn_id in turns))[:k]


def matched_turns(
    said: list[DialogueTurn], labels: dict[str, float], count: int, draw: random.Random
) -> dict[str, set[str]]:
    """The turns each cost-matched baseline reads: `count` of those said so far."""
    newest_first = [turn.id for turn in reversed(said)]
    by_label = sorted(newest_first, key=lambda turn_id: -labels[turn_id])  # stable: newest first
    return {
        "recent": set(newest_first[:count]),
        "label tiers": set(by_label[:count]),
        "random tiers": set(draw.sample(newest_first, min(count, len(newest_first)))),
    }


def mark_related(asked: list[Asked]) -> None:
    """Mark each question that follows a related one (shared evidence session, within a day)."""
    for before, after in pairwise(asked):
        close = after.question.asked_at - before.question.asked_at <= RELATED_WITHIN
        shared = before.question.evidence_sessions & after.question.evidence_sessions
        after.follows_related = close and bool(shared)


def classic_rankings(
    sample: Sample, questions: list[Question], vectors: Vectors, k: int
) -> dict[int, dict[str, list[str]]]:
    """Each classic baseline's top k turns for each question, over the turns said before it."""
    conversation = sample.conversation
    rankings: dict[int, dict[str, list[str]]] = {question.index: {} for question in questions}
    for after in sorted({question.after_session for question in questions}):
        group = [question for question in questions if question.after_session == after]
        said = [index for index, turn in enumerate(conversation.turns) if turn.session <= after]
        prefix = Conversation(
            conversation.sample_id,
            [conversation.turns[index] for index in said],
            [question.text for question in group],
            group[0].asked_at,
            {},
            {},
        )
        asked = [question.index for question in group]
        seen = Vectors(vectors.turns[said], vectors.questions[asked])
        for name, scorer in CLASSIC.items():
            best = np.argsort(-scorer(prefix, seen), axis=1, kind="stable")[:, :k]
            for question, row in zip(group, best, strict=True):
                rankings[question.index][name] = [prefix.turns[index].id for index in row]
    return rankings


def age_group(question: Question) -> str:
    """The group of a question by how long before it its last evidence was said."""
    age = question.asked_at - question.evidence_at
    return next(name for name, bound in AGES.items() if age < bound)


@dataclass(frozen=True)
class Scores:
    """One method's measures on one question (0-1)."""

    recall_at_5: float
    recall_at_10: float
    ndcg_at_10: float


def scored(ranked: list[str], gold: Gold) -> Scores:
    """Recall@5, Recall@10 and NDCG@10 of a ranking against a question's evidence."""
    hits = [turn_id in gold.evidence for turn_id in ranked]
    return Scores(
        recall_at_5=sum(hits[:5]) / len(gold.evidence),
        recall_at_10=sum(hits[:10]) / len(gold.evidence),
        ndcg_at_10=ndcg(hits, len(gold.evidence), 10),
    )


def mean(values: list[float]) -> float:
    """The mean x100 with one decimal (0 for none)."""
    return round(100 * statistics.fmean(values), 1) if values else 0.0


def method_summary(method: str, asked: list[Asked]) -> dict[str, Any]:
    """A method's Recall@10 overall, by age of the evidence and after a related question."""
    results = [(entry, scored(entry.rankings[method], entry.question.gold)) for entry in asked]
    return {
        "overall": {
            "recall@5": mean([result.recall_at_5 for _entry, result in results]),
            "recall@10": mean([result.recall_at_10 for _entry, result in results]),
            "ndcg@10": mean([result.ndcg_at_10 for _entry, result in results]),
        },
        "recall@10_by_age": {
            name: mean(
                [
                    result.recall_at_10
                    for entry, result in results
                    if age_group(entry.question) == name
                ]
            )
            for name in AGES
        },
        "recall@10_after_related": mean(
            [result.recall_at_10 for entry, result in results if entry.follows_related]
        ),
        "recall@10_by_category": {
            name: mean(
                [
                    result.recall_at_10
                    for entry, result in results
                    if entry.question.gold.category == number
                ]
            )
            for number, name in CATEGORIES.items()
        },
    }


def recall_cost(asked: list[Asked]) -> dict[str, Any]:
    """What graphmem's recalls cost: memories read and their share, attempts, depth, time."""
    shares = [entry.read / entry.memories for entry in asked]
    seconds = sorted(entry.milliseconds for entry in asked)
    depths = Counter(entry.depth for entry in asked)
    return {
        "memories_read_mean": round(statistics.fmean(entry.read for entry in asked), 1),
        "memories_read_median": statistics.median(entry.read for entry in asked),
        "share_read_mean": round(100 * statistics.fmean(shares), 1),
        "share_read_median": round(100 * statistics.median(shares), 1),
        "owner_memories_mean": round(statistics.fmean(entry.memories for entry in asked), 1),
        "attempts_mean": round(statistics.fmean(entry.attempts for entry in asked), 2),
        "depth_census": {
            Tier(tier).name.lower(): round(100 * depths[tier] / len(asked), 1) for tier in Tier
        },
        "recall_p50_ms": round(statistics.median(seconds), 1),
        "recall_p95_ms": round(statistics.quantiles(seconds, n=20, method="inclusive")[18], 1),
        "statements_per_recall": round(statistics.fmean(entry.statements for entry in asked), 2),
    }


def run(
    samples: list[Sample],
    vectors: dict[str, Vectors],
    store: str,
    k: int,
    seed: int,
    *,
    weights: Weights,
) -> tuple[list[Asked], list[Asked], float]:
    """Both replays of every sample, their questions in order, and the seconds they took.

    Each waking entry also holds the peek replay's and the classic baselines' rankings.
    """
    conversations = [sample.conversation for sample in samples]
    waking: list[Asked] = []
    peek: list[Asked] = []
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory() as folder,
        open_memory(store, "offline", Path(folder), conversations) as memory,
    ):
        for sample in samples:
            name = sample.conversation.sample_id
            questions = schedule(sample, seed)
            replays = {
                mode: replay(
                    memory,
                    sample,
                    questions,
                    owner=f"lifetime-{name}-{mode}",
                    waking=mode == "waking",
                    k=k,
                    seed=seed,
                    weights=weights,
                )
                for mode in ("waking", "peek")
            }
            classic = classic_rankings(sample, questions, vectors[name], k)
            for entry, other in zip(replays["waking"], replays["peek"], strict=True):
                entry.rankings["graphmem:peek"] = other.rankings["graphmem:peek"]
                entry.rankings.update(classic[entry.question.index])
            waking += replays["waking"]
            peek += replays["peek"]
            print(
                f"replayed {name} (waking, peek): {len(questions)} questions,"
                f" {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    return waking, peek, time.perf_counter() - started


def print_report(methods: dict[str, dict[str, Any]], costs: dict[str, dict[str, Any]]) -> None:
    """The tables: Recall@10 by method, overall, by age and after a related question; costs."""
    ages = list(AGES)
    print("| method | R@5 / R@10 / NDCG@10 | " + " | ".join(ages) + " | after related |")
    print("|---" * (len(ages) + 3) + "|")
    for name, entry in methods.items():
        overall = entry["overall"]
        cells = [f"{overall['recall@5']} / {overall['recall@10']} / {overall['ndcg@10']}"]
        cells += [str(entry["recall@10_by_age"][age]) for age in ages]
        cells.append(str(entry["recall@10_after_related"]))
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(
        "\n| graphmem | memories read mean / median | share read mean / median |"
        " attempts | ends at hot / warm / cool / deep (%) | p50 / p95 ms | statements |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, cost in costs.items():
        census = " / ".join(str(value) for value in cost["depth_census"].values())
        print(
            f"| {name} | {cost['memories_read_mean']} / {cost['memories_read_median']}"
            f" | {cost['share_read_mean']} / {cost['share_read_median']}"
            f" | {cost['attempts_mean']} | {census}"
            f" | {cost['recall_p50_ms']} / {cost['recall_p95_ms']}"
            f" | {cost['statements_per_recall']} |"
        )


def main() -> None:
    """Replay, rank, print the tables, write JSON when asked."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--store", choices=["networkx", "neo4j"], default="networkx")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--attention", type=float, default=PRESETS["balanced"].attention)
    parser.add_argument("--recency", type=float, default=PRESETS["balanced"].recency)
    parser.add_argument("--conversations", type=int)
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    weights = PRESETS["balanced"].model_copy(
        update={"attention": arguments.attention, "recency": arguments.recency}
    )
    samples = load(arguments.data, arguments.conversations)
    vectors, _embedding = embed_all([sample.conversation for sample in samples])
    waking, peek, seconds = run(
        samples, vectors, arguments.store, arguments.k, arguments.seed, weights=weights
    )
    names = ["graphmem", "graphmem:peek", "graphmem:always-deep", *MATCHED, *CLASSIC]
    methods = {name: method_summary(name, waking) for name in names}
    costs = {"graphmem": recall_cost(waking), "graphmem:peek": recall_cost(peek)}
    related = [entry for entry in waking if entry.follows_related]
    over = leads(
        [scored(entry.rankings["graphmem"], entry.question.gold).recall_at_10 for entry in waking],
        {
            name: [
                scored(entry.rankings[name], entry.question.gold).recall_at_10 for entry in waking
            ]
            for name in names[1:]
        },
        [age_group(entry.question) for entry in waking],
        list(AGES),
    )
    print_report(methods, costs)
    print(f"\n{len(waking)} questions, {len(related)} after a related one; {seconds:.0f} s")
    print_leads("graphmem", "recall@10", over)
    if arguments.out:
        result = {
            "data": str(arguments.data),
            "store": arguments.store,
            "k": arguments.k,
            "seed": arguments.seed,
            "weights": {"attention": weights.attention, "recency": weights.recency},
            "questions": len(waking),
            "after_related": len(related),
            "seconds": round(seconds, 1),
            "methods": methods,
            "cost": costs,
            "leads": {"method": "graphmem", "measure": "recall@10", "over": over},
            "per_question": [
                {
                    "sample": entry.question.sample_id,
                    "question": entry.question.index,
                    "age_days": round(
                        (entry.question.asked_at - entry.question.evidence_at).total_seconds()
                        / 86_400,
                        2,
                    ),
                    "read": entry.read,
                    "memories": entry.memories,
                    "attempts": entry.attempts,
                    "depth": entry.depth,
                    "follows_related": entry.follows_related,
                }
                for entry in waking
            ],
        }
        write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
