"""Generate learning items (cards) from reviewed concepts, or straight from a content's
passages: what `zettelgraph cards generate`, `ingest --cards`, the web app, the MCP server
and the after-approval hook (services/extraction_runs.py) call.

The cards are written as `proposed` and wait for the reader's bulk review (services/cards.py:
approve / drop / edit); only approved ones are studied and exported. Running it again makes
only what is missing: a concept that has a card of some kind gets no other of that kind, and a
card already in the store (same type, concepts and front) is never rewritten.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig

from zettelgraph.context import Services
from zettelgraph.llm.factory import LLMConfigError
from zettelgraph.models import ItemStatus, LearningItem, NodeLabel
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.services.cards import CardError
from zettelgraph.services.ids import IdError, resolve_node_id
from zettelgraph.store.base import GraphStore
from zettelgraph.workflows.learning_items.graph import (
    RECURSION_LIMIT,
    build_learning_items_graph,
)

# A generation's id starts so (`export prov --run gen-...` exports what it wrote).
GENERATION_PREFIX = "gen-"


@dataclass
class GenerationReport:
    """What one generation proposed, set aside and skipped.

    `dropped` holds one `{front, item_type, guard, reason, concept_ids}` per card a check set
    aside (guard `duplicate` for the repeats, which are also in `duplicate_items`, written as
    dropped with `duplicate_of`; the flashcards a check dropped are in `set_aside`, written as
    dropped with the check in `provenance["dropped_by"]`, so their concept is not asked again
    and the reader can still approve one); `skipped_concepts` counts the concepts that
    already had their recall cards, so no LLM call was made for them; `calls` counts LLM
    calls.
    """

    generation_id: str
    proposed: list[LearningItem]
    dropped: list[dict[str, Any]]
    duplicates: int
    skipped_concepts: int
    calls: int
    per_type: dict[str, int]
    targets: int = 0
    duplicate_items: list[LearningItem] = field(default_factory=list)
    set_aside: list[LearningItem] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-able, as `zettelgraph cards generate --json` prints it.

        Returns:
            The run's `summary` with `generation_id`, `targets`, `proposed` (items as JSON),
            `per_type`, `dropped`, `duplicates` and the other fields of the report.
        """
        return {
            **self.summary,
            "generation_id": self.generation_id,
            "targets": self.targets,
            "proposed": [item.model_dump(mode="json") for item in self.proposed],
            "per_type": self.per_type,
            "dropped": self.dropped,
            "duplicates": self.duplicates,
            "duplicate_items": [
                {"id": i.id, "front": i.front, "duplicate_of": i.duplicate_of}
                for i in self.duplicate_items
            ],
            "set_aside": [
                {"id": i.id, "front": i.front, "dropped_by": i.provenance.get("dropped_by")}
                for i in self.set_aside
            ],
            "skipped_concepts": self.skipped_concepts,
            "calls": self.calls,
            "usage": self.usage,
            "seconds": round(self.seconds, 3),
        }


def generate_cards(
    services: Services,
    *,
    concept_ids: Sequence[str] | None = None,
    content_id: str | None = None,
    from_passages: str | None = None,
    on_progress: Callable[[str], None] | None = None,
) -> GenerationReport:
    """Propose cards for reviewed concepts: the ones named, or one book's, or all of them
    (both given: the named ones of that book); or, with `from_passages`, straight from one
    content's passages, before any concept is extracted (each card cites its passage).

    Args:
        services: the open services.
        concept_ids: the concepts to make cards for.
        content_id: the book whose concepts get cards.
        from_passages: a content's full id whose passages get cards (no concepts then).
        on_progress: told each finished step's name.

    Returns:
        What the generation proposed, set aside and skipped.

    Raises:
        CardError: a concept or content that does not exist, one with no reviewed concepts
            (or, with `from_passages`, no passages) yet, or concepts and passages asked at once.
    """
    inputs: dict[str, Any]
    if from_passages is not None:
        if concept_ids is not None or content_id is not None:
            raise CardError(
                "cards come from concepts or from passages, not both: drop --concept and "
                "--content, or --from-passages"
            )
        inputs = {"quote_ids": target_passages(services.store, from_passages)}
    else:
        inputs = {"concept_ids": target_concepts(services.store, concept_ids, content_id)}
    services.check_embedder()
    started = time.perf_counter()
    generation_id = f"{GENERATION_PREFIX}{uuid.uuid4().hex[:12]}"
    config: RunnableConfig = {
        "recursion_limit": RECURSION_LIMIT,
        "max_concurrency": _concurrency(services),
    }
    before = services.usage.as_dict()
    final: dict[str, Any] = {}
    graph = build_learning_items_graph(services)
    for mode, chunk in graph.stream(
        {**inputs, "generation_id": generation_id},
        config,
        stream_mode=["updates", "values"],
    ):
        if mode == "updates" and on_progress is not None and isinstance(chunk, dict):
            for name in chunk:
                if not name.startswith("__"):
                    on_progress(name)
        elif mode == "values" and isinstance(chunk, dict):
            final = chunk
    summary: dict[str, Any] = dict(final.get("report") or {})
    written = [LearningItem.model_validate(w) for w in final.get("written", [])]
    return GenerationReport(
        generation_id=generation_id,
        proposed=[w for w in written if w.status == ItemStatus.PROPOSED],
        dropped=list(summary.get("dropped", [])),
        duplicates=int(summary.get("duplicates", 0)),
        skipped_concepts=int(summary.get("skipped_concepts", 0)),
        calls=int(summary.get("calls", 0)),
        per_type=dict(summary.get("per_type", {})),
        targets=int(summary.get("targets", 0)),
        duplicate_items=[w for w in written if w.duplicate_of is not None],
        set_aside=[w for w in written if w.provenance.get("dropped_by")],
        summary=summary,
        usage=_usage_since(before, services.usage.as_dict()),
        seconds=time.perf_counter() - started,
    )


