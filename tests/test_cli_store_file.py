"""Where the command line keeps the embedded store: a per-user file unless told otherwise."""

import asyncio
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from graphmem.cli import SERVE_PORT
from graphmem.config import user_store_file
from graphmem.store.networkx import NetworkXStore

from .conftest import clean_env, free_port, run_forked
from .test_docs import serving
from .test_mcp import Launch, connected, structured

PARIS = json.dumps({"text": "I live in Paris.", "message_id": "p1"}) + "\n"
FIRST_USE = "graphmem: the memory is kept in {path} ("
"""How the first command on the per-user file starts its line on standard error."""


def test_what_observe_stores_without_a_path_the_next_recall_finds(user_data_folder: Path) -> None:
    file = user_data_folder / "graphmem" / "graph.json"
    observed = run_forked(["observe", "--owner", "a"], clean_env(), PARIS)
    assert observed.returncode == 0, observed.stderr
    assert observed.stdout == "p1: attention 2.0\n"
    [note] = observed.stderr.splitlines()
    assert note.startswith(FIRST_USE.format(path=file)), note
    assert file.exists()

    asked = ["recall", "--owner", "a", "Where do I live?", "--min-confidence", "0", "--json"]
    recalled = run_forked(asked, clean_env())
    assert recalled.returncode == 0, recalled.stderr
    assert recalled.stderr == ""  # said once, on first use
    [found] = json.loads(recalled.stdout)["memories"]
    assert found["memory"]["text"] == "I live in Paris."


def test_without_xdg_data_home_the_file_is_under_the_home_folder(tmp_path: Path) -> None:
    environment = {key: value for key, value in clean_env().items() if key != "XDG_DATA_HOME"} | {
        "HOME": str(tmp_path)
    }
    done = run_forked(["observe", "--owner", "a"], environment, PARIS)
    assert done.returncode == 0, done.stderr
    file = tmp_path / ".local" / "share" / "graphmem" / "graph.json"
    assert done.stderr.startswith(FIRST_USE.format(path=file)), done.stderr
    assert file.exists()


def test_a_path_given_anywhere_leaves_the_per_user_file_alone(
    tmp_path: Path, user_data_folder: Path
) -> None:
    config = tmp_path / "settings.toml"
    config.write_text(f'path = "{tmp_path / "from-file.json"}"\n')
    for arguments, variables, file in [
        (["--path", str(tmp_path / "flag.json")], {}, tmp_path / "flag.json"),
        ([], {"GRAPHMEM_PATH": str(tmp_path / "variable.json")}, tmp_path / "variable.json"),
        (["--config", str(config)], {}, tmp_path / "from-file.json"),
    ]:
        done = run_forked(["observe", "--owner", "a", *arguments], clean_env() | variables, PARIS)
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""
        assert file.exists()
    assert not (user_data_folder / "graphmem").exists()


