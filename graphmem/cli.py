"""The `graphmem` command line: observe, recall, consolidate, stats, export, import, forget-owner.

Also `demo` (a short conversation that shows every mechanism) and `mcp` (the MCP server).
"""

import argparse
import json
import sys
import time
from collections.abc import Iterable, Sequence
from datetime import datetime
from itertools import chain
from pathlib import Path
from typing import Any, TextIO

from graphmem.config import Settings
from graphmem.demo import run_demo
from graphmem.errors import GraphMemError, InvalidInputError
from graphmem.memory import (
    MAX_LOAD_ITEMS,
    OBSERVE_CHUNK,
    GraphMem,
    Observation,
    SleepProgress,
    SleepReport,
)
from graphmem.model import (
    Link,
    Node,
    Turn,
    check_identifier,
    check_session,
    check_speaker,
    check_text,
)
from graphmem.retrieval import PRESETS
from graphmem.store.base import GraphCounts, OwnerGraph, parse_record

EXPORT_FORMAT = "graphmem-export"
EXPORT_VERSION = 1
MESSAGE_FIELDS = {"text", "id", "at", "speaker", "session"}
"""The keys of one observed message (a JSON object per line); only text is required."""


def json_line(line: str, number: int) -> Any:
    """One line of JSON input, or InvalidInputError naming the line."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError) as error:
        raise InvalidInputError(f"line {number}: not JSON: {error}") from None


def read_message(line: str, number: int) -> dict[str, Any]:
    """One observed message of a JSON line as an `observe_many` item, or InvalidInputError."""
    message = json_line(line, number)
    if not isinstance(message, dict) or not isinstance(message.get("text"), str):
        raise InvalidInputError(f"line {number}: not an object with a text string")
    unknown = sorted(set(message) - MESSAGE_FIELDS)
    if unknown:
        raise InvalidInputError(
            f"line {number}: unknown keys {unknown}; known: {sorted(MESSAGE_FIELDS)}"
        )
    try:
        at = message.get("at")
        moment = None if at is None else datetime.fromisoformat(at)
        if moment is not None and moment.utcoffset() is None:
            raise ValueError(f"at {at!r} has no timezone")
        return {
            "text": check_text(message["text"]),
            "message_id": None if message.get("id") is None else check_identifier(message["id"]),
            "at": moment,
            "speaker": check_speaker(message.get("speaker", "user")),
            "session": check_session(message.get("session", "")),
        }
    except (TypeError, ValueError) as error:
        raise InvalidInputError(f"line {number}: {error}") from None


class ObserveProgress:
    """Shows how an observe run goes on a terminal: turns done, their rate, and the time left."""

    def __init__(self, out: TextIO, total: int | None) -> None:
        self._out = out
        self._total = total
        self._started = time.perf_counter()
        self.done = 0

    def add(self, turns: int) -> None:
        """Count turns observed and show the progress, if the output is a terminal."""
        self.done += turns
        if not self._out.isatty():
            return
        seconds = time.perf_counter() - self._started
        rate = self.done / seconds if seconds > 0 else 0.0
        line = f"observed {self.done} turns, {rate:.0f} turns/s"
        if self._total and rate > 0:
            line += f", {(self._total - self.done) / rate:.0f} s left of {self._total}"
        print(f"\r\033[K{line}", end="", file=self._out, flush=True)

    def close(self) -> None:
        """End the progress line."""
        if self._out.isatty() and self.done:
            print(file=self._out, flush=True)


def run_observe(
    settings: Settings,
    owner: str,
    lines: Iterable[str],
    *,
    batch: int,
    as_json: bool,
    out: TextIO,
) -> None:
    """Observe one message per JSON line, in order, `batch` lines a call; stops at a bad line.

    The lines before a bad one are observed first.
    """
    if batch < 1:
        raise InvalidInputError(f"--batch is {batch}; it must be 1 or more")
    total = len(lines) if isinstance(lines, list) else None
    progress = ObserveProgress(sys.stderr, total)
    with GraphMem.open(settings) as memory:

        def observe(items: list[dict[str, Any]]) -> None:
            print_observations(memory.observe_many(owner, items), as_json, out)
            progress.add(len(items))

        items: list[dict[str, Any]] = []
        try:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    items.append(read_message(line, number))
                except InvalidInputError:
                    if items:
                        observe(items)
                    raise
                if len(items) == batch:
                    observe(items)
                    items = []
            if items:
                observe(items)
        finally:
            progress.close()


def print_observations(observations: list[Observation], as_json: bool, out: TextIO) -> None:
    """Print what was observed: a JSON object a turn, or its id and attention or state."""
    for observed in observations:
        if as_json:
            print(json.dumps(observed.as_json(), ensure_ascii=False), file=out)
            continue
        labels = ", ".join(f"attention {m.importance:.1f}" for m in observed.memories)
        state = "pending" if observed.pending else labels or "already stored"
        print(f"{observed.turn.id}: {state}", file=out)
        for conjecture in observed.conjectures:
            belief = conjecture.belief or 0.0
            print(f"  conjecture (belief {belief:.2f}): {conjecture.text}", file=out)
    out.flush()


def run_recall(
    settings: Settings,
    owner: str,
    query: str,
    *,
    k: int,
    motivation: float | None,
    weights: str,
    peek: bool,
    at: datetime | None,
    budget: float | None,
    as_json: bool,
    out: TextIO,
) -> None:
    """Recall and print the memories with their score breakdown (or the subgraph as JSON)."""
    with GraphMem.open(settings) as memory:
        recall = memory.recall(
            owner,
            query,
            k=k,
            motivation=motivation,
            weights=weights,
            peek=peek,
            at=at,
            budget_seconds=budget,
        )
    if as_json:
        print(json.dumps(recall.as_json(), ensure_ascii=False), file=out)
        return
    searches = " -> ".join(
        f"motivation {attempt.motivation:.1f} (tiers 0-{attempt.depth})"
        for attempt in recall.attempts
    )
    print(f"searched {searches}; {len(recall.memories)} memories", file=out)
    if recall.cut_short:
        print(f"out of time: skipped {', '.join(recall.cut_short)}", file=out)
    for item in recall.memories:
        reasons = item.components
        print(f"{item.score:6.3f}  {item.memory.text}", file=out)
        print(
            f"        relevance {reasons.relevance:.3f}, lexical {reasons.lexical:.2f},"
            f" importance {reasons.importance:.1f}, attention {reasons.attention:.1f},"
            f" recency {reasons.recency:.2f}, association {reasons.association:.3f}"
            + (f" via {item.via}" if item.via else ""),
            file=out,
        )
    for link in recall.links:
        print(f"link: {link.source} -{link.type}-> {link.target}", file=out)


def print_counts(counts: GraphCounts, out: TextIO) -> None:
    """Print nodes per label, edges per type, memories per tier and belief."""
    print("nodes:", ", ".join(f"{k} {v}" for k, v in sorted(counts.nodes.items())), file=out)
    links = ", ".join(f"{k} {v}" for k, v in sorted(counts.links.items()))
    print("edges:", links or "none", file=out)
    print("memories per tier:", ", ".join(f"{k}: {v}" for k, v in counts.tiers.items()), file=out)
    print("memories per belief:", file=out)
    for name, count in sorted(counts.beliefs.items()):
        print(f"  {name:>5}  {count:6d}  {'#' * min(count, 60)}", file=out)


def run_stats(settings: Settings, owner: str, as_json: bool, out: TextIO) -> None:
    """Print one owner's counts."""
    with GraphMem.open(settings) as memory:
        counts = memory.statistics(owner)
    if as_json:
        print(counts.model_dump_json(), file=out)
    else:
        print_counts(counts, out)


