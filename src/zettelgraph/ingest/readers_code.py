"""The source code reader. Python: one block per top-level function or class (a class over
`MAX_CLASS_LINES` lines: its header, then each method), with the lines between definitions
as module blocks; a module over `MAX_MODULE_LINES` lines gets one parent per top-level
class. Other languages, and Python that does not parse, are split at blank lines into
parents of about `GROUP_TOKENS` tokens, as plain text is (`readers_text.py`).
"""

from __future__ import annotations

import ast
from pathlib import Path

from zettelgraph.ingest.parsed import Block, ParsedDocument
from zettelgraph.ingest.readers_text import (
    paragraph_spans,
    span_text,
    split_lines,
    token_grouped_blocks,
)

MAX_CLASS_LINES = 80  # a longer Python class is split into its header and its methods
MAX_MODULE_LINES = 400  # a longer Python module gets one parent per top-level class
PYTHON_SUFFIXES = frozenset({".py", ".pyi", ".pyw"})


def read_code(text: str, path: Path) -> ParsedDocument:
    """Source code: Python by definitions (through `ast`), other languages by blank lines."""
    lines = split_lines(text)
    warnings: list[str] = []
    blocks: list[Block] | None = None
    if path.suffix.lower() in PYTHON_SUFFIXES:
        try:
            tree = ast.parse(text, filename=str(path))
        except SyntaxError as exc:
            warnings.append(
                f"line {exc.lineno or 1}: Python syntax error ({exc.msg}); read as plain code "
                "split at blank lines"
            )
        except (ValueError, RecursionError, MemoryError) as exc:
            # ValueError: NUL bytes in the source; RecursionError: absurdly deep nesting.
            warnings.append(f"cannot parse as Python ({exc}); read as plain code")
        else:
            blocks = _python_blocks(tree, lines, path.stem)
    if blocks is None:
        blocks = token_grouped_blocks(lines, paragraph_spans(lines), "code")
    return ParsedDocument(
        path=str(path), file_type="code", title=path.name, blocks=blocks, warnings=warnings
    )


_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _definitions(body: list[ast.stmt]) -> list[_Definition]:
    return [node for node in body if isinstance(node, _Definition)]


def _def_start(node: _Definition, lines: list[str], floor: int) -> int:
    """First line of a definition: its decorators and the comments directly above it."""
    first = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
    while first - 1 > floor and lines[first - 2].lstrip().startswith("#"):
        if lines[first - 2].startswith("#!"):  # a shebang belongs to the module
            break
        first -= 1
    return first


def _trimmed(lines: list[str], first: int, last: int) -> tuple[int, int] | None:
    """`first..last` without blank lines at either end; None when all blank."""
    while first <= last and not lines[first - 1].strip():
        first += 1
    while last >= first and not lines[last - 1].strip():
        last -= 1
    return (first, last) if first <= last else None


def _members(
    body: list[ast.stmt], lines: list[str], first: int, last: int, gap_symbol: str, prefix: str
) -> list[tuple[int, int, str, _Definition | None]]:
    """(first, last, symbol, node) of the definitions in `body`, and of the runs of other
    lines between them (node None, symbol `gap_symbol`), in order."""
    pieces: list[tuple[int, int, str, _Definition | None]] = []
    cursor = first
    for node in _definitions(body):
        start = _def_start(node, lines, cursor - 1)
        if gap := _trimmed(lines, cursor, start - 1):
            pieces.append((*gap, gap_symbol, None))
        end = node.end_lineno or node.lineno
        pieces.append((start, end, prefix + node.name, node))
        cursor = end + 1
    if gap := _trimmed(lines, cursor, last):
        pieces.append((*gap, gap_symbol, None))
    return pieces


def _python_blocks(tree: ast.Module, lines: list[str], module: str) -> list[Block]:
    # (first, last, symbol, (group, group title) of its class or None for module code)
    pieces: list[tuple[int, int, str, tuple[str, str] | None]] = []
    for first, last, symbol, node in _members(tree.body, lines, 1, len(lines), module, ""):
        if not isinstance(node, ast.ClassDef):
            pieces.append((first, last, symbol, None))
            continue
        in_class = (f"class-{first}", f"class {node.name}")
        if last - first + 1 <= MAX_CLASS_LINES:
            pieces.append((first, last, symbol, in_class))
        else:
            # The header, docstring and attributes up to the first method are one block,
            # then each method; statements between methods are blocks of the class itself.
            members = _members(node.body, lines, first, last, symbol, symbol + ".")
            pieces.extend((a, b, name, in_class) for a, b, name, _ in members)
    small = len(lines) <= MAX_MODULE_LINES
    group = module_group = ("module", f"module {module}")
    blocks: list[Block] = []
    for first, last, symbol, owner in pieces:
        if small:
            group = module_group
        elif owner is not None:
            group = owner
        elif not blocks or blocks[-1].group.startswith("class-"):
            group = (f"module-{first}", f"module {module}")  # a new run of module code
        blocks.append(
            Block(
                text=span_text(lines, first, last),
                location={"symbol": symbol, "line_start": first, "line_end": last},
                group=group[0],
                group_title=group[1],
                kind="code",
            )
        )
    return blocks