def target_concepts(
    store: GraphStore, concept_ids: Sequence[str] | None, content_id: str | None
) -> list[str]:
    """The ids of the concepts a generation is for; CardError for a bad request.

    Args:
        store: the graph store to read.
        concept_ids: the concepts asked for, by id or unique id prefix; None for every concept (of
            the content, when one is given).
        content_id: a book's full id to take the concepts of, or None for the whole graph.

    Returns:
        Full concept ids without repeats: those named (inside the content when both are given), else
        the content's or the graph's.

    Raises:
        CardError: an empty `concept_ids`, an id that names no concept or several, an unknown
            content, a graph or content without reviewed concepts, or no named concept from the
            content.
    """
    named: list[str] | None = None
    if concept_ids is not None:
        named = [_concept_id(store, given) for given in concept_ids]
        if not named:
            raise CardError("no concept given: name one with --concept, or give none for all")
    if content_id is None:
        if named is not None:
            return list(dict.fromkeys(named))
        every = [c.id for c in store.list_concepts()]
        if not every:
            raise CardError(
                "the graph has no reviewed concepts yet: run `zettelgraph run NOTES` (or "
                "`zettelgraph extract ID`) and approve its review first"
            )
        return every
    content = store.get_content(content_id)
    if content is None:
        raise CardError(f"no content {content_id!r}: `zettelgraph contents` lists them")
    of_content = concepts_of(store, content.id)
    if not of_content:
        raise CardError(
            f"'{content.title}' has no reviewed concepts: run `zettelgraph extract "
            f"{content.id}` and approve its review first"
        )
    if named is None:
        return of_content
    inside = [cid for cid in dict.fromkeys(named) if cid in set(of_content)]
    if not inside:
        raise CardError(f"none of the concepts given comes from '{content.title}'")
    return inside


def target_passages(store: GraphStore, content_id: str) -> list[str]:
    """The ids of a content's passages, in reading order, for cards made straight from them.

    Args:
        store: the graph store to read.
        content_id: the content's full id.

    Returns:
        Its passages' ids, in reading order.

    Raises:
        CardError: an unknown content, or one without passages.
    """
    content = store.get_content(content_id)
    if content is None:
        raise CardError(f"no content {content_id!r}: `zettelgraph contents` lists them")
    quotes = sorted(store.quotes_of(content.id), key=lambda q: (q.position, q.id))
    if not quotes:
        raise CardError(
            f"'{content.title}' has no passages to make cards from: ingest it again "
            "(`zettelgraph ingest FILE`)"
        )
    return [q.id for q in quotes]


def concepts_of(store: GraphStore, content_id: str) -> list[str]:
    """The concepts of a book: those its runs committed, and those its quotes support.

    Args:
        store: the graph store to read.
        content_id: the book's full id.

    Returns:
        The ids of the concepts still in the store, without repeats, those its runs committed first.
    """
    ids = [c.id for c in store.list_concepts() if c.provenance.get("content_id") == content_id]
    for quote in store.quotes_of(content_id):
        for relation in store.relations(quote.id, relation_type=SUPPORTS, direction="out"):
            ids.append(relation.target_id)
    return [cid for cid in dict.fromkeys(ids) if store.get_concept(cid) is not None]


def _concept_id(store: GraphStore, given: str) -> str:
    """A concept's id, or a unique prefix of one: its whole id."""
    try:
        return resolve_node_id(store, NodeLabel.CONCEPT, given)
    except IdError as exc:
        raise CardError(str(exc)) from exc


def _concurrency(services: Services) -> int:
    """Branches in flight: as the model answering card_question allows (one on the local
    server). Without a model configured only graph cards are made, so any number does."""
    try:
        return services.llms.fast_profile.concurrency
    except LLMConfigError:
        return 1


def _usage_since(
    before: dict[str, dict[str, float]], after: dict[str, dict[str, float]]
) -> dict[str, dict[str, float]]:
    """LLM usage of this generation alone, per call name (services may be shared)."""
    out = {}
    for name, totals in after.items():
        earlier = before.get(name, {})
        delta = {k: round(v - earlier.get(k, 0), 3) for k, v in totals.items()}
        if delta.get("calls"):
            out[name] = delta
    return out
