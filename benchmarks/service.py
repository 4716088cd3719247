"""The HTTP service against the library in process: recall latency, import rate, many clients.

    python benchmarks/service.py DATA.json [--conversation conv-26] [--batch 64] [--repeats 10]
        [--clients 20] [--owners 4] [--neo4j] [--out benchmarks/service.json]

All on one LoCoMo dev conversation (default conv-26), offline cognition, e5 embeddings through
locomo.py's cache (.cache/locomo-embeddings.sqlite, keyed by text; the settings of its
`open_memory`): locomo.py's runs embedded its texts, so e5 is not part of what is timed, except
for the few texts that no earlier run produced (the JSON counts the embeddings each part added
to the cache). Each server is `graphmem serve` as a user starts it, a process of its own on
127.0.0.1, with an admin key made before by `graphmem keys create --admin --json` (the clients
send it; the script revokes it once the server has stopped), its default 8 workers, and
`--rate`, `--burst` and `--in-flight` raised to RATE so that the limiter, which still runs, never
answers 429. The script reads each server's "graphmem serve listening on" line (it listens)
before using it, and reads its log of the requests (the time the app took for each) to the end.

1 and 2, embedded store, one client, both ways at once: a memory in process (GraphMem) on one
file and a server on another, empty file (GraphMemClient), given the same requests:
2. observe_many throughput: the conversation's turns (message ids, times, speakers, sessions)
   observed in batches of 64 into --repeats fresh owners, each owner in process, then over
   HTTP. Each way starts with graphmem's per-text caches empty and one untimed batch of the
   next conversation's turns. Turns a second over all the repeats, HTTP's share of the
   in-process rate, and each call's time; whether the two ways' first owners end with the same
   counts of nodes and edges.
1. Recall latency: every question of the conversation recalled from the first owner in peek
   mode (nothing changes, so each way reads the graph 2 left) at the last session's time, k 10,
   both ways one after the other, in process first for even questions and HTTP first for odd
   ones, so that other work on the machine weighs on both alike. Five questions of the next
   conversation are recalled first, untimed; the questions where both ways return the same
   memories are counted. Beside it, the smallest verb over HTTP (`statistics` of an owner with
   nothing), back to back and after as much work in this process as an in-process recall
   takes: what waking the idle server costs on this machine, which no call in process pays.
3. Many clients at once (default 20, asyncio, an AsyncGraphMemClient each with retries 0, so
   that a refusal or a failure the default client would retry counts as an error): a few owners
   (default 4) each hold the first half of the conversation (observe_many, untimed); each
   owner's clients share the second half, each observing its turns in order (with their
   message ids and times), with a recall of a question after each (waking, as an agent
   recalls) at the last session's time. Requests a second over the whole run, p50/p95/p99 per
   verb, errors per verb, recalls cut short by their time budget. On the embedded store (an
   empty file), and with --neo4j on Neo4j too (GRAPHMEM_NEO4J_URI, GRAPHMEM_NEO4J_PASSWORD),
   under owners named service-bench-<random>-<n>, forgotten at the end on both stores.

Latency is measured by the caller, around the call: over HTTP it includes the client's request
and its reading of the answer into the pydantic models the library returns. Beside it, the
time the server's app took (its log line of each request). The clients run in this process
(beside the memory in process, in 1 and 2), on the same cores as the server.
"""

import argparse
import asyncio
import gc
import json
import math
import os
import re
import secrets
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from locomo import CACHE, Conversation, load, open_memory, turn_item
from provenance import write_result

from graphmem import terms
from graphmem.client import AsyncGraphMemClient, GraphMemClient
from graphmem.cognition import offline
from graphmem.contract import Recall
from graphmem.errors import GraphMemError
from graphmem.memory import GraphMem
from graphmem.serving import LISTENING

T = TypeVar("T")
Item = dict[str, Any]
"""One turn as `observe_many` takes it."""
Memory = GraphMem | GraphMemClient
"""The memory in process or over HTTP: the same verbs."""

