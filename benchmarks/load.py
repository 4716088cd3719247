"""Many agents at once over HTTP on Neo4j, and faults under that load (issue 44 item 6).

    python benchmarks/load.py DATA.json [--clients 1,8,32,64] [--processes 1,2] [--turns 12]
        [--fault-clients 8] [--fault-turns 24] [--parts load,faults]
        [--out benchmarks/load.json]

Neo4j is the one GRAPHMEM_NEO4J_URI and GRAPHMEM_NEO4J_PASSWORD name. The fault part restarts
it with scripts/neo4j, which reads GRAPHMEM_NEO4J_HOME, _BOLT_PORT, _HTTP_PORT, _HEAP and
_PAGE_CACHE; the script refuses unless GRAPHMEM_NEO4J_HOME is set and the URI's port is
GRAPHMEM_NEO4J_BOLT_PORT, so that it restarts the Neo4j it uses and no other.

Each client is an agent's turn loop, an AsyncGraphMemClient per server, all in this process
(asyncio): observe the user's message (a LoCoMo dev turn, with its message id, time, speaker
and session), recall with that message as the query (k 10, waking, as an agent recalls before
it answers, at the message's time), observe the answer (the next turn of the conversation, the
other speaker's but where LoCoMo has one speaker twice in a row). A client sends its requests to
the servers in turn, as a round-robin load balancer does: with 2 processes consecutive requests
of one owner go to different processes. Each client has its own owner, named
load-bench-<random>-<part>-<n> and forgotten at the end: one agent's conversation is sequential,
many users are many owners, and with one writer an owner's inputs come in a fixed order, which
the fault part needs to compare graphs (service.py measured several clients on one owner).
Every owner holds a stretch of its own of the dev set's turns (consecutive, within one
conversation; no text is twice in the dev set), so a text names its owner: texts are not
tagged with the owner, which would defeat the embedding cache and put e5 in the timed path.
Offline cognition; e5 embeddings through locomo.py's cache (.cache/locomo-embeddings.sqlite):
the query embeddings of the user messages are put in it before any run, untimed, and the JSON
counts the embeddings each level still added, by purpose.
Servers: `graphmem serve` on Neo4j as service.py starts them (8 workers, the rate limiter
raised out of the way), with one admin key made by `graphmem keys create --admin` before and
revoked at the end.

Load (--clients, --processes, --turns): for each number of processes (servers started once),
for each number of clients, fresh owners, each preloaded (untimed, observe_many) with the turns
of its stretch that come before its turn loops, and recalled once in peek mode; then every
client runs --turns turn loops at once. The stretches are as long as the dev set allows for the
most clients (41 turns for 64: 17 preloaded and 24 in 12 loops), alike at every level. Measured:
turn loops and requests a second over the level's wall time; p50/p95/p99 per verb around the
client's call, and of the server's own time (its log line of each request); errors per verb
(clients with retries 0, so that whatever the default client would retry counts as an error;
each error's message says how long that client's connection to the server had been idle);
recalls cut short by their time budget. Checked from each owner's export after the level: each
turn expected is stored exactly once (none lost, none twice, none unexpected, none pending, one
observation memory derived from each; a turn whose observe failed, and was not sent again, is
counted apart from the lost); cross-owner reads: a recalled memory or turn that is another
owner's or holds another owner's text; isolation: no node of an owner's graph is another
owner's or holds a text of another owner's stretch (searched as substrings, since summaries
quote their turns; a text that is part of one of the owner's own tells nothing and is left out).

Faults (--fault-clients, --fault-turns), on 2 processes: clients that insist, as an agent's
loop would: retries 0 in the client, and the loop sends a request that met a server it could
not reach, a 5xx or a 429 again, with the same message id, to the next server after a pause of
PAUSE; a server it could not reach is left out for the rest of the run (until all were). Runs,
one after the other on the same owners (forgotten between runs), each with 2 new servers:
reference (undisturbed, offline cognition); kill (one server SIGKILLed once a third of the turn
loops are done); neo4j (Neo4j restarted at that point with scripts/neo4j); reference-model and
model (the servers' cognition is OpenAI's, pointed at a scripted server on 127.0.0.1 in this
process that answers as the offline cognition; in the model run, from a third of the loops on,
it answers MODEL_ERRORS requests with 500 and then leaves MODEL_HANGS hanging, with the servers'
timeout at 1 s and 1 retry). Counted: failed requests by verb and kind (each retried), requests
in flight to each server when the fault struck, statuses the servers answered (their logs),
requests held over 5 s, turns observed pending. Then `graphmem consolidate --all` (offline) at
one moment, a day after the last turn, for the run's owners, and each owner's export checked as
above and compared with the reference's: in full (test_sleep_crash's canonical form: every
node's fields, every edge with its weight) and in shape (the turns, the memories by kind, time
and text, the edges by type: values aside); the model run with reference-model, and that with
reference (the model server's answers are the offline cognition's). The owners' names are
the same in every run because node ids derive from the owner and ties are broken by id (edges
of equal weight in a wake-up, memories of one time, as a LoCoMo session's turns are, in the
sleep job): the same inputs under other names can end in another graph.

One script, in sections (the agents; the servers; sending; checks; the load part; the fault
part; the report): both parts run the same agents against the same servers and are checked by
the same functions, and each part is one section, read on its own.
"""

import argparse
import asyncio
import json
import os
import re
import secrets
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence, Set
from contextlib import asynccontextmanager, closing, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

from locomo import CACHE, Conversation, DialogueTurn, load, turn_item
from provenance import write_result
from service import (
    LOGGED,
    RATE,
    ROOT,
    VERBS,
    Server,
    Tally,
    batches,
    drain,
    environment,
    free_port,
    graphmem,
    milliseconds,
    wait_ready,
)

