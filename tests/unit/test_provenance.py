"""The PROV export's parts on a small graph written to a real SQLite store: the PROV-O triples
are the `prov` package's own plus the direct ones; Turtle, JSON-LD and PROV-N read back as
what was written (awkward names and texts included); an experiment's record traces its tools,
results, review and report; and the names a model spec or a call gets."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from prov.model import ProvDocument
from prov.serializers.provrdf import ProvRDFSerializer
from rdflib import BNode, Graph, Namespace, URIRef
from rdflib.compare import isomorphic
from rdflib.term import Node

from zettelgraph import prompts
from zettelgraph.experiments.models import (
    DocumentInfo,
    ExperimentRecord,
    ExperimentType,
    FocusTerm,
    LLMCallRecord,
    ToolRun,
)
from zettelgraph.models import (
    Answer,
    ChangeSet,
    Concept,
    Content,
    Entity,
    ItemStatus,
    ItemType,
    LearningItem,
    Person,
    Quote,
    Relation,
    content_id,
    entity_id,
    learning_item_id,
    person_id,
    quote_id,
    stable_id,
)
from zettelgraph.packs.relations import AUTHORED_BY, CITES, QUOTED_IN, SUPPORTS, TESTS
from zettelgraph.provenance import FORMATS
from zettelgraph.provenance.build import LLM_CALLS
from zettelgraph.provenance.document import build_document
from zettelgraph.provenance.formats import prov_o, serialize
from zettelgraph.provenance.names import ModelInfo, local_name, model_info
from zettelgraph.provenance.scope import everything, for_experiment, for_run
from zettelgraph.store import GraphStore, open_store

PROV = Namespace("http://www.w3.org/ns/prov#")
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
# Texts a writer must escape: quotes, a backslash, a line break, accents, a tab.
AWKWARD = 'Dijo "basta"\\ y se fue.\nOtra línea:\tñandú & <más>'
READER = "José Ortega y Gasset"


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def _quote(book: Content, text: str, position: int) -> Quote:
    return Quote(
        id=quote_id(book.id, text), content_id=book.id, text=text, position=position, page="7"
    )


def write_graph(store: GraphStore) -> dict[str, Any]:
    """Two books; run A's two concepts and their relation; run B attributes a quote of the
    second book to A's first concept; a graph entity; an approved card; an answer."""
    author = Person(id=person_id("Ana Pérez"), name="Ana Pérez")
    niebla = Content(id=content_id("Niebla", author.name), title="Niebla", created_at=at(0))
    other = Content(id=content_id("Otro", None), title="Otro libro", created_at=at(1))
    q1, q2 = _quote(niebla, AWKWARD, 0), _quote(niebla, "La vida es sueño.", 1)
    q3 = _quote(other, "Todo pasa y todo queda.", 0)
    decided = {"approved_at": at(30).isoformat(), "feedback_rounds": 1, "critique_iterations": 2}
    calls = ["extract_concepts", "incorporate_feedback#1", "merged across batches"]
    made = {"run": "run-a", "model": "ollama:qwen3:8b", "content_id": niebla.id, **decided}
    c1 = Concept(
        id=stable_id("concept", "run-a", "c1"),
        title=AWKWARD[:40],
        concept="Una idea.",
        created_at=at(30),
        provenance={**made, "quotes": [q1.id], "llm_calls": calls},
    )
    c2 = Concept(
        id=stable_id("concept", "run-a", "c2"),
        title="El sueño",
        concept="Otra idea.",
        created_at=at(30),
        provenance={**made, "quotes": [q2.id], "llm_calls": ["extract_concepts"]},
    )
    entity = Entity(
        id=entity_id("Person", "Augusto Pérez"),
        name="Augusto Pérez",
        entity_type="Person",
        pack="narrative",
        provenance={
            "run": "graph-g",
            "runs": ["graph-g"],
            "passages": [q1.id],
            "llm_calls": ["extract_graph#r1b1"],
            "model": "fake",
            "approved_at": at(40).isoformat(),
        },
    )
    item = LearningItem(
        id=learning_item_id("flashcard", [c1.id], "¿Qué dijo?"),
        item_type=ItemType.FLASHCARD,
        front="¿Qué dijo?",
        back="Basta.",
        concept_ids=[c1.id],
        quote_ids=[q1.id],
        status=ItemStatus.APPROVED,
        provenance={
            "generator": "llm",
            "model": "fake",
            "call": "card_question",
            "generation": "gen-1",
            "generated_at": at(50).isoformat(),
            "decisions": [{"status": "approved", "at": at(55).isoformat(), "edited": ["back"]}],
        },
    )
    answer = Answer(
        id="answer-1",
        question="¿Qué es la vida?",
        answer="Un sueño [1].",
        answerable=True,
        model="fake",
        citations=[{"n": 1, "quote_id": q2.id}],
    )
    support = {"llm_calls": ["extract_concepts"], **decided}
    later = {"run": "run-b", "llm_calls": ["detect_duplicate"], "approved_at": at(60).isoformat()}
    quotes = [q1, q2, q3]
    store.apply(
        ChangeSet(
            contents=[niebla, other],
            persons=[author],
            quotes=quotes,
            concepts=[c1, c2],
            entities=[entity],
            learning_items=[item],
            answers=[answer],
            relations=[
                Relation(source_id=niebla.id, target_id=author.id, type=AUTHORED_BY),
                *(Relation(source_id=q.id, target_id=q.content_id, type=QUOTED_IN) for q in quotes),
                Relation(
                    source_id=q1.id,
                    target_id=c1.id,
                    type=SUPPORTS,
                    properties=support | {"run": "run-a"},
                ),
                Relation(
                    source_id=q2.id,
                    target_id=c2.id,
                    type=SUPPORTS,
                    properties=support | {"run": "run-a"},
                ),
                Relation(source_id=q3.id, target_id=c1.id, type=SUPPORTS, properties=later),
                Relation(
                    source_id=c1.id,
                    target_id=c2.id,
                    type="GENERALIZES",
                    properties={"run": "run-a", "explanation": AWKWARD, "confidence": 0.8, **made},
                ),
                Relation(source_id=item.id, target_id=c1.id, type=TESTS),
                Relation(source_id=item.id, target_id=q1.id, type=CITES),
            ],
        )
    )
    return {
        "c1": c1,
        "c2": c2,
        "q1": q1,
        "q2": q2,
        "q3": q3,
        "item": item,
        "books": (niebla, other),
    }


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GraphStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'graph.db'}")
    yield opened
    opened.close()


