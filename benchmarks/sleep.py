"""The sleep job over a simulated month: 1,000 turns in 30 daily sessions, a job every night.

    python benchmarks/sleep.py [--store networkx|neo4j] [--days 30] [--turns 1000]
        [--seed 7] [--out RESULT.json (default benchmarks/sleep-STORE.json)]

The conversation is generated from templates with a seeded random generator: mostly small talk,
with storylines woven in (a cold in the first week and another in the fourth, a worried stretch
before exams, a Disneyland trip over four days and a second trip at the end, a work project,
a kind act every few days, a few facts repeated). Turns are observed in order with their
simulated times (offline cognition); at 23:00 each day `consolidate` runs for the owner. The
script prints and writes: ingestion and job wall time, model calls by task for each, and the
graph at the end (summaries, events, merges, contradictions, conjectures, impressions).
Neo4j needs GRAPHMEM_NEO4J_URI and GRAPHMEM_NEO4J_PASSWORD (scripts/neo4j start).
"""

import argparse
import json
import random
import statistics
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from provenance import write_result

from graphmem.config import Settings
from graphmem.memory import GraphMem
from graphmem.model import Event, Impression, Memory

START = datetime(2026, 1, 5, 8, tzinfo=UTC)
SMALL_TALK = [
    "I had {food} for lunch with {person}.",
    "The weather is {weather} today, {person} says it will last.",
    "I watched a film about {thing} with {person} last night.",
    "I read an article about {thing} that {person} sent me.",
    "We cooked {food} for dinner, {person} brought {item2}.",
    "{person} called to talk about {thing}.",
    "I went for a walk in the {place} with {person}.",
    "I'm thinking of buying a new {item}, {person} has a good one.",
]
FILLS = {
    "food": ["noodles", "a salad", "dumplings", "pizza", "curry", "soup", "tacos"],
    "weather": ["sunny", "rainy", "windy", "grey", "chilly", "warm"],
    "thing": ["whales", "old castles", "space probes", "chess", "jazz", "bees", "volcanoes"],
    "place": ["park", "old town", "forest", "harbour"],
    "item": ["bicycle", "lamp", "backpack", "kettle", "phone"],
    "item2": ["bread", "wine", "a cake", "flowers", "cheese"],
    "person": ["Anna", "Ben", "my sister", "Carlos", "Mei", "my cousin", "Priya", "Tom"],
}
STORYLINES: dict[int, list[str]] = {
    2: ["My throat hurts.", "I have a runny nose and I keep sneezing."],
    3: ["I started having a fever.", "I stayed in bed all day with the flu."],
    4: ["I'm feeling better, the fever is gone."],
    6: ["I'm allergic to peanuts, so I check every label."],
    8: ["My boss gave me a new project with a deadline in two weeks."],
    10: ["I'm worried about my exams next month.", "I'm in a good mood today, though."],
    11: ["I can't sleep at night, I keep worrying about the exams."],
    12: ["I feel anxious and stressed all the time."],
    13: ["I'm allergic to peanuts!"],
    15: ["We arrived at Disneyland, the kids loved the castle."],
    16: ["Second day at Disneyland: we rode Space Mountain twice."],
    17: ["Third day at Disneyland, the parade was wonderful."],
    18: ["Last day at Disneyland, we flew home in the evening."],
    20: ["The project report for my boss is finally done."],
    23: ["My throat hurts again.", "I started having a fever again."],
    27: ["I'm in a good mood, the exams went well."],
    29: ["We booked another trip to Disneyland for the summer holiday."],
}
KIND_ACTS = [
    "I helped my neighbour carry her groceries upstairs.",
    "I volunteered at the food bank this weekend.",
    "I donated blood at the hospital.",
    "I helped a lost kid find his parents.",
    "I donated my old coats to the shelter.",
    "I helped a colleague finish his report.",
    "I volunteered for the beach clean-up.",
    "I helped an old man cross the busy road.",
]


