"""FakeChatModel: deterministic, schema-driven answers with ids taken from the prompt."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.fake import FakeChatModel, FakeServiceError, parse_fake_spec
from zettelgraph.llm.structured import extract_json, is_transient, schema_instruction

QuoteId = Annotated[str, Field(pattern=r"^q[0-9]+$")]
ConceptId = Annotated[str, Field(pattern=r"^c\d+$")]
Tag = Annotated[str, Field(min_length=1, max_length=20)]
RelationType = Literal[
    "GENERALIZES",
    "SPECIFIC_OF",
    "PART_OF",
    "HAS_PART",
    "SUPPORTS",
    "SUPPORTED_BY",
    "OPPOSES",
    "SIMILAR_TO",
    "RELATES_TO",
]


class ConceptDraft(BaseModel):
    title: str = Field(min_length=1, max_length=60)
    concept: str = Field(min_length=1, max_length=400)
    summary_short: str = Field(max_length=160)
    tags: list[Tag] = Field(max_length=3)
    quote_ids: list[QuoteId] = Field(min_length=1, max_length=3)
    kind: Literal["idea", "fact", "opinion"]
    note: str | None = Field(default=None, max_length=30)
    confidence: float = Field(ge=0.0, le=1.0)
    rank: int = Field(ge=1, le=2)


class RelationDraft(BaseModel):
    source: ConceptId
    target: ConceptId
    type: RelationType
    weight: float = Field(gt=0.0, lt=1.0)


class Extraction(BaseModel):
    concepts: list[ConceptDraft] = Field(min_length=1, max_length=4)
    relations: list[RelationDraft] = Field(max_length=5)
    count: int = Field(gt=0, lt=3)


class Decision(BaseModel):
    verdict: Literal["new", "duplicate"]
    duplicate_of: ConceptId | None = None
    evidence: QuoteId
    reason: str = Field(max_length=120)
    flags: list[bool] = Field(default_factory=list, max_length=2)


RESPONSE_MODELS: list[type[BaseModel]] = [ConceptDraft, Extraction, Decision]

PROMPTS = [
    "q1: La memoria espacial ayuda a recordar.\nq2: Los palacios de la memoria son antiguos.\n"
    "q15: Simónides inventó el método de los lugares.\nExisting concepts: c3 Memoria; c8 Método.",
    "Quotes:\nq4: Habits form through cue, routine and reward.\nq7: Small changes compound.\n"
    "Known concepts: c1 Habit loop, c2 Compounding, c9 Identity.",
    "q2: El tiempo es oro, dice el refrán, pero no todo el mundo lo cree así.\n"
    "Concepto existente: c5 Valor del tiempo.",
    "Passage q10 says that the map is not the territory. Passage q11 adds that every model "
    "simplifies. Concepts to compare: c12 and c13.",
    "q3: ¿Qué es la verdad? Preguntó Pilato, y no esperó respuesta.\nc4 Verdad.",
]
PROMPT_IDS = [f"prompt{i}" for i in range(len(PROMPTS))]
ID_PATTERN = re.compile(r"\b([a-z]{1,3}\d{1,5})\b")


def ids_in(text: str, prefix: str) -> set[str]:
    return {i for i in ID_PATTERN.findall(text) if re.fullmatch(rf"{prefix}\d+", i)}


def messages_for(prompt: str, model: type[BaseModel]) -> list[BaseMessage]:
    return [
        SystemMessage(content="You extract ideas.\n\n" + schema_instruction(model_schema(model))),
        HumanMessage(content=prompt),
    ]


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def ask(llm: FakeChatModel, messages: list[BaseMessage], model: type[BaseModel]) -> AIMessage:
    """The raw reply, requested the way `call_structured` asks OpenAI-compatible models."""
    bound = llm.bind(
        response_format={
            "type": "json_schema",
            "json_schema": {"name": model.__name__, "schema": model_schema(model), "strict": False},
        }
    )
    reply = bound.invoke(messages)
    assert isinstance(reply, AIMessage)
    return reply


def collect(value: Any, key: str) -> list[Any]:
    """Every value stored under `key` anywhere in a JSON-like structure."""
    found: list[Any] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key:
                found.extend(v if isinstance(v, list) else [v])
            found.extend(collect(v, key))
    elif isinstance(value, list):
        for item in value:
            found.extend(collect(item, key))
    return found


@pytest.mark.parametrize("prompt", PROMPTS, ids=PROMPT_IDS)
@pytest.mark.parametrize("model", RESPONSE_MODELS, ids=lambda m: m.__name__)
def test_output_validates_against_bounded_models(prompt: str, model: type[BaseModel]) -> None:
    reply = ask(FakeChatModel(), messages_for(prompt, model), model)
    assert isinstance(reply.content, str)
    parsed = model.model_validate_json(reply.content)
    assert parsed is not None


@pytest.mark.parametrize("prompt", PROMPTS, ids=PROMPT_IDS)
@pytest.mark.parametrize("model", RESPONSE_MODELS, ids=lambda m: m.__name__)
def test_ids_are_only_those_in_the_prompt(prompt: str, model: type[BaseModel]) -> None:
    data = json.loads(str(ask(FakeChatModel(seed=7), messages_for(prompt, model), model).content))
    quote_ids = collect(data, "quote_ids") + collect(data, "evidence")
    concept_ids = collect(data, "source") + collect(data, "target") + collect(data, "duplicate_of")
    assert set(quote_ids) <= ids_in(prompt, "q")
    assert set(concept_ids) <= ids_in(prompt, "c")
    if model is not Extraction:
        assert quote_ids, "every one of these models has at least one quote id"


def test_same_messages_give_the_same_output() -> None:
    messages = messages_for(PROMPTS[0], Extraction)
    first = ask(FakeChatModel(seed=3), messages, Extraction).content
    llm = FakeChatModel(seed=3)
    assert ask(llm, messages, Extraction).content == first
    assert ask(llm, messages, Extraction).content == first
    assert llm.calls == 2


def test_seed_and_prompt_change_the_output() -> None:
    by_seed = {
        str(ask(FakeChatModel(seed=seed), messages_for(p, Extraction), Extraction).content)
        for seed in (1, 2)
        for p in PROMPTS
    }
    assert len(by_seed) > len(PROMPTS)


def test_strings_come_from_the_prompt() -> None:
    prompt = "Una idea muy larga sobre la memoria espacial y los lugares."
    reply = FakeChatModel().invoke([HumanMessage(content=prompt)])
    assert isinstance(reply.content, str)
    assert reply.content
    assert reply.content in prompt


@pytest.mark.parametrize("prompt", PROMPTS, ids=PROMPT_IDS)
def test_structured_strings_come_from_the_user_text_not_the_schema(prompt: str) -> None:
    data = json.loads(
        str(ask(FakeChatModel(), messages_for(prompt, Extraction), Extraction).content)
    )
    strings = [
        *collect(data, "title"),
        *collect(data, "concept"),
        *collect(data, "summary_short"),
        *collect(data, "tags"),
    ]
    assert strings
    for text in strings:
        assert "maxLength" not in text
        assert "You extract ideas" not in text
        assert text in prompt


def test_usage_metadata_is_reported() -> None:
    reply = ask(FakeChatModel(), messages_for(PROMPTS[1], ConceptDraft), ConceptDraft)
    usage = reply.usage_metadata
    assert usage is not None
    assert usage["input_tokens"] > 0
    assert usage["output_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


@pytest.mark.parametrize("prompt", PROMPTS, ids=PROMPT_IDS)
def test_invented_ids_are_absent_from_the_prompt(prompt: str) -> None:
    llm = FakeChatModel(invented_id_rate=1.0)
    data = json.loads(str(ask(llm, messages_for(prompt, Decision), Decision).content))
    invented = [data["evidence"], data["duplicate_of"]]
    assert re.fullmatch(r"q[0-9]+", data["evidence"])
    assert re.fullmatch(r"c[0-9]+", data["duplicate_of"])
    assert not set(invented) & (ids_in(prompt, "q") | ids_in(prompt, "c"))

    extraction = json.loads(str(ask(llm, messages_for(prompt, Extraction), Extraction).content))
    quote_ids = collect(extraction, "quote_ids")
    assert quote_ids
    assert not set(quote_ids) & ids_in(prompt, "q")


@pytest.mark.parametrize("prompt", PROMPTS, ids=PROMPT_IDS)
def test_malformed_rate_one_gives_non_json(prompt: str) -> None:
    reply = ask(FakeChatModel(malformed_rate=1.0), messages_for(prompt, Extraction), Extraction)
    text = str(reply.content)
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    with pytest.raises(json.JSONDecodeError):
        extract_json(text)


def test_transient_rate_one_raises_a_retryable_error() -> None:
    llm = FakeChatModel(transient_rate=1.0)
    with pytest.raises(FakeServiceError) as info:
        ask(llm, messages_for(PROMPTS[0], Decision), Decision)
    assert info.value.status_code == 503
    assert is_transient(info.value)
    # Every attempt fails, not just the first.
    with pytest.raises(FakeServiceError):
        ask(llm, messages_for(PROMPTS[0], Decision), Decision)


def test_a_retry_of_a_transient_failure_can_succeed() -> None:
    llm = FakeChatModel(transient_rate=0.5)
    outcomes = []
    for prompt in PROMPTS:
        messages = messages_for(prompt, Decision)
        attempts = []
        for _ in range(8):
            try:
                ask(llm, messages, Decision)
            except FakeServiceError:
                attempts.append("503")
            else:
                attempts.append("ok")
                break
        outcomes.append(attempts)
    assert all(attempts[-1] == "ok" for attempts in outcomes)
    assert any(attempts[0] == "503" for attempts in outcomes)


@pytest.mark.parametrize(
    ("spec", "fields"),
    [
        ("", {}),
        ("latency=0,seed=3", {"latency": 0.0, "seed": 3}),
        (
            "transient=0.1, malformed=0.2,invented_ids=0.3",
            {"transient_rate": 0.1, "malformed_rate": 0.2, "invented_id_rate": 0.3},
        ),
    ],
)
def test_parse_fake_spec(spec: str, fields: dict[str, Any]) -> None:
    parsed = parse_fake_spec(spec)
    assert parsed == fields
    assert isinstance(parsed.get("seed", 0), int)
    FakeChatModel(**parsed)


@pytest.mark.parametrize("spec", ["bogus=1", "seed", "seed=", "seed=abc", "latency=fast"])
def test_parse_fake_spec_errors_list_the_options(spec: str) -> None:
    with pytest.raises(ValueError, match="bad fake LLM option") as info:
        parse_fake_spec(spec)
    for key in ("latency", "transient", "malformed", "invented_ids", "seed"):
        assert key in str(info.value)
