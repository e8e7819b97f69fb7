"""Wiring of the Learning Item Graph (docs/design.md "Learning items"):

select_targets -> write_question (Send per concept that needs a flashcard) and
write_passage_question (Send per passage cards are made from straight away) -> graph_items
-> check_items -> dedup -> write

No interrupt: unlike a concept proposal, cards are many, reviewed in bulk over days, and a
proposed card does nothing until the reader approves it (services/cards.py), so the run writes
its cards as `proposed` and ends. Nor a checkpointer: a run is minutes at most and writes once
at the end; one that dies is run again, and ids make that converge (docs/design.md).
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send

from zettelgraph.context import Services
from zettelgraph.workflows.learning_items import (
    nodes_checks,
    nodes_items,
    nodes_passages,
    nodes_question,
    nodes_select,
    nodes_write,
)
from zettelgraph.workflows.learning_items.state import (
    GenerationInput,
    GenerationOutput,
    GenerationState,
    QuestionPayload,
)
from zettelgraph.workflows.studio import entry_point
from zettelgraph.workflows.wiring import add_nodes

# Six steps, one of them a fan-out: far under this.
RECURSION_LIMIT = 25


def to_questions(state: GenerationState) -> list[Send] | Literal["graph_items"]:
    """Fan-out of the LLM calls: a card_question branch per concept that still needs a
    flashcard and has a quote to ask about, a passage_card branch per passage that still
    needs a card the call writes (every kind but the code card, which can do without)."""
    sends = []
    for target in state.get("targets", []):
        if target["passage_kind"]:
            if set(target["make"]) - {"code_completion"}:
                sends.append(Send("write_passage_question", QuestionPayload(target=target)))
        elif "flashcard" in target["make"] and target["quotes"]:
            sends.append(Send("write_question", QuestionPayload(target=target)))
    return sends or "graph_items"


def build_learning_items_graph(services: Services) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the graph with `services` bound into every node."""
    builder = StateGraph(
        GenerationState, input_schema=GenerationInput, output_schema=GenerationOutput
    )
    add_nodes(
        builder,
        services,
        {
            "select_targets": nodes_select.select_targets,
            "write_question": nodes_question.write_question,
            "write_passage_question": nodes_passages.write_passage_question,
            "graph_items": nodes_items.graph_items,
            "check_items": nodes_checks.check_items,
            "dedup": nodes_write.dedup,
            "write": nodes_write.write,
        },
    )

    builder.add_edge(START, "select_targets")
    builder.add_conditional_edges(
        "select_targets",
        to_questions,
        ["write_question", "write_passage_question", "graph_items"],
    )
    builder.add_edge("write_question", "graph_items")
    builder.add_edge("write_passage_question", "graph_items")
    builder.add_edge("graph_items", "check_items")
    builder.add_edge("check_items", "dedup")
    builder.add_edge("dedup", "write")
    builder.add_edge("write", END)
    return builder.compile(name="learning_items")


make_graph = entry_point(build_learning_items_graph)
