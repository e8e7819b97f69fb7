"""Obsidian entity notes as text: a person, place, work, claim... of a template pack.

Pure functions, no I/O (the files are `entities.py`'s). A note holds:

- typed front matter: `entity_id`, `entity_type`, `pack`, `name`, one key per property of the
  entity type (a date as an ISO date, a list as a YAML list, numbers and booleans as such)
  and `entity_relations` (relationship type -> the other entities' ids);
- `# Name`, then `## Descripción`, `## Conexiones` (one `- TYPE: [[link]], ...` line per
  relationship type; one-way relationships pointing at this entity as `- ← TYPE: ...`) and
  `## Pasajes` (each passage it was found in, with its book and place).

zettelgraph owns those front matter keys and the bodies of those three sections, and
rewrites them on every write; the title, the person's own sections and front matter keys are
kept byte for byte (`markdown.update_note`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from zettelgraph.models import Entity
from zettelgraph.packs.schema import PackSchema, PropertyKind
from zettelgraph.vault.markdown import (
    FENCE,
    dump_front_matter,
    parse_note,
    section_lines,
    text_block,
    update_note,
    yaml_text,
)
from zettelgraph.vault.notes import SourceQuote, render_source

DESCRIPTION_HEADING = "## Descripción"
CONNECTIONS_HEADING = "## Conexiones"
PASSAGES_HEADING = "## Pasajes"
SECTIONS = (DESCRIPTION_HEADING, CONNECTIONS_HEADING, PASSAGES_HEADING)
# Owned keys that are not properties; a property with one of these names is written as
# `property_<name>` so it cannot overwrite them.
FIXED_KEYS = ("entity_id", "entity_type", "pack", "name", "entity_relations")
INCOMING = "←"

_LINK_BREAKERS = re.compile(r"[\[\]|#^]+")
_FENCE_LINE = re.compile(rf"^(?={FENCE.pattern})", re.MULTILINE)


@dataclass(frozen=True)
class LinkedEntity:
    """The other end of a relationship. `note` is the vault-relative path of its note without
    `.md` (`09 - narrative/Madrid`), which the writer fills in."""

    id: str
    name: str
    note: str | None = None

    @property
    def link(self) -> str:
        """`[[09 - narrative/Madrid|Madrid]]`: the path finds the note whatever other notes
        share its name; the alias shows the entity's name."""
        alias = " ".join(_LINK_BREAKERS.sub(" ", self.name).split()) or self.id
        if self.note is None:
            return f"[[{alias}]]"
        target = " ".join(_LINK_BREAKERS.sub(" ", self.note).split())
        return f"[[{target}|{alias}]]"


@dataclass(frozen=True)
class EntityNote:
    """Everything an entity note shows.

    `relations` maps a relationship type to the entities this one points at; `incoming` the
    one-way types (no reverse, not symmetric) to the entities that point at this one, which
    would otherwise not show on this note. `passages` are where it was found.
    """

    entity: Entity
    relations: dict[str, list[LinkedEntity]]
    incoming: dict[str, list[LinkedEntity]]
    passages: list[SourceQuote]


# --- typed properties ---------------------------------------------------------------------


def property_key(name: str) -> str:
    """The front matter key of a property."""
    return f"property_{name}" if name in FIXED_KEYS else name


def typed_value(kind: PropertyKind, value: Any) -> Any:
    """`value` as its property type asks, for YAML; a value that does not convert is kept as
    it is (the extraction checks properties, the note does not drop what the store holds)."""
    if value is None:
        return None
    try:
        if kind == "date":
            return _as_date(value)
        if kind == "list":
            items = list(value) if isinstance(value, list | tuple | set) else [value]
            return [_plain(item) for item in items]
        if kind == "boolean":
            return value if isinstance(value, bool) else _as_bool(value)
        if kind in ("integer", "number"):
            return _as_number(kind, value)
    except (TypeError, ValueError, OverflowError):
        return _plain(value)
    return _plain(value)


