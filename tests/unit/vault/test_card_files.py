"""The vault's card files (`Cards/<Book>.md`) for the Obsidian Spaced Repetition plugin: the
format, the plugin's scheduling comments kept across rewrites, removal, hostile text and
titles. A real SQLite store and real files; the graph is tests/card_graph.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from card_graph import DELIBERATE, CardGraph, card_graph, item, put_code_card
from zettelgraph.context import open_services
from zettelgraph.models import ChangeSet, ItemStatus, ItemType
from zettelgraph.services.cards import decide, refresh_vault
from zettelgraph.settings import Settings
from zettelgraph.vault.card_text import (
    NoteLink,
    Scheduling,
    card_marker,
    cloze_line,
    inline_text,
    scheduling_comments,
)
from zettelgraph.vault.cards import CARDS_DIR, write_card_files
from zettelgraph.vault.notes import parse_note
from zettelgraph.vault.sync import note_for
from zettelgraph.vault.writer import IDEAS_DIR, Vault


@pytest.fixture
def graph(tmp_path: Path) -> Iterator[CardGraph]:
    (tmp_path / "store").mkdir()
    built = card_graph(tmp_path / "store")
    yield built
    built.store.close()


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return Vault(tmp_path / "vault")


def cards_file(vault: Vault, name: str = "Walden") -> Path:
    return vault.root / CARDS_DIR / f"{name}.md"


def blocks(text: str) -> list[str]:
    """The file's paragraphs after the front matter: the deck tag, then one per card."""
    return parse_note(text)[1].strip("\n").split("\n\n")


def marker(graph: CardGraph, name: str) -> str:
    return card_marker(graph.items[name].id)


# --- the format -------------------------------------------------------------------------------


def test_one_file_per_book_in_the_plugins_card_syntax(graph: CardGraph, vault: Vault) -> None:
    report = write_card_files(graph.store, vault)
    assert sorted(p.name for p in report.written) == ["Spark.md", "Walden.md"]
    text = cards_file(vault).read_text(encoding="utf-8")

    front, _ = parse_note(text)
    assert front == {"generated_by": "zettelgraph", "content_id": graph.walden.id}
    tag, *cards = blocks(text)
    assert tag == "#flashcards/walden"
    place = "— *Walden*, Henry David Thoreau"
    assert cards == [
        "Fui al ==bosque== porque quería vivir deliberadamente.\n"
        f"[[Vivir deliberadamente]] {place}, Dónde viví, p. 12 {marker(graph, 'cloze')}",
        "¿Por qué se fue Thoreau al bosque?\n?\nPara vivir deliberadamente.\n"
        f"[[Vivir deliberadamente]] {place}\n"
        f"> {DELIBERATE} — Dónde viví, p. 12 {marker(graph, 'flashcard')}",
        "¿Qué idea expresa la cita?\nA. La vida en la ciudad\nB. Vivir deliberadamente\n"
        "C. Simplicidad voluntaria\n?\nB. Vivir deliberadamente\n"
        "La cita dice «deliberadamente»; la ciudad es lo que deja atrás.\n"
        f"[[Vivir deliberadamente]] {place}\n"
        f"> {DELIBERATE} — Dónde viví, p. 12 {marker(graph, 'mcq')}",
        "¿Cómo se relacionan vivir deliberadamente y la simplicidad voluntaria?\n?\n"
        "Simplificar es el medio de vivir deliberadamente.\n"
        f"[[Vivir deliberadamente]] · [[Simplicidad voluntaria]] {place}\n"
        f"> {DELIBERATE} — Dónde viví, p. 12\n"
        f"> Simplifica, simplifica. — p. 40 {marker(graph, 'relation')}",
    ]
    # Proposed and dropped cards are not studied, so they are not in the file.
    assert marker(graph, "proposed") not in text and marker(graph, "dropped") not in text
    # The plugin skips a line that starts with "<!--" (and older versions the next line too).
    assert not [line for line in text.splitlines() if line.startswith("<!--")]


def test_cards_link_the_concept_note_by_its_file_name(graph: CardGraph, vault: Vault) -> None:
    note = vault.write_note(note_for(graph.store, graph.concepts["deliberate"].id))
    moved = vault.root / IDEAS_DIR / "Thoreau" / "Deliberadamente (mi nota).md"
    moved.parent.mkdir()
    note.rename(moved)
    write_card_files(graph.store, Vault(vault.root))
    text = cards_file(vault).read_text(encoding="utf-8")
    assert "[[Deliberadamente (mi nota)]] — *Walden*" in text
    assert "[[Vivir deliberadamente]]" not in text


