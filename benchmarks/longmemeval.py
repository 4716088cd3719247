"""Evidence retrieval on LongMemEval: graphmem against the baselines, one haystack per question.

    python benchmarks/longmemeval.py DATA.json[.gz] [--store networkx|neo4j]
        [--cognition offline|openai] [--limit N] [--k 10] [--out RESULT.json]

Each question of LongMemEval (../shared/data/longmemeval/, whose README says what it holds) has
its own haystack of chat sessions between a user and an assistant. Every method ranks the turns
of the question's haystack and returns its best k (default 10). A turn's text is "role: content"
for every method alike. Scores, per question type and overall, as the benchmark's own retrieval
evaluation measures them: turn-level Recall@5 and Recall@10 (the share of the evidence turns,
those marked `has_answer`, among the top k), NDCG@10 (binary relevance) and session-level
recall_any@5 and @10 (whether any evidence session, `answer_session_ids`, holds one of the top k
turns). Abstention questions (ids ending in `_abs`) have no evidence and are left out, as are
questions whose haystack marks no evidence turn; both are counted in the output. --limit N takes
N questions spread over the question types (the first of each type, then the second, ...).

Sessions are read in time order (the haystack's dates are not always sorted within a day), each
turn at its session's date; the question is asked at its `question_date`, or just as its haystack
ends if that is later (one dev question is dated before 43 of its 47 sessions). The baselines are
those of benchmarks/locomo.py (bm25, dense:e5, rrf:e5, ga:e5, context+session:e5), computed on
the same haystacks in the same run. graphmem: one fresh owner per question observes every turn
of its haystack (user and assistant), session by session, then recalls the question at its date,
first in peek mode (`graphmem:<store>:<cognition>:peek`), then waking
(`graphmem:<store>:<cognition>`), as benchmarks/locomo.py does. Embeddings are cached by text in
.cache/longmemeval-embeddings.sqlite: the first run embeds the 19,025 distinct turns of the 40
haystacks (they share few), about 100 minutes on two cores; a rerun computes none.

Last, graphmem's lead over each baseline in NDCG@10 (graphmem waking), per question type and
overall, with a 95% paired bootstrap interval over the questions (benchmarks/locomo.py's
`leads`; `leads` in the JSON).
"""

import argparse
import gzip
import json
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain, zip_longest
from pathlib import Path
from typing import Any

from locomo import (
    BASELINES,
    Conversation,
    DialogueTurn,
    MethodRun,
    embed_all,
    leads,
    ndcg,
    print_leads,
    run_baseline,
    run_graphmem,
)
from provenance import write_result

CACHE = Path(__file__).resolve().parent.parent / ".cache" / "longmemeval-embeddings.sqlite"
DATE = "%Y/%m/%d (%a) %H:%M"
"""How LongMemEval writes a date: "2023/05/20 (Sat) 02:21"."""
MEASURES = ("recall@5", "recall@10", "ndcg@10", "session_any@5", "session_any@10")
LEAD_MEASURE = "ndcg@10"
"""The measure of graphmem's lead over each baseline: the one that weighs the order of the top."""


@dataclass(frozen=True)
class Question:
    """A question's haystack as the methods see it, and what scoring reads of it."""

    conversation: Conversation
    question_type: str
    evidence: frozenset[str]
    """The ids of the turns marked has_answer."""
    evidence_sessions: frozenset[int]
    """The numbers of the answer sessions found in the haystack."""


@dataclass(frozen=True)
class Dataset:
    """The questions kept and how many were left out, by reason."""

    questions: list[Question]
    abstention: int
    without_evidence: int


def load(path: Path, limit: int | None = None) -> Dataset:
    """The questions of a LongMemEval file with their haystacks (N spread over types, if given)."""
    items = read_items(path)
    abstention = [item for item in items if item["question_id"].endswith("_abs")]
    kept = [read_question(item) for item in items if item not in abstention]
    questions = [question for question in kept if question.evidence]
    return Dataset(
        spread(questions)[:limit], len(abstention), without_evidence=len(kept) - len(questions)
    )


def read_items(path: Path) -> list[dict[str, Any]]:
    """The items of a LongMemEval file (.json or .json.gz) as written there."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as file:
        items: list[dict[str, Any]] = json.load(file)
    return items


def spread(questions: list[Question]) -> list[Question]:
    """The questions ordered the first of each type, then the second of each, and so on."""
    types: dict[str, list[Question]] = {}
    for question in questions:
        types.setdefault(question.question_type, []).append(question)
    rounds = zip_longest(*(types[name] for name in sorted(types)))
    return [question for question in chain.from_iterable(rounds) if question is not None]


def read_question(item: dict[str, Any]) -> Question:
    """One question: its haystack's turns, session by session in time order, and its evidence."""
    sessions = sorted(
        zip(
            item["haystack_session_ids"],
            item["haystack_dates"],
            item["haystack_sessions"],
            strict=True,
        ),
        key=lambda session: parse_date(session[1]),
    )
    turns = []
    evidence = set()
    numbers = {}
    for number, (session_id, date, messages) in enumerate(sessions, start=1):
        numbers[session_id] = number
        for index, message in enumerate(messages):
            turn_id = f"S{number}:{index}"
            text = f"{message['role']}: {message['content']}"
            turns.append(DialogueTurn(turn_id, text, message["role"], number, parse_date(date)))
            if message.get("has_answer"):
                evidence.add(turn_id)
    conversation = Conversation(
        sample_id=item["question_id"],
        turns=turns,
        questions=[item["question"]],
        # Asked after its whole haystack: one dev question is dated hours before most of its
        # sessions (the same day), which the baselines read anyway.
        asked_at=max(parse_date(item["question_date"]), turns[-1].at),
        facts={},
        summaries={},
    )
    answer_sessions = {numbers[key] for key in item["answer_session_ids"] if key in numbers}
    return Question(
        conversation, item["question_type"], frozenset(evidence), frozenset(answer_sessions)
    )


