"""Turn-level evidence retrieval on LoCoMo: graphmem against baselines computed in numpy.

    python benchmarks/locomo.py DATA.json [--store networkx|neo4j]
        [--cognition offline|openai|dataset] [--k 10] [--conversations N] [--import]
        [--out RESULT.json]

Every method ranks the turns of one conversation for each of its questions and returns its best
k turns (default 10). Scores, per question category and overall, as in
../shared/data/locomo/BASELINES.md: turn-level evidence Recall@5, Recall@10 and NDCG@10 (binary
relevance), and session-level Recall@5 (the share of the evidence's sessions among the sessions
of the top 5 turns). A turn's text is "speaker: text", followed by " [shares an image: caption]"
when the turn carries an image caption (blip_caption), for every method alike. Evidence ids with
obvious typos are mended ("D:11:26", "D8:6; D9:17"), ids that match no turn are dropped, questions
left without evidence are skipped; all of these are listed at the end. Answers and evidence are
read only to score.

Baselines, each over the conversation's turns only: bm25 (Lucene-style, k1 1.5, b 0.75, over the
content terms of graphmem.terms with repetitions), dense:e5 (cosine of multilingual-e5-small
embeddings, cached in .cache/), rrf:e5 (reciprocal-rank fusion, k 60, of those two), ga:e5
(Generative Agents: recency, a constant importance and the cosine, each min-max normalised,
weights 1) and context+session:e5 (the recipe of BASELINES.md, with e5 instead of MiniLM).

graphmem: one fresh owner per conversation observes every turn, session by session, at its
session's date and time; each question is then recalled at the last session's time, first in
peek mode over all questions (`graphmem:<store>:<cognition>:peek`, which changes nothing), then
as an agent recalls, waking what it uses (`graphmem:<store>:<cognition>`). Its ranking is the
source turns of the recalled memories in order, without repeats, cut at k (it is asked for k
memories, 2k in dataset mode). --store neo4j and --cognition openai take their addresses and
keys from GRAPHMEM_* variables (graphmem.config); the embedder is always e5. --import adds a
third run: each conversation ingested in one `observe_many`, as a history import
(`graphmem:<store>:<cognition>:import` and its `:peek`).

--cognition dataset measures the graph machinery with model-quality extractions and no model:
graphmem also observes LoCoMo's own per-session observations (facts a language model drew from
the dialogue when the dataset was made, each naming the turn it was drawn from), after each
session's dialogue, as items of a session of their own ("session_N:observations", speaker
"observation", message id "<turn id>#<n>"), and its dialogue summaries are LoCoMo's session
summaries; everything else is the offline cognition's. A recalled observation ranks the turn it
was drawn from. Its rows are named graphmem:<store>:dataset.

The baselines fill the embedding cache first, so graphmem's ingestion time is that of the store
and the cognition, not of embedding.

Last, graphmem's lead over each baseline in Recall@10 (graphmem waking, the default an agent
gets), per category and overall, with a 95% paired bootstrap interval over the questions: how
far the lead could move on other questions drawn like these (`leads` in the JSON).
"""

import argparse
import gc
import json
import math
import re
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from itertools import chain, groupby
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from provenance import write_result

from graphmem.cognition.base import Dialogue, DialogueDigest
from graphmem.cognition.offline import OfflineCognition
from graphmem.config import Settings
from graphmem.contract import MAX_RECALL
from graphmem.embedding import CachedEmbedder, E5Embedder, Embedder
from graphmem.memory import GraphMem
from graphmem.scoring import BM25_B, BM25_K1, RECENCY_PER_HOUR
from graphmem.terms import term_list

Matrix = npt.NDArray[np.float64]

CACHE = Path(__file__).resolve().parent.parent / ".cache" / "locomo-embeddings.sqlite"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
ADVERSARIAL = 5
SESSION_TIME = "%I:%M %p on %d %B, %Y"
"""How LoCoMo writes a session's date and time: "1:56 pm on 8 May, 2023"."""
EVIDENCE_ID = re.compile(r"D:?(\d+):(\d+)")
"""A turn id, also with the stray colon of "D:11:26"."""

RRF_K = 60
LEAD_MEASURE = "recall@10"
"""The measure of graphmem's lead over each baseline (the one the issues set targets in)."""
RESAMPLES = 2000
"""Resamples of the paired bootstrap that gives a lead its 95% interval (seed 0)."""
NEIGHBOUR_SHARE = 0.3
"""context+session: the share of the best neighbouring turn's score a turn inherits."""
SESSION_SHARE = 0.4
"""context+session: the share of the best score of its session a turn inherits."""


