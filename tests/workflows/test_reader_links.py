"""A run never changes a relation between two existing concepts: a link the reader adds
between existing concepts is theirs; a later extraction run that commits new concepts (and
relations from them) leaves every relation between the concepts that were already there
exactly as it was."""

from __future__ import annotations

from harness import QUOTES, Harness

from link_graph import make_graph
from zettelgraph.services.links import link_concepts


def test_a_run_leaves_the_readers_links_and_every_old_relation_alone(harness: Harness) -> None:
    concepts = make_graph(harness.services)
    old = {c.id for c in concepts.values()}
    store = harness.services.store
    link_concepts(
        harness.services,
        concepts["deliberate"].id,
        concepts["exercise"].id,
        "SUPPORTS",
        "Moverse sostiene una vida deliberada.",
    )

    def between_old() -> list[tuple[str, str, str, dict[str, object]]]:
        return sorted(
            (r.source_id, r.type, r.target_id, r.properties)
            for r in store.relations()
            if r.source_id in old and r.target_id in old
        )

    before = between_old()
    assert any(p.get("provenance") == "reader" for *_, p in before)

    view = harness.runs.start(harness.add_content("Ciencia y voluntad", QUOTES))
    done = harness.runs.answer(view.run_id, "approve")

    assert done.status == "committed"
    assert done.committed["concepts"], "the run must have written something to compare with"
    assert between_old() == before
