"""The vault on disk: safe file names, finding notes by entity_id, collisions, atomic writes."""

from __future__ import annotations

import stat
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zettelgraph.models import Concept
from zettelgraph.vault.notes import (
    ConceptNote,
    LinkedConcept,
    NoteFormatError,
    parse_note,
    render_concept_note,
)
from zettelgraph.vault.writer import (
    IDEAS_DIR,
    MAX_NAME_BYTES,
    MAX_NAME_CHARS,
    Vault,
    VaultError,
    safe_note_name,
)

RESERVED = {"CON", "PRN", "AUX", "NUL"} | {f"{p}{n}" for p in ("COM", "LPT") for n in range(1, 10)}
ILLEGAL = set('\\/:*?"<>|#^[]')


def concept(concept_id: str, title: str, **fields: Any) -> Concept:
    return Concept(id=concept_id, title=title, concept=f"Concepto {title}.", **fields)


def note(concept_id: str, title: str, links: list[LinkedConcept] | None = None) -> ConceptNote:
    return ConceptNote(concept(concept_id, title), {"RELATES_TO": links or []}, [])


def files_under(path: Path) -> set[Path]:
    return {p for p in path.rglob("*") if p.is_file()}


# --- safe names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Entrenamiento aeróbico", "Entrenamiento aeróbico"),
        ("../../etc/passwd", "etc passwd"),
        ("..\\..\\Windows\\system.ini", "Windows system.ini"),
        ("/absolute/path", "absolute path"),
        ("con", "con_"),
        ("Com1.txt", "Com1_.txt"),
        ("lpt9", "lpt9_"),
        ("NUL .tar.gz", "NUL_.tar.gz"),
        ("AUX", "AUX_"),
        ("Consejo", "Consejo"),
        ("COM10", "COM10"),
        ("conin$", "conin$_"),
        ("CONOUT$.md", "CONOUT$_.md"),
        ('Kant: ¿qué es "ilustración"? <sí> | no', "Kant ¿qué es ilustración sí no"),
        ("#tag ^block [[link]]", "tag block link"),
        ("a*b?c", "a b c"),
        ("línea\nnueva\ttab\x00nul\x7f", "línea nueva tab nul"),
        ("\u202eevil\u202c.md", "evil .md"),
        ("  ...oculto.  ", "oculto"),
        ("", "Sin título"),
        ("???", "Sin título"),
        ("..", "Sin título"),
        (" . . ", "Sin título"),
        ("Cafe\u0301 con leche", "Café con leche"),
    ],
)
def test_safe_note_name(title: str, expected: str) -> None:
    assert safe_note_name(title) == expected


def test_long_titles_are_cut_on_a_word_boundary() -> None:
    name = safe_note_name("palabra " * 40)
    assert len(name) <= MAX_NAME_CHARS
    assert name.endswith("palabra") and "  " not in name
    emoji = safe_note_name("😀" * 200)
    assert len(emoji.encode("utf-8")) <= MAX_NAME_BYTES


def test_one_long_word_is_cut_hard() -> None:
    assert safe_note_name("x" * 500) == "x" * MAX_NAME_CHARS


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(title=st.text(max_size=400))
def test_any_title_gives_a_safe_writable_name(tmp_path: Path, title: str) -> None:
    name = safe_note_name(title)
    assert name and len(name) <= MAX_NAME_CHARS and len(name.encode()) <= MAX_NAME_BYTES
    assert not ILLEGAL & set(name)
    assert all(unicodedata.category(ch) != "Cc" for ch in name)
    assert name == name.strip(". ") and not name.startswith(".")
    assert name == unicodedata.normalize("NFC", name)
    assert name.split(".")[0].rstrip().upper() not in RESERVED
    path = tmp_path / f"{name}.md"
    path.write_text("x", encoding="utf-8")  # the real filesystem accepts it
    assert path.resolve().parent == tmp_path.resolve()
    path.unlink()


# --- writing and finding ----------------------------------------------------------------------


def test_write_creates_the_note_and_a_new_vault_finds_it(tmp_path: Path) -> None:
    vault = Vault(tmp_path / "vault")
    written = vault.write_note(note("c1", "Primera idea"))
    assert written == tmp_path / "vault" / IDEAS_DIR / "Primera idea.md"
    assert vault.read_note(written) == render_concept_note(note("c1", "Primera idea"))
    assert vault.find_note("c1") == written
    assert Vault(tmp_path / "vault").find_note("c1") == written
    assert Vault(tmp_path / "vault").find_note("nope") is None


