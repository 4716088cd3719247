"""The sleep job over many owners: leases on both stores, workers in threads and in processes."""

import json
import os
import re
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from threading import Barrier

import pytest

from graphmem.contract import NightProgress, NightReport, SleepProgress, SleepReport
from graphmem.embedding import CachedEmbedder
from graphmem.memory import GraphMem
from graphmem.nightly import NightlyJob
from graphmem.store.base import Store
from graphmem.store.networkx import NetworkXStore
from tests.conftest import Neo4jServer, forked_together
from tests.test_cli_output import graphmem
from tests.test_sleep_crash import CONVERSATION, START, canonical

T0 = datetime(2026, 12, 5, 2, tzinfo=UTC)
"""When the night's job starts, by the workers' clocks."""
LEASE = timedelta(minutes=5)
SECOND = timedelta(seconds=1)
JOB_AT = START + timedelta(days=9)
DAYS = {"mon": 0, "tue": 1, "wed": 2, "fri": 4}


def observe_conversation(memory: GraphMem, owner: str, turns: int = len(CONVERSATION)) -> None:
    """The first `turns` turns of the crash test's conversation, one batch."""
    memory.observe_many(
        owner,
        [
            {
                "text": text,
                "message_id": f"m{number}",
                "at": START + timedelta(days=DAYS[session], hours=4 * (number % 4)),
                "session": session,
            }
            for number, (session, text) in enumerate(CONVERSATION[:turns])
        ],
    )


def test_a_lease_holds_until_it_lapses_or_is_released(store: Store, owner: str) -> None:
    first = store.claim_owner(owner, "a", T0, T0 + LEASE, T0)
    assert (first.claimed, first.holder, first.until) == (True, "a", T0 + LEASE)
    assert first.slept_at is None
    held = store.claim_owner(owner, "b", T0 + SECOND, T0 + SECOND + LEASE, T0)
    assert (held.claimed, held.holder, held.until) == (False, "a", T0 + LEASE)
    renewed = store.claim_owner(owner, "a", T0 + 2 * SECOND, T0 + 2 * SECOND + LEASE, T0)
    assert (renewed.claimed, renewed.until) == (True, T0 + 2 * SECOND + LEASE)
    lapse = T0 + 2 * SECOND + LEASE
    assert not store.claim_owner(owner, "b", lapse - SECOND, lapse + LEASE, T0).claimed
    taken = store.claim_owner(owner, "b", lapse, lapse + LEASE, T0)  # lapsed: until <= now
    assert (taken.claimed, taken.holder) == (True, "b")
    assert not store.claim_owner(owner, "a", lapse + SECOND, lapse + LEASE, T0).claimed
    assert not store.release_owner(owner, "a", lapse + SECOND, None)  # "a" holds nothing now
    assert store.claim_owner(owner, "c", lapse + SECOND, lapse + LEASE, T0).holder == "b"
    assert store.release_owner(owner, "b", lapse + 2 * SECOND, "ModelError: no answer")
    ended = store.claim_owner(owner, "a", lapse + 3 * SECOND, lapse + LEASE, T0)
    assert (ended.claimed, ended.holder, ended.until) == (False, None, None)
    assert (ended.slept_at, ended.slept_by) == (lapse + 2 * SECOND, "b")
    assert ended.failure == "ModelError: no answer"
    # A job that started after that one ended claims the owner again.
    later = store.claim_owner(owner, "a", lapse + 3 * SECOND, lapse + LEASE, lapse + 3 * SECOND)
    assert (later.claimed, later.holder, later.slept_by) == (True, "a", "b")
    other = store.claim_owner(f"{owner}-other", "b", lapse, lapse + LEASE, T0)
    assert (other.claimed, other.holder) == (True, "b")
    store.forget(owner)  # forgetting an owner ends its lease with the rest
    fresh = store.claim_owner(owner, "c", lapse + 4 * SECOND, lapse + LEASE, T0)
    assert (fresh.claimed, fresh.holder, fresh.slept_at) == (True, "c", None)
    store.forget(f"{owner}-other")
    store.forget(owner)


