"""The `graphmem` command line: observe, import-history, recall, consolidate, stats and more.

The others: profile, turns (a session's history), health, owners, learn, retier,
complete-pending, forget (messages, with what derives from them), export, import, forget-owner,
`demo` (a short conversation that shows every mechanism), `mcp` (the MCP server), `serve` and
`keys` (the HTTP service and its keys). `graphmem import-history --help` describes the two
formats of a chat history.

One piece, read top to bottom: a `run_*` function a command with the printers of what it shows,
then the parser and the dispatch. The files the commands read and write are
graphmem.file_formats'; what they do is the facade's (graphmem.memory).
"""

import argparse
import json
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from enum import IntEnum
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from graphmem import __version__
from graphmem.config import Settings, user_store_file
from graphmem.demo import default_language, run_demo
from graphmem.demo_story import LANGUAGES
from graphmem.errors import ConfigurationError, GraphMemError, InvalidInputError, StoreError
from graphmem.file_formats import export_records, read_export, read_history, read_messages
from graphmem.memory import MAX_LOAD_ITEMS, OBSERVE_CHUNK, GraphMem
from graphmem.model import Link, LinkType, Node, Turn, check_text
from graphmem.nightly import LEASE
from graphmem.results import (
    SEARCHED_KINDS,
    EvokedImpression,
    GraphCounts,
    Health,
    NightProgress,
    NightReport,
    Observation,
    OwnerGraph,
    Recall,
    RecalledMemory,
    SleepProgress,
    SleepReport,
    Tombstone,
)
from graphmem.scoring import PRESETS

AT_EXAMPLE = "2026-05-01T09:00:00+00:00"
"""The time that errors about --at show as an example."""
BELIEF_BAR = 50
"""The length of the longest bar of the belief histogram (`stats`); the others are in proportion."""
SHOWN_CHARS = 40
"""How much of a memory's text `recall` shows where it names one memory from another's lines."""
HELD_ELSEWHERE = " is open in another process"
"""How the embedded store's error ends when another process (a server, most likely) holds it."""
SERVE_PORT = 8420
"""The port `graphmem serve` listens on unless --port says otherwise."""


class ExitStatus(IntEnum):
    """The statuses `graphmem` exits with, each listed in docs/cli.md."""

    DONE = 0
    """The command did its work."""
    ERROR = 1
    """An error, said in one line on standard error (a GraphMemError, ConfigurationError too)."""
    USAGE = 2
    """A command line it cannot parse: argparse's own status, printed with the usage."""


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
        line = f"observed {counted(self.done, 'turn')}, {rate:.0f} turns/s"
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
    readmit: bool,
    as_json: bool,
    out: TextIO,
) -> None:
    """Observe one message per JSON line, in order, `batch` lines a call; stops at a bad line.

    The lines before a bad one are observed first.
    """
    total = len(lines) if isinstance(lines, list) else None
    observe_in_batches(
        settings,
        owner,
        read_messages(lines),
        batch=batch,
        readmit=readmit,
        total=total,
        show=lambda observations: print_observations(observations, as_json, out),
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
    progress = ObserveProgress(sys.stderr, total)
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


def run_import_history(
    settings: Settings,
    owner: str,
    path: Path,
    *,
    at: datetime | None,
    batch: int,
    readmit: bool,
    as_json: bool,
    out: TextIO,
) -> None:
    """Observe a chat history file (see graphmem.file_formats), `batch` messages a call.

    Prints a summary line; with `as_json` the observations go to `out` as JSON lines and the
    summary to stderr. A JSON-lines file stops at a bad line, as `observe` does (the lines
    before it are stored); a file of sessions is checked whole before anything is stored.
    """
    start = datetime.now(UTC) if at is None else at
    text = input_text(path)
    if not text.strip():
        raise InvalidInputError(f"nothing to import: {path} is empty")
    items, total = read_history(text, path, start)
    tally = ImportTally()

    def show(observations: list[Observation]) -> None:
        if as_json:
            print_observations(observations, as_json, out)
        tally.add(observations)

    observe_in_batches(settings, owner, items, batch=batch, readmit=readmit, total=total, show=show)
    print(tally.summary(), file=sys.stderr if as_json else out)


def print_observations(observations: list[Observation], as_json: bool, out: TextIO) -> None:
    """Print what was observed: a JSON object a turn, or its id and attention or state."""
    for observed in observations:
        if as_json:
            print(json.dumps(observed.as_json(), ensure_ascii=False), file=out)
            continue
        labels = ", ".join(f"attention {m.importance:.1f}" for m in observed.memories)
        state = "pending" if observed.pending else labels or "already stored"
        if observed.forgotten:
            state = "forgotten earlier, not stored (--readmit-forgotten stores it)"
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
    k: int | None,
    motivation: float | None,
    weights: str,
    peek: bool,
    at: datetime | None,
    budget: float | None,
    max_tokens: int | None,
    filters: dict[str, Any],
    as_json: bool,
    out: TextIO,
) -> None:
    """Recall and print the memories with their score breakdown (or the subgraph as JSON)."""
    query = checked_query(query)
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
            max_tokens=max_tokens,
            **filters,
        )
        nothing_stored = not recall.memories and memory.statistics(owner).total == 0
    if as_json:
        print(json.dumps(recall.as_json(), ensure_ascii=False), file=out)
    else:
        print_recall(recall, out)
    if nothing_stored:
        say_unknown(owner, out)


def checked_query(query: str) -> str:
    """The query of `recall` if it is a text that can be recalled with, else an error naming it."""
    if not query.strip():
        raise InvalidInputError(
            "the query is empty: give a question, or '-' to read the recent conversation from"
            " standard input"
        )
    try:
        return check_text(query)
    except ValueError as error:  # the model's check calls it "text"
        raise InvalidInputError(f"the query {str(error).removeprefix('text ')}") from None


