"""Subtitles and heading spans through the command line (issue 16): `ingest talk.srt` and a
meeting's `.vtt` into the real SQLite store, then `search` and `ask` cite time ranges, and a
Markdown passage across two headings is cited with both (fake LLM, hash embedder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.settings import Settings
from zettelgraph.store import open_store

TALK = (
    "1\r\n00:12:03,000 --> 00:12:06,500\r\nBeavers build dams across small streams.\r\n\r\n"
    "2\r\n00:12:06,600 --> 00:13:10,200\r\nThe pond keeps <i>predators</i> away from the lodge.\r\n"
    "\r\n3\r\n00:14:00,000 --> 00:14:05,000\r\nOtters play in the river all winter.\r\n"
)
MEETING = """WEBVTT - Budget meeting

00:00:01.000 --> 00:00:04.000
<v Ann>The greenhouse budget covers seeds and compost.

00:00:04.000 --> 00:00:05.000
<v Bob>Compost too?

00:00:05.000 --> 00:00:08.000
<v Ann>Yes, compost feeds the soil microbes.
"""
MANUAL = """# Manual

## 3 Install

### 3.1 Setup

Download the gardening planner and unpack it.

### 3.2 Usage

Run the planner every spring.
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


def test_subtitles_and_heading_spans_are_cited(tmp_path: Path) -> None:
    talk = tmp_path / "talk.srt"
    talk.write_bytes(TALK.encode("utf-8-sig"))
    meeting = tmp_path / "meeting.vtt"
    meeting.write_text(MEETING, encoding="utf-8")
    manual = tmp_path / "manual.md"
    manual.write_text(MANUAL, encoding="utf-8")
    home = tmp_path / "home"
    report = _json(run("ingest", str(talk), str(meeting), str(manual), "--json", home=home))
    assert report["errors"] == []
    contents = {c["title"]: c for c in report["contents"]}
    assert contents["talk"]["kind"] == contents["Budget meeting"]["kind"] == "transcript"
    assert contents["talk"]["quotes"] == 2  # the pause before 00:14:00 starts a passage

    found = _json(run("search", "predators lodge", "-k", "1", "--json", home=home))
    top = found["results"][0]
    assert top["content_title"] == "talk"
    assert top["text"] == (
        "Beavers build dams across small streams. The pond keeps predators away from the lodge."
    )
    assert top["location"] == {"start": "00:12:03", "end": "00:13:10", "cues": [1, 2]}
    assert top["location_label"] == "00:12:03–00:13:10"
    assert top["section_title"] == "00:12:03–00:14:05"

    microbes = _json(run("search", "compost microbes", "-k", "1", "--json", home=home))
    passage = microbes["results"][0]
    assert passage["text"] == (
        "Ann: The greenhouse budget covers seeds and compost. Bob: Compost too? "
        "Ann: Yes, compost feeds the soil microbes."
    )
    assert passage["location_label"] == "00:00:01–00:00:08 (Ann, Bob)"

    spring = _json(run("search", "planner spring", "-k", "1", "--json", home=home))
    assert spring["results"][0]["location_label"] == (
        "Manual > 3 Install > 3.1 Setup → 3.2 Usage, lines 7–11"
    )

    human = run("search", "predators lodge", "-k", "1", home=home)
    assert human.exit_code == 0 and "[1] talk, 00:12:03–00:13:10" in human.stdout

    answer = _json(run("ask", "What keeps predators away?", "--json", home=home))
    places = {c["quote_id"]: c["location"] for c in answer["citations"]}
    assert places[top["passage_id"]] == "00:12:03–00:13:10"

    again = _json(run("ingest", str(talk), str(meeting), "--json", home=home))
    assert {c["status"] for c in again["contents"]} == {"unchanged"}


def test_a_bad_cue_timing_names_the_line_and_stores_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.srt"
    broken.write_text(
        "1\n00:00:01,000 --> 00:00:02,000\nFine.\n\n2\n00:00:03,000 -> 00:00:04,000\nBad.\n",
        encoding="utf-8",
    )
    home = tmp_path / "home"
    result = run("ingest", str(broken), "--json", home=home)
    assert result.exit_code == 1
    (failure,) = json.loads(result.stdout)["errors"]
    assert f"{broken}:6:" in failure["error"]
    assert "malformed cue timing" in failure["error"]
    store = open_store(Settings(home=home).store_url)
    try:
        assert set(store.counts().values()) == {0}
    finally:
        store.close()
