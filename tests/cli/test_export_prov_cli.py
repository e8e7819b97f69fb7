"""`zettelgraph export prov` on the README's example graph: examples/ ingested, extracted and
approved on the fake LLM, then cards generated and approved. Every export is read back with
rdflib, and SPARQL checks that every concept traces to its quotes and their books, to its
run's LLM calls (each with a model agent) and to the reader's approval; that the export holds
as many concepts and cards as the store; that each scope holds what it names; and that bad
requests are refused with what to do instead."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from prov.model import ProvDocument
from rdflib import Graph
from rdflib.compare import isomorphic
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.context import Services, open_services
from zettelgraph.experiments.models import (
    DocumentInfo,
    ExperimentRecord,
    ExperimentType,
    FocusTerm,
    ToolRun,
)
from zettelgraph.models import Concept, LearningItem, NodeLabel
from zettelgraph.services.provenance import export_provenance
from zettelgraph.settings import Settings
from zettelgraph.store.base import every_node

REPO = Path(__file__).resolve().parents[2]
PREFIXES = """PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX zg: <urn:zettelgraph:>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX dcterms: <http://purl.org/dc/terms/>
"""
RDF_FORMATS = {"jsonld": "json-ld", "turtle": "turtle"}


def cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


def ok(result: Any) -> Any:
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example graph, reviewed, with approved cards (built once: exports only read it)."""
    home = tmp_path_factory.mktemp("prov") / "home"
    with pytest.MonkeyPatch.context() as env:
        for name in [n for n in os.environ if n.startswith("ZETTELGRAPH_")]:
            env.delenv(name)
        runs = json.loads(ok(cli(home, "run", str(REPO / "examples"), "--json")).stdout)
        for run in runs["runs"]:
            ok(cli(home, "review", run["run_id"], "--approve", "--json"))
        ok(cli(home, "cards", "generate", "--json"))
        ok(cli(home, "cards", "approve", "--all"))
    return home


@contextmanager
def opened(home: Path) -> Iterator[Services]:
    services = open_services(Settings(home=home, llm="fake", embeddings="hash"))
    try:
        yield services
    finally:
        services.close()


def parse(text: str, fmt: str) -> Graph:
    return Graph().parse(data=text, format=RDF_FORMATS[fmt])


def ask(graph: Graph, query: str) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in graph.query(PREFIXES + query)]  # type: ignore[arg-type]


# Each query lists what breaks a chain: an empty answer means every chain holds.
CONCEPT_WITHOUT_QUOTE = """SELECT ?c WHERE { ?c a zg:Concept . FILTER NOT EXISTS {
    ?c prov:wasDerivedFrom ?q . ?q a zg:Quote ; prov:wasDerivedFrom ?book . ?book a zg:Content
} }"""
CONCEPT_WITHOUT_APPROVAL = """SELECT ?c WHERE { ?c a zg:Concept . FILTER NOT EXISTS {
    ?c prov:wasGeneratedBy ?approval ; prov:wasAttributedTo ?reader .
    ?approval a zg:Approval ; prov:wasAssociatedWith ?reader . ?reader a prov:Person
} }"""
APPROVAL_WITHOUT_CALL = """SELECT ?c WHERE { ?c a zg:Concept ; prov:wasGeneratedBy ?approval .
  FILTER NOT EXISTS {
    ?approval prov:wasInformedBy ?call .
    ?call a zg:LLMCall ; prov:wasAssociatedWith ?model .
    ?model a prov:SoftwareAgent ; zg:name ?name ; zg:provider ?provider ; zg:version ?version
} }"""
CARD_WITHOUT_SOURCE = """SELECT ?i WHERE { ?i a zg:LearningItem ; zg:status "approved" .
  FILTER NOT EXISTS {
    ?i prov:wasDerivedFrom [ a zg:Concept ] ; prov:wasGeneratedBy [ a zg:CardGeneration ] ;
       prov:wasAttributedTo [ a prov:Person ] .
    ?decision prov:used ?i ; a zg:Approval ; prov:wasAssociatedWith [ a prov:Person ]
} }"""