def print_recall(recall: Recall, out: TextIO) -> None:
    """Print the searches, each memory (numbered) with its score, origin and reasons, the links."""
    searches = " -> ".join(
        f"motivation {attempt.motivation:.1f} (tiers 0-{attempt.depth})"
        for attempt in recall.attempts
    )
    print(f"searched {searches}; {counted(len(recall.memories), 'memory', 'memories')}", file=out)
    if recall.cut_short:
        print(f"out of time: skipped {', '.join(recall.cut_short)}", file=out)
    if recall.max_tokens is not None:
        print(f"rendered in {recall.tokens} tokens of {recall.max_tokens}", file=out)
    number = {item.memory.id: index for index, item in enumerate(recall.memories, start=1)}
    for item in recall.memories:
        reasons = item.components
        label = f"[{number[item.memory.id]}]"
        print(f"{label:<5}{item.score:6.3f}  {item.memory.text}", file=out)
        print(f"             {origin(item)}", file=out)
        print(
            f"             relevance {reasons.relevance:.3f}, lexical {reasons.lexical:.2f},"
            f" time match {reasons.time_match:.2f}, speaker match {reasons.speaker_match:.2f},"
            f" asker match {reasons.asker_match:.2f}, statement {reasons.statement:.0f},"
            f" importance {reasons.importance:.1f},"
            f" attention {reasons.attention:.1f}, recency {reasons.recency:.2f},"
            f" association {reasons.association:.3f}",
            file=out,
        )
        if item.via is not None:
            print(f"             via {association(item, recall, number)}", file=out)
        for impression in recall.impressions:
            if impression.id == item.evoked_by:
                print(f"             {evocation(impression)}", file=out)
    for link in recall.links:
        print(f"link: [{number[link.source]}] -{link.type}-> [{number[link.target]}]", file=out)


def moment_text(moment: datetime) -> str:
    """A stored time (UTC) as `recall` shows it: 2026-03-09 20:00:00 UTC."""
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC"


def origin(item: RecalledMemory) -> str:
    """When a recalled memory was said, by whom and in which messages (ids), from its turns."""
    turns = sorted(item.turns, key=lambda turn: turn.created_at)
    if not turns:
        return f"{moment_text(item.memory.created_at)}, {item.memory.kind} (no message of its own)"
    if len(turns) == 1:
        [turn] = turns
        return f"{moment_text(turn.created_at)}, {turn.speaker}, message {turn.id}"
    speakers = " and ".join(dict.fromkeys(turn.speaker for turn in turns))
    ids = [turn.id for turn in turns]
    named = ", ".join(ids) if len(ids) <= 3 else f"{ids[0]}, {ids[1]} … {ids[-1]}"
    return (
        f"{moment_text(turns[0].created_at)} to {moment_text(turns[-1].created_at)},"
        f" {speakers}, {len(ids)} messages {named}"
    )


def shortened(text: str) -> str:
    """A text cut to SHOWN_CHARS at most, at a space if it has one there, with "…" if cut."""
    if len(text) <= SHOWN_CHARS:
        return text
    cut = text[: SHOWN_CHARS - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


def association(item: RecalledMemory, recall: Recall, number: dict[str, int]) -> str:
    """What a recalled memory gained association through, and how the two are related.

    The other memory is named by its number and the start of its text when it is among those
    recalled; the relation is the turn before or after, the same session, or the edges.
    """
    if item.via not in number:
        return "a memory not among these (a larger -k may show it)"
    [other] = [candidate for candidate in recall.memories if candidate.memory.id == item.via]
    named = f"[{number[item.via]}] {json.dumps(shortened(other.memory.text), ensure_ascii=False)}"
    relations = [named]
    if item.turns and other.turns and item.turns[0].session == other.turns[0].session:
        own, theirs = item.turns[0].position, other.turns[0].position
        if own is not None and theirs is not None and abs(own - theirs) == 1:
            relations.append(f"the turn {'before' if theirs < own else 'after'}")
        else:
            relations.append("in the same session")
    edges = [
        link.type.value
        for link in recall.links
        if {link.source, link.target} == {item.memory.id, other.memory.id}
    ]
    if edges:
        relations.append(f"linked by {' and '.join(edges)}")
    return ", ".join(relations)


def evocation(impression: EvokedImpression) -> str:
    """The impression a recalled memory was evoked through, with both beliefs in it."""
    return (
        f"evoked by the impression {json.dumps(impression.text, ensure_ascii=False)}"
        f" (the owner's belief {impression.belief:.2f}, the query's {impression.implied:.2f})"
    )


def print_counts(counts: GraphCounts, out: TextIO) -> None:
    """Print nodes per label, edges per type, memories per tier and belief."""
    print("nodes:", ", ".join(f"{k} {v}" for k, v in sorted(counts.nodes.items())), file=out)
    links = ", ".join(f"{k} {v}" for k, v in sorted(counts.links.items()))
    print("edges:", links or "none", file=out)
    print("memories per tier:", ", ".join(f"{k}: {v}" for k, v in counts.tiers.items()), file=out)
    print("memories per belief:", file=out)
    most = max(counts.beliefs.values(), default=0)
    for name, count in sorted(counts.beliefs.items()):
        print(f"  {name:>5}  {count:6d}  {belief_bar(count, most)}", file=out)


def belief_bar(count: int, most: int) -> str:
    """A bar of the belief histogram: BELIEF_BAR long for `most`, in proportion for the others."""
    if count == 0:
        return ""
    return "#" * max(1, round(BELIEF_BAR * count / most))


def unknown_owner(owner: str) -> str:
    """What the command line says of an owner that has nothing stored (a typo, most likely)."""
    return f"unknown owner {owner!r}: nothing is stored for it; `graphmem owners` lists the owners"


def say_unknown(owner: str, out: TextIO) -> None:
    """Say on stderr, after what `out` shows, that the owner has nothing stored."""
    out.flush()
    print(f"graphmem: {unknown_owner(owner)}", file=sys.stderr)


def run_owners(settings: Settings, as_json: bool, out: TextIO) -> None:
    """Print every owner that has a turn stored, one a line (or as a JSON list)."""
    with GraphMem.open(settings) as memory:
        owners = memory.owners()
    if as_json:
        print(json.dumps(owners, ensure_ascii=False), file=out)
    else:
        for owner in owners:
            print(owner, file=out)


def run_stats(settings: Settings, owner: str, as_json: bool, out: TextIO) -> None:
    """Print one owner's counts."""
    with GraphMem.open(settings) as memory:
        counts = memory.statistics(owner)
    if as_json:
        print(counts.model_dump_json(), file=out)
    else:
        print_counts(counts, out)
    if counts.total == 0:
        say_unknown(owner, out)


def counted(count: int, thing: str, things: str | None = None) -> str:
    """A count with its noun, singular for one ("1 turn", "2 turns")."""
    return f"{count} {thing if count == 1 else things or thing + 's'}"


def print_health(health: Health, out: TextIO) -> None:
    """Print a health report, one row per check, each named as its Browser query is."""
    checks, counts = health.checks, health.counts
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(checks.kinds.items()))
    tiers = ", ".join(f"T{tier} {count}" for tier, count in counts.tiers.items())
    conjectures = counted(checks.kinds.get("conjecture", 0), "conjecture")
    if health.oldest_conjecture_days is not None and health.newest_conjecture_days is not None:
        conjectures += (
            f", made {health.oldest_conjecture_days:.1f} to"
            f" {health.newest_conjecture_days:.1f} days ago"
        )
    rows = {
        "nodes": ", ".join(f"{label} {count}" for label, count in sorted(counts.nodes.items())),
        "memories": f"{kinds or 'none'}; per tier {tiers}",
        "pending work": (
            f"{counted(checks.pending_turns, 'turn')} pending, {checks.awaiting_summary} awaiting"
            f" a summary, {counted(checks.awaiting_consolidation, 'fact')} awaiting consolidation"
        ),
        "duplicates merged": str(counts.links.get(LinkType.MERGED_INTO.value, 0)),
        "open contradictions": str(checks.open_contradictions),
        "superseded": f"{counted(checks.superseded, 'fact')} a newer one updated",
        "conjectures": conjectures,
        "never used": f"{counted(checks.never_used, 'memory', 'memories')} that no recall returned",
        "isolated": f"{counted(checks.isolated, 'node')} without any edge",
    }
    print(
        f"health of {health.owner} at {health.at.isoformat()}: embeddings {health.embedder},"
        f" cognition {health.cognition}",
        file=out,
    )
    for name, row in rows.items():
        print(f"  {name:<20} {row}", file=out)