@dataclass(frozen=True)
class DialogueTurn:
    """One turn: its dia_id, its text as every method sees it, speaker, session number, time."""

    id: str
    text: str
    speaker: str
    session: int
    at: datetime


@dataclass(frozen=True)
class DatasetFact:
    """One of LoCoMo's per-session observations: its text and the turn it was drawn from."""

    text: str
    source: str


@dataclass(frozen=True)
class Conversation:
    """What the methods see of a sample: its turns in order and its questions (no answers).

    `facts` (per session number) and `summaries` (session number to text) are the dataset's own
    extractions, read by graphmem in dataset mode only.
    """

    sample_id: str
    turns: list[DialogueTurn]
    questions: list[str]
    asked_at: datetime
    """The moment every question is asked (LoCoMo: the time of the last session)."""
    facts: dict[int, list[DatasetFact]]
    summaries: dict[int, str]


@dataclass(frozen=True)
class Gold:
    """What scoring reads of a question: its category and the ids of its evidence turns."""

    category: int
    evidence: frozenset[str]


@dataclass(frozen=True)
class EvidenceFix:
    """An evidence id as given and the turn ids used for it (none: dropped).

    `question` is the question's 0-based index in the sample's qa list.
    """

    sample_id: str
    question: int
    given: str
    used: list[str]


@dataclass(frozen=True)
class Sample:
    """A conversation, the gold of its usable questions, its evidence fixes and skipped count."""

    conversation: Conversation
    gold: list[Gold]
    fixes: list[EvidenceFix]
    skipped: int


@dataclass(frozen=True)
class Vectors:
    """Unit embeddings of a conversation's turns (passages) and questions (queries)."""

    turns: Matrix
    questions: Matrix


@dataclass(frozen=True)
class QuestionResult:
    """How one method did on one question (each measure 0-1)."""

    category: int
    recall_at_5: float
    recall_at_10: float
    ndcg_at_10: float
    session_recall_at_5: float


@dataclass(frozen=True)
class MethodRun:
    """A method's top turn ids per sample and question, and what computing them cost."""

    rankings: dict[str, list[list[str]]]
    cost: dict[str, float]


@dataclass(frozen=True)
class Ingestion:
    """The owner graphmem used for each sample, and what ingesting cost."""

    owners: dict[str, str]
    cost: dict[str, float]


Scorer = Callable[[Conversation, Vectors], Matrix]
"""A baseline: a score for every (question, turn) pair of a conversation."""


# -- data ------------------------------------------------------------------------------------


def load(path: Path, conversations: int | None = None) -> list[Sample]:
    """The samples of a LoCoMo file (the first N conversations, if given)."""
    return [read_sample(item) for item in json.loads(path.read_text())[:conversations]]


def read_sample(item: dict[str, Any]) -> Sample:
    """One sample: its turns, and its questions that have usable evidence."""
    turns = conversation_turns(item)
    known = {turn.id for turn in turns}
    questions: list[str] = []
    gold: list[Gold] = []
    fixes: list[EvidenceFix] = []
    for index, qa in enumerate(item["qa"]):
        used, mended = question_evidence(item["sample_id"], index, qa.get("evidence", []), known)
        fixes += mended
        if used:
            questions.append(qa["question"])
            gold.append(Gold(qa["category"], used))
    facts, summaries = dataset_extractions(item, known)
    conversation = Conversation(item["sample_id"], turns, questions, turns[-1].at, facts, summaries)
    return Sample(conversation, gold, fixes, skipped=len(item["qa"]) - len(questions))


def dataset_extractions(
    item: dict[str, Any], known: set[str]
) -> tuple[dict[int, list[DatasetFact]], dict[int, str]]:
    """A sample's observations per session (each with its source turn) and session summaries.

    An observation drawn from several turns is given the first of them.
    """
    facts: dict[int, list[DatasetFact]] = {}
    summaries: dict[int, str] = {}
    for key, by_speaker in item.get("observation", {}).items():
        number = int(key.split("_")[1])
        for text, source in chain.from_iterable(by_speaker.values()):
            sources = [source] if isinstance(source, str) else source
            used = [turn_id for given in sources for turn_id in evidence_ids(given)]
            if used and used[0] in known:
                facts.setdefault(number, []).append(DatasetFact(text, used[0]))
    for key, text in item.get("session_summary", {}).items():
        summaries[int(key.split("_")[1])] = text
    return facts, summaries