from graphmem.client import AsyncGraphMemClient
from graphmem.cognition.offline import OfflineCognition
from graphmem.config import Settings
from graphmem.contract import Observation, OwnerGraph, Recall
from graphmem.embedding import CachedEmbedder, E5Embedder
from graphmem.errors import GraphMemError, ModelError, RequestRefusedError, StoreError
from graphmem.memory import GraphMem
from graphmem.model import Memory, MemoryKind, Node, Turn
from graphmem.scoring import QUERY_EMBEDDING_CHARS
from graphmem.testing import Reply, chat_reply, offline_answer, scripted_openai_server
from tests.test_sleep_crash import node_key

T = TypeVar("T")
Request = Callable[[AsyncGraphMemClient], Awaitable[T]]
"""One request of a verb, sent through whichever server's client it is given."""

STATUS = re.compile(r" -> (\d{3}) in [\d.]+ ms$")
"""A server's log line of a request: its status."""
TRANSIENT = (StoreError, ModelError, RequestRefusedError)
"""Errors an insisting client sends its request again after: a server unreachable or
answering 5xx or 429 (StoreUnavailableError is a StoreError)."""
SLOW = 5.0
"""Seconds over which an answered request of a fault run counts as held up."""
NEO4J = ["--store", "neo4j"]
"""The store flags of every graphmem command here."""
K = 10
"""Memories a recall asks for."""
PRELOAD_BATCH = 64
"""Turns an untimed observe_many of the preload."""
AT_ONCE = 4
"""Owners preloaded, checked or forgotten at once (untimed work)."""
PAUSE = 0.5
"""Seconds an insisting client waits before it sends a failed request again."""
GIVE_UP = 300.0
"""Seconds after which an insisting client gives a request up (counted; never met here)."""
FAULT_AT = 1 / 3
"""Share of a fault run's turn loops done when the fault strikes."""
MODEL_ERRORS = 40
"""Model requests answered 500 once the model fault strikes."""
MODEL_HANGS = 10
"""Model requests then left hanging."""
MODEL_SETTINGS = {
    "GRAPHMEM_COGNITION": "openai",
    "GRAPHMEM_OPENAI_API_KEY": "sk-load-bench",
    "GRAPHMEM_OPENAI_TIMEOUT_SECONDS": "1",
    "GRAPHMEM_OPENAI_MAX_RETRIES": "1",
    "GRAPHMEM_OPENAI_BACKOFF_SECONDS": "0.05",
}
"""The servers' cognition in the model runs (with GRAPHMEM_OPENAI_BASE_URL of the script's
model server): a short timeout and one retry, so a fault fails a call soon."""


def cached_by_purpose() -> Counter[str]:
    """How many embeddings the e5 cache holds for each purpose (query, passage)."""
    with closing(sqlite3.connect(CACHE)) as database:
        keys = database.execute("SELECT key FROM embedding").fetchall()
    return Counter(str(key).split("|")[1] for (key,) in keys)


def load_average() -> float:
    """The 1-minute load average."""
    return round(os.getloadavg()[0], 2)


def note(text: str) -> None:
    """A progress line on standard error."""
    print(text, file=sys.stderr, flush=True)


# -- the agents ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Agent:
    """One client's owner, the turns preloaded into it, and its turn loops (message, answer)."""

    owner: str
    preload: list[DialogueTurn]
    loops: list[tuple[DialogueTurn, DialogueTurn]]

    @property
    def turns(self) -> list[DialogueTurn]:
        """Every turn the owner should end with, in order."""
        return self.preload + [turn for pair in self.loops for turn in pair]


def stretches(conversations: list[Conversation], length: int) -> list[list[DialogueTurn]]:
    """Consecutive stretches of `length` turns: every conversation's first, then its second..."""
    cut = [
        [turns[start : start + length] for start in range(0, len(turns) - length + 1, length)]
        for turns in (conversation.turns for conversation in conversations)
    ]
    return [
        each[number] for number in range(max(map(len, cut))) for each in cut if number < len(each)
    ]


def longest_stretch(conversations: list[Conversation], count: int) -> int:
    """The longest stretch length of which the conversations hold `count` stretches."""
    length = max(len(conversation.turns) for conversation in conversations)
    while length > 1 and len(stretches(conversations, length)) < count:
        length -= 1
    return length


def agents(
    conversations: list[Conversation], prefix: str, count: int, length: int, loops: int
) -> list[Agent]:
    """`count` agents, owner `prefix`<n>, each a stretch of `length` turns ending in its loops."""
    found = stretches(conversations, length)
    if len(found) < count or 2 * loops > length:
        raise SystemExit(f"the data holds no {count} stretches of {length} >= {2 * loops} turns")
    made = []
    for number, stretch in enumerate(found[:count]):
        preload = length - 2 * loops
        turns = stretch[preload:]
        pairs = list(zip(turns[::2], turns[1::2], strict=True))
        made.append(Agent(f"{prefix}{number}", stretch[:preload], pairs))
    return made


def owner_of_texts(group: list[Agent]) -> dict[str, str]:
    """Each text of the agents' stretches and its owner."""
    return {turn.text: agent.owner for agent in group for turn in agent.turns}


def embed_queries(texts: list[str]) -> int:
    """Put the query embedding of each text in the benchmark's cache; how many were computed."""
    embedder = CachedEmbedder(E5Embedder(), CACHE)
    focuses = sorted({text.strip()[:QUERY_EMBEDDING_CHARS] for text in texts})
    for start in range(0, len(focuses), 32):
        embedder.embed(focuses[start : start + 32], "query")
    computed = embedder.computed
    embedder.close()
    return computed


# -- the servers -----------------------------------------------------------------------------


@dataclass
class Served:
    """A `graphmem serve` on Neo4j that this script started, and may kill."""

    server: Server
    process: "subprocess.Popen[str]"
    reader: threading.Thread


