"""Phase B: resolve every relationship's two endpoints, validate it, or drop it.

Each endpoint is resolved by its short id (an existing entity the batch's prompt showed), else
by name: this run's entities (names and aliases), the batch's known entities, then the store.
An end that is not one of this run's entities must be named in the batch's passages: the
passages state the relationship, so they name both ends (this run's entities were grounded in
phase A). The relationship type and the endpoints' types are checked against the merged pack
schema.
What does not resolve or does not fit is dropped with a line naming it; no entity is ever made
up to hold an edge (better to lose a link than corrupt the graph).
"""

from __future__ import annotations

from dataclasses import dataclass

from zettelgraph.context import Services
from zettelgraph.packs.schema import PackSchema, RelationshipType
from zettelgraph.store.base import GraphStore
from zettelgraph.text.normalize import normalize_name
from zettelgraph.workflows.graph_extraction.nodes_entities import (
    batch_words,
    drop,
    folded_passages,
    grounded,
    mentioning,
    round_results,
)
from zettelgraph.workflows.graph_extraction.packs import PackResolver, known_type
from zettelgraph.workflows.graph_extraction.state import (
    DraftEntity,
    DraftRelationship,
    Drop,
    GraphState,
    KnownEntity,
    Proposal,
    ProposedRelationship,
)


@dataclass(frozen=True)
class Batch:
    """What a relationship call is checked with: its batch's call id, the known entities its
    prompt showed (short id -> entity), and the words of its passages and source."""

    call: str
    known: dict[str, KnownEntity]
    words: set[str]
    text: str


@dataclass(frozen=True)
class Endpoint:
    id: str
    name: str
    type: str
    names: tuple[str, ...]


