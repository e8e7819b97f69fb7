"""The shape of an Obsidian concept note: what it shows (`ConceptNote`), the front matter
keys zettelgraph owns in it, and its sections' headings in every language. `notes.py`
renders and updates notes of this shape; `book_notes.py` names its sections the same way."""

from __future__ import annotations

from dataclasses import dataclass

from zettelgraph.models import Concept
from zettelgraph.models.labels import Labels, every_label, labels_for
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.vault.citations import SourceQuote
from zettelgraph.vault.properties import link_target

DEFAULT_LABELS = labels_for("es")
# Only on a concept whose text the reader edited: who wrote the text it has, when it was last
# edited, and how many earlier texts the note lists (which edits it has shown).
EDITED_KEYS = ("edited_by", "edited", "earlier_versions")
# Lists the reader may add to: their items are kept after ours.
SHARED_KEYS = ("aliases", "tags")
FIXED_KEYS = (
    "entity_id",
    "entity_type",
    *SHARED_KEYS,
    "summary",
    "short_summary",
    "source",
    "author",
    *EDITED_KEYS,
)
# Keys of the earlier note shape, taken out by an update.
LEGACY_KEYS = ("concept_relations",)
CONCEPT_TAG = "concept"
# The sections of a note in their order (where a missing one is put back), by label.
SECTION_ORDER = ("concept", "analysis", "connections", "source", "earlier_versions")


def section_heading(name: str, labels: Labels = DEFAULT_LABELS) -> tuple[str, ...]:
    """The heading of the section a label names (`labels.Labels` field): its name in `labels`
    first (the one written), then in every other language (so a note written under other
    labels is still read)."""
    names = [getattr(labels, name), *every_label(name)]
    return tuple(dict.fromkeys(f"## {label}" for label in names))


def headings(labels: Labels = DEFAULT_LABELS) -> dict[str, tuple[str, ...]]:
    """The heading of each section of a concept note (`section_heading`)."""
    return {name: section_heading(name, labels) for name in SECTION_ORDER}


@dataclass(frozen=True)
class LinkedConcept:
    """The target of a relation. `note_name` is the target note's file stem (the writer fills
    it in); without it the title, cleaned of characters that break a wikilink, is used."""

    id: str
    title: str
    note_name: str | None = None

    @property
    def link_name(self) -> str:
        return link_target(self.note_name if self.note_name is not None else self.title, self.id)


@dataclass(frozen=True)
class ConceptNote:
    """Everything a concept note shows.

    `relations` maps a relation type to the targets of this concept's outgoing
    concept-to-concept relations of that type; `tags` are its books' tags; `note_name` is
    the note's own file stem (the writer fills it in), whose title is then an alias when
    the two differ.
    """

    concept: Concept
    relations: dict[str, list[LinkedConcept]]
    sources: list[SourceQuote]
    tags: tuple[str, ...] = ()
    note_name: str | None = None


def relation_types(note: ConceptNote, vocabulary: RelationVocabulary) -> list[str]:
    """Every type of the vocabulary in its own order, then any other type the note has."""
    types = vocabulary.names
    return types + sorted(set(note.relations) - set(types))


def relation_key(kind: str) -> str:
    """The front matter key of a relation type: `GENERALIZES` -> `generalizes` (a type named
    as one of the other keys gets `_relation`, so it cannot overwrite it)."""
    key = kind.lower()
    return f"{key}_relation" if key in FIXED_KEYS or key in LEGACY_KEYS else key


def owned_keys(
    vocabulary: RelationVocabulary = DEFAULT_VOCABULARY, note: ConceptNote | None = None
) -> tuple[str, ...]:
    """The front matter keys zettelgraph owns in a note: the fixed ones, a key per relation
    type, and the earlier shape's keys (which an update removes)."""
    types = relation_types(note, vocabulary) if note is not None else vocabulary.names
    return (*FIXED_KEYS, *(relation_key(kind) for kind in types), *LEGACY_KEYS)


OWNED_KEYS = owned_keys()