def run_health(
    settings: Settings, owner: str | None, at: datetime | None, as_json: bool, out: TextIO
) -> None:
    """Print the health report of one owner, or of every owner when `owner` is None."""
    with GraphMem.open(settings) as memory:
        owners = [owner] if owner is not None else memory.owners()
        for name in owners:
            health = memory.health(name, at=at)
            if as_json:
                print(health.model_dump_json(), file=out)
            else:
                print_health(health, out)
            if health.counts.total == 0:
                say_unknown(name, out)
    if not as_json:
        print(
            'Browser: the query "graphmem health: ROW" of browser/queries.cypher shows the nodes'
            " of a row",
            file=out,
        )


def run_profile(
    settings: Settings, owner: str, at: datetime | None, as_json: bool, out: TextIO
) -> None:
    """Print the owner's profile: a line per fact, conjecture and open event (or JSON)."""
    with GraphMem.open(settings) as memory:
        profile = memory.profile(owner, at=at)
        known = profile.facts or profile.conjectures or profile.events
        nothing_stored = not known and memory.statistics(owner).total == 0
    if as_json:
        print(profile.model_dump_json(), file=out)
    else:
        print(f"profile of {profile.owner} at {profile.at.isoformat()}:", file=out)
        for line in profile.lines():
            print(f"  {line}", file=out)
        print(
            f"  ({counted(len(profile.facts), 'fact')},"
            f" {counted(len(profile.conjectures), 'conjecture')},"
            f" {counted(len(profile.events), 'open event')},"
            f" {counted(profile.causal_rules, 'causal rule')})",
            file=out,
        )
    if nothing_stored:
        say_unknown(owner, out)


