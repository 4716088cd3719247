"""Hostile input at volume: at least N generated inputs through each of graphmem's four channels.

    python benchmarks/hostile.py [--per-channel 10000] [--seed 7] [--store networkx|neo4j]
        [--channels api,cli,mcp,http] [--jobs 4] [--out benchmarks/hostile.json]

tests/test_hostile_input.py tries each of its hostile inputs once. This script draws
`--per-channel` inputs or more for each channel (the API, the command line, the MCP server, the
HTTP server) from the suite's fragments, and checks each as the suite does, with the suite's own
runners and checks imported from it: ApiRun, McpRun, HttpRun and http_channel (which starts
`graphmem serve`, makes its keys and looks for injections when it stops), attempt,
check_refusal, forked_cli and cli_bytes, connected and RawClient, turn_differences,
model_injections, RawGraph. `--jobs` channels run at once, each in a process of its own. Neo4j
needs GRAPHMEM_NEO4J_URI and GRAPHMEM_NEO4J_PASSWORD.

**Strings** (seeded: a seed draws the same inputs; only the run's owner names, which some
fragments hold, differ). A hostile string is drawn one of six ways: 25% a fragment of the suite
as it is (its hostile texts, message ids, sessions, speakers and owners, those aimed at the
bystander, line breakers, times, URL owners escaped and not, time queries, string junk); 25% two
to four fragments joined by a separator that breaks quoting (quote, backslash, backtick, NUL,
newline, brace, `//`); 22% a fragment changed one to four times (a code point inserted or
replaced, a slice deleted, repeated or swapped for a fragment, wrapped in quotes, brackets or
Cypher, case swapped, normalised to NFC, NFD, NFKC or NFKD, repeated); 15% 1-80 random code points
of C0 and C1 controls, Latin-1, combining marks, Hebrew and Arabic, spaces, zero-width and
bidirectional controls, line separators, CJK, noncharacters, variation selectors, mathematical
letters, emoji, tags and the last plane's end, one in a hundred a lone surrogate where the
channel carries them (the API, JSON lines, the raw MCP lines, HTTP bodies); 11% a string of the
field's limit (one time in five another field's) minus two to plus two characters (text 100,000
of whitespace, ids, sessions and speakers 256, owners 128) with fragments at its ends; 2% one of
the suite's strings of a megabyte.

**Inputs.** API, MCP and HTTP: a message with hostile strings in one to four of text,
message_id, session and speaker, then, about a third of the times, its text as a query;
forget_message of a stored id or a hostile one. API and MCP also: a verb by a hostile owner
(API: observe, recall, export, forget_message, consolidate; MCP: the tools observe, recall,
consolidate, forget_message); one to three arguments of the wrong type (the suite's wrong types,
and junk in string arguments: the suite's TYPE_JUNK, huge and negative numbers, NaN and
infinities, lists nested 1-200 deep, operator maps, lists of fragments, booleans, null) with
hostile strings in the others; a message at a hostile time (API: datetimes naive, of the wrong
type, at and past the ends of the calendar; MCP: the suite's TIMES). MCP also: observe with an
argument it does not have (belief, importance, tier...), and, through the suite's raw client, a
tenth of its inputs as lines the SDK cannot send (a lone surrogate in a field or the owner, a
field or the arguments nested 1,000 or 100,000 deep, arguments that are no object, a line cut
short, a text that is not UTF-8, the text given twice). The command line: JSON lines of such
messages (also with junk in a field, a hostile `at`, or broken: cut short, in a list, an unknown
key, `id` for message_id, the text twice, a field nested 10, 500 or 100,000 deep, junk before or
after), observed many lines a process (`observe --json`, in a process forked with graphmem
imported); observe, export and recall by a hostile owner; recall with a stored hostile text (or
a query to refuse); forget by a hostile id; a line not UTF-8 through `python -m graphmem`. HTTP
also: hostile strings in every string field of every route's body, nested ones too; junk in any
field, or a hostile query parameter; hostile owners and key ids in the path (as admin, or with a
key for a prefix the owner starts with); hostile values of Authorization, X-Request-Id,
Content-Type, Accept, Cookie and Forwarded, as raw bytes; bodies cut short, in a list, with
bytes after them or not UTF-8, a key twice, a field nested 100 to 100,000 deep, of the size
limit give or take two bytes; and, as they are, inputs drawn from every list the suite builds
for every route (owners, key ids, keys, methods, bodies, fields, strings, edge times, the HTTP
parser).

**Checks**, per input, as the suite makes them. An input is stored verbatim (the answer, the export
and, for a text, a recall give it back equal, code point for code point) or refused: through the
API with a GraphMemError naming the field; on the command line with exit 1 and one line `graphmem:
line N: ...` (`graphmem: owner ...`), naming the field, no traceback; over MCP with a tool error
naming it, never the SDK's generic error (the raw lines: answered, and never stored unless a text
not UTF-8 or given twice); over HTTP with a 4xx whose body is the error JSON (naming the field for
a 400 or 422 where the suite asks it). It must be stored if every field keeps its rule: a text or
query 1-100,000 characters of valid Unicode, not only whitespace; a message id the same at 256; a
session or speaker at most 256 characters of valid Unicode; an owner of the owner format (the
suite's valid_owner; only owners that break it are drawn). The wrong types must be refused, and so
must lines and bodies cut short, in a list or with something after them, and bodies over the size
limit (413); the suite's own inputs keep their own expectation; where no rule decides (most times,
unknown arguments, most HTTP fields, a message id not found over HTTP) either passes. A crash is
any other exception, a 5xx, no answer (within 60 s over HTTP and MCP; an MCP call left unanswered
ends its session, and its block goes on in the next), a traceback in an output or a log, a server
that stops. Each block of inputs (API 100, command line 100, MCP and HTTP 500) has a fresh owner,
and on networkx a store file of its own; when it ends: the owner's export holds exactly the turns
stored, verbatim; the bystander owner's export is unchanged; no refused owner holds a node; the
owner's nodes stay within the model (owner, belief, scores; on Neo4j also labels, types, property
keys, indexes and constraints); the HTTP server's log holds no line it did not write. The API's
blocks end with the sleep job, checked again, and the store file opened again must give back the
same graphs.

**Figures**, per channel: inputs tried, stored verbatim (taken, and given back equal where it
holds a value), refused (as it must be), crashes, injections, other wrong outcomes (a refusal
that is vague or of valid input, input stored that must be refused, not verbatim; problems
found when a block ends count here, not as inputs), slow inputs (answered after more than 10 s:
neither crashes nor wrong, but listed), and seconds.

One script, in sections (the draw; what became of the inputs; the API; the command line; the MCP
server; the HTTP server; the run): the four channels share the draw, the tally and the suite's
runners, and each channel is one section, read on its own.
"""

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import sys
import tempfile
import time
import traceback
import unicodedata
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, timezone
from functools import cached_property, partial
from multiprocessing import forkserver
from pathlib import Path
from typing import Any, Literal, cast, get_origin
from urllib.parse import unquote

import pytest
from provenance import write_result
from pydantic import SecretStr

from graphmem import __version__
from graphmem.contract import MAX_RECALL, OwnerGraph
from graphmem.embedding import CachedEmbedder, E5Embedder
from graphmem.memory import GraphMem
from graphmem.model import EARLIEST, LATEST, MAX_ID_CHARS, MAX_OWNER_CHARS, MAX_TEXT_CHARS, Turn
from graphmem.store.base import Store
from graphmem.store.networkx import NetworkXStore
from tests.conftest import FORKS, ROOT, Neo4jServer
from tests.test_cli import cli_bytes, forked_cli
from tests.test_hostile_input import (
    ANSWER_SECONDS,
    BYSTANDER_TEXTS,
    CLI_OWNERS,
    FIELD_NAMES,
    GENERIC_TOOL_ERROR,
    HOSTILE_SAMPLE,
    IDS,
    LINE_BREAKERS,
    MAX_BODY,
    MCP_WRONG_TYPES,
    OWNERS,
    PLAIN,
    SESSIONS,
    SPEAKERS,
    TEXTS,
    TIME_QUERIES,
    TIMES,
    TYPE_JUNK,
    URL_OWNERS,
    ApiRun,
    BodyField,
    Hostile,
    HttpInput,
    HttpRoute,
    HttpRun,
    McpRun,
    Observer,
    RawClient,
    RawGraph,
    Tally,
    aimed_at,
    as_turn,
    attempt,
    auth_inputs,
    body_fields,
    body_inputs,
    check_refusal,
    cli_store,
    crash,
    edge_time_inputs,
    exported,
    exported_turns,
    field_inputs,
    http_channel,
    http_store,
    json_bytes,
    key_id_inputs,
    mcp_launch,
    mentions,
    method_inputs,
    model_injections,
    nested,
    owner_inputs,
    padded,
    parser_inputs,
    raw_request,
    route_of,
    segment,
    string_inputs,
    tool_call,
    tool_text_of,
    turn_differences,
    valid_body,
    valid_owner,
    valid_unicode,
    write_bystander,
    wrong_types,
)
from tests.test_mcp import Launch, connected
from tests.test_mcp import run as run_async

CHANNELS = {"api": "API", "cli": "CLI", "mcp": "MCP", "http": "HTTP"}
BLOCKS = {"API": 100, "CLI": 100, "MCP": 500, "HTTP": 500}
"""Inputs a block: a fresh owner (and on networkx a fresh store file), checked when it ends."""
SLOW_SECONDS = 10.0
"""An input answered after this long is listed (it is neither a crash nor wrong)."""
FRAGMENT_CHARS = 1_000
"""Fragments longer than this (a megabyte, the text at the limit) are drawn whole, never joined."""
SEPARATORS = ["", " ", "'", '"', "\\", "`", "\x00", "\n", "}", "]", "; ", " // "]
WRAPPERS = [("'", "'"), ('"', '"'), ("`", "`"), ("{", "}"), ("[", "]"), ("'}) ", " //")]
CODE_POINTS = [
    (0x20, 0x7E),  # ASCII
    (0x00, 0x1F),  # C0 controls
    (0x7F, 0x9F),  # DEL and C1 controls
    (0xA0, 0xFF),  # Latin-1
    (0x0300, 0x036F),  # combining marks
    (0x0590, 0x06FF),  # Hebrew and Arabic
    (0x2000, 0x206F),  # spaces, zero-width, bidirectional controls, line separators
    (0x3000, 0x303F),  # CJK punctuation, the ideographic space
    (0x4E00, 0x9FFF),  # CJK
    (0xFDD0, 0xFDEF),  # noncharacters
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFFF0, 0xFFFF),  # specials, noncharacters
    (0x1D400, 0x1D7FF),  # mathematical letters
    (0x1F300, 0x1FAFF),  # emoji
    (0xE0000, 0xE007F),  # tags
    (0x10FFF0, 0x10FFFF),  # the end of the last plane
]
SURROGATES = (0xD800, 0xDFFF)
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
ARGV_BYTES = 100_000
"""The longest command-line argument drawn (Linux takes 128 KiB an argument)."""
EXTRA_ARGUMENTS = ["belief", "importance", "tier", "embedding", "attention", "kind", "$where"]
"""Arguments no tool has, sent to observe as if they set what graphmem derives."""
UNKNOWN_KEYS = ["owner", "belief", "importance", "__proto__", "$where", "tier", "Text", ""]
"""Keys a JSON line of a message may not have."""
HEADERS = ["Authorization", "X-Request-Id", "Content-Type", "Accept", "Cookie", "Forwarded"]
"""The headers that get a hostile value over HTTP."""