ROOT = Path(__file__).resolve().parent.parent
RATE = 1_000_000
"""`serve --rate`, `--burst` and `--in-flight`: far above any here, so the limiter never refuses."""
UNLIMITED = ("--rate", str(RATE), "--burst", str(RATE), "--in-flight", str(RATE))
"""The flags of `serve` that keep its limits out of what is measured."""
WARM_UP_QUESTIONS = 5
"""Questions of the next conversation recalled, untimed, before the timed recalls."""
VERBS = ("observe", "recall")
"""The verbs of the concurrent clients."""
LOGGED = re.compile(r" POST /v1/owners/[^/ ]+/(\w+) -> \d+ in ([\d.]+) ms$")
"""The server's log line of a request to an owner's verb: the verb and the app's time."""


# -- data ------------------------------------------------------------------------------------


def turn_items(conversation: Conversation) -> list[Item]:
    """A conversation's turns as `observe_many` takes them, in order."""
    return [turn_item(turn) for turn in conversation.turns]


def batches(items: list[Item], size: int) -> list[list[Item]]:
    """The items in consecutive batches of `size` (the last one shorter)."""
    return [items[start : start + size] for start in range(0, len(items), size)]


def cached_embeddings() -> int:
    """How many embeddings the e5 cache holds."""
    with closing(sqlite3.connect(CACHE)) as database:
        count: int = database.execute("SELECT count(*) FROM embedding").fetchone()[0]
    return count


def empty_text_caches() -> None:
    """Empty graphmem's caches of per-text work, as in a process that has seen no text yet."""
    for cached in (terms.terms, terms.words, offline.salience, offline.mood):
        cached.cache_clear()


# -- figures ---------------------------------------------------------------------------------


def milliseconds(seconds: list[float]) -> dict[str, float]:
    """p50, p95, p99 and mean of durations, in milliseconds with two decimals."""
    cuts = statistics.quantiles(seconds, n=100, method="inclusive")
    return {
        "p50_ms": round(1000 * statistics.median(seconds), 2),
        "p95_ms": round(1000 * cuts[94], 2),
        "p99_ms": round(1000 * cuts[98], 2),
        "mean_ms": round(1000 * statistics.fmean(seconds), 2),
    }


def rate(turns: int, seconds: list[float]) -> dict[str, Any]:
    """Turns observed a second over repeats of `turns` turns that took these seconds."""
    return {
        "turns": turns * len(seconds),
        "seconds": round(sum(seconds), 3),
        "turns_per_second": round(turns * len(seconds) / sum(seconds), 1),
        "median_run_turns_per_second": round(turns / statistics.median(seconds), 1),
        "runs_turns_per_second": [round(turns / run, 1) for run in seconds],
    }


# -- the server ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Server:
    """A running `graphmem serve`: its address, the secret of its admin key, its log so far."""

    url: str
    key: str
    log: list[str]
    """Its standard error, a line a request; whole once the server has stopped."""

    def app_seconds(self, verb: str) -> list[float]:
        """The time the app took for each request to an owner's verb, in order (from its log)."""
        found = [LOGGED.search(line.rstrip()) for line in self.log]
        return [float(match[2]) / 1000 for match in found if match and match[1] == verb]


def free_port() -> int:
    """A port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def environment() -> dict[str, str]:
    """The environment of graphmem's processes: this one's, with locomo.py's embedding settings."""
    return {
        **os.environ,
        "GRAPHMEM_COGNITION": "offline",
        "GRAPHMEM_EMBEDDER": "e5",
        "GRAPHMEM_EMBEDDING_CACHE": str(CACHE),
    }


def graphmem(*arguments: str) -> str:
    """Run one `graphmem` command to its end; its standard output (SystemExit if it failed)."""
    done = subprocess.run(  # noqa: S603 (our venv's python, no shell)
        [sys.executable, "-m", "graphmem", *arguments],
        cwd=ROOT,
        env=environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"graphmem {' '.join(arguments[:2])} failed: {done.stderr}")
    return done.stdout


def wait_ready(process: "subprocess.Popen[str]", log: list[str]) -> None:
    """Read the server's log until it says it is ready; SystemExit with the log if it ends first."""
    assert process.stderr is not None
    for line in process.stderr:
        log.append(line)
        if LISTENING in line:  # listening (after "Application startup complete")
            return
    raise SystemExit(f"graphmem serve ended with {process.wait()}:\n{''.join(log)}")


