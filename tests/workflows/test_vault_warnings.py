"""What a commit's vault step tells the reader about notes it could not write: one line per note,
naming it, and how to repair them (issue 29: both workflows word it in one place)."""

from __future__ import annotations

from typing import Any

from harness import QUOTES, Harness, MakeHarness

from zettelgraph.vault.writer import IDEAS_DIR
from zettelgraph.workflows.concept_extraction.nodes_commit import write_vault
from zettelgraph.workflows.concept_extraction.state import Committed


def test_a_note_that_cannot_be_written_is_named_by_its_id_when_it_has_no_title(
    harness: Harness,
) -> None:
    # A committed id the store no longer holds: its error entry has an id and no title.
    committed = Committed(concepts=["missing-id"], touched_existing=[])
    out = write_vault({"committed": committed}, harness.services)
    assert out["committed"]["vault_errors"] == ["missing-id: no such concept in the store"]
    assert out["warnings"] == ["1 notes not written: run `zettelgraph vault sync` to repair"]


def _approve(harness: Harness, title: str, quotes: list[str]) -> dict[str, Any]:
    run = harness.runs.start(harness.add_content(title, quotes))
    done = harness.runs.answer(run.run_id, "approve")
    assert done.status == "committed" and done.committed is not None
    return done.committed


def test_the_next_commit_writes_the_notes_a_failed_write_left_unwritten(
    make_harness: MakeHarness,
) -> None:
    """Issue 31: a vault write fails (a file where the ideas folder goes, which stops root
    too), then the folder is fixed; the next approval writes the notes left behind, says so,
    and clears their flag, without `vault sync`."""
    harness = make_harness()
    ideas = harness.settings.vault_path / IDEAS_DIR
    ideas.parent.mkdir(parents=True, exist_ok=True)
    if ideas.is_dir():
        ideas.rmdir()
    ideas.write_text("not a folder", encoding="utf-8")

    first = _approve(harness, "El árbol de la ciencia", QUOTES[:2])
    assert first["concepts"] and first["vault_errors"] and not first["notes_written"]
    store = harness.services.store
    assert all(c.vault_sync_pending for c in store.get_concepts(first["concepts"]))

    ideas.unlink()  # the reader fixes the folder
    second = _approve(harness, "Camino de perfección", QUOTES[2:])

    assert sorted(second["notes_repaired"]) == sorted(first["concepts"])
    assert second["vault_errors"] == []
    assert not any(c.vault_sync_pending for c in store.list_concepts())
    notes = list(ideas.glob("*.md"))
    assert len(notes) == len(first["concepts"]) + len(second["concepts"])


def _pending_after_a_failed_write(harness: Harness) -> tuple[list[str], list[str]]:
    """One approval whose notes are written (its concepts), then one whose notes cannot be
    (a file where the ideas folder goes) and are left flagged; the folder is then fixed."""
    written = _approve(harness, "El árbol de la ciencia", QUOTES[:1])["concepts"]
    written += _approve(harness, "Camino de perfección", QUOTES[2:])["concepts"]
    ideas = harness.settings.vault_path / IDEAS_DIR
    for note in ideas.glob("*.md"):
        note.unlink()
    ideas.rmdir()
    ideas.write_text("not a folder", encoding="utf-8")
    pending = _approve(harness, "La voluntad", QUOTES[1:2])["concepts"]
    assert pending and all(
        c.vault_sync_pending for c in harness.services.store.get_concepts(pending)
    )
    ideas.unlink()
    return written, pending


def test_a_concept_edit_writes_the_notes_a_failed_write_left_unwritten(
    make_harness: MakeHarness,
) -> None:
    """Issue 31: not only a run's commit repairs the vault; a correction does too."""
    from zettelgraph.services.concept_edits import edit_concept

    harness = make_harness()
    written, pending = _pending_after_a_failed_write(harness)

    result = edit_concept(harness.services, written[0], title="La ciencia como instrumento")

    assert result.notes is not None
    assert sorted(result.notes.notes_repaired) == sorted(pending)
    assert result.notes.as_dict()["notes_repaired"] == result.notes.notes_repaired
    assert not any(c.vault_sync_pending for c in harness.services.store.list_concepts())
    # The edited concept's note and the repaired ones (the folder was emptied to break it).
    notes = list((harness.settings.vault_path / IDEAS_DIR).glob("*.md"))
    assert len(notes) == 1 + len(pending)


def test_a_link_writes_the_notes_a_failed_write_left_unwritten(
    make_harness: MakeHarness,
) -> None:
    from zettelgraph.services.links import link_concepts

    harness = make_harness()
    written, pending = _pending_after_a_failed_write(harness)
    assert len(set(written)) >= 2

    result = link_concepts(harness.services, written[0], written[-1], "SIMILAR_TO", "Dudan.")

    assert result.vault_errors == []
    assert sorted(result.notes_repaired) == sorted(pending)
    assert result.as_dict()["notes_repaired"] == result.notes_repaired
    assert not any(c.vault_sync_pending for c in harness.services.store.list_concepts())