@dataclass(frozen=True)
class Rule:
    """What a string field takes: at most `limit` characters of valid Unicode, blank or not."""

    limit: int
    blank: bool
    names: tuple[str, ...]
    """What a refusal may call the field."""

    def takes(self, value: object) -> bool:
        """Whether graphmem must store this value in the field."""
        if not isinstance(value, str):
            return False
        filled = self.blank or bool(value.strip())
        return filled and len(value) <= self.limit and valid_unicode(value)


RULES = {
    "text": Rule(MAX_TEXT_CHARS, False, ("text",)),
    "query": Rule(MAX_TEXT_CHARS, False, FIELD_NAMES["query"]),
    "message_id": Rule(MAX_ID_CHARS, False, FIELD_NAMES["message_id"]),
    "session": Rule(MAX_ID_CHARS, True, ("session",)),
    "speaker": Rule(MAX_ID_CHARS, True, ("speaker",)),
}
LIMITS = {"text": MAX_TEXT_CHARS, "query": MAX_TEXT_CHARS, "owner": MAX_OWNER_CHARS}
"""Each field's limit in characters (the others': MAX_ID_CHARS)."""
MESSAGE_FIELDS = ("text", "message_id", "session", "speaker")

API_TIMES: list[tuple[str, Any, bool | None]] = [
    ("naive", datetime(2026, 3, 1, 9), False),  # naive on purpose
    ("a date", date(2026, 3, 1), False),
    ("a string", "2026-03-01T09:00:00+00:00", False),
    ("the first moment", datetime(1, 1, 1, tzinfo=UTC), None),
    ("before year 1 in UTC", datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))), None),
    ("the earliest taken", EARLIEST, None),
    ("the latest taken", LATEST - timedelta(microseconds=1), None),
    ("the last moment", datetime.max.replace(tzinfo=UTC), None),
    (
        "after year 9999 in UTC",
        datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone(-timedelta(hours=14))),
        None,
    ),
    ("an offset with seconds", datetime(2026, 3, 1, tzinfo=timezone(timedelta(seconds=1))), None),
]
"""Times for the API's `at`: of the wrong type, and at and past the ends of the calendar."""
JSON_TIMES = [case for case in TIMES if case[1] == case[1] and valid_unicode(str(case[1]))]
"""The suite's times the MCP SDK's client can send: not NaN (sent as null, a time left out), no
lone surrogate."""
JUNK = [value for _name, value in TYPE_JUNK if not isinstance(value, str)]
"""The suite's values of every JSON type and size that are not strings."""


def suite_strings(bystander: str) -> list[str]:
    """Every hostile string of the suite, once."""
    cases = [*TEXTS, *IDS, *SESSIONS, *SPEAKERS, *OWNERS, *aimed_at(bystander), *LINE_BREAKERS]
    values = [case.value for case in cases]
    values += [*CLI_OWNERS, *TIME_QUERIES, PLAIN]
    values += [escaped for _name, escaped in URL_OWNERS]
    values += [unquote(escaped) for _name, escaped in URL_OWNERS]
    values += [value for _name, value, _stored in TIMES if isinstance(value, str)]
    values += [value for _name, value in TYPE_JUNK if isinstance(value, str)]
    return list(dict.fromkeys(values))


class Draw:
    """Seeded draws of hostile values made from the suite's fragments."""

    def __init__(self, seed: int, bystander: str, *, surrogates: bool) -> None:
        self.rng = random.Random(seed)  # noqa: S311 (a fixed draw)
        strings = suite_strings(bystander)
        if not surrogates:  # each lone surrogate a replacement character
            strings = [LONE_SURROGATE.sub("\ufffd", value) for value in strings]
        self.fragments = [value for value in strings if len(value) <= FRAGMENT_CHARS]
        self.big = [value for value in strings if len(value) > FRAGMENT_CHARS]
        self.surrogates = surrogates
        """Whether the channel can carry lone surrogates (else each becomes U+FFFD)."""
        self.ways: Counter[str] = Counter()
        """How many strings each way of drawing made."""

    def chance(self, probability: float) -> bool:
        """True with this probability."""
        return self.rng.random() < probability

    def string(self, field_name: str, fits: Callable[[str], bool] = lambda _value: True) -> str:
        """A hostile string for a field, one the channel can carry (`fits`)."""
        ways: dict[str, tuple[int, Callable[[], str]]] = {
            "fragment": (25, self.fragment),
            "concatenation": (25, self.concatenation),
            "mutation": (22, self.mutation),
            "random code points": (15, lambda: self.code_points(self.rng.randint(1, 80))),
            "around the limit": (11, lambda: self.around_the_limit(field_name)),
            "a megabyte": (2, lambda: self.rng.choice(self.big)),
        }
        for _ in range(50):
            [way] = self.rng.choices(list(ways), [weight for weight, _draw in ways.values()])
            value = ways[way][1]()
            if fits(value):
                self.ways[way] += 1
                return value
        return PLAIN

    def fragment(self) -> str:
        """One of the suite's strings, as it is."""
        return self.rng.choice(self.fragments)

    def concatenation(self) -> str:
        """Two to four fragments around a separator that breaks quoting."""
        parts = [self.fragment() for _ in range(self.rng.randint(2, 4))]
        return self.rng.choice(SEPARATORS).join(parts)

    def code_point(self) -> str:
        """A code point of a hostile kind; one in a hundred a lone surrogate if carried.

        About a third of the strings of random code points then hold a lone surrogate.
        """
        surrogate = self.surrogates and self.chance(0.01)
        low, high = SURROGATES if surrogate else self.rng.choice(CODE_POINTS)
        return chr(self.rng.randint(low, high))

    def code_points(self, count: int) -> str:
        """`count` random code points."""
        return "".join(self.code_point() for _ in range(count))

    def mutation(self) -> str:
        """A fragment changed one to four times."""
        value = self.fragment()
        for _ in range(self.rng.randint(1, 4)):
            value = self.mutate(value)[:20_000]
        return value

    def mutate(self, value: str) -> str:
        """One change to a string.

        A code point in or replaced, a slice out, repeated or swapped for a fragment, or the
        whole wrapped, repeated, case-swapped or normalised.
        """
        rng = self.rng
        at = rng.randint(0, len(value))
        end = rng.randint(at, len(value))
        before, after = rng.choice(WRAPPERS)
        forms: list[Literal["NFC", "NFD", "NFKC", "NFKD"]] = ["NFC", "NFD", "NFKC", "NFKD"]
        form = rng.choice(forms)
        changes: list[Callable[[], str]] = [
            lambda: value[:at] + self.code_point() + value[at:],
            lambda: value[:at] + value[end:],
            lambda: value[:end] + value[at:end] + value[end:],
            lambda: value[:at] + self.code_point() + value[at + 1 :],
            lambda: value[:at] + self.fragment() + value[end:],
            lambda: before + value + after,
            value.swapcase,
            lambda: unicodedata.normalize(form, value),
            lambda: value * rng.randint(2, 8),
        ]
        return rng.choice(changes)()

    def around_the_limit(self, field_name: str) -> str:
        """A string of a field's limit, give or take two, hostile fragments at its ends."""
        rng = self.rng
        limit = LIMITS.get(field_name, MAX_ID_CHARS)
        if self.chance(0.2):
            limit = rng.choice([MAX_TEXT_CHARS, MAX_ID_CHARS, MAX_OWNER_CHARS])
        length = limit + rng.randint(-2, 2)
        prefix = self.fragment()[:20] if self.chance(0.7) else ""
        suffix = self.fragment()[:20] if self.chance(0.5) else ""
        if length > 10_000:  # whitespace, which the embedder reads at no cost
            filler = rng.choice([" ", "\n", "\t"])
        else:
            filler = rng.choice(["i", " ", "é", "牛", "🎉", "\u0301", "\u200b"])
        return prefix + filler * max(length - len(prefix) - len(suffix), 0) + suffix

    def owner(self, fits: Callable[[str], bool] = lambda _value: True) -> str:
        """An owner graphmem must refuse."""
        for _ in range(20):
            value = self.string("owner", fits)
            if not valid_owner(value):
                return value
        return self.rng.choice([case.value for case in OWNERS if fits(case.value)])

    def junk(self) -> Any:
        """A value of a JSON type other than a string (a list or map may hold strings)."""
        rng = self.rng
        kinds: list[Callable[[], Any]] = [
            lambda: rng.choice(JUNK),
            lambda: rng.choice([rng.randint(-(2**70), 2**70), -rng.randint(0, 10), 2**63]),
            lambda: rng.choice([rng.uniform(-1e308, 1e308), math_nan(), math_inf(), -0.0]),
            lambda: nested(rng.randint(1, 200)),
            lambda: {rng.choice(["$ne", "$gt", "owner", "text", ""]): self.fragment()},
            lambda: [self.fragment() for _ in range(rng.randint(0, 3))],
            lambda: rng.choice([True, False, None]),
        ]
        return rng.choice(kinds)()

    def fields(self) -> list[str]:
        """The fields of a message that get a hostile value: mostly the text, often several."""
        count = self.rng.choice([1, 1, 1, 2, 2, 3, 4])
        chosen = self.rng.sample(MESSAGE_FIELDS, count)
        if "text" not in chosen and self.chance(0.5):
            chosen[0] = "text"
        return chosen

    def message(self, fresh_id: Callable[[], str], taken: set[str]) -> dict[str, Any]:
        """A message with hostile values in some fields and a message id not `taken`."""
        message: dict[str, Any] = {"text": PLAIN, "message_id": fresh_id()}
        for name in self.fields():
            message[name] = self.string(name)
        if message["message_id"] in taken:
            message["message_id"] = fresh_id()
        taken.add(message["message_id"])
        return message


def math_nan() -> float:
    """NaN."""
    return float("nan")


def math_inf() -> float:
    """Infinity."""
    return float("inf")


def expectation(message: dict[str, Any]) -> tuple[bool, tuple[str, ...]]:
    """Whether a message must be stored, and what a refusal may name (its bad fields)."""
    bad = [key for key, value in message.items() if key in RULES and not RULES[key].takes(value)]
    names = [name for key in bad for name in RULES[key].names]
    return not bad, tuple(names) or ("text",)


