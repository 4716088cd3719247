"""Knowing nothing: how well a recall's confidence tells what memory answers from what it does not.

    python benchmarks/confidence.py [--locomo DATA.json] [--longmemeval DATA.json[.gz]]
        [--out RESULT.json]

Every dev question (LoCoMo's with evidence, LongMemEval's of benchmarks/longmemeval.py) is asked
twice in peek mode with no floor (`min_confidence=0`): of its own owner, and of a foreign one
whose memory does not hold its answer:
- LoCoMo: the owner of the next conversation (in the file's order; the first after the last);
- LongMemEval: the owner of the next question's haystack, searching only the sessions of it
  that hold none of this question's evidence turns (the `sessions` filter; haystacks share
  sessions).
graphmem ingests as benchmarks/context.py does (offline cognition, embedded store). Measured,
per dataset, overall and per question category, on the questions of each half:
- AUC: how often an own question's confidence is above a foreign one's (ties count half), for
  graphmem's `Recall.confidence` and, beside it, the baselines' best score as a confidence (the
  top bm25 score, the top dense:e5 cosine, of the same owner's turns);
- at the floor fitted (below): the share of foreign questions that return nothing, and the
  share of own questions' evidence Recall@10 kept (Recall@10 with the floor over Recall@10
  without). graphmem's default floor (MIN_CONFIDENCE) is recorded beside it.
The halves: questions by their place in their dataset, the even ones ("fit") and the odd ones
("report"). The confidence's weights (ConfidencePolicy) and the default floor were chosen on the
fit half: the script fits the logistic weights on it (`fitted`: gradient descent on the
log-loss, each dataset weighing the same) and names the highest floor that keeps 98% of the fit
half's Recall@10 on both datasets (`floor_fitted`, with the shipped weights); the figures to
read are the report half's.
"""

import argparse
import dataclasses
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import context
import locomo
import longmemeval
import numpy as np
from context import Asked
from locomo import BASELINES, Conversation, Vectors, embed_all, ingest_all, source_turn
from provenance import write_result

from graphmem.contract import MIN_CONFIDENCE, Recall
from graphmem.embedding import CachedEmbedder, E5Embedder
from graphmem.memory import GraphMem
from graphmem.scoring import RecallPolicy
from graphmem.store.networkx import NetworkXStore

K = 10
KEPT_RECALL = 0.98
"""The share of own questions' Recall@10 the default floor must keep (issue 61)."""
CONFIDENCE_BASELINES = ("bm25", "dense:e5")
AUC_HEADS = ("AUC graphmem", "AUC bm25 top", "AUC dense top")
FIT_STEPS = 20_000
FIT_RATE = 0.5


@dataclasses.dataclass(frozen=True)
class Asking:
    """A question asked of an owner: whose memory, which of its sessions, and when."""

    asked: Asked
    own: bool
    conversation: Conversation
    """The conversation whose owner is asked (the question's own, or the foreign one)."""
    sessions: frozenset[int] | None
    """The sessions of that conversation searched (None: all)."""


@dataclasses.dataclass(frozen=True)
class Answer:
    """What one asking gave: graphmem's confidence and signals, Recall@10, the baselines' tops."""

    confidence: float
    nearness: float
    coverage: float
    first_coverage: float
    recall_at_10: float
    baselines: dict[str, float]

    @property
    def scores(self) -> dict[str, float]:
        """The confidence of graphmem and each baseline's top score, by name."""
        return {"graphmem": self.confidence, **self.baselines}


def foreign_sessions(asked: Asked, other: Conversation) -> frozenset[int]:
    """The sessions of another conversation that hold none of the question's evidence texts."""
    evidence = {turn.text for turn in asked.conversation.turns if turn.id in asked.evidence}
    held = {turn.session for turn in other.turns if turn.text in evidence}
    return frozenset(turn.session for turn in other.turns) - held


def askings(questions: list[Asked], *, filter_sessions: bool) -> list[Asking]:
    """Each question of its own conversation's owner, then of the next conversation's."""
    conversations = list({asked.conversation.sample_id: asked.conversation for asked in questions})
    by_id = {asked.conversation.sample_id: asked.conversation for asked in questions}
    following = {
        name: by_id[conversations[(index + 1) % len(conversations)]]
        for index, name in enumerate(conversations)
    }
    result = []
    for asked in questions:
        other = following[asked.conversation.sample_id]
        sessions = foreign_sessions(asked, other) if filter_sessions else None
        result.append(Asking(asked, True, asked.conversation, None))
        result.append(Asking(asked, False, other, sessions))
    return result


def baseline_tops(
    asking: Asking, vectors: dict[str, Vectors], question_vectors: dict[str, np.ndarray]
) -> dict[str, float]:
    """The best score of each confidence baseline over the asked owner's searched turns."""
    conversation = asking.conversation
    keep = [
        index
        for index, turn in enumerate(conversation.turns)
        if asking.sessions is None or turn.session in asking.sessions
    ]
    question = asking.asked.conversation.questions[asking.asked.number]
    searched = dataclasses.replace(
        conversation, turns=[conversation.turns[index] for index in keep], questions=[question]
    )
    own = vectors[conversation.sample_id]
    narrowed = Vectors(questions=question_vectors[question][None, :], turns=own.turns[keep])
    return {
        name: float(BASELINES[name](searched, narrowed).max()) if keep else 0.0
        for name in CONFIDENCE_BASELINES
    }


