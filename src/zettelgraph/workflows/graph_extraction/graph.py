"""Wiring of the Graph Extraction workflow (docs/design.md "Graph extraction"):

load_content -> extract_batch (Send per batch of passages, in parallel)
-> materialise_entities (phase A) -> resolve_relationships (phase B)
-> present_for_review (interrupt) -> commit -> write_vault
                                  -> incorporate_feedback -> extract_batch (again, with the note)
(a feedback round whose every call failed goes back to present_for_review unchanged)
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send

from zettelgraph.context import Services
from zettelgraph.llm.profile import ModelProfile
from zettelgraph.settings import Settings
from zettelgraph.workflows.graph_extraction import (
    nodes_commit,
    nodes_entities,
    nodes_extract,
    nodes_relationships,
    nodes_review,
)
from zettelgraph.workflows.graph_extraction.packs import (
    PackResolver,
    file_resolver,
    for_graph_extraction,
)
from zettelgraph.workflows.graph_extraction.state import (
    BatchPayload,
    GraphInput,
    GraphOutput,
    GraphState,
)
from zettelgraph.workflows.review import after_review
from zettelgraph.workflows.studio import entry_point
from zettelgraph.workflows.wiring import add_nodes

# Supersteps: about 6 per extraction round, one round per feedback.
RECURSION_LIMIT = 200
# Passages per call: relationships are stated across neighbouring passages, and one answer
# lists every entity and relationship of its batch, so batches are smaller than the concept
# workflow's. The small local models read one passage at a time there; two here, so that a
# relationship across two passages can be seen at all.
BATCH_SIZE = 10
SMALL_MODEL_BATCH_SIZE = 2


def batch_size(settings: Settings, model: ModelProfile) -> int:
    """Passages per extraction call: ZETTELGRAPH_EXTRACTION_BATCH_SIZE when set, else 10
    (2 on the small local models)."""
    if settings.extraction_batch_size is not None:
        return settings.extraction_batch_size
    return SMALL_MODEL_BATCH_SIZE if model.small else BATCH_SIZE


def to_batches(state: GraphState, size: int) -> list[Send] | Literal["__end__"]:
    """Fan-out: one extraction call per batch of passages, with the reader's note."""
    passages = state.get("passages", [])
    if not passages or state.get("status") == "no_passages":
        return "__end__"
    note = nodes_review.extraction_note(state)
    return [
        Send(
            "extract_batch",
            BatchPayload(
                index=i // size,
                round=state.get("extraction_round", 0),
                passages=passages[i : i + size],
                content=state["content"],
                packs=state.get("packs"),
                note=note,
            ),
        )
        for i in range(0, len(passages), size)
    ]


def after_entities(
    state: GraphState,
) -> Literal["resolve_relationships", "present_for_review", "__end__"]:
    if state.get("status") == "failed":
        return "__end__"
    return "present_for_review" if state.get("round_failed") else "resolve_relationships"


def build_graph_extraction_graph(
    services: Services,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    packs: PackResolver | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the workflow with `services` and the pack resolver bound into every node."""
    resolver = for_graph_extraction(packs or file_resolver(services.settings))
    builder = StateGraph(GraphState, input_schema=GraphInput, output_schema=GraphOutput)
    add_nodes(
        builder,
        services,
        {
            "load_content": nodes_extract.load_content,
            "extract_batch": nodes_extract.extract_batch,
            "materialise_entities": nodes_entities.materialise_entities,
            "resolve_relationships": nodes_relationships.resolve_relationships,
            "commit": nodes_commit.commit,
            "write_vault": nodes_commit.write_vault,
        },
        packs=resolver,
    )
    add_nodes(
        builder,
        services,
        {
            "present_for_review": nodes_review.present_for_review,
            "incorporate_feedback": nodes_review.incorporate_feedback,
        },
    )

    fan_out = partial(to_batches, size=batch_size(services.settings, services.llms.sizing_profile))
    builder.add_edge(START, "load_content")
    builder.add_conditional_edges("load_content", fan_out, ["extract_batch", END])
    builder.add_edge("extract_batch", "materialise_entities")
    builder.add_conditional_edges(
        "materialise_entities",
        after_entities,
        ["resolve_relationships", "present_for_review", END],
    )
    builder.add_edge("resolve_relationships", "present_for_review")
    builder.add_conditional_edges(
        "present_for_review",
        after_review,
        ["commit", "incorporate_feedback", "present_for_review", END],
    )
    builder.add_conditional_edges("incorporate_feedback", fan_out, ["extract_batch", END])
    builder.add_edge("commit", "write_vault")
    builder.add_edge("write_vault", END)
    return builder.compile(checkpointer=checkpointer, name="graph_extraction")


make_graph = entry_point(build_graph_extraction_graph)
