"""The tools that read the graph: search, ask, list_concepts, get_concept, neighbours and
list_contents. Each is a plain function of the server state (tested without a client) that
`register` binds as a tool; they call the services the CLI and the web app call.

`ask` stores the question, its answer and the CITES relations to the passages, as `zettelgraph
ask` does: a record of what was asked, not a change to the reader's concepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from zettelgraph.mcp_server.access import READ_ONLY
from zettelgraph.mcp_server.failures import tool_failures
from zettelgraph.mcp_server.results import (
    CONCEPT_URI,
    CONTENT_URI,
    AskOut,
    ConceptList,
    ConceptOut,
    ConceptRef,
    ConceptRow,
    ContentList,
    ContentRow,
    GraphEdge,
    GraphNode,
    Neighbourhood,
    Passage,
    PassageInContext,
    RelationOut,
    SearchOut,
)
from zettelgraph.mcp_server.state import McpState
from zettelgraph.models import Concept, NodeLabel, PassageFilter
from zettelgraph.services import ask as asking
from zettelgraph.services import browse, graph_view
from zettelgraph.services.ids import resolve_node_id

# Stores the answer (a record), changes nothing the reader wrote or approved.
RECORDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

Query = Annotated[str, Field(min_length=1, max_length=2000)]
HowMany = Annotated[
    int | None, Field(ge=1, le=50, description="How many passages; default ZETTELGRAPH_SEARCH_K.")
]
Names = Annotated[
    list[str] | None,
    Field(max_length=20, description="Only these (contents: ids, id prefixes or titles)."),
]
Places = Annotated[
    list[str] | None,
    Field(
        max_length=10,
        description="Only passages in these places: pages=12-40, slides=3-5, turns=2-6, "
        "time=00:10:00-00:20:00.",
    ),
]


@dataclass(frozen=True)
class Scope:
    """Which passages a search or an answer may use, as `--content`, `--kind`, `--author`
    and `--where` say on the command line (empty: all of them)."""

    contents: Sequence[str] = ()
    kinds: Sequence[str] = ()
    authors: Sequence[str] = ()
    where: Sequence[str] = ()

    def passages(self, state: McpState) -> PassageFilter | None:
        return asking.passage_filter(
            state.services,
            contents=self.contents,
            kinds=self.kinds,
            authors=self.authors,
            where=self.where,
        )


def search(
    state: McpState, query: str, k: int | None = None, scope: Scope | None = None
) -> SearchOut:
    """Passages for a query by full-text, vector and graph search; no LLM."""
    with tool_failures():
        passages = (scope or Scope()).passages(state)
        results = asking.search(state.services, query, k=k, passages=passages)
    return SearchOut(query=query, passages=[Passage.of_result(r) for r in results])


def ask(
    state: McpState,
    question: str,
    k: int | None = None,
    scope: Scope | None = None,
    chat_id: str | None = None,
) -> AskOut:
    """A cited answer from the reader's passages (stored, as `zettelgraph ask` stores it);
    with `chat_id`, the next turn of that conversation."""
    if not question.strip():
        raise ToolError("ask a question")
    with tool_failures():
        passages = (scope or Scope()).passages(state)
        outcome = asking.ask(
            state.services, question, k=k, passages=passages, chat_id=chat_id or None
        )
    answer = outcome.answer
    cited = {c["n"] for c in answer.citations if c.get("cited")}
    return AskOut(
        answer_id=answer.id,
        question=answer.question,
        answer=answer.answer,
        answerable=answer.answerable,
        language=answer.language,
        passages=[Passage.of_result(r, cited=r.n in cited) for r in outcome.results],
        warnings=list(outcome.warnings),
        chat_id=answer.chat_id or "",
        turn=answer.turn or 1,
    )


def concept_of(state: McpState, given: str) -> Concept:
    """The concept with this id, or the one whose id starts with it (as the CLI lists them)."""
    store = state.services.store
    with tool_failures():
        concept = store.get_concept(
            resolve_node_id(store, NodeLabel.CONCEPT, given, listing="list_concepts")
        )
    assert concept is not None
    return concept


def list_concepts(state: McpState, query: str = "", limit: int = 100) -> ConceptList:
    """Approved concepts by title, or those whose title or summary contains `query`."""
    rows = browse.concept_rows(state.services.store, query)
    # A row carries more than a ConceptRow takes (vault_sync_pending): pydantic leaves it out,
    # as it leaves a graph view node's colour and pack out of a GraphNode.
    return ConceptList(
        total=len(rows),
        concepts=[ConceptRow(**row, uri=CONCEPT_URI.format(row["id"])) for row in rows[:limit]],
    )


def _relations(rows: list[dict[str, Any]], direction: Literal["out", "in"]) -> list[RelationOut]:
    """A concept's relations one way, each named by the concept at its other end."""
    other = "target" if direction == "out" else "source"
    return [
        RelationOut(
            direction=direction,
            type=r["type"],
            other_id=r[f"{other}_id"],
            other_title=r[other],
            explanation=r["explanation"],
            inferred=r["inferred"],
        )
        for r in rows
    ]