def run_export(settings: Settings, owner: str, path: Path | None, out: TextIO) -> None:
    """Write one owner's graph as JSON lines (to `path`, else `out`): a header, then its records.

    The file is opened once the graph is read, so a failed export leaves it as it was.
    """
    with GraphMem.open(settings) as memory:
        graph = memory.export(owner)
    header = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "owner": owner}
    lines = chain([header], graph.records())
    if path is None:
        for record in lines:
            print(json.dumps(record, ensure_ascii=False), file=out)
        return
    try:
        with path.open("w", encoding="utf-8") as file:
            for record in lines:
                print(json.dumps(record, ensure_ascii=False), file=file)
    except OSError as error:
        raise InvalidInputError(f"cannot write {path}: {error.strerror}") from None


def run_import(settings: Settings, lines: Iterable[str], out: TextIO) -> None:
    """Load JSON lines written by `export` into the owner its header names."""
    rows = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if not rows:
        raise InvalidInputError("nothing to import: the input is empty")
    header = json_line(rows[0][1], rows[0][0])
    if (
        not isinstance(header, dict)
        or header.get("format") != EXPORT_FORMAT
        or header.get("version") != EXPORT_VERSION
        or not isinstance(header.get("owner"), str)
    ):
        raise InvalidInputError(
            f"line 1: not a {EXPORT_FORMAT} header of version {EXPORT_VERSION} with an owner"
        )
    items = []
    for number, line in rows[1:]:
        record = json_line(line, number)
        try:
            items.append(parse_record(record))
        except InvalidInputError as error:
            raise InvalidInputError(f"line {number}: {error}") from None
    graph = OwnerGraph.of(items)
    turns = sorted(
        (node for node in graph.nodes if isinstance(node, Turn)),
        key=lambda turn: (turn.position is None, turn.position or 0),
    )  # in the order of their places, as each load places the turns it gets
    ordered = [*turns, *(node for node in graph.nodes if not isinstance(node, Turn))]
    parts: list[Node | tuple[str, str, Link]] = [*ordered, *graph.links]  # nodes, then edges
    owner = header["owner"]
    with GraphMem.open(settings) as memory:
        for start in range(0, len(parts), MAX_LOAD_ITEMS):
            memory.load(owner, OwnerGraph.of(parts[start : start + MAX_LOAD_ITEMS]))
        counts = memory.statistics(owner)
    print(
        f"imported the file's {len(graph.nodes)} nodes and {len(graph.links)} edges"
        " (nodes already stored are kept as they were)",
        file=out,
    )
    print(f"{owner} now has:", file=out)
    print_counts(counts, out)


