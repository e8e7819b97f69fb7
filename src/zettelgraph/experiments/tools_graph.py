"""Tools over the concept graph: the concepts that mention the term, with their
neighbourhoods, and graph measures (centrality, communities) over that part of the graph."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import networkx as nx
from pydantic import BaseModel, Field

from zettelgraph.experiments.models import Citation, ToolOutput
from zettelgraph.experiments.registry import Document, ToolContext
from zettelgraph.experiments.text import TermMatcher, cite, fold_text
from zettelgraph.models import Concept, Quote
from zettelgraph.packs.relations import STRUCTURAL_TYPES, SUPPORTS

MAX_CONCEPTS = 40
MAX_NEIGHBOURS = 10
MAX_CITATIONS = 10
# Bounds on the part of the graph measured: a term found in thousands of concepts is measured
# on the most mentioning ones, so the tool stays fast and its result readable.
GRAPH_FOCUS = 200
GRAPH_NODES = 1000
EXACT_BETWEENNESS = 300  # above this many nodes betweenness is estimated from samples
SEED = 0


class Neighbour(BaseModel):
    concept_id: str
    title: str
    relation_type: str
    direction: Literal["out", "in"] = "out"


class ConceptMention(BaseModel):
    concept_id: str
    title: str
    summary_short: str = ""
    content_id: str | None = None
    mentions: int = Field(description="Matches in the concept's text and its quotes.")
    quote_mentions: int = Field(default=0, description="Of them, in its supporting quotes.")
    in_documents: bool = Field(default=False, description="Extracted from a document read.")
    neighbours: list[Neighbour] = Field(default_factory=list, max_length=MAX_NEIGHBOURS)


class GraphConceptsOutput(ToolOutput):
    concepts: list[ConceptMention] = Field(default_factory=list, max_length=MAX_CONCEPTS)


@dataclass
class _Found:
    concept: Concept
    text_mentions: int = 0
    quote_mentions: int = 0
    quotes: list[tuple[Document, Quote]] = field(default_factory=list)

    @property
    def mentions(self) -> int:
        return self.text_mentions + self.quote_mentions


def _content_of(concept: Concept) -> str | None:
    """The content a concept was extracted from (its provenance), if it says one."""
    value = concept.provenance.get("content_id")
    return value if isinstance(value, str) and value else None


def _neighbours(ctx: ToolContext, concept_id: str, concepts: dict[str, Concept]) -> list[Neighbour]:
    """Concepts joined to `concept_id` by a typed relation: every outgoing one, and an incoming
    one only from a concept with no outgoing relation to it (a reversible type already has
    its reverse going out)."""
    out: dict[str, Neighbour] = {}
    incoming: dict[str, Neighbour] = {}
    for relation in ctx.store.relations(concept_id, direction="both"):
        if relation.type in STRUCTURAL_TYPES:
            continue
        outgoing = relation.source_id == concept_id
        other = relation.target_id if outgoing else relation.source_id
        if other == concept_id or other not in concepts:
            continue
        neighbour = Neighbour(
            concept_id=other,
            title=concepts[other].title,
            relation_type=relation.type,
            direction="out" if outgoing else "in",
        )
        (out if outgoing else incoming).setdefault(f"{other}\0{relation.type}", neighbour)
    linked = {n.concept_id for n in out.values()}
    kept = [*out.values(), *(n for n in incoming.values() if n.concept_id not in linked)]
    return sorted(kept, key=lambda n: (n.relation_type, n.title.casefold(), n.concept_id))


def _mentioning(
    ctx: ToolContext, documents: Sequence[Document]
) -> tuple[list[_Found], dict[str, Concept]]:
    """Concepts whose text mentions the term, and concepts of the documents whose supporting
    quotes do; most mentions first."""
    matcher = TermMatcher(ctx.term.term, ctx.term.match)
    concepts = {c.id: c for c in ctx.store.list_concepts()}
    document_ids = {d.info.id for d in documents}
    passages = {p.id: (d, p) for d in documents for p in d.passages}
    found: list[_Found] = []
    for concept in concepts.values():
        text = " ".join((concept.title, concept.concept, concept.summary_short, concept.summary))
        item = _Found(concept, text_mentions=matcher.count(fold_text(text)))
        if _content_of(concept) in document_ids:
            supports = ctx.store.relations(concept.id, relation_type=SUPPORTS, direction="in")
            ids = [r.source_id for r in supports if r.source_id not in concepts]
            missing = [i for i in ids if i not in passages]
            others = {q.id: q for q in ctx.store.get_quotes(missing)} if missing else {}
            for quote_id in ids:
                if quote_id in passages:
                    document, quote = passages[quote_id]
                    n = matcher.count(fold_text(quote.text))
                    if n:
                        item.quotes.append((document, quote))
                elif quote_id in others:
                    n = matcher.count(fold_text(others[quote_id].text))
                else:
                    n = 0
                item.quote_mentions += n
        if item.mentions:
            found.append(item)
    found.sort(key=lambda f: (-f.mentions, f.concept.title.casefold(), f.concept.id))
    return found, concepts


def graph_concepts(ctx: ToolContext, documents: Sequence[Document]) -> GraphConceptsOutput:
    """The concepts that mention the term (in their text or supporting quotes), with their
    one-hop neighbourhoods."""
    found, concepts = _mentioning(ctx, documents)
    document_ids = {d.info.id for d in documents}
    mentions: list[ConceptMention] = []
    for item in found[:MAX_CONCEPTS]:
        concept = item.concept
        content_id = _content_of(concept)
        mentions.append(
            ConceptMention(
                concept_id=concept.id,
                title=concept.title,
                summary_short=concept.summary_short,
                content_id=content_id,
                mentions=item.mentions,
                quote_mentions=item.quote_mentions,
                in_documents=content_id in document_ids,
                neighbours=_neighbours(ctx, concept.id, concepts)[:MAX_NEIGHBOURS],
            )
        )
    citations: dict[str, Citation] = {}
    for item in found:
        for document, quote in item.quotes[:1]:
            citations.setdefault(quote.id, cite(document, quote))
        if len(citations) >= MAX_CITATIONS:
            break
    term = ctx.term.term
    if not found:
        summary = f"no concept in the graph mentions {term}"
    else:
        top = ", ".join(f"{m.title} ({m.mentions})" for m in mentions[:5])
        local = sum(1 for m in mentions if m.in_documents)
        summary = (
            f"{len(found)} concepts mention {term} ({local} of the first {len(mentions)} "
            f"from the documents read); most: {top}"
        )
    return GraphConceptsOutput(
        count=len(found),
        summary=summary,
        citations=list(citations.values()),
        concepts=mentions,
    )


# --- graph measures ----------------------------------------------------------------------


class CentralConcept(BaseModel):
    concept_id: str
    title: str
    degree: int
    betweenness: float
    mentions_term: bool = False


class Community(BaseModel):
    index: int
    size: int
    titles: list[str] = Field(default_factory=list, max_length=8)


class GraphMeasuresOutput(ToolOutput):
    central: list[CentralConcept] = Field(default_factory=list, max_length=10)
    communities: list[Community] = Field(default_factory=list, max_length=20)
    nodes: int = 0
    edges: int = 0
    isolated: int = Field(default=0, description="Concepts with no relation in the subgraph.")
    modularity: float | None = None


def _term_graph(ctx: ToolContext, found: list[_Found], concepts: dict[str, Concept]) -> nx.Graph:
    """The undirected graph of the concepts that mention the term, their neighbours and every
    typed relation among them."""
    focus = [f.concept.id for f in found[:GRAPH_FOCUS]]
    graph = nx.Graph()
    graph.add_nodes_from(focus)
    neighbours: dict[str, list[Neighbour]] = {}
    for concept_id in focus:
        neighbours[concept_id] = _neighbours(ctx, concept_id, concepts)
        for n in neighbours[concept_id]:
            if graph.number_of_nodes() < GRAPH_NODES or n.concept_id in graph:
                graph.add_edge(concept_id, n.concept_id)
    for node in list(graph.nodes):
        if node not in neighbours:  # a neighbour: keep its relations inside the subgraph
            for n in _neighbours(ctx, node, concepts):
                if n.concept_id in graph:
                    graph.add_edge(node, n.concept_id)
    nx.set_node_attributes(graph, {node: concepts[node].title for node in graph}, "title")
    return graph


def graph_measures(ctx: ToolContext, documents: Sequence[Document]) -> GraphMeasuresOutput:
    """Degree and betweenness of the concepts around the term, and their communities."""
    found, concepts = _mentioning(ctx, documents)
    graph = _term_graph(ctx, found, concepts)
    focus = {f.concept.id: f for f in found[:GRAPH_FOCUS]}
    term = ctx.term.term
    if graph.number_of_nodes() == 0:
        return GraphMeasuresOutput(summary=f"no concept in the graph mentions {term}")
    size = graph.number_of_nodes()
    betweenness: dict[str, float] = nx.betweenness_centrality(
        graph, k=EXACT_BETWEENNESS if size > EXACT_BETWEENNESS else None, seed=SEED
    )
    title = nx.get_node_attributes(graph, "title")
    ranked = sorted(
        graph.nodes,
        key=lambda n: (-betweenness[n], -graph.degree[n], title[n].casefold(), n),
    )
    central = [
        CentralConcept(
            concept_id=n,
            title=title[n],
            degree=graph.degree[n],
            betweenness=round(betweenness[n], 4),
            mentions_term=n in focus,
        )
        for n in ranked[:10]
    ]
    groups: list[set[str]] = []
    modularity = None
    if graph.number_of_edges():
        groups = nx.community.louvain_communities(graph, seed=SEED)
        modularity = round(float(nx.community.modularity(graph, groups)), 4)
    joined = sorted(
        (g for g in groups if len(g) > 1),
        key=lambda g: (-len(g), min(title[n].casefold() for n in g)),
    )
    communities = [
        Community(
            index=i,
            size=len(group),
            titles=[
                title[n]
                for n in sorted(group, key=lambda n: (-graph.degree[n], title[n].casefold()))[:8]
            ],
        )
        for i, group in enumerate(joined[:20])
    ]
    isolated = sum(1 for n in graph.nodes if graph.degree[n] == 0)
    citations: dict[str, Citation] = {}
    for n in ranked:
        for document, quote in focus[n].quotes[:1] if n in focus else ():
            citations.setdefault(quote.id, cite(document, quote))
        if len(citations) >= MAX_CITATIONS:
            break
    summary = (
        f"{size} concepts around {term} ({len(focus)} mention it), "
        f"{graph.number_of_edges()} relations, {len(joined)} communities"
    )
    if central and graph.number_of_edges():
        summary += f"; most central: {central[0].title}"
    return GraphMeasuresOutput(
        count=size,
        summary=summary,
        citations=list(citations.values()),
        central=central,
        communities=communities,
        nodes=size,
        edges=graph.number_of_edges(),
        isolated=isolated,
        modularity=modularity,
    )
