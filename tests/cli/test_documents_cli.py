"""Documents through the command line: ingest every format, search with citations, ask, and
extract concepts from passages, on the real SQLite store (fake LLM, hash embedder)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.settings import Settings
from zettelgraph.store import open_store

CHAT_EXPORT = [
    {
        "title": "Sobre los castores",
        "conversation_id": "conv-1",
        "current_node": "m2",
        "mapping": {
            "m1": {
                "id": "m1",
                "parent": None,
                "message": {
                    "author": {"role": "user"},
                    "content": {"parts": ["¿Por qué construyen presas los castores?"]},
                },
            },
            "m2": {
                "id": "m2",
                "parent": "m1",
                "message": {
                    "author": {"role": "assistant"},
                    "content": {"parts": ["Para tener agua profunda alrededor de su madriguera."]},
                },
            },
        },
    }
]
PYTHON = '''"""Tools for counting words."""

import re


def count_words(text):
    """How many words a text has."""
    return len(re.findall(r"\\w+", text))
'''
MARKDOWN = """---
title: Apuntes de botánica
author: Bea Botánica
---

# Hojas

La fotosíntesis convierte la luz del sol en azúcares dentro de las hojas.

## Raíces

Las raíces absorben agua y sales minerales del suelo húmedo.
"""


def run(*args: str, home: Path) -> Any:
    return CliRunner().invoke(
        app,
        ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args],
        catch_exceptions=False,
    )


def _json(result: Any) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def library(tmp_path: Path, book_pdf: Path, field_guide_docx: Path, deck_pptx: Path) -> list[Path]:
    notes = tmp_path / "apuntes.md"
    notes.write_text(MARKDOWN, encoding="utf-8")
    code = tmp_path / "words.py"
    code.write_text(PYTHON, encoding="utf-8")
    chat = tmp_path / "conversations.json"
    chat.write_text(json.dumps(CHAT_EXPORT, ensure_ascii=False), encoding="utf-8")
    return [book_pdf, field_guide_docx, deck_pptx, notes, code, chat]


def test_every_format_ingests_and_search_cites_it(tmp_path: Path, library: list[Path]) -> None:
    home = tmp_path / "home"
    report = _json(run("ingest", *map(str, library), "--json", home=home))
    assert report["errors"] == []
    kinds = {c["kind"]: c for c in report["contents"]}
    assert set(kinds) == {"pdf", "docx", "pptx", "markdown", "code", "transcript"}
    assert kinds["pdf"]["title"] == "Reading Notes" and kinds["pdf"]["author"] == "Ada Writer"
    assert kinds["transcript"]["title"] == "Sobre los castores"

    found = _json(run("search", "second page continues", "-k", "3", "--json", home=home))
    top = found["results"][0]
    assert top["content_title"] == "Reading Notes"
    assert top["author"] == "Ada Writer"
    assert top["location"] == {"page": 2}
    assert top["location_label"] == "p. 2"
    assert top["section_title"] == "Introduction"  # the outline chapter is its section
    assert top["text"] == "The second page continues the introduction."
    assert "fulltext" in top["methods"]

    slide = _json(run("search", "Mention recall", "-k", "1", "--json", home=home))["results"][0]
    assert slide["content_kind"] == "pptx"
    assert slide["location"]["slide"] == 3 and slide["location"]["kind"] == "notes"
    assert slide["location_label"].endswith("speaker notes")

    code = _json(run("search", "count_words", "-k", "1", "--json", home=home))["results"][0]
    assert code["location"]["symbol"] == "count_words"
    assert (code["location"]["line_start"], code["location"]["line_end"]) == (6, 8)

    turn = _json(run("search", "madriguera", "-k", "1", "--json", home=home))["results"][0]
    assert turn["location"]["speaker"] == "assistant"
    assert turn["location_label"] == "turn 2 (assistant)"

    leaf = _json(run("search", "raíces absorben agua", "-k", "1", "--json", home=home))
    passage = leaf["results"][0]
    where = {"heading_path": ["Hojas", "Raíces"], "line_start": 12, "line_end": 12}
    assert passage["location"] == where
    assert passage["author"] == "Bea Botánica"

    # The passage ids are the stored passages', and the citation's section is its parent.
    store = open_store(Settings(home=home).store_url)
    try:
        (stored,) = store.get_quotes([top["passage_id"]])
        assert stored.parent_id == top["section_id"]
        assert store.get_sections([top["section_id"]])[0].title == "Introduction"
    finally:
        store.close()

    again = _json(run("ingest", *map(str, library), "--json", home=home))
    assert {c["status"] for c in again["contents"]} == {"unchanged"}


def test_human_search_output(tmp_path: Path, library: list[Path]) -> None:
    home = tmp_path / "home"
    assert run("ingest", *map(str, library), home=home).exit_code == 0
    result = run("search", "second page continues", home=home)
    assert result.exit_code == 0, result.output
    assert "[1] Reading Notes, Ada Writer, p. 2" in result.stdout
    empty = run("search", "zzzz qqqq", "--recipe", "fulltext", home=home)
    assert "no passage matches" in empty.stdout
    bad = run("search", "x", "--recipe", "magic", home=home)
    assert bad.exit_code == 2 and "unknown search recipe" in bad.output


def test_ask_answers_with_markers_that_map_to_passages(tmp_path: Path, library: list[Path]) -> None:
    home = tmp_path / "home"
    assert run("ingest", *map(str, library), home=home).exit_code == 0
    answer = _json(run("ask", "What does the second page continue?", "--json", home=home))
    passages = {p["n"]: p for p in answer["passages"]}
    markers = {int(n) for n in re.findall(r"\[(\d+)\]", answer["answer"])}
    assert markers <= set(passages)
    cited = {c["n"] for c in answer["citations"] if c["cited"]}
    assert markers == cited
    assert answer["answerable"] == bool(cited)
    store = open_store(Settings(home=home).store_url)
    try:
        (stored,) = store.answers(limit=5)
        assert stored.id == answer["answer_id"]
        cites = store.relations(stored.id, relation_type="CITES")
        assert {r.target_id for r in cites} == {passages[n]["passage_id"] for n in cited}
    finally:
        store.close()


def test_concepts_are_extracted_from_document_passages(tmp_path: Path, book_pdf: Path) -> None:
    home = tmp_path / "home"
    ingested = _json(run("ingest", str(book_pdf), "--json", home=home))
    content_id = ingested["contents"][0]["id"]
    run_report = _json(run("extract", content_id, "--json", home=home))
    assert run_report["status"] == "awaiting_review"
    concepts = run_report["report"]["concepts"]
    assert concepts
    cited = {q["text"] for c in concepts for q in c["quotes"]}
    assert cited <= {
        "The first page talks about information retrieval and search.",
        "The second page continues the introduction.",
        "The third page describes the methods.",
    }
    approved = _json(run("review", run_report["run_id"], "--approve", "--json", home=home))
    assert approved["status"] == "committed"
    notes = list((home / "vault").rglob("*.md"))
    assert notes
    # Each source quote names the book, its author and the page of the passage.
    texts = [note.read_text(encoding="utf-8") for note in notes]
    fuente = r"— \*\[\[[^]|]*\|Reading Notes\]\]\*, \[\[[^]|]*\|Ada Writer\]\], p\. [123]\n"
    assert any(re.search(fuente, t) for t in texts)


def test_bad_documents_error_and_leave_nothing(
    tmp_path: Path, encrypted_pdf: Path, image_only_pdf: Path, book_pdf: Path
) -> None:
    home = tmp_path / "home"
    corrupt = tmp_path / "corrupt.docx"
    corrupt.write_bytes(b"PK\x03\x04 this is not a whole zip")
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    mislabelled = tmp_path / "notes.pdf"
    mislabelled.write_text("Just some text, not a PDF at all.", encoding="utf-8")
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(book_pdf.read_bytes()[:400])
    bad_json = tmp_path / "chat.json"
    bad_json.write_text('{"messages": [', encoding="utf-8")
    files = [encrypted_pdf, image_only_pdf, corrupt, empty, mislabelled, truncated, bad_json]
    result = run("ingest", *map(str, files), "--json", home=home)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["contents"] == []
    errors = {Path(e["path"]).name: e["error"] for e in report["errors"]}
    assert set(errors) == {f.name for f in files}
    for name, message in errors.items():
        assert name in message, message
    assert "password" in errors[encrypted_pdf.name].lower()
    assert "ocr" in errors[image_only_pdf.name].lower()
    assert "empty" in errors["empty.pdf"].lower()
    assert "not a pdf" in errors["notes.pdf"].lower()
    assert "line 1" in errors["chat.json"] or ":1:" in errors["chat.json"]
    store = open_store(Settings(home=home).store_url)
    try:
        assert set(store.counts().values()) == {0}
    finally:
        store.close()
    assert not (home / "vault").exists() or not list((home / "vault").rglob("*.md"))


def test_search_and_ask_refuse_a_store_of_another_embedder(
    tmp_path: Path, library: list[Path]
) -> None:
    home = tmp_path / "home"
    assert run("ingest", str(library[3]), home=home).exit_code == 0  # embedded with `hash`
    for command in ("search", "ask"):
        result = CliRunner().invoke(
            app,
            ["--home", str(home), "--llm", "fake", "--embeddings", "hash:64", command, "hojas"],
        )
        assert result.exit_code == 1
        assert "ZETTELGRAPH_EMBEDDINGS=hash" in result.output
