"""The `run_tools` node: run the approved strategy. Each document's document-scope tools run
in a branch of their own (`Send`), so documents are read in parallel (ZETTELGRAPH_CONCURRENCY) and a
crash resumes with only the unfinished branches; each corpus tool runs once, in a branch,
over every document the strategy gave it. Tool results are kept in the run (its checkpoint)
and written next to the report."""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from zettelgraph.context import Services
from zettelgraph.experiments.models import FocusTerm
from zettelgraph.experiments.registry import ToolContext, load_documents, run_tool
from zettelgraph.experiments.tools import TOOLS
from zettelgraph.workflows.experiment.state import ExperimentState, ToolBranch, ToolRunRecord
from zettelgraph.workflows.records import as_record


def branches(state: ExperimentState) -> list[Send] | Literal["__end__"]:
    """Fan-out after the review: nothing for a rejected experiment, else one branch per
    document with document tools and one per corpus tool."""
    if state.get("status") != "executing":
        return "__end__"
    strategy = state.get("approved_strategy", {})
    sends: list[Send] = []
    corpus: dict[str, list[str]] = {}
    for content_id, names in strategy.items():
        mine = [n for n in names if n in TOOLS and TOOLS[n].scope == "document"]
        if mine:
            sends.append(
                Send(
                    "run_tools",
                    ToolBranch(term=state["term"], tools=mine, content_ids=[content_id]),
                )
            )
        for name in names:
            if name in TOOLS and TOOLS[name].scope == "corpus":
                corpus.setdefault(name, []).append(content_id)
    for name, content_ids in corpus.items():
        sends.append(
            Send(
                "run_tools",
                ToolBranch(term=state["term"], tools=[name], content_ids=content_ids),
            )
        )
    return sends or "__end__"


def run_tools(payload: ToolBranch, services: Services) -> ExperimentState:
    """One branch: its tools, in turn, over its documents (a failing tool is a result with
    an error; the others still run)."""
    context = ToolContext(
        store=services.store,
        embedder=services.embedder,
        term=FocusTerm.model_validate(payload["term"]),
    )
    documents = load_documents(services.store, payload["content_ids"])
    runs = [run_tool(TOOLS[name], context, documents) for name in payload["tools"]]
    warnings = [
        f"tool {r.tool} failed on {', '.join(r.document_ids)}: {r.error}" for r in runs if r.error
    ]
    records = [as_record(ToolRunRecord, r.model_dump(mode="json")) for r in runs]
    return {"tool_runs": records, "warnings": warnings}
