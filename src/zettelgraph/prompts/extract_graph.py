"""Graph extraction: entities and relationships of a template pack's types from a batch of
passages, as calls of two tools.

`extract_entity(name, type, description, properties)` records one entity the passages mention;
`extract_relationship(source_name | source_id, target_name | target_id, relationship_type,
description, confidence)` one relationship they state, with how sure the model is of it (0..1):
each end by name for an entity extracted in the same answer, by the short id (`e1`, `e2`...)
of an entity the graph already has, shown in the prompt.

Providers with tool calling get the tools bound (`tools()`, `llm/tools.py`); the others are
asked for the same calls as one JSON object, `{"calls": [{"tool": ..., "args": ...}]}`
(`GraphExtraction`, requested with `request_schema()`). The requested schemas list the pack's
types and the ids shown as enums, which a grammar (llama.cpp) enforces while decoding; the
models that validate the answer accept any bounded string, so that what a provider still gets
wrong is dropped call by call by the workflow, with a warning naming it, not as a failed batch.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from typing import Annotated, Any, Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, BeforeValidator, Field

from zettelgraph.llm.structured import Sampling
from zettelgraph.llm.tools import Tool
from zettelgraph.packs.schema import PackSchema
from zettelgraph.prompts.pack_lines import entity_line, relationship_lines
from zettelgraph.prompts.quality import language_name

NAME = "extract_graph"
ENTITY_TOOL = "extract_entity"
RELATIONSHIP_TOOL = "extract_relationship"
# About 40 tokens an entity and 50 a relationship; a dense batch of ten passages (a cast of
# characters meeting in places at events) makes up to seven calls a passage.
SAMPLING = Sampling(max_tokens=4000, temperature=0.1)
# A small model writes one passage's few entities and relationships in far fewer.
COMPACT_SAMPLING = Sampling(max_tokens=900, temperature=0.1)
MAX_CALLS = 100
# What a small model is allowed per answer (two passages rarely name more than four entities
# and three relationships). Through the grammar the bound also ends an answer that loops,
# which otherwise runs into the token limit and loses the batch.
COMPACT_MAX_CALLS = 12

PropertyValue = (
    Annotated[str, Field(max_length=300)]
    | int
    | float
    | bool
    | Annotated[list[Annotated[str, Field(max_length=200)]], Field(max_length=20)]
    | None
)


CONFIDENCE = (
    "How sure you are that the passages state it: 1 said in so many words, 0.5 read between "
    "the lines, lower a guess."
)


def _bounded(value: Any) -> Any:
    """A number into 0..1; anything else as given (validation then says what is wrong)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return min(1.0, max(0.0, float(value)))
    return value


class ExtractEntity(BaseModel):
    """Tool 1: one entity the passages mention."""

    name: str = Field(
        min_length=1, max_length=200, description="The name as the passages write it."
    )
    type: str = Field(min_length=1, max_length=64, description="One of the entity types.")
    description: str = Field(
        default="", max_length=600, description="One sentence: who or what it is here."
    )
    properties: dict[Annotated[str, Field(max_length=64)], PropertyValue] = Field(
        default_factory=dict,
        max_length=20,
        description="Only the properties listed for the type, with values of their kind.",
    )


class ExtractRelationship(BaseModel):
    """Tool 2: one relationship the passages state between two entities."""

    source_name: str | None = Field(
        default=None, max_length=200, description="Name of an entity extracted in this answer."
    )
    source_id: str | None = Field(
        default=None, max_length=16, description="Id (e1, e2...) of a known entity."
    )
    target_name: str | None = Field(
        default=None, max_length=200, description="Name of an entity extracted in this answer."
    )
    target_id: str | None = Field(
        default=None, max_length=16, description="Id (e1, e2...) of a known entity."
    )
    relationship_type: str = Field(
        min_length=1, max_length=64, description="One of the relationship types."
    )
    description: str = Field(
        default="", max_length=400, description="One sentence saying how the passages state it."
    )
    # Asked for always, bounded 0..1 (`_constrain_relationship`); a provider that leaves it
    # out or goes past a bound loses nothing: missing is unknown, the rest is clamped.
    confidence: Annotated[float | None, BeforeValidator(_bounded)] = Field(
        default=None, description=CONFIDENCE
    )


class EntityCall(BaseModel):
    tool: Literal["extract_entity"]
    args: ExtractEntity


class RelationshipCall(BaseModel):
    tool: Literal["extract_relationship"]
    args: ExtractRelationship


class GraphExtraction(BaseModel):
    """The two tools' calls as one JSON answer, for models without tool calling."""

    calls: list[Annotated[EntityCall | RelationshipCall, Field(discriminator="tool")]] = Field(
        max_length=MAX_CALLS
    )


