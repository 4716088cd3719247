"""Choosing what fits a budget: `Recall.within`'s selection fitted on half the dev questions.

    python benchmarks/selection.py [--locomo DATA.json] [--longmemeval DATA.json[.gz]]
        [--out RESULT.json]

graphmem ingests LoCoMo's and LongMemEval's dev conversations as benchmarks/context.py does and
recalls every question whole (MAX_RECALL memories, peek, no floor), with the owner's profile at
the question's time. Each whole recall is then cut to each budget (context.BUDGETS) by
`Recall.within` with every selection of the grid (SHARES x DECAYS x LENGTHS: the profile's
share of the budget, and how a memory's chance of being evidence falls with its rank and grows
with its line's tokens; graphmem.contract.Selection says how), and measured as context.py
measures a context: the share of the question's evidence turns whose text is inside it.

The halves: the questions by their place in their dataset, the even ones ("fit") and the odd
ones ("report"). The selection fitted is, on the fit half, of those whose worst lead over
graphmem's own ranking cut plainly at the budget (context.py's simple cut, of the same whole
recall's lines), over both datasets and every budget, is within NEAR points of the best worst
lead, the one of the highest mean lead.
The report half then gives, for the fitted selection and for the one graphmem ships
(`Selection()`), evidence recall at each budget beside the simple cut and context+session:e5
cut to the same budget, with graphmem's leads and their paired bootstrap intervals.
"""

import argparse
import functools
import itertools
import statistics
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import context
import locomo
import longmemeval
from context import Asked, baseline_lines, cut, evidence_found
from locomo import embed_all, ingest_all, lead
from provenance import write_result

from graphmem.contract import MAX_RECALL, Profile, Recall, Selection
from graphmem.embedding import CachedEmbedder, E5Embedder
from graphmem.memory import GraphMem
from graphmem.store.networkx import NetworkXStore

SHARES = (0.05, 0.1, 0.25)
DECAYS = (1.0, 1.4, 2.0, 3.0)
LENGTHS = (0.5, 0.75, 1.0)
BASELINE = "context+session:e5"
NEAR = 0.5
"""How far (points of evidence recall) a worst lead may be below the best and still count as
best: a question of LoCoMo's fit half moves a figure by 0.2, one of LongMemEval's by 5."""


def recalled(
    questions: list[Asked], cache: Path
) -> tuple[list[tuple[Recall, Profile]], list[list[str]]]:
    """Each question's whole recall and its owner's profile; context+session's lines for each."""
    conversations = list(
        {asked.conversation.sample_id: asked.conversation for asked in questions}.values()
    )
    vectors, _cost = embed_all(conversations, cache)
    baseline = {
        conversation.sample_id: baseline_lines(
            BASELINE, conversation, vectors[conversation.sample_id]
        )
        for conversation in conversations
    }
    found = []
    with GraphMem(NetworkXStore.open(None), CachedEmbedder(E5Embedder(), cache)) as memory:
        owners = ingest_all(memory, conversations, facts=False).owners
        for asked in questions:
            conversation = asked.conversation
            owner = owners[conversation.sample_id]
            whole = memory.recall(
                owner,
                conversation.questions[asked.number],
                k=MAX_RECALL,
                at=conversation.asked_at,
                peek=True,
                min_confidence=0.0,
            )
            found.append((whole, memory.profile(owner, at=conversation.asked_at)))
    lines = [baseline[asked.conversation.sample_id][asked.number] for asked in questions]
    return found, lines


def evidence(
    questions: list[Asked],
    found: list[tuple[Recall, Profile]],
    budget: int,
    selection: Selection,
    tokens: context.Counter,
) -> list[float]:
    """Each question's evidence recall within the budget, by this selection."""
    return [
        evidence_found(whole.within(budget, tokens, profile, selection).render(), asked)[0]
        for asked, (whole, profile) in zip(questions, found, strict=True)
    ]


def plain(
    questions: list[Asked], lines: list[list[str]], budget: int, tokens: context.Counter
) -> list[float]:
    """Each question's evidence recall of lines cut plainly to the budget."""
    return [
        evidence_found(cut(kept, budget, tokens), asked)[0]
        for asked, kept in zip(questions, lines, strict=True)
    ]


def half(items: list[Any], which: str) -> list[Any]:
    """The items of the even-numbered questions ("fit") or of the odd-numbered ("report")."""
    return items[0 if which == "fit" else 1 :: 2]