def conversation_turns(item: dict[str, Any]) -> list[DialogueTurn]:
    """Every turn of a sample, session by session, with its session's time."""
    conversation = item["conversation"]
    turns: list[DialogueTurn] = []
    number = 1
    while f"session_{number}" in conversation:
        at = session_time(conversation[f"session_{number}_date_time"])
        turns += [
            DialogueTurn(turn["dia_id"], turn_text(turn), turn["speaker"], number, at)
            for turn in conversation[f"session_{number}"]
        ]
        number += 1
    return turns


def session_time(text: str) -> datetime:
    """A session's date and time ("1:56 pm on 8 May, 2023"), taken as UTC."""
    return datetime.strptime(text, SESSION_TIME).replace(tzinfo=UTC)


def turn_text(turn: dict[str, str]) -> str:
    """A turn as the methods see it: speaker, text and the caption of a shared image."""
    text = f"{turn['speaker']}: {turn['text']}"
    caption = turn.get("blip_caption")
    return text if caption is None else f"{text} [shares an image: {caption}]"


def question_evidence(
    sample_id: str, question: int, given: list[str], known: set[str]
) -> tuple[frozenset[str], list[EvidenceFix]]:
    """A question's evidence turn ids, and a fix for each given id that was mended or dropped."""
    evidence: set[str] = set()
    fixes = []
    for text in given:
        used = [turn_id for turn_id in evidence_ids(text) if turn_id in known]
        if used != [text]:
            fixes.append(EvidenceFix(sample_id, question, text, used))
        evidence.update(used)
    return frozenset(evidence), fixes


def evidence_ids(text: str) -> list[str]:
    """The turn ids an evidence string names, mending spaces, case and a stray colon."""
    parts = re.split(r"[;,]", re.sub(r"\s+", "", text).upper())
    return [
        f"D{int(match[1])}:{int(match[2])}"
        for part in parts
        if (match := EVIDENCE_ID.fullmatch(part))
    ]


# -- baselines -------------------------------------------------------------------------------


def bm25(documents: list[list[str]], queries: list[list[str]]) -> Matrix:
    """Lucene-style BM25 of each query's distinct terms against each document: queries x docs.

    Weighed for the queries' terms only: a documents x vocabulary matrix of a haystack of
    18,000 turns (benchmarks/growth.py) takes gigabytes.
    """
    asked = list(dict.fromkeys(term for query in queries for term in set(query)))
    column = {term: index for index, term in enumerate(asked)}
    counts = np.zeros((len(documents), len(asked)))
    lengths = np.zeros(len(documents))
    for row, document in enumerate(documents):
        lengths[row] = len(document)
        for term in document:
            if term in column:
                counts[row, column[term]] += 1
    frequency = (counts > 0).sum(axis=0)
    idf = np.log(1 + (len(documents) - frequency + 0.5) / (frequency + 0.5))
    average = float(lengths.mean()) if len(documents) else 1.0
    saturation = BM25_K1 * (1 - BM25_B + BM25_B * lengths / (average or 1.0))
    weights = idf * counts * (BM25_K1 + 1) / (counts + saturation[:, None])
    chosen = np.zeros((len(queries), len(asked)))
    for row, query in enumerate(queries):
        chosen[row, [column[term] for term in set(query)]] = 1.0
    scores: Matrix = chosen @ weights.T
    return scores


def normalised(scores: Matrix) -> Matrix:
    """Min-max normalisation along the last axis (the conversation's turns); all equal: 1."""
    low = scores.min(axis=-1, keepdims=True)
    span = scores.max(axis=-1, keepdims=True) - low
    return np.where(span > 0, (scores - low) / np.where(span > 0, span, 1.0), 1.0)


def ranks(scores: Matrix) -> Matrix:
    """The 1-based rank of each turn for each question (ties in turn order)."""
    order = np.argsort(-scores, axis=1, kind="stable")
    return np.argsort(order, axis=1).astype(np.float64) + 1


def bm25_scores(conversation: Conversation, vectors: Vectors) -> Matrix:
    """bm25: BM25 over one document per turn."""
    documents = [term_list(turn.text) for turn in conversation.turns]
    return bm25(documents, [term_list(question) for question in conversation.questions])


def dense_scores(conversation: Conversation, vectors: Vectors) -> Matrix:
    """dense: the cosine of question and turn embeddings."""
    return vectors.questions @ vectors.turns.T


def reciprocal_rank_fusion(first: Matrix, second: Matrix) -> Matrix:
    """Reciprocal-rank fusion (k 60) of two score matrices of the same shape."""
    fused: Matrix = 1 / (RRF_K + ranks(first)) + 1 / (RRF_K + ranks(second))
    return fused


