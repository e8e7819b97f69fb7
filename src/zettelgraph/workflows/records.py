"""Records more than one workflow's state holds, as plain JSON-safe TypedDicts."""

from __future__ import annotations

# typing_extensions: pydantic (LangGraph Studio's input and output schemas) reads only this
# TypedDict on Python < 3.12.
from typing_extensions import TypedDict


class ContentInfo(TypedDict):
    """The content a run reads, as its prompts name it."""

    title: str
    author: str | None  # the author's name; None when the content has none
