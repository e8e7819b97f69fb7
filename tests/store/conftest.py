"""Fixtures for the store contract suite: one `store` per backend, and small builders.

Every test that takes `store` runs once per backend in `BACKENDS`. Adding a backend is one
more entry there: its param id and a function that opens an empty store for one test (server
backends get their server from a session fixture through `request.getfixturevalue` and wipe
it before handing it over; a backend that needs an environment variable, such as Neo4j with
`NEO4J_URI`, carries a `skipif` mark on its param).
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from zettelgraph.models import (
    Answer,
    ChangeSet,
    Concept,
    Content,
    Person,
    Quote,
    Relation,
    Section,
    embedding_text,
    person_id,
    quote_id,
    section_id,
    stable_id,
)
from zettelgraph.models import content_id as make_content_id
from zettelgraph.packs.relations import (
    AUTHORED_BY,
    CITES,
    IN_SECTION,
    QUOTED_IN,
    SECTION_OF,
    SUPPORTS,
)
from zettelgraph.store import GraphStore, open_store
from zettelgraph.text.normalize import normalize_name

EMBEDDER_MODEL = "test-hash"
EMBEDDER_DIM = 16


def _open_sqlite(request: pytest.FixtureRequest, tmp_path: Path) -> GraphStore:
    return open_store(f"sqlite:///{tmp_path / 'store.db'}")


def _open_falkordb(request: pytest.FixtureRequest, tmp_path: Path) -> GraphStore:
    """A fresh graph of its own on the session's FalkorDB server, dropped after the test."""
    server = request.getfixturevalue("falkordb_url")
    store = open_store(f"{server}/zg_test_{uuid.uuid4().hex[:12]}")
    request.addfinalizer(store.drop)  # type: ignore[attr-defined]
    return store


def _open_neo4j(request: pytest.FixtureRequest, tmp_path: Path) -> GraphStore:
    """The database named by NEO4J_URI, wiped before and after the test."""
    store = open_store(os.environ["NEO4J_URI"])
    store.drop()  # type: ignore[attr-defined]
    request.addfinalizer(store.drop)  # type: ignore[attr-defined]
    return store


@dataclass(frozen=True)
class Backend:
    """How to get an empty store of one kind for one test, and when to skip it."""

    open: Callable[[pytest.FixtureRequest, Path], GraphStore]
    marks: tuple[pytest.MarkDecorator, ...] = ()


BACKENDS: dict[str, Backend] = {
    "sqlite": Backend(_open_sqlite),
    "falkordb": Backend(_open_falkordb),
    "neo4j": Backend(
        _open_neo4j,
        marks=(
            pytest.mark.skipif(
                not os.environ.get("NEO4J_URI"),
                reason="set NEO4J_URI=neo4j://user:password@host:7687 to run against Neo4j "
                "(it cannot be installed on the CI machines)",
            ),
        ),
    ),
}


@pytest.fixture(
    params=[pytest.param(name, id=name, marks=backend.marks) for name, backend in BACKENDS.items()]
)
def empty_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphStore]:
    """A store with nothing in it, not even a registered embedder."""
    store = BACKENDS[request.param].open(request, tmp_path)
    try:
        yield store
    finally:
        store.close()


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def store(empty_store: GraphStore, embedder: HashEmbedder) -> GraphStore:
    """An empty store with the deterministic test embedder registered."""
    empty_store.ensure_embedder(embedder.model, embedder.dim)
    return empty_store


@pytest.fixture
def make(embedder: HashEmbedder) -> Builders:
    return Builders(embedder)


class HashEmbedder:
    """Deterministic stand-in for an embedder: the same text always gives the same vector.

    Vectors are Gaussian noise from a numpy Generator seeded by the text's SHA-256, so unrelated
    texts are close to orthogonal and a test can recompute any expected vector.
    """

    model = EMBEDDER_MODEL
    dim = EMBEDDER_DIM

    def embed(self, text: str) -> NDArray[np.float32]:
        seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)


