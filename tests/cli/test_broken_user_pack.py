"""A broken pack in the user's pack folder (issue 28, item 6): commands that do not extract
with it keep working, warning with the file and the problem, on the shipped pack of its name;
the commands that use that pack itself report the error. Before, one 500-byte file of nested
anchors hung every command for minutes, and `&a [*a]` ended each in a RecursionError."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app

BROKEN = {
    "nested anchors": "x0: &a0 [x, x, x, x, x, x, x, x]\n"
    + "".join(f"x{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 8)}]\n" for n in range(1, 10)),
    "alias inside itself": "entity_types: &a [*a]\n",
    "syntax": "entity_types: [Person\n",
}
# The line each is refused on: where the aliases pass 20,000 values, the alias, the end.
LINE = {"nested anchors": 7, "alias inside itself": 3, "syntax": 4}


def run(home: Path, *args: str, **env: str) -> Any:
    env = {"ZETTELGRAPH_LLM": "fake", "ZETTELGRAPH_EMBEDDINGS": "hash", **env}
    return CliRunner().invoke(app, ["--home", str(home), *args], env=env, input="")


def broken_pack(home: Path, kind: str, name: str = "narrative") -> Path:
    path = home / "packs" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"name: {name}\nversion: '1'\n{BROKEN[kind]}", encoding="utf-8")
    return path


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", list(BROKEN))
def test_commands_that_do_not_extract_with_it_warn_and_go_on(tmp_path: Path, kind: str) -> None:
    path = broken_pack(tmp_path, kind)
    for command in (["contents", "--json"], ["concepts", "--json"], ["runs", "--json"]):
        result = run(tmp_path, *command)
        assert result.exit_code == 0, (command, result.output)
        json.loads(result.stdout)
        assert str(path) in result.stderr.replace("\n", "")
        assert "the shipped 'narrative' pack is used" in " ".join(result.stderr.split())
        assert "Traceback" not in result.output


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", list(BROKEN))
def test_commands_that_use_the_pack_report_its_error(tmp_path: Path, kind: str) -> None:
    path = broken_pack(tmp_path, kind)
    shown = run(tmp_path, "packs", "show", "narrative")
    at = f"{path}:{LINE[kind]}: "
    assert shown.exit_code == 1 and at in shown.stderr.replace("\n", "")
    checked = run(tmp_path, "packs", "validate", str(path))
    assert checked.exit_code == 1 and at in checked.stderr.replace("\n", "")
    listed = json.loads(run(tmp_path, "packs", "list", "--json").stdout)
    assert any(row["name"] == "narrative" and "error" in row for row in listed["packs"])


def test_a_broken_active_pack_of_the_users_own_is_left_out(tmp_path: Path) -> None:
    path = broken_pack(tmp_path, "syntax", name="ships")
    result = run(tmp_path, "contents", "--json", ZETTELGRAPH_PACKS="zettelkasten,ships")
    assert result.exit_code == 0, result.output
    assert str(path) in result.stderr.replace("\n", "")
    assert "so it is left out" in " ".join(result.stderr.split())


@pytest.mark.timeout(120)
def test_the_mcp_server_starts_with_a_broken_user_pack(tmp_path: Path) -> None:
    path = broken_pack(tmp_path, "alias inside itself")
    result = run(tmp_path, "mcp")  # stdio, and no client: it starts and ends at once
    assert result.exit_code == 0, result.output
    assert str(path) in result.stderr.replace("\n", "")


@pytest.mark.timeout(120)
def test_the_web_app_starts_with_a_broken_user_pack(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = broken_pack(tmp_path, "nested anchors")
    settings = Settings(home=tmp_path, llm="fake", embeddings="hash")
    with (
        caplog.at_level(logging.WARNING),
        TestClient(create_app(settings), base_url="http://127.0.0.1") as client,
    ):
        assert client.get("/api/contents").json() == []
    assert any(str(path) in record.getMessage() for record in caplog.records)
