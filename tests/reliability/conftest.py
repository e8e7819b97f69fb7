"""The reliability suite: what users and machines throw at zettelgraph (kills, races, bad files,
hostile web requests), on the fake model, on SQLite and on FalkorDB.

Each backend is a real store: SQLite in the test's home, FalkorDB on the session's server (a
graph of its own per test). Commands run through the real CLI, in this process (CliRunner) or,
where a process must die or race, in a child process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from web.conftest import make_web  # noqa: F401 (the web app fixture, for test_web_inputs)
from zettelgraph.cli.app import app
from zettelgraph.models import Entity, NodeLabel
from zettelgraph.settings import Settings
from zettelgraph.store import GraphStore, open_store
from zettelgraph.store.base import every_node


@dataclass
class Home:
    """One user's zettelgraph: a home folder, a store URL (None: SQLite in the home) and any
    other settings (ZETTELGRAPH_* variables)."""

    path: Path
    store_url: str | None
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def env(self) -> dict[str, str]:
        env = {"ZETTELGRAPH_HOME": str(self.path), "ZETTELGRAPH_LLM": "fake"}
        env["ZETTELGRAPH_EMBEDDINGS"] = "hash"
        if self.store_url:
            env["ZETTELGRAPH_STORE"] = self.store_url
        return {**env, **self.settings}

    def cli(self, *args: str) -> Any:
        """`zettelgraph ARGS` in this process; the result has exit_code, stdout, stderr."""
        return CliRunner().invoke(app, list(args), env=self.env)

    def json(self, *args: str) -> Any:
        result = self.cli(*args, "--json")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    def child(
        self, args: list[str], *, prelude: str = "", env: dict[str, str] | None = None
    ) -> subprocess.Popen[str]:
        """`zettelgraph ARGS` in a child process, after `prelude` (Python run first: hooks),
        with this home's settings and `env` on top."""
        code = f"{prelude}\nimport sys\nfrom zettelgraph.cli.app import main\nmain()\n"
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELGRAPH_")}
        return subprocess.Popen(
            [sys.executable, "-c", code, *args],
            env={**inherited, **self.env, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def store(self) -> GraphStore:
        return open_store(Settings(home=self.path, store=self.store_url).store_url)

    def names(self) -> dict[str, str]:
        """Every node's id -> what a reader knows it by: its title, name, text or front."""
        names: dict[str, str] = {}
        store = self.store()
        try:
            for label in NodeLabel:
                for node in store.nodes(label):
                    data = node.model_dump()
                    keys = ("title", "name", "text", "front")
                    names[node.id] = next((str(data[k]) for k in keys if data.get(k)), node.id)
        finally:
            store.close()
        return names

    def shape(self) -> dict[str, Any]:
        """The graph with ids and times replaced by what a reader sees (titles, texts): two
        runs of the same notes on the deterministic fake model have the same shape."""
        names = self.names()
        store = self.store()
        try:
            concepts = sorted(
                (c.title, c.concept, c.analysis, c.summary_short) for c in store.list_concepts()
            )
            relations = sorted(
                (r.type, names.get(r.source_id, "?"), names.get(r.target_id, "?"))
                for r in store.relations()
            )
            processed = sorted(
                (c.title, c.processed_date is not None) for c in store.list_contents()
            )
            entities = sorted(
                (
                    e.name,
                    e.entity_type,
                    e.description,
                    e.pack,
                    as_text(e.properties),
                    as_text(lasting(e.provenance)),
                    len(e.provenance.get("llm_calls") or []),
                )
                for e in every_node(store, NodeLabel.ENTITY, Entity)
            )
            return {
                "concepts": concepts,
                "entities": entities,
                "relations": relations,
                "processed": processed,
                "counts": store.counts(),
            }
        finally:
            store.close()


def as_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


# What differs between two runs of the same notes: the run's id, when it was approved, and
# the model calls' ids (which name the run).
RUN_ONLY = ("run", "runs", "approved_at", "llm_calls")


def lasting(provenance: dict[str, Any]) -> dict[str, Any]:
    """An entity's provenance without what only names the run that wrote it."""
    return {k: v for k, v in provenance.items() if k not in RUN_ONLY}


@pytest.fixture(params=["sqlite", "falkordb"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_home(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    """Homes on the test's backend: `make_home("name")`; FalkorDB graphs are dropped after."""
    graphs: list[str] = []
    base = request.getfixturevalue("falkordb_url") if backend == "falkordb" else None

    def make(name: str) -> Home:
        url = None
        if base is not None:
            url = f"{base}/zg_rel_{os.urandom(6).hex()}"
            graphs.append(url)
        return Home(tmp_path / name, url)

    yield make
    for url in graphs:
        store = open_store(url)
        try:
            store.drop()  # type: ignore[attr-defined]
        finally:
            store.close()


QUOTES = [
    "La ciencia es un instrumento para conocer el mundo, no un dogma que lo explique todo.",
    "La voluntad de vivir se manifiesta en cada ser como una fuerza ciega y tenaz.",
    "El hábito es una segunda naturaleza que se forma repitiendo lo que se hace.",
    "Quien tiene un porqué para vivir puede soportar casi cualquier cómo.",
    "La duda es el principio de la sabiduría y el final de la arrogancia.",
    "Nadie se baña dos veces en el mismo río, porque todo fluye y nada permanece.",
]


def notes_file(folder: Path, quotes: int = 3, title: str = "Libro de prueba") -> Path:
    """A book-notes file with the first `quotes` QUOTES."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{title.lower().replace(' ', '_')}.md"
    body = "\n\n".join(QUOTES[:quotes])
    path.write_text(
        f"---\ntitle: {title}\nauthor: Autora Anónima\n---\n\n# Citas\n\n{body}\n",
        encoding="utf-8",
    )
    return path


def ingest(home: Home, path: Path) -> str:
    """Ingest `path` and return its content id."""
    report = home.json("ingest", str(path))
    assert not report["errors"], report["errors"]
    return str(report["contents"][0]["id"])
