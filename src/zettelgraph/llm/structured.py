"""The one way to call a prompt and get a validated Pydantic object.

1. Ask for JSON constrained by the response model's JSON schema where the provider has it
   (OpenAI-compatible `response_format`, which llama.cpp turns into a grammar; Ollama
   `format`; LangChain's `with_structured_output` for the others), and describe the schema
   in the prompt too, which small models need.
2. Strip code fences, take the JSON object, validate it against the bounded model.
3. On invalid output: one repair round that shows the model its validation error.
4. On transient errors (429, 5xx, timeouts, dropped connections): retry with exponential
   backoff. Never on 400/401/403: those need the user, not another try.
5. Record tokens in/out, latency, retries and repairs per call name.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, ValidationError

from zettelgraph.llm.schemas import Dialect, dialect_of, for_provider, from_provider
from zettelgraph.llm.usage import CallStats, UsageLog

T = TypeVar("T", bound=BaseModel)
# Chat models that speak the OpenAI API (`response_format`, per-call `max_tokens`).
OPENAI_KINDS = ("ChatOpenAI", "AzureChatOpenAI", "FakeChatModel", "ChatDeepSeek")
_FENCE = re.compile(r"^\s*```(?:json|JSON)?\s*|\s*```\s*$")


class StructuredOutputError(RuntimeError):
    """The model did not produce a valid object even after the repair round."""


class LLMRequestError(RuntimeError):
    """The provider refused the request (bad request, auth): retrying will not help."""


class LLMTimeoutError(TimeoutError):
    """The model did not answer in time, on every try. A TimeoutError, so a workflow step
    degrades (as for any soft failure) instead of the provider's own timeout class escaping
    to the step's retry policy, which ran the whole step three times more (a feedback round
    on the local model: 4 tries x 120 s x 3 = 24 minutes, then a traceback)."""


# Failures of one call that a workflow survives by degrading (no summary, a batch unread,
# a candidate kept as new); configuration errors are not among them.
SOFT_LLM_ERRORS = (StructuredOutputError, LLMRequestError, TimeoutError, ConnectionError)


def is_transient(exc: BaseException) -> bool:
    """Whether an exception from a provider is worth retrying."""
    status = _status(exc)
    if status is not None:
        return status in (408, 409, 429) or status >= 500
    if isinstance(exc, TimeoutError | ConnectionError):
        return True
    name = type(exc).__name__
    return any(
        marker in name
        for marker in (
            "Timeout",
            "Connect",  # httpx.ConnectError, openai.APIConnectionError
            "RemoteProtocol",  # a server that dropped the connection mid-answer
            "RateLimit",
            "Unavailable",
            "ResourceExhausted",
        )
    )


@dataclass(frozen=True)
class ErrorKind:
    """What kind of failure an LLM error is, as the interfaces show it: a retry helps after a
    timeout, a rate limit or a server error, not after a refused request or invalid output."""

    kind: str  # timeout | rate_limit | server | refused | invalid_output | other
    retryable: bool


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def error_kind(exc: BaseException) -> ErrorKind:
    """The kind of an exception from an LLM call (its cause when it wraps one)."""
    if isinstance(exc, StructuredOutputError):
        return ErrorKind("invalid_output", False)
    if isinstance(exc, LLMRequestError):
        return ErrorKind("refused", False)
    status, name = _status(exc), type(exc).__name__
    if isinstance(exc, TimeoutError) or "Timeout" in name or status == 408:
        return ErrorKind("timeout", True)
    if status == 429 or "RateLimit" in name or "ResourceExhausted" in name:
        return ErrorKind("rate_limit", True)
    if is_transient(exc):
        return ErrorKind("server", True)
    return ErrorKind("other", False)


@dataclass(frozen=True)
class Sampling:
    """Per-call generation limits, declared by each prompt module.

    A small local model writes until its token limit when it loses its way; a tight limit per
    call bounds that cost, and a low temperature keeps extraction repeatable.
    """

    max_tokens: int | None = None
    temperature: float | None = None

    def kwargs(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.max_tokens is not None:
            out["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            out["temperature"] = self.temperature
        return out


def schema_for(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def _constrained(
    llm: BaseChatModel,
    name: str,
    schema: dict[str, Any],
    sampling: Sampling | None = None,
    dialect: Dialect | None = None,
) -> Any:
    """The model bound to request JSON that satisfies `schema`, in its provider's dialect
    (`llm/schemas.py`: what each provider documents it accepts).

    Per-call sampling limits are passed where the request takes them (OpenAI-compatible
    servers, the local one among them); other providers keep their configured limits.
    """
    dialect = dialect or dialect_of(llm)
    sent, strict = for_provider(schema, dialect)
    if type(llm).__name__ in OPENAI_KINDS:
        return llm.bind(
            response_format={
                "type": "json_schema",
                "json_schema": {"name": name, "schema": sent, "strict": strict},
            },
            **(sampling.kwargs() if sampling else {}),
        )
    if dialect == "ollama":
        return llm.bind(format=sent)
    if dialect == "anthropic":
        # A forced tool: its `input_schema` takes JSON Schema with its bounds, where
        # Anthropic's `output_format` grammar refuses numeric and length bounds.
        tool = {"type": "function", "function": {"name": name, "parameters": sent}}
        return llm.bind_tools([tool], tool_choice=name)
    try:
        return llm.with_structured_output(sent, method="json_schema", include_raw=True)
    except (NotImplementedError, ValueError, TypeError):
        return llm


def _raw_text(reply: Any) -> tuple[str, AIMessage | None]:
    """The JSON text of a reply, whichever way the provider returned it."""
    message: Any = reply
    if isinstance(reply, dict) and "raw" in reply:
        message = reply["raw"]
    if isinstance(message, AIMessage):
        if message.tool_calls:
            return json.dumps(message.tool_calls[0]["args"], ensure_ascii=False), message
        content = message.content
        if isinstance(content, list):
            content = "".join(
                part.get("text", "") if isinstance(part, dict) else str(part) for part in content
            )
        return str(content), message
    return str(message), None


def extract_json(text: str) -> Any:
    """The JSON object in a reply: fences stripped, surrounding prose ignored."""
    cleaned = _FENCE.sub("", text.strip())
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError:
        start = cleaned.find("{")
        if start == -1:
            raise
        # Decode one object from its first brace and ignore what follows, so prose after it
        # that has braces of its own ("... fields as in {schema}") does not spoil the reply.
        return json.JSONDecoder().raw_decode(cleaned, start)[0]


def _error_summary(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        lines = [
            f"- {'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors()[:12]
        ]
        return "\n".join(lines)
    return f"- {exc}"


def schema_instruction(schema: dict[str, Any]) -> str:
    return (
        "Reply with ONE JSON object, no prose and no code fences, that matches this JSON "
        f"schema (respect every maxLength and maxItems):\n{json.dumps(schema, ensure_ascii=False)}"
    )


def call_structured(
    llm: BaseChatModel,
    *,
    name: str,
    messages: Sequence[BaseMessage],
    response_model: type[T],
    usage: UsageLog,
    retries: int = 3,
    backoff: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    sampling: Sampling | None = None,
    schema: dict[str, Any] | None = None,
    retry_timeouts: bool = True,
) -> T:
    """Call `llm` and return a validated `response_model`; see the module docstring.

    `schema`, when given, is the JSON schema requested instead of the response model's own:
    it may say more than the model validates (an enum of the types a template pack allows,
    which a grammar enforces while decoding), so that what a provider still gets wrong is
    dropped item by item by the caller instead of failing the whole answer.

    Raises `StructuredOutputError` (invalid twice), `LLMRequestError` (refused, not retried),
    `LLMTimeoutError` (no answer in time; tried once only without `retry_timeouts`), or the
    provider's own transient exception once `retries` retries are spent.
    """
    schema = schema if schema is not None else schema_for(response_model)
    prompt = [*messages]
    instruction = schema_instruction(schema)
    if prompt and isinstance(prompt[0], SystemMessage):
        prompt[0] = SystemMessage(content=f"{prompt[0].content}\n\n{instruction}")
    else:
        prompt.insert(0, SystemMessage(content=instruction))
    dialect = dialect_of(llm)
    runnable = _constrained(llm, name, schema, sampling, dialect)

    def parse(text: str) -> T:
        return response_model.model_validate(from_provider(extract_json(text), schema, dialect))

    stats = usage.start(name)
    try:
        text, message = invoke_with_retries(
            runnable, prompt, stats, retries, backoff, sleep, retry_timeouts=retry_timeouts
        )
        try:
            return parse(text)
        except (ValidationError, json.JSONDecodeError, ValueError) as first_error:
            stats.repairs += 1
            repair = [
                *prompt,
                message or AIMessage(content=text),
                HumanMessage(
                    content="Your reply could not be used:\n"
                    f"{_error_summary(first_error)}\n"
                    "Reply again with only the corrected JSON object."
                ),
            ]
            text, _ = invoke_with_retries(
                runnable, repair, stats, retries, backoff, sleep, retry_timeouts=retry_timeouts
            )
            try:
                return parse(text)
            except (ValidationError, json.JSONDecodeError, ValueError) as second_error:
                stats.failed = True
                raise StructuredOutputError(
                    f"LLM call {name!r} gave invalid output twice:\n{_error_summary(second_error)}"
                ) from second_error
    finally:
        usage.finish(stats)


def invoke_with_retries(
    runnable: Any,
    prompt: list[BaseMessage],
    stats: CallStats,
    retries: int,
    backoff: float,
    sleep: Callable[[float], None],
    config: RunnableConfig | None = None,
    *,
    retry_timeouts: bool = True,
) -> tuple[str, AIMessage | None]:
    """One request with the retry rules above; its tokens go to `stats`. Returns the reply's
    text and, when it is a message, the message itself (its tool calls, for `llm/tools.py`)."""
    attempt = 0
    while True:
        try:
            reply = runnable.invoke(prompt, config)
        except Exception as exc:
            if not is_transient(exc):
                stats.failed = True
                raise LLMRequestError(f"LLM call {stats.name!r} was refused: {exc}") from exc
            timed_out = error_kind(exc).kind == "timeout"
            if attempt >= retries or (timed_out and not retry_timeouts):
                stats.failed = True
                if timed_out:
                    raise LLMTimeoutError(
                        f"LLM call {stats.name!r} got no answer in time "
                        f"({attempt + 1} {'try' if attempt == 0 else 'tries'})"
                    ) from exc
                raise
            stats.retries += 1
            sleep(backoff * (2**attempt))
            attempt += 1
            continue
        text, message = _raw_text(reply)
        if message is not None:
            stats.add_tokens(message.usage_metadata)
        return text, message
