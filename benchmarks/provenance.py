"""Where a benchmark's result comes from, written into its JSON beside the figures.

Every script writes its result with `write_result`, which adds a `provenance` object: the commit
measured and whether the code in the work tree differed from it (results and pages aside, so
that one run's JSON does not mark the next run as changed), the command line, the date, the
machine's cores and the SHA-256 of each data file it read. `benchmarks/pages.py` renders the
pages from these JSONs and checks that each commit is one of HEAD's.
"""

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import graphmem

ROOT = Path(__file__).resolve().parent.parent
NOT_CODE = (":(exclude,glob)benchmarks/**/*.json", ":(exclude,glob)**/*.md")
"""Results and pages: a change to them leaves what a run measures as committed."""


def git(*arguments: str) -> str:
    """What a git command run in the repository prints, stripped."""
    return subprocess.run(  # noqa: S603 (git with our own arguments, no shell)
        ["git", *arguments],  # noqa: S607 (git on PATH)
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def file_hash(path: Path) -> str:
    """The SHA-256 of a file's bytes, or of a folder's files in name order."""
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        if path.is_dir():
            digest.update(file.relative_to(path).as_posix().encode() + b"\0")
        with file.open("rb") as opened:
            while block := opened.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()


def imported_from() -> Path:
    """The repository whose graphmem this process runs (an editable install may name another)."""
    return Path(graphmem.__file__).resolve().parent.parent


def provenance(data: Iterable[Path] = ()) -> dict[str, Any]:
    """The commit, whether the code differs from it, command, date, cores and data hashes.

    The code is dirty, too, when the graphmem this process imported is another tree's (a work
    tree run with the venv of another: set PYTHONPATH to this tree).
    """
    changes = git("status", "--porcelain", "--untracked-files=no", "--", ".", *NOT_CODE)
    code = imported_from()
    return {
        "commit": git("rev-parse", "HEAD"),
        "dirty": bool(changes) or code != ROOT,
        **({"graphmem_imported_from": str(code)} if code != ROOT else {}),
        "command": " ".join(["python", *sys.argv]),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "data": {str(path): file_hash(path) for path in data},  # as the command names them
    }


def write_result(path: Path, result: Mapping[str, Any], data: Iterable[Path] = ()) -> None:
    """Write a result as JSON with its provenance first, and say where it went."""
    record = {"provenance": provenance(data), **result}
    text = json.dumps(record, indent=2, ensure_ascii=False)  # Chinese as it is
    path.write_text(text + "\n", encoding="utf-8", errors="backslashreplace")  # lone surrogates
    print(f"wrote {path}")
