"""Obsidian concept notes as text: render a new note, update one a person may have edited.

Pure functions, no I/O. A note has two kinds of content:

- what zettelgraph owns and rewrites on every sync: the front matter keys (`owned_keys`: flat
  properties Obsidian's Properties view shows, relations as lists of wikilinks per type), the
  body of the Conexiones section and, once the concept was edited, the list of its earlier
  texts under Versiones anteriores;
- everything else (the person's text in Análisis, their own sections and front matter keys),
  which an update keeps byte for byte (`markdown.update_note`). The `tags` and `aliases` lists
  are shared: the reader's items are kept after zettelgraph's.

Headings are written in the concept language (`labels.labels_for`) and read in any. The
title, Concepto and Análisis are written when the note is created, and again only when the
reader edits that part of the concept in zettelgraph (`zettelgraph concept edit`, the web
app): the note's `earlier_versions` says how many edits it has shown, so an update knows
which parts changed since (`edited_parts`). A note of the earlier shape (relation ids in a
nested `concept_relations` map, empty sections) is brought to this one by its next update.
The note's shape (its keys, headings and `ConceptNote`) is `note_shape.py`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zettelgraph.models import Concept, ConceptRevision
from zettelgraph.models.labels import Labels
from zettelgraph.models.revisions import changed_fields
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.vault.citations import (
    SourceQuote,
    find_source,
    render_source,
    unlinked,
    without_sources,
)
from zettelgraph.vault.markdown import (
    Heading,
    NoteFormatError,
    dump_front_matter,
    parse_note,
    remove_section,
    section_lines,
    split_note,
    text_block,
    update_note,
    yaml_text,
)
from zettelgraph.vault.note_shape import (
    CONCEPT_TAG,
    DEFAULT_LABELS,
    EDITED_KEYS,
    LEGACY_KEYS,
    OWNED_KEYS,
    SECTION_ORDER,
    SHARED_KEYS,
    ConceptNote,
    LinkedConcept,
    headings,
    owned_keys,
    relation_key,
    relation_types,
    section_heading,
)
from zettelgraph.vault.properties import wikilink, with_theirs

__all__ = [
    "EDITED_KEYS",
    "LEGACY_KEYS",
    "OWNED_KEYS",
    "ConceptNote",
    "LinkedConcept",
    "NoteFormatError",
    "SourceQuote",
    "connection_lines",
    "edited_parts",
    "expected_state",
    "front_matter_differs",
    "headings",
    "is_old_shape",
    "note_state",
    "owned_front_matter",
    "owned_keys",
    "parse_note",
    "relation_key",
    "relation_types",
    "render_concept_note",
    "render_source",
    "section_heading",
    "update_concept_note",
    "version_lines",
    "without_sources",
]

# --- rendering ----------------------------------------------------------------------------


def _distinct(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _aliases(note: ConceptNote) -> list[str]:
    """The concept's title when its note has another name, its earlier titles and its
    synonyms, so Obsidian's link search finds it by any of them."""
    title = _title_line(note.concept.title)
    names = [title] + [_title_line(revision.title) for revision in note.concept.revisions]
    names += [_title_line(name) for name in note.concept.synonyms]
    # The note's name is found by Obsidian anyway; a note without one is named by its title.
    shown = note.note_name if note.note_name is not None else title
    return [yaml_text(name) for name in _distinct(names) if name and name != shown]


