"""What only the SQLite backend promises: the file itself, migrations, several handles."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from card_graph import studied_once
from zettelgraph.models import (
    ChangeSet,
    ItemStatus,
    ItemType,
    LearningItem,
    NodeLabel,
    StudyScope,
    learning_item_id,
)
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.store import StoreError, open_store
from zettelgraph.store.base import IntegrityError
from zettelgraph.store.migrations import MIGRATIONS
from zettelgraph.store.sqlite import SQLiteStore
from zettelgraph.store.sqlite_connection import MMAP_BYTES

if TYPE_CHECKING:
    from conftest import Builders, HashEmbedder


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "zettelgraph.db"


@pytest.fixture
def sqlite_store(db_path: Path, embedder: HashEmbedder) -> Iterator[SQLiteStore]:
    store = SQLiteStore(db_path)
    store.ensure_embedder(embedder.model, embedder.dim)
    yield store
    store.close()


def raw(path: Path) -> sqlite3.Connection:
    """A plain connection, as another program (or the sqlite3 shell) would open the file."""
    return sqlite3.connect(path, isolation_level=None)


def test_open_store_url_and_bare_path_open_the_same_file(db_path: Path) -> None:
    for url in (f"sqlite:///{db_path}", str(db_path)):
        store = open_store(url)
        try:
            assert isinstance(store, SQLiteStore)
            assert store.path == db_path
        finally:
            store.close()
    assert db_path.is_file()


def test_unsupported_url_scheme_names_the_setting() -> None:
    with pytest.raises(StoreError, match="ZETTELGRAPH_STORE"):
        open_store("mongodb://localhost/zettelgraph")


def test_wal_mode_is_on(sqlite_store: SQLiteStore, db_path: Path) -> None:
    connection = raw(db_path)
    try:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        connection.close()


def test_migrations_are_recorded_and_not_rerun(db_path: Path) -> None:
    SQLiteStore(db_path).close()
    connection = raw(db_path)
    first = connection.execute("SELECT version, applied_at FROM schema_migrations").fetchall()
    connection.close()
    assert [version for version, _ in first] == [version for version, _ in MIGRATIONS]
    assert first[0][0] == 1

    # Re-running migration 1 would fail on its CREATE TABLEs or rewrite applied_at.
    SQLiteStore(db_path).close()

    connection = raw(db_path)
    try:
        again = connection.execute("SELECT version, applied_at FROM schema_migrations").fetchall()
    finally:
        connection.close()
    assert again == first


def test_data_survives_reopening(db_path: Path, make: Builders, embedder: HashEmbedder) -> None:
    book = make.book()
    store = SQLiteStore(db_path)
    store.ensure_embedder(embedder.model, embedder.dim)
    store.apply(book)
    store.close()

    reopened = SQLiteStore(db_path)
    try:
        assert reopened.get_content(book.contents[0].id) == book.contents[0]
        assert reopened.quotes_of(book.contents[0].id) == book.quotes
        query = book.vectors[book.quotes[1].id]
        assert reopened.vector_search(NodeLabel.QUOTE, query, 1)[0].id == book.quotes[1].id
    finally:
        reopened.close()


def test_two_stores_opening_a_fresh_file_at_once(db_path: Path) -> None:
    """A second process that starts while the first is migrating must not fail."""
    db_path.parent.mkdir(parents=True)
    other = raw(db_path)
    other.execute("PRAGMA journal_mode=WAL")
    other.execute(
        "CREATE TABLE schema_migrations "
        "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
    )
    other.execute("BEGIN IMMEDIATE")  # the first process is half-way through migration 1
    for statement in MIGRATIONS[0][1]:
        other.execute(statement)
    other.execute("INSERT INTO schema_migrations(version) VALUES (1)")

    outcome: list[BaseException | SQLiteStore] = []

    def open_second() -> None:
        try:
            outcome.append(SQLiteStore(db_path))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=open_second)
    thread.start()
    time.sleep(0.5)  # let it read the (still empty) migration list and wait for the lock
    other.execute("COMMIT")
    other.close()
    thread.join(timeout=30)

    assert len(outcome) == 1
    second = outcome[0]
    assert isinstance(second, SQLiteStore), second
    try:
        assert second.counts()["Concept"] == 0
    finally:
        second.close()


def test_a_second_store_on_the_same_file_sees_new_vectors(
    sqlite_store: SQLiteStore, db_path: Path, make: Builders, embedder: HashEmbedder
) -> None:
    concepts = [make.concept(f"Idea {i}") for i in range(50)]
    sqlite_store.apply(ChangeSet(concepts=concepts, vectors=make.vectors(concepts)))
    reader = SQLiteStore(db_path)
    try:
        query = embedder.embed("consulta")
        assert len(reader.vector_search(NodeLabel.CONCEPT, query, 5)) == 5  # index loaded

        newcomer = make.concept("Recién llegado")
        sqlite_store.apply(ChangeSet(concepts=[newcomer], vectors={newcomer.id: query}))
        hits = reader.vector_search(NodeLabel.CONCEPT, query, 5)
        assert hits[0].id == newcomer.id
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)

        sqlite_store.apply(ChangeSet(vectors={newcomer.id: -query}))
        hits = reader.vector_search(NodeLabel.CONCEPT, query, 51)
        assert hits[-1].id == newcomer.id
        assert hits[-1].score == pytest.approx(-1.0, abs=1e-5)
    finally:
        reader.close()


def test_own_writes_do_not_hide_another_handles_writes(
    sqlite_store: SQLiteStore, db_path: Path, make: Builders, embedder: HashEmbedder
) -> None:
    """After its own write, a store must still notice what another handle wrote before it."""
    concepts = [make.concept(f"Idea {i}") for i in range(20)]
    sqlite_store.apply(ChangeSet(concepts=concepts, vectors=make.vectors(concepts)))
    query = embedder.embed("consulta")
    sqlite_store.vector_search(NodeLabel.CONCEPT, query, 5)  # index loaded

    writer = SQLiteStore(db_path)
    try:
        theirs = make.concept("Escrito por otro")
        writer.apply(ChangeSet(concepts=[theirs], vectors={theirs.id: query}))
    finally:
        writer.close()
    mine = make.concept("Escrito por mí")
    sqlite_store.apply(ChangeSet(concepts=[mine], vectors={mine.id: query * 0.5 + 0.01}))

    top = {hit.id for hit in sqlite_store.vector_search(NodeLabel.CONCEPT, query, 2)}
    assert top == {theirs.id, mine.id}


def test_a_second_store_sees_replaced_vectors(
    sqlite_store: SQLiteStore, db_path: Path, make: Builders
) -> None:
    book = make.book()
    sqlite_store.apply(book)
    reader = SQLiteStore(db_path)
    try:
        assert len(reader.vector_search(NodeLabel.QUOTE, book.vectors[book.quotes[0].id], 3)) == 3
        new = {q.id: np.eye(4, dtype=np.float32)[i] for i, q in enumerate(book.quotes)}
        sqlite_store.replace_vectors("model-4", 4, new)

        hits = reader.vector_search(NodeLabel.QUOTE, new[book.quotes[2].id], 1)
        assert [h.id for h in hits] == [book.quotes[2].id]
    finally:
        reader.close()


def test_a_file_that_is_not_a_database_gives_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(os.urandom(8192))

    with pytest.raises(StoreError) as raised:
        open_store(f"sqlite:///{path}")

    assert str(path) in str(raised.value)
    assert path.read_bytes() != b""  # left as it was for the user to inspect


def test_a_failed_write_leaves_the_file_unchanged(
    sqlite_store: SQLiteStore, db_path: Path, make: Builders
) -> None:
    sqlite_store.apply(make.book())
    before = sqlite_store.counts()
    assert before["Quote"] == 3

    content = make.content("Un libro largo", "Autora Prolífica")
    quotes = [make.quote(content, f"Pasaje {i}: texto del libro.", i) for i in range(2000)]
    broken = ChangeSet(
        contents=[content],
        quotes=quotes,
        relations=[make.relation(quotes[-1].id, SUPPORTS, "missing-concept")],
        vectors=make.vectors(quotes),
    )
    with pytest.raises(IntegrityError, match="missing-concept"):
        sqlite_store.apply(broken)
    sqlite_store.close()

    reopened = SQLiteStore(db_path)
    try:
        assert reopened.counts() == before
        assert reopened.get_content(content.id) is None
        assert reopened.text_search("pasaje", 5) == []
    finally:
        reopened.close()
    connection = raw(db_path)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert connection.execute("SELECT count(*) FROM node_text").fetchone()[0] == 3
    finally:
        connection.close()


def test_a_path_that_cannot_hold_a_database_gives_a_store_error(tmp_path: Path) -> None:
    directory = tmp_path / "a-directory.db"
    directory.mkdir()
    under_a_file = tmp_path / "plain.txt"
    under_a_file.write_text("not a folder")

    for path in (directory, under_a_file / "store.db"):
        with pytest.raises(StoreError) as raised:
            open_store(f"sqlite:///{path}")
        assert str(path) in str(raised.value)


def test_a_version_1_file_is_upgraded_in_place(db_path: Path, make: Builders) -> None:
    """Migration 2 (sections and answers) keeps a file written before it readable."""
    book = make.book()
    db_path.parent.mkdir(parents=True)
    old = raw(db_path)
    old.execute(
        "CREATE TABLE schema_migrations "
        "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
    )
    for statement in MIGRATIONS[0][1]:
        old.execute(statement)
    old.execute("INSERT INTO schema_migrations(version) VALUES (1)")
    # The rows version 1 wrote: Quotes under their Content, in reading order.
    old.executemany(
        "INSERT INTO nodes(id, label, name_key, parent_id, position, data) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [(c.id, "Content", None, None, None, c.model_dump_json()) for c in book.contents]
        + [
            (q.id, "Quote", None, q.content_id, q.position, q.model_dump_json())
            for q in book.quotes
        ],
    )
    old.close()

    store = SQLiteStore(db_path)
    try:
        assert store.quotes_of(book.contents[0].id) == book.quotes
        store.ensure_embedder(make.embedder.model, make.embedder.dim)
        doc = make.document()
        store.apply(doc)
        assert store.sections_of(doc.contents[0].id) == doc.sections
        assert store.answers() == doc.answers
    finally:
        store.close()
    connection = raw(db_path)
    try:
        # Old rows got their time from their record: UTC, to the millisecond.
        created = dict(connection.execute("SELECT id, created_at FROM nodes").fetchall())
        for node in [*book.contents, *book.quotes]:
            backfilled = datetime.fromisoformat(created[node.id])
            assert abs(backfilled - node.created_at) <= timedelta(milliseconds=1)
            assert created[node.id].endswith("+00:00") and len(created[node.id]) == 32
        # New rows have it to the microsecond.
        answer = doc.answers[0]
        assert created[answer.id] == answer.created_at.isoformat(timespec="microseconds")
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("method", "index"),
    [
        ("sections_of", "nodes_parent_label"),
        ("quotes_of", "nodes_parent_label"),
        ("answers", "nodes_label_created"),
    ],
)
def test_section_and_answer_reads_use_an_index(
    sqlite_store: SQLiteStore, db_path: Path, method: str, index: str
) -> None:
    read = getattr(sqlite_store, method)
    plan = plan_of(sqlite_store, db_path, lambda: read() if method == "answers" else read("x"))
    assert f"USING INDEX {index}" in plan, plan


def plan_of(store: SQLiteStore, db_path: Path, read: Callable[[], object]) -> str:
    """SQLite's query plan for the one node query `read` makes."""
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    try:
        read()
    finally:
        store._db.set_trace_callback(None)
    (query,) = [s for s in statements if s.startswith("SELECT data FROM nodes")]
    connection = raw(db_path)
    try:
        return " ".join(str(row[-1]) for row in connection.execute(f"EXPLAIN QUERY PLAN {query}"))
    finally:
        connection.close()


