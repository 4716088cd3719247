"""The Neo4j store's connection: the driver, its transactions, the traffic counted, its errors.

The one module that speaks to the driver (neo4j is imported here only). Each statement runs in a
`graphmem.telemetry.traced_statement` block named after its file; a write transaction takes the
owner's write lock first; the driver's errors become graphmem's, "could not be reached" apart
from "refused".
"""

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, LiteralString, Self, TypeAlias, TypeVar

import neo4j
import neo4j.exceptions
from pydantic import SecretStr

from graphmem.contract import StoreTraffic
from graphmem.errors import ConfigurationError, StoreError, StoreUnavailableError
from graphmem.store.neo4j_statements import load_statement, statement_name
from graphmem.telemetry import traced_statement

Done = TypeVar("Done")
"""What a transaction's work returns."""

Transaction: TypeAlias = neo4j.ManagedTransaction
"""A write transaction, as the work run in one receives it."""

HOW_TO_START_NEO4J = (
    "start Neo4j (`scripts/neo4j start` in a graphmem checkout, or `docker compose up -d --wait`"
    " beside its docker-compose.yml: docs/neo4j.md) or set GRAPHMEM_NEO4J_URI to the Bolt address"
    " of a running server"
)
"""What to do when Neo4j cannot be reached."""


def _not_a_bolt_address(uri: str, reason: Exception) -> str:
    """The message for a URI the driver cannot use, naming the forms of a Bolt address."""
    return (
        f"the Neo4j URI {uri!r} is not a Bolt address ({reason}); set GRAPHMEM_NEO4J_URI to the"
        " server's Bolt address, such as bolt://127.0.0.1:7687, or neo4j://HOST:7687 for a"
        " cluster (http://HOST:7474 is Neo4j Browser's)"
    )


def _rows(result: neo4j.Result) -> list[dict[str, Any]]:
    """A result's records as dicts of their values as decoded.

    Every statement returns maps, lists and values, never nodes, and Record.data() would walk
    each nested value again in Python (a third of a recall's time).
    """
    keys = result.keys()
    return [dict(zip(keys, record, strict=True)) for record in result]


