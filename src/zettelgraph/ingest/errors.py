"""Errors for input files a person gave us: each names the file (and line) and what to do."""

from __future__ import annotations

import functools
from typing import Any


class BookNotesError(ValueError):
    """Notes that cannot be parsed; the message names the file and line and what to do."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        self.message = message
        self.path = path
        self.line = line
        where = ":".join(part for part in (path, None if line is None else str(line)) if part)
        super().__init__(f"{where}: {message}" if where else message)

    def __reduce__(self) -> Any:
        # Keyword-only arguments are not in self.args, so default pickling would lose them.
        return (functools.partial(type(self), path=self.path, line=self.line), (self.message,))


class NoQuotesSectionError(BookNotesError):
    """The file has no quotes section: in a folder scan it is not a book note, so it is skipped."""
