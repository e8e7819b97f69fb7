"""Each provider's dialect of the JSON schema a structured call sends.

A response model's Pydantic schema says more than some providers accept: a provider that
refuses a keyword answers 400 on the first call. Each dialect below keeps what its provider
documents and moves the rest to validation (Pydantic checks every bound after the answer,
and the prompt still shows the full schema):

- `openai` (strict `json_schema`, platform.openai.com/docs/guides/structured-outputs,
  "Supported schemas"): the root an object; every object `additionalProperties: false` with
  every property `required` (an optional one becomes a union with `null`, which
  `from_provider` removes again); keywords only from the documented list (no `minLength`,
  `maxLength`, `default`, `propertyNames`, `maxProperties`...); `$ref` alone, no siblings.
  A schema with an open map (a dict field), which strict mode cannot say, is sent with
  `strict: false`.
- `gemini` (`responseSchema`, an OpenAPI 3.0 subset, and `responseJsonSchema`,
  ai.google.dev/api/generate-content#generationconfig): what both accept, so either field
  the LangChain integration fills is safe: no `$ref`/`$defs` (inlined), no
  `additionalProperties`, no string bounds or `pattern`, `enum` of strings only, one `type`
  per schema, no object without properties (an optional open map is left out).
- `anthropic` (tool `input_schema`, docs.anthropic.com/en/docs/build-with-claude/tool-use):
  JSON Schema whose root is `type: object`; structured calls go through a forced tool, not
  `output_format`, whose strict grammar refuses numeric and length bounds.
- `ollama` (`format`, github.com/ollama/ollama/blob/main/docs/api.md): a JSON schema turned
  into a llama.cpp grammar; keywords that converter does not read are dropped.
- `openai-compatible` (vLLM, LM Studio, llama.cpp's server, the `local` model): the schema
  as Pydantic writes it, which llama.cpp turns into a grammar with every bound.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel

Dialect = Literal["openai", "openai-compatible", "gemini", "anthropic", "ollama"]
DIALECTS: tuple[Dialect, ...] = ("openai", "openai-compatible", "gemini", "anthropic", "ollama")

# OpenAI's documented strict keywords (structured-outputs guide, "Supported properties").
OPENAI_KEYWORDS = frozenset(
    {
        *("type", "properties", "required", "additionalProperties", "items", "enum"),
        *("anyOf", "$ref", "$defs", "description", "title"),
        *("pattern", "format"),
        *("multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"),
        *("minItems", "maxItems"),
    }
)
# What Gemini's `responseSchema` and `responseJsonSchema` both document.
GEMINI_KEYWORDS = frozenset(
    {
        *("type", "format", "title", "description", "enum", "items"),
        *("minItems", "maxItems", "minimum", "maximum", "anyOf", "properties", "required"),
    }
)
# What llama.cpp's json-schema-to-grammar reads (Ollama's `format` goes through it).
GRAMMAR_KEYWORDS = frozenset(
    {
        *("type", "properties", "required", "additionalProperties", "items", "prefixItems"),
        *("minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum"),
        *("enum", "const", "oneOf", "anyOf", "allOf", "$ref", "$defs", "format", "pattern"),
        *("title", "description", "default"),
    }
)
_OPENAI_BASE_HOST = "api.openai.com"


def dialect_of(llm: BaseChatModel) -> Dialect:
    """Which provider answers `llm`: ChatOpenAI pointed elsewhere than OpenAI's own API is an
    OpenAI-compatible server (the local model among them)."""
    kind = type(llm).__name__
    if kind in ("ChatOpenAI", "AzureChatOpenAI"):
        base = str(getattr(llm, "openai_api_base", None) or "")
        return "openai" if not base or _OPENAI_BASE_HOST in base else "openai-compatible"
    if kind == "ChatGoogleGenerativeAI":
        return "gemini"
    if kind == "ChatAnthropic":
        return "anthropic"
    if kind == "ChatOllama":
        return "ollama"
    return "openai-compatible"


def for_provider(schema: dict[str, Any], dialect: Dialect) -> tuple[dict[str, Any], bool]:
    """The schema to send in `dialect`, and whether it can be sent as strict (OpenAI)."""
    if dialect == "openai-compatible":
        return schema, False
    inlined = _inline_refs(schema, schema.get("$defs", {}))
    if dialect == "gemini":
        return _gemini(inlined), False
    if dialect == "openai":
        if _has_open_map(inlined):
            return _keep(inlined, OPENAI_KEYWORDS), False
        return _openai_strict(inlined), True
    if dialect == "ollama":
        return _keep(schema, GRAMMAR_KEYWORDS), False
    return _without(schema, {"discriminator"}), False  # anthropic: JSON Schema as it is


def tool_parameters(schema: dict[str, Any], dialect: Dialect) -> dict[str, Any]:
    """A tool's parameters in `dialect` (tools are bound without `strict`)."""
    if dialect == "gemini":
        return for_provider(schema, dialect)[0]
    return _without(schema, {"discriminator"})


def from_provider(data: Any, schema: dict[str, Any], dialect: Dialect) -> Any:
    """An answer as the response model reads it: the `null` strict OpenAI had to allow for an
    optional property is removed, so the property takes its default."""
    if dialect != "openai":
        return data
    return _drop_added_nulls(data, schema, schema.get("$defs", {}))


