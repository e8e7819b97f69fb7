"""`zettelgraph ingest --propositions`, `propositions make` and `propositions show`, and search
through propositions, on the real SQLite store (fake LLM, hash embedder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.text.normalize import words

ESSAY = (
    "# Beavers\n\n"
    "Beavers build dams across small rivers. They cut trees with their strong teeth, and "
    "the dams slow the water down.\n\n"
    "# Wetlands\n\n"
    "A beaver pond becomes a wetland within a few years. Frogs, ducks and fish live in it, "
    "and it stores water through the dry summer.\n"
)


def run(*args: str, home: Path) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


def _json(result: Any) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def essay(tmp_path: Path) -> Path:
    path = tmp_path / "beavers.md"
    path.write_text(ESSAY, encoding="utf-8")
    return path


def test_ingest_with_propositions_stores_statements_search_can_use(
    tmp_path: Path, essay: Path
) -> None:
    home = tmp_path / "home"
    ingested = _json(run("ingest", str(essay), "--propositions", "--json", home=home))
    (content,) = ingested["contents"]
    (report,) = ingested["propositions"]
    assert report["content_id"] == content["id"]
    assert report["passages"] == content["quotes"] >= 2 and report["skipped"] == 0
    assert report["propositions"] >= report["passages"] and not report["warnings"]
    passages = _json(run("show", content["id"], "--json", home=home))["quotes"]
    for passage in passages:
        shown = _json(run("propositions", "show", passage["id"][:10], "--json", home=home))
        assert shown["passage_id"] == passage["id"] and shown["propositions"]
        # Every statement kept shares a word with its passage (the fake model's others go).
        own = set(words(passage["text"]))
        assert all(set(words(text)) & own for text in shown["propositions"])
    found = _json(
        run("search", "wetland frogs ducks", "--recipe", "propositions", "--json", home=home)
    )["results"]
    assert any("propositions" in r["methods"] for r in found)
    plain = _json(run("search", "wetland frogs ducks", "--json", home=home))["results"]
    assert all("propositions" not in r["methods"] for r in plain)


def test_make_skips_passages_that_have_them_unless_again(tmp_path: Path, essay: Path) -> None:
    home = tmp_path / "home"
    (content,) = _json(run("ingest", str(essay), "--json", home=home))["contents"]
    first = _json(run("propositions", "make", content["id"][:8], "--json", home=home))
    assert first["passages"] == content["quotes"] and first["propositions"] > 0
    second = _json(run("propositions", "make", content["id"][:8], "--json", home=home))
    assert (second["passages"], second["skipped"], second["propositions"]) == (
        0,
        content["quotes"],
        0,
    )
    again = _json(run("propositions", "make", content["id"], "--again", "--json", home=home))
    assert again["passages"] == content["quotes"] and again["propositions"] == first["propositions"]
    text = run("propositions", "make", content["id"], home=home)
    assert text.exit_code == 0 and "already had them" in text.output


def test_an_unknown_content_or_passage_is_refused_saying_where_ids_are(tmp_path: Path) -> None:
    home = tmp_path / "home"
    unknown = run("propositions", "make", "nosuchcontent", home=home)
    assert unknown.exit_code == 1 and "zettelgraph contents" in unknown.output
    passage = run("propositions", "show", "nosuchpassage", home=home)
    assert passage.exit_code == 1 and "zettelgraph show" in passage.output


def test_removing_a_content_removes_its_propositions(tmp_path: Path, essay: Path) -> None:
    home = tmp_path / "home"
    (content,) = _json(run("ingest", str(essay), "--propositions", "--json", home=home))["contents"]
    removed = _json(run("contents", "remove", content["id"], "--yes", "--json", home=home))
    assert removed["propositions"] > 0
    other = tmp_path / "other.md"
    other.write_text("# Otters\n\nOtters float on their backs to eat.\n", encoding="utf-8")
    (kept,) = _json(run("ingest", str(other), "--json", home=home))["contents"]
    # Nothing of the removed content's statements is left for search to reach.
    found = _json(run("search", "beaver wetland", "--recipe", "propositions", "--json", home=home))[
        "results"
    ]
    assert {r["content_id"] for r in found} <= {kept["id"]}


def test_sentences_makes_each_sentence_a_statement_without_the_model(
    tmp_path: Path, essay: Path
) -> None:
    home = tmp_path / "home"
    (content,) = _json(run("ingest", str(essay), "--json", home=home))["contents"]
    # No model at all: a split by sentences must not need one.
    args = ["--home", str(home), "--embeddings", "hash", "propositions", "make", content["id"]]
    made = CliRunner().invoke(
        app,
        [*args, "--sentences", "--json"],
        env={"ZETTELGRAPH_LLM": "openai:gpt-4o-mini", "OPENAI_API_KEY": ""},
    )
    report = _json(made)
    assert report["propositions"] == 4 and report["dropped"] == 0
    passages = _json(run("show", content["id"], "--json", home=home))["quotes"]
    shown = _json(run("propositions", "show", passages[1]["id"], "--json", home=home))
    assert shown["propositions"] == [
        "A beaver pond becomes a wetland within a few years.",
        "Frogs, ducks and fish live in it, and it stores water through the dry summer.",
    ]
