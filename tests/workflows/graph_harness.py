"""The fake-LLM harness of the graph extraction tests: a small `story` pack built here, a real
store that accepts its relationship types, checkpoints, and the graph runs API; plus the
referential-integrity check every test ends with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness import Harness

from graph_packs import PACKS, STORY_SCHEMA
from zettelgraph.context import open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import Entity, NodeLabel
from zettelgraph.packs.relations import vocabulary_from
from zettelgraph.packs.schema import PackError, PackSchema, merge
from zettelgraph.services.checkpoints import open_checkpointer
from zettelgraph.services.extraction_runs import ExtractionRuns
from zettelgraph.services.graph_runs import GraphRuns
from zettelgraph.settings import Settings
from zettelgraph.store import open_store
from zettelgraph.store.base import GraphStore, every_node

QUIJOTE = [
    "Don Quijote vivía en la Mancha y leía libros de caballerías día y noche.",
    "Sancho Panza, su vecino, aceptó ser su escudero a cambio de una ínsula.",
    "Cervantes escribió la historia del ingenioso hidalgo.",
]


def story_packs(names: Sequence[str] | None) -> PackSchema:
    """The packs of these tests by name, with the loader's error for an unknown one."""
    chosen = list(names) if names is not None else list(PACKS)
    for name in chosen:
        if name not in PACKS:
            raise PackError(f"no pack named {name!r}; the packs are {', '.join(PACKS)}")
    return merge([PACKS[name] for name in chosen])


def entity(name: str, type_: str, description: str = "", **properties: Any) -> dict[str, Any]:
    return {
        "tool": "extract_entity",
        "args": {"name": name, "type": type_, "description": description, "properties": properties},
    }


def relationship(
    source: str,
    type_: str,
    target: str,
    description: str = "",
    confidence: float | None = None,
    **ids: str,
) -> dict[str, Any]:
    """A relationship call by names; `source_id=`/`target_id=` give short ids instead; with
    the model's `confidence` when given."""
    args: dict[str, Any] = {"relationship_type": type_, "description": description}
    if confidence is not None:
        args["confidence"] = confidence
    args["source_id" if "source_id" in ids else "source_name"] = ids.get("source_id", source)
    args["target_id" if "target_id" in ids else "target_name"] = ids.get("target_id", target)
    return {"tool": "extract_relationship", "args": args}


def calls(*items: dict[str, Any]) -> dict[str, Any]:
    return {"calls": list(items)}


class GraphHarness(Harness):
    """Services whose store accepts the `story` pack, a scriptable fake and GraphRuns."""

    def __init__(
        self,
        home: Path,
        replies: dict[str, list[Any]] | None = None,
        *,
        tools: bool = False,
        packs: Callable[[Sequence[str] | None], PackSchema] | None = story_packs,
        **settings: Any,
    ):
        spec = "fake:tools=1" if tools else "fake"
        values: dict[str, Any] = {"llm": spec, "embeddings": "hash", "llm_backoff": 0.0}
        self.settings = Settings(home=home, **{**values, **settings})
        self.llm = FakeChatModel(replies=replies or {}, tool_calling=tools)
        llms = ChatModels(self.settings, preset={spec: self.llm})
        store = (
            open_store(self.settings.store_url, vocabulary_from(STORY_SCHEMA))
            if packs is story_packs
            else None
        )
        self.services = open_services(self.settings, llms=llms, store=store)
        self._checkpoints = open_checkpointer(self.settings)
        checkpointer = self._checkpoints.__enter__()
        self.runs = ExtractionRuns(self.services, checkpointer)
        self.graph_runs = GraphRuns(self.services, checkpointer, packs=packs)

    def entities(self) -> list[Entity]:
        return list(every_node(self.services.store, NodeLabel.ENTITY, Entity))


def broken_edges(store: GraphStore, schema: PackSchema) -> list[str]:
    """Every stored relationship that touches an entity and whose endpoints are not two
    existing entities of types its relationship type joins (reverses included)."""
    entities = {e.id: e for e in every_node(store, NodeLabel.ENTITY, Entity)}
    broken = []
    for relation in store.relations(None):
        if relation.source_id not in entities and relation.target_id not in entities:
            continue
        source, target = entities.get(relation.source_id), entities.get(relation.target_id)
        if source is None or target is None:
            broken.append(f"{relation.key}: an endpoint is not an entity")
        elif not schema.allows(relation.type, source.entity_type, target.entity_type):
            broken.append(
                f"{source.name} {relation.type} {target.name}: "
                f"{source.entity_type} -> {target.entity_type} is not allowed"
            )
    return broken
