"""`store copy`: a whole graph moves between backends and comes back identical."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from typer.testing import CliRunner

from copy_graph import everything, fill
from zettelgraph.cli.app import app
from zettelgraph.models import ChangeSet, NodeLabel
from zettelgraph.packs.relations import CITES, IN_SECTION, SECTION_OF
from zettelgraph.store import GraphStore, open_store
from zettelgraph.store.copy import LABEL_FIELDS, PHASES, CopyError, copy_store

if TYPE_CHECKING:
    from conftest import Builders


@pytest.fixture
def falkordb_store(falkordb_url: str) -> Any:
    store = open_store(f"{falkordb_url}/zg_copy_{uuid.uuid4().hex[:12]}")
    yield store
    store.drop()  # type: ignore[attr-defined]
    store.close()


def test_sqlite_to_falkordb_to_sqlite_gives_an_identical_graph(
    tmp_path: Path, make: Builders, falkordb_store: GraphStore
) -> None:
    first = open_store(f"sqlite:///{tmp_path / 'first.db'}")
    fill(first, make)
    back = open_store(f"sqlite:///{tmp_path / 'back.db'}")

    there = copy_store(first, falkordb_store, tmp_path / "state", page=7)
    again = copy_store(falkordb_store, back, tmp_path / "state", page=7)

    original = everything(first)
    assert everything(falkordb_store) == original
    assert everything(back) == original
    assert there.counts == again.counts == original["counts"]
    assert original["counts"]["relations"] > 10 and original["counts"]["vectors"] == 38 + 3
    assert original["counts"]["Section"] == 2 and original["counts"]["Answer"] == 1
    copied_types = {r.type for r in original["relations"]}
    assert {IN_SECTION, SECTION_OF, CITES} <= copied_types
    passages = [q for q in original["nodes"]["Quote"] if q.parent_id is not None]
    assert len(passages) == 3
    for store in (falkordb_store, back):
        assert store.sections_of(passages[0].content_id) == first.sections_of(
            passages[0].content_id
        )
        assert store.answers() == first.answers()
    assert not list((tmp_path / "state").glob("*.json"))  # progress cleared when done


def test_an_interrupted_copy_resumes_and_converges(
    tmp_path: Path, make: Builders, falkordb_store: GraphStore
) -> None:
    source = open_store(f"sqlite:///{tmp_path / 'source.db'}")
    fill(source, make)
    calls: list[str] = []

    def stop_in_the_middle(phase: str, count: int) -> None:
        calls.append(phase)
        if phase == "vectors":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        copy_store(source, falkordb_store, tmp_path / "state", page=5, progress=stop_in_the_middle)
    partial = falkordb_store.counts()
    assert 0 < partial["vectors"] < source.counts()["vectors"]
    assert partial["relations"] == 0

    report = copy_store(source, falkordb_store, tmp_path / "state", page=5)

    assert report.resumed
    assert report.copied["nodes:Content"] == 0  # what the first attempt wrote is kept
    assert everything(falkordb_store) == everything(source)


def test_the_target_must_be_empty(tmp_path: Path, make: Builders) -> None:
    source = open_store(f"sqlite:///{tmp_path / 'source.db'}")
    fill(source, make)
    target = open_store(f"sqlite:///{tmp_path / 'target.db'}")
    target.ensure_embedder(make.embedder.model, make.embedder.dim)
    target.apply(make.book("Otro", "Alguien"))
    before = everything(target)

    with pytest.raises(CopyError, match="not empty"):
        copy_store(source, target, tmp_path / "state")
    with pytest.raises(CopyError, match="same store"):
        copy_store(source, source, tmp_path / "state")

    assert everything(target) == before


def test_cli_store_copy_to_falkordb(
    tmp_path: Path, make: Builders, falkordb_url: str, isolated_env: Path
) -> None:
    home_store = open_store(f"sqlite:///{isolated_env / 'store.db'}")
    fill(home_store, make)
    expected = everything(home_store)
    home_store.close()
    target_url = f"{falkordb_url}/zg_cli_{uuid.uuid4().hex[:12]}"

    result = CliRunner().invoke(
        app,
        [
            "--store",
            f"sqlite:///{isolated_env / 'store.db'}",
            "store",
            "copy",
            "--to",
            target_url,
            "--json",
        ],
    )

    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["verified"] is True
    assert report["counts"] == expected["counts"]
    target = open_store(target_url)
    try:
        assert everything(target) == expected
        bad = CliRunner().invoke(app, ["store", "copy", "--to", "falkordb://127.0.0.1:1/x"])
        assert bad.exit_code == 1
        assert "cannot open the target store" in bad.output
    finally:
        target.drop()  # type: ignore[attr-defined]
        target.close()


def test_vectors_survive_the_trip_bit_for_bit(
    tmp_path: Path, make: Builders, falkordb_store: GraphStore
) -> None:
    source = open_store(f"sqlite:///{tmp_path / 'source.db'}")
    source.ensure_embedder(make.embedder.model, make.embedder.dim)
    concepts = [make.concept(f"Extremo {i}") for i in range(4)]
    tiny = np.float32(1e-38)
    vectors = {
        concepts[0].id: np.full(16, tiny, dtype=np.float32),
        concepts[1].id: np.full(16, np.finfo(np.float32).max / 4, dtype=np.float32),
        concepts[2].id: np.linspace(-1, 1, 16, dtype=np.float32) / 3,
        concepts[3].id: np.nextafter(np.ones(16, dtype=np.float32), np.float32(2)),
    }
    source.apply(ChangeSet(concepts=concepts, vectors=vectors))

    copy_store(source, falkordb_store, tmp_path / "state")

    stored = dict(falkordb_store.vectors())
    for node_id, vector in vectors.items():
        assert stored[node_id].tobytes() == vector.tobytes()


def test_every_label_has_a_phase_and_a_changeset_field() -> None:
    assert set(LABEL_FIELDS) == set(NodeLabel)
    assert set(LABEL_FIELDS.values()) <= set(ChangeSet.model_fields)
    assert PHASES[-2:] == ["vectors", "relations"]  # after every node phase
    assert {f"nodes:{label}" for label in NodeLabel} == set(PHASES[:-2])