def test_workers_claiming_at_once_never_both_get_the_lease(store: Store, owner: str) -> None:
    owners = [f"{owner}-{number}" for number in range(6)]
    workers = [f"worker-{number}" for number in range(8)]
    start = Barrier(len(workers))

    def claim_all(worker: str) -> list[bool]:
        start.wait()
        return [store.claim_owner(name, worker, T0, T0 + LEASE, T0).claimed for name in owners]

    with ThreadPoolExecutor(len(workers)) as pool:
        claims = list(pool.map(claim_all, workers))
    for number, name in enumerate(owners):
        winners = [
            worker for worker, claimed in zip(workers, claims, strict=True) if claimed[number]
        ]
        assert len(winners) == 1, (name, winners)
        assert store.claim_owner(name, "late", T0, T0 + LEASE, T0).holder == winners[0]
        store.forget(name)


class FakeClock:
    """The workers' clock in a test: it moves only when the job waits, by what it waits."""

    def __init__(self, on_wait: Callable[[datetime], None] = lambda now: None) -> None:
        self.now = T0
        self.waits: list[float] = []
        self._on_wait = on_wait

    def __call__(self) -> datetime:
        return self.now

    def wait(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += timedelta(seconds=seconds)
        self._on_wait(self.now)


def outcomes(report: NightReport) -> dict[str, str]:
    return {night.owner: night.outcome for night in report.owners}


def test_a_job_waits_out_another_workers_lease_and_skips_the_owner_it_finished(
    embedder: CachedEmbedder, owner: str
) -> None:
    store = NetworkXStore.open()
    memory = GraphMem(store, embedder)
    names = [f"{owner}-{letter}" for letter in "abd"]
    for name in names:
        observe_conversation(memory, name, turns=4)
    finishing, dead = names[1], names[2]

    def other_worker_finishes(now: datetime) -> None:
        store.release_owner(finishing, "elsewhere", now, None)

    clock = FakeClock(other_worker_finishes)
    store.claim_owner(finishing, "elsewhere", T0, T0 + LEASE, T0)  # alive: ends at the first wait
    store.claim_owner(dead, "elsewhere", T0 - LEASE, T0 + 2 * SECOND, T0)  # dead: lapses at +2 s

    def consolidate(name: str, told: Callable[[SleepProgress], None]) -> SleepReport:
        return memory.consolidate(name, at=JOB_AT, progress=told)

    heard: list[SleepProgress | NightProgress] = []
    job = NightlyJob(
        store, consolidate, lease=LEASE, progress=heard.append, clock=clock, wait=clock.wait
    )
    report = job.run(names, workers=1)
    assert outcomes(report) == {names[0]: "done", finishing: "skipped", dead: "done"}
    assert clock.waits == [2.0]  # until the dead worker's lease lapsed, less than a quarter lease
    [skipped] = [night for night in report.owners if night.outcome == "skipped"]
    assert skipped.why == "done by elsewhere at 2026-12-05 02:00:02 UTC"
    nights = [event for event in heard if isinstance(event, NightProgress)]
    assert [(event.latest.owner, event.latest.outcome) for event in nights] == [
        (names[0], "claimed"),
        (names[0], "done"),
        (finishing, "skipped"),
        (dead, "claimed"),
        (dead, "done"),
    ]
    # Two seconds for two owners ended, one left: about one second left.
    assert [event.seconds_left for event in nights] == [None, 0.0, 1.0, 1.0, 0.0]
    items = [event for event in heard if isinstance(event, SleepProgress)]
    assert {event.owner for event in items} == {names[0], dead}
    done = store.claim_owner(dead, "someone", clock.now, clock.now + LEASE, T0)
    assert (done.claimed, done.slept_by, done.failure) == (False, report.owners[-1].worker, None)


def test_a_worker_whose_lease_was_taken_over_stops_and_says_so(
    embedder: CachedEmbedder, owner: str
) -> None:
    store = NetworkXStore.open()
    memory = GraphMem(store, embedder)
    observe_conversation(memory, owner, turns=4)
    clock = FakeClock()

    def stall_then_lose(event: SleepProgress | NightProgress) -> None:
        """At the job's first item, the worker stalls past its lease and another takes over."""
        if isinstance(event, SleepProgress) and clock.now == T0:
            clock.now += LEASE
            assert store.claim_owner(owner, "elsewhere", clock.now, clock.now + LEASE, T0).claimed

    def consolidate(name: str, told: Callable[[SleepProgress], None]) -> SleepReport:
        return memory.consolidate(name, at=JOB_AT, progress=told)

    job = NightlyJob(store, consolidate, progress=stall_then_lose, clock=clock, wait=clock.wait)
    [night] = job.run([owner], workers=1).owners
    assert (night.outcome, night.why) == (
        "lost",
        f"{night.worker} lost the lease on {owner} to elsewhere",
    )
    lease = store.claim_owner(owner, "third", clock.now, clock.now + LEASE, T0)
    assert (lease.claimed, lease.holder, lease.slept_at) == (False, "elsewhere", None)


def test_the_command_goes_on_past_a_failed_owner_names_why_and_exits_1(tmp_path: Path) -> None:
    where = ["--path", str(tmp_path / "graph.json")]
    said = "".join(
        json.dumps({"text": text, "message_id": f"m{number}"}) + "\n"
        for number, (_session, text) in enumerate(CONVERSATION[:4])
    )
    for name in ("ann", "bob"):
        code, _out, errors = graphmem(where, "observe", "--owner", name, stdin=said)
        assert code == 0, errors
    code, _out, errors = graphmem(where, "consolidate", "--owner", "bob")  # bob's night is done
    assert code == 0, errors
    unreachable = {
        "GRAPHMEM_COGNITION": "openai",
        "GRAPHMEM_OPENAI_API_KEY": "key",
        "GRAPHMEM_OPENAI_BASE_URL": "http://127.0.0.1:9/v1",  # the discard port: refused
        "GRAPHMEM_OPENAI_MAX_RETRIES": "0",
    }
    command = ["consolidate", "--all", "--log-every", "1"]
    code, out, errors = graphmem(where, *command, env=unreachable)
    assert code == 1
    lines = out.splitlines()
    worker = re.escape(f"{socket.gethostname()}:") + r"\d+:0"
    why = (
        "ModelError: the model endpoint failed digest_dialogue after 1 attempts: APIConnectionError"
    )
    assert re.fullmatch(f"ann: claimed by {worker}", lines[0]), lines
    assert re.fullmatch(f"ann: failed by {worker}: {why}", lines[1]), lines
    assert re.fullmatch(
        r"1 of 2 owners ended \(0 done, 0 skipped, 1 failed, 0 lost\) in \d+ s, about \d+ s left",
        lines[2],
    ), lines
    assert re.fullmatch(r"bob: done in [\d.]+ s by .*; retiered 0; model calls: none", lines[-4])
    assert re.fullmatch(
        r"2 of 2 owners ended \(1 done, 0 skipped, 1 failed, 0 lost\) in \d+ s, about 0 s left",
        lines[-3],
    )
    assert re.fullmatch(
        r"2 owners in [\d.]+ s by 1 worker: 1 done, 0 skipped, 1 failed, 0 lost", lines[-2]
    )
    assert lines[-1] == f"  ann failed: {why}"
    assert errors == (
        "graphmem: 1 of 2 owners failed (listed above); their work done so far is kept, and the"
        " next run resumes them\n"
    )
    code, out, errors = graphmem(where, *command)  # the offline cognition answers
    assert code == 0, errors
    assert re.fullmatch(
        r"2 owners in [\d.]+ s by 1 worker: 2 done, 0 skipped, 0 failed, 0 lost",
        out.splitlines()[-1],
    )
    assert re.search(r"ann: done in [\d.]+ s by .*summaries 1", out), out
    code, _out, errors = graphmem(where, "consolidate", "--owner", "ann", "--workers", "2")
    assert (code, errors) == (1, "graphmem: --workers: only with --all, not with --owner\n")


TURNS = 8
"""Turns each owner of the two-process test holds: the conversation's first two days."""
OWNERS = 40


def owner_lines(lines: list[str], name: str) -> list[str]:
    """The lines about one owner, in the order they were written."""
    return [line for line in lines if line.startswith(f"{name}: ")]


@pytest.mark.neo4j
def test_two_worker_processes_one_killed_consolidate_every_owner_as_one_alone(
    neo4j_server: Neo4jServer, embedder: CachedEmbedder, owner: str
) -> None:
    store = neo4j_server.store()
    memory = GraphMem(store, embedder)
    alone, names = f"{owner}-alone", [f"{owner}-w{number:02}" for number in range(OWNERS)]
    try:
        observe_conversation(memory, alone, TURNS)
        memory.consolidate(alone, at=JOB_AT)
        reference = canonical(store.export(alone))
        for name in names:
            observe_conversation(memory, name, TURNS)
        command = ["consolidate", "--all", "--prefix", f"{owner}-w", "--at", JOB_AT.isoformat()]
        command += ["--lease", "3", "--log-every", "1"]
        environment = {
            **os.environ,
            "GRAPHMEM_STORE": "neo4j",
            "GRAPHMEM_NEO4J_URI": neo4j_server.uri,
            "GRAPHMEM_NEO4J_USER": neo4j_server.user,
            "GRAPHMEM_NEO4J_PASSWORD": neo4j_server.password.get_secret_value(),
        }
        with forked_together([command, [*command, "--workers", "2"]], environment) as (
            (killed, survivor),
            out,
        ):
            lines: list[str] = []
            victim, claims = None, 0
            while line := out.readline():  # until the first is in the midst of its third owner
                lines.append(line.rstrip("\n"))
                name, _, said = lines[-1].partition(": ")
                if re.fullmatch(rf"claimed by \S+:{killed.pid}:0", said):
                    claims += 1
                    victim = name if claims == 3 else None
                elif name == victim and not re.match(
                    r"(claimed|done in|skipped|failed|lost)", said
                ):
                    killed.kill()
                    killed.join()
                    break
            killed_at = len(lines)
            lines += [line.rstrip("\n") for line in out]
            survivor.join()
        assert victim is not None, lines
        assert killed.exitcode == -9, lines
        assert survivor.exitcode == 0, lines
        # Nobody claims an owner while another holds it; the victim is taken over once killed.
        holders: dict[str, str] = {}
        for number, line in enumerate(lines):
            name, _, said = line.partition(": ")
            if claim := re.fullmatch(r"claimed by (\S+)", said):
                held = holders.get(name)
                assert held is None or (name == victim and number >= killed_at), (line, held)
                holders[name] = claim[1]
            elif ended := re.match(r"(?:done in [\d.]+ s|failed|lost) by (\S+?)(?:; |: )", said):
                assert holders.pop(name, None) == ended[1], owner_lines(lines, name)
        assert holders == {}
        victims = owner_lines(lines, victim)  # killed in its midst, done by the survivor
        assert victims[0].endswith(f":{killed.pid}:0"), victims
        assert f" by {socket.gethostname()}:{survivor.pid}:" in victims[-1], victims
        done = [name for name in names for line in owner_lines(lines, name) if " done in " in line]
        assert set(done) == set(names)
        summary = f"{OWNERS} owners in [\\d.]+ s by 2 workers: (\\d+) done, (\\d+) skipped,"
        [counts] = [
            found for line in lines if (found := re.fullmatch(summary + " 0 failed, 0 lost", line))
        ]
        assert int(counts[1]) + int(counts[2]) == OWNERS
        for name in names:
            assert canonical(store.export(name)) == reference, name
    finally:
        for name in [alone, *names]:
            memory.forget(name)
        store.close()
