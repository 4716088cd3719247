"""Tier scaling on Neo4j: shallow and deep recall, wake-up and re-tier as memories grow.

    python benchmarks/scale.py [--sizes 10000 100000 1000000] [--owners 1] [--queries 40]
        [--out RESULT.json] [--plot scale.png] [--neo4j-home HOME]

Needs a running Neo4j: GRAPHMEM_NEO4J_URI and GRAPHMEM_NEO4J_PASSWORD (scripts/neo4j start). For
each size N it loads N synthetic memories spread over --owners owners, `scale-N` for one owner,
`scale-N-of-K-i` for K (memory j goes to owner j mod K; skipped when the owners already have
them, so sizes can be added across runs): texts of eight words drawn from a 5,000-word
vocabulary, embedded in 384 dimensions as the normalised sum of a random direction per word
plus noise (`WordsEmbedder`: texts sharing words are near, as with a real embedder; random
vectors would leave every memory about equally far from every query), each memory RELATED to
three earlier ones of its owner (mean degree 6, weights 0.1-1), attention and tiers as the
tier policy puts them in each owner (1,000, 10,000 and 100,000 memories in tiers 0-2, the rest
in tier 3). Queries are three random words embedded the same way, so the figures are the
store's and the scoring's, not an embedding model's.

Measured per size, over --queries queries spread over up to 10 owners: shallow recall
(motivation 0: tier 0 only), deep recall (motivation 10: every tier), both in peek mode; the
vector index's recall@20 in a deep search against an exact top 20 computed with numpy from the
same generated embeddings; the wake-up step of the ten memories a shallow recall returns; and
one re-tier of the first owner a week later (memories examined per second); and the Cypher
statements a recall sends. An --out that exists keeps the sizes this run does not measure, and
the load time of a size this run found loaded; its provenance becomes this run's. To measure
every size on a server that has loaded them all, run the same command twice.

With --neo4j-home (the folder of the launcher's server, scripts/neo4j) the server is stopped at
the end, so that its files are flushed, and the database's size on disk is recorded (`on_disk`):
its store files, each kind of index, its transaction logs, and the bytes a memory, for a
database that holds this run's sizes and nothing else (a fresh home). The texts are eight
synthetic words: the store files and fulltext indexes of real memories, whose texts are longer,
are larger; the vector index is not.
"""

import argparse
import json
import os
import statistics
import subprocess
import time
import zlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from provenance import write_result
from pydantic import SecretStr

from graphmem.contract import OwnerGraph
from graphmem.embedding import Purpose
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.memory import GraphMem
from graphmem.model import Attention, Link, LinkType, Memory, MemoryKind, Tier, Turn
from graphmem.scoring import RecallPolicy
from graphmem.store.neo4j import Neo4jStore

DIMENSIONS = 384
BATCH = 2_000
VOCABULARY = [f"w{number:04d}" for number in range(5_000)]
LOADED_AT = datetime(2026, 1, 1, tzinfo=UTC)
MB = 1024 * 1024
ROOT = Path(__file__).resolve().parent.parent


WORD_VECTORS = np.random.default_rng(2026).standard_normal((len(VOCABULARY), DIMENSIONS))
"""A random direction per word: a text's embedding is the sum of its words' (bag of words)."""

WORD_INDEX = {word: number for number, word in enumerate(VOCABULARY)}


def word_number(word: str) -> int:
    """A word's row in WORD_VECTORS: its own in the vocabulary, else the one its CRC-32 picks."""
    return WORD_INDEX.get(word, zlib.crc32(word.encode()) % len(VOCABULARY))


class WordsEmbedder:
    """Embeds a text as the normalised sum of its words' random directions (a bag of words).

    Texts sharing words are near each other, as with a real embedder; a random vector per text
    would make every memory almost equally far from every query.
    """

    name = "words-384"
    dimensions = DIMENSIONS

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[list[float]]:
        """The normalised sum of each text's word vectors.

        A word outside the vocabulary (recall's everyday sentences, graphmem.confidence) takes
        the vector of the vocabulary word its CRC-32 picks.
        """
        sums = np.array(
            [
                WORD_VECTORS[[word_number(word) for word in text.split()]].sum(axis=0)
                for text in texts
            ]
        )
        units = (sums / np.linalg.norm(sums, axis=1, keepdims=True)).astype(np.float32)
        return units.tolist()  # type: ignore[no-any-return]

    def close(self) -> None:
        """Nothing to release."""


