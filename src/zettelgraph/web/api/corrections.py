"""The JSON API of the reader's corrections after the commit: edit a concept, delete it or one
of its relations, remove a content, and list what was removed.

The same services as `zettelgraph concept edit|delete`, `unlink` and `contents remove`
(`services/corrections.py`, `deletions.py`, `content_removal.py`), so each answer is what the
command prints with `--json`. A deletion can be read first, without writing (`GET
.../deletion`, `GET .../removal`). What is not in the graph is 404, what the graph's state
forbids now (a title another concept has, a run still open on the content) 409, bad input
422; a refused correction writes nothing.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from zettelgraph.models import Concept, ConceptRevision, Removal
from zettelgraph.services import concept_edits, content_removal, corrections, deletions
from zettelgraph.services.concept_edits import MAX_TEXT_CHARS, MAX_TITLE_CHARS
from zettelgraph.web import actions
from zettelgraph.web.api.models import Open
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web

router = APIRouter(tags=["corrections"])


class ConceptEditIn(BaseModel):
    """The parts to rewrite; a part left out (or null) stays as it is."""

    title: str | None = Field(default=None, max_length=MAX_TITLE_CHARS * 2)
    statement: str | None = Field(default=None, max_length=MAX_TEXT_CHARS * 2)
    analysis: str | None = Field(default=None, max_length=MAX_TEXT_CHARS * 2)


class NotesOut(Open):
    notes_written: list[str]
    notes_updated: list[str]
    notes_removed: list[str] = Field(description="Notes moved to the vault's .trash/.")
    notes_repaired: list[str] = Field(
        default_factory=list,
        description="Notes of other concepts an earlier write had left unwritten, written now.",
    )
    vault_errors: list[str] = Field(
        description="Notes that could not be written; `zettelgraph vault sync` repairs them."
    )


class ConceptEditOut(NotesOut):
    concept: Concept
    changed: list[str] = Field(description="title, concept, analysis; empty: nothing written.")
    revision: ConceptRevision | None = Field(description="The text it replaced.")


class RelationRow(Open):
    source_id: str
    source: str
    type: str
    target_id: str
    target: str
    reverse: bool = Field(description="The store's automatic reverse of another one listed.")


class CardRow(Open):
    id: str
    front: str
    status: str


class ConceptDeletionOut(Open):
    concept_id: str
    title: str
    relations: list[RelationRow]
    neighbours: list[dict[str, str]]
    attributions: int = Field(description="Quote attributions that go (the quotes stay).")
    cards: list[CardRow]


class ConceptDeletedOut(ConceptDeletionOut, NotesOut):
    removal_id: str


class UnlinkOut(NotesOut):
    source_id: str
    source: str
    type: str
    target_id: str
    target: str
    removed: list[list[str]] = Field(description="Every edge removed: [source, type, target].")
    properties: dict[str, Any]
    cards: list[CardRow]
    removal_id: str


class ContentRemovalOut(Open):
    content_id: str
    title: str
    author: str | None
    author_removed: bool
    passages: int
    sections: int
    concepts: list[dict[str, str]]
    concepts_kept: list[dict[str, str]]
    relations: int
    neighbours: list[dict[str, str]]
    cards: list[CardRow]
    entities: list[dict[str, str]]


class ContentRemovedOut(ContentRemovalOut, NotesOut):
    removal_id: str


@router.patch("/concepts/{concept_id}", response_model=ConceptEditOut, dependencies=Csrf)
def edit_concept(concept_id: str, body: ConceptEditIn, web: Web) -> dict[str, Any]:
    """Rewrite a concept's title, statement or analysis: the text it replaces is kept as a
    revision, the summaries follow the statement, the embedding and the note are redone."""
    concept = actions.concept_or_404(web, concept_id)
    with actions.correction_refusals():
        result = concept_edits.edit_concept(
            web.services,
            concept.id,
            title=body.title,
            statement=body.statement,
            analysis=body.analysis,
        )
    return result.as_dict()


@router.get("/concepts/{concept_id}/deletion", response_model=ConceptDeletionOut)
def concept_deletion(concept_id: str, web: Web) -> dict[str, Any]:
    """What deleting the concept would take; nothing is written."""
    return deletions.plan_concept_deletion(
        web.services.store, actions.concept_or_404(web, concept_id)
    ).as_dict()


@router.delete("/concepts/{concept_id}", response_model=ConceptDeletedOut, dependencies=Csrf)
def delete_concept(concept_id: str, web: Web) -> dict[str, Any]:
    """Delete the concept with its relations (both ways), its quote attributions and the
    cards that test it; its note goes to the vault's .trash/."""
    concept = actions.concept_or_404(web, concept_id)
    with actions.correction_refusals():
        return deletions.delete_concept(web.services, concept.id).as_dict()


@router.delete(
    "/concepts/{concept_id}/relations/{other_id}", response_model=UnlinkOut, dependencies=Csrf
)
def unlink(
    concept_id: str,
    other_id: str,
    web: Web,
    relation_type: Annotated[str | None, Query(alias="type", max_length=64)] = None,
) -> dict[str, Any]:
    """Remove the relation concept -[type]-> other (without `type`: the one relation that
    joins them) with its reverse or twin, and the cards that ask how the two relate."""
    concept = actions.concept_or_404(web, concept_id)
    with actions.correction_refusals():
        result = deletions.unlink_concepts(web.services, concept.id, other_id, relation_type)
    return result.as_dict()


@router.get("/contents/{content_id}/removal", response_model=ContentRemovalOut)
def content_removal_plan(content_id: str, web: Web) -> dict[str, Any]:
    """What removing the content would take, and what would stay but change; nothing is
    written."""
    with actions.correction_refusals():
        return content_removal.plan_content_removal(web.services.store, content_id).as_dict()


@router.delete("/contents/{content_id}", response_model=ContentRemovedOut, dependencies=Csrf)
def remove_content(content_id: str, web: Web) -> dict[str, Any]:
    """Remove the content with what only it supports; 409 while an extraction run of it is
    open (the message names it and how to end it)."""
    with actions.correction_refusals():
        result = content_removal.remove_content(
            web.services, content_id, actions.extraction_runs(web)
        )
    return result.as_dict()


@router.get("/removals", response_model=list[Removal])
def list_removals(web: Web) -> list[Removal]:
    """What the reader removed from the graph, newest first (`created_at` is when), with
    what went with each."""
    return corrections.removals(web.services.store)
