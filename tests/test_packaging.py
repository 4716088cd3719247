"""The wheel carries cypher/ and the reference vectors; every .cypher file is a documented single
statement in use."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from graphmem.store.neo4j import load_statements

from .conftest import ROOT

CYPHER_FILES = sorted((ROOT / "cypher").glob("*.cypher"))


def test_the_wheel_ships_and_loads_the_cypher_files(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
        ],
        check=True,
    )
    [wheel] = (tmp_path / "dist").glob("graphmem-*.whl")
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
    )
    shipped = sorted(path.name for path in (site / "graphmem" / "cypher").glob("*.cypher"))
    assert shipped == [path.name for path in CYPHER_FILES]
    # and the offline cognition's e5 vectors of its reference sentences (cognition.meaning)
    assert (site / "graphmem" / "cognition" / "reference-vectors.npz").is_file()
    probe = (
        "from graphmem.store.neo4j import cypher_directory, load_statement;"
        "print(cypher_directory()); print(load_statement('save_turns')[:6])"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        check=True,
    )
    directory, start = done.stdout.splitlines()
    assert directory == str(site / "graphmem" / "cypher")
    assert start == "UNWIND"


@pytest.mark.parametrize("path", CYPHER_FILES, ids=lambda path: path.name)
def test_each_cypher_file_has_a_header_and_one_statement(path: Path) -> None:
    header = [line for line in path.read_text().splitlines() if line.startswith("//")]
    assert header[0].startswith("// Purpose: ")
    assert any(line.startswith("// Parameters: ") for line in header)
    assert any(line.startswith("// Returns: ") for line in header)
    statements = load_statements(path.stem)
    if path.stem == "schema":
        assert len(statements) > 1
        assert all(
            "IF NOT EXISTS" in statement
            or (statement.startswith("DROP INDEX") and "IF EXISTS" in statement)
            for statement in statements
        )
    else:
        assert len(statements) == 1


@pytest.mark.parametrize("path", CYPHER_FILES, ids=lambda path: path.name)
def test_each_cypher_file_is_used_by_the_store(path: Path) -> None:
    store = ROOT / "graphmem" / "store"
    source = "".join(module.read_text() for module in store.glob("neo4j*.py"))
    assert f'"{path.stem}"' in source


def test_the_launcher_and_docker_compose_run_the_same_neo4j() -> None:
    pom = (ROOT / "launcher" / "pom.xml").read_text()
    compose = (ROOT / "docker-compose.yml").read_text()
    [version] = re.findall(r"<neo4j.version>([^<]+)</neo4j.version>", pom)
    [image] = re.findall(r"image: neo4j:(\S+)", compose)
    assert image == f"{version}-community"
    assert int(version.split(".")[0]) >= 2026  # filtered vector search (cypher/schema.cypher)