def bad_names(given: dict[str, Any], besides: dict[str, Any]) -> list[str]:
    """What a refusal may call the string fields of `given` (but `besides`) that break a rule."""
    return [
        name
        for key, value in given.items()
        if key not in besides and key in RULES and not RULES[key].takes(value)
        for name in RULES[key].names
    ]


def shown(values: dict[str, Any]) -> str:
    """Values, short, for a line saying what went wrong."""
    return ", ".join(f"{name}={value!r:.70}" for name, value in values.items())


class Ids:
    """Fresh message ids of one block, and the ids it has used."""

    def __init__(self) -> None:
        self.count = 0
        self.taken: set[str] = set()

    def fresh(self) -> str:
        """An id no input of the block has used."""
        self.count += 1
        return f"g{self.count}"


# -- what became of the inputs --------------------------------------------------------------------


@dataclass
class Channel:
    """One channel's figures: the suite's tally, and what became of each input."""

    name: str
    tally: Tally = field(default_factory=Tally)
    outcomes: Counter[str] = field(default_factory=Counter)
    """verbatim, refused, crash or wrong: one an input."""
    kinds: Counter[str] = field(default_factory=Counter)
    ways: Counter[str] = field(default_factory=Counter)
    slow: list[str] = field(default_factory=list)
    """The inputs answered after more than SLOW_SECONDS, and how long they took."""
    blocks: int = 0
    seconds: float = 0.0
    started: float = field(default_factory=time.perf_counter)

    @contextmanager
    def input(
        self, kind: str, must: bool | None = None, what: str = ""
    ) -> Iterator[list[bool | None]]:
        """One input, its outcome read from the notes the suite's checks made meanwhile.

        The caller says whether the input was taken; if it does not, it was taken if it must
        be (`must`), as the suite's checks would have noted otherwise. An input answered after
        SLOW_SECONDS is listed, with `what` it was.
        """
        crashes, wrong = len(self.tally.crashes), len(self.tally.wrong)
        number, started = self.tally.tried, time.perf_counter()
        taken: list[bool | None] = [None]
        yield taken
        self.timed(f"#{number} {kind} {what}", time.perf_counter() - started)
        self.kinds[kind] += 1
        if len(self.tally.crashes) > crashes:
            self.outcomes["crash"] += 1
        elif len(self.tally.wrong) > wrong:
            self.outcomes["wrong"] += 1
        else:
            kept = must if taken[0] is None else taken[0]
            self.outcomes["verbatim" if kept else "refused"] += 1

    def timed(self, what: str, seconds: float) -> None:
        """List an input that took more than SLOW_SECONDS."""
        if seconds > SLOW_SECONDS:
            self.slow.append(f"{seconds:.0f} s: {what[:300]}")

    def absorb(self, checks: Tally) -> None:
        """The notes of checks that are not inputs (the sleep job, exports, a server's end)."""
        self.tally.note("crash", *checks.crashes)
        self.tally.note("injection", *checks.injections)
        self.tally.note("wrong", *checks.wrong)

    def block_done(self, draw: Draw) -> None:
        """Say how far the channel has come."""
        tally = self.tally
        self.ways = draw.ways.copy()
        self.seconds = time.perf_counter() - self.started
        print(
            f"  {self.name} block {self.blocks}: {tally.tried} inputs,"
            f" {len(tally.crashes)} crashes, {len(tally.injections)} injections,"
            f" {len(tally.wrong)} wrong, {self.seconds:.0f} s",
            flush=True,
        )

    def figures(self) -> dict[str, Any]:
        """The channel's figures, as the JSON holds them."""
        return {
            "tried": self.tally.tried,
            "verbatim": self.outcomes["verbatim"],
            "refused": self.outcomes["refused"],
            "crashes": len(self.tally.crashes),
            "injections": len(self.tally.injections),
            "wrong": len(self.tally.wrong),
            "slow": len(self.slow),
            "seconds": round(self.seconds, 1),
            "blocks": self.blocks,
            "inputs_by_kind": dict(sorted(self.kinds.items())),
            "strings_by_way": dict(sorted(self.ways.items())),
            "problems": self.tally.problems().splitlines()[:200],
            "slow_inputs": self.slow[:100],
        }


@dataclass(frozen=True)
class Fixtures:
    """What the suite's helpers ask pytest for: the tests' Neo4j, and finalizers."""

    server: Neo4jServer | None
    finalizers: list[Callable[[], object]] = field(default_factory=list)

    def getfixturevalue(self, name: str) -> Any:
        """The Neo4j server, the one fixture the helpers ask for."""
        assert name == "neo4j_server", name
        assert self.server is not None, "no Neo4j: --store neo4j needs GRAPHMEM_NEO4J_URI"
        return self.server

    def addfinalizer(self, finalizer: Callable[[], object]) -> None:
        """Run this when `close` is called."""
        self.finalizers.append(finalizer)

    def request(self) -> pytest.FixtureRequest:
        """Itself, where the suite's helpers take pytest's request."""
        return cast(pytest.FixtureRequest, self)

    def close(self) -> None:
        """Run the finalizers added so far."""
        while self.finalizers:
            self.finalizers.pop()()


@dataclass
class Setup:
    """What a channel runs with (in a process of its own)."""

    per_channel: int
    seed: int
    flavour: str
    folder: Path
    prefix: str
    """Of every owner of the run (a Neo4j database outlives runs)."""
    fixtures: Fixtures

    @cached_property
    def embedder(self) -> CachedEmbedder:
        """The offline embedder, made in the channel's process."""
        return CachedEmbedder(E5Embedder())

    def draw(self, channel: str, *, surrogates: bool) -> Draw:
        """The channel's own draws, from the seed."""
        seed = self.seed * 1000 + sum(map(ord, channel))
        return Draw(seed, f"{self.prefix}-b", surrogates=surrogates)

    def raw(self) -> RawGraph | None:
        """Raw Cypher on Neo4j, for what the store's verbs cannot show."""
        return None if self.fixtures.server is None else RawGraph(self.fixtures.server)

    def block(self, channel: Channel) -> tuple[int, int, str]:
        """The next block of a channel: its number, its inputs, its owner."""
        number = channel.blocks
        channel.blocks += 1
        count = min(BLOCKS[channel.name], self.per_channel - channel.tally.tried)
        return number, count, f"{self.prefix}-{channel.name.lower()}-{number}"


def check_raw(
    raw: RawGraph | None, schema: dict[str, Any] | None, owners: list[str], refused: set[str]
) -> list[str]:
    """On Neo4j: the schema and the owners' nodes within the model, no node of a refused owner."""
    if raw is None or schema is None:
        return []
    found = raw.injections(schema, owners)
    if raw.count_owned(sorted(owner for owner in refused if valid_unicode(owner))):
        found.append("owners refused in this block hold nodes")
    return found


def leaked(store: Store, embedder: CachedEmbedder, refused: set[str]) -> list[str]:
    """Refused owners that hold nodes in a store (closed afterwards)."""
    try:
        found = set(GraphMem(store, embedder).owners()) & refused
    finally:
        store.close()
    return [f"refused owners hold nodes: {sorted(found)!r:.300}"] if found else []


def forget_target(draw: Draw, sent: dict[str, dict[str, str]]) -> tuple[str, bool | None]:
    """A message id to forget: mostly one stored, else a hostile one; whether it is taken."""
    if sent and draw.chance(0.6):
        return draw.rng.choice(sorted(sent)), True
    message_id = draw.string("message_id")
    return message_id, RULES["message_id"].takes(message_id)


# -- the API --------------------------------------------------------------------------------------


def observe_then_recall(run: Observer, draw: Draw, ids: Ids, channel: Channel, number: int) -> None:
    """A message with hostile fields through an API or HTTP run; often then its text as a query."""
    sent = draw.message(ids.fresh, ids.taken)
    stored, names = expectation(sent)
    case = Hostile("generated", "message", sent["text"], stored=stored)
    what = f"#{number} observe {shown(sent)}"
    with channel.input("observe", stored, what):
        run.observe(what, case, names, **sent)
    text = sent["text"]
    if (stored or not RULES["query"].takes(text)) and draw.chance(0.35):
        query = Hostile("generated", "query", text, stored=RULES["query"].takes(text))
        what = f"#{number + 1} recall {text!r:.80}"
        with channel.input("recall", query.stored, what):
            run.recall(what, query)