def start_server(key: str, environ: dict[str, str]) -> Served:
    """Start `graphmem serve` on Neo4j with this environment; return once it is ready."""
    port = free_port()
    limits = ["--rate", str(RATE), "--burst", str(RATE), "--in-flight", str(RATE)]
    process = subprocess.Popen(  # noqa: S603 (our venv's python, no shell)
        [sys.executable, "-m", "graphmem", "serve", "--port", str(port), *limits, *NEO4J],
        cwd=ROOT,
        env=environ,
        stderr=subprocess.PIPE,
        text=True,
    )
    log: list[str] = []
    wait_ready(process, log)
    reader = threading.Thread(target=drain, args=(process.stderr, log), daemon=True)
    reader.start()
    return Served(Server(f"http://127.0.0.1:{port}", key, log), process, reader)


def stop_server(served: Served) -> int:
    """Stop a server as Ctrl-C does (if it still runs); its exit code."""
    if served.process.poll() is None:
        served.process.terminate()
    code = served.process.wait(timeout=60)
    served.reader.join(timeout=10)
    return code


@contextmanager
def servers(count: int, key: str, environ: dict[str, str]) -> Iterator[list[Served]]:
    """`count` servers for the block; SystemExit if one that was not killed ends badly."""
    started: list[Served] = []
    try:
        for _number in range(count):
            started.append(start_server(key, environ))
        yield started
    finally:
        codes = [stop_server(served) for served in started]
        bad = [code for code in codes if code not in (0, -9)]
        if bad:
            raise SystemExit(f"graphmem serve ended with {bad}")


def app_times(lines: list[str], verb: str) -> list[float]:
    """The seconds the app took for each request to an owner's verb, from log lines."""
    found = [LOGGED.search(line.rstrip()) for line in lines]
    return [float(match[2]) / 1000 for match in found if match and match[1] == verb]


def statuses(lines: list[str]) -> dict[str, int]:
    """How many requests the servers answered with each status, from their log lines."""
    found = Counter(match[1] for line in lines if (match := STATUS.search(line.rstrip())))
    return dict(sorted(found.items()))


def restart_neo4j() -> float:
    """Restart Neo4j with scripts/neo4j (its environment names it); the seconds it took."""
    started = time.perf_counter()
    done = subprocess.run(  # noqa: S603 (our own script, no shell)
        [str(ROOT / "scripts" / "neo4j"), "restart"],
        env=os.environ,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"scripts/neo4j restart failed: {done.stderr}")
    return time.perf_counter() - started


# -- sending ---------------------------------------------------------------------------------


@dataclass
class Insisting:
    """What insisting clients met: each failed attempt (sent again) by verb and kind."""

    failed: Counter[str] = field(default_factory=Counter)
    in_flight: list[int] = field(default_factory=list)
    """Requests sent to each server and not answered yet."""
    longest: float = 0.0
    """Seconds from the first try to the answer of the request that insisted longest."""
    gave_up: int = 0
    messages: list[str] = field(default_factory=list)
    """The first few failures' messages."""


def failure_kind(error: GraphMemError) -> tuple[str, bool]:
    """What failed (the server's error, or httpx's on the connection); whether unreachable."""
    cause = error.__context__
    if cause is not None and type(cause).__module__.startswith("httpx"):
        return type(cause).__name__, True  # ConnectError, RemoteProtocolError, ReadTimeout...
    return type(error).__name__, False


@dataclass
class Route:
    """A client's connection to each server, used in turn; the servers it found unreachable."""

    clients: list[AsyncGraphMemClient]
    tally: Tally
    insisting: Insisting | None = None
    """None: each request is sent once and an error counted; else sent until answered."""
    next_server: int = 0
    down: set[int] = field(default_factory=set)
    answered: dict[int, float] = field(default_factory=dict)
    """When each server last answered (or failed) this client: its connection idle since."""

    def choose(self) -> int:
        """The next server in turn that is not down (every server again when all are)."""
        if len(self.down) == len(self.clients):
            self.down.clear()
        while self.next_server % len(self.clients) in self.down:
            self.next_server += 1
        chosen = self.next_server % len(self.clients)
        self.next_server += 1
        return chosen

    async def send(self, verb: str, request: Request[T]) -> T | None:
        """Send a request of a verb; its answer, or None after an error (load part)."""
        if self.insisting is None:
            return await self.once(verb, request)
        return await self.insist(verb, request, self.insisting)

    async def once(self, verb: str, request: Request[T]) -> T | None:
        """Send a request once, noting its seconds, or its error and what failed (then None)."""
        server = self.choose()
        started = time.perf_counter()
        idle = started - self.answered.get(server, started)
        try:
            answer = await request(self.clients[server])
        except GraphMemError as error:
            self.tally.errors[verb] += 1
            if len(self.tally.messages) < 10:
                kind, _unreachable = failure_kind(error)
                self.tally.messages.append(
                    f"{verb} on server {server}, its connection idle {idle:.2f} s, failed after"
                    f" {time.perf_counter() - started:.2f} s: {kind}: {error}"
                )
            return None
        finally:
            self.answered[server] = time.perf_counter()
        self.tally.seconds[verb].append(time.perf_counter() - started)
        return answer

    async def insist(self, verb: str, request: Request[T], insisting: Insisting) -> T | None:
        """Send a request until a server answers it, the next server after each failure."""
        started = time.perf_counter()
        while True:
            server = self.choose()
            insisting.in_flight[server] += 1
            try:
                answer = await request(self.clients[server])
            except GraphMemError as error:
                kind, unreachable = failure_kind(error)
                if len(insisting.messages) < 10:
                    insisting.messages.append(f"{verb} on server {server}: {kind}: {error}")
                if not isinstance(error, TRANSIENT):
                    self.tally.errors[verb] += 1
                    insisting.failed[f"{verb}: {kind} (not retried)"] += 1
                    return None
                insisting.failed[f"{verb}: {kind}"] += 1
                if unreachable:
                    self.down.add(server)
                if time.perf_counter() - started > GIVE_UP:
                    insisting.gave_up += 1
                    self.tally.errors[verb] += 1
                    return None
                await asyncio.sleep(PAUSE)
                continue
            finally:
                insisting.in_flight[server] -= 1
            seconds = time.perf_counter() - started
            self.tally.seconds[verb].append(seconds)
            insisting.longest = max(insisting.longest, seconds)
            return answer