def conversation(days: int, turns: int, seed: int) -> list[list[str]]:
    """The turns of each day: storylines and kind acts woven into small talk."""
    generator = random.Random(seed)  # noqa: S311 (a reproducible conversation, not a secret)
    per_day = [turns // days + (1 if day < turns % days else 0) for day in range(days)]
    result = []
    acts = iter(KIND_ACTS)
    for day, count in enumerate(per_day):
        special = list(STORYLINES.get(day, []))
        if day % 3 == 1:
            special.append(next(acts, generator.choice(KIND_ACTS)))
        talk = [
            generator.choice(SMALL_TALK).format(
                **{slot: generator.choice(words) for slot, words in FILLS.items()}
            )
            for _ in range(count - len(special))
        ]
        for text in special:
            talk.insert(generator.randrange(len(talk) + 1), text)
        result.append(talk)
    return result


def main() -> None:
    """Simulate the month, run the nightly jobs, print and write the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=["networkx", "neo4j"], default="networkx")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, help="default: benchmarks/sleep-STORE.json")
    arguments = parser.parse_args()
    out = arguments.out or Path(f"benchmarks/sleep-{arguments.store}.json")
    owner = f"sleep-{arguments.store}-{int(time.time())}"
    days = conversation(arguments.days, arguments.turns, arguments.seed)
    ingest_seconds = 0.0
    job_seconds: list[float] = []
    observe_calls: Counter[str] = Counter()
    job_calls: Counter[str] = Counter()
    jobs: Counter[str] = Counter()
    conjectures_at_once = 0
    with GraphMem.open(Settings.from_env(store=arguments.store)) as memory:
        for day, texts in enumerate(days):
            started = time.perf_counter()
            for number, text in enumerate(texts):
                at = START + timedelta(days=day, minutes=25 * number)
                observed = memory.observe(
                    owner, text, message_id=f"d{day}-{number}", at=at, session=f"day {day + 1}"
                )
                conjectures_at_once += len(observed.conjectures)
            ingest_seconds += time.perf_counter() - started
            report = memory.consolidate(owner, at=START + timedelta(days=day, hours=15))
            job_seconds.append(report.seconds)
            job_calls.update(report.model_calls)
            jobs.update(report.counts)
            print(
                f"day {day + 1:2}: {len(texts)} turns, job {report.seconds:.2f} s,"
                f" {sum(report.model_calls.values())} model calls, {report.counts}",
                flush=True,
            )
        observe_calls = memory.model_calls - job_calls
        graph = memory.export(owner)
    kinds = Counter(node.kind.value for node in graph.nodes if isinstance(node, Memory))
    links = Counter(link.type.value for _source, _target, link in graph.links)
    result = {
        "store": arguments.store,
        "days": arguments.days,
        "turns": sum(len(texts) for texts in days),
        "ingestion_seconds": round(ingest_seconds, 2),
        "turns_per_second": round(sum(len(texts) for texts in days) / ingest_seconds, 1),
        "job_seconds_total": round(sum(job_seconds), 2),
        "job_seconds_per_night": {
            "p50": round(statistics.median(job_seconds), 3),
            "max": round(max(job_seconds), 3),
        },
        "model_calls_observe": dict(sorted(observe_calls.items())),
        "model_calls_jobs": dict(sorted(job_calls.items())),
        "jobs": dict(sorted(jobs.items())),
        "graph": {
            "summaries": kinds["summary"],
            "events": sum(isinstance(node, Event) for node in graph.nodes),
            "event_successions": links["NEXT"] - (sum(len(texts) for texts in days) - len(days)),
            "merges": links["MERGED_INTO"],
            "supports": links["SUPPORTS"],
            "contradictions": links["CONTRADICTS"],
            "impressions": sum(isinstance(node, Impression) for node in graph.nodes),
            "conjectures": kinds["conjecture"],
            "conjectures_returned_by_observe": conjectures_at_once,
        },
    }
    print(json.dumps(result, indent=2))
    write_result(out, result)


if __name__ == "__main__":
    main()