def run_turns(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Print one session's turns in order: place, time, speaker, message id and text (or JSON)."""
    owner, session = arguments.owner, arguments.session
    with GraphMem.open(settings) as memory:
        turns = memory.turns(owner, session=session, last=arguments.last)
    if arguments.json:
        print(json.dumps([turn.model_dump(mode="json") for turn in turns]), file=out)
        return
    for turn in turns:
        when = turn.created_at.strftime("%Y-%m-%d %H:%M")
        text = " ".join(turn.text.split())
        print(f"{turn.position:>5}  {when}  [{turn.id}] {turn.speaker}: {text}", file=out)
    if not turns:
        print(f"{owner} has no turns in session {session!r}", file=out)


def run_reading(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Run stats, owners, health, profile or turns: the commands that read and change nothing."""
    command = arguments.command
    if command == "stats":
        run_stats(settings, arguments.owner, arguments.json, out)
    elif command == "owners":
        run_owners(settings, arguments.json, out)
    elif command == "health":
        run_health(settings, arguments.owner, arguments.at, arguments.json, out)
    elif command == "profile":
        run_profile(settings, arguments.owner, arguments.at, arguments.json, out)
    else:
        run_turns(settings, arguments, out)


def run_upkeep(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Run learn, retier or complete-pending: each changes the owner's memory and says what."""
    owner, command = arguments.owner, arguments.command
    with GraphMem.open(settings) as memory:
        if command == "learn":
            memory.learn(
                owner, arguments.cause, arguments.effect, arguments.sufficiency, at=arguments.at
            )
            print(
                f"{owner} learned: {arguments.cause} -> {arguments.effect}"
                f" (sufficiency {arguments.sufficiency:.2f})",
                file=out,
            )
            return
        if command == "retier":
            answer = {"retiered": memory.retier(owner, at=arguments.at)}
        else:
            answer = {"derived": memory.complete_pending(owner, limit=arguments.limit)}
    if arguments.json:
        print(json.dumps({"owner": owner, **answer}), file=out)
    elif command == "retier":
        print(f"{owner}: retiered {answer['retiered']} (moves to a deeper tier)", file=out)
    else:
        print(f"{owner}: {counted(answer['derived'], 'pending turn')} derived", file=out)


def run_export(settings: Settings, owner: str, path: Path | None, out: TextIO) -> None:
    """Write one owner's graph as JSON lines (to `path`, else `out`): a header, then its records.

    The file is opened once the graph is read, so a failed export leaves it as it was; an owner
    with nothing stored is refused.
    """
    with GraphMem.open(settings) as memory:
        graph = memory.export(owner)
    if not graph.nodes:
        raise InvalidInputError(unknown_owner(owner))
    lines = export_records(owner, graph)
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
    owner, graph = read_export(lines)
    turns = sorted(
        (node for node in graph.nodes if isinstance(node, Turn)),
        key=lambda turn: (turn.position is None, turn.position or 0),
    )  # in the order of their places, as each load places the turns it gets
    ordered = [*turns, *(node for node in graph.nodes if not isinstance(node, Turn))]
    parts: list[Node | tuple[str, str, Link] | Tombstone] = [
        *graph.tombstones,  # first: a turn that the file also holds deletes its tombstone
        *ordered,
        *graph.links,
    ]  # tombstones, nodes, then edges
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


def run_forget_messages(
    settings: Settings, owner: str, message_ids: Sequence[str], as_json: bool, out: TextIO
) -> None:
    """Forget messages one by one with what derives from them; say what went and was rewritten.

    An owner with nothing stored is refused.
    """
    with GraphMem.open(settings) as memory:
        if memory.statistics(owner).total == 0:
            raise InvalidInputError(unknown_owner(owner))
        for message_id in message_ids:
            forgotten = memory.forget_message(owner, message_id)
            if as_json:
                print(json.dumps(forgotten.model_dump(mode="json"), ensure_ascii=False), file=out)
            elif not forgotten.found:
                print(f"message {message_id} of {owner}: not stored, nothing to forget", file=out)
            else:
                deleted = ", ".join(
                    f"{label} {count}" for label, count in forgotten.deleted.items()
                )
                rewritten = ", ".join(
                    f"{kind} {count}" for kind, count in forgotten.rewritten.items()
                )
                print(
                    f"forgot message {message_id} of {owner}: deleted {deleted};"
                    f" derived again: {rewritten or 'nothing'}",
                    file=out,
                )


def run_forget_owner(settings: Settings, owner: str, out: TextIO) -> None:
    """Delete everything of one owner and show, by counting, that nothing is left.

    An owner with nothing stored is refused.
    """
    with GraphMem.open(settings) as memory:
        before = memory.statistics(owner)
        if before.total == 0:
            raise InvalidInputError(unknown_owner(owner))
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
        self._tally = ""
        """Where a job over many owners is; shown before the latest item on a terminal."""

    def __call__(self, progress: SleepProgress | NightProgress) -> None:
        """Show where the job is."""
        if isinstance(progress, NightProgress):
            self._night(progress)
            return
        line = (
            f"{progress.owner}: {progress.step} {progress.done}, {progress.model_calls} model"
            f" calls, {progress.seconds:.1f} s"
        )
        if self._terminal:
            self._status(f"{self._tally} · {line}" if self._tally else line)
        elif progress.done == 1 or progress.done % self._every == 0:
            self._line(line)

    def report(self, report: SleepReport, worker: str | None = None) -> None:
        """Show what the job did for one owner (and which worker did it, in a nightly job)."""
        counts = ", ".join(f"{name} {count}" for name, count in sorted(report.counts.items()))
        calls = ", ".join(f"{name} {count}" for name, count in sorted(report.model_calls.items()))
        by = "" if worker is None else f" by {worker}"
        self._line(
            f"{report.owner}: done in {report.seconds:.1f} s{by}; {counts or 'nothing to do'};"
            f" model calls: {calls or 'none'}"
        )

    def summary(self, night: NightReport) -> None:
        """Show how every owner's job ended, the failed ones with why."""
        counts = ", ".join(
            f"{night.count(outcome)} {outcome}" for outcome in ("done", "skipped", "failed", "lost")
        )
        self._line(
            f"{counted(len(night.owners), 'owner')} in {night.seconds:.1f} s by"
            f" {counted(night.workers, 'worker')}: {counts}"
        )
        for failed in night.owners:
            if failed.outcome == "failed":
                self._line(f"  {failed.owner} failed: {failed.why}")

    def _night(self, progress: NightProgress) -> None:
        """Show an owner claimed or ended, and the tally of the job over every owner."""
        latest = progress.latest
        ended = progress.done + progress.skipped + progress.failed + progress.lost
        left = (
            "" if progress.seconds_left is None else f", about {progress.seconds_left:.0f} s left"
        )
        self._tally = (
            f"{ended} of {counted(progress.owners, 'owner')} ended ({progress.done} done,"
            f" {progress.skipped}"
            f" skipped, {progress.failed} failed, {progress.lost} lost) in"
            f" {progress.seconds:.0f} s{left}"
        )
        if latest.outcome == "claimed":
            if not self._terminal:
                self._line(f"{latest.owner}: claimed by {latest.worker}")
            return
        if latest.report is not None:
            self.report(latest.report, latest.worker)
        else:
            self._line(f"{latest.owner}: {latest.outcome} by {latest.worker}: {latest.why}")
        if self._terminal:
            self._status(self._tally)
        elif ended == 1 or ended % self._every == 0:
            self._line(self._tally)

    def _status(self, line: str) -> None:
        """Show the line that the next one rewrites, on a terminal."""
        self._write(f"\r\033[K{line}")

    def _line(self, line: str) -> None:
        """Print a line to keep, over the status line on a terminal."""
        self._write(f"\r\033[K{line}\n" if self._terminal else f"{line}\n")

    def _write(self, text: str) -> None:
        """Write in one call: the lines of jobs sharing an output (a log) never cut each other."""
        self._out.write(text)
        self._out.flush()


def run_consolidate(
    settings: Settings, arguments: argparse.Namespace, every: int, out: TextIO
) -> None:
    """Run the sleep job for one owner, or for every owner with --all (by workers, leased)."""
    printer = ProgressPrinter(out, every)
    nightly = {
        "--workers": arguments.workers,
        "--lease": arguments.lease,
        "--prefix": arguments.prefix,
    }
    with GraphMem.open(settings) as memory:
        if arguments.owner is not None:
            if given := [flag for flag, value in nightly.items() if value is not None]:
                raise InvalidInputError(f"{', '.join(given)}: only with --all, not with --owner")
            report = memory.consolidate(arguments.owner, at=arguments.at, progress=printer)
            printer.report(report)
            if not any(report.counts.values()) and memory.statistics(arguments.owner).total == 0:
                say_unknown(arguments.owner, out)
            return
        night = memory.consolidate_all(
            at=arguments.at,
            prefix=arguments.prefix or "",
            workers=arguments.workers or 1,
            lease=LEASE if arguments.lease is None else timedelta(seconds=arguments.lease),
            progress=printer,
        )
        printer.summary(night)
        if failed := night.count("failed"):
            raise GraphMemError(
                f"{failed} of {len(night.owners)} owners failed (listed above); their work done"
                " so far is kept, and the next run resumes them"
            )


def moment(text: str) -> datetime:
    """The time an --at flag gives: ISO 8601 with a UTC offset, else an error that shows one."""
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not an ISO 8601 time: give one with a UTC offset, such as"
            f" --at {AT_EXAMPLE}"
        ) from None
    if at.utcoffset() is None:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} has no UTC offset: give one, such as --at {AT_EXAMPLE}"
        )
    return at


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


