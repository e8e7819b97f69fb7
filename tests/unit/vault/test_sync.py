"""Vault sync against a real SQLite store and real files: drift, repair, edits kept, errors."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from zettelgraph.models import ChangeSet, Concept, Content, Person, Quote, Relation
from zettelgraph.packs.relations import AUTHORED_BY, QUOTED_IN, SUPPORTS
from zettelgraph.store import GraphStore, open_store
from zettelgraph.vault.notes import LinkedConcept, SourceQuote, note_state, parse_note
from zettelgraph.vault.sync import note_for, sync_vault, touched_concepts
from zettelgraph.vault.writer import IDEAS_DIR, Vault

T0 = datetime(2024, 5, 1, tzinfo=UTC)
A, B, C, D = "concept-a", "concept-b", "concept-c", "concept-d"


def concept(concept_id: str, title: str, minutes: int, **fields: object) -> Concept:
    return Concept(
        id=concept_id,
        title=title,
        concept=f"Qué es {title.lower()}.",
        analysis=f"Análisis de {title.lower()}.",
        summary_short=f"{title} en breve.",
        summary=f"{title}: resumen.",
        vault_sync_pending=True,
        created_at=T0 + timedelta(minutes=minutes),
        **fields,
    )


def rel(source: str, kind: str, target: str) -> Relation:
    return Relation(source_id=source, target_id=target, type=kind, created_at=T0)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GraphStore]:
    graph = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    book = Content(id="book", title="Corre o muere")
    graph.apply(
        ChangeSet(
            contents=[book],
            persons=[Person(id="kilian", name="Kilian Jornet")],
            quotes=[
                Quote(id="q2", content_id="book", text="Segunda cita.", position=2),
                Quote(id="q1", content_id="book", text="Primera cita.", position=1, page="12"),
            ],
            concepts=[
                concept(A, "Entrenamiento aeróbico", 1),
                concept(B, "Carrera continua", 2),
                concept(C, "Sedentarismo", 3),
            ],
            relations=[
                rel("book", AUTHORED_BY, "kilian"),
                rel("q1", QUOTED_IN, "book"),
                rel("q2", QUOTED_IN, "book"),
                rel(A, "GENERALIZES", B),
                rel(A, "OPPOSES", C),
                rel("q2", SUPPORTS, A),
                rel("q1", SUPPORTS, A),
                rel("q2", SUPPORTS, B),
            ],
        )
    )
    yield graph
    graph.close()


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return Vault(tmp_path / "vault")


def ideas(vault: Vault) -> Path:
    return vault.root / IDEAS_DIR


def pending(store: GraphStore) -> dict[str, bool]:
    return {c.id: c.vault_sync_pending for c in store.list_concepts()}


def test_note_for_reads_relations_both_ways_and_sources(store: GraphStore) -> None:
    note = note_for(store, A)
    assert note.relations == {
        "GENERALIZES": [LinkedConcept(B, "Carrera continua")],
        "OPPOSES": [LinkedConcept(C, "Sedentarismo")],
    }
    assert note.sources == [
        SourceQuote(
            "q1", "Primera cita.", "Corre o muere", "Kilian Jornet", "12", None, "book", "kilian"
        ),
        SourceQuote(
            "q2", "Segunda cita.", "Corre o muere", "Kilian Jornet", None, None, "book", "kilian"
        ),
    ]
    # The automatic reverses are edges too, so the other notes show them.
    assert note_for(store, B).relations == {
        "SPECIFIC_OF": [LinkedConcept(A, "Entrenamiento aeróbico")]
    }
    assert note_for(store, C).relations == {"OPPOSES": [LinkedConcept(A, "Entrenamiento aeróbico")]}
    with pytest.raises(LookupError):
        note_for(store, "nope")


def test_check_reports_missing_notes_and_writes_nothing(
    store: GraphStore, vault: Vault, tmp_path: Path
) -> None:
    before = sorted(tmp_path.rglob("*"))
    report = sync_vault(store, vault, check=True)
    # The book the concepts cite and its author get a note each.
    assert [(d.get("concept_id", d.get("entity_id")), d["reason"]) for d in report.drift] == [
        (A, "missing"),
        (B, "missing"),
        (C, "missing"),
        ("book", "missing"),
        ("kilian", "missing"),
    ]
    assert report.drift[1]["path"] == str(ideas(vault) / "Carrera continua.md")
    assert report.written == report.updated == [] and report.errors == []
    assert sorted(tmp_path.rglob("*")) == before
    assert pending(store) == {A: True, B: True, C: True}


def test_sync_writes_every_note_clears_the_flags_and_then_has_nothing_to_do(
    store: GraphStore, vault: Vault, tmp_path: Path
) -> None:
    report = sync_vault(store, vault)
    assert report.written == [A, B, C, "book", "kilian"] and report.errors == [] and report.ok
    assert pending(store) == {A: False, B: False, C: False}
    text = (ideas(vault) / "Entrenamiento aeróbico.md").read_text(encoding="utf-8")
    assert "- GENERALIZES: [[Carrera continua]]\n" in text
    assert "- OPPOSES: [[Sedentarismo]]\n" in text
    book, author = "06 - Sources/Corre o muere", "07 - Authors/Kilian Jornet"
    assert (
        f"> Primera cita.\n\n— *[[{book}|Corre o muere]]*, [[{author}|Kilian Jornet]], p. 12\n"
        in text
    )
    assert parse_note(text)[0]["generalizes"] == ["[[Carrera continua]]"]
    other = (ideas(vault) / "Carrera continua.md").read_text(encoding="utf-8")
    assert "- SPECIFIC_OF: [[Entrenamiento aeróbico]]\n" in other
    # Only the vault and the store were touched.
    outside = {p for p in tmp_path.rglob("*") if p.is_file() and vault.root not in p.parents}
    assert {p.name for p in outside} <= {"g.db", "g.db-wal", "g.db-shm"}

    again = sync_vault(store, Vault(vault.root))
    assert (again.written, again.updated, again.drift, again.unchanged) == ([], [], [], 5)
    assert sync_vault(store, Vault(vault.root), check=True).drift == []


def test_a_persons_edits_survive_a_new_relation(store: GraphStore, vault: Vault) -> None:
    sync_vault(store, vault)
    path = ideas(vault) / "Entrenamiento aeróbico.md"
    edited = (
        path.read_text(encoding="utf-8")
        .replace("---\nentity_id", "---\nrating: 5\nentity_id", 1)
        .replace("Análisis de entrenamiento aeróbico.\n", "Mi propia lectura: ¡sí!\n\nOtra idea.\n")
    ) + "\n## Pendiente\n- releer\n"
    path.write_text(edited, encoding="utf-8")
    # A person's edits outside the owned parts are not drift.
    assert sync_vault(store, Vault(vault.root), check=True).drift == []

    store.apply(
        ChangeSet(
            concepts=[concept(D, "Corazón de atleta", 4)],
            relations=[rel(A, "SIMILAR_TO", D)],
        )
    )
    report = sync_vault(store, Vault(vault.root))
    assert report.written == [D] and report.updated == [A] and report.unchanged == 4
    updated = path.read_text(encoding="utf-8")
    assert "- SIMILAR_TO: [[Corazón de atleta]]\n" in updated
    assert parse_note(updated)[0]["similar_to"] == ["[[Corazón de atleta]]"]
    assert parse_note(updated)[0]["rating"] == 5
    old_body, new_body = parse_note(edited)[1], parse_note(updated)[1]
    assert new_body.split("## Conexiones")[0] == old_body.split("## Conexiones")[0]
    assert new_body.split("## Fuente")[1] == old_body.split("## Fuente")[1]
    assert "- SIMILAR_TO: [[Entrenamiento aeróbico]]\n" in (
        ideas(vault) / "Corazón de atleta.md"
    ).read_text(encoding="utf-8")


def test_drift_in_owned_parts_is_reported_and_repaired(store: GraphStore, vault: Vault) -> None:
    sync_vault(store, vault)
    a = ideas(vault) / "Entrenamiento aeróbico.md"
    b = ideas(vault) / "Carrera continua.md"
    a.write_text(a.read_text(encoding="utf-8").replace("resumen.", "otra cosa."), encoding="utf-8")
    line = "- SPECIFIC_OF: [[Entrenamiento aeróbico]]"
    b.write_text(b.read_text(encoding="utf-8").replace(line, "- SPECIFIC_OF:"), "utf-8")
    check = sync_vault(store, Vault(vault.root), check=True)
    assert [(d["concept_id"], d["reason"]) for d in check.drift] == [
        (A, "front matter differs"),
        (B, "connections differ"),
    ]
    report = sync_vault(store, Vault(vault.root))
    assert report.updated == [A, B]
    assert sync_vault(store, Vault(vault.root), check=True).drift == []


def test_a_blocked_note_is_reported_keeps_its_flag_and_the_others_are_written(
    store: GraphStore, vault: Vault
) -> None:
    blocker = ideas(vault) / "Carrera continua.md"
    blocker.mkdir(parents=True)
    report = sync_vault(store, vault)
    assert [e["concept_id"] for e in report.errors] == [B] and not report.ok
    error = report.errors[0]
    assert error["path"] == str(blocker)
    assert error["error"].split(":")[0] in {
        "IsADirectoryError",
        "PermissionError",
        "FileExistsError",
    }
    assert report.written == [A, C, "book", "kilian"]
    assert pending(store) == {A: False, B: True, C: False}
    assert (ideas(vault) / "Sedentarismo.md").is_file()

    blocker.rmdir()
    retry = sync_vault(store, Vault(vault.root))
    assert retry.written == [B] and retry.errors == []
    assert pending(store)[B] is False


def test_a_pending_flag_on_a_correct_note_is_cleared_without_rewriting(
    store: GraphStore, vault: Vault
) -> None:
    sync_vault(store, vault)
    stored = store.get_concept(C)
    assert stored is not None
    store.apply(ChangeSet(concepts=[stored.model_copy(update={"vault_sync_pending": True})]))
    path = ideas(vault) / "Sedentarismo.md"
    inode = path.stat().st_ino
    report = sync_vault(store, Vault(vault.root))
    assert [(d["concept_id"], d["reason"]) for d in report.drift] == [(C, "pending")]
    assert report.written == report.updated == [] and report.unchanged == 5
    assert path.stat().st_ino == inode
    assert pending(store)[C] is False


def test_only_the_given_concepts_are_synced(store: GraphStore, vault: Vault) -> None:
    report = sync_vault(store, vault, concept_ids=[B, "missing-id", B])
    assert report.written == [B]
    assert report.errors == [
        {
            "kind": "concept note",
            "concept_id": "missing-id",
            "title": None,
            "path": None,
            "error": "no such concept in the store",
        }
    ]
    assert pending(store) == {A: True, B: False, C: True}
    assert [p.name for p in ideas(vault).iterdir()] == ["Carrera continua.md"]
    # The notes of its book and author are written on the way (reported by a whole sync).
    assert (vault.root / "06 - Sources" / "Corre o muere.md").is_file()
    assert (vault.root / "07 - Authors" / "Kilian Jornet.md").is_file()


def test_same_titles_get_distinct_files_oldest_first(store: GraphStore, vault: Vault) -> None:
    store.apply(ChangeSet(concepts=[concept(D, "Sedentarismo", 0)]))  # older than C
    sync_vault(store, vault)
    assert note_state((ideas(vault) / "Sedentarismo.md").read_text("utf-8"))["entity_id"] == D
    text = (ideas(vault) / "Sedentarismo (2).md").read_text("utf-8")
    assert note_state(text)["entity_id"] == C
    assert "- OPPOSES: [[Sedentarismo (2)]]\n" in (
        ideas(vault) / "Entrenamiento aeróbico.md"
    ).read_text(encoding="utf-8")


def test_touched_concepts_include_both_ends_of_new_relations(store: GraphStore) -> None:
    changes = ChangeSet(
        concepts=[concept(D, "Nuevo", 5)],
        relations=[rel(D, "PART_OF", C), rel("q1", SUPPORTS, D)],
    )
    assert touched_concepts(store, changes) == [D, C]


def test_sync_writes_files_named_for_the_concept_only_inside_the_vault(
    store: GraphStore, vault: Vault, tmp_path: Path
) -> None:
    store.apply(ChangeSet(concepts=[concept(D, "../../../fuera", 5)]))
    report = sync_vault(store, vault, concept_ids=[D])
    assert report.written == [D]
    assert (ideas(vault) / "fuera.md").is_file()
    assert not (tmp_path.parent / "fuera.md").exists()
