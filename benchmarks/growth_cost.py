"""What a recall costs as memory grows, on LoCoMo: cheap where growth.py is not.

    python benchmarks/growth_cost.py [DATA.json] [--conversations 3] [--repeats 2]
        [--out RESULT.json]

benchmarks/growth.py measures graphmem as LongMemEval's haystacks grow, but on a fresh machine
e5 must first embed hours of long turns. This measures the cost side only, in minutes: each of
the first --conversations conversations of LoCoMo dev (../shared/data/locomo/locomo_dev.json)
is ingested under two owners of the embedded store (offline cognition, e5 through
benchmarks/locomo.py's cache): `alone` holds the conversation alone; `among_all` holds every
other conversation of the file first, then it (LoCoMo dev's five conversations: about six times
the memories). Message ids and sessions are prefixed by the conversation, so no two collide. Every
question of the conversation is then recalled of each owner in peek mode (nothing changes
between passes), k=10, at the conversation's last session: one unmeasured pass, then
--repeats measured ones. Reported per scale: recall p50 / p95 over every measured recall, and
what the owners hold (memories, events, the memories of the largest event, from `export`);
then how many times the memories and the p95 of `alone` those of `among_all` are (growth.py's
target for ten times the memories: a p95 at most twice). Recall quality is
growth.py's to judge, with its baselines beside it; this script reports none.
"""

import argparse
import gc
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from locomo import CACHE, Conversation, load, open_memory, turn_item
from provenance import write_result

from graphmem.memory import GraphMem
from graphmem.model import Event, LinkType

DEV = Path("../shared/data/locomo/locomo_dev.json")  # as benchmarks/context.py reads it
SCALES = ("alone", "among_all")
K = 10


def observe(memory: GraphMem, owner: str, conversation: Conversation) -> None:
    """Observe a conversation's turns in order, ids and sessions prefixed by the conversation."""
    for turn in conversation.turns:
        item = turn_item(turn)
        for prefixed in ("message_id", "session"):
            item[prefixed] = f"{conversation.sample_id}:{item[prefixed]}"
        memory.observe(owner, **item)


def held(memory: GraphMem, owners: list[str]) -> dict[str, float]:
    """What the owners hold, mean an owner: memories, events, the largest event's members.

    Memories are Memory nodes (summaries and facts among them); members, those PART_OF it.
    """
    memories, events, largest = [], [], []
    for owner in owners:
        graph = memory.export(owner)
        members = Counter(
            link.target for _source, _target, link in graph.links if link.type == LinkType.PART_OF
        )
        found = [node.id for node in graph.nodes if isinstance(node, Event)]
        memories.append(memory.statistics(owner).nodes.get("Memory", 0))
        events.append(len(found))
        largest.append(max((members[event] for event in found), default=0))
    return {
        "memories": round(statistics.mean(memories), 1),
        "events": round(statistics.mean(events), 1),
        "largest_event_memories": round(statistics.mean(largest), 1),
    }


def recall_seconds(
    memory: GraphMem, conversations: list[Conversation], owners: dict[str, str]
) -> list[float]:
    """Seconds of each recall (peek) of every question of the conversations, of their owners."""
    seconds = []
    for conversation in conversations:
        for question in conversation.questions:
            started = time.perf_counter()
            memory.recall(
                owners[conversation.sample_id],
                question,
                k=K,
                at=conversation.asked_at,
                peek=True,
                min_confidence=0.0,
            )
            seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    """Ingest both scales, time the recalls, print a table, write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path, nargs="?", default=DEV)
    parser.add_argument("--conversations", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    if arguments.conversations < 1 or arguments.repeats < 1:
        parser.error("--conversations and --repeats are 1 or more")
    everything = [sample.conversation for sample in load(arguments.data)]
    asked = everything[: arguments.conversations]
    scales: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory() as folder,
        open_memory("networkx", "offline", Path(folder), everything, CACHE) as memory,
    ):
        owners: dict[str, dict[str, str]] = {scale: {} for scale in SCALES}
        started = time.perf_counter()
        for conversation in asked:
            small = owners["alone"][conversation.sample_id] = f"alone-{conversation.sample_id}"
            observe(memory, small, conversation)
            large = owners["among_all"][conversation.sample_id] = f"all-{conversation.sample_id}"
            for other in everything:
                if other is not conversation:
                    observe(memory, large, other)
            observe(memory, large, conversation)
            print(
                f"ingested {conversation.sample_id} at both scales"
                f" ({time.perf_counter() - started:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
        gc.collect()
        gc.freeze()  # the harness's long-lived objects: no collector pauses in the recalls
        for scale in SCALES:
            recall_seconds(memory, asked, owners[scale])  # unmeasured: first reads, caches
            seconds = sorted(
                value
                for _ in range(arguments.repeats)
                for value in recall_seconds(memory, asked, owners[scale])
            )
            cuts = statistics.quantiles(seconds, n=20, method="inclusive")
            scales[scale] = {
                **held(memory, list(owners[scale].values())),
                "recalls": len(seconds),
                "recall_p50_ms": round(1000 * statistics.median(seconds), 1),
                "recall_p95_ms": round(1000 * cuts[18], 1),
            }
    growth = {
        "memories": round(scales["among_all"]["memories"] / scales["alone"]["memories"], 2),
        "recall_p95": round(
            scales["among_all"]["recall_p95_ms"] / scales["alone"]["recall_p95_ms"], 2
        ),
    }
    print("| scale | memories | events | largest event | recalls | p50 / p95 |")
    print("|---|---|---|---|---|---|")
    for scale, row in scales.items():
        print(
            f"| {scale} | {row['memories']:,.0f} | {row['events']:,.0f}"
            f" | {row['largest_event_memories']:,.0f} | {row['recalls']:,}"
            f" | {row['recall_p50_ms']} / {row['recall_p95_ms']} ms |"
        )
    print(f"among all / alone: {growth['memories']}x the memories, {growth['recall_p95']}x the p95")
    if arguments.out:
        result = {
            "data": str(arguments.data),
            "conversations": [conversation.sample_id for conversation in asked],
            "repeats": arguments.repeats,
            "k": K,
            "scales": scales,
            "growth": growth,
        }
        write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
