"""Memory recall on MADial-Bench: graphmem against BM25, e5 and their fusion, Chinese and English.

    python benchmarks/madial.py [DATA_DIR] [--lang zh en] [--store networkx|neo4j]
        [--out RESULT.json]

DATA_DIR holds madial_{zh,en}_memory.jsonl and madial_{zh,en}_dialogue_dev.jsonl (default:
../shared/data/madial beside the repository; see ../shared/data/README.md). The task is the
benchmark's own: for each dev dialogue, the query is the dialogue before its first test turn,
the candidates are the memories of the dialogue's user (same user-id), and the relevant memories
are its relevant-id. Every method ranks the candidates and keeps its best 10; scores, each
averaged over dialogues and given 0-100 with one decimal: Recall@5 (the share of the relevant
memories among the top 5), MRR (the reciprocal rank of the first relevant memory in the top 10,
0 if none is there) and NDCG@5 (binary relevance). Per language, overall and by the dialogue's
user ("user 1", "user 2"): the scene of the relevant memories would tell more, but half of the
dialogues have relevant memories of two or more scenes.

The query, for every method alike (`dialogue_query`): the dialogue's lines before the test turn
without "<BOD>", each as "Speaker: text" (angle brackets and surrounding quotes stripped), one a
line. A line without a speaker tag (a few in the English dialogues, each in the assistant's
place after a line of the user's) is the assistant's. A memory is its event text.

Baselines, each over the user's memories only: bm25 (benchmarks/locomo.py's, over the content
terms of graphmem.terms.term_list, those graphmem's own lexical match reads), dense:e5 (cosine of
multilingual-e5-small embeddings, memories as passages and the query as a query, cached in
.cache/madial-embeddings.sqlite) and rrf:e5 (reciprocal-rank fusion, k 60, of those two).

graphmem, offline cognition and e5 embeddings through the same cache: one fresh owner per
language and user observes the user's memories in date order (ties in file order), each at its
date (midnight UTC) with its date as session, its id as message id and the user's name (the one
speaker besides the assistant in the user's dialogues) as speaker. Each dialogue's query is then
recalled (k 10) one day after the user's last memory, first in peek mode over all dialogues
(`graphmem:<store>:offline:peek`, which changes nothing), then as an agent recalls, waking what it
uses (`graphmem:<store>:offline`), in dialogue order; an unmeasured peek pass before them puts
the query texts graphmem embeds itself in the cache. Its ranking is the recalled memories'
source turns (the memory ids given as message ids) in order, without repeats. Its cost is the
ingestion time and the recall latency (p50, p95), without e5's query embeddings. The baselines
fill the embedding cache first, so ingestion does not embed the memories; it does embed the texts
graphmem derives itself (dialogue summaries, impressions) unless an earlier run left them in the
cache. --store neo4j takes its address and password from GRAPHMEM_* variables (graphmem.config).

After each language's table, graphmem's lead over each baseline in Recall@5 (graphmem waking),
per user and overall, with a 95% paired bootstrap interval over the dialogues
(benchmarks/locomo.py's `leads`; `leads` in the language's JSON entry).
"""

import argparse
import gc
import json
import re
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from locomo import (
    bm25,
    leads,
    ndcg,
    open_memory,
    print_leads,
    recall_latency,
    reciprocal_rank_fusion,
)
from provenance import write_result

from graphmem.embedding import CachedEmbedder, E5Embedder
from graphmem.memory import GraphMem
from graphmem.terms import term_list

Matrix = npt.NDArray[np.float64]

