"""Every structured request the package sends, checked against each provider's documented
schema rules, so a first call to Gemini, OpenAI, Anthropic or Ollama is not a 400.

The rules below are written from each provider's documentation (cited per validator), not
from `llm/schemas.py`: the transformation is what is under test. The requests are every
response model and tool of `zettelgraph.prompts` (module classes, the models built by its
`response_model` functions, its `request_schema`s and tool parameters).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, Field

import zettelgraph.prompts as prompts
from zettelgraph.experiments.tools import TOOLS
from zettelgraph.llm.schemas import (
    Dialect,
    dialect_of,
    for_provider,
    from_provider,
    tool_parameters,
)
from zettelgraph.llm.structured import _constrained, schema_for
from zettelgraph.packs.loader import shipped_schema
from zettelgraph.packs.relations import CONCEPT_TYPE, vocabulary_from
from zettelgraph.prompts import (
    create_relations,
    experiment_strategy,
    extract_graph,
    relation_queries,
)
from zettelgraph.settings import DEFAULT_PACKS

Problems = list[str]


def sent_schemas() -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, JSON schema) of every response the package can ask for."""
    for info in pkgutil.iter_modules(prompts.__path__):
        module = importlib.import_module(f"zettelgraph.prompts.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, BaseModel)
                and cls.__module__ == module.__name__
                and not cls.__name__.endswith("Input")
            ):
                yield f"{info.name}.{cls.__name__}", schema_for(cls)
    packs = shipped_schema(DEFAULT_PACKS)
    concepts = vocabulary_from(packs).between(CONCEPT_TYPE, CONCEPT_TYPE)
    for compact in (False, True):
        model = create_relations.response_model(concepts, compact=compact)
        yield f"create_relations.response_model(compact={compact})", schema_for(model)
    yield "relation_queries.response_model", schema_for(relation_queries.response_model(concepts))
    strategy = experiment_strategy.StrategyInput.model_construct(
        tools=[
            experiment_strategy.PromptTool(name=name, scope="document", description="")
            for name in TOOLS
        ]
    )
    yield "experiment_strategy.request_schema", experiment_strategy.request_schema(strategy)
    yield "extract_graph.request_schema", extract_graph.request_schema(graph_input())


def graph_input() -> extract_graph.ExtractGraphInput:
    return extract_graph.ExtractGraphInput(
        title="Don Quijote",
        pack_schema=shipped_schema(DEFAULT_PACKS),
        passages=[extract_graph.PromptPassage(id="q1", text="Sancho habla.")],
        existing=[extract_graph.KnownEntity(id="e1", name="Sancho", type="Person")],
    )


SCHEMAS = dict(sent_schemas())
TOOL_SCHEMAS = {tool.name: tool.parameters for tool in extract_graph.tools(graph_input())}


