"""Every code block of README.md and docs/*.md runs here, in page order, as a reader runs it.

A page runs in a temporary folder of its own (its working directory and HOME), with the
environment of a newcomer (conftest.clean_env) and the installed CLI first on PATH:
- `python` blocks run in one namespace a page; a `text` block right after one is what it prints.
- `console` blocks: each `$ ` command (with its continuation lines and here-document) runs in
  bash, and the lines after it are what it prints (standard error included); it must succeed.
  `$ export NAME=VALUE ...` sets variables for the page's later blocks, as it would in a shell.
- `toml` blocks are written to the file their first line names (`# graphmem.toml`).
- `cypher` blocks run on the tests' Neo4j after the `:param` lines they start with, and must
  return a row.
In expected output `...` stands for any text (doctest's ELLIPSIS).
A block that cannot run as written (the two commands, which install and run this very suite;
scripts/neo4j and docker compose; MCP servers, which run until stopped; `graphmem serve`, started
in the background for the page's later blocks; the error tree) is a
stand-in of STAND_INS, found by its first line, with the check that stands in for running it.
Any other block of another language fails the test.
The pages show `graphmem serve` on its default port; a page runs it, and every block that names
its address, on a free port of its own, while something else listens on the default one.
A page that talks to Neo4j (NEO4J_PAGES) runs on the neo4j_server fixture; the owners it uses
are forgotten before and after it.
"""

import ast
import asyncio
import doctest
import errno
import http.client
import importlib.metadata
import io
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager, redirect_stdout
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

# Cypher blocks are run as Neo4j Browser runs them, raw Cypher over Bolt; the MCP stand-ins
# talk to the server with the SDK's own client, as a desktop client does.
import neo4j  # noqa: TID251
import pytest
from mcp import ClientSession  # noqa: TID251
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: TID251
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import graphmem.errors
from graphmem import GraphMem
from graphmem.cli import SERVE_PORT, parser
from graphmem.testing import Reply, chat_reply, scripted_openai_server, tool_call_reply

from .conftest import ROOT, Neo4jServer, clean_env, free_port

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
"""The pages whose code runs here. README.zh-CN.md holds the English README's code (its
comments translated): tests/test_readme.py keeps it so."""
NEO4J_PAGES = {"docs/neo4j.md": ("ada",)}
"""Pages that talk to Neo4j, with the owners they use: forgotten before and after the page."""
MODEL_PAGES = {"docs/integrations.md"}
"""Pages whose agents call a chat model: OPENAI_BASE_URL is a scripted one (remembering_model)."""
FIRST_MEMORY = re.compile(r"^\[1\] \d{4}-\d\d-\d\d \d\d:\d\d (.+)$", re.MULTILINE)
"""The first memory of a rendered recall, after its number and time."""
BIN = Path(sys.executable).parent
"""The folder of the installed `graphmem` (the virtualenv's bin)."""
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
MCP_TOOLS = {"observe", "observe_many", "recall", "profile", "consolidate", "forget_message"}
SHOWN_PORT = re.compile(rf"(?<=:){SERVE_PORT}\b|(?<=--port ){SERVE_PORT}\b")
"""The default port of `graphmem serve` where a page shows it: in an address or after --port."""


