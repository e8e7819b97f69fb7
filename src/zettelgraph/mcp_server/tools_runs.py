"""The tools that add to the graph, always through the reader's review: ingest_notes,
pending_reviews, start_extraction and (only when ZETTELGRAPH_MCP_ALLOW_APPROVE is on)
approve_run.

A client may ingest files inside ZETTELGRAPH_MCP_ROOTS and start an extraction run, which stops
at the review like every run; what the run proposes reaches the graph and the vault only when
the reader approves it (`zettelgraph review`, the web app), or when the reader has let MCP
clients approve. The run rules (one open run per content, one decision at a time) are
`services/runs.py`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from zettelgraph.mcp_server.access import APPROVE_SETTING, READ_ONLY, allowed_paths
from zettelgraph.mcp_server.failures import tool_failures
from zettelgraph.mcp_server.results import (
    CONTENT_URI,
    FileProblem,
    IngestedContent,
    IngestOut,
    PendingReview,
    PendingReviews,
    ProposedConcept,
    RunOut,
)
from zettelgraph.mcp_server.state import McpState
from zettelgraph.models import NodeLabel
from zettelgraph.services import browse
from zettelgraph.services.ids import resolve_node_id
from zettelgraph.services.ingest import Progress, ingest_paths
from zettelgraph.services.run_view import OpenRunError, RunView

# Adds sources and runs; never changes or removes what the reader approved.
ADDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
APPROVES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)

Step = Callable[[str], None]


def how_to_review(state: McpState, run_id: str = "RUN_ID") -> str:
    text = (
        f"the reader reviews it: `zettelgraph review {run_id}` in a terminal, or the inbox "
        "of the web app (`zettelgraph serve`)"
    )
    if state.settings.mcp_allow_approve:
        return text + "; approve_run approves it, but only once the reader has said so"
    return text + f"; MCP clients cannot approve runs ({APPROVE_SETTING} is off)"


def ingest_notes(
    state: McpState,
    paths: list[str],
    title: str | None = None,
    author: str | None = None,
    on_progress: Progress | None = None,
    cards: bool = False,
) -> IngestOut:
    """Ingest files and folders inside the allowed roots (ZETTELGRAPH_MCP_ROOTS); with
    `cards`, also propose cards straight from their passages."""
    with tool_failures():
        chosen = allowed_paths(state.settings, paths)
        result = ingest_paths(
            state.services,
            chosen,
            title=title,
            author=author,
            cards=cards,
            on_progress=on_progress,
        )
    contents = [
        IngestedContent(
            id=report["id"],
            title=report["title"],
            author=report.get("author"),
            kind=report.get("kind", "book"),
            passages=report.get("quotes", 0),
            passages_added=report.get("quotes_added", 0),
            processed=bool(report.get("processed")),
            uri=CONTENT_URI.format(report["id"]),
            warnings=list(report.get("warnings", [])),
            cards_proposed=report["cards"]["proposed"] if "cards" in report else None,
        )
        for report in result.reports
    ]
    waiting = [c.id for c in contents if not c.processed]
    return IngestOut(
        contents=contents,
        errors=[FileProblem(path=e["path"], message=e["error"]) for e in result.errors],
        skipped=[FileProblem(path=s["path"], message=s["reason"]) for s in result.skipped],
        next_step=(
            "start_extraction with a content id proposes its concepts for the reader's review"
            if waiting
            else "nothing new to extract"
        ),
    )


def pending_reviews(state: McpState) -> PendingReviews:
    """Runs waiting for the reader's review, concept and graph runs, newest first."""
    rows: list[dict[str, Any]] = []
    for runs in state.every_run:
        rows.extend(browse.inbox(runs))
    rows.sort(key=lambda row: row.get("updated_at") or "", reverse=True)
    return PendingReviews(
        runs=[
            PendingReview(
                run_id=row["run_id"],
                kind=row["kind"],
                content_id=row["content_id"],
                title=row["title"],
                proposed=row["entities"] if row["kind"] == "graph" else row["concepts"],
                relations=row["relationships"] if row["kind"] == "graph" else row["relations"],
                warnings=row["warnings"],
                feedback_rounds=row["feedback_rounds"],
                waiting_seconds=row["age_seconds"],
            )
            for row in rows
        ],
        approve_allowed=state.settings.mcp_allow_approve,
        how_to_review=how_to_review(state),
    )


def run_out(state: McpState, view: RunView, *, started: bool) -> RunOut:
    report = view.report or {}
    proposed = [
        ProposedConcept(
            title=c.get("title", ""),
            summary_short=c.get("summary_short", ""),
            quotes=len(c.get("quotes", [])),
        )
        for c in report.get("concepts", [])
    ]
    relations = report.get("relations") or report.get("relationships") or []
    next_step = {
        "awaiting_review": how_to_review(state, view.run_id),
        "committed": "approved: written to the graph and the reader's vault",
        "skipped": "already extracted; start_extraction with force=true extracts it again",
    }.get(view.status, f"the run is {view.status}")
    return RunOut(
        run_id=view.run_id,
        status=view.status,
        started=started,
        content_id=view.content_id,
        title=view.title,
        proposed=proposed,
        relations=len(relations),
        committed_concepts=len(view.committed.get("concepts") or []),
        warnings=list(view.warnings),
        next_step=next_step,
    )