class PromptPassage(BaseModel):
    id: str  # q1, q2 ...
    text: str
    page: str | None = None


class KnownEntity(BaseModel):
    id: str  # e1, e2 ...: never the stored id
    name: str
    type: str
    description: str = ""


class ExtractGraphInput(BaseModel):
    title: str
    author: str | None = None
    pack_schema: PackSchema
    passages: list[PromptPassage]
    existing: list[KnownEntity] = Field(default_factory=list)
    # The reader's suggestions, or their feedback on the last proposal.
    note: str | None = None
    language: str = "es"
    # True: the tools are bound (the provider calls them); False: the JSON list of calls.
    tool_calling: bool = False
    # Calls the JSON list may hold (the grammar enforces it; validation allows MAX_CALLS).
    max_calls: int = Field(default=MAX_CALLS, ge=1, le=MAX_CALLS)


EMPTY = 'An empty {"calls": []} is right when the passages name no entity of these types.'
# A pack's relationship example reads "Source -> Target: why".
_EXAMPLE = re.compile(r"^\s*(?P<source>[^>]+?)\s*->\s*(?P<target>[^:]+?)\s*:\s*(?P<why>.+)$")


def json_format(schema: PackSchema) -> str:
    """How to answer without tool calling, with a worked example from the pack's first
    relationship example ("A -> B: why"), which shows a small model an entity of each end's
    type and the relationship that joins them by name."""
    examples = [
        (spec, found)
        for spec in schema.relationship_types.values()
        for found in [next(filter(None, (_EXAMPLE.match(e) for e in spec.examples)), None)]
        if found is not None
    ]
    # One that joins two different types shows best that the types decide the relationship.
    examples.sort(key=lambda pair: pair[0].source_types[0] == pair[0].target_types[0])
    calls: list[dict[str, Any]] = []
    if examples:
        spec, found = examples[0]
        source, target = found["source"], found["target"]
        calls = [
            {"tool": ENTITY_TOOL, "args": {"name": source, "type": spec.source_types[0]}},
            {"tool": ENTITY_TOOL, "args": {"name": target, "type": spec.target_types[0]}},
            {
                "tool": RELATIONSHIP_TOOL,
                "args": {
                    "source_name": source,
                    "target_name": target,
                    "relationship_type": spec.name,
                    "description": found["why"].strip(),
                    "confidence": 0.9,
                },
            },
        ]
    if not calls:
        return (
            'Answer with one JSON object listing the tool calls, entities first: {"calls": '
            '[{"tool": "extract_entity", "args": {...}}, {"tool": "extract_relationship", '
            f'"args": {{...}}}}]}}.\n{EMPTY}'
        )
    example = json.dumps({"calls": calls}, ensure_ascii=False)
    return (
        "Answer with one JSON object listing the tool calls, entities first. An example "
        f"(of another text: take nothing from it but the form):\n{example}\n{EMPTY}"
    )


def messages(data: ExtractGraphInput) -> list[BaseMessage]:
    schema = data.pack_schema
    hints = [hint for pack in schema.packs for hint in pack.prompt_hints]
    rules = f"""You build a knowledge graph from passages a reader highlighted. You have two tools:
- {ENTITY_TOOL}(name, type, description, properties): one call per entity the passages mention.
- {RELATIONSHIP_TOOL}(source_name | source_id, target_name | target_id, relationship_type, \
description, confidence): one call per relationship the passages state between two entities.
Rules:
1. First call {ENTITY_TOOL} for every entity you find, then {RELATIONSHIP_TOOL}.
2. An endpoint you extracted in this answer: give its exact name (source_name, target_name).
   A known entity (listed with an id such as e1): give its id (source_id, target_id), no name.
3. Never relate an entity you neither extracted nor were given: extract it first.
4. Only the entity and relationship types below; a relationship joins only the types shown.
5. properties: only those listed for the type, each with a value of its kind.
6. Only what the passages say, not what you know from elsewhere.
7. Names as the passages write them; descriptions in {language_name(data.language)}.
8. confidence (0 to 1): 1 when the passages say it in so many words, 0.5 when you read it
   between the lines, lower when you guess; the reader checks the unsure ones.
Entity types:
{chr(10).join(entity_line(spec) for spec in schema.entity_types.values())}
Relationship types (source -> target):
{chr(10).join(relationship_lines(schema))}"""
    if hints:
        rules += "\nHints:\n" + "\n".join(f"- {hint}" for hint in hints)
    if not data.tool_calling:
        rules += "\n" + json_format(schema)
    passages = "\n".join(
        f"[{p.id}] {p.text}" + (f" (p. {p.page})" if p.page else "") for p in data.passages
    )
    known = "\n".join(
        f"[{e.id}] {e.name} ({e.type})" + (f": {e.description}" if e.description else "")
        for e in data.existing
    )
    source = f"Source: {data.title}" + (f", by {data.author}" if data.author else "")
    body = f"{source}\nPassages:\n{passages}\n"
    body += f"Known entities (refer to them by id):\n{known}\n" if known else ""
    body += f"The reader's note (follow it):\n{data.note}\n" if data.note else ""
    return [SystemMessage(content=rules), HumanMessage(content=body)]


