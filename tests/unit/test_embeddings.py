"""Embedders: the deterministic hash embedder, the real multilingual USE, and the cache."""

from __future__ import annotations

import importlib.util
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from zettelgraph.llm.embeddings import (
    CachedEmbedder,
    Embedder,
    EmbeddingError,
    HashEmbedder,
    UniversalSentenceEncoder,
    build_embedder,
    embedder_from_settings,
)
from zettelgraph.settings import Settings
from zettelgraph.system.extras import MissingExtraError


def cosine(a: NDArray[np.float32], b: NDArray[np.float32]) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


class CountingEmbedder:
    """A real Embedder that records every text it is asked to embed."""

    def __init__(self, name: str = "hash") -> None:
        self.name = name
        self._inner = HashEmbedder()
        self.dim = self._inner.dim
        self.seen: Counter[str] = Counter()
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.calls += 1
        self.seen.update(texts)
        return self._inner.embed(texts)


# --- HashEmbedder -------------------------------------------------------------------------


def test_hash_embedder_is_deterministic_across_instances() -> None:
    texts = ["La memoria es un músculo.", "Reading builds a second brain."]
    first = HashEmbedder().embed(texts)
    again = HashEmbedder().embed(texts)
    assert first.dtype == np.float32
    assert first.shape == (2, 256)
    np.testing.assert_array_equal(first, again)


def test_hash_embedder_rows_have_unit_norm() -> None:
    vectors = HashEmbedder(dim=64).embed(["uno dos tres", "cuatro", "Ñandú veloz"])
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)


def test_hash_embedder_text_without_words_is_the_zero_vector() -> None:
    vectors = HashEmbedder().embed(["", "  ...  "])
    assert not vectors.any()


def test_hash_embedder_shared_words_are_more_similar() -> None:
    rows = HashEmbedder().embed(
        [
            "the habit loop has a cue a routine and a reward",
            "a habit starts with a cue and ends with a reward",
            "photosynthesis converts light into chemical energy",
        ]
    )
    assert cosine(rows[0], rows[1]) > cosine(rows[0], rows[2]) + 0.2


def test_hash_embedder_ignores_case() -> None:
    rows = HashEmbedder().embed(["Memoria Espacial", "memoria espacial"])
    np.testing.assert_array_equal(rows[0], rows[1])


def test_hash_embedder_name_records_its_dimension() -> None:
    assert HashEmbedder().name == "hash"
    assert HashEmbedder(dim=64).name == "hash-64"
    assert isinstance(HashEmbedder(), Embedder)


# --- UniversalSentenceEncoder (real model) ------------------------------------------------


@pytest.fixture(scope="module")
def use() -> UniversalSentenceEncoder:
    return UniversalSentenceEncoder(threads=1)


def test_use_returns_512_float32_dims(use: UniversalSentenceEncoder) -> None:
    vectors = use.embed(["El perro corre en el parque", "The dog runs in the park"])
    assert use.dim == 512
    assert use.name == "use-multilingual"
    assert vectors.shape == (2, 512)
    assert vectors.dtype == np.float32
    assert use.embed([]).shape == (0, 512)


def test_use_places_paraphrases_closer_than_unrelated_text(use: UniversalSentenceEncoder) -> None:
    dog, dog_again, economy = use.embed(
        [
            "El perro corre en el parque",
            "Un perro está corriendo en el parque",
            "La economía creció este año",
        ]
    )
    assert cosine(dog, dog_again) > cosine(dog, economy) + 0.2


def test_use_places_spanish_and_english_in_one_space(use: UniversalSentenceEncoder) -> None:
    spanish, english, unrelated = use.embed(
        [
            "El perro corre en el parque",
            "The dog is running in the park",
            "Stock markets fell sharply this year",
        ]
    )
    assert cosine(spanish, english) > cosine(spanish, unrelated) + 0.2


def test_build_embedder_default_is_use() -> None:
    assert isinstance(build_embedder("use-multilingual", threads=1), UniversalSentenceEncoder)


# --- CachedEmbedder -----------------------------------------------------------------------


def test_cache_embeds_each_text_once_within_a_call(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, tmp_path / "cache.sqlite")
    vectors = cached.embed(["alpha", "beta", "alpha", "alpha"])
    assert inner.seen == Counter({"alpha": 1, "beta": 1})
    np.testing.assert_array_equal(
        vectors, HashEmbedder().embed(["alpha", "beta", "alpha", "alpha"])
    )
    assert (cached.hits, cached.misses) == (2, 2)
    cached.close()


