"""A note's citations as text: a quote and its reference to the book, the author and the
place, and taking the ones of a removed book out of a note again.

Pure functions, no I/O, shared by concept notes (their Fuente section), entity notes (their
passages) and the content removal (`trash.drop_sources`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from zettelgraph.models.labels import every_label
from zettelgraph.models.locations import page_label
from zettelgraph.vault.properties import link_target, wikilink

# The concept note's section of citations, under its name in any language.
SOURCE_HEADINGS = tuple(f"## {name}" for name in every_label("source"))


@dataclass(frozen=True)
class SourceQuote:
    """A quote attributed to the concept (Quote -[SUPPORTS]-> Concept) and where it is from.

    `content_note` and `author_note` are the vault paths (without `.md`) of the book's and
    the author's notes, which the writer fills in; without them the reference names the book
    and the author without links."""

    quote_id: str
    text: str
    content_title: str
    author: str | None
    page: str | None
    # Where a document passage is ("slide 3, speaker notes", "Intro > Setup, lines 4–9");
    # shown instead of the page when given.
    place: str | None = None
    content_id: str = ""
    author_id: str | None = None
    content_note: str | None = None
    author_note: str | None = None

    @property
    def book_link(self) -> str:
        title = " ".join(self.content_title.split())
        return wikilink(self.content_note or link_target(title, self.content_id), title)

    @property
    def author_link(self) -> str | None:
        if not self.author:
            return None
        return wikilink(self.author_note or link_target(self.author, "?"), self.author)


def render_source(source: SourceQuote) -> str:
    """A quote as a blockquote, then "— *[[Book]]*, [[Author]], place" (links to the book's
    and the author's notes once the writer has them; plain names before)."""
    quoted = "".join(
        f"> {line}\n" if line.strip() else ">\n"
        for line in source.text.replace("\r\n", "\n").strip().split("\n")
    )
    if source.content_note is None:
        title = " ".join(source.content_title.split()).replace("*", r"\*")
        reference = [f"*{title}*", *([source.author] if source.author else [])]
    else:
        reference = [f"*{source.book_link}*", *filter(None, [source.author_link])]
    if source.place:
        reference.append(source.place)
    elif source.page:
        reference.append(page_label(source.page))
    return f"{quoted}\n— {', '.join(reference)}\n"


def unlinked(source: SourceQuote) -> SourceQuote:
    """`source` as notes of the earlier shape cite it: the book and author named, not linked."""
    return dataclasses.replace(source, content_note=None, author_note=None)


def find_source(text: str, block: str) -> tuple[int, int] | None:
    """Where `block` (with a blank line on one side, if it has one) stands in `text` after
    the first Fuente heading."""
    found = [at for name in SOURCE_HEADINGS if (at := text.find(name)) >= 0]
    if not found:
        return None
    for candidate in (block + "\n", "\n" + block, block):
        at = text.find(candidate, min(found) + 1)
        if at >= 0:
            return at, at + len(candidate)
    return None


def without_sources(existing: str, sources: list[SourceQuote]) -> str:
    """`existing` without the Fuente entries of `sources`, where each stands exactly as
    zettelgraph wrote it (with or without links to the book's and author's notes; text the
    reader changed is left as it is), with the blank line that separated it from the next."""
    text = existing
    for source in sources:
        for block in dict.fromkeys([render_source(source), render_source(unlinked(source))]):
            at = find_source(text, block)
            if at is not None:
                text = text[: at[0]] + text[at[1] :]
                break
    return text
