"""Book and author notes as text: one note per source the vault's concepts cite (its quotes
with their pages, each linked to the concepts it supports) and one per author (their books).

Pure functions, no I/O (the files are `books.py`'s). zettelgraph owns the front matter keys
of `SOURCE_KEYS` / `AUTHOR_KEYS` and the body of the quotes (sources) section, and rewrites
them whenever the graph changes; the title, the reader's own sections and keys are kept byte
for byte (`markdown.update_note`), and the reader's `tags` items are kept after zettelgraph's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zettelgraph.models import Content, Person
from zettelgraph.models.labels import Labels
from zettelgraph.vault.markdown import (
    dump_front_matter,
    parse_note,
    section_lines,
    update_note,
    yaml_text,
)
from zettelgraph.vault.note_shape import DEFAULT_LABELS, LinkedConcept, section_heading
from zettelgraph.vault.notes import front_matter_differs
from zettelgraph.vault.properties import book_tags, wikilink, with_theirs

SOURCE_KEYS = ("entity_id", "entity_type", "kind", "author", "tags", "summary", "short_summary")
AUTHOR_KEYS = ("entity_id", "entity_type", "summary", "short_summary", "sources")


@dataclass(frozen=True)
class CitedQuote:
    """A quote of the book, where it is ("p. 12"), and the concepts it supports."""

    text: str
    place: str | None
    concepts: list[LinkedConcept]


@dataclass(frozen=True)
class SourceNote:
    """Everything a book's note shows. `author_note` is the author's note's path (no `.md`)."""

    content: Content
    author: str | None
    author_note: str | None
    quotes: list[CitedQuote]


@dataclass(frozen=True)
class AuthorNote:
    """Everything an author's note shows: their books, as (note path, title)."""

    person: Person
    sources: list[tuple[str, str]]


def _summaries(summary: str, short: str) -> dict[str, str]:
    summary, short = yaml_text(summary).strip(), yaml_text(short).strip()
    found = {"summary": summary} if summary else {}
    if short and short != summary:
        found["short_summary"] = short
    return found


# --- book notes ---------------------------------------------------------------------------


def source_front_matter(
    note: SourceNote, theirs: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The owned keys of a book's note: its id, kind, author (a link), tags and summaries."""
    content = note.content
    front: dict[str, Any] = {
        "entity_id": content.id,
        "entity_type": "Source",
        "kind": content.kind,
    }
    if note.author:
        front["author"] = [wikilink(note.author_note or note.author, note.author)]
    tags = with_theirs(book_tags(content.metadata), (theirs or {}).get("tags"))
    if tags:
        front["tags"] = tags
    return {**front, **_summaries(content.summary, content.summary_short)}


def quote_lines(note: SourceNote) -> list[str]:
    """Each quote as a blockquote, then "— p. 12 · [[Concept]], ..." (what it has of both)."""
    lines: list[str] = []
    for quote in note.quotes:
        if lines:
            lines.append("")
        text = quote.text.replace("\r\n", "\n").strip().split("\n")
        lines.extend(f"> {line}" if line.strip() else ">" for line in text)
        links = ", ".join(f"[[{concept.link_name}]]" for concept in quote.concepts)
        reference = " · ".join(part for part in (quote.place, links) if part)
        if reference:
            lines.extend(["", f"— {reference}"])
    return lines


def render_source_note(note: SourceNote, labels: Labels = DEFAULT_LABELS) -> str:
    """A new book note: front matter, `# Title`, then its quotes (when it has any)."""
    lines = quote_lines(note)
    quotes = "".join(f"{line}\n" for line in lines)
    body = f"\n{section_heading('quotes', labels)[0]}\n{quotes}" if lines else ""
    title = " ".join(note.content.title.split())
    return dump_front_matter(source_front_matter(note), "\n") + f"# {title}\n" + body


def update_source_note(existing: str, note: SourceNote, labels: Labels = DEFAULT_LABELS) -> str:
    """`existing` with the owned keys and the quotes replaced. Raises NoteFormatError when
    its front matter is not valid YAML."""
    heading = section_heading("quotes", labels)
    return update_note(
        existing,
        source_front_matter(note, parse_note(existing)[0]),
        SOURCE_KEYS,
        {heading: quote_lines(note) or None},
        [heading],
    )


# --- author notes -------------------------------------------------------------------------


def author_front_matter(note: AuthorNote) -> dict[str, Any]:
    """The owned keys of an author's note: id, summaries and their books (links)."""
    front: dict[str, Any] = {"entity_id": note.person.id, "entity_type": "Author"}
    front.update(_summaries(note.person.summary, note.person.summary_short))
    if note.sources:
        front["sources"] = [wikilink(path, title) for path, title in note.sources]
    return front


def source_lines(note: AuthorNote) -> list[str]:
    return [f"- {wikilink(path, title)}" for path, title in note.sources]


def render_author_note(note: AuthorNote, labels: Labels = DEFAULT_LABELS) -> str:
    """A new author note: front matter, `# Name`, then their books."""
    lines = source_lines(note)
    body = f"\n{section_heading('sources', labels)[0]}\n" + "".join(f"{line}\n" for line in lines)
    name = " ".join(note.person.name.split())
    return (
        dump_front_matter(author_front_matter(note), "\n") + f"# {name}\n" + (body if lines else "")
    )


def update_author_note(existing: str, note: AuthorNote, labels: Labels = DEFAULT_LABELS) -> str:
    """`existing` with the owned keys and the list of books replaced."""
    heading = section_heading("sources", labels)
    return update_note(
        existing,
        author_front_matter(note),
        AUTHOR_KEYS,
        {heading: source_lines(note) or None},
        [heading],
    )


# --- comparing ----------------------------------------------------------------------------


def differs(
    existing: str, expected: str, keys: tuple[str, ...], section: str, labels: Labels
) -> bool:
    """Whether a note's owned parts (`keys` and the section that label names) differ from
    those of `expected`, the note as a fresh render writes it. Raises NoteFormatError."""
    heading = section_heading(section, labels)
    (have, have_body), (want, want_body) = parse_note(existing), parse_note(expected)
    if front_matter_differs({k: have.get(k) for k in keys}, {k: want.get(k) for k in keys}):
        return True
    return section_lines(have_body, heading) != section_lines(want_body, heading)