def export(home: Path, *args: str) -> str:
    text: str = ok(cli(home, "export", "prov", *args)).stdout
    return text


def full_concepts(graph: Graph) -> set[str]:
    """The concepts an export describes with their history (not those it only names)."""
    rows = ask(graph, "SELECT ?c WHERE { ?c a zg:Concept ; prov:wasGeneratedBy ?a }")
    return {str(c).rsplit("/", 1)[1] for (c,) in rows}


def test_every_concept_traces_to_its_quotes_calls_and_approval(home: Path) -> None:
    with opened(home) as services:
        counts = services.store.counts()
        cards = list(every_node(services.store, NodeLabel.LEARNING_ITEM, LearningItem))
    assert counts["Concept"] > 0 and any(c.status == "approved" for c in cards)
    graphs = {fmt: parse(export(home, "--all", "--format", fmt), fmt) for fmt in RDF_FORMATS}
    for fmt, graph in graphs.items():
        for query in (CONCEPT_WITHOUT_QUOTE, CONCEPT_WITHOUT_APPROVAL, APPROVAL_WITHOUT_CALL):
            assert ask(graph, query) == [], (fmt, query)
        assert ask(graph, CARD_WITHOUT_SOURCE) == [], fmt
        [(concepts,)] = ask(graph, "SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { ?c a zg:Concept }")
        assert int(concepts) == counts["Concept"]
        [(items,)] = ask(graph, "SELECT (COUNT(DISTINCT ?i) AS ?n) WHERE { ?i a zg:LearningItem }")
        assert int(items) == len(cards)
    assert isomorphic(graphs["jsonld"], graphs["turtle"])
    provn = export(home, "--all", "--format", "provn")
    assert provn.startswith("document\n") and provn.rstrip().endswith("endDocument")
    records = ProvDocument.deserialize(content=provn, format="provn").get_records()
    typed = [r for r in records if ("prov:type", "zg:Concept") in _pairs(r)]
    assert len(typed) == counts["Concept"]


def _pairs(record: Any) -> set[tuple[str, str]]:
    return {(str(name), str(value)) for name, value in record.attributes}


def test_a_concepts_export_holds_its_quotes_books_run_and_relations(
    home: Path, tmp_path: Path
) -> None:
    with opened(home) as services:
        concept = next(every_node(services.store, NodeLabel.CONCEPT, Concept))
        supports = services.store.relations(concept.id, relation_type="SUPPORTS", direction="in")
    out = tmp_path / "exports" / "concept.ttl"
    result = ok(
        cli(
            home,
            "export",
            "prov",
            "--concept",
            concept.id[:8],
            "--format",
            "turtle",
            "-o",
            str(out),
        )
    )
    assert result.stdout == "" and f"wrote {out}" in result.stderr.replace("\n", "")
    graph = parse(out.read_text(encoding="utf-8"), "turtle")
    assert full_concepts(graph) == {concept.id}
    quotes = ask(graph, "SELECT ?q WHERE { ?q a zg:Quote ; prov:wasDerivedFrom [ a zg:Content ] }")
    assert {str(q).rsplit("/", 1)[1] for (q,) in quotes} == {r.source_id for r in supports}
    run = concept.provenance["run"]
    calls = ask(graph, f"SELECT ?c WHERE {{ ?c dcterms:isPartOf <urn:zettelgraph:run/{run}> }}")
    assert len(calls) >= 2  # the approval and at least one call
    for query in (CONCEPT_WITHOUT_QUOTE, CONCEPT_WITHOUT_APPROVAL, APPROVAL_WITHOUT_CALL):
        rows = ask(
            graph, query.replace("?c a zg:Concept", "?c a zg:Concept ; prov:wasGeneratedBy ?g")
        )
        assert rows == []


