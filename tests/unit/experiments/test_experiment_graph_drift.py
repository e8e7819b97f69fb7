"""The graph tools (concepts that mention the term, centrality, communities), semantic drift,
and the registry (its order, descriptions, and a failing tool turned into an error)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from experiment_corpus import Corpus

from zettelgraph.experiments.models import ToolOutput
from zettelgraph.experiments.registry import Tool, run_tool
from zettelgraph.experiments.tools import TOOLS, describe_tools
from zettelgraph.experiments.tools_drift import semantic_drift
from zettelgraph.experiments.tools_graph import graph_concepts, graph_measures
from zettelgraph.experiments.tools_text import concordance
from zettelgraph.store import GraphStore, open_store


def _honra_graph(corpus: Corpus) -> dict[str, str]:
    quotes = corpus.book(
        "El alcalde de Zalamea",
        ["Al rey la hacienda y la vida se ha de dar, pero la honra es patrimonio del alma.",
         "El linaje no se compra."],
        author="Pedro Calderón de la Barca",
        year=1651,
    )  # fmt: skip
    content = corpus.content_ids[0]
    honra = corpus.concept("La honra calderoniana", "La honra como patrimonio del alma.")
    shame = corpus.concept("Vergüenza", "Perder la honra ante los demás.")
    lineage = corpus.concept("Linaje", "La sangre heredada.", content=content, quotes=quotes)
    money = corpus.concept("Dinero", "Lo que se compra.")
    fame = corpus.concept("Fama", "Lo que dicen de uno.")
    corpus.concept("Otra cosa", "Sin relación.")
    corpus.relate(honra, "OPPOSES", money)
    corpus.relate(honra, "SIMILAR_TO", fame)
    corpus.relate(shame, "GENERALIZES", honra)
    return {"honra": honra.id, "shame": shame.id, "lineage": lineage.id, "quote": quotes[0].id}


def test_graph_concepts_finds_mentions_in_text_and_supporting_quotes(corpus: Corpus) -> None:
    ids = _honra_graph(corpus)
    result = graph_concepts(corpus.context("honra"), corpus.documents())
    by_title = {c.title: c for c in result.concepts}
    assert set(by_title) == {"La honra calderoniana", "Vergüenza", "Linaje"}
    assert result.count == 3
    assert by_title["La honra calderoniana"].mentions == 2
    lineage = by_title["Linaje"]
    assert (lineage.mentions, lineage.quote_mentions, lineage.in_documents) == (1, 1, True)
    neighbours = {
        (n.title, n.relation_type, n.direction)
        for n in by_title["La honra calderoniana"].neighbours
    }
    assert neighbours == {
        ("Dinero", "OPPOSES", "out"),
        ("Fama", "SIMILAR_TO", "out"),
        ("Vergüenza", "SPECIFIC_OF", "out"),
    }
    assert [c.passage_id for c in result.citations] == [ids["quote"]]
    assert "3 concepts mention honra" in result.summary


def test_graph_measures_star_centre_is_most_central(corpus: Corpus) -> None:
    corpus.book("Libro", ["La honra."])
    centre = corpus.concept("Honra", "La honra en el centro.")
    for name in ("Fama", "Linaje", "Sangre", "Virtud", "Opinión"):
        corpus.relate(centre, "RELATES_TO", corpus.concept(name, f"{name} sin más."))
    result = graph_measures(corpus.context("honra"), corpus.documents())
    assert (result.nodes, result.edges) == (6, 5)
    top = result.central[0]
    assert (top.title, top.degree, top.betweenness, top.mentions_term) == ("Honra", 5, 1.0, True)
    assert all(c.degree == 1 and c.betweenness == 0.0 for c in result.central[1:])


def test_graph_measures_two_cliques_are_two_communities(corpus: Corpus) -> None:
    corpus.book("Libro", ["La honra."])
    for side in ("A", "B"):
        members = [corpus.concept(f"Honra {side}{i}", "Sobre la honra.") for i in range(4)]
        for i, first in enumerate(members):
            for second in members[i + 1 :]:
                corpus.relate(first, "SIMILAR_TO", second)
    result = graph_measures(corpus.context("honra"), corpus.documents())
    assert (result.nodes, result.edges, result.isolated) == (8, 12, 0)
    assert sorted(c.size for c in result.communities) == [4, 4]
    assert {frozenset(c.titles) for c in result.communities} == {
        frozenset(f"Honra A{i}" for i in range(4)),
        frozenset(f"Honra B{i}" for i in range(4)),
    }
    assert result.modularity is not None and result.modularity > 0.4


def test_graph_tools_on_an_empty_graph_are_honest_not_errors(corpus: Corpus) -> None:
    corpus.book("Libro", ["La honra."])
    concepts = graph_concepts(corpus.context("honra"), corpus.documents())
    measures = graph_measures(corpus.context("honra"), corpus.documents())
    assert concepts.count == 0 and concepts.concepts == []
    assert (measures.nodes, measures.edges, measures.central, measures.communities) == (
        0,
        0,
        [],
        [],
    )
    assert "no concept" in measures.summary


def _drift_corpus(corpus: Corpus) -> None:
    corpus.book(
        "Siglo de Oro",
        ["La honra del linaje y la sangre noble.", "Honra, sangre y apellido del linaje."],
        author="Lope de Vega",
        year=1600,
    )
    corpus.book(
        "Barroco",
        ["La honra de la sangre y del linaje antiguo.", "Sangre y honra del linaje."],
        author="Pedro Calderón de la Barca",
        year=1650,
    )
    corpus.book(
        "Realismo",
        ["La honra del dinero, el banco y el comercio.", "Honra es comercio, banco y dinero."],
        year=1880,
    )


def test_semantic_drift_by_year_sees_the_change_of_company(corpus: Corpus) -> None:
    _drift_corpus(corpus)
    context = corpus.context("honra", definition="La honra es la dignidad del linaje.")
    result = semantic_drift(context, corpus.documents())
    assert result.grouping == "year"
    assert [g.group for g in result.groups] == ["1600", "1650", "1880"]
    first, second, third = result.groups
    assert first.distance_to_previous is None
    assert second.distance_to_previous is not None and third.distance_to_previous is not None
    assert third.distance_to_previous > second.distance_to_previous
    assert third.distance_to_overall > second.distance_to_overall
    assert third.distance_to_definition is not None and first.distance_to_definition is not None
    assert third.distance_to_definition > first.distance_to_definition
    assert {"dinero", "banco", "comercio"} <= set(third.nearest_words)
    assert "dinero" not in first.nearest_words
    assert result.count == 6 and all(g.contexts == 2 for g in result.groups)
    assert not result.semantic and result.embedder == "hash"
    assert "largest change: 1650 → 1880" in result.summary
    assert {c.passage_id for c in result.citations} == {g.typical_passage_id for g in result.groups}


def test_semantic_drift_groups_by_author_then_by_document(corpus: Corpus) -> None:
    corpus.book("Uno", ["La honra."], author="Lope de Vega")
    corpus.book("Dos", ["Otra honra."], author="Tirso de Molina")
    assert semantic_drift(corpus.context("honra"), corpus.documents()).grouping == "author"
    corpus.book("Tres", ["Sin el término."], author="Lope de Vega")
    same_author = Corpus(corpus.store, [corpus.content_ids[0], corpus.content_ids[2]])
    result = semantic_drift(same_author.context("honra"), same_author.documents())
    assert result.grouping == "document"
    assert [g.group for g in result.groups] == ["Uno"]
    assert result.groups_without_term == ["Tres"]


def test_semantic_drift_samples_at_most_200_contexts_per_group(corpus: Corpus) -> None:
    corpus.book("Mucho", [f"Pasaje {i} sobre la honra." for i in range(250)], year=1600)
    corpus.book("Poco", ["Una honra."], year=1700)
    result = semantic_drift(corpus.context("honra"), corpus.documents())
    assert [(g.occurrences, g.contexts) for g in result.groups] == [(250, 200), (1, 1)]


def test_registry_order_and_descriptions() -> None:
    assert list(TOOLS) == [
        "concordance",
        "term_frequency",
        "cooccurrence",
        "named_entities",
        "temporal_expressions",
        "graph_concepts",
        "graph_measures",
        "semantic_drift",
    ]
    described = describe_tools()
    assert [d["name"] for d in described] == list(TOOLS)
    assert all(
        d["scope"] in ("document", "corpus") and len(d["description"]) > 80 for d in described
    )
    assert all(issubclass(t.output, ToolOutput) for t in TOOLS.values())


def test_every_tool_runs_and_returns_its_output_type(corpus: Corpus) -> None:
    _drift_corpus(corpus)
    for tool in TOOLS.values():
        run = run_tool(tool, corpus.context("honra", anchors=["sangre"]), corpus.documents())
        assert run.error is None, (tool.name, run.error)
        tool.output.model_validate(run.output)


def test_run_tool_turns_an_exception_into_an_error(corpus: Corpus) -> None:
    corpus.book("Libro", ["La honra."])

    def broken(*_: object) -> ToolOutput:
        raise RuntimeError("disk on fire")

    tool = Tool("broken", "Broken", "Always fails.", "document", ToolOutput, broken)
    run = run_tool(tool, corpus.context("honra"), corpus.documents())
    assert (run.error, run.output) == ("RuntimeError: disk on fire", {})
    wordless = run_tool(TOOLS["concordance"], corpus.context("¡!"), corpus.documents())
    assert wordless.error is not None and "no word" in wordless.error


@pytest.fixture(params=["sqlite", "falkordb"])
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphStore]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.db'}"
    else:
        url = request.getfixturevalue("falkordb_graph_url")
    store = open_store(url)
    try:
        yield store
    finally:
        store.close()


def test_concordance_and_graph_concepts_on_every_backend(backend_store: GraphStore) -> None:
    corpus = Corpus(backend_store)
    ids = _honra_graph(corpus)
    documents = corpus.documents()
    lines = concordance(corpus.context("honra"), documents)
    assert lines.count == 1 and lines.lines[0].location == "p. 1"
    concepts = graph_concepts(corpus.context("honra"), documents)
    assert {c.concept_id for c in concepts.concepts} == {ids["honra"], ids["shame"], ids["lineage"]}
    honra = next(c for c in concepts.concepts if c.concept_id == ids["honra"])
    assert {n.title for n in honra.neighbours} == {"Dinero", "Fama", "Vergüenza"}


def test_semantic_drift_groups_many_years_into_periods(corpus: Corpus) -> None:
    for year in range(1600, 1615):
        corpus.book(f"Obra {year}", [f"La honra del año {year}."], year=year)
    result = semantic_drift(corpus.context("honra"), corpus.documents())
    assert (result.grouping, result.period_years) == ("year", 5)
    assert [g.group for g in result.groups] == ["1600–1604", "1605–1609", "1610–1614"]
    assert [g.documents for g in result.groups] == [5, 5, 5]
    assert "periods of 5 years" in result.summary