@pytest.mark.parametrize("method", ["nodes", "list_concepts"])
def test_a_whole_label_is_read_in_id_order_without_sorting(
    sqlite_store: SQLiteStore, db_path: Path, method: str
) -> None:
    """A deck of cards is read on every study page: from the index, in its order."""
    read = getattr(sqlite_store, method)
    plan = plan_of(
        sqlite_store,
        db_path,
        lambda: read(NodeLabel.LEARNING_ITEM) if method == "nodes" else read(),
    )
    assert "USING INDEX nodes_label_id" in plan and "TEMP B-TREE" not in plan, plan


def test_a_store_indexed_before_stemming_is_reanalysed(
    db_path: Path, make: Builders, embedder: HashEmbedder
) -> None:
    """Migration 3 rebuilds the full-text index of a store whose rows hold the raw text."""
    store = SQLiteStore(db_path)
    store.ensure_embedder(embedder.model, embedder.dim)
    book = make.book(quotes=("Las ciudades del norte crecieron.",))
    store.apply(book)
    store.close()
    connection = raw(db_path)
    connection.execute("DELETE FROM schema_migrations WHERE version = 3")
    connection.execute("UPDATE node_text SET text = 'Las ciudades del norte crecieron.'")
    connection.commit()
    connection.close()

    reopened = SQLiteStore(db_path)
    try:
        assert [hit.id for hit in reopened.text_search("ciudad", 5)] == [book.quotes[0].id]
        assert reopened.rebuild_fulltext() == 1
        assert [hit.id for hit in reopened.text_search("ciudad", 5)] == [book.quotes[0].id]
    finally:
        reopened.close()


