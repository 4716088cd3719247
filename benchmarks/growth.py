"""Evidence retrieval on LongMemEval as each question's haystack grows: graphmem and the baselines.

    python benchmarks/growth.py [DATA.json.gz] [--scales 1 3 10] [--beam 5] [--limit N]
        [--store networkx|neo4j] [--nightly] [--out RESULT.json] [--plot PLOT.png]
    python benchmarks/growth.py --drawn-from RESULT.json --plot PLOT.png

The questions of benchmarks/longmemeval.py (LongMemEval dev, ../shared/data/longmemeval/ by
default: abstention questions left out, in its spread order, the first N with --limit), each with
its haystack grown to each scale: 1x is the haystack as given, Sx adds filler sessions until it
holds S times its own sessions (10x: ~470 sessions, ~4,800 turns, LongMemEval_M's size). The
first --beam questions of the spread order also get every filler session there is (`beam`: ~1,780
sessions, ~18,200 turns, ~4.3M XLM-R tokens, BEAM's size); the default 5 are the first question
of each of the types knowledge-update, multi-session, single-session-assistant,
single-session-preference and single-session-user (temporal-reasoning is sixth). --beam is 0 or
at least 2, as a recall p95 needs two recalls.

Filler, the LongMemEval way (its haystacks draw on one shared pool): the sessions of the file's
40 items, abstention items included, that no item marks a turn of `has_answer` in and whose id
does not start with "answer_" (1,775 sessions, 18,186 turns), less those already in the
question's haystack. Each question draws them with random.Random seeded with its id (a str seed,
the same in every process): one permutation of all of them, then each session's date, uniformly
to the minute between the question's first and last own session, so that time questions keep
their meaning; a scale takes the permutation's first sessions, so that 3x's filler is part of
10x's. The grown haystack is read as benchmarks/longmemeval.py reads one (sessions in time order,
numbered then), so the evidence and answer sessions are where they land; every method reads the
same grown haystack.

At each scale, in one run: every baseline of benchmarks/locomo.py (bm25, dense:e5, rrf:e5, ga:e5,
context+session:e5) and graphmem (offline cognition, the chosen store) rank each question's
turns, judged as benchmarks/longmemeval.py judges (turn R@5 / R@10 / NDCG@10, session any@5 and
@10, per question type), with graphmem's lead in NDCG@10 (waking) over each baseline and its
paired bootstrap interval. graphmem ingests each grown haystack once, under a fresh owner, then
recalls every question in peek mode, renders its context within 1,000 tokens from the same memory
(`recall(..., max_tokens=1000)` in peek mode, as benchmarks/context.py does), and recalls waking.
Evidence recall within 1,000 tokens is benchmarks/context.py's measure: graphmem's context
against each baseline's turns in rank order cut simply to the budget.

Costs, graphmem's at each scale: ingestion turns/s, recall p50 / p95 (waking; statements and
transactions a recall on Neo4j) and the footprint of ingesting the scale's haystacks into one
store. graphmem runs each scale in a process of its own, started afresh (in one process, memory
an earlier scale freed is taken again and goes uncounted); there, the resident memory (VmRSS of
/proc/self/status) after ingestion less before, and the peak (VmHWM, reset before ingesting) less
before, the memory open in both; on Neo4j that is the client's only. The embedded store is opened
on a file, as benchmarks/locomo.py opens it (a snapshot and a journal): its size is that of its
files once the memory is closed (the final snapshot). Neo4j's store size on disk is not
measured. On Neo4j each scale's owners are forgotten once it is measured, so that a later
scale's indexes hold its own haystacks only (data of earlier runs stays).

The tiers: without --nightly, as in benchmarks/longmemeval.py, no night passes, so every memory
stays in the hot tier and every search reads all of them. With --nightly the night's job
(`consolidate`: summaries, consolidation, re-tiering) runs once for each owner after its import,
at its question's time, as it would for an agent whose memory has seen a night: the tiers then
hold memories by attention and capacity (1,000 hot). Either way each scale records the owners'
memories per tier and the tier each question's recall (a peek) ended at.

Last, the targets: from the smallest scale to the largest (1x and 10x by default), graphmem loses
less of its R@10 and NDCG@10 (relative) than every baseline and keeps >= 90% of its NDCG@10; at
the largest scale it leads the best baseline in NDCG@10 with an interval above 0 and its
evidence recall within 1,000 tokens is >= the best baseline's + 5; its recall p95 at the largest
scale is <= 2x that at the smallest, at beam scale <= 3x (beam's few questions against all
questions at the smallest scale); its ingestion turns/s at the largest scale is within 20% of the
smallest's.

Embeddings are cached by text in benchmarks/longmemeval.py's cache, which holds every filler
turn but those of the three abstention questions' haystacks (1,471 texts, which longmemeval.py
does not read): the first run that draws them embeds them (~8 minutes on two cores). graphmem's
ingestion also embeds texts of its own that join a turn to those before it, which a grown
haystack makes anew: the first run at a scale embeds them while ingesting (~140 a question at
3x, ~430 at 10x; none at 1x, which benchmarks/longmemeval.py's runs cached), which lowers its
turns/s and loads the model into its footprint; a rerun finds them cached. Each scale prints
and records the texts embedded before the methods run and those graphmem embedded while
ingesting (what the cache gained meanwhile). On a fresh machine, where that cache is empty, e5
embeds LongMemEval's long turns at about three a second on two cores: the 1x haystacks alone hold
17,554 texts, so the first full run spends hours embedding before its own hour.
"""