def rrf_scores(conversation: Conversation, vectors: Vectors) -> Matrix:
    """rrf: reciprocal-rank fusion of bm25 and dense."""
    return reciprocal_rank_fusion(
        bm25_scores(conversation, vectors), dense_scores(conversation, vectors)
    )


def generative_agents_scores(conversation: Conversation, vectors: Vectors) -> Matrix:
    """ga: recency before the last session + constant importance + cosine, normalised, summed."""
    hours = np.array(
        [(conversation.asked_at - turn.at).total_seconds() / 3600 for turn in conversation.turns]
    )
    recency = normalised(RECENCY_PER_HOUR**hours)
    importance = 1.0  # a constant, which min-max normalises to 1 for every turn
    return recency + importance + normalised(dense_scores(conversation, vectors))


def context_session_scores(conversation: Conversation, vectors: Vectors) -> Matrix:
    """context+session: BM25 of a turn with its neighbours plus cosine, spread in the session."""
    turns = conversation.turns
    sessions = np.array([turn.session for turn in turns])
    documents = [term_list(with_neighbours(turns, index)) for index in range(len(turns))]
    lexical = bm25(documents, [term_list(question) for question in conversation.questions])
    base = normalised(lexical) + normalised(dense_scores(conversation, vectors))
    spread = base + NEIGHBOUR_SHARE * neighbour_maximum(base, sessions)
    return spread + SESSION_SHARE * session_maximum(spread, sessions)


def with_neighbours(turns: list[DialogueTurn], index: int) -> str:
    """A turn's text joined with those of the previous and next turn of its session."""
    window = turns[max(index - 1, 0) : index + 2]
    return " ".join(turn.text for turn in window if turn.session == turns[index].session)


def neighbour_maximum(scores: Matrix, sessions: npt.NDArray[np.int_]) -> Matrix:
    """The larger score of the previous and next turn in the same session (0 for none).

    Zero stands for a missing neighbour because the scores given are never negative.
    """
    same = sessions[1:] == sessions[:-1]
    previous = np.zeros_like(scores)
    previous[:, 1:] = np.where(same, scores[:, :-1], 0.0)
    following = np.zeros_like(scores)
    following[:, :-1] = np.where(same, scores[:, 1:], 0.0)
    return np.maximum(previous, following)


def session_maximum(scores: Matrix, sessions: npt.NDArray[np.int_]) -> Matrix:
    """The best score of each turn's session (turns come session by session)."""
    starts = np.flatnonzero(np.r_[True, sessions[1:] != sessions[:-1]])
    sizes = np.diff(np.r_[starts, len(sessions)])
    return np.repeat(np.maximum.reduceat(scores, starts, axis=1), sizes, axis=1)


BASELINES: dict[str, Scorer] = {
    "bm25": bm25_scores,
    "dense:e5": dense_scores,
    "rrf:e5": rrf_scores,
    "ga:e5": generative_agents_scores,
    "context+session:e5": context_session_scores,
}