def add_import_history(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", owned: argparse.ArgumentParser
) -> None:
    """The import-history command's grammar."""
    history = commands.add_parser(
        "import-history",
        parents=[owned],
        help="observe a user's old chats: JSON lines of messages or a JSON list of sessions",
        description="Observe a user's existing chat history in batches, and print a summary"
        " line. FILE is told apart by its first character that is not whitespace: '{' starts"
        " JSON lines of messages, read as `graphmem observe` reads them; anything else is read"
        " as one JSON list of OpenAI-style chat sessions (as LongMemEval's haystacks are), each"
        ' a list of {"role", "content"} messages or an object {"session": ID, "at": ISO-TIME,'
        ' "messages": [...]} (only messages required). A message becomes a turn with text ='
        " content, speaker = role, session = the session's id (else its number in the file,"
        ' from 1), message id "SESSION:N" for its Nth message (importing the file again stores'
        " nothing new) and time = the session's at plus one second a message. Sessions without at"
        " follow one another a minute apart, the last message at --at.",
    )
    history.add_argument("file", type=Path, help="the history file ('-' reads standard input)")
    history.add_argument(
        "--at",
        type=moment,
        help="ISO 8601 time with a UTC offset where sessions without their own time end, such as"
        f" {AT_EXAMPLE} (default: now)",
    )
    history.add_argument(
        "--json",
        action="store_true",
        help="print each observation as a JSON line (and the summary on stderr)",
    )
    history.add_argument(
        "--batch",
        type=int,
        default=OBSERVE_CHUNK,
        help=f"messages observed together (default {OBSERVE_CHUNK})",
    )
    add_readmit(history)


def add_recall(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]",
    owned: argparse.ArgumentParser,
    timed: argparse.ArgumentParser,
) -> None:
    """The recall command's grammar."""
    recall = commands.add_parser(
        "recall", parents=[owned, timed], help="recall what relates to a query, with reasons"
    )
    recall.add_argument(
        "query",
        help="a question, or the recent conversation, one turn a line ('speaker: text'), the"
        " latest last; '-' reads it from standard input",
    )
    recall.add_argument(
        "-k", type=int, help="memories to return at most (default 10; 100 with --max-tokens)"
    )
    recall.add_argument("--motivation", type=float, help="0-10 (default: the query's label)")
    recall.add_argument("--weights", choices=sorted(PRESETS), default="balanced")
    recall.add_argument("--peek", action="store_true", help="read without waking anything")
    recall.add_argument("--budget", type=float, help="seconds before it skips steps (default 5)")
    recall.add_argument(
        "--max-tokens", type=int, help="keep what fits this many tokens of the rendered context"
    )
    recall.add_argument(
        "--session", action="append", help="only memories from this session (repeatable)"
    )
    recall.add_argument(
        "--speaker", action="append", help="only memories said by this speaker (repeatable)"
    )
    recall.add_argument("--since", type=moment, help="only memories made at or after this time")
    recall.add_argument("--until", type=moment, help="only memories made before this time")
    recall.add_argument(
        "--kind",
        action="append",
        choices=[kind.value for kind in SEARCHED_KINDS],
        help="only memories of this kind (repeatable)",
    )
    recall.add_argument(
        "--min-belief", type=float, help="only memories holding a belief of at least this, or none"
    )
    recall.add_argument("--json", action="store_true", help="print the subgraph as JSON")


def add_readmit(command: argparse.ArgumentParser) -> None:
    """The option that stores messages forgotten earlier again."""
    command.add_argument(
        "--readmit-forgotten",
        action="store_true",
        help="store messages forgotten earlier (`graphmem forget --message`) again; without it"
        " they are skipped and counted",
    )


def add_demo(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", common: argparse.ArgumentParser
) -> None:
    """Add the demo command and its arguments."""
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
    demo.add_argument(
        "--lang",
        choices=sorted(LANGUAGES),
        default=default_language(os.environ),
        help="tell it in English or Chinese (default: the locale's language, else en)",
    )


