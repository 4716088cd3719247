"""How the command line reads a time given as a flag (--at, --since, --until)."""

import argparse
from datetime import datetime

AT_EXAMPLE = "2026-05-01T09:00:00+00:00"
"""The time that errors about --at show as an example."""


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
