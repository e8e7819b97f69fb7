"""The fake-LLM harness of the concept-extraction tests: services, checkpoints and runs on a
real store, with scripted replies per call name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from zettelgraph.context import Services, open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import ChangeSet, Content, Quote, Relation, content_id, quote_id
from zettelgraph.packs.relations import QUOTED_IN
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

    def add_content(self, title: str, quotes: list[str]) -> str:
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
                contents=[Content(id=cid, title=title)],
                quotes=items,
                relations=[Relation(source_id=q.id, target_id=cid, type=QUOTED_IN) for q in items],
                vectors={q.id: vectors[i] for i, q in enumerate(items)},
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
