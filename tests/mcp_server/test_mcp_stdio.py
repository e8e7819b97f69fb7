"""`zettelgraph mcp` driven by the MCP SDK's own client over stdio, as Claude Desktop or an IDE
launches it: a real SQLite store and checkpoints, the fake LLM and the hash embedder, over a
home where the examples were ingested, Meditations' run approved and Walden's left waiting."""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.types import CallToolResult
from typer.testing import CliRunner

from zettelgraph.cli.app import app

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
READ_TOOLS = {
    "search",
    "ask",
    "list_concepts",
    "get_concept",
    "neighbours",
    "list_contents",
    "passage_in_context",
}
RUN_TOOLS = {"ingest_notes", "pending_reviews", "start_extraction"}
NOTE = """---
title: Ensayos
author: Michel de Montaigne
---

# Citas

Cada hombre lleva en sí la forma entera de la condición humana.
12
"""


def cli(home: Path, *args: str) -> Any:
    result = CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with the examples ingested, one run approved and one waiting for review."""
    home = tmp_path_factory.mktemp("library") / "home"
    cli(home, "ingest", str(EXAMPLES))
    cli(home, "run", str(EXAMPLES / "meditations.md"))
    cli(home, "review", "--approve")
    cli(home, "run", str(EXAMPLES / "walden.md"))
    return home


@pytest.fixture
def home(library: Path, tmp_path: Path) -> Path:
    """A copy of the library, so what one test writes (answers, runs) no other test sees."""
    copy = tmp_path / "home"
    shutil.copytree(library, copy)
    return copy


def serve(home: Path, **settings: str) -> Client:
    """The SDK client launching `zettelgraph mcp` over stdio with these ZETTELGRAPH_ settings."""
    env = {
        "ZETTELGRAPH_HOME": str(home),
        "ZETTELGRAPH_LLM": "fake",
        "ZETTELGRAPH_EMBEDDINGS": "hash",
        **{f"ZETTELGRAPH_{name.upper()}": value for name, value in settings.items()},
        # The SDK passes the server only a few variables: keep the package under test.
        **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
    }
    command = "from zettelgraph.cli.app import main; main()"
    return Client(
        StdioServerParameters(
            command=sys.executable, args=["-c", command, "mcp"], env=env, cwd=str(home.parent)
        ),
        read_timeout_seconds=120,
    )


def run(session: Callable[[], Awaitable[None]]) -> None:
    anyio.run(session)


def data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    return " ".join(getattr(block, "text", "") for block in result.content)


def test_reading_tools_and_resources(home: Path) -> None:
    async def session() -> None:
        async with serve(home) as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert listed >= READ_TOOLS | RUN_TOOLS
            assert "approve_run" not in listed  # not even offered by default
            assert "decide_items" not in listed and "review_items" in listed
            assert client.instructions and "review" in client.instructions

            found = data(await client.call_tool("search", {"query": "our thoughts", "k": 3}))
            assert 1 <= len(found["passages"]) <= 3
            first = found["passages"][0]
            assert first["n"] == 1 and first["text"]
            assert first["citation"].startswith(first["content_title"])
            assert first["source_uri"] == f"zettelgraph://contents/{first['content_id']}"

            # The fake model answers some questions and not others (a function of the prompt):
            # every answer's [n] markers name passages it was shown and marked as cited.
            answered = []
            for question in ("What do our thoughts make?", "What makes life happy?"):
                answer = data(await client.call_tool("ask", {"question": question}))
                marks = {int(n) for n in re.findall(r"\[(\d+)\]", answer["answer"])}
                cited = {p["n"] for p in answer["passages"] if p["cited"]}
                assert marks == cited and answer["answerable"] == bool(cited)
                answered.extend(marks)
            assert answered

            concepts = data(await client.call_tool("list_concepts", {}))
            assert concepts["total"] >= 1
            row = concepts["concepts"][0]
            concept = data(await client.call_tool("get_concept", {"concept_id": row["id"][:8]}))
            assert concept["id"] == row["id"] and concept["title"] == row["title"]
            assert concept["quotes"] and concept["quotes"][0]["content_title"] == "Meditations"
            around = data(await client.call_tool("neighbours", {"concept_id": row["id"]}))
            assert around["centre"]["id"] == row["id"]
            assert all(node["hops"] >= 1 for node in around["nodes"])
            missing = await client.call_tool("get_concept", {"concept_id": "nope"})
            assert "list_concepts" in error_text(missing)

            cited = concept["quotes"][0]
            read = data(
                await client.call_tool("passage_in_context", {"passage_id": cited["passage_id"]})
            )
            assert read["passage"]["text"] == cited["text"]
            assert read["before"] or read["after"]  # Meditations has three passages
            for near in (*read["before"], *read["after"]):
                assert near["content_title"] == "Meditations" and near["text"] != cited["text"]
            missing = await client.call_tool("passage_in_context", {"passage_id": "nope"})
            assert "no passage 'nope'" in error_text(missing)

            sources = data(await client.call_tool("list_contents", {}))["contents"]
            assert {s["title"] for s in sources} >= {"Meditations", "Walden; or, Life in the Woods"}

            waiting = data(await client.call_tool("pending_reviews", {}))
            assert [r["title"] for r in waiting["runs"]] == ["Walden; or, Life in the Woods"]
            assert waiting["approve_allowed"] is False
            assert "ZETTELGRAPH_MCP_ALLOW_APPROVE" in waiting["how_to_review"]

            refused = await client.call_tool("ingest_notes", {"paths": [str(EXAMPLES)]})
            assert "ZETTELGRAPH_MCP_ROOTS" in error_text(refused)
            unknown = await client.call_tool(
                "approve_run", {"run_id": waiting["runs"][0]["run_id"]}
            )
            assert unknown.is_error

            uris = {str(r.uri) for r in (await client.list_resources()).resources}
            assert uris == {"zettelgraph://concepts", "zettelgraph://contents"}
            templates = {
                t.uri_template for t in (await client.list_resource_templates()).resource_templates
            }
            assert templates == {
                "zettelgraph://concepts/{concept_id}",
                "zettelgraph://contents/{content_id}",
            }
            index = (await client.read_resource("zettelgraph://concepts")).contents[0]
            assert f"zettelgraph://concepts/{row['id']}" in getattr(index, "text", "")
            page = (await client.read_resource(concept["uri"])).contents[0]
            text = getattr(page, "text", "")
            assert text.startswith(f"# {concept['title']}") and "## Quotes" in text
            assert "— Meditations, Marcus Aurelius" in text
            meditations = next(s for s in sources if s["title"] == "Meditations")
            source = (await client.read_resource(meditations["uri"])).contents[0]
            assert "By Marcus Aurelius." in getattr(source, "text", "")
            with pytest.raises(MCPError, match="no concept"):
                await client.read_resource("zettelgraph://concepts/nope")

    run(session)


def test_search_and_ask_take_the_cli_filters_and_hold_a_conversation(home: Path) -> None:
    async def session() -> None:
        async with serve(home) as client:
            only = {"query": "life", "k": 5, "authors": ["Marcus Aurelius"]}
            found = data(await client.call_tool("search", only))
            assert found["passages"]
            assert {p["content_title"] for p in found["passages"]} == {"Meditations"}
            pages = data(
                await client.call_tool(
                    "search", {"query": "life", "contents": ["Meditations"], "where": ["pages=90-"]}
                )
            )
            assert [p["text"][:20] for p in pages["passages"]] == ["Very little is neede"]
            bad = await client.call_tool("search", {"query": "life", "where": ["chapters=1-2"]})
            assert bad.is_error and "chapters" in error_text(bad)

            first = data(await client.call_tool("ask", {"question": "What makes life happy?"}))
            assert first["chat_id"] and first["turn"] == 1
            follow = {"question": "And what does it need?", "chat_id": first["chat_id"]}
            second = data(await client.call_tool("ask", follow))
            assert (second["chat_id"], second["turn"]) == (first["chat_id"], 2)
            marks = {int(n) for n in re.findall(r"\[(\d+)\]", second["answer"])}
            assert marks == {p["n"] for p in second["passages"] if p["cited"]}
            unknown = await client.call_tool("ask", {"question": "Why?", "chat_id": "nope"})
            assert unknown.is_error

    run(session)


def test_ingest_inside_roots_then_extract_and_approve_when_allowed(
    home: Path, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "ensayos.md").write_text(NOTE, encoding="utf-8")
    outside = tmp_path / "private.md"
    outside.write_text(NOTE.replace("Ensayos", "Diario"), encoding="utf-8")
    (notes / "link.md").symlink_to(outside)

    async def session() -> None:
        async with serve(home, mcp_roots=str(notes), mcp_allow_approve="true") as client:
            assert "approve_run" in {tool.name for tool in (await client.list_tools()).tools}
            for escape in (str(outside), "../private.md", "link.md", str(notes)):
                refused = await client.call_tool("ingest_notes", {"paths": [escape]})
                assert "outside the folders" in error_text(refused), escape

            done = data(await client.call_tool("ingest_notes", {"paths": ["ensayos.md"]}))
            assert done["errors"] == []
            [content] = done["contents"]
            assert content["title"] == "Ensayos" and content["passages"] == 1
            assert content.get("cards_proposed") is None  # cards only when asked for
            carded = data(
                await client.call_tool("ingest_notes", {"paths": ["ensayos.md"], "cards": True})
            )
            # Straight from the passage, before any concept: they wait for the reader.
            assert carded["contents"][0]["cards_proposed"] >= 1

            steps: list[str | None] = []

            async def on_progress(done: float, total: float | None, step: str | None) -> None:
                steps.append(step)

            started = data(
                await client.call_tool(
                    "start_extraction", {"content_id": content["id"]}, progress_callback=on_progress
                )
            )
            assert "extract_batch" in steps  # each workflow step, as it finishes
            assert started["status"] == "awaiting_review" and started["started"]
            assert started["proposed"] and "zettelgraph review" in started["next_step"]
            # Ids as the CLI lists them: the first characters, `run-` or not.
            short_run, short_content = started["run_id"][4:8], content["id"][:8]
            again = data(await client.call_tool("start_extraction", {"content_id": short_content}))
            assert again["run_id"] == started["run_id"] and not again["started"]
            waiting = data(await client.call_tool("pending_reviews", {}))
            assert started["run_id"] in {r["run_id"] for r in waiting["runs"]}

            items = data(await client.call_tool("review_items", {"run_id": short_run}))
            first = items["items"][0]
            assert first["kind"] == "concept" and first["quotes"][0].startswith("q1: ")
            assert items["decide_allowed"] and "undecided" in items["summary"]
            decided = data(
                await client.call_tool(
                    "decide_items",
                    {
                        "run_id": f"run-{short_run}",
                        "decisions": [{"item": first["key"], "action": "keep"}],
                    },
                )
            )
            assert decided["items"][0]["state"] == "kept"
            wrong = await client.call_tool(
                "decide_items",
                {"run_id": started["run_id"], "decisions": [{"item": "c99", "action": "drop"}]},
            )
            assert "no item 'c99'" in error_text(wrong) or "c99" in error_text(wrong)

            before = data(await client.call_tool("list_concepts", {}))["total"]
            approved = data(await client.call_tool("approve_run", {"run_id": short_run}))
            assert approved["status"] == "committed" and approved["committed_concepts"] >= 1
            after = data(await client.call_tool("list_concepts", {}))["total"]
            assert after == before + approved["committed_concepts"]
            late = await client.call_tool("approve_run", {"run_id": started["run_id"]})
            assert "not waiting for review" in error_text(late)
            unknown = await client.call_tool("review_items", {"run_id": "run-zzzz"})
            assert "no run with id 'run-zzzz'" in error_text(unknown)

    run(session)
