"""Records more than one workflow's state holds, as plain JSON-safe TypedDicts."""

from __future__ import annotations

from typing import Any, NotRequired, TypeVar

from pydantic import ConfigDict, TypeAdapter

# typing_extensions: pydantic (LangGraph Studio's input and output schemas) reads only this
# TypedDict on Python < 3.12.
from typing_extensions import TypedDict

R = TypeVar("R")

# A value of free-form JSON: what a field whose keys the data decides holds (a passage's place
# in its file, which each reader writes its own way). Nested values are not typed further.
JSONValue = str | int | float | bool | None | list[Any] | dict[str, Any]
JSONObject = dict[str, JSONValue]
# The config of a record that mirrors a pydantic model's JSON (`with_config(MIRROR)`): a field
# the model gains fails `as_record` at once, rather than being dropped on the way.
MIRROR = ConfigDict(extra="forbid")


class ContentInfo(TypedDict):
    """The content a run reads, as its prompts name it."""

    title: str
    author: str | None  # the author's name; None when the content has none
    # `Content.kind` ("book", "pdf", "pptx"...); absent in runs checkpointed before it.
    kind: NotRequired[str]


# One adapter per record type: building one costs far more than a validation.
_ADAPTERS: dict[object, TypeAdapter[Any]] = {}


def as_record(record: type[R], data: object) -> R:
    """`data` (a model's JSON dump, say) checked to be a `record`, a TypedDict of the state:
    pydantic raises ValidationError, naming the field, when it is not."""
    adapter = _ADAPTERS.get(record)
    if adapter is None:
        adapter = _ADAPTERS[record] = TypeAdapter(record)
    typed: TypeAdapter[R] = adapter
    return typed.validate_python(data)