def _as_date(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.date() if value.time() == datetime.min.time() else value.isoformat()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    try:
        return date.fromisoformat(text)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text  # "1808" or "mayo de 1808": kept as text
    return moment.date() if moment.time() == datetime.min.time() else text


def _as_number(kind: PropertyKind, value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    number = float(value)
    if not math.isfinite(number):
        return _plain(value)
    if number.is_integer() and (kind == "integer" or not isinstance(value, float)):
        return int(number) if abs(number) < 2**53 else int(str(value).strip())
    return value if kind == "integer" else number


def _as_bool(value: Any) -> Any:
    text = str(value).strip().casefold()
    if text in ("true", "yes", "sí", "si", "1"):
        return True
    if text in ("false", "no", "0"):
        return False
    return value


def _plain(value: Any) -> Any:
    """A value YAML's safe dumper writes: text, numbers, booleans, dates, lists, mappings."""
    if isinstance(value, str):
        return yaml_text(value)
    if value is None or isinstance(value, bool | int | float | date):
        return value
    if isinstance(value, list | tuple | set):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def property_values(entity: Entity, schema: PackSchema) -> dict[str, Any]:
    """The entity's properties as front matter: the type's properties in the pack's order,
    then any other it has (by name); missing values are left out."""
    spec = schema.entity_types.get(entity.entity_type)
    kinds: dict[str, PropertyKind] = {p.name: p.type for p in spec.properties} if spec else {}
    names = [*kinds, *sorted(set(entity.properties) - set(kinds))]
    out: dict[str, Any] = {}
    for name in names:
        value = entity.properties.get(name)
        kind = kinds.get(name)
        typed = typed_value(kind, value) if kind is not None else _plain(value)
        if typed is not None:
            out[property_key(name)] = typed
    return out


def owned_keys(entity: Entity, schema: PackSchema) -> tuple[str, ...]:
    """The front matter keys zettelgraph owns in this entity's note: the fixed ones and one
    per property the type defines or the entity has (so a value removed is removed)."""
    spec = schema.entity_types.get(entity.entity_type)
    names = [p.name for p in spec.properties] if spec else []
    names += sorted(set(entity.properties) - set(names))
    return (*FIXED_KEYS, *(property_key(name) for name in names))


# --- rendering ----------------------------------------------------------------------------


def relationship_types(note: EntityNote, schema: PackSchema) -> list[str]:
    """The relationship types an entity of this type may have, in the schema's order, then
    any other type the note has. Listing empty types too keeps the key set stable."""
    kind = note.entity.entity_type
    types = [name for name, spec in schema.relationship_types.items() if kind in spec.source_types]
    return types + sorted(set(note.relations) - set(types))


def owned_front_matter(note: EntityNote, schema: PackSchema) -> dict[str, Any]:
    """The front matter keys zettelgraph owns, with their values for this note."""
    entity = note.entity
    relations = {
        kind: [target.id for target in note.relations.get(kind, [])]
        for kind in relationship_types(note, schema)
    }
    return {
        "entity_id": entity.id,
        "entity_type": entity.entity_type,
        "pack": entity.pack,
        "name": yaml_text(" ".join(entity.name.split())),
        **property_values(entity, schema),
        "entity_relations": relations,
    }


def connection_lines(note: EntityNote, schema: PackSchema) -> list[str]:
    """One `- TYPE: [[link]], ...` line per relationship type (empty ones included), then one
    `- ← TYPE: ...` line per one-way type pointing here."""
    lines = []
    for kind in relationship_types(note, schema):
        links = ", ".join(target.link for target in note.relations.get(kind, []))
        lines.append(f"- {kind}: {links}".rstrip())
    for kind in sorted(note.incoming):
        links = ", ".join(source.link for source in note.incoming[kind])
        lines.append(f"- {INCOMING} {kind}: {links}".rstrip())
    return lines


def description_lines(entity: Entity) -> list[str]:
    # A fence in generated text would hide the sections after it from the next update.
    text = _FENCE_LINE.sub("\\\\", text_block(entity.description))
    return text.rstrip("\n").split("\n") if text else []


def passage_lines(note: EntityNote) -> list[str]:
    text = "\n".join(render_source(passage) for passage in note.passages)
    return text.rstrip("\n").split("\n") if text else []


def render_entity_note(note: EntityNote, schema: PackSchema) -> str:
    """A new note: front matter, `# Name`, Descripción, Conexiones and Pasajes."""
    sections = {
        DESCRIPTION_HEADING: description_lines(note.entity),
        CONNECTIONS_HEADING: connection_lines(note, schema),
        PASSAGES_HEADING: passage_lines(note),
    }
    body = "".join(
        f"\n{heading}\n" + "".join(f"{line}\n" for line in lines)
        for heading, lines in sections.items()
    )
    title = " ".join(note.entity.name.split())
    return dump_front_matter(owned_front_matter(note, schema), "\n") + f"# {title}\n" + body


def update_entity_note(existing: str, note: EntityNote, schema: PackSchema) -> str:
    """`existing` with the owned front matter keys and the three sections' bodies replaced;
    the rest kept. Raises NoteFormatError when the front matter is not valid YAML."""
    return update_note(
        existing,
        owned_front_matter(note, schema),
        owned_keys(note.entity, schema),
        {
            DESCRIPTION_HEADING: description_lines(note.entity),
            CONNECTIONS_HEADING: connection_lines(note, schema),
            PASSAGES_HEADING: passage_lines(note),
        },
        SECTIONS,
    )


# --- comparing ----------------------------------------------------------------------------


def entity_note_state(text: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """What zettelgraph owns in a note: the values of `keys` (None when missing) and the
    non-blank lines of each owned section (None when it is missing)."""
    front, body = parse_note(text)
    state: dict[str, Any] = {key: front.get(key) for key in keys}
    for heading in SECTIONS:
        state[heading] = section_lines(body, heading)
    return state


def expected_entity_state(note: EntityNote, schema: PackSchema) -> dict[str, Any]:
    """The `entity_note_state` of a note written from `note`."""
    return entity_note_state(render_entity_note(note, schema), owned_keys(note.entity, schema))