@dataclass(frozen=True)
class Block:
    """A fenced code block of a page: its language, its code and the line it starts on."""

    page: Path
    language: str
    code: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}, line {self.line}"

    @property
    def first_line(self) -> str:
        """The first line of code that is not a comment, its trailing comment cut."""
        for line in self.code.splitlines():
            statement = line.split("  #", 1)[0].strip()
            if statement and not statement.startswith("#"):
                return statement
        return ""


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a Markdown page, in order."""
    text = page.read_text(encoding="utf-8")
    return [
        Block(page, match[1], match[2], text.count("\n", 0, match.start()) + 1)
        for match in FENCE.finditer(text)
    ]


def printed_as_shown(shown: str, printed: str, where: str) -> None:
    """Fail unless the output matches what the page shows (`...` stands for any text)."""
    want = shown.rstrip("\n") + "\n"
    if not doctest.OutputChecker().check_output(want, printed, doctest.ELLIPSIS):
        pytest.fail(f"{where}: the page shows\n{want}but it printed\n{printed}")


@dataclass
class Page:
    """A page being run: its folder, the environment its commands get, its Python namespace."""

    path: Path
    folder: Path
    monkeypatch: pytest.MonkeyPatch
    neo4j_server: Neo4jServer | None
    env: dict[str, str] = field(init=False)
    """The environment of its commands: a newcomer's, its folder as HOME, what it exported."""
    namespace: dict[str, Any] = field(init=False, default_factory=dict)
    printed: str | None = field(init=False, default=None)
    """What the last python block printed, for a text block right after it."""
    servers: ExitStack = field(init=False, default_factory=ExitStack)
    """The `graphmem serve` processes the page started, stopped when it ends."""
    port: int = field(init=False, default_factory=free_port)
    """The free port its blocks use where the page shows the default port of `graphmem serve`."""

    def __post_init__(self) -> None:
        self.env = clean_env() | {"HOME": str(self.folder), "PATH": f"{BIN}:{os.environ['PATH']}"}
        for name in list(os.environ):
            if name.startswith("GRAPHMEM_"):
                self.monkeypatch.delenv(name)
        self.monkeypatch.chdir(self.folder)
        self.monkeypatch.setenv("HOME", str(self.folder))

    def export(self, values: dict[str, str]) -> None:
        """Set variables for the page's later commands and Python blocks."""
        self.env.update(values)
        for name, value in values.items():
            self.monkeypatch.setenv(name, value)

    def run(self, block: Block) -> None:
        """Run one block of the page, after the blocks before it."""
        printed, self.printed = self.printed, None
        stand_in = STAND_INS.get(block.first_line)
        block = replace(block, code=SHOWN_PORT.sub(str(self.port), block.code))
        if stand_in is not None:
            stand_in(self, block)
        elif block.language == "python":
            self.run_python(block)
        elif block.language == "text":
            assert printed is not None, f"{block.where}: a text block follows no python block"
            printed_as_shown(block.code, printed, block.where)
        elif block.language == "console":
            self.run_console(block)
        elif block.language == "toml":
            name = block.code.splitlines()[0].removeprefix("# ").strip()
            assert re.fullmatch(r"[\w.-]+\.toml", name), f"{block.where}: name the file first"
            (self.folder / name).write_text(block.code, encoding="utf-8")
        elif block.language == "cypher":
            self.run_cypher(block)
        else:
            pytest.fail(f"{block.where}: a {block.language or 'plain'} block that no test runs")

    def run_python(self, block: Block) -> None:
        out = io.StringIO()
        with redirect_stdout(out):
            exec(compile(block.code, block.where, "exec"), self.namespace)
        self.printed = out.getvalue()

    def run_console(self, block: Block) -> None:
        for command, shown in console_commands(block):
            exported = re.fullmatch(r"export ((?:\w+=\S+ ?)+)", command)
            if exported:
                self.export(dict(word.split("=", 1) for word in shlex.split(exported[1])))
                continue
            done = subprocess.run(
                ["bash", "-c", f"set -eo pipefail\n{command}"],
                cwd=self.folder,
                env=self.env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=120,
                check=False,
            )
            assert done.returncode == 0, f"{block.where}: $ {command}\n{done.stdout}"
            if shown:
                printed_as_shown(shown, done.stdout, f"{block.where}: $ {command}")

    def run_cypher(self, block: Block) -> None:
        assert self.neo4j_server is not None, f"{block.where}: Cypher on a page without Neo4j"
        lines = block.code.splitlines()
        parameters = {}
        for line in lines:
            declared = re.fullmatch(r":param (\w+) => (.+)", line.strip())
            if declared:
                parameters[declared[1]] = ast.literal_eval(declared[2])
        statement = "\n".join(line for line in lines if not line.startswith(":"))
        server = self.neo4j_server
        with neo4j.GraphDatabase.driver(
            server.uri, auth=(server.user, server.password.get_secret_value())
        ) as driver:
            records, _summary, _keys = driver.execute_query(
                statement, parameters, database_="neo4j", routing_=neo4j.RoutingControl.READ
            )
        assert records, f"{block.where}: the query found nothing"

    def close(self) -> None:
        """Close what the page's Python left open, then stop its servers, whatever fails."""
        with ExitStack() as closing:
            closing.push(self.servers)
            for value in self.namespace.values():
                if isinstance(value, GraphMem):
                    closing.callback(value.close)