def embed_words(words: np.ndarray, noise: np.ndarray | None) -> np.ndarray:
    """Unit vectors: each row of word numbers' vectors summed, plus `noise` (a row each)."""
    vectors = WORD_VECTORS[words].sum(axis=1)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    if noise is not None:
        vectors += noise
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32)  # type: ignore[no-any-return]


def batch_texts(size: int, start: int, batch: int) -> tuple[list[str], np.ndarray]:
    """The texts of a load batch (eight words each) and their memories' embeddings."""
    count = min(batch, size - start)
    rng = np.random.default_rng(size * 1_000 + start)
    words = rng.integers(0, len(VOCABULARY), (count, 8))
    noise = 0.5 * rng.standard_normal((count, DIMENSIONS)) / np.sqrt(DIMENSIONS)
    return [" ".join(VOCABULARY[number] for number in row) for row in words], embed_words(
        words, noise
    )


def tier_and_level(index: int, tiers: TierPolicy, rng: np.random.Generator) -> tuple[Tier, float]:
    """The tier of the index-th memory (hottest first) and a long-term attention that fits it."""
    bounds = np.cumsum(tiers.capacities)
    tier = Tier(int(np.searchsorted(bounds, index, side="right")))
    floors = [10.0, *tiers.floors, 0.1]
    return tier, float(rng.uniform(floors[tier + 1], floors[tier]))


def owner_names(size: int, owners: int) -> list[str]:
    """The owners that hold a size's memories."""
    if owners == 1:
        return [f"scale-{size}"]
    return [f"scale-{size}-of-{owners}-{number}" for number in range(owners)]


def batch_size(owners: int) -> int:
    """Memories a load batch generates: BATCH, or 200 an owner when that is more."""
    return max(BATCH, 200 * owners)


def embeddings(size: int, owners: int) -> np.ndarray:
    """Every memory's embedding of a size, in load order (as `load` generates them)."""
    batch = batch_size(owners)
    return np.concatenate([batch_texts(size, start, batch)[1] for start in range(0, size, batch)])


