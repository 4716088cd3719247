"""How much of the search a sufficiency rule could spare on LoCoMo over time, and what rules do.

    python benchmarks/stopping.py DATA.json [--seed 0] [--conversations N] [--out RESULT.json]

Recall searches the tiers from the hottest down and stops when its rule says the answer is
found. This measures what any such rule can gain, on the questions of lifetime.py asked at their
times (the same schedule and nightly jobs, embedded store, offline cognition, nothing woken).
At each question it reads the owner's graph (`export`) and the always-deep ranking (a peek at
motivation 10), and for each depth d (hot; hot and warm; down to cool; every tier) it takes:
- the memories a search down to d reads (every memory in those tiers, as lifetime.py counts);
- Recall@10 at d: the always-deep ranking restricted to those memories (the ranking a search
  stopped at d gives, but for candidates that only a deeper search would have found);
- what a rule can see after reading them: the best cosine of the query to a memory read, its
  margin over the mean of the 50 best, and lexical coverage (the largest share of the query's
  terms, weighted by inverse document frequency over the owner's memories, that one memory read
  holds).

Stops compared, each starting at the hot tier: fixed depths; the oracle (the shallowest depth
whose Recall@10 equals always-deep's: no rule can read less without losing); and rules over a
grid of thresholds: best cosine, margin, coverage, and best cosine and coverage together. For
each family the table gives the rule that reads least (median, then mean share) while keeping
Recall@10 at >= 95% of always-deep's, and the best Recall@10 of a rule whose median question
reads <= 40%.

Two tierings: graphmem's as stored, and a counterfactual, `by amount said`: each memory's
attention recomputed from a label of how much it says (the offline salience cue's value when it
has one, else 1 + its content words / 4, at most 6), decayed with the default long-term
half-life, tiered by the default floors: what better write-time labels could concentrate.
Last, the census: the share of the owner's memories and of the evidence's memories in each tier.
"""

import argparse
import math
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
from lifetime import Question, first_turns, nights, schedule
from locomo import Sample, Vectors, embed_all, load, open_memory
from provenance import write_result

from graphmem.cognition.offline import BASE_SALIENCE, salience
from graphmem.contract import MAX_RECALL
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.mechanisms.tiers import TierPolicy, tier_for
from graphmem.memory import GraphMem
from graphmem.model import LinkType, Memory, Tier
from graphmem.terms import terms, words

DEPTHS = list(Tier)
SHARE_TARGET = 0.4
"""The issue's bound on the median question's share of memories read."""
KEPT = 0.95
"""The share of always-deep's Recall@10 a rule must keep."""
MARGIN_OF = 50
"""The margin is the best cosine minus the mean of this many best."""
AMOUNT_WORDS = 4
"""Content words worth one point of the `by amount said` label."""
AMOUNT_MOST = 6.0
"""The most that label gives without a salience cue."""
RULES: dict[str, list[tuple[float, float, float]]] = {
    "best cosine": [(best, 0.0, 0.0) for best in np.arange(0.80, 0.951, 0.01)],
    "margin": [(0.0, margin, 0.0) for margin in np.arange(0.01, 0.101, 0.005)],
    "coverage": [(0.0, 0.0, coverage) for coverage in np.arange(0.3, 1.001, 0.05)],
    "best cosine and coverage": list(
        product(np.arange(0.80, 0.901, 0.01), [0.0], np.arange(0.3, 1.001, 0.1))
    ),
}
"""Each family's grid of (best cosine, margin, coverage) thresholds; a rule stops when all hold."""


@dataclass(frozen=True)
class Seen:
    """What a search down to one depth reads and what a rule sees there."""

    read: int
    recall_at_10: float
    best: float
    margin: float
    coverage: float


@dataclass(frozen=True)
class Asked:
    """One question: what each depth gives under each tiering, and the census of its tiers."""

    owner_memories: int
    depths: dict[str, list[Seen]]
    census: dict[str, tuple[Counter[Tier], Counter[Tier]]]
    """Per tiering: memories per tier, and memories holding evidence per tier."""


def amount_label(memory: Memory) -> float:
    """The counterfactual write-time label: a salience cue's value, else how much is said."""
    value, _reason = salience(memory.text)
    if value != BASE_SALIENCE:
        return value
    return min(1 + len(words(memory.text)) / AMOUNT_WORDS, AMOUNT_MOST)


def amount_tier(
    memory: Memory, now: datetime, attention: AttentionPolicy, tiers: TierPolicy
) -> Tier:
    """The memory's tier if its attention were the amount label, decayed since it was made."""
    age = (now - memory.created_at) / attention.long_term_half_life
    return tier_for(amount_label(memory) * 0.5 ** max(age, 0.0), tiers)