def add_counting(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]",
    common: argparse.ArgumentParser,
    owned: argparse.ArgumentParser,
    timed: argparse.ArgumentParser,
    one_or_all: argparse.ArgumentParser,
) -> None:
    """Add the stats, owners, health, profile and turns commands and their arguments."""
    stats = commands.add_parser(
        "stats", parents=[owned], help="nodes per label, memories per tier, belief histogram"
    )
    stats.add_argument("--json", action="store_true", help="print the counts as JSON")
    owners = commands.add_parser(
        "owners", parents=[common], help="every owner that has a turn stored, one a line"
    )
    owners.add_argument("--json", action="store_true", help="print the owners as a JSON list")
    health = commands.add_parser(
        "health",
        parents=[one_or_all],
        help="counts, pending work, duplicates, contradictions, conjectures, unused and isolated",
    )
    health.add_argument("--json", action="store_true", help="one JSON line per owner")
    profile = commands.add_parser(
        "profile",
        parents=[owned, timed],
        help="who the user is now: facts by slot, conjectures, open events (no model call)",
    )
    profile.add_argument("--json", action="store_true", help="print the profile as JSON")
    turns = commands.add_parser(
        "turns", parents=[owned], help="one session's turns in order, with their message ids"
    )
    turns.add_argument(
        "--session", default="", help="the session (default: the turns observed without one)"
    )
    turns.add_argument("--last", type=int, metavar="N", help="only the last N turns (default: all)")
    turns.add_argument("--json", action="store_true", help="print the turns as a JSON list")


def add_upkeep(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]",
    owned: argparse.ArgumentParser,
    timed: argparse.ArgumentParser,
) -> None:
    """Add the learn, retier and complete-pending commands and their arguments."""
    learn = commands.add_parser(
        "learn",
        parents=[owned, timed],
        help="causal knowledge: CAUSE leads to EFFECT with a sufficiency (0-1)",
    )
    learn.add_argument("--cause", required=True, help="what leads to the effect")
    learn.add_argument("--effect", required=True, help="what the cause leads to")
    learn.add_argument(
        "--sufficiency", type=float, required=True, help="how surely it does, from 0 to 1"
    )
    retier = commands.add_parser(
        "retier",
        parents=[owned, timed],
        help="sink the memories whose attention faded or that overflow a tier (cheap)",
    )
    retier.add_argument("--json", action="store_true", help="print the count as JSON")
    pending = commands.add_parser(
        "complete-pending",
        parents=[owned],
        help="derive the memories of turns left pending by a failed model, oldest first",
    )
    pending.add_argument(
        "--limit", type=int, default=1000, help="turns derived at most (default 1000)"
    )
    pending.add_argument("--json", action="store_true", help="print the count as JSON")


def add_forgetting(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", owned: argparse.ArgumentParser
) -> None:
    """Add the forget and forget-owner commands and their arguments."""
    forget = commands.add_parser(
        "forget",
        parents=[owned],
        help="delete messages and what derives only from them; rewrite what they shared",
    )
    forget.add_argument(
        "--message",
        action="append",
        required=True,
        metavar="ID",
        help="the message id to forget (repeat for several)",
    )
    forget.add_argument("--json", action="store_true", help="one JSON line per message")
    forget_owner = commands.add_parser(
        "forget-owner", parents=[owned], help="delete everything of one owner, and count"
    )
    forget_owner.add_argument(
        "--yes", action="store_true", required=True, help="confirm the deletion"
    )


def store_flags(kept: str) -> argparse.ArgumentParser:
    """The flags that name a command's store; `kept` says where the memory is without a path."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument("--store", choices=["networkx", "neo4j"], help="where the graph is")
    where = flags.add_mutually_exclusive_group()
    where.add_argument(
        "--path",
        type=Path,
        help=f"file of the networkx store (default: GRAPHMEM_PATH, else {kept})",
    )
    where.add_argument(
        "--in-memory",
        action="store_true",
        help="keep the networkx store in this process only: gone when the command ends",
    )
    flags.add_argument("--config", type=Path, help="a TOML file of settings (GRAPHMEM_CONFIG)")
    return flags


def parser() -> argparse.ArgumentParser:
    """The command line's grammar."""
    common = store_flags(f"the per-user file {user_store_file()}")
    owned = argparse.ArgumentParser(add_help=False, parents=[common])
    owned.add_argument("--owner", required=True, help="whose memory (the tenant)")
    timed = argparse.ArgumentParser(add_help=False)
    timed.add_argument(
        "--at", type=moment, help=f"ISO 8601 with a UTC offset, such as {AT_EXAMPLE} (default: now)"
    )
    one_or_all = argparse.ArgumentParser(add_help=False, parents=[common, timed])
    whom = one_or_all.add_mutually_exclusive_group(required=True)
    whom.add_argument("--owner", help="the owner whose memory it is about")
    whom.add_argument("--all", action="store_true", help="every owner, one after another")
    top = argparse.ArgumentParser(
        prog="graphmem",
        description="Long-term memory for conversational agents, kept as a graph: observe what"
        " is said, recall what relates to a question, and let the sleep job (consolidate)"
        " summarise and consolidate what was observed. A command about one user's memory names"
        f" the user with --owner. The memory is kept in {user_store_file()} unless --path,"
        " GRAPHMEM_PATH, --in-memory or --store neo4j says otherwise. Start with `graphmem"
        " demo`, a short conversation that shows every mechanism; `graphmem COMMAND --help`"
        " describes a command.",
    )
    top.add_argument("--version", action="version", version=f"graphmem {__version__}")
    commands = top.add_subparsers(dest="command", required=True)

    add_demo(commands, store_flags("in memory only: gone when the demo ends"))
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
    add_readmit(observe)
    add_import_history(commands, owned)
    add_recall(commands, owned, timed)
    sleep = commands.add_parser(
        "consolidate",
        parents=[one_or_all],
        help="the sleep job: summaries, events, consolidation, re-tiering",
    )
    sleep.add_argument(
        "--log-every",
        type=int,
        default=100,
        help="items (and owners, with --all) between log lines (not on a terminal)",
    )
    sleep.add_argument(
        "--workers",
        type=int,
        help="with --all: owners consolidated at once by this process (default 1); start the"
        " command on more machines to share the owners of one Neo4j",
    )
    sleep.add_argument(
        "--lease",
        type=float,
        metavar="SECONDS",
        help="with --all: how long a worker's claim on an owner holds unrenewed; a dead"
        f" worker's owners are taken over after it (default {LEASE.total_seconds():.0f})",
    )
    sleep.add_argument("--prefix", help="with --all: only the owners whose name starts with this")
    add_counting(commands, common, owned, timed, one_or_all)
    add_upkeep(commands, owned, timed)
    export = commands.add_parser(
        "export", parents=[owned], help="write one owner's memory as JSON lines"
    )
    export.add_argument("--out", type=Path, help="file to write (default: stdout)")
    load = commands.add_parser("import", parents=[common], help="load JSON lines written by export")
    load.add_argument("file", nargs="?", type=Path, help="JSON lines (default: stdin)")
    add_forgetting(commands, owned)
    server = commands.add_parser(
        "mcp",
        parents=[common],
        help="serve the memory to an agent as the tools of an MCP server (extra: graphmem[mcp])",
    )
    server.add_argument("--owner", help="serve this owner only (default: each call names one)")
    server.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio: the client starts the server and talks over its standard input and output"
        " (default); http: streamable HTTP at http://HOST:PORT/mcp",
    )
    server.add_argument("--host", default="127.0.0.1", help="address for --transport http")
    server.add_argument("--port", type=int, default=8000, help="port for --transport http")
    add_service(commands, common)
    return top


