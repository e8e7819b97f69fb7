"""`zettelgraph search` and `ask` with `--content`, `--kind`, `--author`, `--where` and
`--chat`, on the real SQLite store (fake LLM, hash embedder): book notes with pages and a
talk's subtitles with times."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app

REPO = Path(__file__).resolve().parents[2]
MEDITATIONS = REPO / "examples" / "meditations.md"
TALK = (
    "1\n00:01:00,000 --> 00:01:04,000\nThe universe is a river of change, said the speaker.\n\n"
    "2\n00:12:03,000 --> 00:12:09,000\nLater the talk turned to change in our habits.\n\n"
)


def run(*args: str, home: Path) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


def _json(result: Any) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    talk = tmp_path / "talk.srt"
    talk.write_text(TALK, encoding="utf-8")
    for path in (MEDITATIONS, talk):
        assert run("ingest", str(path), home=home).exit_code == 0
    return home


def test_ask_help_shows_the_markers_literally() -> None:
    result = CliRunner().invoke(app, ["ask", "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    assert "citing them as [n]" in result.output
    assert "--chat" in result.output and "--where" in result.output


def test_search_filters(home: Path) -> None:
    def found(*flags: str) -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = _json(
            run("search", "change universe", "-k", "5", *flags, "--json", home=home)
        )["results"]
        return results

    everything = found()
    assert {r["content_title"] for r in everything} == {"Meditations", "talk"}
    later = found("--where", "time=00:10:00-00:20:00")
    assert [r["text"] for r in later] == ["Later the talk turned to change in our habits."]
    assert {r["content_kind"] for r in found("--kind", "transcript")} == {"transcript"}
    book = found("--author", "marcus AURELIUS", "--where", "p. 30-40")
    assert [r["location_label"] for r in book] == ["Book IV, p. 37"]
    assert {r["content_title"] for r in found("--content", "meditations")} == {"Meditations"}


def test_a_filter_that_cannot_be_used_is_exit_2(home: Path) -> None:
    bad = run("search", "change", "--where", "[pgs]=3", home=home)
    assert bad.exit_code == 2
    assert "--where '[pgs]=3'" in bad.output and "pages=12-40" in bad.output
    unknown = run("ask", "What?", "--kind", "pfd", home=home)
    assert unknown.exit_code == 2 and "no content of that kind" in unknown.output


def test_ask_is_a_chat(home: Path) -> None:
    first = run("ask", "What is change?", home=home)
    assert first.exit_code == 0, first.output
    chat = re.search(r"chat (chat-[0-9a-f]+), turn 1", first.stdout)
    assert chat, first.stdout
    chat_id = chat.group(1)
    follow = _json(run("ask", "And happiness?", "--chat", chat_id, "--json", home=home))
    assert (follow["chat_id"], follow["turn"]) == (chat_id, 2)
    assert follow["standalone_question"]  # what the follow-up was searched as
    assert {c["n"] for c in follow["citations"]} == {p["n"] for p in follow["passages"]}
    thread = _json(run("ask", "--chat", chat_id, "--json", home=home))
    assert [(t["turn"], t["question"]) for t in thread["turns"]] == [
        (1, "What is change?"),
        (2, "And happiness?"),
    ]
    shown = run("ask", "--chat", chat_id, home=home)
    assert shown.exit_code == 0
    assert "1. What is change?" in shown.stdout and "2. And happiness?" in shown.stdout
    missing = run("ask", "--chat", "chat-nope", home=home)
    assert missing.exit_code == 2 and "no chat 'chat-nope'" in missing.output
    nothing = run("ask", home=home)
    assert nothing.exit_code == 2 and "write a question" in nothing.output
