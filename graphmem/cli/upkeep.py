"""The commands that change a memory: consolidate, learn, retier and complete-pending."""

import argparse
import json
from datetime import timedelta
from typing import TextIO

from graphmem.cli.options import parsed
from graphmem.cli.printers import counted, say_unknown_owner
from graphmem.cli.progress import SleepProgressPrinter
from graphmem.config import Settings
from graphmem.contract import LEASE, Lesson, Limit
from graphmem.errors import GraphMemError, InvalidInputError
from graphmem.memory import GraphMem


def run_consolidate(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Run the sleep job for one owner, or for every owner with --all (by workers, leased)."""
    printer = SleepProgressPrinter(out, max(arguments.log_every, 1))
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
                say_unknown_owner(arguments.owner, out)
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


def run_learn(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Teach the owner that a cause leads to an effect with a sufficiency, and say so."""
    owner, lesson = arguments.owner, parsed(arguments, Lesson)
    with GraphMem.open(settings) as memory:
        memory.learn(owner, lesson.cause, lesson.effect, lesson.sufficiency, at=lesson.at)
        print(
            f"{owner} learned: {lesson.cause} -> {lesson.effect}"
            f" (sufficiency {lesson.sufficiency:.2f})",
            file=out,
        )


def run_retier(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Sink the owner's memories whose attention faded or that overflow a tier, and count them."""
    owner = arguments.owner
    with GraphMem.open(settings) as memory:
        retiered = memory.retier(owner, at=arguments.at)
    if arguments.json:
        print(json.dumps({"owner": owner, "retiered": retiered}), file=out)
    else:
        print(f"{owner}: retiered {retiered} (moves to a deeper tier)", file=out)


def run_complete_pending(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Derive the memories of the owner's pending turns, oldest first, and count them."""
    owner = arguments.owner
    with GraphMem.open(settings) as memory:
        derived = memory.complete_pending(owner, limit=parsed(arguments, Limit).limit)
    if arguments.json:
        print(json.dumps({"owner": owner, "derived": derived}), file=out)
    else:
        print(f"{owner}: {counted(derived, 'pending turn')} derived", file=out)
