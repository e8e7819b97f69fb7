"""The README's promises stay true: CI runs its test command; docs name every setting."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.settings import Settings

REPO = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.+?)\n```", text, flags=re.S)


def test_readme_starts_with_exactly_two_commands() -> None:
    commands = readme_commands()
    assert len(commands) == 2
    assert all("\n" not in command for command in commands)
    setup_and_run, test = commands
    assert "zettelgraph run examples/" in setup_and_run and "[local]" in setup_and_run
    assert "pytest" in test and "mypy" in test and "ruff format --check" in test


def test_ci_runs_the_readme_test_command() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_commands()[1] in ci.splitlines()


def test_configuration_docs_name_every_setting() -> None:
    docs = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [
        f"ZETTELGRAPH_{name.upper()}"
        for name in Settings.model_fields
        if f"`ZETTELGRAPH_{name.upper()}`" not in docs
    ]
    assert missing == []


def test_readme_names_every_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = [command.name for command in app.registered_commands if command.name]
    assert "ingest" in commands
    assert CliRunner().invoke(app, ["--help"]).exit_code == 0
    assert [c for c in commands if f"zettelgraph {c}" not in readme] == []