class ApiBlock:
    """One owner's generated calls through GraphMem, each checked by the suite's ApiRun."""

    def __init__(self, memory: GraphMem, owner: str, channel: Channel, draw: Draw) -> None:
        self.memory = memory
        self.owner = owner
        self.channel = channel
        self.draw = draw
        self.run = ApiRun(memory, owner, channel.tally)
        self.ids = Ids()
        self.refused: set[str] = set()

    def step(self) -> None:
        """One or two inputs of a kind drawn at random."""
        kinds: dict[str, tuple[int, Callable[[int], None]]] = {
            "observe": (50, self.observe),
            "owner": (12, self.hostile_owner),
            "wrong types": (18, self.wrong_types),
            "at": (6, self.observe_at),
            "forget": (8, self.forget),
        }
        [kind] = self.draw.rng.choices(list(kinds), [weight for weight, _step in kinds.values()])
        kinds[kind][1](self.channel.tally.tried)

    def observe(self, number: int) -> None:
        """A message with hostile fields; often then its text as a query."""
        observe_then_recall(self.run, self.draw, self.ids, self.channel, number)

    def observe_at(self, number: int) -> None:
        """A message at a time of the wrong type, or at or past the ends of the calendar."""
        name, at, stored = self.draw.rng.choice(API_TIMES)
        text = self.draw.string("text", RULES["text"].takes)
        sent = {"text": text, "message_id": self.ids.fresh()}
        case = Hostile("at", name, text, stored=stored)
        with self.channel.input("observe at") as taken:
            self.run.observe(f"#{number} observe at {name}", case, ("at",), **sent, at=at)
            taken[0] = sent["message_id"] in self.run.sent

    def hostile_owner(self, number: int) -> None:
        """A verb by an owner that must be refused."""
        owner = self.draw.owner()
        self.refused.add(owner)
        memory = self.memory
        verbs: dict[str, Callable[[], object]] = {
            "observe": partial(memory.observe, owner, PLAIN, message_id="o"),
            "recall": partial(memory.recall, owner, PLAIN),
            "export": partial(memory.export, owner),
            "forget_message": partial(memory.forget_message, owner, "o"),
            "consolidate": partial(memory.consolidate, owner),
        }
        verb = self.draw.rng.choice(list(verbs))
        what = f"#{number} {verb} by owner {owner!r:.80}"
        with self.channel.input("owner", False):
            attempt(self.channel.tally, what, verbs[verb], ("owner",), False)

    def wrong_types(self, number: int) -> None:
        """One to three arguments of the wrong type, hostile strings in the others.

        The wrong types are the suite's, and junk in the string arguments.
        """
        draw = self.draw
        verb = draw.rng.choice(["observe", "recall", "export"])
        strings = {
            "observe": ["owner", *MESSAGE_FIELDS],
            "recall": ["owner", "query"],
            "export": ["owner"],
        }
        pool = wrong_types(f"{self.owner}-victim")[verb]
        pool += [(name, draw.junk()) for name in strings[verb]]
        pool = [(key, value) for key, value in pool if not (key == "message_id" and value is None)]
        given: dict[str, Any] = {"owner": self.owner}
        if verb == "observe":
            given |= {"text": draw.string("text"), "message_id": self.ids.fresh()}
        if verb == "recall":
            given |= {"query": draw.string("query")}
        wrong = dict(draw.rng.sample(pool, draw.rng.randint(1, 3)))
        given |= wrong
        names = [name for key in wrong for name in FIELD_NAMES.get(key, (key,))]
        names += bad_names(given, wrong)
        calls: dict[str, Callable[..., object]] = {
            "observe": self.memory.observe,
            "recall": self.memory.recall,
            "export": self.memory.export,
        }
        call = partial(calls[verb], **given)
        with self.channel.input("wrong types", False):
            what = f"#{number} {verb} with {shown(wrong)}"
            attempt(self.channel.tally, what, call, tuple(names), False)

    def forget(self, number: int) -> None:
        """Forget a stored message, or one by a hostile id."""
        run = self.run
        message_id, stored = forget_target(self.draw, run.sent)
        call = partial(self.memory.forget_message, self.owner, message_id)
        what = f"#{number} forget_message of {message_id!r:.80}"
        with self.channel.input("forget") as taken:
            forgotten = attempt(self.channel.tally, what, call, FIELD_NAMES["message_id"], stored)
            taken[0] = forgotten is not None
        if forgotten is not None and message_id in run.sent:
            if not forgotten.found:
                self.channel.tally.note("wrong", f"{what}: the message was not found")
            run.sent.pop(message_id)

    def finish(self) -> None:
        """The export verbatim and within the model, then again after the sleep job."""
        run, checks = self.run, Tally()
        checks.note("injection", *model_injections(run.check_export(), self.owner, run.kept))
        sleep = partial(self.memory.consolidate, self.owner)
        attempt(checks, "consolidate", sleep, ("owner",), True)
        slept = model_injections(run.check_export(), self.owner, {})
        checks.note("injection", *[line for line in slept if "first-hand" not in line])
        self.channel.absorb(checks)


def api_block(setup: Setup, channel: Channel, draw: Draw, shared: Store | None) -> None:
    """One block of calls, on a store file of its own (networkx), then the checks."""
    number, count, owner = setup.block(channel)
    bystander, raw = f"{owner}-b", setup.raw()
    path = setup.folder / f"api-{number}" / "graph.json"
    store: Store
    if shared is None:
        path.parent.mkdir(parents=True)
        store = NetworkXStore.open(path)
        store.prepare(E5Embedder.dimensions)
    else:
        store = shared
    memory = GraphMem(store, setup.embedder)
    for index, text in enumerate(BYSTANDER_TEXTS):
        memory.observe(bystander, text, message_id=f"b{index}")
    before = memory.export(bystander)
    schema = raw.schema() if raw is not None else None
    api = ApiBlock(memory, owner, channel, draw)
    end = channel.tally.tried + count
    while channel.tally.tried < end:
        api.step()
    api.finish()
    tally = channel.tally
    if memory.export(bystander) != before:
        tally.note("injection", f"block {number}: the bystander's export changed")
    victim = f"{owner}-victim"
    if set(memory.owners()) & (api.refused | {victim}):
        tally.note("injection", f"block {number}: a refused owner holds nodes")
    tally.note("injection", *check_raw(raw, schema, [owner, bystander], api.refused))
    if raw is not None:
        raw.close()
    if shared is None:  # the store's file gives back what the store held
        graphs = [memory.export(owner), before]
        store.close()
        reopened = NetworkXStore.open(path)
        try:
            if [reopened.export(owner), reopened.export(bystander)] != graphs:
                tally.note("wrong", f"block {number}: the store file gives back another graph")
        finally:
            reopened.close()


def api_channel(setup: Setup) -> Channel:
    """Blocks of generated calls through GraphMem."""
    channel, draw = Channel("API"), setup.draw("API", surrogates=True)
    shared = None if setup.fixtures.server is None else setup.fixtures.server.store()
    try:
        return run_blocks(setup, channel, draw, partial(api_block, setup, channel, draw, shared))
    finally:
        if shared is not None:
            shared.close()


def run_blocks(setup: Setup, channel: Channel, draw: Draw, block: Callable[[], None]) -> Channel:
    """Run blocks until the channel has tried its inputs; a block that stops is a crash."""
    while channel.tally.tried < setup.per_channel:
        tried = channel.tally.tried
        try:
            block()
        except Exception as error:  # noted, and the next block goes on
            channel.tally.note("crash", crash(f"block {channel.blocks - 1} stopped", error))
            traceback.print_exception(error, file=sys.stdout)
            if channel.tally.tried == tried:
                raise
        channel.block_done(draw)
    return channel


# -- the command line -----------------------------------------------------------------------------


def argv_carries(value: str) -> bool:
    """Whether a real command line can carry the string as one argument."""
    try:
        encoded = os.fsencode(value)
    except UnicodeError:
        return False
    return b"\x00" not in encoded and len(encoded) < ARGV_BYTES


@dataclass(frozen=True)
class Line:
    """A JSON line to observe: what it must do, and the turn it holds if it is stored."""

    what: str
    line: str
    stored: bool | None
    names: tuple[str, ...]
    sent: dict[str, str] | None = None
    """The turn's fields as sent, for a line that may be stored."""


def dumps(value: Any) -> str:
    """JSON in one line, non-ASCII as it is unless it holds a lone surrogate (then escaped)."""
    text = json.dumps(value, ensure_ascii=False)
    return text if valid_unicode(text) else json.dumps(value)


def turn_of(message: dict[str, Any]) -> dict[str, str]:
    """The turn a message sets."""
    return as_turn({"id": message["message_id"], **message})


REFUSED_AT = re.compile(r"^graphmem: line (\d+): ")