@dataclass
class Progress:
    """Turn loops done so far by all clients, and what the recalls returned."""

    loops: int = 0
    failed_observes: set[tuple[str, str]] = field(default_factory=set)
    """(owner, turn id) of each observe that failed and was not sent again (load part)."""
    pending: int = 0
    """Turns observed pending (the model failed): stored, their memories derived later."""
    reads: int = 0
    """Recalled memories and their turns checked for their owner."""
    cross_owner: list[str] = field(default_factory=list)
    """Each recalled memory or turn of another owner (or with another owner's text)."""


def check_recall(found: Recall, owner: str, owners: dict[str, str], progress: Progress) -> None:
    """Note every recalled memory or turn that is another owner's or holds its text."""
    for item in found.memories:
        nodes: list[Node] = [item.memory, *item.turns]
        for node in nodes:
            progress.reads += 1
            whose = owners.get(node.text, owner)
            if node.owner != owner or whose != owner:
                progress.cross_owner.append(f"{owner} recalled {node.owner}'s {node.id}")


def observing(owner: str, turn: DialogueTurn) -> Request[Observation]:
    """The request that observes a turn (with its message id, time, speaker and session)."""
    return lambda client: client.observe(owner, **turn_item(turn))


def recalling(owner: str, turn: DialogueTurn) -> Request[Recall]:
    """The request that recalls with a turn's text at its time, waking, as an agent recalls."""
    return lambda client: client.recall(owner, turn.text, k=K, at=turn.at)


async def turn_loops(
    agent: Agent, route: Route, owners: dict[str, str], progress: Progress
) -> None:
    """One client: observe the message, recall with it, observe the answer; loop after loop."""
    for message, answer in agent.loops:
        seen = await route.send("observe", observing(agent.owner, message))
        found = await route.send("recall", recalling(agent.owner, message))
        if found is not None:
            check_recall(found, agent.owner, owners, progress)
            route.tally.cut_short += bool(found.cut_short)
        replied = await route.send("observe", observing(agent.owner, answer))
        for turn, observed in ((message, seen), (answer, replied)):
            if observed is None:
                progress.failed_observes.add((agent.owner, turn.id))
            progress.pending += bool(observed and observed.pending)
        progress.loops += 1


@asynccontextmanager
async def admin_clients(group: list[Served]) -> AsyncIterator[list[AsyncGraphMemClient]]:
    """A default client (with retries) of each server still running, for the untimed work."""
    alive = [served for served in group if served.process.poll() is None]
    admins = [AsyncGraphMemClient(served.server.url, served.server.key) for served in alive]
    try:
        yield admins
    finally:
        for admin in admins:
            await admin.close()


def routes(
    group: list[Served], count: int, tally: Tally, insisting: Insisting | None = None
) -> list[Route]:
    """A route for each of `count` clients (retries 0), each starting at another server."""
    return [
        Route(
            [AsyncGraphMemClient(s.server.url, s.server.key, retries=0) for s in group],
            tally,
            insisting,
            next_server=number,
        )
        for number in range(count)
    ]


async def close(made: list[Route]) -> None:
    """Close the routes' clients."""
    for route in made:
        for client in route.clients:
            await client.close()


async def bounded(calls: Sequence[Callable[[], Awaitable[T]]]) -> list[T]:
    """Run calls AT_ONCE at a time; their results in order."""
    limit = asyncio.Semaphore(AT_ONCE)

    async def one(call: Callable[[], Awaitable[T]]) -> T:
        async with limit:
            return await call()

    return await asyncio.gather(*(one(call) for call in calls))


async def preload(admins: list[AsyncGraphMemClient], group: list[Agent]) -> None:
    """Observe each agent's preload (observe_many) and recall once in peek mode: untimed."""

    async def one(number: int, agent: Agent) -> None:
        client = admins[number % len(admins)]
        for chunk in batches([turn_item(turn) for turn in agent.preload], PRELOAD_BATCH):
            await client.observe_many(agent.owner, chunk)
        first = agent.loops[0][0]
        await admins[(number + 1) % len(admins)].recall(
            agent.owner, first.text, k=K, at=first.at, peek=True
        )

    await bounded([partial(one, number, agent) for number, agent in enumerate(group)])


async def exports(admin: AsyncGraphMemClient, group: list[Agent]) -> dict[str, OwnerGraph]:
    """Each agent's owner's graph."""
    graphs = await bounded([partial(admin.export, agent.owner) for agent in group])
    return {agent.owner: graph for agent, graph in zip(group, graphs, strict=True)}


async def forget(admin: AsyncGraphMemClient, owners: list[str]) -> None:
    """Forget the owners."""
    await bounded([partial(admin.forget, owner) for owner in owners])


# -- checks ----------------------------------------------------------------------------------


def stored_once(
    graphs: dict[str, OwnerGraph],
    group: list[Agent],
    unacknowledged: Set[tuple[str, str]] = frozenset(),
) -> dict[str, int]:
    """Every turn expected stored exactly once, with one observation memory derived from it.

    `unacknowledged`: (owner, turn id) of the turns whose observe failed and was not sent again
    (load part): one of them missing was never acknowledged, and is counted apart.
    """
    counts: Counter[str] = Counter()
    for agent in group:
        graph = graphs[agent.owner]
        expected = [turn.id for turn in agent.turns]
        turns = Counter(node.id for node in graph.nodes if isinstance(node, Turn))
        observations = {
            node.id
            for node in graph.nodes
            if isinstance(node, Memory) and node.kind == MemoryKind.OBSERVATION
        }
        derived = Counter(
            link.target
            for _source, target, link in graph.links
            if link.type.value == "FROM" and link.source in observations and target == "Turn"
        )
        counts["expected"] += len(expected)
        counts["stored"] += sum(turns.values())
        missing = [turn_id for turn_id in expected if turn_id not in turns]
        unsent = sum((agent.owner, turn_id) in unacknowledged for turn_id in missing)
        counts["lost"] += len(missing) - unsent
        counts["missing_after_a_failed_observe"] += unsent
        counts["doubled"] += sum(number - 1 for number in turns.values() if number > 1)
        counts["unexpected"] += len(set(turns) - set(expected))
        counts["pending"] += sum(
            node.pending for node in graph.nodes if isinstance(node, Turn) and node.pending
        )
        counts["derived_twice"] += sum(number > 1 for number in derived.values())
        counts["not_derived"] += sum(turn_id not in derived for turn_id in turns)
    return dict(counts)