def drain(lines: Iterable[str], log: list[str]) -> None:
    """Keep reading the server's log (a line a request), so that it never waits on the pipe."""
    log.extend(lines)


@contextmanager
def serving(store: list[str], flags: Sequence[str] = UNLIMITED) -> Iterator[Server]:
    """`graphmem serve` on a store's flags and `flags`, with a new admin key, until it ends.

    The server is stopped as Ctrl-C stops it (it closes the memory), then the key revoked.
    """
    made = json.loads(graphmem("keys", "create", "--admin", "--json", *store))
    port = free_port()
    process = subprocess.Popen(  # noqa: S603 (our venv's python, no shell)
        [sys.executable, "-m", "graphmem", "serve", "--port", str(port), *flags, *store],
        cwd=ROOT,
        env=environment(),
        stderr=subprocess.PIPE,
        text=True,
    )
    log: list[str] = []
    reader = threading.Thread(target=drain, args=(process.stderr, log), daemon=True)
    try:
        wait_ready(process, log)
        reader.start()
        yield Server(f"http://127.0.0.1:{port}", made["secret"], log)
    finally:
        process.terminate()
        code = process.wait(timeout=60)
        if reader.is_alive():
            reader.join(timeout=10)
        graphmem("keys", "revoke", made["key"]["id"], *store)
    if code != 0:
        raise SystemExit(f"graphmem serve ended with {code}:\n{''.join(log[-20:])}")


def file_store(path: Path) -> list[str]:
    """The flags of an embedded store in this file."""
    return ["--store", "networkx", "--path", str(path)]


# -- 1 and 2: one client, both ways ----------------------------------------------------------


def timed_import(memory: Memory, owner: str, items: list[Item], batch: int) -> list[float]:
    """Observe the items into the owner, `batch` a call; the seconds each call took."""
    seconds = []
    for chunk in batches(items, batch):
        started = time.perf_counter()
        memory.observe_many(owner, chunk)
        seconds.append(time.perf_counter() - started)
    return seconds


def imports(
    ways: dict[str, Memory],
    owners: list[str],
    conversation: Conversation,
    warm_up: Conversation,
    batch: int,
) -> dict[str, list[list[float]]]:
    """2: the seconds of each call of each way's import of the conversation into each owner.

    A batch of `warm_up` goes first, untimed.
    """
    for memory in ways.values():
        memory.observe_many("warm-up", turn_items(warm_up)[:batch])
    gc.collect()
    items = turn_items(conversation)
    seconds: dict[str, list[list[float]]] = {name: [] for name in ways}
    for owner in owners:
        for name, memory in ways.items():
            seconds[name].append(timed_import(memory, owner, items, batch))
    return seconds


def recalls(
    ways: dict[str, Memory], owner: str, conversation: Conversation, warm_up: Conversation
) -> dict[str, tuple[list[float], list[list[str]]]]:
    """1: each way's seconds for every question (peek) and the ids of the memories it returned.

    The ways take turns going first, question by question; a few questions of `warm_up` go
    first, untimed.
    """
    for memory in ways.values():
        for question in warm_up.questions[:WARM_UP_QUESTIONS]:
            memory.recall(owner, question, at=conversation.asked_at, peek=True)
    gc.collect()
    found: dict[str, tuple[list[float], list[list[str]]]] = {name: ([], []) for name in ways}
    for number, question in enumerate(conversation.questions):
        order = list(ways) if number % 2 == 0 else list(reversed(ways))
        for name in order:
            started = time.perf_counter()
            recalled = ways[name].recall(owner, question, at=conversation.asked_at, peek=True)
            found[name][0].append(time.perf_counter() - started)
            found[name][1].append([item.memory.id for item in recalled.memories])
    return found


