"""The fastest a Neo4j server here stores turns with their memories: a floor under ingestion.

    python benchmarks/write_ceiling.py [--rows 2000] [--batches 5] [--out RESULT.json]

Needs a running Neo4j with graphmem's schema (any graphmem use creates it): GRAPHMEM_NEO4J_URI
and GRAPHMEM_NEO4J_PASSWORD (scripts/neo4j start). Each batch is one transaction of one UNWIND
that CREATEs, per row, a turn and a memory of 384 random unit floats FROM it, under a fresh
owner (deleted afterwards): less than any ingestion does (no MERGE, no search, no other edge,
no summary). Once with the memories labelled Memory, so that graphmem's vector index (owner and
tier as filter properties, unquantized) and fulltext index take them, once under a label that no
index covers. Rows per second are turns per second; the first batch warms the server and is
left out of the median.
"""

import argparse
import os
import secrets
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from neo4j import GraphDatabase
from provenance import write_result

DIMENSIONS = 384
STATEMENT = """
UNWIND $rows AS row
CREATE (t:Turn {owner: $owner, id: row.id, text: row.text, session: 's', position: row.position})
CREATE (m:%s {owner: $owner, id: row.id, text: row.text, tier: 0, importance: 5.0,
              embedding: row.embedding})
CREATE (m)-[:FROM]->(t)
"""
LABELS = {"indexed (Memory)": "Memory", "not indexed": "CeilingMemory"}
"""The statement's memory label, fixed here (never input): Cypher cannot take a label as a
parameter in CREATE."""


def batch_rate(session: Any, label: str, rows: int, generator: np.random.Generator) -> float:
    """Turns per second of one transaction storing `rows` turns with their memories."""
    owner = f"ceiling-{secrets.token_hex(6)}"
    vectors = generator.standard_normal((rows, DIMENSIONS))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    data = [
        {
            "id": f"t{index}",
            "position": index,
            "text": f"turn {index} of a conversation about work, travel and family",
            "embedding": vectors[index].tolist(),
        }
        for index in range(rows)
    ]
    statement = STATEMENT % label
    started = time.perf_counter()
    session.execute_write(lambda tx: tx.run(statement, owner=owner, rows=data).consume())
    seconds = time.perf_counter() - started
    session.run("MATCH (n {owner: $owner}) DETACH DELETE n", owner=owner).consume()
    return rows / seconds


def main() -> None:
    """Measure both labels; print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/write-ceiling.json"))
    arguments = parser.parse_args()
    generator = np.random.default_rng(2026)
    auth = ("neo4j", os.environ["GRAPHMEM_NEO4J_PASSWORD"])
    results: dict[str, Any] = {"rows_per_transaction": arguments.rows}
    driver = GraphDatabase.driver(os.environ["GRAPHMEM_NEO4J_URI"], auth=auth)
    with driver, driver.session() as session:
        for name, label in LABELS.items():
            rates = [
                batch_rate(session, label, arguments.rows, generator)
                for _ in range(arguments.batches)
            ]
            median = statistics.median(rates[1:])
            results[name] = {"turns_per_second": round(median), "batches": rates}
            print(f"{name:18} {median:7.0f} turns/s (median of {len(rates) - 1})", flush=True)
    write_result(arguments.out, results)


if __name__ == "__main__":
    main()
