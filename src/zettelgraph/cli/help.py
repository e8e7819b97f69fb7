"""Help that reads as words: `--keep TEXT...`, `--json FLAG`, `PATHS... PATH...` rather than
Typer's Python types (`<list[str]>`, `<bool>`).

Typer labels each value by its annotation; the root command group relabels the whole command
tree once, when Typer builds it, so every command (and every one added later) reads the same.
"""

from __future__ import annotations

from typing import Any

from typer import Context
from typer.core import TyperArgument, TyperGroup, TyperOption

# Typer's label (the annotation's name) -> the word help shows.
WORDS = {
    "str": "TEXT",
    "int": "N",
    "float": "NUMBER",
    "bool": "FLAG",
    "path": "PATH",
    "file": "FILE",
    "directory": "FOLDER",
    "datetime": "DATE",
}


def words(label: str | None) -> str | None:
    """`<list[str]>` -> `TEXT...`, `<bool>` -> `FLAG`, `<a|b>` -> `a|b` (the choices)."""
    if label is None:
        return None
    inner = label.strip("<>")
    many = inner.startswith("list[") and inner.endswith("]")
    if many:
        inner = inner[len("list[") : -1]
    word = inner if "|" in inner else WORDS.get(inner, inner.upper())
    return word + ("..." if many else "")


class _WordsOption(TyperOption):
    def display_type_rich(self, ctx: Any) -> str | None:
        if self.metavar is not None:
            return self.metavar
        return words(self.display_type(ctx))


class _WordsArgument(TyperArgument):
    def display_type_rich(self, ctx: Any) -> str | None:
        return words(self.display_type(ctx))


def relabel(command: Any) -> None:
    """Give every option and argument under `command` a label in words; arguments are named in
    capitals (`CONTENT_ID`, `PATHS...`), as usage lines name them."""
    # `--help` is made on first use and then kept: made here, it is relabelled too.
    help_option = command.get_help_option(Context(command))
    for param in [*command.params, *([help_option] if help_option else [])]:
        if type(param) is TyperOption:
            param.__class__ = _WordsOption
        elif type(param) is TyperArgument:
            param.__class__ = _WordsArgument
            if param.metavar is None and param.name:
                param.metavar = param.name.upper() + ("..." if param.nargs != 1 else "")
    for sub in getattr(command, "commands", {}).values():
        relabel(sub)


class WordsGroup(TyperGroup):
    """The root command group: relabels the command tree Typer builds under it."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        relabel(self)