def get_concept(state: McpState, concept_id: str) -> ConceptOut:
    """A concept with its relations both ways and the passages it is drawn from."""
    concept = concept_of(state, concept_id)
    detail = browse.concept_detail(state.services.store, concept)
    relations = _relations(detail["relations"], "out") + _relations(detail["incoming"], "in")
    run = concept.provenance.get("run")
    return ConceptOut(
        id=concept.id,
        title=concept.title,
        concept=concept.concept,
        analysis=concept.analysis,
        summary=concept.summary,
        summary_short=concept.summary_short,
        language=concept.language,
        synonyms=concept.synonyms,
        first_appearance=concept.first_appearance,
        uri=CONCEPT_URI.format(concept.id),
        relations=relations,
        quotes=[Passage.of_view(view) for view in detail["quotes"]],
        run_id=run if isinstance(run, str) else None,
    )


def neighbours(state: McpState, concept_id: str, depth: int = 1, limit: int = 50) -> Neighbourhood:
    """Concepts and entities up to `depth` relations from a concept, and the relations among
    them (each pair once: a stored reverse is left out)."""
    concept = concept_of(state, concept_id)
    view: dict[str, Any] = graph_view.graph_view(
        state.services.store,
        state.services.packs,
        concept_id=concept.id,
        depth=depth,
        limit=limit + 1,  # the concept itself is one of the nodes
    )
    return Neighbourhood(
        centre=ConceptRef(id=concept.id, title=concept.title),
        nodes=[GraphNode(**node) for node in view["nodes"] if node["id"] != concept.id],
        edges=[GraphEdge(**edge) for edge in view["edges"]],
    )


def list_contents(state: McpState) -> ContentList:
    """Every source with its author, kind, passages and whether concepts were extracted."""
    return ContentList(
        contents=[
            ContentRow(
                id=row["id"],
                title=row["title"],
                author=row["author"],
                kind=row["kind"],
                passages=row["quotes"],
                concepts_extracted=row["processed_date"] is not None,
                summary_short=row["summary_short"],
                uri=CONTENT_URI.format(row["id"]),
            )
            for row in browse.content_rows(state.services.store)
        ]
    )


def passage_in_context(state: McpState, passage_id: str, around: int = 1) -> PassageInContext:
    """A passage with the passages read just before and after it in its source."""
    with tool_failures():
        view = browse.passage_in_context(state.services.store, passage_id, around)
    return PassageInContext(
        before=[Passage.of_view(row) for row in view["before"]],
        passage=Passage.of_view(view["passage"]),
        after=[Passage.of_view(row) for row in view["after"]],
    )


