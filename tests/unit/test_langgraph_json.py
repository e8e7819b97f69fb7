"""`langgraph.json` lists every workflow, and each entry builds its graph the way LangGraph's
server does: the file imported by path, the factory called, what it returns entered as an
async context manager. Settings come from the environment (a private home, the fake LLM)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import sqlite3
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from zettelgraph.context import Services
from zettelgraph.workflows.quote_parse.graph import build_quote_parse_graph
from zettelgraph.workflows.studio import Graph, graph_with_services

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / "src" / "zettelgraph" / "workflows"
CONFIG = json.loads((REPO / "langgraph.json").read_text(encoding="utf-8"))

# Nodes each workflow must have: its start and the steps a reader watches in Studio.
EXPECTED_NODES = {
    "quote_parse": {"read_file", "parse_quotes", "write_to_db"},
    "concept_extraction": {
        "check_content_processed",
        "extract_batch",
        "present_for_review",
        "commit",
        "write_vault",
    },
    "graph_extraction": {"load_content", "extract_batch", "present_for_review", "commit"},
    "learning_items": {"select_targets", "write_question", "write"},
    "experiment": {"analyze", "review", "run_tools", "write_report"},
}


def _path(entry: str | dict[str, Any]) -> str:
    return entry if isinstance(entry, str) else str(entry["path"])


def _load(graph_id: str, entry: str) -> Any:
    """The entry's function, loaded from its file as `langgraph dev` loads it."""
    file, _, function = entry.rpartition(":")
    name = f"langgraph_entry_{graph_id}"
    spec = importlib.util.spec_from_file_location(name, REPO / file)
    assert spec is not None and spec.loader is not None, entry
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return getattr(module, function)


async def _enter(factory: Any) -> Graph:
    async with factory() as graph:
        result: Graph = graph
    return result


@pytest.fixture
def fake_environment(monkeypatch: pytest.MonkeyPatch, isolated_env: Path) -> Path:
    monkeypatch.setenv("ZETTELGRAPH_LLM", "fake")
    monkeypatch.setenv("ZETTELGRAPH_EMBEDDINGS", "hash")
    return isolated_env


def test_the_config_has_the_fields_langgraph_reads() -> None:
    cli_config = pytest.importorskip("langgraph_cli.config", reason="langgraph-cli[inmem]")
    validated = cli_config.validate_config_file(REPO / "langgraph.json")
    assert set(validated["graphs"]) == set(EXPECTED_NODES)
    assert CONFIG["dependencies"] == ["."]
    assert CONFIG["python_version"] == "3.11"
    assert CONFIG["env"] == ".env"
    assert set(CONFIG["graphs"]) == set(EXPECTED_NODES)


@pytest.mark.parametrize("graph_id", sorted(EXPECTED_NODES))
def test_each_entry_builds_its_graph_from_the_environment(
    graph_id: str, fake_environment: Path
) -> None:
    factory = _load(graph_id, _path(CONFIG["graphs"][graph_id]))
    graph = asyncio.run(_enter(factory))
    assert graph.name == graph_id
    assert EXPECTED_NODES[graph_id] <= set(graph.nodes)
    # The server attaches its own checkpointer (that is how Studio resumes a review).
    assert graph.checkpointer is None
    # Services were opened from the environment: the store lives in ZETTELGRAPH_HOME.
    assert (fake_environment / "zettelgraph.db").is_file()


def test_every_workflow_graph_has_an_entry() -> None:
    """A new workflow folder with a graph.py cannot be forgotten in langgraph.json."""
    listed = {_path(entry) for entry in CONFIG["graphs"].values()}
    graph_files = sorted(WORKFLOWS.glob("*/graph.py"))
    assert graph_files
    for file in graph_files:
        source = file.read_text(encoding="utf-8")
        assert re.search(r"^def build_\w+_graph\(", source, re.MULTILINE), file
        # The entry langgraph.json names: the graph's builder with services from the environment.
        entry = r"^make_graph = entry_point\(build_\w+_graph\)$"
        assert re.search(entry, source, re.MULTILINE), file
        relative = file.relative_to(REPO).as_posix()
        assert f"./{relative}:make_graph" in listed, f"{relative} is not in langgraph.json"
        assert CONFIG["graphs"].get(file.parent.name), f"no graph named {file.parent.name}"


def test_the_services_are_closed_when_the_server_is_done(fake_environment: Path) -> None:
    opened: list[Services] = []

    def build(services: Services) -> Graph:
        opened.append(services)
        return build_quote_parse_graph(services)

    asyncio.run(_enter(lambda: graph_with_services(build)))
    with pytest.raises(sqlite3.ProgrammingError):
        opened[0].store.list_contents()


def test_studio_gets_each_input_schema(fake_environment: Path) -> None:
    for graph_id, entry in sorted(CONFIG["graphs"].items()):
        graph = asyncio.run(_enter(_load(graph_id, _path(entry))))
        assert graph.get_input_jsonschema()["properties"], graph_id
