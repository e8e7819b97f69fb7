"""One structured LLM call of an experiment stage, recorded for the report and provenance."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from zettelgraph.context import Services
from zettelgraph.experiments.models import LLMCallRecord
from zettelgraph.experiments.text import clip
from zettelgraph.llm.structured import Sampling, error_kind
from zettelgraph.models import utcnow
from zettelgraph.prompts.experiment_common import PromptDocument
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.workflows.calls import ask as shared_ask
from zettelgraph.workflows.experiment.state import Document, ExperimentCall
from zettelgraph.workflows.records import as_record

T = TypeVar("T", bound=BaseModel)
# How much of a document's abstract the prompts see (its stored copy is up to 3,000).
ABSTRACT_PROMPT_CHARS = 600


def ask(
    services: Services,
    *,
    name: str,
    messages: Sequence[BaseMessage],
    response_model: type[T],
    sampling: Sampling,
    schema: dict[str, Any] | None = None,
) -> tuple[T | None, ExperimentCall, str | None]:
    """(the answer or None, the call's record, a warning when it failed). A call that fails
    after its retries and repair is a warning naming its kind: the stage falls back to what
    the tools and rules know, and the reader sees that it did."""
    started = utcnow()
    asked = shared_ask(
        services,
        name=name,
        messages=messages,
        response_model=response_model,
        sampling=sampling,
        schema=schema,
    )
    warning = None
    if asked.error is not None:
        warning = f"{name} failed ({error_kind(asked.error).kind}): {asked.error}"
    # The experiment's own record (`LLMCallRecord`, kept in the experiment's provenance).
    record = LLMCallRecord(
        name=name,
        model=asked.record["model"],
        started_at=started,
        ended_at=utcnow(),
        input_tokens=int(asked.record["input_tokens"]),
        output_tokens=int(asked.record["output_tokens"]),
        failed=asked.answer is None,
    )
    return asked.answer, as_record(ExperimentCall, record.model_dump(mode="json")), warning


def prompt_documents(
    documents: Sequence[Document], term_passages: dict[str, int], ids: LocalIds
) -> list[PromptDocument]:
    return [
        PromptDocument(
            id=ids.local(d["id"]),
            title=d["title"],
            author=d.get("author"),
            year=d.get("year"),
            kind=d.get("kind", "book"),
            domain=d.get("domain"),
            journal=d.get("journal"),
            doi=d.get("doi"),
            # An abstract's opening says what the document is about; the rest costs tokens
            # in every prompt of every stage.
            abstract=clip(d.get("abstract") or "", ABSTRACT_PROMPT_CHARS),
            passages=d.get("passages", 0),
            term_passages=term_passages.get(d["id"], 0),
            summary=d.get("summary_short", ""),
        )
        for d in documents
    ]
