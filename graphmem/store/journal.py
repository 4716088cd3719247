"""The embedded store's files: a journal of every change, folded now and then into a snapshot.

Durability: every write is appended to the journal file and fsynced before the verb returns; the
whole graph is written to the snapshot file from time to time and on close, by writing a
temporary file and renaming it over the old one (atomic on POSIX), after which the journal is
emptied. A crash at any moment therefore leaves the last snapshot intact and the journal holding
everything written since; opening the store replays it. One process at a time may open a file
(flock).

Every file of the store is its owner's alone: created 0600 whatever the umask (the temporary
files too, before a byte is written), and a journal or lock file an earlier graphmem made
wider is narrowed to 0600 as the store opens; the snapshot and the keys become 0600 when next
written, each a new file renamed over the old. The folders the store creates for its files
are 0700; a folder that already exists is left as it is.

The format: the snapshot is one JSON object (FORMAT, VERSION, the sequence number of the last
change it holds, every node with its label, the tombstones of forgotten messages as nodes of the
label Tombstone, every edge with its owner and its ends' labels); the
journal holds a JSON object a line, a change with its sequence number. What a change says, and
what it does to the graph, is the store's (graphmem.store.networkx_appliers): this module numbers,
keeps and hands back changes without reading them.

Beside them, `.keys` holds the API keys of `graphmem serve` (graphmem.keys), outside every
owner's graph: a JSON list of key records, written whole (temporary file, fsync, rename) at
each change.
"""

import fcntl
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple, TypeAlias

import orjson
from pydantic import BaseModel

from graphmem.contract import Tombstone
from graphmem.errors import StoreError
from graphmem.keys import ApiKey
from graphmem.model import NODE_LABELS, Link, Node
from graphmem.private_files import create_private_folders, open_private

FORMAT = "graphmem-networkx"
VERSION = 1

SnapshotLink: TypeAlias = tuple[str, str, str, Link]
"""An edge as the snapshot keeps it: (owner, source label, target label, edge)."""
SNAPSHOT_LABELS: dict[str, type[Node] | type[Tombstone]] = {**NODE_LABELS, "Tombstone": Tombstone}
"""The model of each label of the snapshot's nodes."""


class Stored(NamedTuple):
    """What the files hold when the store opens: the snapshot's graph and the changes since."""

    nodes: list[Node | Tombstone]
    links: list[SnapshotLink]
    changes: Iterator[dict[str, Any]]
    """The journalled changes newer than the snapshot, in order; apply each as it comes."""
    journalled: bool
    """Whether the journal held anything, in which case the store writes a fresh snapshot."""


def _json_form(value: object) -> Any:
    """A model in a journal entry or a snapshot as JSON: its fields (an edge: those set)."""
    if isinstance(value, Link):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not stored as JSON")


class KeyFile:
    """The API keys kept beside the snapshot at `path` (in memory only when `path` is None)."""

    def __init__(self, path: Path | None) -> None:
        self._path = None if path is None else path.with_name(path.name + ".keys")
        self.keys: dict[str, ApiKey] = {}
        """The keys by id, as last read or written."""
        if self._path is not None and self._path.exists():
            try:
                records = orjson.loads(self._path.read_bytes())
                self.keys = {item["id"]: ApiKey.model_validate(item) for item in records}
            except (OSError, orjson.JSONDecodeError, TypeError, KeyError, ValueError) as error:
                raise StoreError(f"cannot read the keys at {self._path}: {error}") from None

    def save(self, keys: dict[str, ApiKey]) -> None:
        """Write the keys whole, atomically, and keep them."""
        if self._path is not None:
            records = [key.model_dump(mode="json") for key in keys.values()]
            temporary = self._path.with_name(self._path.name + ".tmp")
            with os.fdopen(open_private(temporary, os.O_WRONLY | os.O_TRUNC), "wb") as file:
                file.write(orjson.dumps(records, option=orjson.OPT_INDENT_2))
                file.flush()
                os.fsync(file.fileno())
            temporary.replace(self._path)
        self.keys = dict(keys)


