"""What the reader's passages say: concepts with their earlier texts, the typed relations
between nodes, and the template packs' entities."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from zettelgraph.models.base import Node, stable_id, utcnow
from zettelgraph.text.normalize import normalize_name

# Who wrote a concept's text: the model that proposed it, or the reader who edited it.
TextAuthor = Literal["model", "reader"]


class ConceptRevision(BaseModel):
    """An earlier text of a concept, kept when the reader replaced it: the model's proposal
    when the reader edited it in the review, or the reader's own text edited again later."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str
    concept: str
    analysis: str = ""
    summary: str = ""
    summary_short: str = ""
    by: TextAuthor
    model: str | None = None  # the model's provider:model string, when `by` is "model"
    replaced_at: datetime
    # Where the reader replaced it: in the run's review, or on the committed concept.
    replaced_in: Literal["review", "graph"]


# Other names a concept is searched by: a few, as a glossary gives them.
MAX_SYNONYMS = 5


class Concept(Node):
    """One atomic idea in the configured concept language."""

    title: str = Field(min_length=1, max_length=300)
    concept: str
    analysis: str = ""
    summary: str = ""
    summary_short: str = ""
    language: str = "es"
    # Other names the reader may search it by (the vault note's `aliases`; full-text search
    # reads them with its text).
    synonyms: list[str] = Field(default_factory=list, max_length=MAX_SYNONYMS)
    # Where in its content the idea first appears: the location of the earliest passage it
    # cites ("p. 12", "slide 5", "Intro > Setup, lines 4–9"), as its run saw it.
    first_appearance: str = ""
    vault_sync_pending: bool = False
    # Where it came from: run (thread id), LLM calls, source quotes, the human decision.
    provenance: dict[str, Any] = Field(default_factory=dict)
    # Its earlier texts, oldest first; empty while the text is the model's as proposed.
    revisions: list[ConceptRevision] = Field(default_factory=list)

    @property
    def text_by(self) -> TextAuthor:
        """Who wrote the text it has now: only a reader edits a concept once proposed."""
        return "reader" if self.revisions else "model"


# A relation named by what identifies it: (source id, type, target id), as `Relation.key`.
RelationKey = tuple[str, str, str]


class Relation(BaseModel):
    """A typed, directed edge between two nodes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_id: str
    target_id: str
    type: str
    properties: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=utcnow)

    @property
    def key(self) -> RelationKey:
        return (self.source_id, self.type, self.target_id)


class Entity(Node):
    """A person, place, work, claim... of a template pack's type, found in the reader's
    passages. One per (type, name): `entity_id` folds case, accents and spacing."""

    name: str = Field(min_length=1, max_length=300)
    entity_type: str = Field(pattern=r"^[A-Z][A-Za-z0-9]{0,63}$")
    description: str = Field(default="", max_length=2000)
    # Validated against the entity type's properties in the pack (packs/schema.py).
    properties: dict[str, Any] = Field(default_factory=dict)
    pack: str = ""
    # Where it came from: run, passages, LLM call, pack and its version, the human decision.
    provenance: dict[str, Any] = Field(default_factory=dict)


def entity_id(entity_type: str, name: str) -> str:
    return stable_id("entity", entity_type, normalize_name(name))
