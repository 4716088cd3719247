"""The `graphmem` command line: observe, import-history, recall, consolidate, stats and more.

The others: profile, turns (a session's history), health, owners, learn, retier,
complete-pending, forget (messages, with what derives from them), export, import, forget-owner,
`demo` (a short conversation that shows every mechanism), `mcp` (the MCP server), `serve` and
`keys` (the HTTP service and its keys). `graphmem import-history --help` describes the two
formats of a chat history.

`grammar` parses a command line; `COMMANDS` below maps the command's name to the function that
runs it, found in the room of its kind (observing, reading, upkeep, owner_data, servers), which
prints what it did through `printers` and `progress`. The files the commands read and write are
graphmem.file_formats'; what they do is the facade's (graphmem.memory).
"""

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import TextIO

from graphmem.cli import observing, owner_data, reading, servers, upkeep
from graphmem.cli.grammar import SERVE_PORT, parser
from graphmem.config import Settings, user_store_file
from graphmem.demo import run_demo
from graphmem.errors import ConfigurationError, GraphMemError

__all__ = ["COMMANDS", "SERVE_PORT", "ExitStatus", "main", "parser"]


class ExitStatus(IntEnum):
    """The statuses `graphmem` exits with, each listed in docs/cli.md."""

    DONE = 0
    """The command did its work."""
    ERROR = 1
    """An error, said in one line on standard error (a GraphMemError, ConfigurationError too)."""
    USAGE = 2
    """A command line it cannot parse: argparse's own status, printed with the usage."""


def play_demo(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Play the demo conversation and write its plot."""
    run_demo(settings, out, arguments.plot, owner=arguments.owner, language=arguments.lang)


Command = Callable[[Settings, argparse.Namespace, TextIO], None]
"""What runs a parsed command: on its settings, with its arguments, printing to `out`."""

COMMANDS: dict[str, Command] = {
    "demo": play_demo,
    "observe": observing.run_observe,
    "import-history": observing.run_import_history,
    "recall": reading.run_recall,
    "consolidate": upkeep.run_consolidate,
    "stats": reading.run_stats,
    "owners": reading.run_owners,
    "health": reading.run_health,
    "profile": reading.run_profile,
    "turns": reading.run_turns,
    "timeline": reading.run_timeline,
    "neighbourhood": reading.run_neighbourhood,
    "events": reading.run_events,
    "impressions": reading.run_impressions,
    "learn": upkeep.run_learn,
    "retier": upkeep.run_retier,
    "complete-pending": upkeep.run_complete_pending,
    "export": owner_data.run_export,
    "import": owner_data.run_import,
    "forget": owner_data.run_forget,
    "forget-owner": owner_data.run_forget_owner,
    "mcp": servers.run_mcp,
    "serve": servers.run_serve,
    "keys create": servers.run_keys_create,
    "keys list": servers.run_keys_list,
    "keys revoke": servers.run_keys_revoke,
}
"""Each command by its name (grammar.parser's `command`), and what runs it."""


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
    if settings.store != "networkx" or settings.path is not None or not arguments.per_user_file:
        return settings
    path = user_store_file()
    if not path.parent.exists():  # the store makes the folder as it opens: said once
        print(
            f"graphmem: the memory is kept in {path} (--path FILE or GRAPHMEM_PATH keeps it"
            " elsewhere, --in-memory in this process only)",
            file=sys.stderr,
        )
    return settings.model_copy(update={"path": path})


def main(argv: Sequence[str] | None = None) -> ExitStatus:
    """Parse the command line and run it; returns the process exit status."""
    arguments = parser().parse_args(argv)
    try:
        COMMANDS[arguments.command](command_settings(arguments), arguments, sys.stdout)
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
