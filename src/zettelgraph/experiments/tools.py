"""The tool registry: every experiment tool, in a stable order, with the description the
strategy recommender reads to choose it.

Each tool is a pure function over the store (it never writes), deterministic, and bounded in
what it returns. "document" tools run once per document (the workflow runs documents in
parallel); "corpus" tools run once over all the documents of the strategy and compare them.
docs/design.md ("Experiment tools") lists them with their rules.
"""

from __future__ import annotations

from typing import Any

from zettelgraph.experiments.registry import Tool
from zettelgraph.experiments.tools_drift import SemanticDriftOutput, semantic_drift
from zettelgraph.experiments.tools_entities import NamedEntitiesOutput, named_entities
from zettelgraph.experiments.tools_graph import (
    GraphConceptsOutput,
    GraphMeasuresOutput,
    graph_concepts,
    graph_measures,
)
from zettelgraph.experiments.tools_text import (
    ConcordanceOutput,
    CooccurrenceOutput,
    TermFrequencyOutput,
    concordance,
    cooccurrence,
    term_frequency,
)
from zettelgraph.experiments.tools_time import TemporalExpressionsOutput, temporal_expressions

_TOOLS = (
    Tool(
        name="concordance",
        title="Concordance (key word in context)",
        description=(
            "Every occurrence of the term in the document with the words on each side "
            "(up to 50 lines spread over the text), its count, the passages that hold it and "
            "its rate per 10,000 words. Use it to read how the document actually uses the "
            "term; it is the evidence the report quotes."
        ),
        scope="document",
        output=ConcordanceOutput,
        run=concordance,
    ),
    Tool(
        name="term_frequency",
        title="Term frequency by document, year and author",
        description=(
            "How often the term occurs (count, passages, rate per 10,000 words) in each "
            "document, each year of publication and each author; documents without a year "
            "are grouped as 'unknown'. Use it to compare how much documents, periods or "
            "authors use the term."
        ),
        scope="corpus",
        output=TermFrequencyOutput,
        run=term_frequency,
    ),
    Tool(
        name="cooccurrence",
        title="Co-occurring words (PMI)",
        description=(
            "The content words found within 8 words of the term more often than chance "
            "(pointwise mutual information, seen at least twice), and how often each "
            "context anchor appears near it. Use it to see what the term is associated "
            "with in the document and whether its baseline meaning holds."
        ),
        scope="document",
        output=CooccurrenceOutput,
        run=cooccurrence,
    ),
    Tool(
        name="named_entities",
        title="Named entities",
        description=(
            "People, places and other names in the document (capitalised word sequences; "
            "no spaCy), typed from the graph when the store knows them, else by cues such as "
            "titles ('don', 'Sir') or place prepositions; with counts and how many occur in "
            "passages that mention the term. Use it to see who and where the term is "
            "discussed with."
        ),
        scope="document",
        output=NamedEntitiesOutput,
        run=named_entities,
    ),
    Tool(
        name="temporal_expressions",
        title="Temporal expressions",
        description=(
            "Years, centuries, dates, month names and relative expressions ('ayer', "
            "'last year') in Spanish and English, normalised (e.g. 'siglo XVI' -> 1501-1600), "
            "with counts and how many occur in passages that mention the term. Use it to "
            "place the document's discussion of the term in time."
        ),
        scope="document",
        output=TemporalExpressionsOutput,
        run=temporal_expressions,
    ),
    Tool(
        name="graph_concepts",
        title="Concepts in the graph that mention the term",
        description=(
            "The concepts of the knowledge graph whose title, text or summary mention the "
            "term, and the concepts of these documents whose supporting quotes do, each with "
            "its related concepts (relation type and title). Use it to connect the "
            "experiment with the ideas already extracted from the reading."
        ),
        scope="corpus",
        output=GraphConceptsOutput,
        run=graph_concepts,
    ),
    Tool(
        name="graph_measures",
        title="Graph measures around the term",
        description=(
            "Over the concepts that mention the term and their neighbours: the most central "
            "ones (degree, betweenness) and the communities they form. Use it to see which "
            "ideas organise the term's part of the graph and which clusters it spans."
        ),
        scope="corpus",
        output=GraphMeasuresOutput,
        run=graph_measures,
    ),
    Tool(
        name="semantic_drift",
        title="Semantic drift of the term",
        description=(
            "Embeds the contexts of the term and compares their centroids by year (when the "
            "documents have two or more years), else by author, else by document: cosine "
            "distance to the previous group, to the overall use and to the given definition, "
            "with each group's most distinctive nearby words. Use it to measure how the "
            "term's meaning changes across time, authors or documents; needs two or more "
            "documents."
        ),
        scope="corpus",
        output=SemanticDriftOutput,
        run=semantic_drift,
    ),
)

TOOLS: dict[str, Tool] = {tool.name: tool for tool in _TOOLS}


def describe_tools() -> list[dict[str, Any]]:
    """Name, title, scope and description of every tool, in registry order (for prompts)."""
    return [
        {"name": t.name, "title": t.title, "scope": t.scope, "description": t.description}
        for t in TOOLS.values()
    ]
