"""Approved cards out of zettelgraph: an Anki package (.apkg) or a CSV file.

Only approved cards are exported, whatever filter is given. The .apkg has one deck per book
(`zettelgraph::<Book title>`, a subdeck of `zettelgraph`), the note types of `anki_notes`, and
one note per card whose GUID comes from the card's id: importing a newer export updates the
notes already in Anki, with their review history, instead of adding copies.

Both files are written atomically (a hidden temporary file in the same folder, renamed over
the target), so a failed export leaves the previous file, or none, never half of one.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import itertools
import sqlite3
import time
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import genanki

from zettelgraph.export.anki_notes import anki_id, note_for, tags
from zettelgraph.models import ItemStatus, ItemType
from zettelgraph.provenance.card_sources import CardSources, card_order, sources_of
from zettelgraph.services.cards import CardError, ItemFilter, list_items
from zettelgraph.store.base import GraphStore
from zettelgraph.vault.writer import atomic_write

ROOT_DECK = "zettelgraph"
CSV_HEADER = (
    "id",
    "type",
    "difficulty",
    "front",
    "back",
    "options",
    "explanation",
    "concepts",
    "quotes",
    "book",
    "tags",
)


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class ExportError(CardError):
    """An export that cannot be written; the message names the file and what to do."""


@dataclass
class ExportReport:
    """What an export wrote: the file, its notes (one per card), the Anki cards they make (a
    cloze note makes one per deletion), and the notes per card type and per book."""

    path: Path
    notes: int = 0
    cards: int = 0
    per_type: dict[str, int] = field(default_factory=dict)
    per_book: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "notes": self.notes,
            "cards": self.cards,
            "per_type": dict(self.per_type),
            "per_book": dict(self.per_book),
        }


def deck_name(book_title: str) -> str:
    """`zettelgraph::<title>`; `::` inside a title would nest decks, so it becomes `:`."""
    title = " ".join(book_title.replace("::", ":").split())
    return f"{ROOT_DECK}::{title}" if title else ROOT_DECK


def export_apkg(store: GraphStore, path: Path, which: ItemFilter | None = None) -> ExportReport:
    """Write the approved cards chosen by `which` to the Anki package `path`.

    Raises ExportError when `path` does not end in .apkg, its folder does not exist, it is a
    folder, or no approved card matches; OSError when the file cannot be written. Whatever
    fails, the file that was there (if any) is left as it was.
    """
    path = Path(path).expanduser()
    if path.suffix.lower() != ".apkg":
        raise ExportError(f"{path}: an Anki package must end in .apkg (e.g. deck.apkg)")
    cards = _approved(store, path, which)
    decks: dict[str, genanki.Deck] = {}
    report = _report(path, cards)
    for position, card in enumerate(cards):
        name = deck_name(card.book_title)
        if name not in decks:
            decks[name] = genanki.Deck(anki_id(f"deck:{name}"), name)
        note = note_for(card, position)
        decks[name].add_note(note)
        report.cards += len(note.cards)
    _write(path, _package_bytes(genanki.Package(list(decks.values()))))
    return report


def export_csv(store: GraphStore, path: Path, which: ItemFilter | None = None) -> ExportReport:
    """Write the approved cards chosen by `which` to the CSV file `path`: UTF-8, a header
    row, one row per card; a column with several values (options, concepts, quotes) has one
    per line, tags are space-separated as Anki writes them.

    Raises ExportError or OSError as `export_apkg` does, whatever the file's suffix.
    """
    path = Path(path).expanduser()
    cards = _approved(store, path, which)
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    writer.writerows(_row(card) for card in cards)
    _write(path, out.getvalue().encode("utf-8"))
    report = _report(path, cards)
    report.cards = len(cards)
    return report


def _approved(store: GraphStore, path: Path, which: ItemFilter | None) -> list[CardSources]:
    if not path.parent.is_dir():
        raise ExportError(f"{path}: the folder {path.parent} does not exist; create it first")
    chosen = dataclasses.replace(which or ItemFilter(), status=ItemStatus.APPROVED)
    items = list_items(store, chosen)
    if not items:
        filtered = chosen != ItemFilter(status=ItemStatus.APPROVED)
        raise ExportError(
            f"{path} not written: "
            + ("no approved card matches the filter" if filtered else "no card is approved yet")
            + "; review cards first (`zettelgraph cards list`, `zettelgraph cards approve`)"
        )
    return sorted(sources_of(store, items), key=card_order)


def _write(path: Path, data: bytes) -> None:
    try:
        atomic_write(path, data)
    except IsADirectoryError:
        # Found only at the rename: the temporary file is already gone again.
        raise ExportError(f"{path} is a folder: name a file to write inside it") from None


def _report(path: Path, cards: list[CardSources]) -> ExportReport:
    return ExportReport(
        path=path,
        notes=len(cards),
        per_type=dict(sorted(Counter(str(c.item.item_type) for c in cards).items())),
        per_book=dict(sorted(Counter(c.book_title for c in cards).items())),
    )


def _package_bytes(package: genanki.Package) -> bytes:
    # genanki's own write_to_file leaves its collection in the system temp folder; building it
    # in memory leaves nothing behind and lets the .apkg be written atomically in one go.
    timestamp = time.time()
    connection = sqlite3.connect(":memory:")
    try:
        package.write_to_db(connection.cursor(), timestamp, itertools.count(int(timestamp * 1000)))
        connection.commit()
        collection = connection.serialize()
    finally:
        connection.close()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("collection.anki2", collection)
        archive.writestr("media", "{}")
    return buffer.getvalue()


def _row(card: CardSources) -> list[str]:
    item = card.item
    back = item.back
    if item.item_type == ItemType.MCQ and item.correct is not None:
        back = item.options[item.correct] if item.correct < len(item.options) else item.back
    cells = [
        item.id,
        str(item.item_type),
        str(item.difficulty),
        item.front,
        back,
        "\n".join(item.options),
        item.explanation,
        "\n".join(concept.title for concept in card.concepts),
        "\n".join(quote.text for quote in card.quotes),
        card.book_title,
        " ".join(tags(card)),
    ]
    return [_inert(cell) for cell in cells]


def _inert(cell: str) -> str:
    # A spreadsheet runs a cell that starts with = + - @ as a formula (CSV injection); a
    # leading apostrophe makes it text, as OWASP recommends.
    return f"'{cell}" if cell[:1] in _FORMULA_STARTS else cell