def register(server: MCPServer[Any], state: McpState) -> None:
    """Bind the read tools to `state`; their docstrings are what the client's model reads."""

    @server.tool(name="search", annotations=READ_ONLY)
    def search_tool(
        query: Query,
        k: HowMany = None,
        contents: Names = None,
        kinds: Names = None,
        authors: Names = None,
        where: Places = None,
    ) -> SearchOut:
        """Find passages in everything the reader has read (book notes, PDFs, slides,
        transcripts) by full-text, vector and graph search. Each passage comes with its
        citation (source, author, page or section) and the approved concepts it supports.
        No LLM is used. Cite passages by their citation when you use them."""
        return search(
            state, query, k, Scope(contents or (), kinds or (), authors or (), where or ())
        )

    @server.tool(name="ask", annotations=RECORDS)
    def ask_tool(
        question: Query,
        k: HowMany = None,
        chat_id: Annotated[
            str | None,
            Field(max_length=100, description="A chat_id from an earlier answer: a follow-up."),
        ] = None,
        contents: Names = None,
        kinds: Names = None,
        authors: Names = None,
        where: Places = None,
    ) -> AskOut:
        """Answer a question from the reader's own passages: each sentence of the answer ends
        with [n] markers naming the passages (n) it uses. answerable=false means the
        passages do not contain the answer; say so rather than answering from elsewhere.
        The question and answer are stored in the reader's history. Pass the chat_id of an
        earlier answer to ask a follow-up that builds on it (without filters, a follow-up
        keeps the earlier turn's)."""
        # No filter given: the scope's filter is None, so a follow-up keeps the earlier turn's.
        scope = Scope(contents or (), kinds or (), authors or (), where or ())
        return ask(state, question, k, scope, chat_id)

    @server.tool(name="list_concepts", annotations=READ_ONLY)
    def list_concepts_tool(
        query: Annotated[
            str, Field(max_length=200, description="Words the title or summary contains.")
        ] = "",
        limit: Annotated[int, Field(ge=1, le=1000)] = 100,
    ) -> ConceptList:
        """List the reader's approved concepts (atomic ideas drawn from their reading) by
        title, with their number of relations and supporting quotes."""
        return list_concepts(state, query, limit)

    @server.tool(name="get_concept", annotations=READ_ONLY)
    def get_concept_tool(
        concept_id: Annotated[str, Field(min_length=1, description="Id, or its first characters.")],
    ) -> ConceptOut:
        """One concept: its text, analysis and summaries, its typed relations to other
        concepts (both directions) and the quotes it was drawn from, each with its citation."""
        return get_concept(state, concept_id)

    @server.tool(name="neighbours", annotations=READ_ONLY)
    def neighbours_tool(
        concept_id: Annotated[str, Field(min_length=1, description="Id, or its first characters.")],
        depth: Annotated[int, Field(ge=1, le=3, description="Relations away, at most.")] = 1,
        limit: Annotated[int, Field(ge=1, le=500, description="Nodes at most.")] = 50,
    ) -> Neighbourhood:
        """The concepts (and entities such as people or places) related to a concept, up to
        `depth` relations away, with the typed relations among them (GENERALIZES, PART_OF,
        SUPPORTS, OPPOSES, SIMILAR_TO, ...) and why each holds."""
        return neighbours(state, concept_id, depth, limit)

    @server.tool(name="passage_in_context", annotations=READ_ONLY)
    def passage_in_context_tool(
        passage_id: Annotated[str, Field(min_length=1, description="A passage's passage_id.")],
        around: Annotated[int, Field(ge=0, le=20, description="Passages on each side.")] = 1,
    ) -> PassageInContext:
        """A passage (from search, ask or get_concept) with the passages read just before
        and after it in its source, each with its citation: read it when a passage alone is
        too short to be sure what it says."""
        return passage_in_context(state, passage_id, around)

    @server.tool(name="list_contents", annotations=READ_ONLY)
    def list_contents_tool() -> ContentList:
        """Every source the reader has ingested (books, articles, documents), with its id,
        author and whether concepts were extracted from it (start_extraction needs the id)."""
        return list_contents(state)
