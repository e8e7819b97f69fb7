"""Call 1.1c: search queries that may find existing concepts related to a new concept."""

from __future__ import annotations

from typing import Annotated

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.prompts.ids import RelationType
from zettelgraph.prompts.quality import language_name, relation_guide
from zettelgraph.relations import RelationVocabulary

NAME = "relation_queries"
QUERIES_PER_TYPE = 2


class RelationQueriesInput(BaseModel):
    title: str
    concept: str
    language: str = "es"


class TypedQueries(BaseModel):
    relation_type: RelationType
    queries: list[Annotated[str, Field(max_length=160)]] = Field(max_length=QUERIES_PER_TYPE)


class RelationQueries(BaseModel):
    queries: list[TypedQueries] = Field(max_length=12)


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
            "with (for GENERALIZES: more specific cases; for OPPOSES: contrary ideas; ...)."
        ),
    ]