REPOSITORY = Path(__file__).resolve().parent.parent
DATA = REPOSITORY.parent / "shared" / "data" / "madial"
CACHE = REPOSITORY / ".cache" / "madial-embeddings.sqlite"
LANGUAGES = ("zh", "en")
K = 10
"""How many memories every method ranks (and graphmem is asked for)."""
TOP = 5
"""The cut of Recall@5 and NDCG@5."""
LEAD_MEASURE = "recall@5"
"""The measure of graphmem's lead over each baseline."""
ASSISTANT = "Assistant"
"""The assistant's speaker tag, also given to the lines that have no tag."""
MARKERS = frozenset({"<BOD>", "<EOD>"})
"""The lines that open and close a dialogue: no one's words."""
LINE = re.compile(r"\s*(?:<(?P<speaker>[^<>]+)>\s*:)?\s*(?P<text>.*?)\s*", re.DOTALL)
"""A dialogue line: an optional "<Speaker>:" tag and the text, usually in double quotes."""
RECALL_DELAY = timedelta(days=1)
"""How long after a user's last memory the dialogues are recalled."""


@dataclass(frozen=True)
class MemoryEvent:
    """One memory of a user's bank: its id, event text, user, date as given and as UTC midnight."""

    id: str
    text: str
    user: int
    date: str
    at: datetime


@dataclass(frozen=True)
class Line:
    """One line of a dialogue: who speaks and what they say (tag and quotes stripped)."""

    speaker: str
    text: str


@dataclass(frozen=True)
class TestDialogue:
    """A dialogue's id, user, lines before its first test turn and relevant memory ids.

    The relevant ids are read only to score.
    """

    id: int
    user: int
    context: tuple[Line, ...]
    relevant: frozenset[str]


@dataclass(frozen=True)
class Bank:
    """One language's data: its memories in file order and its dev dialogues in file order."""

    language: str
    memories: list[MemoryEvent]
    dialogues: list[TestDialogue]

    @property
    def users(self) -> list[int]:
        """The users that have memories, in ascending order."""
        return sorted({memory.user for memory in self.memories})

    def memories_of(self, user: int) -> list[MemoryEvent]:
        """A user's memories in date order (ties in file order): the candidates of its dialogues."""
        mine = [memory for memory in self.memories if memory.user == user]
        return sorted(mine, key=lambda memory: memory.at)

    def dialogues_of(self, user: int) -> list[TestDialogue]:
        """A user's dialogues in file order."""
        return [dialogue for dialogue in self.dialogues if dialogue.user == user]

    def name_of(self, user: int) -> str:
        """The user's name: the one speaker besides the assistant in its dialogues, else "user"."""
        names = {
            line.speaker
            for dialogue in self.dialogues_of(user)
            for line in dialogue.context
            if line.speaker != ASSISTANT
        }
        return names.pop() if len(names) == 1 else "user"


@dataclass(frozen=True)
class UserTask:
    """One user's share of a language: candidates, dialogues and their embeddings and terms."""

    memories: list[MemoryEvent]
    dialogues: list[TestDialogue]
    memory_vectors: Matrix
    query_vectors: Matrix

    def bm25_documents(self) -> list[list[str]]:
        """The terms of each candidate memory."""
        return [term_list(memory.text) for memory in self.memories]

    def bm25_queries(self) -> list[list[str]]:
        """The terms of each dialogue's query."""
        return [term_list(dialogue_query(dialogue.context)) for dialogue in self.dialogues]


@dataclass(frozen=True)
class MethodRun:
    """A method's top memory ids per dialogue id, and what computing them cost."""

    rankings: dict[int, list[str]]
    cost: dict[str, float]


@dataclass(frozen=True)
class Ingestion:
    """The owner graphmem used for each user, and what ingesting cost."""

    owners: dict[int, str]
    cost: dict[str, float]


@dataclass(frozen=True)
class DialogueResult:
    """How one method did on one dialogue (each measure 0-1)."""

    user: int
    recall_at_5: float
    reciprocal_rank: float
    ndcg_at_5: float


Scorer = Callable[[UserTask], Matrix]
"""A baseline: a score for every (dialogue, memory) pair of a user."""


# -- data ------------------------------------------------------------------------------------


def load(folder: Path, language: str) -> Bank:
    """A language's memory bank and dev dialogues."""
    memories = [
        read_memory(entry)
        for line in (folder / f"madial_{language}_memory.jsonl").read_text().splitlines()
        for entry in json.loads(line).values()
    ]
    dialogues = [
        read_dialogue(json.loads(line))
        for line in (folder / f"madial_{language}_dialogue_dev.jsonl").read_text().splitlines()
    ]
    return Bank(language, memories, dialogues)


