"""The vault's card files: one per book in `Cards/`, holding the book's approved cards for the
Obsidian Spaced Repetition plugin (the format is in `card_text`).

A card file is zettelgraph's: it is rewritten from the store whenever the approved cards change,
and found again by its front matter (`generated_by: zettelgraph` and the book's `content_id`),
so it may be renamed or moved inside `Cards/`. What survives a rewrite is what the plugin and
the reader add that zettelgraph cannot know: each card's scheduling comment, and front matter
keys of their own. A file of the reader's own in `Cards/` is never touched; a book's file whose
cards are all gone (dropped, or the book deleted) is removed. Approvals write the store first,
then the files; `vault sync` runs the same writer to repair what a process killed in between
left (`sync_card_files`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zettelgraph.models import Content
from zettelgraph.provenance.card_sources import CardSources, approved_items, card_order, sources_of
from zettelgraph.store.base import GraphStore
from zettelgraph.vault.card_text import (
    GENERATED_BY,
    NoteLink,
    render_card_file,
    scheduling_comments,
)
from zettelgraph.vault.notes import NoteFormatError, parse_note
from zettelgraph.vault.report import CARD_FILE, NotesReport
from zettelgraph.vault.writer import Vault, VaultError, atomic_write, safe_note_name

CARDS_DIR = "Cards"
_SCAN_BYTES = 64 * 1024  # the front matter is at the top
_GENERATED = re.compile(rf"^generated_by:[ \t]*['\"]?{GENERATED_BY}['\"]?[ \t]*$", re.MULTILINE)
_CONTENT_ID = re.compile(r"""^content_id:[ \t]*['"]?([^'"\s#]+)""", re.MULTILINE)


# Drift reasons of a card file.
MISSING = "missing"
DIFFERS = "file differs"
NO_CARDS = "no approved cards"


@dataclass
class CardFilesReport:
    """What a refresh did (or, checking, would do): files written (new or changed), left as
    they were, removed; cards left out because they cite no book; a `drift` entry
    ({"kind", "content_id", "title", "path", "reason"}) for every file written or removed;
    and files that could not be written or removed ({"kind", "content_id", "path", "error"})."""

    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    without_book: int = 0
    drift: list[dict[str, str]] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)

    def error(self, content_id: str, path: Path, error: str) -> None:
        report = {"kind": CARD_FILE, "content_id": content_id, "path": str(path), "error": error}
        self.errors.append(report)


def write_card_files(store: GraphStore, vault: Vault, *, check: bool = False) -> CardFilesReport:
    """Bring `Cards/` in step with the approved cards: one file per book that has any, none
    for a book that has none. A file that cannot be written or removed is reported in
    `errors` and the others are still done; nothing is raised for one file. With `check`,
    nothing is written or removed: `drift` says what would be."""
    report = CardFilesReport()
    folder = vault.root / CARDS_DIR
    if not folder.resolve().is_relative_to(vault.root.resolve()):
        # A symlinked Cards/ leading out of the vault: neither write nor remove anything there.
        error = f"refusing to write in {folder}: it leads outside the vault {vault.root}"
        report.error("", folder, error)
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
            _write_one(vault, path, book, cards, report, check)
        except (OSError, ValueError, VaultError) as exc:
            # UnicodeDecodeError is a ValueError: one unreadable file must not stop the rest.
            report.error(book.id, path, str(exc))
    for content_id, path in owned.items():
        if content_id in books:
            continue
        report.drift.append(_drift(content_id, _title(store, content_id), path, NO_CARDS))
        try:
            if not check:
                path.unlink(missing_ok=True)
            report.removed.append(path)
        except OSError as exc:
            report.error(content_id, path, str(exc))
    return report


def sync_card_files(store: GraphStore, vault: Vault, *, check: bool = False) -> NotesReport:
    """`write_card_files` (with `check`, only its drift) as `vault sync` reports every kind of
    file, after removing the temporary files of card writes a killed process left in `Cards/`."""
    report = NotesReport()
    vault.folder_vault(CARDS_DIR).tidy(report, CARD_FILE, check=check)
    cards = write_card_files(store, vault, check=check)
    report.drift += cards.drift
    report.errors += cards.errors
    report.unchanged += len(cards.unchanged)
    failed = {error["path"] for error in cards.errors}
    done = {MISSING: report.written, DIFFERS: report.updated, NO_CARDS: report.removed}
    for drift in cards.drift if not check else []:
        if drift["path"] not in failed:
            done[drift["reason"]].append(drift["content_id"])
    return report


def _drift(content_id: str, title: str, path: Path, reason: str) -> dict[str, str]:
    return {
        "kind": CARD_FILE,
        "content_id": content_id,
        "title": title,
        "path": str(path),
        "reason": reason,
    }


def _title(store: GraphStore, content_id: str) -> str:
    content = store.get_content(content_id)
    return content.title if content is not None else content_id


def _write_one(
    vault: Vault,
    path: Path,
    book: Content,
    cards: list[CardSources],
    report: CardFilesReport,
    check: bool,
) -> None:
    _check_inside(vault, path)
    exists = path.is_file()
    old = path.read_text(encoding="utf-8") if exists else ""
    links = {
        concept.id: _note_link(vault, vault.note_path(concept))
        for card in cards
        for concept in card.concepts
    }
    text = render_card_file(book, cards, links, scheduling_comments(old), _front_matter_of(old))
    if text == old and exists:
        report.unchanged.append(path)
        return
    report.drift.append(_drift(book.id, book.title, path, DIFFERS if exists else MISSING))
    if not check:
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
