"""Load the content's passages and extract entities and relationships per batch (one LLM call
per batch, batches in parallel), with the existing entities nearest to the batch as context."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from zettelgraph.context import Services
from zettelgraph.llm.structured import SOFT_LLM_ERRORS, LLMRequestError, call_structured
from zettelgraph.llm.tools import call_tools, uses_tool_calls
from zettelgraph.llm.usage import UsageLog
from zettelgraph.models import NodeLabel
from zettelgraph.packs.schema import PackSchema
from zettelgraph.prompts import extract_graph
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.workflows.calls import CallRecord, call_record
from zettelgraph.workflows.graph_extraction.packs import PackResolver, pack_versions
from zettelgraph.workflows.graph_extraction.state import (
    BatchPayload,
    BatchResult,
    GraphState,
    KnownEntity,
    ProposedEntity,
    ProposedRelationship,
    empty_proposal,
)

# Existing entities shown with a batch: the best by full-text search of the batch and vector
# search per passage, fused by rank, of the pack's types only. Enough for the people and
# places a few passages name, few enough to keep the prompt short.
CONTEXT_PER_PASSAGE = 8
CONTEXT_MAX = 20
RRF_K = 60


def load_content(state: GraphState, services: Services, packs: PackResolver) -> GraphState:
    """The content, its passages in reading order, and the packs' versions for provenance."""
    content = services.store.get_content(state["content_id"])
    if content is None:
        raise ValueError(
            f"no content with id {state['content_id']}: `zettelgraph contents` lists them"
        )
    schema = packs(state.get("packs"))
    author = services.store.author_of(content.id)
    update: GraphState = {
        "content": {"title": content.title, "author": author.name if author else None},
        "packs": [pack.name for pack in schema.packs],
        "pack_versions": pack_versions(schema),
        "status": "running",
        "proposal": empty_proposal(),
        "extraction_round": 0,
        "review_rounds": 0,
        "passages": [
            {"id": q.id, "text": q.text, "page": q.page}
            for q in services.store.quotes_of(content.id)
        ],
    }
    if not update["passages"]:
        update["status"] = "no_passages"
        update["warnings"] = [f"'{content.title}' has no passages: nothing to extract"]
    return update


def call_id(round_number: int, index: int) -> str:
    """The id of one extraction call, as provenance records it: round and batch."""
    return f"{extract_graph.NAME}#r{round_number}b{index + 1}"


def extract_batch(payload: BatchPayload, services: Services, packs: PackResolver) -> GraphState:
    """One extraction call on one batch of passages (a `Send` branch)."""
    schema = packs(payload["packs"])
    passages = payload["passages"]
    qmap = LocalIds("q", (p["id"] for p in passages))
    known = context_entities(services, schema, [p["text"] for p in passages])
    emap = LocalIds("e", (entity["id"] for entity in known))
    model = services.llms.main_profile
    spec, small = model.spec, model.small
    data = extract_graph.ExtractGraphInput(
        title=payload["content"]["title"],
        author=payload["content"]["author"],
        pack_schema=schema,
        passages=[
            extract_graph.PromptPassage(id=qmap.local(p["id"]), text=p["text"], page=p["page"])
            for p in passages
        ],
        existing=[
            extract_graph.KnownEntity(
                id=emap.local(e["id"]), name=e["name"], type=e["type"], description=e["description"]
            )
            for e in known
        ],
        note=payload.get("note"),
        language=services.settings.concept_language,
        tool_calling=uses_tool_calls(spec, services.settings.llm_tool_calls),
        max_calls=extract_graph.COMPACT_MAX_CALLS if small else extract_graph.MAX_CALLS,
    )
    this_call = call_id(payload["round"], payload["index"])
    result: BatchResult = {
        "round": payload["round"],
        "index": payload["index"],
        "call": this_call,
        "passage_ids": [p["id"] for p in passages],
        "existing": {emap.local(e["id"]): e for e in known},
        "entities": [],
        "relationships": [],
        "rejected": [],
        "failed": False,
    }
    usage = UsageLog()
    warnings: list[str] = []
    try:
        calls, rejected, mode = _ask(services, data, usage, small, warnings)
    except SOFT_LLM_ERRORS as exc:
        error = f"{this_call} failed, its {len(passages)} passages were not read: {exc}"
        return {
            "batch_results": [{**result, "failed": True}],
            "warnings": [*warnings, error],
            "errors": [error],
            "llm_calls": [_call_record(this_call, spec, usage, "failed", payload["index"])],
        }
    finally:
        services.usage.merge(usage)
    for args in calls:
        if isinstance(args, extract_graph.ExtractEntity):
            result["entities"].append(_entity(args))
        elif isinstance(args, extract_graph.ExtractRelationship):
            result["relationships"].append(_relationship(args))
    result["rejected"] = rejected
    return {
        "batch_results": [result],
        "warnings": warnings,
        "llm_calls": [_call_record(this_call, spec, usage, mode, payload["index"])],
    }


