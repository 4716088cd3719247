"""`graphmem demo`: a short multi-day conversation that shows what graphmem does, step by step."""

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

from graphmem.config import Settings
from graphmem.memory import GraphMem

DEMO_OWNER = "demo-user"
DEMO_START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DEMO_DAYS: list[list[str]] = [
    [
        "I'm allergic to milk: even a little makes my throat swell.",
        "My throat is sore and I've felt tired all afternoon.",
        "We're planning a trip to Disneyland with the kids next month!",
        "我最近在学做川菜，麻婆豆腐已经做得不错了。",
    ],
    [
        "I started having a fever.",
        "Work was busy; the quarterly report is due on Friday.",
    ],
    [
        "There's half a glass of milk on the table.",
        "周末想带孩子去公园放风筝。",
    ],
]
DEMO_QUERIES = [
    "I started having a fever",
    "Is it safe for me to drink this milk?",
    "What is the family looking forward to?",
    "做什么菜好呢？",
]


def run_demo(settings: Settings, out: TextIO, plot: Path) -> None:
    """Observe the demo conversation day by day, then recall a few queries and print why."""
    started = time.perf_counter()
    with GraphMem.open(settings) as memory:
        for day, messages in enumerate(DEMO_DAYS):
            print(f"day {day + 1}", file=out)
            for number, text in enumerate(messages):
                at = DEMO_START + timedelta(days=day, minutes=10 * number)
                observed = memory.observe(
                    DEMO_OWNER,
                    text,
                    message_id=f"d{day + 1}-m{number + 1}",
                    at=at,
                    session=f"day {day + 1}",
                )
                labels = ", ".join(f"attention {m.importance:.1f}" for m in observed.memories)
                print(f"  observed [{at:%Y-%m-%d %H:%M}] ({labels or 'pending'}) {text}", file=out)
                for conjecture in observed.conjectures:
                    print(
                        f"    conjecture (belief {conjecture.belief or 0:.2f}): {conjecture.text}",
                        file=out,
                    )
        at = DEMO_START + timedelta(days=len(DEMO_DAYS))
        for query in DEMO_QUERIES:
            print(f"\nrecall: {query}", file=out)
            recall = memory.recall(DEMO_OWNER, query, k=4, at=at)
            searches = " -> ".join(
                f"motivation {attempt.motivation:.1f} (tiers 0-{attempt.depth})"
                for attempt in recall.attempts
            )
            print(f"  searched {searches}", file=out)
            for item in recall.memories:
                print(f"  {item.score:.3f}  {item.memory.text}", file=out)
                reasons = item.components
                print(
                    f"         relevance {reasons.relevance:.3f}, lexical {reasons.lexical:.2f},"
                    f" importance {reasons.importance:.1f}, attention {reasons.attention:.1f},"
                    f" recency {reasons.recency:.2f}",
                    file=out,
                )
    print(
        f"\ndone in {time.perf_counter() - started:.1f} s on the {settings.store} store", file=out
    )
    if settings.store == "networkx" and settings.path is None:
        print("(kept in memory only; pass --path FILE to keep it)", file=out)