def smallest_verb(client: GraphMemClient, gap: float, calls: int = 200) -> dict[str, float]:
    """p50 of `statistics` on an owner with nothing, back to back and after `gap` s of work.

    The work is a busy loop in this process, as an in-process recall is, so that the server
    sits idle between calls as long as between the timed recalls: the difference is what
    waking its threads costs on this machine (a call in process wakes none).
    """
    found: dict[str, list[float]] = {"back_to_back": [], "after_gap": []}
    for number in range(2 * calls):
        way = "after_gap" if number % 2 else "back_to_back"
        if way == "after_gap":
            until = time.perf_counter() + gap
            while time.perf_counter() < until:
                pass
        started = time.perf_counter()
        client.statistics("nobody")
        found[way].append(time.perf_counter() - started)
    return {
        "gap_ms": round(1000 * gap, 2),
        **{
            f"{way}_p50_ms": round(1000 * statistics.median(seconds), 2)
            for way, seconds in found.items()
        },
    }


def one_client(
    conversation: Conversation, warm_up: Conversation, batch: int, repeats: int, folder: Path
) -> dict[str, Any]:
    """1 and 2 on the embedded store, in process and over HTTP; their JSON and the targets."""
    owners = [f"import-{number}" for number in range(1, repeats + 1)]
    turns = len(conversation.turns)
    empty_text_caches()
    with (
        serving(file_store(folder / "served.json")) as server,
        GraphMemClient(server.url, server.key) as client,
        open_memory("networkx", "offline", folder, [conversation]) as memory,
    ):
        ways: dict[str, Memory] = {"in_process": memory, "http": client}
        imported = imports(ways, owners, conversation, warm_up, batch)
        print(f"imported {repeats} x {turns} turns both ways", file=sys.stderr, flush=True)
        counts = [way.statistics(owners[0]) for way in ways.values()]
        recalled = recalls(ways, owners[0], conversation, warm_up)
        print(f"recalled {len(conversation.questions)} questions both ways", file=sys.stderr)
        smallest = smallest_verb(client, statistics.median(recalled["in_process"][0]))
    app_recalls = server.app_seconds("recall")[-len(conversation.questions) :]
    app_imports = server.app_seconds("observe_many")[-repeats * math.ceil(turns / batch) :]

    latency = {name: milliseconds(seconds) for name, (seconds, _ids) in recalled.items()}
    difference = {
        name: round(latency["http"][name] - latency["in_process"][name], 2)
        for name in latency["http"]
    }
    rates = {name: rate(turns, [sum(calls) for calls in runs]) for name, runs in imported.items()}
    calls = {
        name: milliseconds([call for run in runs for call in run])
        for name, runs in imported.items()
    }
    share = rates["http"]["turns_per_second"] / rates["in_process"]["turns_per_second"]
    medians = [rates[name]["median_run_turns_per_second"] for name in ("http", "in_process")]
    return {
        "recall": {
            "questions": len(conversation.questions),
            **latency,
            "http_minus_in_process": difference,
            "http_app": milliseconds(app_recalls),
            "smallest_verb": smallest,
            "same_memories": sum(
                mine == theirs
                for mine, theirs in zip(recalled["in_process"][1], recalled["http"][1], strict=True)
            ),
            "targets": {
                "p50": {"limit_ms": 3.0, "met": difference["p50_ms"] <= 3.0},
                "p95": {"limit_ms": 5.0, "met": difference["p95_ms"] <= 5.0},
            },
        },
        "observe_many": {
            "batch": batch,
            "repeats": repeats,
            **rates,
            "batch_in_process": calls["in_process"],
            "batch_http": calls["http"],
            "batch_http_app": milliseconds(app_imports),
            "http_share": round(share, 3),
            "http_share_of_median_runs": round(medians[0] / medians[1], 3),
            "same_counts": counts[0] == counts[1],
            "target": {"share": 0.9, "met": share >= 0.9},
        },
    }


# -- 3: many clients -------------------------------------------------------------------------


@dataclass
class Tally:
    """What the concurrent clients met: seconds of each successful call and errors, per verb."""

    seconds: dict[str, list[float]] = field(default_factory=lambda: {verb: [] for verb in VERBS})
    errors: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERBS, 0))
    messages: list[str] = field(default_factory=list)
    """The first few errors' messages."""
    cut_short: int = 0
    """Recalls whose time budget ran out (they skipped thinking again or association)."""


async def timed_call(verb: str, call: Awaitable[T], tally: Tally) -> T | None:
    """Await a call, noting its seconds, or its error (then None)."""
    started = time.perf_counter()
    try:
        result = await call
    except GraphMemError as error:
        tally.errors[verb] += 1
        if len(tally.messages) < 10:
            tally.messages.append(f"{verb}: {type(error).__name__}: {error}")
        return None
    tally.seconds[verb].append(time.perf_counter() - started)
    return result


