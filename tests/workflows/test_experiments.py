"""Experiments end to end on the fake LLM, on SQLite and on FalkorDB + PostgreSQL: each of the
four types through analyse, recommend, the reader's review (approve, modify, reject), the
tools and the cited report, with what the report, the vault and the checkpoint hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness import Harness, MakeHarness

from experiment_books import add_books
from zettelgraph.experiments.models import FocusTerm
from zettelgraph.experiments.tools import TOOLS
from zettelgraph.services.experiments import ExperimentRuns
from zettelgraph.services.run_view import RunError
from zettelgraph.vault.experiments import EXPERIMENTS_DIR


@pytest.fixture
def lab(make_harness: MakeHarness) -> tuple[Harness, ExperimentRuns, list[str]]:
    h = make_harness()
    ids = add_books(h.services)
    return h, ExperimentRuns(h.services, h.runs.checkpointer), ids


HONRA = FocusTerm(term="honra", definition="Estima y respeto de la dignidad propia.")


@pytest.mark.parametrize("kind", ["temporal", "cross_domain", "document_analysis"])
def test_each_multi_document_type_runs_end_to_end(
    lab: tuple[Harness, ExperimentRuns, list[str]], kind: str
) -> None:
    h, runs, ids = lab
    view = runs.new(kind, HONRA, ids, goal="¿Cómo usan honra Cervantes y Galdós?")
    assert view.status == "awaiting_review"
    review = view.run.report
    assert review is not None and review["kind"] == "experiment"
    assert set(review["strategy"]) == set(ids)
    assert all(name in TOOLS for tools in review["strategy"].values() for name in tools)
    # The analysis saw the structured metadata, not a preview.
    assert view.values["term_passages"] == {ids[0]: 3, ids[1]: 3}
    assert {d["year"] for d in view.values["documents"]} == {1605, 1876}

    done = runs.review(view.id, "approve", notes="bien")
    assert done.status == "completed"
    values = done.values
    assert values["decision"] == "approve" and values["review_notes"] == "bien"
    ran = {(r["tool"], tuple(r["document_ids"])) for r in values["tool_runs"]}
    expected = {
        (name, (cid,))
        for cid, names in values["approved_strategy"].items()
        for name in names
        if TOOLS[name].scope == "document"
    }
    assert expected <= ran
    assert not [r for r in values["tool_runs"] if r["error"]]
    report = Path(values["report_path"]).read_text(encoding="utf-8")
    assert report.startswith("# honra:")
    synthesis = values["synthesis"]
    # Every insight kept cites a passage that is listed in the report.
    listed = {p["n"] for p in synthesis["passages"]}
    for insight in synthesis["insights"]:
        assert insight["citations"] and set(insight["citations"]) <= listed
    for p in synthesis["passages"]:
        assert f"[{p['n']}] " in report
    notes = list((h.settings.vault_path / EXPERIMENTS_DIR).glob("*.md"))
    assert len(notes) == 1 and f"experiment_id: {view.id}" in notes[0].read_text("utf-8")
    names = {c["name"] for c in values["llm_calls"]}
    assert names == {"experiment_analysis", "experiment_strategy", "experiment_synthesis"}


def test_single_document_with_a_modified_plan(
    lab: tuple[Harness, ExperimentRuns, list[str]],
) -> None:
    _, runs, ids = lab
    view = runs.new("single_document", HONRA, ids[:1])
    plan = {ids[0]: ["concordance", "temporal_expressions"]}
    done = runs.review(view.id, "modify", strategy=plan, notes="solo esto")
    assert done.status == "completed"
    assert done.values["decision"] == "modify"
    assert done.values["approved_strategy"] == plan
    assert sorted(r["tool"] for r in done.values["tool_runs"]) == sorted(plan[ids[0]])
    concordance = next(r for r in done.values["tool_runs"] if r["tool"] == "concordance")
    assert concordance["output"]["count"] == 3


def test_rejecting_ends_the_experiment_without_running_tools(
    lab: tuple[Harness, ExperimentRuns, list[str]],
) -> None:
    h, runs, ids = lab
    view = runs.new("temporal", HONRA, ids)
    done = runs.review(view.id, "reject", notes="no era esto")
    assert done.status == "rejected"
    assert not done.values.get("tool_runs")
    assert not (h.settings.home / "experiments" / view.id).exists()
    with pytest.raises(RunError, match="not waiting for review"):
        runs.review(view.id, "approve")


def test_a_plan_that_cannot_run_is_refused_with_every_reason(
    lab: tuple[Harness, ExperimentRuns, list[str]],
) -> None:
    _, runs, ids = lab
    view = runs.new("temporal", HONRA, ids)
    bad: dict[str, Any] = {ids[0]: ["concordance", "telepathy"], "nope": ["concordance"]}
    with pytest.raises(RunError) as caught:
        runs.review(view.id, "modify", strategy=bad)
    assert "telepathy is not a tool" in str(caught.value)
    assert "document nope is not in this experiment" in str(caught.value)
    # Still waiting: a refused modification decides nothing.
    assert runs.show(view.id).status == "awaiting_review"


def test_bad_requests_are_refused_before_anything_runs(
    lab: tuple[Harness, ExperimentRuns, list[str]],
) -> None:
    _, runs, ids = lab
    with pytest.raises(RunError, match="unknown experiment type"):
        runs.new("astrology", HONRA, ids)
    with pytest.raises(RunError, match="no content with id missing"):
        runs.new("temporal", HONRA, [ids[0], "missing"])
    with pytest.raises(RunError, match="exactly one content"):
        runs.new("single_document", HONRA, ids)
    with pytest.raises(RunError, match="give two or more"):
        runs.new("temporal", HONRA, ids[:1])
    assert runs.experiments() == []


def test_an_unusable_model_answer_falls_back_to_the_type_defaults(
    make_harness: MakeHarness,
) -> None:
    h = make_harness(replies={"experiment_strategy": [{"nonsense": 1}] * 4})
    ids = add_books(h.services)
    runs = ExperimentRuns(h.services, h.runs.checkpointer)
    view = runs.new("temporal", HONRA, ids)
    assert view.values["strategy_source"] == "defaults"
    assert view.values["confidence"] is None
    assert any("defaults are proposed" in w for w in view.run.warnings)
    assert "semantic_drift" in view.values["recommended_strategy"][ids[0]]


SYNTHESIS = {
    "insights": [
        {
            "text": "La honra pesa más que la hacienda en Cervantes. En Galdós se compra.",
            "sources": ["q1", "q2"],
        },
        {"text": "La honra pesa más que la hacienda en Cervantes.", "sources": ["q1"]},
        {"text": "Honour matters more than money to both of these writers.", "sources": ["q1"]},
        {"text": "En Galdós la honra es sobre todo apariencia ante los vecinos.", "sources": []},
    ],
    "evolution": [
        {
            "group": "1605",
            "usage": "En 1605 la honra es la virtud del caballero andante.",
            "sources": ["q1", "q2", "q3"],
        },
        {
            "group": "1876",
            "usage": "En 1876 la honra se ha vuelto dinero y apariencia social.",
            "sources": ["q1", "q2", "q3"],
        },
        {"group": "1900", "usage": "En 1900 nadie habla de honra.", "sources": ["q1"]},
    ],
}


def test_the_synthesis_keeps_only_cited_new_statements_in_the_report_language(
    make_harness: MakeHarness,
) -> None:
    h = make_harness(replies={"experiment_synthesis": [SYNTHESIS]})
    ids = add_books(h.services)
    runs = ExperimentRuns(h.services, h.runs.checkpointer)
    view = runs.new("temporal", HONRA, ids, goal="¿Cómo cambia la honra entre 1605 y 1876?")
    done = runs.review(view.id, "modify", strategy={cid: ["concordance"] for cid in ids})
    synthesis = done.values["synthesis"]
    assert [i["text"] for i in synthesis["insights"]] == [
        "La honra pesa más que la hacienda en Cervantes. En Galdós se compra."
    ]
    reasons = sorted(d["reason"] for d in synthesis["dropped"])
    assert reasons == [
        "cites no passage shown",
        "not written in es",
        "repeats an earlier finding",
        "unknown group '1900'",
    ]
    # Each group's usage cites only its own book's passages.
    content_of = {p["n"]: p["content_id"] for p in synthesis["passages"]}
    by_year = {d["year"]: d["id"] for d in done.values["documents"]}
    rows = {r["group"]: r for r in synthesis["evolution"]}
    assert set(rows) == {"1605", "1876"}
    for group, row in rows.items():
        assert row["citations"]
        assert {content_of[n] for n in row["citations"]} == {by_year[int(group)]}
    report = Path(done.values["report_path"]).read_text(encoding="utf-8")
    assert "## Left out" in report and "repeats an earlier finding" in report
