"""The `graphmem` command line: `demo` (a short conversation recalled) and `consolidate` (sleep)."""

import argparse
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TextIO

from graphmem.config import Settings
from graphmem.demo import run_demo
from graphmem.errors import GraphMemError
from graphmem.memory import GraphMem, SleepProgress, SleepReport


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
    demo.add_argument(
        "--plot",
        type=Path,
        default=Path("graphmem-demo.png"),
        help="where to write the plot of attention over time (default: graphmem-demo.png)",
    )
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
    server = commands.add_parser(
        "mcp", help="serve observe, recall and consolidate as MCP tools (extra: graphmem[mcp])"
    )
    server.add_argument("--store", choices=["networkx", "neo4j"], help="where the graph is")
    server.add_argument("--path", type=Path, help="file of the networkx store")
    server.add_argument(
        "--owner", help="serve this owner only (default: each call names its owner)"
    )
    server.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    server.add_argument("--host", default="127.0.0.1", help="address for --transport http")
    server.add_argument("--port", type=int, default=8000, help="port for --transport http")
    arguments = parser.parse_args(argv)
    try:
        settings = Settings.from_env(store=arguments.store, path=arguments.path)
        if arguments.command == "consolidate":
            run_consolidate(
                settings, arguments.owner, arguments.at, max(arguments.log_every, 1), sys.stdout
            )
        elif arguments.command == "mcp":
            from graphmem.mcp_server import serve  # noqa: PLC0415 (its extra may be missing)

            serve(
                settings,
                owner=arguments.owner,
                transport=arguments.transport,
                host=arguments.host,
                port=arguments.port,
            )
        else:
            run_demo(settings, sys.stdout, arguments.plot)
    except GraphMemError as error:
        print(f"graphmem: {error}", file=sys.stderr)
        return 1
    return 0
