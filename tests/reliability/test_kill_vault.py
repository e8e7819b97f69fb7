"""SIGKILL during `cards approve --all`, after the store has the approvals and before or while
the card files are written; then `vault sync --check` must report the card files that are
missing (exit 1), `vault sync` must write them, and the vault must equal an uninterrupted
approval's, byte for byte, on each backend.

The points: right after the store write (no card file written yet), and in the middle of the
first or the second card file's write (its temporary file written and synced, not renamed).
Two books, so a kill at the second file leaves one book's file written and the other's not.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from reliability.conftest import QUOTES, Home, ingest, notes_file
from reliability.kills import Point, killed

POINTS = [("stored", 1), ("card_write", 1), ("card_write", 2)]
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

# Dies when the approval has written the store and is about to write the card files.
AT_CARD_FILES = Point("zettelgraph.services.cards:refresh_vault")


def cards_proposed(home: Home) -> None:
    """Two books extracted and approved, their cards generated and waiting for approval."""
    folder = home.path.parent / f"{home.path.name}-notes"
    second = folder / "segundo.md"
    body = "\n\n".join(QUOTES[3:])
    notes = notes_file(folder, 3)
    second.write_text(
        f"---\ntitle: Segundo libro\nauthor: Otro Autor\n---\n\n# Citas\n\n{body}\n",
        encoding="utf-8",
    )
    for path in (notes, second):
        view = home.json("extract", ingest(home, path))
        assert home.json("review", view["run_id"], "--approve")["status"] == "committed"
    generated = home.json("cards", "generate")
    assert generated["proposed"], generated


def vault_files(home: Home) -> dict[str, str]:
    """Every file of the vault, with each node id replaced by what a reader knows it by (its
    title, name or text): two homes that did the same on the fake model have the same vault,
    though their runs gave the concepts different ids."""
    names = home.names()
    root = home.path / "vault"
    return {
        path.relative_to(root).as_posix(): UUID.sub(
            lambda m: f"<{names.get(m[0], '?')}>", path.read_text(encoding="utf-8")
        )
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@cache
def reference(tmp: Path) -> dict[str, str]:
    """The vault after an uninterrupted approval (SQLite: the vault does not depend on the
    backend)."""
    home = Home(tmp / "reference", None)
    cards_proposed(home)
    assert home.cli("cards", "approve", "--all").exit_code == 0
    return vault_files(home)


@pytest.mark.parametrize(("point", "nth"), POINTS)
def test_a_kill_while_approving_cards_is_repaired_by_vault_sync(
    make_home: Any, point: str, nth: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    home: Home = make_home("home")
    cards_proposed(home)
    # A card file's write: its temporary file in Cards/ written and synced, not renamed.
    card_write = Point("pathlib:Path.replace", nth=nth, only="Cards/.zettelgraph-")
    killed(home, ["cards", "approve", "--all"], AT_CARD_FILES if point == "stored" else card_write)
    expected = reference(tmp_path_factory.getbasetemp() / "kill-cards-reference")
    books = sorted(name for name in expected if name.startswith("Cards/"))
    assert len(books) == 2, books
    # The approvals are in the store: approving again has nothing to do.
    assert home.json("cards", "list", "--status", "proposed") == []

    check = home.cli("vault", "sync", "--check", "--json")
    assert check.exit_code == 1, check.output
    found = json.loads(check.stdout)
    missing = books[nth - 1 :] if point == "card_write" else books
    drifted = found["kinds"]["card file"]["paths"]
    assert sorted(Path(p).relative_to(home.path / "vault").as_posix() for p in drifted) == missing
    assert all(d["reason"] == "missing" for d in found["drift"] if d["kind"] == "card file")
    temps = [t for t in found["temp_files"] if t["kind"] == "card file"]
    assert len(temps) == (1 if point == "card_write" else 0)
    assert {d["kind"] for d in found["drift"]} == {"card file"}  # the notes were all written
    text = home.cli("vault", "sync", "--check")
    assert "card files: " in text.stdout and all(book in text.stdout for book in missing)

    repaired = home.cli("vault", "sync", "--json")
    assert repaired.exit_code == 0, repaired.output
    assert len(json.loads(repaired.stdout)["written"]) == len(missing)
    clean = home.cli("vault", "sync", "--check", "--json")
    assert clean.exit_code == 0, clean.output
    assert vault_files(home) == expected
