"""Calls through a provider's own tool calling (LangChain `bind_tools`).

Some calls are a set of actions rather than one object: graph extraction asks the model to
call `extract_entity` and `extract_relationship` as many times as the passages need. Providers
with native tool calling get the tools bound (`call_tools`); the others get the same tools as a
constrained JSON list of calls through `structured.call_structured`. Which providers use which
is decided here, once (`uses_tool_calls`).

Each tool call's arguments are validated against the tool's Pydantic model on their own: a
call that does not validate is rejected and named, the other calls of the answer stand.
Retries, usage accounting and the "refused" error are those of `call_structured`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ValidationError

from zettelgraph.llm.fake import CALL_NAME_KEY, parse_fake_spec
from zettelgraph.llm.schemas import Dialect, dialect_of, tool_parameters
from zettelgraph.llm.structured import (
    OPENAI_KINDS,
    LLMRequestError,
    Sampling,
    invoke_with_retries,
)
from zettelgraph.llm.usage import UsageLog

# Providers whose LangChain chat models bind tools natively and whose hosted models call them
# reliably. `openai-compatible` servers may or may not (it depends on the server and the model),
# and the offline `local` model writes the JSON list under a grammar far more reliably than it
# calls tools; both, and the `fake` unless given `tools=1`, get the JSON list.
TOOL_CALLING_PROVIDERS = ("openai", "anthropic", "google_genai", "ollama")


def uses_tool_calls(spec: str, setting: bool | None = None) -> bool:
    """Whether the model named by `spec` (`provider:model`) is called with bound tools:
    `setting` (ZETTELGRAPH_LLM_TOOL_CALLS) when given, else the provider's default."""
    if setting is not None:
        return setting
    provider, _, options = spec.partition(":")
    if provider == "fake":
        try:
            return bool(parse_fake_spec(options).get("tool_calling", False))
        except ValueError:
            return False
    return provider in TOOL_CALLING_PROVIDERS


@dataclass(frozen=True)
class Tool:
    """A tool the model may call: its name and description, the JSON schema of its arguments
    the model is shown, and the model its arguments are validated against."""

    name: str
    description: str
    parameters: dict[str, Any]
    model: type[BaseModel]

    def definition(self, dialect: Dialect = "openai-compatible") -> dict[str, Any]:
        """The tool in OpenAI's function format, which every LangChain provider binds, its
        parameters in the provider's dialect of JSON Schema (`llm/schemas.py`)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": tool_parameters(self.parameters, dialect),
            },
        }


@dataclass
class ToolCalls:
    """The valid calls of one answer, in the order made, and a line for each one rejected."""

    calls: list[tuple[str, BaseModel]] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


def call_tools(
    llm: BaseChatModel,
    *,
    name: str,
    messages: Sequence[BaseMessage],
    tools: Sequence[Tool],
    usage: UsageLog,
    retries: int = 3,
    backoff: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    sampling: Sampling | None = None,
) -> ToolCalls:
    """Ask `llm`, bound to `tools`, and return its validated tool calls.

    Raises `LLMRequestError` when the model cannot bind tools or the provider refuses the
    request (the caller may fall back to the JSON list), or the provider's transient error
    once `retries` retries are spent.
    """
    by_name = {tool.name: tool for tool in tools}
    extra = sampling.kwargs() if sampling and type(llm).__name__ in OPENAI_KINDS else {}
    dialect = dialect_of(llm)
    try:
        runnable = llm.bind_tools([tool.definition(dialect) for tool in tools], **extra)
    except NotImplementedError as exc:
        raise LLMRequestError(f"{type(llm).__name__} cannot bind tools") from exc
    stats = usage.start(name)
    try:
        _, message = invoke_with_retries(
            runnable,
            list(messages),
            stats,
            retries,
            backoff,
            sleep,
            config={"run_name": name, "metadata": {CALL_NAME_KEY: name}},
        )
    finally:
        usage.finish(stats)
    result = ToolCalls()
    if message is None:
        return result
    calls = message.tool_calls or written_calls(str(message.content), set(by_name))
    for number, call in enumerate(calls, 1):
        tool = by_name.get(call["name"])
        if tool is None:
            result.rejected.append(f"call {number}: no tool is named {call['name']!r}")
            continue
        try:
            result.calls.append((tool.name, tool.model.model_validate(call["args"])))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in error['loc']) or '(root)'}: {error['msg']}"
                for error in exc.errors()[:4]
            )
            result.rejected.append(f"call {number} of {tool.name}: {problems}")
    for invalid in message.invalid_tool_calls:
        result.rejected.append(
            f"call of {invalid.get('name') or 'an unnamed tool'}: arguments could not be read "
            f"({invalid.get('error') or 'not JSON'})"
        )
    return result


def written_calls(text: str, names: set[str]) -> list[dict[str, Any]]:
    """Tool calls a model wrote in its text instead of the API's `tool_calls`: JSON objects
    `{"name": TOOL, "arguments": {...}}`, in `<tool_call>` tags or not. Small models behind
    an OpenAI-compatible server do this (Qwen2.5 0.5B under llama.cpp writes the Hermes
    call without its tags, which the server then does not parse), and those calls would
    otherwise be lost without a word."""
    decoder = json.JSONDecoder()
    calls: list[dict[str, Any]] = []
    position = 0
    while (start := text.find("{", position)) != -1:
        try:
            value, position = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            position = start + 1
            continue
        if not isinstance(value, dict) or value.get("name") not in names:
            continue
        args = value.get("arguments", value.get("parameters"))
        if isinstance(args, dict):
            calls.append({"name": value["name"], "args": args, "id": None, "type": "tool_call"})
    return calls
