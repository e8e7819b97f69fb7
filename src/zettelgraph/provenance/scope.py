"""What an export covers, read from the store: one concept, one run, an experiment's
contents, or everything.

A scope holds every node its provenance chains pass through, so that each chain in the export
ends in something the export describes: a concept brings its quotes, and they their contents
and authors. Nodes a scope only names (the other end of a concept's relation, the concepts a
run's cards test) are `stubs`: written with their title, not their history.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from zettelgraph.experiments.models import ExperimentRecord
from zettelgraph.models import (
    Answer,
    Concept,
    Content,
    Entity,
    LearningItem,
    NodeLabel,
    Person,
    Quote,
    Relation,
    Removal,
)
from zettelgraph.packs.relations import AUTHORED_BY, STRUCTURAL_TYPES, SUPPORTS
from zettelgraph.store.base import GraphStore, every_node


@dataclass
class Selection:
    contents: dict[str, Content] = field(default_factory=dict)
    authors: dict[str, Person] = field(default_factory=dict)  # content id -> author
    quotes: dict[str, Quote] = field(default_factory=dict)
    concepts: dict[str, Concept] = field(default_factory=dict)
    entities: dict[str, Entity] = field(default_factory=dict)
    stubs: set[str] = field(default_factory=set)
    # concept id -> the quote -> concept SUPPORTS edges (attributions) into it
    supports: dict[str, list[Relation]] = field(default_factory=lambda: defaultdict(list))
    # approved relations between concepts or entities, each exported as an entity
    relations: list[Relation] = field(default_factory=list)
    items: dict[str, LearningItem] = field(default_factory=dict)
    answers: list[Answer] = field(default_factory=list)
    # What the reader removed from the graph, each as the activity that invalidated it.
    removals: list[Removal] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.concepts or self.entities or self.relations or self.items or self.removals)

    def add_quotes(self, store: GraphStore, quote_ids: Iterable[str]) -> None:
        """The quotes (once each) with their contents and authors."""
        missing = list(dict.fromkeys(q for q in quote_ids if q not in self.quotes))
        for quote in store.get_quotes(missing):
            self.quotes[quote.id] = quote
        for content_id in {q.content_id for q in self.quotes.values()} - set(self.contents):
            self.add_content(store, content_id)

    def add_content(self, store: GraphStore, content_id: str) -> None:
        content = store.get_content(content_id)
        if content is None:
            return
        self.contents[content_id] = content
        author = store.author_of(content_id)
        if author is not None:
            self.authors[content_id] = author

    def add_stubs(self, store: GraphStore, node_ids: Iterable[str]) -> None:
        """The concepts and entities among `node_ids` the selection lacks, as stubs."""
        missing = set(node_ids) - set(self.concepts) - set(self.entities)
        for node_id in sorted(missing):
            concept = store.get_concept(node_id)
            if concept is not None:
                self.concepts[node_id] = concept
                self.stubs.add(node_id)
        for entity in store.get_entities(sorted(missing - set(self.concepts))):
            self.entities[entity.id] = entity
            self.stubs.add(entity.id)


def _ends(relations: Iterable[Relation]) -> list[str]:
    return [end for r in relations for end in (r.source_id, r.target_id)]


def _exported(relation: Relation, quote_ids: set[str]) -> bool:
    """Relations the export turns into entities: not structure (quoting, authorship, what a
    card tests), not a quote's attribution to a concept (that is the concept's derivation)."""
    if relation.type in STRUCTURAL_TYPES:
        return False
    return not (relation.type == SUPPORTS and relation.source_id in quote_ids)


def everything(store: GraphStore) -> Selection:
    """The whole graph."""
    selection = Selection()
    selection.contents = {c.id: c for c in store.list_contents()}
    selection.quotes = {q.id: q for q in every_node(store, NodeLabel.QUOTE, Quote)}
    selection.concepts = {c.id: c for c in every_node(store, NodeLabel.CONCEPT, Concept)}
    selection.entities = {e.id: e for e in every_node(store, NodeLabel.ENTITY, Entity)}
    items = every_node(store, NodeLabel.LEARNING_ITEM, LearningItem)
    selection.items = {i.id: i for i in items}
    selection.answers = list(every_node(store, NodeLabel.ANSWER, Answer))
    selection.removals = list(every_node(store, NodeLabel.REMOVAL, Removal))
    persons = {p.id: p for p in every_node(store, NodeLabel.PERSON, Person)}
    quote_ids = set(selection.quotes)
    for relation in store.relations():
        if relation.type == AUTHORED_BY and relation.target_id in persons:
            selection.authors[relation.source_id] = persons[relation.target_id]
        elif relation.type == SUPPORTS and relation.source_id in quote_ids:
            selection.supports[relation.target_id].append(relation)
        elif _exported(relation, quote_ids):
            selection.relations.append(relation)
    return selection


def for_concept(store: GraphStore, concept: Concept) -> Selection:
    """A concept, the quotes that support it (with contents and authors), the relations
    touching it, and the run and approval it came from."""
    selection = Selection(concepts={concept.id: concept})
    touching = store.relations(concept.id, direction="both")
    into = [r for r in touching if r.type == SUPPORTS and r.target_id == concept.id]
    selection.add_quotes(store, [r.source_id for r in into])
    quote_ids = set(selection.quotes)
    selection.supports[concept.id] = [r for r in into if r.source_id in quote_ids]
    if not into:
        selection.add_quotes(store, concept.provenance.get("quotes", []))
    selection.relations = [r for r in touching if _exported(r, quote_ids)]
    selection.add_stubs(store, _ends(selection.relations))
    return selection


def for_run(store: GraphStore, run_id: str) -> Selection:
    """What one run wrote: a concept extraction's concepts, relations and attributions (to
    its own concepts and to existing ones), a graph extraction's entities and relationships,
    or a card generation's (`gen-...`) cards. Empty for a run that wrote nothing."""
    selection = Selection()
    for concept in every_node(store, NodeLabel.CONCEPT, Concept):
        if run_id in _writers(concept):
            selection.concepts[concept.id] = concept
    for entity in every_node(store, NodeLabel.ENTITY, Entity):
        if run_id in _writers(entity):
            selection.entities[entity.id] = entity
    for item in every_node(store, NodeLabel.LEARNING_ITEM, LearningItem):
        if run_id in _writers(item):
            selection.items[item.id] = item
    written = [r for r in store.relations() if run_id in _writers(r)]
    attributions = [r for r in written if r.type == SUPPORTS]
    known_quotes = {q.id for q in store.get_quotes([r.source_id for r in attributions])}
    for relation in attributions:
        if relation.source_id in known_quotes:
            selection.supports[relation.target_id].append(relation)
    selection.relations = [r for r in written if _exported(r, known_quotes)]
    passages = [
        *known_quotes,
        *(q for c in selection.concepts.values() for q in c.provenance.get("quotes", [])),
        *(q for e in selection.entities.values() for q in e.provenance.get("passages") or []),
        *(q for r in selection.relations for q in r.properties.get("passages") or []),
        *(q for i in selection.items.values() for q in i.quote_ids),
    ]
    selection.add_quotes(store, passages)
    # The concepts this run's cards test and those it attributed quotes to, by name.
    selection.add_stubs(store, _ends(selection.relations))
    selection.add_stubs(store, (c for i in selection.items.values() for c in i.concept_ids))
    selection.add_stubs(store, list(selection.supports))
    return selection


