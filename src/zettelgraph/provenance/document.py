"""A selection of the graph (and an experiment's record) as one PROV document."""

from __future__ import annotations

from prov.model import ProvDocument

from zettelgraph.experiments.models import ExperimentRecord
from zettelgraph.provenance.build import ProvenanceBuilder
from zettelgraph.provenance.corrections import add_removal, add_revisions
from zettelgraph.provenance.experiments import add_experiment
from zettelgraph.provenance.learning import add_answer, add_item
from zettelgraph.provenance.scope import Selection


def build_document(
    selection: Selection, *, reader: str, experiment: ExperimentRecord | None = None
) -> ProvDocument:
    """Every node of `selection` with what it came from; `reader` names the person who
    approves. Sources go in before what derives from them, so every relation can name both
    of its ends."""
    builder = ProvenanceBuilder(reader=reader)
    for content in selection.contents.values():
        builder.content(content, selection.authors.get(content.id))
    for quote in selection.quotes.values():
        builder.quote(quote)
    for concept in selection.concepts.values():
        supports = selection.supports.get(concept.id, [])
        full = concept.id not in selection.stubs
        approval = builder.concept(concept, supports, full=full)
        if full:
            add_revisions(builder, concept, approval)
    for entity in selection.entities.values():
        builder.graph_entity(entity, full=entity.id not in selection.stubs)
    for relation in selection.relations:
        builder.relation(relation)
    for item in selection.items.values():
        add_item(builder, item)
    for answer in selection.answers:
        add_answer(builder, answer)
    for removal in selection.removals:
        add_removal(builder, removal)
    if experiment is not None:
        add_experiment(builder, experiment)
    return builder.doc