class CliBlock:
    """One owner's generated lines and commands, each run as `graphmem` runs."""

    def __init__(self, where: list[str], owner: str, channel: Channel, draw: Draw) -> None:
        self.where = where
        self.owner = owner
        self.channel = channel
        self.draw = draw
        self.sent: dict[str, dict[str, str]] = {}
        """The turns stored, by id, as sent."""
        self.ids = Ids()
        self.refused: set[str] = set()

    def line(self, number: int) -> Line:
        """A line of a message with hostile fields, of wrong types, or of a hostile shape."""
        draw = self.draw
        message = draw.message(self.ids.fresh, self.ids.taken)
        what = f"#{number} line {shown(message)}"
        [shape] = draw.rng.choices(["message", "junk", "at", "shape"], [70, 10, 6, 14])
        stored, names = expectation(message)
        if shape == "junk":
            key = draw.rng.choice([*MESSAGE_FIELDS, "at"])
            value = draw.junk()
            message[key] = False if value is None and key in {"message_id", "at"} else value
            names = (key, *bad_names(message, {key: value}))
            return Line(f"{what} {key}={value!r:.60}", dumps(message), False, names)
        if shape == "at":
            name, at, at_stored = draw.rng.choice(TIMES)
            message["at"] = at
            taken = stored and at_stored  # a bad time is not named: the suite says ""
            return Line(f"{what} at {name}", dumps(message), taken, ("",), turn_of(message))
        if shape == "message":
            return Line(what, dumps(message), stored, names, turn_of(message) if stored else None)
        shapes = [
            self.truncated,
            self.in_a_list,
            self.unknown_key,
            self.id_key,
            self.text_twice,
            self.nested_deep,
            self.junk_around,
        ]
        return draw.rng.choice(shapes)(what, message)

    def truncated(self, what: str, message: dict[str, Any]) -> Line:
        """The line cut short: no longer JSON."""
        line = dumps(message)
        cut = line[: self.draw.rng.randrange(1, len(line))]  # none left would be a blank line
        return Line(f"{what} cut to {len(cut)}", cut, False, ("not JSON",))

    def in_a_list(self, what: str, message: dict[str, Any]) -> Line:
        """The message in a list."""
        return Line(f"{what} in a list", f"[{dumps(message)}]", False, ("text",))

    def unknown_key(self, what: str, message: dict[str, Any]) -> Line:
        """A key no message has."""
        key = self.draw.rng.choice(UNKNOWN_KEYS)
        line = dumps(message | {key: self.draw.fragment()})
        return Line(f"{what} and key {key!r}", line, False, ("unknown keys",))

    def id_key(self, what: str, message: dict[str, Any]) -> Line:
        """The id under `id`, the Turn's own name for it."""
        renamed = {("id" if key == "message_id" else key): value for key, value in message.items()}
        return Line(f"{what} as id", dumps(renamed), False, ("message_id",))

    def text_twice(self, what: str, message: dict[str, Any]) -> Line:
        """The text key given again, with another hostile text: the last one counts."""
        text = self.draw.string("text")
        line = dumps(message)[:-1] + ', "text": ' + dumps(text) + "}"
        last = message | {"text": text}
        stored, names = expectation(last)
        sent = turn_of(last) if stored else None
        return Line(f"{what} and text {text!r:.60}", line, stored, names, sent)

    def nested_deep(self, what: str, message: dict[str, Any]) -> Line:
        """A field nested 10, 500 or 100,000 deep."""
        depth = self.draw.rng.choice([10, 500, 100_000])
        key = self.draw.rng.choice(MESSAGE_FIELDS)
        line = dumps(message | {key: "@"}).replace('"@"', "[" * depth + "]" * depth)
        names = ("not JSON", key, *bad_names(message, {key: None}))
        return Line(f"{what} {key} nested {depth} deep", line, False, names)

    def junk_around(self, what: str, message: dict[str, Any]) -> Line:
        """Something before or after the JSON."""
        junk = self.draw.rng.choice(["x", "\ufeff", "\x00", "}", "// comment", "NaN", "{}"])
        if self.draw.chance(0.5):
            return Line(f"{what} after {junk!r}", junk + dumps(message), False, ("not JSON",))
        return Line(f"{what} then {junk!r}", dumps(message) + " " + junk, False, ("not JSON",))

    def observe(self, lines: list[Line]) -> None:
        """Observe lines in one process.

        Each is stored until one is refused, which ends the process (exit 1, naming its line);
        the lines after that one were not tried.
        """
        tally = self.channel.tally
        stdin = "".join(line.line + "\n" for line in lines)
        started = time.perf_counter()
        done = forked_cli(self.where, "observe", "--owner", self.owner, "--json", stdin=stdin)
        self.channel.timed(
            f"observe of {len(lines)} lines from {lines[0].what}", time.perf_counter() - started
        )
        try:
            replies = [json.loads(reply)["turn"] for reply in done.stdout.split("\n") if reply]
        except (ValueError, KeyError, TypeError):
            tally.note("wrong", f"{lines[0].what}: observe printed {done.stdout!r:.300}")
            replies = []
        last = len(lines)
        if done.returncode != 0:
            found = REFUSED_AT.match(done.stderr)
            last = int(found[1]) if found and int(found[1]) <= len(lines) else len(lines)
        for index, line in enumerate(lines[:last]):
            with self.channel.input("line") as taken:
                tally.tried += 1
                if done.returncode != 0 and index == last - 1:
                    taken[0] = False
                    self.check_refusal(line.what, done, f"graphmem: line {last}: ", line.names)
                    if line.stored is True:
                        tally.note(
                            "wrong", f"{line.what}: refused valid input: {done.stderr!r:.200}"
                        )
                    continue
                taken[0] = index < len(replies)
                if not taken[0]:  # refused with another line, though before it
                    refusal = f"exit {done.returncode}, {done.stderr!r:.200}"
                    lost = f"not stored, though before the line refused: {refusal}"
                    tally.note("wrong", f"{line.what}: {lost}")
                    continue
                if line.stored is False:
                    tally.note("wrong", f"{line.what}: stored, but it must be refused")
                reply = replies[index]
                if line.sent is not None:
                    if any(reply.get(key) != value for key, value in line.sent.items()):
                        tally.note("wrong", f"{line.what}: answered with the turn {reply!r:.300}")
                    self.sent[line.sent["id"]] = line.sent

    def check_refusal(self, what: str, done: Any, prefix: str, names: tuple[str, ...]) -> None:
        """The suite's check (exit 1, one line starting with `prefix`), and the field named."""
        check_refusal(self.channel.tally, what, done, prefix, "")
        if done.returncode != 0 and not any(name in done.stderr for name in names):
            self.channel.tally.note(
                "wrong", f"{what}: the refusal names no {'/'.join(names)}: {done.stderr!r:.200}"
            )

    def hostile_owner(self, number: int) -> None:
        """observe, export or recall by an owner that must be refused."""
        owner = self.draw.owner(argv_carries)
        self.refused.add(owner)
        verb = self.draw.rng.choice(["observe", "export", "recall"])
        command = [verb, f"--owner={owner}"]
        where = [*self.where, "--", PLAIN] if verb == "recall" else self.where
        stdin = json.dumps({"text": PLAIN}) + "\n" if verb == "observe" else ""
        done = forked_cli(where, *command, stdin=stdin)
        with self.channel.input("owner") as taken:
            self.channel.tally.tried += 1
            taken[0] = done.returncode == 0
            what = f"#{number} {verb} --owner={owner!r:.80}"
            self.check_refusal(what, done, "graphmem: owner ", ("owner",))

    def recall(self, number: int) -> None:
        """Recall with a stored hostile text as the query, or a string that must be refused."""
        draw, tally = self.draw, self.channel.tally
        texts = [turn["text"] for turn in self.sent.values() if argv_carries(turn["text"])]
        if texts and draw.chance(0.7):
            query = draw.rng.choice(texts)
        else:
            query = draw.string("query", argv_carries)
        what = f"#{number} recall {query!r:.80}"
        flags = ["-k", str(MAX_RECALL), "--motivation", "10", "--json"]
        stored = RULES["query"].takes(query)
        with self.channel.input("recall", what=what) as taken:
            tally.tried += 1
            where = [*self.where, "--", query]
            done = forked_cli(where, "recall", "--owner", self.owner, *flags)
            taken[0] = done.returncode == 0
            if done.returncode != 0:
                self.check_refusal(what, done, "graphmem: ", ("query",))
                if stored:
                    tally.note("wrong", f"{what}: refused valid input: {done.stderr!r:.200}")
                return
            if not stored:
                tally.note("wrong", f"{what}: taken, but it must be refused")
                return
            try:
                subgraph = json.loads(done.stdout)
            except ValueError:
                tally.note("wrong", f"{what}: recall printed {done.stdout!r:.300}")
                return
            recalled = [item["memory"]["text"] for item in subgraph["memories"]]
            kept = {turn["text"] for turn in self.sent.values()}
            if subgraph["query"] != query or not set(recalled) <= kept:
                alien = [text for text in recalled if text not in kept]
                found = f"query {subgraph['query']!r:.80}, recalled {alien!r:.300} not sent"
                tally.note("wrong", f"{what}: {found}")
            elif query in kept and query not in recalled:
                tally.note("wrong", f"{what}: its own memory was not recalled")

    def forget(self, number: int) -> None:
        """Forget by a hostile id that was never stored: taken or refused, nothing else goes."""
        message_id = self.draw.string("message_id", argv_carries)
        if message_id in self.sent:
            return
        command = ["forget", "--owner", self.owner, f"--message={message_id}", "--json"]
        done = forked_cli(self.where, *command)
        stored = RULES["message_id"].takes(message_id)
        what = f"#{number} forget --message={message_id!r:.80}"
        with self.channel.input("forget") as taken:
            self.channel.tally.tried += 1
            taken[0] = done.returncode == 0
            if done.returncode != 0:
                self.check_refusal(what, done, "graphmem: ", FIELD_NAMES["message_id"])
                if stored:
                    message = f"{what}: refused valid input: {done.stderr!r:.200}"
                    self.channel.tally.note("wrong", message)
            elif not stored:
                self.channel.tally.note("wrong", f"{what}: taken, but it must be refused")

    def not_utf8(self, number: int) -> None:
        """A line whose text holds a byte that is not UTF-8, through `python -m graphmem`."""
        rng = self.draw.rng
        text = self.draw.fragment().encode("utf-8", "surrogatepass")
        start = json.dumps(text[: rng.randint(0, len(text))].decode(errors="replace")).encode()
        line = b'{"text": ' + start[:-1] + bytes([rng.randint(0x80, 0xFF)]) + b'"}\n'
        done = cli_bytes(self.where, "observe", "--owner", self.owner, stdin=line)
        with self.channel.input("bytes") as taken:
            self.channel.tally.tried += 1
            taken[0] = done.returncode == 0
            what = f"#{number} a line not UTF-8 {line!r:.80}"
            self.check_refusal(what, done, "graphmem: line 1: ", ("text",))

    def step(self, lines: list[Line], end: int) -> list[Line]:
        """Draw an input, and return the lines still waiting.

        A line joins those waiting, which are observed once one may be refused (or 64 wait);
        any other input runs the lines waiting, then itself.
        """
        number = self.channel.tally.tried + len(lines)
        kinds: dict[str, tuple[int, Callable[[int], None]]] = {
            "owner": (5, self.hostile_owner),
            "recall": (5, self.recall),
            "forget": (3, self.forget),
            "bytes": (1, self.not_utf8),
        }
        [kind] = self.draw.rng.choices(["line", *kinds], [86, *(w for w, _run in kinds.values())])
        if kind == "line":
            line = self.line(number)
            lines = [*lines, line]
            if line.stored is not True or len(lines) >= 64 or number + 1 >= end:
                self.observe(lines)
                return []
            return lines
        if lines:
            self.observe(lines)
        if kind != "forget" or self.sent:  # forget: of an owner with messages
            kinds[kind][1](self.channel.tally.tried)
        return []

    def finish(self) -> None:
        """The owner's exported turns are those stored, verbatim."""
        tally = self.channel.tally
        try:
            turns = exported_turns(self.where, self.owner) if self.sent else {}
        except AssertionError as error:
            tally.note("crash", f"export --owner {self.owner}: {error}")
            return
        for turn_id, sent in self.sent.items():
            stored = as_turn(turns.get(turn_id, {}))
            if turn_id not in turns or stored != sent:
                tally.note(
                    "wrong", f"turn {turn_id!r}: sent {sent!r:.200}, exported {stored!r:.200}"
                )
        for turn_id in set(turns) - set(self.sent):
            tally.note("wrong", f"turn {turn_id!r}: stored by a line that must be refused")


def cli_block(setup: Setup, channel: Channel, draw: Draw, cache: Path) -> None:
    """One block of lines and commands, on a store file of its own (networkx), then the checks."""
    number, count, owner = setup.block(channel)
    bystander, raw, request = f"{owner}-b", setup.raw(), setup.fixtures.request()
    folder = setup.folder / f"cli-{number}"
    where = cli_store(setup.flavour, request, folder, cache)
    store = partial(http_store, setup.flavour, request, folder)
    before = write_bystander(store(), setup.embedder, bystander)
    schema = raw.schema() if raw is not None else None
    run = CliBlock(where, owner, channel, draw)
    end = channel.tally.tried + count
    lines: list[Line] = []
    while channel.tally.tried + len(lines) < end:
        lines = run.step(lines, end)
    if lines:
        run.observe(lines)
    run.finish()
    tally = channel.tally
    graph, after = exported_graphs(store(), setup.embedder, owner, bystander)
    if after != before:
        tally.note("injection", f"block {number}: the bystander's export changed")
    tally.note("injection", *model_injections(graph, owner, {}))
    tally.note("injection", *leaked(store(), setup.embedder, run.refused))
    tally.note("injection", *check_raw(raw, schema, [owner, bystander], run.refused))
    if raw is not None:
        raw.close()


def exported_graphs(store: Store, embedder: CachedEmbedder, *owners: str) -> list[OwnerGraph]:
    """The owners' graphs, read from a store closed afterwards."""
    try:
        return [GraphMem(store, embedder).export(owner) for owner in owners]
    finally:
        store.close()


def cli_channel(setup: Setup, cache: Path) -> Channel:
    """Blocks of generated lines and commands."""
    channel, draw = Channel("CLI"), setup.draw("CLI", surrogates=True)
    # Its processes fork from a server that has imported all this once.
    FORKS.set_forkserver_preload(["graphmem.cli", "tests.conftest", "tests.test_hostile_input"])
    forkserver.ensure_running()
    return run_blocks(setup, channel, draw, partial(cli_block, setup, channel, draw, cache))


# -- the MCP server -------------------------------------------------------------------------------


class Deadline:
    """The SDK's client session, its calls given ANSWER_SECONDS to be answered.

    A call left unanswered is a crash (the suite's McpRun notes a call that fails), and it
    ends the session: the calls after it would wait behind it, and what it did is unknown until
    the block's checks read the store.
    """

    def __init__(self, session: Any) -> None:
        self.session = session
        self.timed_out = False

    async def call_tool(self, name: str, arguments: dict[str, Any], seconds: float) -> Any:
        """The tool's result, or TimeoutError after `seconds` (the suite's ANSWER_SECONDS)."""
        try:
            return await asyncio.wait_for(self.session.call_tool(name, arguments), seconds)
        except TimeoutError:
            self.timed_out = True
            raise


