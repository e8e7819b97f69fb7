"""`zettelgraph packs list | show | validate` on the shipped packs and on files of a test's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from zettelgraph.cli.app import app

GOOD = """\
name: ships
version: "2"
description: Ships and ports.
entity_types:
  - name: Ship
    description: A ship.
relationship_types:
  - name: ESCORTS
    description: A sails beside B to protect it.
    source_types: [Ship]
    target_types: [Ship]
"""


def run(*args: str, home: Path) -> Any:
    return CliRunner().invoke(app, ["--home", str(home), *args], catch_exceptions=False)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_list_shows_every_pack_where_it_is_and_whether_it_is_active(tmp_path: Path) -> None:
    write(tmp_path / "packs" / "ships.yaml", GOOD)
    result = run("packs", "list", "--json", home=tmp_path)
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    by_name = {row["name"]: row for row in listed["packs"]}
    assert sorted(by_name) == ["narrative", "research", "ships", "zettelkasten"]
    assert listed["active"] == ["zettelkasten", "narrative", "research"]
    assert by_name["ships"]["source"] == "user" and not by_name["ships"]["active"]
    assert by_name["zettelkasten"]["entity_types"] == ["Concept"]
    assert by_name["zettelkasten"]["relationship_types"] == 11
    text = run("packs", "list", home=tmp_path)
    assert text.exit_code == 0
    assert "* zettelkasten v1" in text.stdout and "  ships v2" in text.stdout


def test_list_shows_a_broken_pack_with_its_error(tmp_path: Path) -> None:
    write(tmp_path / "packs" / "ships.yaml", GOOD.replace("    target_types", "    targets"))
    listed = json.loads(run("packs", "list", "--json", home=tmp_path).stdout)
    broken = next(row for row in listed["packs"] if row["name"] == "ships")
    assert "ships.yaml:11: relationship_types.0.targets: unknown field" in broken["error"]


def test_show_prints_types_endpoints_reverses_and_colours(tmp_path: Path) -> None:
    result = run("packs", "show", "narrative", home=tmp_path)
    assert result.exit_code == 0, result.output
    for expected in ("Person", "born (integer)", "WROTE", "WRITTEN_BY", "symmetric", "one-way"):
        assert expected in result.stdout
    assert "#b45309" in result.stdout  # WROTE's colour
    shown = json.loads(run("packs", "show", "zettelkasten", "--json", home=tmp_path).stdout)
    by_name = {r["name"]: r for r in shown["relationship_types"]}
    assert by_name["GENERALIZES"]["reverse"] == "SPECIFIC_OF"
    assert by_name["OPPOSES"]["symmetric"] and by_name["OPPOSES"]["stance"] == "opposes"
    assert by_name["SUPPORTS"]["color"] == "#16a34a"
    assert by_name["SUPPORTS"]["source_types"] == ["Concept"]


def test_show_yaml_prints_the_file_to_copy_and_edit(tmp_path: Path) -> None:
    result = run("packs", "show", "research", "--yaml", home=tmp_path)
    assert result.exit_code == 0
    copy = write(tmp_path / "packs" / "research.yaml", result.stdout)
    assert run("packs", "validate", str(copy), home=tmp_path).exit_code == 0


def test_show_an_unknown_pack_fails_listing_the_known_ones(tmp_path: Path) -> None:
    result = run("packs", "show", "novels", home=tmp_path)
    assert result.exit_code == 1
    assert "no pack named 'novels'" in result.stderr and "narrative" in result.stderr


def test_validate_a_good_pack_says_what_it_holds(tmp_path: Path) -> None:
    path = write(tmp_path / "ships.yaml", GOOD)
    result = run("packs", "validate", str(path), home=tmp_path)
    assert result.exit_code == 0, result.output
    assert "pack 'ships' v2 is valid: 1 entity type, 1 relationship type;" in result.stdout
    report = json.loads(run("packs", "validate", str(path), "--json", home=tmp_path).stdout)
    assert report["valid"] and report["relationship_types"] == ["ESCORTS"]
    assert report["merged_with"] == ["zettelkasten", "narrative", "research"]


def test_validate_a_malformed_pack_exits_1_naming_the_line(tmp_path: Path) -> None:
    cases = {
        "syntax": (GOOD.replace("    description: A ship.", "    description: [A ship."), 7),
        "unknown-field": (GOOD.replace("  - name: ESCORTS", "  - name: ESCORTS\n    sym: 1"), 9),
        "bad-name": (GOOD.replace("name: Ship", "name: ship"), 5),
        "reverse-nowhere": (GOOD + "    reverse: ESCORTED_BY\n", 12),
        "endpoint-undefined": (GOOD.replace("target_types: [Ship]", "target_types: [Port]"), 11),
        "conflict": (GOOD.replace("name: ESCORTS", "name: KNOWS"), 8),
    }
    for case, (text, line) in cases.items():
        path = write(tmp_path / f"{case}.yaml", text)
        result = run("packs", "validate", str(path), home=tmp_path)
        assert result.exit_code == 1, (case, result.output)
        assert f"{path}:{line}: " in result.stderr, (case, result.stderr)
        report = json.loads(run("packs", "validate", str(path), "--json", home=tmp_path).stdout)
        assert not report["valid"] and f"{path}:{line}: " in report["error"]
    syntax = run("packs", "validate", str(tmp_path / "syntax.yaml"), home=tmp_path).stderr
    assert "flow sequence that begins on line 6" in syntax
    conflict = run("packs", "validate", str(tmp_path / "conflict.yaml"), home=tmp_path).stderr
    assert "packs 'narrative' and 'ships'" in conflict
