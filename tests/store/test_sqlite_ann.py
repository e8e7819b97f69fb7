"""The SQLite store's approximate vector index: past `exact_search_limit` vectors a label's
searches go through it (store/ann_index.py), and it must agree with exact search and stay
current with every write, this store's or another process's.

The limit is lowered to 100 so a few hundred vectors take the approximate path; at that
size every group is scanned, so the results must equal the exact ones.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest
from numpy.typing import NDArray

from zettelgraph.models import ChangeSet, NodeLabel, PassageFilter, Quote
from zettelgraph.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from conftest import Builders

DIM = 16
LIMIT = 100


def clustered(rows: int, seed: int) -> NDArray[np.float32]:
    """Unit vectors around 12 centres, as embeddings group by topic."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((12, DIM))
    points = centres[rng.integers(12, size=rows)] + 0.6 * rng.standard_normal((rows, DIM))
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store.db"


@pytest.fixture
def books(db_path: Path, make: Builders) -> dict[str, list[Quote]]:
    """Two books of 200 passages each, with clustered vectors, written to the file."""
    store = SQLiteStore(db_path)
    store.ensure_embedder("test-clustered", DIM)
    vectors = clustered(400, seed=1)
    out: dict[str, list[Quote]] = {}
    for b, title in enumerate(("Libro A", "Libro B")):
        content = make.content(title)
        quotes = [make.quote(content, f"{title}, pasaje {i}.", i) for i in range(200)]
        store.apply(
            ChangeSet(
                contents=[content],
                quotes=quotes,
                vectors={q.id: vectors[b * 200 + i] for i, q in enumerate(quotes)},
            )
        )
        out[content.id] = quotes
    store.close()
    return out


@pytest.fixture
def approximate(db_path: Path, books: dict[str, list[Quote]]) -> Iterator[SQLiteStore]:
    store = SQLiteStore(db_path)
    store.exact_search_limit = LIMIT
    yield store
    store.close()


@pytest.fixture
def exact(db_path: Path, books: dict[str, list[Quote]]) -> Iterator[SQLiteStore]:
    store = SQLiteStore(db_path)
    yield store
    store.close()


def ids(store: SQLiteStore, query: NDArray[np.float32], k: int, **kw: object) -> list[str]:
    return [hit.id for hit in store.vector_search(NodeLabel.QUOTE, query, k, **kw)]  # type: ignore[arg-type]


def uses_the_approximate_index(store: SQLiteStore) -> bool:
    return store._vector_indexes()[NodeLabel.QUOTE].approximate


def test_results_equal_exact_search(approximate: SQLiteStore, exact: SQLiteStore) -> None:
    for query in clustered(20, seed=2):
        assert ids(approximate, query, 10) == ids(exact, query, 10)
    assert uses_the_approximate_index(approximate)
    assert not uses_the_approximate_index(exact)


def test_filtered_search_equals_exact(
    approximate: SQLiteStore, exact: SQLiteStore, books: dict[str, list[Quote]]
) -> None:
    second = list(books)[1]
    only = PassageFilter(content_ids=(second,))
    wanted = {q.id for q in books[second]}
    for query in clustered(10, seed=3):
        found = ids(approximate, query, 10, passages=only)
        assert found == ids(exact, query, 10, passages=only)
        assert set(found) <= wanted
    assert uses_the_approximate_index(approximate)


def test_writes_and_deletions_are_found_at_once(
    approximate: SQLiteStore, exact: SQLiteStore, books: dict[str, list[Quote]], make: Builders
) -> None:
    query = clustered(1, seed=4)[0]
    ids(approximate, query, 5)
    assert uses_the_approximate_index(approximate)

    content = make.content("Libro C")
    newcomer = make.quote(content, "Recién llegado.", 0)
    approximate.apply(
        ChangeSet(contents=[content], quotes=[newcomer], vectors={newcomer.id: query})
    )
    assert ids(approximate, query, 1) == [newcomer.id]

    approximate.apply(ChangeSet(vectors={newcomer.id: -query}))
    assert newcomer.id not in ids(approximate, query, 50)

    # Deleting a row moves the index's last row into its place: both must stay findable.
    gone = next(iter(books.values()))[0]
    approximate.apply(ChangeSet(delete_ids=[gone.id]))
    for probe in clustered(10, seed=5):
        found = ids(approximate, probe, 10)
        assert gone.id not in found
        assert found == ids(exact, probe, 10)
    assert ids(approximate, -query, 1) == [newcomer.id]


def test_another_process_write_is_caught_up_without_a_rebuild(
    approximate: SQLiteStore, db_path: Path, books: dict[str, list[Quote]]
) -> None:
    query = clustered(1, seed=6)[0]
    before = ids(approximate, query, 3)
    index = approximate._vector_indexes()[NodeLabel.QUOTE]
    content_id = next(iter(books))
    script = (
        "import sys, numpy as np\n"
        "from zettelgraph.models import ChangeSet, Quote\n"
        "from zettelgraph.store.sqlite import SQLiteStore\n"
        "store = SQLiteStore(sys.argv[1])\n"
        "quote = Quote(id='q-otro', content_id=sys.argv[2], text='Otro.', position=900)\n"
        "vector = np.array([float(x) for x in sys.argv[3].split(',')], dtype=np.float32)\n"
        "change = ChangeSet(quotes=[quote], vectors={quote.id: vector}, delete_ids=[sys.argv[4]])\n"
        "store.apply(change)\n"
        "store.close()\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    args = [str(db_path), content_id, ",".join(map(str, query.tolist())), before[0]]
    subprocess.run([sys.executable, "-c", script, *args], check=True, env=env, timeout=120)

    found = ids(approximate, query, 3)
    assert found[0] == "q-otro"
    assert before[0] not in found
    # Caught up from the change log: the same index, patched rather than rebuilt.
    assert approximate._vector_indexes()[NodeLabel.QUOTE] is index
    assert uses_the_approximate_index(approximate)


def test_one_query_scans_its_groups_on_every_thread_with_the_same_result() -> None:
    # A search is a single query: the index splits the groups it scans among the threads
    # (faiss's default splits a batch's queries, leaving one query on one core).
    import faiss

    from zettelgraph.store.ann_index import PARALLEL_OVER_GROUPS, AnnIndex

    rows = clustered(20_000, seed=3)
    index = AnnIndex(DIM, rows)
    assert index._index.parallel_mode == PARALLEL_OVER_GROUPS
    queries = clustered(20, seed=4)
    threads = faiss.omp_get_max_threads()
    try:
        faiss.omp_set_num_threads(1)
        alone = [index.search(query, 50).tolist() for query in queries]
        faiss.omp_set_num_threads(2)
        shared = [index.search(query, 50).tolist() for query in queries]
    finally:
        faiss.omp_set_num_threads(threads)
    assert shared == alone
