"""Tier scaling on Neo4j: shallow and deep recall, wake-up and re-tier as memories grow.

    python benchmarks/scale.py [--sizes 10000 100000 1000000] [--queries 40]
        [--out RESULT.json] [--plot scale.png]

Needs a running Neo4j: GRAPHMEM_NEO4J_URI and GRAPHMEM_NEO4J_PASSWORD (scripts/neo4j start). For
each size N it loads one owner, `scale-N`, with N synthetic memories (skipped when that owner
already has them, so sizes can be added across runs): random unit embeddings of 384 dimensions,
texts of eight words drawn from a 5,000-word vocabulary, each memory RELATED to three earlier
ones (mean degree 6, weights 0.1-1), attention and tiers as the tier policy puts them (1,000,
10,000 and 100,000 memories in tiers 0-2, the rest in tier 3). Query embeddings are random
too, so the figures are the store's and the scoring's, not the embedder's.

Measured per size: shallow recall (motivation 0: tier 0 only), deep recall (motivation 10:
every tier), both in peek mode; the wake-up step of the ten memories a shallow recall returns;
and one re-tier a week later (memories examined per second). Recall p50/p95 over --queries
queries (deep recall over at most 5 at sizes above 100,000: it scans every memory).
"""

import argparse
import hashlib
import json
import os
import statistics
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import SecretStr

from graphmem.embedding import Purpose
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.memory import GraphMem
from graphmem.model import Attention, Link, LinkType, Memory, MemoryKind, Node, Tier, Turn
from graphmem.retrieval import RecallPolicy
from graphmem.store.base import OwnerGraph
from graphmem.store.neo4j import Neo4jStore

DIMENSIONS = 384
BATCH = 2_000
VOCABULARY = [f"w{number:04d}" for number in range(5_000)]
LOADED_AT = datetime(2026, 1, 1, tzinfo=UTC)


class RandomEmbedder:
    """Unit vectors drawn from a seed made of the text: the same text, the same vector."""

    name = "random-384"
    dimensions = DIMENSIONS

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[list[float]]:
        """A random unit vector per text."""
        return [unit_vectors(1, _seed(text))[0] for text in texts]

    def close(self) -> None:
        """Nothing to release."""


