"""The facade's verbs of `graphmem serve`'s keys: make one, list them, revoke one, authenticate.

`GraphMem` takes them from `KeyVerbs`, as the Neo4j store takes its verbs from classes by theme:
the keys' records are the store's, what a key is and how its secret is checked is graphmem.keys.
"""

from collections.abc import Sequence
from datetime import datetime

from graphmem.contract import KeyInfo, NewKey
from graphmem.errors import InvalidInputError
from graphmem.inputs import moment_or_now
from graphmem.keys import ApiKey, authenticated, new_key
from graphmem.store.base import Store
from graphmem.telemetry import Telemetry


class KeyVerbs:
    """The key verbs of GraphMem, over the store that keeps the keys' records."""

    _store: Store
    _telemetry: Telemetry

    def create_key(
        self,
        *,
        owners: Sequence[str] = (),
        owner_prefix: str | None = None,
        admin: bool = False,
        at: datetime | None = None,
    ) -> NewKey:
        """A new API key of `graphmem serve` for these owners, this prefix, or every owner.

        The secret is in the answer and nowhere else: the store keeps its hash (graphmem.keys).
        """
        with self._telemetry.verb("create_key"):
            if isinstance(owners, str) or not isinstance(owners, Sequence):
                raise InvalidInputError("owners must be a list of owner names")
            record, secret = new_key(
                owners=list(owners), owner_prefix=owner_prefix, admin=admin, now=moment_or_now(at)
            )
            self._store.save_key(record)
            return NewKey(key=record.info(), secret=secret)

    def list_keys(self) -> list[KeyInfo]:
        """Every API key, oldest first, without its secret or the secret's hash."""
        with self._telemetry.verb("list_keys"):
            return [key.info() for key in self._store.list_keys()]

    def revoke_key(self, key_id: str, *, at: datetime | None = None) -> KeyInfo | None:
        """Revoke an API key: no request is let in with it any more; None if there is none."""
        with self._telemetry.verb("revoke_key"):
            if not isinstance(key_id, str):
                raise InvalidInputError(f"key_id must be a string, not {type(key_id).__name__}")
            revoked = self._store.revoke_key(key_id, moment_or_now(at))
            return None if revoked is None else revoked.info()

    def authenticate(self, secret: str) -> ApiKey | None:
        """The API key a presented secret is, unless it is unknown or revoked."""
        with self._telemetry.verb("authenticate"):
            return authenticated(secret, self._store.find_key)