import argparse
import functools
import gc
import json
import multiprocessing
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from context import Asked, Context, baseline_lines, cut, measure
from ingestion import TimedE5
from locomo import (
    BASELINES,
    Conversation,
    MethodRun,
    Vectors,
    embed_all,
    ingest_all,
    leads,
    open_memory,
    print_leads,
    recall_pass,
    run_baseline,
)
from longmemeval import (
    CACHE,
    DATE,
    LEAD_MEASURE,
    Question,
    judge_all,
    load,
    parse_date,
    print_tables,
    read_items,
    read_question,
    summary,
)
from provenance import write_result

from graphmem.contract import MAX_RECALL
from graphmem.embedding import E5Embedder
from graphmem.memory import GraphMem
from graphmem.model import Tier

DEV = Path("../shared/data/longmemeval/longmemeval_s_dev40.json.gz")
K = 10
BUDGET = 1_000
"""The token budget of the context whose evidence recall is measured."""
BEAM = "beam"
"""The label of the scale that holds every filler session."""
MB = 1024 * 1024

Messages = list[dict[str, Any]]
Tokens = Callable[[str], int]
"""How many XLM-R tokens a text is (E5Embedder.count_tokens, cached)."""


@dataclass(frozen=True)
class Session:
    """A filler session drawn for a question: its id, its drawn date, its messages."""

    session_id: str
    date: str
    """As LongMemEval writes a date."""
    messages: Messages


@dataclass(frozen=True)
class Haystacks:
    """The questions of one scale, each with its grown haystack, and what it holds."""

    label: str
    questions: list[Question]
    sessions: list[int]
    """The sessions of each question's grown haystack."""
    filler: list[int]
    """The filler sessions added to each."""
    short: int
    """Questions that had less filler than the scale asked (they hold all there is)."""


@dataclass(frozen=True)
class GraphmemRun:
    """graphmem at one scale: its runs, its contexts within the budget, its footprint."""

    runs: dict[str, MethodRun]
    contexts: dict[str, str]
    """Each question's (by id) rendered context within BUDGET tokens."""
    footprint: dict[str, float | None]
    embedded: int
    """The texts graphmem's ingestion embedded (not in the cache before)."""
    tiers: dict[str, Any]
    """Memories per tier when the questions are asked, and the tier each recall ended at."""


# -- growing the haystacks -------------------------------------------------------------------


