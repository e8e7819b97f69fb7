"""Tool calling (`llm/tools.py`) and the fake's answers to bound tools."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.llm.structured import LLMRequestError
from zettelgraph.llm.tools import Tool, call_tools, uses_tool_calls, written_calls
from zettelgraph.llm.usage import UsageLog


class Greet(BaseModel):
    name: str = Field(max_length=20)
    times: int = Field(ge=1, le=3)


GREET = Tool("greet", "Greet someone.", Greet.model_json_schema(), Greet)
ASK = [HumanMessage("Saluda a Teresa Panza dos veces.")]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai:gpt-4.1-mini", True),
        ("anthropic:claude-sonnet-4-5", True),
        ("google_genai:gemini-2.5-flash", True),
        ("ollama:qwen3:8b", True),
        ("openai-compatible:foo", False),
        ("local", False),
        ("local:0.5b", False),
        ("fake", False),
        ("fake:tools=1,seed=3", True),
        ("fake:tools=0", False),
    ],
)
def test_which_providers_use_tool_calls(spec: str, expected: bool) -> None:
    assert uses_tool_calls(spec) is expected


def test_scripted_tool_calls_are_validated_one_by_one() -> None:
    script: dict[str, Any] = {
        "calls": [
            {"tool": "greet", "args": {"name": "Teresa", "times": 2}},
            {"tool": "greet", "args": {"name": "Sancho", "times": 9}},  # out of range
            {"tool": "wave", "args": {}},  # no such tool
            {"tool": "greet", "args": "Teresa"},  # not an object
        ]
    }
    usage = UsageLog()
    answer = call_tools(
        FakeChatModel(replies={"greetings": [script]}),
        name="greetings",
        messages=ASK,
        tools=[GREET],
        usage=usage,
    )
    assert answer.calls == [("greet", Greet(name="Teresa", times=2))]
    assert len(answer.rejected) == 3
    assert "times" in answer.rejected[0] and "'wave'" in answer.rejected[1]
    assert "could not be read" in answer.rejected[2]
    assert usage.as_dict()["greetings"]["calls"] == 1
    assert usage.as_dict()["greetings"]["output_tokens"] > 0


def test_unscripted_tool_calls_follow_the_parameters_schema() -> None:
    answer = call_tools(
        FakeChatModel(), name="greetings", messages=ASK, tools=[GREET], usage=UsageLog()
    )
    assert answer.calls and not answer.rejected
    assert all(1 <= args.times <= 3 for _, args in answer.calls)  # type: ignore[attr-defined]


def test_a_model_without_tool_calling_is_a_refusal() -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    with pytest.raises(LLMRequestError, match="cannot bind tools"):
        call_tools(
            FakeListChatModel(responses=["x"]),
            name="greetings",
            messages=ASK,
            tools=[GREET],
            usage=UsageLog(),
        )


def test_the_tool_calls_setting_wins_over_the_providers_default() -> None:
    assert uses_tool_calls("openai-compatible:qwen", True)
    assert not uses_tool_calls("openai:gpt-4.1-mini", False)
    assert uses_tool_calls("openai-compatible:qwen", None) is False


def test_calls_written_in_the_text_are_read() -> None:
    """What Qwen2.5 0.5B writes under llama.cpp when tools are bound: the call as text."""
    text = (
        '{"name": "greet", "arguments": {"name": "Teresa", "times": 2}}. Also '
        '<tool_call>{"name": "greet", "parameters": {"name": "Sancho", "times": 1}}</tool_call>'
        ' and {"name": "wave", "arguments": {}} and {"not": "a call"} {broken'
    )
    calls = written_calls(text, {"greet"})
    assert [(c["name"], c["args"]) for c in calls] == [
        ("greet", {"name": "Teresa", "times": 2}),
        ("greet", {"name": "Sancho", "times": 1}),
    ]
