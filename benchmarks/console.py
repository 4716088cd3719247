"""The console on a large owner: how fast it opens, and what a page of the timeline costs.

    python benchmarks/console.py [--size 10000] [--rounds 20] [--pages 40] [--neo4j]
        [--out benchmarks/console.json]

One owner of --size synthetic memories (scale.py's: a turn each, eight words from a 5,000-word
vocabulary, each RELATED to three earlier ones, tiers as the tier policy puts them; one a
minute, so the newest page is the last minutes'), loaded into an embedded store (a new file)
and, with --neo4j, into Neo4j (GRAPHMEM_NEO4J_URI, GRAPHMEM_NEO4J_PASSWORD; the owner kept
from an earlier run). Each store is served by `graphmem serve` as a user starts it (service.py's
`serving`: its own process on 127.0.0.1, an admin key) and asked over HTTP what the console
asks, one request after another as the page does:

- open: the owner's counts (`statistics`), the newest page of the timeline (50 memories) and
  the profile, --rounds times; each request's p50/p95 and the three together, against the
  issue's bound of 1 s;
- paging: --pages pages read one after another by their `next` (50 a page), each page's time,
  the first ten pages' against the last ten's (a cursor page costs the same however deep);
- a filtered page: the memories holding one word (a text search, which no index serves),
  and a neighbourhood (one memory, its turn and its RELATED memories).

The texts are synthetic and the owner's memories have no events or impressions, so the profile
is small: the figures are the store's reads and the server's, not a conversation's.
"""

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from provenance import write_result
from scale import load, owner_names
from service import file_store, milliseconds, serving

from graphmem.client import GraphMemClient
from graphmem.config import Settings
from graphmem.mechanisms.tiers import TierPolicy
from graphmem.memory import GraphMem

T = TypeVar("T")
PAGE = 50
BOUND_SECONDS = 1.0
"""The issue's bound on opening an owner of 10^4 memories."""


def timed(call: Callable[[], T]) -> tuple[float, T]:
    """Seconds a request took, and its answer."""
    started = time.perf_counter()
    answer = call()
    return time.perf_counter() - started, answer


def filled(memory: GraphMem, owner: str, size: int) -> None:
    """Load the owner's `size` memories (GraphMem.load, a batch at a time) unless it has them."""
    present = memory.statistics(owner).nodes.get("Memory", 0)
    if present < size:
        load(memory, [owner], size, TierPolicy(), present)  # type: ignore[arg-type]


def measure(url: str, key: str, owner: str, rounds: int, pages: int) -> dict[str, Any]:
    """What the console asks of the owner, timed over HTTP (graphmem's own client)."""
    with GraphMemClient(url, key, timeout=120) as client:
        parts: dict[str, list[float]] = {
            "statistics": [],
            "timeline": [],
            "profile": [],
            "open": [],
        }
        for _round in range(rounds):
            seconds = {
                "statistics": timed(lambda: client.statistics(owner))[0],
                "timeline": timed(lambda: client.timeline(owner, limit=PAGE))[0],
                "profile": timed(lambda: client.profile(owner))[0],
            }
            for name, value in seconds.items():
                parts[name].append(value)
            parts["open"].append(sum(seconds.values()))
        paged: list[float] = []
        page = client.timeline(owner, limit=PAGE)
        shown = len(page.entries)
        for _page in range(pages):
            started = time.perf_counter()
            page = client.timeline(owner, limit=PAGE, before=page.next)
            paged.append(time.perf_counter() - started)
            shown += len(page.entries)
        newest = client.timeline(owner, limit=1).entries[0].memory
        word = newest.text.split()[0]
        contains = [
            timed(lambda: client.timeline(owner, contains=word)) for _round in range(rounds)
        ]
        around = [timed(lambda: client.neighbourhood(owner, newest.id)) for _round in range(rounds)]
    return {
        "open": {name: milliseconds(values) for name, values in parts.items()},
        "open_within_bound": milliseconds(parts["open"])["p95_ms"] <= 1000 * BOUND_SECONDS,
        "paging": {
            "pages": pages,
            "memories_shown": shown,
            "every_page": milliseconds(paged),
            "first_ten_median_ms": round(1000 * statistics.median(paged[:10]), 2),
            "last_ten_median_ms": round(1000 * statistics.median(paged[-10:]), 2),
        },
        "contains": {
            "word": word,
            "found": len(contains[0][1].entries),
            **milliseconds([seconds for seconds, _page in contains]),
        },
        "neighbourhood": {
            "nodes": len(around[0][1].memories) + len(around[0][1].turns),
            "links": len(around[0][1].links),
            **milliseconds([seconds for seconds, _graph in around]),
        },
    }


def print_table(results: dict[str, Any]) -> None:
    """The figures as a table, one row a store."""
    print(
        "| store | open p50 / p95 ms | counts / page / profile p50 ms | page p50 / p95 ms"
        " | first 10 / last 10 pages ms | contains ms | neighbourhood ms |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, found in results["stores"].items():
        opened, paging = found["open"], found["paging"]
        print(
            f"| {name} | {opened['open']['p50_ms']:.0f} / {opened['open']['p95_ms']:.0f}"
            f" | {opened['statistics']['p50_ms']:.0f} / {opened['timeline']['p50_ms']:.0f}"
            f" / {opened['profile']['p50_ms']:.0f}"
            f" | {paging['every_page']['p50_ms']:.0f} / {paging['every_page']['p95_ms']:.0f}"
            f" | {paging['first_ten_median_ms']:.0f} / {paging['last_ten_median_ms']:.0f}"
            f" | {found['contains']['p50_ms']:.0f} | {found['neighbourhood']['p50_ms']:.0f} |"
        )


def main() -> None:
    """Load the owner into each store, serve it, time what the console asks."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--neo4j", action="store_true", help="also on Neo4j")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/console.json"))
    arguments = parser.parse_args()
    [owner] = owner_names(arguments.size, 1)
    owner = owner.replace("scale", "console")
    results: dict[str, Any] = {"size": arguments.size, "page": PAGE, "stores": {}}
    with tempfile.TemporaryDirectory() as folder:
        stores = {"networkx": file_store(Path(folder) / "console.json")}
        if arguments.neo4j:
            stores["neo4j"] = ["--store", "neo4j"]
        for name, flags in stores.items():
            settings = Settings.from_env().model_copy(
                update={"store": name, "path": Path(folder) / "console.json"}
            )
            started = time.perf_counter()
            with GraphMem.open(settings) as memory:
                filled(memory, owner, arguments.size)
            print(f"{name}: {arguments.size:,} memories in {time.perf_counter() - started:.0f} s")
            with serving(flags) as server:
                results["stores"][name] = measure(
                    server.url, server.key, owner, arguments.rounds, arguments.pages
                )
    print_table(results)
    write_result(arguments.out, results)


if __name__ == "__main__":
    main()