def filler_pool(items: list[dict[str, Any]]) -> dict[str, Messages]:
    """Every session without evidence in the file, once, by id, in the order first met.

    A session is filler when no item marks a turn of it has_answer and its id does not start
    with "answer_".
    """
    sessions: dict[str, Messages] = {}
    evidence: set[str] = set()
    for item in items:
        for session_id, messages in zip(
            item["haystack_session_ids"], item["haystack_sessions"], strict=True
        ):
            sessions.setdefault(session_id, messages)
            if any(message.get("has_answer") for message in messages):
                evidence.add(session_id)
    return {
        session_id: messages
        for session_id, messages in sessions.items()
        if session_id not in evidence and not session_id.startswith("answer_")
    }


def drawn_filler(item: dict[str, Any], pool: dict[str, Messages]) -> list[Session]:
    """The filler a question can take, in the order drawn, each dated within its own span.

    random.Random(the question id) draws one permutation of the pool's sessions not in the
    question's haystack, then a date for each in that order, uniformly to the minute between the
    haystack's first and last session.
    """
    draw = random.Random(item["question_id"])  # noqa: S311 (a fixed draw)
    own = set(item["haystack_session_ids"])
    available = [session_id for session_id in pool if session_id not in own]
    order = draw.sample(available, len(available))
    dates = [parse_date(date) for date in item["haystack_dates"]]
    first = min(dates)
    minutes = int((max(dates) - first).total_seconds() // 60)
    return [
        Session(
            session_id,
            (first + timedelta(minutes=draw.randint(0, minutes))).strftime(DATE),
            pool[session_id],
        )
        for session_id in order
    ]


def grown(item: dict[str, Any], filler: list[Session]) -> dict[str, Any]:
    """The item with the filler sessions added to its haystack, everything else as given."""
    return {
        **item,
        "haystack_session_ids": [
            *item["haystack_session_ids"],
            *(session.session_id for session in filler),
        ],
        "haystack_dates": [*item["haystack_dates"], *(session.date for session in filler)],
        "haystack_sessions": [
            *item["haystack_sessions"],
            *(session.messages for session in filler),
        ],
    }


def haystacks(
    items: list[dict[str, Any]], pool: dict[str, Messages], scale: int | None
) -> Haystacks:
    """The items' questions with haystacks of `scale` times their sessions (None: all filler)."""
    questions, sessions, added = [], [], []
    short = 0
    for item in items:
        filler = drawn_filler(item, pool)
        own = len(item["haystack_session_ids"])
        wanted = len(filler) if scale is None else (scale - 1) * own
        taken = filler[:wanted]
        if len(taken) < wanted:
            short += 1
        questions.append(read_question(grown(item, taken)))
        added.append(len(taken))
        sessions.append(own + len(taken))
    label = BEAM if scale is None else f"{scale}x"
    return Haystacks(label, questions, sessions, added, short)


def sizes(stacks: Haystacks, tokens: Tokens) -> dict[str, Any]:
    """What a scale's haystacks hold: sessions, filler, turns and XLM-R tokens (mean a question)."""
    turns = [len(question.conversation.turns) for question in stacks.questions]
    counts = [
        sum(tokens(turn.text) for turn in question.conversation.turns)
        for question in stacks.questions
    ]
    return {
        "questions": len(stacks.questions),
        "sessions": round(statistics.fmean(stacks.sessions), 1),
        "filler_sessions": round(statistics.fmean(stacks.filler), 1),
        "turns": round(statistics.fmean(turns), 1),
        "turns_total": sum(turns),
        "tokens": round(statistics.fmean(counts)),
        "questions_short_of_filler": stacks.short,
    }


# -- running the methods ---------------------------------------------------------------------


def progress(text: str) -> None:
    """Say on stderr how far the run is."""
    print(text, file=sys.stderr, flush=True)


def status_kb(field: str) -> int:
    """A figure of this process in /proc/self/status, in kB (VmRSS: resident, VmHWM: peak)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name == field:
            return int(value.split()[0])
    raise KeyError(field)


def reset_peak() -> None:
    """Make this process's peak resident memory (VmHWM) what is resident now (Linux)."""
    Path("/proc/self/clear_refs").write_text("5")


def files_size(folder: Path) -> int:
    """The bytes of the files in a folder."""
    return sum(path.stat().st_size for path in folder.iterdir() if path.is_file())


def cached_texts() -> int:
    """How many embeddings the cache holds (its one table, as graphmem.embedding keeps it)."""
    with closing(sqlite3.connect(CACHE)) as database:
        (count,) = database.execute("SELECT count(*) FROM embedding").fetchone()
    return int(count)


def run_graphmem_apart(
    conversations: list[Conversation], store: str, *, nightly: bool
) -> GraphmemRun:
    """run_graphmem in a process of its own, started afresh, so that its footprint is its own.

    In this process, memory an earlier scale freed would be taken again and not counted.
    """
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as apart:
        return apart.submit(run_graphmem, conversations, store, nightly=nightly).result()


def run_graphmem(conversations: list[Conversation], store: str, *, nightly: bool) -> GraphmemRun:
    """Ingest once; recall peek, render each context within BUDGET, recall waking; footprint.

    As benchmarks/locomo.py's run_graphmem (offline cognition), with the context of
    benchmarks/context.py taken from the same memory between the two passes.
    """
    name = f"graphmem:{store}:offline"
    with tempfile.TemporaryDirectory() as folder:
        e5 = TimedE5()  # e5 behind the cache: the seconds it took on texts new to the cache
        with open_memory(
            store, "offline", Path(folder), conversations, CACHE, embedder=e5
        ) as memory:
            gc.collect()
            before = status_kb("VmRSS")
            reset_peak()
            known = cached_texts()
            ingestion = ingest_all(memory, conversations, facts=False)
            embedded = cached_texts() - known
            ingestion.cost["seconds_in_e5"] = round(e5.seconds, 1)
            ingestion.cost["turns_per_second_without_e5"] = round(
                sum(len(conversation.turns) for conversation in conversations)
                / (ingestion.cost["ingest_seconds"] - e5.seconds),
                1,
            )
            gc.collect()
            resident, peak = status_kb("VmRSS"), status_kb("VmHWM")
            # As locomo.run_graphmem: the harness's long-lived objects set aside, so that the
            # cyclic collector does not pause recalls.
            gc.freeze()
            owners = ingestion.owners
            night = nightly_job(memory, conversations, owners) if nightly else None
            tiers = {
                "nightly_seconds": night,
                **tier_census(memory, conversations, owners),
            }
            peek = recall_pass(memory, conversations, owners, K, memories=K, peek=True)
            contexts = {
                conversation.sample_id: memory.recall(
                    owners[conversation.sample_id],
                    conversation.questions[0],
                    k=MAX_RECALL,
                    at=conversation.asked_at,
                    peek=True,
                    max_tokens=BUDGET,
                    min_confidence=0.0,  # as benchmarks/context.py
                ).render()
                for conversation in conversations
            }
            progress(f"rendered {len(contexts)} contexts within {BUDGET} tokens")
            waking = recall_pass(memory, conversations, owners, K, memories=K, peek=False)
            if store == "neo4j":
                for owner in owners.values():
                    memory.forget(owner)
        stored = files_size(Path(folder)) if store == "networkx" else None
    footprint = {
        "resident_before_mb": round(before / 1024, 1),
        "resident_growth_mb": round((resident - before) / 1024, 1),
        "peak_growth_mb": round((peak - before) / 1024, 1),
        "store_file_mb": None if stored is None else round(stored / MB, 1),
    }
    return GraphmemRun(
        {
            name: MethodRun(waking.rankings, {**ingestion.cost, **waking.cost}),
            f"{name}:peek": MethodRun(peek.rankings, {**ingestion.cost, **peek.cost}),
        },
        contexts,
        footprint,
        embedded,
        tiers,
    )


def nightly_job(
    memory: GraphMem, conversations: list[Conversation], owners: dict[str, str]
) -> float:
    """The night's job once for each owner, when its question is asked: seconds it took."""
    started = time.perf_counter()
    for conversation in conversations:
        memory.consolidate(owners[conversation.sample_id], at=conversation.asked_at)
    seconds = time.perf_counter() - started
    progress(f"nightly job for {len(conversations)} owners in {seconds:.0f} s")
    return round(seconds, 1)


def tier_census(
    memory: GraphMem, conversations: list[Conversation], owners: dict[str, str]
) -> dict[str, dict[str, int]]:
    """The owners' memories per tier, and the tier each question's recall (a peek) ended at."""
    memories: Counter[str] = Counter()
    ended: Counter[str] = Counter()
    for conversation in conversations:
        owner = owners[conversation.sample_id]
        memories.update(
            {
                Tier(tier).name.lower(): count
                for tier, count in memory.statistics(owner).tiers.items()
            }
        )
        found = memory.recall(
            owner, conversation.questions[0], k=K, at=conversation.asked_at, peek=True
        )
        ended[found.attempts[-1].depth.name.lower()] += 1
    order = [tier.name.lower() for tier in Tier]
    return {
        "memories_by_tier": {tier: memories[tier] for tier in order},
        "recalls_ending_at": {tier: ended[tier] for tier in order},
    }


def baseline_context(name: str, vectors: dict[str, Vectors], tokens: Tokens) -> Context:
    """A baseline's context for a question at a budget: its turns in rank order, cut simply."""

    def context(asked: Asked, budget: int) -> str:
        conversation = asked.conversation
        [lines] = baseline_lines(name, conversation, vectors[conversation.sample_id])
        return cut(lines, budget, tokens)

    return context


def evidence_within(
    questions: list[Question], vectors: dict[str, Vectors], graphmem: GraphmemRun, tokens: Tokens
) -> dict[str, Any]:
    """Evidence and session recall within BUDGET tokens, per method, as context.py measures."""
    asked = [
        Asked(
            question.conversation,
            0,
            question.question_type,
            question.evidence,
            question.evidence_sessions,
        )
        for question in questions
    ]
    contexts: dict[str, Context] = {
        "graphmem": lambda one, budget: graphmem.contexts[one.conversation.sample_id],
        **{name: baseline_context(name, vectors, tokens) for name in BASELINES},
    }
    result: dict[str, Any] = measure(asked, contexts, (BUDGET,), tokens)[str(BUDGET)]
    return result


def run_scale(
    stacks: Haystacks, store: str, embedder: E5Embedder, *, nightly: bool
) -> dict[str, Any]:
    """Every baseline and graphmem on one scale's haystacks: measures, leads, contexts, costs."""
    started = time.perf_counter()
    label = stacks.label
    questions = stacks.questions
    conversations = [question.conversation for question in questions]
    tokens = functools.cache(embedder.count_tokens)  # a text is counted once a scale
    held = sizes(stacks, tokens)
    progress(
        f"{label}: {held['questions']} questions, {held['sessions']} sessions,"
        f" {held['turns']} turns, {held['tokens']} tokens a haystack (mean); embedding"
    )
    vectors, embedding = embed_all(conversations, CACHE)
    runs = {}
    for name, scorer in BASELINES.items():
        progress(f"{label}: {name}")
        runs[name] = run_baseline(scorer, conversations, vectors, K)
    progress(f"{label}: graphmem")
    graphmem = run_graphmem_apart(conversations, store, nightly=nightly)
    runs.update(graphmem.runs)
    results = {name: judge_all(run, questions) for name, run in runs.items()}
    methods = {name: summary(results[name], questions, run.cost) for name, run in runs.items()}
    ours = next(name for name in graphmem.runs if not name.endswith(":peek"))
    types = [question.question_type for question in questions]
    over = leads(
        [result[LEAD_MEASURE] for result in results[ours]],
        {name: [result[LEAD_MEASURE] for result in results[name]] for name in BASELINES},
        types,
        sorted(set(types)),
    )
    progress(f"{label}: evidence within {BUDGET} tokens")
    within = evidence_within(questions, vectors, graphmem, tokens)
    return {
        "haystacks": held,
        "question_ids": [conversation.sample_id for conversation in conversations],
        "embedding": embedding,
        "methods": methods,
        "leads": {"method": ours, "measure": LEAD_MEASURE, "over": over},
        f"within_{BUDGET}_tokens": within,
        "footprint": graphmem.footprint,
        "graphmem_texts_embedded": graphmem.embedded,
        "tiers": graphmem.tiers,
        "seconds": round(time.perf_counter() - started),
    }


# -- reports ---------------------------------------------------------------------------------


def print_scale(label: str, scale: dict[str, Any], questions: list[Question]) -> None:
    """A scale's tables: retrieval and cost, leads, evidence within the budget, footprint."""
    held = scale["haystacks"]
    print(
        f"\n## {label}: {held['questions']} questions; a haystack holds {held['sessions']}"
        f" sessions ({held['filler_sessions']} filler), {held['turns']} turns,"
        f" {held['tokens']:,} XLM-R tokens (means); {scale['embedding']['computed']} texts"
        " embedded before the methods ran"
    )
    print()
    print_tables(scale["methods"], questions)
    leads_of = scale["leads"]
    print_leads(leads_of["method"], leads_of["measure"], leads_of["over"])
    within = scale[f"within_{BUDGET}_tokens"]
    types = list(within["graphmem"]["by_category"])
    print(
        f"\nEvidence recall within {BUDGET:,} tokens (graphmem's context; the baselines cut"
        " simply), per question type; graphmem's lead in evidence recall [95% interval]"
    )
    print(
        "| method | "
        + " | ".join(types)
        + " | ALL | session recall | tokens used | graphmem's lead |"
    )
    print("|---" * (len(types) + 5) + "|")
    for method, entry in within.items():
        cells = [str(entry["by_category"][name]) for name in types]
        lead = entry.get("graphmem_lead")
        shown = (
            "-"
            if lead is None
            else f"{lead['lead']:+.1f} [{lead['low']:+.1f}, {lead['high']:+.1f}]"
        )
        print(
            f"| {method} | " + " | ".join(cells) + f" | {entry['evidence_recall']}"
            f" | {entry['session_recall']} | {entry['tokens_used']} | {shown} |"
        )
    footprint = scale["footprint"]
    stored = footprint["store_file_mb"]
    print(
        f"\nFootprint of ingesting {label}: resident +{footprint['resident_growth_mb']} MB"
        f" (peak +{footprint['peak_growth_mb']} MB) over {footprint['resident_before_mb']} MB;"
        + ("" if stored is None else f" store file {stored} MB;")
        + f" graphmem embedded {scale['graphmem_texts_embedded']} texts while ingesting;"
        + f" {scale['seconds']} s for the scale"
    )


def relative_loss(before: float, after: float) -> float | None:
    """How much of `before` is lost at `after`, in % of it (None when before is 0)."""
    return None if before == 0 else round(100 * (before - after) / before, 1)


def target(text: str, figure: str, values: Any, met: bool) -> dict[str, Any]:
    """A target as reported: what it asks, its figure as shown and as numbers, whether met."""
    return {"target": text, "figure": figure, "values": values, "met": met}


def targets(scales: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each target of the issue: its figure and whether it is met (smallest to largest scale)."""
    sized = [label for label in scales if label != BEAM]
    small, large = scales[sized[0]], scales[sized[-1]]
    span = f"{sized[0]} -> {sized[-1]}"
    ours = small["leads"]["method"]
    found = []
    for measure_name in ("recall@10", "ndcg@10"):
        losses = {
            method: relative_loss(
                small["methods"][method]["overall"][measure_name],
                large["methods"][method]["overall"][measure_name],
            )
            for method in [ours, *BASELINES]
        }
        mine = losses[ours]
        theirs = [loss for method, loss in losses.items() if method != ours and loss is not None]
        found.append(
            target(
                f"{measure_name} relative loss {span}: graphmem's below every baseline's",
                ", ".join(f"{method} {loss}%" for method, loss in losses.items()),
                losses,
                mine is not None and all(mine < loss for loss in theirs),
            )
        )
    kept = round(
        100
        * large["methods"][ours]["overall"]["ndcg@10"]
        / small["methods"][ours]["overall"]["ndcg@10"],
        1,
    )
    found.append(
        target(f"graphmem keeps >= 90% of its ndcg@10 ({span})", f"{kept}%", kept, kept >= 90)
    )
    best = max(BASELINES, key=lambda name: large["methods"][name]["overall"]["ndcg@10"])
    lead = large["leads"]["over"][best]["ALL"]
    found.append(
        target(
            f"at {sized[-1]}, a lead in ndcg@10 over the best baseline ({best}) whose interval"
            " is above 0",
            f"{lead['lead']:+.1f} [{lead['low']:+.1f}, {lead['high']:+.1f}]",
            lead,
            lead["low"] > 0,
        )
    )
    within = large[f"within_{BUDGET}_tokens"]
    rival = max(BASELINES, key=lambda name: within[name]["evidence_recall"])
    recalls = {
        "graphmem": within["graphmem"]["evidence_recall"],
        rival: within[rival]["evidence_recall"],
    }
    found.append(
        target(
            f"at {sized[-1]}, evidence recall within {BUDGET:,} tokens >= the best baseline's + 5",
            f"graphmem {recalls['graphmem']}, {rival} {recalls[rival]}",
            recalls,
            recalls["graphmem"] >= recalls[rival] + 5,
        )
    )
    rises = [("at most doubles", sized[-1], 2.0)]
    if BEAM in scales:
        rises.append(("at most triples", BEAM, 3.0))
    p95 = small["methods"][ours]["cost"]["recall_p95_ms"]
    for text, label, bound in rises:
        later = scales[label]["methods"][ours]["cost"]["recall_p95_ms"]
        rise = round(later / p95, 2)
        found.append(
            target(
                f"recall p95 {sized[0]} -> {label} {text}",
                f"x{rise} ({p95} -> {later} ms)",
                rise,
                rise <= bound,
            )
        )
    # Without the seconds e5 took on texts new to the cache: what a turn costs is compared, and
    # a first run meets texts of graphmem's own at 3x and 10x that 1x's runs cached long ago.
    first = small["methods"][ours]["cost"]["turns_per_second_without_e5"]
    last = large["methods"][ours]["cost"]["turns_per_second_without_e5"]
    speed = round(last / first, 2)
    # A grown haystack's filler turns are not its own turns: tokens/s is said beside turns/s.
    first_tokens, last_tokens = (tokens_per_second(scale, ours) for scale in (small, large))
    found.append(
        target(
            f"ingestion turns/s {span} within 20% (e5's seconds on new texts left out)",
            f"x{speed} ({first} -> {last} turns/s; {first_tokens:,} -> {last_tokens:,}"
            " XLM-R tokens/s)",
            {"turns": speed, "tokens": round(last_tokens / first_tokens, 2)},
            speed >= 0.8,
        )
    )
    return found


def tokens_per_second(scale: dict[str, Any], method: str) -> int:
    """The XLM-R tokens of a scale's haystacks that graphmem ingested a second."""
    held = scale["haystacks"]
    cost = scale["methods"][method]["cost"]
    tokens: int = held["tokens"] * held["questions"]
    seconds: float = cost["ingest_seconds"] - cost["seconds_in_e5"]
    return round(tokens / seconds)


def print_targets(found: list[dict[str, Any]]) -> None:
    """The targets' table: each target, its figure, whether it is met."""
    print("\n## Targets\n| target | figure | met |\n|---|---|---|")
    for each in found:
        print(f"| {each['target']} | {each['figure']} | {'yes' if each['met'] else 'no'} |")


def plot(result: dict[str, Any], path: Path) -> None:
    """Draw NDCG@10 of every method and graphmem's recall p50 / p95 against haystack tokens."""
    import matplotlib  # noqa: PLC0415 (an optional extra: pip install '.[bench]')

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    scales = result["scales"]
    sized = [label for label in scales if label != BEAM]
    tokens = {label: scales[label]["haystacks"]["tokens"] for label in scales}
    ours = scales[sized[0]]["leads"]["method"]
    figure, (quality, latency) = plt.subplots(1, 2, figsize=(11, 4.5))
    for method in [ours, *BASELINES]:
        values = [scales[label]["methods"][method]["overall"]["ndcg@10"] for label in sized]
        style = "-o" if method == ours else "--."
        quality.plot([tokens[label] for label in sized], values, style, label=method)
    quality.set_title(f"NDCG@10, {result['questions']} questions, haystacks grown")
    for quantile, style in (("recall_p50_ms", "-o"), ("recall_p95_ms", "--s")):
        labels = list(scales)
        values = [scales[label]["methods"][ours]["cost"][quantile] for label in labels]
        latency.plot([tokens[label] for label in labels], values, style, label=quantile[7:10])
        for label, value in zip(labels, values, strict=True):
            latency.annotate(label, (tokens[label], value), fontsize=8)
    latency.set_title(f"graphmem recall, ms ({BEAM}: {result['beam_questions']} questions)")
    for axes in (quality, latency):
        axes.set_xscale("log")
        axes.set_xlabel("XLM-R tokens of a question's haystack (mean)")
        axes.grid(True, which="both", alpha=0.3)
        axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main() -> None:
    """Grow the haystacks, run every method at each scale, print the tables, write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path, nargs="?", default=DEV)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 3, 10])
    parser.add_argument(
        "--beam", type=int, default=5, help="questions with every filler session (0: none)"
    )
    parser.add_argument("--limit", type=int)
    parser.add_argument("--store", choices=["networkx", "neo4j"], default="networkx")
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--nightly",
        action="store_true",
        help="run the night's job (consolidate) once for each owner after its import",
    )
    parser.add_argument("--plot", type=Path, help="draw the figures to this PNG")
    parser.add_argument(
        "--drawn-from", type=Path, help="with --plot: a result written before, nothing run"
    )
    arguments = parser.parse_args()
    if arguments.drawn_from:
        if not arguments.plot:
            parser.error("--drawn-from draws a result: give --plot too")
        plot(json.loads(arguments.drawn_from.read_text()), arguments.plot)
        return
    dataset = load(arguments.data, arguments.limit)
    beam = min(arguments.beam, len(dataset.questions))
    if beam == 1:
        parser.error("--beam needs 2 questions or more (a recall p95 needs two recalls)")
    if min(arguments.scales) < 1:
        parser.error("--scales are 1 or more")
    items = read_items(arguments.data)
    pool = filler_pool(items)
    by_id = {item["question_id"]: item for item in items}
    chosen = [by_id[question.conversation.sample_id] for question in dataset.questions]
    plan: list[tuple[list[dict[str, Any]], int | None]] = [
        (chosen, scale) for scale in sorted(set(arguments.scales))
    ]
    if beam:
        plan.append((chosen[:beam], None))
    pool_turns = sum(len(messages) for messages in pool.values())
    print(
        f"Filler pool: {len(pool):,} sessions, {pool_turns:,} turns; {len(chosen)} questions,"
        f" {beam} of them (the first) also at {BEAM} scale"
    )

    scales: dict[str, dict[str, Any]] = {}
    with closing(E5Embedder()) as embedder:
        for chosen_items, scale in plan:
            stacks = haystacks(chosen_items, pool, scale)
            scales[stacks.label] = run_scale(
                stacks, arguments.store, embedder, nightly=arguments.nightly
            )
            print_scale(stacks.label, scales[stacks.label], stacks.questions)
    found = targets(scales) if len(set(arguments.scales)) > 1 else []
    if found:
        print_targets(found)
    if arguments.out:
        result = {
            "data": str(arguments.data),
            "k": K,
            "store": arguments.store,
            "nightly": arguments.nightly,
            "questions": len(chosen),
            "beam_questions": beam,
            "filler_pool": {"sessions": len(pool), "turns": pool_turns},
            "scales": scales,
            "targets": found,
        }
        write_result(arguments.out, result, [arguments.data])
    if arguments.plot:
        plot(result, arguments.plot)


if __name__ == "__main__":
    main()
