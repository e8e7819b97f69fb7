"""Front matter values as Obsidian's Properties view reads them: wikilinks, tags, lists.

Obsidian types a property once for the whole vault (text, list, number, checkbox, date), and
shows a list only when every item is a plain string: so links are `"[[Note]]"` strings in a
list, never ids in a nested map, and a key holds the same type in every note it appears in.
Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# Characters that end a wikilink's target or label early.
_LINK_BREAKERS = re.compile(r"[\[\]|#^]+")
_LABEL_BREAKERS = re.compile(r"[\[\]|]+")
# What an Obsidian tag may hold besides letters and digits; anything else becomes "-".
_TAG_OTHER = re.compile(r"[^\w/-]+")


def link_target(name: str, fallback: str) -> str:
    """`name` without the characters that break a wikilink (`fallback` when none is left)."""
    return " ".join(_LINK_BREAKERS.sub(" ", name).split()) or fallback


def wikilink(note: str, label: str | None = None) -> str:
    """`[[note]]`, or `[[note|label]]` when the label differs from the note's name (a note in
    another folder is linked by its path, so it never resolves to a concept of that name)."""
    shown = " ".join(_LABEL_BREAKERS.sub(" ", label).split()) if label is not None else ""
    if not shown or shown == note:
        return f"[[{note}]]"
    return f"[[{note}|{shown}]]"


def obsidian_tags(values: Iterable[Any]) -> list[str]:
    """Each value as an Obsidian tag, each once, in order: no `#`, no spaces (`ciencia ficción`
    becomes `ciencia-ficción`), and not only digits (Obsidian reads `#1984` as no tag)."""
    tags: list[str] = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            continue
        tag = _TAG_OTHER.sub("-", str(value).strip().lstrip("#")).strip("-/")
        if tag and not tag.isdigit() and tag not in tags:
            tags.append(tag)
    return tags


def book_tags(metadata: dict[str, Any]) -> list[str]:
    """The tags a book note's front matter gave: `tags: [novela, clásicos]`, or one text with
    the tags split by commas (`novela, clásicos`) or, without commas, by spaces."""
    value = metadata.get("tags")
    if isinstance(value, str):
        value = value.split(",") if "," in value else value.split()
    return obsidian_tags(value if isinstance(value, list) else [value])


def with_theirs(ours: list[str], theirs: Any) -> list[str]:
    """Our items, then the ones the reader added to the same list property in the note."""
    kept = theirs if isinstance(theirs, list) else [theirs] if isinstance(theirs, str) else []
    return ours + [item for item in kept if isinstance(item, str) and item not in ours]
