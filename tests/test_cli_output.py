"""What the command line says: recall's lines, the message id's one name, and its messages."""

import io
import json
import re
import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem.cli.printers import print_counts, print_recall, print_rendered, provenance_text
from graphmem.config import Settings
from graphmem.contract import NOTHING_RELEVANT, GraphCounts
from graphmem.mcp_server import MemoryTools
from graphmem.memory import GraphMem
from graphmem.model import MAX_TEXT_CHARS

from .conftest import clean_env, run_forked

TRIP = [
    {
        "session": "trip",
        "at": "2026-03-09T20:00:00+00:00",
        "messages": [
            {
                "role": "user",
                "content": "We arrived at Disneyland today, the kids loved the castle.",
            },
            {"role": "assistant", "content": "How lovely! What's next?"},
            {"role": "user", "content": "Space Mountain tomorrow, twice if the kids insist."},
        ],
    }
]
AT_EXAMPLE = "--at 2026-05-01T09:00:00+00:00"
MINUTE = timedelta(minutes=1)


def graphmem(
    where: list[str], *arguments: str, stdin: str = "", env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """Run `graphmem ARGUMENTS` on the store `where` names: its exit code, output and errors."""
    done = run_forked([*arguments, *where], clean_env() | (env or {}), stdin)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def trip(tmp_path: Path) -> list[str]:
    """The flags of a store that holds the trip of TRIP, imported for alice."""
    where = ["--path", str(tmp_path / "graph.json")]
    history = tmp_path / "trip.json"
    history.write_text(json.dumps(TRIP))
    code, _out, errors = graphmem(where, "import-history", "--owner", "alice", str(history))
    assert code == 0, errors
    return where


def test_plain_recall_shows_each_memorys_message_and_what_association_came_through(
    trip: list[str],
) -> None:
    query = ["recall", "--owner", "alice", "--at", "2026-03-10T09:00:00+00:00"]
    query += ["--min-confidence", "0", "-k", "3"]
    code, text, errors = graphmem(trip, *query, "--peek", "What did the kids love?")
    assert code == 0, errors
    lines = text.splitlines()
    assert lines[0].endswith("; 3 memories")
    assert re.fullmatch(r"\[1\]   \d\.\d{3}  We arrived at Disneyland today, .*", lines[1])
    assert lines[2] == "             2026-03-09 20:00:00 UTC, user, message trip:1"
    assert lines[4] == '             via [3] "How lovely! What\'s next?", the turn after'
    assert "             2026-03-09 20:00:01 UTC, assistant, message trip:2" in lines
    assert (
        '             via [1] "We arrived at Disneyland today, the…", in the same session,'
        " linked by RELATED"
    ) in lines
    assert lines[-1] == "link: [2] -RELATED-> [1]"

    code, subgraph, errors = graphmem(trip, *query, "--peek", "--json", "What did the kids love?")
    assert code == 0, errors
    ids = [item["memory"]["id"] for item in json.loads(subgraph)["memories"]]
    assert not [memory_id for memory_id in ids if memory_id in text]  # no id a reader must look up

    code, text, errors = graphmem(trip, *query[:-1], "1", "--peek", "What did the kids love?")
    assert code == 0, errors
    assert text.splitlines()[4:] == [
        "             via a memory not among these (a larger -k may show it)"
    ]


def test_plain_recall_names_the_impression_a_memory_was_evoked_through(tmp_path: Path) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    throat = {
        "text": "My throat is sore.",
        "message_id": "m1",
        "at": "2026-03-03T15:00:00+00:00",
    }
    code, _out, errors = graphmem(where, "observe", "--owner", "ann", stdin=json.dumps(throat))
    assert code == 0, errors
    fever = ["recall", "--owner", "ann", "--peek", "--min-confidence", "0", "-k", "1"]
    fever.append("I started having a fever")
    code, text, errors = graphmem(where, *fever, "--at", "2026-03-04T08:00:00+00:00")
    assert code == 0, errors
    assert text.splitlines()[4] == (
        '             evoked by the impression "The user has a cold"'
        " (the owner's belief 0.67, the query's 0.40)"
    )
    # Worked by hand: the sore throat gave the cold 0.9 x 0.8 = 0.72 (the rule's sufficiency
    # times a first-hand statement's belief), of which 0.72 x 0.5 ** (17 / 168) = 0.67 is left
    # 17 hours later (a cold halves in 7 days); the fever implies 0.5 x 0.8 = 0.40.


def test_a_memory_of_many_messages_or_none_names_them_or_its_kind() -> None:
    at = datetime(2026, 3, 1, 9, tzinfo=UTC)
    messages = [
        {"text": f"Line {n} of the trip.", "message_id": f"s:{n}", "at": at + n * MINUTE}
        for n in range(5)
    ]
    with GraphMem.open(Settings()) as memory:
        memory.observe_many("ann", messages)
        [item] = memory.recall(
            "ann", "Line 0 of the trip.", k=1, peek=True, min_confidence=0.0
        ).memories
    turns = [
        item.turns[0].model_copy(update={"id": f"s:{n}", "created_at": at + n * MINUTE})
        for n in (4, 0, 1, 2)
    ]
    many = item.model_copy(update={"turns": turns})
    assert provenance_text(many) == (
        "2026-03-01 09:00:00 UTC to 2026-03-01 09:04:00 UTC, user, 4 messages s:0, s:1 … s:4"
    )
    none = item.model_copy(update={"turns": []})
    assert (
        provenance_text(none)
        == f"{item.memory.created_at:%Y-%m-%d %H:%M:%S} UTC, observation (no message of its own)"
    )


def test_observe_takes_the_message_id_as_message_id_and_refuses_id(tmp_path: Path) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    line = {"text": "I'm allergic to milk.", "message_id": "m1"}
    code, out, errors = graphmem(where, "observe", "--owner", "ann", stdin=json.dumps(line))
    assert code == 0, errors
    assert out.startswith("m1: attention ")
    renamed = {"text": "I live in Paris.", "id": "p1"}
    for command in (["observe", "--owner", "ann"], ["import-history", "--owner", "ann", "-"]):
        code, out, errors = graphmem(where, *command, stdin=json.dumps(renamed) + "\n")
        assert (code, out) == (1, "")
        assert errors == (
            "graphmem: line 1: the message id's key is message_id, not id: rename id to"
            " message_id\n"
        )
    number = '{"text": "hi", "message_id": 7}'
    code, out, errors = graphmem(where, "observe", "--owner", "ann", stdin=number)
    assert (code, errors) == (1, "graphmem: line 1: message_id must be a string, not int\n")
    code, turns, errors = graphmem(where, "stats", "--owner", "ann", "--json")
    assert json.loads(turns)["nodes"]["Turn"] == 1


@pytest.mark.parametrize(
    ("query", "stdin", "problem"),
    [
        ("", "", "the query is empty: give a question, or '-' to read the recent conversation"),
        ("-", " \n", "the query is empty: "),
        ("-", "x" * (MAX_TEXT_CHARS + 1), f"the query has {MAX_TEXT_CHARS + 1} characters"),
    ],
)
def test_a_query_that_cannot_be_recalled_with_is_called_the_query(
    tmp_path: Path, query: str, stdin: str, problem: str
) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    code, out, errors = graphmem(where, "recall", "--owner", "ann", query, stdin=stdin)
    assert (code, out) == (1, "")
    assert errors.startswith(f"graphmem: {problem}"), errors
    assert "text" not in errors


@pytest.mark.parametrize(
    "command",
    [
        ["recall", "--owner", "ann", "milk?"],
        ["consolidate", "--all"],
        ["health", "--owner", "ann"],
        ["import-history", "--owner", "ann", "-"],
    ],
)
@pytest.mark.parametrize(
    ("at", "problem"),
    [("yesterday", "is not an ISO 8601 time"), ("2026-03-01", "has no UTC offset")],
)
def test_a_bad_at_names_the_flag_and_shows_a_time_that_works(
    tmp_path: Path, command: list[str], at: str, problem: str
) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    code, out, errors = graphmem(where, *command, "--at", at, stdin="[]")
    assert (code, out) == (2, "")  # a command line it cannot parse, with the usage
    last = errors.splitlines()[-1]
    assert last.startswith(f"graphmem {command[0]}: error: argument --at: '{at}' {problem}")
    assert last.endswith(AT_EXAMPLE), last


def test_import_history_counts_in_the_singular_and_names_pending_only_when_some_are(
    tmp_path: Path,
) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    history = tmp_path / "one.json"
    history.write_text(json.dumps([[{"role": "user", "content": "Hello there."}]]))
    command = ["import-history", "--owner", "ann", str(history)]
    with socket.socket() as held:  # bound, not listening: connecting to it is refused
        held.bind(("127.0.0.1", 0))
        unreachable = {
            "GRAPHMEM_COGNITION": "openai",
            "GRAPHMEM_OPENAI_API_KEY": "key",
            "GRAPHMEM_OPENAI_BASE_URL": f"http://127.0.0.1:{held.getsockname()[1]}/v1",
            "GRAPHMEM_OPENAI_MAX_RETRIES": "0",
        }
        code, out, errors = graphmem(where, *command, env=unreachable)
    assert code == 0, errors
    assert out == (
        "imported 1 message from 1 session: 0 new turns, 0 already stored, 1 pending (the model"
        " did not answer; `graphmem consolidate` derives them)\n"
    )
    code, out, errors = graphmem(where, *command)  # the offline cognition derives it
    assert code == 0, errors
    assert out == "imported 1 message from 1 session: 1 new turn, 0 already stored, 0 pending\n"


def test_the_help_names_every_mcp_tool_or_none_and_explains_the_transport() -> None:
    tools = {name for name in vars(MemoryTools) if not name.startswith("_")} - {"close"}
    assert tools == {
        "observe",
        "observe_many",
        "recall",
        "profile",
        "consolidate",
        "forget_message",
    }
    code, text, errors = graphmem([], "--help")
    assert code == 0, errors
    [entry] = re.findall(r"^ {4}mcp .*(?:\n {10,}.*)*", text, re.MULTILINE)
    named = {tool for tool in tools if re.search(rf"\b{tool}\b", entry)}
    assert named in (set(), tools), entry
    assert not re.search(r"\b(two|three|four|five|six)\b", entry), entry
    code, text, errors = graphmem([], "mcp", "--help")
    assert code == 0, errors
    options = text.split("\noptions:\n", 1)[1]
    transport = options.split("--transport {stdio,http}", 1)[1].split("\n  --host", 1)[0]
    assert "stdio" in transport
    assert "http://HOST:PORT/mcp" in " ".join(transport.split())


def test_the_help_speaks_to_users_and_says_where_each_command_keeps_the_memory(
    user_data_folder: Path,
) -> None:
    file = user_data_folder / "graphmem" / "graph.json"
    unwrapped = {"COLUMNS": "1000"}  # a line a paragraph: the path is never cut
    code, text, errors = graphmem([], "--help", env=unwrapped)
    assert code == 0, errors
    description = text.split("\n\n")[1]
    assert description.startswith("Long-term memory for conversational agents"), description
    assert f"The memory is kept in {file} unless --path" in description
    assert not re.search(r"run_|printers|facade|graphmem\.\w", text), text  # the code's words
    for command in ("observe", "keys create", "serve", "mcp"):
        code, text, errors = graphmem([], *command.split(), "--help", env=unwrapped)
        assert code == 0, errors
        assert f"(default: GRAPHMEM_PATH, else the per-user file {file})" in text, command
    code, text, errors = graphmem([], "demo", "--help", env=unwrapped)
    assert code == 0, errors
    assert "(default: GRAPHMEM_PATH, else in memory only: gone when the demo ends)" in text
    assert str(file) not in text


def test_the_belief_histogram_draws_bars_in_proportion_to_the_counts() -> None:
    counts = GraphCounts(
        nodes={"Memory": 435}, links={}, tiers={0: 435}, beliefs={"0.8": 407, "unset": 28}
    )
    out = io.StringIO()
    print_counts(counts, out)
    rows = out.getvalue().splitlines()[-2:]
    bars = {row.split()[0]: (int(row.split()[1]), len(row.split()[2])) for row in rows}
    width = bars["0.8"][1]
    for count, bar in bars.values():
        assert abs(bar - width * count / 407) <= 0.5, rows
    assert bars["unset"][1] < width / 10
    assert rows[0].index("407") + 3 == rows[1].index("28") + 2  # counts aligned on the right


def test_a_recall_that_found_nothing_relevant_says_so_in_both_views(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with GraphMem.open(Settings()) as memory:
        memory.observe("ann", "I live in Paris.", message_id="p1")
        found = memory.recall("ann", "Where do I live?", peek=True, max_tokens=100)
    nothing = found.model_copy(update={"memories": [], "links": [], "nothing_relevant": True})
    out = io.StringIO()
    print_recall(nothing, out)
    assert out.getvalue().splitlines()[-1] == NOTHING_RELEVANT  # after how the recall went
    out = io.StringIO()
    print_rendered(nothing, out)
    assert out.getvalue() == nothing.render() + "\n"
    assert NOTHING_RELEVANT in nothing.render().splitlines()
    assert capsys.readouterr().err.startswith("searched ")  # how it went, on stderr
