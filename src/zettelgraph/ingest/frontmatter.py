"""YAML front matter of a note: parsed safely, bounded, and made JSON-safe."""

from __future__ import annotations

import math
from datetime import date, time
from typing import Any

import yaml

from zettelgraph.ingest.errors import BookNotesError
from zettelgraph.text import bounded_yaml

# A book's front matter is a dozen keys; 10,000 values (aliases expanded) is far past any
# hand-written one and is read in well under a second.
FRONT_MATTER_LIMITS = bounded_yaml.YamlLimits(nodes=10_000)
# A book's front matter is a few hundred characters.
MAX_FRONT_MATTER_CHARS = 100_000


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
    text = "\n".join(lines[1:end])
    if len(text) > MAX_FRONT_MATTER_CHARS:
        # Refused before any parsing: PyYAML reads about 10,000 values a second, so even the
        # value bound below would first spend seconds on a block this long.
        raise BookNotesError(
            f"front matter is {len(text):,} characters long, more than the "
            f"{MAX_FRONT_MATTER_CHARS:,} read: keep it to the book's details (title, author, "
            "tags) and move the rest below the closing '---'",
            path=source,
            line=1,
        )
    try:
        tree, loaded = bounded_yaml.load(text, FRONT_MATTER_LIMITS)
    except bounded_yaml.YamlLimitError as exc:
        # A bomb, a value that contains itself or a huge block: refused on the line that
        # crossed the bound, before the rest is parsed (200,000 keys took 84 s and 456 MB).
        raise BookNotesError(
            f"front matter: {exc.problem}",
            path=source,
            line=1 + exc.line,
        ) from exc
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise BookNotesError(
            f"invalid YAML in front matter ({exc.problem or exc.context}). Fix that line; quote "
            "values that contain ':' or '#'",
            path=source,
            line=2 + mark.line if mark else 1,
        ) from exc
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        # PyYAML raises plain ValueError for impossible dates such as 2024-13-01.
        raise BookNotesError(
            f"invalid value in front matter ({exc}). Fix or quote the value", path=source, line=1
        ) from exc
    loaded = {} if loaded is None else loaded
    if not isinstance(loaded, dict):
        raise BookNotesError(
            f"front matter is a YAML {type(loaded).__name__}, not 'key: value' lines. "
            "Write it as 'title: ...' and 'author: ...' lines",
            path=source,
            line=2,
        )
    if warnings is not None:
        warnings.extend(_duplicate_keys(tree))
    return _json_safe(loaded), end + 1


def _duplicate_keys(node: yaml.Node | None) -> list[str]:
    """Warnings for top-level keys written more than once (YAML keeps the last)."""
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


def _json_safe(value: Any) -> Any:
    """`value` as JSON can hold it (bounded_yaml bounds its size and depth, and refuses a
    value that contains itself, so this walk ends)."""
    if isinstance(value, dict):
        return {str(_json_safe(k)): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_json_safe(item) for item in value]
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