@dataclass
class Builders:
    """Small constructors for domain objects with the models' deterministic ids."""

    embedder: HashEmbedder

    def content(
        self, title: str = "Spark", author: str | None = "John Ratey", **kw: Any
    ) -> Content:
        return Content(id=make_content_id(title, author), title=title, **kw)

    def person(self, name: str = "John Ratey", **kw: Any) -> Person:
        return Person(id=person_id(name), name=name, **kw)

    def quote(self, content: Content, text: str, position: int, **kw: Any) -> Quote:
        return Quote(
            id=quote_id(content.id, text), content_id=content.id, text=text, position=position, **kw
        )

    def section(self, content: Content, text: str, position: int, **kw: Any) -> Section:
        return Section(
            id=section_id(content.id, position, text),
            content_id=content.id,
            text=text,
            position=position,
            **kw,
        )

    def passage(self, section: Section, text: str, position: int, **kw: Any) -> Quote:
        """A document passage: a Quote of the section's Content that points at the section."""
        return Quote(
            id=quote_id(section.content_id, text),
            content_id=section.content_id,
            text=text,
            position=position,
            parent_id=section.id,
            **kw,
        )

    def answer(self, question: str, cited: Sequence[Quote] = (), **kw: Any) -> Answer:
        """An Answer citing `cited` as [1], [2], ... (its CITES relations are the caller's)."""
        fields: dict[str, Any] = {
            "answer": " ".join(f"Según [{n}]." for n in range(1, len(cited) + 1)) or "No sé.",
            "answerable": bool(cited),
            "citations": [
                {"n": n, "quote_id": q.id, "score": 0.5, "methods": ["vector", "text"]}
                for n, q in enumerate(cited, start=1)
            ],
            **kw,
        }
        created = str(fields.get("created_at", ""))
        return Answer(id=stable_id("answer", question, created), question=question, **fields)

    def concept(self, title: str, concept: str | None = None, **kw: Any) -> Concept:
        return Concept(
            id=stable_id("concept", normalize_name(title)),
            title=title,
            concept=concept if concept is not None else f"{title}: una idea atómica.",
            **kw,
        )

    def relation(self, source: str, relation_type: str, target: str, **properties: Any) -> Relation:
        return Relation(
            source_id=source, type=relation_type, target_id=target, properties=properties
        )

    def vectors(self, nodes: Sequence[Quote | Concept]) -> dict[str, NDArray[np.float32]]:
        return {node.id: self.embedder.embed(embedding_text(node)) for node in nodes}

    def book(
        self,
        title: str = "Spark",
        author: str = "John Ratey",
        quotes: Sequence[str] = (
            "El ejercicio aeróbico mejora la memoria.",
            "Moverse es la mejor medicina para el cerebro.",
            "El estrés crónico daña el hipocampo.",
        ),
    ) -> ChangeSet:
        """A Content with its author and quotes, their structural relations and vectors."""
        content = self.content(title, author)
        person = self.person(author)
        quote_nodes = [self.quote(content, text, position) for position, text in enumerate(quotes)]
        relations = [self.relation(content.id, AUTHORED_BY, person.id)]
        relations += [self.relation(q.id, QUOTED_IN, content.id) for q in quote_nodes]
        return ChangeSet(
            contents=[content],
            persons=[person],
            quotes=quote_nodes,
            relations=relations,
            vectors=self.vectors(quote_nodes),
        )

    def concepts_for(
        self, book: ChangeSet, titles: Sequence[str] = ("Neuroplasticidad", "Ejercicio aeróbico")
    ) -> ChangeSet:
        """Concepts, each supported by the book's first quote, with their vectors."""
        concepts = [self.concept(title) for title in titles]
        quote = book.quotes[0]
        return ChangeSet(
            concepts=concepts,
            relations=[self.relation(quote.id, SUPPORTS, c.id) for c in concepts],
            vectors=self.vectors(concepts),
        )

    def document(
        self,
        title: str = "Guía del sueño",
        author: str = "Matthew Walker",
        sections: Sequence[tuple[str, Sequence[str]]] = (
            (
                "Dormir bien",
                ("El sueño profundo consolida la memoria.", "La siesta breve despeja la mente."),
            ),
            ("La cafeína", ("La cafeína bloquea la adenosina durante horas.",)),
        ),
        question: str = "¿Por qué importa el sueño profundo?",
    ) -> ChangeSet:
        """A document: a Content, its Sections (title, passages) and their passages, the
        structural relations, the passages' vectors, and an Answer citing two passages.

        Section positions are 10, 11, ... and passage positions run on from 20, so a backend
        that sorts positions as text or mixes Sections into quotes_of is caught.
        """
        content = self.content(title, author, kind="pdf")
        section_nodes: list[Section] = []
        passages: list[Quote] = []
        for index, (heading, texts) in enumerate(sections):
            section = self.section(
                content,
                " ".join(texts),
                10 + index,
                title=heading,
                location={"page": index + 1, "heading_path": [heading]},
            )
            section_nodes.append(section)
            passages += [
                self.passage(section, text, 20 + len(passages) + i, location={"page": index + 1})
                for i, text in enumerate(texts)
            ]
        answer = self.answer(question, passages[:2], language="es", model="m", recipe="hybrid")
        relations = [self.relation(s.id, SECTION_OF, content.id) for s in section_nodes]
        relations += [self.relation(p.id, QUOTED_IN, content.id) for p in passages]
        relations += [self.relation(p.id, IN_SECTION, str(p.parent_id)) for p in passages]
        relations += [
            self.relation(answer.id, CITES, p.id, n=n) for n, p in enumerate(passages[:2], 1)
        ]
        return ChangeSet(
            contents=[content],
            sections=section_nodes,
            quotes=passages,
            answers=[answer],
            relations=relations,
            vectors=self.vectors(passages),
        )