def _ask(
    services: Services,
    data: extract_graph.ExtractGraphInput,
    usage: UsageLog,
    small: bool,
    warnings: list[str],
) -> tuple[list[BaseModel], list[str], str]:
    """The answer's tool calls (their arguments, in the order made), the rejected ones, and
    how it was asked: with bound tools, or as the JSON list (also when the provider refused
    the tools)."""
    settings = services.settings
    sampling = extract_graph.COMPACT_SAMPLING if small else extract_graph.SAMPLING
    messages = extract_graph.messages(data)
    if data.tool_calling:
        try:
            answer = call_tools(
                services.llms.main,
                name=extract_graph.NAME,
                messages=messages,
                tools=extract_graph.tools(data),
                usage=usage,
                retries=settings.llm_retries,
                backoff=settings.llm_backoff,
                sampling=sampling,
            )
            return [args for _, args in answer.calls], answer.rejected, "tools"
        except LLMRequestError as exc:
            warnings.append(f"tool calling was refused ({exc}); asked for the JSON list instead")
            data = data.model_copy(update={"tool_calling": False})
            messages = extract_graph.messages(data)
    reply = call_structured(
        services.llms.main,
        name=extract_graph.NAME,
        messages=messages,
        response_model=extract_graph.GraphExtraction,
        usage=usage,
        retries=settings.llm_retries,
        backoff=settings.llm_backoff,
        sampling=sampling,
        schema=extract_graph.request_schema(data),
    )
    return [c.args for c in reply.calls], [], "json"


def _entity(args: extract_graph.ExtractEntity) -> ProposedEntity:
    return {
        "name": args.name,
        "type": args.type,
        "description": args.description,
        "properties": dict(args.properties),
    }


def _relationship(args: extract_graph.ExtractRelationship) -> ProposedRelationship:
    return {
        "source_name": args.source_name,
        "source_id": args.source_id,
        "target_name": args.target_name,
        "target_id": args.target_id,
        "relationship_type": args.relationship_type,
        "description": args.description,
        "confidence": args.confidence,
    }


def _call_record(call: str, model: str, usage: UsageLog, mode: str, index: int) -> CallRecord:
    return call_record(
        extract_graph.NAME, model, f"batch {index + 1}", usage=usage, mode=mode, call_id=call
    )


def context_entities(
    services: Services, schema: PackSchema, texts: Sequence[str]
) -> list[KnownEntity]:
    """The existing entities of the pack's types nearest to the passages: a full-text search
    of the whole batch and a vector search per passage, fused by reciprocal rank, best
    first, at most CONTEXT_MAX."""
    store = services.store
    if not texts:
        return []
    scores: dict[str, float] = {}
    searches = [store.text_search(" ".join(texts), 2 * CONTEXT_MAX, label=NodeLabel.ENTITY)]
    for vector in services.embedder.embed(list(texts)):
        searches.append(store.vector_search(NodeLabel.ENTITY, vector, CONTEXT_PER_PASSAGE))
    for hits in searches:
        for rank, hit in enumerate(hits):
            scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (RRF_K + rank + 1)
    ranked = sorted(scores, key=lambda entity_id: (-scores[entity_id], entity_id))
    found = [e for e in store.get_entities(ranked) if e.entity_type in schema.entity_types]
    return [
        {"id": e.id, "name": e.name, "type": e.entity_type, "description": e.description}
        for e in found[:CONTEXT_MAX]
    ]
