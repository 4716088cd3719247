"""The sleep job over many owners: workers that claim each owner with a lease kept in the store.

An owner is consolidated by one worker at a time, whether the workers are threads of one
process or processes on several machines sharing one Neo4j (`graphmem consolidate --all` started
on each). A worker claims the owner's lease in the store (`Store.claim_owner`), a keeper thread
renews the leases its workers hold every third of the lease, and the worker releases the lease
when the owner's job ends, saying how. A worker that dies renews nothing: its lease lapses and
another worker claims the owner and resumes its job where it stopped (the sleep job marks its
work in the graph as it goes: `Sleep.run`). An owner whose job ended after this job started, by
any worker, is skipped. Leases are timed by the workers' clocks: machines sharing a Neo4j keep
their clocks in sync (NTP), far closer than the lease (default 5 minutes). The workers and the
keeper report to the verb that started the job (graphmem.telemetry), which counts the leases held.
"""

import logging
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Literal

from graphmem.contract import (
    LEASE,
    MIN_LEASE,
    NightProgress,
    NightReport,
    OwnerNight,
    SleepProgress,
    SleepReport,
)
from graphmem.errors import GraphMemError, InvalidInputError
from graphmem.store.base import Store
from graphmem.store.findings import OwnerClaim
from graphmem.telemetry import Telemetry

log = logging.getLogger("graphmem")


OwnerJob = Callable[[str, Callable[[SleepProgress], None]], SleepReport]
"""The sleep job for one owner, telling its progress: GraphMem.consolidate."""

Told = Callable[[SleepProgress | NightProgress], None]
"""Hears every item of every owner's job, and every owner claimed or ended."""


class _LeaseLostError(GraphMemError):
    """A worker's lease on an owner lapsed and another worker took the owner over."""


def check_options(prefix: object, workers: object, lease: object) -> None:
    """Refuse a job's options unless a text prefix, 1 to 64 workers and a lease of 1 s or more."""
    if not isinstance(prefix, str):
        raise InvalidInputError(f"prefix must be a string, not {type(prefix).__name__}")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 64:
        raise InvalidInputError(f"workers must be a whole number from 1 to 64, not {workers!r}")
    if not isinstance(lease, timedelta):
        raise InvalidInputError(f"lease must be a timedelta, not {type(lease).__name__}")
    if lease < MIN_LEASE:
        raise InvalidInputError(f"lease must be at least 1 s, not {lease.total_seconds():g} s")


def wall_clock() -> datetime:
    """The time now, in UTC: what leases are timed by."""
    return datetime.now(UTC)


