"""A graph extraction's relationships carry the model's confidence (issue 31, item 10): asked
for, bounded to 0..1, shown in the review, stored on the edge; one the model was unsure of is
flagged doubtful and left out unless the reader keeps it, as the concept review does. On a
real store (SQLite, FalkorDB) with the fake LLM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from graph_harness import QUIJOTE, STORY_SCHEMA, GraphHarness, calls, entity, relationship

from zettelgraph.models import entity_id
from zettelgraph.prompts import extract_graph
from zettelgraph.services.review import decide, decisions_from

EXTRACTION = calls(
    entity("Don Quijote", "Person", "Hidalgo de la Mancha."),
    entity("Sancho Panza", "Person", "Escudero de don Quijote."),
    entity("La Mancha", "Place", "Región de Castilla."),
    relationship("Don Quijote", "KNOWS", "Sancho Panza", "Sancho es su escudero.", 0.9),
    relationship("Don Quijote", "LIVED_IN", "La Mancha", "Parece que vivía allí.", 0.3),
    # Past the bound: read as sure, not as a failed answer.
    relationship("Sancho Panza", "LIVED_IN", "La Mancha", "Su vecino.", 1.7),
)


@pytest.fixture
def harness(tmp_path: Path, backend_urls: dict[str, str]) -> Iterator[GraphHarness]:
    made = GraphHarness(tmp_path / "home", {"extract_graph": [EXTRACTION]}, **backend_urls)
    yield made
    made.close()


def by_type_and_source(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["type"], r["source"]): r for r in report["relationships"]}


def test_confidence_is_shown_stored_and_a_low_one_is_left_out_unless_kept(
    harness: GraphHarness,
) -> None:
    h = harness
    run = h.graph_runs.start(h.add_content("Don Quijote", QUIJOTE), packs=["story"])
    report = run.report or {}
    shown = by_type_and_source(report)
    knows, unsure, neighbour = (
        shown[("KNOWS", "Don Quijote")],
        shown[("LIVED_IN", "Don Quijote")],
        shown[("LIVED_IN", "Sancho Panza")],
    )
    assert (knows["confidence"], unsure["confidence"], neighbour["confidence"]) == (0.9, 0.3, 1.0)
    assert unsure["doubt"]["doubtful"] and unsure["doubt"]["reasons"] == [
        "the model was not sure of it"
    ]
    assert not knows["doubt"]["doubtful"]
    assert unsure["decision"] == {"verdict": "drop", "decided": False}
    assert knows["decision"] == {"verdict": "keep", "decided": False}
    review = report["review"]
    assert review["counts"]["doubtful"] == 1
    assert review["writes"]["relationships"] == 2
    assert any("not sure of it (0.30)" in line for line in review["left_out"])

    # Kept by the reader, it is written like the others, with its confidence.
    view = decide(h.graph_runs, run.run_id, decisions_from({"keep": [unsure["key"]]}))
    assert (view.report or {})["review"]["writes"]["relationships"] == 3
    h.graph_runs.answer(run.run_id, "approve")
    store = h.services.store
    quijote = entity_id("Person", "don quijote")
    [lived] = store.relations(quijote, relation_type="LIVED_IN")
    [known] = store.relations(quijote, relation_type="KNOWS")
    assert lived.properties["confidence"] == 0.3
    assert known.properties["confidence"] == 0.9


def test_a_doubtful_relationship_left_undecided_is_not_written(harness: GraphHarness) -> None:
    h = harness
    run = h.graph_runs.start(h.add_content("Don Quijote", QUIJOTE), packs=["story"])
    done = h.graph_runs.answer(run.run_id, "approve")
    quijote = entity_id("Person", "don quijote")
    assert h.services.store.relations(quijote, relation_type="LIVED_IN") == []
    assert any("not sure of it" in line for line in done.committed["left_out"])


def test_the_prompt_asks_for_a_bounded_confidence() -> None:
    data = extract_graph.ExtractGraphInput(
        title="T",
        pack_schema=STORY_SCHEMA,
        passages=[extract_graph.PromptPassage(id="q1", text="x")],
    )
    schema = extract_graph.request_schema(data)["$defs"]["ExtractRelationship"]
    assert schema["properties"]["confidence"]["minimum"] == 0
    assert schema["properties"]["confidence"]["maximum"] == 1
    assert "confidence" in schema["required"]
    [_, tool] = extract_graph.tools(data)
    assert "confidence" in tool.parameters["required"]
    assert "confidence (0 to 1)" in str(extract_graph.messages(data)[0].content)
    # What a provider gets wrong is clamped or unknown, never a failed answer.
    args = {"source_name": "A", "target_name": "B", "relationship_type": "KNOWS"}
    assert extract_graph.ExtractRelationship(**args).confidence is None
    assert extract_graph.ExtractRelationship(**args, confidence=-2).confidence == 0.0