async def one_of_many(
    server: Server,
    owner: str,
    turns: list[Item],
    conversation: Conversation,
    *,
    first_question: int,
    tally: Tally,
) -> None:
    """One client: observe each of its turns, then recall a question (the next one each time)."""
    questions = conversation.questions
    async with AsyncGraphMemClient(server.url, server.key, retries=0) as client:
        for number, turn in enumerate(turns):
            await timed_call("observe", client.observe(owner, **turn), tally)
            question = questions[(first_question + number) % len(questions)]
            found: Recall | None = await timed_call(
                "recall", client.recall(owner, question, at=conversation.asked_at), tally
            )
            if found is not None and found.cut_short:
                tally.cut_short += 1


async def many_clients(
    server: Server, conversation: Conversation, clients: int, owners: int, batch: int
) -> tuple[float, Tally]:
    """3 on a running server: load the owners, run the clients at once, forget the owners.

    The seconds the clients took together, and what they met.
    """
    names = [f"service-bench-{secrets.token_hex(4)}-{number}" for number in range(owners)]
    items = turn_items(conversation)
    half = len(items) // 2
    share = clients // owners
    tally = Tally()
    async with AsyncGraphMemClient(server.url, server.key) as admin:
        try:
            for owner in names:
                for chunk in batches(items[:half], batch):
                    await admin.observe_many(owner, chunk)
                await admin.recall(
                    owner, conversation.questions[0], at=conversation.asked_at, peek=True
                )
            sessions = [
                one_of_many(
                    server,
                    names[number % owners],
                    items[half:][number // owners :: share],
                    conversation,
                    first_question=number * 10,
                    tally=tally,
                )
                for number in range(clients)
            ]
            started = time.perf_counter()
            await asyncio.gather(*sessions)
            seconds = time.perf_counter() - started
        finally:
            for owner in names:
                await admin.forget(owner)
    return seconds, tally


def concurrency(
    store: list[str], conversation: Conversation, clients: int, owners: int, batch: int
) -> dict[str, Any]:
    """3 on a server started on the store's flags; its JSON."""
    before = cached_embeddings()
    with serving(store) as server:
        seconds, tally = asyncio.run(many_clients(server, conversation, clients, owners, batch))
    print(f"{clients} clients on {store[1]}: done", file=sys.stderr, flush=True)
    app = {"observe": server.app_seconds("observe"), "recall": server.app_seconds("recall")}
    app["recall"] = app["recall"][owners:]  # after the untimed recall of each owner
    requests = sum(len(tally.seconds[verb]) + tally.errors[verb] for verb in VERBS)
    return {
        "clients": clients,
        "owners": owners,
        "turns_preloaded_per_owner": len(conversation.turns) // 2,
        "requests": requests,
        "seconds": round(seconds, 2),
        "requests_per_second": round(requests / seconds, 1),
        "verbs": {
            verb: {
                "requests": len(tally.seconds[verb]) + tally.errors[verb],
                "errors": tally.errors[verb],
                **milliseconds(tally.seconds[verb]),
                "app": milliseconds(app[verb]),
            }
            for verb in VERBS
        },
        "errors": sum(tally.errors.values()),
        "error_messages": tally.messages,
        "recalls_cut_short": tally.cut_short,
        "embeddings_added": cached_embeddings() - before,
    }


# -- report ----------------------------------------------------------------------------------


def print_report(result: dict[str, Any]) -> None:
    """The tables of 1, 2 and 3."""
    recall = result["recall"]
    print(f"\nRecall, peek, {recall['questions']} questions, one client (ms):")
    print("| | p50 | p95 | p99 | mean |")
    print("|---|---|---|---|---|")
    for name in ("in_process", "http", "http_minus_in_process", "http_app"):
        row = recall[name]
        print(
            f"| {name} | {row['p50_ms']} | {row['p95_ms']} | {row['p99_ms']} | {row['mean_ms']} |"
        )
    print(f"same memories: {recall['same_memories']} of {recall['questions']} questions")
    smallest = recall["smallest_verb"]
    print(
        f"smallest verb over HTTP (statistics of nobody), p50: {smallest['back_to_back_p50_ms']} ms"
        f" back to back, {smallest['after_gap_p50_ms']} ms after {smallest['gap_ms']} ms of work"
    )
    print(f"targets: {recall['targets']}")
    imported = result["observe_many"]
    print(f"\nobserve_many, batches of {imported['batch']}:")
    print("| | turns | seconds | turns/s | runs (turns/s) |")
    print("|---|---|---|---|---|")
    for name in ("in_process", "http"):
        row = imported[name]
        runs = ", ".join(str(value) for value in row["runs_turns_per_second"])
        print(
            f"| {name} | {row['turns']} | {row['seconds']} | {row['turns_per_second']} | {runs} |"
        )
    print(
        f"HTTP / in process: {imported['http_share']} (medians of the runs:"
        f" {imported['http_share_of_median_runs']}); same counts: {imported['same_counts']}"
    )
    for name in ("batch_in_process", "batch_http", "batch_http_app"):
        print(f"{name}: {imported[name]}")
    print("\nMany clients:")
    print("| store | requests/s | verb | p50 / p95 / p99 ms | the app's p50 / p95 ms | errors |")
    print("|---|---|---|---|---|---|")
    for store, run in result["concurrency"].items():
        for verb, row in run["verbs"].items():
            app = row["app"]
            print(
                f"| {store} | {run['requests_per_second']} | {verb}"
                f" | {row['p50_ms']} / {row['p95_ms']} / {row['p99_ms']}"
                f" | {app['p50_ms']} / {app['p95_ms']} | {row['errors']} |"
            )
        print(
            f"  {store}: {run['requests']} requests in {run['seconds']} s,"
            f" {run['recalls_cut_short']} recalls cut short,"
            f" {run['embeddings_added']} embeddings added"
        )
        for message in run["error_messages"]:
            print(f"  {store}: {message}")
    print(f"\nembeddings added by 1 and 2: {result['embeddings_added']}")
    print(f"load average: {result['load_average_before']} -> {result['load_average_after']}")


def main() -> None:
    """Run 1, 2 and 3 (3 also on Neo4j with --neo4j), print the tables, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--conversation", default="conv-26")
    parser.add_argument("--batch", type=int, default=64, help="turns an observe_many")
    parser.add_argument("--repeats", type=int, default=10, help="imports of the conversation")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--owners", type=int, default=4, help="a divisor of --clients")
    parser.add_argument("--neo4j", action="store_true", help="also run 3 on Neo4j")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "service.json")
    arguments = parser.parse_args()
    if arguments.clients % arguments.owners:
        parser.error("--owners must divide --clients")
    conversations = [sample.conversation for sample in load(arguments.data)]
    ids = [conversation.sample_id for conversation in conversations]
    if arguments.conversation not in ids:
        parser.error(f"--conversation must be one of {ids}")
    index = ids.index(arguments.conversation)
    conversation = conversations[index]
    warm_up = conversations[(index + 1) % len(conversations)]
    started = datetime.now().astimezone()
    load_before = os.getloadavg()
    before = cached_embeddings()

    with tempfile.TemporaryDirectory() as folder:
        result: dict[str, Any] = {
            "data": str(arguments.data),
            "conversation": conversation.sample_id,
            "turns": len(conversation.turns),
            "started": started.isoformat(timespec="seconds"),
            "load_average_before": [round(value, 2) for value in load_before],
            "server": {"workers": 8, "rate": RATE, "burst": RATE, "key": "admin"},
            **one_client(conversation, warm_up, arguments.batch, arguments.repeats, Path(folder)),
            "embeddings_added": cached_embeddings() - before,
        }
        stores = {"networkx": file_store(Path(folder) / "clients.json")}
        if arguments.neo4j:
            stores["neo4j"] = ["--store", "neo4j"]
        result["concurrency"] = {
            name: concurrency(
                flags, conversation, arguments.clients, arguments.owners, arguments.batch
            )
            for name, flags in stores.items()
        }
    result["load_average_after"] = [round(value, 2) for value in os.getloadavg()]
    print_report(result)
    write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
