"""The builder of one PROV document, and the graph's nodes in it: contents, quotes, concepts,
relations and graph entities as entities; ingest, runs, LLM calls and approvals as
activities; the reader, authors, zettelgraph and each chat model as agents. (Cards and
answers: `learning.py`; experiments: `experiments.py`.)

Everything here is read from what the store keeps. A concept records which calls shaped it
by name (`provenance["llm_calls"]`), not each request, so a run has one activity per call
name (`run:<run>/call/extract_concepts` stands for that run's extraction calls). Times are
on the activities (`prov:startedAtTime`, `prov:endedAtTime`): an entity was generated when
its generating activity ended, which keeps every generation a plain triple.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from prov.constants import PROV, PROV_LABEL, PROV_TYPE
from prov.identifier import QualifiedName
from prov.model import ProvActivity, ProvDocument

from zettelgraph import __version__, prompts
from zettelgraph.models import Concept, Content, Entity, Person, Quote, Relation
from zettelgraph.models.locations import quote_place
from zettelgraph.provenance.names import PREFIXES, local_name, model_info, snippet

# One module per LLM call under `prompts/`, named as the call is: a step a concept's history
# names that is not one of them ("coverage", "merged across batches") is zettelgraph's own.
LLM_CALLS = frozenset(module.name for module in pkgutil.iter_modules(prompts.__path__))

Attributes = dict[QualifiedName, Any]


def as_time(value: Any) -> datetime | None:
    """A stored ISO time (provenance dicts hold strings) as a datetime; None if absent."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return None
    return None