def start_extraction(
    state: McpState,
    content_id: str,
    suggestions: str | None = None,
    force: bool = False,
    on_step: Step | None = None,
) -> RunOut:
    """Extract concepts from a content up to the review; the content's open run instead
    when it has one (never two runs of one content)."""
    with tool_failures():
        content_id = resolve_node_id(
            state.services.store, NodeLabel.CONTENT, content_id, listing="list_contents"
        )
    then = "no run was started; the reader can check the model with `zettelgraph doctor`"
    with tool_failures(then):
        try:
            view = state.runs.start(
                content_id, suggestions=suggestions, force=force, on_step=on_step
            )
        except OpenRunError as exc:
            # A client that retries (or two that ask at once) gets the one run, not an error.
            return run_out(state, exc.run, started=False)
    return run_out(state, view, started=True)


def approve_run(state: McpState, run_id: str, on_step: Step | None = None) -> RunOut:
    """Approve a run waiting for review: its concepts and notes are written."""
    if not state.settings.mcp_allow_approve:
        # Not registered then; checked again so no other path can reach it.
        raise ToolError(f"MCP clients cannot approve runs: {APPROVE_SETTING} is off")
    with tool_failures():
        runs, run_id = state.run_named(run_id)
    with tool_failures(f"the run stopped; `zettelgraph resume {run_id}` continues it"):
        view = runs.answer(run_id, "approve", on_step=on_step)
    return run_out(state, view, started=False)


def progress(ctx: Context[Any, Any]) -> Step:
    """Each finished workflow step as a progress notification (a no-op unless the client
    asked for them), so a long run shows it is alive. Called from the worker thread the SDK
    runs a sync tool in, hence `from_thread`."""
    done = 0

    def step(name: str) -> None:
        nonlocal done
        done += 1
        anyio.from_thread.run(ctx.report_progress, done, None, name)

    return step


def file_progress(ctx: Context[Any, Any]) -> Progress:
    """Files ingested out of all, as progress notifications (see `progress`)."""

    def report(done: int, total: int, what: str) -> None:
        anyio.from_thread.run(ctx.report_progress, done, total, what)

    return report


def register(server: MCPServer[Any], state: McpState) -> None:
    """Bind the tools to `state`; approve_run only when the reader allowed it."""

    @server.tool(name="ingest_notes", annotations=ADDS)
    def ingest_notes_tool(
        paths: Annotated[
            list[str],
            Field(
                min_length=1,
                max_length=50,
                description="Files or folders inside the folders the reader allowed; a "
                "relative path is taken in the first allowed folder that has it.",
            ),
        ],
        ctx: Context[Any, Any],
        title: Annotated[str | None, Field(max_length=500)] = None,
        author: Annotated[str | None, Field(max_length=300)] = None,
        cards: Annotated[
            bool,
            Field(
                description="Also propose cards straight from the passages (flashcards, "
                "clozes, multiple choice, code and figure cards); they wait for the reader's "
                "review."
            ),
        ] = False,
    ) -> IngestOut:
        """Read book notes (Markdown with a '# Citas' / '# Quotes' section), PDFs, Word,
        PowerPoint, text and transcripts into the reader's store as sources and passages.
        Only inside the folders the reader listed in ZETTELGRAPH_MCP_ROOTS (none by default:
        then this refuses). Concepts are not extracted: start_extraction does that."""
        return ingest_notes(
            state, paths, title, author, on_progress=file_progress(ctx), cards=cards
        )

    @server.tool(name="pending_reviews", annotations=READ_ONLY)
    def pending_reviews_tool() -> PendingReviews:
        """Extraction runs waiting for the reader's review: what each proposes and how long
        it has waited. Only the reader approves them, unless they allowed approve_run."""
        return pending_reviews(state)

    @server.tool(name="start_extraction", annotations=ADDS)
    def start_extraction_tool(
        content_id: Annotated[str, Field(min_length=1, description="From list_contents.")],
        ctx: Context[Any, Any],
        suggestions: Annotated[
            str | None, Field(max_length=2000, description="Hints for the extraction.")
        ] = None,
        force: Annotated[bool, Field(description="Extract again from a processed source.")] = False,
    ) -> RunOut:
        """Propose atomic concepts (with relations to the reader's existing concepts) from
        one source's passages. The run stops at the reader's review: nothing is written to
        their graph until they approve it. Takes a while with a real model."""
        return start_extraction(state, content_id, suggestions, force, on_step=progress(ctx))

    if not state.settings.mcp_allow_approve:
        return

    @server.tool(name="approve_run", annotations=APPROVES)
    def approve_run_tool(
        run_id: Annotated[str, Field(min_length=1, description="From pending_reviews.")],
        ctx: Context[Any, Any],
    ) -> RunOut:
        """Approve a run waiting for review: its concepts, relations and notes are written to
        the reader's graph and vault. Only when the reader has told you to approve it."""
        return approve_run(state, run_id, on_step=progress(ctx))
