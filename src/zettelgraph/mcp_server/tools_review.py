"""The item-by-item review through MCP: review_items shows a concept run's items (concepts
with their quotes, relations, untyped "related?" suggestions), each with its key, its state
and its doubt flag; decide_items (only when ZETTELGRAPH_MCP_ALLOW_APPROVE is on, like
approve_run) keeps, drops, edits, merges or retypes them.

The decisions are the reader's to make: a client records them only when the reader has told
it what to keep, and approve_run then writes exactly what is kept. The rules are
`services/review.py`'s.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from zettelgraph.mcp_server.access import APPROVE_SETTING, READ_ONLY
from zettelgraph.mcp_server.failures import tool_failures
from zettelgraph.mcp_server.state import McpState
from zettelgraph.services import review
from zettelgraph.services.review import ItemDecision
from zettelgraph.services.run_view import RunView

# Changes what a later approval writes, not the graph itself; a decision can be taken back.
DECIDES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


class ReviewItem(BaseModel):
    key: str = Field(description="c1 a concept, r1 a relation, s1 a suggestion, n1 an entity.")
    kind: str = Field(description="concept, relation, suggestion or entity")
    text: str = Field(description="A concept's title and statement; a relation's two ends.")
    quotes: list[str] = Field(default_factory=list, description="q-key: the quote's text.")
    state: str = Field(description="kept, dropped, edited, merged, or undecided (kept/left out)")
    doubtful: bool = Field(description="Flagged as probably wrong: left out unless kept.")
    doubt_reasons: list[str] = Field(default_factory=list)


class ReviewItems(BaseModel):
    run_id: str
    status: str
    items: list[ReviewItem]
    summary: str = Field(
        description="Counts of kept, dropped, edited, undecided; what approving writes."
    )
    left_out: list[str] = Field(
        default_factory=list, description="What approving now leaves out, and why."
    )
    decide_allowed: bool


def _state(decision: dict[str, Any]) -> str:
    if decision.get("verdict") == "merge":
        return f"merged into {decision.get('into', '')}"
    if decision.get("edited"):
        return "edited"
    if decision.get("decided"):
        return "kept" if decision.get("verdict") == "keep" else "dropped"
    return "undecided (kept)" if decision.get("verdict") == "keep" else "undecided (left out)"


def review_items(state: McpState, view: RunView) -> ReviewItems:
    report = view.report or {}
    if view.status == "awaiting_review" and "review" not in report:
        raise ToolError(f"run {view.run_id} was started before item-by-item review")
    items: list[ReviewItem] = []
    for e in report.get("entities", []):
        items.append(
            ReviewItem(
                key=e["key"],
                kind="entity",
                text=f"{e['name']} ({e['type']}, {e['status']}): {e.get('description', '')}",
                quotes=[p["text"] for p in e.get("passages", [])],
                state=_state(e.get("decision") or {}),
                doubtful=False,
            )
        )
    for c in report.get("concepts", []):
        doubt = c.get("doubt") or {}
        items.append(
            ReviewItem(
                key=c["key"],
                kind="concept",
                text=f"{c['title']}: {c['concept']}",
                quotes=[f"{q.get('key', '')}: {q['text']}" for q in c.get("quotes", [])],
                state=_state(c.get("decision") or {}),
                doubtful=bool(doubt.get("doubtful")),
                doubt_reasons=list(doubt.get("reasons") or []),
            )
        )
    for kind, rows in (
        ("relation", report.get("relations", [])),
        ("suggestion", report.get("related", [])),
    ):
        for r in rows:
            doubt = r.get("doubt") or {}
            kind_type = r.get("type") or f"related? (the model said {r.get('proposed_type')})"
            items.append(
                ReviewItem(
                    key=r["key"],
                    kind=kind,
                    text=f"{r['source']} -[{kind_type}]-> {r['target']}: "
                    + str(r.get("explanation") or r.get("description") or ""),
                    state=_state(r.get("decision") or {}),
                    doubtful=bool(doubt.get("doubtful")),
                    doubt_reasons=list(doubt.get("reasons") or []),
                )
            )
    summary = report.get("review") or {}
    counts = summary.get("counts", {})
    writes = summary.get("writes", {})
    return ReviewItems(
        run_id=view.run_id,
        status=view.status,
        items=items,
        summary=(
            f"{counts.get('kept', 0)} kept, {counts.get('dropped', 0)} dropped, "
            f"{counts.get('edited', 0)} edited, {counts.get('undecided', 0)} undecided; "
            "approving writes "
            + " and ".join(
                f"{count} {what}" for what, count in writes.items() if what != "attributions"
            )
        ),
        # A concept run says each item, what and why; a graph run one line each.
        left_out=[
            g if isinstance(g, str) else f"{g['item']} {g['what']}: {g['why']}"
            for g in summary.get("left_out", [])
        ],
        decide_allowed=state.settings.mcp_allow_approve,
    )


def decide_items(state: McpState, run_id: str, decisions: list[ItemDecision]) -> ReviewItems:
    if not state.settings.mcp_allow_approve:
        raise ToolError(f"MCP clients cannot decide on items: {APPROVE_SETTING} is off")
    with tool_failures():
        runs, whole_id = state.run_named(run_id)
        view = review.decide(runs, whole_id, decisions)
    return review_items(state, view)


def register(server: MCPServer[Any], state: McpState) -> None:
    """Bind the tools to `state`; decide_items only when the reader allowed approving."""

    @server.tool(name="review_items", annotations=READ_ONLY)
    def review_items_tool(
        run_id: Annotated[str, Field(min_length=1, description="From pending_reviews.")],
    ) -> ReviewItems:
        """A concept run's items one by one, the doubtful first: each concept with its
        quotes, each relation, with its key, its state (kept, dropped, undecided ...) and
        whether it is flagged as probably wrong. Show them to the reader to decide."""
        with tool_failures():
            runs, whole_id = state.run_named(run_id)
            view = runs.view(whole_id)
        return review_items(state, view)

    if not state.settings.mcp_allow_approve:
        return

    @server.tool(name="decide_items", annotations=DECIDES)
    def decide_items_tool(
        run_id: Annotated[str, Field(min_length=1, description="From pending_reviews.")],
        decisions: Annotated[
            list[ItemDecision],
            Field(
                min_length=1,
                max_length=200,
                description="In order: {item, action: keep|drop|edit|merge|retype|move_quote|"
                "remove_quote|relate|undecide, and the fields the action needs}.",
            ),
        ],
    ) -> ReviewItems:
        """Record the reader's decisions on single items (only what the reader said): keep,
        drop, edit (title, concept, analysis), merge (into), retype (type), relate (target,
        type), move_quote (quote, to), undecide. Nothing is written until approve_run; none
        of the decisions is saved when one does not fit."""
        return decide_items(state, run_id, decisions)
