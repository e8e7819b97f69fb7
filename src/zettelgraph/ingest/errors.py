"""Errors for input files a person gave us: each names the file (and line) and what to do."""

from __future__ import annotations

import functools
from pathlib import Path
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


class KindChangeError(BookNotesError):
    """The file would turn a stored content into another kind (book notes into a document, or
    back): refused unless the reader asks for it (`--replace-kind`)."""


def read_limited(
    path: Path, *, max_bytes: int, error: type[BookNotesError], expected: str
) -> bytes:
    """The bytes of a file a person named, or `error` saying what is wrong and what to do.

    `expected` completes "Pass the path of ..." for a path that is not a readable file.
    """
    name = str(path)
    if not path.is_file():
        kind = "is a directory" if path.is_dir() else "is not a regular file"
        problem = kind if path.exists() else "file not found"
        raise error(f"{problem}. Pass the path of {expected}", path=name)
    try:
        with path.open("rb") as handle:
            # Read one byte past the limit: st_size can lie (pipes, files still growing).
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise error(
            f"cannot be read ({exc.strerror or exc}). Check its permissions", path=name
        ) from exc
    if len(data) > max_bytes:
        size = max(len(data), path.stat().st_size)
        raise error(
            f"file is {size_text(size)}, larger than the limit of {size_text(max_bytes)}. "
            "Split it, or raise the limit with ZETTELGRAPH_MAX_FILE_MB",
            path=name,
        )
    return data


def size_text(count: int) -> str:
    return f"{count / (1024 * 1024):.1f} MB" if count >= 100 * 1024 else f"{count:,} bytes"
