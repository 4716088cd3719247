"""The `graphmem` command line's grammar: its commands and their flags, shared ones as parents.

`parser()` builds it from the flags that several commands share (`SharedFlags`) and an `add_*`
a group of commands, in the order `graphmem --help` lists them; the recall's options are the
contract's fields (graphmem.cli.options). A command's name is its key in the dispatch table
(graphmem.cli.COMMANDS): the actions of `keys` set theirs, "keys create" and the others.
"""

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from graphmem import __version__
from graphmem.chat_exports import READERS as EXPORT_FORMATS
from graphmem.cli.options import add_options
from graphmem.cli.times import AT_EXAMPLE, moment
from graphmem.config import user_store_file
from graphmem.contract import (
    LEASE,
    KeyRequest,
    Lesson,
    Limit,
    NodeWanted,
    RecallQuestion,
    TimelineWanted,
    TurnsWanted,
)
from graphmem.demo import default_language
from graphmem.demo_story import LANGUAGES
from graphmem.memory import OBSERVE_CHUNK

SERVE_PORT = 8420
"""The port `graphmem serve` listens on unless --port says otherwise."""

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What `add_parser` adds a command to."""


@dataclass(frozen=True)
class SharedFlags:
    """The flags several commands share, each set a parent parser."""

    store: argparse.ArgumentParser
    """The flags that name the store (--store, --path or --in-memory, --config)."""
    owned: argparse.ArgumentParser
    """The store's flags and --owner, required: a command about one owner's memory."""
    timed: argparse.ArgumentParser
    """--at, the time a command acts at."""
    one_or_all: argparse.ArgumentParser
    """The store's flags, --at, and --owner or --all."""


def store_flags(per_user_file: bool) -> argparse.ArgumentParser:
    """The flags that name a command's store, kept in the per-user file without a path or not.

    Without one the demo keeps its memory in this process; the namespace's `per_user_file`
    says which (graphmem.cli.command_settings reads it).
    """
    kept = (
        f"the per-user file {user_store_file()}"
        if per_user_file
        else "in memory only: gone when the demo ends"
    )
    flags = argparse.ArgumentParser(add_help=False)
    flags.set_defaults(per_user_file=per_user_file)
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


def shared_flags() -> SharedFlags:
    """The parent parsers of the flags that several commands share."""
    store = store_flags(per_user_file=True)
    owned = argparse.ArgumentParser(add_help=False, parents=[store])
    owned.add_argument("--owner", required=True, help="whose memory (the tenant)")
    timed = argparse.ArgumentParser(add_help=False)
    timed.add_argument(
        "--at", type=moment, help=f"ISO 8601 with a UTC offset, such as {AT_EXAMPLE} (default: now)"
    )
    one_or_all = argparse.ArgumentParser(add_help=False, parents=[store, timed])
    whom = one_or_all.add_mutually_exclusive_group(required=True)
    whom.add_argument("--owner", help="the owner whose memory it is about")
    whom.add_argument("--all", action="store_true", help="every owner, one after another")
    return SharedFlags(store=store, owned=owned, timed=timed, one_or_all=one_or_all)


def parser() -> argparse.ArgumentParser:
    """The command line's grammar."""
    shared = shared_flags()
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
    add_demo(commands)
    add_observing(commands, shared)
    add_recall(commands, shared)
    add_consolidate(commands, shared)
    add_reading(commands, shared)
    add_upkeep(commands, shared)
    add_owner_data(commands, shared)
    add_servers(commands, shared)
    return top


