"""API keys of `graphmem serve`: each scoped to owners, shown once, kept only as a hash.

A key's secret is `gmk_<id>_<random>`: the id names the key (to list and revoke it, and to find
its record without searching by secret), the random part is 32 bytes from `secrets`. The store
keeps the id, the SHA-256 of the whole secret and the scope; a presented secret is checked by
finding its id's record and comparing the hashes with `hmac.compare_digest` (constant time).
A key may touch the owners it names, those starting with its owner prefix, or, if it is an
admin key, every owner; only admin keys manage keys and run the nightly job for all owners.
"""

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from datetime import datetime

from pydantic import Field

from graphmem.contract import PREFIX_ENDS, KeyInfo
from graphmem.errors import InvalidInputError
from graphmem.model import check_owner

SECRET = re.compile(r"gmk_(?P<id>[0-9a-f]{16})_[A-Za-z0-9_-]{43}")
"""What a key's secret looks like: its id, then 32 random bytes in URL-safe base64."""


class ApiKey(KeyInfo):
    """A key's record as the store keeps it: its scope and the hash of its secret."""

    secret_hash: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the secret")

    def info(self) -> KeyInfo:
        """The record without the hash, as `keys list` shows it."""
        return KeyInfo.model_validate(self.model_dump(exclude={"secret_hash"}))


def new_key(
    *, owners: list[str], owner_prefix: str | None, admin: bool, now: datetime
) -> tuple[ApiKey, str]:
    """A new key's record and its secret (shown once; only its hash is kept)."""
    for owner in owners:
        try:
            check_owner(owner)
        except ValueError as error:
            raise InvalidInputError(f"owners: {error}") from None
    if owner_prefix is not None:
        try:
            check_owner(owner_prefix)  # the start of owners' names is itself one
        except ValueError as error:
            raise InvalidInputError(f"owner_prefix: {error}") from None
        if not owner_prefix.endswith(tuple(PREFIX_ENDS)):
            raise InvalidInputError(
                f"owner_prefix must end with a separator, one of {' '.join(PREFIX_ENDS)}"
                f" ({owner_prefix[:40]!r} would also reach owners such as"
                f" {owner_prefix[:40] + '0'!r}): e.g. {owner_prefix[:40] + ':'!r}"
            )
    if not (owners or owner_prefix is not None or admin):
        raise InvalidInputError("a key needs owners, an owner prefix or admin")
    key_id = secrets.token_hex(8)
    secret = f"gmk_{key_id}_{secrets.token_urlsafe(32)}"
    record = ApiKey(
        id=key_id,
        secret_hash=secret_hash(secret),
        owners=tuple(dict.fromkeys(owners)),
        owner_prefix=owner_prefix,
        admin=admin,
        created_at=now,
    )
    return record, secret


def secret_hash(secret: str) -> str:
    """The SHA-256 of a secret, in hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


def key_id_of(secret: str) -> str | None:
    """The id a presented secret names, or None if it is not shaped like a key's secret."""
    match = SECRET.fullmatch(secret)
    return None if match is None else match["id"]


def matches(record: ApiKey, secret: str) -> bool:
    """Whether a presented secret is the record's, compared in constant time."""
    return hmac.compare_digest(record.secret_hash, secret_hash(secret))


def authenticated(secret: str, find: Callable[[str], ApiKey | None]) -> ApiKey | None:
    """The key a presented secret is, found by its id, unless it is unknown or revoked."""
    key_id = key_id_of(secret) if isinstance(secret, str) else None
    key = None if key_id is None else find(key_id)
    if key is None or key.revoked_at is not None or not matches(key, secret):
        return None
    return key
