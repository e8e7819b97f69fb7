"""The fake model's answers (`fake.FakeChatModel`): a JSON value built to satisfy the schema a
request asks for, with its text taken from the prompt (`snippet`) and its ids chosen among the
ids the prompt shows (fields whose schema has a `pattern` such as `^q[0-9]+$`), or invented
when a fault asks for it. The same random generator gives the same answer.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_ID_IN_PROMPT = re.compile(r"\b([a-z]{1,3})(\d{1,5})\b")


def snippet(prompt: str, rng: random.Random, max_chars: int) -> str:
    """One sentence of `prompt` (longer than 12 characters), cut at a word to `max_chars`."""
    sentences = [s.strip() for s in _SENTENCE.findall(prompt) if len(s.strip()) > 12]
    if not sentences:
        return "Respuesta generada por el modelo de prueba."[:max_chars]
    text = sentences[rng.randrange(len(sentences))]
    return _clip(text, max_chars)


def _clip(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars].rsplit(" ", 1)[0]
    return cut if cut else text[:max_chars]


class AnswerBuilder:
    """Builds a JSON value satisfying a (pydantic-generated) JSON schema."""

    def __init__(
        self,
        prompt: str,
        rng: random.Random,
        root: dict[str, Any],
        *,
        invent_ids: bool,
        source: str | None = None,
    ) -> None:
        self.prompt = prompt
        self.source = source if source is not None else prompt  # where strings are taken from
        self.rng = rng
        self.defs: dict[str, Any] = root.get("$defs", {})
        self.invent_ids = invent_ids
        self.ids_by_prefix: dict[str, list[str]] = {}
        for prefix, number in _ID_IN_PROMPT.findall(prompt):
            ids = self.ids_by_prefix.setdefault(prefix, [])
            if f"{prefix}{number}" not in ids:
                ids.append(f"{prefix}{number}")

    def build(self, schema: dict[str, Any], name: str = "") -> Any:
        schema = self._resolve(schema)
        if "enum" in schema:
            return self.rng.choice(schema["enum"])
        if "const" in schema:
            return schema["const"]
        for key in ("anyOf", "oneOf"):
            if key in schema:
                options = [o for o in schema[key] if self._resolve(o).get("type") != "null"]
                if key == "oneOf" and len(options) > 1:
                    # A tagged union (a list of tool calls): any of its kinds, not the first.
                    return self.build(options[self.rng.randrange(len(options))], name)
                return self.build(options[0] if options else schema[key][0], name)
        kind = schema.get("type", "object")
        if kind == "object":
            props: dict[str, Any] = schema.get("properties", {})
            return {key: self.build(sub, key) for key, sub in props.items()}
        if kind == "array":
            return self._array(schema, name)
        if kind == "string":
            return self._string(schema, name)
        if kind == "integer":
            return self._integer(schema)
        if kind == "number":
            return self._number(schema)
        if kind == "boolean":
            return self.rng.random() < 0.5
        return None

    def _integer(self, schema: dict[str, Any]) -> int:
        # Pydantic writes ge/le as minimum/maximum and gt/lt as exclusiveMinimum/Maximum.
        low, high = _bounds(schema)
        lowest = math.ceil(low) if low is not None else None
        if "exclusiveMinimum" in schema:
            lowest = math.floor(schema["exclusiveMinimum"]) + 1
        highest = math.floor(high) if high is not None else None
        if "exclusiveMaximum" in schema:
            highest = math.ceil(schema["exclusiveMaximum"]) - 1
        if lowest is None:
            lowest = 0 if highest is None else min(0, highest - 2)
        if highest is None:
            highest = lowest + 2
        return lowest + self.rng.randrange(max(1, highest - lowest + 1))

    def _number(self, schema: dict[str, Any]) -> float:
        low, high = _bounds(schema)
        if low is None:
            low = 0.0 if high is None else min(0.0, high - 1.0)
        if high is None:
            high = low + 1.0
        # Strictly inside the range, so exclusive bounds also hold after rounding.
        inside = low + (high - low) * (0.05 + 0.9 * self.rng.random())
        rounded = round(inside, 3)
        return rounded if low < rounded < high else inside

    def _resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            resolved: dict[str, Any] = self.defs[ref.removeprefix("#/$defs/")]
            return resolved
        return schema

    def _array(self, schema: dict[str, Any], name: str) -> list[Any]:
        items = self._resolve(schema.get("items", {}))
        low = int(schema.get("minItems", 0))
        high = int(schema.get("maxItems", max(low, 3)))
        pattern_prefix = _id_prefix(items)
        if pattern_prefix is not None:
            pool = self._ids(pattern_prefix)
            count = max(low, min(high, len(pool), 1 + self.rng.randrange(2)))
            chosen = pool[:count] if count <= len(pool) else pool
            return list(chosen) if len(chosen) >= low else [*chosen, *pool[: low - len(chosen)]]
        count = max(low, min(high, 1 + self.rng.randrange(2)))
        return [self.build(items, name) for _ in range(count)]

    def _ids(self, prefixes: tuple[str, ...]) -> list[str]:
        if self.invent_ids:
            return [f"{prefixes[0]}9{self.rng.randrange(1000, 9999)}"]
        pool = [i for prefix in prefixes for i in self.ids_by_prefix.get(prefix, [])]
        self.rng.shuffle(pool)
        return pool

    def _string(self, schema: dict[str, Any], name: str) -> str:
        prefix = _id_prefix(schema)
        if prefix is not None:
            pool = self._ids(prefix)
            return pool[0] if pool else f"{prefix[0]}1"
        max_chars = int(schema.get("maxLength", 400))
        lowered = name.lower()
        if "title" in lowered or "name" in lowered:
            max_chars = min(max_chars, 60)
        elif "short" in lowered:
            max_chars = min(max_chars, 160)
        text = snippet(self.source, self.rng, max_chars)
        if "summary" in lowered and "short" not in lowered:
            more = snippet(self.source, self.rng, max_chars)
            if more != text:
                text = _clip(f"{text} {more}", max_chars)
        min_chars = int(schema.get("minLength", 0))
        while len(text) < min_chars:
            text = (text + " " + text).strip() or "texto"
        return text[:max_chars] if len(text) > max_chars else text


def _bounds(schema: dict[str, Any]) -> tuple[float | None, float | None]:
    """The numeric range of a schema, inclusive or exclusive alike."""
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    return (
        float(low) if isinstance(low, int | float) else None,
        float(high) if isinstance(high, int | float) else None,
    )


def _id_prefix(schema: dict[str, Any]) -> tuple[str, ...] | None:
    """The id prefixes a string schema's pattern allows: `("q",)` for `^q[0-9]+$` or
    `^q\\d+$`, `("c", "e")` for `^[ce][0-9]+$`."""
    pattern = schema.get("pattern")
    if schema.get("type") != "string" or not isinstance(pattern, str):
        return None
    match = re.fullmatch(r"\^(?:([a-z]{1,3})|\[([a-z]+)\])(?:\[0-9\]|\\d)[+*](?:\$)?", pattern)
    if match is None:
        return None
    return (match.group(1),) if match.group(1) else tuple(match.group(2))
