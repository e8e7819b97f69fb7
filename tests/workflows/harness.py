"""The fake-LLM harness of the concept-extraction tests: services, checkpoints and runs on a
real store, with scripted replies per call name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from zettelgraph.context import Services, open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import (
    ChangeSet,
    Content,
    Quote,
    Relation,
    Section,
    content_id,
    quote_id,
    section_id,
)
from zettelgraph.packs.relations import IN_SECTION, QUOTED_IN, SECTION_OF
from zettelgraph.services.checkpoints import open_checkpointer
from zettelgraph.services.extraction_runs import ExtractionRuns
from zettelgraph.settings import Settings

QUOTES = [
    "La ciencia es un instrumento para conocer el mundo, no un dogma que lo explique todo.",
    "La voluntad de vivir se manifiesta en cada ser como una fuerza ciega y tenaz.",
    "El hombre de ciencia necesita dudar de todo, empezando por sí mismo.",
]


class Harness:
    """Services with a scriptable fake LLM, a checkpoint database and the runs API."""

    def __init__(self, home: Path, replies: dict[str, list[Any]] | None = None, **settings: Any):
        values: dict[str, Any] = {"llm": "fake", "embeddings": "hash", "llm_backoff": 0.0}
        self.settings = Settings(home=home, **{**values, **settings})
        self.llm = FakeChatModel(replies=replies or {})
        llms = ChatModels(self.settings, preset={"fake": self.llm})
        self.services: Services = open_services(self.settings, llms=llms)
        self._checkpoints = open_checkpointer(self.settings)
        self.runs = ExtractionRuns(self.services, self._checkpoints.__enter__())

    def add_content(self, title: str, quotes: list[str], kind: str = "book") -> str:
        cid = content_id(title, None)
        store = self.services.store
        store.ensure_embedder(self.services.embedder.name, self.services.embedder.dim)
        items = [
            Quote(id=quote_id(cid, t), content_id=cid, text=t, position=i, page=str(i + 1))
            for i, t in enumerate(quotes)
        ]
        vectors = self.services.embedder.embed(quotes) if quotes else []
        store.apply(
            ChangeSet(
                contents=[Content(id=cid, title=title, kind=kind)],
                quotes=items,
                relations=[Relation(source_id=q.id, target_id=cid, type=QUOTED_IN) for q in items],
                vectors={q.id: vectors[i] for i, q in enumerate(items)},
            )
        )
        return cid

    def add_document(self, title: str, sections: list[tuple[str, str, list[str]]]) -> str:
        """A PDF's content: per section its title, its own text before its passages (what
        only the section shows) and its passages, stored as ingest stores them."""
        cid = content_id(title, None)
        store = self.services.store
        store.ensure_embedder(self.services.embedder.name, self.services.embedder.dim)
        parents: list[Section] = []
        quotes: list[Quote] = []
        for position, (heading, lead, passages) in enumerate(sections):
            text = " ".join([lead, *passages])
            parent = Section(
                id=section_id(cid, position, text),
                content_id=cid,
                title=heading,
                text=text,
                position=position,
            )
            parents.append(parent)
            quotes += [
                Quote(
                    id=quote_id(cid, t),
                    content_id=cid,
                    text=t,
                    position=len(quotes) + i,
                    page=str(position + 1),
                    parent_id=parent.id,
                )
                for i, t in enumerate(passages)
            ]
        vectors = self.services.embedder.embed([q.text for q in quotes])
        store.apply(
            ChangeSet(
                contents=[Content(id=cid, title=title, kind="pdf")],
                sections=parents,
                quotes=quotes,
                relations=[Relation(source_id=q.id, target_id=cid, type=QUOTED_IN) for q in quotes]
                + [Relation(source_id=s.id, target_id=cid, type=SECTION_OF) for s in parents]
                + [
                    Relation(source_id=q.id, target_id=q.parent_id, type=IN_SECTION)
                    for q in quotes
                    if q.parent_id
                ],
                vectors={q.id: vectors[i] for i, q in enumerate(quotes)},
            )
        )
        return cid

    def calls(self, name: str) -> int:
        return int(self.services.usage.as_dict().get(name, {}).get("calls", 0))

    def close(self) -> None:
        self._checkpoints.__exit__(None, None, None)
        self.services.close()


def concept_reply(title: str, quote_ids: list[str], summary: str | None = None) -> dict[str, Any]:
    text = summary or f"{title}: una idea completa y autónoma."
    return {
        "title": title,
        "concept": text,
        "analysis": "Análisis de la idea.",
        "summary": text,
        "summary_short": text,
        "source_quote_ids": quote_ids,
        "rationale": "Las citas lo dicen.",
    }


PASSING_CRITIQUE = {
    "failed_criteria": [],
    "issues": [],
    "overall_passes": True,
    "critique_summary": "Bien.",
    "improvement_suggestions": [],
}


MakeHarness = Callable[..., Harness]
