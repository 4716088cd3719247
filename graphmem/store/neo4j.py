"""The Neo4j store: its parts put together, and a database prepared for them.

Each part is a class over one connection (graphmem.store.neo4j_connection, the one module that
imports the driver) whose verbs each run statements of cypher/ (neo4j_statements) with the node
properties of neo4j_properties: neo4j_writing, neo4j_searching, neo4j_reading, neo4j_sleep,
neo4j_forgetting and neo4j_keys. Preparing the schema, and giving the memories of a database an
older graphmem wrote the `terms` they now carry, is here.
"""

import logging

from graphmem.errors import ConfigurationError, StoreError
from graphmem.store.neo4j_forgetting import Neo4jForgetting
from graphmem.store.neo4j_keys import Neo4jKeys
from graphmem.store.neo4j_properties import ATTENTION_PROPERTIES, indexed_terms
from graphmem.store.neo4j_reading import Neo4jReading
from graphmem.store.neo4j_searching import Neo4jSearching
from graphmem.store.neo4j_sleep import Neo4jSleep
from graphmem.store.neo4j_statements import cypher_directory, load_statement, load_statements
from graphmem.store.neo4j_writing import Neo4jWriting

__all__ = [
    "ATTENTION_PROPERTIES",
    "TERMS_BATCH",
    "Neo4jStore",
    "cypher_directory",
    "indexed_terms",
    "load_statement",
    "load_statements",
]

log = logging.getLogger("graphmem")

TERMS_BATCH = 5_000
"""Memories given their terms in one transaction when an older graphmem's database is prepared."""

INDEX_WAIT = 300
"""Seconds `prepare` waits for the indexes to come online."""


class Neo4jStore(
    Neo4jWriting, Neo4jSearching, Neo4jReading, Neo4jSleep, Neo4jForgetting, Neo4jKeys
):
    """The store on a Neo4j server, reached over Bolt; every statement comes from cypher/."""

    def prepare(self, dimensions: int) -> None:
        """Create constraints and indexes if missing; check the vector index size; wait for all.

        A database that an older graphmem wrote (its fulltext index memory_text still there)
        first has its memories given their terms (_add_memory_terms).
        """
        [older] = self._run(load_statement("index_exists"), {"name": "memory_text"}, read=True)
        if older["exists"]:
            self._add_memory_terms()
        for statement in load_statements("schema"):
            self._run(statement, {"dimensions": dimensions})
        rows = self._run(load_statement("vector_index_dimensions"), {})
        if rows and rows[0]["dimensions"] != dimensions:
            raise ConfigurationError(
                f"the Neo4j vector index holds {rows[0]['dimensions']}-dimensional embeddings"
                f" but the embedder makes {dimensions}; use the same embedder or a new database"
            )
        try:
            self._run(load_statement("await_indexes"), {"seconds": INDEX_WAIT})
        except StoreError as error:
            raise StoreError(
                f"the Neo4j indexes are not online after {INDEX_WAIT} s (being built over the"
                " memories already stored: the vector index memory_vectors takes about 40 minutes"
                f" a million on two cores); open the store again later ({error})"
            ) from error

    def _add_memory_terms(self) -> None:
        """Give every memory stored without `terms` its terms, TERMS_BATCH a transaction.

        An interrupted run loses nothing: the schema's statements, which drop the older fulltext
        indexes, run only after it, so the next `prepare` goes on where it stopped.
        """
        done = 0
        while rows := self._run(
            load_statement("memories_without_terms"), {"batch": TERMS_BATCH}, read=True
        ):
            self._run(
                load_statement("add_memory_terms"),
                {
                    "rows": [
                        {
                            "owner": row["owner"],
                            "id": row["id"],
                            "terms": indexed_terms(row["text"]),
                        }
                        for row in rows
                    ]
                },
            )
            done += len(rows)
            log.info("gave %d memories stored by an older graphmem their terms", done)
