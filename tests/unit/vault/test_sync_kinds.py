"""`vault sync`'s card files and experiment notes, by the vault functions: what `check` reports
(and leaves as it is), and that a repair is the file the normal writer writes. A real SQLite
store (tests/card_graph.py) and real folders."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from card_graph import CardGraph, card_graph
from zettelgraph.models import ItemStatus
from zettelgraph.vault.cards import CARDS_DIR, sync_card_files, write_card_files
from zettelgraph.vault.experiments import (
    ATTACHMENTS_DIR,
    EXPERIMENTS_DIR,
    ExperimentNote,
    sync_experiment_notes,
    write_experiment_note,
)
from zettelgraph.vault.report import KINDS, NotesReport
from zettelgraph.vault.writer import Vault

TEMP = ".zettelgraph-999999999-0123456789abcdef.tmp"  # of a process that no longer runs
NOTE = ExperimentNote(
    "exp-1", "honra (temporal, exp-1)", "# honra\n\n![frecuencia](frequency.png)\n", {}
)


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_card_files_check_names_missing_and_stale_files_and_sync_writes_what_approval_does(
    tmp_path: Path,
) -> None:
    (tmp_path / "store").mkdir()
    graph = card_graph(tmp_path / "store")
    with closing(graph.store):
        card_files_repaired(graph, Vault(tmp_path / "vault"))


def card_files_repaired(graph: CardGraph, vault: Vault) -> None:
    write_card_files(graph.store, vault)
    folder = vault.root / CARDS_DIR
    walden = (folder / "Walden.md").read_bytes()
    (folder / "Walden.md").unlink()  # approved in the store, its file never written
    graph.change("spark", status=ItemStatus.DROPPED)  # dropped, its file not yet removed
    (folder / TEMP).write_text("half a card file", encoding="utf-8")
    before = files(folder)

    checked = sync_card_files(graph.store, Vault(vault.root), check=True)
    reasons = {d["title"]: (d["kind"], d["reason"]) for d in checked.drift}
    assert reasons == {
        "Walden": ("card file", "missing"),
        "Spark": ("card file", "no approved cards"),
    }
    assert checked.temp_files == [{"kind": "card file", "path": str(folder / TEMP)}]
    assert (checked.written, checked.removed) == ([], [])
    assert files(folder) == before  # a check writes and removes nothing

    synced = sync_card_files(graph.store, Vault(vault.root))
    assert synced.written == [graph.walden.id] and synced.removed == [graph.spark.id]
    assert files(folder) == {"Walden.md": walden}
    again = sync_card_files(graph.store, Vault(vault.root), check=True)
    assert (again.drift, again.temp_files, again.unchanged) == ([], [], 1)


def test_an_experiment_note_is_written_back_as_the_report_wrote_it(tmp_path: Path) -> None:
    note = ExperimentNote(NOTE.experiment_id, NOTE.title, NOTE.markdown, {"frequency.png": b"P"})
    written = write_experiment_note(
        tmp_path / "first", note.experiment_id, note.title, note.markdown, note.attachments
    )
    report = sync_experiment_notes(tmp_path / "second", [note])
    assert report.written == ["exp-1"] and report.drift[0]["reason"] == "missing"
    folder = tmp_path / "second" / EXPERIMENTS_DIR
    assert files(folder) == files(written.parent)
    assert files(folder / ATTACHMENTS_DIR) == {"exp-1-frequency.png": b"P"}
    assert sync_experiment_notes(tmp_path / "second", [note], check=True).drift == []


def test_a_note_whose_report_is_gone_is_left_as_it_is(tmp_path: Path) -> None:
    path = write_experiment_note(tmp_path, "exp-1", NOTE.title, NOTE.markdown, {})
    path.write_text(path.read_text("utf-8") + "Mis notas.\n", encoding="utf-8")
    lost = ExperimentNote("exp-1", NOTE.title, None, {})
    kept = sync_experiment_notes(tmp_path, [lost])
    assert (kept.drift, kept.errors, kept.unchanged) == ([], [], 1)
    assert path.read_text("utf-8").endswith("Mis notas.\n")  # the only copy left stays

    path.unlink()  # nothing left to write it from: nothing to report either
    gone = sync_experiment_notes(tmp_path, [lost], check=True)
    assert (gone.drift, gone.errors, gone.written) == ([], [], [])
    assert not path.exists()


def test_the_report_counts_each_kind_apart() -> None:
    report = NotesReport(
        drift=[
            {"kind": "card file", "path": "Cards/Walden.md", "reason": "missing"},
            {"kind": "concept note", "path": "08 - Ideas/A.md", "reason": "missing"},
            {"kind": "card file", "path": "Cards/Spark.md", "reason": "file differs"},
        ],
        temp_files=[{"kind": "experiment note", "path": f"10 - Experiments/{TEMP}"}],
    )
    kinds = report.by_kind()
    assert list(kinds) == list(KINDS)
    assert kinds["card file"] == {
        "drift": 2,
        "temp_files": 0,
        "errors": 0,
        "paths": ["Cards/Walden.md", "Cards/Spark.md"],
    }
    assert kinds["experiment note"]["temp_files"] == 1
    assert kinds["entity note"] == {"drift": 0, "temp_files": 0, "errors": 0, "paths": []}
