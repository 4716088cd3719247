"""The commands that read a memory: recall, stats, owners, health, profile and turns."""

import argparse
import json
import sys
from typing import TextIO

from graphmem.cli.options import options_given, parsed
from graphmem.cli.printers import (
    counted,
    print_counts,
    print_health,
    print_recall,
    print_rendered,
    say_unknown_owner,
)
from graphmem.config import Settings
from graphmem.contract import NodeWanted, RecallQuestion, TimelineWanted, TurnsWanted
from graphmem.errors import InvalidInputError
from graphmem.memory import GraphMem
from graphmem.model import check_text


def run_recall(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Recall and print the memories with their scores, its text alone, or the subgraph as JSON.

    With --max-tokens what is printed is the recall's text for a prompt (`rendered`), and how
    the recall went goes to stderr; the JSON carries `rendered` too.
    """
    owner = arguments.owner
    query = checked_query(sys.stdin.read() if arguments.query == "-" else arguments.query)
    given = options_given(arguments, RecallQuestion)
    with GraphMem.open(settings) as memory:
        recall = memory.recall(owner, **given | {"query": query})
        nothing_stored = not recall.memories and memory.statistics(owner).total == 0
    if arguments.json:
        print(json.dumps(recall.as_json(), ensure_ascii=False), file=out)
    elif "max_tokens" in given:
        print_rendered(recall, out)
    else:
        print_recall(recall, out)
    if nothing_stored:
        say_unknown_owner(owner, out)


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


def run_stats(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Print one owner's counts."""
    with GraphMem.open(settings) as memory:
        counts = memory.statistics(arguments.owner)
    if arguments.json:
        print(counts.model_dump_json(), file=out)
    else:
        print_counts(counts, out)
    if counts.total == 0:
        say_unknown_owner(arguments.owner, out)


def run_owners(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Print every owner that has a turn stored, one a line (or as a JSON list)."""
    with GraphMem.open(settings) as memory:
        owners = memory.owners()
    if arguments.json:
        print(json.dumps(owners, ensure_ascii=False), file=out)
    else:
        for owner in owners:
            print(owner, file=out)


def run_health(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Print the health report of the owner, or of every owner with --all."""
    with GraphMem.open(settings) as memory:
        owners = [arguments.owner] if arguments.owner is not None else memory.owners()
        for name in owners:
            health = memory.health(name, at=arguments.at)
            if arguments.json:
                print(health.model_dump_json(), file=out)
            else:
                print_health(health, out)
            if health.counts.total == 0:
                say_unknown_owner(name, out)
    if not arguments.json:
        print(
            'Browser: the query "graphmem health: ROW" of browser/queries.cypher shows the nodes'
            " of a row",
            file=out,
        )


def run_profile(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Print the owner's profile: a line per fact, conjecture and open event (or JSON)."""
    owner = arguments.owner
    with GraphMem.open(settings) as memory:
        profile = memory.profile(owner, at=arguments.at)
        known = profile.facts or profile.conjectures or profile.events
        nothing_stored = not known and memory.statistics(owner).total == 0
    if arguments.json:
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
        say_unknown_owner(owner, out)


def run_turns(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Print one session's turns in order: place, time, speaker, message id and text (or JSON)."""
    owner, wanted = arguments.owner, parsed(arguments, TurnsWanted)
    session = wanted.session
    with GraphMem.open(settings) as memory:
        turns = memory.turns(owner, session=session, last=wanted.last)
    if arguments.json:
        print(json.dumps([turn.model_dump(mode="json") for turn in turns]), file=out)
        return
    for turn in turns:
        when = turn.created_at.strftime("%Y-%m-%d %H:%M")
        text = " ".join(turn.text.split())
        print(f"{turn.position:>5}  {when}  [{turn.id}] {turn.speaker}: {text}", file=out)
    if not turns:
        print(f"{owner} has no turns in session {session!r}", file=out)


def run_timeline(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Print a page of the owner's memories, newest first, and how to read the next (or JSON)."""
    owner, given = arguments.owner, options_given(arguments, TimelineWanted)
    with GraphMem.open(settings) as memory:
        page = memory.timeline(owner, **given)
    if arguments.json:
        print(page.model_dump_json(), file=out)
        return
    for entry in page.entries:
        found = entry.memory
        when = found.created_at.strftime("%Y-%m-%d %H:%M")
        said = f"{entry.turns[0].speaker}, " if entry.turns else ""
        text = " ".join(found.text.split())
        print(
            f"{when}  [{found.id}] {said}{found.kind.value}, tier {int(found.tier)},"
            f" attention {entry.attention:.2f}: {text}",
            file=out,
        )
    if not page.entries:
        print(f"{owner} has no memories on this page", file=out)
    if page.next is not None:
        print(f"more: --before '{page.next}'", file=out)


def run_neighbourhood(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Print a node, its neighbours one edge away and those edges (or JSON)."""
    owner, wanted = arguments.owner, parsed(arguments, NodeWanted)
    with GraphMem.open(settings) as memory:
        around = memory.neighbourhood(owner, wanted.node_id, label=wanted.label)
    if arguments.json:
        print(around.model_dump_json(), file=out)
        return
    nodes = [*around.turns, *around.memories, *around.events, *around.impressions]
    if not nodes:
        print(f"{owner} has no {wanted.label} {wanted.node_id!r}", file=out)
        return
    for node in nodes:
        label = type(node).__name__
        print(f"{label} [{node.id}]: {' '.join(node.text.split())}", file=out)
    for link in around.links:
        print(f"  {link.source} -{link.type.value}-> {link.target}", file=out)


def run_events(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Print every event of the owner: a line each, then its storyline (or JSON)."""
    owner = arguments.owner
    with GraphMem.open(settings) as memory:
        entries = memory.events(owner, at=arguments.at)
    if arguments.json:
        print(json.dumps([entry.model_dump(mode="json") for entry in entries]), file=out)
        return
    for entry in entries:
        event, state = entry.event, "open" if entry.open else "closed"
        print(
            f"[{event.id}] {event.title} ({event.category}, {state}, {entry.memories} memories,"
            f" {event.first_at:%Y-%m-%d} to {event.last_at:%Y-%m-%d})",
            file=out,
        )
        for line in event.text.strip().splitlines():
            print(f"  {line}", file=out)
    if not entries:
        print(f"{owner} has no events", file=out)


def run_impressions(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Print every impression of the owner with its belief now, a line each (or JSON)."""
    owner = arguments.owner
    with GraphMem.open(settings) as memory:
        entries = memory.impressions(owner, at=arguments.at)
    if arguments.json:
        print(json.dumps([entry.model_dump(mode="json") for entry in entries]), file=out)
        return
    for entry in entries:
        impression = entry.impression
        print(
            f"{entry.belief:.2f}  [{impression.id}] {impression.text} (half-life"
            f" {impression.half_life_days:g} days, {entry.cues} cues,"
            f" {entry.conjectures} conjectures)",
            file=out,
        )
    if not entries:
        print(f"{owner} has no impressions", file=out)