@pytest.fixture
def graph(store: GraphStore) -> dict[str, Any]:
    return write_graph(store)


def document(store: GraphStore) -> ProvDocument:
    return build_document(everything(store), reader=READER)


_QUALIFIED: dict[Node, tuple[URIRef, URIRef]] = {
    PROV.qualifiedGeneration: (PROV.activity, PROV.wasGeneratedBy),
    PROV.qualifiedUsage: (PROV.entity, PROV.used),
    PROV.qualifiedDerivation: (PROV.entity, PROV.wasDerivedFrom),
    PROV.qualifiedAssociation: (PROV.agent, PROV.wasAssociatedWith),
    PROV.qualifiedDelegation: (PROV.agent, PROV.actedOnBehalfOf),
    PROV.qualifiedRevision: (PROV.entity, PROV.wasRevisionOf),
    PROV.qualifiedInvalidation: (PROV.activity, PROV.wasInvalidatedBy),
}


def is_the_prov_packages_graph(doc: ProvDocument) -> bool:
    """Whether our PROV-O of `doc` is the `prov` package's, plus the direct triples."""
    theirs = ProvRDFSerializer(doc).encode_container(doc)
    # `prov` writes a relation with more than its two ends only in the qualified form.
    for subject, predicate, node in list(theirs):
        if predicate in _QUALIFIED and isinstance(node, BNode):
            influencer, direct = _QUALIFIED[predicate]
            end = theirs.value(node, influencer)
            assert end is not None
            theirs.add((subject, direct, end))
    return isomorphic(prov_o(doc), theirs)


def test_prov_o_is_the_prov_packages_encoding_plus_the_direct_triples(
    store: GraphStore, graph: dict[str, Any]
) -> None:
    assert is_the_prov_packages_graph(document(store))


def test_every_format_reads_back_as_what_was_written(
    store: GraphStore, graph: dict[str, Any]
) -> None:
    doc = document(store)
    expected = prov_o(doc)
    for fmt, rdf_format in (("turtle", "turtle"), ("jsonld", "json-ld")):
        text = serialize(doc, fmt)
        assert isomorphic(Graph().parse(data=text, format=rdf_format), expected), fmt
    provn = serialize(doc, "provn")
    assert ProvDocument.deserialize(content=provn, format="provn") == doc
    assert set(FORMATS) == {"jsonld", "turtle", "provn"}


def sparql(doc: ProvDocument, query: str) -> list[tuple[Any, ...]]:
    text = serialize(doc, "turtle")
    parsed = Graph().parse(data=text, format="turtle")
    prefixes = "PREFIX prov: <http://www.w3.org/ns/prov#>\nPREFIX zg: <urn:zettelgraph:>\n"
    prefixes += "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
    prefixes += "PREFIX dcterms: <http://purl.org/dc/terms/>\n"
    return [tuple(row) for row in parsed.query(prefixes + query)]  # type: ignore[arg-type]


