"""The house's arrows: no graphmem module imports one that imports it back; faces use the facade."""

import ast
from pathlib import Path

from .conftest import ROOT

PACKAGE = ROOT / "graphmem"
FACES = {
    "graphmem.__main__",
    "graphmem.cli",
    "graphmem.file_formats",
    "graphmem.mcp_server",
    "graphmem.server",
    "graphmem.client",
}
"""What users run, and the command line's files: they reach the graph through the facade."""
FACADES = {"graphmem.memory", "graphmem.aio"}
"""GraphMem, and the same verbs for asyncio."""


def is_face(module: str) -> bool:
    """Whether a module is a face or part of one (the demo's story and plot, the integrations)."""
    return module in FACES or module.startswith(("graphmem.demo", "graphmem.integrations"))


def module_name(path: Path) -> str:
    """The dotted name of a module file of the package (a package by its __init__)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The graphmem modules a file imports, wherever in the file (type-checking blocks too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def import_graph() -> dict[str, set[str]]:
    """Each graphmem module and the graphmem modules it imports."""
    files = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    return {name: imports(path) & set(files) - {name} for name, path in files.items()}


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


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = import_graph()
    assert {"graphmem.memory", "graphmem.ingestion", "graphmem.recall_pipeline"} <= set(graph)
    assert cycles(graph) == []


def test_the_package_imports_its_facade_and_nothing_below_imports_the_package() -> None:
    graph = import_graph()
    assert "graphmem.memory" in graph["graphmem"]
    below = [name for name, imported in graph.items() if "graphmem" in imported]
    assert all(map(is_face, below))  # a face may read graphmem.__version__


def test_the_faces_reach_the_graph_only_through_the_facade_and_its_types() -> None:
    graph = import_graph()
    for face in filter(is_face, graph):
        reached = {name for name in graph[face] if name.startswith("graphmem.store")}
        assert reached == set(), f"{face} imports {sorted(reached)}"


def test_the_pipelines_do_not_reach_up_to_the_facade_or_the_faces() -> None:
    graph = import_graph()
    for name, imported in graph.items():
        above = {module for module in imported if is_face(module)}
        if name not in {"graphmem", *FACADES} and not is_face(name):
            above |= imported & {"graphmem", *FACADES}
            assert above == set(), f"{name} imports {sorted(above)}"