def add_demo(commands: Commands) -> None:
    """Add the demo command and its arguments."""
    demo = commands.add_parser(
        "demo",
        parents=[store_flags(per_user_file=False)],
        help="play a short conversation that shows every mechanism",
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


def add_observing(commands: Commands, shared: SharedFlags) -> None:
    """Add the observe and import-history commands and their arguments."""
    observe = commands.add_parser(
        "observe", parents=[shared.owned], help="observe messages: JSON lines from a file or stdin"
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
    history = commands.add_parser(
        "import-history",
        parents=[shared.owned],
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
    history.add_argument(
        "--format",
        choices=["auto", *EXPORT_FORMATS],
        default="auto",
        help="auto (default): JSON lines of messages or a JSON list of sessions, as above;"
        " chatgpt or claude: the conversations.json of a ChatGPT or Claude data export, read a"
        " conversation at a time (docs/import.md)",
    )
    add_readmit(history)


def add_readmit(command: argparse.ArgumentParser) -> None:
    """Add the option that stores messages forgotten earlier again."""
    command.add_argument(
        "--readmit-forgotten",
        action="store_true",
        help="store messages forgotten earlier (`graphmem forget --message`) again; without it"
        " they are skipped and counted",
    )


def add_recall(commands: Commands, shared: SharedFlags) -> None:
    """Add the recall command: its query, the recall's options, and --json."""
    recall = commands.add_parser(
        "recall",
        parents=[shared.owned, shared.timed],
        help="recall what relates to a query, with reasons (with --max-tokens: its text for a"
        " prompt alone)",
    )
    recall.add_argument(
        "query",
        help="a question, or the recent conversation, one turn a line ('speaker: text'), the"
        " latest last; '-' reads it from standard input",
    )
    add_options(recall, RecallQuestion)  # the time it recalls at is the shared --at
    recall.add_argument(
        "--json", action="store_true", help="print the subgraph as JSON, its text as `rendered`"
    )


def add_consolidate(commands: Commands, shared: SharedFlags) -> None:
    """Add the consolidate command (the sleep job) and its arguments."""
    sleep = commands.add_parser(
        "consolidate",
        parents=[shared.one_or_all],
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


def add_reading(commands: Commands, shared: SharedFlags) -> None:
    """Add the commands that read an owner (stats, owners, health, profile, turns and the like)."""
    stats = commands.add_parser(
        "stats", parents=[shared.owned], help="nodes per label, memories per tier, belief histogram"
    )
    stats.add_argument("--json", action="store_true", help="print the counts as JSON")
    owners = commands.add_parser(
        "owners", parents=[shared.store], help="every owner that has a turn stored, one a line"
    )
    owners.add_argument("--json", action="store_true", help="print the owners as a JSON list")
    health = commands.add_parser(
        "health",
        parents=[shared.one_or_all],
        help="counts, pending work, duplicates, contradictions, conjectures, unused and isolated",
    )
    health.add_argument("--json", action="store_true", help="one JSON line per owner")
    profile = commands.add_parser(
        "profile",
        parents=[shared.owned, shared.timed],
        help="who the user is now: facts by slot, conjectures, open events (no model call)",
    )
    profile.add_argument("--json", action="store_true", help="print the profile as JSON")
    turns = commands.add_parser(
        "turns", parents=[shared.owned], help="one session's turns in order, with their message ids"
    )
    add_options(turns, TurnsWanted)
    turns.add_argument("--json", action="store_true", help="print the turns as a JSON list")
    timeline = commands.add_parser(
        "timeline",
        parents=[shared.owned, shared.timed],
        help="the owner's memories newest first, a page at a time, with their turns and attention",
    )
    add_options(timeline, TimelineWanted)
    timeline.add_argument("--json", action="store_true", help="print the page as JSON")
    neighbourhood = commands.add_parser(
        "neighbourhood",
        parents=[shared.owned],
        help="a memory (or turn, event, impression), every node one edge away, and those edges",
    )
    add_options(neighbourhood, NodeWanted)
    neighbourhood.add_argument("--json", action="store_true", help="print it as JSON")
    events = commands.add_parser(
        "events",
        parents=[shared.owned, shared.timed],
        help="every event, open or closed, latest update first, with its storyline",
    )
    events.add_argument("--json", action="store_true", help="print the events as a JSON list")
    impressions = commands.add_parser(
        "impressions",
        parents=[shared.owned, shared.timed],
        help="every impression with its belief now, strongest first, its cues and conjectures",
    )
    impressions.add_argument("--json", action="store_true", help="print them as a JSON list")


def add_upkeep(commands: Commands, shared: SharedFlags) -> None:
    """Add the learn, retier and complete-pending commands and their arguments."""
    learn = commands.add_parser(
        "learn",
        parents=[shared.owned, shared.timed],
        help="causal knowledge: CAUSE leads to EFFECT with a sufficiency (0-1)",
    )
    add_options(learn, Lesson)  # the time it is learned at is the shared --at
    retier = commands.add_parser(
        "retier",
        parents=[shared.owned, shared.timed],
        help="sink the memories whose attention faded or that overflow a tier (cheap)",
    )
    retier.add_argument("--json", action="store_true", help="print the count as JSON")
    pending = commands.add_parser(
        "complete-pending",
        parents=[shared.owned],
        help="derive the memories of turns left pending by a failed model, oldest first",
    )
    add_options(pending, Limit)
    pending.add_argument("--json", action="store_true", help="print the count as JSON")


def add_owner_data(commands: Commands, shared: SharedFlags) -> None:
    """Add the export, import, forget and forget-owner commands and their arguments."""
    export = commands.add_parser(
        "export", parents=[shared.owned], help="write one owner's memory as JSON lines"
    )
    export.add_argument("--out", type=Path, help="file to write (default: stdout)")
    load = commands.add_parser(
        "import", parents=[shared.store], help="load JSON lines written by export"
    )
    load.add_argument("file", nargs="?", type=Path, help="JSON lines (default: stdin)")
    forget = commands.add_parser(
        "forget",
        parents=[shared.owned],
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
        "forget-owner", parents=[shared.owned], help="delete everything of one owner, and count"
    )
    forget_owner.add_argument(
        "--yes", action="store_true", required=True, help="confirm the deletion"
    )


def add_servers(commands: Commands, shared: SharedFlags) -> None:
    """Add the mcp, serve and keys commands and their arguments."""
    mcp = commands.add_parser(
        "mcp",
        parents=[shared.store],
        help="serve the memory to an agent as the tools of an MCP server (extra: graphmem[mcp])",
    )
    mcp.add_argument("--owner", help="serve this owner only (default: each call names one)")
    mcp.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio: the client starts the server and talks over its standard input and output"
        " (default); http: streamable HTTP at http://HOST:PORT/mcp",
    )
    mcp.add_argument("--host", default="127.0.0.1", help="address for --transport http")
    mcp.add_argument("--port", type=int, default=8000, help="port for --transport http")
    add_serve(commands, shared)
    keys = commands.add_parser("keys", help="create, list and revoke API keys")
    actions = keys.add_subparsers(dest="action", required=True)
    create = actions.add_parser(
        "create",
        parents=[shared.store],
        help="a new key for --owner (repeatable), --owner-prefix or --admin: its secret alone on"
        " stdout, shown this once",
    )
    add_options(create, KeyRequest)
    create.add_argument("--json", action="store_true", help="print the key as JSON")
    listing = actions.add_parser("list", parents=[shared.store], help="every key, never its secret")
    listing.add_argument("--json", action="store_true", help="a JSON object a key")
    revoke = actions.add_parser("revoke", parents=[shared.store], help="revoke a key by its id")
    revoke.add_argument("id", help="the key's id (graphmem keys list)")
    create.set_defaults(command="keys create")  # the command's key in the dispatch table
    listing.set_defaults(command="keys list")
    revoke.set_defaults(command="keys revoke")


def add_serve(commands: Commands, shared: SharedFlags) -> None:
    """Add the serve command: where it listens, how many verbs run at once, and its limits.

    A limit's flag defaults to None, which leaves the limit to graphmem.gate.Limits (not
    imported here: it loads FastAPI); the help states Limits' defaults, and a test holds it to
    them (tests/test_cli.py).
    """
    serve = commands.add_parser(
        "serve",
        parents=[shared.store],
        help="serve the memory over HTTP and JSON, behind keys (extra: graphmem[server])",
        description="Serve every verb over HTTP (the OpenAPI schema at /openapi.json). Requests"
        " name a key as 'Authorization: Bearer KEY' (graphmem keys create); with no key in the"
        " store the server is open, on a loopback address only.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=SERVE_PORT, help=f"port (default {SERVE_PORT})")
    serve.add_argument("--max-body", type=int, help="bytes of a request body (default 1 MB)")
    serve.add_argument("--rate", type=float, help="requests a second per key (default 50)")
    serve.add_argument("--burst", type=int, help="requests at once per key")
    serve.add_argument("--workers", type=int, default=8, help="verbs that run at once (default 8)")
    serve.add_argument(
        "--in-flight",
        type=int,
        help="requests of one key in progress at once; more get 429 (default 4)",
    )
    serve.add_argument(
        "--max-messages",
        type=int,
        help="messages one observe_many may carry; more get 413 (default 100)",
    )
    serve.add_argument(
        "--header-timeout",
        type=float,
        help="seconds a request's headers may take; then the connection closes (default 10)",
    )
    serve.add_argument(
        "--body-timeout",
        type=float,
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