def test_repeated_reads_see_every_write_from_this_and_another_handle(
    sqlite_store: SQLiteStore, db_path: Path, make: Builders
) -> None:
    """Relation and card-state reads are reused while the file is unchanged (the web app's
    heaviest pages), never once anything was written, here or by another process."""
    book = make.book()
    sqlite_store.apply(book)
    sqlite_store.apply(make.concepts_for(book))
    a, b = (make.concept(title) for title in ("Uno", "Dos"))
    sqlite_store.apply(ChangeSet(concepts=[a, b]))
    ids = [a.id, b.id]

    def links() -> set[tuple[str, str]]:
        return {(r.source_id, r.target_id) for r in sqlite_store.relations_of(ids)}

    assert links() == set()
    assert sqlite_store.card_states() == []

    other = SQLiteStore(db_path)
    try:
        other.apply(ChangeSet(relations=[make.relation(a.id, "RELATES_TO", b.id)]))
        assert (a.id, b.id) in links()  # another handle's commit is seen at once
        card = make_card(make, book, a.id)
        other.apply(ChangeSet(learning_items=[card]))
        assert [s.id for s in sqlite_store.card_states()] == [card.id]
    finally:
        other.close()

    sqlite_store.apply(ChangeSet(delete_relations=[(a.id, "RELATES_TO", b.id)]))
    assert (a.id, b.id) not in links()  # and this handle's own writes
    sqlite_store.apply(ChangeSet(learning_items=[card.model_copy(update={"difficulty": "hard"})]))
    assert [s.difficulty for s in sqlite_store.card_states()] == ["hard"]
    first, second = sqlite_store.relations_of(ids), sqlite_store.relations_of(ids)
    assert first == second and first is not second  # a caller's list is its own