class UnresolvedError(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


class Resolver:
    """Endpoint lookup for one round: this run's entities by folded name, and the store."""

    def __init__(self, entities: list[DraftEntity], dropped: list[Drop], store: GraphStore):
        self.store = store
        self.by_name: dict[str, list[DraftEntity]] = {}
        for entity in entities:
            for name in entity["names"]:
                self.by_name.setdefault(normalize_name(name), []).append(entity)
        # Names of entities phase A dropped, with why: an edge to one says so.
        self.dropped = {
            normalize_name(d["subject"]): d["message"] for d in dropped if d["kind"] == "entity"
        }

    def resolve(
        self,
        ref_id: str | None,
        ref_name: str | None,
        allowed: tuple[str, ...],
        known: dict[str, KnownEntity],
        schema: PackSchema,
    ) -> Endpoint:
        short = (ref_id or "").strip()
        if short:
            entity = known.get(short)
            if entity is None:
                shown = ", ".join(known) or "none"
                raise UnresolvedError(
                    "unknown_id", f"id {short!r} is not one the prompt gave ({shown})"
                )
            return Endpoint(entity["id"], entity["name"], entity["type"], (entity["name"],))
        name = " ".join((ref_name or "").split())
        if not name:
            raise UnresolvedError("missing_endpoint", "an endpoint with neither a name nor an id")
        key = normalize_name(name)
        drafts = self.by_name.get(key, [])
        if drafts:
            chosen = next((d for d in drafts if d["type"] in allowed), drafts[0])
            return Endpoint(chosen["id"], chosen["name"], chosen["type"], tuple(chosen["names"]))
        by_name = [e for e in known.values() if normalize_name(e["name"]) == key]
        stored = [
            {"id": e.id, "name": e.name, "type": e.entity_type}
            for e in self.store.find_entities(name)
            if e.entity_type in schema.entity_types
        ]
        candidates = by_name or stored
        if candidates:
            chosen_stored = next((e for e in candidates if e["type"] in allowed), candidates[0])
            return Endpoint(
                chosen_stored["id"],
                chosen_stored["name"],
                chosen_stored["type"],
                (chosen_stored["name"],),
            )
        if key in self.dropped:
            raise UnresolvedError("dropped_endpoint", f"{name!r} was dropped ({self.dropped[key]})")
        raise UnresolvedError(
            "unresolved_name", f"no entity named {name!r} was extracted or is in the graph"
        )


def resolve_relationships(state: GraphState, services: Services, packs: PackResolver) -> GraphState:
    schema = packs(state.get("packs"))
    entities = state.get("entities", [])
    entity_drops = state.get("entity_drops", [])
    resolver = Resolver(entities, entity_drops, services.store)
    texts = folded_passages(state)
    proposal: Proposal = {
        "entities": entities,
        "relationships": [],
        "referenced": {},
        "dropped": list(entity_drops),
        "already_stored": [],
    }
    drops: list[Drop] = []
    drafted = {e["id"] for e in entities}
    kept: dict[tuple[str, str, str], DraftRelationship] = {}
    for result in round_results(state):
        if result.get("failed"):
            continue
        call = result["call"]
        words, text = batch_words(state, texts, result["passage_ids"])
        batch = Batch(call, result["existing"], words, text)
        for raw in result["relationships"]:
            outcome = _relationship(raw, schema, resolver, batch, drafted)
            if not isinstance(outcome, tuple):
                drops.append(outcome)
                continue
            spec, source, target, description = outcome
            confidence = raw.get("confidence")
            names = [*source.names, *target.names]
            passages = mentioning(names, texts, result["passage_ids"])
            for end in (source, target):
                if end.id not in drafted:
                    proposal["referenced"][end.id] = {"name": end.name, "type": end.type}
            _add(kept, spec, source.id, target.id, description, passages, call, confidence)
    for relationship in kept.values():
        if _stored(services.store, relationship):
            proposal["already_stored"].append(_label(relationship, entities, proposal))
        else:
            proposal["relationships"].append(relationship)
    proposal["dropped"].extend(drops)
    return {"proposal": proposal, "warnings": [d["message"] for d in drops]}


def _relationship(
    raw: ProposedRelationship,
    schema: PackSchema,
    resolver: Resolver,
    batch: Batch,
    drafted: set[str],
) -> Drop | tuple[RelationshipType, Endpoint, Endpoint, str]:
    call, known = batch.call, batch.known
    given = str(raw.get("relationship_type", "")).strip()
    source_ref = raw.get("source_id") or raw.get("source_name") or "?"
    target_ref = raw.get("target_id") or raw.get("target_name") or "?"
    subject = f"{source_ref} {given} {target_ref}"
    rtype = known_type(given, list(schema.relationship_types))
    if rtype is None:
        return drop(
            "relationship",
            "unknown_relationship_type",
            subject,
            f"{call}: dropped relationship {subject}: {given!r} is not one of the packs' "
            f"relationship types",
            call,
        )
    spec = schema.relationship_types[rtype]
    try:
        source = resolver.resolve(
            raw.get("source_id"), raw.get("source_name"), spec.source_types, known, schema
        )
        target = resolver.resolve(
            raw.get("target_id"), raw.get("target_name"), spec.target_types, known, schema
        )
    except UnresolvedError as exc:
        return drop(
            "relationship",
            exc.reason,
            subject,
            f"{call}: skipping relationship {rtype} from {source_ref!r} to {target_ref!r}: {exc}",
            call,
        )
    subject = f"{source.name} {rtype} {target.name}"
    for end in (source, target):
        if end.id not in drafted and not grounded(end.names, batch.words, batch.text):
            return drop(
                "relationship",
                "not_in_passages",
                subject,
                f"{call}: dropped {subject}: {end.name!r} is in the graph, but these passages "
                "do not name it",
                call,
            )
    if source.id == target.id:
        return drop(
            "relationship",
            "self_relationship",
            subject,
            f"{call}: dropped {subject}: an entity related to itself",
            call,
        )
    if not schema.allows(rtype, source.type, target.type):
        return drop(
            "relationship",
            "wrong_endpoint_types",
            subject,
            f"{call}: dropped {subject}: {rtype} joins {' | '.join(spec.source_types)} to "
            f"{' | '.join(spec.target_types)}, not {source.type} to {target.type}",
            call,
        )
    description = " ".join(str(raw.get("description") or "").split())
    return spec, source, target, description


def _add(
    kept: dict[tuple[str, str, str], DraftRelationship],
    spec: RelationshipType,
    source: str,
    target: str,
    description: str,
    passages: list[str],
    call: str,
    confidence: float | None = None,
) -> None:
    """One relationship per pair and meaning: the same one again, the other way round for a
    symmetric type, or as its reverse, adds its passages and call to the first, and its
    confidence when surer (two batches that state it: the one that read it plainly wins)."""
    back = spec.name if spec.symmetric else spec.reverse
    twin = kept.get((source, spec.name, target)) or (
        kept.get((target, back, source)) if back else None
    )
    if twin is None:
        kept[(source, spec.name, target)] = DraftRelationship(
            source=source,
            target=target,
            type=spec.name,
            description=description,
            passage_ids=passages,
            calls=[call],
            confidence=confidence,
        )
        return
    twin["passage_ids"] = list(dict.fromkeys([*twin["passage_ids"], *passages]))
    twin["calls"] = list(dict.fromkeys([*twin["calls"], call]))
    twin["description"] = twin["description"] or description
    known = [c for c in (twin.get("confidence"), confidence) if c is not None]
    twin["confidence"] = max(known) if known else None


def _stored(store: GraphStore, relationship: DraftRelationship) -> bool:
    return any(
        r.target_id == relationship["target"]
        for r in store.relations(relationship["source"], relation_type=relationship["type"])
    )


def _label(relationship: DraftRelationship, entities: list[DraftEntity], proposal: Proposal) -> str:
    names = {e["id"]: e["name"] for e in entities}
    names.update({k: v["name"] for k, v in proposal["referenced"].items()})
    source = names.get(relationship["source"], relationship["source"])
    target = names.get(relationship["target"], relationship["target"])
    return f"{source} {relationship['type']} {target}"
