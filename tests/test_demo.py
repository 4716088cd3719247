"""`graphmem demo` as a newcomer runs it, on both stores."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, Neo4jServer


def run_demo(
    *arguments: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphmem", "demo", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def recalled(output: str, query: str) -> list[str]:
    """The memory texts printed under one recall."""
    block = output.split(f"recall: {query}\n")[1].split("\n\n", maxsplit=1)[0]
    return [line.split("  ", 2)[2] for line in block.splitlines() if line[2].isdigit()]


def check_demo_output(output: str) -> None:
    assert recalled(output, "Is it safe for me to drink this milk?")[0] == (
        "I'm allergic to milk: even a little makes my throat swell."
    )
    assert "My throat is sore and I've felt tired all afternoon." in recalled(
        output, "I started having a fever"
    )
    assert recalled(output, "做什么菜好呢？")[0] == "我最近在学做川菜，麻婆豆腐已经做得不错了。"


def test_the_demo_runs_on_the_embedded_store(tmp_path: Path) -> None:
    done = run_demo("--plot", str(tmp_path / "plot.png"))
    assert done.returncode == 0, done.stderr
    check_demo_output(done.stdout)
    assert "on the networkx store" in done.stdout
    assert "    conjecture (belief 0.72): The user has a cold\n" in done.stdout


@pytest.mark.neo4j
def test_the_demo_runs_on_neo4j(neo4j_server: Neo4jServer, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "GRAPHMEM_NEO4J_URI": neo4j_server.uri,
        "GRAPHMEM_NEO4J_PASSWORD": neo4j_server.password.get_secret_value(),
    }
    done = run_demo("--store", "neo4j", "--plot", str(tmp_path / "plot.png"), env=env)
    assert done.returncode == 0, done.stderr
    check_demo_output(done.stdout)
    assert "on the neo4j store" in done.stdout
