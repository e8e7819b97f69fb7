"""YAML front matter of a note: parsed safely, bounded, and made JSON-safe."""

from __future__ import annotations

import math
from datetime import date, time
from typing import Any

import yaml

from zettelgraph.ingest.errors import BookNotesError

_MAX_FRONT_MATTER_NODES = 10_000  # YAML aliases can expand a tiny file into a huge tree
_MAX_FRONT_MATTER_DEPTH = 50


def split_front_matter(
    lines: list[str], source: str, warnings: list[str] | None = None
) -> tuple[dict[str, Any], int]:
    """The front-matter mapping (JSON-safe) and the index of the first body line. A key
    written twice (YAML keeps the last) is added to `warnings` as "line N: ..."."""
    if not lines or lines[0].rstrip() != "---":
        return {}, 0
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if end is None:
        raise BookNotesError(
            "front matter starts with '---' but is never closed. Add a '---' line after it",
            path=source,
            line=1,
        )
    try:
        loaded = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise BookNotesError(
            f"invalid YAML in front matter ({exc.problem or exc.context}). Fix that line; quote "
            "values that contain ':' or '#'",
            path=source,
            line=2 + mark.line if mark else 1,
        ) from exc
    except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
        # PyYAML raises plain ValueError for impossible dates such as 2024-13-01.
        raise BookNotesError(
            f"invalid value in front matter ({exc}). Fix or quote the value", path=source, line=1
        ) from exc
    loaded = {} if loaded is None else loaded
    if warnings is not None and isinstance(loaded, dict):
        warnings.extend(_duplicate_keys("\n".join(lines[1:end])))
    if not isinstance(loaded, dict):
        raise BookNotesError(
            f"front matter is a YAML {type(loaded).__name__}, not 'key: value' lines. "
            "Write it as 'title: ...' and 'author: ...' lines",
            path=source,
            line=2,
        )
    try:
        return _json_safe(loaded, [_MAX_FRONT_MATTER_NODES], 0), end + 1
    except RecursionError as exc:  # raised by _json_safe for deep or self-referencing values
        raise BookNotesError(
            "front matter is too large or too deeply nested. Keep it to simple 'key: value' lines",
            path=source,
            line=1,
        ) from exc


def _duplicate_keys(text: str) -> list[str]:
    """Warnings for top-level keys written more than once (the text already parsed)."""
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    if not isinstance(node, yaml.MappingNode):
        return []
    first: dict[str, int] = {}
    found = []
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode):
            continue
        line = key.start_mark.line + 2  # after the opening '---', 1-based
        if key.value in first:
            found.append(
                f"line {line}: front matter key {key.value!r} is also on line "
                f"{first[key.value]}; the last value is used. Keep one of them"
            )
        else:
            first[key.value] = line
    return found


def _json_safe(value: Any, budget: list[int], depth: int) -> Any:
    budget[0] -= 1
    if budget[0] < 0 or depth > _MAX_FRONT_MATTER_DEPTH:
        raise RecursionError("front matter too large")
    if isinstance(value, dict):
        return {
            str(_json_safe(k, budget, depth)): _json_safe(v, budget, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [_json_safe(item, budget, depth + 1) for item in value]
    if isinstance(value, date | time):  # datetime is a date too
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no NaN or Infinity
    return value if value is None or isinstance(value, str | int | float) else str(value)


def front_text(value: Any, key: str, source: str) -> str | None:
    """A title/author as text; a list of authors is joined with ', '."""
    if key == "author" and isinstance(value, list):
        names = [front_text(item, key, source) for item in value]
        return ", ".join(name for name in names if name) or None
    if isinstance(value, list | dict):
        raise BookNotesError(
            f"front matter '{key}' must be a single line of text. Write '{key}: ...'",
            path=source,
            line=1,
        )
    text = "" if value is None else str(value).strip()
    return text or None
