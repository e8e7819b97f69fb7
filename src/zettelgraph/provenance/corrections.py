"""The reader's corrections as PROV: a concept's earlier texts and the edits that replaced
them, and the removals that took part of the graph away.

An edited concept's earlier texts are entities of their own (`concept:ID/version/N`, oldest
first), each with its title and statement and attributed to whoever wrote it (the model, or
the reader). Each text is `prov:wasRevisionOf` the one it replaced, the concept itself of the
last; the edit that replaced one is an activity of the reader's (`concept:ID/edit/N`, ended
when it was made) that used it. An edit in the review is part of its run, and the text the
reader approved is the approval's; an edit after the commit generated the text it wrote.
A removal is an activity of the reader's that invalidated what it took: the concepts, the
relations, the content, the entities and the cards, each named by its id and title.
"""

from __future__ import annotations

from prov.constants import PROV, PROV_LABEL, PROV_TYPE
from prov.identifier import QualifiedName

from zettelgraph.models import Concept, ConceptRevision, Removal
from zettelgraph.provenance.build import ProvenanceBuilder
from zettelgraph.provenance.names import local_name, snippet

_WHERE = {"review": "in the review", "graph": "after the commit"}


def add_revisions(b: ProvenanceBuilder, concept: Concept, approval: QualifiedName | None) -> None:
    """The concept's earlier texts and the reader's edits (see the module docstring);
    `approval` is the approval of its run (None when it has no run)."""
    revisions = concept.revisions
    if not revisions:
        return
    current = b.names[concept.id]
    versions = [b.id("concept", f"{concept.id}/version/{n}") for n in range(1, len(revisions) + 1)]
    # The text the approval wrote to the graph: the one the last edit in the review left.
    in_review = sum(r.replaced_in == "review" for r in revisions)
    texts = [*versions, current]
    for number, revision in enumerate(revisions, 1):
        older, newer = texts[number - 1], texts[number]
        _version(b, older, revision, number, concept)
        edit = b.id("concept", f"{concept.id}/edit/{number}")
        label = f"edit of {revision.title} {_WHERE[revision.replaced_in]}"
        attributes = b.attributes(
            {"replacedIn": revision.replaced_in}, kind=b.zg("Edit"), label=label
        )
        run = concept.provenance.get("run")
        if revision.replaced_in == "review" and run:
            attributes[b.part_of] = b.id("run", local_name(run))
        if b.first(edit):
            b.doc.activity(edit, None, revision.replaced_at, attributes)
            b.doc.wasAssociatedWith(edit, b.reader)
            b.doc.used(edit, older)
        b.doc.wasRevisionOf(newer, older)
        if number == in_review and approval is not None:
            b.doc.wasGeneratedBy(newer, approval)
            if b.relate("informed", approval, edit):
                b.doc.wasInformedBy(approval, edit)
        elif number != in_review:
            b.doc.wasGeneratedBy(newer, edit)
    if in_review == 0 and approval is not None:
        b.doc.wasGeneratedBy(versions[0], approval)


def _version(
    b: ProvenanceBuilder,
    name: QualifiedName,
    revision: ConceptRevision,
    number: int,
    concept: Concept,
) -> None:
    values = {
        "statement": snippet(revision.concept, 300),
        "summaryShort": revision.summary_short,
        "textBy": revision.by,
        "version": number,
    }
    b.doc.entity(name, b.attributes(values, kind=b.zg("ConceptVersion"), label=revision.title))
    model = revision.model or concept.provenance.get("model")
    if revision.by == "reader":
        b.doc.wasAttributedTo(name, b.reader)
    elif model:
        b.doc.wasAttributedTo(name, b.model(str(model)))


def add_removal(b: ProvenanceBuilder, removal: Removal) -> None:
    """A removal: an activity of the reader's (who removed it, when) that invalidated every
    node and relation it took."""
    activity = b.id("removal", removal.id)
    if not b.first(activity):
        return
    attributes = b.attributes(
        {"removed": removal.kind}, kind=b.zg("Removal"), label=f"removal of {removal.title}"
    )
    b.doc.activity(activity, None, removal.created_at, attributes)
    b.doc.wasAssociatedWith(activity, _person(b, removal.by))
    gone: list[tuple[QualifiedName, str, str]] = []
    if removal.kind == "content":
        gone.append((b.id("content", removal.subject_id), "Content", removal.title))
    gone += [(b.id("concept", i), "Concept", t) for i, t in removal.concepts.items()]
    gone += [(b.id("entity", i), "GraphEntity", n) for i, n in removal.entities.items()]
    gone += [
        (b.id("relation", "/".join(local_name(part) for part in key)), "Relation", key[1])
        for key in removal.relations
    ]
    gone += [(b.id("item", i), "LearningItem", "") for i in removal.items]
    for name, kind, label in gone:
        if b.first(name):
            b.doc.entity(name, b.attributes({}, kind=b.zg(kind), label=label))
        b.doc.wasInvalidatedBy(name, activity)


def _person(b: ProvenanceBuilder, name: str) -> QualifiedName:
    """The reader who made a correction: the export's reader, or another one by name."""
    agent = b.id("agent", f"reader/{local_name(name)}")
    if agent != b.reader and b.first(agent):
        b.doc.agent(agent, {PROV_TYPE: PROV["Person"], PROV_LABEL: name})
    return agent