def look(memory: GraphMem, owner: str, question: Question, query: np.ndarray, k: int) -> Asked:
    """Read the owner's graph at the question and what each depth gives under each tiering."""
    deep = memory.recall(
        owner, question.text, k=MAX_RECALL, motivation=10.0, peek=True, at=question.asked_at
    )
    ranked = [(item.memory.id, [turn.id for turn in item.turns]) for item in deep.memories]
    graph = memory.export(owner)
    memories = [node for node in graph.nodes if isinstance(node, Memory)]
    sources: dict[str, set[str]] = {}
    for _source, _target, link in graph.links:
        if link.type == LinkType.FROM:
            sources.setdefault(link.source, set()).add(link.target)
    tierings = {
        "graphmem": {item.id: item.tier for item in memories},
        "by amount said": {
            item.id: amount_tier(item, question.asked_at, AttentionPolicy(), TierPolicy())
            for item in memories
        },
    }
    searchable = [item for item in memories if item.embedding is not None]
    cosines = {item.id: float(np.dot(item.embedding or [], query)) for item in searchable}
    coverage = lexical_coverage(question.text, searchable)
    evidence = question.gold.evidence
    holding = {item.id for item in memories if sources.get(item.id, set()) & evidence}
    depths: dict[str, list[Seen]] = {}
    census = {}
    for name, tier_of in tierings.items():
        seen = []
        for depth in DEPTHS:
            inside = {key for key, tier in tier_of.items() if tier <= depth}
            best = sorted((cosines[key] for key in inside if key in cosines), reverse=True)
            found = first_turns([turns for key, turns in ranked if key in inside], k)
            seen.append(
                Seen(
                    read=len(inside),
                    recall_at_10=len(set(found) & evidence) / len(evidence),
                    best=best[0] if best else 0.0,
                    margin=best[0] - statistics.fmean(best[:MARGIN_OF]) if best else 0.0,
                    coverage=max((coverage[key] for key in inside if key in coverage), default=0),
                )
            )
        depths[name] = seen
        census[name] = (
            Counter(tier_of.values()),
            Counter(tier for key, tier in tier_of.items() if key in holding),
        )
    return Asked(owner_memories=len(memories), depths=depths, census=census)


def lexical_coverage(query: str, memories: list[Memory]) -> dict[str, float]:
    """Each memory's share of the query's terms, weighted by inverse document frequency."""
    asked = terms(query)
    held = {item.id: terms(item.text) & asked for item in memories}
    frequency = Counter(term for found in held.values() for term in found)
    weight = {
        term: math.log((len(memories) + 1) / (frequency[term] + 0.5)) for term in sorted(asked)
    }
    total = sum(weight.values()) or 1.0
    return {key: sum(weight[term] for term in found) / total for key, found in held.items()}


def replay(
    memory: GraphMem, sample: Sample, questions: list[Question], vectors: Vectors, k: int
) -> list[Asked]:
    """Observe a conversation at its times with nightly jobs, looking at each question."""
    conversation = sample.conversation
    owner = f"stopping-{conversation.sample_id}"
    sessions: dict[int, list[Any]] = {}
    for turn in conversation.turns:
        sessions.setdefault(turn.session, []).append(turn)
    clock = conversation.turns[0].at - timedelta(days=1)
    asked = []
    for number, turns in sessions.items():
        for night in nights(clock, turns[0].at):
            memory.consolidate(owner, at=night)
        for turn in turns:  # one at a time, as lifetime.py observes
            memory.observe(
                owner,
                turn.text,
                message_id=turn.id,
                at=turn.at,
                speaker=turn.speaker,
                session=f"session_{number}",
            )
        clock = turns[-1].at
        for question in (item for item in questions if item.after_session == number):
            for night in nights(clock, question.asked_at):
                memory.consolidate(owner, at=night)
            clock = question.asked_at
            asked.append(look(memory, owner, question, vectors.questions[question.index], k))
    return asked


Stop = Callable[[list[Seen]], int]
"""A stopping rule: the depth a search stops at, given what each depth would show."""


def threshold_stop(best: float, margin: float, coverage: float) -> Stop:
    """Stop at the first depth where best cosine, margin and coverage all reach theirs."""

    def stop(seen: list[Seen]) -> int:
        return next(
            (
                depth
                for depth, at in enumerate(seen)
                if at.best >= best and at.margin >= margin and at.coverage >= coverage
            ),
            len(seen) - 1,
        )

    return stop


def oracle_stop(seen: list[Seen]) -> int:
    """The shallowest depth that loses nothing of always-deep's Recall@10."""
    return next(depth for depth, at in enumerate(seen) if at.recall_at_10 >= seen[-1].recall_at_10)


def fixed_stop(depth: int) -> Stop:
    """Always stop at `depth`."""
    return lambda _seen: depth


def outcome(asked: list[Asked], tiering: str, stop: Stop) -> dict[str, Any]:
    """A stop's Recall@10 (x100), its ratio to always-deep's, shares read and where it ended."""
    ends: Counter[int] = Counter()
    recalls, shares, deepest = [], [], []
    for entry in asked:
        seen = entry.depths[tiering]
        depth = stop(seen)
        ends[depth] += 1
        recalls.append(seen[depth].recall_at_10)
        shares.append(seen[depth].read / entry.owner_memories)
        deepest.append(seen[-1].recall_at_10)
    return {
        "recall@10": round(100 * statistics.fmean(recalls), 1),
        "kept": round(statistics.fmean(recalls) / statistics.fmean(deepest), 3),
        "share_read_median": round(100 * statistics.median(shares), 1),
        "share_read_mean": round(100 * statistics.fmean(shares), 1),
        "ended_at": [round(100 * ends[depth] / len(asked), 1) for depth in range(len(DEPTHS))],
    }