def embed_all(
    conversations: list[Conversation], cache: Path = CACHE
) -> tuple[dict[str, Vectors], dict[str, float]]:
    """e5 embeddings of every conversation's turns and questions, through a cache; their cost."""
    started = time.perf_counter()
    vectors = {}
    with closing(CachedEmbedder(E5Embedder(), cache)) as embedder:
        for number, conversation in enumerate(conversations, start=1):
            vectors[conversation.sample_id] = Vectors(
                np.array(embedder.embed([turn.text for turn in conversation.turns], "passage")),
                np.array(embedder.embed(conversation.questions, "query")),
            )
            if len(conversations) > 5:
                print(
                    f"embedded {number}/{len(conversations)}: {embedder.computed} texts computed"
                    f" in {time.perf_counter() - started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        computed = embedder.computed
    seconds = time.perf_counter() - started
    print(f"embedded ({computed} texts computed) in {seconds:.1f} s", file=sys.stderr, flush=True)
    return vectors, {"seconds": round(seconds, 1), "computed": computed}


def run_baseline(
    scorer: Scorer, conversations: list[Conversation], vectors: dict[str, Vectors], k: int
) -> MethodRun:
    """A baseline's top k turns for every question, and the seconds scoring took."""
    started = time.perf_counter()
    rankings = {}
    for conversation in conversations:
        scores = scorer(conversation, vectors[conversation.sample_id])
        best = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        rankings[conversation.sample_id] = [
            [conversation.turns[index].id for index in row] for row in best
        ]
    return MethodRun(rankings, {"scoring_seconds": round(time.perf_counter() - started, 3)})


# -- graphmem --------------------------------------------------------------------------------


class DatasetCognition(OfflineCognition):
    """The offline cognition, except that a dialogue's summary is LoCoMo's summary of its session.

    A dialogue is known by its first line (text and time), as graphmem hands it over.
    """

    def __init__(self, summaries: dict[tuple[str, datetime], str]) -> None:
        super().__init__()
        self._summaries = summaries

    def digest_dialogue(self, dialogue: Dialogue) -> DialogueDigest:
        """The offline digest, with the dataset's summary of the session where it has one."""
        digest = super().digest_dialogue(dialogue)
        first = dialogue.lines[0]
        summary = self._summaries.get((first.text, first.at))
        if summary is None:
            return digest
        return digest.model_copy(update={"summary": summary})


def dataset_cognition(conversations: list[Conversation]) -> DatasetCognition:
    """A DatasetCognition that knows every session's first turn and first observation."""
    summaries = {}
    for conversation in conversations:
        for number, turns in groupby(conversation.turns, key=lambda turn: turn.session):
            first = next(turns)
            summary = conversation.summaries.get(number)
            if summary is None:
                continue
            summaries[(first.text, first.at)] = summary
            if facts := conversation.facts.get(number):
                summaries[(facts[0].text, first.at)] = summary
    return DatasetCognition(summaries)


def open_memory(
    store: str,
    cognition: str,
    folder: Path,
    conversations: list[Conversation],
    cache: Path = CACHE,
    *,
    embedder: Embedder | None = None,
) -> GraphMem:
    """A GraphMem with the chosen store and cognition, e5 embeddings from the benchmark's cache.

    `embedder`, if given, stands for e5 behind the cache (one that times it, say).
    """
    settings = Settings.from_env(
        store=store,
        cognition="offline" if cognition == "dataset" else cognition,
        embedder="e5",
        embedding_cache=cache,
        path=folder / "graph.json",
    )
    if cognition == "dataset":
        return GraphMem.open(
            settings, cognition=dataset_cognition(conversations), embedder=embedder
        )
    return GraphMem.open(settings, embedder=embedder)


def model_usage(memory: GraphMem) -> tuple[int, int]:
    """Model calls and tokens so far through the endpoint (none with the offline cognition)."""
    if memory.accounting is None:
        return 0, 0
    total = memory.accounting.total()
    return total.calls, total.prompt_tokens + total.completion_tokens


def turn_item(turn: DialogueTurn) -> dict[str, Any]:
    """A dialogue turn as `observe` and `observe_many` take it: its id, time, speaker, session."""
    return {
        "text": turn.text,
        "message_id": turn.id,
        "at": turn.at,
        "speaker": turn.speaker,
        "session": f"session_{turn.session}",
    }


def ingest(
    memory: GraphMem, owner: str, conversation: Conversation, facts: bool, *, batch: bool = False
) -> int:
    """Observe a conversation's turns in order; return how many stayed pending.

    With `batch`, all of them in one `observe_many`, as an import. With `facts`, each
    session's dataset observations are observed after its dialogue.
    """
    items: list[dict[str, Any]] = []
    for number, turns in groupby(conversation.turns, key=lambda turn: turn.session):
        session = list(turns)
        items += [turn_item(turn) for turn in session]
        items += [
            {
                "text": fact.text,
                "message_id": f"{fact.source}#{index}",
                "at": session[-1].at,
                "speaker": "observation",
                "session": f"session_{number}:observations",
            }
            for index, fact in enumerate(conversation.facts.get(number, []) if facts else [])
        ]
    if batch:
        return sum(observation.pending for observation in memory.observe_many(owner, items))
    return sum(memory.observe(owner, **item).pending for item in items)


def source_turn(turn_id: str) -> str:
    """The dialogue turn a stored turn stands for: itself, or the one an observation came from."""
    return turn_id.split("#", maxsplit=1)[0]


def ingest_all(
    memory: GraphMem, conversations: list[Conversation], facts: bool, *, batch: bool = False
) -> Ingestion:
    """Ingest each conversation under a fresh owner, reporting progress on stderr."""
    owners = {}
    pending = done = 0
    started = time.perf_counter()
    for number, conversation in enumerate(conversations, start=1):
        owner = f"bench-{conversation.sample_id}-{secrets.token_hex(4)}"
        pending += ingest(memory, owner, conversation, facts, batch=batch)
        owners[conversation.sample_id] = owner
        done += len(conversation.turns)
        if facts:  # the dataset's observations are observed as turns too
            done += sum(len(session) for session in conversation.facts.values())
        seconds = time.perf_counter() - started
        print(
            f"ingested {conversation.sample_id} ({number}/{len(conversations)}): {done} turns"
            f" in {seconds:.0f} s, {done / seconds:.1f} turns/s",
            file=sys.stderr,
            flush=True,
        )
    seconds = time.perf_counter() - started
    calls, used_tokens = model_usage(memory)
    cost = {
        "ingest_seconds": round(seconds, 1),
        "turns_per_second": round(done / seconds, 1),
        "model_calls_per_turn": round(calls / done, 3),
        "tokens_per_turn": round(used_tokens / done, 1),
        "pending_turns": pending,
    }
    return Ingestion(owners, cost)


def recall_pass(
    memory: GraphMem,
    conversations: list[Conversation],
    owners: dict[str, str],
    k: int,
    *,
    memories: int,
    peek: bool,
    since: datetime | None = None,
) -> MethodRun:
    """Recall every question when it is asked; the top k source turns.

    graphmem is asked for `memories` memories a question, made `since` then if given (a filter).
    """
    calls_before, _ = model_usage(memory)
    traffic_before = memory.store_traffic
    rankings: dict[str, list[list[str]]] = {}
    seconds = []
    for conversation in conversations:
        rankings[conversation.sample_id] = []
        for question in conversation.questions:
            started = time.perf_counter()
            found = memory.recall(
                owners[conversation.sample_id],
                question,
                k=min(MAX_RECALL, memories),
                at=conversation.asked_at,
                peek=peek,
                since=since,
                min_confidence=0.0,  # the floor is measured apart: benchmarks/confidence.py
            )
            seconds.append(time.perf_counter() - started)
            turn_ids = [source_turn(turn.id) for item in found.memories for turn in item.turns]
            rankings[conversation.sample_id].append(list(dict.fromkeys(turn_ids))[:k])
    calls, _ = model_usage(memory)
    traffic = memory.store_traffic
    cost = {
        **recall_latency(seconds),
        "model_calls_per_recall": round((calls - calls_before) / len(seconds), 3),
        "statements_per_recall": round(
            (traffic.statements - traffic_before.statements) / len(seconds), 2
        ),
        "transactions_per_recall": round(
            (traffic.transactions - traffic_before.transactions) / len(seconds), 2
        ),
    }
    print(f"recalled {len(seconds)} questions (peek: {peek})", file=sys.stderr, flush=True)
    return MethodRun(rankings, cost)


def run_graphmem(
    conversations: list[Conversation],
    store: str,
    cognition: str,
    k: int,
    cache: Path = CACHE,
    *,
    batch: bool = False,
) -> dict[str, MethodRun]:
    """Ingest, then recall every question twice: peek first, then waking, as an agent recalls.

    Turn by turn, or with `batch` each conversation in one `observe_many` (":import").
    """
    name = f"graphmem:{store}:{cognition}" + (":import" if batch else "")
    with (
        tempfile.TemporaryDirectory() as folder,
        open_memory(store, cognition, Path(folder), conversations, cache) as memory,
    ):
        ingestion = ingest_all(memory, conversations, facts=cognition == "dataset", batch=batch)
        # The harness's own long-lived objects (the dataset, the baselines' indexes) would make
        # Python's cyclic collector pause recalls for ~70 ms now and then: set them aside, as a
        # long-running agent process would after start-up.
        gc.freeze()
        # In dataset mode an observation and the turn it came from are two memories of one
        # turn: graphmem is asked for twice as many memories, so that k distinct turns remain.
        memories = 2 * k if cognition == "dataset" else k
        owners = ingestion.owners
        peek = recall_pass(memory, conversations, owners, k, memories=memories, peek=True)
        waking = recall_pass(memory, conversations, owners, k, memories=memories, peek=False)
    return {
        name: MethodRun(waking.rankings, {**ingestion.cost, **waking.cost}),
        f"{name}:peek": MethodRun(peek.rankings, {**ingestion.cost, **peek.cost}),
    }


# -- scoring and reports ---------------------------------------------------------------------


def recall_latency(seconds: list[float]) -> dict[str, float]:
    """The p50 and p95 of recall durations, in milliseconds with one decimal."""
    p95 = statistics.quantiles(seconds, n=20, method="inclusive")[18]
    return {
        "recall_p50_ms": round(1000 * statistics.median(seconds), 1),
        "recall_p95_ms": round(1000 * p95, 1),
    }


def ndcg(hits: list[bool], relevant: int, cut: int) -> float:
    """NDCG at `cut` of a ranking (binary relevance) with `relevant` relevant items in all."""
    found = sum(1 / math.log2(rank + 2) for rank, hit in enumerate(hits[:cut]) if hit)
    ideal = sum(1 / math.log2(rank + 2) for rank in range(min(relevant, cut)))
    return found / ideal


def lead(ours: Sequence[float], theirs: Sequence[float]) -> dict[str, float]:
    """The mean of ours - theirs on the same questions (0-100), with its 95% interval.

    The interval is a paired bootstrap over the questions (RESAMPLES resamples, seed 0): how far
    the lead could move on other questions drawn like these.
    """
    differences = 100 * (np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float))
    picks = np.random.default_rng(0).integers(0, len(differences), (RESAMPLES, len(differences)))
    low, high = np.percentile(differences[picks].mean(axis=1), [2.5, 97.5])
    return {
        "lead": round(float(differences.mean()), 1),
        "low": round(float(low), 1),
        "high": round(float(high), 1),
    }


