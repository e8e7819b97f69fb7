"""The layers hold: `cli/`, `web/` and `mcp_server/` call `services/`, which calls the
workflows, the store, the vault and retrieval; nothing below calls up; and no module imports
itself back through others (an import circle). Read from the source with `ast`, imports
inside functions included (the CLI imports late to start fast), `if TYPE_CHECKING:` blocks
left out."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
FRONT_ENDS = ("zettelgraph.cli", "zettelgraph.web", "zettelgraph.mcp_server")
# `export` writes what services choose (approved cards) to files for other tools: it sits on
# the service floor, beside `services`, and uses their card filter and errors.
UPPER = ("zettelgraph.services", "zettelgraph.export", *FRONT_ENDS)
# What a front end may take from below the service floor: types, errors and settings objects
# it names, not work it does.
FRONT_END_MAY_IMPORT = (
    "zettelgraph.workflows.context",  # the collaborators (Services) a front end opens and passes
    "zettelgraph.store.base",  # the store protocol and its error types
    "zettelgraph.retrieval.recipes",  # search recipes, a setting the user picks
)
BELOW = ("workflows", "store", "vault", "retrieval", "ingest")


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Modules of the package that `name` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import):
                out.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                out.add(base)
                out.update(f"{base}.{alias.name}" for alias in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in out if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_nothing_below_the_service_floor_imports_it_or_a_front_end() -> None:
    wrong = [
        (name, target)
        for name, targets in GRAPH.items()
        if not _under(name, UPPER)
        for target in targets
        if _under(target, UPPER)
    ]
    assert wrong == []


def test_services_do_not_import_front_ends() -> None:
    wrong = [
        (name, target)
        for name, targets in GRAPH.items()
        if _under(name, ("zettelgraph.services",))
        for target in targets
        if _under(target, FRONT_ENDS)
    ]
    assert wrong == []


def test_front_ends_reach_the_lower_layers_only_through_services() -> None:
    below = tuple(f"zettelgraph.{layer}" for layer in BELOW)
    wrong = [
        (name, target)
        for name, targets in GRAPH.items()
        if _under(name, FRONT_ENDS)
        for target in targets
        if _under(target, below) and not _under(target, FRONT_END_MAY_IMPORT)
    ]
    assert wrong == []


def test_no_import_circle() -> None:
    """Tarjan's strongly connected components: every one must be a single module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in GRAPH[node]:
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in GRAPH:
        if node not in index:
            connect(node)
    assert circles == []
