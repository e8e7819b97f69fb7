"""The vault's card files: one per book in `Cards/`, holding the book's approved cards for the
Obsidian Spaced Repetition plugin (the format is in `card_text`).

A card file is zettelgraph's: it is rewritten from the store whenever the approved cards change,
and found again by its front matter (`generated_by: zettelgraph` and the book's `content_id`),
so it may be renamed or moved inside `Cards/`. What survives a rewrite is what the plugin and
the reader add that zettelgraph cannot know: each card's scheduling comment, and front matter
keys of their own. A file of the reader's own in `Cards/` is never touched; a book's file whose
cards are all gone (dropped, or the book deleted) is removed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zettelgraph.card_sources import CardSources, approved_items, card_order, sources_of
from zettelgraph.models import Content
from zettelgraph.store.base import GraphStore
from zettelgraph.vault.card_text import (
    GENERATED_BY,
    NoteLink,
    render_card_file,
    scheduling_comments,
)
from zettelgraph.vault.notes import NoteFormatError, parse_note
from zettelgraph.vault.writer import Vault, VaultError, atomic_write, safe_note_name

CARDS_DIR = "Cards"
_SCAN_BYTES = 64 * 1024  # the front matter is at the top
_GENERATED = re.compile(rf"^generated_by:[ \t]*['\"]?{GENERATED_BY}['\"]?[ \t]*$", re.MULTILINE)
_CONTENT_ID = re.compile(r"""^content_id:[ \t]*['"]?([^'"\s#]+)""", re.MULTILINE)


@dataclass
class CardFilesReport:
    """What a refresh did: files written (new or changed), left as they were, removed; cards
    left out because they cite no book; and files that could not be written or removed
    ({"content_id", "path", "error"})."""

    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    without_book: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)


def write_card_files(store: GraphStore, vault: Vault) -> CardFilesReport:
    """Bring `Cards/` in step with the approved cards: one file per book that has any, none
    for a book that has none. A file that cannot be written or removed is reported in
    `errors` and the others are still done; nothing is raised for one file."""
    report = CardFilesReport()
    folder = vault.root / CARDS_DIR
    if not folder.resolve().is_relative_to(vault.root.resolve()):
        # A symlinked Cards/ leading out of the vault: neither write nor remove anything there.
        error = f"refusing to write in {folder}: it leads outside the vault {vault.root}"
        report.errors.append({"content_id": "", "path": str(folder), "error": error})
        return report
    owned = _card_files(folder)
    books: dict[str, tuple[Content, list[CardSources]]] = {}
    for card in sorted(sources_of(store, approved_items(store)), key=card_order):
        if card.book is None:
            report.without_book += 1
        else:
            books.setdefault(card.book.id, (card.book, []))[1].append(card)
    taken = {path.name.casefold() for path in folder.glob("*")} if folder.is_dir() else set()
    for book, cards in books.values():
        path = owned.get(book.id) or _new_path(folder, book.title, taken)
        try:
            _write_one(vault, path, book, cards, report)
        except (OSError, ValueError, VaultError) as exc:
            # UnicodeDecodeError is a ValueError: one unreadable file must not stop the rest.
            report.errors.append({"content_id": book.id, "path": str(path), "error": str(exc)})
    for content_id, path in owned.items():
        if content_id in books:
            continue
        try:
            path.unlink(missing_ok=True)
            report.removed.append(path)
        except OSError as exc:
            report.errors.append({"content_id": content_id, "path": str(path), "error": str(exc)})
    return report


def _write_one(
    vault: Vault, path: Path, book: Content, cards: list[CardSources], report: CardFilesReport
) -> None:
    _check_inside(vault, path)
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    links = {
        concept.id: _note_link(vault, vault.note_path(concept))
        for card in cards
        for concept in card.concepts
    }
    text = render_card_file(book, cards, links, scheduling_comments(old), _front_matter_of(old))
    if text == old:
        report.unchanged.append(path)
        return
    atomic_write(path, text)
    report.written.append(path)


def _note_link(vault: Vault, path: Path) -> NoteLink:
    relative = path.relative_to(vault.root) if path.is_relative_to(vault.root) else path
    return NoteLink(name=path.stem, path=relative.as_posix())


def _front_matter_of(text: str) -> dict[str, Any]:
    # The reader's own keys (tags, or the plugin's note-review dates) are kept; a front
    # matter that no longer parses is ours to rewrite, the file being generated.
    try:
        return parse_note(text)[0] if text else {}
    except NoteFormatError:
        return {}


def _card_files(folder: Path) -> dict[str, Path]:
    """zettelgraph's card files under `folder`, by content id (the first in path order wins)."""
    found: dict[str, Path] = {}
    if not folder.is_dir():
        return found
    # os.walk does not follow symlinked folders, so the scan stays inside the vault.
    for parent, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(parent) / name
            if name.endswith(".md") and not name.startswith(".") and path.is_file():
                content_id = _owner(path)
                if content_id is not None:
                    found.setdefault(content_id, path)
    return found


def _owner(path: Path) -> str | None:
    """The content id of a card file zettelgraph wrote; None for any other file."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            head = handle.read(_SCAN_BYTES)
    except OSError:
        return None
    if not head.startswith("---"):
        return None
    front = head.split("\n---", 1)[0]
    content_id = _CONTENT_ID.search(front)
    return content_id.group(1) if content_id and _GENERATED.search(front) else None


def _new_path(folder: Path, title: str, taken: set[str]) -> Path:
    """`Cards/<safe title>.md`, or `(2)`, `(3)`, ... when a file (any case) has that name."""
    stem = safe_note_name(title)
    number = 1
    while True:
        name = f"{stem}.md" if number == 1 else f"{stem} ({number}).md"
        if name.casefold() not in taken:
            taken.add(name.casefold())
            return folder / name
        number += 1


def _check_inside(vault: Vault, path: Path) -> None:
    root = vault.root.resolve()
    if not (path.parent.resolve() / path.name).is_relative_to(root):
        raise VaultError(f"refusing to write {path}: it is outside the vault {root}")