def make_card(make: Builders, book: ChangeSet, concept_id: str) -> LearningItem:
    front = "¿Qué mejora el ejercicio aeróbico?"
    return LearningItem(
        id=learning_item_id("flashcard", [concept_id], front),
        item_type=ItemType.FLASHCARD,
        front=front,
        back="La memoria.",
        concept_ids=[concept_id],
        quote_ids=[book.quotes[0].id],
        status=ItemStatus.APPROVED,
    )


def test_a_store_from_before_the_study_tables_gets_its_cards_indexed(db_path: Path) -> None:
    due = datetime(2026, 11, 3, 8, 0, tzinfo=UTC)
    studied, log = studied_once(due)
    fresh = studied.model_copy(update={"id": "new", "schedule": {}, "due": None})
    store = SQLiteStore(db_path)
    store.apply(ChangeSet(learning_items=[studied, fresh], review_logs=[log]))
    store.close()
    # The file as the previous version left it: no study tables, migration 6 not applied.
    connection = raw(db_path)
    for table in ("card_refs", "cards", "reviews"):
        connection.execute(f"DROP TABLE {table}")
    connection.execute("DELETE FROM schema_migrations WHERE version = 6")
    connection.close()

    store = SQLiteStore(db_path)
    try:
        assert [c.id for c in store.due_cards(due, StudyScope(), limit=5)] == ["studied"]
        assert [c.id for c in store.new_cards(StudyScope(), limit=5)] == ["new"]
        counts = store.review_counts(since=due, today=due, now=due)
        assert counts["book"].introduced == 1
    finally:
        store.close()


