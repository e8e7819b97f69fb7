"""Obsidian concept notes as text: render a new note, update one a person may have edited.

Pure functions, no I/O. A note has two kinds of content:

- what zettelgraph owns and rewrites on every sync: the front matter keys in `OWNED_KEYS`,
  the body of the `## Conexiones` section and, once the concept was edited, the list of its
  earlier texts under `## Versiones anteriores`;
- everything else (the person's text in Análisis, their own sections and front matter keys),
  which an update keeps byte for byte (`markdown.update_note`).

The title, Concepto and Análisis are written when the note is created, and again only when
the reader edits that part of the concept in zettelgraph (`zettelgraph concept edit`, the
web app): the note's `earlier_versions` says how many edits it has shown, so an update knows
which parts changed since (`edited_parts`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from zettelgraph.locations import page_label
from zettelgraph.models import Concept, ConceptRevision
from zettelgraph.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.revisions import changed_fields
from zettelgraph.vault.markdown import (
    NoteFormatError,
    dump_front_matter,
    parse_note,
    section_lines,
    text_block,
    update_note,
    yaml_text,
)

__all__ = [
    "CONNECTIONS_HEADING",
    "EDITED_KEYS",
    "OWNED_KEYS",
    "SOURCES_HEADING",
    "VERSIONS_HEADING",
    "ConceptNote",
    "LinkedConcept",
    "NoteFormatError",
    "SourceQuote",
    "connection_lines",
    "edited_parts",
    "expected_state",
    "note_state",
    "owned_front_matter",
    "parse_note",
    "relation_types",
    "render_concept_note",
    "render_source",
    "update_concept_note",
    "version_lines",
    "without_sources",
]

# Only on a concept whose text the reader edited: who wrote the text it has, when it was last
# edited, and how many earlier texts the note lists (which edits it has shown).
EDITED_KEYS = ("edited_by", "edited", "earlier_versions")
OWNED_KEYS = (
    "entity_id",
    "entity_type",
    "short_summary",
    "summary",
    *EDITED_KEYS,
    "concept_relations",
)
CONCEPT_HEADING = "## Concepto"
ANALYSIS_HEADING = "## Análisis"
CONNECTIONS_HEADING = "## Conexiones"
SOURCES_HEADING = "## Fuente"
VERSIONS_HEADING = "## Versiones anteriores"
# The note's sections in their order: where a missing one is put back.
SECTION_ORDER = (
    CONCEPT_HEADING,
    ANALYSIS_HEADING,
    CONNECTIONS_HEADING,
    SOURCES_HEADING,
    VERSIONS_HEADING,
)
_BY = {"model": "texto del modelo", "reader": "tu texto"}
_WHERE = {"review": "reemplazado en la revisión", "graph": "reemplazado después de aprobarlo"}

_LINK_BREAKERS = re.compile(r"[\[\]|#^]+")


@dataclass(frozen=True)
class SourceQuote:
    """A quote attributed to the concept (Quote -[SUPPORTS]-> Concept) and where it is from."""

    quote_id: str
    text: str
    content_title: str
    author: str | None
    page: str | None
    # Where a document passage is ("slide 3, speaker notes", "Intro > Setup, lines 4–9");
    # shown instead of the page when given.
    place: str | None = None


@dataclass(frozen=True)
class LinkedConcept:
    """The target of a relation. `note_name` is the target note's file stem (the writer fills
    it in); without it the title, cleaned of characters that break a wikilink, is used."""

    id: str
    title: str
    note_name: str | None = None

    @property
    def link_name(self) -> str:
        name = self.note_name if self.note_name is not None else self.title
        return " ".join(_LINK_BREAKERS.sub(" ", name).split()) or self.id


@dataclass(frozen=True)
class ConceptNote:
    """Everything a concept note shows.

    `relations` maps a relation type to the targets of this concept's outgoing
    concept-to-concept relations of that type.
    """

    concept: Concept
    relations: dict[str, list[LinkedConcept]]
    sources: list[SourceQuote]


# --- rendering ----------------------------------------------------------------------------


def relation_types(note: ConceptNote, vocabulary: RelationVocabulary) -> list[str]:
    """Every type of the vocabulary in its own order, then any other type the note has.

    Listing empty types too keeps the front matter's key set and the Conexiones lines stable.
    """
    types = vocabulary.names
    return types + sorted(set(note.relations) - set(types))


def owned_front_matter(
    note: ConceptNote, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
) -> dict[str, Any]:
    """The front matter keys zettelgraph owns, with their values for this note."""
    concept = note.concept
    edited: dict[str, Any] = {}
    if concept.revisions:
        edited = {
            "edited_by": concept.text_by,
            "edited": concept.revisions[-1].replaced_at.date(),
            "earlier_versions": len(concept.revisions),
        }
    return {
        "entity_id": concept.id,
        "entity_type": "Concept",
        "short_summary": yaml_text(concept.summary_short),
        "summary": yaml_text(concept.summary),
        **edited,
        "concept_relations": {
            kind: [target.id for target in note.relations.get(kind, [])]
            for kind in relation_types(note, vocabulary)
        },
    }


def connection_lines(
    note: ConceptNote, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
) -> list[str]:
    """One `- TYPE: [[Name]], [[Name]]` line per relation type (empty types included)."""
    lines = []
    for kind in relation_types(note, vocabulary):
        links = ", ".join(f"[[{target.link_name}]]" for target in note.relations.get(kind, []))
        lines.append(f"- {kind}: {links}".rstrip())
    return lines


def version_lines(revisions: list[ConceptRevision]) -> list[str]:
    """The earlier texts of a concept, oldest first: a numbered item per text with its title,
    who wrote it and when it was replaced where, then its statement and analysis indented."""
    lines = []
    for number, revision in enumerate(revisions, 1):
        title = " ".join(revision.title.split()).replace("*", r"\*")
        when = f"{_WHERE[revision.replaced_in]}, {revision.replaced_at.date().isoformat()}"
        lines.append(f"{number}. **{title}** ({_BY[revision.by]}; {when})")
        lines.append(f"   {' '.join(revision.concept.split())}")
        if revision.analysis.strip():
            lines.append(f"   *Análisis:* {' '.join(revision.analysis.split())}")
    return lines


def render_concept_note(
    note: ConceptNote, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
) -> str:
    """A new note in the vault's template: front matter, title, Concepto, Análisis,
    Conexiones (all relation types), Fuente (each source quote with its reference) and, for
    an edited concept, its earlier versions."""
    concept = note.concept
    versions = version_lines(concept.revisions)
    return "".join(
        [
            dump_front_matter(owned_front_matter(note, vocabulary), "\n"),
            f"# {_title_line(concept.title)}\n",
            f"\n{CONCEPT_HEADING}\n",
            text_block(concept.concept),
            f"\n{ANALYSIS_HEADING}\n",
            text_block(concept.analysis),
            f"\n{CONNECTIONS_HEADING}\n",
            "".join(f"{line}\n" for line in connection_lines(note, vocabulary)),
            f"\n{SOURCES_HEADING}\n",
            "\n".join(render_source(source) for source in note.sources),
            f"\n{VERSIONS_HEADING}\n" if versions else "",
            "".join(f"{line}\n" for line in versions),
        ]
    )


def _title_line(title: str) -> str:
    return " ".join(title.split())


def render_source(source: SourceQuote) -> str:
    """A quote as a blockquote, then "— *Book*, Author, place"."""
    quoted = "".join(
        f"> {line}\n" if line.strip() else ">\n"
        for line in source.text.replace("\r\n", "\n").strip().split("\n")
    )
    title = " ".join(source.content_title.split()).replace("*", r"\*")
    reference = [f"*{title}*"]
    if source.author:
        reference.append(source.author)
    if source.place:
        reference.append(source.place)
    elif source.page:
        reference.append(page_label(source.page))
    return f"{quoted}\n— {', '.join(reference)}\n"


# --- reading and updating -----------------------------------------------------------------


def note_state(text: str) -> dict[str, Any]:
    """What zettelgraph owns in a note: the owned front matter values (None when missing) and
    `connections`, the non-blank lines of the Conexiones section (None when it is missing).

    Two notes with equal states need no update, whatever their formatting.
    """
    front, body = parse_note(text)
    state = {key: front.get(key) for key in OWNED_KEYS}
    state["connections"] = section_lines(body, CONNECTIONS_HEADING)
    return state


def expected_state(
    note: ConceptNote, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
) -> dict[str, Any]:
    """The `note_state` a note written from `note` has."""
    return note_state(render_concept_note(note, vocabulary))


def without_sources(existing: str, sources: list[SourceQuote]) -> str:
    """`existing` without the `## Fuente` entries of `sources`, where each stands exactly as
    zettelgraph wrote it (text the reader changed is left as it is), with the blank line
    that separated it from the next."""
    text = existing
    for source in sources:
        block = render_source(source)
        for found in (block + "\n", "\n" + block, block):
            at = text.find(found)
            if at >= 0 and at > text.find(SOURCES_HEADING) >= 0:
                text = text[:at] + text[at + len(found) :]
                break
    return text


def edited_parts(existing: str, concept: Concept) -> list[str]:
    """The parts of its text (`revisions.TEXT_FIELDS`) the reader edited in zettelgraph since
    the note `existing` was written: those that differ between the text the note showed (the
    earlier version its `earlier_versions` counts up to) and the concept's present text.
    Raises NoteFormatError for front matter that is not valid YAML."""
    shown = parse_note(existing)[0].get("earlier_versions")
    seen = shown if isinstance(shown, int) and not isinstance(shown, bool) else 0
    if seen >= len(concept.revisions):
        return []
    return changed_fields(concept.revisions[max(seen, 0)], concept)


def update_concept_note(
    existing: str, note: ConceptNote, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
) -> str:
    """`existing` with only the owned front matter keys and the Conexiones body replaced,
    and, when the reader edited the concept since the note was written, the parts they
    edited (title, Concepto, Análisis) and the earlier versions.

    The person's front matter keys keep their order and text; missing front matter or a
    missing Conexiones section is added (before Fuente). Idempotent. Raises NoteFormatError
    when the front matter is not valid YAML (rewriting it would lose the person's keys).
    """
    concept = note.concept
    edited = edited_parts(existing, concept)
    sections = {CONNECTIONS_HEADING: connection_lines(note, vocabulary)}
    if "concept" in edited:
        sections[CONCEPT_HEADING] = text_block(concept.concept).splitlines()
    if "analysis" in edited:
        sections[ANALYSIS_HEADING] = text_block(concept.analysis).splitlines()
    if concept.revisions:
        sections[VERSIONS_HEADING] = version_lines(concept.revisions)
    return update_note(
        existing,
        owned_front_matter(note, vocabulary),
        OWNED_KEYS,
        sections,
        SECTION_ORDER,
        title=_title_line(concept.title) if "title" in edited else None,
    )
