"""Entity properties checked against their entity type (pure functions, no I/O).

A property the type does not define is dropped; a value of the wrong kind is coerced when the
coercion loses nothing ("1605" -> 1605 for an integer, 1605 -> "1605" for a string, "sí" ->
True for a boolean, one name -> a list of one), and dropped otherwise. Each drop is a line the
reader sees.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from zettelgraph.packs.schema import EntityType, PropertyKind
from zettelgraph.text.normalize import normalize_name

_INTEGER = re.compile(r"^[+-]?\d+$")
_NUMBER = re.compile(r"^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$")
# A year, a month or a day: the precision a text gives ("1605", "1605-01", "1605-01-16").
_PARTIAL_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
_TRUE = frozenset({"true", "yes", "si", "y", "1", "verdadero"})
_FALSE = frozenset({"false", "no", "n", "0", "falso"})
MAX_STRING = 300
MAX_ITEMS = 20


class UnusableError(ValueError):
    """A value that cannot be read as its property's kind without guessing."""


@dataclass(frozen=True)
class PropertyProblem:
    reason: str  # unknown_property, bad_property_value
    key: str
    message: str


def checked_properties(
    given: dict[str, Any], spec: EntityType
) -> tuple[dict[str, Any], list[PropertyProblem]]:
    """The properties of `given` the type defines, each of its kind, and what was dropped."""
    by_key = {p.name: p for p in spec.properties}
    folded = {normalize_name(p.name).replace(" ", "_"): p for p in spec.properties}
    kept: dict[str, Any] = {}
    problems: list[PropertyProblem] = []
    for key, value in given.items():
        prop = by_key.get(key) or folded.get(normalize_name(key).replace(" ", "_"))
        if prop is None:
            known = ", ".join(by_key) or "none"
            problems.append(
                PropertyProblem(
                    "unknown_property",
                    key,
                    f"property {key!r}, which {spec.name} does not have ({known})",
                )
            )
            continue
        if value is None or value == "" or value == []:
            continue
        try:
            kept[prop.name] = coerce(value, prop.type)
        except UnusableError as exc:
            problems.append(
                PropertyProblem(
                    "bad_property_value", key, f"property {prop.name!r} ({prop.type}): {exc}"
                )
            )
    return kept, problems


def coerce(value: Any, kind: PropertyKind) -> Any:
    """`value` as a value of `kind`, or UnusableError."""
    if kind == "string":
        if isinstance(value, list):
            value = "; ".join(str(v) for v in value)
        return _clip(str(value).strip())
    if kind == "integer":
        return _integer(value)
    if kind == "number":
        return _number(value)
    if kind == "boolean":
        return _boolean(value)
    if kind == "date":
        return _date(value)
    items = value if isinstance(value, list) else [value]
    return [_clip(str(v).strip()) for v in items if str(v).strip()][:MAX_ITEMS]


def _clip(text: str) -> str:
    return text if len(text) <= MAX_STRING else text[:MAX_STRING].rstrip()


def _integer(value: Any) -> int:
    if isinstance(value, bool):
        raise UnusableError(f"{value!r} is not a whole number")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER.match(value.strip()):
        return int(value.strip())
    raise UnusableError(f"{value!r} is not a whole number")


def _number(value: Any) -> float | int:
    if isinstance(value, bool):
        raise UnusableError(f"{value!r} is not a number")
    if isinstance(value, int | float) and math.isfinite(value):
        return value
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        return float(value.strip().replace(",", "."))
    raise UnusableError(f"{value!r} is not a number")


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | str):
        word = normalize_name(str(value))
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise UnusableError(f"{value!r} is not yes or no")


def _date(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 9999:
        return f"{value:04d}"
    if isinstance(value, str):
        text = value.strip()
        if _PARTIAL_DATE.match(text):
            try:
                date.fromisoformat(text if len(text) == 10 else f"{text}-01-01"[:10])
            except ValueError:
                raise UnusableError(f"{value!r} is not a date") from None
            return text
    raise UnusableError(f"{value!r} is not a date (YYYY, YYYY-MM or YYYY-MM-DD)")
