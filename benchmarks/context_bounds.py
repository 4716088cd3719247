"""What bounds graphmem's evidence recall at a token budget on LoCoMo: what it finds, or its order.

    python benchmarks/context_bounds.py DATA.json [--budget 1000] [--policy JSON]
        [--out RESULT.json]

graphmem ingests the conversations as benchmarks/context.py does (offline cognition, embedded
store) and recalls each question twice in peek mode: within the budget (`recall(...,
max_tokens=N)`, its evidence recall as context.py measures it) and whole (MAX_RECALL memories,
each with its normalised score components). From the whole recalls, each memory's line taken
whole in an order while it fits what the question's profile lines leave of the budget (a dated
line that repeats a better one's left out, as `Recall.within` does):
- found: the evidence first, what any ordering of the memories recalled could hold (the
  ceiling);
- as scored: by the score recomputed from the components with the recall's weights (it should
  match graphmem's own figure within the choice of the cut);
- weights fitted: by the score with the weights that hold the most evidence, searched on the
  very questions measured (each weight in turn scaled by 0 to 3, three rounds): a bound on what
  reweighting the score's signals could give, not a setting (association is kept as the recall's
  weights spread it).
`--policy` recalls with a RecallPolicy of these fields (JSON, as '{"candidates": 100}' or
'{"association": {"window": 10}}'): how a wider search moves the figures.
"""

import argparse
import functools
import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import context
import numpy as np
from locomo import CACHE, ingest_all
from provenance import write_result

from graphmem.contract import DEFAULT_PRESET, MAX_RECALL, PRESETS, Components, Recall
from graphmem.embedding import CachedEmbedder, E5Embedder
from graphmem.memory import GraphMem
from graphmem.scoring import Association, RecallPolicy
from graphmem.store.networkx import NetworkXStore

COMPONENTS = tuple(Components.model_fields)
SCALES = (0.0, 0.25, 0.5, 0.75, 1.5, 2.0, 3.0)
"""What each weight is scaled by in the search for the fitted weights (a weight of 0 tries 0.2
times each)."""
ROUNDS = 3


@dataclass(frozen=True)
class Recalled:
    """One question's whole recall as the bounds read it, and its own figure within the budget."""

    components: np.ndarray
    """Per memory (best first), its normalised components in COMPONENTS' order."""
    tokens: list[int]
    """Per memory, the tokens of its line."""
    evidence: list[frozenset[str]]
    """Per memory, the question's evidence turns it comes from."""
    evidence_count: int
    room: int
    """The tokens the profile lines leave of the budget."""
    within: float
    """graphmem's evidence recall within the budget."""


def read(
    asked: context.Asked, whole: Recall, cut: Recall, budget: int, count: context.Counter
) -> Recalled:
    """A question's whole recall as the bounds read it, and its recall within the budget."""
    lines: set[str] = set()
    kept = []
    for item in whole.memories:
        alone = whole.model_copy(update={"memories": [item], "links": [], "impressions": []})
        line = alone.render()
        if line not in lines:
            lines.add(line)
            kept.append((item, count(line)))
    return Recalled(
        components=np.array(
            [[getattr(item.normalised, name) for name in COMPONENTS] for item, _ in kept]
        ),
        tokens=[tokens for _, tokens in kept],
        evidence=[frozenset(turn.id for turn in item.turns) & asked.evidence for item, _ in kept],
        evidence_count=len(asked.evidence),
        room=budget - count("\n".join(cut.profile)),
        within=context.evidence_found(cut.render(), asked)[0],
    )


def filled(recalled: Recalled, order: list[int]) -> float:
    """The share of the evidence in the lines taken in this order while they fit the room."""
    spent, found = 0, set[str]()
    for index in order:
        if spent + recalled.tokens[index] <= recalled.room:
            spent += recalled.tokens[index]
            found |= recalled.evidence[index]
    return len(found) / recalled.evidence_count


def by_weights(recalls: list[Recalled], weights: np.ndarray) -> float:
    """Mean evidence recall with the lines ordered by the score these weights give."""
    return 100 * statistics.fmean(
        filled(each, np.argsort(-(each.components @ weights), kind="stable").tolist())
        for each in recalls
    )


def fitted_weights(recalls: list[Recalled], start: np.ndarray) -> tuple[float, np.ndarray]:
    """The weights that hold the most evidence on these recalls (coordinate search), and it."""
    best, weights = by_weights(recalls, start), start.copy()
    for _round in range(ROUNDS):
        for index in range(len(weights)):
            for scale in SCALES:
                trial = weights.copy()
                trial[index] = weights[index] * scale if weights[index] else scale * 0.2
                found = by_weights(recalls, trial)
                if found > best:
                    best, weights = found, trial
    return best, weights


def main() -> None:
    """Recall every question whole and within the budget; print and write the bounds."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--budget", type=int, default=1_000)
    parser.add_argument("--policy", default="{}", help="RecallPolicy fields, as JSON")
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    fields = json.loads(arguments.policy)
    policy = RecallPolicy(association=Association(**fields.pop("association", {})), **fields)
    questions = context.locomo_questions(arguments.data)
    conversations = list(
        {asked.conversation.sample_id: asked.conversation for asked in questions}.values()
    )
    embedder = E5Embedder()
    count = functools.cache(embedder.count_tokens)
    recalls = []
    with GraphMem(
        NetworkXStore.open(None), CachedEmbedder(embedder, CACHE), recall_policy=policy
    ) as memory:
        owners = ingest_all(memory, conversations, facts=False).owners
        for asked in questions:
            conversation = asked.conversation
            ask = functools.partial(
                memory.recall,
                owners[conversation.sample_id],
                conversation.questions[asked.number],
                k=MAX_RECALL,
                at=conversation.asked_at,
                peek=True,
            )
            cut = ask(max_tokens=arguments.budget)
            recalls.append(read(asked, ask(), cut, arguments.budget, count))
    start = np.array([getattr(PRESETS[DEFAULT_PRESET], name) for name in COMPONENTS])
    bound, fitted = fitted_weights(recalls, start)
    rows = {
        "graphmem, within the budget": 100 * statistics.fmean(each.within for each in recalls),
        "as scored (the recall's weights, simple cut)": by_weights(recalls, start),
        "weights fitted on these questions (a bound)": bound,
        "found (the evidence first: the ceiling)": 100
        * statistics.fmean(
            filled(each, sorted(range(len(each.tokens)), key=lambda i: not each.evidence[i]))
            for each in recalls
        ),
    }
    print(f"\n| LoCoMo, {len(recalls)} questions | evidence recall at {arguments.budget} tokens |")
    print("|---|---|")
    for name, value in rows.items():
        print(f"| {name} | {value:.1f} |")
    found = dict(zip(COMPONENTS, np.round(fitted, 3).tolist(), strict=True))
    print(f"\nthe weights fitted: {found}")
    if arguments.out:
        result: dict[str, Any] = {
            "data": str(arguments.data),
            "budget": arguments.budget,
            "policy": json.loads(arguments.policy),
            "questions": len(recalls),
            "evidence_recall": {name: round(value, 1) for name, value in rows.items()},
            "fitted_weights": found,
        }
        write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