def test_same_title_gets_a_second_file_and_each_keeps_its_own(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    first = vault.write_note(note("c1", "Idea"))
    second = vault.write_note(note("c2", "Idea"))
    assert (first.name, second.name) == ("Idea.md", "Idea (2).md")
    again = Vault(tmp_path)  # a later run: found by entity_id, not by name
    assert again.write_note(note("c1", "Idea")) == first
    assert again.write_note(note("c2", "Idea")) == second
    assert parse_note(first.read_text(encoding="utf-8"))[0]["entity_id"] == "c1"
    assert len(files_under(tmp_path)) == 2


def test_names_differing_only_in_case_collide_on_every_os(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    assert vault.write_note(note("c1", "Idea")).name == "Idea.md"
    assert vault.write_note(note("c2", "IDEA")).name == "IDEA (2).md"


def test_a_persons_file_with_the_same_name_is_never_overwritten(tmp_path: Path) -> None:
    ideas = tmp_path / IDEAS_DIR
    ideas.mkdir()
    mine = ideas / "Idea.md"
    mine.write_text("---\ntags: [mía]\n---\nNota personal\n", encoding="utf-8")
    other = ideas / "Idea (2).md"
    other.write_text("---\nentity_id: someone-else\n---\n", encoding="utf-8")
    path = Vault(tmp_path).write_note(note("c1", "Idea"))
    assert path.name == "Idea (3).md"
    assert mine.read_text(encoding="utf-8") == "---\ntags: [mía]\n---\nNota personal\n"


def test_a_moved_and_renamed_note_is_still_updated_in_place(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    original = vault.write_note(note("c1", "Idea"))
    moved = tmp_path / IDEAS_DIR / "Temas" / "Mi nombre.md"
    moved.parent.mkdir()
    original.rename(moved)
    assert Vault(tmp_path).write_note(note("c1", "Idea", [LinkedConcept("x", "X")])) == moved
    assert "[[X]]" in moved.read_text(encoding="utf-8")
    assert files_under(tmp_path) == {moved}


def test_hidden_folders_are_not_scanned(tmp_path: Path) -> None:
    trash = tmp_path / IDEAS_DIR / ".trash"
    trash.mkdir(parents=True)
    (trash / "Idea.md").write_text("---\nentity_id: c1\n---\n", encoding="utf-8")
    assert Vault(tmp_path).find_note("c1") is None


def test_a_deleted_note_is_forgotten(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    vault.write_note(note("c1", "Idea")).unlink()
    assert vault.find_note("c1") is None
    assert vault.write_note(note("c1", "Idea")).name == "Idea.md"


def test_links_use_the_target_notes_file_name(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    vault.write_note(note("b1", "Base"))
    vault.write_note(note("b2", "Base"))
    vault.write_note(note("t", "Kant: crítica"))
    links = [LinkedConcept("b2", "Base"), LinkedConcept("t", "Kant: crítica")]
    text = vault.read_note(vault.write_note(note("a", "A", links)))
    assert "- RELATES_TO: [[Base (2)]], [[Kant crítica]]\n" in text


def test_links_to_notes_not_written_yet_match_the_names_they_will_get(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    vault.write_note(note("b1", "Base"))
    text = vault.read_note(vault.write_note(note("a", "A", [LinkedConcept("b2", "Base")])))
    assert "[[Base (2)]]" in text
    assert vault.write_note(note("b2", "Base")).name == "Base (2).md"


@pytest.mark.parametrize("title", ["../../escape", "/etc/passwd", "..\\..\\x", "..", "~/x"])
def test_nothing_is_written_outside_the_vault(tmp_path: Path, title: str) -> None:
    root = tmp_path / "vault"
    path = Vault(root).write_note(note("c1", title))
    assert path.parent == root / IDEAS_DIR
    assert files_under(tmp_path) == {path}


def test_a_symlinked_ideas_folder_leading_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "vault"
    root.mkdir()
    (root / IDEAS_DIR).symlink_to(outside, target_is_directory=True)
    with pytest.raises(VaultError):
        Vault(root).write_note(note("c1", "Idea"))
    assert list(outside.iterdir()) == []


def test_updates_keep_edits_line_endings_and_permissions(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    path = vault.write_note(note("c1", "Idea"))
    text = path.read_text(encoding="utf-8").replace("\n", "\r\n") + "Mío\r\n"
    path.write_bytes(text.encode("utf-8"))
    if sys.platform != "win32":
        path.chmod(0o640)
    Vault(tmp_path).write_note(note("c1", "Idea", [LinkedConcept("x", "Nueva")]))
    data = path.read_bytes().decode("utf-8")
    # The note had no Conexiones: the section is added at the end, after the reader's line.
    assert "Concepto Idea.\r\nMío\r\n" in data and data.endswith("- RELATES_TO: [[Nueva]]\r\n")
    assert "\n" not in data.replace("\r\n", "")
    if sys.platform != "win32":
        assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_an_unchanged_note_is_not_rewritten(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    path = vault.write_note(note("c1", "Idea"))
    inode = path.stat().st_ino
    Vault(tmp_path).write_note(note("c1", "Idea"))
    assert path.stat().st_ino == inode  # an atomic write would have made a new file


def test_a_directory_in_the_way_fails_and_leaves_no_temp_file(tmp_path: Path) -> None:
    blocker = tmp_path / IDEAS_DIR / "Idea.md"
    blocker.mkdir(parents=True)
    with pytest.raises(OSError):
        Vault(tmp_path).write_note(note("c1", "Idea"))
    assert blocker.is_dir()
    assert files_under(tmp_path) == set()


def test_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    paths = {vault.write_note(note(f"c{i}", f"Idea {i}")) for i in range(5)}
    vault.write_note(note("c1", "Idea 1", [LinkedConcept("c2", "Idea 2")]))
    assert files_under(tmp_path) == paths
    assert not [p for p in (tmp_path / IDEAS_DIR).iterdir() if p.name.startswith(".")]


def test_a_note_with_broken_yaml_is_recognised_and_left_alone(tmp_path: Path) -> None:
    ideas = tmp_path / IDEAS_DIR
    ideas.mkdir()
    broken = ideas / "Idea.md"
    broken.write_text("---\nentity_id: c1\ntags: [sin cerrar\n---\n# Idea\n", encoding="utf-8")
    vault = Vault(tmp_path)
    assert vault.find_note("c1") == broken
    with pytest.raises(NoteFormatError):
        vault.write_note(note("c1", "Idea"))
    assert broken.read_text(encoding="utf-8").startswith("---\nentity_id: c1\ntags: [sin")
    assert files_under(tmp_path) == {broken}
