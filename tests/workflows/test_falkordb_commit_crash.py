"""A process killed in the middle of a commit to FalkorDB: resuming the run must give the very
graph an uninterrupted run gives.

FalkorDB cannot roll back, so the commit is designed to converge on replay. The child forces
the commit through one query per row (as a large commit would go) and dies after a few of
them: some nodes are written, the rest of the commit is not. The same run is then made again,
uninterrupted, in a second graph; both graphs must be equal, node by node, relation by
relation and vector by vector (timestamps aside: each run approves at its own moment).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.models import NodeLabel
from zettelgraph.store import GraphStore, open_store

CHILD = textwrap.dedent(
    """
    import json, os, sys, uuid
    from datetime import UTC, datetime
    from pathlib import Path
    import zettelgraph.services.runs as runner
    from zettelgraph.services.extraction_runs import ExtractionRuns
    from zettelgraph.models import ChangeSet, Content, Quote, Relation, content_id, quote_id
    from zettelgraph.settings import Settings
    from zettelgraph.store.falkordb import FalkorDBStore
    from zettelgraph.services.checkpoints import open_checkpointer
    from zettelgraph.context import open_services

    home, crash_after = Path(sys.argv[1]), int(sys.argv[2])
    # The same run id in both graphs, so their concept ids can be compared.
    runner.uuid = type("FixedIds", (), {"uuid4": staticmethod(lambda: uuid.UUID(int=7))})
    settings = Settings(home=home, llm="fake", embeddings="hash")
    services = open_services(settings)
    store = services.store
    assert isinstance(store, FalkorDBStore)
    cid = content_id("Libro", None)
    texts = [
        "La ciencia es un instrumento para conocer el mundo, no un dogma que lo explique todo.",
        "La voluntad de vivir se manifiesta en cada ser como una fuerza ciega y tenaz.",
        "El hábito es una segunda naturaleza que se forma repitiendo lo que se hace.",
        "Quien tiene un porqué para vivir puede soportar casi cualquier cómo.",
    ]
    quotes = [Quote(id=quote_id(cid, t), content_id=cid, text=t, position=i)
              for i, t in enumerate(texts)]
    store.ensure_embedder(services.embedder.name, services.embedder.dim)
    vectors = services.embedder.embed(texts)
    store.apply(ChangeSet(
        contents=[Content(id=cid, title="Libro")], quotes=quotes,
        relations=[Relation(source_id=q.id, target_id=cid, type="QUOTED_IN") for q in quotes],
        vectors={q.id: vectors[i] for i, q in enumerate(quotes)}))

    with open_checkpointer(settings) as saver:
        runs = ExtractionRuns(services, saver)
        view = runs.start(cid)
        print(json.dumps({"run_id": view.run_id}), flush=True)
        if crash_after:
            # From here on: one query per row, and death after `crash_after` of them.
            store.atomic_rows, store.batch_rows = 0, 1
            real_run, sent = store._run, []
            def run_then_maybe_die(query, params=None):
                rows = real_run(query, params)
                if "MERGE" in query and "ZettelgraphMeta" not in query:  # the commit's writes
                    sent.append(query)
                if len(sent) >= crash_after:
                    os._exit(17)
                return rows
            store._run = run_then_maybe_die
        runs.answer(view.run_id, "approve")
    print(json.dumps({"done": True}), flush=True)
    """
)

TIME_FIELDS = {"created_at", "approved_at", "processed_date"}


def without_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k not in TIME_FIELDS}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def graph(store: GraphStore) -> dict[str, Any]:
    nodes = {
        str(label): [without_times(n.model_dump(mode="json")) for n in store.nodes(label)]
        for label in NodeLabel
    }
    relations = [without_times(r.model_dump(mode="json")) for r in store.relations()]
    vectors = {node_id: vector.tobytes() for node_id, vector in store.vectors()}
    return {"nodes": nodes, "relations": relations, "vectors": vectors, "counts": store.counts()}


@pytest.fixture
def two_graphs(falkordb_url: str) -> Iterator[tuple[str, str]]:
    urls = (
        f"{falkordb_url}/zg_crash_{uuid.uuid4().hex[:10]}",
        f"{falkordb_url}/zg_clean_{uuid.uuid4().hex[:10]}",
    )
    yield urls
    for url in urls:
        store = open_store(url)
        store.drop()  # type: ignore[attr-defined]
        store.close()


def child(home: Path, store_url: str, crash_after: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ZETTELGRAPH_STORE": store_url}
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(home), str(crash_after)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_killed_mid_commit_then_resumed_equals_an_uninterrupted_run(
    tmp_path: Path, two_graphs: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    crash_url, clean_url = two_graphs

    crashed = child(tmp_path / "crash-home", crash_url, crash_after=2)
    assert crashed.returncode == 17, crashed.stderr
    run_id = json.loads(crashed.stdout.splitlines()[0])["run_id"]
    clean = child(tmp_path / "clean-home", clean_url, crash_after=0)
    assert clean.returncode == 0, clean.stderr

    crash_store, clean_store = open_store(crash_url), open_store(clean_url)
    try:
        halfway = crash_store.counts()
        final = clean_store.counts()
        assert (
            0
            < halfway["Concept"] + halfway["relations"] - 4
            < final["Concept"] + final["relations"] - 4
        ), "the crash must land inside the commit"

        monkeypatch.setenv("ZETTELGRAPH_STORE", crash_url)
        home = str(tmp_path / "crash-home")
        resumed = CliRunner().invoke(
            app, ["--home", home, "--llm", "fake", "--embeddings", "hash", "resume", run_id]
        )
        assert resumed.exit_code == 0, resumed.output

        assert graph(crash_store) == graph(clean_store)
        assert crash_store.counts() == final
        assert all(not c.vault_sync_pending for c in crash_store.list_concepts())
    finally:
        crash_store.close()
        clean_store.close()
