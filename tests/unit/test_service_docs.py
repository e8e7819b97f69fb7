"""`services/` is the API the CLI, the web app and the MCP server read: every public function
and method there says what each parameter is (`Args:`) and what comes back (`Returns:`, or
`Yields:` for a generator), so a front-end author need not read the body. Read from the source
with `ast`; private names (leading underscore) and properties (documented as attributes) are
left out."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

SERVICES = Path(__file__).resolve().parents[2] / "src" / "zettelgraph" / "services"
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _public_functions(tree: ast.Module) -> Iterator[tuple[str, FunctionNode]]:
    for node in tree.body:
        if isinstance(node, FunctionNode) and not node.name.startswith("_"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, FunctionNode) and not item.name.startswith("_"):
                    yield f"{node.name}.{item.name}", item


def _is_property(node: FunctionNode) -> bool:
    return any(
        (isinstance(d, ast.Name) and d.id in {"property", "cached_property"})
        or (isinstance(d, ast.Attribute) and d.attr in {"setter", "cached_property"})
        for d in node.decorator_list
    )


def _parameters(node: FunctionNode) -> list[str]:
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return [name for name in names if name not in {"self", "cls"}]


def _returns_something(node: FunctionNode) -> bool:
    returns = node.returns
    if returns is None:
        return False
    text = ast.unparse(returns)
    return text not in {"None", "NoReturn", "Never", "typing.NoReturn"}


def _section(doc: str, title: str) -> str | None:
    """The text of a Google-style section (`Args:` ...), up to the next section or the end."""
    match = re.search(rf"^(\s*){title}:\s*$", doc, re.MULTILINE)
    if match is None:
        return None
    indent = len(match.group(1))
    lines = []
    for line in doc[match.end() :].splitlines()[1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        lines.append(line)
    return "\n".join(lines)


def _problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    problems = []
    for name, node in _public_functions(tree):
        where = f"{path.name}:{node.lineno} {name}"
        doc = ast.get_docstring(node) or ""
        if not doc:
            problems.append(f"{where}: no docstring")
            continue
        if _is_property(node):
            continue
        parameters = _parameters(node)
        if parameters:
            args = _section(doc, "Args")
            if args is None:
                problems.append(f"{where}: no Args: section")
            else:
                missing = [
                    p
                    for p in parameters
                    if not re.search(rf"^\s*\**{p}( \(.*\))?:", args, re.MULTILINE)
                ]
                if missing:
                    problems.append(f"{where}: Args: does not describe {', '.join(missing)}")
        if _returns_something(node) and not (
            _section(doc, "Returns") is not None or _section(doc, "Yields") is not None
        ):
            problems.append(f"{where}: no Returns: section")
    return problems


def test_every_public_service_function_documents_its_arguments_and_result() -> None:
    problems = [p for path in sorted(SERVICES.glob("*.py")) for p in _problems(path)]
    assert not problems, "services/ docstrings to complete:\n" + "\n".join(problems)


def test_the_check_names_what_a_docstring_lacks(tmp_path: Path) -> None:
    module = tmp_path / "books.py"
    module.write_text(
        "def open_book(title: str, *, pages: int = 0) -> str:\n"
        '    """Open a book.\n\n    Args:\n        title: the book\'s title.\n    """\n'
        "def close_book(title: str) -> None:\n"
        '    """Close a book.\n\n    Args:\n        title (str): the book\'s title.\n    """\n'
        "def _helper(x: int) -> int:\n"
        "    return x\n"
        "class Shelf:\n"
        "    def count(self) -> int:\n"
        '        """How many books.\n\n        Returns:\n            The number.\n        """\n'
        "        return 0\n"
        "    def books(self) -> list[str]:\n"
        "        return []\n",
        encoding="utf-8",
    )
    assert _problems(module) == [
        "books.py:1 open_book: Args: does not describe pages",
        "books.py:1 open_book: no Returns: section",
        "books.py:23 Shelf.books: no docstring",
    ]
