"""`vault sync` over every kind of file zettelgraph keeps in the vault: concept, book, author
and entity notes, card files, experiment notes and their charts. A home built once through the
real CLI on the fake LLM (a real SQLite store, real checkpoints, a real vault folder), copied
per test; each test takes files away or changes them as a kill or an editor would, then checks
that `--check` names them by kind and exits 1, and that `vault sync` puts back exactly the
bytes the normal command wrote."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from experiment_books import add_books
from zettelgraph.cli.app import app
from zettelgraph.context import open_services
from zettelgraph.models import ChangeSet, ItemStatus
from zettelgraph.services.cards import list_items
from zettelgraph.settings import Settings
from zettelgraph.vault.cards import CARDS_DIR
from zettelgraph.vault.experiments import ATTACHMENTS_DIR, EXPERIMENTS_DIR
from zettelgraph.vault.writer import AUTHORS_DIR, IDEAS_DIR, SOURCES_DIR

REPO = Path(__file__).resolve().parents[2]
ENTITIES_DIR = "09 - narrative"
TEMP = ".zettelgraph-999999999-0123456789abcdef.tmp"  # of a process that no longer runs


def cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


def ok(home: Path, *args: str) -> Any:
    result = cli(home, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with a file of every kind in its vault: a book's concepts (with its book and
    author notes), its narrative entities, its approved cards, and a completed experiment
    with its charts."""
    home = tmp_path_factory.mktemp("vault-sync") / "home"
    with pytest.MonkeyPatch.context() as env:
        for name in [n for n in os.environ if n.startswith("ZETTELGRAPH_")]:
            env.delenv(name)
        content = ok(home, "ingest", str(REPO / "examples" / "don_quijote.md"))["contents"][0]
        run = ok(home, "extract", content["id"])
        assert ok(home, "review", run["run_id"], "--approve")["status"] == "committed"
        graph = ok(home, "graph-extract", content["id"], "--pack", "narrative")
        assert ok(home, "review", graph["run_id"], "--approve")["status"] == "committed"
        assert ok(home, "cards", "generate")["proposed"]
        assert ok(home, "cards", "approve", "--all")
        settings = Settings(home=home, llm="fake", embeddings="hash")
        services = open_services(settings)
        try:
            books = add_books(services)
        finally:
            services.close()
        contents = [arg for book in books for arg in ("--contents", book)]
        started = ok(home, "experiment", "new", "--type", "temporal", "--term", "honra", *contents)
        done = ok(home, "experiment", "review", started["id"], "--approve")
        assert done["status"] == "completed" and "frequency.png" in done["charts"]
    return home


