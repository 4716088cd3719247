"""What abuse costs `graphmem serve`: bodies without a key, slow clients, one key flooding.

    python benchmarks/abuse.py ../shared/data/locomo/locomo_dev.json [--recalls 200]
        [--flooders 8] [--slow 8] [--bodies 50] [--in-flight N] [--out benchmarks/abuse.json]

One `graphmem serve` as a user starts it (its default limits: `--in-flight 4` of `--workers 8`,
`--max-messages 100`, `--header-timeout 10`, `--body-timeout 30`, `--rate 50`; `--in-flight`
sets the server's, to see the flood without its cap), on an embedded
store in a temporary folder, offline cognition, e5 embeddings through locomo.py's cache (bob's
memory and questions come from it; the flood's texts are made new, so the flood embeds every one).
Keys: alice, bob and carol (each their own owner), made with `graphmem keys create` before it
starts (and an admin key, unused, which service.py's `serving` makes and revokes).
In one run:

1. Bodies without a key: `--bodies` POSTs of a 1 MB JSON body to alice's observe_many, no key.
   Each answer's status, the client's time, and the server's own time for it (from its log line,
   which the gate writes when the 401 is sent: no body read, none parsed).
2. Slow clients: `--slow` connections that send a request line, then a header line every 2 s and
   never end the headers; and `--slow` with carol's key that declare a body of 999,999 bytes and
   send one byte (past carol's cap on requests in flight, answered 429 at once). When the server
   closes each (or answers), from the first byte sent.
3. One key floods: bob's memory is the first conversation's turns. Bob's recall of its questions
   (peek, k 10, one at a time, after 30 untimed) is timed alone, then again while `--flooders`
   clients of alice send observe_many of the largest batch allowed (100 new messages) as fast as
   the server takes them (a 429 waits its Retry-After), once 4 of the flood's calls have been
   answered, then alone once more. Bob's p50/p95 in each phase and the ratio
   of the flood's p95 to the first alone; alice's calls answered, refused (429) and failed.
   Checks: every message of an answered call is stored once (alice's turns counted after), each
   of bob's recalls returns bob's memories only, and the server exits 0 when stopped.
"""

import argparse
import json
import select
import socket
import statistics
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from locomo import load, turn_item
from provenance import write_result
from service import ROOT, Server, graphmem, serving

BODY_BYTES = 1_000_000
"""The size of the bodies sent without a key (the default --max-body)."""
FLOOD_BATCH = 100
"""Messages an observe_many of the flood carries: the default --max-messages."""
FLOOD_STEADY = 4
"""Calls of the flood answered before bob's recalls are timed under it."""
WARM_UP = 30
"""Bob's recalls made, untimed, before the first timed ones."""
SLOW_LINE_SECONDS = 2.0
"""How often a slow client sends another header line."""


def milliseconds(seconds: list[float]) -> dict[str, float]:
    """p50, p95 and the largest of some durations, in milliseconds."""
    ordered = sorted(seconds)
    return {
        "count": len(ordered),
        "p50": round(1000 * statistics.median(ordered), 2),
        "p95": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        "max": round(1000 * ordered[-1], 2),
    }


def logged_ms(log: list[str], request_id: str) -> float:
    """The server's time for a request, from its log line."""
    [line] = [
        line for line in log if line.split(" INFO ")[-1].split(": ")[-1].startswith(request_id)
    ]
    return float(line.rsplit(" in ", 1)[1].removesuffix(" ms\n").removesuffix(" ms"))


def unauthenticated_bodies(server: Server, count: int) -> dict[str, Any]:
    """Send 1 MB bodies without a key; each status, and the client's and server's times."""
    body = json.dumps({"messages": [{"text": "x" * (BODY_BYTES - 100)}]}).encode()[:BODY_BYTES]
    statuses: list[int] = []
    client: list[float] = []
    ids: list[str] = []
    with httpx.Client(base_url=server.url, timeout=60) as http:
        for _ in range(count):
            request_id = uuid.uuid4().hex
            started = time.perf_counter()
            answer = http.post(
                "/v1/owners/alice/observe_many",
                content=body,
                headers={"Content-Type": "application/json", "X-Request-Id": request_id},
            )
            client.append(time.perf_counter() - started)
            statuses.append(answer.status_code)
            ids.append(request_id)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(
        any(i in line for line in server.log) for i in ids
    ):
        time.sleep(0.05)  # the log is read by another thread; wait for its last lines
    at_server = [logged_ms(server.log, request_id) / 1000 for request_id in ids]
    return {
        "statuses": sorted(set(statuses)),
        "client_ms": milliseconds(client),
        "server_ms": milliseconds(at_server),
    }


