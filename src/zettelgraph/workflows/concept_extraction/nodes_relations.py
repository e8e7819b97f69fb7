"""Relations of the new concepts: search queries per concept, vector search, typed relations."""

from __future__ import annotations

from zettelgraph.context import Services
from zettelgraph.models import NodeLabel
from zettelgraph.prompts import create_relations, relation_queries
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.store.vector_index import normalize_rows
from zettelgraph.workflows.calls import ask
from zettelgraph.workflows.concept_extraction.proposal import check_relation, dedupe_relations
from zettelgraph.workflows.concept_extraction.state import (
    DraftConcept,
    DraftRelation,
    ExtractionState,
    RelationsPayload,
)


def generate_relation_queries(payload: RelationsPayload, services: Services) -> ExtractionState:
    """Search queries for one new concept (a `Send` branch, fast model)."""
    concept: DraftConcept = payload["concept"]
    vocabulary = services.concept_vocabulary
    if not vocabulary.types:  # the active packs relate no concepts: search by title only
        return {"relation_queries": [{"key": concept["key"], "queries": [concept["title"]]}]}
    data = relation_queries.RelationQueriesInput(
        title=concept["title"],
        concept=concept["concept"],
        language=services.settings.concept_language,
    )
    asked = ask(
        services,
        name=relation_queries.NAME,
        messages=relation_queries.messages(data, vocabulary),
        response_model=relation_queries.response_model(vocabulary),
        subject=concept["key"],
        fast=True,
    )
    if asked.answer is None:
        titled: ExtractionState = {
            "relation_queries": [{"key": concept["key"], "queries": [concept["title"]]}]
        }
        return asked.failed(titled, f"{relation_queries.NAME} for {concept['title']!r} failed")
    result = asked.answer
    queries = [concept["title"]]  # the concept itself always finds its close neighbours
    for typed in result.queries:
        if typed.relation_type in vocabulary.types:
            queries.extend(q for q in typed.queries if q.strip())
    return {
        "relation_queries": [{"key": concept["key"], "queries": list(dict.fromkeys(queries))}],
        "llm_calls": [asked.record],
    }


def search_relation_candidates(state: ExtractionState, services: Services) -> ExtractionState:
    """No LLM: every query against existing concepts, pooled per new concept, and
    each new concept's nearest other new concepts: a relation call sees only those, so a small
    model is not invited to relate every idea to every other."""
    settings = services.settings
    concepts = state["proposal"]["concepts"]
    planned = {plan["key"]: plan["queries"] for plan in state.get("relation_queries", [])}
    if state.get("graph_concepts", 0):
        # Concepts without a query call search by their own title and summary.
        for c in concepts:
            planned.setdefault(c["key"], [c["title"], c["summary_short"]])
    keys = list(planned)
    texts = [q for key in keys for q in planned[key]]
    vectors = services.embedder.embed(texts) if texts else None
    pools: dict[str, list[str]] = {}
    row = 0
    for key in keys:
        best: dict[str, float] = {}
        for _ in planned[key]:
            assert vectors is not None
            for hit in services.store.vector_search(
                NodeLabel.CONCEPT,
                vectors[row],
                settings.relation_top_k,
                min_score=services.thresholds.relation_floor,
            ):
                best[hit.id] = max(best.get(hit.id, -1.0), hit.score)
            row += 1
        ranked = sorted(best, key=lambda cid: (-best[cid], cid))
        pools[key] = ranked[: settings.relation_pool_size]
    return {"relation_pools": pools, "relation_neighbours": nearest_new(concepts, services)}


# On compact answers, one relation call per this many new concepts at most.
COMPACT_RELATION_SHARE = 3


