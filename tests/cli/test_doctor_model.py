"""`doctor`'s one tiny structured call: one line that says what failed, or ok with the
latency; and the one-line hint when a better model than the offline one is at hand."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.context import open_services
from zettelgraph.llm.better import better_model_hint, billions, larger_chat_models
from zettelgraph.llm.factory import ChatModels
from zettelgraph.services.model_check import failure
from zettelgraph.settings import Settings


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GOOGLE_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    # Nothing listens there: the hint's look for an Ollama server finds none, at once.
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{closed_port()}")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def doctor(home: Path, *flags: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        app, ["--home", str(home), *flags, "--embeddings", "hash", "doctor", "--json"]
    )
    checks = {c["check"]: c for c in json.loads(result.stdout)}
    return result.exit_code, checks["llm"]


def test_ok_with_the_latency(tmp_path: Path) -> None:
    code, llm = doctor(tmp_path, "--llm", "fake")
    assert code == 0 and llm["ok"]
    assert llm["detail"].startswith("fake: ok, a structured answer in ")
    assert llm["detail"].endswith(" s") and "\n" not in llm["detail"]


def test_a_missing_key_is_named(tmp_path: Path) -> None:
    code, llm = doctor(tmp_path, "--llm", "openai:gpt-4.1-mini")
    assert code == 1 and not llm["ok"]
    assert llm["detail"] == "openai:gpt-4.1-mini: key missing: set OPENAI_API_KEY"


def test_an_unreachable_server_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv("ZETTELGRAPH_LLM_BASE_URL", url)
    code, llm = doctor(tmp_path, "--llm", "openai-compatible:qwen")
    assert code == 1
    assert llm["detail"] == f"openai-compatible:qwen: unreachable: no answer from {url}"


def provider_error(status: int, message: str) -> openai.APIStatusError:
    """The exception the OpenAI client raises for an answer with this status and body."""
    request = httpx.Request("POST", "https://api.openai.com/v1/chat/completions")
    body = {"error": {"message": message}}
    response = httpx.Response(status, json=body, request=request)
    return openai.OpenAI(api_key="sk-test")._make_status_error(
        message, body=body, response=response
    )


@pytest.mark.parametrize(
    ("status", "message", "said"),
    [
        (404, "The model `gpt-9` does not exist", "model not found (404)"),
        (
            400,
            "Invalid schema for response_format 'x': 'maxLength' is not permitted",
            "schema refused (400)",
        ),
        (401, "Incorrect API key provided", "key refused (401): check OPENAI_API_KEY"),
    ],
)
def test_provider_refusals_are_named(tmp_path: Path, status: int, message: str, said: str) -> None:
    services = open_services(Settings(home=tmp_path, llm="fake", embeddings="hash"))
    try:
        refused = RuntimeError("LLM call 'health_check' was refused")
        refused.__cause__ = provider_error(status, message)
        assert failure("openai:gpt-4.1-mini", refused, services).startswith(said)
    finally:
        services.close()


def test_a_key_in_the_environment_is_a_better_model_at_hand(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert better_model_hint() is None
    monkeypatch.setenv("GOOGLE_API_KEY", "not-a-real-key")
    hint = better_model_hint()
    assert hint is not None and "\n" not in hint
    assert hint.startswith("GOOGLE_API_KEY is set: ZETTELGRAPH_LLM=google_genai:gemini-2.5-flash")
    # The notice said before the offline model loads carries it, in one line.
    notices: list[str] = []
    ChatModels(Settings(home=tmp_path), on_notice=notices.append)._small_model_notice("local")
    [line] = notices
    assert "a better one is at hand: GOOGLE_API_KEY is set" in line


def test_ollama_models_larger_than_the_offline_one() -> None:
    tags = {
        "models": [
            {"name": "qwen2.5:0.5b", "details": {"family": "qwen2", "parameter_size": "494.03M"}},
            {
                "name": "mxbai-embed-large:latest",
                "details": {"family": "bert", "parameter_size": "334M"},
            },
            {"name": "qwen3:8b", "details": {"family": "qwen3", "parameter_size": "8.2B"}},
            {"name": "llama3.2:3b", "details": {"family": "llama", "parameter_size": "3.2B"}},
        ]
    }
    assert larger_chat_models(tags) == ["qwen3:8b", "llama3.2:3b"]
    assert (billions("7.6B"), billions("500M"), billions("?")) == (7.6, 0.5, 0.0)