def nodes(schema: Any, path: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every sub-schema with its path (properties, items, unions, definitions)."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key in ("properties", "$defs"):
        for name, sub in (schema.get(key) or {}).items():
            yield from nodes(sub, f"{path}/{key}/{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from nodes(schema[key], f"{path}/{key}")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for number, sub in enumerate(schema.get(key) or []):
            yield from nodes(sub, f"{path}/{key}/{number}")


def depth(schema: Any) -> int:
    if not isinstance(schema, dict):
        return 0
    below = [depth(sub) for sub in (schema.get("properties") or {}).values()]
    below += [depth(schema[k]) for k in ("items",) if isinstance(schema.get(k), dict)]
    below += [depth(sub) for sub in schema.get("anyOf", [])]
    return (1 if schema.get("type") == "object" else 0) + max(below, default=0)


def refs_resolve(schema: dict[str, Any]) -> Problems:
    defs = schema.get("$defs", {})
    return [
        f"{path}: $ref {node['$ref']} does not resolve"
        for path, node in nodes(schema)
        if "$ref" in node and node["$ref"].removeprefix("#/$defs/") not in defs
    ]


def object_root_and_keywords(schema: dict[str, Any], allowed: set[str]) -> Problems:
    """The root is an object and every sub-schema uses only `allowed` keywords."""
    problems = [] if schema.get("type") == "object" else ["the root is not an object"]
    for path, node in nodes(schema):
        extra = set(node) - allowed
        if extra:
            problems.append(f"{path}: unsupported keywords {sorted(extra)}")
    return problems


def valid_json_schema(schema: dict[str, Any]) -> Problems:
    try:
        Draft202012Validator.check_schema(schema)
    except Exception as exc:  # jsonschema.SchemaError
        return [f"not a valid JSON Schema: {exc}"]
    return []


# OpenAI, Structured Outputs, "Supported schemas" (platform.openai.com/docs/guides/
# structured-outputs#supported-schemas): types string, number, boolean, integer, object,
# array, enum, anyOf; supported properties: strings `pattern`, `format`; numbers
# `multipleOf`, `maximum`, `exclusiveMaximum`, `minimum`, `exclusiveMinimum`; arrays
# `minItems`, `maxItems`; definitions with `$defs`/`$ref`; plus `description` and `title`.
OPENAI_DOCUMENTED = {
    *("type", "properties", "required", "additionalProperties", "items", "enum", "anyOf"),
    *("$ref", "$defs", "description", "title", "pattern", "format", "multipleOf"),
    *("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "minItems", "maxItems"),
}


def openai_strict_problems(schema: dict[str, Any]) -> Problems:
    """The root "must be an object, and not use anyOf"; "all fields must be required";
    "additionalProperties: false must always be set in objects"; up to 5000 object
    properties and 10 levels of nesting; unsupported keywords refused."""
    problems = object_root_and_keywords(schema, OPENAI_DOCUMENTED)
    if "anyOf" in schema:
        problems.append("the root uses anyOf")
    total = 0
    for path, node in nodes(schema):
        if "$ref" in node and len(node) > 1:
            problems.append(f"{path}: $ref with sibling keywords")
        if node.get("type") == "object":
            total += len(node.get("properties", {}))
            if node.get("additionalProperties") is not False:
                problems.append(f"{path}: additionalProperties is not false")
            if set(node.get("required", [])) != set(node.get("properties", {})):
                problems.append(f"{path}: not every property is required")
    if total > 5000:
        problems.append(f"{total} object properties (at most 5000)")
    if depth(schema) > 10:
        problems.append(f"{depth(schema)} levels of nesting (at most 10)")
    return problems + refs_resolve(schema)


# Gemini: `responseJsonSchema` "only the following properties are supported: $id, $defs,
# $ref, $anchor, type, format, title, description, enum (for strings and numbers), items,
# prefixItems, minItems, maxItems, minimum, maximum, anyOf, oneOf, properties,
# additionalProperties, required" (ai.google.dev/api/generate-content#generationconfig);
# `responseSchema` is "a select subset of an OpenAPI 3.0 schema object" (ai.google.dev/api/
# caching#Schema) with no `$ref`, `$defs` or `additionalProperties` (refused: "Unknown name
# additionalProperties ... Cannot find field"), one `type` per schema, and an OBJECT
# "should be non-empty" in properties. Both must hold: LangChain may fill either field.
GEMINI_BOTH = {
    *("type", "format", "title", "description", "enum", "items", "minItems", "maxItems"),
    *("minimum", "maximum", "anyOf", "properties", "required", "propertyOrdering"),
}
GEMINI_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}


def gemini_problems(schema: dict[str, Any]) -> Problems:
    problems = object_root_and_keywords(schema, GEMINI_BOTH)
    for path, node in nodes(schema):
        if "type" in node and node["type"] not in GEMINI_TYPES:
            problems.append(f"{path}: type {node['type']!r} is not one Gemini type")
        if "enum" in node and not all(isinstance(v, str) for v in node["enum"]):
            problems.append(f"{path}: an enum of non-strings")
        if node.get("type") == "object" and not node.get("properties"):
            problems.append(f"{path}: an object without properties")
        if not set(node.get("required", [])) <= set(node.get("properties", {})):
            problems.append(f"{path}: requires a property it does not define")
    return problems


# Anthropic, tool use (docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
# "Specifying client tools"): `name` must match ^[a-zA-Z0-9_-]{1,64}$; `input_schema` is
# "a JSON Schema object defining the expected parameters", its root of `type: "object"`.
ANTHROPIC_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
JSON_SCHEMA_KEYWORDS = {
    *Draft202012Validator.META_SCHEMA.get("properties", {}),
    *("properties", "required", "additionalProperties", "items", "prefixItems", "anyOf"),
    *("oneOf", "allOf", "not", "$ref", "$defs", "type", "enum", "const", "minLength"),
    *("maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum"),
    *("exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems", "title"),
    *("description", "default", "examples", "propertyNames", "minProperties"),
    *("maxProperties", "dependentRequired", "contains"),
}


def anthropic_problems(name: str, schema: dict[str, Any]) -> Problems:
    problems = [] if ANTHROPIC_TOOL_NAME.match(name) else [f"tool name {name!r}"]
    problems += object_root_and_keywords(schema, JSON_SCHEMA_KEYWORDS)
    return problems + valid_json_schema(schema) + refs_resolve(schema)


# Ollama, `format` (github.com/ollama/ollama/blob/main/docs/api.md, "Structured outputs"):
# "a JSON schema", turned into a grammar by llama.cpp's json-schema-to-grammar, whose
# keywords are those of llama.cpp's grammars/README.md ("JSON Schemas → GBNF"); same-document
# `#/$defs/` references only.
GRAMMAR_DOCUMENTED = {
    *("type", "properties", "required", "additionalProperties", "items", "prefixItems"),
    *("minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum", "enum"),
    *("const", "oneOf", "anyOf", "allOf", "$ref", "$defs", "format", "pattern", "title"),
    *("description", "default"),
}


def ollama_problems(schema: dict[str, Any]) -> Problems:
    problems = object_root_and_keywords(schema, GRAMMAR_DOCUMENTED)
    return problems + valid_json_schema(schema) + refs_resolve(schema)


def problems_of(name: str, schema: dict[str, Any], dialect: Dialect) -> Problems:
    sent, strict = for_provider(schema, dialect)
    if dialect == "openai":
        return openai_strict_problems(sent) if strict else valid_json_schema(sent)
    if dialect == "gemini":
        return gemini_problems(sent)
    if dialect == "anthropic":
        return anthropic_problems(name.split(".")[0], sent)
    if dialect == "ollama":
        return ollama_problems(sent)
    return valid_json_schema(sent)


@pytest.mark.parametrize("dialect", ["openai", "gemini", "anthropic", "ollama"])
@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_sent_schema_follows_the_providers_rules(name: str, dialect: Dialect) -> None:
    assert problems_of(name, SCHEMAS[name], dialect) == []


@pytest.mark.parametrize("name", sorted(TOOL_SCHEMAS))
def test_graph_extraction_tools_follow_the_providers_rules(name: str) -> None:
    parameters = TOOL_SCHEMAS[name]
    assert gemini_problems(tool_parameters(parameters, "gemini")) == []
    assert anthropic_problems(name, tool_parameters(parameters, "anthropic")) == []
    assert valid_json_schema(tool_parameters(parameters, "openai")) == []
    assert ollama_problems(tool_parameters(parameters, "ollama")) == []


def test_the_rules_refuse_what_pydantic_writes() -> None:
    """The validators bite: the untransformed schemas break Gemini's and OpenAI's rules."""
    raw = SCHEMAS["extract_concepts.ExtractedConcepts"]
    assert gemini_problems(raw)
    assert openai_strict_problems(raw)
    assert problems_of("extract_concepts", raw, "gemini") == []
    assert problems_of("extract_concepts", raw, "openai") == []


def test_strict_is_asked_of_openai_when_the_schema_allows_it() -> None:
    openai = ChatOpenAI(model="gpt-4.1-mini", api_key="sk-test")  # type: ignore[arg-type]
    local = ChatOpenAI(model="m", api_key="none", base_url="http://127.0.0.1:9/v1")  # type: ignore[arg-type]
    assert (dialect_of(openai), dialect_of(local)) == ("openai", "openai-compatible")
    schema = SCHEMAS["health_check.HealthCheck"]
    bound = _constrained(openai, "health_check", schema)
    sent = bound.kwargs["response_format"]["json_schema"]
    assert sent["strict"] is True
    assert openai_strict_problems(sent["schema"]) == []
    # An OpenAI-compatible server (llama.cpp) gets the schema whole: its grammar keeps bounds.
    kept = _constrained(local, "health_check", schema).kwargs["response_format"]["json_schema"]
    assert (kept["schema"], kept["strict"]) == (schema, False)


class Part(BaseModel):
    title: str = Field(max_length=20)
    tag: str = ""


class Note(BaseModel):
    title: str = Field(max_length=20)
    tag: str = ""
    page: int | None = None
    parts: list[Part] = Field(default_factory=list, max_length=2)


def test_the_nulls_strict_mode_adds_are_removed_before_validation() -> None:
    schema = schema_for(Note)
    sent, strict = for_provider(schema, "openai")
    assert strict and openai_strict_problems(sent) == []
    answer = {"title": "a", "tag": None, "page": None, "parts": [{"title": "b", "tag": None}]}
    note = Note.model_validate(from_provider(answer, schema, "openai"))
    assert (note.tag, note.page, note.parts[0].tag) == ("", None, "")