@pytest.fixture
def home(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in [n for n in os.environ if n.startswith("ZETTELGRAPH_")]:
        monkeypatch.delenv(name)
    copy = tmp_path / "home"
    shutil.copytree(built, copy)
    return copy


def vault_bytes(home: Path) -> dict[str, bytes]:
    root = home / "vault"
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def one(home: Path, folder: str, pattern: str = "*.md") -> Path:
    found = sorted((home / "vault" / folder).glob(pattern))
    assert found, f"nothing in {folder}"
    return found[0]


def check(home: Path) -> dict[str, Any]:
    result = cli(home, "vault", "sync", "--check", "--json")
    assert result.exit_code == 1, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def repair(home: Path) -> None:
    assert cli(home, "vault", "sync").exit_code == 0
    clean = cli(home, "vault", "sync", "--check")
    assert clean.exit_code == 0, clean.output


def test_a_missing_file_of_each_kind_is_named_by_kind_and_written_back_the_same(
    home: Path,
) -> None:
    before = vault_bytes(home)
    gone = {
        "concept note": one(home, IDEAS_DIR),
        "book note": one(home, SOURCES_DIR),
        "author note": one(home, AUTHORS_DIR),
        "entity note": one(home, ENTITIES_DIR),
        "card file": one(home, CARDS_DIR),
        "experiment note": one(home, EXPERIMENTS_DIR),
    }
    for path in gone.values():
        path.unlink()
    for folder in (IDEAS_DIR, SOURCES_DIR, CARDS_DIR, f"{EXPERIMENTS_DIR}/{ATTACHMENTS_DIR}"):
        (home / "vault" / folder / TEMP).write_text("half a file", encoding="utf-8")

    report = check(home)
    for kind, path in gone.items():
        found = report["kinds"][kind]
        assert found["drift"] >= 1 and str(path) in found["paths"], (kind, found)
    drift = {(d["kind"], d["path"]): d["reason"] for d in report["drift"]}
    assert drift[("card file", str(gone["card file"]))] == "missing"
    assert drift[("experiment note", str(gone["experiment note"]))] == "missing"
    temps = {t["kind"] for t in report["temp_files"]}
    assert temps == {"concept note", "book note", "card file", "experiment note"}
    text = cli(home, "vault", "sync", "--check")
    assert text.exit_code == 1
    for kind in gone:
        assert f"  {kind}s: " in text.stdout
    assert f"{CARDS_DIR}/{gone['card file'].name}" in text.stdout

    repair(home)
    assert vault_bytes(home) == before


def test_an_edited_card_file_experiment_note_and_entity_note_are_put_back(home: Path) -> None:
    before = vault_bytes(home)
    cards, experiment = one(home, CARDS_DIR), one(home, EXPERIMENTS_DIR)
    # The reader's own line in the file, whatever kind of card the fake model's answers made.
    cards.write_text(cards.read_text("utf-8") + "\nMi respuesta\n", "utf-8")
    experiment.write_text(experiment.read_text("utf-8") + "\nAñadido a mano.\n", "utf-8")
    chart = one(home, f"{EXPERIMENTS_DIR}/{ATTACHMENTS_DIR}", "*.png")
    chart.write_bytes(b"not a picture")
    entity = one(home, ENTITIES_DIR)
    text = entity.read_text("utf-8")
    entity.write_text(text.replace("## Descripción\n", "## Descripción\nOtra cosa.\n"), "utf-8")

    report = check(home)
    reasons = {d["kind"]: d["reason"] for d in report["drift"]}
    assert reasons == {
        "card file": "file differs",
        "experiment note": "note differs",
        "entity note": "note differs",
    }
    assert report["kinds"]["card file"]["paths"] == [str(cards)]
    repair(home)
    assert vault_bytes(home) == before


def test_a_chart_lost_alone_is_drift_of_its_experiment_note(home: Path) -> None:
    before = vault_bytes(home)
    one(home, f"{EXPERIMENTS_DIR}/{ATTACHMENTS_DIR}", "*.png").unlink()
    report = check(home)
    assert [(d["kind"], d["reason"]) for d in report["drift"]] == [
        ("experiment note", "chart missing or differs")
    ]
    repair(home)
    assert vault_bytes(home) == before


def test_cards_dropped_in_the_store_alone_are_written_as_the_drop_writes_them(
    home: Path, tmp_path: Path
) -> None:
    dropped = tmp_path / "dropped"
    shutil.copytree(home, dropped)
    settings = Settings(home=home, llm="fake", embeddings="hash")
    services = open_services(settings)
    try:
        approved = [i for i in list_items(services.store) if i.status == ItemStatus.APPROVED]
        first = approved[0]
        # What a `cards drop` killed after its store write leaves: the file still has the card.
        services.store.apply(
            ChangeSet(learning_items=[first.model_copy(update={"status": ItemStatus.DROPPED})])
        )
    finally:
        services.close()
    assert cli(dropped, "cards", "drop", first.id).exit_code == 0

    report = check(home)
    # The file keeps the other approved cards; with none left, it should be gone (how many the
    # fake model's answers leave approved depends on its prompts).
    reason = "file differs" if len(approved) > 1 else "no approved cards"
    assert [(d["kind"], d["reason"]) for d in report["drift"]] == [("card file", reason)]
    repair(home)

    def card_files(at: Path) -> dict[str, bytes]:
        return {k: v for k, v in vault_bytes(at).items() if k.startswith(f"{CARDS_DIR}/")}

    assert card_files(home) == card_files(dropped)


def test_a_note_that_cannot_be_written_is_named_by_its_path(home: Path) -> None:
    """Before, the report printed the error's whole record as a Python dict."""
    note = one(home, IDEAS_DIR)
    note.unlink()
    note.mkdir()
    (note / "kept.md").write_text("a folder the reader made", encoding="utf-8")

    result = cli(home, "vault", "sync")
    assert result.exit_code == 1
    shown = f"{IDEAS_DIR}/{note.name}"
    [line] = [line for line in result.output.splitlines() if "error:" in line]
    assert line.startswith(f"  error: {shown}: ") and "{" not in line


@pytest.mark.parametrize("server", ["serve", "mcp"])
def test_a_server_writes_the_notes_a_failed_commit_left_unwritten_and_says_so(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31: a commit whose notes could not be written (a file where the ideas folder
    goes) leaves its concepts flagged; once the folder is fixed, `serve` and `mcp` write them
    before they listen and say how many (`mcp` on stderr: stdout is its protocol), so no
    `vault sync` is needed."""
    import uvicorn

    from zettelgraph.mcp_server import server as mcp_server

    for name in [n for n in os.environ if n.startswith("ZETTELGRAPH_")]:
        monkeypatch.delenv(name)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    monkeypatch.setattr(mcp_server, "serve_stdio", lambda server: None)
    home = tmp_path / "home"
    content = ok(home, "ingest", str(REPO / "examples" / "don_quijote.md"))["contents"][0]
    run = ok(home, "extract", content["id"])
    ideas = home / "vault" / IDEAS_DIR
    ideas.parent.mkdir(parents=True, exist_ok=True)
    if ideas.is_dir():
        shutil.rmtree(ideas)
    ideas.write_text("not a folder", encoding="utf-8")
    committed = ok(home, "review", run["run_id"], "--approve")
    assert committed["status"] == "committed" and committed["committed"]["vault_errors"]
    ideas.unlink()

    served = cli(home, *(["serve", "--port", "8799"] if server == "serve" else ["mcp"]))

    assert served.exit_code == 0, served.output
    written = len(committed["committed"]["concepts"])
    notes = f"{written} note{'s' if written > 1 else ''}"
    said = f"vault: also wrote {notes} an earlier write had left unwritten"
    assert said in (served.stdout if server == "serve" else served.stderr)
    assert "vault:" not in (served.stdout if server == "mcp" else served.stderr)
    assert len(list(ideas.glob("*.md"))) == written
    services = open_services(Settings(home=home, llm="fake", embeddings="hash"))
    try:
        assert not any(c.vault_sync_pending for c in services.store.list_concepts())
    finally:
        services.close()
