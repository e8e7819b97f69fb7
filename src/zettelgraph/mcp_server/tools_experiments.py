"""The tool that starts an experiment (how a term is used across the reader's sources), up to
the reader's review of its plan: start_experiment.

An experiment writes nothing to the graph; what it runs is decided by the reader at the review
(`zettelgraph experiment review`, the web app's Experiments page), so a client may start one
as freely as it may ask a question. The focus term is checked by the rule the CLI and the web
app share (`services.experiments.focus_term`).
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from zettelgraph.mcp_server.failures import tool_failures
from zettelgraph.mcp_server.state import McpState
from zettelgraph.mcp_server.tools_runs import ADDS, Step, progress
from zettelgraph.models import NodeLabel
from zettelgraph.services.experiments import TYPES, FocusTermError, focus_term
from zettelgraph.services.ids import resolve_node_id


class ExperimentOut(BaseModel):
    experiment_id: str
    status: str = Field(description="awaiting_review once its plan is proposed")
    type: str | None
    term: dict[str, Any] | None = Field(
        description="term, definition, source, domain, anchors, match"
    )
    documents: list[str] = Field(default_factory=list, description="The titles it reads.")
    recommended_strategy: dict[str, list[str]] | None = Field(
        default=None, description="content id -> the tools the plan runs on it"
    )
    warnings: list[str] = Field(default_factory=list)
    next_step: str


def start_experiment(
    state: McpState,
    kind: str,
    term: str,
    contents: list[str],
    *,
    definition: str = "",
    domain: str = "",
    anchors: list[str] | None = None,
    goal: str | None = None,
    on_step: Step | None = None,
) -> ExperimentOut:
    """Analyse an experiment on `contents` and propose its plan, up to the reader's review."""
    try:
        focus = focus_term(term, definition=definition, domain=domain, anchors=anchors or [])
    except FocusTermError as exc:
        raise ToolError(str(exc)) from exc
    with tool_failures():
        store = state.services.store
        ids = [
            resolve_node_id(store, NodeLabel.CONTENT, given, listing="list_contents")
            for given in contents
        ]
    with tool_failures("no experiment was started"):
        view = state.experiments.new(kind, focus, ids, goal=goal, on_step=on_step)
    shown = view.as_dict()
    return ExperimentOut(
        experiment_id=view.id,
        status=view.status,
        type=shown["type"],
        term=shown["term"],
        documents=[d.get("title", "") for d in shown["documents"]],
        recommended_strategy=shown["recommended_strategy"],
        warnings=list(shown.get("warnings") or []),
        next_step=(
            f"the reader reviews its plan: `zettelgraph experiment review {view.id}` or the "
            "Experiments page of the web app (`zettelgraph serve`)"
        ),
    )


def register(server: MCPServer[Any], state: McpState) -> None:
    """Bind start_experiment to `state`."""

    @server.tool(name="start_experiment", annotations=ADDS)
    def start_experiment_tool(
        type: Annotated[str, Field(description=f"One of {', '.join(TYPES)}.")],
        term: Annotated[str, Field(min_length=1, max_length=100, description="e.g. honra")],
        contents: Annotated[
            list[str], Field(min_length=1, max_length=100, description="From list_contents.")
        ],
        ctx: Context[Any, Any],
        definition: Annotated[
            str, Field(max_length=1000, description="The term's baseline meaning.")
        ] = "",
        domain: Annotated[
            str, Field(max_length=100, description="The field the term belongs to, e.g. derecho.")
        ] = "",
        anchors: Annotated[
            list[str] | None,
            Field(max_length=12, description="Words that pin the baseline meaning."),
        ] = None,
        goal: Annotated[str | None, Field(max_length=2000, description="What to find out.")] = None,
    ) -> ExperimentOut:
        """Propose an experiment on how a term is used in the reader's sources (over time,
        across fields, in one or several documents): which tools to run on which source. It
        stops at the reader's review of that plan and writes nothing to their graph."""
        return start_experiment(
            state,
            type,
            term,
            contents,
            definition=definition,
            domain=domain,
            anchors=anchors,
            goal=goal,
            on_step=progress(ctx),
        )
