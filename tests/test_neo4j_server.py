"""The Neo4j of scripts/neo4j: Browser served, data kept across restarts, errors told apart."""

import urllib.request
from datetime import UTC, datetime
from typing import LiteralString

import neo4j  # noqa: TID251
import pytest
from pydantic import SecretStr

from graphmem.embedding import CachedEmbedder
from graphmem.errors import ConfigurationError, StoreError, StoreUnavailableError
from graphmem.memory import GraphMem
from graphmem.store import neo4j as neo4j_store
from graphmem.store.neo4j import Neo4jStore

from .conftest import DIMENSIONS, Neo4jServer

pytestmark = pytest.mark.neo4j


def test_the_browser_is_served(neo4j_server: Neo4jServer) -> None:
    with urllib.request.urlopen(f"{neo4j_server.http_url}/browser/", timeout=30) as response:
        assert response.status == 200
        page = response.read().decode("utf-8")
    assert "<title>Neo4j Browser</title>" in page


def test_a_wrong_password_is_a_configuration_error(neo4j_server: Neo4jServer) -> None:
    with pytest.raises(ConfigurationError, match="Neo4j refused the credentials"):
        Neo4jStore.connect(neo4j_server.uri, "no-such-user", SecretStr("not-the-password"), "neo4j")


def test_an_unreachable_server_is_told_apart_with_how_to_start_one() -> None:
    with pytest.raises(StoreUnavailableError, match="Neo4j could not be reached") as caught:
        Neo4jStore.connect("bolt://127.0.0.1:1", "neo4j", SecretStr("secret"), "neo4j")
    assert "GRAPHMEM_NEO4J_URI is bolt://127.0.0.1:1" in str(caught.value)
    assert "`scripts/neo4j start`" in str(caught.value)


@pytest.mark.parametrize(
    "uri", ["http://127.0.0.1:7474", "127.0.0.1:7687", "bolt://[::1", "bolt://127.0.0.1:port"]
)
def test_a_uri_that_is_not_bolt_is_a_configuration_error_naming_the_bolt_form(uri: str) -> None:
    with pytest.raises(ConfigurationError, match="not a Bolt address") as caught:
        Neo4jStore.connect(uri, "neo4j", SecretStr("secret"), "neo4j")
    assert "bolt://127.0.0.1:7687" in str(caught.value)
    assert "neo4j://" in str(caught.value)


def test_another_embedding_size_is_refused(neo4j_server: Neo4jServer) -> None:
    store = neo4j_server.store()
    try:
        with pytest.raises(ConfigurationError, match=f"holds {DIMENSIONS}-dimensional"):
            store.prepare(DIMENSIONS * 2)
    finally:
        store.close()


def test_the_password_never_appears_in_errors(neo4j_server: Neo4jServer) -> None:
    secret = "a-very-secret-password"
    with pytest.raises(ConfigurationError) as caught:
        Neo4jStore.connect(neo4j_server.uri, "neo4j", SecretStr(secret), "neo4j")
    assert secret not in str(caught.value)
    assert secret not in repr(caught.value)


def test_prepare_replaces_the_unfiltered_vector_index_of_neo4j_5(
    neo4j_server: Neo4jServer, owner: str, embedder: CachedEmbedder
) -> None:
    at = datetime(2026, 6, 1, tzinfo=UTC)
    store = neo4j_server.store()
    GraphMem(store, embedder).observe(owner, "I'm allergic to milk.", message_id="m1", at=at)
    store.close()
    auth = (neo4j_server.user, neo4j_server.password.get_secret_value())
    with neo4j.GraphDatabase.driver(neo4j_server.uri, auth=auth) as driver:
        driver.execute_query("DROP INDEX memory_vectors", database_="neo4j")
        driver.execute_query(  # the index graphmem made on Neo4j 5.26, which SEARCH cannot filter
            "CREATE VECTOR INDEX memory_embedding FOR (n:Memory) ON (n.embedding) OPTIONS"
            " {indexConfig: {`vector.dimensions`: $dimensions,"
            " `vector.similarity_function`: 'cosine'}}",
            {"dimensions": DIMENSIONS},
            database_="neo4j",
        )
        store = neo4j_server.store()
        try:
            [found] = GraphMem(store, embedder).recall(owner, "milk", k=5, peek=True).memories
        finally:
            store.close()
        records, _summary, _keys = driver.execute_query(
            "SHOW VECTOR INDEXES YIELD name, state"
            " WHERE name IN ['memory_embedding', 'memory_vectors'] RETURN name, state",
            database_="neo4j",
        )
    assert [(record["name"], record["state"]) for record in records] == [
        ("memory_vectors", "ONLINE")
    ]
    assert found.memory.text == "I'm allergic to milk."


def test_prepare_gives_an_older_graphmems_memories_their_terms_and_resumes_if_stopped(
    neo4j_server: Neo4jServer,
    owner: str,
    embedder: CachedEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    at = datetime(2026, 6, 1, tzinfo=UTC)
    texts = ["I'm allergic to milk.", "My sister keeps bees.", "Our garden gnome is red."]
    store = neo4j_server.store()
    memory = GraphMem(store, embedder)
    for number, text in enumerate(texts):
        memory.observe(owner, text, message_id=f"m{number}", at=at)
    store.close()
    auth = (neo4j_server.user, neo4j_server.password.get_secret_value())
    with neo4j.GraphDatabase.driver(neo4j_server.uri, auth=auth) as driver:

        def run(statement: LiteralString) -> list[neo4j.Record]:
            records, _summary, _keys = driver.execute_query(
                statement, {"owner": owner}, database_="neo4j"
            )
            return records

        # The database as an older graphmem left it: memories without terms, text indexed.
        run("MATCH (m:Memory {owner: $owner}) REMOVE m.terms")
        run("DROP INDEX memory_terms")
        run("DROP INDEX hot_memory_terms")
        run(
            "CREATE FULLTEXT INDEX memory_text FOR (n:Memory) ON EACH [n.text, n.owner]"
            " OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}}"
        )
        # Stopped half-way: a memory at a time, and the bees' terms cannot be had.
        monkeypatch.setattr(neo4j_store, "TERMS_BATCH", 1)
        counted = neo4j_store.indexed_terms

        def stopping_at_the_bees(text: str) -> str:
            if "bees" in text:
                raise StoreError("stopped")
            return counted(text)

        monkeypatch.setattr(neo4j_store, "indexed_terms", stopping_at_the_bees)
        stopped = Neo4jStore.connect(
            neo4j_server.uri, neo4j_server.user, neo4j_server.password, "neo4j"
        )
        try:
            with pytest.raises(StoreError, match="stopped"):
                stopped.prepare(DIMENSIONS)
        finally:
            stopped.close()
        indexes = "SHOW INDEXES YIELD name WHERE name STARTS WITH 'memory_t' RETURN name"
        assert [record["name"] for record in run(indexes)] == ["memory_text"]
        monkeypatch.setattr(neo4j_store, "indexed_terms", counted)
        store = neo4j_server.store()
        try:
            [query] = embedder.embed(["milk, bees and a gnome"], "query")
            weighed = {"milk": 1.0, "bee": 1.0, "gnome": 1.0}
            found = store.find_memories_mentioning(owner, weighed, query, 5)
        finally:
            store.close()
        stored = run("MATCH (m:Memory {owner: $owner}) RETURN m.text AS text, m.terms AS terms")
        assert [record["name"] for record in run(indexes)] == ["memory_terms"]
    assert sorted(item.memory.text for item in found) == sorted(texts)
    assert {record["text"]: record["terms"] for record in stored} == {
        text: counted(text) for text in texts
    }
