"""What only the FalkorDB store does: its vector index path, its URL, its errors."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import numpy as np
import pytest

from card_graph import studied_once
from zettelgraph.models import (
    ChangeSet,
    Concept,
    NodeLabel,
    StudyScope,
)
from zettelgraph.store import open_store
from zettelgraph.store.base import StoreError
from zettelgraph.store.falkordb import FalkorDBStore
from zettelgraph.store.falkordb_query import literal

if TYPE_CHECKING:
    from conftest import Builders


@pytest.fixture
def falkordb(falkordb_url: str) -> Iterator[FalkorDBStore]:
    store = open_store(f"{falkordb_url}/zg_only_{uuid.uuid4().hex[:12]}")
    assert isinstance(store, FalkorDBStore)
    yield store
    store.drop()
    store.close()


def clustered(n: int, dim: int, seed: int) -> np.ndarray:
    """Embedding-like vectors: points around a few dozen centres, not uniform noise."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, dim))
    points = centres[rng.integers(0, 40, n)] + 0.35 * rng.standard_normal((n, dim))
    return points.astype(np.float32)


def load(store: FalkorDBStore, make: Builders, matrix: np.ndarray) -> list[Concept]:
    """One concept per row of `matrix`, with that row as its vector."""
    store.ensure_embedder("clustered", matrix.shape[1])
    concepts = [make.concept(f"Idea {i:05d}") for i in range(len(matrix))]
    store.apply(
        ChangeSet(concepts=concepts, vectors={c.id: matrix[i] for i, c in enumerate(concepts)})
    )
    return concepts


def test_index_search_finds_true_neighbours_with_exact_scores(
    falkordb: FalkorDBStore, make: Builders
) -> None:
    matrix = clustered(3000, 64, seed=1)
    concepts = load(falkordb, make, matrix)
    falkordb.wait_for_indexes()
    falkordb.exact_search_limit = 0  # every search through the HNSW index
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    queries = clustered(30, 64, seed=2)

    recalls = []
    for query in queries:
        exact = unit @ (query / np.linalg.norm(query))
        truth = {concepts[i].id for i in np.argsort(-exact)[:50]}
        hits = falkordb.vector_search(NodeLabel.CONCEPT, query, 50)
        assert len(hits) == 50
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        by_id = {c.id: exact[i] for i, c in enumerate(concepts)}
        np.testing.assert_allclose(scores, [by_id[h.id] for h in hits], atol=1e-5)
        recalls.append(len(truth & {h.id for h in hits}) / 50)

    assert np.mean(recalls) >= 0.95


def test_search_works_while_the_vector_index_is_still_building(
    falkordb: FalkorDBStore, make: Builders
) -> None:
    matrix = clustered(4000, 256, seed=3)
    concepts = load(falkordb, make, matrix)
    falkordb.exact_search_limit = 0

    hits = falkordb.vector_search(NodeLabel.CONCEPT, matrix[7], 5)  # right after the load

    assert hits[0].id == concepts[7].id
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)


def test_a_replaced_embedder_gets_vector_indexes_of_its_dimension(
    falkordb: FalkorDBStore, make: Builders
) -> None:
    # Enough text that dropping the old vector index starts a long full-text re-index, which
    # on FalkorDB 4.16 swallowed a vector index created before it finished.
    concepts = load(falkordb, make, clustered(3000, 16, seed=4))
    falkordb.apply(make.book())
    new = {c.id: np.arange(1, 9, dtype=np.float32) * (i + 1) for i, c in enumerate(concepts)}

    falkordb.replace_vectors("model-8", 8, new)

    for label in ("Quote", "Concept"):
        options = falkordb._has_index(label, "embedding", "VECTOR")
        assert options is not None and options["dimension"] == 8, label
        assert options["efRuntime"] == falkordb.ef_runtime
    assert falkordb.counts()["vectors"] == len(new)


@pytest.mark.parametrize(
    "url",
    ["falkordb://", "falkordb://127.0.0.1:notaport/g", "falkordb://127.0.0.1:1/g"],
)
def test_bad_or_unreachable_urls_say_what_to_do(url: str) -> None:
    with pytest.raises(StoreError, match=r"ZETTELGRAPH_STORE|Is the server running"):
        open_store(url)


def test_passwords_never_appear_in_errors() -> None:
    with pytest.raises(StoreError) as failure:
        open_store("falkordb://me:s3cret@127.0.0.1:1/g")
    assert "s3cret" not in str(failure.value)


def test_literals_round_trip_awkward_values(falkordb: FalkorDBStore) -> None:
    awkward = [
        'comillas "dobles" y \\barras\\',
        "saltos\nde\tlínea y ñ, 😀, `acentos graves`",
        "{llaves} [corchetes] $dólar",
        "",
    ]
    rows = falkordb._read("UNWIND $values AS v RETURN v", {"values": awkward})
    assert [row[0] for row in rows] == awkward
    assert literal(np.array([1e-38, -2.5], dtype=np.float32)).startswith("[9.99")
    with pytest.raises(ValueError):
        literal(float("nan"))


def test_twin_claims_from_before_the_unique_key_are_repaired_on_open(falkordb_url: str) -> None:
    """A graph where an earlier race left two meta nodes of one key (the state that gave a
    claim two winners) opens with one of them, the most recently touched, and the key made
    unique from then on."""
    from falkordb import FalkorDB

    name = f"zg_only_{uuid.uuid4().hex[:12]}"
    host, port = falkordb_url.removeprefix("falkordb://").split(":")
    graph = FalkorDB(host=host, port=int(port)).select_graph(name)
    graph.query(
        "CREATE (:ZettelgraphMeta {key: 'claim:c', claim: 'run-old', claim_touched: 1}), "
        "(:ZettelgraphMeta {key: 'claim:c', claim: 'run-new', claim_touched: 2})"
    )
    store = open_store(f"{falkordb_url}/{name}")
    try:
        assert isinstance(store, FalkorDBStore)
        assert store.swap_claim("c", "run-new", "run-new") == "run-new"
        assert store.swap_claim("c", None, "run-other") == "run-new"
        twins = graph.query("MATCH (m:ZettelgraphMeta {key: 'claim:c'}) RETURN count(m)")
        assert twins.result_set == [[1]]
        with pytest.raises(Exception, match="unique constraint"):
            graph.query("CREATE (:ZettelgraphMeta {key: 'claim:c'})")
    finally:
        store.drop()
        store.close()


def test_a_graph_from_before_the_study_properties_gets_them_on_open(
    falkordb: FalkorDBStore,
) -> None:
    due = datetime(2026, 11, 3, 8, 0, tzinfo=UTC)
    studied, log = studied_once(due)
    falkordb.apply(ChangeSet(learning_items=[studied], review_logs=[log]))
    # The graph as the previous version wrote it: none of the study properties.
    gone = {
        "LearningItem": ("studied", "state", "due_us", "card_rank", "book", "content_ids"),
        "ReviewLog": ("reviewed_us", "state_before"),
    }
    for label, names in gone.items():
        for name in names:  # one a statement: FalkorDB dropped all but the first of a list
            falkordb._run(f"MATCH (n:{label}) SET n.{name} = NULL")
    assert falkordb.due_cards(due, StudyScope(), limit=5) == []

    reopened = open_store(falkordb.url)
    try:
        assert [c.id for c in reopened.due_cards(due, StudyScope(), limit=5)] == ["studied"]
        assert reopened.review_counts(since=due, today=due, now=due)["book"].introduced == 1
    finally:
        reopened.close()