def run_ids(store: GraphStore) -> set[str]:
    """The ids of the runs that wrote something to the graph (what `for_run` can select)."""
    written: list[Iterable[Concept | Entity | LearningItem | Relation]] = [
        every_node(store, NodeLabel.CONCEPT, Concept),
        every_node(store, NodeLabel.ENTITY, Entity),
        every_node(store, NodeLabel.LEARNING_ITEM, LearningItem),
        store.relations(),
    ]
    return {run for each in written for one in each for run in _writers(one)}


def _writers(written: Concept | Entity | LearningItem | Relation) -> list[str]:
    """The runs that wrote a node or relation: a concept or graph extraction run, or a card
    generation (`gen-...`)."""
    if isinstance(written, LearningItem):
        found = [written.provenance.get("generation")]
    elif isinstance(written, Relation):
        found = [written.properties.get("run")]
    elif isinstance(written, Entity):
        found = written.provenance.get("runs") or [written.provenance.get("run")]
    else:
        found = [written.provenance.get("run")]
    return [run for run in found if isinstance(run, str)]


def for_experiment(store: GraphStore, record: ExperimentRecord) -> Selection:
    """The contents an experiment read and the passages its tools cited, as the store has
    them (what it no longer has is described from the record)."""
    selection = Selection()
    for document in record.documents:
        selection.add_content(store, document.id)
    for run in record.tool_runs:
        for content_id in run.document_ids:
            if content_id not in selection.contents:
                selection.add_content(store, content_id)
    cited = [
        str(c.get("passage_id"))
        for run in record.tool_runs
        for c in run.output.get("citations") or []
        if isinstance(c, dict) and c.get("passage_id")
    ]
    selection.add_quotes(store, cited)
    return selection
