"""Phase A: materialise the entities the batches extracted.

Every `extract_entity` call of this round, in batch order:
1. scoped to the packs' entity types: an unknown type drops the entity, with a warning naming
   both;
2. grounded: a word of its name (or an alias) must be in its batch's passages or the source's
   title and author, else it is dropped (a small model lists the known entities it was shown,
   or the worked example's, as if the passages named them);
3. its properties checked against the type (`properties.py`);
4. deduplicated: by id (type and folded name) within the run and against the store, then by
   embedding (cosine >= ZETTELGRAPH_MERGE_THRESHOLD) to another entity of this run or a stored
   one of the same type.
Nothing is written here: the proposal waits for the reader, and the commit writes it whole.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from zettelgraph.context import Services
from zettelgraph.models import Entity, NodeLabel, embedding_text, entity_id
from zettelgraph.packs.schema import PackSchema
from zettelgraph.text.normalize import normalize_name
from zettelgraph.workflows.graph_extraction.packs import PackResolver, known_type
from zettelgraph.workflows.graph_extraction.properties import checked_properties
from zettelgraph.workflows.graph_extraction.state import (
    BatchResult,
    DraftEntity,
    Drop,
    GraphState,
    ProposedEntity,
)

# Stored entities compared by embedding with each new one.
STORE_CANDIDATES = 5
# Entity aliases the packs may define as a list property; names answer to them too.
ALIASES = "aliases"
_WORD = re.compile(r"\w+")
# Words that name nothing on their own ("Miguel de Cervantes" is grounded by "cervantes").
_FILLERS = frozenset(
    {"de", "del", "la", "las", "los", "el", "en", "y", "al", "the", "of", "and", "an"}
    | {"von", "van", "der", "den", "di", "da", "du", "le", "les", "des"}
)


def name_words(name: str) -> set[str]:
    return {w for w in _WORD.findall(normalize_name(name)) if len(w) > 1 and w not in _FILLERS}


def batch_words(
    state: GraphState, folded: dict[str, str], passage_ids: list[str]
) -> tuple[set[str], str]:
    """The words a batch's entities may be grounded by: its passages' and the source's title
    and author, folded; and that text."""
    content = state.get("content", {})
    source = normalize_name(f"{content.get('title', '')} {content.get('author') or ''}")
    text = " ".join([source, *(folded.get(pid, "") for pid in passage_ids)])
    return set(_WORD.findall(text)), text


def grounded(names: list[str] | tuple[str, ...], words: set[str], folded_text: str) -> bool:
    """Whether one of `names` is in the text: one of its words, or (a name of fillers and
    single letters only) the whole name."""
    for name in names:
        significant = name_words(name)
        if significant & words if significant else normalize_name(name) in folded_text:
            return True
    return False


def round_results(state: GraphState) -> list[BatchResult]:
    """This round's batch results, in batch order."""
    current = state.get("extraction_round", 0)
    return sorted(
        (r for r in state.get("batch_results", []) if r.get("round", 0) == current),
        key=lambda r: r["index"],
    )


def drop(kind: str, reason: str, subject: str, message: str, call: str) -> Drop:
    return Drop(kind=kind, reason=reason, subject=subject, message=message, call=call)


def folded_passages(state: GraphState) -> dict[str, str]:
    """Passage id -> its text folded (`normalize_name`), to find the names it mentions."""
    return {p["id"]: normalize_name(p["text"]) for p in state.get("passages", [])}


def mentioning(names: list[str], folded: dict[str, str], batch: list[str]) -> list[str]:
    """The batch's passages that mention one of `names`, else the whole batch."""
    keys = [normalize_name(n) for n in names if n.strip()]
    found = [pid for pid in batch if any(k in folded.get(pid, "") for k in keys)]
    return found or list(batch)


def materialise_entities(state: GraphState, services: Services, packs: PackResolver) -> GraphState:
    results = round_results(state)
    if results and all(r.get("failed") for r in results):
        if state.get("extraction_round", 0) > 0:
            # A feedback round that read nothing: the reader gets the last proposal back.
            return {
                "round_failed": True,
                "warnings": [
                    f"every extraction call of feedback round {state['extraction_round']} "
                    f"failed ({len(results)}): the proposal is the one before it"
                ],
            }
        return {
            "status": "failed",
            "entities": [],
            "entity_drops": [],
            "warnings": [
                f"every extraction call failed ({len(results)}): nothing to review. Check the "
                "model (`zettelgraph doctor`) and extract again"
            ],
        }
    schema = packs(state.get("packs"))
    texts = folded_passages(state)
    drops: list[Drop] = []
    warnings: list[str] = []
    drafts: dict[str, DraftEntity] = {}
    for result in results:
        call = result["call"]
        words, folded = batch_words(state, texts, result["passage_ids"])
        for line in result.get("rejected", []):
            drops.append(
                drop("call", "invalid_call", line, f"{call}: tool call rejected: {line}", call)
            )
        for raw in result["entities"]:
            draft = _draft(raw, schema, call, drops, warnings)
            if draft is None:
                continue
            if not grounded(draft["names"], words, folded):
                message = (
                    f"{call}: dropped {draft['type']} {draft['name']!r}: its passages do not "
                    "name it"
                )
                drops.append(drop("entity", "not_in_passages", draft["name"], message, call))
                continue
            draft["passage_ids"] = mentioning(draft["names"], texts, result["passage_ids"])
            known = drafts.get(draft["id"])
            if known is None:
                drafts[draft["id"]] = draft
            else:
                _merge(known, draft)
    entities = _against_store(list(drafts.values()), services)
    entities = _by_embedding(entities, services)
    return {
        "round_failed": False,
        "entities": entities,
        "entity_drops": drops,
        "warnings": [*warnings, *(d["message"] for d in drops)],
    }