def test_a_runs_export_holds_what_it_wrote(home: Path) -> None:
    runs = json.loads(ok(cli(home, "runs", "--json")).stdout)
    run_id = next(r["run_id"] for r in runs if r["status"] == "committed")
    with opened(home) as services:
        wrote = {
            c.id
            for c in every_node(services.store, NodeLabel.CONCEPT, Concept)
            if c.provenance.get("run") == run_id
        }
        generation = next(
            i.provenance["generation"]
            for i in every_node(services.store, NodeLabel.LEARNING_ITEM, LearningItem)
        )
    graph = parse(export(home, "--run", run_id), "jsonld")
    assert full_concepts(graph) == wrote and wrote
    cards = parse(export(home, "--run", generation, "--format", "turtle"), "turtle")
    assert ask(cards, CARD_WITHOUT_SOURCE) == []
    assert ask(cards, "SELECT ?g WHERE { ?g a zg:CardGeneration }")


def test_the_reader_is_whom_the_settings_name(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZETTELGRAPH_READER", "Ana María Matute")
    graph = parse(export(home, "--all", "--format", "turtle"), "turtle")
    rows = ask(graph, 'SELECT ?r WHERE { ?r a prov:Person ; rdfs:label "Ana María Matute" }')
    assert len(rows) == 1


def test_bad_requests_say_what_to_do(home: Path) -> None:
    unknown = cli(home, "export", "prov", "--concept", "ffffffff")
    assert unknown.exit_code == 1
    assert "no concept with id 'ffffffff'; `zettelgraph concepts` lists them" in flat(
        unknown.output
    )
    run = cli(home, "export", "prov", "--run", "run-000000000000")
    assert run.exit_code == 1 and "`zettelgraph runs` lists" in flat(run.output)
    fmt = cli(home, "export", "prov", "--all", "--format", "xml")
    assert fmt.exit_code == 2 and "choose one of: jsonld, turtle, provn" in flat(fmt.output)
    for scopes in (["--all", "--run", "x"], []):
        both = cli(home, "export", "prov", *scopes)
        assert both.exit_code == 2, scopes
        assert "give exactly one of --concept ID, --run ID, --experiment ID or --all" in flat(
            both.output
        )
    experiment = cli(home, "export", "prov", "--experiment", "exp-nothing")
    assert experiment.exit_code == 1 and "experiment" in flat(experiment.output)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_an_experiment_record_traces_its_tools_to_the_contents(home: Path) -> None:
    """The record as the experiments service will hand it over, over this home's books."""
    t0 = datetime(2025, 5, 1, 10, 0, tzinfo=UTC)
    with opened(home) as services:
        books = services.store.list_contents()[:2]
        record = ExperimentRecord(
            id="exp-abc",
            type=ExperimentType.CROSS_DOMAIN,
            term=FocusTerm(term="vida"),
            documents=[DocumentInfo(id=b.id, title=b.title) for b in books],
            created_at=t0,
            reviewed_at=t0 + timedelta(minutes=1),
            decision="approve",
            strategy={b.id: ["term_frequency"] for b in books},
            tool_runs=[
                ToolRun(tool="term_frequency", document_ids=[b.id], started_at=t0, seconds=0.2)
                for b in books
            ],
            completed_at=t0 + timedelta(minutes=3),
            report_path="exp-abc/report.md",
        )
        text = export_provenance(services, experiment=record, fmt="turtle")
    graph = parse(text, "turtle")
    rows = ask(
        graph,
        """SELECT ?title WHERE {
             ?report a zg:Report ; prov:wasDerivedFrom ?result .
             ?result prov:wasGeneratedBy ?tool . ?tool prov:used ?book .
             ?book a zg:Content ; rdfs:label ?title ; prov:wasAttributedTo [ a prov:Person ] }""",
    )
    assert sorted(str(t) for (t,) in rows) == sorted(b.title for b in books)


def test_without_the_experiments_service_the_error_says_so(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "zettelgraph.services.experiments", None)
    result = cli(home, "export", "prov", "--experiment", "exp-abc")
    assert result.exit_code == 1 and "experiments are not available" in flat(result.output)
