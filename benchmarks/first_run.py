"""A new user's first run beside a warm one: the demo and a first import, cold and again.

    python benchmarks/first_run.py [DATA.json] [--conversation conv-26]
        [--out benchmarks/first-run.json]

A new user on this machine: an empty HOME with its own XDG folders (no store file, no
embedding cache, no settings), the package as installed here, the offline cognition and the
bundled e5 embedder, as the README's first command leaves them. Each command runs as the user
types it, in a process of its own, timed by the wall clock around it:
1. `graphmem demo` on the embedded store, twice: the first process is the user's first (the
   embedder loaded and every line embedded), the second the same again with the disk's files
   read before (graphmem keeps no embedding cache unless one is set, so both embed every line).
2. A Neo4j of its own, started for the first time (`scripts/neo4j start` with a new
   GRAPHMEM_NEO4J_HOME and free ports: empty data, no query compiled yet, the schema made by
   the first command), then `graphmem demo --store neo4j` twice, for two owners.
3. `graphmem import-history` of one LoCoMo dev conversation's turns (DATA, default
   ../shared/data/locomo/locomo_dev.json; its message ids, times, speakers and sessions) into
   that Neo4j: first with GRAPHMEM_EMBEDDING_CACHE a new file (every text embedded), then into
   a second owner with that cache filled (no text embedded), as the benchmarks' figures are.
Neo4j is stopped at the end and its folder deleted. The machine is the benchmarks' (see the
JSON's provenance for its cores, and its load averages); the operating system's file cache is
not emptied, so a first run on a machine just booted reads the package and the model from disk
as well.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locomo import load, turn_item
from provenance import write_result

ROOT = Path(__file__).resolve().parent.parent
GRAPHMEM = [sys.executable, "-m", "graphmem"]


@dataclass(frozen=True)
class Timed:
    """A command's wall-clock seconds and the last line it printed on standard output."""

    seconds: float
    said: str


def free_port() -> int:
    """A port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def timed(command: list[str], environment: dict[str, str]) -> Timed:
    """Run a command to its end; its seconds and last line (SystemExit if it failed)."""
    started = time.perf_counter()
    done = subprocess.run(  # noqa: S603 (our venv's python and our script, no shell)
        command, cwd=ROOT, env=environment, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} failed:\n{done.stderr[-2000:]}")
    lines = done.stdout.strip().splitlines()
    return Timed(round(seconds, 2), lines[-1] if lines else "")


def new_user(home: Path) -> dict[str, str]:
    """The environment of a user whose home is empty: no GRAPHMEM_ setting, own XDG folders."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GRAPHMEM_", "XDG_")) and key != "HOME"
    }
    for name in ("data", "cache", "config"):
        (home / name).mkdir(parents=True)
    return {
        **environment,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_CONFIG_HOME": str(home / "config"),
    }


def history(data: Path, conversation: str, path: Path) -> int:
    """Write a LoCoMo conversation's turns as JSON lines of messages; how many."""
    [sample] = [sample for sample in load(data) if sample.conversation.sample_id == conversation]
    turns = sample.conversation.turns
    lines = [json.dumps({**turn_item(turn), "at": turn.at.isoformat()}) for turn in turns]
    path.write_text("\n".join(lines) + "\n")
    return len(turns)


def embedded_demos(user: dict[str, str]) -> dict[str, float]:
    """1: the demo on the embedded store, a user's first process and the next one."""
    return {
        "first_seconds": timed([*GRAPHMEM, "demo", "--plot", "/dev/null"], user).seconds,
        "again_seconds": timed([*GRAPHMEM, "demo", "--plot", "/dev/null"], user).seconds,
    }


def neo4j_runs(user: dict[str, str], folder: Path, turns_file: Path, turns: int) -> dict[str, Any]:
    """2 and 3 on a Neo4j started for the first time, stopped and deleted afterwards."""
    server = {
        **user,
        "GRAPHMEM_NEO4J_HOME": str(folder / "neo4j"),
        "GRAPHMEM_NEO4J_BOLT_PORT": str(free_port()),
        "GRAPHMEM_NEO4J_HTTP_PORT": str(free_port()),
    }
    script = [str(ROOT / "scripts" / "neo4j")]
    started = timed([*script, "start"], server)
    try:
        password = subprocess.run(  # noqa: S603 (our script)
            [*script, "password"], env=server, capture_output=True, text=True, check=True
        ).stdout.strip()
        client = {
            **user,
            "GRAPHMEM_NEO4J_URI": f"bolt://127.0.0.1:{server['GRAPHMEM_NEO4J_BOLT_PORT']}",
            "GRAPHMEM_NEO4J_PASSWORD": password,
        }
        demo = [*GRAPHMEM, "demo", "--store", "neo4j", "--plot", "/dev/null"]
        demos = {
            "first_seconds": timed([*demo, "--owner", "first-demo"], client).seconds,
            "again_seconds": timed([*demo, "--owner", "second-demo"], client).seconds,
        }
        cached = {**client, "GRAPHMEM_EMBEDDING_CACHE": str(folder / "embeddings.sqlite")}
        load_it = [*GRAPHMEM, "import-history", "--store", "neo4j", str(turns_file)]
        imports = {}
        for name, owner in (("first", "first-import"), ("again", "second-import")):
            done = timed([*load_it, "--owner", owner], cached)
            imports[name] = {
                "seconds": done.seconds,
                "turns_per_second": round(turns / done.seconds, 1),
                "said": done.said,
            }
    finally:
        subprocess.run([*script, "stop"], env=server, capture_output=True, check=False)  # noqa: S603
    return {"start_seconds": started.seconds, "demo": demos, "import": imports}


def main() -> None:
    """Run 1, 2 and 3; print the table; write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "data", type=Path, nargs="?", default=ROOT.parent / "shared/data/locomo/locomo_dev.json"
    )
    parser.add_argument("--conversation", default="conv-26")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "first-run.json")
    arguments = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        user = new_user(folder / "home")
        turns_file = folder / "history.jsonl"
        turns = history(arguments.data, arguments.conversation, turns_file)
        embedded = embedded_demos(user)
        neo4j = neo4j_runs(user, folder, turns_file, turns)
    result = {
        "load_average_before": [round(value, 2) for value in load_before],
        "load_average_after": [round(value, 2) for value in os.getloadavg()],
        "conversation": arguments.conversation,
        "turns": turns,
        "embedded_demo": embedded,
        "neo4j": neo4j,
    }
    print("| command | first run | again |")
    print("|---|---|---|")
    print(
        f"| graphmem demo (embedded) | {embedded['first_seconds']} s"
        f" | {embedded['again_seconds']} s |"
    )
    print(f"| scripts/neo4j start (a new Neo4j) | {neo4j['start_seconds']} s | |")
    demo = neo4j["demo"]
    print(
        f"| graphmem demo --store neo4j | {demo['first_seconds']} s | {demo['again_seconds']} s |"
    )
    first, again = neo4j["import"]["first"], neo4j["import"]["again"]
    print(
        f"| graphmem import-history, {turns} turns, Neo4j | {first['seconds']} s"
        f" ({first['turns_per_second']} turns/s, every text embedded) | {again['seconds']} s"
        f" ({again['turns_per_second']} turns/s, embeddings cached) |"
    )
    write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
