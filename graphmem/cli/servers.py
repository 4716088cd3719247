"""The commands that serve the memory and manage its keys: mcp, serve, keys create, list, revoke."""

import argparse
import json
import shlex
import sys
from dataclasses import fields
from typing import TextIO
from urllib.parse import quote

from graphmem.cli.grammar import SERVE_PORT
from graphmem.cli.options import parsed
from graphmem.config import Settings
from graphmem.contract import KeyRequest
from graphmem.errors import InvalidInputError, StoreError
from graphmem.memory import GraphMem

HELD_ELSEWHERE = " is open in another process"
"""How the embedded store's error ends when another process (a server, most likely) holds it."""
KEYS_URL = f"http://127.0.0.1:{SERVE_PORT}/v1/keys"
"""Where a local `graphmem serve` manages the keys, as the advice of a held store shows it."""
ADMIN_HEADER = ("-H", "Authorization: Bearer ADMIN_KEY")
"""curl's flags that send an admin key, in that advice."""
JSON_BODY = ("-H", "Content-Type: application/json", "-d")
"""curl's flags before a JSON body, in that advice."""


def run_mcp(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Serve the memory as the tools of an MCP server, over stdio or HTTP, until stopped."""
    from graphmem.mcp_server import serve as serve_mcp  # noqa: PLC0415 (extra may be missing)

    serve_mcp(
        settings,
        owner=arguments.owner,
        transport=arguments.transport,
        host=arguments.host,
        port=arguments.port,
    )


def run_serve(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Serve the memory over HTTP until stopped, with the server's own limits where no flag is."""
    from graphmem.gate import Limits, Perimeter  # noqa: PLC0415 (its extra may be missing)
    from graphmem.server import (  # noqa: PLC0415
        serve,
    )

    flags = {field.name: getattr(arguments, field.name, None) for field in fields(Limits)}
    serve(
        settings,
        host=arguments.host,
        port=arguments.port,
        limits=Limits(**{name: value for name, value in flags.items() if value is not None}),
        workers=arguments.workers,
        perimeter=Perimeter(
            allowed_hosts=tuple(arguments.allowed_host),
            trusted_proxies=tuple(arguments.trusted_proxy),
        ),
    )


def keys_memory(settings: Settings, through_the_server: str) -> GraphMem:
    """The memory whose keys a `keys` command manages, opened.

    A store file that another process holds (`graphmem serve`, most likely) is refused with
    `through_the_server`: what to do instead.
    """
    try:
        return GraphMem.open(settings)
    except StoreError as error:
        if not str(error).endswith(HELD_ELSEWHERE):
            raise
        raise StoreError(f"{error}. {through_the_server}") from None


def held_store_advice(done: str, route: str, command: list[str]) -> str:
    """What to do when a `keys` command finds its store file held: stop the server, or use it."""
    return (
        "If it is `graphmem serve`, either stop the server and run this command again, or"
        f" {done} through the server ({route}) with an admin key, at the server's address:"
        f" `{shlex.join(command)}`"
    )


def run_keys_create(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Create a key for the owners, the owner prefix, or an admin: its secret (or JSON) on `out`."""
    wanted = parsed(arguments, KeyRequest)
    body = wanted.model_dump_json(exclude_defaults=True)
    first = ["curl", "-X", "POST", *JSON_BODY, json.dumps({"admin": True}), KEYS_URL]
    advice = held_store_advice(
        "create the key",
        "POST /v1/keys",
        ["curl", "-X", "POST", *ADMIN_HEADER, *JSON_BODY, body, KEYS_URL],
    ) + (
        "; a server with no key yet creates its first key, an admin key, that way without"
        f" one (and asks for keys from then on): `{shlex.join(first)}`"
    )
    with keys_memory(settings, advice) as memory:
        made = memory.create_key(**wanted.model_dump())
        print(made.model_dump_json() if arguments.json else made.secret, file=out)
        print(
            f"key {made.key.id} ({made.key.scope()}) is shown this once: keep it"
            " (the store keeps its hash)",
            file=sys.stderr,
        )


def run_keys_list(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Print every key, a line (or a JSON object) each, never its secret."""
    advice = held_store_advice("list the keys", "GET /v1/keys", ["curl", *ADMIN_HEADER, KEYS_URL])
    with keys_memory(settings, advice) as memory:
        for key in memory.list_keys():
            if arguments.json:
                print(key.model_dump_json(), file=out)
                continue
            state = "" if key.revoked_at is None else f", revoked {key.revoked_at:%Y-%m-%d %H:%M}"
            print(
                f"{key.id}  {key.scope()}  (made {key.created_at:%Y-%m-%d %H:%M}{state})",
                file=out,
            )


def run_keys_revoke(settings: Settings, arguments: argparse.Namespace, out: TextIO) -> None:
    """Revoke a key by its id, and say so."""
    revoke_url = f"{KEYS_URL}/{quote(arguments.id, safe='')}/revoke"
    advice = held_store_advice(
        "revoke the key",
        "POST /v1/keys/{id}/revoke",
        ["curl", "-X", "POST", *ADMIN_HEADER, revoke_url],
    )
    with keys_memory(settings, advice) as memory:
        revoked = memory.revoke_key(arguments.id)
        if revoked is None:
            raise InvalidInputError(f"no key {arguments.id!r} (graphmem keys list shows them)")
        print(f"key {revoked.id} revoked", file=out)
