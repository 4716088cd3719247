"""The `graphmem` command line: `demo` (a short conversation recalled) and `consolidate` (sleep)."""

import argparse
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

from graphmem.config import Settings
from graphmem.errors import GraphMemError
from graphmem.memory import GraphMem, SleepProgress, SleepReport

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


def run_demo(settings: Settings, out: TextIO) -> None:
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


class ProgressPrinter:
    """Prints sleep-job progress: one line rewritten in place on a terminal, else log lines.

    Log lines come every `every` items of a step, and at each step's first item.
    """

    def __init__(self, out: TextIO, every: int) -> None:
        self._out = out
        self._every = every
        self._terminal = out.isatty()

    def __call__(self, progress: SleepProgress) -> None:
        """Show where the job is."""
        line = (
            f"{progress.owner}: {progress.step} {progress.done}, {progress.model_calls} model"
            f" calls, {progress.seconds:.1f} s"
        )
        if self._terminal:
            print(f"\r\033[K{line}", end="", file=self._out, flush=True)
        elif progress.done == 1 or progress.done % self._every == 0:
            print(line, file=self._out, flush=True)

    def report(self, report: SleepReport) -> None:
        """Show what the job did for one owner."""
        if self._terminal:
            print("\r\033[K", end="", file=self._out)
        counts = ", ".join(f"{name} {count}" for name, count in sorted(report.counts.items()))
        calls = ", ".join(f"{name} {count}" for name, count in sorted(report.model_calls.items()))
        print(
            f"{report.owner}: done in {report.seconds:.1f} s; {counts or 'nothing to do'};"
            f" model calls: {calls or 'none'}",
            file=self._out,
            flush=True,
        )


def run_consolidate(
    settings: Settings, owner: str | None, at: datetime | None, every: int, out: TextIO
) -> None:
    """Run the sleep job for one owner, or for every owner when `owner` is None."""
    printer = ProgressPrinter(out, every)
    with GraphMem.open(settings) as memory:
        owners = [owner] if owner is not None else memory.owners()
        for name in owners:
            printer.report(memory.consolidate(name, at=at, progress=printer))


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run it; returns the process exit code."""
    parser = argparse.ArgumentParser(prog="graphmem", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="play a short conversation and recall from it")
    demo.add_argument("--store", choices=["networkx", "neo4j"], help="where to keep the graph")
    demo.add_argument("--path", type=Path, help="file of the networkx store (default: memory)")
    sleep = commands.add_parser(
        "consolidate", help="the sleep job: summaries, events, consolidation, re-tiering"
    )
    whom = sleep.add_mutually_exclusive_group(required=True)
    whom.add_argument("--owner", help="the owner whose memory to consolidate")
    whom.add_argument("--all", action="store_true", help="every owner, one after another")
    sleep.add_argument("--store", choices=["networkx", "neo4j"], help="where the graph is")
    sleep.add_argument("--path", type=Path, help="file of the networkx store")
    sleep.add_argument(
        "--at",
        type=datetime.fromisoformat,
        help="the job's time, ISO 8601 with a UTC offset (default: now)",
    )
    sleep.add_argument(
        "--log-every", type=int, default=100, help="items between log lines (not on a terminal)"
    )
    arguments = parser.parse_args(argv)
    try:
        settings = Settings.from_env(store=arguments.store, path=arguments.path)
        if arguments.command == "consolidate":
            run_consolidate(
                settings, arguments.owner, arguments.at, max(arguments.log_every, 1), sys.stdout
            )
        else:
            run_demo(settings, sys.stdout)
    except GraphMemError as error:
        print(f"graphmem: {error}", file=sys.stderr)
        return 1
    return 0
