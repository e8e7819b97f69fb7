"""Editing a committed concept: the reader's title, statement or analysis, the model's text kept
as an earlier revision, the note rewritten (see `corrections.py` for what every correction
shares)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zettelgraph.context import Services
from zettelgraph.models import (
    ChangeSet,
    Concept,
    ConceptRevision,
    embedding_text,
    utcnow,
)
from zettelgraph.models.revisions import changed_fields, revised
from zettelgraph.services.corrections import (
    CorrectionError,
    NotesOutcome,
    RefusedError,
    concept_named,
    rewrite_notes,
)
from zettelgraph.store.base import EmbedderMismatchError, GraphStore
from zettelgraph.text.normalize import normalize_name

# A concept's title is bounded by the model (Concept.title); a statement or an analysis is a
# paragraph or a few, as the model writes them.
MAX_TITLE_CHARS = 300
MAX_TEXT_CHARS = 10_000


@dataclass
class EditResult:
    """An edit: the concept as stored, which parts changed (none: nothing was written), the
    earlier text it keeps, and what became of its note."""

    concept: Concept
    changed: list[str]
    revision: ConceptRevision | None
    notes: NotesOutcome = field(default_factory=NotesOutcome)

    def as_dict(self) -> dict[str, Any]:
        """What `zettelgraph concept edit --json` prints and the web edit returns.

        Returns:
            `concept` (as stored, JSON), `changed` (the parts rewritten), `revision` (the earlier
            text kept, JSON, or None) and the `NotesOutcome` fields.
        """
        return {
            "concept": self.concept.model_dump(mode="json"),
            "changed": self.changed,
            "revision": self.revision.model_dump(mode="json") if self.revision else None,
            **self.notes.as_dict(),
        }


def edit_concept(
    services: Services,
    given: str,
    *,
    title: str | None = None,
    statement: str | None = None,
    analysis: str | None = None,
) -> EditResult:
    """Rewrite a committed concept's title, statement (its summaries follow it) or analysis
    (None leaves a part as it is). The text replaced is kept in `revisions`, the embedding is
    recomputed and the note rewritten.

    Args:
        services: the open services.
        given: the concept: its id, an id prefix or its title.
        title: the new title.
        statement: the new statement.
        analysis: the new analysis.

    Returns:
        The concept as stored, the parts changed, the text replaced and what became of its note.

    Raises:
        CorrectionError: an empty title or statement, a text over its bound, or a title another
            concept has (up to case and accents).
    """
    store = services.store
    concept = concept_named(store, given)
    new_title = _one_line(title, "title", MAX_TITLE_CHARS) if title is not None else None
    new_statement = _text(statement, "statement", required=True) if statement is not None else None
    new_analysis = _text(analysis, "analysis", required=False) if analysis is not None else None
    if new_title is not None and normalize_name(new_title) != normalize_name(concept.title):
        _check_title_free(store, concept, new_title)
    edited = revised(
        concept,
        title=new_title,
        statement=new_statement,
        analysis=new_analysis,
        at=utcnow(),
        where="graph",
    )
    changed = changed_fields(concept, edited)
    if not changed:
        return EditResult(concept=concept, changed=[], revision=None)
    vectors = {}
    if embedding_text(edited) != embedding_text(concept):
        try:
            services.check_embedder()
        except EmbedderMismatchError as exc:
            raise RefusedError(f"{exc}; nothing was changed") from exc
        vectors = {edited.id: services.embedder.embed([embedding_text(edited)])[0]}
        store.ensure_embedder(services.embedder.name, services.embedder.dim)
    stored = edited.model_copy(update={"vault_sync_pending": True})
    # One write: the text with its earlier one, the vector, the mark for its note.
    store.apply(ChangeSet(concepts=[stored], vectors=vectors))
    notes = rewrite_notes(services, touched=[concept.id])
    return EditResult(
        concept=store.get_concept(concept.id) or stored,
        changed=changed,
        revision=edited.revisions[-1],
        notes=notes,
    )


def _one_line(text: str, name: str, limit: int) -> str:
    value = " ".join(text.split())
    if not value:
        raise CorrectionError(f"the {name} cannot be empty: a concept is named by it")
    if len(value) > limit:
        raise CorrectionError(f"the {name} is {len(value)} characters; at most {limit}")
    return value


def _text(text: str, name: str, *, required: bool) -> str:
    value = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if required and not value:
        raise CorrectionError(f"the {name} cannot be empty: it is the idea itself")
    if len(value) > MAX_TEXT_CHARS:
        raise CorrectionError(f"the {name} is {len(value)} characters; at most {MAX_TEXT_CHARS}")
    return value


def _check_title_free(store: GraphStore, concept: Concept, title: str) -> None:
    key = normalize_name(title)
    taken = [
        c for c in store.list_concepts() if c.id != concept.id and normalize_name(c.title) == key
    ]
    if taken:
        other = taken[0]
        raise RefusedError(
            f"another concept is titled {other.title!r} ({other.id[:8]}): two concepts with "
            "one title cannot be told apart in links and notes; choose another title, or "
            f"delete one of them (`zettelgraph concept delete {other.id[:8]}`)"
        )
