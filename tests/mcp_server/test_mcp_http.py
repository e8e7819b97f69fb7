"""`zettelgraph mcp --transport http`: the SDK's streamable HTTP client against the served
command, and the web app's rule (loopback only without ZETTELGRAPH_WEB_TOKEN; with it, every
request carries the token)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from starlette.testclient import TestClient
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.mcp_server.server import build_server, http_app
from zettelgraph.mcp_server.state import open_state
from zettelgraph.services.http_security import WebConfigError
from zettelgraph.settings import Settings
from zettelgraph.store.falkordb_server import free_port

TOKEN = "a-long-random-secret-for-tests"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """`zettelgraph mcp --transport http` on a free loopback port; its URL."""
    port = free_port()
    env = {
        **os.environ,
        "ZETTELGRAPH_HOME": str(tmp_path / "home"),
        "ZETTELGRAPH_LLM": "fake",
        "ZETTELGRAPH_EMBEDDINGS": "hash",
    }
    command = "from zettelgraph.cli.app import main; main()"
    process = subprocess.Popen(
        [sys.executable, "-c", command, "mcp", "--transport", "http", "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    _, err = process.communicate(timeout=5)
                    pytest.fail(f"the server did not start: {err.decode(errors='replace')}")
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_streamable_http_client_lists_tools_and_searches(served: str) -> None:
    async def session() -> None:
        async with Client(served) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"search", "ask", "pending_reviews"} <= names
            found = await client.call_tool("search", {"query": "anything"})
            assert not found.is_error and found.structured_content == {
                "query": "anything",
                "passages": [],
            }

    anyio.run(session)


def test_with_the_web_token_every_request_needs_it(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", llm="fake", embeddings="hash")
    with open_state(settings) as state:
        served = http_app(build_server(state), "127.0.0.1", TOKEN)
        with TestClient(served, base_url="http://127.0.0.1:8766") as client:
            bare = client.post("/mcp", json=INITIALIZE, headers=HEADERS)
            assert bare.status_code == 401 and "Bearer" in bare.text
            wrong = client.post(
                "/mcp", json=INITIALIZE, headers={**HEADERS, "authorization": "Bearer nope"}
            )
            assert wrong.status_code == 401
            right = client.post(
                "/mcp", json=INITIALIZE, headers={**HEADERS, "authorization": f"Bearer {TOKEN}"}
            )
            assert right.status_code == 200, right.text


def test_without_a_token_only_loopback_is_served(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", llm="fake", embeddings="hash")
    with open_state(settings) as state:
        server = build_server(state)
        with pytest.raises(WebConfigError, match="ZETTELGRAPH_WEB_TOKEN"):
            http_app(server, "0.0.0.0", None)
        # The SDK's DNS-rebinding check: a loopback server answers loopback Host names only.
        with TestClient(http_app(server, "127.0.0.1", None), base_url="http://evil.example") as c:
            assert c.post("/mcp", json=INITIALIZE, headers=HEADERS).status_code >= 400
        # A Host that starts as a loopback one and goes on (issue 28: the SDK let it through).
        with TestClient(http_app(server, "127.0.0.1", None), base_url="http://127.0.0.1") as c:
            for host in ("127.0.0.1:18766@evil.com", "[::1].evil", "localhost:80/x"):
                odd = c.post("/mcp", json=INITIALIZE, headers={**HEADERS, "host": host})
                assert odd.status_code == 400, host
            plain = c.post("/mcp", json=INITIALIZE, headers={**HEADERS, "host": "127.0.0.1:8"})
            assert plain.status_code != 400, plain.text

        # A page of another app on this machine (another port): its browser says so, by Origin or
        # Sec-Fetch-Site; the SDK allowed an Origin of any port on 127.0.0.1.
        with TestClient(http_app(server, "127.0.0.1", None), base_url="http://127.0.0.1:8766") as c:
            for said in (
                {"origin": "http://127.0.0.1:9999"},
                {"origin": "http://localhost:8765"},
                {"sec-fetch-site": "same-site"},
                {"sec-fetch-site": "cross-site", "origin": "http://127.0.0.1:8766"},
            ):
                other = c.post("/mcp", json=INITIALIZE, headers={**HEADERS, **said})
                assert other.status_code == 403, said
            own = c.post(
                "/mcp",
                json=INITIALIZE,
                headers={
                    **HEADERS,
                    "origin": "http://127.0.0.1:8766",
                    "sec-fetch-site": "same-origin",
                },
            )
            assert own.status_code == 200, own.text


def test_cli_refuses_other_hosts_and_transports(tmp_path: Path) -> None:
    runner = CliRunner()
    home = ["--home", str(tmp_path / "home")]
    wide = runner.invoke(app, [*home, "mcp", "--transport", "http", "--host", "0.0.0.0"])
    assert wide.exit_code == 2 and "ZETTELGRAPH_WEB_TOKEN" in wide.output
    odd = runner.invoke(app, [*home, "mcp", "--transport", "pigeon"])
    assert odd.exit_code == 2 and "stdio, http" in odd.output
    assert not (tmp_path / "home").exists()  # refused before anything was opened
