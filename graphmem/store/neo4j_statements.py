"""The Neo4j store's statements: the files of cypher/, loaded once each and named by their file."""

import functools
import re
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import LiteralString, cast

from graphmem.errors import StoreError


def cypher_directory() -> Traversable:
    """Where the .cypher files are: inside the installed wheel, else at the checkout's top level."""
    packaged = resources.files("graphmem") / "cypher"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "cypher"


_statement_names: dict[str, str] = {}
"""The file each statement loaded came from, which names its telemetry: `statement_name`."""


@functools.cache
def load_statements(name: str) -> tuple[LiteralString, ...]:
    """The statements of cypher/<name>.cypher, without the header comment, split at semicolons."""
    text = (cypher_directory() / f"{name}.cypher").read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
    parts = [part.strip() for part in re.split(r";\s*$", body, flags=re.MULTILINE)]
    # The files are part of the package, never built from input: they are literal query text.
    statements = tuple(cast(LiteralString, statement) for statement in parts if statement)
    _statement_names.update(dict.fromkeys(statements, name))
    return statements


def statement_name(statement: str) -> str:
    """The name of the cypher/ file a statement was loaded from (its text is never reported)."""
    return _statement_names.get(statement, "statement")


def load_statement(name: str) -> LiteralString:
    """The single statement of cypher/<name>.cypher."""
    statements = load_statements(name)
    if len(statements) != 1:
        raise StoreError(f"cypher/{name}.cypher holds {len(statements)} statements, not one")
    return statements[0]