def slow_client(url: str, first: bytes, then: bytes | None) -> dict[str, Any]:
    """Send `first`, then `then` every SLOW_LINE_SECONDS until the server answers or closes."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=120) as connection:
        started = time.monotonic()
        connection.sendall(first)
        while time.monotonic() - started < 120:
            readable, _, _ = select.select([connection], [], [], SLOW_LINE_SECONDS)
            if readable:
                answer = connection.recv(65536)
                status = answer.split(b" ", 2)[1].decode() if answer else "closed"
                return {"seconds": round(time.monotonic() - started, 2), "answer": status}
            if then is not None:
                connection.sendall(then)
    return {"seconds": None, "answer": "still open after 120 s"}


def slow_clients(server: Server, count: int, key: str) -> dict[str, Any]:
    """Slow headers, and slow bodies with `key`, `count` of each at once: when each was dropped.

    The key's requests in flight are capped (4 by default): the slow bodies past the cap are
    answered 429 at once, the others 408 once the body timeout has passed.
    """
    headers = b"POST /v1/owners/bob/recall HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    body = (
        headers
        + f"Authorization: Bearer {key}\r\n".encode()
        + b"Content-Type: application/json\r\nContent-Length: 999999\r\n\r\n{"
    )
    results: dict[str, list[dict[str, Any]]] = {"headers": [], "body": []}

    def run(kind: str, first: bytes, then: bytes | None) -> None:
        results[kind].append(slow_client(server.url, first, then))

    threads = [
        threading.Thread(target=run, args=("headers", headers, b"X-Slow: 1\r\n"))
        for _ in range(count)
    ] + [threading.Thread(target=run, args=("body", body, None)) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        kind: {
            "answers": sorted({result["answer"] for result in done}),
            "seconds_max": max(
                float("inf") if result["seconds"] is None else result["seconds"] for result in done
            ),
        }
        for kind, done in results.items()
    }


def timed_recalls(url: str, key: str, questions: list[str]) -> tuple[list[float], int]:
    """Bob's recalls one at a time: each one's seconds, and how many returned another's memory."""
    seconds: list[float] = []
    foreign = 0
    with httpx.Client(
        base_url=url, timeout=300, headers={"Authorization": f"Bearer {key}"}
    ) as http:
        for question in questions:
            started = time.perf_counter()
            answer = http.post("/v1/owners/bob/recall", json={"query": question, "peek": True})
            seconds.append(time.perf_counter() - started)
            answer.raise_for_status()
            owners = {item["memory"]["owner"] for item in answer.json()["recall"]["memories"]}
            foreign += owners != {"bob"}
    return seconds, foreign


@dataclass
class Flood:
    """Alice's flood: what the server answered, and the messages it took."""

    lock: threading.Condition
    """Held to count; told of each call answered (the measurement waits for a steady flood)."""
    answered: int = 0
    refused: int = 0
    failed: int = 0
    stored_messages: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    """What each failed call got: `HTTP <status> <code>`, or the client's exception."""


def flood(url: str, key: str, stop: threading.Event, tally: Flood) -> None:
    """Send observe_many of FLOOD_BATCH new messages as fast as the server takes them."""
    with httpx.Client(
        base_url=url, timeout=600, headers={"Authorization": f"Bearer {key}"}
    ) as http:
        while not stop.is_set():
            messages = [
                {
                    "text": f"Flood note {uuid.uuid4().hex}: the {n}th thing.",
                    "message_id": uuid.uuid4().hex,
                }
                for n in range(FLOOD_BATCH)
            ]
            try:
                answer = http.post("/v1/owners/alice/observe_many", json={"messages": messages})
            except httpx.HTTPError as error:
                with tally.lock:
                    tally.failed += 1
                    tally.failures[type(error).__name__] += 1
                continue
            with tally.lock:
                if answer.status_code == 200:
                    tally.answered += 1
                    tally.stored_messages += len(messages)
                    tally.lock.notify_all()
                elif answer.status_code == 429:
                    tally.refused += 1
                else:
                    tally.failed += 1
                    tally.failures[f"HTTP {answer.status_code} {answer.text[:120]}"] += 1
            if answer.status_code == 429:
                stop.wait(float(answer.headers.get("retry-after", "1")))