def load(store: Neo4jStore, owners: list[str], size: int, tiers: TierPolicy, present: int) -> float:
    """Load `size` synthetic memories over the owners; return the seconds it took.

    Starts at the first batch that the `present` memories do not complete: each batch is
    generated from a seed of its own, so an interrupted load resumes where it stopped.
    """
    started = time.perf_counter()
    batch = batch_size(len(owners))
    for start in range(present // batch * batch, size, batch):
        count = min(batch, size - start)
        rng = np.random.default_rng([size, start])
        texts, vectors = batch_texts(size, start, batch)
        graphs = {owner: OwnerGraph(nodes=[], links=[]) for owner in owners}
        for offset in range(count):
            index = start + offset
            owner, rank = owners[index % len(owners)], index // len(owners)
            nodes, links = graphs[owner].nodes, graphs[owner].links
            text = texts[offset]
            at = LOADED_AT - timedelta(minutes=size - index)
            turn = Turn(id=f"t{index}", owner=owner, text=text, created_at=at)
            tier, level = tier_and_level(rank, tiers, rng)
            memory = Memory(
                id=f"m{index}",
                owner=owner,
                text=text,
                created_at=at,
                kind=MemoryKind.OBSERVATION,
                importance=min(level, 10.0),
                attention=Attention(
                    long_term=level, long_term_at=LOADED_AT, short_term=0.0, short_term_at=at
                ),
                tier=tier,
                embedding=vectors[offset].tolist(),
                accessed_at=at,
            )
            nodes += [turn, memory]
            links.append(
                ("Memory", "Turn", Link(type=LinkType.FROM, source=memory.id, target=turn.id))
            )
            for target in rng.integers(0, rank, size=min(3, rank)):
                related = Link(
                    type=LinkType.RELATED,
                    source=memory.id,
                    target=f"m{target * len(owners) + index % len(owners)}",
                    weight=round(float(rng.uniform(0.1, 1.0)), 3),
                )
                links.append(("Memory", "Memory", related))
        for owner, graph in graphs.items():
            if graph.nodes:
                store.load(owner, graph)
        seconds = time.perf_counter() - started
        rate = (start + count - present // batch * batch) / seconds
        print(
            f"  loaded {start + count:,} of {size:,} ({rate:,.0f}/s)",
            flush=True,
        )
    return time.perf_counter() - started


def percentiles(seconds: list[float]) -> dict[str, float]:
    """p50 and p95 in milliseconds."""
    cuts = statistics.quantiles(seconds, n=20, method="inclusive")
    return {
        "p50_ms": round(1000 * statistics.median(seconds), 2),
        "p95_ms": round(1000 * cuts[18], 2),
    }


def index_recall(
    store: Neo4jStore, owners: list[str], size: int, queries: int, depth: int = 20
) -> float:
    """Mean share of the exact top `depth` (numpy, every tier) that a deep search finds."""
    vectors = embeddings(size, len(owners))
    rng = np.random.default_rng(11)
    shares = []
    for number in range(queries):
        owner = owners[number % min(10, len(owners))]
        mine = np.arange(owners.index(owner), size, len(owners))
        query = embed_words(rng.integers(0, len(VOCABULARY), (1, 3)), noise=None)[0]
        exact = mine[np.argsort(-(vectors[mine] @ query), kind="stable")[:depth]]
        found = store.find_similar_memories(owner, query.tolist(), depth, Tier.DEEP)
        found_ids = {item.memory.id for item in found}
        shares.append(len({f"m{index}" for index in exact} & found_ids) / len(exact))
    return round(sum(shares) / queries, 4)


def measure(
    memory: GraphMem, store: Neo4jStore, owners: list[str], size: int, queries: int
) -> dict[str, Any]:
    """Recall, wake-up and re-tier timings over up to ten of the owners."""
    rng = np.random.default_rng(7)
    asked = [
        (owners[number % min(10, len(owners))], " ".join(rng.choice(VOCABULARY, 3)))
        for number in range(queries)
    ]
    now = LOADED_AT + timedelta(hours=1)
    recall_at_20 = index_recall(store, owners, size, queries)
    shallow, deep, wake = [], [], []
    sent = memory.store_traffic.statements
    for owner, text in asked:
        started = time.perf_counter()
        memory.recall(owner, text, k=10, motivation=10, peek=True, at=now)
        deep.append(time.perf_counter() - started)
    deep_statements = memory.store_traffic.statements - sent
    shallow_statements = 0
    for owner, text in asked:
        started = time.perf_counter()
        sent = memory.store_traffic.statements
        found = memory.recall(owner, text, k=10, motivation=0, peek=True, at=now)
        shallow.append(time.perf_counter() - started)
        shallow_statements += memory.store_traffic.statements - sent
        ids = [item.memory.id for item in found.memories]
        started = time.perf_counter()
        store.wake(owner, ids, now, AttentionPolicy(), TierPolicy())
        wake.append(time.perf_counter() - started)
    per_owner = size // len(owners)
    examined = min(per_owner, sum(TierPolicy().capacities)) + queries * 10
    started = time.perf_counter()
    moves = memory.retier(owners[0], at=LOADED_AT + timedelta(days=7))
    retier_seconds = time.perf_counter() - started
    return {
        "owners": len(owners),
        "index_recall_at_20": recall_at_20,
        "shallow_recall": {
            **percentiles(shallow),
            "statements": round(shallow_statements / queries, 1),
        },
        "deep_recall": {**percentiles(deep), "statements": round(deep_statements / queries, 1)},
        "wake": percentiles(wake),
        "retier": {
            "seconds": round(retier_seconds, 2),
            "memories_per_second": round(examined / retier_seconds),
            "moves": moves,
        },
    }


def folder_bytes(folder: Path) -> int:
    """The bytes of the files under a folder."""
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def on_disk(home: Path, database: str, memories: int) -> dict[str, Any]:
    """Stop the launcher's Neo4j in `home` (its files then flushed) and read their sizes in MB.

    The database's store files and each kind of index (the folders of schema/index, one an index
    provider: vector, fulltext, range, token-lookup), its transaction logs, and the bytes a
    memory of the `memories` the database holds.
    """
    subprocess.run(  # noqa: S603 (the project's own script)
        [str(ROOT / "scripts" / "neo4j"), "stop"],
        env={**os.environ, "GRAPHMEM_NEO4J_HOME": str(home)},
        check=True,
    )
    stored = home / "data" / "databases" / database
    indexes = {
        kind.name.rsplit("-", 1)[0]: folder_bytes(kind)
        for kind in sorted((stored / "schema" / "index").iterdir())
    }
    total = folder_bytes(stored)
    return {
        "memories_in_database": memories,
        "database_mb": round(total / MB, 1),
        "indexes_mb": {kind: round(size / MB, 1) for kind, size in indexes.items()},
        "store_files_mb": round((total - sum(indexes.values())) / MB, 1),
        "transaction_logs_mb": round(
            folder_bytes(home / "data" / "transactions" / database) / MB, 1
        ),
        "bytes_a_memory": {
            "database": round(total / memories),
            **{kind: round(size / memories) for kind, size in indexes.items()},
        },
    }


def plot(results: dict[str, Any], path: Path) -> None:
    """Draw p50 and p95 of each measurement against the number of memories."""
    import matplotlib  # noqa: PLC0415 (an optional extra: pip install '.[bench]')

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    sizes = sorted(int(size) for size in results if size.isdigit())
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for name, colour in [("shallow_recall", "C0"), ("wake", "C2"), ("deep_recall", "C3")]:
        for cut, style in [("p50_ms", "-o"), ("p95_ms", "--")]:
            values = [results[str(size)][name].get(cut) for size in sizes]
            if None not in values:
                axes.plot(sizes, values, style, color=colour, label=f"{name} {cut[:3]}")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("memories of one owner")
    axes.set_ylabel("milliseconds")
    axes.set_title("graphmem on Neo4j 2026.08: cost as memories grow")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main() -> None:
    """Load each size if needed, measure, print a table, write JSON and a plot."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--owners", type=int, default=1)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--plot", type=Path)
    parser.add_argument(
        "--neo4j-home",
        type=Path,
        help="the launcher's folder (scripts/neo4j) of the server measured: stop it at the end"
        " and record the database's size on disk",
    )
    arguments = parser.parse_args()
    store = Neo4jStore.connect(
        os.environ.get("GRAPHMEM_NEO4J_URI", "bolt://127.0.0.1:7687"),
        os.environ.get("GRAPHMEM_NEO4J_USER", "neo4j"),
        SecretStr(os.environ["GRAPHMEM_NEO4J_PASSWORD"]),
        os.environ.get("GRAPHMEM_NEO4J_DATABASE", "neo4j"),
    )
    store.prepare(DIMENSIONS)
    memory = GraphMem(store, WordsEmbedder(), recall_policy=RecallPolicy(rethinks=0))
    results: dict[str, Any] = (
        json.loads(arguments.out.read_text()) if arguments.out and arguments.out.exists() else {}
    )
    results.pop("provenance", None)  # the earlier run's: the JSON gets this run's
    results.pop("on_disk", None)  # the earlier run's database, which this run may have grown
    for size in arguments.sizes:
        owners = owner_names(size, arguments.owners)
        present = store.count_graph(owners[-1]).nodes.get("Memory", 0) * len(owners)
        print(f"{size:,} memories over {len(owners):,} owners ({present:,} present)", flush=True)
        seconds = load(store, owners, size, TierPolicy(), present) if present < size else None
        loaded = {"load_seconds": round(seconds, 1)} if seconds is not None else {}
        if not loaded and "load_seconds" in results.get(str(size), {}):
            loaded = {"load_seconds": results[str(size)]["load_seconds"]}  # an earlier run's
        results[str(size)] = {**measure(memory, store, owners, size, arguments.queries), **loaded}
        if arguments.out:
            write_result(arguments.out, results)
    memory.close()
    if arguments.neo4j_home:
        database = os.environ.get("GRAPHMEM_NEO4J_DATABASE", "neo4j")
        results["on_disk"] = on_disk(arguments.neo4j_home, database, sum(arguments.sizes))
        print(json.dumps(results["on_disk"], indent=1))
        if arguments.out:
            write_result(arguments.out, results)
    print(
        "| memories | owners | index recall@20 | shallow p50 / p95 | deep p50 / p95 |"
        " wake p50 / p95 | re-tier /s |"
    )
    print("|---|---|---|---|---|---|---|")
    for size in sorted(filter(str.isdigit, results), key=int):
        row = results[size]
        shallow, deep, wake = row["shallow_recall"], row["deep_recall"], row["wake"]
        print(
            f"| {int(size):,} | {row.get('owners', 1):,} | {row.get('index_recall_at_20', '-')}"
            f" | {shallow['p50_ms']} / {shallow['p95_ms']} ms"
            f" | {deep['p50_ms']} / {deep.get('p95_ms', '-')} ms"
            f" | {wake['p50_ms']} / {wake['p95_ms']} ms"
            f" | {row['retier']['memories_per_second']:,} |"
        )
    if arguments.plot:
        plot(results, arguments.plot)


if __name__ == "__main__":
    main()