def main() -> None:
    """Recall every question whole, fit the selection on one half, report the other."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    context.dev_sets(parser)
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    datasets = {
        "locomo": (context.locomo_questions(arguments.locomo), locomo.CACHE),
        "longmemeval": (context.longmemeval_questions(arguments.longmemeval), longmemeval.CACHE),
    }
    measured = {}
    for name, (questions, cache) in datasets.items():
        found, baseline = recalled(questions, cache)
        measured[name] = (questions, found, baseline)
        print(f"{name}: {len(questions)} questions recalled", file=sys.stderr, flush=True)
    with closing(E5Embedder()) as embedder:
        tokens = functools.cache(embedder.count_tokens)
        simple = {
            (name, budget): plain(
                questions, [whole.render().split("\n") for whole, _p in found], budget, tokens
            )
            for name, (questions, found, _b) in measured.items()
            for budget in context.BUDGETS
        }
        grid: dict[tuple[float, float, float], dict[tuple[str, int], list[float]]] = {}
        for share, decay, length in itertools.product(SHARES, DECAYS, LENGTHS):
            selection = Selection(profile_share=share, decay=decay, length=length)
            grid[share, decay, length] = {
                (name, budget): evidence(questions, found, budget, selection, tokens)
                for name, (questions, found, _b) in measured.items()
                for budget in context.BUDGETS
            }
            print(f"selection {selection} measured", file=sys.stderr, flush=True)

        def leads(scores: dict[tuple[str, int], list[float]]) -> list[float]:
            return [
                100 * statistics.fmean(half(values, "fit"))
                - 100 * statistics.fmean(half(simple[cell], "fit"))
                for cell, values in scores.items()
            ]

        best_worst = max(min(leads(scores)) for scores in grid.values())
        fitted = max(
            (key for key, scores in grid.items() if min(leads(scores)) >= best_worst - NEAR),
            key=lambda key: statistics.fmean(leads(grid[key])),
        )
        shipped = Selection()
        chosen = (shipped.profile_share, shipped.decay, shipped.length)
        if chosen not in grid:
            raise SystemExit(f"the shipped selection {shipped} is not in the grid")
        report: dict[str, Any] = {}
        for name, (questions, _found, baseline) in measured.items():
            for budget in context.BUDGETS:
                ours = half(grid[chosen][name, budget], "report")
                cut_plainly = half(simple[name, budget], "report")
                theirs = half(plain(questions, baseline, budget, tokens), "report")
                report.setdefault(name, {})[str(budget)] = {
                    "graphmem": round(100 * statistics.fmean(ours), 1),
                    "simple_cut": round(100 * statistics.fmean(cut_plainly), 1),
                    BASELINE: round(100 * statistics.fmean(theirs), 1),
                    "lead_over_simple_cut": lead(ours, cut_plainly),
                    f"lead_over_{BASELINE}": lead(ours, theirs),
                }
    result = {
        "grid": {
            f"{share},{decay},{length}": {
                f"{name}@{budget}": round(100 * statistics.fmean(half(values, "fit")), 1)
                for (name, budget), values in scores.items()
            }
            for (share, decay, length), scores in grid.items()
        },
        "simple_cut_fit": {
            f"{name}@{budget}": round(100 * statistics.fmean(half(values, "fit")), 1)
            for (name, budget), values in simple.items()
        },
        "fitted": dict(zip(("profile_share", "decay", "length"), fitted, strict=True)),
        "shipped": shipped.model_dump(),
        "report": report,
    }
    print(f"\nfitted on the fit half: {result['fitted']}; shipped {shipped}")
    print("\nreport half, evidence recall (graphmem / simple cut / context+session:e5)")
    heads = ["dataset", "budget", "graphmem", "simple cut", BASELINE, "lead over simple cut"]
    heads.append(f"lead over {BASELINE}")
    print(f"| {' | '.join(heads)} |\n|{'---|' * len(heads)}")
    for name, budgets in report.items():
        for budget, row in budgets.items():
            over_cut = row["lead_over_simple_cut"]
            over_baseline = row[f"lead_over_{BASELINE}"]
            print(
                f"| {name} | {budget} | {row['graphmem']} | {row['simple_cut']} | {row[BASELINE]}"
                f" | {over_cut['lead']:+.1f} [{over_cut['low']:+.1f}, {over_cut['high']:+.1f}]"
                f" | {over_baseline['lead']:+.1f} [{over_baseline['low']:+.1f},"
                f" {over_baseline['high']:+.1f}] |"
            )
    if arguments.out:
        write_result(arguments.out, result, [arguments.locomo, arguments.longmemeval])


if __name__ == "__main__":
    main()