def isolation(graphs: dict[str, OwnerGraph], group: list[Agent]) -> dict[str, Any]:
    """Nodes of each owner's graph that are another owner's or hold another owner's text.

    A text of another owner that is part of one of the owner's own ("Jon: Thanks!" of "Jon:
    Thanks! I rehearsed...", which an event's storyline may hold cut short) tells nothing: it
    is left out, and counted.
    """
    texts = {agent.owner: [turn.text for turn in agent.turns] for agent in group}
    found: list[str] = []
    nodes = unclear = 0
    for owner, graph in graphs.items():
        nodes += len(graph.nodes)
        found += [
            f"{owner} holds {node.owner}'s {node.id}" for node in graph.nodes if node.owner != owner
        ]
        whole = "\n".join(node.text for node in graph.nodes)
        own = "\n".join(texts[owner])
        for other, theirs in texts.items():
            if other == owner:
                continue
            telling = [text for text in theirs if text not in own]
            unclear += len(theirs) - len(telling)
            found += [f"{owner} holds {text!r} of {other}" for text in telling if text in whole]
    return {
        "owners": len(graphs),
        "nodes": nodes,
        "foreign": len(found),
        "examples": found[:5],
        "texts_left_out": unclear,
    }


Lines = list[tuple[str, str]]
"""A graph as sorted (kind, line) pairs: "observation node", "RELATED edge"..."""


def canonical(graph: OwnerGraph) -> Lines:
    """The graph in full, owners and derived ids replaced by node names (test_sleep_crash)."""
    names = {node.id: node_key(node) for node in graph.nodes}
    nodes = [
        (
            f"{names[node.id].split()[0]} node",
            f"{names[node.id]} {node.model_dump_json(exclude={'id', 'owner'})}",
        )
        for node in graph.nodes
    ]
    links = [
        (
            f"{link.type.value} edge",
            f"{names[link.source]} -({link.weight}, {link.sufficiency})-> {names[link.target]}",
        )
        for _source, _target, link in graph.links
    ]
    return sorted(nodes + links)


def shape(graph: OwnerGraph) -> Lines:
    """The graph's nodes by name and its edges by type between them, values aside."""
    names = {node.id: node_key(node) for node in graph.nodes}
    nodes = [(f"{name.split()[0]} node", name) for name in names.values()]
    links = [
        (f"{link.type.value} edge", f"{names[link.source]} -> {names[link.target]}")
        for _source, _target, link in graph.links
    ]
    return sorted(nodes + links)


def differences(ours: Lines, wanted: Lines) -> Counter[str]:
    """Lines that only one of two graphs has, by kind."""
    return Counter(kind for kind, _line in set(ours) ^ set(wanted))


def compared(graphs: dict[str, OwnerGraph], reference: dict[str, OwnerGraph]) -> dict[str, Any]:
    """Owners whose graph is the reference's, in full and in shape; lines differing, by kind."""
    full: Counter[str] = Counter()
    shaped: Counter[str] = Counter()
    same = Counter[str]()
    for owner, graph in graphs.items():
        in_full = differences(canonical(graph), canonical(reference[owner]))
        in_shape = differences(shape(graph), shape(reference[owner]))
        same["full"] += not in_full
        same["shape"] += not in_shape
        full += in_full
        shaped += in_shape
    return {
        "owners": len(graphs),
        "same_in_full": same["full"],
        "same_in_shape": same["shape"],
        "lines_differing_in_full": dict(full.most_common()),
        "lines_differing_in_shape": dict(shaped.most_common()),
    }


# -- the load part ---------------------------------------------------------------------------


async def load_level(group: list[Served], clients: list[Agent]) -> dict[str, Any]:
    """One level: preload the owners, run every client's turn loops at once, check, forget."""
    owners = owner_of_texts(clients)
    tally, progress = Tally(), Progress()
    async with admin_clients(group) as admins:
        try:
            await preload(admins, clients)
            marks = [len(served.server.log) for served in group]
            before, load_before = cached_by_purpose(), load_average()
            made = routes(group, len(clients), tally)
            started = time.perf_counter()
            await asyncio.gather(
                *(
                    turn_loops(agent, route, owners, progress)
                    for agent, route in zip(clients, made, strict=True)
                )
            )
            seconds = time.perf_counter() - started
            load_after, added = load_average(), cached_by_purpose() - before
            await close(made)
            await asyncio.sleep(0.5)  # the servers' last log lines of the level
            lines = [
                line
                for served, mark in zip(group, marks, strict=True)
                for line in served.server.log[mark:]
            ]
            graphs = await exports(admins[0], clients)
        finally:
            await forget(admins[0], [agent.owner for agent in clients])
    requests = sum(len(tally.seconds[verb]) + tally.errors[verb] for verb in VERBS)
    return {
        "clients": len(clients),
        "processes": len(group),
        "turn_loops": progress.loops,
        "seconds": round(seconds, 2),
        "turn_loops_per_second": round(progress.loops / seconds, 2),
        "requests": requests,
        "requests_per_second": round(requests / seconds, 1),
        "verbs": {
            verb: {
                "requests": len(tally.seconds[verb]) + tally.errors[verb],
                "errors": tally.errors[verb],
                **milliseconds(tally.seconds[verb]),
                "app": milliseconds(app_times(lines, verb)),
            }
            for verb in VERBS
        },
        "errors": sum(tally.errors.values()),
        "error_messages": tally.messages,
        "recalls_cut_short": tally.cut_short,
        "embeddings_added": dict(added),
        "stored_once": stored_once(graphs, clients, progress.failed_observes),
        "cross_owner_reads": {
            "checked": progress.reads,
            "foreign": len(progress.cross_owner),
            "examples": progress.cross_owner[:5],
        },
        "isolation": isolation(graphs, clients),
        "load_average": [load_before, load_after],
    }


