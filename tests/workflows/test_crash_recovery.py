"""A process killed after the store commit and before the vault notes: resume or `vault sync`
must leave graph and vault consistent, with nothing duplicated, on SQLite and on FalkorDB with
PostgreSQL checkpoints."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.settings import Settings
from zettelgraph.store import open_store

# The child runs the real workflow and dies (os._exit: no cleanup, no finally blocks) at the
# first moment the vault would be touched, i.e. right after the store transaction committed.
CHILD = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path
    import zettelgraph.vault.sync as vault_sync
    from zettelgraph.models import ChangeSet, Content, Quote, Relation, content_id, quote_id
    from zettelgraph.settings import Settings
    from zettelgraph.services.checkpoints import open_checkpointer
    from zettelgraph.services.extraction_runs import ExtractionRuns
    from zettelgraph.context import open_services

    home = Path(sys.argv[1])
    settings = Settings(home=home, llm="fake", embeddings="hash")
    services = open_services(settings)
    store = services.store
    cid = content_id("Libro", None)
    texts = [
        "La ciencia es un instrumento para conocer el mundo, no un dogma que lo explique todo.",
        "La voluntad de vivir se manifiesta en cada ser como una fuerza ciega y tenaz.",
    ]
    quotes = [Quote(id=quote_id(cid, t), content_id=cid, text=t, position=i)
              for i, t in enumerate(texts)]
    store.ensure_embedder(services.embedder.name, services.embedder.dim)
    vectors = services.embedder.embed(texts)
    store.apply(ChangeSet(
        contents=[Content(id=cid, title="Libro")], quotes=quotes,
        relations=[Relation(source_id=q.id, target_id=cid, type="QUOTED_IN") for q in quotes],
        vectors={q.id: vectors[i] for i, q in enumerate(quotes)}))

    def crash(*args, **kwargs):
        print(json.dumps({"run_id": RUN_ID}), flush=True)
        os._exit(17)

    vault_sync.sync_vault = crash
    with open_checkpointer(settings) as saver:
        runs = ExtractionRuns(services, saver)
        view = runs.start(cid)
        RUN_ID = view.run_id
        runs.answer(view.run_id, "approve")
    print("not reached", flush=True)
    """
)


def crash_after_commit(home: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(home)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 17, result.stderr
    return str(json.loads(result.stdout.strip().splitlines()[-1])["run_id"])


def graph_state(home: Path) -> tuple[dict[str, int], list[str], list[bool]]:
    store = open_store(Settings(home=home).store_url)
    try:
        concepts = store.list_concepts()
        return (
            store.counts(),
            sorted(c.id for c in concepts),
            [c.vault_sync_pending for c in concepts],
        )
    finally:
        store.close()


def notes(home: Path) -> list[Path]:
    return sorted((home / "vault" / "08 - Ideas").glob("*.md"))


def cli(home: Path, *args: str) -> object:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


@pytest.fixture
def backends(backend_urls: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each backend (`tests/workflows/conftest.py`), named in the environment so that the
    child process, the CLI and `graph_state` all use it."""
    for name, url in backend_urls.items():
        monkeypatch.setenv(f"ZETTELGRAPH_{name.upper()}", url)


@pytest.mark.parametrize("repair", ["resume", "vault sync"])
@pytest.mark.usefixtures("backends")
def test_crash_between_commit_and_vault_is_repaired(tmp_path: Path, repair: str) -> None:
    home = tmp_path / "home"
    run_id = crash_after_commit(home)
    counts, concept_ids, pending = graph_state(home)
    assert concept_ids, "the commit landed before the crash"
    assert all(pending), "new concepts stay marked until their notes exist"
    assert notes(home) == []

    runs = CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", "runs", "--json"]
    )
    [listed] = json.loads(runs.stdout)
    assert (listed["run_id"], listed["status"]) == (run_id, "interrupted")

    check = cli(home, "vault", "sync", "--check", "--json")
    assert check.exit_code == 1  # type: ignore[attr-defined]
    drift = json.loads(check.stdout)["drift"]  # type: ignore[attr-defined]
    # The concepts' notes, and the book's and author's notes that cite them.
    assert len([d for d in drift if "concept_id" in d]) == len(concept_ids)

    if repair == "resume":
        result = cli(home, "resume", run_id, "--json")
        assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
        assert json.loads(result.stdout)["status"] == "committed"  # type: ignore[attr-defined]
    else:
        result = cli(home, "vault", "sync", "--json")
        assert result.exit_code == 0, result.output  # type: ignore[attr-defined]

    after_counts, after_ids, after_pending = graph_state(home)
    assert after_ids == concept_ids and after_counts == counts  # nothing duplicated
    assert not any(after_pending)
    assert len(notes(home)) == len(concept_ids)
    clean = cli(home, "vault", "sync", "--check", "--json")
    assert clean.exit_code == 0, clean.output  # type: ignore[attr-defined]
