"""Notes after the reader's corrections: an edited concept's note shows its new text (only the
parts edited, the reader's own text elsewhere kept), says who wrote it and lists the earlier
versions; the note of a removed concept goes to the vault's `.trash/`, and `vault sync`
repairs both when the write after the commit failed. Real SQLite store, real files."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from zettelgraph.models import ChangeSet, Concept, Relation, Removal, removal_id
from zettelgraph.models.revisions import revised
from zettelgraph.store import GraphStore, open_store
from zettelgraph.vault.notes import (
    ConceptNote,
    SourceQuote,
    note_state,
    parse_note,
    render_concept_note,
    update_concept_note,
    without_sources,
)
from zettelgraph.vault.sync import sync_vault
from zettelgraph.vault.trash import TRASH_DIR, discard_note
from zettelgraph.vault.writer import IDEAS_DIR, Vault

REVIEWED = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
EDITED = datetime(2026, 4, 2, 18, 30, tzinfo=UTC)


def proposed(**fields: object) -> Concept:
    values: dict[str, object] = {
        "id": "concept-a",
        "title": "Vivir deliberadamente",
        "concept": "Vivir con intención cada día.",
        "analysis": "",
        "summary": "Vivir con intención cada día.",
        "summary_short": "Vivir con intención.",
        "provenance": {"model": "ollama:qwen3:8b"},
    }
    values.update(fields)
    return Concept(**values)  # type: ignore[arg-type]


def note_of(concept: Concept) -> ConceptNote:
    return ConceptNote(concept=concept, relations={}, sources=[])


def test_an_edited_concepts_note_says_who_wrote_it_and_lists_earlier_texts() -> None:
    # Edited in the review (the model's text kept), then again after the commit.
    in_review = revised(
        proposed(), title="Vivir con intención", at=REVIEWED, where="review"
    ).model_copy(update={"vault_sync_pending": True})
    edited = revised(
        in_review, statement="Elegir cada día en qué se va la vida.", at=EDITED, where="graph"
    )
    text = render_concept_note(note_of(edited))
    front, body = parse_note(text)
    assert (front["edited_by"], front["edited"], front["earlier_versions"]) == (
        "reader",
        date(2026, 4, 2),
        2,
    )
    # The summaries follow the statement; one equal to the other is written once.
    assert (
        front["summary"] == "Elegir cada día en qué se va la vida." and "short_summary" not in front
    )
    assert body.startswith("# Vivir con intención\n")
    assert body.endswith(
        "## Versiones anteriores\n"
        "1. **Vivir deliberadamente** (texto del modelo; reemplazado en la revisión, 2026-03-01)\n"
        "   Vivir con intención cada día.\n"
        "2. **Vivir con intención** (tu texto; reemplazado después de aprobarlo, 2026-04-02)\n"
        "   Vivir con intención cada día.\n"
    )
    # An unedited concept's note has neither the keys nor the section.
    plain = render_concept_note(note_of(proposed()))
    assert "edited_by" not in plain and "Versiones anteriores" not in plain


def test_an_update_rewrites_only_the_parts_edited_since_the_note_was_written() -> None:
    before = proposed(analysis="Del modelo.")
    mine = (
        render_concept_note(note_of(before))
        .replace("Del modelo.\n", "Del modelo.\n\nMi propia nota.\n")
        .replace("# Vivir deliberadamente\n", "# Vivir deliberadamente (mi título)\n")
    )
    edited = revised(before, statement="Elegir en qué se va la vida.", at=EDITED, where="graph")

    updated = update_concept_note(mine, note_of(edited))

    body = parse_note(updated)[1]
    assert "## Concepto\nElegir en qué se va la vida.\n\n## Análisis" in body
    # The analysis and the title were not edited in zettelgraph: the reader's text stays.
    assert "Del modelo.\n\nMi propia nota.\n" in body
    assert body.startswith("# Vivir deliberadamente (mi título)\n")
    assert "1. **Vivir deliberadamente** (texto del modelo;" in body
    assert update_concept_note(updated, note_of(edited)) == updated
    assert note_state(updated) == note_state(render_concept_note(note_of(edited)))

    retitled = revised(edited, title="Elegir la vida", at=EDITED, where="graph")
    again = update_concept_note(updated, note_of(retitled))
    assert parse_note(again)[1].startswith("# Elegir la vida\n")
    assert "Mi propia nota." in again and "Elegir en qué se va la vida." in again


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GraphStore]:
    graph = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    a, b = proposed(vault_sync_pending=True), proposed(id="concept-b", title="Simplicidad")
    graph.apply(
        ChangeSet(
            concepts=[a, b],
            relations=[Relation(source_id=a.id, target_id=b.id, type="SIMILAR_TO")],
        )
    )
    yield graph
    graph.close()


def test_sync_repairs_the_note_of_an_edit_whose_note_was_not_written(
    store: GraphStore, tmp_path: Path
) -> None:
    vault = Vault(tmp_path / "vault")
    sync_vault(store, vault)
    concept = store.get_concept("concept-a")
    assert concept is not None
    edited = revised(concept, statement="Otra idea.", at=EDITED, where="graph")
    # The edit committed with its flag, and the process died before writing the note.
    store.apply(ChangeSet(concepts=[edited.model_copy(update={"vault_sync_pending": True})]))

    check = sync_vault(store, vault, check=True)
    assert [(d["concept_id"], d["reason"]) for d in check.drift] == [("concept-a", "text edited")]
    report = sync_vault(store, vault)

    assert report.updated == ["concept-a"]
    text = (vault.root / IDEAS_DIR / "Vivir deliberadamente.md").read_text(encoding="utf-8")
    assert "## Concepto\nOtra idea.\n" in text and "earlier_versions: 1" in text
    assert sync_vault(store, vault, check=True).drift == []


def test_a_removed_concepts_note_goes_to_the_trash_now_or_at_the_next_sync(
    store: GraphStore, tmp_path: Path
) -> None:
    vault = Vault(tmp_path / "vault")
    sync_vault(store, vault)
    note = vault.root / IDEAS_DIR / "Vivir deliberadamente.md"
    # A file of the reader's with the same name but no entity_id is never taken.
    mine = vault.root / IDEAS_DIR / "Simplicidad (mía).md"
    mine.write_text("# Simplicidad\nMis notas.\n", encoding="utf-8")

    moved = discard_note(vault, "concept-a")
    assert moved == vault.root / TRASH_DIR / "Vivir deliberadamente.md"
    assert not note.exists() and moved.read_text(encoding="utf-8").startswith("---\nentity_id")
    assert discard_note(vault, "concept-a") is None

    # Written again (concept-a is still in the store); then concept-b is removed in the
    # store and its note not moved (say, the folder was read-only then).
    sync_vault(store, vault)
    at = datetime(2026, 5, 1, tzinfo=UTC)
    store.apply(
        ChangeSet(
            delete_ids=["concept-b"],
            removals=[
                Removal(
                    id=removal_id("concept", "concept-b", at),
                    created_at=at,
                    kind="concept",
                    title="Simplicidad",
                    subject_id="concept-b",
                    by="reader",
                    concepts={"concept-b": "Simplicidad"},
                )
            ],
        )
    )
    check = sync_vault(store, vault, check=True)
    assert [(d["concept_id"], d["reason"]) for d in check.drift] == [
        ("concept-a", "front matter differs"),  # its SIMILAR_TO went with concept-b
        ("concept-b", "removed"),
    ]
    assert (vault.root / IDEAS_DIR / "Simplicidad.md").exists()

    report = sync_vault(store, vault)

    assert report.removed == ["concept-b"] and report.errors == []
    assert (vault.root / TRASH_DIR / "Simplicidad.md").exists()
    assert mine.exists()
    assert sync_vault(store, vault, check=True).drift == []


def test_a_removed_books_quotes_leave_fuente_only_as_zettelgraph_wrote_them() -> None:
    walden, spark, cape = (
        SourceQuote(f"q{n}", text, book, None, str(n))
        for n, (text, book) in enumerate(
            [("Simplifica.", "Walden"), ("Muévete.", "Spark"), ("El mar.", "Cape Cod")], 1
        )
    )
    note = ConceptNote(concept=proposed(), relations={}, sources=[walden, spark, cape])
    text = render_concept_note(note)
    mine = text.replace("> El mar.", "> El mar (lo subrayé dos veces).")

    kept = without_sources(mine, [walden, cape])

    fuente = kept.split("## Fuente\n")[1]
    assert fuente.startswith("> Muévete.\n\n— *Spark*, p. 2\n\n> El mar (lo subrayé")
    assert "Simplifica" not in kept
    assert without_sources(kept, [walden, cape]) == kept
    assert without_sources(text, [spark]).split("## Fuente\n")[1].count("— *") == 2