def owned_front_matter(
    note: ConceptNote,
    vocabulary: RelationVocabulary = DEFAULT_VOCABULARY,
    theirs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The front matter keys zettelgraph owns, with their values for this note: flat
    properties only (text, list of text, number, date), none of them empty. `theirs` is the
    note's present front matter, whose own `tags` and `aliases` items are kept."""
    concept = note.concept
    front: dict[str, Any] = {"entity_id": concept.id, "entity_type": "Concept"}
    shared = {"aliases": _aliases(note), "tags": [*note.tags, CONCEPT_TAG]}
    for key, values in shared.items():
        values = with_theirs(values, (theirs or {}).get(key))
        if values:
            front[key] = values
    summary = yaml_text(concept.summary).strip()
    short = yaml_text(concept.summary_short).strip()
    if summary:
        front["summary"] = summary
    if short and short != summary:
        front["short_summary"] = short
    books = _distinct([source.book_link for source in note.sources])
    authors = _distinct([link for s in note.sources if (link := s.author_link) is not None])
    if books:
        front["source"] = books
    if authors:
        front["author"] = authors
    if concept.revisions:
        front["edited_by"] = concept.text_by
        front["edited"] = concept.revisions[-1].replaced_at.date()
        front["earlier_versions"] = len(concept.revisions)
    for kind in relation_types(note, vocabulary):
        targets = note.relations.get(kind, [])
        if targets:
            front[relation_key(kind)] = [wikilink(target.link_name) for target in targets]
    return front


def connection_lines(
    note: ConceptNote, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
) -> list[str]:
    """One `- TYPE: [[Name]], [[Name]]` line per relation type the concept has."""
    return [
        f"- {kind}: " + ", ".join(f"[[{target.link_name}]]" for target in targets)
        for kind in relation_types(note, vocabulary)
        if (targets := note.relations.get(kind))
    ]


def version_lines(revisions: list[ConceptRevision], labels: Labels = DEFAULT_LABELS) -> list[str]:
    """The earlier texts of a concept, oldest first: a numbered item per text with its title,
    who wrote it and when it was replaced where, then its statement and analysis indented."""
    by = {"model": labels.model_text, "reader": labels.reader_text}
    where = {"review": labels.replaced_in_review, "graph": labels.replaced_after_approval}
    lines = []
    for number, revision in enumerate(revisions, 1):
        title = " ".join(revision.title.split()).replace("*", r"\*")
        when = f"{where[revision.replaced_in]}, {revision.replaced_at.date().isoformat()}"
        lines.append(f"{number}. **{title}** ({by[revision.by]}; {when})")
        lines.append(f"   {' '.join(revision.concept.split())}")
        if revision.analysis.strip():
            lines.append(f"   *{labels.analysis}:* {' '.join(revision.analysis.split())}")
    return lines


def render_concept_note(
    note: ConceptNote,
    vocabulary: RelationVocabulary = DEFAULT_VOCABULARY,
    labels: Labels = DEFAULT_LABELS,
) -> str:
    """A new note in the vault's template: front matter, title, then the sections that have
    something to show: Concepto, Análisis, Conexiones (the relation types it has), Fuente
    (each source quote with its reference) and, for an edited concept, its earlier versions."""
    concept = note.concept
    named = headings(labels)
    sections = {
        "concept": text_block(concept.concept),
        "analysis": text_block(concept.analysis),
        "connections": "".join(f"{line}\n" for line in connection_lines(note, vocabulary)),
        "source": "\n".join(render_source(source) for source in note.sources),
        "earlier_versions": "".join(
            f"{line}\n" for line in version_lines(concept.revisions, labels)
        ),
    }
    return "".join(
        [
            dump_front_matter(owned_front_matter(note, vocabulary), "\n"),
            f"# {_title_line(concept.title)}\n",
            *(f"\n{named[name][0]}\n{text}" for name, text in sections.items() if text),
        ]
    )


def _title_line(title: str) -> str:
    return " ".join(title.split())


# --- reading and updating -----------------------------------------------------------------


def note_state(
    text: str, keys: tuple[str, ...] = OWNED_KEYS, labels: Labels = DEFAULT_LABELS
) -> dict[str, Any]:
    """What zettelgraph owns in a note: the values of the owned front matter `keys` (None when
    missing) and `connections`, the non-blank lines of the Conexiones section, under its name
    in any language (None when it is missing).

    Two notes with equal states need no update, whatever their formatting (`tags` and
    `aliases` may hold the reader's items too: see `front_matter_differs`).
    """
    front, body = parse_note(text)
    state = {key: front.get(key) for key in keys}
    state["connections"] = section_lines(body, headings(labels)["connections"])
    return state


def expected_state(
    note: ConceptNote,
    vocabulary: RelationVocabulary = DEFAULT_VOCABULARY,
    labels: Labels = DEFAULT_LABELS,
) -> dict[str, Any]:
    """The `note_state` a note written from `note` has."""
    return note_state(
        render_concept_note(note, vocabulary, labels), owned_keys(vocabulary, note), labels
    )


def front_matter_differs(state: Mapping[str, Any], expected: Mapping[str, Any]) -> bool:
    """Whether an owned front matter value of a note (`state`) differs from the store's
    (`expected`): the shared lists need only hold zettelgraph's items."""
    for key, value in expected.items():
        if key == "connections":
            continue
        if key in SHARED_KEYS:
            present = state.get(key)
            if not set(value or []) <= set(present if isinstance(present, list) else []):
                return True
        elif state.get(key) != value:
            return True
    return False


def is_old_shape(text: str) -> bool:
    """Whether a note is of the earlier shape (relation ids in `concept_relations`).
    Raises NoteFormatError for front matter that is not valid YAML."""
    front = parse_note(text)[0]
    return any(key in front for key in LEGACY_KEYS)


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


def _migrated(existing: str, note: ConceptNote, labels: Labels) -> str:
    """A note of the earlier shape with its Fuente references linked to the book's and the
    author's notes (where they stand as zettelgraph wrote them) and without the sections it
    wrote empty (Análisis, Fuente); the front matter and Conexiones follow in the update."""
    text = existing
    for source in note.sources:
        old, new = render_source(unlinked(source)), render_source(source)
        at = find_source(text, old) if old != new else None
        if at is not None:
            text = text[: at[0]] + text[at[0] :].replace(old, new, 1)
    parts = split_note(text)
    body = parts.body
    for name in ("analysis", "source"):
        if section_lines(body, headings(labels)[name]) == []:
            body = remove_section(body, headings(labels)[name])
    return text[: len(text) - len(parts.body)] + body


def update_concept_note(
    existing: str,
    note: ConceptNote,
    vocabulary: RelationVocabulary = DEFAULT_VOCABULARY,
    labels: Labels = DEFAULT_LABELS,
) -> str:
    """`existing` with only the owned front matter keys and the Conexiones body replaced
    (the section taken out when the concept has no relation), and, when the reader edited
    the concept since the note was written, the parts they edited (title, Concepto,
    Análisis) and the earlier versions. A note of the earlier shape is brought to this one.

    The person's front matter keys keep their order and text; missing front matter or a
    missing Conexiones section is added (before Fuente). Idempotent. Raises NoteFormatError
    when the front matter is not valid YAML (rewriting it would lose the person's keys).
    """
    concept = note.concept
    text = _migrated(existing, note, labels) if is_old_shape(existing) else existing
    named = headings(labels)
    edited = edited_parts(text, concept)
    sections: dict[Heading, list[str] | None] = {
        named["connections"]: connection_lines(note, vocabulary) or None
    }
    if "concept" in edited:
        sections[named["concept"]] = text_block(concept.concept).splitlines() or None
    if "analysis" in edited:
        sections[named["analysis"]] = text_block(concept.analysis).splitlines() or None
    if concept.revisions:
        sections[named["earlier_versions"]] = version_lines(concept.revisions, labels)
    return update_note(
        text,
        owned_front_matter(note, vocabulary, parse_note(text)[0]),
        owned_keys(vocabulary, note),
        sections,
        [named[name] for name in SECTION_ORDER],
        title=_title_line(concept.title) if "title" in edited else None,
    )