def rule_name(family: str, thresholds: tuple[float, float, float]) -> str:
    """A rule's name with its thresholds."""
    best, margin, coverage = thresholds
    parts = {"best cosine": f"best >= {best:.2f}", "margin": f"margin >= {margin:.3f}"}
    parts["coverage"] = f"coverage >= {coverage:.2f}"
    if family == "best cosine and coverage":
        return f"{parts['best cosine']}, {parts['coverage']}"
    return parts[family]


def compare(asked: list[Asked], tiering: str) -> list[dict[str, Any]]:
    """Rows of one tiering: fixed depths, the oracle, each family's cheapest and best rules."""
    rows = [
        {
            "stop": f"always at {Tier(depth).name.lower()}",
            **outcome(asked, tiering, fixed_stop(depth)),
        }
        for depth in range(len(DEPTHS))
    ]
    rows.append({"stop": "oracle", **outcome(asked, tiering, oracle_stop)})
    for family, grid in RULES.items():
        tried = [
            {"stop": rule_name(family, rule), **outcome(asked, tiering, threshold_stop(*rule))}
            for rule in grid
        ]
        keeping = [row for row in tried if row["kept"] >= KEPT]
        cheapest = min(
            keeping,
            key=lambda row: (row["share_read_median"], row["share_read_mean"]),
            default=None,
        )
        if cheapest is not None:
            rows.append({**cheapest, "family": family, "chosen": f"least read keeping {KEPT:.0%}"})
        within = [row for row in tried if row["share_read_median"] <= 100 * SHARE_TARGET]
        best = max(within, key=lambda row: row["recall@10"], default=None)
        if best is not None:
            rows.append({**best, "family": family, "chosen": "best with median read <= 40%"})
    return rows


def census(asked: list[Asked], tiering: str) -> dict[str, list[float]]:
    """The share of memories and of evidence memories in each tier, over all questions."""
    memories: Counter[Tier] = Counter()
    evidence: Counter[Tier] = Counter()
    for entry in asked:
        held, holding = entry.census[tiering]
        memories += held
        evidence += holding
    return {
        "memories": [round(100 * memories[tier] / memories.total(), 1) for tier in DEPTHS],
        "evidence": [round(100 * evidence[tier] / evidence.total(), 1) for tier in DEPTHS],
    }


def print_report(tables: dict[str, list[dict[str, Any]]], censuses: dict[str, Any]) -> None:
    """One table per tiering, then the census."""
    for tiering, rows in tables.items():
        print(f"\ntiers: {tiering}\n")
        print(
            "| stop | chosen as | R@10 | kept | share read median / mean"
            " | ends hot/warm/cool/deep |"
        )
        print("|---|---|---|---|---|---|")
        for row in rows:
            ends = " / ".join(str(value) for value in row["ended_at"])
            print(
                f"| {row['stop']} | {row.get('chosen', '-')} | {row['recall@10']} | {row['kept']}"
                f" | {row['share_read_median']} / {row['share_read_mean']} | {ends} |"
            )
    print("\n| tiers | memories hot/warm/cool/deep (%) | evidence hot/warm/cool/deep (%) |")
    print("|---|---|---|")
    for tiering, shares in censuses.items():
        print(
            f"| {tiering} | {' / '.join(map(str, shares['memories']))}"
            f" | {' / '.join(map(str, shares['evidence']))} |"
        )


def main() -> None:
    """Replay, look at every question, compare the stops, print, write JSON when asked."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--conversations", type=int)
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    samples = load(arguments.data, arguments.conversations)
    vectors, _cost = embed_all([sample.conversation for sample in samples])
    started = time.perf_counter()
    asked: list[Asked] = []
    with (
        tempfile.TemporaryDirectory() as folder,
        open_memory(
            "networkx", "offline", Path(folder), [sample.conversation for sample in samples]
        ) as memory,
    ):
        for sample in samples:
            name = sample.conversation.sample_id
            asked += replay(memory, sample, schedule(sample, arguments.seed), vectors[name], 10)
            print(
                f"looked at {name}: {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    tables = {tiering: compare(asked, tiering) for tiering in asked[0].depths}
    censuses = {tiering: census(asked, tiering) for tiering in asked[0].depths}
    print_report(tables, censuses)
    print(f"\n{len(asked)} questions; {time.perf_counter() - started:.0f} s")
    if arguments.out:
        result = {
            "data": str(arguments.data),
            "seed": arguments.seed,
            "questions": len(asked),
            "tables": tables,
            "census": censuses,
        }
        write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
