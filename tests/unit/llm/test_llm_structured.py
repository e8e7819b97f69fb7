"""call_structured: validation, one repair round, retries with backoff, usage accounting."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import httpx2  # the HTTP client openai's exceptions are built on
import openai
import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import BaseModel, Field

from zettelgraph.llm.fake import FakeChatModel, FakeServiceError
from zettelgraph.llm.structured import (
    SOFT_LLM_ERRORS,
    LLMRequestError,
    LLMTimeoutError,
    StructuredOutputError,
    call_structured,
    extract_json,
    is_transient,
)
from zettelgraph.llm.usage import UsageLog


class Note(BaseModel):
    title: str = Field(min_length=1, max_length=60)
    tags: list[Annotated[str, Field(max_length=20)]] = Field(max_length=3)
    kind: Literal["idea", "fact"] = "idea"


VALID = json.dumps({"title": "Palacios de la memoria", "tags": ["memoria"], "kind": "idea"})
TOO_LONG = json.dumps({"title": "x" * 80, "tags": []})
TOKENS = UsageMetadata(input_tokens=10, output_tokens=5, total_tokens=15)


class StatusError(Exception):
    """A provider error carrying an HTTP status, as SDK exceptions do."""

    def __init__(self, status_code: int) -> None:
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code


class ScriptedChatModel(BaseChatModel):
    """A real chat model that answers from a queue (text or exception) and records requests."""

    replies: list[Any] = Field(default_factory=list)
    received: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.received.append(list(messages))
        if not self.replies:
            raise AssertionError("the scripted model ran out of replies")
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        message = AIMessage(content=reply, usage_metadata=TOKENS)
        return ChatResult(generations=[ChatGeneration(message=message)])


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def ask(
    llm: BaseChatModel,
    usage: UsageLog,
    *,
    retries: int = 3,
    backoff: float = 1.0,
    sleep: Sleeps | None = None,
    messages: list[BaseMessage] | None = None,
) -> Note:
    return call_structured(
        llm,
        name="note",
        messages=messages or [HumanMessage(content="Title and tags for: palacios de la memoria.")],
        response_model=Note,
        usage=usage,
        retries=retries,
        backoff=backoff,
        sleep=sleep or Sleeps(),
    )


# --- extract_json -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '  {"a": 1}\n',
        '```json\n{"a": 1}\n```',
        '```JSON\n{"a": 1}```',
        '```\n{"a": 1}\n```',
        'Here is the object:\n```json\n{"a": 1}\n```\nHope it helps!',
        'Sure! {"a": 1} That is all.',
        '{"a": 1}\nNote: fields follow the {schema} you gave.',
    ],
)
def test_extract_json_strips_fences_and_prose(text: str) -> None:
    assert extract_json(text) == {"a": 1}


def test_extract_json_keeps_nested_values() -> None:
    assert extract_json('Result: {"a": {"b": [1, "}"]}} done') == {"a": {"b": [1, "}"]}}


@pytest.mark.parametrize(
    "text", ["no json at all", '```json\n{"a": {"b": 1}, "c": ', "{not json}", ""]
)
def test_extract_json_rejects_what_is_not_a_json_object(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        extract_json(text)


# --- call_structured ----------------------------------------------------------------------


def test_returns_a_validated_object_and_records_usage() -> None:
    llm = ScriptedChatModel(replies=[VALID])
    usage = UsageLog()
    note = ask(llm, usage)
    assert note == Note(title="Palacios de la memoria", tags=["memoria"])
    totals = usage.as_dict()["note"]
    assert totals["calls"] == 1
    assert totals["input_tokens"] == 10
    assert totals["output_tokens"] == 5
    assert (totals["retries"], totals["repairs"], totals["failures"]) == (0, 0, 0)


def test_the_schema_is_described_in_the_prompt() -> None:
    llm = ScriptedChatModel(replies=[VALID, VALID])
    ask(llm, UsageLog())
    ask(llm, UsageLog(), messages=[SystemMessage(content="Be brief."), HumanMessage(content="x")])
    first, second = llm.received
    assert isinstance(first[0], SystemMessage)
    assert '"maxLength": 60' in str(first[0].content)
    # An existing system message is extended, not duplicated.
    assert len(second) == 2
    assert str(second[0].content).startswith("Be brief.")
    assert '"maxLength": 60' in str(second[0].content)


def test_fenced_reply_with_prose_is_accepted() -> None:
    llm = ScriptedChatModel(replies=[f"Claro, aquí está:\n```json\n{VALID}\n```\n¡Listo!"])
    assert ask(llm, UsageLog()).title == "Palacios de la memoria"


def test_usage_is_kept_per_call_name() -> None:
    llm = ScriptedChatModel(replies=[VALID, VALID, VALID])
    usage = UsageLog()
    ask(llm, usage)
    ask(llm, usage)
    call_structured(
        llm,
        name="other",
        messages=[HumanMessage(content="x")],
        response_model=Note,
        usage=usage,
    )
    totals = usage.as_dict()
    assert totals["note"]["calls"] == 2
    assert totals["note"]["input_tokens"] == 20
    assert totals["other"]["calls"] == 1


def test_an_invalid_first_reply_is_repaired_in_one_round() -> None:
    llm = ScriptedChatModel(replies=[TOO_LONG, VALID])
    usage = UsageLog()
    note = ask(llm, usage)
    assert note.title == "Palacios de la memoria"
    assert len(llm.received) == 2
    repair = llm.received[1]
    # The model sees its own bad reply and then the validation error.
    assert isinstance(repair[-2], AIMessage)
    assert repair[-2].content == TOO_LONG
    assert isinstance(repair[-1], HumanMessage)
    assert "title: String should have at most 60 characters" in str(repair[-1].content)
    assert llm.received[0] == repair[:-2]
    totals = usage.as_dict()["note"]
    assert (totals["calls"], totals["repairs"], totals["failures"]) == (1, 1, 0)
    assert totals["input_tokens"] == 20
    assert totals["output_tokens"] == 10


def test_a_non_json_first_reply_is_repaired_with_the_parse_error() -> None:
    llm = ScriptedChatModel(replies=["I cannot answer in JSON, sorry.", VALID])
    usage = UsageLog()
    assert ask(llm, usage).tags == ["memoria"]
    assert "Expecting value" in str(llm.received[1][-1].content)
    assert usage.as_dict()["note"]["repairs"] == 1


def test_two_invalid_replies_raise() -> None:
    llm = ScriptedChatModel(replies=[TOO_LONG, '{"title": ""}'])
    usage = UsageLog()
    with pytest.raises(StructuredOutputError, match="'note' gave invalid output twice") as info:
        ask(llm, usage)
    assert "title" in str(info.value)
    assert len(llm.received) == 2
    totals = usage.as_dict()["note"]
    assert (totals["calls"], totals["repairs"], totals["failures"]) == (1, 1, 1)


@pytest.mark.parametrize("backoff", [1.0, 0.25])
def test_transient_errors_are_retried_with_exponential_backoff(backoff: float) -> None:
    llm = ScriptedChatModel(
        replies=[StatusError(429), StatusError(503), TimeoutError("slow"), VALID]
    )
    usage = UsageLog()
    sleeps = Sleeps()
    assert ask(llm, usage, retries=3, backoff=backoff, sleep=sleeps).title
    assert sleeps.delays == [1 * backoff, 2 * backoff, 4 * backoff]
    totals = usage.as_dict()["note"]
    assert (totals["calls"], totals["retries"], totals["failures"]) == (1, 3, 0)


def test_transient_errors_beyond_the_retries_are_raised() -> None:
    errors = [ConnectionError("reset"), StatusError(503), StatusError(502), StatusError(500)]
    llm = ScriptedChatModel(replies=[*errors, VALID])
    usage = UsageLog()
    sleeps = Sleeps()
    with pytest.raises(StatusError) as info:
        ask(llm, usage, retries=3, backoff=2.0, sleep=sleeps)
    assert info.value.status_code == 500
    assert sleeps.delays == [2.0, 4.0, 8.0]
    assert len(llm.received) == 4
    totals = usage.as_dict()["note"]
    assert (totals["retries"], totals["failures"]) == (3, 1)


def test_zero_retries_raises_the_first_transient_error() -> None:
    llm = ScriptedChatModel(replies=[StatusError(503), VALID])
    sleeps = Sleeps()
    with pytest.raises(StatusError):
        ask(llm, UsageLog(), retries=0, sleep=sleeps)
    assert sleeps.delays == []


def test_a_timeout_beyond_the_retries_is_a_soft_llm_timeout() -> None:
    """The OpenAI client's timeout is no TimeoutError: escaping as it was, a workflow step's
    retry policy ran the step three times more, then the run ended in a traceback."""
    timeouts = [openai.APITimeoutError(request=_request()) for _ in range(3)]
    llm = ScriptedChatModel(replies=[*timeouts, VALID])
    with pytest.raises(LLMTimeoutError) as info:
        ask(llm, UsageLog(), retries=2, sleep=Sleeps())
    assert isinstance(info.value, SOFT_LLM_ERRORS) and len(llm.received) == 3
    assert "3 tries" in str(info.value)


def test_a_timeout_is_not_tried_again_where_it_would_take_as_long() -> None:
    llm = ScriptedChatModel(replies=[openai.APITimeoutError(request=_request()), VALID])
    sleeps = Sleeps()
    with pytest.raises(LLMTimeoutError):
        call_structured(
            llm,
            name="note",
            messages=[HumanMessage(content="Title and tags for: la memoria.")],
            response_model=Note,
            usage=UsageLog(),
            retries=3,
            sleep=sleeps,
            retry_timeouts=False,
        )
    assert len(llm.received) == 1 and sleeps.delays == []


def test_the_repair_round_is_retried_too() -> None:
    llm = ScriptedChatModel(replies=[TOO_LONG, StatusError(503), VALID])
    usage = UsageLog()
    sleeps = Sleeps()
    assert ask(llm, usage, sleep=sleeps).title
    assert sleeps.delays == [1.0]
    totals = usage.as_dict()["note"]
    assert (totals["retries"], totals["repairs"]) == (1, 1)


@pytest.mark.parametrize("status", [400, 401, 403])
def test_client_errors_are_not_retried(status: int) -> None:
    llm = ScriptedChatModel(replies=[StatusError(status), VALID])
    usage = UsageLog()
    sleeps = Sleeps()
    with pytest.raises(LLMRequestError, match=f"'note' was refused: HTTP {status}") as info:
        ask(llm, usage, sleep=sleeps)
    assert isinstance(info.value.__cause__, StatusError)
    assert sleeps.delays == []
    assert len(llm.received) == 1
    assert usage.as_dict()["note"]["failures"] == 1


def _request() -> httpx2.Request:
    return httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def _response(status: int) -> httpx2.Response:
    return httpx2.Response(status, request=_request())


class ProviderRateLimitError(Exception):
    """No status code: recognised by its name, as SDKs name these."""


class WrappedHTTPError(Exception):
    def __init__(self, status: int) -> None:
        super().__init__("wrapped")
        self.response = _response(status)


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (StatusError(408), True),
        (StatusError(409), True),
        (StatusError(429), True),
        (StatusError(500), True),
        (StatusError(502), True),
        (StatusError(503), True),
        (StatusError(504), True),
        (StatusError(400), False),
        (StatusError(401), False),
        (StatusError(403), False),
        (StatusError(404), False),
        (StatusError(422), False),
        (TimeoutError(), True),
        (ConnectionError(), True),
        (ConnectionResetError(), True),
        (FakeServiceError("503"), True),
        (ProviderRateLimitError(), True),
        (WrappedHTTPError(503), True),
        (WrappedHTTPError(401), False),
        (ValueError("bad"), False),
        (KeyError("x"), False),
        (openai.RateLimitError("slow down", response=_response(429), body=None), True),
        (openai.InternalServerError("boom", response=_response(500), body=None), True),
        (openai.APITimeoutError(request=_request()), True),
        (openai.APIConnectionError(request=_request()), True),
        (httpx2.ConnectError("refused", request=_request()), True),
        (httpx2.RemoteProtocolError("dropped", request=_request()), True),
        (openai.BadRequestError("bad", response=_response(400), body=None), False),
        (openai.AuthenticationError("key", response=_response(401), body=None), False),
        (openai.PermissionDeniedError("no", response=_response(403), body=None), False),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, BaseException) else str(value),
)
def test_is_transient(exc: BaseException, transient: bool) -> None:
    assert is_transient(exc) is transient


# --- the fake with faults: never an unhandled error ---------------------------------------


def test_fake_with_faults_always_ends_in_valid_output_or_a_documented_error() -> None:
    llm = FakeChatModel(seed=11, transient_rate=0.5, malformed_rate=0.3)
    usage = UsageLog()
    outcomes: dict[str, int] = {}
    for index in range(50):
        messages: list[BaseMessage] = [
            HumanMessage(content=f"q{index}: La idea número {index} trata de la memoria.")
        ]
        try:
            note = ask(llm, usage, retries=3, messages=messages)
        except StructuredOutputError:
            outcome = "invalid"
        except LLMRequestError:
            outcome = "refused"
        except FakeServiceError as exc:
            assert is_transient(exc)
            outcome = "transient"
        else:
            assert isinstance(note, Note)
            assert len(note.title) <= 60
            outcome = "ok"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    totals = usage.as_dict()["note"]
    assert totals["calls"] == 50
    assert outcomes.get("refused", 0) == 0
    assert outcomes["ok"] >= 25
    # Both documented failures happen with these rates (the fake is deterministic).
    assert outcomes["invalid"] > 0
    assert outcomes["transient"] > 0
    # The faults were really exercised and handled.
    assert totals["retries"] > 0
    assert totals["repairs"] > 0
    assert totals["failures"] == 50 - outcomes["ok"]
