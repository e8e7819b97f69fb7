"""Book and author notes on disk: `06 - Sources/` holds a note per source the vault's concepts
cite, `07 - Authors/` a note per author of one. Found by the `entity_id` in their front
matter, like concept notes, so a reader may rename or move them inside their folder; written
atomically, and only when their owned parts differ from the store. `sync_vault` calls
`sync_book_notes` with the sources its concept notes cite.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from functools import partial

from zettelgraph.models import Content, Person
from zettelgraph.models.locations import location_label
from zettelgraph.packs.relations import AUTHORED_BY, SUPPORTS
from zettelgraph.store.base import GraphStore
from zettelgraph.vault.book_notes import (
    AUTHOR_KEYS,
    SOURCE_KEYS,
    AuthorNote,
    CitedQuote,
    SourceNote,
    differs,
    render_author_note,
    render_source_note,
    update_author_note,
    update_source_note,
)
from zettelgraph.vault.notes import LinkedConcept
from zettelgraph.vault.report import AUTHOR_NOTE, BOOK_NOTE, NotesReport
from zettelgraph.vault.writer import AUTHORS_DIR, SOURCES_DIR, Vault, VaultError, atomic_write

log = logging.getLogger(__name__)

MISSING = "missing"
DIFFERS = "note differs"


def source_note_for(store: GraphStore, content: Content, vault: Vault) -> SourceNote:
    """A book's note as the store has it: its book-note quotes, and the document passages a
    concept cites (a document's other passages are chunks, not the reader's highlights), in
    reading order, each with the concepts it supports."""
    author = store.author_of(content.id)
    quotes = []
    for quote in store.quotes_of(content.id):
        supports = store.relations(quote.id, relation_type=SUPPORTS, direction="out")
        concepts = [c for r in supports if (c := store.get_concept(r.target_id)) is not None]
        if quote.parent_id is not None and not concepts:
            continue
        linked = [
            LinkedConcept(c.id, c.title, vault.path_for(c.id, c.title).stem)
            for c in sorted(concepts, key=lambda c: (c.title.casefold(), c.id))
        ]
        place = location_label(quote.location, page=quote.page) or None
        quotes.append(CitedQuote(quote.text, place, linked))
    author_note = (
        vault.folder_vault(AUTHORS_DIR).link_to(author.id, author.name) if author else None
    )
    return SourceNote(
        content=content,
        author=author.name if author else None,
        author_note=author_note,
        quotes=quotes,
    )


def author_note_for(
    store: GraphStore, person: Person, vault: Vault, written: Iterable[str] = ()
) -> AuthorNote:
    """An author's note: their books that have a note in the vault (or are in `written`)."""
    books = vault.folder_vault(SOURCES_DIR)
    ids = [
        r.source_id for r in store.relations(person.id, relation_type=AUTHORED_BY, direction="in")
    ]
    shown = set(written)
    sources = [
        (books.link_to(content.id, content.title), content.title)
        for content_id in dict.fromkeys(ids)
        if (content := store.get_content(content_id)) is not None
        and (content.id in shown or books.find_note(content.id) is not None)
    ]
    return AuthorNote(person=person, sources=sorted(sources, key=lambda s: s[1].casefold()))


def sync_book_notes(
    store: GraphStore, vault: Vault, content_ids: Iterable[str], *, check: bool = False
) -> NotesReport:
    """Compare the notes of the sources `content_ids` and of their authors with the store and,
    unless `check`, write the ones that are missing or differ. A note that cannot be written
    goes to `errors`; the others are still written. Nothing is raised for one note."""
    report = NotesReport()
    contents = [c for cid in dict.fromkeys(content_ids) if (c := store.get_content(cid))]
    contents.sort(key=lambda content: (content.created_at, content.id))
    authors: dict[str, Person] = {}
    for content in contents:
        note = source_note_for(store, content, vault)
        _sync_note(
            vault.folder_vault(SOURCES_DIR),
            (BOOK_NOTE, content.id, content.title),
            render_source_note(note, vault.labels),
            partial(update_source_note, note=note, labels=vault.labels),
            (SOURCE_KEYS, "quotes"),
            check,
            report,
        )
        person = store.author_of(content.id)
        if person is not None:
            authors[person.id] = person
    cited = [content.id for content in contents]
    for person in sorted(authors.values(), key=lambda p: (p.created_at, p.id)):
        author = author_note_for(store, person, vault, cited)
        _sync_note(
            vault.folder_vault(AUTHORS_DIR),
            (AUTHOR_NOTE, person.id, person.name),
            render_author_note(author, vault.labels),
            partial(update_author_note, note=author, labels=vault.labels),
            (AUTHOR_KEYS, "sources"),
            check,
            report,
        )
    return report


def _sync_note(
    folder: Vault,
    node: tuple[str, str, str],
    fresh: str,
    update: Callable[[str], str],
    owned: tuple[tuple[str, ...], str],
    check: bool,
    report: NotesReport,
) -> None:
    kind, node_id, title = node
    try:
        existing = folder.find_note(node_id)
        path = existing if existing is not None else folder.path_for(node_id, title)
        folder.check_inside(path)
        if existing is None:
            reason, text = MISSING, fresh
        else:
            old = folder.read_note(existing)
            if not differs(old, fresh, *owned, folder.labels):
                report.unchanged += 1
                return
            reason, text = DIFFERS, update(old)
        report.drift.append(
            {
                "kind": kind,
                "entity_id": node_id,
                "title": title,
                "path": str(path),
                "reason": reason,
            }
        )
        if check:
            return
        atomic_write(path, text)
        folder.remember(node_id, path)
        (report.written if existing is None else report.updated).append(node_id)
    except (OSError, ValueError, VaultError) as exc:
        # NoteFormatError and UnicodeDecodeError are ValueErrors: one bad note must not stop
        # the others.
        log.warning("vault note of %s (%s) not written: %s", node_id, title, exc)
        report.not_written(kind, "entity_id", node_id, title, None, exc)