class ProvenanceBuilder:
    """One PROV document, to which each node is added once with what it came from."""

    def __init__(self, *, reader: str) -> None:
        self.doc = ProvDocument()
        self._ns = {prefix: self.doc.add_namespace(prefix, uri) for prefix, uri in PREFIXES.items()}
        self._added: set[QualifiedName] = set()
        self._related: set[tuple[str, QualifiedName, QualifiedName]] = set()
        # run and approval activities, whose end time a later node may know
        self._runs: dict[QualifiedName, ProvActivity] = {}
        # node id -> its identifier, for relations and items that name a node by id.
        self.names: dict[str, QualifiedName] = {}
        self.part_of = self._ns["dcterms"]["isPartOf"]
        self.reader = self._agent(
            self.id("agent", f"reader/{local_name(reader)}"),
            {PROV_TYPE: PROV["Person"], PROV_LABEL: reader},
        )
        self.software = self._agent(
            self.id("agent", f"zettelgraph/{local_name(__version__)}"),
            {
                PROV_TYPE: PROV["SoftwareAgent"],
                PROV_LABEL: f"zettelgraph {__version__}",
                self.zg("name"): "zettelgraph",
                self.zg("version"): __version__,
            },
        )
        # zettelgraph runs, calls models and writes on the reader's behalf.
        self.doc.actedOnBehalfOf(self.software, self.reader)

    # --- names ---------------------------------------------------------------------------
    def id(self, prefix: str, local: str) -> QualifiedName:
        return self._ns[prefix][local]

    def zg(self, term: str) -> QualifiedName:
        return self._ns["zg"][term]

    def first(self, name: QualifiedName) -> bool:
        """True the first time `name` is asked about: its record is to be written now."""
        if name in self._added:
            return False
        self._added.add(name)
        return True

    def relate(self, kind: str, subject: QualifiedName, other: QualifiedName) -> bool:
        """True the first time this relation between these two is asked about."""
        key = (kind, subject, other)
        if key in self._related:
            return False
        self._related.add(key)
        return True

    def attributes(
        self, values: Mapping[str, Any], *, kind: QualifiedName, label: str = ""
    ) -> Attributes:
        """prov:type `kind`, prov:label `label`, and a `zg:` attribute per value (None and ""
        left out)."""
        out: Attributes = {PROV_TYPE: kind}
        if label:
            out[PROV_LABEL] = label
        for key, value in values.items():
            if value is not None and value != "":
                out[self.zg(key)] = value
        return out

    def _agent(self, name: QualifiedName, attributes: Attributes) -> QualifiedName:
        if self.first(name):
            self.doc.agent(name, attributes)
        return name

    def model(self, spec: str) -> QualifiedName:
        """The chat model `spec` names, as a software agent acting for zettelgraph."""
        info = model_info(spec)
        name = self.id("agent", "model/" + local_name(spec.replace(":", "/")))
        if self.first(name):
            values = {
                "spec": spec,
                "provider": info.provider,
                "name": info.name,
                "version": info.version,
            }
            self.doc.agent(name, self.attributes(values, kind=PROV["SoftwareAgent"], label=spec))
            self.doc.actedOnBehalfOf(name, self.software)
        return name

    # --- contents and quotes ---------------------------------------------------------------
    def person(self, person: Person) -> QualifiedName:
        name = self.id("person", person.id)
        if self.first(name):
            attributes = self.attributes(
                {"occupation": person.occupation}, kind=PROV["Person"], label=person.name
            )
            self.doc.agent(name, attributes)
        return name

    def content(self, content: Content, author: Person | None) -> QualifiedName:
        """The content, generated by its ingest (ended when it was first stored) and
        attributed to its author."""
        name = self.names[content.id] = self.id("content", content.id)
        if not self.first(name):
            return name
        year = content.metadata.get("year")
        values = {
            "kind": content.kind,
            "year": year if isinstance(year, int) else None,
            "contentHash": content.content_hash,
        }
        self.doc.entity(name, self.attributes(values, kind=self.zg("Content"), label=content.title))
        ingest = self.id("ingest", content.id)
        self.doc.activity(
            ingest,
            None,
            content.created_at,
            self.attributes({}, kind=self.zg("Ingest"), label=f"ingest of {content.title}"),
        )
        self.doc.wasAssociatedWith(ingest, self.software)
        self.doc.wasGeneratedBy(name, ingest)
        if author is not None:
            self.doc.wasAttributedTo(name, self.person(author))
        return name

    def quote(self, quote: Quote) -> QualifiedName:
        """A quote or passage: derived from its content, generated by that content's ingest."""
        name = self.names[quote.id] = self.id("quote", quote.id)
        if not self.first(name):
            return name
        values = {"location": quote_place(quote), "position": quote.position}
        self.doc.entity(
            name, self.attributes(values, kind=self.zg("Quote"), label=snippet(quote.text))
        )
        self.doc.wasDerivedFrom(name, self.id("content", quote.content_id))
        self.doc.wasGeneratedBy(name, self.id("ingest", quote.content_id))
        return name

    # --- runs ----------------------------------------------------------------------------
    def approval(
        self, run: str, *, kind: str, at: Any, model: str | None, calls: Iterable[str]
    ) -> QualifiedName:
        """The reader's approval of `run` (part of the run, informed by its calls)."""
        run_name = self.id("run", local_name(run))
        approval = self.id("run", f"{local_name(run)}/approval")
        when = as_time(at)
        if self.first(run_name):
            label = f"{kind} run {run}"
            attributes = self.attributes({"runId": run}, kind=self.zg(kind), label=label)
            self._runs[run_name] = self.doc.activity(run_name, None, None, attributes)
            self.doc.wasAssociatedWith(run_name, self.software)
            attributes = self.attributes({}, kind=self.zg("Approval"), label=f"approval of {run}")
            attributes[self.part_of] = run_name
            self._runs[approval] = self.doc.activity(approval, None, None, attributes)
            self.doc.wasAssociatedWith(approval, self.reader)
        # The run ended with its approval; the first node that knows when sets the time.
        for name in (run_name, approval):
            if when is not None and self._runs[name].get_endTime() is None:
                self._runs[name].set_time(endTime=when)
        for call in calls:
            step = self.call(run_name, f"{local_name(run)}/call/{local_name(call)}", call, model)
            if self.relate("informed", approval, step):
                self.doc.wasInformedBy(approval, step)
        return approval

    def call(
        self, whole: QualifiedName, local: str, call: str, model: str | None, at: Any = None
    ) -> QualifiedName:
        """An LLM call (associated with its model) or a step of zettelgraph's own, as a part
        of the activity `whole`."""
        name = self.id(whole.namespace.prefix, local)
        if not self.first(name):
            return name
        is_llm = call.split("#")[0] in LLM_CALLS
        kind = "LLMCall" if is_llm else "WorkflowStep"
        attributes = self.attributes({"call": call}, kind=self.zg(kind), label=call)
        attributes[self.part_of] = whole
        self.doc.activity(name, None, as_time(at), attributes)
        agent = self.model(model) if is_llm and model else self.software
        self.doc.wasAssociatedWith(name, agent)
        return name

    def used(self, activity: QualifiedName, entity: QualifiedName) -> None:
        if self.relate("used", activity, entity):
            self.doc.used(activity, entity)

    # --- concepts and relations ----------------------------------------------------------
    def concept(
        self, concept: Concept, supports: Sequence[Relation], *, full: bool
    ) -> QualifiedName | None:
        """A concept generated by its run's approval (or, once the reader edited it after the
        commit, by that edit: `corrections.add_revisions`), attributed to the reader, derived
        from the quotes that support it. A quote attributed to it by a later run is derived
        through that run's approval. `full=False` writes a concept the export only names
        (the other end of a relation): its title, not its history. Returns its approval."""
        name = self.names[concept.id] = self.id("concept", concept.id)
        if not self.first(name):
            return None
        p = concept.provenance
        values: dict[str, Any] = {"language": concept.language}
        if full:
            values.update(
                summaryShort=concept.summary_short,
                feedbackRounds=p.get("feedback_rounds"),
                critiqueIterations=p.get("critique_iterations"),
            )
        self.doc.entity(name, self.attributes(values, kind=self.zg("Concept"), label=concept.title))
        run = p.get("run") if full else None
        model = p.get("model")
        approval = None
        if run:
            at = p.get("approved_at") or concept.created_at
            approval = self.approval(
                run, kind="ConceptExtraction", at=at, model=model, calls=p.get("llm_calls", [])
            )
            if not any(r.replaced_in == "graph" for r in concept.revisions):
                self.doc.wasGeneratedBy(name, approval)
            self.doc.wasAttributedTo(name, self.reader)
            for quote_id in p.get("quotes", []):
                self.used(self.id("run", local_name(run)), self.id("quote", quote_id))
        links = [(r.source_id, r.properties) for r in supports]
        if full and not links:
            links = [(q, {"run": run}) for q in p.get("quotes", [])]
        for quote_id, props in links:
            quote = self.id("quote", quote_id)
            if not self.relate("derived", name, quote):
                continue
            other = props.get("run")
            if other and other != run:
                calls = props.get("llm_calls", [])
                at = props.get("approved_at")
                later = self.approval(
                    other, kind="ConceptExtraction", at=at, model=model, calls=calls
                )
                self.doc.wasDerivedFrom(name, quote, later)
            elif full:
                self.doc.wasDerivedFrom(name, quote)
        return approval

    def relation(self, relation: Relation) -> None:
        """An approved relation as an entity of its own, derived from its two ends (and the
        passages it was read in), generated by its run's approval."""
        source, target = self.names.get(relation.source_id), self.names.get(relation.target_id)
        if source is None or target is None:
            return
        ends = f"{local_name(relation.source_id)}/{local_name(relation.type)}"
        name = self.id("relation", f"{ends}/{local_name(relation.target_id)}")
        if not self.first(name):
            return
        p = relation.properties
        values = {
            "relationType": relation.type,
            "source": source,
            "target": target,
            "explanation": p.get("explanation") or p.get("description"),
            "confidence": p.get("confidence"),
        }
        label = f"{relation.type}"
        self.doc.entity(name, self.attributes(values, kind=self.zg("Relation"), label=label))
        self.doc.wasDerivedFrom(name, source)
        if target != source:
            self.doc.wasDerivedFrom(name, target)
        for quote_id in p.get("passages") or []:
            if quote_id in self.names:
                self.doc.wasDerivedFrom(name, self.names[quote_id])
        run = p.get("run")
        if run:
            kind = (
                "ConceptExtraction" if source.namespace.prefix == "concept" else "GraphExtraction"
            )
            at = p.get("approved_at") or relation.created_at
            approval = self.approval(
                run, kind=kind, at=at, model=p.get("model"), calls=p.get("llm_calls", [])
            )
            self.doc.wasGeneratedBy(name, approval)
            self.doc.wasAttributedTo(name, self.reader)
        elif p.get("provenance") == "reader":
            # A link the reader made (`zettelgraph link`): their own act, no run, no model.
            self.doc.wasAttributedTo(name, self.reader)

    def graph_entity(self, entity: Entity, *, full: bool) -> None:
        """A person, place, work... found by graph extraction, derived from its passages and
        generated by the approval of the run that found it first; later runs that added to it
        influenced it."""
        name = self.names[entity.id] = self.id("entity", entity.id)
        if not self.first(name):
            return
        values = {"entityType": entity.entity_type, "pack": entity.pack}
        if full:
            values["description"] = snippet(entity.description, 300)
        self.doc.entity(
            name, self.attributes(values, kind=self.zg("GraphEntity"), label=entity.name)
        )
        if not full:
            return
        p = entity.provenance
        for quote_id in p.get("passages") or []:
            if quote_id in self.names:
                self.doc.wasDerivedFrom(name, self.names[quote_id])
        runs = [r for r in p.get("runs") or [p.get("run")] if r]
        # The calls are kept as one list over every run: they are placed only when one run
        # made the entity.
        calls = p.get("llm_calls", []) if len(runs) == 1 else []
        for number, run in enumerate(runs):
            at = p.get("approved_at") if number == 0 else None
            approval = self.approval(
                run, kind="GraphExtraction", at=at, model=p.get("model"), calls=calls
            )
            if number == 0:
                self.doc.wasGeneratedBy(name, approval)
                self.doc.wasAttributedTo(name, self.reader)
            else:
                self.doc.wasInfluencedBy(name, approval)
