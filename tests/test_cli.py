"""The command line as a user runs it: its verbs, settings and errors (the demo: test_demo.py)."""

import importlib.metadata
import json
import re
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import graphmem
import graphmem.cli
import graphmem.memory
import graphmem.server
from graphmem.cli import ExitStatus
from graphmem.cli.grammar import parser
from graphmem.config import Settings
from graphmem.contract import Health, OwnerGraph, Profile, Recall, RecallQuestion
from graphmem.errors import InvalidInputError
from graphmem.gate import Limits
from graphmem.memory import GraphMem
from graphmem.model import Memory, Turn
from graphmem.testing import scripted_openai_server

from .conftest import ROOT, Neo4jServer, clean_env, run_forked
from .test_pending import offline_model

START = datetime(2026, 3, 1, 9, tzinfo=UTC)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
MINUTE = timedelta(minutes=1)


def run_cli(*arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphmem", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_missing_password_is_reported_plainly() -> None:
    done = run_cli("demo", "--store", "neo4j", env=clean_env())
    assert done.returncode == 1
    assert done.stderr == "graphmem: the neo4j store needs GRAPHMEM_NEO4J_PASSWORD\n"


def test_version_prints_the_version_of_the_installed_package() -> None:
    done = run_cli("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"graphmem {graphmem.__version__}\n"
    assert graphmem.__version__ == importlib.metadata.version("graphmem")


def test_every_exit_status_of_the_command_line_is_listed_in_its_page() -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    table = page.split("\n| exit status | when |\n|---|---|\n", 1)[1].split("\n\n", 1)[0]
    listed = {
        int(status): when for status, when in re.findall(r"^\| (\d+) \| (.+) \|$", table, re.M)
    }
    assert set(ExitStatus) <= set(listed)
    assert run_cli("owners", "--in-memory", env=clean_env()).returncode == ExitStatus.DONE
    assert run_cli("stats", "--in-memory", env=clean_env()).returncode == ExitStatus.USAGE
    configuration = run_cli(
        "stats", "--owner", "a", "--in-memory", "--store", "neo4j", env=clean_env()
    )
    assert configuration.returncode == ExitStatus.ERROR, configuration.stderr
    assert configuration.stderr.startswith("graphmem: --in-memory is for the networkx store")
    assert "a `ConfigurationError`: such as" in listed[ExitStatus.ERROR]
    assert "`--in-memory` with `--store neo4j`" in listed[ExitStatus.ERROR]


def test_consolidate_runs_for_every_owner_with_log_lines(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    memory = GraphMem.open(Settings(path=path))
    for owner in ("ann", "bob"):
        for number, text in enumerate(["My throat hurts.", "I'm worried.", "I'm in a good mood."]):
            memory.observe(owner, text, message_id=f"m{number}", at=START + number * HOUR)
    memory.close()
    arguments = ["--path", str(path), "--at", (START + DAY).isoformat(), "--log-every", "2"]
    done = run_cli("consolidate", "--all", *arguments)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for owner in ("ann", "bob"):
        # Log lines (not a terminal): the first item of each step and every second one after.
        assert f"{owner}: fact 1, " in done.stdout
        assert f"{owner}: fact 2, " in done.stdout
        assert f"{owner}: fact 3, " not in done.stdout
        [summary] = [line for line in lines if line.startswith(f"{owner}: done in")]
        assert "facts 3" in summary
        assert "summaries 1" in summary
        assert "judge_facts" in summary
    again = run_cli("consolidate", "--owner", "ann", *arguments)
    assert "ann: done in" in again.stdout
    assert "model calls: none" in again.stdout


def test_profile_prints_the_user_in_lines_or_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "graph.json"
    with GraphMem.open(Settings(path=path)) as memory:
        memory.observe("ann", "I'm allergic to milk.", at=START)
        memory.observe("ann", "My throat is sore.", at=START + timedelta(minutes=1))
        memory.consolidate("ann", at=START + timedelta(hours=1))
    at = ["--path", str(path), "--owner", "ann", "--at", (START + DAY).isoformat()]
    assert graphmem.cli.main(["profile", *at]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0] == f"profile of ann at {(START + DAY).isoformat()}:"
    assert text[1] == (
        f"  allergy: milk — I'm allergic to milk. (belief 0.80, since {START:%Y-%m-%d})"
    )
    assert text[2].startswith("  conjecture — The user has a cold (belief 0.")
    assert text[-1] == "  (1 fact, 1 conjecture, 1 open event, 0 causal rules)"
    assert graphmem.cli.main(["profile", "--json", *at]) == 0
    profile = Profile.model_validate_json(capsys.readouterr().out)
    assert [fact.slot for fact in profile.facts] == ["allergy: milk"]


def test_turns_prints_a_session_in_order_with_message_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "graph.json"
    with GraphMem.open(Settings(path=path)) as memory:
        memory.observe("ann", "I'm allergic\nto milk.", message_id="m1", at=START, session="s")
        memory.observe("ann", "Noted.", message_id="m2", at=START, session="s", speaker="assistant")
        memory.observe("ann", "Elsewhere.", message_id="m3", at=START, session="t")
    where = ["--path", str(path), "--owner", "ann", "--session", "s"]
    assert graphmem.cli.main(["turns", *where]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"    0  {START:%Y-%m-%d %H:%M}  [m1] user: I'm allergic to milk.",
        f"    1  {START:%Y-%m-%d %H:%M}  [m2] assistant: Noted.",
    ]
    assert graphmem.cli.main(["turns", "--json", "--last", "1", *where]) == 0
    [turn] = json.loads(capsys.readouterr().out)
    assert (turn["id"], turn["position"], turn["session"]) == ("m2", 1, "s")
    assert (
        graphmem.cli.main(["turns", "--path", str(path), "--owner", "ann", "--session", "x"]) == 0
    )
    assert capsys.readouterr().out == "ann has no turns in session 'x'\n"
    assert graphmem.cli.main(["turns", "--last", "-2", *where]) == 1
    assert "last: Input should be greater than or equal to 0" in capsys.readouterr().err


def test_learn_retier_and_complete_pending_are_verbs_of_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "graph.json"
    where = ["--path", str(path), "--owner", "ann"]
    with GraphMem.open(Settings(path=path)) as memory:
        memory.observe("ann", "The bus was late.", at=START)
        [before] = [item for item in memory.export("ann").nodes if isinstance(item, Memory)]
    with scripted_openai_server(responder=offline_model) as model:
        port = model.port
    model_settings = tmp_path / "model.toml"  # a chat model at a port where nothing listens now
    model_settings.write_text(
        'cognition = "openai"\nopenai_api_key = "sk-test"\nopenai_max_retries = 0\n'
        f'openai_base_url = "http://127.0.0.1:{port}/v1"\n'
    )
    with GraphMem.open(Settings.from_env({}, file=model_settings, path=path)) as memory:
        pending = memory.observe("ann", "I'm allergic to milk.", message_id="milk", at=START)
    assert (pending.pending, pending.memories) == (True, [])
    rule = ["--cause", "I sneeze a lot", "--effect", "I have hay fever", "--sufficiency", "0.4"]
    assert graphmem.cli.main(["learn", *where, *rule, "--at", START.isoformat()]) == 0
    assert capsys.readouterr().out == (
        "ann learned: I sneeze a lot -> I have hay fever (sufficiency 0.40)\n"
    )
    assert graphmem.cli.main(["retier", *where, "--at", (START + 400 * DAY).isoformat()]) == 0
    moved = int(capsys.readouterr().out.split("retiered ")[1].split()[0])
    with_model = ["complete-pending", *where, "--config", str(model_settings)]
    assert graphmem.cli.main(with_model) == 0  # the model is still down: the turn waits
    assert capsys.readouterr().out == "ann: 0 pending turns derived\n"
    with scripted_openai_server(responder=offline_model, port=port) as model:
        assert graphmem.cli.main(with_model) == 0
    assert capsys.readouterr().out == "ann: 1 pending turn derived\n"
    assert len(model.requests) == 1  # the model was asked about the turn, once
    with GraphMem.open(Settings(path=path)) as memory:
        assert memory.health("ann", at=START + DAY).checks.pending_turns == 0
        derived = memory.recall(
            "ann", "What am I allergic to?", at=START + DAY, peek=True, min_confidence=0.0
        )
        assert derived.memories[0].memory.text == "I'm allergic to milk."
        assert memory.profile("ann", at=START + DAY).causal_rules == 1
        [after] = [item for item in memory.export("ann").nodes if item.id == before.id]
    assert isinstance(after, Memory)
    assert after.tier > before.tier
    assert moved >= 1
    assert graphmem.cli.main(["learn", *where, *rule[:4], "--sufficiency", "1.5"]) == 1
    assert "sufficiency" in capsys.readouterr().err
    assert graphmem.cli.main(["complete-pending", *where, "--limit", "0"]) == 1
    assert "limit: Input should be greater than or equal to 1" in capsys.readouterr().err
    with GraphMem.open(Settings(path=path)) as memory:
        stored = memory.export("ann").nodes
    assert len([item for item in stored if isinstance(item, Memory)]) == 4  # nothing more


def test_health_reports_each_owner_in_text_or_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "graph.json"
    with GraphMem.open(Settings(path=path)) as memory:
        for owner in ("ann", "bob"):
            memory.observe(owner, "My throat hurts.", message_id="m", at=START)
    at = ["--path", str(path), "--at", (START + DAY).isoformat()]
    assert graphmem.cli.main(["health", "--owner", "ann", *at]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0] == (
        f"health of ann at {(START + DAY).isoformat()}: embeddings multilingual-e5-small-q4,"
        " cognition offline rules"
    )
    rows = {line[2:22].strip(): line[23:] for line in text[1:-1]}
    assert list(rows) == [
        "nodes",
        "memories",
        "pending work",
        "duplicates merged",
        "open contradictions",
        "superseded",
        "conjectures",
        "never used",
        "isolated",
    ]
    assert rows["pending work"].startswith("0 turns pending, 1 awaiting a summary, 1 fact awaiting")
    assert rows["conjectures"] == "1 conjecture, made 1.0 to 1.0 days ago"
    assert rows["superseded"] == "0 facts a newer one updated"
    assert text[-1].startswith('Browser: the query "graphmem health: ROW"')
    assert graphmem.cli.main(["health", "--all", "--json", *at]) == 0
    reports = [Health.model_validate_json(line) for line in capsys.readouterr().out.splitlines()]
    assert [report.owner for report in reports] == ["ann", "bob"]
    assert reports[0].checks.kinds == {"observation": 1, "conjecture": 1}


def test_a_reader_that_goes_away_stops_the_command_quietly(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    turns = [
        Turn(id=f"m{number}", owner="ann", text=f"Remark number {number}.", created_at=START)
        for number in range(2000)  # an export far longer than a pipe holds (64 KiB on Linux)
    ]
    with GraphMem.open(Settings(path=path)) as memory:
        memory.load("ann", OwnerGraph(nodes=list(turns), links=[]))
    with subprocess.Popen(
        [sys.executable, "-m", "graphmem", "export", "--owner", "ann", "--path", str(path)],
        cwd=ROOT,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        assert process.stdout.readline().startswith('{"format": "graphmem-export"')
        process.stdout.close()  # as `graphmem export ... | head -1` does
        assert process.wait() == 1
        assert process.stderr.read() == ""


def test_consolidate_refuses_a_time_without_offset(tmp_path: Path) -> None:
    done = run_cli(
        "consolidate", "--owner", "ann", "--path", str(tmp_path / "g.json"), "--at", "2026-03-01"
    )
    assert done.returncode == 2  # a command line it cannot parse, with the usage
    assert done.stderr.endswith(
        "graphmem consolidate: error: argument --at: '2026-03-01' has no UTC offset: give one,"
        " such as --at 2026-05-01T09:00:00+00:00\n"
    )


def store_arguments(store: str, request: pytest.FixtureRequest, tmp_path: Path) -> list[str]:
    """The flags that name the store: a file for networkx, the test server for neo4j."""
    if store == "networkx":
        return ["--store", "networkx", "--path", str(tmp_path / "graph.json")]
    server: Neo4jServer = request.getfixturevalue("neo4j_server")
    config = tmp_path / "neo4j.toml"
    config.write_text(
        f'neo4j_uri = "{server.uri}"\nneo4j_password = "{server.password.get_secret_value()}"\n'
    )
    return ["--store", "neo4j", "--config", str(config)]


TOLD = ["I live in Paris.", "I'm allergic to milk."]
"""What an owner says on the first morning: the night after makes a home and an allergy of it."""
NEWS = ["My cat Miso knocked over a glass of milk.", "We went hiking on Sunday."]
"""What the owner says the next morning."""
ASKED: dict[str, Any] = {
    "query": "Can I drink milk?",
    "at": START + DAY + HOUR,
    "since": START + DAY,
    "peek": True,
    "max_tokens": 2000,
    "min_confidence": 0.0,
    "budget_seconds": 60.0,
}
"""A recall of the NEWS, within a budget that leaves the profile room (facts that no memory
shown says already); peeking, so that a face's recall and the facade's find the same; whatever
its confidence, so that it holds memories; with the time to finish however slowly a process
starts."""
ASKED_JSON = RecallQuestion.model_validate(ASKED).model_dump(mode="json", exclude_defaults=True)
"""ASKED as a JSON body or tool call carries it."""


def settings_of(flags: Sequence[str], environ: Mapping[str, str]) -> Settings:
    """The settings that a command given the store's flags runs on, with these variables."""
    given = parser().parse_args(["stats", "--owner", "x", *flags])
    return Settings.from_env(environ, file=given.config, store=given.store, path=given.path)


def tell(memory: GraphMem, owner: str, start: datetime) -> None:
    """The owner says TOLD at `start`, the night comes 8 hours after, and NEWS a day after it."""
    for number, text in enumerate(TOLD):
        memory.observe(owner, text, message_id=f"told-{number}", at=start + number * MINUTE)
    memory.consolidate(owner, at=start + 8 * HOUR)
    for number, text in enumerate(NEWS):
        memory.observe(owner, text, message_id=f"news-{number}", at=start + DAY + number * MINUTE)


def told(settings: Settings, owner: str) -> Recall:
    """The facade's recall ASKED, once the owner told it all on the settings' store: the profile
    lines the budget chose first, then memories."""
    with GraphMem.open(settings) as memory:
        tell(memory, owner, START)
        recall = memory.recall(owner, **ASKED)
    assert [line.split(" — ")[0] for line in recall.profile] == ["allergy: milk", "home"]
    assert recall.memories
    return recall


def cli(arguments: list[str], *command: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run one CLI command with the store's flags after it, with no GRAPHMEM_* variables."""
    return subprocess.run(
        [sys.executable, "-m", "graphmem", *command, *arguments],
        cwd=ROOT,
        env=clean_env(),
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def forked_cli(
    arguments: list[str], *command: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """Run one CLI command as `cli` does, in a process forked with graphmem imported already
    (a second sooner than `python -m graphmem`)."""
    return run_forked([*command, *arguments], clean_env(), stdin)


def cli_bytes(
    arguments: list[str], *command: str, stdin: bytes, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run one CLI command as `cli` does, with raw bytes on stdin (which need not be UTF-8) and
    `env` added to the environment."""
    done = subprocess.run(
        [sys.executable, "-m", "graphmem", *command, *arguments],
        cwd=ROOT,
        env=clean_env() | (env or {}),
        input=stdin,
        capture_output=True,
        check=False,
    )
    out, err = (stream.decode(errors="replace") for stream in (done.stdout, done.stderr))
    return subprocess.CompletedProcess(done.args, done.returncode, out, err)


MESSAGES = [
    {"text": "I'm allergic to milk.", "message_id": "m1", "at": "2026-03-01T09:00:00+00:00"},
    {"text": "We adopted a cat named Miso.", "message_id": "m2", "at": "2026-03-01T09:05:00+00:00"},
    {
        "text": "My throat hurts.",
        "message_id": "m3",
        "at": "2026-03-02T09:00:00+00:00",
        "session": "s2",
    },
]


@pytest.mark.parametrize("store", ["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_the_verbs_observe_recall_stats_export_forget_and_import(
    store: str, request: pytest.FixtureRequest, tmp_path: Path, owner: str
) -> None:
    owner = f"小明.{owner}"  # an owner may be named in any script
    where = store_arguments(store, request, tmp_path)
    lines = "".join(json.dumps(message) + "\n" for message in MESSAGES)
    observed = forked_cli(where, "observe", "--owner", owner, "--json", stdin=lines)
    assert observed.returncode == 0, observed.stderr
    replies = [json.loads(line) for line in observed.stdout.splitlines()]
    assert [reply["turn"]["id"] for reply in replies] == ["m1", "m2", "m3"]
    assert "embedding" not in replies[0]["memories"][0]
    assert [c["text"] for c in replies[2]["conjectures"]] == ["The user has a cold"]
    file = tmp_path / "more.jsonl"
    file.write_text(
        json.dumps({"text": "Miso knocked over a glass of milk.", "message_id": "m4"}) + "\n"
    )
    assert forked_cli(where, "observe", "--owner", owner, str(file)).stdout.startswith(
        "m4: attention"
    )

    asked = ["recall", "--owner", owner, "Can I drink milk?", "--min-confidence", "0"]
    recalled = forked_cli(where, *asked, "-k", "2", "--json")
    assert recalled.returncode == 0, recalled.stderr
    subgraph = json.loads(recalled.stdout)
    assert subgraph["memories"][0]["memory"]["text"] == "I'm allergic to milk."
    assert set(subgraph["memories"][0]["components"]) >= {"relevance", "attention", "recency"}
    assert "embedding" not in subgraph["memories"][0]["memory"]
    assert subgraph["rendered"].splitlines()[0] == "[1] 2026-03-01 09:00 I'm allergic to milk."
    assert 0 <= subgraph["confidence"] <= 1
    assert subgraph["nothing_relevant"] is False  # a floor of 0: what was found
    text = forked_cli(where, *asked, "-k", "1", "--peek")
    assert "relevance" in text.stdout
    assert "I'm allergic to milk." in text.stdout
    fitted = forked_cli(where, *asked, "--max-tokens", "20", "--peek")
    assert fitted.stdout == "[1] 2026-03-01 09:00 I'm allergic to milk.\n"  # the text alone
    assert re.search(r"rendered in 1\d tokens of 20", fitted.stderr)
    assert "; 1 memory\n" in fitted.stderr
    nobody = forked_cli(where, "recall", "--owner", owner, "milk", "--speaker", "nobody", "--json")
    assert json.loads(nobody.stdout)["memories"] == []
    wrong = forked_cli(where, "recall", "--owner", owner, "milk", "--min-belief", "2")
    assert "min_belief: Input should be less than or equal to 1" in wrong.stderr
    dialogue = "Ann: Miso is so cute.\nassistant: Cats are great!\nAnn: Can I drink milk?\n"
    piped = forked_cli(where, "recall", "--owner", owner, "-", "-k", "1", "--json", stdin=dialogue)
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout)["query"] == dialogue

    stats = forked_cli(where, "stats", "--owner", owner, "--json")
    counts = json.loads(stats.stdout)
    assert counts["nodes"]["Turn"] == 4
    assert sum(counts["tiers"].values()) == counts["nodes"]["Memory"]
    assert "memories per tier" in forked_cli(where, "stats", "--owner", owner).stdout

    exported = tmp_path / "export.jsonl"
    assert forked_cli(where, "export", "--owner", owner, "--out", str(exported)).returncode == 0
    header = json.loads(exported.read_text().splitlines()[0])
    assert header == {"format": "graphmem-export", "version": 2, "owner": owner}
    neighbour = forked_cli(where, "observe", "--owner", owner + "-b", stdin=lines)
    assert neighbour.returncode == 0, neighbour.stderr
    neighbour_stats = forked_cli(where, "stats", "--owner", owner + "-b", "--json").stdout

    forgotten = forked_cli(where, "forget-owner", "--owner", owner, "--yes")
    assert forgotten.returncode == 0, forgotten.stderr
    assert forgotten.stdout.endswith("counted after: 0 nodes, 0 edges\n")
    assert json.loads(forked_cli(where, "stats", "--owner", owner, "--json").stdout)["links"] == {}
    assert forked_cli(where, "stats", "--owner", owner + "-b", "--json").stdout == neighbour_stats

    imported = forked_cli(where, "import", str(exported))
    assert imported.returncode == 0, imported.stderr
    again = tmp_path / "again.jsonl"
    forked_cli(where, "export", "--owner", owner, "--out", str(again))
    assert again.read_text() == exported.read_text()


@pytest.mark.parametrize("store", ["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_recall_within_a_budget_prints_the_rendered_text_of_the_facades_recall(
    store: str, request: pytest.FixtureRequest, tmp_path: Path, owner: str
) -> None:
    where = store_arguments(store, request, tmp_path)
    expected = told(settings_of(where, clean_env()), owner)
    asked = [
        *("recall", "--owner", owner, ASKED["query"], "--at", ASKED_JSON["at"], "--peek"),
        *("--since", ASKED_JSON["since"], "--max-tokens", "2000", "--min-confidence", "0"),
        *("--budget", "60"),
    ]
    fitted = forked_cli(where, *asked)
    assert fitted.returncode == 0, fitted.stderr
    assert fitted.stdout == expected.render() + "\n"
    assert fitted.stdout.startswith("\n".join(expected.profile) + "\n[1] ")  # home, allergy
    assert f"rendered in {expected.tokens} tokens of 2000\n" in fitted.stderr
    subgraph = json.loads(forked_cli(where, *asked, "--json").stdout)
    assert subgraph["rendered"] == expected.render()
    assert subgraph["profile"] == expected.profile
    assert subgraph["confidence"] == expected.confidence
    assert subgraph["nothing_relevant"] is expected.nothing_relevant is False


def test_bad_input_lines_are_named_and_what_came_before_stays(tmp_path: Path) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    good = json.dumps({"text": "I'm allergic to milk.", "message_id": "m1"})
    for bad, problem in [
        ("{not json", "line 2: not JSON"),
        ('["a list"]', "line 2: not an object with a text string"),
        ('{"text": "hi", "when": "now"}', "line 2: unknown keys ['when']"),
        (
            '{"text": "hi", "at": "yesterday"}',
            "line 2: at must be a time in ISO 8601, not 'yesterday'",
        ),
        ('{"text": "hi", "at": "2026-03-01T09:00:00"}', "line 2: "),
        ('{"text": ""}', "line 2: "),
        ("[" * 100_000 + "]" * 100_000, "line 2: not JSON"),
    ]:
        done = cli(where, "observe", "--owner", "ann", stdin=f"{good}\n{bad}\n")
        assert done.returncode == 1
        assert done.stderr.startswith(f"graphmem: {problem}"), done.stderr
    stats = json.loads(cli(where, "stats", "--owner", "ann", "--json").stdout)
    assert stats["nodes"]["Turn"] == 1
    exported = tmp_path / "export.jsonl"
    cli(where, "export", "--owner", "ann", "--out", str(exported))
    lines = exported.read_text().splitlines()
    for broken, problem in [
        (["{}", *lines[1:]], "line 1: not a graphmem-export header"),
        ([lines[0], '{"label": "Ghost", "node": {}}'], "line 2: not a node or edge record"),
        ([], "nothing to import"),
    ]:
        done = cli(where, "import", stdin="\n".join(broken))
        assert done.returncode == 1
        assert done.stderr.startswith(f"graphmem: {problem}"), done.stderr
    assert cli(where, "forget-owner", "--owner", "ann").returncode == 2  # --yes is required


def test_a_large_import_is_loaded_in_parts_and_a_large_load_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    lines = "".join(json.dumps(message) + "\n" for message in MESSAGES)
    assert cli(where, "observe", "--owner", "ann", stdin=lines).returncode == 0
    exported = tmp_path / "export.jsonl"
    cli(where, "export", "--owner", "ann", "--out", str(exported))
    elsewhere = ["--path", str(tmp_path / "other.json")]
    monkeypatch.setattr(
        graphmem.cli.owner_data, "MAX_LOAD_ITEMS", 4
    )  # the import splits into many loads
    assert graphmem.cli.main(["import", str(exported), *elsewhere]) == 0
    assert "imported" in capsys.readouterr().out
    again = tmp_path / "again.jsonl"
    cli(elsewhere, "export", "--owner", "ann", "--out", str(again))
    assert again.read_text() == exported.read_text()

    graph = OwnerGraph.from_records(
        [json.loads(line) for line in exported.read_text().splitlines()[1:]]
    )
    monkeypatch.setattr(graphmem.memory, "MAX_LOAD_ITEMS", 4)
    with GraphMem.open(Settings(path=tmp_path / "third.json")) as memory:
        with pytest.raises(InvalidInputError, match=r"load at most 4 at a time"):
            memory.load("ann", graph)
        assert memory.owners() == []


def test_bad_paths_and_bytes_are_named_plainly(tmp_path: Path) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    cli(
        where, "observe", "--owner", "ann", stdin=json.dumps({"text": "Hello.", "message_id": "m1"})
    )
    kept = tmp_path / "kept.jsonl"
    kept.write_text("an earlier export\n")
    folder = tmp_path / "folder.json"
    folder.mkdir()
    for command, problem in [
        (["export", "--owner", "ann", "--out", str(tmp_path / "no" / "x.jsonl")], "cannot write"),
        (["export", "--owner", "a b", "--out", str(kept)], "owner 'a b' is not"),
        (["stats", "--owner", "ann", "--path", str(folder)], "cannot read the store"),
        (["demo", "--plot", str(tmp_path / "plot.nosuchformat")], "cannot write the plot"),
    ]:
        done = cli([] if "--path" in command else where, *command)
        assert done.returncode == 1, done.stderr
        assert done.stderr.startswith("graphmem: "), done.stderr
        assert problem in done.stderr, done.stderr
    assert kept.read_text() == "an earlier export\n"  # a failed export leaves the file alone
    not_utf8 = cli_bytes(
        where,
        "observe",
        "--owner",
        "ann",
        stdin=b'{"text": "caf\xe9"}\n',
        env={"PYTHONIOENCODING": "utf-8:strict"},
    )
    assert not_utf8.returncode == 1
    assert not_utf8.stderr.startswith("graphmem: the input is not UTF-8")


def stored_turns(path: Path, owner: str) -> list[Turn]:
    """The owner's turns in the networkx store at `path`, in the order of their times."""
    with GraphMem.open(Settings(path=path)) as memory:
        graph = memory.export(owner)
    turns = [node for node in graph.nodes if isinstance(node, Turn)]
    return sorted(turns, key=lambda turn: turn.created_at)


def stored_counts(path: Path, owner: str) -> dict[str, int]:
    """Nodes per label of the owner in the networkx store at `path`."""
    with GraphMem.open(Settings(path=path)) as memory:
        return memory.statistics(owner).nodes


# LongMemEval's shape: a list of sessions of OpenAI-style messages, some with extra keys.
HAYSTACK: list[list[dict[str, Any]]] = [
    [
        {"role": "user", "content": "I'm allergic to milk."},
        {"role": "assistant", "content": "Noted: no milk for you."},
    ],
    [
        {"role": "user", "content": "We adopted a cat named Miso.", "has_answer": True},
        {"role": "assistant", "content": "Congratulations on Miso!"},
        {"role": "user", "content": "She likes tuna."},
    ],
    [{"role": "user", "content": "My throat hurts."}],
]


def test_import_history_of_chat_sessions_keeps_their_order_and_stores_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "graph.json"
    file = tmp_path / "haystack.json"
    file.write_text(json.dumps(HAYSTACK, indent=1))
    command = ["import-history", "--owner", "ann", str(file), "--path", str(path)]
    first = cli([], *command, "--at", START.isoformat())
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(
        "imported 6 messages from 3 sessions: 6 new turns, 0 already stored, 0 pending"
    ), first.stdout
    assert len(first.stdout.splitlines()) == 1  # a summary, not a line a turn

    counts = stored_counts(path, "ann")
    assert (counts["Turn"], counts["Session"]) == (6, 3)
    turns = stored_turns(path, "ann")
    assert [(turn.id, turn.speaker, turn.session, turn.text) for turn in turns] == [
        (f"{number}:{place}", message["role"], str(number), message["content"])
        for number, session in enumerate(HAYSTACK, start=1)
        for place, message in enumerate(session, start=1)
    ]
    second = timedelta(seconds=1)
    # A second a message; each session a minute after the one before it ends; the last at --at.
    began = START - 5 * second - 2 * timedelta(minutes=1)
    starts = [began, began + 2 * second + timedelta(minutes=1)]
    starts.append(starts[1] + 3 * second + timedelta(minutes=1))
    assert [turn.created_at for turn in turns] == [
        starts[0],
        starts[0] + second,
        starts[1],
        starts[1] + second,
        starts[1] + 2 * second,
        starts[2],
    ]

    again = cli([], *command)  # another --at (now): the message ids alone decide
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(
        "imported 6 messages from 3 sessions: 0 new turns, 6 already stored, 0 pending"
    ), again.stdout
    assert stored_turns(path, "ann") == turns


def test_import_history_keeps_the_times_and_ids_that_sessions_give(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    sessions = [
        {
            "session": "trip",
            "at": "2024-05-01T08:00:00+02:00",
            "messages": [
                {"role": "user", "content": "We land in Lisbon at noon."},
                {"role": "assistant", "content": "Have a good flight!"},
            ],
        },
        {"messages": [{"role": "user", "content": "I'm back home."}]},
    ]
    file = tmp_path / "sessions.json"
    file.write_text(json.dumps(sessions))
    later = datetime(2024, 6, 1, 9, tzinfo=UTC)
    done = cli(
        ["--path", str(path)],
        *["import-history", "--owner", "ann", str(file), "--at", later.isoformat(), "--json"],
    )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]  # only JSON lines
    assert [reply["turn"]["id"] for reply in replies] == ["trip:1", "trip:2", "2:1"]
    assert done.stderr.startswith("imported 3 messages from 2 sessions: 3 new turns")
    turns = stored_turns(path, "ann")
    assert [(turn.id, turn.session, turn.created_at) for turn in turns] == [
        ("trip:1", "trip", datetime(2024, 5, 1, 6, tzinfo=UTC)),
        ("trip:2", "trip", datetime(2024, 5, 1, 6, 0, 1, tzinfo=UTC)),
        ("2:1", "2", later),
    ]


def test_import_history_reads_json_lines_as_observe_does(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    where = ["--path", str(path)]
    file = tmp_path / "messages.jsonl"
    file.write_text("".join(json.dumps(message) + "\n\n" for message in MESSAGES))
    observed = cli(where, "observe", "--owner", "ann", "--json", str(file))
    assert observed.returncode == 0, observed.stderr
    imported = cli(where, "import-history", "--owner", "bob", "--json", str(file))
    assert imported.returncode == 0, imported.stderr
    assert imported.stderr.startswith("imported 3 messages from 2 sessions: 3 new turns")

    def turns(stdout: str) -> list[dict[str, Any]]:
        replies = [json.loads(line)["turn"] for line in stdout.splitlines()]
        return [{**turn, "owner": None} for turn in replies]

    assert [turn["id"] for turn in turns(imported.stdout)] == ["m1", "m2", "m3"]
    assert turns(imported.stdout) == turns(observed.stdout)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            json.dumps([HAYSTACK[0], [*HAYSTACK[1][:2], {"role": "user", "content": 3}]]),
            "session 2 message 3: content must be a string, not a number",
        ),
        ("42", "holds a number: neither a JSON list of chat sessions nor JSON lines"),
        (json.dumps([[{"role": "user"}]]), "session 1 message 1: content must be a string"),
        (json.dumps([[{"role": 7, "content": "hi"}]]), "session 1 message 1: role must be a"),
        (json.dumps([[{"role": "user", "content": " "}]]), "session 1 message 1: text is empty"),
        (json.dumps([["hi"]]), "session 1 message 1: a string, not an object"),
        (json.dumps([HAYSTACK[0], "hi"]), "session 2: a string, neither a list of messages"),
        (
            json.dumps([{"at": "yesterday", "messages": []}]),
            "session 1: at must be a time in ISO 8601",
        ),
        (
            json.dumps([{"at": "2024-05-01T08:00:00", "messages": HAYSTACK[0]}]),
            "session 1: at '2024-05-01T08:00:00' has no timezone",
        ),
        (json.dumps([{"date": "2024-05-01", "messages": []}]), "session 1: unknown keys ['date']"),
        (json.dumps([{"session": "a"}]), "session 1: messages must be a list, not missing"),
        (
            json.dumps([{"session": "2", "messages": HAYSTACK[0]}, HAYSTACK[1]]),
            "session 2: id '2' is also session 1's",
        ),
        ("[[{", "not JSON: "),
        ('{"text": "hi", "when": "now"}', "line 1: unknown keys ['when']"),  # JSON lines
        ("[[], []]", "nothing to import: "),
        (" \n", "nothing to import: "),
    ],
)
def test_import_history_names_what_is_wrong_and_stores_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str
) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    file = tmp_path / "history.json"
    file.write_text(text)
    assert graphmem.cli.main(["import-history", "--owner", "ann", str(file), *where]) == 1
    error = capsys.readouterr().err
    assert error.startswith("graphmem: "), error
    assert problem in error, error
    with GraphMem.open(Settings(path=tmp_path / "graph.json")) as memory:
        assert memory.owners() == []


def test_owners_prints_every_owner_with_a_turn_one_a_line_or_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    assert graphmem.cli.main(["owners", *where]) == 0
    assert capsys.readouterr().out == ""
    with GraphMem.open(Settings(path=tmp_path / "graph.json")) as memory:
        for owner in ("bob", "小明", "ann"):
            memory.observe(owner, "My throat hurts.", message_id="m", at=START)
    assert graphmem.cli.main(["owners", *where]) == 0
    assert capsys.readouterr().out == "ann\nbob\n小明\n"
    assert graphmem.cli.main(["owners", "--json", *where]) == 0
    assert json.loads(capsys.readouterr().out) == ["ann", "bob", "小明"]


def unknown(owner: str) -> str:
    """What the CLI says on standard error of an owner that has nothing stored."""
    return (
        f"graphmem: unknown owner '{owner}': nothing is stored for it; `graphmem owners` lists"
        " the owners\n"
    )


def test_an_unknown_owner_is_named_and_fails_export_and_forgetting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "graph.json"
    with GraphMem.open(Settings(path=path)) as memory:
        memory.observe("ann", "My throat hurts.", message_id="m", at=START)
    where = ["--path", str(path), "--owner"]
    for read in (["recall", "throat"], ["stats"], ["health"], ["profile"], ["consolidate"]):
        assert graphmem.cli.main([*read, *where, "ann"]) == 0
        assert capsys.readouterr().err == ""
        assert graphmem.cli.main([*read, *where, "anne"]) == 0  # a read finds nothing: done
        assert capsys.readouterr().err == unknown("anne")
    exported = tmp_path / "anne.jsonl"
    for write in (["export", "--out", str(exported)], ["forget", "--message", "m"]):
        assert graphmem.cli.main([*write, *where, "anne"]) == 1
        assert capsys.readouterr() == ("", unknown("anne"))
    assert graphmem.cli.main(["forget-owner", "--yes", *where, "anne"]) == 1
    assert capsys.readouterr() == ("", unknown("anne"))
    assert not exported.exists()
    assert stored_counts(path, "ann")["Turn"] == 1


@pytest.mark.parametrize(
    "uri", ["http://127.0.0.1:7474", "127.0.0.1:7687", "bolt://[::1", "bolt://127.0.0.1:port"]
)
def test_a_neo4j_uri_that_is_not_bolt_is_one_line_naming_the_bolt_address(uri: str) -> None:
    settings = {"GRAPHMEM_NEO4J_URI": uri, "GRAPHMEM_NEO4J_PASSWORD": "secret"}
    done = run_forked(["stats", "--owner", "ann", "--store", "neo4j"], clean_env() | settings)
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith(f"graphmem: the Neo4j URI '{uri}' is not a Bolt address"), line
    assert "bolt://127.0.0.1:7687" in line


def test_a_neo4j_that_cannot_be_reached_is_one_line_saying_how_to_start_one() -> None:
    with socket.socket() as held:  # bound, not listening: connecting to it is refused
        held.bind(("127.0.0.1", 0))
        uri = f"bolt://127.0.0.1:{held.getsockname()[1]}"
        settings = {"GRAPHMEM_NEO4J_URI": uri, "GRAPHMEM_NEO4J_PASSWORD": "secret"}
        done = run_forked(["stats", "--owner", "ann", "--store", "neo4j"], clean_env() | settings)
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith("graphmem: Neo4j could not be reached: "), line
    assert uri in line
    assert "`scripts/neo4j start`" in line
    assert "`docker compose up -d --wait`" in line


def test_serve_leaves_a_limit_to_the_server_unless_a_flag_sets_it_and_says_its_default(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[Limits] = []
    monkeypatch.setattr(
        graphmem.server, "serve", lambda settings, *, limits, **_: served.append(limits)
    )
    assert graphmem.cli.main(["serve", "--in-memory"]) == ExitStatus.DONE
    assert graphmem.cli.main(["serve", "--in-memory", "--rate", "3", "--max-body", "7"]) == 0
    assert served == [Limits(), Limits(rate=3.0, max_body=7)]
    with pytest.raises(SystemExit):
        graphmem.cli.main(["serve", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    limits = Limits()
    defaults = [
        f"{limits.max_body / 1_000_000:g} MB",
        f"{limits.rate:g}",
        f"{limits.in_flight}",
        f"{limits.max_messages}",
        f"{limits.header_timeout:g}",
        f"{limits.body_timeout:g}",
    ]
    assert [default for default in defaults if f"(default {default})" not in said] == []


def test_the_command_line_starts_without_the_servers_modules() -> None:
    servers = ("fastapi", "uvicorn", "mcp", "graphmem.server", "graphmem.mcp_server")
    loaded = subprocess.run(
        [sys.executable, "-c", f"import sys, graphmem.cli; print(sys.modules.keys() & {servers})"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.strip() == "set()"


def test_the_timeline_pages_on_with_the_line_it_prints_and_neighbourhood_follows_a_turn(
    tmp_path: Path,
) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    file = tmp_path / "messages.jsonl"
    file.write_text("".join(json.dumps(message) + "\n" for message in MESSAGES))
    assert cli(where, "observe", "--owner", "ann", str(file)).returncode == 0
    at = ["--at", "2026-03-03T09:00:00+00:00"]
    first = cli(where, "timeline", "--owner", "ann", "--kind", "observation", "--limit", "2", *at)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert [line.rsplit(": ", 1)[-1] for line in lines[:2]] == [
        "My throat hurts.",
        "We adopted a cat named Miso.",
    ]
    more = lines[2].removeprefix("more: --before '").removesuffix("'")
    rest = cli(
        where, "timeline", "--owner", "ann", "--kind", "observation", "--before", more, "--json"
    )
    assert rest.returncode == 0, rest.stderr
    page = json.loads(rest.stdout)
    assert [entry["memory"]["text"] for entry in page["entries"]] == ["I'm allergic to milk."]
    assert page["next"] is None
    around = cli(where, "neighbourhood", "--owner", "ann", "--node-id", "m1", "--label", "Turn")
    assert around.returncode == 0, around.stderr
    assert around.stdout.startswith("Turn [m1]: I'm allergic to milk.\n")
    assert "-FROM-> m1" in around.stdout
    refused = cli(where, "timeline", "--owner", "ann", "--tier", "9")
    assert refused.returncode != 0
    assert "tiers" in refused.stderr


def test_events_and_impressions_list_what_the_sleep_job_and_the_cues_made(tmp_path: Path) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    file = tmp_path / "messages.jsonl"
    file.write_text("".join(json.dumps(message) + "\n" for message in MESSAGES))
    assert cli(where, "observe", "--owner", "ann", str(file)).returncode == 0
    slept = cli(where, "consolidate", "--owner", "ann", "--at", "2026-03-03T09:00:00+00:00")
    assert slept.returncode == 0, slept.stderr
    exported = json.loads(cli(where, "stats", "--owner", "ann", "--json").stdout)
    assert exported["nodes"]["Event"] > 0
    events = cli(where, "events", "--owner", "ann", "--json")
    assert events.returncode == 0, events.stderr
    assert len(json.loads(events.stdout)) == exported["nodes"]["Event"]
    impressions = cli(where, "impressions", "--owner", "ann", "--json")
    assert impressions.returncode == 0, impressions.stderr
    assert len(json.loads(impressions.stdout)) == exported["nodes"]["Impression"]
    plain = cli(where, "events", "--owner", "nobody")
    assert plain.stdout == "nobody has no events\n"
