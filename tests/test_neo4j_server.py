"""The Neo4j of scripts/neo4j: Browser served, data kept across restarts, errors told apart."""

import urllib.request
from datetime import UTC, datetime

import neo4j  # noqa: TID251
import pytest
from pydantic import SecretStr

from graphmem.embedding import CachedEmbedder
from graphmem.errors import ConfigurationError, StoreUnavailableError
from graphmem.memory import GraphMem
from graphmem.store.neo4j import Neo4jStore

from .conftest import DIMENSIONS, Neo4jServer

pytestmark = pytest.mark.neo4j


def test_the_browser_is_served(neo4j_server: Neo4jServer) -> None:
    with urllib.request.urlopen(f"{neo4j_server.http_url}/browser/", timeout=30) as response:
        assert response.status == 200
        page = response.read().decode("utf-8")
    assert "<title>Neo4j Browser</title>" in page


def test_data_survives_a_restart(
    neo4j_server: Neo4jServer, owner: str, embedder: CachedEmbedder
) -> None:
    if neo4j_server.home is None:
        pytest.fail("this test restarts Neo4j: run it on the server the tests start themselves")
    at = datetime(2026, 6, 1, tzinfo=UTC)
    store = neo4j_server.store()
    GraphMem(store, embedder).observe(owner, "I'm allergic to milk.", message_id="keep-1", at=at)
    store.close()
    neo4j_server.script("restart")
    store = neo4j_server.store()
    try:
        [found] = GraphMem(store, embedder).recall(owner, "milk", k=5).memories
    finally:
        store.close()
    assert found.memory.text == "I'm allergic to milk."
    assert [turn.id for turn in found.turns] == ["keep-1"]


def test_a_wrong_password_is_a_configuration_error(neo4j_server: Neo4jServer) -> None:
    with pytest.raises(ConfigurationError, match="Neo4j refused the credentials"):
        Neo4jStore.connect(neo4j_server.uri, "no-such-user", SecretStr("not-the-password"), "neo4j")


def test_an_unreachable_server_is_told_apart() -> None:
    with pytest.raises(StoreUnavailableError, match="Neo4j could not be reached"):
        Neo4jStore.connect("bolt://127.0.0.1:1", "neo4j", SecretStr("secret"), "neo4j")


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