class Neo4jConnection:
    """A Neo4j server reached over Bolt: the statements run, in transactions, and counted."""

    def __init__(self, driver: neo4j.Driver, database: str) -> None:
        self._driver = driver
        self._database = database
        self._counting = threading.Lock()
        self._transactions = 0
        self._statements = 0

    @classmethod
    def connect(cls, uri: str, user: str, password: SecretStr, database: str) -> Self:
        """Connect to the server at `uri` and check that it answers and accepts the credentials.

        A URI that is not a Bolt address raises a ConfigurationError, a server that cannot be
        reached a StoreUnavailableError; each says what to do.
        """
        try:
            driver = neo4j.GraphDatabase.driver(
                uri,
                auth=(user, password.get_secret_value()),
                # Properties such as `sufficiency` exist only once an edge has one: not a problem.
                notifications_disabled_categories=["UNRECOGNIZED"],
            )
        except (neo4j.exceptions.ConfigurationError, ValueError) as error:  # "http://..."
            raise ConfigurationError(_not_a_bolt_address(uri, error)) from error
        store = cls(driver, database)
        try:
            with store._translated_errors():
                store._verify_connectivity(uri)
        except BaseException:
            driver.close()
            raise
        return store

    def _verify_connectivity(self, uri: str) -> None:
        """Check that the server at `uri` answers, saying what to do if it cannot be reached."""
        try:
            self._driver.verify_connectivity()
        except neo4j.exceptions.ServiceUnavailable as error:
            raise StoreUnavailableError(
                f"Neo4j could not be reached: {error} (GRAPHMEM_NEO4J_URI is {uri});"
                f" {HOW_TO_START_NEO4J}"
            ) from error
        except ValueError as error:  # a host or port that does not resolve
            raise ConfigurationError(_not_a_bolt_address(uri, error)) from error

    def traffic(self) -> StoreTraffic:
        """Write transactions committed and statements sent since the store was opened."""
        with self._counting:
            return StoreTraffic(transactions=self._transactions, statements=self._statements)

    def close(self) -> None:
        """Close the driver and its connections."""
        self._driver.close()

    # -- running statements ------------------------------------------------------------------

    def _run(
        self, statement: LiteralString, parameters: dict[str, Any], *, read: bool = False
    ) -> list[dict[str, Any]]:
        """Run one statement in its own transaction (retried on transient errors); return rows."""
        routing = neo4j.RoutingControl.READ if read else neo4j.RoutingControl.WRITE
        self._count(statements=1)
        with traced_statement(statement_name(statement)), self._translated_errors():
            records, _summary, keys = self._driver.execute_query(
                statement, parameters, database_=self._database, routing_=routing
            )
        self._count(transactions=0 if read else 1)
        return [dict(zip(keys, record, strict=True)) for record in records]  # as in _rows

    def _write(
        self, owner: str, statement: LiteralString, parameters: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """Run one write statement of the owner in its own transaction; return its rows."""
        return self._write_together(owner, [(statement, parameters)])[-1]

    def _write_together(
        self, owner: str, statements: Sequence[tuple[LiteralString, dict[str, Any]]]
    ) -> list[list[dict[str, Any]]]:
        """Run write statements of the owner in order in one transaction; return their rows."""

        def work(transaction: Transaction) -> list[list[dict[str, Any]]]:
            return [
                self._send(transaction, statement, parameters)
                for statement, parameters in statements
            ]

        return self._in_transaction(owner, work)

    def _in_transaction(self, owner: str, work: Callable[[Transaction], Done]) -> Done:
        """Run `work` in one write transaction of the owner (retried on transient errors).

        The transaction takes the owner's write lock first, so the owner's write transactions
        run one at a time and never deadlock on each other. A deadlock costs more than its
        retry: the driver (5.28 and 6.4 alike) hands a failed transaction's connection back to
        its pool before it has finished checking it, and another thread that takes the
        connection meanwhile can fail or hang reading from it.
        """

        def locked(transaction: Transaction) -> Done:
            self._send(transaction, load_statement("lock_owner"), {"owner": owner})
            return work(transaction)

        with (
            self._translated_errors(),
            self._driver.session(database=self._database) as session,
        ):
            done = session.execute_write(locked)
        self._count(transactions=1)
        return done

    def _send(
        self,
        transaction: Transaction,
        statement: LiteralString,
        parameters: dict[str, Any],
    ) -> list[dict[str, Any]]:
        """Run one statement in a transaction and read its rows, counted in the store's traffic."""
        self._count(statements=1)
        with traced_statement(statement_name(statement)):
            return _rows(transaction.run(statement, parameters))

    def _count(self, *, transactions: int = 0, statements: int = 0) -> None:
        """Add to the store's traffic."""
        with self._counting:
            self._transactions += transactions
            self._statements += statements

    def _run_batched(
        self, statement: LiteralString, parameters: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """Run a statement that commits in batches (CALL {} IN TRANSACTIONS): auto-commit."""
        with (
            traced_statement(statement_name(statement)),
            self._translated_errors(),
            self._driver.session(database=self._database) as session,
        ):
            self._count(transactions=1, statements=1)  # its batches counted as one
            result = session.run(statement, parameters)
            keys = result.keys()
            return [dict(zip(keys, record, strict=True)) for record in result]

    @contextmanager
    def _translated_errors(self) -> Iterator[None]:
        """Turn driver errors into graphmem's, separating 'unreachable' from 'refused'."""
        refusal = None
        try:
            yield
        except neo4j.exceptions.AuthError as error:
            refusal = error.message  # raised below: the driver's frames hold the password
        except (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired) as error:
            raise StoreUnavailableError(f"Neo4j could not be reached: {error}") from error
        except neo4j.exceptions.Neo4jError as error:
            raise StoreError(f"Neo4j refused a statement: {error.code}: {error.message}") from error
        except neo4j.exceptions.DriverError as error:
            raise StoreError(f"the Neo4j driver failed: {error}") from error
        if refusal is not None:  # outside the except block, so without the driver's error
            raise ConfigurationError(f"Neo4j refused the credentials: {refusal}")