def test_cache_serves_parallel_branches(tmp_path: Path) -> None:
    # Workflow branches run in threads and share one embedder and its SQLite connection.
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, tmp_path / "cache.sqlite")
    batches = [[f"texto {i % 7} {j}" for j in range(20)] for i in range(16)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(cached.embed, batches))
    for batch, vectors in zip(batches, results, strict=True):
        np.testing.assert_array_equal(vectors, HashEmbedder().embed(batch))
    assert max(inner.seen.values()) == 1
    assert sum(inner.seen.values()) == 7 * 20
    cached.close()


def test_cache_embeds_each_text_once_across_calls(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, tmp_path / "cache.sqlite")
    first = cached.embed(["alpha", "beta"])
    second = cached.embed(["beta", "gamma", "alpha"])
    assert inner.seen == Counter({"alpha": 1, "beta": 1, "gamma": 1})
    np.testing.assert_array_equal(second[0], first[1])
    np.testing.assert_array_equal(second[2], first[0])
    cached.close()


def test_cache_is_shared_by_instances_on_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "cache.sqlite"
    writer_inner = CountingEmbedder()
    writer = CachedEmbedder(writer_inner, path)
    written = writer.embed(["alpha", "beta"])
    writer.close()
    assert path.is_file()

    reader_inner = CountingEmbedder()
    reader = CachedEmbedder(reader_inner, path)
    read = reader.embed(["beta", "alpha", "delta"])
    assert reader_inner.seen == Counter({"delta": 1})
    assert read.dtype == np.float32
    np.testing.assert_array_equal(read[0], written[1])
    np.testing.assert_array_equal(read[1], written[0])
    reader.close()


def test_cache_entries_are_per_model_name(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    first = CachedEmbedder(CountingEmbedder(name="model-a"), path)
    first.embed(["alpha"])
    first.close()

    other_inner = CountingEmbedder(name="model-b")
    other = CachedEmbedder(other_inner, path)
    other.embed(["alpha"])
    assert other_inner.seen == Counter({"alpha": 1})
    other.close()

    same_inner = CountingEmbedder(name="model-a")
    same = CachedEmbedder(same_inner, path)
    same.embed(["alpha"])
    assert same_inner.seen == Counter()
    same.close()


def test_cache_without_a_file_still_dedups_in_memory() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, None)
    cached.embed(["alpha", "alpha"])
    cached.embed(["alpha"])
    assert inner.seen == Counter({"alpha": 1})


def test_cache_of_nothing_is_an_empty_matrix_without_a_call(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, tmp_path / "cache.sqlite")
    assert cached.embed([]).shape == (0, 256)
    assert inner.calls == 0
    assert cached.name == "hash"
    assert cached.dim == 256
    assert isinstance(cached, Embedder)
    cached.close()


def test_embedder_from_settings_caches_under_home(isolated_env: Path) -> None:
    embedder = embedder_from_settings(Settings(embeddings="hash:64"))
    assert isinstance(embedder, CachedEmbedder)
    assert embedder.name == "hash-64"
    embedder.embed(["alpha"])
    embedder.close()
    assert (isolated_env / "cache" / "embeddings.sqlite").is_file()
    plain = embedder_from_settings(Settings(embeddings="hash"), cache=False)
    assert isinstance(plain, HashEmbedder)


# --- build_embedder -----------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["hash", "hash:64"])
def test_build_embedder_hash(spec: str) -> None:
    assert isinstance(build_embedder(spec), HashEmbedder)


@pytest.mark.parametrize("spec", ["word2vec", "", "acme:embed-1", "hash:abc", "hash:0"])
def test_build_embedder_rejects_unknown_specs(spec: str) -> None:
    with pytest.raises(EmbeddingError) as info:
        build_embedder(spec)
    message = str(info.value)
    assert repr(spec) in message
    assert "hash" in message


@pytest.mark.parametrize("spec", ["word2vec", "acme:embed-1"])
def test_unknown_embedder_message_lists_the_options(spec: str) -> None:
    with pytest.raises(EmbeddingError) as info:
        build_embedder(spec)
    for option in ("use-multilingual", "ollama:MODEL", "openai:MODEL", "sentence-transformers"):
        assert option in str(info.value)


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_ollama") is not None,
    reason="langchain_ollama is installed, so the missing-extra error cannot happen",
)
def test_provider_without_its_extra_says_what_to_install() -> None:
    with pytest.raises(MissingExtraError, match=r"pip install 'zettelgraph\[ollama\]'"):
        build_embedder("ollama:mxbai-embed-large")
