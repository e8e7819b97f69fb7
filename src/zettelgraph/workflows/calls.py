"""One LLM call from a workflow node: the call, its record, and its soft failure.

Every node that asks a prompt module goes through `ask`, so a run's `llm_calls` hold one
record shape (`CallRecord`) whatever the workflow, and a failed call is handled one way: the
node gets no answer and an update (`Asked.failure`) that warns, optionally errs, and still
records the call, so the run's accounting counts what was spent on it.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Generic, Literal, TypeVar

from langchain_core.messages import BaseMessage
from pydantic import BaseModel
from typing_extensions import TypedDict

from zettelgraph.context import Services
from zettelgraph.llm.structured import SOFT_LLM_ERRORS, Sampling
from zettelgraph.llm.usage import UsageLog
from zettelgraph.models import utcnow

T = TypeVar("T", bound=BaseModel)

# How a call was asked: a JSON answer, bound tools, or it failed after its retries and repair.
CallMode = Literal["json", "tools", "failed"]
_TOTALS = ("input_tokens", "output_tokens", "retries", "repairs", "seconds")


class CallRecord(TypedDict):
    """What a run keeps of one LLM call: enough to account for it after a restart."""

    call: str  # the prompt's name
    id: str  # this call among the run's (provenance cites it): the name, or name#round/batch
    model: str  # the model spec that answered
    subject: str  # what it was about: a batch, a concept key, a round
    mode: str  # a CallMode
    at: str  # when it was asked, ISO 8601 UTC
    input_tokens: float
    output_tokens: float
    retries: float
    repairs: float
    seconds: float


class CallFields(TypedDict, total=False):
    """The keys a workflow's state keeps of its LLM calls, gathered from parallel branches."""

    warnings: Annotated[list[str], operator.add]
    errors: Annotated[list[str], operator.add]  # what the run should show failed
    llm_calls: Annotated[list[CallRecord], operator.add]


Update = TypeVar("Update", bound=CallFields)


def call_record(
    name: str,
    model: str,
    subject: str = "",
    *,
    usage: UsageLog | None = None,
    mode: str = "json",
    call_id: str | None = None,
    at: str | None = None,
) -> CallRecord:
    """The record of one call of prompt `name`; its tokens and time from `usage` (a log of
    that call alone), zero when the call kept none."""
    totals = usage.as_dict().get(name, {}) if usage is not None else {}
    return {
        "call": name,
        "id": call_id or name,
        "model": model,
        "subject": subject,
        "mode": mode,
        "at": at or utcnow().isoformat(),
        "input_tokens": totals.get("input_tokens", 0),
        "output_tokens": totals.get("output_tokens", 0),
        "retries": totals.get("retries", 0),
        "repairs": totals.get("repairs", 0),
        "seconds": totals.get("seconds", 0),
    }


@dataclass(frozen=True)
class Asked(Generic[T]):
    """The answer (None when the call failed), the call's record, and the failure."""

    answer: T | None
    record: CallRecord
    error: Exception | None = None

    def failed(self, update: Update, message: str, *, error: bool = False) -> Update:
        """`update`, the node's update when its call failed, with `message` and the cause as a
        warning after its own, also as an error when the run should show it failed, and the
        call's record unless the update lists its calls itself."""
        text = f"{message}: {self.error}"
        # Not `update.get`: mypy cannot type it on a TypedDict-bound type variable.
        update["warnings"] = [*(update["warnings"] if "warnings" in update else []), text]  # noqa: SIM401
        if error:
            update["errors"] = [text]
        if "llm_calls" not in update:
            update["llm_calls"] = [self.record]
        return update


def ask(
    services: Services,
    *,
    name: str,
    messages: Sequence[BaseMessage],
    response_model: type[T],
    subject: str = "",
    fast: bool = False,
    sampling: Sampling | None = None,
    schema: dict[str, Any] | None = None,
) -> Asked[T]:
    """Ask the main model (the fast one when `fast`) for prompt `name`'s answer. A call that
    fails after its retries and repair (`SOFT_LLM_ERRORS`) is not raised: the node falls back
    to what it has and says so; anything else (a bug, a store error) still raises."""
    llm, spec = (
        (services.llms.fast, services.llms.fast_spec)
        if fast
        else (services.llms.main, services.llms.main_spec)
    )
    usage, at = UsageLog(), utcnow().isoformat()
    try:
        answer = services.structured(
            llm,
            name=name,
            messages=messages,
            response_model=response_model,
            sampling=sampling,
            schema=schema,
            usage=usage,
        )
    except SOFT_LLM_ERRORS as exc:
        record = call_record(name, spec, subject, usage=usage, mode="failed", at=at)
        return Asked(None, record, exc)
    return Asked(answer, call_record(name, spec, subject, usage=usage, at=at))