def read_memory(entry: dict[str, Any]) -> MemoryEvent:
    """One memory of the bank; its date ("2023-12-25") taken as midnight UTC."""
    at = datetime.strptime(entry["time"], "%Y-%m-%d").replace(tzinfo=UTC)
    return MemoryEvent(entry["id"], entry["event"], entry["user-id"], entry["time"], at)


def read_dialogue(item: dict[str, Any]) -> TestDialogue:
    """One dialogue: its lines before the first test turn, without the opening marker."""
    before = item["dialogue"][: item["test-turn"][0]]
    context = tuple(read_line(raw) for raw in before if raw.strip() not in MARKERS)
    relevant = frozenset(str(memory_id) for memory_id in item["relevant-id"])
    return TestDialogue(item["id"], item["user-id"], context, relevant)


def read_line(raw: str) -> Line:
    """A dialogue line's speaker (the assistant if untagged) and its text without quotes."""
    match = LINE.fullmatch(raw)
    if match is None:  # the pattern matches any text; this only narrows the type
        raise ValueError(f"unreadable dialogue line {raw!r}")
    text = match["text"].removeprefix('"').removesuffix('"').strip()
    return Line(match["speaker"] or ASSISTANT, text)


def dialogue_query(lines: Sequence[Line]) -> str:
    """The query every method is given: the lines as "Speaker: text", one a line."""
    return "\n".join(f"{line.speaker}: {line.text}" for line in lines)


# -- baselines -------------------------------------------------------------------------------


def bm25_scores(task: UserTask) -> Matrix:
    """bm25: BM25 of each query against each memory."""
    return bm25(task.bm25_documents(), task.bm25_queries())


def dense_scores(task: UserTask) -> Matrix:
    """dense: the cosine of query and memory embeddings."""
    scores: Matrix = task.query_vectors @ task.memory_vectors.T
    return scores


def rrf_scores(task: UserTask) -> Matrix:
    """rrf: reciprocal-rank fusion of bm25 and dense."""
    return reciprocal_rank_fusion(bm25_scores(task), dense_scores(task))


BASELINES: dict[str, Scorer] = {
    "bm25": bm25_scores,
    "dense:e5": dense_scores,
    "rrf:e5": rrf_scores,
}


