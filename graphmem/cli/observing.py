"""The commands that bring messages in: observe (JSON lines) and import-history (a chat history)."""

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from graphmem.chat_exports import ExportTally, export_turns
from graphmem.cli.printers import counted, print_observations
from graphmem.cli.progress import ObserveProgressPrinter
from graphmem.config import Settings
from graphmem.contract import Observation
from graphmem.errors import InvalidInputError
from graphmem.file_formats import read_history, read_messages
from graphmem.memory import GraphMem


def input_text(path: Path) -> str:
    """The whole text of a file, or of stdin for '-'."""
    if str(path) == "-":
        return sys.stdin.read()
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInputError(f"cannot read {path}: {error}") from None


def input_lines(path: Path | None) -> Iterable[str]:
    """The lines of a file, or of stdin for None or '-', split at line feeds only.

    (str.splitlines would also split at U+2028, U+2029 and U+0085, which JSON text may hold.)
    """
    if path is None or str(path) == "-":
        return sys.stdin
    return input_text(path).split("\n")


def run_observe(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Observe one message per JSON line, in order, --batch lines a call; stops at a bad line.

    The lines before a bad one are observed first.
    """
    lines = input_lines(arguments.file)
    observe_in_batches(
        settings,
        arguments.owner,
        read_messages(lines),
        batch=arguments.batch,
        readmit=arguments.readmit_forgotten,
        total=len(lines) if isinstance(lines, list) else None,
        show=lambda observations: print_observations(observations, arguments.json, out),
    )


def observe_in_batches(
    settings: Settings,
    owner: str,
    items: Iterator[dict[str, Any]],
    *,
    batch: int,
    readmit: bool,
    total: int | None,
    show: Callable[[list[Observation]], None],
) -> None:
    """Observe items in order, `batch` a call, passing each call's observations to `show`.

    Progress goes to stderr (of `total` items, if known). An InvalidInputError while reading
    the items stops the run, once the items read before it are observed. `readmit` stores
    messages forgotten earlier again.
    """
    if batch < 1:
        raise InvalidInputError(f"--batch is {batch}; it must be 1 or more")
    progress = ObserveProgressPrinter(sys.stderr, total)
    with GraphMem.open(settings) as memory:

        def observe(chunk: list[dict[str, Any]]) -> None:
            show(memory.observe_many(owner, chunk, readmit_forgotten=readmit))
            progress.add(len(chunk))

        chunk: list[dict[str, Any]] = []
        try:
            while True:
                try:
                    item = next(items, None)
                except InvalidInputError:
                    if chunk:
                        observe(chunk)
                    raise
                if item is None:
                    break
                chunk.append(item)
                if len(chunk) == batch:
                    observe(chunk)
                    chunk = []
            if chunk:
                observe(chunk)
        finally:
            progress.close()


class ImportTally:
    """Counts what an import observed: its turns by what became of them, and its sessions."""

    def __init__(self) -> None:
        self.new = 0
        self.stored = 0
        self.forgotten = 0
        self.pending = 0
        self.sessions: set[str] = set()

    def add(self, observations: list[Observation]) -> None:
        """Count the observations of one call."""
        for observed in observations:
            self.sessions.add(observed.turn.session)
            if observed.forgotten:
                self.forgotten += 1
            elif observed.pending:
                self.pending += 1
            elif observed.memories:
                self.new += 1
            else:
                self.stored += 1

    def summary(self) -> str:
        """The one-line summary of the import."""
        messages = self.new + self.stored + self.forgotten + self.pending
        sessions = counted(len(self.sessions), "session")
        summary = (
            f"imported {counted(messages, 'message')} from {sessions}:"
            f" {counted(self.new, 'new turn')}, {self.stored} already stored,"
            + (f" {self.forgotten} forgotten earlier (not stored again)," if self.forgotten else "")
            + f" {self.pending} pending"
        )
        if self.pending:
            summary += " (the model did not answer; `graphmem consolidate` derives them)"
        return summary


def run_import_history(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Observe a chat history file (see graphmem.file_formats), --batch messages a call.

    Prints a summary line; with --json the observations go to `out` as JSON lines and the
    summary to stderr. A JSON-lines file stops at a bad line, as `observe` does (the lines
    before it are stored); a file of sessions is checked whole before anything is stored. A
    chat export (--format chatgpt or claude, graphmem.chat_exports) is read a conversation at a
    time and stops at a bad one, the conversations before it stored; a second line says what
    the export held and what was left out.
    """
    path: Path = arguments.file
    tally = ImportTally()
    exported = ExportTally()
    if arguments.format != "auto":
        with export_stream(path) as stream:
            items: Iterator[dict[str, Any]] = export_turns(
                stream, str(path), arguments.format, exported
            )
            observe_history(settings, arguments, items, None, tally=tally, out=out)
        print(exported.summary(), file=sys.stderr if arguments.json else out)
        return
    start = datetime.now(UTC) if arguments.at is None else arguments.at
    text = input_text(path)
    if not text.strip():
        raise InvalidInputError(f"nothing to import: {path} is empty")
    items, total = read_history(text, path, start)
    observe_history(settings, arguments, items, total, tally=tally, out=out)


def export_stream(path: Path) -> TextIO:
    """A chat export opened to be read as it streams (stdin for '-')."""
    if str(path) == "-":
        return sys.stdin
    try:
        return path.open(encoding="utf-8")
    except OSError as error:
        raise InvalidInputError(f"cannot read {path}: {error}") from None


def observe_history(
    settings: Settings,
    arguments: argparse.Namespace,
    items: Iterator[dict[str, Any]],
    total: int | None,
    *,
    tally: ImportTally,
    out: TextIO,
) -> None:
    """Observe a history's items in batches, then print the import's summary line."""

    def show(observations: list[Observation]) -> None:
        if arguments.json:
            print_observations(observations, arguments.json, out)
        tally.add(observations)

    observe_in_batches(
        settings,
        arguments.owner,
        items,
        batch=arguments.batch,
        readmit=arguments.readmit_forgotten,
        total=total,
        show=show,
    )
    print(tally.summary(), file=sys.stderr if arguments.json else out)
