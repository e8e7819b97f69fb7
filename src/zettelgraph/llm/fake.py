"""A deterministic chat model for tests and benchmarks: no network, no weights.

It implements LangChain's `BaseChatModel`. Asked for JSON through an OpenAI-style
`response_format` (which is how `structured.call_structured` asks every OpenAI-compatible
model), it builds an object that satisfies the schema from the request itself: strings are
taken from the prompt's text, ids (fields whose schema has a `pattern` such as `^q[0-9]+$`)
are chosen among the ids that appear in the prompt. Same request, same answer.

Bound to tools (`bind_tools`, LangChain's tool calling), it answers with tool calls instead:
scripted ones, or one or two calls per tool whose arguments are built from the tool's
parameter schema the same way. `fake:tools=1` makes the workflows that can use tool calling
use it with this model (`llm/tools.py`); without it they ask it for JSON, like `local`.

Faults can be injected for reliability tests: transient service errors, malformed JSON and
invented ids, each with a probability drawn from a seeded generator.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from zettelgraph.llm.fake_answers import AnswerBuilder, snippet

# Run metadata key naming the call, for requests that carry no response_format (tool calls):
# `llm/tools.py` sets it, and scripted replies are looked up under it.
CALL_NAME_KEY = "zettelgraph_call"


class FakeServiceError(ConnectionError):
    """A simulated transient failure (HTTP 503), retried like a real one."""

    status_code = 503


class FakeAPITimeoutError(Exception):
    """A simulated request that timed out on the client, like the OpenAI client's
    APITimeoutError: not a TimeoutError, known as one by its name."""


class FakeChatModel(BaseChatModel):
    """Deterministic, schema-driven fake LLM with optional latency and injected faults."""

    seed: int = 0
    latency: float = Field(default=0.0, ge=0.0)
    transient_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    malformed_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    invented_id_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    # Whether the workflows should use this model's tool calling (`llm/tools.py`).
    tool_calling: bool = False
    # Requests of this call name time out, every time (a model too slow for that call).
    timeout_on: str = ""
    calls: int = 0
    # Scripted answers per call name (the JSON schema's name, or the run metadata's
    # CALL_NAME_KEY for tool calls), used in order; the last one repeats. A callable gets the
    # prompt text and returns the answer object. To a request with tools bound, an answer
    # `{"calls": [{"tool": NAME, "args": {...}}, ...]}` becomes those tool calls.
    replies: dict[str, list[Any]] = Field(default_factory=dict)
    # How often each exact request was seen: faults are drawn per attempt, so a retry of a
    # request that hit a simulated 503 can succeed, while answers stay a function of the request.
    _attempts: dict[bytes, int] = PrivateAttr(default_factory=dict)
    # The most requests of each call name that were in flight at once (unnamed ones under
    # ""): tests see from it whether a node asks its questions together or one by one.
    most_at_once: dict[str, int] = Field(default_factory=dict)
    _in_flight: dict[str, int] = PrivateAttr(default_factory=dict)
    # CPU seconds spent building answers (its threads' time, the injected latency not
    # included): what a benchmark subtracts to see the CPU of the code around the model.
    cpu_seconds: float = 0.0
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "zettelgraph-fake"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"seed": self.seed}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Tools in OpenAI's function format, as the chat models with tool calling bind them."""
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _scripted(self, name: str | None, prompt: str) -> str | None:
        queue = self.replies.get(name or "")
        if not queue:
            return None
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if callable(answer):
            answer = answer(prompt)
        return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        name = _call_name(kwargs)
        if name is None and run_manager is not None:
            name = run_manager.metadata.get(CALL_NAME_KEY)
        with self._lock:
            self.calls += 1
            now = self._in_flight[name or ""] = self._in_flight.get(name or "", 0) + 1
            self.most_at_once[name or ""] = max(now, self.most_at_once.get(name or "", 0))
        cpu = time.thread_time()
        try:
            return self._answer(messages, name, kwargs)
        finally:
            with self._lock:
                self._in_flight[name or ""] -= 1
                self.cpu_seconds += time.thread_time() - cpu

    def _answer(self, messages: list[BaseMessage], name: str | None, kwargs: Any) -> ChatResult:
        prompt = "\n".join(_text_of(m) for m in messages)
        digest = hashlib.sha256(f"{self.seed}\x1f{prompt}".encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "little"))
        attempt = self._attempts.get(digest, 0)
        self._attempts[digest] = attempt + 1
        faults = random.Random(int.from_bytes(digest[8:16], "little") + attempt)
        if self.latency:
            time.sleep(self.latency)
        if faults.random() < self.transient_rate:
            raise FakeServiceError("fake LLM: simulated 503 Service Unavailable")

        # Answer text comes from what the user wrote, not from the system instructions (which
        # hold the JSON schema) nor from earlier replies (JSON), so titles read like content.
        source = "\n".join(_text_of(m) for m in messages if isinstance(m, HumanMessage))
        schema = _schema_from(kwargs)
        if self.timeout_on and name == self.timeout_on:
            raise FakeAPITimeoutError(f"fake LLM: {name} request timed out")
        scripted = self._scripted(name, prompt)
        tools = kwargs.get("tools")
        if isinstance(tools, list) and tools:
            invent = faults.random() < self.invented_id_rate
            builder = AnswerBuilder(prompt, rng, {}, invent_ids=invent, source=source or prompt)
            message = _tool_message(tools, scripted, builder, prompt)
            return ChatResult(generations=[ChatGeneration(message=message)])
        if scripted is not None:
            text = scripted
        elif schema is None:
            text = snippet(source or prompt, rng, 60)
        else:
            invent = faults.random() < self.invented_id_rate
            builder = AnswerBuilder(prompt, rng, schema, invent_ids=invent, source=source or prompt)
            text = json.dumps(builder.build(schema), ensure_ascii=False)
            if faults.random() < self.malformed_rate:
                text = "```json\n" + text[: max(1, len(text) // 2)]
        metadata: dict[str, Any] = {"model_name": "fake", "finish_reason": "stop"}
        if kwargs.get("logprobs"):
            # A one-token answer (A or B when the question offers them, else yes or no) with a
            # probability drawn from the request: the doubt checks read it as
            # OpenAI-compatible servers return it.
            first = 0.05 + 0.9 * rng.random()
            options = ("A", "B") if re.search(r"\bA (?:o|or) B\b", source) else ("sí", "no")
            text = options[0] if first >= 0.5 else options[1]
            top = [
                {"token": options[0], "logprob": math.log(first)},
                {"token": options[1], "logprob": math.log(1 - first)},
            ]
            top.sort(key=lambda entry: -float(entry["logprob"]))  # type: ignore[arg-type]
            metadata["logprobs"] = {
                "content": [{"token": text, "logprob": top[0]["logprob"], "top_logprobs": top}]
            }
        message = AIMessage(
            content=text, usage_metadata=_usage(prompt, text), response_metadata=metadata
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def _usage(prompt: str, text: str) -> Any:
    """About four characters a token, as the benchmarks' cost estimates assume."""
    tokens_in, tokens_out = max(1, len(prompt) // 4), max(1, len(text) // 4)
    return {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "total_tokens": tokens_in + tokens_out,
    }


def _tool_message(
    tools: list[Any], scripted: str | None, builder: AnswerBuilder, prompt: str
) -> AIMessage:
    """Tool calls: the scripted `{"calls": [...]}`, else one or two per tool from its schema.
    A scripted call whose arguments are not an object is an invalid tool call, as a provider
    reports arguments it could not parse."""
    calls: list[tuple[str, Any]] = []
    if scripted is not None:
        answer = json.loads(scripted)
        items = answer.get("calls", []) if isinstance(answer, dict) else answer
        calls = [(str(item.get("tool", item.get("name"))), item.get("args")) for item in items]
    else:
        for tool in tools:
            function = tool.get("function", {}) if isinstance(tool, dict) else {}
            parameters = function.get("parameters") or {"type": "object", "properties": {}}
            builder.defs = parameters.get("$defs", {})
            for _ in range(1 + builder.rng.randrange(2)):
                calls.append((str(function.get("name")), builder.build(parameters)))
    valid = [
        {"name": name, "args": args, "id": f"call_{i}", "type": "tool_call"}
        for i, (name, args) in enumerate(calls)
        if isinstance(args, dict)
    ]
    invalid = [
        {"name": name, "args": json.dumps(args), "id": f"call_{i}", "error": "args not an object"}
        for i, (name, args) in enumerate(calls)
        if not isinstance(args, dict)
    ]
    return AIMessage(
        content="",
        tool_calls=valid,
        invalid_tool_calls=invalid,
        usage_metadata=_usage(prompt, json.dumps(calls, ensure_ascii=False)),
        response_metadata={"model_name": "fake", "finish_reason": "tool_calls"},
    )


def _call_name(kwargs: dict[str, Any]) -> str | None:
    response_format = kwargs.get("response_format")
    if isinstance(response_format, dict):
        name = response_format.get("json_schema", {}).get("name")
        return name if isinstance(name, str) else None
    return None


def _text_of(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in content]
    return "\n".join(str(p) for p in parts)


def _schema_from(kwargs: dict[str, Any]) -> dict[str, Any] | None:
    response_format = kwargs.get("response_format")
    if not isinstance(response_format, dict):
        return None
    if response_format.get("type") == "json_schema":
        schema = response_format.get("json_schema", {}).get("schema")
        return schema if isinstance(schema, dict) else None
    if response_format.get("type") == "json_object":
        return {"type": "object", "properties": {}}
    return None


def parse_fake_spec(options: str) -> dict[str, Any]:
    """`latency=0.2,transient=0.1,malformed=0.1,invented_ids=0.1,seed=3,tools=1,
    timeout_on=incorporate_feedback` -> model fields."""
    names = {
        "latency": "latency",
        "transient": "transient_rate",
        "malformed": "malformed_rate",
        "invented_ids": "invented_id_rate",
        "seed": "seed",
        "tools": "tool_calling",
        "timeout_on": "timeout_on",
    }
    fields: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in options.split(","))):
        key, _, value = part.partition("=")
        usage = f"bad fake LLM option {part!r}; use {', '.join(names)} as key=value pairs"
        if key not in names or not value:
            raise ValueError(usage)
        try:
            if key == "tools":
                fields[names[key]] = {"1": True, "0": False}[value]
            elif key == "timeout_on":
                fields[names[key]] = value
            else:
                fields[names[key]] = int(value) if key == "seed" else float(value)
        except (KeyError, ValueError):
            kind = {"seed": "an integer", "tools": "1 or 0"}.get(key, "a number")
            raise ValueError(f"{usage} ({key} takes {kind})") from None
    return fields