def user_tasks(bank: Bank) -> tuple[list[UserTask], dict[str, float]]:
    """Each user's candidates, dialogues and e5 embeddings (through the cache); and their cost."""
    started = time.perf_counter()
    tasks = []
    with closing(CachedEmbedder(E5Embedder(), CACHE)) as embedder:
        for user in bank.users:
            memories = bank.memories_of(user)
            dialogues = bank.dialogues_of(user)
            queries = [dialogue_query(dialogue.context) for dialogue in dialogues]
            tasks.append(
                UserTask(
                    memories,
                    dialogues,
                    np.array(embedder.embed([memory.text for memory in memories], "passage")),
                    np.array(embedder.embed(queries, "query")),
                )
            )
        computed = embedder.computed
    seconds = time.perf_counter() - started
    print(
        f"{bank.language}: embedded ({computed} texts computed) in {seconds:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    return tasks, {"seconds": round(seconds, 1), "computed": computed}


def run_baseline(scorer: Scorer, tasks: list[UserTask]) -> MethodRun:
    """A baseline's top K memories for every dialogue, and the seconds scoring took."""
    started = time.perf_counter()
    rankings = {}
    for task in tasks:
        best = np.argsort(-scorer(task), axis=1, kind="stable")[:, :K]
        for dialogue, row in zip(task.dialogues, best, strict=True):
            rankings[dialogue.id] = [task.memories[index].id for index in row]
    return MethodRun(rankings, {"scoring_seconds": round(time.perf_counter() - started, 3)})


# -- graphmem --------------------------------------------------------------------------------


def ingest(memory: GraphMem, bank: Bank) -> Ingestion:
    """Observe each user's memories in date order under a fresh owner, one session a date."""
    owners = {}
    done = 0
    started = time.perf_counter()
    for user in bank.users:
        owner = f"madial-{bank.language}-user{user}-{secrets.token_hex(4)}"
        speaker = bank.name_of(user)
        for event in bank.memories_of(user):
            memory.observe(
                owner,
                event.text,
                message_id=event.id,
                at=event.at,
                speaker=speaker,
                session=event.date,
            )
            done += 1
        owners[user] = owner
        seconds = time.perf_counter() - started
        print(
            f"{bank.language}: ingested user {user} ({speaker}), {done} memories: {seconds:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    seconds = time.perf_counter() - started
    cost = {"ingest_seconds": round(seconds, 1), "memories_per_second": round(done / seconds, 1)}
    return Ingestion(owners, cost)


def recall_pass(memory: GraphMem, bank: Bank, owners: dict[int, str], *, peek: bool) -> MethodRun:
    """Recall every dialogue's query a day after its user's last memory; the source memory ids."""
    recall_at = {user: bank.memories_of(user)[-1].at + RECALL_DELAY for user in bank.users}
    known = {memory_event.id for memory_event in bank.memories}
    rankings = {}
    seconds = []
    for dialogue in bank.dialogues:
        started = time.perf_counter()
        found = memory.recall(
            owners[dialogue.user],
            dialogue_query(dialogue.context),
            k=K,
            at=recall_at[dialogue.user],
            peek=peek,
            min_confidence=0.0,  # the floor is measured apart: benchmarks/confidence.py
        )
        seconds.append(time.perf_counter() - started)
        turn_ids = list(dict.fromkeys(turn.id for item in found.memories for turn in item.turns))
        if strangers := set(turn_ids) - known:
            raise RuntimeError(f"graphmem recalled turns that are no memory ids: {strangers}")
        rankings[dialogue.id] = turn_ids[:K]
    cost = recall_latency(seconds)
    print(
        f"{bank.language}: recalled {len(seconds)} dialogues (peek: {peek})",
        file=sys.stderr,
        flush=True,
    )
    return MethodRun(rankings, cost)


def run_graphmem(bank: Bank, store: str) -> dict[str, MethodRun]:
    """Ingest, warm up, then recall every dialogue twice: peek first, then waking."""
    name = f"graphmem:{store}:offline"
    with (
        tempfile.TemporaryDirectory() as folder,
        open_memory(store, "offline", Path(folder), [], CACHE) as memory,
    ):
        ingestion = ingest(memory, bank)
        # The harness's long-lived objects would make Python's cyclic collector pause recalls
        # now and then: set them aside, as a long-running agent process would after start-up.
        gc.freeze()
        # graphmem embeds query texts of its own (the latest turn, say): a first pass, peeking
        # and unmeasured, puts them in the cache, so that latency excludes e5 as for the baselines
        # and no recall runs out of its time budget while e5 loads or computes.
        recall_pass(memory, bank, ingestion.owners, peek=True)
        peek = recall_pass(memory, bank, ingestion.owners, peek=True)
        waking = recall_pass(memory, bank, ingestion.owners, peek=False)
    return {
        f"{name}:peek": MethodRun(peek.rankings, {**ingestion.cost, **peek.cost}),
        name: MethodRun(waking.rankings, {**ingestion.cost, **waking.cost}),
    }


# -- scoring and reports ---------------------------------------------------------------------


def judge(ranked: list[str], dialogue: TestDialogue) -> DialogueResult:
    """Recall@5, reciprocal rank and NDCG@5 of one dialogue's ranking."""
    hits = [memory_id in dialogue.relevant for memory_id in ranked]
    first = next((rank for rank, hit in enumerate(hits, start=1) if hit), None)
    return DialogueResult(
        user=dialogue.user,
        recall_at_5=sum(hits[:TOP]) / len(dialogue.relevant),
        reciprocal_rank=0.0 if first is None else 1 / first,
        ndcg_at_5=ndcg(hits, len(dialogue.relevant), TOP),
    )


def means(results: Sequence[DialogueResult]) -> dict[str, float]:
    """The three measures averaged over dialogues, 0-100 with one decimal."""
    columns = {
        "recall@5": [result.recall_at_5 for result in results],
        "mrr": [result.reciprocal_rank for result in results],
        "ndcg@5": [result.ndcg_at_5 for result in results],
    }
    return {name: round(100 * statistics.fmean(values), 1) for name, values in columns.items()}


def judge_all(run: MethodRun, bank: Bank) -> list[DialogueResult]:
    """The result of every dialogue of a language under one method."""
    return [judge(run.rankings[dialogue.id], dialogue) for dialogue in bank.dialogues]


def summary(results: list[DialogueResult], bank: Bank, cost: dict[str, float]) -> dict[str, Any]:
    """A method's JSON entry for a language: overall, per user, and its cost."""
    return {
        "overall": means(results),
        "by_category": {
            f"user {user}": means([result for result in results if result.user == user])
            for user in bank.users
        },
        "cost": cost,
    }


def cost_cells(cost: dict[str, float]) -> str:
    """The cost columns of a method: its time and, for graphmem, its recall latency."""
    if "scoring_seconds" in cost:
        return f"scoring {cost['scoring_seconds']} s | -"
    return (
        f"ingestion {cost['ingest_seconds']} s"
        f" | {cost['recall_p50_ms']} / {cost['recall_p95_ms']} ms"
    )


def print_table(bank: Bank, methods: dict[str, dict[str, Any]]) -> None:
    """A language's table: one row a method, its three measures and its cost."""
    print(f"\n{bank.language} ({len(bank.dialogues)} dialogues, {len(bank.memories)} memories)\n")
    print("| method | Recall@5 | MRR | NDCG@5 | time | recall p50 / p95 |")
    print("|---|---|---|---|---|---|")
    for name, entry in methods.items():
        overall = entry["overall"]
        measures = f"{overall['recall@5']} | {overall['mrr']} | {overall['ndcg@5']}"
        print(f"| {name} | {measures} | {cost_cells(entry['cost'])} |")


def evaluate(bank: Bank, store: str) -> dict[str, Any]:
    """Embed, run the baselines and graphmem on one language; its JSON entry."""
    tasks, embedding = user_tasks(bank)
    runs = {name: run_baseline(scorer, tasks) for name, scorer in BASELINES.items()}
    graphmem = run_graphmem(bank, store)
    runs.update(graphmem)
    results = {name: judge_all(run, bank) for name, run in runs.items()}
    ours = next(name for name in graphmem if not name.endswith(":peek"))
    users = [f"user {result.user}" for result in results[ours]]
    return {
        "dialogues": len(bank.dialogues),
        "memories": len(bank.memories),
        "embedding": embedding,
        "methods": {name: summary(results[name], bank, run.cost) for name, run in runs.items()},
        "leads": {
            "method": ours,
            "measure": LEAD_MEASURE,
            "over": leads(
                [result.recall_at_5 for result in results[ours]],
                {name: [result.recall_at_5 for result in results[name]] for name in BASELINES},
                users,
                sorted(set(users)),
            ),
        },
    }


def main() -> None:
    """Evaluate each language asked for, print its table, write JSON when asked."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path, nargs="?", default=DATA)
    parser.add_argument("--lang", nargs="+", choices=LANGUAGES, default=list(LANGUAGES))
    parser.add_argument("--store", choices=["networkx", "neo4j"], default="networkx")
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()

    languages = {}
    for language in arguments.lang:
        bank = load(arguments.data, language)
        entry = evaluate(bank, arguments.store)
        languages[language] = entry
        print_table(bank, entry["methods"])
        print_leads(entry["leads"]["method"], LEAD_MEASURE, entry["leads"]["over"])
    if arguments.out:
        result = {"data": str(arguments.data), "k": K, "languages": languages}
        write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
