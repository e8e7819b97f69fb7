"""Wiring of the Concept Extraction Graph (docs/design.md "Concept extraction"):

check_content_processed -> load_content_quotes -> extract_batch (Send per batch)
-> merge_candidates -> check_concepts -> [repair_concept (Send per flagged concept, and per
quote no concept cites on small models) -> collect_repairs] -> detect_duplicate (Send per
candidate) -> collect_duplicates
-> generate_relation_queries (Send per new concept; not on small models)
-> search_relation_candidates -> create_relations (Send per new concept) -> collect_relations
-> check_relations -> [self_critique <-> refine (bounded; off on small models)]
-> prepare_review (relation keys, doubt flags) -> present_for_review (interrupt)
   <-> present_for_review (the reader's decisions on items, saved one answer at a time)
   <-> incorporate_feedback (bounded) -> prepare_review
-> commit (exactly what the reader kept) -> write_vault
"""

from __future__ import annotations

from functools import partial
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from zettelgraph.context import Services
from zettelgraph.workflows.concept_extraction import (
    feedback,
    nodes_checks,
    nodes_commit,
    nodes_doubts,
    nodes_duplicates,
    nodes_extract,
    nodes_relations,
    nodes_repair,
    nodes_review,
    routes,
)
from zettelgraph.workflows.concept_extraction.state import (
    ExtractionInput,
    ExtractionOutput,
    ExtractionState,
)
from zettelgraph.workflows.studio import entry_point
from zettelgraph.workflows.wiring import add_nodes

# Supersteps: about 12 for phase 1 plus 2 per refinement and 2 per feedback round.
RECURSION_LIMIT = 200


def build_concept_extraction_graph(
    services: Services, checkpointer: BaseCheckpointSaver[Any] | None = None
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the graph with `services` bound into every node."""
    # The model that sizes the run: batches, which steps run, how many refine rounds.
    model = services.llms.sizing_profile
    builder = StateGraph(
        ExtractionState, input_schema=ExtractionInput, output_schema=ExtractionOutput
    )
    add_nodes(
        builder,
        services,
        {
            "check_content_processed": nodes_extract.check_content_processed,
            "load_content_quotes": nodes_extract.load_content_quotes,
            "extract_batch": nodes_extract.extract_batch,
            "merge_candidates": nodes_extract.merge_candidates,
            "check_concepts": nodes_checks.check_concepts,
            "repair_concept": nodes_repair.repair_concept_node,
            "collect_repairs": nodes_repair.collect_repairs,
            "detect_duplicate": nodes_duplicates.detect_duplicate_node,
            "collect_duplicates": nodes_duplicates.collect_duplicates,
            "generate_relation_queries": nodes_relations.generate_relation_queries,
            "search_relation_candidates": nodes_relations.search_relation_candidates,
            "create_relations": nodes_relations.create_relations_node,
            "collect_relations": nodes_relations.collect_relations,
            "check_relations": nodes_checks.check_relations_node,
            "self_critique": nodes_review.self_critique_node,
            "refine": nodes_review.refine_node,
            "prepare_review": nodes_doubts.prepare_review,
            "present_for_review": nodes_review.present_for_review,
            "incorporate_feedback": nodes_review.incorporate_feedback_node,
            "check_revisions": feedback.check_revisions,
            "commit": nodes_commit.commit,
            "write_vault": nodes_commit.write_vault,
        },
    )

    builder.add_edge(START, "check_content_processed")
    builder.add_conditional_edges(
        "check_content_processed", routes.after_check, ["load_content_quotes", END]
    )
    builder.add_conditional_edges(
        "load_content_quotes",
        partial(routes.to_batches, batch_size=model.batch_size),
        ["extract_batch", END],
    )
    builder.add_edge("extract_batch", "merge_candidates")
    builder.add_conditional_edges("merge_candidates", routes.after_merge, ["check_concepts", END])
    builder.add_conditional_edges(
        "check_concepts",
        routes.to_repairs,
        ["repair_concept", "detect_duplicate", "collect_duplicates"],
    )
    builder.add_edge("repair_concept", "collect_repairs")
    builder.add_conditional_edges(
        "collect_repairs", routes.to_duplicate_checks, ["detect_duplicate", "collect_duplicates"]
    )
    builder.add_edge("detect_duplicate", "collect_duplicates")
    builder.add_conditional_edges(
        "collect_duplicates",
        partial(routes.to_relation_queries, ask_for_queries=not model.small),
        ["generate_relation_queries", "search_relation_candidates", "check_relations"],
    )
    builder.add_edge("generate_relation_queries", "search_relation_candidates")
    builder.add_conditional_edges(
        "search_relation_candidates", routes.to_relations, ["create_relations", "collect_relations"]
    )
    builder.add_edge("create_relations", "collect_relations")
    builder.add_edge("collect_relations", "check_relations")
    builder.add_conditional_edges(
        "check_relations",
        partial(routes.after_checks, critique=model.critique_enabled),
        ["self_critique", "prepare_review"],
    )
    builder.add_conditional_edges(
        "self_critique",
        partial(routes.after_critique, max_iterations=model.refine_rounds),
        ["refine", "prepare_review"],
    )
    builder.add_edge("refine", "self_critique")
    builder.add_edge("prepare_review", "present_for_review")
    builder.add_conditional_edges(
        "present_for_review",
        routes.after_review,
        ["commit", "incorporate_feedback", "present_for_review", END],
    )
    # A revision faces the concept checks before the reader sees it (feedback.py).
    builder.add_edge("incorporate_feedback", "check_revisions")
    builder.add_edge("check_revisions", "prepare_review")
    builder.add_conditional_edges("commit", routes.after_commit, ["write_vault", END])
    builder.add_edge("write_vault", END)
    return builder.compile(checkpointer=checkpointer, name="concept_extraction")


make_graph = entry_point(build_concept_extraction_graph)
