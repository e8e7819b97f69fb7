"""Entity notes on disk: a real SQLite store (tests/entity_graph.py) and real files. Typed front
matter, wikilinks, passages, updates that find the note by entity_id, safe names, atomic
writes, and `vault sync` covering them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from entity_graph import SCHEMA, EntityGraph, entity, entity_graph
from zettelgraph.models import ChangeSet, Relation
from zettelgraph.vault.entities import (
    ENTITY_FOLDER,
    entity_folder,
    entity_note_for,
    sync_entity_notes,
    touched_entities,
    write_entity_notes,
)
from zettelgraph.vault.entity_notes import (
    EntityNote,
    LinkedEntity,
    render_entity_note,
    typed_value,
    update_entity_note,
)
from zettelgraph.vault.notes import parse_note
from zettelgraph.vault.sync import sync_vault
from zettelgraph.vault.writer import Vault

NARRATIVE = "09 - narrative"


@pytest.fixture
def graph(tmp_path: Path) -> Iterator[EntityGraph]:
    built = entity_graph(tmp_path / "g.db")
    yield built
    built.store.close()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "vault"


def files_under(path: Path) -> set[Path]:
    return {p for p in path.rglob("*") if p.is_file()}


def note_of(root: Path, entity_id: str, folder: str = NARRATIVE) -> Path:
    found = Vault(root, folder=folder).find_note(entity_id)
    assert found is not None, f"no note of {entity_id}"
    return found


def test_every_entity_gets_a_note_in_its_packs_folder(graph: EntityGraph, root: Path) -> None:
    report = write_entity_notes(graph.store, root, SCHEMA)

    assert report.ok, report.errors
    assert len(report.written) == 8 and report.updated == []
    assert entity_folder("narrative") == NARRATIVE == ENTITY_FOLDER.format(pack="narrative")
    assert (root / NARRATIVE / "Gabriel Araceli.md").is_file()
    assert (root / NARRATIVE / "Cádiz.md").is_file()
    assert (root / "09 - research" / "La guerra es cruel.md").is_file()
    # Written again: nothing changes, nothing is rewritten.
    again = write_entity_notes(graph.store, root, SCHEMA)
    assert (again.written, again.updated, again.unchanged) == ([], [], 8)


def test_front_matter_is_typed(graph: EntityGraph, root: Path) -> None:
    write_entity_notes(graph.store, root, SCHEMA)

    text = note_of(root, graph.gabriel.id).read_text(encoding="utf-8")
    front, _ = parse_note(text)
    assert front["entity_id"] == graph.gabriel.id
    assert (front["entity_type"], front["pack"], front["name"]) == (
        "Person",
        "narrative",
        "Gabriel Araceli",
    )
    # A date is an ISO date (unquoted, so Obsidian shows a date), a list a YAML list, text
    # digits an integer, "true" a boolean; a property named like an owned key is prefixed.
    assert front["born"] == date(1791, 3, 1) and "\nborn: 1791-03-01\n" in text
    assert front["aliases"] == ["Gabrielillo", "el narrador"]
    assert "\naliases:\n- Gabrielillo\n- el narrador\n" in text
    assert front["age"] == 14 and front["fictional"] is True
    assert front["property_name"] == "Gabriel"
    # Every type a Person may have, empty ones too; targets by name ("<" sorts first).
    assert front["entity_relations"] == {
        "KNOWS": [graph.hostile.id, graph.marcial.id],
        "WROTE": [],
        "INSPIRED": [graph.novel.id],
    }

    place, _ = parse_note(note_of(root, graph.cadiz.id).read_text(encoding="utf-8"))
    assert place["population"] == 70000 and place["latitude"] == 36.53
    assert place["entity_relations"] == {"LOCATED_IN": [], "LOCATION_OF": [graph.battle.id]}


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("date", "1805-10-21", date(1805, 10, 21)),
        ("date", "1805-10-21T00:00:00", date(1805, 10, 21)),
        ("date", "1808", "1808"),  # a year alone stays text
        ("list", "solo", ["solo"]),
        ("integer", 3.0, 3),
        ("integer", "doce", "doce"),
        ("number", "2.5", 2.5),
        ("number", 7, 7),
        ("boolean", "no", False),
        ("string", 12, 12),
    ],
)
def test_property_values_follow_their_type(kind: str, value: object, expected: object) -> None:
    assert typed_value(kind, value) == expected  # type: ignore[arg-type]


def test_relationships_are_wikilinks_grouped_by_type(graph: EntityGraph, root: Path) -> None:
    write_entity_notes(graph.store, root, SCHEMA)

    text = note_of(root, graph.battle.id).read_text(encoding="utf-8")
    assert "## Conexiones\n- LOCATED_IN: [[09 - narrative/Cádiz|Cádiz]]\n" in text
    novel = note_of(root, graph.novel.id).read_text(encoding="utf-8")
    assert "- WRITTEN_BY: [[09 - narrative/Benito Pérez Galdós|Benito Pérez Galdós]]" in novel
    # Links use the other note's file name, which here is not its entity's name.
    gabriel = note_of(root, graph.gabriel.id).read_text(encoding="utf-8")
    hostile_note = note_of(root, graph.hostile.id)
    assert f"[[09 - narrative/{hostile_note.stem}|" in gabriel
    assert "[[09 - narrative/Marcial|Marcial]]" in gabriel


def test_passages_show_text_book_and_place(graph: EntityGraph, root: Path) -> None:
    write_entity_notes(graph.store, root, SCHEMA)

    text = note_of(root, graph.gabriel.id).read_text(encoding="utf-8")
    passages = text.split("## Pasajes\n", 1)[1]
    # One from the provenance, one from a passage's relation, in reading order.
    assert passages.index("> Me llamo Gabriel Araceli") < passages.index("> Marcial me contó")
    assert "— *Trafalgar*, Benito Pérez Galdós, p. 12" in passages
    assert "— *Trafalgar*, Benito Pérez Galdós, p. 30" in passages
    description = text.split("## Descripción\n", 1)[1].split("## Conexiones", 1)[0]
    # A heading in generated text cannot split the note's sections.
    assert "### No es un título" in description


def test_an_update_finds_a_renamed_note_and_keeps_the_persons_text(
    graph: EntityGraph, root: Path
) -> None:
    write_entity_notes(graph.store, root, SCHEMA)
    path = note_of(root, graph.cadiz.id)
    moved = root / NARRATIVE / "Lugares" / "Mi Cádiz.md"
    moved.parent.mkdir()
    text = path.read_text(encoding="utf-8").replace("---\n", "---\ntags: [viaje]\n", 1)
    moved.write_text(text + "\n## Mis notas\nVisitada en 2019.\n", encoding="utf-8")
    path.unlink()

    sevilla = entity("Sevilla", "Place", 20)
    graph.store.apply(
        ChangeSet(
            entities=[sevilla, graph.cadiz.model_copy(update={"properties": {"population": 1}})],
            relations=[Relation(source_id=graph.cadiz.id, target_id=sevilla.id, type="LOCATED_IN")],
        )
    )
    report = write_entity_notes(graph.store, root, SCHEMA, [graph.cadiz.id, sevilla.id])

    assert report.ok and report.updated == [graph.cadiz.id] and report.written == [sevilla.id]
    assert not path.exists()
    updated = moved.read_text(encoding="utf-8")
    front, _ = parse_note(updated)
    assert front["tags"] == ["viaje"] and front["population"] == 1
    assert "latitude" not in front  # a value the store no longer has is removed
    assert "- LOCATED_IN: [[09 - narrative/Sevilla|Sevilla]]" in updated
    assert updated.endswith("## Mis notas\nVisitada en 2019.\n")


def test_a_hostile_name_stays_inside_the_vault(graph: EntityGraph, root: Path) -> None:
    write_entity_notes(graph.store, root, SCHEMA)

    path = note_of(root, graph.hostile.id)
    assert path.parent == root / NARRATIVE
    outside = [p for p in files_under(root.parent) if not p.resolve().is_relative_to(root)]
    assert [p.name for p in outside if not p.name.startswith("g.db")] == []
    assert path.name == "script alert(1) script .. .. etc passwd.md"
    front, _ = parse_note(path.read_text(encoding="utf-8"))
    assert front["name"] == graph.hostile.name


def test_a_hostile_folder_setting_is_refused(graph: EntityGraph, root: Path) -> None:
    report = write_entity_notes(
        graph.store, root, SCHEMA, [graph.gabriel.id], folders={"narrative": "../fuera"}
    )

    assert not report.ok and "relative folder" in report.errors[0]["error"]
    assert not (root.parent / "fuera").exists()
    with pytest.raises(ValueError):
        entity_folder("narrative", {"narrative": "/etc"})
    assert entity_folder("narrative", {"narrative": "Personas/Novela"}) == "Personas/Novela"


def test_writes_are_atomic(graph: EntityGraph, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_entity_notes(graph.store, root, SCHEMA)
    path = note_of(root, graph.marcial.id)
    before = path.read_bytes()
    graph.store.apply(
        ChangeSet(entities=[graph.marcial.model_copy(update={"description": "Otro texto."})])
    )

    def crash(self: Path, target: Path) -> Path:
        raise OSError("disk full")

    monkeypatch.setattr(Path, "replace", crash)
    report = write_entity_notes(graph.store, root, SCHEMA, [graph.marcial.id])

    assert [e["entity_id"] for e in report.errors] == [graph.marcial.id]
    assert "disk full" in report.errors[0]["error"]
    assert path.read_bytes() == before  # the old note whole, never half of the new one
    assert [p for p in files_under(root) if p.name.startswith(".")] == []


def test_ids_that_are_not_entities_are_skipped(graph: EntityGraph, root: Path) -> None:
    changes = ChangeSet(relations=[Relation(source_id="q1", target_id=graph.cadiz.id, type="X")])
    assert touched_entities(changes) == ["q1", graph.cadiz.id]
    report = write_entity_notes(graph.store, root, SCHEMA, touched_entities(changes))
    assert report.ok and report.written == [graph.cadiz.id]


def test_update_is_idempotent_and_keeps_crlf(graph: EntityGraph) -> None:
    note = entity_note_for(graph.store, graph.gabriel, SCHEMA)
    text = render_entity_note(note, SCHEMA)
    assert update_entity_note(text, note, SCHEMA) == text
    crlf = text.replace("\n", "\r\n")
    assert update_entity_note(crlf, note, SCHEMA) == crlf


def test_one_way_relationships_pointing_here_are_listed(graph: EntityGraph, root: Path) -> None:
    write_entity_notes(graph.store, root, SCHEMA)

    # INSPIRED has no reverse: the work's note shows who points at it, its front matter not.
    novel = note_of(root, graph.novel.id).read_text(encoding="utf-8")
    assert "- ← INSPIRED: [[09 - narrative/Gabriel Araceli|Gabriel Araceli]]\n" in novel
    assert parse_note(novel)[0]["entity_relations"] == {"WRITTEN_BY": [graph.galdos.id]}
    gabriel = note_of(root, graph.gabriel.id).read_text(encoding="utf-8")
    assert "- INSPIRED: [[09 - narrative/Trafalgar|Trafalgar]]\n" in gabriel
    assert "←" not in gabriel
    # Rendering alone: a link whose note is not known yet uses the name.
    lone = EntityNote(
        entity=entity("Nelson", "Person", 1),
        relations={"KNOWS": [LinkedEntity("x", "Collingwood [RN]")]},
        incoming={},
        passages=[],
    )
    assert "- KNOWS: [[Collingwood RN]]\n" in render_entity_note(lone, SCHEMA)


def test_vault_sync_checks_and_repairs_entity_notes(graph: EntityGraph, root: Path) -> None:
    vault = Vault(root)
    checked = sync_vault(graph.store, vault, check=True, schema=SCHEMA)
    assert len(checked.drift) == 8 and checked.written == [] and not root.exists()

    synced = sync_vault(graph.store, vault, schema=SCHEMA)
    assert synced.ok and len(synced.written) == 8
    note_of(root, graph.battle.id).write_text("---\nentity_id: x\n---\n", encoding="utf-8")
    path = note_of(root, graph.cadiz.id)
    path.write_text(path.read_text(encoding="utf-8").replace("LOCATION_OF", "X"), "utf-8")

    again = sync_entity_notes(graph.store, root, SCHEMA, check=True)
    reasons = {d["entity_id"]: d["reason"] for d in again.drift}
    assert reasons == {graph.battle.id: "missing", graph.cadiz.id: "note differs"}
    repaired = sync_vault(graph.store, Vault(root), schema=SCHEMA)
    assert repaired.ok and repaired.updated == [graph.cadiz.id]
    assert repaired.written == [graph.battle.id]
    # Without the schema, sync stays what it was: concept notes only.
    assert sync_vault(graph.store, Vault(root)).drift == []
