"""The offline model end to end: real weights, a real llama.cpp server, real HTTP.

One server with the 0.5B model serves the module; the ChatModels test starts its own through
the factory, as the CLI does. Two LLM calls in all: answers are checked for structure only,
never for wording.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, get_args
from urllib.parse import urlparse

import pytest
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, Field
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.guards import Guard
from zettelgraph.guards.language import off_language_fields
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.local import LOCAL_MODELS, LocalServer, ensure_model_file, is_installed
from zettelgraph.llm.structured import call_structured
from zettelgraph.llm.usage import UsageLog
from zettelgraph.settings import Settings
from zettelgraph.text.language import detector_for

SMALL = LOCAL_MODELS["0.5b"]

pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.slow,
    pytest.mark.timeout(600),
    pytest.mark.skipif(not is_installed(SMALL), reason="zettelgraph[local-small] not installed"),
]


class NoteCard(BaseModel):
    title: str = Field(min_length=1, max_length=60)
    tags: list[Annotated[str, Field(min_length=1, max_length=20)]] = Field(max_length=3)


PROMPT: list[BaseMessage] = [
    SystemMessage(content="You file reading notes. Answer in English."),
    HumanMessage(
        content="Note: water evaporates from the sea, condenses into clouds and falls as "
        "rain. Give the note a short title and at most three one-word tags."
    ),
]


def address(base_url: str) -> tuple[str, int]:
    parsed = urlparse(base_url)
    assert parsed.hostname is not None
    assert parsed.port is not None
    return parsed.hostname, parsed.port


def accepts_connections(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=5):
            return True
    except ConnectionRefusedError:
        return False


@pytest.fixture(scope="module")
def local_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose models folder holds the joined, verified 0.5B model (about 490 MB)."""
    home = tmp_path_factory.mktemp("zg-local-home")
    ensure_model_file(SMALL, home / "models")
    return home


@pytest.fixture(scope="module")
def server(local_home: Path) -> Iterator[LocalServer]:
    started = LocalServer(
        local_home / "models" / SMALL.file_name, threads=1, context=2048, max_tokens=256
    )
    host, port = address(started.base_url)
    assert host == "127.0.0.1"
    assert accepts_connections(host, port)
    yield started
    started.close()
    assert not accepts_connections(host, port), "the port is still open after close()"


def assert_valid_card(card: NoteCard) -> None:
    assert isinstance(card, NoteCard)
    assert 1 <= len(card.title) <= 60
    assert len(card.tags) <= 3
    assert all(1 <= len(tag) <= 20 for tag in card.tags)


def assert_usage_recorded(usage: UsageLog) -> None:
    totals = usage.as_dict()["note_card"]
    assert totals["calls"] == 1
    assert totals["failures"] == 0
    assert totals["input_tokens"] > 0
    assert totals["output_tokens"] > 0


def test_the_joined_model_file_is_complete(local_home: Path) -> None:
    path = ensure_model_file(SMALL, local_home / "models")
    assert path == local_home / "models" / SMALL.file_name
    assert path.stat().st_size == SMALL.size
    assert [p.name for p in path.parent.iterdir()] == [SMALL.file_name]  # no partial files


def test_structured_call_over_http(server: LocalServer) -> None:
    llm = ChatOpenAI(
        base_url=server.base_url,
        api_key="none",
        model=server.alias,
        temperature=0,
        max_completion_tokens=256,
        timeout=300,
        max_retries=0,
    )
    usage = UsageLog()
    card = call_structured(
        llm, name="note_card", messages=PROMPT, response_model=NoteCard, usage=usage
    )
    assert_valid_card(card)
    assert_usage_recorded(usage)