class McpBlock:
    """One owner's generated tool calls through the SDK's client, checked by the suite's McpRun."""

    def __init__(self, run: McpRun, channel: Channel, draw: Draw) -> None:
        self.run = run
        self.owner = run.owner
        self.channel = channel
        self.draw = draw
        self.ids = Ids()
        self.refused: set[str] = set()

    async def step(self) -> None:
        """One or two tool calls of a kind drawn at random."""
        kinds = {
            "observe": (52, self.observe),
            "owner": (10, self.hostile_owner),
            "wrong types": (18, self.wrong_types),
            "at": (6, self.observe_at),
            "extra": (6, self.extra_argument),
            "forget": (8, self.forget),
        }
        [kind] = self.draw.rng.choices(list(kinds), [weight for weight, _step in kinds.values()])
        await kinds[kind][1](self.channel.tally.tried)

    async def observe(self, number: int) -> None:
        """A message with hostile fields; often then its text as a query."""
        draw, run = self.draw, self.run
        sent = draw.message(self.ids.fresh, self.ids.taken)
        stored, names = expectation(sent)
        case = Hostile("generated", "message", sent["text"], stored=stored)
        what = f"#{number} observe {shown(sent)}"
        with self.channel.input("observe", stored, what):
            await run.observe(what, case, names, **sent)
        text = sent["text"]
        if (stored or not RULES["query"].takes(text)) and draw.chance(0.35):
            query = Hostile("generated", "query", text, stored=RULES["query"].takes(text))
            what = f"#{number + 1} recall {text!r:.80}"
            with self.channel.input("recall", query.stored, what):
                await run.recall(what, query)

    async def observe_at(self, number: int) -> None:
        """A message at one of the suite's times."""
        sent: dict[str, Any] = {"text": self.draw.string("text"), "message_id": self.ids.fresh()}
        stored, names = expectation(sent)
        name, sent["at"], at_stored = self.draw.rng.choice(JSON_TIMES)
        case = Hostile("at", name, sent["text"], stored=stored and at_stored)
        what = f"#{number} observe at {name}: {sent['text']!r:.60}"
        with self.channel.input("at") as taken:
            await self.run.observe(what, case, (*names, "at", "timezone"), **sent)
            taken[0] = sent["message_id"] in self.run.sent

    async def extra_argument(self, number: int) -> None:
        """A message with an argument observe does not have, set as if it set a score."""
        draw = self.draw
        sent: dict[str, Any] = {"text": draw.string("text"), "message_id": self.ids.fresh()}
        stored, names = expectation(sent)
        key = draw.rng.choice(EXTRA_ARGUMENTS)
        sent[key] = draw.rng.choice([1, 10.0, "Hot", draw.junk(), draw.fragment()])
        case = Hostile("extra", key, sent["text"], stored=stored and None)
        what = f"#{number} observe with {key}={sent[key]!r:.40}: {sent['text']!r:.60}"
        with self.channel.input("extra argument") as taken:
            await self.run.observe(what, case, (*names, key), **sent)
            taken[0] = sent["message_id"] in self.run.sent

    async def hostile_owner(self, number: int) -> None:
        """A tool called for an owner that must be refused."""
        owner = self.draw.owner()
        self.refused.add(owner)
        tools: dict[str, dict[str, Any]] = {
            "observe": {"text": PLAIN, "message_id": "o"},
            "recall": {"query": PLAIN},
            "consolidate": {},
            "forget_message": {"message_id": "o"},
        }
        tool = self.draw.rng.choice(list(tools))
        what = f"#{number} {tool} by owner {owner!r:.80}"
        with self.channel.input("owner") as taken:
            given = {"owner": owner, **tools[tool]}
            taken[0] = await self.run.call(what, tool, given, ("owner",), False) is not None

    async def wrong_types(self, number: int) -> None:
        """The suite's wrong types, and junk in string arguments, one to three at once."""
        draw = self.draw
        tool = draw.rng.choice(["observe", "recall", "consolidate"])
        strings = {
            "observe": ["owner", *MESSAGE_FIELDS],
            "recall": ["owner", "query"],
            "consolidate": ["owner"],
        }
        pool = [
            (key, value, name)
            for verb, wrong, name in MCP_WRONG_TYPES
            if verb == tool
            for key, value in wrong.items()
        ]
        pool += [(key, draw.junk(), key) for key in strings[tool]]
        given: dict[str, Any] = {"owner": self.owner}
        if tool == "observe":
            given |= {"text": draw.string("text"), "message_id": self.ids.fresh()}
        if tool == "recall":
            given |= {"query": draw.string("query")}
        chosen = draw.rng.sample(pool, min(len(pool), draw.rng.randint(1, 3)))
        wrong = {key: value for key, value, _name in chosen}
        given |= wrong
        names = [name for _key, _value, name in chosen] + bad_names(given, wrong)
        what = f"#{number} {tool} with {shown(wrong)}"
        with self.channel.input("wrong types") as taken:
            answer = await self.run.call(what, tool, given, tuple(names), False)
            taken[0] = answer is not None

    async def forget(self, number: int) -> None:
        """Forget a stored message, or one by a hostile id."""
        run = self.run
        message_id, stored = forget_target(self.draw, run.sent)
        given = {"owner": self.owner, "message_id": message_id}
        what = f"#{number} forget_message of {message_id!r:.80}"
        with self.channel.input("forget") as taken:
            names = FIELD_NAMES["message_id"]
            answer = await run.call(what, "forget_message", given, names, stored)
            taken[0] = answer is not None
        if answer is not None and message_id in run.sent:
            if not answer.get("found"):
                self.channel.tally.note("wrong", f"{what}: the message was not found")
            run.sent.pop(message_id)


@dataclass(frozen=True)
class RawLine:
    """A JSON-RPC line the SDK's client cannot send, for the suite's raw client."""

    what: str
    line: bytes
    request: int | None
    """The id of the request, if the server can read it."""
    message_id: str
    stored: bool | None


class RawLines:
    """tools/call lines of observe with a lone surrogate in a field, or of a hostile shape."""

    def __init__(self, draw: Draw, owner: str) -> None:
        self.draw = draw
        self.owner = owner

    def line(self, number: int) -> RawLine:
        """The `number`th line (request 10 + number, message id raw-number)."""
        request, message_id = 10 + number, f"raw-{number}"
        message = {"owner": self.owner, "text": PLAIN, "message_id": message_id}
        shapes: list[Callable[[dict[str, Any], int], RawLine]] = [
            self.surrogate,
            self.surrogate,
            self.surrogate,
            self.nested_deep,
            self.not_an_object,
            self.truncated,
            self.not_utf8,
            self.text_twice,
        ]
        return self.draw.rng.choice(shapes)(message, request)

    def surrogate(self, message: dict[str, Any], request: int) -> RawLine:
        """A lone surrogate in a field (the owner too): refused."""
        rng = self.draw.rng
        key = rng.choice(["owner", *MESSAGE_FIELDS])
        value = self.draw.string(key)
        if valid_unicode(value):
            at = rng.randint(0, len(value))
            value = value[:at] + chr(rng.randint(*SURROGATES)) + value[at:]
        line = tool_call(request, json.dumps(message | {key: value}).encode())
        what = f"{key} with a lone surrogate {value!r:.60}"
        return RawLine(what, line, request, message["message_id"], False)

    def nested_deep(self, message: dict[str, Any], request: int) -> RawLine:
        """A field nested 1,000 or 100,000 deep: refused."""
        depth = self.draw.rng.choice([1_000, 100_000])
        key = self.draw.rng.choice(MESSAGE_FIELDS)
        deep = b"[" * depth + b"]" * depth
        arguments = json.dumps(message | {key: "@"}).encode().replace(b'"@"', deep)
        what = f"{key} nested {depth} deep"
        return RawLine(what, tool_call(request, arguments), request, message["message_id"], False)

    def not_an_object(self, message: dict[str, Any], request: int) -> RawLine:
        """Arguments that are not an object: refused."""
        deep = b"[" * 100_000 + b"]" * 100_000
        arguments = self.draw.rng.choice([b'["hi"]', b'"hi"', b"42", b"null", deep])
        what = f"arguments {arguments[:20]!r}"
        return RawLine(what, tool_call(request, arguments), request, message["message_id"], False)

    def truncated(self, message: dict[str, Any], request: int) -> RawLine:
        """The line cut short: a JSON-RPC error without an id."""
        line = tool_call(request, json.dumps(message).encode())
        cut = line[: self.draw.rng.randrange(1, len(line))]
        return RawLine(f"a line cut at {len(cut)}", cut, None, message["message_id"], False)

    def not_utf8(self, message: dict[str, Any], request: int) -> RawLine:
        """A text with a byte that is not UTF-8: stored as the server decodes it, or refused."""
        rng = self.draw.rng
        text = self.draw.fragment().encode("utf-8", "surrogatepass")
        start = json.dumps(text[: rng.randint(0, len(text))].decode(errors="replace")).encode()
        broken = start[:-1] + bytes([rng.randint(0x80, 0xFF)]) + b'"'
        arguments = json.dumps(message).encode().replace(json.dumps(PLAIN).encode(), broken)
        what = f"a text not UTF-8 {broken!r:.60}"
        return RawLine(what, tool_call(request, arguments), request, message["message_id"], None)

    def text_twice(self, message: dict[str, Any], request: int) -> RawLine:
        """The text key given again, with a hostile text: either."""
        text = self.draw.string("text")
        twice = json.dumps(message).encode()[:-1] + b', "text": ' + json.dumps(text).encode()
        what = f"text twice, then {text!r:.60}"
        line = tool_call(request, twice + b"}")
        return RawLine(what, line, request, message["message_id"], None)


async def raw_calls(launch: Launch, log: Path, lines: list[RawLine], channel: Channel) -> None:
    """Each raw line, then a ping; the line's answer comes before the ping's.

    The answer is a tool error, or a JSON-RPC error for a request that cannot be read; never the
    generic error.
    """
    tally = channel.tally
    client = await RawClient.start(launch, log)
    try:
        for number, raw in enumerate(lines):
            seen = len(client.answers)
            ping = 1_000_000 + number
            await client.send(raw.line)
            await client.send(json.dumps({"jsonrpc": "2.0", "id": ping, "method": "ping"}).encode())
            with channel.input("raw line") as taken:
                tally.tried += 1
                try:
                    await client.answer(ping)
                    await answer_to(client, raw, seen)
                except (AssertionError, ValueError) as error:
                    tally.note("crash", f"{raw.what}: the server stopped answering: {error!r}")
                    return
                except TimeoutError:
                    pass  # noted below: no answer at all
                check_raw_answer(raw, client.answers[seen:], ping, tally, taken)
    finally:
        try:
            code = await client.close()
        except (AssertionError, TimeoutError, ValueError) as error:
            code = -1
            tally.note("crash", f"the raw server did not end: {error!r:.200}")
        text = log.read_text(errors="replace")
        if code != 0 or "Traceback" in text:
            tally.note("crash", f"the raw server exited with {code}; its log: {text[-600:]!r}")


