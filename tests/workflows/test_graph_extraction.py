"""Graph extraction end to end on a real store (SQLite, FalkorDB) with the fake LLM: review
(approve, feedback, abort), referential integrity under injected faults, deduplication
against the store, both ways of calling the model (JSON list, bound tools)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from graph_harness import (
    QUIJOTE,
    STORY_SCHEMA,
    GraphHarness,
    broken_edges,
    calls,
    entity,
    relationship,
    story_packs,
)

from zettelgraph.models import entity_id
from zettelgraph.services.graph_runs import GraphRuns
from zettelgraph.services.run_view import RunError
from zettelgraph.workflows.graph_extraction import nodes_commit

QUIJOTE_CALLS = calls(
    entity("Don Quijote", "Person", "Hidalgo de la Mancha.", born="1547", fictional="sí"),
    entity("Sancho Panza", "Person", "Escudero de don Quijote.", occupation="escudero"),
    entity("La Mancha", "Place", "Región de Castilla."),
    entity("Miguel de Cervantes", "Person", "Autor."),
    entity("Don Quijote de la Mancha", "Work", "La novela."),
    relationship("Don Quijote", "KNOWS", "Sancho Panza", "Sancho es su escudero."),
    relationship("Don Quijote", "LIVED_IN", "La Mancha", "Vivía en la Mancha."),
    relationship("Miguel de Cervantes", "WROTE", "Don Quijote de la Mancha"),
)


@pytest.fixture(params=["sqlite", "falkordb", "falkordb+postgres"])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    """The store and checkpoints of the test: SQLite files in its home; a FalkorDB graph of its
    own with the checkpoints in SQLite (FalkorDB tested without PostgreSQL); or FalkorDB with
    a PostgreSQL checkpoint database (skipped without ZG_TEST_POSTGRES_URL, as in
    `conftest.py`)."""
    if request.param == "sqlite":
        return {}
    urls = {"store": request.getfixturevalue("falkordb_graph_url")}
    if request.param == "falkordb+postgres":
        urls["checkpoints"] = request.getfixturevalue("postgres_database_url")
    return urls


@pytest.fixture
def make(tmp_path: Path, backend: dict[str, str]) -> Iterator[Any]:
    made: list[GraphHarness] = []

    def build(replies: dict[str, list[Any]] | None = None, **settings: Any) -> GraphHarness:
        made.append(GraphHarness(tmp_path / f"home{len(made)}", replies, **backend, **settings))
        return made[-1]

    yield build
    for harness in made:
        harness.close()


def test_approve_commits_entities_and_relationships_with_provenance(make: Any) -> None:
    h = make({"extract_graph": [QUIJOTE_CALLS]})
    cid = h.add_content("Don Quijote", QUIJOTE)
    run = h.graph_runs.start(cid, packs=["story"])
    assert run.status == "awaiting_review" and run.run_id.startswith("graph-")
    report = run.report or {}
    assert report["counts"]["entities_new"] == 5
    assert report["counts"]["relationships"] == 3
    assert report["dropped"] == []
    assert report["usage"]["calls"] == 1 and report["usage"]["input_tokens"] > 0
    assert h.entities() == []  # nothing is written before the reader approves

    done = h.graph_runs.answer(run.run_id, "approve")
    assert done.status == "committed"
    store = h.services.store
    quijote = store.get_entities([entity_id("Person", "don quijote")])[0]
    assert quijote.properties == {"born": 1547, "fictional": True}
    assert quijote.pack == "story"
    provenance = quijote.provenance
    assert provenance["run"] == run.run_id and provenance["pack_version"] == "3"
    assert provenance["llm_calls"] == ["extract_graph#r0b1"]
    assert provenance["passages"]  # the passages that name him
    knows = store.relations(quijote.id, relation_type="KNOWS")
    assert len(knows) == 1 and knows[0].properties["description"] == "Sancho es su escudero."
    assert knows[0].properties["pack"] == "story" and knows[0].properties["run"] == run.run_id
    # Symmetric and reverse types are written both ways by the store.
    sancho = entity_id("Person", "Sancho Panza")
    assert [r.target_id for r in store.relations(sancho, relation_type="KNOWS")] == [quijote.id]
    book = entity_id("Work", "Don Quijote de la Mancha")
    assert store.relations(book, relation_type="WRITTEN_BY")
    assert broken_edges(store, STORY_SCHEMA) == []
    assert done.committed["relationships"] == 3 and len(done.committed["entities_new"]) == 5


def test_feedback_extracts_again_with_the_readers_note(make: Any) -> None:
    seen: list[str] = []

    def reply(prompt: str) -> dict[str, Any]:
        seen.append(prompt)
        if "Añade al autor" in prompt:
            return QUIJOTE_CALLS
        return calls(entity("Don Quijote", "Person"))

    h = make({"extract_graph": [reply]})
    cid = h.add_content("Don Quijote", QUIJOTE)
    run = h.graph_runs.start(cid, packs=["story"])
    assert (run.report or {})["counts"]["entities_new"] == 1
    again = h.graph_runs.answer(run.run_id, "feedback", "Añade al autor y a Sancho")
    assert again.status == "awaiting_review"
    report = again.report or {}
    assert report["counts"]["entities_new"] == 5 and report["feedback_rounds"] == 1
    assert report["usage"]["calls"] == 2
    assert "Añade al autor y a Sancho" in seen[-1]
    done = h.graph_runs.answer(run.run_id, "approve")
    assert done.status == "committed" and len(h.entities()) == 5


def test_a_feedback_round_that_reads_nothing_keeps_the_proposal(make: Any) -> None:
    answers = [QUIJOTE_CALLS, "no es JSON", "tampoco"]  # the round's answer and its repair
    h = make({"extract_graph": answers})
    run = h.graph_runs.start(h.add_content("Don Quijote", QUIJOTE), packs=["story"])
    again = h.graph_runs.answer(run.run_id, "feedback", "Solo personas")
    assert again.status == "awaiting_review"
    assert (again.report or {})["counts"] == (run.report or {})["counts"]
    assert any("feedback round 1 failed" in w for w in again.warnings)
    assert h.graph_runs.answer(run.run_id, "approve").status == "committed"


def test_abort_writes_nothing(make: Any) -> None:
    h = make({"extract_graph": [QUIJOTE_CALLS]})
    cid = h.add_content("Don Quijote", QUIJOTE)
    run = h.graph_runs.start(cid, packs=["story"])
    done = h.graph_runs.answer(run.run_id, "abort")
    assert done.status == "aborted"
    assert h.entities() == []
    # The content is free for another graph run, and the run is listed as aborted.
    assert [r.status for r in h.graph_runs.list()] == ["aborted"]


FAULTS = calls(
    entity("Don Quijote", "Person", born="hacia 1547", height=180),
    entity("Sancho Panza", "Person", aliases="Sancho"),
    entity("La Mancha", "Place"),
    entity("Rocinante", "Horse"),  # a type no pack defines
    entity("Dulcinea", "Person"),  # no passage names her
    entity("  ", "Person"),
    relationship("Don Quijote", "KNOWS", "Dulcinea del Toboso"),  # invented name
    relationship("La Mancha", "KNOWS", "Sancho Panza"),  # wrong endpoint types
    relationship("Don Quijote", "RIDES", "Rocinante"),  # unknown relationship type
    relationship("Don Quijote", "KNOWS", "", source_id="e1", target_id="e42"),  # missing id
    relationship("Sancho Panza", "KNOWS", "Rocinante"),  # endpoint dropped in phase A
    relationship("Don Quijote", "KNOWS", "Don Quijote"),  # itself
    relationship("Sancho", "LIVED_IN", "La Mancha"),  # by alias: kept
    relationship("don  quijote", "knows", "SANCHO PANZA"),  # folded names and type: kept
)


def test_faults_are_dropped_and_reported_never_persisted(make: Any) -> None:
    h = make({"extract_graph": [FAULTS]})
    cid = h.add_content("Don Quijote", QUIJOTE)
    run = h.graph_runs.start(cid, packs=["story"])
    report = run.report or {}
    assert report["dropped_by_reason"] == {
        "bad_property_value": 1,
        "unknown_property": 1,
        "unknown_entity_type": 1,
        "not_in_passages": 1,
        "empty_name": 1,
        "unresolved_name": 1,
        "wrong_endpoint_types": 1,
        "unknown_relationship_type": 1,
        "unknown_id": 1,
        "dropped_endpoint": 1,
        "self_relationship": 1,
    }
    messages = "\n".join(d["message"] for d in report["dropped"])
    for named in (
        "'Horse'",
        "'Dulcinea'",
        "Dulcinea del Toboso",
        "RIDES",
        "'e42'",
        "height",
        "Rocinante",
    ):
        assert named in messages
    # Each drop is also a warning the reader sees.
    assert all(d["message"] in run.warnings for d in report["dropped"])
    kept = {(r["source"], r["type"], r["target"]) for r in report["relationships"]}
    assert kept == {
        ("Sancho Panza", "LIVED_IN", "La Mancha"),
        ("Don Quijote", "KNOWS", "Sancho Panza"),
    }
    h.graph_runs.answer(run.run_id, "approve")
    assert broken_edges(h.services.store, STORY_SCHEMA) == []
    assert sorted(e.name for e in h.entities()) == ["Don Quijote", "La Mancha", "Sancho Panza"]
    quijote = h.services.store.get_entities([entity_id("Person", "Don Quijote")])[0]
    assert quijote.properties == {}  # "hacia 1547" is no year; height is no property


def test_a_second_run_reuses_the_entities_of_the_store(make: Any) -> None:
    first = calls(
        entity("Sancho Panza", "Person", "El fiel escudero de don Quijote, natural de la Mancha"),
        entity("La Mancha", "Place", "Región de Castilla."),
        entity("Miguel de Cervantes", "Person", "Autor."),
        relationship("Sancho Panza", "LIVED_IN", "La Mancha"),
    )

    def second(prompt: str) -> dict[str, Any]:
        # The known entities are shown with short ids; the id of Sancho is looked up.
        line = next(x for x in prompt.splitlines() if "Sancho Panza (Person)" in x)
        sancho = line.split("]")[0].lstrip("[")
        return calls(
            entity("SANCHO  PANZA", "Person", "Escudero."),  # the same by folded name
            # The same by embedding (the bag-of-words fake embedder): another name.
            entity("Panza", "Person", "El fiel escudero de don Quijote, natural de la Mancha"),
            entity("Teresa Panza", "Person", "Mujer de Sancho."),
            relationship("", "KNOWS", "Teresa Panza", source_id=sancho),
            relationship("Sancho Panza", "LIVED_IN", "La Mancha"),  # already in the graph
            # In the graph, but not named by these passages: not what they state.
            relationship("Teresa Panza", "KNOWS", "Miguel de Cervantes"),
        )

    h = make({"extract_graph": [first, second]})
    one = h.add_content("Don Quijote", QUIJOTE)
    run = h.graph_runs.start(one, packs=["story"])
    h.graph_runs.answer(run.run_id, "approve")
    two = h.add_content("Segunda parte", ["Teresa Panza, mujer de Sancho, espera en la Mancha."])
    again = h.graph_runs.start(two, packs=["story"])
    report = again.report or {}
    by_name = {e["name"]: e for e in report["entities"]}
    assert by_name["Sancho Panza"]["status"] == "existing"
    assert by_name["Sancho Panza"]["matched_by"] == "name"
    assert set(by_name["Sancho Panza"]["names"]) >= {"SANCHO PANZA", "Panza"}
    assert by_name["Teresa Panza"]["status"] == "new"
    assert report["already_stored"] == ["Sancho Panza LIVED_IN La Mancha"]
    assert report["dropped_by_reason"] == {"not_in_passages": 1}
    assert "'Miguel de Cervantes' is in the graph" in report["dropped"][0]["message"]
    h.graph_runs.answer(again.run_id, "approve")
    people = sorted(e.name for e in h.entities() if e.entity_type == "Person")
    assert people == ["Miguel de Cervantes", "Sancho Panza", "Teresa Panza"]
    sancho = h.services.store.get_entities([entity_id("Person", "Sancho Panza")])[0]
    assert sancho.provenance["runs"] == [run.run_id, again.run_id]
    assert sancho.description.startswith("El fiel escudero")  # the stored one is kept
    assert broken_edges(h.services.store, STORY_SCHEMA) == []


def test_embedding_match_to_a_stored_entity_of_the_same_type(make: Any) -> None:
    description = "El fiel escudero de don Quijote, natural de la Mancha"
    h = make(
        {
            "extract_graph": [
                calls(entity("Sancho Panza", "Person", description)),
                calls(entity("Panza", "Person", description), entity("Panza", "Place", "Un sitio")),
            ]
        }
    )
    run = h.graph_runs.start(h.add_content("Uno", QUIJOTE), packs=["story"])
    h.graph_runs.answer(run.run_id, "approve")
    again = h.graph_runs.start(h.add_content("Dos", ["Panza volvió."]), packs=["story"])
    matched = {(e["name"], e["type"]): e for e in (again.report or {})["entities"]}
    assert matched[("Sancho Panza", "Person")]["matched_by"].startswith("embedding")
    assert matched[("Panza", "Place")]["status"] == "new"  # another type is another entity


def test_content_without_passages_ends_without_calls(make: Any) -> None:
    h = make()
    cid = h.add_content("Vacío", [])
    run = h.graph_runs.start(cid, packs=["story"])
    assert run.status == "no_passages"
    assert "has no passages" in " ".join(run.warnings)
    assert h.llm.calls == 0
    # A finished run does not hold the content.
    assert h.graph_runs.open_run_of(cid) is None


def test_unknown_pack_is_refused_before_the_run_starts(make: Any) -> None:
    h = make()
    cid = h.add_content("Don Quijote", QUIJOTE)
    with pytest.raises(RunError, match="no pack named 'narativa'; the packs are story"):
        h.graph_runs.start(cid, packs=["narativa"])
    assert h.graph_runs.list() == []


def test_one_open_graph_run_per_content_beside_a_concept_run(make: Any) -> None:
    h = make({"extract_graph": [QUIJOTE_CALLS]})
    cid = h.add_content("Don Quijote", QUIJOTE)
    concept_run = h.runs.start(cid)
    run = h.graph_runs.start(cid, packs=["story"])
    assert concept_run.status == "awaiting_review" and run.status == "awaiting_review"
    with pytest.raises(RunError, match=f"already has an open run {run.run_id}"):
        h.graph_runs.start(cid, packs=["story"])
    # Each workflow lists its own runs only.
    assert [r.run_id for r in h.runs.list()] == [concept_run.run_id]
    assert [r.run_id for r in h.graph_runs.list()] == [run.run_id]
    with pytest.raises(RunError, match="no run"):
        h.runs.view(run.run_id)


def test_bound_tools_give_the_same_proposal_and_reject_bad_calls(make: Any) -> None:
    script = calls(
        *QUIJOTE_CALLS["calls"],
        {"tool": "extract_relationship", "args": "Sancho KNOWS Quijote"},  # not an object
        {"tool": "extract_horse", "args": {"name": "Rocinante"}},  # no such tool
    )
    h = make({"extract_graph": [script]}, tools=True)
    run = h.graph_runs.start(h.add_content("Don Quijote", QUIJOTE), packs=["story"])
    report = run.report or {}
    assert report["usage"]["modes"] == {"tools": 1}
    assert report["counts"]["entities_new"] == 5 and report["counts"]["relationships"] == 3
    assert report["dropped_by_reason"] == {"invalid_call": 2}
    assert "extract_horse" in " ".join(d["message"] for d in report["dropped"])
    h.graph_runs.answer(run.run_id, "approve")
    assert broken_edges(h.services.store, STORY_SCHEMA) == []


@pytest.mark.parametrize("tools", [False, True], ids=["json", "tools"])
def test_unscripted_fake_answers_run_end_to_end(make: Any, tools: bool) -> None:
    """Answers the fake builds from the requested schema (or the tools' parameters) are
    valid: the run reaches the review, and whatever it keeps is sound."""
    h = make(tools=tools, extraction_batch_size=2)
    run = h.graph_runs.start(h.add_content("Don Quijote", QUIJOTE), packs=["story"])
    assert run.status == "awaiting_review"
    report = run.report or {}
    assert report["usage"]["calls"] == 2
    # Every call the fake made is either in the proposal or dropped with a reason.
    counts = report["counts"]
    assert counts["entities_new"] + counts["relationships"] + counts["dropped"] >= 2
    done = h.graph_runs.answer(run.run_id, "approve")
    assert done.status == "committed"
    assert broken_edges(h.services.store, STORY_SCHEMA) == []


def test_commit_checks_relationships_against_the_packs_again(make: Any) -> None:
    """A pack edited while the run waited for review: what it no longer allows is dropped."""
    current = {"story": STORY_SCHEMA}
    h = make({"extract_graph": [QUIJOTE_CALLS]})
    h.graph_runs = GraphRuns(
        h.services, h.graph_runs.checkpointer, packs=lambda names: current["story"]
    )
    run = h.graph_runs.start(h.add_content("Don Quijote", QUIJOTE), packs=["story"])
    lived_in = STORY_SCHEMA.relationship_types["LIVED_IN"]
    current["story"] = STORY_SCHEMA.model_copy(
        update={
            "relationship_types": {
                **STORY_SCHEMA.relationship_types,
                "LIVED_IN": lived_in.model_copy(update={"target_types": ("Work",)}),
            }
        }
    )
    done = h.graph_runs.answer(run.run_id, "approve")
    assert done.committed["relationships"] == 2
    assert any("no longer allow" in w for w in done.warnings)
    assert broken_edges(h.services.store, current["story"]) == []


def test_replaying_the_commit_writes_the_same_graph(make: Any) -> None:
    h = make({"extract_graph": [QUIJOTE_CALLS]})
    run = h.graph_runs.start(h.add_content("Don Quijote", QUIJOTE), packs=["story"])
    h.graph_runs.answer(run.run_id, "approve")
    store = h.services.store
    before = ({e.id: e for e in h.entities()}, store.relations(None))
    values = h.graph_runs.graph.get_state(h.graph_runs._config(run.run_id)).values
    nodes_commit.commit(values, h.services, story_packs)  # as after a crash before the checkpoint
    after = ({e.id: e for e in h.entities()}, store.relations(None))
    assert after[0].keys() == before[0].keys()
    assert [e.provenance["runs"] for e in after[0].values()] == [[run.run_id]] * 5
    assert [r.key for r in after[1]] == [r.key for r in before[1]]


def test_the_shipped_narrative_pack_through_the_loader(make: Any) -> None:
    """The packs as files: the store opened with the active packs accepts narrative's types."""
    h = make(packs=None, extraction_batch_size=2)
    from zettelgraph.packs.loader import active_schema

    schema = active_schema(h.settings, ["narrative"])
    run = h.graph_runs.start(h.add_content("Don Quijote", QUIJOTE), packs=["narrative"])
    assert run.status == "awaiting_review"
    version = schema.packs[0].version
    assert (run.report or {})["packs"] == [{"name": "narrative", "version": version}]
    h.graph_runs.answer(run.run_id, "approve")
    assert broken_edges(h.services.store, schema) == []
    with pytest.raises(RunError, match="no entity types to extract"):
        h.graph_runs.start(h.add_content("Otro", QUIJOTE[:1]), packs=["zettelkasten"])


def test_item_decisions_write_exactly_the_kept_entities_and_relationships(make: Any) -> None:
    from zettelgraph.services.review import ReviewError, decide, decisions_from

    h = make({"extract_graph": [QUIJOTE_CALLS]})
    run = h.graph_runs.start(h.add_content("Don Quijote", QUIJOTE), packs=["story"])
    report = run.report or {}
    keys = {e["name"]: e["key"] for e in report["entities"]}
    relationships = {r["type"]: r["key"] for r in report["relationships"]}
    with pytest.raises(ReviewError, match="no type 'KNOWS' from Person to Place"):
        decide(
            h.graph_runs,
            run.run_id,
            decisions_from({"retype": {relationships["LIVED_IN"]: "KNOWS"}}),
        )
    with pytest.raises(ReviewError, match="kept, dropped or retyped"):
        decide(h.graph_runs, run.run_id, decisions_from({"merge": {keys["La Mancha"]: "n1"}}))
    view = decide(
        h.graph_runs,
        run.run_id,
        decisions_from({"drop": [keys["La Mancha"], relationships["KNOWS"]], "keep": ["n1"]}),
    )
    summary = (view.report or {})["review"]
    assert summary["writes"] == {"entities": 4, "relationships": 1}
    assert any(
        "LIVED_IN" in line and "entities was dropped" in line for line in summary["left_out"]
    )
    done = h.graph_runs.answer(run.run_id, "approve")
    names = sorted(e.name for e in h.entities())
    assert "La Mancha" not in names and len(names) == 4
    store = h.services.store
    quijote = entity_id("Person", "don quijote")
    assert store.relations(quijote, relation_type="KNOWS") == []
    assert store.relations(
        entity_id("Work", "Don Quijote de la Mancha"), relation_type="WRITTEN_BY"
    )
    assert len(done.committed["left_out"]) == 3
    assert broken_edges(store, STORY_SCHEMA) == []


def test_a_graph_commit_writes_the_concept_notes_a_failed_write_left_unwritten(
    make: Any,
) -> None:
    """Issue 31: a concept run's notes could not be written (a file where the ideas folder
    goes); once fixed, the next graph commit, which opens the vault too, writes them."""
    from harness import QUOTES

    from zettelgraph.vault.writer import IDEAS_DIR

    h = make({"extract_graph": [QUIJOTE_CALLS]})
    ideas = h.settings.vault_path / IDEAS_DIR
    ideas.parent.mkdir(parents=True, exist_ok=True)
    if ideas.is_dir():
        ideas.rmdir()
    ideas.write_text("not a folder", encoding="utf-8")
    run = h.runs.start(h.add_content("El árbol de la ciencia", QUOTES[:2]))
    concepts = h.runs.answer(run.run_id, "approve").committed or {}
    pending = concepts["concepts"]
    assert pending and concepts["vault_errors"]
    ideas.unlink()

    graph = h.graph_runs.start(h.add_content("Don Quijote", QUIJOTE), packs=["story"])
    done = h.graph_runs.answer(graph.run_id, "approve")

    assert done.status == "committed" and done.committed is not None
    assert sorted(done.committed["notes_repaired"]) == sorted(pending)
    assert not any(c.vault_sync_pending for c in h.services.store.list_concepts())
    assert len(list(ideas.glob("*.md"))) == len(pending)
