"""The analysts' Browser files: browser/queries.cypher on the demo graph, and the style sheet."""

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, LiteralString

# The analysts' queries are run as Browser runs them, raw Cypher over Bolt, which the store
# (domain verbs over the files in cypher/) has no way to do: hence the driver here.
import neo4j  # noqa: TID251
import pytest
from neo4j.graph import Node, Relationship  # noqa: TID251
from neo4j.graph import Path as GraphPath  # noqa: TID251

from graphmem.contract import Health
from graphmem.demo import DEMO_OWNER
from graphmem.embedding import CachedEmbedder
from graphmem.memory import GraphMem
from graphmem.model import LinkType, Turn

from .conftest import ROOT, Neo4jServer

QUERIES = ROOT / "browser" / "queries.cypher"
STYLE = ROOT / "browser" / "graphmem.grass"
DAY = timedelta(days=1)


@dataclass(frozen=True)
class BrowserQuery:
    """One statement of browser/queries.cypher with the comment header right above it."""

    title: str
    header: str
    text: LiteralString

    def parameters(self) -> set[str]:
        """The names the statement uses as $parameters."""
        return set(re.findall(r"\$(\w+)", self.text))

    def declared(self) -> set[str]:
        """The names the header tells the analyst to set with :param."""
        return set(re.findall(r":param (\w+) =>", self.header))


def browser_queries() -> list[BrowserQuery]:
    """The statements of browser/queries.cypher (split at semicolons ending a line)."""
    found = []
    for chunk in re.split(r";[ \t]*$", QUERIES.read_text(encoding="utf-8"), flags=re.MULTILINE):
        block = chunk.strip().split("\n\n")[-1].splitlines()
        header = [line for line in block if line.startswith("//")]
        body = "\n".join(line for line in block if not line.startswith("//")).strip()
        if body:
            assert block[: len(header)] == header, f"the header comes first:\n{chunk}"
            title = header[0].removeprefix("// ") if header else "(no header)"
            # The file is part of the repository, never built from input: literal query text.
            found.append(BrowserQuery(title, "\n".join(header), body))
    return found


QUERY_LIST = browser_queries()
TITLES = [query.title for query in QUERY_LIST]


def query_titled(part: str) -> BrowserQuery:
    [query] = [query for query in QUERY_LIST if part in query.title]
    return query


