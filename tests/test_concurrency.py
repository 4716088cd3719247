"""8 writers and 8 readers on one owner on Neo4j: nothing lost, nothing doubled, nothing stuck.

Every operation runs at one instant, so attention does not decay between them: each use of a
memory adds exactly `use_long_term` to its long-term part, each use or wake-up adds the
short-term gain the recall reports, and every stored memory and event, recalled or not, can be
compared with the tally of what the recalls did to it. Each message is observed by two writers
at once, as a retried write whose first attempt is still running would be. No transaction may
deadlock: the owner's write lock makes its writes take turns.
"""

import logging
import time
from collections import Counter, defaultdict
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest

from graphmem.contract import Recall
from graphmem.embedding import CachedEmbedder
from graphmem.mechanisms.attention import AttentionPolicy
from graphmem.memory import GraphMem
from graphmem.model import Event, Memory, Turn

from .conftest import Neo4jServer

pytestmark = pytest.mark.long

AT = datetime(2026, 10, 5, 9, tzinfo=UTC)
WRITERS = 8
READERS = 8
MESSAGES_PER_WRITER = 12
RECALLS_PER_READER = 12
TOPICS = ["milk", "the cat", "my sore throat", "the trip to Kyoto", "the garden", "work"]
QUERIES = ["What about milk?", "How is the cat?", "Is my throat better?", "Kyoto plans?"]


def message(number: int) -> tuple[str, str]:
    """The id and text of the number-th message."""
    return f"m{number}", f"Message {number} is about {TOPICS[number % len(TOPICS)]}."


def increments(recalls: list[Recall], nodes: Mapping[str, Memory | Event]) -> tuple[int, int, int]:
    """The attention increments the recalls made that the stored nodes lost and doubled, and
    the uses, tallied per node for every node given, recalled or not.

    Every use at one instant: a used memory gains exactly `use_long_term` long-term, and each
    use or wake-up adds its reported `short_term_gain` short-term, to a node that started with
    its label long-term and nothing short-term. A long-term part counts its missing or extra
    uses; a short-term part off by any amount counts one. So a lost increment on one node and a
    doubled one on another both count, and so does any gain on a node no recall touched.
    """
    gain = AttentionPolicy().use_long_term
    wakes = [wake for recall in recalls for wake in recall.woken]
    uses = Counter(wake.id for wake in wakes if wake.used and wake.label == "Memory")
    short_term: defaultdict[tuple[str, str], float] = defaultdict(float)
    for wake in wakes:
        short_term[(wake.label, wake.id)] += wake.short_term_gain
    lost = doubled = 0
    for node_id, node in nodes.items():
        label = type(node).__name__
        used = uses[node_id] if label == "Memory" else 0
        expected = node.importance + used * gain  # the label, then every use's gain
        missing = round((expected - node.attention.long_term) / gain)
        short_missing = short_term[(label, node_id)] - node.attention.short_term
        lost += max(missing, 0) + (short_missing > 1e-6)
        doubled += max(-missing, 0) + (short_missing < -1e-6)
    return lost, doubled, sum(uses.values())


@pytest.mark.neo4j
def test_eight_writers_and_eight_readers_lose_and_double_nothing(
    neo4j_server: Neo4jServer,
    embedder: CachedEmbedder,
    owner: str,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = neo4j_server.store()
    memory = GraphMem(store, embedder)
    for number in range(10):  # something to recall from the start
        message_id, text = message(number)
        memory.observe(owner, text, message_id=message_id, at=AT, session="s")
    count = WRITERS * MESSAGES_PER_WRITER
    numbers = range(10, 10 + count)

    def write(writer: int) -> int:
        # Writer w observes its own messages and, as a retry, those of writer w - 1.
        mine = [n for n in numbers if n % WRITERS == writer]
        retried = [n for n in numbers if n % WRITERS == (writer - 1) % WRITERS]
        for number in [n for pair in zip(mine, retried, strict=True) for n in pair]:
            message_id, text = message(number)
            memory.observe(owner, text, message_id=message_id, at=AT, session="s")
        return len(mine) + len(retried)

    def read(reader: int) -> list[Recall]:
        return [
            memory.recall(owner, QUERIES[(reader + turn) % len(QUERIES)], k=3, at=AT)
            for turn in range(RECALLS_PER_READER)
        ]

    caplog.set_level(logging.WARNING, logger="neo4j")  # the driver logs each retry there
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=WRITERS + READERS) as pool:
        writes = [pool.submit(write, writer) for writer in range(WRITERS)]
        reads = [pool.submit(read, reader) for reader in range(READERS)]
        errors = [future.exception() for future in writes + reads if future.exception()]
        assert errors == []  # a deadlock the driver did not retry would surface here
        observed = sum(future.result() for future in writes)
        recalls = [recall for future in reads for recall in future.result()]
    seconds = time.perf_counter() - started
    retries = [record.getMessage() for record in caplog.records if "retried" in record.getMessage()]
    assert retries == []  # the owner's writes take turns (its write lock): none deadlocks

    graph = store.export(owner)
    turns = [node for node in graph.nodes if isinstance(node, Turn)]
    turn_ids = Counter(turn.id for turn in turns)
    assert sorted(turn_ids) == sorted(message(n)[0] for n in range(10 + count))
    assert set(turn_ids.values()) == {1}
    assert sorted(turn.position or 0 for turn in turns) == list(range(10 + count))
    from_edges = Counter(link.target for _s, _t, link in graph.links if link.type == "FROM")
    memories = {node.id: node for node in graph.nodes if isinstance(node, Memory)}
    observations = [m for m in memories.values() if m.kind == "observation"]
    assert len(observations) == 10 + count  # one per turn, though each was observed twice
    assert all(from_edges[turn] >= 1 for turn in turn_ids)

    events = {node.id: node for node in graph.nodes if isinstance(node, Event)}
    stored: dict[str, Memory | Event] = {**memories, **events}
    woken = {(wake.label, wake.id) for recall in recalls for wake in recall.woken}
    assert woken <= {(type(node).__name__, node_id) for node_id, node in stored.items()}
    lost, doubled, uses = increments(recalls, stored)  # every memory and event, woken or not
    assert uses == len(recalls) * 3
    assert (lost, doubled) == (0, 0)
    store.close()
    with capsys.disabled():
        print(
            f"\nconcurrency: {WRITERS} writers, {READERS} readers: {observed} observes"
            f" ({count} messages, each twice) and {len(recalls)} recalls in {seconds:.1f} s ="
            f" {(observed + len(recalls)) / seconds:.1f} operations/s; errors 0, turns doubled 0,"
            f" attention increments lost {lost} and doubled {doubled} of {uses} uses and"
            f" {len(woken)} nodes woken, checked on all {len(stored)} memories and events"
        )