def leads(
    ours: Sequence[float],
    baselines: dict[str, Sequence[float]],
    groups: Sequence[str],
    order: Sequence[str],
) -> dict[str, dict[str, dict[str, float]]]:
    """The lead over each baseline in each group of questions (in `order`) and in ALL.

    `ours` (graphmem's) and each baseline's scores are one measure per question, `groups` its
    group.
    """
    members = {
        group: [index for index, name in enumerate(groups) if name == group]
        for group in order
        if group in groups
    }
    members["ALL"] = list(range(len(groups)))
    return {
        baseline: {
            group: lead([ours[index] for index in chosen], [theirs[index] for index in chosen])
            for group, chosen in members.items()
        }
        for baseline, theirs in baselines.items()
    }


def print_leads(method: str, measure: str, table: dict[str, dict[str, dict[str, float]]]) -> None:
    """A table of graphmem's lead over each baseline, each group of questions a column."""
    print(
        f"\n{method} minus each baseline, {measure}: mean lead"
        " [95% paired bootstrap interval over queries]"
    )
    groups = list(next(iter(table.values())))
    print("| baseline | " + " | ".join(groups) + " |")
    print("|---" * (len(groups) + 1) + "|")
    for baseline, by_group in table.items():
        cells = [
            f"{value['lead']:+.1f} [{value['low']:+.1f}, {value['high']:+.1f}]"
            for value in by_group.values()
        ]
        print(f"| {baseline} | " + " | ".join(cells) + " |")