def test_the_store_reads_its_file_through_a_memory_map(sqlite_store: SQLiteStore) -> None:
    # A full-text search at a million passages reads far more than SQLite's 2 MB page cache;
    # mapped, the hybrid search's p95 fell by 5-10 ms (docs/benchmarks.md).
    mapped = sqlite_store._db.execute("PRAGMA mmap_size").fetchone()[0]
    assert mapped >= min(1 << 30, MMAP_BYTES)


def test_term_counts_are_read_once_until_the_file_changes(
    sqlite_store: SQLiteStore, db_path: Path, make: Builders
) -> None:
    """FTS5's vocabulary counts a term's documents by walking its list (milliseconds for a
    common stem at a million passages): kept between searches, read again after any write,
    this handle's or another's, so the search ranks as a freshly opened store would."""
    sqlite_store.text_candidates = 1  # the rarest term's matches first (test_contract_stemming)
    sqlite_store.apply(
        make.book(quotes=("El castor y el río.", "Río, río, río.", "El río ancho.", "Un río."))
    )
    counted: list[str] = []
    sqlite_store._db.set_trace_callback(
        lambda sql: counted.append(sql) if "node_text_terms" in sql else None
    )

    def search() -> list[str]:
        return [hit.id for hit in sqlite_store.text_search("castor río", 2, label=NodeLabel.QUOTE)]

    def as_fresh() -> list[str]:
        fresh = SQLiteStore(db_path)
        fresh.text_candidates = 1
        try:
            return [hit.id for hit in fresh.text_search("castor río", 2, label=NodeLabel.QUOTE)]
        finally:
            fresh.close()

    first = search()
    assert len(counted) == 2  # one count per term
    assert search() == first
    assert len(counted) == 2  # none read again

    # Another handle makes "castor" the common word and "río" the rare one.
    other = SQLiteStore(db_path)
    try:
        castors = tuple(f"Un castor número {i}." for i in range(12))
        other.apply(make.book("Castores", quotes=castors))
    finally:
        other.close()
    assert search() == as_fresh() != first
    assert len(counted) == 4

    # And this handle's own write.
    sqlite_store.apply(make.book("Ríos", quotes=tuple(f"Un río más, {i}." for i in range(30))))
    assert search() == as_fresh()
    assert len(counted) == 6
