"""The command line as a user runs it: its verbs, settings and errors (the demo: test_demo.py)."""

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from graphmem.config import Settings
from graphmem.memory import GraphMem

from .conftest import ROOT

START = datetime(2026, 3, 1, 9, tzinfo=UTC)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def run_cli(*arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphmem", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_missing_password_is_reported_plainly() -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GRAPHMEM_")}
    done = run_cli("demo", "--store", "neo4j", env=env)
    assert done.returncode == 1
    assert done.stderr == "graphmem: the neo4j store needs GRAPHMEM_NEO4J_PASSWORD\n"


def test_consolidate_runs_for_every_owner_with_log_lines(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    memory = GraphMem.open(Settings(path=path))
    for owner in ("ann", "bob"):
        for number, text in enumerate(["My throat hurts.", "I'm worried.", "I'm in a good mood."]):
            memory.observe(owner, text, message_id=f"m{number}", at=START + number * HOUR)
    memory.close()
    arguments = ["--path", str(path), "--at", (START + DAY).isoformat(), "--log-every", "2"]
    done = run_cli("consolidate", "--all", *arguments)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for owner in ("ann", "bob"):
        # Log lines (not a terminal): the first item of each step and every second one after.
        assert f"{owner}: fact 1, " in done.stdout
        assert f"{owner}: fact 2, " in done.stdout
        assert f"{owner}: fact 3, " not in done.stdout
        [summary] = [line for line in lines if line.startswith(f"{owner}: done in")]
        assert "facts 3" in summary
        assert "summaries 1" in summary
        assert "judge_facts" in summary
    again = run_cli("consolidate", "--owner", "ann", *arguments)
    assert "ann: done in" in again.stdout
    assert "model calls: none" in again.stdout


def test_consolidate_refuses_a_time_without_offset(tmp_path: Path) -> None:
    done = run_cli(
        "consolidate", "--owner", "ann", "--path", str(tmp_path / "g.json"), "--at", "2026-03-01"
    )
    assert done.returncode == 1
    assert done.stderr == "graphmem: at must be timezone-aware\n"
