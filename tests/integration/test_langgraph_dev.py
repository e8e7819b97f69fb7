"""`langgraph dev` (langgraph-cli[inmem]) serves every workflow of `langgraph.json`: the server
starts headless, lists one assistant per graph, draws each graph (which calls its factory), and
runs quote_parse on an example file with the fake LLM.

The server runs in a temporary folder (it keeps its threads in `.langgraph_api/` there) with a
copy of the repository's config whose paths are made absolute."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from zettelgraph.store.falkordb_server import free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

REPO = Path(__file__).resolve().parents[2]
LANGGRAPH = Path(sys.executable).with_name("langgraph")
STARTUP_SECONDS = 90


def _config_in(folder: Path) -> Path:
    config = json.loads((REPO / "langgraph.json").read_text(encoding="utf-8"))
    config["dependencies"] = [str(REPO)]
    for graph_id, entry in config["graphs"].items():
        path = entry if isinstance(entry, str) else entry["path"]
        absolute = str(REPO / path)
        config["graphs"][graph_id] = (
            absolute if isinstance(entry, str) else {**entry, "path": absolute}
        )
    file = folder / "langgraph.json"
    file.write_text(json.dumps(config), encoding="utf-8")
    return file


@pytest.fixture
def server(tmp_path: Path, isolated_env: Path) -> Iterator[str]:
    if not LANGGRAPH.is_file():
        pytest.skip("langgraph-cli[inmem] is not installed (pip install -e '.[dev]')")
    port = free_port()
    env = {
        **os.environ,
        "ZETTELGRAPH_LLM": "fake",
        "ZETTELGRAPH_EMBEDDINGS": "hash",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        # A developer's tracing settings must not send test runs to LangSmith.
        "LANGSMITH_TRACING": "false",
    }
    work = tmp_path / "server"
    work.mkdir()
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        [
            str(LANGGRAPH),
            "dev",
            "--no-browser",
            "--no-reload",
            "--port",
            str(port),
            "--config",
            str(_config_in(work)),
        ],
        cwd=work,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if process.poll() is not None:
                pytest.fail((tmp_path / "server.log").read_text(errors="replace")[-3000:])
            try:
                if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("langgraph dev did not answer /ok in time")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def test_langgraph_dev_serves_every_workflow(
    server: str, isolated_env: Path, tmp_path: Path
) -> None:
    config = json.loads((REPO / "langgraph.json").read_text(encoding="utf-8"))
    with httpx.Client(base_url=server, timeout=60) as client:
        assistants = client.post("/assistants/search", json={"limit": 50}).json()
        by_graph = {a["graph_id"]: a["assistant_id"] for a in assistants}
        assert set(by_graph) == set(config["graphs"])
        for graph_id, assistant in by_graph.items():
            drawn = client.get(f"/assistants/{assistant}/graph")
            assert drawn.status_code == 200, (graph_id, drawn.text)
            assert len(drawn.json()["nodes"]) > 3, graph_id

        notes = tmp_path / "meditations.md"
        shutil.copy(REPO / "examples" / "meditations.md", notes)
        thread = client.post("/threads", json={}).json()["thread_id"]
        result: dict[str, Any] = client.post(
            f"/threads/{thread}/runs/wait",
            json={"assistant_id": by_graph["quote_parse"], "input": {"file_path": str(notes)}},
        ).json()
    assert result.get("status") == "new", result
    assert result["quotes_total"] > 0
    # The run wrote to the store of ZETTELGRAPH_HOME, as the CLI would.
    assert (isolated_env / "zettelgraph.db").is_file()