def test_a_later_runs_attribution_is_derived_through_that_runs_approval(
    store: GraphStore, graph: dict[str, Any]
) -> None:
    rows = sparql(
        document(store),
        """SELECT ?quote ?run WHERE {
             ?concept prov:qualifiedDerivation [ prov:entity ?quote ; prov:hadActivity ?approval ] .
             ?approval dcterms:isPartOf ?run ; prov:wasAssociatedWith ?reader .
             ?reader a prov:Person ; rdfs:label "José Ortega y Gasset" .
           }""",
    )
    assert [(str(q), str(r)) for q, r in rows] == [
        (f"urn:zettelgraph:quote/{graph['q3'].id}", "urn:zettelgraph:run/run-b")
    ]


def test_calls_steps_models_cards_and_answers(store: GraphStore, graph: dict[str, Any]) -> None:
    doc = document(store)
    calls = sparql(
        doc,
        """SELECT ?label ?kind ?agent WHERE {
             ?call dcterms:isPartOf <urn:zettelgraph:run/run-a> ; rdfs:label ?label ; a ?kind ;
                   prov:wasAssociatedWith ?agent . FILTER (?kind != prov:Activity) }""",
    )
    model = "urn:zettelgraph:agent/model/ollama/qwen3/8b"
    software = "urn:zettelgraph:agent/zettelgraph/0.1.0"
    assert sorted((str(label), str(kind).split(":")[-1], str(a)) for label, kind, a in calls) == [
        ("approval of run-a", "Approval", "urn:zettelgraph:agent/reader/José-Ortega-y-Gasset"),
        ("extract_concepts", "LLMCall", model),
        ("incorporate_feedback#1", "LLMCall", model),
        ("merged across batches", "WorkflowStep", software),
    ]
    [(provider, name, version)] = sparql(
        doc, f"SELECT ?p ?n ?v WHERE {{ <{model}> zg:provider ?p ; zg:name ?n ; zg:version ?v }}"
    )
    assert (str(provider), str(name), str(version)) == ("ollama", "qwen3", "8b")
    item = f"urn:zettelgraph:item/{graph['item'].id}"
    card = sparql(
        doc,
        f"""SELECT ?concept ?generation ?decision WHERE {{
              <{item}> prov:wasDerivedFrom ?concept ; prov:wasGeneratedBy ?generation ;
                       prov:wasAttributedTo ?reader .
              ?concept a zg:Concept . ?generation a zg:CardGeneration .
              ?decision prov:used <{item}> ; a zg:Approval ; prov:wasAssociatedWith ?reader ;
                        zg:edited "back" . ?reader a prov:Person }}""",
    )
    assert len(card) == 1
    answer = sparql(
        doc,
        """SELECT ?quote WHERE { ?a a zg:Answer ; prov:wasDerivedFrom ?quote ;
             prov:wasGeneratedBy [ prov:wasAssociatedWith [ a prov:SoftwareAgent ] ] }""",
    )
    assert [str(q) for (q,) in answer] == [f"urn:zettelgraph:quote/{graph['q2'].id}"]
    entity = sparql(
        doc,
        """SELECT ?passage WHERE { ?e a zg:GraphEntity ; prov:wasDerivedFrom ?passage ;
             prov:wasGeneratedBy <urn:zettelgraph:run/graph-g/approval> }""",
    )
    assert [str(p) for (p,) in entity] == [f"urn:zettelgraph:quote/{graph['q1'].id}"]


def test_a_runs_scope_names_the_concepts_it_only_touched(
    store: GraphStore, graph: dict[str, Any]
) -> None:
    selection = for_run(store, "run-b")
    assert selection.stubs == {graph["c1"].id}
    assert set(selection.quotes) == {graph["q3"].id}
    rows = sparql(
        build_document(selection, reader=READER),
        "SELECT ?c ?q WHERE { ?c prov:wasDerivedFrom ?q . ?q a zg:Quote }",
    )
    assert len(rows) == 1
    assert for_run(store, "run-unknown").empty