def test_a_cloze_hides_a_concept_title_that_gives_the_answer_away(
    graph: CardGraph, vault: Vault
) -> None:
    graph.change("cloze", cloze="Fui al bosque porque quería vivir {{c1::deliberadamente}}.")
    write_card_files(graph.store, vault)
    cloze = blocks(cards_file(vault).read_text(encoding="utf-8"))[1]
    assert cloze.startswith("Fui al bosque porque quería vivir ==deliberadamente==.\n")
    assert "[[Vivir deliberadamente|↗]] — *Walden*" in cloze


def test_a_note_name_the_plugin_would_misread_gets_a_markdown_link() -> None:
    link = NoteLink("a == b {{x}}", f"{IDEAS_DIR}/a == b {{{{x}}}}.md")
    assert link.markdown() == (
        "[a =\\= b {\\{x}\\}](08%20-%20Ideas/a%20%3D%3D%20b%20%7B%7Bx%7D%7D.md)"
    )
    assert NoteLink("Plain", f"{IDEAS_DIR}/Plain.md").markdown("↗") == "[[Plain|↗]]"


# --- what survives a rewrite ------------------------------------------------------------------


def test_the_plugins_scheduling_comments_survive_a_rewrite(graph: CardGraph, vault: Vault) -> None:
    write_card_files(graph.store, vault)
    path = cards_file(vault)
    # The plugin after two reviews: on the line after one card, on the last line of another.
    flashcard_schedule = "<!--SR:!2026-12-01,3,250-->"
    cloze_schedule = "<!--SR:!2026-12-03,5,270-->"
    text = path.read_text(encoding="utf-8")
    flashcard, cloze = marker(graph, "flashcard"), marker(graph, "cloze")
    text = text.replace(flashcard, f"{flashcard}\n{flashcard_schedule}")
    text = text.replace(cloze, f"{cloze} {cloze_schedule}")
    path.write_text(text, encoding="utf-8")
    assert scheduling_comments(text) == {
        graph.items["flashcard"].id: Scheduling(flashcard_schedule),
        graph.items["cloze"].id: Scheduling(cloze_schedule, same_line=True),
    }

    graph.change("flashcard", back="Para vivir deliberadamente, sin prisa.")
    graph.put(
        "new",
        item(
            ItemType.FLASHCARD,
            "¿Qué es lo esencial?",
            [graph.concepts["simple"]],
            content_ids=[graph.walden.id],
        ),
    )
    report = write_card_files(graph.store, vault)

    assert report.written == [path]
    rewritten = path.read_text(encoding="utf-8")
    assert "sin prisa.\n[[Vivir" in rewritten
    assert f"{marker(graph, 'flashcard')}\n{flashcard_schedule}\n" in rewritten
    assert f"{marker(graph, 'cloze')} {cloze_schedule}\n" in rewritten
    assert rewritten.count("<!--SR:") == 2 and marker(graph, "new") in rewritten


def test_an_unchanged_file_is_not_rewritten_and_reader_keys_are_kept(
    graph: CardGraph, vault: Vault
) -> None:
    write_card_files(graph.store, vault)
    path = cards_file(vault)
    # A key of the reader's (or the plugin's note review) and a move into a subfolder.
    text = path.read_text(encoding="utf-8").replace("---\n#", "sr-due: 2026-12-01\n---\n#", 1)
    moved = path.parent / "Libros" / "Walden (mío).md"
    moved.parent.mkdir()
    moved.write_text(text, encoding="utf-8")
    path.unlink()

    report = write_card_files(graph.store, vault)
    assert moved in report.unchanged and not path.exists()
    graph.change("mcq", explanation="Otra explicación.")
    report = write_card_files(graph.store, vault)
    assert report.written == [moved]
    front, _ = parse_note(moved.read_text(encoding="utf-8"))
    assert str(front["sr-due"]) == "2026-12-01" and front["content_id"] == graph.walden.id


# --- removal and the reader's own files -------------------------------------------------------


def test_a_book_without_approved_cards_loses_its_file_and_only_that(
    graph: CardGraph, vault: Vault
) -> None:
    folder = vault.root / CARDS_DIR
    folder.mkdir(parents=True)
    (folder / "Mis tarjetas.md").write_text("#flashcards/mias\n\nP::R\n", encoding="utf-8")
    (folder / "Spark.md").write_text("Mi propio Spark.\n", encoding="utf-8")
    report = write_card_files(graph.store, vault)
    assert folder / "Spark (2).md" in report.written  # the reader's Spark.md is not ours

    graph.change("spark", status=ItemStatus.DROPPED)
    report = write_card_files(graph.store, vault)
    assert report.removed == [folder / "Spark (2).md"]
    assert sorted(p.name for p in folder.iterdir()) == ["Mis tarjetas.md", "Spark.md", "Walden.md"]
    assert (folder / "Spark.md").read_text(encoding="utf-8") == "Mi propio Spark.\n"


