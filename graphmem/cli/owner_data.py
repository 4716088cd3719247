"""The commands on an owner's data as a whole: export, import, forget and forget-owner."""

import argparse
import json
from pathlib import Path
from typing import TextIO

from graphmem.cli.observing import input_lines
from graphmem.cli.printers import print_counts, unknown_owner_message
from graphmem.config import Settings
from graphmem.contract import OwnerGraph, Tombstone, export_records, read_export
from graphmem.errors import GraphMemError, InvalidInputError
from graphmem.memory import MAX_LOAD_ITEMS, GraphMem
from graphmem.model import Link, Node, Turn


def run_export(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Write one owner's graph as JSON lines (to --out, else `out`): a header, then its records.

    The file is opened once the graph is read, so a failed export leaves it as it was; an owner
    with nothing stored is refused.
    """
    owner: str = arguments.owner
    path: Path | None = arguments.out
    with GraphMem.open(settings) as memory:
        graph = memory.export(owner)
    if not graph.nodes:
        raise InvalidInputError(unknown_owner_message(owner))
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


def run_import(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Load JSON lines written by `export` (a file, else stdin) into the owner its header names."""
    owner, graph = read_export(input_lines(arguments.file))
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


def run_forget(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Forget messages one by one with what derives from them; say what went and was rewritten.

    An owner with nothing stored is refused.
    """
    owner = arguments.owner
    with GraphMem.open(settings) as memory:
        if memory.statistics(owner).total == 0:
            raise InvalidInputError(unknown_owner_message(owner))
        for message_id in arguments.message:
            forgotten = memory.forget_message(owner, message_id)
            if arguments.json:
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


def run_forget_owner(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Delete everything of one owner and show, by counting, that nothing is left.

    An owner with nothing stored is refused.
    """
    owner = arguments.owner
    with GraphMem.open(settings) as memory:
        before = memory.statistics(owner)
        if before.total == 0:
            raise InvalidInputError(unknown_owner_message(owner))
        after = memory.forget(owner)
    print(
        f"forgot {owner}: {sum(before.nodes.values())} nodes and {sum(before.links.values())}"
        f" edges deleted; counted after: {sum(after.nodes.values())} nodes,"
        f" {sum(after.links.values())} edges",
        file=out,
    )
    if after.total:
        raise GraphMemError(f"{owner} still has {after.total} nodes and edges; run it again")