def _drop_added_nulls(data: Any, schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    schema = _resolve(schema, defs)
    if isinstance(data, dict) and "properties" in schema:
        required = set(schema.get("required", []))
        return {
            key: _drop_added_nulls(value, schema["properties"].get(key, {}), defs)
            for key, value in data.items()
            if value is not None or key in required
        }
    if isinstance(data, list) and isinstance(schema.get("items"), dict):
        return [_drop_added_nulls(item, schema["items"], defs) for item in data]
    for branch in schema.get("anyOf", schema.get("oneOf", [])):
        branch = _resolve(branch, defs)
        if isinstance(data, dict) and "properties" in branch:
            return _drop_added_nulls(data, branch, defs)
        if isinstance(data, list) and "items" in branch:
            return _drop_added_nulls(data, branch, defs)
    return data


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _resolve(defs[ref.removeprefix("#/$defs/")], defs)
    return schema


def _inline_refs(node: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """`node` with every `#/$defs/` reference replaced by its definition (the models have no
    recursive ones; the depth bound only guards against one appearing)."""
    if depth > 32:
        raise ValueError("a response schema refers to itself too deeply to inline")
    if isinstance(node, list):
        return [_inline_refs(item, defs, depth) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = _resolve(node, defs)
        merged = {**copy.deepcopy(target), **{k: v for k, v in node.items() if k != "$ref"}}
        return _inline_refs(merged, defs, depth + 1)
    return {key: _inline_refs(value, defs, depth) for key, value in node.items() if key != "$defs"}


def _children(key: str, value: Any, convert: Any) -> Any:
    """Apply `convert` to the sub-schemas under `key` (and only to them)."""
    if key == "properties" and isinstance(value, dict):
        return {name: convert(sub) for name, sub in value.items()}
    if key in ("items", "additionalProperties") and isinstance(value, dict):
        return convert(value)
    if key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
        return [convert(sub) for sub in value]
    if key == "$defs" and isinstance(value, dict):
        return {name: convert(sub) for name, sub in value.items()}
    return value


def _keep(schema: dict[str, Any], keywords: frozenset[str]) -> dict[str, Any]:
    return {
        key: _children(key, value, lambda sub: _keep(sub, keywords))
        for key, value in schema.items()
        if key in keywords
    }


def _without(schema: dict[str, Any], dropped: set[str]) -> dict[str, Any]:
    return {
        key: _children(key, value, lambda sub: _without(sub, dropped))
        for key, value in schema.items()
        if key not in dropped
    }


def _is_open_map(schema: dict[str, Any]) -> bool:
    """An object whose keys the schema does not name (a dict field), or names none of."""
    return schema.get("type") == "object" and not schema.get("properties")


def _has_open_map(schema: Any) -> bool:
    if isinstance(schema, list):
        return any(_has_open_map(item) for item in schema)
    if not isinstance(schema, dict):
        return False
    return _is_open_map(schema) or any(_has_open_map(value) for value in schema.values())


def _openai_strict(schema: dict[str, Any]) -> dict[str, Any]:
    out = _keep(_const_to_enum(schema), OPENAI_KEYWORDS)
    if "oneOf" in schema:  # strict mode reads anyOf; the branches of a model never overlap
        out["anyOf"] = [_openai_strict(sub) for sub in schema["oneOf"]]
    if out.get("type") == "object" and "properties" in out:
        required = set(schema.get("required", []))
        out["properties"] = {
            name: (
                _openai_strict(sub)
                if name in required
                else {"anyOf": [_openai_strict(sub), {"type": "null"}]}
            )
            for name, sub in schema["properties"].items()
        }
        out["required"] = list(schema["properties"])
        out["additionalProperties"] = False
    if isinstance(schema.get("items"), dict):
        out["items"] = _openai_strict(schema["items"])
    if "anyOf" in schema:
        out["anyOf"] = [_openai_strict(sub) for sub in schema["anyOf"]]
    return _flatten_null_unions(out)


def _flatten_null_unions(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [anyOf: [A, null], null]` as `anyOf: [A, null]` (an optional field that was
    already nullable)."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list):
        return schema
    flat: list[dict[str, Any]] = []
    for branch in branches:
        inner = branch.get("anyOf") if len(branch) == 1 else None
        for sub in inner if isinstance(inner, list) else [branch]:
            if sub not in flat:
                flat.append(sub)
    return {**schema, "anyOf": flat}


def _const_to_enum(schema: dict[str, Any]) -> dict[str, Any]:
    if "const" in schema:
        schema = {**{k: v for k, v in schema.items() if k != "const"}, "enum": [schema["const"]]}
    return schema


def _gemini(schema: dict[str, Any]) -> dict[str, Any]:
    schema = _const_to_enum(schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("oneOf", "anyOf"):
            out["anyOf"] = [_gemini(sub) for sub in value]
        elif key == "enum":
            # Gemini's enums are of strings; a number one is left to validation.
            if all(isinstance(v, str) for v in value):
                out["enum"] = value
        elif key == "type" and isinstance(value, list):
            out["anyOf"] = [{"type": kind} for kind in value]
        elif key == "properties":
            kept = {
                name: _gemini(sub)
                for name, sub in value.items()
                if not _is_open_map(sub) or name in schema.get("required", [])
            }
            out["properties"] = kept
            out["required"] = [n for n in schema.get("required", []) if n in kept]
        elif key in GEMINI_KEYWORDS and key != "required":
            out[key] = _children(key, value, _gemini)
    return out