def parse_date(text: str) -> datetime:
    """A LongMemEval date ("2023/05/20 (Sat) 02:21"), taken as UTC."""
    return datetime.strptime(text, DATE).replace(tzinfo=UTC)


def judge(ranked: list[str], question: Question) -> dict[str, float]:
    """The five measures of one question's ranking, each 0-1."""
    hits = [turn_id in question.evidence for turn_id in ranked]
    session_of = {turn.id: turn.session for turn in question.conversation.turns}

    def any_session(k: int) -> float:
        """Whether an evidence session holds one of the top k turns."""
        return float(
            bool({session_of[turn_id] for turn_id in ranked[:k]} & question.evidence_sessions)
        )

    return {
        "recall@5": sum(hits[:5]) / len(question.evidence),
        "recall@10": sum(hits[:10]) / len(question.evidence),
        "ndcg@10": ndcg(hits, len(question.evidence), 10),
        "session_any@5": any_session(5),
        "session_any@10": any_session(10),
    }


def means(results: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each measure averaged over questions, 0-100 with one decimal."""
    return {
        name: round(100 * statistics.fmean(result[name] for result in results), 1)
        for name in MEASURES
    }


def judge_all(run: MethodRun, questions: list[Question]) -> list[dict[str, float]]:
    """The measures of every question's ranking under one method."""
    return [
        judge(run.rankings[question.conversation.sample_id][0], question) for question in questions
    ]


def summary(
    results: list[dict[str, float]], questions: list[Question], cost: dict[str, float]
) -> dict[str, Any]:
    """A method's JSON entry: overall, per question type, and its cost."""
    types = sorted({question.question_type for question in questions})
    return {
        "overall": means(results),
        "by_category": {
            name: means(
                [
                    result
                    for result, question in zip(results, questions, strict=True)
                    if question.question_type == name
                ]
            )
            for name in types
        },
        "cost": cost,
    }


def cell(measures: dict[str, float]) -> str:
    """A table cell: R@5 / R@10 / NDCG@10 / session any@5."""
    return " / ".join(str(measures[name]) for name in MEASURES[:4])


def print_tables(methods: dict[str, dict[str, Any]], questions: list[Question]) -> None:
    """The retrieval table by question type, and the cost table."""
    counts = Counter(question.question_type for question in questions)
    columns = [f"{name} (n={counts[name]})" for name in sorted(counts)]
    columns.append(f"ALL (n={len(questions)})")
    print("Each cell: turn R@5 / R@10 / NDCG@10 / session any@5")
    print("| method | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, entry in methods.items():
        cells = [cell(entry["by_category"][category]) for category in sorted(counts)]
        cells.append(cell(entry["overall"]))
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    print("| method | session any@10 | time | recall p50 / p95 |")
    print("|---|---|---|---|")
    for name, entry in methods.items():
        cost = entry["cost"]
        if "scoring_seconds" in cost:
            times = f"scoring {cost['scoring_seconds']} s | -"
        else:
            times = (
                f"ingestion {cost['ingest_seconds']} s ({cost['turns_per_second']} turns/s)"
                f" | {cost['recall_p50_ms']} / {cost['recall_p95_ms']} ms"
            )
        print(f"| {name} | {entry['overall']['session_any@10']} | {times} |")


def main() -> None:
    """Load, embed, run the baselines and graphmem, print the tables, write JSON when asked."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--store", choices=["networkx", "neo4j"], default="networkx")
    parser.add_argument("--cognition", choices=["offline", "openai"], default="offline")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    dataset = load(arguments.data, arguments.limit)
    conversations = [question.conversation for question in dataset.questions]

    vectors, embedding = embed_all(conversations, CACHE)
    runs = {
        name: run_baseline(scorer, conversations, vectors, arguments.k)
        for name, scorer in BASELINES.items()
    }
    graphmem = run_graphmem(conversations, arguments.store, arguments.cognition, arguments.k, CACHE)
    runs.update(graphmem)
    results = {name: judge_all(run, dataset.questions) for name, run in runs.items()}
    methods = {
        name: summary(results[name], dataset.questions, run.cost) for name, run in runs.items()
    }
    ours = next(name for name in graphmem if not name.endswith(":peek"))
    types = [question.question_type for question in dataset.questions]
    over = leads(
        [result[LEAD_MEASURE] for result in results[ours]],
        {name: [result[LEAD_MEASURE] for result in results[name]] for name in BASELINES},
        types,
        sorted(set(types)),
    )

    print_tables(methods, dataset.questions)
    print_leads(ours, LEAD_MEASURE, over)
    print(
        f"\nLeft out: {dataset.abstention} abstention questions,"
        f" {dataset.without_evidence} without a marked evidence turn."
    )
    if arguments.out:
        result = {
            "data": str(arguments.data),
            "k": arguments.k,
            "questions": len(dataset.questions),
            "abstention_questions": dataset.abstention,
            "questions_without_evidence": dataset.without_evidence,
            "turns": sum(len(conversation.turns) for conversation in conversations),
            "embedding": embedding,
            "methods": methods,
            "leads": {"method": ours, "measure": LEAD_MEASURE, "over": over},
        }
        write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