def answers_line(raw: RawLine, answer: dict[str, Any]) -> bool:
    """Whether an answer is the one to a raw line: its id, or a parse error without one."""
    if raw.request is not None and answer.get("id") == raw.request:
        return True
    return "error" in answer and answer.get("id") is None


async def answer_to(client: RawClient, raw: RawLine, seen: int) -> None:
    """Read on until the raw line's answer (a tool call may be answered after a later ping)."""
    assert client.process.stdout is not None
    while not any(answers_line(raw, answer) for answer in client.answers[seen:]):
        line = await asyncio.wait_for(client.process.stdout.readline(), ANSWER_SECONDS)
        assert line, f"the server stopped before it answered {raw.what}"
        client.answers.append(json.loads(line))


def check_raw_answer(
    raw: RawLine, answers: list[dict[str, Any]], ping: int, tally: Tally, taken: list[bool | None]
) -> None:
    """The raw line's answer: there, not the generic error, not a success if it must fail."""
    mine = [answer for answer in answers if answer.get("id") != ping and answers_line(raw, answer)]
    if not mine:
        tally.note("wrong", f"{raw.what}: no answer at all (a client would wait forever)")
        return
    answer = mine[0]
    failed = "error" in answer or bool(answer.get("result", {}).get("isError"))
    taken[0] = not failed
    if tool_text_of(answer) == GENERIC_TOOL_ERROR.format(name="observe"):
        tally.note("crash", f"{raw.what}: {tool_text_of(answer)!r}")
    elif not failed and raw.stored is False:
        tally.note("wrong", f"{raw.what}: stored, but it must be refused")