def test_chat_models_serve_the_local_model_and_close_frees_the_port(local_home: Path) -> None:
    notices: list[str] = []
    settings = Settings(
        llm="local:0.5b",
        home=local_home,
        local_threads=1,
        local_context=2048,
        llm_max_tokens=256,
        llm_timeout=300,
    )
    chat = ChatModels(settings, on_notice=notices.append)
    try:
        llm = chat.main
        assert isinstance(llm, ChatOpenAI)
        assert chat.fast is llm
        assert len(notices) == 1
        assert "small offline model (local:0.5b)" in notices[0]
        host, port = address(str(llm.openai_api_base))
        assert host == "127.0.0.1"
        usage = UsageLog()
        card = call_structured(
            llm, name="note_card", messages=PROMPT, response_model=NoteCard, usage=usage
        )
        assert_valid_card(card)
        assert_usage_recorded(usage)
        # Another spelling of the same model reuses the running server.
        again = chat.get("local:0.5B")
        assert isinstance(again, ChatOpenAI)
        assert again.openai_api_base == llm.openai_api_base
    finally:
        chat.close()
    assert not accepts_connections(host, port), "the port is still open after close()"


def test_cli_ingests_an_example_end_to_end_with_the_local_model(
    local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The main job on the offline model: structure is checked, never wording."""
    monkeypatch.setenv("ZETTELGRAPH_LOCAL_THREADS", "1")
    monkeypatch.setenv("ZETTELGRAPH_LOCAL_CONTEXT", "4096")
    # Off by default on the local models (no model call at ingest): on here, so the compact
    # summary goes through the real model.
    monkeypatch.setenv("ZETTELGRAPH_BOOK_SUMMARY", "true")
    example = Path(__file__).resolve().parents[2] / "examples" / "meditations.md"
    runner = CliRunner()
    base = ["--home", str(local_home), "--llm", "local:0.5b"]
    result = runner.invoke(app, [*base, "ingest", str(example), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["errors"] == []
    [content] = report["contents"]
    assert (content["title"], content["author"], content["quotes"]) == (
        "Meditations",
        "Marcus Aurelius",
        3,
    )
    shown = json.loads(runner.invoke(app, [*base, "show", content["id"], "--json"]).stdout)
    assert len(shown["summary"].split()) <= 100
    assert len(shown["summary_short"].split()) <= 30
    assert shown["author"]["summary"]  # a biography, or the "Author of" fallback
    assert [q["page"] for q in shown["quotes"]] == ["11", "37", "98"]
    assert "small offline model" in result.stderr


def test_concept_extraction_end_to_end_with_the_local_model(
    local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ingest, extract, review, approve on the offline 0.5B model: structure only."""
    monkeypatch.setenv("ZETTELGRAPH_LOCAL_THREADS", "1")
    monkeypatch.setenv("ZETTELGRAPH_LOCAL_CONTEXT", "8192")
    # On local models the proposal checks stand in for the LLM critique (no critique calls).
    example = Path(__file__).resolve().parents[2] / "examples" / "meditations.md"
    runner = CliRunner()
    base = ["--home", str(local_home), "--llm", "local:0.5b"]
    result = runner.invoke(app, [*base, "run", str(example), "--json"])
    assert result.exit_code == 0, result.output
    [run] = json.loads(result.stdout)["runs"]
    assert run["status"] == "awaiting_review"
    report = run["report"]
    assert report["quotes"] == 3
    assert report["critique_log"] == []
    assert set(report["checks"]) <= set(get_args(Guard))
    detect = detector_for("es")
    for concept in report["concepts"]:
        assert concept["title"] and concept["quotes"]
        # What the language check let through reads as Spanish (it drops what does not).
        assert off_language_fields(concept, "es", detect) == []
    # Feedback finishes on the local model: one focused call for the concept it names, then
    # the run waits for review again (exit 1 only if that call failed, said in one line).
    key = report["concepts"][0]["key"] if report["concepts"] else "c1"
    revised = runner.invoke(
        app, [*base, "review", run["run_id"], "--feedback", f"{key}: un título más corto", "--json"]
    )
    assert revised.exit_code in (0, 1), revised.output
    assert "Traceback" not in revised.output
    view = json.loads(revised.stdout.split("\nerror:")[0])
    assert view["status"] == "awaiting_review"
    report = view["report"]
    [entry] = report["feedback_log"]
    assert (revised.exit_code == 1) == bool(entry.get("error"))
    done = runner.invoke(app, [*base, "review", run["run_id"], "--approve", "--json"])
    assert done.exit_code == 0, done.output
    committed = json.loads(done.stdout)
    assert committed["status"] == "committed"
    concepts = json.loads(runner.invoke(app, [*base, "concepts", "--json"]).stdout)
    # Approving writes the undecided concepts the doubt flags did not flag, as the review said.
    unflagged = [c for c in report["concepts"] if not (c.get("doubt") or {}).get("doubtful")]
    assert all(c.get("doubt") for c in report["concepts"])
    assert len(concepts) == len(unflagged) == report["review"]["writes"]["concepts"]
    notes = list((local_home / "vault" / "08 - Ideas").glob("*.md"))
    assert len(notes) == len(concepts)


def test_ask_end_to_end_with_the_local_model(
    local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cited answer from the offline 0.5B model: every [n] marker maps to a passage shown,
    and the answer is stored with its citations. Structure only, never wording."""
    import re

    from zettelgraph.store import open_store

    monkeypatch.setenv("ZETTELGRAPH_LOCAL_THREADS", "1")
    monkeypatch.setenv("ZETTELGRAPH_LOCAL_CONTEXT", "4096")
    # Off by default on the local models (no model call at ingest): on here, so the compact
    # summary goes through the real model.
    monkeypatch.setenv("ZETTELGRAPH_BOOK_SUMMARY", "true")
    example = Path(__file__).resolve().parents[2] / "examples" / "meditations.md"
    runner = CliRunner()
    base = ["--home", str(local_home), "--llm", "local:0.5b"]
    assert runner.invoke(app, [*base, "ingest", str(example)]).exit_code == 0
    result = runner.invoke(
        app,
        [*base, "ask", "What makes our life, according to Marcus Aurelius?", "-k", "3", "--json"],
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    shown = {p["n"] for p in answer["passages"]}
    assert shown and shown <= {1, 2, 3}
    markers = {int(n) for n in re.findall(r"\[(\d+)\]", answer["answer"])}
    cited = {c["n"] for c in answer["citations"] if c["cited"]}
    assert markers == cited
    assert cited <= shown
    assert answer["answerable"] == bool(cited)
    assert answer["answer"].strip()
    store = open_store(Settings(home=local_home).store_url)
    try:
        stored = {a.id: a for a in store.answers(limit=10)}
        assert answer["answer_id"] in stored
        cites = store.relations(answer["answer_id"], relation_type="CITES")
        by_n = {p["n"]: p["passage_id"] for p in answer["passages"]}
        assert {r.target_id for r in cites} == {by_n[n] for n in cited}
    finally:
        store.close()


def test_an_experiment_end_to_end_with_the_local_model(
    local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An experiment over an example on the offline 0.5B model, through its review to the
    report: the plan names registered tools only, and every insight kept cites a passage the
    report lists. Structure only, never wording. (Meditations, as ingested by the tests
    above: ingesting it again makes no call.)"""
    from zettelgraph.experiments.tools import TOOLS

    monkeypatch.setenv("ZETTELGRAPH_LOCAL_THREADS", "1")
    monkeypatch.setenv("ZETTELGRAPH_LOCAL_CONTEXT", "8192")
    example = Path(__file__).resolve().parents[2] / "examples" / "meditations.md"
    runner = CliRunner()
    base = ["--home", str(local_home), "--llm", "local:0.5b"]
    ingested = runner.invoke(app, [*base, "ingest", str(example), "--json"])
    assert ingested.exit_code == 0, ingested.output
    [content] = json.loads(ingested.stdout)["contents"]
    new = runner.invoke(
        app,
        [
            *base,
            *("experiment", "new", "--type", "single_document", "--term", "life"),
            *("--contents", content["id"], "--json"),
        ],
    )
    assert new.exit_code == 0, new.output
    proposed = json.loads(new.stdout)
    assert proposed["status"] == "awaiting_review"
    plan = proposed["recommended_strategy"]
    assert set(plan) == {content["id"]}
    assert all(name in TOOLS for names in plan.values() for name in names)
    done = runner.invoke(
        app, [*base, "experiment", "review", proposed["id"], "--approve", "--json"]
    )
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["status"] == "completed"
    assert Path(result["report_path"]).is_file()
    listed = {p["n"] for p in result["synthesis"]["passages"]}
    for insight in result["synthesis"]["insights"]:
        assert insight["citations"] and set(insight["citations"]) <= listed
    calls = {c["name"] for c in result["llm_calls"]}
    assert calls >= {"experiment_analysis", "experiment_strategy"}