@contextmanager
def serving(arguments: list[str], folder: Path, env: dict[str, str]) -> Iterator[str]:
    """`graphmem serve ARGUMENTS` run in `folder`, its address once it answers there; stopped
    after, it must stop well (its memory closed). Its log is a file beside the folder."""
    served = parser().parse_args(["serve", *arguments])
    log = folder.parent / f"{folder.name}-serve.log"
    with log.open("wb") as errors:
        server = subprocess.Popen(
            [str(BIN / "graphmem"), "serve", *arguments],
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
    try:
        while server.poll() is None:  # ready once it answers
            connection = http.client.HTTPConnection(served.host, served.port, timeout=5)
            try:
                connection.request("GET", "/healthz")
                status = connection.getresponse().status
            except OSError:  # not listening yet
                time.sleep(0.1)
                continue
            finally:
                connection.close()
            assert status == 200, f"/healthz answered {status}\n{log.read_text()}"
            break
        else:
            pytest.fail(f"graphmem serve ended with {server.returncode}:\n{log.read_text()}")
        yield f"http://{served.host}:{served.port}"
    finally:
        server.terminate()
        try:
            stopped = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
            raise
    assert stopped == 0, f"graphmem serve stopped with {stopped}:\n{log.read_text()}"


def console_commands(block: Block) -> Iterator[tuple[str, str]]:
    """The commands of a console block, each with the output shown after it."""
    lines = block.code.splitlines()
    index = 0
    while index < len(lines):
        assert lines[index].startswith("$ "), f"{block.where}: not a command: {lines[index]}"
        command = [lines[index].removeprefix("$ ")]
        index += 1
        while command[-1].endswith("\\"):
            command.append(lines[index])
            index += 1
        heredoc = re.search(r"<<-?'?(\w+)'?", command[0])
        if heredoc:
            while lines[index] != heredoc[1]:
                command.append(lines[index])
                index += 1
            command.append(lines[index])
            index += 1
        shown = []
        while index < len(lines) and not lines[index].startswith("$ "):
            shown.append(lines[index])
            index += 1
        yield "\n".join(command), "\n".join(shown)


# The stand-ins: blocks that cannot run as written, and what is checked instead.


def the_two_commands(page: Page, block: Block) -> None:
    """The README's two commands install graphmem and run this suite: not run here. CI runs the
    second exactly; the first installs the demo extra and plays the demo, which is played here
    with the installed CLI."""
    commands = [line for line in block.code.splitlines() if line and not line.startswith("#")]
    install, test = commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == test
    assert install.startswith("python3 -m venv .venv && .venv/bin/pip install '.[demo]' && ")
    played = subprocess.run(
        shlex.split(install.rsplit("&& ", 1)[1].replace(".venv/bin/", f"{BIN}/")),
        cwd=page.folder,
        env=page.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert played.returncode == 0, played.stderr
    assert (page.folder / "graphmem-demo.png").stat().st_size > 0  # the plot


def starting_neo4j(page: Page, block: Block) -> None:
    """scripts/neo4j starts the server and tells its password: the tests' server is taken
    instead, and the variables the block exports are set from it."""
    for command in re.findall(r"scripts/neo4j (\w+)", block.code):
        assert re.search(rf"^\s+{command}\)", (ROOT / "scripts" / "neo4j").read_text(), re.M)
    server = page.neo4j_server
    assert server is not None, f"{block.where}: Neo4j on a page that does not start it"
    assert 'export GRAPHMEM_STORE=neo4j GRAPHMEM_NEO4J_PASSWORD="$(scripts/neo4j password)"' in (
        block.code
    )
    page.export(
        {
            "GRAPHMEM_STORE": "neo4j",
            "GRAPHMEM_NEO4J_URI": server.uri,
            "GRAPHMEM_NEO4J_USER": server.user,
            "GRAPHMEM_NEO4J_PASSWORD": server.password.get_secret_value(),
        }
    )


def docker_compose(page: Page, block: Block) -> None:
    """Docker is not run here: its compose file runs the Neo4j the page and the launcher name."""
    [version] = re.findall(
        r"<neo4j.version>([^<]+)</neo4j.version>", (ROOT / "launcher" / "pom.xml").read_text()
    )
    compose = (ROOT / "docker-compose.yml").read_text()
    assert f"image: neo4j:{version}-community" in compose
    assert block.first_line in compose  # the command its header comment gives
    assert f"Neo4j {version}" in page.path.read_text(encoding="utf-8")


def mcp_servers(page: Page, block: Block) -> None:
    """An MCP server runs until its client goes: the stdio one is started as a desktop client
    starts it and asked for its tools; the HTTP one's arguments are checked against the address
    its comment gives (tests/test_mcp.py serves over HTTP)."""
    for line in block.code.splitlines():
        command, _, comment = line.partition("  # ")
        words = [os.path.expanduser(word) for word in shlex.split(command)]
        assert words[0] == "graphmem"
        arguments = parser().parse_args(words[1:])
        assert arguments.command == "mcp"
        if arguments.transport == "http":
            assert f"http://{arguments.host}:{arguments.port}/mcp" in comment
        else:
            assert listed_tools(str(BIN / "graphmem"), words[1:], page) == MCP_TOOLS


def http_server(page: Page, block: Block) -> None:
    """`graphmem serve` runs until stopped: it is started in the page's folder with the page's
    environment, at the address its comment gives, and the page goes on once it answers."""
    command, _, comment = block.code.strip().partition("  # ")
    words = shlex.split(command)
    assert words[:2] == ["graphmem", "serve"]
    url = page.servers.enter_context(serving(words[2:], page.folder, page.env))
    assert url in comment


def desktop_configuration(page: Page, block: Block) -> None:
    """A desktop client's configuration names the CLI that the first command installs; the
    server it describes is started here with this checkout's CLI and a path in the page's
    folder, and asked for its tools."""
    [server] = json.loads(block.code)["mcpServers"].values()
    assert server["command"].endswith("/.venv/bin/graphmem")
    arguments = [
        str(page.folder / Path(word).name) if word.endswith(".json") else word
        for word in server["args"]
    ]
    assert listed_tools(str(BIN / "graphmem"), arguments, page) == MCP_TOOLS


def listed_tools(program: str, arguments: list[str], page: Page) -> set[str]:
    """The tools an MCP server started over stdio lists."""

    async def ask() -> set[str]:
        parameters = StdioServerParameters(
            command=program, args=arguments, env=page.env, cwd=str(page.folder)
        )
        async with (
            stdio_client(parameters) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return {tool.name for tool in (await session.list_tools()).tools}

    return asyncio.run(ask())


def the_error_tree(page: Page, block: Block) -> None:
    """The tree of errors is graphmem.errors' classes, each under its parent."""
    shown = []
    for line in block.code.splitlines():
        found = re.search(r"\w+Error", line)
        if found is not None:  # else a line that goes on explaining the one above
            shown.append((found.start(), found[0]))
    parents = {}
    for index, (column, name) in enumerate(shown):
        above = [other for other_column, other in shown[:index] if other_column < column]
        parents[name] = above[-1] if above else None
    classes = {
        name: value
        for name, value in vars(graphmem.errors).items()
        if isinstance(value, type) and issubclass(value, graphmem.errors.GraphMemError)
    }
    assert set(parents) == set(classes)
    for name, parent in parents.items():
        bases = [base.__name__ for base in classes[name].__bases__ if base.__name__ in classes]
        assert bases == ([] if parent is None else [parent]), name


STAND_INS: dict[str, Callable[[Page, Block], None]] = {
    "python3 -m venv .venv && .venv/bin/pip install '.[demo]' && .venv/bin/graphmem demo": (
        the_two_commands
    ),
    "scripts/neo4j start": starting_neo4j,
    "GRAPHMEM_NEO4J_PASSWORD=choose-one docker compose up -d --wait": docker_compose,
    "graphmem mcp --owner alice --path ~/graphmem/alice.json": mcp_servers,
    "graphmem serve --port 8420": http_server,
    '{"mcpServers": {"graphmem": {': desktop_configuration,
    "GraphMemError": the_error_tree,
}
"""Blocks not run as written, by their first line (comments aside), and what checks them."""


def content_text(message: dict[str, Any]) -> str:
    """The text of a chat message, whose content is a string or a list of parts."""
    content = message.get("content") or ""
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content)


def remembering_model(body: dict[str, Any]) -> Reply:
    """The chat model of the integrations page, scripted: it calls a memory tool when it may
    (observe for a statement, where offered; else recall), then says the first memory that a
    tool's answer or its instructions hold, or "Noted." when there is none."""
    messages = body["messages"]
    asked = max(place for place, message in enumerate(messages) if message["role"] == "user")
    text = content_text(messages[asked])
    answered = [content_text(message) for message in messages[asked + 1 :]]
    offered = {tool["function"]["name"] for tool in body.get("tools", [])}
    if not answered and "observe" in offered and not text.endswith("?"):
        return tool_call_reply("observe", {"text": text, "message_id": f"said-{len(text)}"})
    recall = next((name for name in ("recall_memory", "recall") if name in offered), None)
    if not answered and recall is not None:
        return tool_call_reply(recall, {"query": text})
    told = [content_text(message) for message in messages if message["role"] == "system"]
    remembered = FIRST_MEMORY.search("\n".join(answered + told))
    return chat_reply("Noted." if remembered is None else f"You told me: {remembered[1]}")


def page_param(page: Path) -> Any:
    name = str(page.relative_to(ROOT))
    marks = [pytest.mark.neo4j] if name in NEO4J_PAGES else []
    return pytest.param(page, id=name, marks=marks)


@pytest.fixture
def shown_port_taken() -> Iterator[None]:
    """Something else listening on the default port of `graphmem serve`, as on a machine where
    it is in use: a socket of the test's, unless another process holds the port already."""
    with socket.socket() as other:
        try:
            other.bind(("127.0.0.1", SERVE_PORT))
            other.listen()
        except OSError as error:
            if error.errno != errno.EADDRINUSE:
                raise
        yield


@pytest.mark.parametrize("page", [page_param(page) for page in PAGES])
@pytest.mark.usefixtures("shown_port_taken")
def test_the_code_of_each_page_runs(
    page: Path,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owners = NEO4J_PAGES.get(str(page.relative_to(ROOT)), ())
    server: Neo4jServer | None = request.getfixturevalue("neo4j_server") if owners else None
    running = Page(page, tmp_path, monkeypatch, server)
    code = "\n".join(block.code for block in blocks(page))
    for named in re.findall(r"--owner (\S+)|owner => '([^']+)'", code):
        assert not owners or set(named) - {""} <= set(owners), f"add {named} to NEO4J_PAGES"
    forget_owners(server, owners)
    with ExitStack() as stack:
        if str(page.relative_to(ROOT)) in MODEL_PAGES:
            model = stack.enter_context(scripted_openai_server(remembering_model))
            running.export(
                {
                    "OPENAI_BASE_URL": model.base_url,
                    "OPENAI_API_KEY": "scripted",
                    "OPENAI_AGENTS_DISABLE_TRACING": "1",
                    "PATH": running.env["PATH"],  # an agent's MCP server finds the CLI
                }
            )
        try:
            for block in blocks(page):
                running.run(block)
        finally:
            running.close()
            forget_owners(server, owners)


def forget_owners(server: Neo4jServer | None, owners: tuple[str, ...]) -> None:
    """Forget the owners a Neo4j page uses, so that it starts and leaves the server clean."""
    if server is None:
        return
    store = server.store()
    try:
        for owner in owners:
            store.forget(owner)
    finally:
        store.close()


def test_every_stand_in_is_on_a_page() -> None:
    first_lines = {block.first_line for page in PAGES for block in blocks(page)}
    assert set(STAND_INS) <= first_lines


def test_the_extras_a_page_names_install_what_its_python_imports() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras: dict[str, list[str]] = project["optional-dependencies"]
    providers = importlib.metadata.packages_distributions()
    for page in PAGES:
        named = set(re.findall(r"graphmem\[([\w-]+)\]", page.read_text(encoding="utf-8")))
        given = [*project["dependencies"], *(wanted for extra in named for wanted in extras[extra])]
        installed = installed_with(given)
        for block in blocks(page):
            if block.language != "python":
                continue
            for module in imported_modules(block.code) - {"graphmem", *sys.stdlib_module_names}:
                distributions = {canonicalize_name(name) for name in providers.get(module, [])}
                assert distributions & installed, (
                    f"{block.where}: {module} ({', '.join(distributions)}) is installed neither"
                    f" by graphmem nor by an extra the page names ({', '.join(sorted(named))})"
                )


def imported_modules(code: str) -> set[str]:
    """The top-level modules a Python block imports."""
    modules = set()
    for statement in ast.walk(ast.parse(code)):
        if isinstance(statement, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in statement.names}
        elif isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
            modules.add(statement.module.split(".")[0])
    return modules


def installed_with(requirements: Iterable[str]) -> set[str]:
    """The distributions that installing these requirements here installs, by their metadata."""
    installed: set[str] = set()
    seen: set[tuple[str, frozenset[str]]] = set()
    waiting = [(Requirement(text), frozenset({""})) for text in requirements]
    while waiting:  # each with the extras of what required it ("" for none)
        requirement, wanted = waiting.pop()
        name, extras = canonicalize_name(requirement.name), frozenset(requirement.extras)
        marker = requirement.marker
        if (marker and not any(marker.evaluate({"extra": e}) for e in wanted)) or (
            (name, extras) in seen
        ):
            continue
        seen.add((name, extras))
        installed.add(name)
        theirs = importlib.metadata.requires(name) or []
        waiting += [(Requirement(text), extras | {""}) for text in theirs]
    return installed


def test_the_typescript_clients_engines_ask_for_the_node_its_tests_run_on() -> None:
    client = ROOT / "clients" / "typescript"
    script = (ROOT / "scripts" / "test-typescript").read_text(encoding="utf-8")
    [oldest] = re.findall(r"\[ \"\$\(node -p .+\)\" -lt (\d+) \]", script)
    [installed] = re.findall(r"^NODE_VERSION=(\d+)\.", script, re.MULTILINE)
    engines = json.loads((client / "package.json").read_text(encoding="utf-8"))["engines"]
    assert engines == {"node": f">={oldest}"}
    assert installed == oldest
    assert "engine-strict=true" in (client / ".npmrc").read_text().splitlines()  # npm ci says so


def test_no_link_leaves_the_repository() -> None:
    for page in [*PAGES, ROOT / "README.zh-CN.md"]:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            path = target.split("#", 1)[0]
            assert ":" not in path, f"{page.name} links out of the repository: {target}"
            if path:
                resolved = (page.parent / path).resolve()
                assert resolved.is_relative_to(ROOT), f"{page.name}: {target} leaves it"
                assert resolved.exists(), f"{page.name}: no {target}"


def test_the_readme_links_every_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {Path(target) for target in LINK.findall(readme)}
    for page in PAGES[1:]:
        assert page.relative_to(ROOT) in linked, f"README.md does not link {page.name}"


def test_the_files_the_pages_name_exist() -> None:
    folders = {path.name for path in ROOT.iterdir() if path.is_dir()}
    for page in [*PAGES, ROOT / "README.zh-CN.md"]:
        for named in re.findall(r"`([\w.-]+/[\w./-]*)`", page.read_text(encoding="utf-8")):
            if named.split("/")[0] in folders:
                assert (ROOT / named).exists(), f"{page.name} names {named}, which is not there"