def test_in_memory_keeps_nothing_once_the_command_ends(tmp_path: Path) -> None:
    world = tmp_path / "world"
    folders = ("home", "data", "config", "cache", "state", "temporary", "work")
    places = {name: world / name for name in folders}
    for folder in places.values():
        folder.mkdir(parents=True)
    environment = clean_env() | {
        "HOME": str(places["home"]),
        "XDG_DATA_HOME": str(places["data"]),
        "XDG_CONFIG_HOME": str(places["config"]),
        "XDG_CACHE_HOME": str(places["cache"]),
        "XDG_STATE_HOME": str(places["state"]),
        "TMPDIR": str(places["temporary"]),
    }

    def graphmem(*arguments: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        """Run one command in the fresh working folder, with the fresh user folders."""
        return subprocess.run(
            [sys.executable, "-m", "graphmem", *arguments],
            cwd=places["work"],
            env=environment,
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )

    observed = graphmem("observe", "--owner", "a", "--in-memory", stdin=PARIS)
    assert (observed.returncode, observed.stdout, observed.stderr) == (0, "p1: attention 2.0\n", "")
    recalled = graphmem("recall", "--owner", "a", "Paris?", "--in-memory")
    assert recalled.returncode == 0, recalled.stderr
    assert recalled.stdout.startswith("searched ")
    assert "; 0 memories\n" in recalled.stdout
    assert recalled.stderr.startswith("graphmem: unknown owner 'a'")
    made = sorted(str(path.relative_to(world)) for path in world.rglob("*"))
    assert made == sorted(folders)  # not a file, not a folder, anywhere the commands could write

    both = run_forked(["stats", "--owner", "a", "--in-memory", "--path", "x.json"], clean_env())
    assert both.returncode == 2
    assert "argument --path: not allowed with argument --in-memory" in both.stderr
    neo4j = run_forked(["stats", "--owner", "a", "--in-memory", "--store", "neo4j"], clean_env())
    assert neo4j.returncode == 1
    assert neo4j.stderr == (
        "graphmem: --in-memory is for the networkx store; the neo4j store keeps the memory in"
        " its server\n"
    )


def test_the_demo_plays_in_memory_and_says_so(tmp_path: Path, user_data_folder: Path) -> None:
    done = run_forked(["demo", "--plot", str(tmp_path / "plot.png"), "--lang", "en"], clean_env())
    assert done.returncode == 0, done.stderr
    assert "networkx, in memory only (pass --path FILE to keep it)" in done.stdout
    assert not (user_data_folder / "graphmem").exists()


def test_the_mcp_server_keeps_the_per_user_file(user_data_folder: Path) -> None:
    file = user_data_folder / "graphmem" / "graph.json"
    launch = Launch(("--owner", "a"), clean_env(), lambda: NetworkXStore.open(file))

    async def observe() -> None:
        async with connected(launch) as session:
            message = {"text": "I live in Paris.", "message_id": "p1"}
            result = await session.call_tool("observe", message)
            assert structured(result)["turn"]["id"] == "p1"

    asyncio.run(observe())
    assert file.exists()
    asked = ["recall", "--owner", "a", "Where do I live?", "--min-confidence", "0", "--json"]
    recalled = run_forked(asked, clean_env())
    assert recalled.returncode == 0, recalled.stderr
    [found] = json.loads(recalled.stdout)["memories"]
    assert [turn["id"] for turn in found["turns"]] == ["p1"]


def test_the_per_user_file_is_in_the_platform_data_folder() -> None:
    home = {"HOME": "/home/ann"}
    assert user_store_file(home, "linux") == Path("/home/ann/.local/share/graphmem/graph.json")
    assert user_store_file(home | {"XDG_DATA_HOME": "/data"}, "linux") == Path(
        "/data/graphmem/graph.json"
    )
    assert user_store_file(home | {"XDG_DATA_HOME": "relative"}, "linux") == Path(
        "/home/ann/.local/share/graphmem/graph.json"
    )  # the XDG specification ignores a relative path
    assert user_store_file({"HOME": "/Users/ann"}, "darwin") == Path(
        "/Users/ann/Library/Application Support/graphmem/graph.json"
    )
    local = "C:\\Users\\ann\\AppData\\Local"
    assert user_store_file(home | {"LOCALAPPDATA": local}, "win32") == (
        Path(local) / "graphmem" / "graph.json"
    )


def test_keys_on_a_file_that_graphmem_serve_holds_say_both_ways_to_manage_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "graph.json"
    where = ["--path", str(path)]
    with serving(["--port", str(free_port()), *where], tmp_path, clean_env()) as url:
        said = {}
        for action, route in [
            (["create", "--owner", "alice"], "create the key through the server (POST /v1/keys)"),
            (["list"], "list the keys through the server (GET /v1/keys)"),
            (["revoke", "KEY-ID"], "revoke the key through the server (POST /v1/keys/{id}/revoke)"),
        ]:
            done = run_forked(["keys", *action, *where], clean_env())
            assert (done.returncode, done.stdout) == (1, "")
            [line] = done.stderr.splitlines()
            assert line.startswith(f"graphmem: {path} is open in another process. "), line
            assert "stop the server and run this command again" in line
            assert f"{route} with an admin key" in line
            said[action[0]] = line
        assert "a server with no key yet creates its first key" in said["create"]
        first_key = "curl -X POST -H 'Content-Type: application/json' -d '{\"admin\": true}'"
        assert f"`{first_key} http://127.0.0.1:{SERVE_PORT}/v1/keys`" in said["create"]

        # The commands it suggests work as written, at the server's address.
        if shutil.which("curl") is None:
            pytest.skip("no curl to run the commands suggested")

        def run(line: str, which: int, replaced: dict[str, str]) -> Any:
            command = re.findall(r"`(curl [^`]+)`", line)[which]
            command = command.replace(f"http://127.0.0.1:{SERVE_PORT}", url)
            for shown, value in replaced.items():
                command = command.replace(shown, value)
            done = subprocess.run(
                ["bash", "-c", f"{command} --silent --fail-with-body"],
                capture_output=True,
                text=True,
                check=False,
            )
            assert done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"
            return json.loads(done.stdout)

        first = run(said["create"], 1, {})  # no key yet: the first is made without one
        admin = {"ADMIN_KEY": first["secret"]}
        alice = run(said["create"], 0, admin)
        assert alice["key"]["owners"] == ["alice"]
        listed = run(said["list"], 0, admin)
        assert {key["id"] for key in listed} == {first["key"]["id"], alice["key"]["id"]}
        revoked = run(said["revoke"], 0, admin | {"KEY-ID": alice["key"]["id"]})
        assert revoked["revoked_at"] is not None
