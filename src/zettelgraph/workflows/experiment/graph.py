"""Wiring of the experiment workflow (five stages, docs/design.md "Experiments"):

analyze -> recommend -> review (interrupt: approve | modify | reject)
-> run_tools (Send: one branch per document, one per corpus tool, in parallel)
-> synthesize -> write_report
A rejected experiment ends at the review; one whose documents have no passages ends after
the analysis.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from zettelgraph.context import Services
from zettelgraph.workflows.experiment import (
    nodes_execute,
    nodes_plan,
    nodes_report,
    nodes_synthesis,
)
from zettelgraph.workflows.experiment.state import ExperimentInput, ExperimentState
from zettelgraph.workflows.studio import entry_point
from zettelgraph.workflows.wiring import add_nodes

# Six stages and one fan-out: far below this; the limit only stops a wiring mistake.
RECURSION_LIMIT = 40


def after_analysis(state: ExperimentState) -> Literal["recommend", "__end__"]:
    return "__end__" if state.get("status") == "failed" else "recommend"


def build_experiment_graph(
    services: Services, checkpointer: BaseCheckpointSaver[Any] | None = None
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the workflow with `services` bound into every node."""
    builder = StateGraph(ExperimentState, input_schema=ExperimentInput)
    add_nodes(
        builder,
        services,
        {
            "analyze": nodes_plan.analyze,
            "recommend": nodes_plan.recommend,
            "review": nodes_plan.review,
            "run_tools": nodes_execute.run_tools,
            "synthesize": nodes_synthesis.synthesize,
            "write_report": nodes_report.write_report,
        },
    )
    builder.add_edge(START, "analyze")
    builder.add_conditional_edges("analyze", after_analysis, ["recommend", END])
    builder.add_edge("recommend", "review")
    builder.add_conditional_edges("review", nodes_execute.branches, ["run_tools", END])
    builder.add_edge("run_tools", "synthesize")
    builder.add_edge("synthesize", "write_report")
    builder.add_edge("write_report", END)
    return builder.compile(checkpointer=checkpointer, name="experiment")


make_graph = entry_point(build_experiment_graph)
