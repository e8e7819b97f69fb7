"""A tiny call `zettelgraph doctor` makes to show the LLM answers with valid JSON."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage
from pydantic import BaseModel, Field

NAME = "health_check"


class HealthCheck(BaseModel):
    ok: bool
    language: str = Field(max_length=40, description="The language this sentence is in.")


def messages() -> list[BaseMessage]:
    return [
        HumanMessage(
            content="Esta frase está escrita en español. Answer with ok=true and the language "
            "of the previous sentence."
        )
    ]
