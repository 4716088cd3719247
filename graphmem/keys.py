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
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import InvalidInputError
from graphmem.model import Moment, Owner, check_owner

PREFIX_ENDS = ":._-@"
"""The characters an owner prefix must end with: a separator, so that `tenant-7:` cannot reach
`tenant-70:x` as `tenant-7` would."""
SECRET = re.compile(r"gmk_(?P<id>[0-9a-f]{16})_[A-Za-z0-9_-]{43}")
"""What a key's secret looks like: its id, then 32 random bytes in URL-safe base64."""


class KeyInfo(BaseModel):
    """What a key may touch and when it was made or revoked: all of it but its secret."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[0-9a-f]{16}$", description="names the key; not secret")
    owners: tuple[Owner, ...] = Field((), description="owners the key may touch")
    owner_prefix: str | None = Field(None, description="it may touch owners starting with this")
    admin: bool = Field(False, description="it may touch every owner and manage keys")
    created_at: Moment
    revoked_at: Moment | None = None

    def permits(self, owner: str) -> bool:
        """Whether this key, unless revoked, may touch the owner's memory."""
        if self.revoked_at is not None:
            return False
        if self.admin or owner in self.owners:
            return True
        return self.owner_prefix is not None and owner.startswith(self.owner_prefix)

    def separates_owners(self) -> bool:
        """Whether the key's owner prefix, if any, ends with a separator (PREFIX_ENDS).

        Keys made before the rule was may not: `tenant-7` also reaches `tenant-70:x`.
        """
        return self.owner_prefix is None or self.owner_prefix.endswith(tuple(PREFIX_ENDS))

    def sole_owner(self) -> str | None:
        """The one owner this key may touch, if it may touch one only."""
        if self.admin or self.owner_prefix is not None or len(self.owners) != 1:
            return None
        return self.owners[0]

    def scope(self) -> str:
        """What the key may touch, in words."""
        if self.admin:
            return "admin: every owner"
        named = [f"owner {owner}" for owner in self.owners]
        if self.owner_prefix is not None:
            named.append(f"owners starting with {self.owner_prefix}")
        return ", ".join(named)


class ApiKey(KeyInfo):
    """A key's record as the store keeps it: its scope and the hash of its secret."""

    secret_hash: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the secret")

    def info(self) -> KeyInfo:
        """The record without the hash, as `keys list` shows it."""
        return KeyInfo.model_validate(self.model_dump(exclude={"secret_hash"}))


class NewKey(BaseModel):
    """A key just made: its record and its secret, which is shown this once."""

    model_config = ConfigDict(frozen=True)

    key: KeyInfo
    secret: str = Field(description="send as Authorization: Bearer <secret>; not kept")


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
