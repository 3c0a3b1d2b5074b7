"""The import graph of ``src/embedanon``: rooms in floors, no import back up, no circle.

The rooms of the house, from the ground up (one row a floor; see docs/development.md). A room is
a top-level module or package of ``embedanon``; it may import rooms on lower floors only, never
one on its own floor or above, not even inside a function or under ``TYPE_CHECKING``. Inside a
room, modules may import each other but never in a circle. A registry's name table
(``"embedanon.mechanisms.knn:KnnMechanism"``) counts as an import by the registry, so a plug-in
that imported its registry back would close a circle here. Nothing in ``src/`` or ``tests/``
imports or names the lab, ``research/``.

The graph is read from the source (``ast``), nothing is imported, and every import statement
counts wherever it stands.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"

#: The floors, ground first. "embedanon" is the package's face (``__init__.py``).
FLOORS: tuple[tuple[str, ...], ...] = (
    ("errors", "_paths", "_english", "lexicon", "language"),
    ("text", "_validate", "_atomic", "_registry", "structure"),
    ("leakguard", "noise", "_cache", "compressed"),
    ("io", "vectors", "backends", "keys", "resume"),
    ("parquet", "mechanisms", "detectors", "utility"),
    ("surrogates",),
    ("config",),
    ("privacy",),
    ("pipeline",),
    ("embedanon",),
    ("files", "experiments", "review", "dask", "pandas"),
    ("cli",),
    ("__main__",),
)

def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _targets(tree: ast.Module, name: str, is_package: bool, modules: set[str]) -> set[tuple[str, int]]:
    """``(imported module, line)`` of every import in ``tree``: statements anywhere, literal
    ``importlib.import_module("...")`` calls and registry targets ``"package.module:attribute"``."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[tuple[str, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add((sub if sub in modules else target, node.lineno))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) \
                == "import_module" and node.args and isinstance(node.args[0], ast.Constant):
            found.add((str(node.args[0].value), node.lineno))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            head, sep, attribute = node.value.partition(":")
            if sep and head in modules and attribute.isidentifier():
                found.add((head, node.lineno))
    return found


def _graph(root: Path) -> dict[str, set[tuple[str, int]]]:
    """Module -> the ``embedanon`` modules it imports (with the line), for every module under root."""
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    modules = set(paths)
    graph: dict[str, set[tuple[str, int]]] = {}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found = _targets(tree, name, path.name == "__init__.py", modules)
        graph[name] = {(t, line) for t, line in found if t.split(".")[0] == "embedanon" and t != name}
    return graph


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


FLOOR = {name: level for level, rooms in enumerate(FLOORS) for name in rooms}
GRAPH = _graph(SRC)


def _back_up(graph: dict[str, set[tuple[str, int]]]) -> set[tuple[str, str, int]]:
    """Imports from a room to another on the same floor or above."""
    return {(source, target, line) for source, targets in graph.items() for target, line in targets
            if room(source) != room(target) and FLOOR[room(target)] >= FLOOR[room(source)]}


def _circles(graph: dict[str, set[tuple[str, int]]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    edges = {m: sorted({t for t, _ in ts if t in graph}) for m, ts in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(edges[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return out


def test_every_room_stands_on_a_floor() -> None:
    rooms = {room(m) for m in GRAPH}
    assert rooms - set(FLOOR) == set(), "place each new room on a floor of FLOORS"
    assert set(FLOOR) - rooms == set(), "a room of FLOORS no longer exists"
    assert len(FLOOR) == sum(map(len, FLOORS)), "a room stands on two floors"


def test_no_import_runs_back_up() -> None:
    lines = sorted(f"{s} (line {n}) imports {t}: {room(s)} is not above {room(t)}" for s, t, n in _back_up(GRAPH))
    assert lines == []


def test_no_circle_of_imports() -> None:
    circles = _circles(GRAPH)
    described = []
    for members in circles:
        ties = sorted(f"{s} -> {t}" for s in members for t, _ in GRAPH[s] if t in members)
        described.append(f"{', '.join(members)}: {'; '.join(ties)}")
    assert described == []


def test_the_checks_catch_what_they_are_for() -> None:
    """Negative controls: a back import, a circle, a hidden function-level import and a
    registry target are all seen."""
    graph = {
        "embedanon.text": {("embedanon.pipeline", 3)},
        "embedanon.pipeline": {("embedanon.pipeline.document", 1)},
        "embedanon.pipeline.document": {("embedanon.pipeline", 1)},
    }
    assert _back_up(graph) == {("embedanon.text", "embedanon.pipeline", 3)}
    assert _circles(graph) == [["embedanon.pipeline", "embedanon.pipeline.document"]]
    source = ("def f():\n    from ..pipeline import anonymize_text\n"
              "TABLE = {'knn': 'embedanon.mechanisms.knn:KnnMechanism'}\n")
    modules = {"embedanon.detectors.features", "embedanon.pipeline", "embedanon.mechanisms.knn"}
    assert _targets(ast.parse(source), "embedanon.detectors.features", False, modules) == {
        ("embedanon.pipeline", 2), ("embedanon.mechanisms.knn", 3)}


def _imports_of(root: Path) -> dict[str, list[str]]:
    """Per file under root: the absolute modules it imports (statements anywhere, and literal
    ``import_module`` calls)."""
    out: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found = _targets(tree, "", False, set())
        out[str(path.relative_to(REPO))] += [target for target, _ in found if target]
    return out


@pytest.mark.parametrize("wing", ["src", "tests"])
def test_nothing_imports_the_lab(wing: str) -> None:
    found = sorted(f"{path}: {target}" for path, targets in _imports_of(REPO / wing).items()
                   for target in targets if target.split(".")[0] == "research")
    assert found == []
    control = _targets(ast.parse("import research.privacy.table\n"), "", False, set())
    assert control == {("research.privacy.table", 1)}  # what the check would catch
