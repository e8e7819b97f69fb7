"""Filtered passage search for the Cypher stores (FalkorDB, Neo4j).

Kept apart from `cypher.py` so the store stays readable. A `PassageFilter` is applied in the
queries themselves, before any LIMIT, so a search returns k passages whenever k admitted
ones match:

- Contents by id, kind and author: one query (`Content.kind`, `AUTHORED_BY` to a `Person`
  with the folded `name_key`), then `n.content_id IN $contents` on the passages (indexed);
- places (pages, slides, turns, time): a passage's location is only in its JSON record, so
  the passages of those Contents are read once and checked in Python (`scope.in_places`),
  giving an explicit id list;
- vector search is then exact over the admitted passages (no HNSW candidates to run out
  of); full-text search keeps the index's matches among them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from zettelgraph.models import NodeLabel, PassageFilter
from zettelgraph.store.scope import author_keys, in_places, kind_keys

if TYPE_CHECKING:
    from zettelgraph.store.cypher import TextTerm


class _Cypher(Protocol):
    """What these functions need of a CypherStore."""

    def _read(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]: ...

    def _text_hits(
        self,
        label: NodeLabel,
        words: Sequence[TextTerm],
        k: int | None,
        contents: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]: ...


@dataclass(frozen=True)
class Scope:
    """The passages a filter admits: those of `contents` (None: of any Content), and of
    them only `ids` when places narrowed them further (None: all of them)."""

    contents: list[str] | None
    ids: frozenset[str] | None

    @property
    def empty(self) -> bool:
        return self.contents == [] or self.ids == frozenset()


def passage_scope(db: _Cypher, passages: PassageFilter) -> Scope:
    contents: list[str] | None = None
    if passages.by_content:
        clauses: list[str] = []
        if passages.content_ids:
            clauses.append("c.id IN $ids")
        if passages.kinds:
            clauses.append("toLower(c.kind) IN $kinds")
        where = f"WHERE {' AND '.join(clauses)} " if clauses else ""
        if passages.authors:
            # An author's name_key is indexed: the match starts from the Persons.
            match = "MATCH (p:Person) WHERE p.name_key IN $authors "
            match += f"MATCH (c:Content)-[:AUTHORED_BY]->(p) {where}"
        else:
            match = f"MATCH (c:Content) {where}"
        rows = db._read(
            f"{match}RETURN DISTINCT c.id",
            {
                "ids": list(passages.content_ids),
                "kinds": kind_keys(passages),
                "authors": author_keys(passages),
            },
        )
        contents = sorted(str(row[0]) for row in rows)
        if not contents:
            return Scope(contents=[], ids=None)
    if not passages.places:
        return Scope(contents=contents, ids=None)
    where = "WHERE n.content_id IN $contents " if contents is not None else ""
    ids = set()
    for node_id, data in db._read(
        f"MATCH (n:Quote) {where}RETURN n.id, n.data", {"contents": contents}
    ):
        record = json.loads(data)
        if in_places(record.get("location") or {}, record.get("page"), passages.places):
            ids.add(str(node_id))
    return Scope(contents=contents, ids=frozenset(ids))


def scoped_vector_rows(
    db: _Cypher, scope: Scope, tail: str, params: Mapping[str, Any]
) -> list[list[Any]]:
    """`tail` (score, order, limit over `n`) run exactly over the admitted passages."""
    if scope.empty:
        return []
    if scope.ids is not None:
        return db._read(
            "UNWIND $ids AS id MATCH (n:Node {id: id}) "
            f"WHERE n:Quote AND n.embedding IS NOT NULL {tail}",
            {**params, "ids": sorted(scope.ids)},
        )
    where = "n.content_id IN $contents AND " if scope.contents is not None else ""
    return db._read(
        f"MATCH (n:Quote) WHERE {where}n.embedding IS NOT NULL {tail}",
        {**params, "contents": scope.contents},
    )


def scoped_text_hits(
    db: _Cypher, scope: Scope, words: Sequence[TextTerm], k: int
) -> list[tuple[str, float]]:
    """Full-text matches among the admitted passages, best first."""
    if scope.empty:
        return []
    if scope.ids is None:
        return db._text_hits(NodeLabel.QUOTE, words, k, scope.contents)
    # Places: every match of those Contents, then the admitted ones (a Python set, where a
    # Cypher `IN` over a long id list would cost matches x ids).
    hits = db._text_hits(NodeLabel.QUOTE, words, None, scope.contents)
    return [hit for hit in hits if hit[0] in scope.ids][:k]
