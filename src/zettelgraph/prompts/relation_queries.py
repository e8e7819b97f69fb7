"""Search queries that may find existing concepts related to a new concept."""

from __future__ import annotations

from typing import Annotated

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.packs.relations import RelationVocabulary
from zettelgraph.prompts.ids import narrowed, relation_types
from zettelgraph.prompts.quality import language_name, relation_guide

NAME = "relation_queries"
QUERIES_PER_TYPE = 2


class RelationQueriesInput(BaseModel):
    title: str
    concept: str
    language: str = "es"


class TypedQueries(BaseModel):
    relation_type: str  # one of the vocabulary's types: see `response_model`
    queries: list[Annotated[str, Field(max_length=160)]] = Field(max_length=QUERIES_PER_TYPE)


class RelationQueries(BaseModel):
    queries: list[TypedQueries] = Field(max_length=12)


def response_model(vocabulary: RelationVocabulary) -> type[RelationQueries]:
    """`RelationQueries` whose relation types are the vocabulary's, and only those."""
    typed = narrowed(TypedQueries, "relation_type", relation_types(vocabulary.names))
    return narrowed(RelationQueries, "queries", list[typed])  # type: ignore[valid-type]


def illustration(vocabulary: RelationVocabulary) -> str:
    """What the queries of two contrasting types look for, from the packs' query hints:
    the first type that has one, and the first of another stance (an agreeing and an
    opposing type show best that each type searches for different ideas)."""
    hinted = [t for t in vocabulary.names if vocabulary.query_hints.get(t)]
    if not hinted:
        return ""
    shown = [hinted[0]]
    contrast = next(
        (t for t in hinted if vocabulary.stance(t) != vocabulary.stance(hinted[0])), None
    )
    if contrast is not None:
        shown.append(contrast)
    parts = "; ".join(f"for {t}: {vocabulary.query_hints[t]}" for t in shown)
    return f" ({parts}; ...)"


def messages(data: RelationQueriesInput, vocabulary: RelationVocabulary) -> list[BaseMessage]:
    return [
        SystemMessage(
            content="You write short semantic-search queries that find ideas related to a "
            f"given idea in a knowledge graph, in {language_name(data.language)}.\n"
            + relation_guide(vocabulary)
        ),
        HumanMessage(
            content=f"Idea: {data.title}\n{data.concept}\n\nFor each relation type, write "
            f"{QUERIES_PER_TYPE} queries describing the ideas this one could have that relation "
            f"with{illustration(vocabulary)}."
        ),
    ]
