"""The reader deletes a committed concept, or one relation between two concepts
(`zettelgraph concept delete`, `zettelgraph unlink`, the concept page).

A concept goes with its relations both ways (reverses included), its quote attributions
(the quotes stay: they are the reader's reading, and may support other ideas) and the cards
that test it (with their study history): a card about an idea that is gone, or about one of
its relations, would quiz the reader on something their graph no longer says. A relation
goes with its reverse or symmetric twin, and with the cards that ask how its two concepts
relate (`cards generate` writes new ones from the relations that remain). The notes of the
concepts on the other end are rewritten; a deleted concept's note goes to the vault's
`.trash/`. Each deletion leaves a `Removal` record, in the same write, with what went.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zettelgraph.context import Services
from zettelgraph.models import (
    ChangeSet,
    Concept,
    LearningItem,
    Relation,
    RelationKey,
)
from zettelgraph.packs.relations import STRUCTURAL_TYPES, SUPPORTS, RelationVocabulary
from zettelgraph.services.cards import cards_testing, relation_cards
from zettelgraph.services.corrections import (
    CorrectionError,
    Removed,
    UnknownError,
    card_rows,
    concept_named,
    counted_relations,
    marked_for_notes,
    removal_record,
    rewrite_notes,
    with_history,
)
from zettelgraph.store.base import GraphStore

# --- a concept ------------------------------------------------------------------------------


@dataclass
class ConceptDeletion:
    """What deleting a concept takes: its relations to other concepts (both directions),
    how many quotes are attributed to it (they stay), the cards that test it; and the
    concepts on the other end of its relations, whose notes change."""

    concept: Concept
    relations: list[Relation]
    neighbours: dict[str, str]
    attributions: int
    cards: list[LearningItem]

    def as_dict(self) -> dict[str, Any]:
        """What `zettelgraph concept delete --json` and the confirmation page show.

        Returns:
            `concept_id`, `title`, `relations` (each with its ends' ids and titles and its type),
            `neighbours` (`{id, title}`), `attributions` (how many quotes stay attributed) and
            `cards` (`card_rows`).
        """
        return {
            "concept_id": self.concept.id,
            "title": self.concept.title,
            "relations": [_relation_row(r, self.neighbours, self.concept) for r in self.relations],
            "neighbours": [{"id": i, "title": t} for i, t in self.neighbours.items()],
            "attributions": self.attributions,
            "cards": card_rows(self.cards),
        }


def _relation_row(relation: Relation, titles: dict[str, str], concept: Concept) -> dict[str, Any]:
    every = {**titles, concept.id: concept.title}
    return {
        "source_id": relation.source_id,
        "source": every.get(relation.source_id, relation.source_id),
        "type": relation.type,
        "target_id": relation.target_id,
        "target": every.get(relation.target_id, relation.target_id),
        # The store's automatic reverse of another relation listed (as the concept page
        # marks it): a reader counts a relation and its reverse as one.
        "reverse": "inferred_reverse_of" in relation.properties,
    }


def plan_concept_deletion(store: GraphStore, concept: Concept) -> ConceptDeletion:
    """What `delete_concept` would take, read without writing (the confirmation shows it).

    Args:
        store: the graph store to read.
        concept: the concept to delete, as stored.

    Returns:
        Its relations to other concepts (both directions), the concepts at their other ends, how
        many quotes it has and the cards that test it.
    """
    relations: list[Relation] = []
    neighbours: dict[str, str] = {}
    attributions = 0
    for relation in store.relations(concept.id, direction="both"):
        other_id = relation.target_id if relation.source_id == concept.id else relation.source_id
        other = store.get_concept(other_id) if other_id != concept.id else concept
        if other is not None and relation.type not in STRUCTURAL_TYPES:
            relations.append(relation)
            if other.id != concept.id:
                neighbours[other.id] = other.title
        elif relation.type == SUPPORTS and relation.target_id == concept.id:
            attributions += 1
    return ConceptDeletion(
        concept=concept,
        relations=relations,
        neighbours=neighbours,
        attributions=attributions,
        cards=cards_testing(store, [concept.id]),
    )


def delete_concept(services: Services, given: str) -> Removed[ConceptDeletion]:
    """Delete the concept `given` names, with what `plan_concept_deletion` lists, in one
    write with its `Removal` record; then rewrite its neighbours' notes, move its note to the
    trash and rewrite the card files when cards went.

    Args:
        services: the open services (store and vault).
        given: the concept as the reader names it: id, unique id prefix or exact title.

    Returns:
        The plan carried out, the id of its `Removal` record and what became of the notes.

    Raises:
        UnknownError: `given` names no concept or several.
    """
    store = services.store
    plan = plan_concept_deletion(store, concept_named(store, given))
    concept = plan.concept
    record = removal_record(
        services,
        "concept",
        concept.id,
        concept.title,
        concepts={concept.id: concept.title},
        relations=[r.key for r in plan.relations],
        items=[item.id for item in plan.cards],
        counts={
            "Concept": 1,
            "relations": counted_relations(plan.relations),
            "attributions": plan.attributions,
            "LearningItem": len(plan.cards),
        },
        # Enough to see (or one day restore) what it was: its record and its relations.
        details={
            "concept": concept.model_dump(mode="json"),
            "relations": [r.model_dump(mode="json") for r in plan.relations],
        },
    )
    store.apply(
        ChangeSet(
            delete_ids=[concept.id, *with_history(store, plan.cards)],
            concepts=marked_for_notes(store, list(plan.neighbours)),
            removals=[record],
        )
    )
    notes = rewrite_notes(
        services,
        touched=list(plan.neighbours),
        removed={concept.id: concept.title},
        cards=bool(plan.cards),
    )
    return Removed(plan=plan, removal_id=record.id, notes=notes)


# --- a relation -----------------------------------------------------------------------------


@dataclass
class UnlinkPlan:
    """A relation to remove, read the way the reader named it: its ends, every edge that goes
    (the relation and its reverse or twin) and the cards that ask how its concepts relate."""

    source: Concept
    target: Concept
    relations: list[Relation]
    cards: list[LearningItem]

    @property
    def type(self) -> str:
        """The relation's type, as the graph stores it (SIMILAR_TO)."""
        return self.relations[0].type

    def as_dict(self) -> dict[str, Any]:
        """What `zettelgraph unlink --json` and the confirmation page show.

        Returns:
            `source_id`, `source`, `type`, `target_id`, `target`, `removed` (each edge's `[source,
            type, target]`), `properties` (its explanation and who made it) and `cards`
            (`card_rows`).
        """
        return {
            "source_id": self.source.id,
            "source": self.source.title,
            "type": self.type,
            "target_id": self.target.id,
            "target": self.target.title,
            "removed": [list(r.key) for r in self.relations],
            # Why it was there: its explanation, who or which run made it.
            "properties": self.relations[0].properties,
            "cards": card_rows(self.cards),
        }


def joining_relations(
    store: GraphStore, vocabulary: RelationVocabulary, a: Concept, b: Concept
) -> list[list[Relation]]:
    """The relations that join `a` and `b`, each as its edges: one written from `a`
    (or, when none is, from `b`) followed by its reverse or symmetric twin when the graph
    has it.

    Args:
        store: the graph store to read.
        vocabulary: the concept relation vocabulary (which types are symmetric or reversible).
        a: one concept.
        b: the other concept.

    Returns:
        One list of edges per relation joining them, the written edge first.
    """
    edges = {
        r.key: r
        for r in store.relations(a.id, direction="both")
        if {r.source_id, r.target_id} == {a.id, b.id} and r.type not in STRUCTURAL_TYPES
    }
    groups: list[list[Relation]] = []
    taken: set[RelationKey] = set()
    # Edges from `a` first, so each relation is named the way the reader reads it from `a`.
    for key in sorted(edges, key=lambda k: (k[0] != a.id, k)):
        if key in taken:
            continue
        relation = edges[key]
        reverse = vocabulary.reverse_of(key[1]) if key[1] in vocabulary.types else None
        twin = (key[2], reverse, key[0]) if reverse is not None else None
        group = [relation]
        taken.add(key)
        if twin is not None and twin in edges and twin not in taken:
            group.append(edges[twin])
            taken.add(twin)
        groups.append(group)
    return groups


def _describe(groups: list[list[Relation]], titles: dict[str, str]) -> str:
    return "; ".join(
        f"{titles[g[0].source_id]} -[{g[0].type}]-> {titles[g[0].target_id]}" for g in groups
    )


def _chosen(
    groups: list[list[Relation]], a: Concept, b: Concept, relation: str | None
) -> list[Relation]:
    titles = {a.id: a.title, b.id: b.title}
    if not groups:
        raise UnknownError(f"{a.title!r} and {b.title!r} are not related: nothing to remove")
    if relation is None:
        if len(groups) > 1:
            raise CorrectionError(
                f"{a.title!r} and {b.title!r} are joined by {len(groups)} relations "
                f"({_describe(groups, titles)}): say which, as `zettelgraph unlink A TYPE B`"
            )
        return groups[0]
    kind = relation.strip().upper().replace("-", "_").replace(" ", "_")
    for group in groups:
        if any(r.key == (a.id, kind, b.id) for r in group):
            return group
    backwards = [g for g in groups if any(r.key == (b.id, kind, a.id) for r in g)]
    if backwards:
        raise UnknownError(
            f"{a.title!r} -[{kind}]-> {b.title!r} is not in the graph, but "
            f"{b.title!r} -[{kind}]-> {a.title!r} is: give the two concepts the other way round"
        )
    raise UnknownError(
        f"{a.title!r} -[{kind}]-> {b.title!r} is not in the graph; what joins them: "
        f"{_describe(groups, titles)}"
    )


def plan_unlink(
    services: Services, source: str, target: str, relation: str | None = None
) -> UnlinkPlan:
    """The relation `source -[relation]-> target` (without `relation`: the one relation that
    joins them) and what goes with it, read without writing.

    Args:
        services: the open services.
        source: the concept the relation starts from: id, unique id prefix or exact title.
        target: the concept it points to, named the same ways.
        relation: the relation's type, in any case, `-` or space for `_` ("similar to"); None (the
            default) when only one relation joins them.

    Returns:
        The relation's ends as written, its edges and the cards that ask how the two relate.

    Raises:
        UnknownError: a concept is not found, the two are not related, or not by `relation` in that
            direction.
        CorrectionError: both names are one concept, or several relations join them and `relation`
            is None.
    """
    store = services.store
    a, b = concept_named(store, source), concept_named(store, target)
    if a.id == b.id:
        raise CorrectionError(
            f"{a.title!r} is named twice: name the two concepts the relation joins"
        )
    group = _chosen(joining_relations(store, services.store_vocabulary, a, b), a, b, relation)
    ends = (a, b) if group[0].source_id == a.id else (b, a)
    return UnlinkPlan(ends[0], ends[1], group, relation_cards(store, a.id, b.id))


def unlink_concepts(
    services: Services, source: str, target: str, relation: str | None = None
) -> Removed[UnlinkPlan]:
    """Remove what `plan_unlink` names, in one write with its `Removal` record, then rewrite
    both notes.

    Args:
        services: the open services.
        source: one concept: its id, an id prefix or its title.
        target: the other concept, named the same ways.
        relation: the relation's type; without it, the one relation that joins them.

    Returns:
        What was removed (the relation, its reverse and the cards about it), its `Removal`
        record's id, and what became of the notes.
    """
    store = services.store
    plan = plan_unlink(services, source, target, relation)
    ends = (plan.source, plan.target)
    record = removal_record(
        services,
        "relation",
        plan.source.id,
        f"{plan.source.title} -[{plan.type}]-> {plan.target.title}",
        relations=[r.key for r in plan.relations],
        items=[item.id for item in plan.cards],
        counts={"relations": 1, "LearningItem": len(plan.cards)},
        details={"relations": [r.model_dump(mode="json") for r in plan.relations]},
    )
    store.apply(
        ChangeSet(
            delete_relations=[plan.relations[0].key],
            delete_ids=with_history(store, plan.cards),
            concepts=marked_for_notes(store, [c.id for c in ends]),
            removals=[record],
        )
    )
    notes = rewrite_notes(services, touched=[c.id for c in ends], cards=bool(plan.cards))
    return Removed(plan=plan, removal_id=record.id, notes=notes)
