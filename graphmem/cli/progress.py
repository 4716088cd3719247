"""How the long commands show how they go: observe's turns, and the sleep job's steps and owners."""

import time
from typing import TextIO

from graphmem.cli.printers import counted
from graphmem.contract import NightProgress, NightReport, SleepProgress, SleepReport


class ObserveProgressPrinter:
    """Shows how an observe run goes on a terminal: turns done, their rate, and the time left."""

    def __init__(self, out: TextIO, total: int | None) -> None:
        self._out = out
        self._total = total
        self._started = time.perf_counter()
        self.done = 0

    def add(self, turns: int) -> None:
        """Count turns observed and show the progress, if the output is a terminal."""
        self.done += turns
        if not self._out.isatty():
            return
        seconds = time.perf_counter() - self._started
        rate = self.done / seconds if seconds > 0 else 0.0
        line = f"observed {counted(self.done, 'turn')}, {rate:.0f} turns/s"
        if self._total and rate > 0:
            line += f", {(self._total - self.done) / rate:.0f} s left of {self._total}"
        print(f"\r\033[K{line}", end="", file=self._out, flush=True)

    def close(self) -> None:
        """End the progress line."""
        if self._out.isatty() and self.done:
            print(file=self._out, flush=True)


class SleepProgressPrinter:
    """Prints sleep-job progress: one line rewritten in place on a terminal, else log lines.

    Log lines come every `every` items of a step, and at each step's first item.
    """

    def __init__(self, out: TextIO, every: int) -> None:
        self._out = out
        self._every = every
        self._terminal = out.isatty()
        self._tally = ""
        """Where a job over many owners is; shown before the latest item on a terminal."""

    def __call__(self, progress: SleepProgress | NightProgress) -> None:
        """Show where the job is."""
        if isinstance(progress, NightProgress):
            self._night(progress)
            return
        line = (
            f"{progress.owner}: {progress.step} {progress.done}, {progress.model_calls} model"
            f" calls, {progress.seconds:.1f} s"
        )
        if self._terminal:
            self._status(f"{self._tally} · {line}" if self._tally else line)
        elif progress.done == 1 or progress.done % self._every == 0:
            self._line(line)

    def report(self, report: SleepReport, worker: str | None = None) -> None:
        """Show what the job did for one owner (and which worker did it, in a nightly job)."""
        counts = ", ".join(f"{name} {count}" for name, count in sorted(report.counts.items()))
        calls = ", ".join(f"{name} {count}" for name, count in sorted(report.model_calls.items()))
        by = "" if worker is None else f" by {worker}"
        self._line(
            f"{report.owner}: done in {report.seconds:.1f} s{by}; {counts or 'nothing to do'};"
            f" model calls: {calls or 'none'}"
        )

    def summary(self, night: NightReport) -> None:
        """Show how every owner's job ended, the failed ones with why."""
        counts = ", ".join(
            f"{night.count(outcome)} {outcome}" for outcome in ("done", "skipped", "failed", "lost")
        )
        self._line(
            f"{counted(len(night.owners), 'owner')} in {night.seconds:.1f} s by"
            f" {counted(night.workers, 'worker')}: {counts}"
        )
        for failed in night.owners:
            if failed.outcome == "failed":
                self._line(f"  {failed.owner} failed: {failed.why}")

    def _night(self, progress: NightProgress) -> None:
        """Show an owner claimed or ended, and the tally of the job over every owner."""
        latest = progress.latest
        ended = progress.done + progress.skipped + progress.failed + progress.lost
        left = (
            "" if progress.seconds_left is None else f", about {progress.seconds_left:.0f} s left"
        )
        self._tally = (
            f"{ended} of {counted(progress.owners, 'owner')} ended ({progress.done} done,"
            f" {progress.skipped}"
            f" skipped, {progress.failed} failed, {progress.lost} lost) in"
            f" {progress.seconds:.0f} s{left}"
        )
        if latest.outcome == "claimed":
            if not self._terminal:
                self._line(f"{latest.owner}: claimed by {latest.worker}")
            return
        if latest.report is not None:
            self.report(latest.report, latest.worker)
        else:
            self._line(f"{latest.owner}: {latest.outcome} by {latest.worker}: {latest.why}")
        if self._terminal:
            self._status(self._tally)
        elif ended == 1 or ended % self._every == 0:
            self._line(self._tally)

    def _status(self, line: str) -> None:
        """Show the line that the next one rewrites, on a terminal."""
        self._write(f"\r\033[K{line}")

    def _line(self, line: str) -> None:
        """Print a line to keep, over the status line on a terminal."""
        self._write(f"\r\033[K{line}\n" if self._terminal else f"{line}\n")

    def _write(self, text: str) -> None:
        """Write in one call: the lines of jobs sharing an output (a log) never cut each other."""
        self._out.write(text)
        self._out.flush()