class Journal:
    """The files of the store kept at `path`: the snapshot, and beside it `.journal` and `.lock`."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._journal_path = path.with_name(path.name + ".journal")
        self._sequence = 0
        """The sequence number of the last change journalled (or held by the snapshot)."""
        self._journal_file: IO[bytes] | None = None
        self._lock_file: IO[bytes] | None = None

    def open(self) -> Stored:
        """Lock the files, read the snapshot and the journal, and open the journal to append."""
        try:
            create_private_folders(self._path.parent)
            lock_path = self._path.with_name(self._path.name + ".lock")
            self._lock_file = os.fdopen(open_private(lock_path, os.O_WRONLY | os.O_APPEND), "ab")
        except OSError as error:
            raise StoreError(f"cannot open the store at {self._path}: {error.strerror}") from None
        try:
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock_file.close()
            self._lock_file = None
            raise StoreError(f"{self._path} is open in another process") from None
        try:
            nodes, links = self._read_snapshot() if self._path.exists() else ([], [])
            journal = b""
            if self._journal_path.exists():
                journal = self._journal_path.read_bytes()
            self._journal_file = os.fdopen(
                open_private(self._journal_path, os.O_WRONLY | os.O_APPEND), "ab"
            )
        except OSError as error:
            self._lock_file.close()
            self._lock_file = None
            raise StoreError(f"cannot read the store at {self._path}: {error.strerror}") from None
        return Stored(
            nodes=nodes,
            links=links,
            changes=self._newer_changes(journal.split(b"\n")),
            journalled=bool(journal),
        )

    def append(self, change: dict[str, Any]) -> None:
        """Number a change and append it to the journal, fsynced: once this returns, it is kept."""
        assert self._journal_file is not None
        self._sequence += 1
        change["sequence"] = self._sequence
        self._journal_file.write(
            orjson.dumps(change, default=_json_form, option=orjson.OPT_APPEND_NEWLINE)
        )
        self._journal_file.flush()
        os.fsync(self._journal_file.fileno())

    def snapshot(
        self, nodes: Iterable[tuple[str, Node | Tombstone]], links: Iterable[SnapshotLink]
    ) -> None:
        """Write the graph to a temporary file, rename it over the snapshot, empty the journal.

        The graph: its nodes as (label, node), its edges as SnapshotLink.
        """
        assert self._journal_file is not None
        data = {
            "format": FORMAT,
            "version": VERSION,
            "sequence": self._sequence,
            "nodes": [{"label": label, "node": node} for label, node in nodes],
            "links": [
                {
                    "owner": owner,
                    "source_label": source_label,
                    "target_label": target_label,
                    "link": link,
                }
                for owner, source_label, target_label, link in links
            ],
        }
        temporary = self._path.with_name(self._path.name + ".tmp")
        with os.fdopen(open_private(temporary, os.O_WRONLY | os.O_TRUNC), "wb") as file:
            file.write(orjson.dumps(data, default=_json_form))
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self._path)
        directory = os.open(self._path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        self._journal_file.seek(0)
        self._journal_file.truncate()

    def close(self) -> None:
        """Close the journal and release the lock."""
        if self._journal_file is not None:
            self._journal_file.close()
            self._journal_file = None
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def _read_snapshot(self) -> tuple[list[Node | Tombstone], list[SnapshotLink]]:
        """The nodes and edges of the snapshot file; its sequence number becomes the journal's."""
        try:
            data = orjson.loads(self._path.read_bytes())
            if data.get("format") != FORMAT or data.get("version") != VERSION:
                raise StoreError(
                    f"{self._path} is not a graphmem {FORMAT} file of version {VERSION}"
                )
            nodes = [
                SNAPSHOT_LABELS[item["label"]].model_validate(item["node"])
                for item in data["nodes"]
            ]
            links = [
                (
                    item["owner"],
                    item["source_label"],
                    item["target_label"],
                    Link.model_validate(item["link"]),
                )
                for item in data["links"]
            ]
            self._sequence = data["sequence"]
        except (ValueError, KeyError, TypeError) as error:
            raise StoreError(f"{self._path} is unreadable: {error}") from error
        return nodes, links

    def _newer_changes(self, lines: list[bytes]) -> Iterator[dict[str, Any]]:
        """The journal's changes newer than the snapshot, in order, from its lines.

        A last line that does not parse was cut short by a crash, so never acknowledged: it
        ends the journal. Any other that does not parse makes the store unreadable.
        """
        for number, line in enumerate(lines, start=1):
            if not line:
                continue
            try:
                change = orjson.loads(line)
            except orjson.JSONDecodeError as error:
                cut_short_by_a_crash = number == len(lines)
                if cut_short_by_a_crash:
                    break
                raise StoreError(
                    f"{self._journal_path} line {number} is unreadable: {error}"
                ) from error
            if change["sequence"] > self._sequence:
                self._sequence = change["sequence"]
                yield change
