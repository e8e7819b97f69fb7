"""The Quote Parse Graph end to end: real SQLite file, hash embedder, fake LLM."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langgraph.checkpoint.memory import InMemorySaver

from zettelgraph.context import Services, open_services
from zettelgraph.ingest.booknotes import BookNotesError
from zettelgraph.llm.embeddings import embed_queries
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import NodeLabel
from zettelgraph.packs.relations import AUTHORED_BY, NEXT, QUOTED_IN
from zettelgraph.prompts.author_bio import AuthorBio
from zettelgraph.settings import Settings
from zettelgraph.store.base import EmbedderMismatchError
from zettelgraph.workflows.quote_parse.graph import build_quote_parse_graph

NOTES = """---
title: El árbol de la ciencia
author: Pío Baroja
---

# Citas

## Primera parte

La ciencia es un instrumento para conocer el mundo, no un dogma que lo explique todo.
12

La voluntad de vivir se manifiesta en cada ser como una fuerza ciega y tenaz.
45-46
"""


def make_services(home: Path, **overrides: Any) -> Services:
    values: dict[str, Any] = {"llm": "fake", "embeddings": "hash", "llm_backoff": 0.0}
    settings = Settings(home=home, **{**values, **overrides})
    return open_services(settings)


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = make_services(tmp_path / "home")
    yield s
    s.close()


def ingest(services: Services, path: Path, **extra: Any) -> dict[str, Any]:
    graph = build_quote_parse_graph(services)
    result: dict[str, Any] = graph.invoke({"file_path": str(path), **extra})
    return result


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_ingests_the_shared_sample(services: Services, shared_data: Path) -> None:
    result = ingest(services, shared_data / "booknotes" / "napoleon_en_chamartin.md")
    store = services.store
    assert result["status"] == "new"
    assert result["quotes_total"] == result["quotes_added"] == 19
    content = store.get_content(result["content_id"])
    assert content is not None
    assert content.title == "Napoleón en Chamartín"
    assert 0 < len(content.summary.split()) <= 100
    assert 0 < len(content.summary_short.split()) <= 30
    author = store.author_of(content.id)
    assert author is not None and author.name == "Benito Pérez Galdós"
    assert author.summary and author.occupation
    quotes = store.quotes_of(content.id)
    assert [q.position for q in quotes] == list(range(19))
    assert quotes[0].section == "Antes del asedio" and quotes[0].page == "9"
    assert len(store.relations(content.id, relation_type=QUOTED_IN, direction="in")) == 19
    assert len(store.relations(content.id, relation_type=AUTHORED_BY)) == 1
    counts = store.counts()
    assert counts["vectors"] == 19 and counts["Person"] == 1 and counts["Content"] == 1
    info = store.embedding_info()
    assert info is not None and info.model == "hash"
    # The stored vector of a quote is the embedder's vector of its text.
    hit = store.vector_search(NodeLabel.QUOTE, services.embedder.embed([quotes[3].text])[0], 1)
    assert hit[0].id == quotes[3].id and hit[0].score == pytest.approx(1.0, abs=1e-5)
    assert services.usage.as_dict()["book_summary"]["calls"] == 1
    assert services.usage.as_dict()["author_bio"]["calls"] == 1


def test_same_file_again_changes_nothing_and_calls_no_llm(
    services: Services, tmp_path: Path
) -> None:
    path = write(tmp_path / "baroja.md", NOTES)
    first = ingest(services, path)
    before = services.store.counts()
    relations_before = services.store.relations()
    llm = services.llms.main
    assert isinstance(llm, FakeChatModel)
    calls = llm.calls
    second = ingest(services, path)
    assert second["status"] == "unchanged"
    assert second["content_id"] == first["content_id"]
    assert services.store.counts() == before
    assert services.store.relations() == relations_before
    assert llm.calls == calls


def test_edited_file_adds_new_quotes_and_reports_removed_ones(
    services: Services, tmp_path: Path
) -> None:
    path = write(tmp_path / "baroja.md", NOTES)
    first = ingest(services, path)
    removed = "La voluntad de vivir se manifiesta en cada ser como una fuerza ciega y tenaz."
    added = "El hombre de ciencia necesita dudar de todo, empezando por sí mismo."
    write(path, NOTES.replace(removed, added))
    second = ingest(services, path)
    assert second["status"] == "updated"
    assert second["content_id"] == first["content_id"]
    assert second["quotes_added"] == 1
    assert second["removed_quotes"] == [removed]
    texts = [q.text for q in services.store.quotes_of(first["content_id"])]
    # Nothing is deleted: the removed quote may already support concepts.
    assert removed in texts and added in texts and len(texts) == 3
    assert services.store.counts()["Content"] == 1


def test_next_edges_follow_the_file_as_last_read(services: Services, tmp_path: Path) -> None:
    path = write(tmp_path / "baroja.md", NOTES)
    first = ingest(services, path)
    store = services.store
    science, will = store.quotes_of(first["content_id"])
    assert store.passages_around(science.id, after=5) == [science, will]

    added = "El hombre de ciencia necesita dudar de todo, empezando por sí mismo."
    write(path, NOTES.replace(will.text, f"{added}\n50\n\n{will.text}"))
    ingest(services, path)
    doubt = next(q for q in store.quotes_of(first["content_id"]) if q.text == added)
    # The new reading, science -> doubt -> will; the old edge science -> will is gone.
    assert store.passages_around(doubt.id) == [
        store.get_quotes([science.id])[0],
        doubt,
        store.get_quotes([will.id])[0],
    ]
    assert [(r.source_id, r.target_id) for r in store.relations(relation_type=NEXT)] == sorted(
        [(science.id, doubt.id), (doubt.id, will.id)]
    )

    write(path, NOTES.replace(will.text, added))
    ingest(services, path)
    # A passage no longer in the file keeps its text (concepts may cite it) but no place in
    # the reading.
    assert store.passages_around(will.id, before=5, after=5) == store.get_quotes([will.id])
    assert store.passages_around(science.id) == store.get_quotes([science.id, doubt.id])


def test_authors_match_case_and_accent_insensitively(services: Services, tmp_path: Path) -> None:
    ingest(services, write(tmp_path / "a.md", NOTES))
    other = NOTES.replace("El árbol de la ciencia", "Zalacaín el aventurero").replace(
        "author: Pío Baroja", "author: PIO  BAROJA"
    )
    result = ingest(services, write(tmp_path / "b.md", other))
    assert services.store.counts()["Person"] == 1
    assert services.store.counts()["Content"] == 2
    author = services.store.author_of(result["content_id"])
    assert author is not None and author.name == "Pío Baroja"
    assert services.usage.as_dict()["author_bio"]["calls"] == 1


def test_flags_beat_front_matter(services: Services, tmp_path: Path) -> None:
    result = ingest(
        services, write(tmp_path / "a.md", NOTES), title_flag="Otro título", author_flag="Otra"
    )
    assert result["title"] == "Otro título" and result["author"] == "Otra"
    assert services.store.find_person("otra") is not None


def test_llm_failures_cost_the_summary_not_the_ingest(tmp_path: Path) -> None:
    services = make_services(tmp_path / "home", llm="fake:malformed=1.0")
    try:
        result = ingest(services, write(tmp_path / "a.md", NOTES))
        content = services.store.get_content(result["content_id"])
        assert content is not None and content.summary == ""
        author = services.store.author_of(content.id)
        assert author is not None and author.summary == "Author of El árbol de la ciencia"
        assert any("no summary" in w for w in result["warnings"])
        assert any("no biography" in w for w in result["warnings"])
        assert len(services.store.quotes_of(content.id)) == 2
    finally:
        services.close()


def test_transient_llm_errors_are_retried(tmp_path: Path) -> None:
    services = make_services(tmp_path / "home", llm="fake:transient=0.5,seed=7", llm_retries=8)
    try:
        result = ingest(services, write(tmp_path / "a.md", NOTES))
        assert result["status"] == "new"
        usage = services.usage.as_dict()
        assert usage["book_summary"]["failures"] == 0
        content = services.store.get_content(result["content_id"])
        assert content is not None and content.summary
    finally:
        services.close()


def test_enrichment_is_pluggable(services: Services, tmp_path: Path) -> None:
    asked: list[tuple[str, str]] = []

    def web_search_enricher(name: str, title: str) -> AuthorBio:
        asked.append((name, title))
        return AuthorBio(summary="Novelista vasco.", summary_short="Novelista.", occupation="x")

    services.enrich_author = web_search_enricher
    result = ingest(services, write(tmp_path / "a.md", NOTES))
    author = services.store.author_of(result["content_id"])
    assert asked == [("Pío Baroja", "El árbol de la ciencia")]
    assert author is not None and author.summary == "Novelista vasco."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# Notas\n\nSin sección de citas aquí, solo texto suelto.\n", "Citas"),
        ("---\ntitle: [roto\n---\n# Citas\n\nUna cita suficientemente larga.\n", "front matter"),
        ("", "empty"),
    ],
)
def test_bad_notes_write_nothing(
    services: Services, tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path / "bad.md", text)
    with pytest.raises(BookNotesError) as caught:
        ingest(services, path, file_type="notes")  # as a folder scan reads it
    assert "bad.md" in str(caught.value)
    assert message.lower() in str(caught.value).lower()
    assert set(services.store.counts().values()) == {0}


def test_named_markdown_without_quotes_is_a_document(services: Services, tmp_path: Path) -> None:
    path = write(tmp_path / "n.md", "# Notas\n\nSin sección de citas aquí, solo texto suelto.\n")
    result = ingest(services, path)
    assert (result["kind"], result["title"], result["quotes_total"]) == ("markdown", "Notas", 1)
    (passage,) = services.store.quotes_of(result["content_id"])
    assert passage.location == {"heading_path": ["Notas"], "line_start": 3, "line_end": 3}
    (section,) = services.store.get_sections([passage.parent_id or ""])
    assert section.title == "Notas"


def test_passages_keep_their_key_words_and_token_count(services: Services, tmp_path: Path) -> None:
    result = ingest(services, write(tmp_path / "baroja.md", NOTES))
    science, will = services.store.quotes_of(result["content_id"])
    # What sets each quote apart from the other, as written there, at most five.
    assert science.keywords == ["ciencia", "instrumento", "conocer", "mundo", "explique"]
    assert "voluntad" in will.keywords and "ciencia" not in will.keywords
    assert science.token_count == 18 and will.token_count == 16
    assert science.images == []


def test_other_embedder_is_refused_before_writing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = make_services(home)
    try:
        ingest(first, write(tmp_path / "a.md", NOTES))
        before = first.store.counts()
    finally:
        first.close()
    other = make_services(home, embeddings="hash:64")
    try:
        with pytest.raises(EmbedderMismatchError, match="zettelgraph reindex"):
            ingest(other, write(tmp_path / "b.md", NOTES.replace("ciencia", "vida")))
        assert other.store.counts() == before
    finally:
        other.close()


def test_runs_with_a_checkpointer(services: Services, tmp_path: Path) -> None:
    graph = build_quote_parse_graph(services, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    result = graph.invoke({"file_path": str(write(tmp_path / "a.md", NOTES))}, config)
    assert result["quotes_total"] == 2
    assert graph.get_state(config).values["status"] == "new"


def test_default_embedder_stores_384_dim_e5_vectors(tmp_path: Path, shared_data: Path) -> None:
    services = open_services(Settings(home=tmp_path / "home", llm="fake"))
    try:
        source = shared_data / "booknotes" / "napoleon_en_chamartin.md"
        result = ingest(services, shutil.copy(source, tmp_path / "n.md"))
        vectors = dict(services.store.vectors(NodeLabel.QUOTE))
        assert len(vectors) == 19
        assert services.embedder.name == "e5-small"
        assert {v.shape for v in vectors.values()} == {(384,)}
        quotes = services.store.quotes_of(result["content_id"])
        query = embed_queries(services.embedder, ["la justicia popular y el vulgo engañado"])[0]
        best = services.store.vector_search(NodeLabel.QUOTE, query, 3)
        assert any("justicia popular" in q.text for q in quotes if q.id == best[0].id)
        assert np.isclose(np.linalg.norm(vectors[best[0].id]), 1.0, atol=1e-3)
    finally:
        services.close()


def test_an_edit_without_new_quotes_is_written_without_an_llm_call(
    services: Services, tmp_path: Path
) -> None:
    path = write(tmp_path / "baroja.md", NOTES)
    first = ingest(services, path)
    content = services.store.get_content(first["content_id"])
    assert content is not None and content.summary
    llm = services.llms.main
    assert isinstance(llm, FakeChatModel)
    calls = llm.calls
    write(path, NOTES.replace("\n12\n", "\np. 13\n").replace("## Primera parte", "## Parte I"))
    second = ingest(services, path)
    assert second["status"] == "updated" and second["quotes_added"] == 0
    assert llm.calls == calls
    quotes = services.store.quotes_of(first["content_id"])
    assert [(q.section, q.page) for q in quotes] == [("Parte I", "13"), ("Parte I", "45-46")]
    updated = services.store.get_content(first["content_id"])
    assert updated is not None
    assert updated.summary == content.summary  # kept: no new summary was made
    assert updated.content_hash != content.content_hash
    assert updated.created_at == content.created_at


def test_a_small_local_model_writes_no_book_summary(tmp_path: Path) -> None:
    # Two of three summaries the 1.5B model wrote were in the notes' language, not the graph's:
    # the book keeps an empty summary and ingest makes no call.
    services = make_services(tmp_path / "home", book_summary=False)
    try:
        result = ingest(services, write(tmp_path / "a.md", NOTES))
        content = services.store.get_content(result["content_id"])
        assert content is not None and (content.summary, content.summary_short) == ("", "")
        assert "book_summary" not in services.usage.as_dict()
        assert not any("no summary" in w for w in result["warnings"])
    finally:
        services.close()