def judge(ranked: list[str], gold: Gold, session_of: dict[str, int]) -> QuestionResult:
    """Recall@5, Recall@10, NDCG@10 and session Recall@5 of one question's ranking."""
    hits = [turn_id in gold.evidence for turn_id in ranked]
    wanted = {session_of[turn_id] for turn_id in gold.evidence}
    seen = {session_of[turn_id] for turn_id in ranked[:5]}
    return QuestionResult(
        category=gold.category,
        recall_at_5=sum(hits[:5]) / len(gold.evidence),
        recall_at_10=sum(hits[:10]) / len(gold.evidence),
        ndcg_at_10=ndcg(hits, len(gold.evidence), 10),
        session_recall_at_5=len(wanted & seen) / len(wanted),
    )


def judge_all(run: MethodRun, samples: list[Sample]) -> list[QuestionResult]:
    """The result of every question of every sample under one method."""
    results = []
    for sample in samples:
        conversation = sample.conversation
        session_of = {turn.id: turn.session for turn in conversation.turns}
        rankings = run.rankings[conversation.sample_id]
        results += [
            judge(ranked, gold, session_of)
            for ranked, gold in zip(rankings, sample.gold, strict=True)
        ]
    return results


def means(results: Sequence[QuestionResult]) -> dict[str, float]:
    """The four measures averaged over questions, 0-100 with one decimal."""
    columns = {
        "recall@5": [result.recall_at_5 for result in results],
        "recall@10": [result.recall_at_10 for result in results],
        "ndcg@10": [result.ndcg_at_10 for result in results],
        "session_recall@5": [result.session_recall_at_5 for result in results],
    }
    return {name: round(100 * statistics.fmean(values), 1) for name, values in columns.items()}


def summary(results: list[QuestionResult], cost: dict[str, float]) -> dict[str, Any]:
    """A method's JSON entry: overall, without adversarial, per category, and its cost."""
    return {
        "overall": means(results),
        "overall_excl_adversarial": means([r for r in results if r.category != ADVERSARIAL]),
        "by_category": {
            name: means(chosen)
            for number, name in CATEGORIES.items()
            if (chosen := [result for result in results if result.category == number])
        },
        "cost": cost,
    }