class NightlyJob:
    """Consolidates many owners with worker threads, each owner under a lease in the store.

    Progress is told one event at a time (never from two threads at once).
    """

    def __init__(
        self,
        store: Store,
        consolidate: OwnerJob,
        *,
        lease: timedelta = LEASE,
        progress: Told | None = None,
        clock: Callable[[], datetime] = wall_clock,
        wait: Callable[[float], None] = time.sleep,
        telemetry: Telemetry | None = None,
    ) -> None:
        self._store = store
        self._telemetry = Telemetry() if telemetry is None else telemetry
        self._consolidate = consolidate
        self._lease = lease
        self._progress = progress
        self._clock = clock
        self._wait = wait
        self._lock = threading.Lock()
        self._telling = threading.Lock()
        self._waiting: deque[str] = deque()
        self._held: dict[str, datetime] = {}
        """Owners another job's worker holds, with when their leases lapse: tried again."""
        self._holding: dict[str, str] = {}
        """Owners this job's workers consolidate now, with the worker: the keeper renews them."""
        self._lost: set[str] = set()
        self._ended: list[OwnerNight] = []
        self._total = 0
        """Owners the job is over."""
        self._started = clock()
        self._stopping = threading.Event()

    def run(self, owners: Sequence[str], workers: int) -> NightReport:
        """Consolidate every owner once with `workers` threads; how each owner's job ended."""
        self._started = self._clock()
        self._waiting = deque(owners)
        self._total = len(owners)
        names = [f"{socket.gethostname()}:{os.getpid()}:{number}" for number in range(workers)]
        errors: list[BaseException] = []

        def work(worker: str) -> None:
            try:
                while not self._stopping.is_set() and (owner := self._next()) is not None:
                    self._night(owner, worker)
            except BaseException as error:  # told to run() below, which raises it
                errors.append(error)
                self._stopping.set()

        carried = self._telemetry.carried
        threads = [
            threading.Thread(target=carried(work), args=(name,), daemon=True) for name in names
        ]
        keeper = threading.Thread(target=carried(self._keep), daemon=True)
        keeper.start()
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                thread.join()
        finally:
            self._stopping.set()
            keeper.join()
        if errors:
            raise errors[0]
        seconds = (self._clock() - self._started).total_seconds()
        return NightReport(owners=list(self._ended), workers=workers, seconds=seconds)

    def _next(self) -> str | None:
        """The next owner to try; waits for other jobs' leases when only theirs are left."""
        while True:
            with self._lock:
                if self._waiting:
                    return self._waiting.popleft()
                if not self._held:
                    return None
                retry = min(self._held.values())
                owners = list(self._held)
                self._held.clear()
            # The holders may end sooner than their leases lapse: look again every quarter lease.
            seconds = (retry - self._clock()).total_seconds()
            self._wait(max(0.0, min(seconds, self._lease.total_seconds() / 4)))
            with self._lock:
                self._waiting.extend(owners)

    def _night(self, owner: str, worker: str) -> None:
        """Claim one owner, consolidate it, release it; tell how it ended."""
        claim = self._claim(owner, worker)
        if not claim.claimed:
            if claim.slept_at is not None and claim.slept_at >= self._started:
                self._end(
                    OwnerNight(owner=owner, worker=worker, outcome="skipped", why=_ended(claim))
                )
            else:
                with self._lock:
                    self._held[owner] = claim.until or self._clock()
            return
        with self._lock:
            self._holding[owner] = worker
            claimed = self._tally(OwnerNight(owner=owner, worker=worker, outcome="claimed"))
        self._tell(claimed)

        def told(progress: SleepProgress) -> None:
            with self._lock:
                lost = owner in self._lost
            if lost:
                raise _LeaseLostError(f"{worker} lost the lease on {owner} to another worker")
            self._tell(progress)

        failure: str | None = None
        self._telemetry.leases(+1)
        try:
            report = self._consolidate(owner, told)
            ended = OwnerNight(owner=owner, worker=worker, outcome="done", report=report)
        except _LeaseLostError as error:
            ended = OwnerNight(owner=owner, worker=worker, outcome="lost", why=str(error))
        except GraphMemError as error:
            failure = f"{type(error).__name__}: {error}"
            ended = OwnerNight(owner=owner, worker=worker, outcome="failed", why=failure)
        except BaseException as error:
            self._store.release_owner(owner, worker, self._clock(), f"stopped: {error!r}")
            raise
        finally:
            with self._lock:
                self._holding.pop(owner, None)
                self._lost.discard(owner)
            self._telemetry.leases(-1)
        if ended.outcome != "lost":
            # Renewed before it is told, told before it is released: once released, another
            # job may claim the owner, and its lines come after this one's.
            renewed = self._claim(owner, worker)
            if not renewed.claimed:
                why = f"{worker} lost the lease on {owner} to {renewed.holder or 'another worker'}"
                ended = OwnerNight(owner=owner, worker=worker, outcome="lost", why=why)
        self._end(ended)
        if ended.outcome != "lost":
            self._store.release_owner(owner, worker, self._clock(), failure)

    def _claim(self, owner: str, worker: str) -> OwnerClaim:
        """Claim or renew the lease on an owner for a worker of this job."""
        now = self._clock()
        return self._store.claim_owner(owner, worker, now, now + self._lease, self._started)

    def _keep(self) -> None:
        """Renew the leases this job's workers hold, every third of the lease, until it ends."""
        while not self._stopping.wait(self._lease.total_seconds() / 3):
            with self._lock:
                holding = dict(self._holding)
            for owner, worker in holding.items():
                try:
                    claimed = self._claim(owner, worker).claimed
                except GraphMemError as error:  # the store away for a moment: renew next time
                    log.warning("could not renew the lease on %s: %s", owner, error)
                    continue
                if not claimed:
                    with self._lock:
                        self._lost.add(owner)

    def _end(self, night: OwnerNight) -> None:
        """Record and tell how an owner's job ended."""
        with self._lock:
            self._ended.append(night)
            progress = self._tally(night)
        self._tell(progress)

    def _tally(self, latest: OwnerNight) -> NightProgress:
        """Where the job is, with the latest owner claimed or ended (under the job's lock)."""
        ended = len(self._ended)
        seconds = (self._clock() - self._started).total_seconds()
        left = None if ended == 0 else seconds / ended * (self._total - ended)

        def count(outcome: Literal["done", "skipped", "failed", "lost"]) -> int:
            return sum(night.outcome == outcome for night in self._ended)

        return NightProgress(
            latest=latest,
            owners=self._total,
            done=count("done"),
            skipped=count("skipped"),
            failed=count("failed"),
            lost=count("lost"),
            seconds=seconds,
            seconds_left=left,
        )

    def _tell(self, progress: SleepProgress | NightProgress) -> None:
        """Tell the progress callback, one event at a time."""
        if self._progress is not None:
            with self._telling:
                self._progress(progress)


def _ended(claim: OwnerClaim) -> str:
    """How an owner's job that another worker ran ended, in words."""
    how = "done" if claim.failure is None else f"failed ({claim.failure})"
    return f"{how} by {claim.slept_by} at {claim.slept_at:%Y-%m-%d %H:%M:%S} UTC"
