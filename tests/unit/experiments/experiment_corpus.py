"""Builders for the experiment tools' tests: books (with author, year and passages) and
concepts with their relations, written to a real store through ChangeSet as the workflows
write them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from zettelgraph.experiments.models import FocusTerm
from zettelgraph.experiments.registry import Document, ToolContext, load_documents
from zettelgraph.llm.embeddings import HashEmbedder
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    Entity,
    Person,
    Quote,
    Relation,
    content_id,
    entity_id,
    person_id,
    quote_id,
    stable_id,
)
from zettelgraph.packs.relations import AUTHORED_BY, QUOTED_IN, SUPPORTS
from zettelgraph.store import GraphStore


@dataclass
class Corpus:
    """A store being filled, and what the tools need to read it."""

    store: GraphStore
    content_ids: list[str] = field(default_factory=list)

    def book(
        self,
        title: str,
        passages: Sequence[str],
        *,
        author: str | None = "Benito Pérez Galdós",
        year: int | None = None,
    ) -> list[Quote]:
        """A Content with its author and passages (page n+1 for the n-th); its passages."""
        metadata: dict[str, Any] = {"year": year} if year is not None else {}
        content = Content(id=content_id(title, author), title=title, metadata=metadata)
        quotes = [
            Quote(
                id=quote_id(content.id, f"{position}:{text}"),
                content_id=content.id,
                text=text,
                position=position,
                page=str(position + 1),
            )
            for position, text in enumerate(passages)
        ]
        relations = [Relation(source_id=q.id, target_id=content.id, type=QUOTED_IN) for q in quotes]
        persons = []
        if author:
            persons.append(Person(id=person_id(author), name=author))
            relations.append(
                Relation(source_id=content.id, target_id=persons[0].id, type=AUTHORED_BY)
            )
        self.store.apply(
            ChangeSet(contents=[content], persons=persons, quotes=quotes, relations=relations)
        )
        self.content_ids.append(content.id)
        return quotes

    def concept(
        self,
        title: str,
        text: str = "",
        *,
        content: str | None = None,
        quotes: Sequence[Quote] = (),
    ) -> Concept:
        """A Concept (from `content`, supported by `quotes` when given)."""
        concept = Concept(
            id=stable_id("concept", title),
            title=title,
            concept=text or f"{title}: una idea.",
            provenance={"content_id": content} if content else {},
        )
        relations = [Relation(source_id=q.id, target_id=concept.id, type=SUPPORTS) for q in quotes]
        self.store.apply(ChangeSet(concepts=[concept], relations=relations))
        return concept

    def relate(self, source: Concept, relation_type: str, target: Concept) -> None:
        relation = Relation(source_id=source.id, target_id=target.id, type=relation_type)
        self.store.apply(ChangeSet(relations=[relation]))

    def person(self, name: str) -> None:
        self.store.apply(ChangeSet(persons=[Person(id=person_id(name), name=name)]))

    def entity(self, name: str, kind: str) -> None:
        node = Entity(id=entity_id(kind, name), name=name, entity_type=kind)
        self.store.apply(ChangeSet(entities=[node]))

    def documents(self) -> list[Document]:
        return load_documents(self.store, self.content_ids)

    def context(self, term: str, **fields: Any) -> ToolContext:
        return ToolContext(
            store=self.store, embedder=HashEmbedder(), term=FocusTerm(term=term, **fields)
        )