def ask_all(
    memory: GraphMem,
    owners: dict[str, str],
    all_askings: list[Asking],
    vectors: dict[str, Vectors],
    question_vectors: dict[str, np.ndarray],
) -> list[Answer]:
    """Ask every question of its owner, with no floor, in peek mode."""
    answers = []
    for number, asking in enumerate(all_askings, start=1):
        conversation = asking.conversation
        found: Recall = memory.recall(
            owners[conversation.sample_id],
            asking.asked.conversation.questions[asking.asked.number],
            k=K,
            at=conversation.asked_at,
            peek=True,
            min_confidence=0.0,
            sessions=None
            if asking.sessions is None
            else [f"session_{session}" for session in sorted(asking.sessions)],
        )
        turns = [source_turn(turn.id) for item in found.memories for turn in item.turns]
        top = list(dict.fromkeys(turns))[:K]
        evidence = asking.asked.evidence
        answers.append(
            Answer(
                confidence=found.confidence,
                nearness=found.nearness,
                coverage=found.coverage,
                first_coverage=found.first_coverage,
                recall_at_10=len(evidence.intersection(top)) / len(evidence) if asking.own else 0,
                baselines=baseline_tops(asking, vectors, question_vectors),
            )
        )
        if number % 200 == 0:
            print(f"asked {number}/{len(all_askings)}", file=sys.stderr, flush=True)
    return answers


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """The chance that a positive scores above a negative (ties half), 0-100."""
    if not positives or not negatives:
        return float("nan")
    ours = np.array(positives)[:, None]
    theirs = np.array(negatives)[None, :]
    return round(100 * float(np.mean((ours > theirs) + 0.5 * (ours == theirs))), 1)


def at_floor(pairs: list[tuple[Asking, Answer]], floor: float) -> dict[str, float]:
    """With this floor: foreign questions returning nothing, own Recall@10 kept (%)."""
    own = [answer for asking, answer in pairs if asking.own]
    foreign = [answer for asking, answer in pairs if not asking.own]
    whole = sum(answer.recall_at_10 for answer in own)
    kept = sum(answer.recall_at_10 for answer in own if answer.confidence >= floor)
    return {
        "foreign_nothing": round(
            100 * statistics.fmean(answer.confidence < floor for answer in foreign), 1
        ),
        "own_nothing": round(
            100 * statistics.fmean(answer.confidence < floor for answer in own), 1
        ),
        "recall_at_10": round(100 * whole / len(own), 1),
        "recall_at_10_kept": round(100 * kept / whole, 1) if whole else float("nan"),
    }


def separation(pairs: list[tuple[Asking, Answer]]) -> dict[str, float]:
    """AUC of graphmem's confidence and of each baseline's top score, own against foreign."""
    return {
        name: auc(
            [answer.scores[name] for asking, answer in pairs if asking.own],
            [answer.scores[name] for asking, answer in pairs if not asking.own],
        )
        for name in ("graphmem", *CONFIDENCE_BASELINES)
    }


def report(pairs: list[tuple[Asking, Answer]], floor: float) -> dict[str, Any]:
    """AUCs and the floor's figures, overall and per category."""
    categories = list(dict.fromkeys(asking.asked.category for asking, _answer in pairs))
    return {
        "questions": sum(asking.own for asking, _answer in pairs),
        "auc": separation(pairs),
        "at_floor": at_floor(pairs, floor),
        "by_category": {
            name: {
                "questions": sum(
                    asking.own for asking, _answer in pairs if asking.asked.category == name
                ),
                "auc": separation([pair for pair in pairs if pair[0].asked.category == name]),
                "at_floor": at_floor(
                    [pair for pair in pairs if pair[0].asked.category == name], floor
                ),
            }
            for name in categories
        },
    }


def fit_weights(datasets: list[list[tuple[Asking, Answer]]]) -> dict[str, float]:
    """Logistic weights of the signals fitted to own (1) and foreign (0) on the fit halves.

    Each dataset weighs the same in the log-loss: LoCoMo has 27 times LongMemEval's questions.
    """
    pairs = [pair for pairs in datasets for pair in pairs]
    features = np.array(
        [
            [answer.nearness, answer.coverage, answer.first_coverage, 1.0]
            for _asking, answer in pairs
        ]
    )
    labels = np.array([float(asking.own) for asking, _answer in pairs])
    shares = np.concatenate([np.full(len(pairs), 1 / len(pairs)) for pairs in datasets])
    shares /= shares.sum()
    scale = np.array([max(1e-9, float(np.std(features[:, 0]))), 1.0, 1.0, 1.0])
    scaled = features / scale
    weights = np.zeros(4)
    for _ in range(FIT_STEPS):
        predicted = 1 / (1 + np.exp(-scaled @ weights))
        weights -= FIT_RATE * scaled.T @ ((predicted - labels) * shares)
    nearness, covered, first_covered, intercept = (weights / scale).tolist()
    return {
        "nearness": round(nearness, 2),
        "coverage": round(covered, 2),
        "first_coverage": round(first_covered, 2),
        "intercept": round(intercept, 2),
    }


