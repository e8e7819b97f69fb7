"""`zettelgraph link A B TYPE --why TEXT` on a real store (hash embedder, no LLM call)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from link_graph import TITLES, make_graph
from zettelgraph.cli.app import app
from zettelgraph.context import open_services
from zettelgraph.settings import Settings


def run(home: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


def said(result: Any) -> str:
    """The output with Rich's line wrapping undone."""
    return " ".join(result.output.split())


def graph(home: Path) -> dict[str, str]:
    services = open_services(Settings(home=home, llm="fake", embeddings="hash"))
    try:
        return {key: concept.id for key, concept in make_graph(services).items()}
    finally:
        services.close()


def test_link_by_title_and_prefix_as_json(tmp_path: Path) -> None:
    ids = graph(tmp_path)
    result = run(
        tmp_path,
        "link",
        TITLES["deliberate"],
        ids["exercise"][:8],
        "generalizes",
        "--why",
        "Moverse es una forma de vivir con intención.",
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["source_id"], data["target_id"]) == (ids["deliberate"], ids["exercise"])
    assert (data["type"], data["reverse_type"]) == ("GENERALIZES", "SPECIFIC_OF")
    assert data["properties"]["provenance"] == "reader"
    assert data["properties"]["created_by"] == "reader"
    assert sorted(data["notes_written"]) == sorted([ids["deliberate"], ids["exercise"]])

    shown = run(tmp_path, "concept", ids["exercise"], "--json")
    relations = json.loads(shown.stdout)["relations"]
    assert {"type": "SPECIFIC_OF", "target_id": ids["deliberate"]}.items() <= relations[0].items()


def test_link_prints_the_pair_and_refusals_exit_1(tmp_path: Path) -> None:
    ids = graph(tmp_path)
    made = run(
        tmp_path, "link", ids["simple"], ids["exercise"], "SUPPORTS", "--why", "Menos es más."
    )
    assert made.exit_code == 0, made.output
    assert "Simplicidad voluntaria -[SUPPORTS]-> Ejercicio y cerebro" in made.stdout
    assert "-[SUPPORTED_BY]->" in made.stdout

    again = run(tmp_path, "link", ids["simple"], ids["exercise"], "SUPPORTS", "--why", "Otra vez.")
    assert again.exit_code == 1
    assert "already in the graph" in said(again)
    contradiction = run(tmp_path, "link", ids["city"], ids["simple"], "OPPOSES", "--why", "No.")
    assert contradiction.exit_code == 1 and "agree and oppose" in said(contradiction)
    unknown = run(tmp_path, "link", ids["city"], ids["simple"], "CAUSES", "--why", "Porque sí.")
    assert unknown.exit_code == 1 and "RELATES_TO" in said(unknown)
    missing_why = run(tmp_path, "link", ids["city"], ids["simple"], "RELATES_TO")
    assert missing_why.exit_code == 2 and "--why" in said(missing_why)