def graph_items(value: Any) -> Iterator[Node | Relationship]:
    """The nodes and relationships Browser would draw from one value, found as it finds them."""
    if isinstance(value, Node | Relationship):
        yield value
    elif isinstance(value, GraphPath):
        yield from value.nodes
        yield from value.relationships
    elif isinstance(value, list):
        for item in value:
            yield from graph_items(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from graph_items(item)


@dataclass(frozen=True)
class Bolt:
    """A driver on the test server that runs Browser queries in read-only transactions."""

    driver: neo4j.Driver

    def read(self, query: BrowserQuery, parameters: dict[str, Any]) -> list[neo4j.Record]:
        records, _summary, _keys = self.driver.execute_query(
            query.text, parameters, database_="neo4j", routing_=neo4j.RoutingControl.READ
        )
        return records

    def value(self, statement: LiteralString, parameters: dict[str, Any]) -> Any:
        records, _summary, _keys = self.driver.execute_query(
            statement, parameters, database_="neo4j", routing_=neo4j.RoutingControl.READ
        )
        return records[0][0] if records else None


def environment(server: Neo4jServer) -> dict[str, str]:
    """The environment of a `graphmem` command that works on the test server."""
    return {
        **os.environ,
        "GRAPHMEM_NEO4J_URI": server.uri,
        "GRAPHMEM_NEO4J_PASSWORD": server.password.get_secret_value(),
    }


def graphmem(*arguments: str, env: dict[str, str]) -> str:
    """Run the `graphmem` command line; its output, or fail with its error output."""
    done = subprocess.run(
        [sys.executable, "-m", "graphmem", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def bolt(neo4j_server: Neo4jServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bolt]:
    """The demo graph loaded by `graphmem demo --store neo4j`, and a driver to read it.

    The demo starts from nothing, so the demo owner is forgotten first if it has a graph (the
    command line refuses to forget an owner with nothing stored); when it had none, it is
    forgotten again afterwards, leaving the server as it was found.
    """
    on_server = environment(neo4j_server)
    driver = neo4j.GraphDatabase.driver(
        neo4j_server.uri,
        auth=(neo4j_server.user, neo4j_server.password.get_secret_value()),
        # A type the demo never makes (MERGED_INTO, CONTRADICTS) is a warning, not a problem.
        notifications_disabled_categories=["UNRECOGNIZED"],
    )
    bolt = Bolt(driver)
    forget = ["forget-owner", "--store", "neo4j", "--owner", DEMO_OWNER, "--yes"]
    try:
        found = bolt.value("MATCH (n {owner: $owner}) RETURN count(n) > 0", {"owner": DEMO_OWNER})
        if found:
            graphmem(*forget, env=on_server)
        plot = tmp_path_factory.mktemp("demo") / "plot.png"
        graphmem("demo", "--store", "neo4j", "--plot", str(plot), env=on_server)
        yield bolt
        if not found:
            graphmem(*forget, env=on_server)
    finally:
        driver.close()


def demo_parameters(bolt: Bolt) -> dict[str, Any]:
    """Values for every :param of the file, taken from the demo graph, not from its texts."""
    category = bolt.value(
        "MATCH (e:Event {owner: $owner}) RETURN e.category ORDER BY e.first_at LIMIT 1",
        {"owner": DEMO_OWNER},
    )
    return {"owner": DEMO_OWNER, "category": category, "conjecture": "", "now": None}


def test_each_query_has_a_header_naming_its_params() -> None:
    assert len(QUERY_LIST) == 13
    for query in QUERY_LIST:
        assert query.title.startswith(("graphmem: ", "graphmem health: ")), query.header
        assert "// Shows: " in query.header, query.title
        assert "owner" in query.parameters(), f"{query.title} is not scoped by $owner"
        assert query.parameters() == query.declared(), query.title
        assert "{owner: $owner" in query.text


@pytest.mark.neo4j
@pytest.mark.parametrize("query", QUERY_LIST, ids=TITLES)
def test_each_query_draws_only_the_owners_graph(
    bolt: Bolt, demo_health: Health, query: BrowserQuery
) -> None:
    records = bolt.read(query, demo_parameters(bolt))
    for record in records:
        nodes = [item for item in graph_items(record.values()) if isinstance(item, Node)]
        assert nodes, f"nothing for Browser to draw in {record}"
        assert {node["owner"] for node in nodes} == {DEMO_OWNER}
    # Every demo observes (turns, hot memories), summarises (events) and recalls (a recall
    # wakes memories), so those queries must find something; a conjecture, or a row of the
    # health report, only if this demo makes one (a test below makes the others).
    conjectures = bolt.value(
        "MATCH (m:Memory {owner: $owner, kind: 'conjecture'}) RETURN count(m)",
        {"owner": DEMO_OWNER},
    )
    expected = True
    if "provenance" in query.title:
        expected = conjectures > 0
    elif query.title.startswith("graphmem health: "):
        expected = health_rows(demo_health)[query.title] > 0
    if expected:
        assert records, f"{query.title} found nothing in the demo graph"


def health_of(owner: str, server: Neo4jServer) -> Health:
    """The owner's health report on the test server, as `graphmem health --json` prints it."""
    command = ["health", "--store", "neo4j", "--owner", owner, "--json"]
    return Health.model_validate_json(graphmem(*command, env=environment(server)))


@pytest.fixture(scope="module")
def demo_health(bolt: Bolt, neo4j_server: Neo4jServer) -> Health:
    """The health report of the demo graph (which `bolt` loads)."""
    return health_of(DEMO_OWNER, neo4j_server)


def health_rows(health: Health) -> dict[str, int]:
    """The rows a report counts nodes in, by the title of the Browser query that shows them."""
    checks = health.checks
    return {
        "graphmem health: pending work": (
            checks.pending_turns + checks.awaiting_summary + checks.awaiting_consolidation
        ),
        "graphmem health: duplicates merged": health.counts.links.get("MERGED_INTO", 0),
        "graphmem health: open contradictions": checks.open_contradictions,
        "graphmem health: superseded": checks.superseded,
        "graphmem health: conjectures": checks.kinds.get("conjecture", 0),
        "graphmem health: never used": min(checks.never_used, 300),
        "graphmem health: isolated": min(checks.isolated, 300),
    }


@pytest.mark.neo4j
def test_each_row_of_the_health_report_is_what_its_query_shows(
    bolt: Bolt,
    demo_health: Health,
    neo4j_server: Neo4jServer,
    embedder: CachedEmbedder,
    owner: str,
) -> None:
    start = datetime(2026, 3, 1, 9, tzinfo=UTC)
    store = neo4j_server.store()
    try:  # besides the demo: a duplicate, an update, pending work and a lonely pending turn
        memory = GraphMem(store, embedder)
        for number, text in enumerate(
            ["I'm allergic to peanuts.", "I'm allergic to peanuts!", "I live in Paris."]
        ):
            memory.observe(owner, text, message_id=f"p{number}", at=start + number * DAY)
        memory.consolidate(owner, at=start + 3 * DAY)
        memory.observe(owner, "I moved to Berlin.", message_id="m", at=start + 3 * DAY)
        memory.consolidate(owner, at=start + 4 * DAY)
        memory.observe(owner, "Nice weather today.", message_id="w", at=start + 5 * DAY)
        lonely = Turn(
            id="l", owner=owner, text="Left.", created_at=start, session="l", pending=True
        )
        store.save_turns(owner, [lonely])
    finally:
        store.close()
    reports = {
        DEMO_OWNER: health_rows(demo_health),
        owner: health_rows(health_of(owner, neo4j_server)),
    }
    for whom, rows in reports.items():
        assert set(rows) == {title for title in TITLES if title.startswith("graphmem health: ")}
        for title, count in rows.items():
            assert len(bolt.read(query_titled(title), {"owner": whom})) == count, (whom, title)
    for title in reports[owner]:  # each row counts something in one graph or the other
        assert reports[owner][title] or reports[DEMO_OWNER][title], title


@pytest.mark.neo4j
def test_the_overview_of_a_small_graph_is_all_of_it(bolt: Bolt) -> None:
    records = bolt.read(query_titled("at a glance"), {"owner": DEMO_OWNER})
    items = list(graph_items([record.values() for record in records]))
    nodes = {item.element_id for item in items if isinstance(item, Node)}
    edges = {item.element_id for item in items if isinstance(item, Relationship)}
    owned = "(:Turn|Memory|Event|Impression {owner: $owner})"
    stored = bolt.value(
        "MATCH (n:Turn|Memory|Event|Impression {owner: $owner}) RETURN count(n)",
        {"owner": DEMO_OWNER},
    )
    linked = bolt.value(f"MATCH {owned}-[r]->{owned} RETURN count(r)", {"owner": DEMO_OWNER})
    assert stored <= 300, "the demo is meant to be small"
    assert (len(nodes), len(edges)) == (stored, linked)


@pytest.mark.neo4j
def test_the_wake_up_window_follows_now(bolt: Bolt) -> None:
    query = query_titled("woke up")
    latest = bolt.read(query, {"owner": DEMO_OWNER, "now": None})
    assert latest
    until = latest[0]["until"].to_native()
    assert {record["how"] for record in latest} <= {"used", "woken"}
    same = bolt.read(query, {"owner": DEMO_OWNER, "now": until})
    assert len(same) == len(latest)
    assert bolt.read(query, {"owner": DEMO_OWNER, "now": until + timedelta(hours=2)}) == []
    assert bolt.read(query, {"owner": DEMO_OWNER, "now": datetime.now(UTC) + 365 * DAY}) == []


@pytest.mark.neo4j
def test_open_contradictions_shows_a_contradicted_mood(
    bolt: Bolt, neo4j_server: Neo4jServer, embedder: CachedEmbedder, owner: str
) -> None:
    start = datetime(2026, 3, 1, 9, tzinfo=UTC)
    store = neo4j_server.store()
    try:
        memory = GraphMem(store, embedder)
        texts = [
            "I'm in a good mood these days.",
            "I'm worried about my exams.",
            "I can't sleep at night, I keep worrying.",
            "I feel anxious and stressed all the time.",
        ]
        for number, text in enumerate(texts):
            memory.observe(owner, text, message_id=f"w{number}", at=start + number * DAY)
        memory.consolidate(owner, at=start + 4 * DAY)
    finally:
        store.close()
    records = bolt.read(query_titled("open contradictions"), {"owner": owner})
    assert records
    assert "I'm in a good mood these days." in {
        text for record in records for text in (record["one"], record["other"])
    }
    for record in records:
        assert isinstance(record["one_belief"], float)
        assert isinstance(record["other_belief"], float)
        nodes = [item for item in graph_items(record.values()) if isinstance(item, Node)]
        assert {node["owner"] for node in nodes} == {owner}


# Neo4j Browser's own reader of GraSS (parseGrass in Browser 5.24): blocks `selector { ... }`,
# quotes (' or ") hide braces, properties split at ';' and each at ':' into exactly two parts
# (a property with a second ':' is dropped). It knows no comments: text outside the braces,
# a /* comment */ included, becomes part of the next selector.
BLOCK = re.compile(r"""([^\s{}]+)\s*\{((?:'[^']*'|"[^"]*"|[^'"{}])*)\}""")


def style_blocks() -> dict[str, dict[str, str]]:
    """The style sheet as Browser reads it: selector -> property -> value (quotes removed)."""
    text = STYLE.read_text(encoding="utf-8")
    blocks: dict[str, dict[str, str]] = {}
    for selector, body in BLOCK.findall(text):
        properties = {}
        for part in body.replace("'", "").replace('"', "").split(";"):
            pieces = part.split(":")
            if len(pieces) == 2:
                properties[pieces[0].strip()] = pieces[1].strip()
            else:
                assert not part.strip(), f"Browser would drop {part.strip()!r} of {selector}"
        assert selector not in blocks, f"{selector} twice"
        blocks[selector] = properties
    assert BLOCK.sub("", text).strip() == "", "text outside the blocks (Browser reads no comments)"
    return blocks


def test_the_style_sheet_parses_into_label_and_type_blocks() -> None:
    blocks = style_blocks()
    captions = {selector: block.get("caption") for selector, block in blocks.items()}
    assert captions == {
        "node": "<id>",
        "relationship": "<type>",
        "node.Session": "{id}",
        "node.Turn": "{text}",
        "node.Memory": "{text}",
        "node.Impression": "{text}",
        "node.Event": "{title}",
        "node.Hot": "{text}",
        **{f"relationship.{kind}": "<type>" for kind in LinkType},
        "relationship.RELATED": "RELATED {weight}",
        "relationship.CAUSES": "CAUSES {sufficiency}",
    }
    nodes = {selector: block for selector, block in blocks.items() if selector.startswith("node.")}
    colours = [block["color"] for block in nodes.values()]
    assert len(set(colours)) == len(colours), "each label its own colour"
    assert all(re.fullmatch(r"#[0-9A-F]{6}", colour) for colour in colours)
    # Browser merges the rules a node matches in file order, later ones winning: a memory of
    # tier 0 (labels Memory and Hot) takes the Hot colour and size only if Hot comes later.
    order = list(blocks)
    assert order.index("node.Hot") > order.index("node.Memory")
    diameter = {
        selector: int(block["diameter"].removesuffix("px")) for selector, block in nodes.items()
    }
    assert diameter["node.Hot"] > diameter["node.Memory"]
