"""What an MCP client may read: only inside ZETTELGRAPH_MCP_ROOTS, links and `..` followed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zettelgraph.mcp_server.access import AccessError, allowed_paths
from zettelgraph.settings import Settings


def settings(*roots: Path) -> Settings:
    return Settings(mcp_roots=list(roots))


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    notes, books = tmp_path / "notes", tmp_path / "books"
    for folder in (notes, books):
        folder.mkdir()
    (notes / "a.md").write_text("# Citas\n\nUna cita.\n", encoding="utf-8")
    (books / "b.md").write_text("# Citas\n\nOtra cita.\n", encoding="utf-8")
    (tmp_path / "secret.md").write_text("private\n", encoding="utf-8")
    return notes, books


def test_no_roots_reads_nothing_and_names_the_setting(roots: tuple[Path, Path]) -> None:
    with pytest.raises(AccessError, match="ZETTELGRAPH_MCP_ROOTS"):
        allowed_paths(settings(), [str(roots[0] / "a.md")])


def test_paths_inside_a_root_absolute_or_relative(roots: tuple[Path, Path]) -> None:
    notes, books = roots
    chosen = allowed_paths(settings(notes, books), [str(notes / "a.md"), "b.md", str(books)])
    assert chosen == [(notes / "a.md").resolve(), (books / "b.md").resolve(), books.resolve()]


@pytest.mark.parametrize("given", ["../secret.md", "{tmp}/secret.md", "{tmp}/notes/../secret.md"])
def test_paths_leading_out_are_refused(
    roots: tuple[Path, Path], tmp_path: Path, given: str
) -> None:
    with pytest.raises(AccessError, match="outside the folders"):
        allowed_paths(settings(roots[0]), [given.format(tmp=tmp_path)])


def test_links_leading_out_are_refused_even_inside_a_scanned_folder(
    roots: tuple[Path, Path], tmp_path: Path
) -> None:
    notes, _ = roots
    (notes / "link.md").symlink_to(tmp_path / "secret.md")
    with pytest.raises(AccessError, match="outside the folders"):
        allowed_paths(settings(notes), ["link.md"])
    with pytest.raises(AccessError, match=r"link\.md: leads outside"):
        allowed_paths(settings(notes), [str(notes)])


def test_roots_setting_is_split_on_the_path_separator(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ZETTELGRAPH_MCP_ROOTS", os.pathsep.join([str(tmp_path), "~/Notes", " "]))
    assert Settings().mcp_roots == [tmp_path, Path.home() / "Notes"]
    assert Settings().mcp_allow_approve is False