def run_forget(settings: Settings, owner: str, out: TextIO) -> None:
    """Delete everything of one owner and show, by counting, that nothing is left."""
    with GraphMem.open(settings) as memory:
        before = memory.statistics(owner)
        after = memory.forget(owner)
    print(
        f"forgot {owner}: {sum(before.nodes.values())} nodes and {sum(before.links.values())}"
        f" edges deleted; counted after: {sum(after.nodes.values())} nodes,"
        f" {sum(after.links.values())} edges",
        file=out,
    )
    if after.total:
        raise GraphMemError(f"{owner} still has {after.total} nodes and edges; run it again")


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


def input_lines(path: Path | None) -> Iterable[str]:
    """The lines of a file, or of stdin for None or '-', split at line feeds only.

    (str.splitlines would also split at U+2028, U+2029 and U+0085, which JSON text may hold.)
    """
    if path is None or str(path) == "-":
        return sys.stdin
    try:
        return path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInputError(f"cannot read {path}: {error}") from None


def parser() -> argparse.ArgumentParser:
    """The command line's grammar."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", choices=["networkx", "neo4j"], help="where the graph is")
    common.add_argument("--path", type=Path, help="file of the networkx store")
    common.add_argument("--config", type=Path, help="a TOML file of settings (GRAPHMEM_CONFIG)")
    owned = argparse.ArgumentParser(add_help=False, parents=[common])
    owned.add_argument("--owner", required=True, help="whose memory (the tenant)")
    timed = argparse.ArgumentParser(add_help=False)
    timed.add_argument(
        "--at", type=datetime.fromisoformat, help="ISO 8601 with a UTC offset (default: now)"
    )
    top = argparse.ArgumentParser(prog="graphmem", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True)

    demo = commands.add_parser(
        "demo", parents=[common], help="play a short conversation that shows every mechanism"
    )
    demo.add_argument(
        "--plot",
        type=Path,
        default=Path("graphmem-demo.png"),
        help="where to write the plot of attention over time (default: graphmem-demo.png)",
    )
    demo.add_argument("--owner", default="demo-user", help="whose memory (default: demo-user)")
    observe = commands.add_parser(
        "observe", parents=[owned], help="observe messages: JSON lines from a file or stdin"
    )
    observe.add_argument("file", nargs="?", type=Path, help="JSON lines (default: stdin)")
    observe.add_argument("--json", action="store_true", help="print each observation as JSON")
    observe.add_argument(
        "--batch",
        type=int,
        default=OBSERVE_CHUNK,
        help=f"lines observed together (default {OBSERVE_CHUNK}); 1 observes each as it comes",
    )
    recall = commands.add_parser(
        "recall", parents=[owned, timed], help="recall what relates to a query, with reasons"
    )
    recall.add_argument(
        "query",
        help="a question, or the recent conversation, one turn a line ('speaker: text'), the"
        " latest last; '-' reads it from standard input",
    )
    recall.add_argument("-k", type=int, default=10, help="memories to return (default 10)")
    recall.add_argument("--motivation", type=float, help="0-10 (default: the query's label)")
    recall.add_argument("--weights", choices=sorted(PRESETS), default="balanced")
    recall.add_argument("--peek", action="store_true", help="read without waking anything")
    recall.add_argument("--budget", type=float, help="seconds before it skips steps (default 5)")
    recall.add_argument("--json", action="store_true", help="print the subgraph as JSON")
    sleep = commands.add_parser(
        "consolidate",
        parents=[common, timed],
        help="the sleep job: summaries, events, consolidation, re-tiering",
    )
    whom = sleep.add_mutually_exclusive_group(required=True)
    whom.add_argument("--owner", help="the owner whose memory to consolidate")
    whom.add_argument("--all", action="store_true", help="every owner, one after another")
    sleep.add_argument(
        "--log-every", type=int, default=100, help="items between log lines (not on a terminal)"
    )
    stats = commands.add_parser(
        "stats", parents=[owned], help="nodes per label, memories per tier, belief histogram"
    )
    stats.add_argument("--json", action="store_true", help="print the counts as JSON")
    export = commands.add_parser(
        "export", parents=[owned], help="write one owner's memory as JSON lines"
    )
    export.add_argument("--out", type=Path, help="file to write (default: stdout)")
    load = commands.add_parser("import", parents=[common], help="load JSON lines written by export")
    load.add_argument("file", nargs="?", type=Path, help="JSON lines (default: stdin)")
    forget = commands.add_parser(
        "forget-owner", parents=[owned], help="delete everything of one owner, and count"
    )
    forget.add_argument("--yes", action="store_true", required=True, help="confirm the deletion")
    server = commands.add_parser(
        "mcp",
        parents=[common],
        help="serve observe, recall and consolidate as MCP tools (extra: graphmem[mcp])",
    )
    server.add_argument("--owner", help="serve this owner only (default: each call names one)")
    server.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    server.add_argument("--host", default="127.0.0.1", help="address for --transport http")
    server.add_argument("--port", type=int, default=8000, help="port for --transport http")
    return top


def run(arguments: argparse.Namespace, out: TextIO) -> None:
    """Run one parsed command."""
    settings = Settings.from_env(file=arguments.config, store=arguments.store, path=arguments.path)
    command = arguments.command
    if command == "demo":
        run_demo(settings, out, arguments.plot, owner=arguments.owner)
    elif command == "observe":
        run_observe(
            settings,
            arguments.owner,
            input_lines(arguments.file),
            batch=arguments.batch,
            as_json=arguments.json,
            out=out,
        )
    elif command == "recall":
        run_recall(
            settings,
            arguments.owner,
            sys.stdin.read() if arguments.query == "-" else arguments.query,
            k=arguments.k,
            motivation=arguments.motivation,
            weights=arguments.weights,
            peek=arguments.peek,
            at=arguments.at,
            budget=arguments.budget,
            as_json=arguments.json,
            out=out,
        )
    elif command == "consolidate":
        every = max(arguments.log_every, 1)
        run_consolidate(settings, arguments.owner, arguments.at, every, out)
    elif command == "stats":
        run_stats(settings, arguments.owner, arguments.json, out)
    elif command == "export":
        run_export(settings, arguments.owner, arguments.out, out)
    elif command == "import":
        run_import(settings, input_lines(arguments.file), out)
    elif command == "forget-owner":
        run_forget(settings, arguments.owner, out)
    else:
        from graphmem.mcp_server import serve  # noqa: PLC0415 (its extra may be missing)

        serve(
            settings,
            owner=arguments.owner,
            transport=arguments.transport,
            host=arguments.host,
            port=arguments.port,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run it; returns the process exit code."""
    arguments = parser().parse_args(argv)
    try:
        run(arguments, sys.stdout)
    except GraphMemError as error:
        print(f"graphmem: {error}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as error:  # standard input that is not UTF-8
        print(f"graphmem: the input is not UTF-8: {error}", file=sys.stderr)
        return 1
    return 0