def test_a_hostile_book_title_stays_inside_the_vault(graph: CardGraph, vault: Vault) -> None:
    hostile = "../../etc/passwd\n#flashcards/otro\n?\n<!--"
    graph.store.apply(ChangeSet(contents=[graph.walden.model_copy(update={"title": hostile})]))
    report = write_card_files(graph.store, vault)
    walden = next(p for p in report.written if "passwd" in p.name)
    assert walden.parent == vault.root / CARDS_DIR
    assert walden.name == "etc passwd flashcards otro !--.md"
    assert walden.resolve().is_relative_to(vault.root.resolve())
    text = walden.read_text(encoding="utf-8")
    tag, first, *_ = blocks(text)
    assert tag == "#flashcards/etc-passwd-flashcards-otro"
    # In the cards the title is one line of text: no second deck tag, separator or comment.
    assert "*../../etc/passwd \\#flashcards/otro ? &lt;!--*" in first
    assert unescaped(text).count("#flashcards/") == 1 and "\n?\n" not in first


def test_a_cards_folder_leading_out_of_the_vault_is_refused(
    graph: CardGraph, vault: Vault, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    vault.root.mkdir()
    (vault.root / CARDS_DIR).symlink_to(outside, target_is_directory=True)
    report = write_card_files(graph.store, vault)
    assert report.written == [] and "outside the vault" in report.errors[0]["error"]
    assert list(outside.iterdir()) == []


# --- text from the graph stays text -----------------------------------------------------------

_SYNTAX = ("::", "==", "{{", "}}", "<", "\n", "\r", "%%", "~~")


def unescaped(line: str) -> str:
    """`line` with each backslash escape (a backslash and the character after it) blanked."""
    return re.sub(r"\\.", "_", line)


@given(st.text(max_size=80))
def test_graph_text_is_one_line_the_plugin_reads_as_text(text: str) -> None:
    line = inline_text(text)
    plain = unescaped(line)
    assert not any(mark in plain for mark in _SYNTAX)
    assert not re.search(r"[#\[\]`$*]", plain)
    assert line == line.strip()


@given(st.text(max_size=40), st.text(min_size=1, max_size=20), st.text(max_size=40))
def test_a_cloze_has_exactly_its_own_deletion(before: str, words: str, after: str) -> None:
    line = cloze_line(f"{before}{{{{c1::{words}}}}}{after}")
    if not words.strip() or "}}" in words or "::" in words:
        return  # not a well-formed deletion
    assert line is not None and "\n" not in line
    plain = unescaped(line)
    assert plain.count("==") == 2
    assert not any(mark in plain for mark in _SYNTAX if mark != "==")


# --- through the service --------------------------------------------------------------------------


def test_approving_and_dropping_cards_refreshes_the_vault(graph: CardGraph, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", llm="fake", embeddings="hash", vault=tmp_path / "v")
    services = open_services(settings, store=graph.store)
    written = refresh_vault(services)
    assert sorted(Path(p).name for p in written) == ["Spark.md", "Walden.md"]
    walden = tmp_path / "v" / CARDS_DIR / "Walden.md"

    decide(services, [graph.items["proposed"].id], ItemStatus.APPROVED)
    assert marker(graph, "proposed") in walden.read_text(encoding="utf-8")
    on_walden = [i.id for i in graph.items.values() if i.content_ids == [graph.walden.id]]
    decide(services, on_walden, ItemStatus.DROPPED)
    assert not walden.exists() and (tmp_path / "v" / CARDS_DIR / "Spark.md").exists()


def test_a_code_card_keeps_its_lines_in_the_card_file(graph: CardGraph, vault: Vault) -> None:
    """A code-completion card from a passage (issue 31): one line per line of code, the
    indentation as no-break spaces, no empty line (it would end the card), the passage cited."""
    put_code_card(graph)
    write_card_files(graph.store, vault)
    [card] = [b for b in blocks(cards_file(vault).read_text("utf-8")) if marker(graph, "code") in b]
    assert card.startswith(
        "Completa el código:\ndef area(r):\n\u00a0\u00a0\u00a0\u00a0return ____\n?\n"
    )
    assert "> Simplifica, simplifica. — p. 40" in card