def _draft(
    raw: ProposedEntity,
    schema: PackSchema,
    call: str,
    drops: list[Drop],
    warnings: list[str],
) -> DraftEntity | None:
    name = " ".join(str(raw.get("name", "")).split())
    given_type = str(raw.get("type", "")).strip()
    entity_type = known_type(given_type, list(schema.entity_types))
    if not name:
        drops.append(
            drop(
                "entity",
                "empty_name",
                given_type,
                f"{call}: dropped a {given_type} with no name",
                call,
            )
        )
        return None
    if entity_type is None:
        packs = ", ".join(p.name for p in schema.packs)
        drops.append(
            drop(
                "entity",
                "unknown_entity_type",
                name,
                f"{call}: dropped entity {name!r}: type {given_type!r} is not one of pack "
                f"{packs}'s entity types ({', '.join(schema.entity_types)})",
                call,
            )
        )
        return None
    spec = schema.entity_types[entity_type]
    properties, problems = checked_properties(dict(raw.get("properties") or {}), spec)
    for problem in problems:
        drops.append(
            drop(
                "property",
                problem.reason,
                f"{name}.{problem.key}",
                f"{call}: {entity_type} {name!r}: dropped {problem.message}",
                call,
            )
        )
    missing = [p.name for p in spec.properties if p.required and p.name not in properties]
    if missing:
        warnings.append(f"{call}: {entity_type} {name!r} has no {', '.join(missing)} (required)")
    given_aliases = properties.get(ALIASES)
    aliases = [str(a) for a in given_aliases] if isinstance(given_aliases, list) else []
    return DraftEntity(
        id=entity_id(entity_type, name),
        name=name,
        type=entity_type,
        description=" ".join(str(raw.get("description") or "").split()),
        properties=properties,
        existing=False,
        matched_by="new",
        names=list(dict.fromkeys([name, *aliases])),
        passage_ids=[],
        calls=[call],
    )


def _merge(kept: DraftEntity, other: DraftEntity) -> None:
    """`other` is `kept` under another name or from another batch: one entity, both sources."""
    kept["names"] = list(dict.fromkeys([*kept["names"], *other["names"]]))
    kept["passage_ids"] = list(dict.fromkeys([*kept["passage_ids"], *other["passage_ids"]]))
    kept["calls"] = list(dict.fromkeys([*kept["calls"], *other["calls"]]))
    kept["properties"] = {**other["properties"], **kept["properties"]}
    if not kept["description"]:
        kept["description"] = other["description"]


def _against_store(drafts: list[DraftEntity], services: Services) -> list[DraftEntity]:
    """Drafts whose id the store holds become that entity (its name and description kept)."""
    stored = {e.id: e for e in services.store.get_entities([d["id"] for d in drafts])}
    for draft in drafts:
        entity = stored.get(draft["id"])
        if entity is not None:
            _become(draft, entity, "name")
    return drafts


def _become(draft: DraftEntity, entity: Entity, how: str) -> None:
    draft["names"] = list(dict.fromkeys([entity.name, *draft["names"]]))
    draft["id"] = entity.id
    draft["name"] = entity.name
    draft["existing"] = True
    draft["matched_by"] = how
    draft["description"] = entity.description or draft["description"]


def _by_embedding(drafts: list[DraftEntity], services: Services) -> list[DraftEntity]:
    """New drafts close enough to an earlier draft or a stored entity of the same type are
    that entity. The store is asked only for drafts no name matched."""
    threshold = services.thresholds.merge
    new = [d for d in drafts if not d["existing"]]
    if not new:
        return drafts
    vectors = services.embedder.embed([_text(d) for d in new])
    unit = {
        d["id"]: v / (float(np.linalg.norm(v)) or 1.0) for d, v in zip(new, vectors, strict=True)
    }
    kept: dict[str, DraftEntity] = {d["id"]: d for d in drafts if d["existing"]}
    for draft in new:
        twin = _nearest_draft(draft, kept.values(), unit, threshold)
        if twin is None:
            twin_entity, score = _nearest_stored(draft, unit[draft["id"]], services, threshold)
            if twin_entity is not None:
                _become(draft, twin_entity, f"embedding {score:.2f}")
                twin = kept.get(draft["id"])
        if twin is not None and twin is not draft:
            _merge(twin, draft)
            continue
        kept[draft["id"]] = draft
    return list(kept.values())


def _text(draft: DraftEntity) -> str:
    return embedding_text(
        Entity(
            id=draft["id"],
            name=draft["name"],
            entity_type=draft["type"],
            description=draft["description"][:2000],
        )
    )


def _nearest_draft(
    draft: DraftEntity, others: Any, unit: dict[str, Any], threshold: float
) -> DraftEntity | None:
    vector = unit[draft["id"]]
    best: tuple[float, DraftEntity] | None = None
    for other in others:
        if other["type"] != draft["type"] or other["id"] not in unit:
            continue
        score = float(unit[other["id"]] @ vector)
        if score >= threshold and (best is None or score > best[0]):
            best = (score, other)
    return best[1] if best else None


def _nearest_stored(
    draft: DraftEntity, vector: Any, services: Services, threshold: float
) -> tuple[Entity | None, float]:
    hits = services.store.vector_search(
        NodeLabel.ENTITY, vector, STORE_CANDIDATES, min_score=threshold
    )
    scores = {h.id: h.score for h in hits}
    for entity in services.store.get_entities([h.id for h in hits]):
        if entity.entity_type == draft["type"]:
            return entity, scores[entity.id]
    return None, 0.0
