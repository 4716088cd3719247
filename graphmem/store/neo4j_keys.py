"""The Neo4j store's API keys: ApiKey nodes, outside every owner's graph."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from graphmem.keys import ApiKey
from graphmem.store.neo4j_connection import Neo4jConnection
from graphmem.store.neo4j_properties import native
from graphmem.store.neo4j_statements import load_statement


def _key_from(properties: Mapping[str, Any]) -> ApiKey:
    """An API key from its node properties."""
    return ApiKey.model_validate({key: native(value) for key, value in properties.items()})


class Neo4jKeys(Neo4jConnection):
    """The Neo4j store's API keys: stored, found, listed and revoked."""

    def save_key(self, key: ApiKey) -> None:
        """Store a new API key's record: an ApiKey node outside every owner's graph."""
        self._run(load_statement("save_api_key"), key.model_dump(exclude={"revoked_at"}))

    def find_key(self, key_id: str) -> ApiKey | None:
        """The API key with this id, or None."""
        rows = self._run(load_statement("api_key"), {"id": key_id}, read=True)
        return _key_from(rows[0]["key"]) if rows else None

    def list_keys(self) -> list[ApiKey]:
        """Every API key, oldest first."""
        rows = self._run(load_statement("api_keys"), {}, read=True)
        return [_key_from(row["key"]) for row in rows]

    def revoke_key(self, key_id: str, at: datetime) -> ApiKey | None:
        """Mark the key revoked at `at` (the first revocation's time stays); None if unknown."""
        rows = self._run(load_statement("revoke_api_key"), {"id": key_id, "revoked_at": at})
        return _key_from(rows[0]["key"]) if rows else None
