"""Fixtures for the web app: a home with ingested notes, the app over it, and a TestClient.

The store and checkpoints are real SQLite files in the test's tmp dir; the only stand-in is
the LLM (the `fake` provider, scriptable per call name through `Web.llm.replies`). Clients
use the base URL http://127.0.0.1: the app refuses TestClient's default Host "testserver",
since without a token it answers loopback names only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from zettelgraph.cli.app import app as cli_app
from zettelgraph.context import Services, open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app
from zettelgraph.web.state import WebState

REPO = Path(__file__).resolve().parents[2]
MEDITATIONS = REPO / "examples" / "meditations.md"
BASE_URL = "http://127.0.0.1"
FAKE = {"llm": "fake", "embeddings": "hash", "llm_backoff": 0.0}


def cli(home: Path, *args: str) -> Any:
    """The CLI as a user runs it, on the fake LLM and the hash embedder."""
    return CliRunner().invoke(
        cli_app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


def ingest(home: Path, path: Path, *flags: str) -> str:
    """Ingest one file with `zettelgraph ingest`; its content id."""
    result = cli(home, "ingest", str(path), *flags, "--json")
    assert result.exit_code == 0, result.output
    import json

    content_id: str = json.loads(result.stdout)["contents"][0]["id"]
    return content_id


@dataclass
class Web:
    """A running app (lifespan entered) over one home, and what tests need around it."""

    client: TestClient
    home: Path
    llm: FakeChatModel
    services: Services

    @property
    def state(self) -> WebState:
        web: WebState = self.client.app.state.web  # type: ignore[attr-defined]
        return web

    def csrf(self) -> dict[str, str]:
        """The header a cookie-authenticated POST needs (the session cookie is in the client)."""
        token = self.client.get("/api/csrf").json()["csrf_token"]
        return {"X-CSRF-Token": token}

    def form(self, **fields: Any) -> dict[str, Any]:
        """A form's fields with the CSRF token its page would carry."""
        return {"csrf_token": self.csrf()["X-CSRF-Token"], **fields}

    def content_id(self, title: str = "Meditations") -> str:
        [found] = [
            row["id"] for row in self.client.get("/api/contents").json() if row["title"] == title
        ]
        content_id: str = found
        return content_id

    def start_run(self, content_id: str | None = None) -> dict[str, Any]:
        """A run waiting for review, started with the service the API calls."""
        view = self.state.runs.start(content_id or self.content_id())
        assert view.status == "awaiting_review", view
        return view.as_dict()

    def concept_count(self) -> int:
        return len(self.services.store.list_concepts())


MakeWeb = Callable[..., Web]


@pytest.fixture
def make_web(tmp_path: Path) -> Iterator[MakeWeb]:
    """`make(*files, **settings)`: a fresh home with `files` ingested, then the app over it."""
    opened: list[Web] = []

    def make(*files: Path, **settings: Any) -> Web:
        home = tmp_path / f"home{len(opened)}"
        for path in files:
            ingest(home, path)
        chosen = Settings(home=home, **{**FAKE, **settings})
        llm = FakeChatModel()
        services = open_services(chosen, llms=ChatModels(chosen, preset={"fake": llm}))
        client = TestClient(create_app(chosen, services=services), base_url=BASE_URL)
        client.__enter__()
        opened.append(Web(client=client, home=home, llm=llm, services=services))
        return opened[-1]

    yield make
    for web in opened:
        web.client.__exit__(None, None, None)
        web.services.close()


@pytest.fixture
def web(make_web: MakeWeb) -> Web:
    """The app over a home where examples/meditations.md is ingested (no run yet)."""
    return make_web(MEDITATIONS)
