"""The command line's one way to print: what the reader wrote or the store holds (titles,
quotes, paths, hints, errors) is shown exactly as written.

Rich reads `[...]` in a printed string as markup and `:name:` as an emoji, so a note titled
"Brackets [and] Markup" would lose its brackets and `pip install 'zettelgraph[local]'` its
extra. The consoles here read neither: a plain string, a table cell or a progress description
prints as it is. The CLI's own styling is opt-in, through `styled(template, *values)`, whose
template is markup and whose values are escaped, so user text never becomes markup.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

import typer

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text


@dataclass
class _CommandOutput:
    """One command's consoles and the notices it has printed."""

    consoles: dict[str, Console] = field(default_factory=dict)
    said: set[str] = field(default_factory=set)


# Per command, not per process: tests run many commands in one process.
_command: ContextVar[_CommandOutput | None] = ContextVar("zettelgraph_output", default=None)


def start_command() -> None:
    """Fresh consoles and notices for a command (the app's root callback calls this)."""
    _command.set(_CommandOutput())


def _current() -> _CommandOutput:
    state = _command.get()
    if state is None:
        state = _CommandOutput()
        _command.set(state)
    return state


def stdout() -> Console:
    """The command's console on stdout (one per command, shared by every module)."""
    return _console("stdout")


def stderr() -> Console:
    """The command's console on stderr: progress, notices and errors. One per command, so a
    notice printed while a progress bar runs goes above the bar instead of through it."""
    return _console("stderr")


def _console(stream: str) -> Console:
    from rich.console import Console

    consoles = _current().consoles
    if stream not in consoles:
        # Notices on stderr are not folded by Rich either (see `print_error`): they name runs
        # and the commands that go on with them. The terminal still wraps long lines.
        consoles[stream] = Console(
            stderr=stream == "stderr",
            markup=False,
            emoji=False,
            highlight=False,
            soft_wrap=stream == "stderr",
        )
    return consoles[stream]


def styled(template: str, *values: object) -> Text:
    """`template` read as Rich markup, each `{}` filled with a value shown as written:
    `styled("[bold]{}[/] ({} quotes)", title, count)`."""
    from rich.markup import escape
    from rich.text import Text

    return Text.from_markup(template.format(*(escape(str(value)) for value in values)), emoji=False)


def id_table(title: str, columns: Sequence[str]) -> Table:
    """A table of `columns` whose `id` column is never wrapped (an id split over two lines
    cannot be copied into the next command); the others fold on a narrow terminal."""
    from rich.table import Table

    table = Table(title=title)
    for column in columns:
        table.add_column(column, overflow="fold", no_wrap=column == "id")
    return table


def print_error(console: Console, message: str, *, indent: str = "") -> None:
    """`error: message` on one line, never folded by Rich: errors name files, lines and
    commands to copy, and a path cut at the console's width ("broken.\nyaml") can neither be
    pasted back nor opened by an editor that jumps to `file:line`. The message is not markup."""
    console.print(styled(indent + "[bold red]error:[/] {}", message), soft_wrap=True)


def print_next(console: Console, command: str) -> None:
    """`Next: command`, after a blank line, never folded by Rich: the reader copies the command
    with its run id and flags, and a line cut at the console's width pastes as two."""
    console.print(f"\nNext: {command}", soft_wrap=True)


def fail(message: str, *, code: int = 1) -> NoReturn:
    """End the command with `error: message` on stderr and exit `code`."""
    print_error(stderr(), message)
    raise typer.Exit(code)


def notices() -> Callable[[str], None]:
    """What prints this command's notices (which model answers, what is loading) on stderr,
    each once per command. Bound here, in the command's thread, so a workflow's worker
    threads print through the console a progress bar runs on (above the bar, not through it)."""
    console, said = stderr(), _current().said

    def note(text: str) -> None:
        if text not in said:
            said.add(text)
            console.print(styled("[yellow]note:[/] {}", text))

    return note


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 run`, `2 runs`, `0 contents`; `plural` for nouns that do not just take an s."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def repaired_line(repaired: Sequence[str]) -> str:
    """What a write said of the notes it wrote for concepts an earlier write had left
    unwritten (their ids); empty when there were none."""
    if not repaired:
        return ""
    return (
        f"also wrote {count(len(repaired), 'note')} an earlier write had left unwritten "
        "(no `vault sync` needed)"
    )


def count_line(counts: dict[str, int]) -> str:
    """A store's counts as one line, `Content 3, Quote 120, relations 40` (the zeros left
    out), or `empty`."""
    return ", ".join(f"{key} {value}" for key, value in counts.items() if value) or "empty"
