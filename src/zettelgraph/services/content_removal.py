"""The reader removes a whole content (a book, a document) with what only it supports
(`zettelgraph contents remove`, the source page).

What goes: the content, its passages and sections; the concepts only its passages support
(a concept also supported by another content's passages stays, losing only this content's
attributions); the relations of the concepts that go; the cards that test them or cite its
passages (with their study history); the pack entities found only in its passages; and its
author, unless another content has the same author. Questions asked of the graph (Answers)
stay: they are a record of what was asked, and keep their citations' book and place.
Refused while an extraction run of the content is still open: approving it later would write
concepts citing passages that are gone. `plan_content_removal` lists all of it before
anything is written, so front ends can ask for confirmation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from zettelgraph.context import Services
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    Entity,
    LearningItem,
    NodeLabel,
    Person,
    Relation,
    RelationKey,
)
from zettelgraph.packs.relations import AUTHORED_BY, STRUCTURAL_TYPES, SUPPORTS
from zettelgraph.services.cards import cards_testing
from zettelgraph.services.corrections import (
    RefusedError,
    Removed,
    UnknownError,
    card_rows,
    counted_relations,
    marked_for_notes,
    removal_record,
    rewrite_notes,
    with_history,
)
from zettelgraph.services.runs import WorkflowRuns
from zettelgraph.store.base import GraphStore, every_node
from zettelgraph.vault.entities import passage_ids
from zettelgraph.vault.notes import SourceQuote
from zettelgraph.vault.passages import source_quotes
from zettelgraph.vault.trash import drop_sources


@dataclass
class ContentRemoval:
    """What removing a content takes, and what stays but changes (`kept`: concepts that lose
    its attributions; `neighbours`: concepts and entities that lose a relation)."""

    content: Content
    author: Person | None
    author_goes: bool
    quotes: list[str]
    sections: list[str]
    concepts: list[Concept]
    kept: list[Concept]
    relations: list[Relation]
    neighbours: dict[str, str]
    cards: list[LearningItem]
    entities: list[Entity]
    entity_neighbours: dict[str, str]
    # The statements made from its passages (`zettelgraph propositions make`).
    propositions: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """What `zettelgraph contents remove --json` and the confirmation page show.

        Returns:
            `content_id`, `title`, `author` (a name or None), `author_removed`, the numbers of
            `passages`, `sections`, `propositions` and `relations`, and `concepts`,
            `concepts_kept`, `neighbours` (each `{id, title}`), `cards` (`card_rows`) and
            `entities` (`{id, name, type}`).
        """
        return {
            "content_id": self.content.id,
            "title": self.content.title,
            "author": self.author.name if self.author else None,
            "author_removed": self.author_goes,
            "passages": len(self.quotes),
            "sections": len(self.sections),
            "propositions": len(self.propositions),
            "concepts": [{"id": c.id, "title": c.title} for c in self.concepts],
            "concepts_kept": [{"id": c.id, "title": c.title} for c in self.kept],
            "relations": counted_relations(self.relations),
            "neighbours": [{"id": i, "title": t} for i, t in self.neighbours.items()],
            "cards": card_rows(self.cards),
            "entities": [
                {"id": e.id, "name": e.name, "type": e.entity_type} for e in self.entities
            ],
        }


def plan_content_removal(store: GraphStore, content_id: str) -> ContentRemoval:
    """What `remove_content` would take, read without writing. UnknownError for a content
    that is not in the store.

    Args:
        store: the graph store to read.
        content_id: the content's full id.

    Returns:
        What would go (passages, sections, concepts, relations, cards, entities, the author when no
        other content has them) and what stays but changes.

    Raises:
        UnknownError: no content has this id.
    """
    content = store.get_content(content_id)
    if content is None:
        raise UnknownError(f"no content {content_id!r}: `zettelgraph contents` lists them")
    quotes = [q.id for q in store.quotes_of(content.id)]
    own = set(quotes)
    concepts, kept = _concepts(store, content, own)
    gone = {c.id for c in concepts}
    relations, neighbours = _cut_relations(store, gone, store.get_concept)
    for concept in kept:
        neighbours.setdefault(concept.id, concept.title)
    entities = _entities(store, own)
    entity_ids = {e.id for e in entities}
    entity_relations, entity_neighbours = _cut_relations(store, entity_ids, _entity_of(store))
    author = store.author_of(content.id)
    return ContentRemoval(
        content=content,
        author=author,
        author_goes=author is not None and _sole_work(store, author, content.id),
        quotes=quotes,
        sections=[s.id for s in store.sections_of(content.id)],
        concepts=concepts,
        kept=kept,
        relations=[*relations, *entity_relations],
        neighbours=neighbours,
        cards=cards_testing(store, gone, own),
        entities=entities,
        entity_neighbours=entity_neighbours,
        propositions=[p.id for p in store.propositions_of(quotes)],
    )


def _concepts(
    store: GraphStore, content: Content, own: set[str]
) -> tuple[list[Concept], list[Concept]]:
    """The concepts only this content's passages support (or, with none at all, that its own
    run made), and those it supports beside other contents."""
    supported: dict[str, set[str]] = {}
    for quote_id in own:
        for relation in store.relations(quote_id, relation_type=SUPPORTS):
            supported.setdefault(relation.target_id, set())
    gone: list[Concept] = []
    kept: list[Concept] = []
    for concept_id in supported:
        concept = store.get_concept(concept_id)
        if concept is None:
            continue
        sources = {
            r.source_id for r in store.relations(concept_id, relation_type=SUPPORTS, direction="in")
        }
        quotes = {q.id for q in store.get_quotes(sorted(sources))}
        (gone if quotes <= own else kept).append(concept)
    for concept in every_node(store, NodeLabel.CONCEPT, Concept):
        # Its attributions were removed, but it came from this content's run.
        if concept.id not in supported and concept.provenance.get("content_id") == content.id:
            cited = store.relations(concept.id, relation_type=SUPPORTS, direction="in")
            if not store.get_quotes([r.source_id for r in cited]):
                gone.append(concept)
    return sorted(gone, key=_by_title), sorted(kept, key=_by_title)


def _by_title(concept: Concept) -> tuple[str, str]:
    return (concept.title.casefold(), concept.id)


def _cut_relations(
    store: GraphStore, gone: set[str], lookup: Callable[[str], Concept | Entity | None]
) -> tuple[list[Relation], dict[str, str]]:
    """The typed relations touching `gone` nodes, and the nodes on their other end that
    stay (id -> title), whose notes change."""
    keys: dict[RelationKey, Relation] = {}
    neighbours: dict[str, str] = {}
    for node_id in sorted(gone):
        for relation in store.relations(node_id, direction="both"):
            if relation.type in STRUCTURAL_TYPES:
                continue
            other_id = relation.target_id if relation.source_id == node_id else relation.source_id
            other = lookup(other_id)
            if other is None:
                continue  # a quote's attribution: it goes with the quote
            keys.setdefault(relation.key, relation)
            if other_id not in gone:
                neighbours[other_id] = other.title if isinstance(other, Concept) else other.name
    return list(keys.values()), neighbours


def _entity_of(store: GraphStore) -> Callable[[str], Entity | None]:
    def lookup(entity_id: str) -> Entity | None:
        found = store.get_entities([entity_id])
        return found[0] if found else None

    return lookup


def _entities(store: GraphStore, own: set[str]) -> list[Entity]:
    """The pack entities found only in this content's passages (their provenance's and the
    passages related to them)."""
    gone = []
    for entity in every_node(store, NodeLabel.ENTITY, Entity):
        incoming = store.relations(entity.id, direction="in")
        cited = {*passage_ids(entity), *(r.source_id for r in incoming)}
        passages = {q.id for q in store.get_quotes(sorted(cited))}
        if passages and passages <= own:
            gone.append(entity)
    return sorted(gone, key=lambda e: (e.name.casefold(), e.id))


def _sole_work(store: GraphStore, author: Person, content_id: str) -> bool:
    works = store.relations(author.id, relation_type=AUTHORED_BY, direction="in")
    return all(r.source_id == content_id for r in works)


def open_run_message(runs: Sequence[WorkflowRuns], content: Content) -> str | None:
    """Why the content cannot be removed now (an extraction run of it is still open, and
    how to end it), or None.

    Args:
        runs: the extraction workflows (concepts, graph) whose runs may hold the content.
        content: the content to remove.

    Returns:
        A line naming the open run, its status and the command that ends it; None when no run of the
        content is open.
    """
    for workflow in runs:
        run = workflow.open_run_of(content.id)
        if run is None:
            continue
        how = {
            "awaiting_review": f"abort it with `zettelgraph review {run.run_id} --abort`",
            "interrupted": (
                f"continue it with `zettelgraph resume {run.run_id}`, then abort it with "
                f"`zettelgraph review {run.run_id} --abort`"
            ),
        }.get(run.status, "wait for it to stop, then abort it")
        return (
            f"'{content.title}' has an open extraction run {run.run_id} ({run.status}): "
            f"{how}, then remove the content"
        )
    return None


def remove_content(
    services: Services, content_id: str, runs: Sequence[WorkflowRuns]
) -> Removed[ContentRemoval]:
    """Remove a content with what `plan_content_removal` lists, in one write with its
    `Removal` record, then bring the vault in step: the notes of what went to the trash,
    those of what stayed but changed rewritten, the card files rewritten.

    Args:
        services: the open services.
        content_id: the content to remove.
        runs: the extraction workflows' runs, asked whether one of them holds the content.

    Returns:
        What was removed, its `Removal` record's id, and what became of the notes.

    Raises:
        RefusedError: one of `runs` has an open run of the content.
    """
    store = services.store
    plan = plan_content_removal(store, content_id)
    blocked = open_run_message(runs, plan.content)
    if blocked is not None:
        raise RefusedError(blocked)
    content = plan.content
    removed_concepts = {c.id: c.title for c in plan.concepts}
    removed_entities = {e.id: e.name for e in plan.entities}
    record = removal_record(
        services,
        "content",
        content.id,
        content.title,
        concepts=removed_concepts,
        relations=[r.key for r in plan.relations],
        items=[item.id for item in plan.cards],
        entities=removed_entities,
        counts={
            "Content": 1,
            "Quote": len(plan.quotes),
            "Section": len(plan.sections),
            "Proposition": len(plan.propositions),
            "Concept": len(plan.concepts),
            "relations": counted_relations(plan.relations),
            "LearningItem": len(plan.cards),
            "Entity": len(plan.entities),
            "Person": int(plan.author_goes),
        },
        details={
            "content": content.model_dump(mode="json"),
            "author": plan.author.name if plan.author else None,
            "concepts_kept": [c.id for c in plan.kept],
        },
    )
    doomed = [
        content.id,
        *plan.quotes,
        *plan.sections,
        *plan.propositions,
        *removed_concepts,
        *removed_entities,
        *with_history(store, plan.cards),
    ]
    if plan.author_goes and plan.author is not None:
        doomed.append(plan.author.id)
    neighbours = [node_id for node_id in plan.neighbours if node_id not in removed_concepts]
    cited = _cited(store, plan)
    store.apply(
        ChangeSet(
            delete_ids=doomed,
            concepts=marked_for_notes(store, neighbours),
            removals=[record],
        )
    )
    notes = rewrite_notes(
        services,
        touched=neighbours,
        removed=removed_concepts,
        entities=list(plan.entity_neighbours),
        removed_entities=removed_entities,
        cards=True,
    )
    notes.add(drop_sources(services.vault, cited))
    return Removed(plan=plan, removal_id=record.id, notes=notes)


def _cited(store: GraphStore, plan: ContentRemoval) -> dict[str, list[SourceQuote]]:
    """The quotes of the content each concept that stays cites in its note, as the note
    shows them (read before they are deleted)."""
    own = set(plan.quotes)
    cited = {}
    for concept in plan.kept:
        attributions = store.relations(concept.id, relation_type=SUPPORTS, direction="in")
        quotes = store.get_quotes([r.source_id for r in attributions if r.source_id in own])
        cited[concept.id] = source_quotes(store, quotes)
    return cited
