"""Ingestion throughput: turn by turn (`observe`) against batches (`observe_many`), one store.

    python benchmarks/ingestion.py [--store networkx|neo4j] [--data LOCOMO.json]
        [--out RESULT.json (default benchmarks/ingestion-STORE.json)]

Two workloads: the LoCoMo dev conversations (../shared/data/locomo/locomo_dev.json, one owner
each) and the sleep benchmark's 1,000-turn month (benchmarks/sleep.py, one owner, a session a
day). Each is ingested with the offline cognition as a live agent would (`observe`, one turn a
call) and as an import (`observe_many`, a whole conversation a call), each run under fresh
owners (on the embedded store in an empty file of its own) with graphmem's caches of per-text
work emptied:
- warm: every text's embedding is already in the embedder's cache (a first, unmeasured run
  fills .cache/ingestion-embeddings.sqlite, which later runs keep), so the figure is
  graphmem's own work: the store, the cognition, the mechanisms;
- cold (import only): an empty cache, so e5 computes every embedding on these cores, shown
  with the seconds it spent in e5, beside e5's own rate in batches of 64 on the workload's turn
  texts and on every text the cold import embedded (turns, statements, summaries, event news):
  the graph work must not be the bottleneck.
Turns per second count the workload's turns; the summaries, impressions and conjectures that
ingestion makes on the way are part of the work timed. Beside them, the store's write
transactions and Cypher statements per turn (GraphMem.store_traffic). Neo4j needs
GRAPHMEM_NEO4J_URI and GRAPHMEM_NEO4J_PASSWORD (scripts/neo4j start).
"""

import argparse
import gc
import secrets
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from datetime import timedelta
from pathlib import Path
from typing import Any

from locomo import load, turn_item
from provenance import write_result
from sleep import START, conversation

from graphmem import terms
from graphmem.cognition import offline
from graphmem.config import Settings
from graphmem.embedding import E5Embedder, Purpose
from graphmem.memory import OBSERVE_CHUNK, GraphMem

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "ingestion-embeddings.sqlite"
"""The warm runs' embeddings, kept from one run to the next (the cold runs start empty)."""
Item = dict[str, Any]
"""One turn as `observe_many` takes it."""


def locomo_workload(path: Path) -> list[list[Item]]:
    """The LoCoMo conversations' turns, one list a conversation, sessions in order."""
    return [[turn_item(turn) for turn in sample.conversation.turns] for sample in load(path)]


def month_workload() -> list[list[Item]]:
    """The sleep benchmark's month as one conversation: 1,000 turns, a session a day."""
    return [
        [
            {
                "text": text,
                "message_id": f"d{day}-{number}",
                "at": START + timedelta(days=day, minutes=25 * number),
                "session": f"day {day + 1}",
            }
            for day, texts in enumerate(conversation(30, 1000, 7))
            for number, text in enumerate(texts)
        ]
    ]


def one_by_one(memory: GraphMem, owner: str, items: list[Item]) -> None:
    """Observe a conversation as a live agent does: one turn a call."""
    for item in items:
        memory.observe(
            owner,
            item["text"],
            message_id=item["message_id"],
            at=item["at"],
            speaker=item.get("speaker", "user"),
            session=item["session"],
        )


def as_import(memory: GraphMem, owner: str, items: list[Item]) -> None:
    """Observe a conversation as an import does: the whole of it in one call."""
    memory.observe_many(owner, items)


def timed(
    memory: GraphMem,
    workload: list[list[Item]],
    ingest: Callable[[GraphMem, str, list[Item]], None],
) -> dict[str, float]:
    """Ingest every conversation of a workload under fresh owners; turns and seconds.

    The caches of work done per text (terms, words, salience, mood) are emptied first: a run
    sees the texts as new, as an import of a history does, not as the run before left them. The
    garbage the runs before left (their closed stores) is collected before the clock starts, so
    that a run does not pay for theirs.
    """
    for cached in (terms.terms, terms.words, offline.salience, offline.mood):
        cached.cache_clear()
    gc.collect()
    turns = sum(len(items) for items in workload)
    before = memory.store_traffic
    started = time.perf_counter()
    for items in workload:
        ingest(memory, f"ingest-{secrets.token_hex(6)}", items)
    seconds = time.perf_counter() - started
    after = memory.store_traffic
    return {
        "turns": turns,
        "seconds": round(seconds, 2),
        "turns_per_second": round(turns / seconds),
        "transactions_per_turn": round((after.transactions - before.transactions) / turns, 3),
        "statements_per_turn": round((after.statements - before.statements) / turns, 3),
    }