def cell(measures: dict[str, float] | None) -> str:
    """A table cell: R@5 / R@10 / NDCG@10."""
    if measures is None:
        return "-"
    return f"{measures['recall@5']} / {measures['recall@10']} / {measures['ndcg@10']}"


def print_tables(methods: dict[str, dict[str, Any]], samples: list[Sample]) -> None:
    """The retrieval table (as in BASELINES.md) and the session-recall and cost table."""
    gold = [item for sample in samples for item in sample.gold]
    counts = {
        name: sum(item.category == number for item in gold) for number, name in CATEGORIES.items()
    }
    columns = [f"{name} (n={count})" for name, count in counts.items()]
    excluded = len(gold) - counts[CATEGORIES[ADVERSARIAL]]
    columns += [f"ALL(excl. adversarial) (n={excluded})", f"ALL(1-5) (n={len(gold)})"]
    print("| method | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, entry in methods.items():
        cells = [cell(entry["by_category"].get(category)) for category in counts]
        cells += [cell(entry["overall_excl_adversarial"]), cell(entry["overall"])]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    print(
        "| method | session R@5 | time | recall p50 / p95 (statements) |"
        " model calls / tokens per turn |"
    )
    print("|---|---|---|---|---|")
    for name, entry in methods.items():
        print(f"| {name} | {entry['overall']['session_recall@5']} | {cost_cells(entry['cost'])} |")


def cost_cells(cost: dict[str, float]) -> str:
    """The cost columns of a method: time, recall latency and statements, model use a turn."""
    if "scoring_seconds" in cost:
        return f"scoring {cost['scoring_seconds']} s | - | -"
    return (
        f"ingestion {cost['ingest_seconds']} s ({cost['turns_per_second']} turns/s)"
        f" | {cost['recall_p50_ms']} / {cost['recall_p95_ms']} ms"
        f" ({cost.get('statements_per_recall', '-')})"
        f" | {cost['model_calls_per_turn']} / {cost['tokens_per_turn']}"
    )


def print_fixes(samples: list[Sample]) -> None:
    """The evidence ids mended or dropped, and how many questions were skipped."""
    print("\nEvidence ids mended or dropped:")
    for sample in samples:
        for fix in sample.fixes:
            used = ", ".join(fix.used) if fix.used else "dropped (no such turn)"
            print(f"- {fix.sample_id} question {fix.question}: {fix.given!r} -> {used}")
    skipped = sum(sample.skipped for sample in samples)
    print(f"Questions skipped for want of usable evidence: {skipped}")


def main() -> None:
    """Load, embed, run the baselines and graphmem, print the tables, write JSON when asked."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--store", choices=["networkx", "neo4j"], default="networkx")
    parser.add_argument("--cognition", choices=["offline", "openai", "dataset"], default="offline")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--conversations", type=int)
    parser.add_argument(
        "--import",
        dest="batch",
        action="store_true",
        help="also ingest each conversation in one observe_many (graphmem:...:import)",
    )
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    samples = load(arguments.data, arguments.conversations)
    conversations = [sample.conversation for sample in samples]

    vectors, embedding = embed_all(conversations)
    runs = {
        name: run_baseline(scorer, conversations, vectors, arguments.k)
        for name, scorer in BASELINES.items()
    }
    graphmem = run_graphmem(conversations, arguments.store, arguments.cognition, arguments.k)
    runs.update(graphmem)
    if arguments.batch:
        runs.update(
            run_graphmem(
                conversations, arguments.store, arguments.cognition, arguments.k, batch=True
            )
        )
    results = {name: judge_all(run, samples) for name, run in runs.items()}
    methods = {name: summary(results[name], run.cost) for name, run in runs.items()}
    ours = next(name for name in graphmem if not name.endswith(":peek"))
    over = leads(
        [result.recall_at_10 for result in results[ours]],
        {name: [result.recall_at_10 for result in results[name]] for name in BASELINES},
        [CATEGORIES[result.category] for result in results[ours]],
        list(CATEGORIES.values()),
    )

    print_tables(methods, samples)
    print_leads(ours, LEAD_MEASURE, over)
    print_fixes(samples)
    if arguments.out:
        result = {
            "data": str(arguments.data),
            "k": arguments.k,
            "questions": sum(len(sample.gold) for sample in samples),
            "skipped_questions": sum(sample.skipped for sample in samples),
            "evidence_fixes": [asdict(fix) for sample in samples for fix in sample.fixes],
            "embedding": embedding,
            "methods": methods,
            "leads": {"method": ours, "measure": LEAD_MEASURE, "over": over},
        }
        write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