def add_service(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", common: argparse.ArgumentParser
) -> None:
    """The grammar of `serve` and `keys`."""
    serve = commands.add_parser(
        "serve",
        parents=[common],
        help="serve the memory over HTTP and JSON, behind keys (extra: graphmem[server])",
        description="Serve every verb over HTTP (the OpenAPI schema at /openapi.json). Requests"
        " name a key as 'Authorization: Bearer KEY' (graphmem keys create); with no key in the"
        " store the server is open, on a loopback address only.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=SERVE_PORT, help=f"port (default {SERVE_PORT})")
    serve.add_argument(
        "--max-body", type=int, default=1_000_000, help="bytes of a request body (default 1 MB)"
    )
    serve.add_argument(
        "--rate", type=float, default=50.0, help="requests a second per key (default 50)"
    )
    serve.add_argument("--burst", type=int, default=100, help="requests at once per key")
    serve.add_argument("--workers", type=int, default=8, help="verbs that run at once (default 8)")
    serve.add_argument(
        "--in-flight",
        type=int,
        default=4,
        help="requests of one key in progress at once; more get 429 (default 4)",
    )
    serve.add_argument(
        "--max-messages",
        type=int,
        default=100,
        help="messages one observe_many may carry; more get 413 (default 100)",
    )
    serve.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        help="seconds a request's headers may take; then the connection closes (default 10)",
    )
    serve.add_argument(
        "--body-timeout",
        type=float,
        default=30.0,
        help="seconds a request's body may take once its headers are in; then 408 (default 30)",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the server answers to besides the address it listens on (repeatable;"
        " a Host header naming any other is refused, against DNS rebinding)",
    )
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a proxy's address whose X-Forwarded-For names the client (repeatable; otherwise"
        " the header is ignored)",
    )
    keys = commands.add_parser("keys", help="create, list and revoke API keys")
    actions = keys.add_subparsers(dest="action", required=True)
    create = actions.add_parser(
        "create",
        parents=[common],
        help="a new key for --owner (repeatable), --owner-prefix or --admin: its secret alone on"
        " stdout, shown this once",
    )
    create.add_argument("--owner", action="append", default=[], help="an owner the key may touch")
    create.add_argument("--owner-prefix", help="the key may touch owners starting with this")
    create.add_argument(
        "--admin", action="store_true", help="the key may touch every owner and manage keys"
    )
    create.add_argument("--json", action="store_true", help="print the key as JSON")
    listing = actions.add_parser("list", parents=[common], help="every key, never its secret")
    listing.add_argument("--json", action="store_true", help="a JSON object a key")
    revoke = actions.add_parser("revoke", parents=[common], help="revoke a key by its id")
    revoke.add_argument("id", help="the key's id (graphmem keys list)")