class TimedE5(E5Embedder):
    """e5, noting every text it embeds as a passage and the seconds it spends."""

    def __init__(self) -> None:
        super().__init__()
        self.passages: list[str] = []
        self.seconds = 0.0

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[list[float]]:
        """Embed with e5, timed."""
        started = time.perf_counter()
        vectors = super().embed(texts, purpose)
        self.seconds += time.perf_counter() - started
        if purpose == "passage":
            self.passages += texts
        return vectors


def e5_rate(turns: int, texts: list[str]) -> dict[str, float]:
    """e5's own rate on some texts, embedded in batches of OBSERVE_CHUNK, per workload turn."""
    embedder = E5Embedder()
    embedder.embed(texts[:8], "passage")  # loads the model
    started = time.perf_counter()
    for start in range(0, len(texts), OBSERVE_CHUNK):
        embedder.embed(texts[start : start + OBSERVE_CHUNK], "passage")
    seconds = time.perf_counter() - started
    return {
        "turns": turns,
        "texts": len(texts),
        "characters": sum(map(len, texts)),
        "seconds": round(seconds, 2),
        "turns_per_second": round(turns / seconds),
    }


def opened(store: str, folder: Path, e5: E5Embedder, cache: Path) -> GraphMem:
    """A GraphMem on the chosen store, offline, with this e5 through a cache file."""
    settings = Settings.from_env(
        store=store, cognition="offline", embedding_cache=cache, path=folder / "graph.json"
    )
    return GraphMem.open(settings, embedder=e5)


def measure(store: str, name: str, workload: list[list[Item]]) -> dict[str, Any]:
    """The warm and cold figures of one workload on one store, each run on a store of its own.

    On the embedded store each run starts from an empty file, so no run pays for a snapshot of
    what an earlier one stored (a snapshot every 1,000 writes rewrites the whole file); on
    Neo4j the runs share the server, under fresh owners.
    """
    CACHE.parent.mkdir(exist_ok=True)

    def run(
        ingest: Callable[[GraphMem, str, list[Item]], None], e5: E5Embedder, cache: Path | None
    ) -> dict[str, float]:
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            with closing(opened(store, folder, e5, cache or folder / "cold.sqlite")) as memory:
                return timed(memory, workload, ingest)

    run(as_import, E5Embedder(), CACHE)  # fills the cache (once): every text embedded
    warm_observe = run(one_by_one, E5Embedder(), CACHE)
    warm_import = run(as_import, E5Embedder(), CACHE)
    timed_e5 = TimedE5()
    cold = run(as_import, timed_e5, None)
    cold["seconds_in_e5"] = round(timed_e5.seconds, 2)
    turns = [item["text"] for items in workload for item in items]
    figures = {
        "warm: observe (turn by turn)": warm_observe,
        "warm: observe_many (import)": warm_import,
        "cold: observe_many with e5": cold,
        "e5 alone, batches of 64: turn texts": e5_rate(len(turns), turns),
        "e5 alone, batches of 64: every text embedded": e5_rate(len(turns), timed_e5.passages),
    }
    for method, result in figures.items():
        traffic = (
            f" {result['transactions_per_turn']:6.3f} transactions"
            f" {result['statements_per_turn']:6.3f} statements a turn"
            if "transactions_per_turn" in result
            else f" {result['texts']:6} texts {result['characters']:8} characters"
        )
        if "seconds_in_e5" in result:
            traffic += f" ({result['seconds_in_e5']:.2f} s in e5)"
        print(
            f"{store:8} {name:7} {method:45} {result['turns']:6} turns"
            f" {result['seconds']:8.2f} s {result['turns_per_second']:7} turns/s{traffic}",
            flush=True,
        )
    return figures


def main() -> None:
    """Measure both workloads on one store; print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=["networkx", "neo4j"], default="networkx")
    parser.add_argument(
        "--data", type=Path, default=ROOT.parent / "shared/data/locomo/locomo_dev.json"
    )
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    out = arguments.out or ROOT / "benchmarks" / f"ingestion-{arguments.store}.json"
    results = {
        "store": arguments.store,
        "chunk": OBSERVE_CHUNK,
        "workloads": {
            "locomo": measure(arguments.store, "locomo", locomo_workload(arguments.data)),
            "month": measure(arguments.store, "month", month_workload()),
        },
    }
    write_result(out, results, [arguments.data])


if __name__ == "__main__":
    main()