def _constrain_entity(schema: dict[str, Any], data: ExtractGraphInput) -> dict[str, Any]:
    types = list(data.pack_schema.entity_types)
    props = schema["properties"]
    props["type"] = {**props["type"], "enum": types}
    # Only the pack's property names (of any of its types: which type is chosen is not known
    # when the properties are written), each with its kind; not the keywords of this schema,
    # which a small model otherwise copies in ("type", "additionalProperties").
    props["properties"] = {
        "type": "object",
        "description": props["properties"].get("description", ""),
        "properties": _property_schemas(data.pack_schema),
        "additionalProperties": False,
    }
    return schema


_KINDS: dict[str, dict[str, Any]] = {
    "string": {"type": "string", "maxLength": 300},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "boolean": {"type": "boolean"},
    "date": {"type": "string", "maxLength": 10, "description": "YYYY, YYYY-MM or YYYY-MM-DD"},
    "list": {"type": "array", "items": {"type": "string", "maxLength": 200}, "maxItems": 20},
}


def _property_schemas(schema: PackSchema) -> dict[str, Any]:
    kinds: dict[str, list[str]] = {}
    for spec in schema.entity_types.values():
        for prop in spec.properties:
            known = kinds.setdefault(prop.name, [])
            if prop.type not in known:
                known.append(prop.type)
    return {
        name: _KINDS[found[0]] if len(found) == 1 else {"anyOf": [_KINDS[k] for k in found]}
        for name, found in kinds.items()
    }


def _constrain_relationship(schema: dict[str, Any], data: ExtractGraphInput) -> dict[str, Any]:
    props = schema["properties"]
    types = list(data.pack_schema.relationship_types)
    props["relationship_type"] = {**props["relationship_type"], "enum": types}
    props["confidence"] = {
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "description": CONFIDENCE,
    }
    schema["required"] = [*schema.get("required", []), "confidence"]
    ids = [e.id for e in data.existing]
    for end in ("source", "target"):
        if ids:
            props[f"{end}_id"] = {
                "anyOf": [{"type": "string", "enum": ids}, {"type": "null"}],
                "default": None,
                "description": props[f"{end}_id"].get("description", ""),
            }
        else:
            # No known entity was shown: there is no id to give, so the name is required.
            del props[f"{end}_id"]
            props[f"{end}_name"] = {
                "type": "string",
                "minLength": 1,
                "maxLength": 200,
                "description": props[f"{end}_name"].get("description", ""),
            }
            schema["required"] = [*schema.get("required", []), f"{end}_name"]
    return schema


@functools.cache
def _base_schemas() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The three models' JSON schemas, made once (callers copy before changing them)."""
    return (
        GraphExtraction.model_json_schema(),
        ExtractEntity.model_json_schema(),
        ExtractRelationship.model_json_schema(),
    )


def request_schema(data: ExtractGraphInput) -> dict[str, Any]:
    """The JSON schema asked of models without tool calling: the pack's types and the ids
    shown as enums."""
    schema = copy.deepcopy(_base_schemas()[0])
    # `oneOf` alone says it (an OpenAPI `discriminator` is no JSON Schema a grammar reads).
    schema["properties"]["calls"]["items"].pop("discriminator", None)
    schema["properties"]["calls"]["maxItems"] = data.max_calls
    defs = schema["$defs"]
    _constrain_entity(defs["ExtractEntity"], data)
    _constrain_relationship(defs["ExtractRelationship"], data)
    return schema


def tools(data: ExtractGraphInput) -> list[Tool]:
    """The two tools, for providers with tool calling."""
    return [
        Tool(
            name=ENTITY_TOOL,
            description="Record one entity the passages mention, of one of the entity types.",
            parameters=_constrain_entity(copy.deepcopy(_base_schemas()[1]), data),
            model=ExtractEntity,
        ),
        Tool(
            name=RELATIONSHIP_TOOL,
            description="Record one relationship the passages state between two entities: "
            "by name for an entity extracted in this answer, by id for a known one.",
            parameters=_constrain_relationship(copy.deepcopy(_base_schemas()[2]), data),
            model=ExtractRelationship,
        ),
    ]