def load_part(
    conversations: list[Conversation],
    key: str,
    *,
    levels: list[int],
    processes: list[int],
    loops: int,
    prefix: str,
    owners: list[str],
) -> dict[str, Any]:
    """Every level on 1 and 2 processes; the JSON of each and the targets."""
    length = longest_stretch(conversations, max(levels))
    runs: dict[str, list[dict[str, Any]]] = {}
    load_before = load_average()
    for count in processes:
        with servers(count, key, environment()) as group:
            runs[str(count)] = []
            for clients in levels:
                made = agents(conversations, f"{prefix}{count}p{clients}c-", clients, length, loops)
                owners += [agent.owner for agent in made]
                note(f"load: {clients} clients on {count} process(es)...")
                result = asyncio.run(load_level(group, made))
                note(
                    f"  {result['turn_loops_per_second']} loops/s, recall p95"
                    f" {result['verbs']['recall']['p95_ms']} ms, {result['errors']} errors"
                )
                runs[str(count)].append(result)
    return {
        "stretch_turns": length,
        "preloaded_turns_per_owner": length - 2 * loops,
        "turn_loops_per_client": loops,
        "runs": runs,
        "targets": load_targets(runs),
        "load_average": [load_before, load_average()],
    }


def load_targets(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The targets, per number of processes where the levels they compare were run."""
    met: dict[str, Any] = {}
    for count, levels in runs.items():
        by = {level["clients"]: level for level in levels}
        checks: dict[str, Any] = {
            "no_errors": all(level["errors"] == 0 for level in levels),
            "no_turn_lost_or_doubled": all(
                level["stored_once"]["lost"] == level["stored_once"]["doubled"] == 0
                for level in levels
            ),
            "no_cross_owner_reads": all(
                level["cross_owner_reads"]["foreign"] == level["isolation"]["foreign"] == 0
                for level in levels
            ),
        }
        if 8 in by and 32 in by:
            ratio = by[32]["turn_loops_per_second"] / by[8]["turn_loops_per_second"]
            checks["throughput_32_over_8"] = {"ratio": round(ratio, 2), "met": ratio >= 0.8}
        if 1 in by and 8 in by:
            ratio = by[8]["verbs"]["recall"]["p95_ms"] / by[1]["verbs"]["recall"]["p95_ms"]
            checks["recall_p95_8_over_1"] = {"ratio": round(ratio, 2), "met": ratio <= 2.0}
        met[count] = checks
    return met


# -- the fault part --------------------------------------------------------------------------


class FlakyModel:
    """The offline cognition's answers; once armed, MODEL_ERRORS 500s, then MODEL_HANGS hangs."""

    def __init__(self) -> None:
        self._cognition = OfflineCognition()
        self._lock = threading.Lock()
        self._armed = False
        self._after = 0
        self.faults: Counter[str] = Counter()
        self.requests = 0

    def arm(self) -> None:
        """Start the stretch of faults with the next request."""
        with self._lock:
            self._armed = True

    def __call__(self, body: dict[str, Any]) -> Reply:
        """Answer one chat completion request."""
        with self._lock:
            self.requests += 1
            self._after += self._armed
            number = self._after
        task = body["response_format"]["json_schema"]["name"]
        if self._armed and number <= MODEL_ERRORS:
            self.faults[f"500: {task}"] += 1
            return Reply(status=500, body={"error": {"message": "scripted"}})
        if self._armed and number <= MODEL_ERRORS + MODEL_HANGS:
            self.faults[f"hang: {task}"] += 1
            return Reply(hang=True)
        return chat_reply(offline_answer(self._cognition, body))


async def strike(fault: str, group: list[Served], model: FlakyModel) -> dict[str, Any]:
    """Inflict the fault now; what it did."""
    if fault == "kill":
        group[1].process.kill()
        return {"killed": "server 1 (SIGKILL)"}
    if fault == "neo4j":
        seconds = await asyncio.to_thread(restart_neo4j)
        return {"neo4j_restart_seconds": round(seconds, 1)}
    if fault == "model":
        model.arm()
        return {"model_armed_after_requests": model.requests}
    return {}


async def fault_level(
    fault: str, group: list[Served], clients: list[Agent], model: FlakyModel
) -> dict[str, Any]:
    """One fault run: every client's loops at once, the fault struck a third of the way."""
    owners = owner_of_texts(clients)
    tally, progress = Tally(), Progress()
    insisting = Insisting(in_flight=[0] * len(group))
    made = routes(group, len(clients), tally, insisting)
    total = sum(len(agent.loops) for agent in clients)
    struck: dict[str, Any] = {}

    async def watch() -> None:
        """Strike once FAULT_AT of the loops are done; note what was in flight then."""
        while progress.loops < total * FAULT_AT:
            await asyncio.sleep(0.005)
        struck["loops_done"] = progress.loops
        struck["in_flight_per_server"] = list(insisting.in_flight)
        failed = sum(insisting.failed.values())
        struck.update(await strike(fault, group, model))
        struck["failed_before"] = failed
        struck["failed_during"] = sum(insisting.failed.values()) - failed

    marks = [len(served.server.log) for served in group]
    started = time.perf_counter()
    loops = [
        turn_loops(agent, route, owners, progress)
        for agent, route in zip(clients, made, strict=True)
    ]
    await asyncio.gather(*loops, *([watch()] if fault != "none" else []))
    seconds = time.perf_counter() - started
    await close(made)
    await asyncio.sleep(0.5)  # the servers' last log lines of the run
    lines = [
        line for served, mark in zip(group, marks, strict=True) for line in served.server.log[mark:]
    ]
    async with admin_clients(group) as admins:
        before_sleep = stored_once(await exports(admins[0], clients), clients)
    return {
        "fault": fault,
        "clients": len(clients),
        "turn_loops": progress.loops,
        "seconds": round(seconds, 2),
        "requests_answered": sum(len(tally.seconds[verb]) for verb in VERBS),
        "failed_and_retried": dict(sorted(insisting.failed.items())),
        "failed_total": sum(insisting.failed.values()),
        "gave_up": insisting.gave_up,
        "longest_request_seconds": round(insisting.longest, 2),
        "requests_held_over_5_s": sum(
            seconds > SLOW for verb in VERBS for seconds in tally.seconds[verb]
        ),
        "server_answers": statuses(lines),
        "failure_examples": insisting.messages[:4],
        "struck": struck,
        "recalls_cut_short": tally.cut_short,
        "cross_owner_reads": {
            "checked": progress.reads,
            "foreign": len(progress.cross_owner),
            "examples": progress.cross_owner[:5],
        },
        "turns_observed_pending": progress.pending,
        "turns_pending_before_sleep": before_sleep["pending"],
    }


def consolidate(prefix: str, at: datetime) -> str:
    """The sleep job (offline) for every owner of the prefix; the last line it printed."""
    printed = graphmem(
        "consolidate", "--all", "--prefix", prefix, "--at", at.isoformat(), *NEO4J
    ).strip()
    return printed.splitlines()[-1] if printed else ""


async def final_graphs(group: list[Served], clients: list[Agent]) -> dict[str, OwnerGraph]:
    """The owners' graphs, read through a server still running."""
    async with admin_clients(group) as admins:
        return await exports(admins[0], clients)


FAULT_RUNS = {
    "reference": ("none", False),
    "kill": ("kill", False),
    "neo4j": ("neo4j", False),
    "reference-model": ("none", True),
    "model": ("model", True),
}
"""Each fault run: its fault, and whether the servers' cognition goes through the model server."""


def fault_run(
    name: str, clients: list[Agent], key: str, job_at: datetime, prefix: str
) -> tuple[dict[str, Any], dict[str, OwnerGraph]]:
    """One run of FAULT_RUNS on 2 fresh servers, then the sleep job; its JSON and final graphs."""
    fault, through_model = FAULT_RUNS[name]
    model = FlakyModel()
    load_before = load_average()
    with scripted_openai_server(model) as model_server:
        environ = environment()
        if through_model:
            environ |= MODEL_SETTINGS | {"GRAPHMEM_OPENAI_BASE_URL": model_server.base_url}
        with servers(2, key, environ) as group:
            result = asyncio.run(fault_level(fault, group, clients, model))
            result["sleep_job"] = consolidate(prefix, job_at)
            graphs = asyncio.run(final_graphs(group, clients))
        result["server_exit_codes"] = [served.process.returncode for served in group]
    if through_model:
        result["model"] = {
            "requests": model.requests,
            "faults": dict(sorted(model.faults.items())),
            "most_in_flight": model_server.max_in_flight,
        }
    result["stored_once_after_sleep"] = stored_once(graphs, clients)
    result["isolation"] = isolation(graphs, clients)
    result["load_average"] = [load_before, load_average()]
    return result, graphs


def fault_part(
    conversations: list[Conversation],
    key: str,
    *,
    count: int,
    loops: int,
    prefix: str,
    owners: list[str],
    runs: list[str],
) -> dict[str, Any]:
    """The runs of FAULT_RUNS asked for, each compared with its reference; their JSON."""
    load_before = load_average()
    turns = agents(conversations, "", count, 2 * loops, loops)
    job_at = max(turn.at for agent in turns for turn in agent.turns) + timedelta(days=1)
    # Every run has the same owners (forgotten after each): node ids derive from the owner,
    # and ties (edges of equal weight in a wake-up, memories of one time in the sleep job) are
    # broken by id, so identical inputs under other owners' names can end in other graphs.
    results: dict[str, Any] = {}
    finals: dict[str, dict[str, OwnerGraph]] = {}
    clients = agents(conversations, f"{prefix}faults-", count, 2 * loops, loops)
    owners += [agent.owner for agent in clients]
    for name, (_fault, through_model) in FAULT_RUNS.items():
        if name not in runs:
            continue
        note(f"faults: {name}...")
        result, finals[name] = fault_run(name, clients, key, job_at, f"{prefix}faults-")
        forget_everywhere([agent.owner for agent in clients])
        reference = "reference-model" if through_model else "reference"
        if name == "reference-model" and "reference" in finals:
            result["against_offline_reference"] = compared(finals[name], finals["reference"])
        elif name != reference and reference in finals:
            result["against_reference"] = compared(finals[name], finals[reference])
        results[name] = result
        note(f"  {result['failed_total']} failed and retried, {result['seconds']} s")
    return {
        "clients": count,
        "turn_loops_per_client": loops,
        "processes": 2,
        "sleep_job_at": job_at.isoformat(),
        "runs": results,
        "load_average": [load_before, load_average()],
    }


def forget_everywhere(owners: list[str]) -> None:
    """Forget the owners (those forgotten already too), in this process."""
    settings = Settings.from_env(store="neo4j", embedder="e5", embedding_cache=CACHE)
    with GraphMem.open(settings) as memory:
        for owner in owners:
            memory.forget(owner)


# -- report ----------------------------------------------------------------------------------


def print_report(result: dict[str, Any]) -> None:
    """The tables of both parts."""
    if "load" in result:
        part = result["load"]
        print(
            f"\nLoad: {part['turn_loops_per_client']} turn loops a client, owners preloaded with"
            f" {part['preloaded_turns_per_owner']} turns (ms around the client's call)"
        )
        print(
            "| processes | clients | loops/s | requests/s | verb | p50 / p95 / p99 | app p50 /"
            " p95 | errors |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for count, levels in part["runs"].items():
            for level in levels:
                for verb, row in level["verbs"].items():
                    app = row["app"]
                    print(
                        f"| {count} | {level['clients']} | {level['turn_loops_per_second']}"
                        f" | {level['requests_per_second']} | {verb}"
                        f" | {row['p50_ms']:.0f} / {row['p95_ms']:.0f} / {row['p99_ms']:.0f}"
                        f" | {app['p50_ms']:.0f} / {app['p95_ms']:.0f} | {row['errors']} |"
                    )
        print(
            "\n| processes | clients | turns expected / stored / lost / doubled / pending"
            " | not stored after a failed observe | derived twice | cross-owner reads"
            " | foreign nodes | cut short | load |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for count, levels in part["runs"].items():
            for level in levels:
                once = level["stored_once"]
                print(
                    f"| {count} | {level['clients']} | {once['expected']} / {once['stored']}"
                    f" / {once['lost']} / {once['doubled']} / {once['pending']}"
                    f" | {once.get('missing_after_a_failed_observe', 0)}"
                    f" | {once['derived_twice']}"
                    f" | {level['cross_owner_reads']['foreign']} of"
                    f" {level['cross_owner_reads']['checked']}"
                    f" | {level['isolation']['foreign']} of {level['isolation']['nodes']}"
                    f" | {level['recalls_cut_short']} | {level['load_average']} |"
                )
        print(f"targets: {json.dumps(part['targets'])}")
    if "faults" in result:
        part = result["faults"]
        print(
            f"\nFaults: {part['clients']} clients x {part['turn_loops_per_client']} loops,"
            " 2 processes"
        )
        print(
            "| run | s | failed and retried | in flight at the fault | server answers"
            " | held > 5 s / longest | pending: observed / before sleep"
            " | after sleep: lost / doubled / derived twice | same as reference: full / shape |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for name, run in part["runs"].items():
            once = run["stored_once_after_sleep"]
            against = run.get("against_reference") or run.get("against_offline_reference") or {}
            failed = ", ".join(
                f"{kind} {count}" for kind, count in run["failed_and_retried"].items()
            )
            print(
                f"| {name} | {run['seconds']} | {run['failed_total']} ({failed or '-'})"
                f" | {run['struck'].get('in_flight_per_server', '-')} | {run['server_answers']}"
                f" | {run['requests_held_over_5_s']} / {run['longest_request_seconds']} s"
                f" | {run['turns_observed_pending']} / {run['turns_pending_before_sleep']}"
                f" | {once['lost']} / {once['doubled']} / {once['derived_twice']}"
                f" | {against.get('same_in_full', '-')} / {against.get('same_in_shape', '-')} |"
            )
        for name, run in part["runs"].items():
            print(f"{name}: struck {run['struck']}; model {run.get('model', '-')}")
            for against in ("against_reference", "against_offline_reference"):
                if against in run:
                    print(f"  {against}: {run[against]}")
    print(f"\nload average: {result['load_average']}; wall time {result['seconds']} s")


def main() -> None:
    """Run the parts asked for, print the tables, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--clients", default="1,8,32,64", help="client counts of the load part")
    parser.add_argument("--processes", default="1,2", help="server counts of the load part")
    parser.add_argument("--turns", type=int, default=12, help="turn loops a client, load part")
    parser.add_argument("--fault-clients", type=int, default=8)
    parser.add_argument("--fault-turns", type=int, default=24, help="turn loops a client")
    parser.add_argument("--parts", default="load,faults")
    parser.add_argument("--fault-runs", default=",".join(FAULT_RUNS), help="runs of the fault part")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "load.json")
    arguments = parser.parse_args()
    parts = arguments.parts.split(",")
    uri = os.environ.get("GRAPHMEM_NEO4J_URI", "bolt://127.0.0.1:7687")
    if "neo4j" in arguments.fault_runs.split(",") and (
        not os.environ.get("GRAPHMEM_NEO4J_HOME")
        or urlparse(uri).port != int(os.environ.get("GRAPHMEM_NEO4J_BOLT_PORT", "7687"))
    ):
        parser.error("the fault part needs GRAPHMEM_NEO4J_HOME and the URI's port as BOLT_PORT")
    levels = [int(value) for value in arguments.clients.split(",")]
    processes = [int(value) for value in arguments.processes.split(",")]
    conversations = [sample.conversation for sample in load(arguments.data)]
    prefix = f"load-bench-{secrets.token_hex(4)}-"
    started, load_before = time.perf_counter(), load_average()
    note(f"load average {load_before}; owners {prefix}*")
    length = longest_stretch(conversations, max(levels))
    wanted = [
        message.text
        for group in (
            agents(conversations, "", max(levels), length, arguments.turns),
            agents(
                conversations,
                "",
                arguments.fault_clients,
                2 * arguments.fault_turns,
                arguments.fault_turns,
            ),
        )
        for agent in group
        for message, _answer in agent.loops
    ]
    result: dict[str, Any] = {
        "data": str(arguments.data),
        "started": datetime.now().astimezone().isoformat(timespec="seconds"),
        "owner_prefix": prefix,
        "query_embeddings_computed_before": embed_queries(wanted),
        "server": {"workers": 8, "rate": RATE, "burst": RATE, "key": "admin", "store": "neo4j"},
    }
    made = json.loads(graphmem("keys", "create", "--admin", "--json", *NEO4J))
    owners: list[str] = []
    try:
        if "load" in parts:
            result["load"] = load_part(
                conversations,
                made["secret"],
                levels=levels,
                processes=processes,
                loops=arguments.turns,
                prefix=prefix,
                owners=owners,
            )
        if "faults" in parts:
            result["faults"] = fault_part(
                conversations,
                made["secret"],
                count=arguments.fault_clients,
                loops=arguments.fault_turns,
                prefix=prefix,
                owners=owners,
                runs=arguments.fault_runs.split(","),
            )
    finally:
        forget_everywhere(owners)
        graphmem("keys", "revoke", made["key"]["id"], *NEO4J)
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["load_average"] = [load_before, load_average()]
    print_report(result)
    write_result(arguments.out, result, [arguments.data])


if __name__ == "__main__":
    main()
