"""Files graphmem writes of its own, readable and writable by their owner alone.

The embedded store's files, its keys and the caches of embeddings and model answers hold what
users said: each is created (or, made wider by an earlier graphmem, narrowed to) PRIVATE_FILE
whatever the umask, before a byte is written, and each folder graphmem creates for them is
PRIVATE_FOLDER. A folder that already exists keeps its mode: it is the user's.
"""

import os
import stat
from pathlib import Path

PRIVATE_FILE = 0o600
"""The mode of every file graphmem writes: read and written by its owner alone."""
PRIVATE_FOLDER = 0o700
"""The mode of each folder graphmem creates to hold its files."""


def create_private_folders(folder: Path) -> None:
    """Create `folder` and its missing parents, each PRIVATE_FOLDER; existing ones keep theirs."""
    missing: list[Path] = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for created in reversed(missing):
        try:
            os.mkdir(created, PRIVATE_FOLDER)
        except FileExistsError:  # made meanwhile by another process: not this one's to change
            continue
        os.chmod(created, PRIVATE_FOLDER)  # whatever the umask took away


def open_private(path: Path, flags: int) -> int:
    """A descriptor of the file at `path` opened with `flags`, created or narrowed to PRIVATE_FILE.

    Narrowed before the caller writes anything: a file the umask, or an earlier graphmem, left
    wider is made PRIVATE_FILE.
    """
    descriptor = os.open(path, flags | os.O_CREAT, PRIVATE_FILE)
    try:
        if stat.S_IMODE(os.fstat(descriptor).st_mode) != PRIVATE_FILE:
            os.fchmod(descriptor, PRIVATE_FILE)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def prepare_private_file(path: Path) -> None:
    """Create the file at `path` and its folders private, for a library that opens it by name."""
    create_private_folders(path.parent)
    os.close(open_private(path, os.O_RDWR))
