"""One structured LLM call of an experiment stage, recorded for the report and provenance."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from zettelgraph.analysis.models import LLMCallRecord
from zettelgraph.llm.structured import SOFT_LLM_ERRORS, Sampling, error_kind
from zettelgraph.llm.usage import UsageLog
from zettelgraph.models import utcnow
from zettelgraph.prompts.experiment_common import PromptDocument
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.workflows.context import Services

T = TypeVar("T", bound=BaseModel)


def ask(
    services: Services,
    *,
    name: str,
    messages: Sequence[BaseMessage],
    response_model: type[T],
    sampling: Sampling,
    schema: dict[str, Any] | None = None,
) -> tuple[T | None, dict[str, Any], str | None]:
    """(the answer or None, the call's record, a warning when it failed). A call that fails
    after its retries and repair is a warning naming its kind: the stage falls back to what
    the tools and rules know, and the reader sees that it did."""
    usage = UsageLog()
    started = utcnow()
    answer: T | None = None
    warning = None
    try:
        answer = services.structured(
            services.llms.main,
            name=name,
            messages=messages,
            response_model=response_model,
            sampling=sampling,
            schema=schema,
            usage=usage,
        )
    except SOFT_LLM_ERRORS as exc:
        kind = error_kind(exc)
        warning = f"{name} failed ({kind.kind}): {exc}"
    totals = usage.as_dict().get(name, {})
    record = LLMCallRecord(
        name=name,
        model=services.llms.main_spec,
        started_at=started,
        ended_at=utcnow(),
        input_tokens=int(totals.get("input_tokens", 0)),
        output_tokens=int(totals.get("output_tokens", 0)),
        failed=answer is None,
    )
    return answer, record.model_dump(mode="json"), warning


def prompt_documents(
    documents: Sequence[dict[str, Any]], term_passages: dict[str, int], ids: LocalIds
) -> list[PromptDocument]:
    return [
        PromptDocument(
            id=ids.local(d["id"]),
            title=d["title"],
            author=d.get("author"),
            year=d.get("year"),
            kind=d.get("kind", "book"),
            domain=d.get("domain"),
            passages=d.get("passages", 0),
            term_passages=term_passages.get(d["id"], 0),
            summary=d.get("summary_short", ""),
        )
        for d in documents
    ]