def nearest_new(concepts: list[DraftConcept], services: Services) -> dict[str, list[str]]:
    """Per new concept, the closest other new concepts the embedder finds related: under the
    proposal checks' line for far-apart pairs, a relation would need an explanation naming
    both, which small models rarely write, so the call is not worth its tokens."""
    if len(concepts) < 2:
        return {}
    settings = services.settings
    floor = max(services.thresholds.relation_floor, services.thresholds.unrelated)
    vectors = services.embedder.embed([f"{c['title']}. {c['summary_short']}" for c in concepts])
    unit = normalize_rows(vectors)
    scores = unit @ unit.T
    out: dict[str, list[str]] = {}
    # Each pair is put to the model once: asked from both ends, a small model said A SUPPORTS
    # B in one call and B OPPOSES A in the other, and the contradiction check dropped both.
    shown: set[frozenset[int]] = set()
    closest: dict[str, float] = {}
    for i, concept in enumerate(concepts):
        order = sorted(
            (j for j in range(len(concepts)) if j != i), key=lambda j: (-scores[i, j], j)
        )
        near = [j for j in order[: settings.relation_candidates] if scores[i, j] >= floor]
        fresh = [j for j in near if frozenset((i, j)) not in shown]
        shown.update(frozenset((i, j)) for j in fresh)
        out[concept["key"]] = [concepts[j]["key"] for j in fresh]
        closest[concept["key"]] = max((float(scores[i, j]) for j in fresh), default=-1.0)
    if services.llms.main_profile.compact:
        # A small model is asked only about the most related third of its new concepts, the
        # closest pairs first: on the held-out books a third of its relations among new
        # concepts were dropped by the checks, and its relation calls were a third of the run.
        asked = sorted((k for k in out if out[k]), key=lambda k: -closest[k])
        keep = set(asked[: max(1, len(concepts) // COMPACT_RELATION_SHARE)])
        out = {k: (v if k in keep else []) for k, v in out.items()}
    return out


def create_relations_node(payload: RelationsPayload, services: Services) -> ExtractionState:
    """Typed relations of one new concept (a `Send` branch)."""
    concept: DraftConcept = payload["concept"]
    others: list[DraftConcept] = payload["others"]
    existing = [c for c in (services.store.get_concept(i) for i in payload["pool"]) if c]
    emap = LocalIds("e", (c.id for c in existing))
    keys = {c["key"] for c in others} | {concept["key"]}
    line = create_relations.ConceptLine
    data = create_relations.CreateRelationsInput(
        target=line(
            id=concept["key"], title=concept["title"], summary_short=concept["summary_short"]
        ),
        language=services.settings.concept_language,
        compact=services.llms.main_profile.compact,
        others=[
            line(id=c["key"], title=c["title"], summary_short=c["summary_short"]) for c in others
        ],
        existing=[
            line(id=emap.local(c.id), title=c.title, summary_short=c.summary_short)
            for c in existing
        ],
    )
    vocabulary = services.concept_vocabulary
    if not vocabulary.types:  # the active packs relate no concepts
        return {"relation_results": [{"key": concept["key"], "relations": []}]}
    where = f"{create_relations.NAME} ({concept['title']!r})"
    asked = ask(
        services,
        name=create_relations.NAME,
        messages=create_relations.messages(data, vocabulary),
        response_model=create_relations.response_model(vocabulary, compact=data.compact),
        sampling=create_relations.SAMPLING,
        subject=concept["key"],
    )
    if asked.answer is None:
        return asked.failed(ExtractionState(), f"{where} failed, no relations")
    result = asked.answer
    warnings: list[str] = []
    relations: list[DraftRelation] = []
    for proposed in result.relations:
        short = proposed.target_concept_id
        target = short if short in keys else emap.real(short)
        if check_relation(
            concept["key"],
            proposed.relation_type,
            target,
            new_keys=keys,
            vocabulary=vocabulary,
            where=where,
            warnings=warnings,
        ):
            assert target is not None
            relations.append(
                DraftRelation(
                    source=concept["key"],
                    type=proposed.relation_type,
                    target=target,
                    explanation=proposed.explanation,
                    confidence=proposed.confidence,
                    history=[create_relations.NAME],
                )
            )
    return {
        "relation_results": [{"key": concept["key"], "relations": relations}],
        "warnings": warnings,
        "llm_calls": [asked.record],
    }


def collect_relations(state: ExtractionState, services: Services) -> ExtractionState:
    """Fan-in: the relations of every branch, one per fact, in concept order."""
    proposal = state["proposal"]
    order = {c["key"]: i for i, c in enumerate(proposal["concepts"])}
    results = sorted(state.get("relation_results", []), key=lambda r: order.get(r["key"], 0))
    relations = [r for result in results for r in result["relations"]]
    proposal = {
        **proposal,
        "relations": dedupe_relations(
            [*proposal["relations"], *relations], services.concept_vocabulary
        ),
    }
    return {"proposal": proposal}