def _seed(text: str) -> int:
    """A stable seed from a text."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def unit_vectors(count: int, seed: int) -> list[list[float]]:
    """`count` random unit vectors."""
    vectors = np.random.default_rng(seed).standard_normal((count, DIMENSIONS))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32).tolist()  # type: ignore[no-any-return]


def tier_and_level(index: int, tiers: TierPolicy, rng: np.random.Generator) -> tuple[Tier, float]:
    """The tier of the index-th memory (hottest first) and a long-term attention that fits it."""
    bounds = np.cumsum(tiers.capacities)
    tier = Tier(int(np.searchsorted(bounds, index, side="right")))
    floors = [10.0, *tiers.floors, 0.1]
    return tier, float(rng.uniform(floors[tier + 1], floors[tier]))


def load(store: Neo4jStore, owner: str, size: int, tiers: TierPolicy) -> float:
    """Load `size` synthetic memories for an owner; return the seconds it took."""
    started = time.perf_counter()
    rng = np.random.default_rng(size)
    for start in range(0, size, BATCH):
        count = min(BATCH, size - start)
        vectors = unit_vectors(count, size * 1_000 + start)
        nodes: list[Node] = []
        links: list[tuple[str, str, Link]] = []
        for offset in range(count):
            index = start + offset
            text = " ".join(rng.choice(VOCABULARY, 8))
            at = LOADED_AT - timedelta(minutes=size - index)
            turn = Turn(id=f"t{index}", owner=owner, text=text, created_at=at)
            tier, level = tier_and_level(index, tiers, rng)
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
                embedding=vectors[offset],
                accessed_at=at,
            )
            nodes += [turn, memory]
            links.append(
                ("Memory", "Turn", Link(type=LinkType.FROM, source=memory.id, target=turn.id))
            )
            for target in rng.integers(0, index, size=min(3, index)):
                related = Link(
                    type=LinkType.RELATED,
                    source=memory.id,
                    target=f"m{target}",
                    weight=round(float(rng.uniform(0.1, 1.0)), 3),
                )
                links.append(("Memory", "Memory", related))
        store.load(owner, OwnerGraph(nodes=nodes, links=links))
        print(f"  loaded {start + count:,} of {size:,}", flush=True)
    return time.perf_counter() - started


def percentiles(seconds: list[float]) -> dict[str, float]:
    """p50 and p95 in milliseconds."""
    cuts = statistics.quantiles(seconds, n=20, method="inclusive")
    return {
        "p50_ms": round(1000 * statistics.median(seconds), 2),
        "p95_ms": round(1000 * cuts[18], 2),
    }


def measure(
    memory: GraphMem, store: Neo4jStore, owner: str, size: int, queries: int
) -> dict[str, Any]:
    """Recall, wake-up and re-tier timings for one owner."""
    rng = np.random.default_rng(7)
    texts = [" ".join(rng.choice(VOCABULARY, 3)) for _ in range(queries)]
    now = LOADED_AT + timedelta(hours=1)
    shallow, deep, wake = [], [], []
    for text in texts:
        started = time.perf_counter()
        found = memory.recall(owner, text, k=10, motivation=0, peek=True, at=now)
        shallow.append(time.perf_counter() - started)
        ids = [item.memory.id for item in found.memories]
        started = time.perf_counter()
        store.wake(owner, ids, now, AttentionPolicy(), TierPolicy())
        wake.append(time.perf_counter() - started)
    for text in texts[: 5 if size > 100_000 else queries]:
        started = time.perf_counter()
        memory.recall(owner, text, k=10, motivation=10, peek=True, at=now)
        deep.append(time.perf_counter() - started)
    examined = min(size, sum(TierPolicy().capacities)) + queries * 10
    started = time.perf_counter()
    moves = memory.retier(owner, at=LOADED_AT + timedelta(days=7))
    retier_seconds = time.perf_counter() - started
    return {
        "shallow_recall": percentiles(shallow),
        "deep_recall": percentiles(deep) if len(deep) > 1 else {"p50_ms": 1000 * deep[0]},
        "wake": percentiles(wake),
        "retier": {
            "seconds": round(retier_seconds, 2),
            "memories_per_second": round(examined / retier_seconds),
            "moves": moves,
        },
    }


def plot(results: dict[str, Any], path: Path) -> None:
    """Draw p50 and p95 of each measurement against the number of memories."""
    import matplotlib  # noqa: PLC0415 (an optional extra: pip install '.[bench]')

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    sizes = sorted(int(size) for size in results)
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
    axes.set_title("graphmem on Neo4j 5.26: cost as memories grow")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main() -> None:
    """Load each size if needed, measure, print a table, write JSON and a plot."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--plot", type=Path)
    arguments = parser.parse_args()
    store = Neo4jStore.connect(
        os.environ.get("GRAPHMEM_NEO4J_URI", "bolt://127.0.0.1:7687"),
        os.environ.get("GRAPHMEM_NEO4J_USER", "neo4j"),
        SecretStr(os.environ["GRAPHMEM_NEO4J_PASSWORD"]),
        os.environ.get("GRAPHMEM_NEO4J_DATABASE", "neo4j"),
    )
    store.prepare(DIMENSIONS)
    memory = GraphMem(store, RandomEmbedder(), recall_policy=RecallPolicy(rethinks=0))
    results: dict[str, Any] = (
        json.loads(arguments.out.read_text()) if arguments.out and arguments.out.exists() else {}
    )
    for size in arguments.sizes:
        owner = f"scale-{size}"
        present = store.count_graph(owner).nodes["Memory"]
        print(f"{size:,} memories ({present:,} present)", flush=True)
        seconds = load(store, owner, size, TierPolicy()) if present < size else None
        results[str(size)] = {**measure(memory, store, owner, size, arguments.queries)}
        if seconds is not None:
            results[str(size)]["load_seconds"] = round(seconds, 1)
        if arguments.out:
            arguments.out.write_text(json.dumps(results, indent=2) + "\n")
    memory.close()
    print("| memories | shallow p50 / p95 | deep p50 / p95 | wake p50 / p95 | re-tier /s |")
    print("|---|---|---|---|---|")
    for size in sorted(results, key=int):
        row = results[size]
        shallow, deep, wake = row["shallow_recall"], row["deep_recall"], row["wake"]
        print(
            f"| {int(size):,} | {shallow['p50_ms']} / {shallow['p95_ms']} ms"
            f" | {deep['p50_ms']} / {deep.get('p95_ms', '-')} ms"
            f" | {wake['p50_ms']} / {wake['p95_ms']} ms"
            f" | {row['retier']['memories_per_second']:,} |"
        )
    if arguments.plot:
        plot(results, arguments.plot)


if __name__ == "__main__":
    main()