def floor_fitted(pairs: list[tuple[Asking, Answer]]) -> float:
    """The highest floor (in steps of 0.01) keeping KEPT_RECALL of the own Recall@10."""
    floors = [step / 100 for step in range(101)]
    kept = [
        floor
        for floor in floors
        if at_floor(pairs, floor)["recall_at_10_kept"] >= 100 * KEPT_RECALL
    ]
    return max(kept, default=0.0)


def measure(
    name: str, questions: list[Asked], cache: Path, *, filter_sessions: bool
) -> list[tuple[Asking, Answer]]:
    """Ingest a dataset's conversations and ask each question of its own and a foreign owner."""
    conversations = list(
        {asked.conversation.sample_id: asked.conversation for asked in questions}.values()
    )
    vectors, _cost = embed_all(conversations, cache)
    question_vectors = {
        question: vectors[conversation.sample_id].questions[index]
        for conversation in conversations
        for index, question in enumerate(conversation.questions)
    }
    all_askings = askings(questions, filter_sessions=filter_sessions)
    with GraphMem(NetworkXStore.open(None), CachedEmbedder(E5Embedder(), cache)) as memory:
        owners = ingest_all(memory, conversations, facts=False).owners
        answers = ask_all(memory, owners, all_askings, vectors, question_vectors)
    print(f"{name}: asked {len(answers)} times", file=sys.stderr, flush=True)
    return list(zip(all_askings, answers, strict=True))


def halves(pairs: list[tuple[Asking, Answer]]) -> dict[str, list[tuple[Asking, Answer]]]:
    """The askings of the even-numbered questions (fit) and of the odd-numbered (report)."""
    return {
        "fit": [pair for index, pair in enumerate(pairs) if (index // 2) % 2 == 0],
        "report": [pair for index, pair in enumerate(pairs) if (index // 2) % 2 == 1],
    }


def print_tables(result: dict[str, Any]) -> None:
    """Per dataset and half: AUCs, the floor's figures; per category for the report half."""
    print(f"\nfloor {result['floor_fitted']} (default {result['default_floor']})")
    print(f"weights {result['policy']}")
    print(f"fitted on the fit half: weights {result['fitted']}, floor {result['floor_fitted']}")
    heads = ["dataset", "half", "questions", *AUC_HEADS, "foreign nothing", "own nothing"]
    print(f"\n| {' | '.join([*heads, 'R@10', 'R@10 kept'])} |\n|{'---|' * (len(heads) + 2)}")
    for dataset, measured in result["datasets"].items():
        for half, figures in measured.items():
            floor = figures["at_floor"]
            auc_ = figures["auc"]
            print(
                f"| {dataset} | {half} | {figures['questions']} | {auc_['graphmem']}"
                f" | {auc_['bm25']} | {auc_['dense:e5']} | {floor['foreign_nothing']}"
                f" | {floor['own_nothing']}"
                f" | {floor['recall_at_10']} | {floor['recall_at_10_kept']} |"
            )
    for dataset, measured in result["datasets"].items():
        print(f"\n{dataset}, report half, per category")
        heads = ["category", "questions", *AUC_HEADS, "foreign nothing", "R@10 kept"]
        print(f"| {' | '.join(heads)} |\n|{'---|' * len(heads)}")
        for name, figures in measured["report"]["by_category"].items():
            auc_ = figures["auc"]
            floor = figures["at_floor"]
            print(
                f"| {name} | {figures['questions']} | {auc_['graphmem']} | {auc_['bm25']}"
                f" | {auc_['dense:e5']} | {floor['foreign_nothing']}"
                f" | {floor['recall_at_10_kept']} |"
            )


def main() -> None:
    """Ask every dev question of its own and a foreign owner; measure the confidence."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    context.dev_sets(parser)
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    measured = {
        "locomo": measure(
            "locomo",
            context.locomo_questions(arguments.locomo),
            locomo.CACHE,
            filter_sessions=False,
        ),
        "longmemeval": measure(
            "longmemeval",
            context.longmemeval_questions(arguments.longmemeval),
            longmemeval.CACHE,
            filter_sessions=True,
        ),
    }
    split = {name: halves(pairs) for name, pairs in measured.items()}
    floor = min(floor_fitted(halved["fit"]) for halved in split.values())
    result = {
        "default_floor": MIN_CONFIDENCE,
        "policy": RecallPolicy().confidence.model_dump(),
        "fitted": fit_weights([halved["fit"] for halved in split.values()]),
        "floor_fitted": floor,
        "datasets": {
            name: {half: report(pairs, floor) for half, pairs in halved.items()}
            for name, halved in split.items()
        },
    }
    print_tables(result)
    if arguments.out:
        write_result(arguments.out, result, [arguments.locomo, arguments.longmemeval])


if __name__ == "__main__":
    main()