def main() -> None:
    """Run the three parts on one server, print a table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--recalls", type=int, default=200)
    parser.add_argument("--flooders", type=int, default=8)
    parser.add_argument("--slow", type=int, default=8)
    parser.add_argument("--bodies", type=int, default=50)
    parser.add_argument(
        "--in-flight", type=int, help="serve --in-flight (default: the server's, 4)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "abuse.json")
    arguments = parser.parse_args()
    conversation = load(arguments.data, 1)[0].conversation
    questions = (conversation.questions * 10)[: arguments.recalls]
    result: dict[str, Any] = {
        "data": str(arguments.data),
        "conversation": conversation.sample_id,
    }
    with tempfile.TemporaryDirectory() as folder:
        store = ["--store", "networkx", "--path", str(Path(folder) / "graph.json")]
        alice = json.loads(graphmem("keys", "create", "--owner", "alice", "--json", *store))
        bob = json.loads(graphmem("keys", "create", "--owner", "bob", "--json", *store))
        carol = json.loads(graphmem("keys", "create", "--owner", "carol", "--json", *store))
        flags = [] if arguments.in_flight is None else ["--in-flight", str(arguments.in_flight)]
        result["serve_flags"] = flags
        with serving(store, flags) as server:
            with httpx.Client(base_url=server.url, timeout=600) as http:
                items = [
                    {**turn_item(turn), "at": turn.at.isoformat()} for turn in conversation.turns
                ]
                for start in range(0, len(items), FLOOD_BATCH):
                    http.post(
                        "/v1/owners/bob/observe_many",
                        json={"messages": items[start : start + FLOOD_BATCH]},
                        headers={"Authorization": f"Bearer {bob['secret']}"},
                    ).raise_for_status()
            result["unauthenticated_1mb"] = unauthenticated_bodies(server, arguments.bodies)
            result["slow_clients"] = slow_clients(server, arguments.slow, carol["secret"])
            timed_recalls(server.url, bob["secret"], questions[:WARM_UP])
            alone, foreign = timed_recalls(server.url, bob["secret"], questions)
            stop, tally = threading.Event(), Flood(threading.Condition())
            flooders = [
                threading.Thread(target=flood, args=(server.url, alice["secret"], stop, tally))
                for _ in range(arguments.flooders)
            ]
            for thread in flooders:
                thread.start()
            try:
                with tally.lock:  # measured once the flood is steady: its first batches answered
                    tally.lock.wait_for(lambda: tally.answered >= FLOOD_STEADY, timeout=600)
                flooded, foreign_flooded = timed_recalls(server.url, bob["secret"], questions)
            finally:
                stop.set()
                for thread in flooders:
                    thread.join()
            after, foreign_after = timed_recalls(server.url, bob["secret"], questions)
            with httpx.Client(base_url=server.url, timeout=600) as http:
                counts = http.get(
                    "/v1/owners/alice/statistics",
                    headers={"Authorization": f"Bearer {alice['secret']}"},
                ).json()
    result["flood"] = {
        "bob_recall_alone_ms": milliseconds(alone),
        "bob_recall_flooded_ms": milliseconds(flooded),
        "bob_recall_after_ms": milliseconds(after),
        "p95_ratio": round(milliseconds(flooded)["p95"] / milliseconds(alone)["p95"], 2),
        "alice": {
            "answered": tally.answered,
            "refused": tally.refused,
            "failed": tally.failed,
            "stored_messages": tally.stored_messages,
            "failures": dict(tally.failures),
        },
        "p95_ratio_to_after": round(milliseconds(flooded)["p95"] / milliseconds(after)["p95"], 2),
        "alice_turns_stored": counts["nodes"].get("Turn", 0),
        "cross_owner_answers": foreign + foreign_flooded + foreign_after,
    }
    result["crashes"] = 0  # serving() raises when the server does not exit 0
    # The lines of the server's log that report an error (a 5xx is logged with its traceback).
    result["server_errors"] = [
        line.rstrip() for line in server.log if "Traceback" in line or "Error" in line
    ][:20]
    print_table(result)
    write_result(arguments.out, result, [arguments.data])


def print_table(result: dict[str, Any]) -> None:
    """The figures as a table."""
    bodies = result["unauthenticated_1mb"]
    slow = result["slow_clients"]
    flooded = result["flood"]
    rows = [
        ("1 MB bodies without a key: statuses", bodies["statuses"]),
        ("  server ms p50 / p95 / max", _three(bodies["server_ms"])),
        ("  client ms p50 / p95 / max", _three(bodies["client_ms"])),
        (
            "slow headers: answers, dropped within s",
            (slow["headers"]["answers"], slow["headers"]["seconds_max"]),
        ),
        (
            "slow bodies: answers, dropped within s",
            (slow["body"]["answers"], slow["body"]["seconds_max"]),
        ),
        ("bob's recall alone ms p50 / p95", _two(flooded["bob_recall_alone_ms"])),
        ("bob's recall under alice's flood ms p50 / p95", _two(flooded["bob_recall_flooded_ms"])),
        ("bob's recall after ms p50 / p95", _two(flooded["bob_recall_after_ms"])),
        (
            "p95 flooded / alone before, / alone after",
            (flooded["p95_ratio"], flooded["p95_ratio_to_after"]),
        ),
        (
            "alice: answered / refused 429 / failed",
            (flooded["alice"]["answered"], flooded["alice"]["refused"], flooded["alice"]["failed"]),
        ),
        (
            "alice: messages answered / turns stored",
            (flooded["alice"]["stored_messages"], flooded["alice_turns_stored"]),
        ),
        ("cross-owner answers, crashes", (flooded["cross_owner_answers"], result["crashes"])),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


def _three(figures: dict[str, float]) -> str:
    """p50 / p95 / max."""
    return f"{figures['p50']} / {figures['p95']} / {figures['max']}"


def _two(figures: dict[str, float]) -> str:
    """p50 / p95."""
    return f"{figures['p50']} / {figures['p95']}"


if __name__ == "__main__":
    main()