@contextmanager
def stderr_to(path: Path) -> Iterator[None]:
    """Send this process's standard error (file descriptor 2) to a file until the block ends."""
    sys.stderr.flush()
    saved = os.dup(2)
    with path.open("wb") as log:
        os.dup2(log.fileno(), 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def mcp_block(setup: Setup, channel: Channel, draw: Draw, raw_draw: Draw, cache: Path) -> None:
    """One block of tool calls through one server, then raw lines through another."""
    number, count, owner = setup.block(channel)
    bystander, raw_owner, raw = f"{owner}-b", f"{owner}-raw", setup.raw()
    folder = setup.folder / f"mcp-{number}"
    folder.mkdir(parents=True)
    launch = mcp_launch(setup.flavour, setup.fixtures.request(), folder, cache)
    before = write_bystander(launch.open_store(), setup.embedder, bystander)
    schema = raw.schema() if raw is not None else None
    raw_count = max(count // 10, 1)
    lines = [RawLines(raw_draw, raw_owner).line(index) for index in range(raw_count)]
    sdk_end = channel.tally.tried + count - raw_count

    async def scenario() -> McpBlock:
        with stderr_to(folder / "server.log"):  # the SDK gives its server our standard error
            async with connected(launch) as session:
                deadline = Deadline(session)
                mcp = McpBlock(McpRun(deadline, owner, channel.tally), channel, draw)
                while channel.tally.tried < sdk_end and not deadline.timed_out:
                    await mcp.step()
        await raw_calls(launch, folder / "raw.log", lines, channel)
        return mcp

    mcp = run_async(scenario)
    tally = channel.tally
    log = (folder / "server.log").read_text(errors="replace")
    if "Traceback" in log:
        start = log.index("Traceback")
        tally.note("crash", f"a traceback in the server's log: {log[start : start + 1500]!r}")
    graph, raw_graph, after = exported(launch, setup.embedder, owner, raw_owner, bystander)
    tally.note("wrong", *turn_differences(graph, mcp.run.sent))
    tally.note("injection", *model_injections(graph, owner, {}))
    allowed = {line.message_id for line in lines if line.stored is not False}
    for turn in (node for node in raw_graph.nodes if isinstance(node, Turn)):
        if turn.id not in allowed:
            tally.note("wrong", f"turn {turn.id!r} stored from a raw line that must be refused")
    if after != before:
        tally.note("injection", f"block {number}: the bystander's export changed")
    tally.note("injection", *leaked(launch.open_store(), setup.embedder, mcp.refused))
    owners = [owner, bystander, raw_owner]
    tally.note("injection", *check_raw(raw, schema, owners, mcp.refused))
    if raw is not None:
        raw.close()


def mcp_channel(setup: Setup, cache: Path) -> Channel:
    """Blocks of generated tool calls and raw lines."""
    channel = Channel("MCP")
    draw = setup.draw("MCP", surrogates=False)  # the SDK's client cannot send them
    raw_draw = setup.draw("MCP raw", surrogates=True)

    def block() -> None:
        try:
            mcp_block(setup, channel, draw, raw_draw, cache)
        finally:
            draw.ways.update(raw_draw.ways)
            raw_draw.ways.clear()

    return run_blocks(setup, channel, draw, block)


# -- the HTTP server ------------------------------------------------------------------------------


def rule_of(key: str) -> str:
    """The field whose limit a body field's string is drawn around."""
    if key.startswith("owner"):
        return "owner"
    return key if key in RULES else "text"


class HttpBlock:
    """Generated requests to one running server, each checked by the suite's HttpRun."""

    def __init__(self, run: HttpRun, channel: Channel, draw: Draw) -> None:
        self.run = run
        self.channel = channel
        self.draw = draw
        self.ids = Ids()
        self.refused: set[str] = set()
        owner = run.targets.owner
        self.fields = [
            (route, body_field)
            for route in run.routes
            if route.body is not None
            for body_field in body_fields(route.body, valid_body(route.body, owner), owner)
        ]
        self.string_fields = [(r, f) for r, f in self.fields if mentions(f.annotation, str)]
        self.suite: dict[str, list[HttpInput]] = {}
        """The suite's inputs, by builder, made when first drawn from."""

    def step(self) -> None:
        """One or two requests of a kind drawn at random."""
        number = self.channel.tally.tried
        makers: dict[str, tuple[int, Callable[[int], HttpInput]]] = {
            "string": (15, self.string),
            "junk": (12, self.junk),
            "owner": (10, self.owner),
            "header": (6, self.header),
            "body": (10, self.body),
            "suite": (12, self.sample),
            "forget": (5, self.forget),
        }
        weights = [35, *(weight for weight, _make in makers.values())]
        [kind] = self.draw.rng.choices(["observe", *makers], weights)
        if kind == "observe":
            self.observe(number)
            return
        case = makers[kind][1](number)
        with self.channel.input(kind, what=case.what) as taken:
            taken[0] = self.run.send(case) is not None

    def observe(self, number: int) -> None:
        """A message with hostile fields; often then its text as a query."""
        observe_then_recall(self.run, self.draw, self.ids, self.channel, number)

    def forget(self, number: int) -> HttpInput:
        """Forget a message of the verbatim owner: one stored, or one by a hostile id."""
        run = self.run
        sent = run.sent.setdefault(run.targets.verbatim, {})
        message_id, stored = forget_target(self.draw, sent)
        if message_id not in sent and stored:
            stored = None  # taken, or 404: no message with this id
        route = route_of(run.routes, "forget_message")
        url = route.url(run.segments(run.targets.verbatim))
        body = json_bytes({"message_id": message_id})
        what = f"#{number} forget {message_id!r:.80}"
        sent.pop(message_id, None)  # if it is not forgotten, the export check says so
        return HttpInput(what, route, url, body, None, stored, FIELD_NAMES["message_id"])

    def url(self, route: HttpRoute) -> str:
        """The route's path for the block's owner."""
        return route.url(self.run.segments())

    def string(self, number: int) -> HttpInput:
        """A hostile string in a string field of a body, nested fields too."""
        route, body_field = self.draw.rng.choice(self.string_fields)
        value: Any = self.draw.string(rule_of(body_field.levels[-1][1]))
        if get_origin(body_field.annotation) is list:
            value = [value]
        body = json_bytes(body_field.body(value))
        what = f"#{number} {body_field.path} = {value!r:.80}"
        return HttpInput(what, route, self.url(route), body, None, None, body_field.names)

    def junk(self, number: int) -> HttpInput:
        """A value of any type in any field of a body, or a hostile query parameter."""
        draw = self.draw
        with_query = [route for route in self.run.routes if route.query]
        if with_query and draw.chance(0.2):
            route = draw.rng.choice(with_query)
            parameter = draw.rng.choice(route.query)
            value = draw.string("text")[:20_000]
            url = route.url(self.run.segments(), f"{parameter}={segment(value)}")
            what = f"#{number} ?{parameter}={value!r:.80}"
            return HttpInput(what, route, url, None, None, None, (parameter,))
        route, body_field = draw.rng.choice(self.fields)
        junk = draw.junk()
        body = json_bytes(body_field.body(junk))
        what = f"#{number} {body_field.path} = {junk!r:.80}"
        return HttpInput(what, route, self.url(route), body, None, None, body_field.names)

    def owner(self, number: int) -> HttpInput:
        """A hostile owner (as admin, or with a key for a prefix it starts with), or key id."""
        draw, run = self.draw, self.run
        if draw.chance(0.2):
            route = draw.rng.choice([route for route in run.routes if "{key_id}" in route.path])
            key_id = draw.string("message_id")
            url = route.url(run.segments() | {"key_id": segment(key_id)})
            what = f"#{number} key id {key_id!r:.80}"
            return self.raw_if_long(HttpInput(what, route, url, run.base(route), names=("key",)))
        route = draw.rng.choice([route for route in run.routes if "{owner}" in route.path])
        owner = draw.owner()
        headers = None
        if draw.chance(0.4) and not valid_owner(run.targets.team_prefix + owner):
            owner = run.targets.team_prefix + owner
            team = ("authorization", f"Bearer {run.targets.team}")
            headers = (team, ("content-type", "application/json"))
        self.refused.add(owner)
        url = route.url(run.segments() | {"owner": segment(owner)})
        what = f"#{number} owner {owner!r:.80}"
        case = HttpInput(what, route, url, run.base(route), headers, names=("owner",))
        return self.raw_if_long(case)

    def raw_if_long(self, case: HttpInput) -> HttpInput:
        """A request whose path is too long for httpx, as bytes (as the suite sends 1 MB)."""
        if len(case.url) <= 60_000 or case.route is None:
            return case
        auth = [("Authorization", f"Bearer {self.run.targets.admin}")]
        headers = [*auth, ("Content-Type", "application/json")]
        raw = raw_request(case.route.method, case.url, headers, case.body or b"")
        return HttpInput(case.what, case.route, case.url[:80], stored=case.stored, raw=raw)

    def header(self, number: int) -> HttpInput:
        """A hostile key, request id, content type or other header, sent as raw bytes."""
        draw, run = self.draw, self.run
        route = draw.rng.choice(run.routes)
        name = draw.rng.choice(HEADERS)
        hostile = draw.string("text")[:8_000]
        value = hostile.encode("utf-8", "surrogatepass").decode("latin-1")
        admin = ("Authorization", f"Bearer {run.targets.admin}")
        json_type = ("Content-Type", "application/json")
        headers = {
            "Authorization": [("Authorization", f"Bearer {value}"), json_type],
            "Content-Type": [admin, ("Content-Type", value)],
        }.get(name, [admin, json_type, (name, value)])
        raw = raw_request(route.method, self.url(route), headers, run.base(route) or b"")
        refused = name == "Authorization" and route.router != "service"
        what = f"#{number} {name}: {hostile!r:.80}"
        return HttpInput(what, route, self.url(route), stored=False if refused else None, raw=raw)

    def body(self, number: int) -> HttpInput:
        """A valid body broken.

        Cut short, in a list, something after it, a byte that is not UTF-8, a key twice, a field
        nested deep, or of the size limit give or take two bytes.
        """
        route, body_field = self.draw.rng.choice(self.fields)
        valid = json_bytes(body_field.levels[0][0])
        changes: list[Callable[[HttpRoute, BodyField, bytes], tuple[str, bytes, bool | None]]] = [
            self.cut,
            lambda _route, _field, valid: ("in a list", b"[" + valid + b"]", False),
            self.after,
            self.not_utf8,
            self.key_twice,
            self.nested_deep,
            self.around_the_limit,
        ]
        change = self.draw.rng.choice(changes)
        name, body, stored = change(route, body_field, valid)
        status = 413 if len(body) > MAX_BODY else None
        whole = change not in (self.key_twice, self.nested_deep) or b"[" * 101 in body
        names = () if whole else body_field.names  # a body broken whole: no field to name
        what = f"#{number} body {name}"
        url = self.url(route)
        return HttpInput(what, route, url, body, None, stored, names, status)

    def cut(self, _route: HttpRoute, _field: BodyField, valid: bytes) -> tuple[str, bytes, bool]:
        """The body cut short."""
        body = valid[: self.draw.rng.randrange(len(valid))]
        return f"cut to {body!r:.60}", body, False

    def after(self, _route: HttpRoute, _field: BodyField, valid: bytes) -> tuple[str, bytes, bool]:
        """Something after the JSON."""
        junk = self.draw.rng.choice([b"x", b"\x00", b"}", b"[]", b"NaN", b"\xff"])
        return f"then {junk!r}", valid + b" " + junk, False

    def not_utf8(
        self, _route: HttpRoute, _field: BodyField, valid: bytes
    ) -> tuple[str, bytes, None]:
        """A byte that is not UTF-8 somewhere in the body."""
        at = self.draw.rng.randrange(len(valid))
        body = valid[:at] + bytes([self.draw.rng.randint(0x80, 0xFF)]) + valid[at:]
        return f"with a byte not UTF-8 at {at}", body, None

    def key_twice(
        self, _route: HttpRoute, body_field: BodyField, valid: bytes
    ) -> tuple[str, bytes, None]:
        """A top-level key given again with a hostile string: the last one counts."""
        key = body_field.levels[0][1]
        again = json_bytes(self.draw.string(rule_of(key)))
        body = valid[:-1] + (b", " if valid != b"{}" else b"") + json_bytes(key) + b": " + again
        return f"{key} twice, then {again!r:.60}", body + b"}", None

    def nested_deep(
        self, _route: HttpRoute, body_field: BodyField, _valid: bytes
    ) -> tuple[str, bytes, None]:
        """A field nested 100, 1,000 or 100,000 deep."""
        depth = self.draw.rng.choice([100, 1_000, 100_000])
        body = json_bytes(body_field.body("@")).replace(b'"@"', b"[" * depth + b"]" * depth)
        return f"{body_field.path} nested {depth} deep", body, None

    def around_the_limit(
        self, _route: HttpRoute, _field: BodyField, valid: bytes
    ) -> tuple[str, bytes, bool | None]:
        """The body padded to the server's limit, give or take two bytes."""
        size = MAX_BODY + self.draw.rng.randint(-2, 2)
        return f"of {size} bytes", padded(valid, size), False if size > MAX_BODY else None

    def sample(self, number: int) -> HttpInput:
        """One of the inputs the suite builds for every route, as it is."""
        builders: dict[str, Callable[[HttpRun], list[HttpInput]]] = {
            "owners": owner_inputs,
            "key ids": key_id_inputs,
            "keys": auth_inputs,
            "methods": method_inputs,
            "bodies": body_inputs,
            "fields": field_inputs,
            "strings": partial(string_inputs, cases=HOSTILE_SAMPLE),
            "edge times": edge_time_inputs,
            "parser": parser_inputs,
        }
        name = self.draw.rng.choice(list(builders))
        if name not in self.suite:
            self.suite[name] = builders[name](self.run)
        case = self.draw.rng.choice(self.suite[name])
        return HttpInput(
            f"#{number} suite {case.what}",
            case.route,
            case.url,
            case.body,
            case.headers,
            case.stored,
            case.names,
            case.status,
            case.method,
            case.streamed,
            case.raw,
        )


def http_block(setup: Setup, channel: Channel, draw: Draw, cache: Path) -> None:
    """One block of requests to one server, run by the suite's http_channel, then the checks."""
    number, count, owner = setup.block(channel)
    folder = setup.folder / f"http-{number}"
    folder.mkdir(parents=True)
    request = setup.fixtures.request()
    made: list[HttpBlock] = []

    def scenario(run: HttpRun, _bystander: OwnerGraph) -> None:
        run.tally = channel.tally  # each input counted, and its notes seen, in the channel's
        generated = HttpBlock(run, channel, draw)
        made.append(generated)
        end = channel.tally.tried + count
        while channel.tally.tried < end:
            generated.step()

    checks, _tried = http_channel(
        setup.flavour, request, folder, owner, setup.embedder, cache, scenario
    )
    channel.absorb(checks)
    refused = made[0].refused if made else set()
    store = http_store(setup.flavour, request, folder)
    channel.tally.note("injection", *leaked(store, setup.embedder, refused))
    server = setup.fixtures.server
    if server is not None:
        raw = RawGraph(server)
        try:
            if raw.count_owned(sorted(owner for owner in refused if valid_unicode(owner))):
                channel.tally.note("injection", f"block {number}: refused owners hold nodes")
        finally:
            raw.close()
    setup.fixtures.close()


def http_channel_run(setup: Setup, cache: Path) -> Channel:
    """Blocks of generated requests."""
    channel, draw = Channel("HTTP"), setup.draw("HTTP", surrogates=True)
    return run_blocks(setup, channel, draw, partial(http_block, setup, channel, draw, cache))


# -- the run --------------------------------------------------------------------------------------


def neo4j_server() -> Neo4jServer:
    """The Neo4j of GRAPHMEM_NEO4J_URI and GRAPHMEM_NEO4J_PASSWORD (GRAPHMEM_NEO4J_USER)."""
    return Neo4jServer(
        uri=os.environ["GRAPHMEM_NEO4J_URI"],
        user=os.environ.get("GRAPHMEM_NEO4J_USER", "neo4j"),
        password=SecretStr(os.environ["GRAPHMEM_NEO4J_PASSWORD"]),
        http_url=os.environ.get("GRAPHMEM_NEO4J_HTTP", "http://127.0.0.1:7474"),
        home=None,
    )


def run_channel(name: str, setup: Setup) -> Channel:
    """Run one channel, with an embedding cache of its own."""
    setup.folder.mkdir(parents=True)
    cache = setup.folder / "embeddings.sqlite"
    if name == "API":
        return api_channel(setup)
    if name == "CLI":
        return cli_channel(setup, cache)
    if name == "MCP":
        return mcp_channel(setup, cache)
    return http_channel_run(setup, cache)


def print_report(channels: list[Channel], seconds: float) -> None:
    """The table, then per channel its inputs by kind, its strings by way, its problems."""
    print("\nchannel   tried  verbatim  refused  crashes  injections  wrong  slow  seconds")
    for channel in channels:
        figures = channel.figures()
        print(
            f"{channel.name:<7} {figures['tried']:7d}  {figures['verbatim']:8d}"
            f"  {figures['refused']:7d}  {figures['crashes']:7d}  {figures['injections']:10d}"
            f"  {figures['wrong']:5d}  {figures['slow']:4d}  {figures['seconds']:7.0f}"
        )
    print(f"wall time {seconds:.0f} s")
    for channel in channels:
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(channel.kinds.items()))
        ways = ", ".join(f"{way} {count}" for way, count in sorted(channel.ways.items()))
        print(f"\n{channel.name}: inputs by kind: {kinds}\n  strings drawn as: {ways}")
        for line in channel.tally.problems().splitlines()[:30]:
            print(f"  {line[:400]}")
        for line in channel.slow[:10]:
            print(f"  slow: {line}")


def main() -> None:
    """Draw the inputs, run them through the channels, print the tables, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-channel", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--store", choices=["networkx", "neo4j"], default="networkx")
    parser.add_argument("--channels", default="api,cli,mcp,http", help="comma-separated")
    parser.add_argument("--jobs", type=int, default=4, help="channels run at once")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "hostile.json")
    arguments = parser.parse_args()
    names = [CHANNELS[name.strip()] for name in arguments.channels.split(",")]
    server = neo4j_server() if arguments.store == "neo4j" else None
    load_before = os.getloadavg()
    started = time.perf_counter()
    prefix = f"hostile-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="graphmem-hostile-") as folder:
        os.environ["XDG_DATA_HOME"] = str(Path(folder) / "xdg-data")  # no user file touched
        setups = [
            Setup(
                arguments.per_channel,
                arguments.seed,
                arguments.store,
                Path(folder) / name.lower(),
                prefix,
                Fixtures(server),
            )
            for name in names
        ]
        # A process a channel: a long call in one (a regular expression holds the GIL) must not
        # hold up another's client, and each channel's standard error is its own.
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=arguments.jobs, mp_context=spawn) as pool:
            channels = list(pool.map(run_channel, names, setups))
    seconds = time.perf_counter() - started
    print_report(channels, seconds)
    result = {
        "per_channel": arguments.per_channel,
        "seed": arguments.seed,
        "store": arguments.store,
        "graphmem": __version__,
        "jobs": arguments.jobs,
        "load_average_before": [round(value, 2) for value in load_before],
        "load_average_after": [round(value, 2) for value in os.getloadavg()],
        "seconds": round(seconds, 1),
        "channels": {channel.name: channel.figures() for channel in channels},
    }
    write_result(arguments.out, result)


if __name__ == "__main__":
    main()