def experiment_record(books: tuple[Content, Content], cited: Quote) -> ExperimentRecord:
    niebla, other = books
    docs = [DocumentInfo(id=b.id, title=b.title, year=1914) for b in books]
    citation = {"passage_id": cited.id, "content_id": niebla.id, "title": "Niebla", "text": "x"}
    return ExperimentRecord(
        id="exp-0001",
        type=ExperimentType.TEMPORAL,
        term=FocusTerm(term="honra", definition="Reputación.", anchors=["fama", "deshonra"]),
        goal="How honour changes.",
        documents=docs,
        status="completed",
        created_at=at(0),
        reviewed_at=at(5),
        decision="modify",
        review_notes="Sin drift.",
        strategy={niebla.id: ["concordance"], other.id: ["concordance"]},
        llm_calls=[
            LLMCallRecord(
                name="experiment_analysis", model="fake", started_at=at(1), ended_at=at(2)
            ),
            LLMCallRecord(
                name="experiment_strategy", model="fake", started_at=at(2), ended_at=at(3)
            ),
            LLMCallRecord(
                name="experiment_synthesis",
                model="openai:gpt-4.1-mini",
                started_at=at(8),
                ended_at=at(9),
                input_tokens=900,
                output_tokens=300,
            ),
        ],
        tool_runs=[
            ToolRun(
                tool="concordance",
                document_ids=[niebla.id],
                started_at=at(6),
                seconds=1.5,
                output={"count": 2, "summary": "2 uses", "citations": [citation]},
            ),
            ToolRun(tool="concordance", document_ids=[other.id], started_at=at(6), seconds=0.5),
            ToolRun(tool="semantic_drift", document_ids=[niebla.id, other.id], error="boom"),
        ],
        completed_at=at(10),
        report_path="/home/someone/.zettelgraph/experiments/exp-0001/report.md",
    )


def test_an_experiment_traces_tools_results_review_and_report(
    store: GraphStore, graph: dict[str, Any]
) -> None:
    record = experiment_record(graph["books"], graph["q1"])
    doc = build_document(for_experiment(store, record), reader=READER, experiment=record)
    used = sparql(
        doc,
        """SELECT ?tool ?content WHERE { ?tool a zg:ToolExecution ; prov:used ?content .
             ?content a zg:Content ; prov:wasGeneratedBy [ a zg:Ingest ] }""",
    )
    assert len(used) == 4  # 1 + 1 + 2 contents, the failed run's too
    results = sparql(
        doc,
        """SELECT ?result WHERE {
             <urn:zettelgraph:experiment/exp-0001/report> prov:wasDerivedFrom ?result ;
                 prov:wasGeneratedBy ?synthesis .
             ?result a zg:ToolResult ; prov:wasGeneratedBy [ a zg:ToolExecution ] .
             ?synthesis prov:used ?result ;
                 prov:wasInformedBy [ rdfs:label "experiment_synthesis" ] }""",
    )
    assert len(results) == 2  # the failed tool run found nothing
    cited = sparql(
        doc, "SELECT ?q WHERE { ?r a zg:ToolResult ; prov:wasDerivedFrom ?q . ?q a zg:Quote }"
    )
    assert [str(q) for (q,) in cited] == [f"urn:zettelgraph:quote/{graph['q1'].id}"]
    review = sparql(
        doc,
        """SELECT ?call WHERE {
             ?plan a prov:Plan ; prov:wasGeneratedBy ?review ; prov:wasAttributedTo ?reader .
             ?review zg:decision "modify" ; prov:wasAssociatedWith ?reader ;
                 prov:wasInformedBy ?call .
             ?reader a prov:Person .
             ?tool prov:qualifiedAssociation [ prov:hadPlan ?plan ] .
             ?call prov:wasAssociatedWith [ a prov:SoftwareAgent ; zg:provider "fake" ] }""",
    )
    assert len({row[0] for row in review}) == 2  # analysis and strategy, before the review
    [(path,)] = sparql(doc, "SELECT ?p WHERE { ?r a zg:Report ; zg:path ?p }")
    assert str(path) == "exp-0001/report.md"  # not the reader's home folder


def test_names_and_model_agents() -> None:
    assert local_name("incorporate_feedback#2") == "incorporate_feedback-2"
    assert local_name("merged across batches") == "merged-across-batches"
    assert local_name("José Ortega") == "José-Ortega"
    assert local_name("  ") == "-"
    assert model_info("ollama:qwen3:8b") == ModelInfo("ollama:qwen3:8b", "ollama", "qwen3", "8b")
    assert model_info("openai:gpt-4.1-mini").version == ""
    assert model_info("fake").provider == "fake"
    local = model_info("local:0.5b")
    assert local.name == "qwen2.5-coder-0.5b-instruct-q4_k_m" and local.version.startswith(
        "sha256:"
    )


def test_llm_call_names_are_the_prompt_modules() -> None:
    """A history entry is an LLM call when a prompt module has its name (`LLM_CALLS`): each
    prompt module's NAME must be its module name for that to hold."""
    for module in pkgutil.iter_modules(prompts.__path__):
        name = getattr(importlib.import_module(f"zettelgraph.prompts.{module.name}"), "NAME", None)
        assert name in (None, module.name), module.name
    assert {"extract_concepts", "card_question", "extract_graph"} <= LLM_CALLS
    assert "coverage" not in LLM_CALLS
