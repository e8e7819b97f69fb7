"""The layers hold: `cli/`, `web/` and `mcp_server/` call `services/`, which calls the
workflows, the store, the vault and retrieval; nothing below calls up; a front end does not
import another (the CLI only starts the web app and the MCP server); the floor packages
(`text/`, `system/`) import nothing else of zettelgraph; no module imports itself back
through others (an import circle); and no package's parts import each other in a circle
either (`store` -> `text_analysis` -> `retrieval` -> `store` was one though no single module
closed it). Read
from the source with `ast`, every import an edge: those inside functions (the CLI imports
late to start fast) and those under `if TYPE_CHECKING:` (a circle that type checking alone
closes still ties the modules together: neither can be read, moved or tested without the
other)."""

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
    "zettelgraph.context",  # the collaborators (Services) a front end opens and passes
    "zettelgraph.store.base",  # the store protocol and its error types
    "zettelgraph.retrieval.recipes",  # search recipes, a setting the user picks
)
# The layers below the service floor. `context` (the `Services` bundle services and workflows
# receive, with the biography writer it picks) serves more than the workflows, but it opens the
# store, the vault and the models: below the service floor like them, so a front end names
# `Services` and calls nothing else of theirs.
BELOW = ("context", "workflows", "store", "vault", "retrieval", "ingest")
# Floor packages: pure helpers every layer may use, importing nothing else of zettelgraph (only
# each other), so no layer reaches another through them. `models/` imports the floor.
FLOOR = ("zettelgraph.text", "zettelgraph.system")
# The one crossing between front ends: the CLI starts the web app (`serve`) and the MCP server
# (`mcp`). What two front ends share (the HTTP security rules, say) lives on the service floor.
CLI_STARTS = (
    "zettelgraph.web.app",
    "zettelgraph.web.workers",
    "zettelgraph.mcp_server.server",
    "zettelgraph.mcp_server.state",
)


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
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return {m for m in out if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}

# Imports that still close a circle, each named by the edge that should go (the one against
# the layers' direction, or the type-only one). Debt, not permission: remove an entry when
# its edge goes (`test_every_known_circle_edge_is_still_there` says when); never add one for
# new code. None is left: issue 29 took the last three away.
KNOWN_CIRCLE_EDGES: set[tuple[str, str]] = set()


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


def test_the_floor_packages_import_nothing_above_the_floor() -> None:
    wrong = [
        (name, target)
        for name, targets in GRAPH.items()
        if _under(name, FLOOR)
        for target in targets
        if not _under(target, FLOOR)
    ]
    assert wrong == []


def _front_end(name: str) -> str | None:
    return next((front for front in FRONT_ENDS if _under(name, (front,))), None)


def test_front_ends_do_not_import_each_other() -> None:
    """`mcp_server/` never imports `web/` (nor the reverse, nor either of them the CLI), and
    the CLI takes from the other two only what starts them."""
    wrong = [
        (name, target)
        for name, targets in GRAPH.items()
        for target in targets
        if _front_end(name) is not None
        and _front_end(target) not in (None, _front_end(name))
        and not (_front_end(name) == "zettelgraph.cli" and target in CLI_STARTS)
    ]
    assert wrong == []


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one node: the circles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
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

    for node in graph:
        if node not in index:
            connect(node)
    return circles


def _graph_without_known_edges() -> dict[str, set[str]]:
    return {
        name: {target for target in targets if (name, target) not in KNOWN_CIRCLE_EDGES}
        for name, targets in GRAPH.items()
    }


def test_no_import_circle() -> None:
    assert _circles(_graph_without_known_edges()) == []


def _parts_of(package: str, graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The imports between the direct parts of `package` (its modules and subpackages, each
    part standing for everything inside it)."""
    depth = package.count(".") + 2

    def part(name: str) -> str | None:
        inside = name.startswith(package + ".")
        return ".".join(name.split(".")[:depth]) if inside else None

    parts: dict[str, set[str]] = {}
    for name, targets in graph.items():
        source = part(name)
        if source is None:
            continue
        for target in targets:
            other = part(target)
            if other is not None and other != source:
                parts.setdefault(source, set()).add(other)
    return parts


def test_no_circle_between_the_parts_of_a_package() -> None:
    graph = _graph_without_known_edges()
    packages = sorted(name for name, path in MODULES.items() if path.name == "__init__.py")
    circles = {package: _circles(_parts_of(package, graph)) for package in packages}
    assert {package: found for package, found in circles.items() if found} == {}


def test_every_known_circle_edge_is_still_there() -> None:
    """An edge that has gone comes off `KNOWN_CIRCLE_EDGES`, so the list stays the debt."""
    gone = [edge for edge in KNOWN_CIRCLE_EDGES if edge[1] not in GRAPH.get(edge[0], set())]
    assert gone == []
