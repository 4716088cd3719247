"""The sleep job killed with SIGKILL at random points, then run again, ends as if never killed."""

import os
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem.contract import OwnerGraph
from graphmem.embedding import CachedEmbedder
from graphmem.memory import GraphMem
from graphmem.model import Event, Impression, Memory, Node, Turn
from graphmem.store.base import Store
from graphmem.store.networkx import NetworkXStore
from tests.conftest import Neo4jServer, forked_graphmem, run_forked

START = datetime(2026, 5, 4, 8, tzinfo=UTC)
JOB_AT = START + timedelta(days=9)
SEEDS = range(20)
CONVERSATION = [
    ("mon", "I'm in a good mood, the weather is lovely."),
    ("mon", "We booked a trip to Disneyland for the kids."),
    ("mon", "My throat hurts a bit tonight."),
    ("mon", "I'm allergic to peanuts, so I check every label."),
    ("tue", "I started having a fever."),
    ("tue", "I'm worried about my exams next week."),
    ("tue", "My boss moved the project deadline to Friday."),
    ("tue", "I helped my neighbour carry her groceries upstairs."),
    ("wed", "I can't sleep at night, I keep worrying about the exams."),
    ("wed", "Peanuts make me break out in hives, I'm allergic."),
    ("wed", "I volunteered at the food bank after work."),
    ("wed", "The report for my boss is nearly done."),
    ("fri", "We arrived at Disneyland, the castle was huge."),
    ("fri", "I feel anxious and stressed all the time."),
    ("fri", "I donated blood at the hospital this morning."),
    ("fri", "Second day at Disneyland: the kids loved the parade."),
]


def observe_all(memory: GraphMem, owner: str) -> None:
    """The conversation, one session a day, four hours between turns of a day."""
    days = {"mon": 0, "tue": 1, "wed": 2, "fri": 4}
    for number, (session, text) in enumerate(CONVERSATION):
        at = START + timedelta(days=days[session], hours=4 * (number % 4))
        memory.observe(owner, text, message_id=f"m{number}", at=at, session=session)


def node_key(node: Node) -> str:
    """A name for a node that does not depend on its owner (ids derived from it do)."""
    if isinstance(node, Turn):
        return f"Turn {node.id}"
    kind = node.kind.value if isinstance(node, Memory) else type(node).__name__
    return f"{kind} {node.created_at.isoformat()} {node.text}"


def canonical(graph: OwnerGraph) -> tuple[list[str], list[str]]:
    """The graph as sorted text lines, owners and derived ids replaced by node names."""
    names = {node.id: node_key(node) for node in graph.nodes}
    nodes = sorted(
        f"{node_key(node)} {node.model_dump_json(exclude={'id', 'owner'})}" for node in graph.nodes
    )
    assert len(set(nodes)) == len(nodes) == len(names)
    links = sorted(
        f"{names[link.source]} -{link.type}({link.weight}, {link.sufficiency})->"
        f" {names[link.target]}"
        for _source_label, _target_label, link in graph.links
    )
    return nodes, links


def check_same(completed: OwnerGraph, reference: OwnerGraph, lines: int) -> None:
    """The completed graph is the reference; if not, say which lines each has alone."""
    done, wanted = canonical(completed), canonical(reference)
    if done == wanted:
        return
    extra = sorted(set(done[0] + done[1]) - set(wanted[0] + wanted[1]))
    missing = sorted(set(wanted[0] + wanted[1]) - set(done[0] + done[1]))
    pytest.fail(
        f"killed after {lines} lines, the completed graph differs: only there {extra};"
        f" only in the reference {missing}"
    )


def kill_points(total: int) -> list[int]:
    """After how many of the job's `total` progress lines it is killed: one random point per
    seed, each point once (killing twice after the same line would repeat the same run)."""
    return sorted({random.Random(seed).randrange(total) for seed in SEEDS})


def killed_job(arguments: list[str], environment: dict[str, str], lines: int) -> None:
    """Run `graphmem consolidate` and SIGKILL it after it printed this many progress lines."""
    command = ["consolidate", *arguments, "--log-every", "1"]
    with forked_graphmem(command, environment) as job:
        for _line in range(lines):
            if not job.out.readline():
                break
        job.process.kill()


def job_lines(arguments: list[str], environment: dict[str, str]) -> int:
    """Run `graphmem consolidate` to the end; how many lines it printed."""
    done = run_forked(["consolidate", *arguments, "--log-every", "1"], environment)
    assert done.returncode == 0, done.stderr
    assert "done in" in done.stdout
    return len(done.stdout.splitlines())


def check_counts(graph: OwnerGraph) -> None:
    """The uninterrupted job did real work: summaries, events, beliefs moved, impressions."""
    kinds = [node.kind.value for node in graph.nodes if isinstance(node, Memory)]
    assert kinds.count("summary") >= 4
    assert any(isinstance(node, Event) for node in graph.nodes)
    assert any(isinstance(node, Impression) for node in graph.nodes)
    assert {link.type.value for _s, _t, link in graph.links} >= {"CONTRADICTS", "PART_OF", "NEXT"}


def test_a_killed_job_ends_as_an_uninterrupted_one_on_networkx(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    owner = "crash"
    observed = tmp_path / "observed"
    observed.mkdir()
    observed_store = NetworkXStore.open(observed / "graph.json")
    observe_all(GraphMem(observed_store, embedder), owner)
    observed_store.close()  # (GraphMem.close would close the session's embedder too)

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(observed, target)
        return target / "graph.json"

    environment = {**os.environ, "GRAPHMEM_STORE": "networkx"}
    reference_path = copy("reference")
    total = job_lines(
        ["--owner", owner, "--path", str(reference_path), "--at", JOB_AT.isoformat()], environment
    )
    reference_store = NetworkXStore.open(reference_path)
    reference = reference_store.export(owner)
    reference_store.close()
    check_counts(reference)
    for lines in kill_points(total):
        path = copy(f"killed-{lines}")
        arguments = ["--owner", owner, "--path", str(path), "--at", JOB_AT.isoformat()]
        killed_job(arguments, environment, lines)
        store: Store = NetworkXStore.open(path)
        GraphMem(store, embedder).consolidate(owner, at=JOB_AT)
        completed = store.export(owner)
        store.close()
        check_same(completed, reference, lines)


@pytest.mark.neo4j
def test_a_killed_job_ends_as_an_uninterrupted_one_on_neo4j(
    neo4j_server: Neo4jServer, embedder: CachedEmbedder, owner: str
) -> None:
    environment = {
        **os.environ,
        "GRAPHMEM_STORE": "neo4j",
        "GRAPHMEM_NEO4J_URI": neo4j_server.uri,
        "GRAPHMEM_NEO4J_USER": neo4j_server.user,
        "GRAPHMEM_NEO4J_PASSWORD": neo4j_server.password.get_secret_value(),
    }
    store = neo4j_server.store()
    memory = GraphMem(store, embedder)
    arguments = ["--owner", owner, "--at", JOB_AT.isoformat()]
    try:
        observe_all(memory, owner)
        observed = store.export(owner)
        total = job_lines(arguments, environment)
        reference = store.export(owner)
        check_counts(reference)
        for lines in kill_points(total):
            # Each run starts from the observed graph, as on networkx from a copy of its file.
            memory.forget(owner)
            memory.load(owner, observed)
            assert store.export(owner) == observed
            killed_job(arguments, environment, lines)
            memory.consolidate(owner, at=JOB_AT)
            check_same(store.export(owner), reference, lines)
    finally:
        store.close()