def run_service(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Run `mcp`, `serve` or one of the `keys` commands."""
    if arguments.command == "mcp":
        from graphmem.mcp_server import serve as serve_mcp  # noqa: PLC0415 (extra may be missing)

        serve_mcp(
            settings,
            owner=arguments.owner,
            transport=arguments.transport,
            host=arguments.host,
            port=arguments.port,
        )
        return
    if arguments.command == "serve":
        from graphmem.server import (  # noqa: PLC0415 (its extra may be missing)
            Limits,
            Perimeter,
            serve,
        )

        limits = Limits(
            max_body=arguments.max_body,
            max_messages=arguments.max_messages,
            rate=arguments.rate,
            burst=arguments.burst,
            in_flight=arguments.in_flight,
            header_timeout=arguments.header_timeout,
            body_timeout=arguments.body_timeout,
        )
        perimeter = Perimeter(
            allowed_hosts=tuple(arguments.allowed_host),
            trusted_proxies=tuple(arguments.trusted_proxy),
        )
        serve(
            settings,
            host=arguments.host,
            port=arguments.port,
            limits=limits,
            workers=arguments.workers,
            perimeter=perimeter,
        )
        return
    run_keys(settings, arguments, out)


def run_keys(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Run `keys create`, `keys list` or `keys revoke` on the store the settings name.

    A store file that another process holds (`graphmem serve`, most likely) is refused with
    what to do instead: stop the server, or manage the keys through it.
    """
    try:
        memory = GraphMem.open(settings)
    except StoreError as error:
        if not str(error).endswith(HELD_ELSEWHERE):
            raise
        raise StoreError(f"{error}. {keys_through_the_server(arguments)}") from None
    with memory:
        if arguments.action == "create":
            made = memory.create_key(
                owners=arguments.owner, owner_prefix=arguments.owner_prefix, admin=arguments.admin
            )
            print(made.model_dump_json() if arguments.json else made.secret, file=out)
            print(
                f"key {made.key.id} ({made.key.scope()}) is shown this once: keep it"
                " (the store keeps its hash)",
                file=sys.stderr,
            )
        elif arguments.action == "list":
            for key in memory.list_keys():
                if arguments.json:
                    print(key.model_dump_json(), file=out)
                    continue
                state = (
                    "" if key.revoked_at is None else f", revoked {key.revoked_at:%Y-%m-%d %H:%M}"
                )
                print(
                    f"{key.id}  {key.scope()}  (made {key.created_at:%Y-%m-%d %H:%M}{state})",
                    file=out,
                )
        else:
            revoked = memory.revoke_key(arguments.id)
            if revoked is None:
                raise InvalidInputError(f"no key {arguments.id!r} (graphmem keys list shows them)")
            print(f"key {revoked.id} revoked", file=out)


def keys_through_the_server(arguments: argparse.Namespace) -> str:
    """What to do when a `keys` command finds its store file held by `graphmem serve`."""
    url = f"http://127.0.0.1:{SERVE_PORT}/v1/keys"
    admin = ["-H", "Authorization: Bearer ADMIN_KEY"]
    json_body = ["-H", "Content-Type: application/json", "-d"]
    if arguments.action == "create":
        scope = {
            "owners": arguments.owner,
            "owner_prefix": arguments.owner_prefix,
            "admin": arguments.admin,
        }
        body = json.dumps({name: value for name, value in scope.items() if value})
        done, route = "create the key", "POST /v1/keys"
        command = ["curl", "-X", "POST", *admin, *json_body, body, url]
    elif arguments.action == "list":
        done, route = "list the keys", "GET /v1/keys"
        command = ["curl", *admin, url]
    else:
        done, route = "revoke the key", "POST /v1/keys/{id}/revoke"
        command = ["curl", "-X", "POST", *admin, f"{url}/{quote(arguments.id, safe='')}/revoke"]
    advice = (
        "If it is `graphmem serve`, either stop the server and run this command again, or"
        f" {done} through the server ({route}) with an admin key, at the server's address:"
        f" `{shlex.join(command)}`"
    )
    if arguments.action == "create":
        first = ["curl", "-X", "POST", *json_body, json.dumps({"admin": True}), url]
        advice += (
            "; a server with no key yet creates its first key, an admin key, that way without"
            f" one (and asks for keys from then on): `{shlex.join(first)}`"
        )
    return advice


def run_forgetting(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Run the forget or the forget-owner command."""
    if arguments.command == "forget":
        run_forget_messages(settings, arguments.owner, arguments.message, arguments.json, out)
    else:
        run_forget_owner(settings, arguments.owner, out)


def command_settings(arguments: argparse.Namespace) -> Settings:
    """The settings a command runs on: the flags', variables' and file's, with the store's place.

    The embedded store is kept in the per-user file (`user_store_file`) unless a path is set or
    `--in-memory` is given; the demo keeps it in memory unless a path is set. The first time the
    per-user folder is used, a line on stderr says where the memory is kept.
    """
    settings = Settings.from_env(file=arguments.config, store=arguments.store, path=arguments.path)
    if arguments.in_memory:
        if settings.store != "networkx":
            raise ConfigurationError(
                f"--in-memory is for the networkx store; the {settings.store} store keeps the"
                " memory in its server"
            )
        return settings.model_copy(update={"path": None})
    if settings.store != "networkx" or settings.path is not None or arguments.command == "demo":
        return settings
    path = user_store_file()
    if not path.parent.exists():  # the store makes the folder as it opens: said once
        print(
            f"graphmem: the memory is kept in {path} (--path FILE or GRAPHMEM_PATH keeps it"
            " elsewhere, --in-memory in this process only)",
            file=sys.stderr,
        )
    return settings.model_copy(update={"path": path})


def run(arguments: argparse.Namespace, out: TextIO) -> None:
    """Run one parsed command."""
    settings = command_settings(arguments)
    command = arguments.command
    if command == "demo":
        run_demo(settings, out, arguments.plot, owner=arguments.owner, language=arguments.lang)
    elif command == "observe":
        run_observe(
            settings,
            arguments.owner,
            input_lines(arguments.file),
            batch=arguments.batch,
            readmit=arguments.readmit_forgotten,
            as_json=arguments.json,
            out=out,
        )
    elif command == "import-history":
        run_import_history(
            settings,
            arguments.owner,
            arguments.file,
            at=arguments.at,
            batch=arguments.batch,
            readmit=arguments.readmit_forgotten,
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
            max_tokens=arguments.max_tokens,
            filters={
                "sessions": arguments.session,
                "speakers": arguments.speaker,
                "since": arguments.since,
                "until": arguments.until,
                "kinds": arguments.kind,
                "min_belief": arguments.min_belief,
            },
            as_json=arguments.json,
            out=out,
        )
    elif command == "consolidate":
        run_consolidate(settings, arguments, max(arguments.log_every, 1), out)
    elif command in ("stats", "owners", "health", "profile", "turns"):
        run_reading(settings, arguments, out)
    elif command in ("learn", "retier", "complete-pending"):
        run_upkeep(settings, arguments, out)
    elif command == "export":
        run_export(settings, arguments.owner, arguments.out, out)
    elif command == "import":
        run_import(settings, input_lines(arguments.file), out)
    elif command in ("forget", "forget-owner"):
        run_forgetting(settings, arguments, out)
    else:
        run_service(settings, arguments, out)


def main(argv: Sequence[str] | None = None) -> ExitStatus:
    """Parse the command line and run it; returns the process exit status."""
    arguments = parser().parse_args(argv)
    try:
        run(arguments, sys.stdout)
    except GraphMemError as error:  # one line, though a driver's reason may hold several
        print(f"graphmem: {' '.join(str(error).splitlines())}", file=sys.stderr)
        return ExitStatus.ERROR
    except UnicodeDecodeError as error:  # standard input that is not UTF-8
        print(f"graphmem: the input is not UTF-8: {error}", file=sys.stderr)
        return ExitStatus.ERROR
    except BrokenPipeError:  # the reader went away (graphmem ... | head): stop, quietly
        # Standard output is flushed once more at exit; point it at nothing so that it can be.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitStatus.ERROR
    return ExitStatus.DONE
