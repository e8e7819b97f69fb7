"""Obsidian concept notes as text: render a new note, update one a person may have edited.

Pure functions, no I/O. A note has two kinds of content:

- what zettelgraph owns and rewrites on every sync: the front matter keys in `OWNED_KEYS` and
  the body of the `## Conexiones` section;
- everything else (the person's text in Análisis, their own sections and front matter keys),
  which an update keeps byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from zettelgraph.locations import page_label
from zettelgraph.models import Concept
from zettelgraph.relations import DEFAULT_VOCABULARY, RelationVocabulary

OWNED_KEYS = ("entity_id", "entity_type", "short_summary", "summary", "concept_relations")
CONNECTIONS_HEADING = "## Conexiones"
SOURCES_HEADING = "## Fuente"

_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_SECTION_END = re.compile(r"#{1,2}(?:[ \t]|\r?\n|\Z)")  # a level-1 or level-2 ATX heading
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_LINK_BREAKERS = re.compile(r"[\[\]|#^]+")
_LINE_SEPARATORS = str.maketrans({"\x85": "\n", "\u2028": "\n", "\u2029": "\n"})
_TOP_HEADING = re.compile(r"^(#{1,2})(?=[ \t]|$)", re.MULTILINE)


class NoteFormatError(ValueError):
    """A note zettelgraph cannot update without risking the person's text."""


@dataclass(frozen=True)
class SourceQuote:
    """A quote attributed to the concept (Quote -[SUPPORTS]-> Concept) and where it is from."""

    quote_id: str
    text: str
    content_title: str
    author: str | None
    page: str | None
    # Where a document passage is ("slide 3, speaker notes", "Intro > Setup, lines 4–9");
    # shown instead of the page when given.
    place: str | None = None


@dataclass(frozen=True)
class LinkedConcept:
    """The target of a relation. `note_name` is the target note's file stem (the writer fills
    it in); without it the title, cleaned of characters that break a wikilink, is used."""

    id: str
    title: str
    note_name: str | None = None

    @property
    def link_name(self) -> str:
        name = self.note_name if self.note_name is not None else self.title
        return " ".join(_LINK_BREAKERS.sub(" ", name).split()) or self.id


@dataclass(frozen=True)
class ConceptNote:
    """Everything a concept note shows.

    `relations` maps a relation type to the targets of this concept's outgoing
    concept-to-concept relations of that type.
    """

    concept: Concept
    relations: dict[str, list[LinkedConcept]]
    sources: list[SourceQuote]


# --- rendering ----------------------------------------------------------------------------


def relation_types(note: ConceptNote, vocabulary: RelationVocabulary) -> list[str]:
    """Every type of the vocabulary in its own order, then any other type the note has.

    Listing empty types too keeps the front matter's key set and the Conexiones lines stable.
    """
    types = list(vocabulary.reverses)
    return types + sorted(set(note.relations) - set(types))


def owned_front_matter(
    note: ConceptNote, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
) -> dict[str, Any]:
    """The front matter keys zettelgraph owns, with their values for this note."""
    concept = note.concept
    return {
        "entity_id": concept.id,
        "entity_type": "Concept",
        "short_summary": _yaml_text(concept.summary_short),
        "summary": _yaml_text(concept.summary),
        "concept_relations": {
            kind: [target.id for target in note.relations.get(kind, [])]
            for kind in relation_types(note, vocabulary)
        },
    }


def _yaml_text(text: str) -> str:
    # PyYAML writes NEL and the Unicode line/paragraph separators raw and reads them back as
    # other text; they mean a line break anyway.
    return text.translate(_LINE_SEPARATORS)


def connection_lines(
    note: ConceptNote, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
) -> list[str]:
    """One `- TYPE: [[Name]], [[Name]]` line per relation type (empty types included)."""
    lines = []
    for kind in relation_types(note, vocabulary):
        links = ", ".join(f"[[{target.link_name}]]" for target in note.relations.get(kind, []))
        lines.append(f"- {kind}: {links}".rstrip())
    return lines


def render_concept_note(
    note: ConceptNote, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
) -> str:
    """A new note in the vault's template: front matter, title, Concepto, Análisis,
    Conexiones (all relation types) and Fuente (each source quote with its reference)."""
    concept = note.concept
    return "".join(
        [
            _dump_front_matter(owned_front_matter(note, vocabulary), "\n"),
            f"# {' '.join(concept.title.split())}\n",
            "\n## Concepto\n",
            _text_block(concept.concept),
            "\n## Análisis\n",
            _text_block(concept.analysis),
            f"\n{CONNECTIONS_HEADING}\n",
            "".join(f"{line}\n" for line in connection_lines(note, vocabulary)),
            f"\n{SOURCES_HEADING}\n",
            "\n".join(_render_source(source) for source in note.sources),
        ]
    )


def _dump_front_matter(values: Mapping[str, Any], newline: str) -> str:
    # A wide line keeps each summary on one line, as Obsidian itself writes properties.
    dumped = yaml.safe_dump(dict(values), allow_unicode=True, sort_keys=False, width=1_000_000)
    return "".join(f"{line}{newline}" for line in ["---", *dumped.rstrip("\n").split("\n"), "---"])


def _text_block(text: str) -> str:
    text = text.replace("\r\n", "\n").strip()
    if not text:
        return ""
    # A level-1/2 heading inside generated text would split the note's own sections.
    return _TOP_HEADING.sub("###", text) + "\n"


def _render_source(source: SourceQuote) -> str:
    quoted = "".join(
        f"> {line}\n" if line.strip() else ">\n"
        for line in source.text.replace("\r\n", "\n").strip().split("\n")
    )
    title = " ".join(source.content_title.split()).replace("*", r"\*")
    reference = [f"*{title}*"]
    if source.author:
        reference.append(source.author)
    if source.place:
        reference.append(source.place)
    elif source.page:
        reference.append(page_label(source.page))
    return f"{quoted}\n— {', '.join(reference)}\n"


# --- reading ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Parts:
    """A note split into its prefix (BOM), front matter lines (None when absent) and body."""

    prefix: str
    opening: str
    front: list[str] | None
    closing: str
    body: str
    newline: str


def _split(text: str) -> _Parts:
    prefix = "\ufeff" if text.startswith("\ufeff") else ""
    lines = _LINE.findall(text[len(prefix) :])
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    if not lines or lines[0].rstrip("\r\n") != "---":
        return _Parts(prefix, "", None, "", text[len(prefix) :], newline)
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n") in ("---", "..."):
            body = "".join(lines[index + 1 :])
            return _Parts(prefix, lines[0], lines[1:index], lines[index], body, newline)
    # An opening '---' that is never closed is a thematic break, not front matter.
    return _Parts(prefix, "", None, "", text[len(prefix) :], newline)


def _load_yaml(text: str) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise NoteFormatError(f"the front matter is not valid YAML: {exc}") from exc
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise NoteFormatError("the front matter is not a mapping of 'key: value' lines")
    return {str(key): value for key, value in loaded.items()}


def parse_note(text: str) -> tuple[dict[str, Any], str]:
    """The note's front matter (empty when it has none) and its body.

    Raises NoteFormatError when the front matter is not a valid YAML mapping.
    """
    parts = _split(text)
    if parts.front is None:
        return {}, parts.body
    return _load_yaml("".join(parts.front)), parts.body


def _markdown_lines(body: str) -> tuple[list[tuple[int, str]], str | None]:
    """The body's lines outside fenced code blocks, with their offsets, and the fence still
    open at the end (None when every fence is closed)."""
    lines: list[tuple[int, str]] = []
    offset = 0
    fence: str | None = None
    for line in _LINE.findall(body):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None:
            # A fence closes with at least as many of the same character, nothing after.
            marker = match.group(1) if match else ""
            rest = line[match.end() :] if match else "x"
            if marker[:1] == fence[0] and len(marker) >= len(fence) and not rest.strip():
                fence = None
        else:
            lines.append((offset, line))
        offset += len(line)
    return lines, fence


def _is_heading(line: str, heading: str) -> bool:
    # "##  Conexiones " is the same heading to a reader; don't add a second one.
    return " ".join(line.split()) == heading


def _connections_span(body: str) -> tuple[int, int] | None:
    """Where the body of the Conexiones section starts and ends in `body`."""
    start: int | None = None
    for offset, line in _markdown_lines(body)[0]:
        if _SECTION_END.match(line):
            if start is not None:
                return start, offset
            if _is_heading(line, CONNECTIONS_HEADING):
                start = offset + len(line)
    return None if start is None else (start, len(body))


def _connections(body: str) -> list[str] | None:
    span = _connections_span(body)
    if span is None:
        return None
    return [line.rstrip() for line in body[span[0] : span[1]].split("\n") if line.strip()]


def note_state(text: str) -> dict[str, Any]:
    """What zettelgraph owns in a note: the owned front matter values (None when missing) and
    `connections`, the non-blank lines of the Conexiones section (None when it is missing).

    Two notes with equal states need no update, whatever their formatting.
    """
    front, body = parse_note(text)
    state = {key: front.get(key) for key in OWNED_KEYS}
    state["connections"] = _connections(body)
    return state


def expected_state(
    note: ConceptNote, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
) -> dict[str, Any]:
    """The `note_state` a note written from `note` has."""
    return note_state(render_concept_note(note, vocabulary))


# --- updating -----------------------------------------------------------------------------


def update_concept_note(
    existing: str, note: ConceptNote, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
) -> str:
    """`existing` with only the owned front matter keys and the Conexiones body replaced.

    The person's front matter keys keep their order and text; missing front matter or a
    missing Conexiones section is added. Idempotent. Raises NoteFormatError when the front
    matter is not valid YAML (rewriting it would lose the person's keys).
    """
    parts = _split(existing)
    newline = parts.newline
    owned = _dump_front_matter(owned_front_matter(note, vocabulary), newline)
    if parts.front is None:
        front = owned
    else:
        owned_lines = _LINE.findall(owned)[1:-1]
        # A closing '---' that ends the file gets its line break, or the body would join it.
        closing = parts.closing if parts.closing.endswith("\n") else parts.closing + newline
        front = parts.opening + _merge_front(parts.front, owned_lines, newline) + closing
    lines = connection_lines(note, vocabulary)
    return parts.prefix + front + _replace_connections(parts.body, lines, newline)


def _merge_front(front: list[str], owned_lines: list[str], newline: str) -> str:
    blocks = _top_level_blocks(front)
    if blocks is None:
        # The person's YAML is too unusual to edit line by line: rewrite it whole, owned
        # keys first, their keys after in order (their values survive, their layout not).
        theirs = {k: v for k, v in _load_yaml("".join(front)).items() if k not in OWNED_KEYS}
        extra = _LINE.findall(_dump_front_matter(theirs, newline))[1:-1] if theirs else []
        return "".join(owned_lines + extra)
    out: list[str] = []
    placed = False
    for key, lead, lines in blocks:
        out.extend(lead)
        if key not in OWNED_KEYS:
            out.extend(lines)
        elif not placed:
            out.extend(owned_lines)
            placed = True
    if not placed:
        # Owned keys go first, after any comment lines that open the front matter.
        opening = len(blocks[0][1]) if blocks else 0
        out[opening:opening] = owned_lines
    return "".join(out)


# (key, the blank and comment lines before it, the key's own lines); key None: trailing lines
_Block = tuple[str | None, list[str], list[str]]


def _top_level_blocks(front: list[str]) -> list[_Block] | None:
    """The front matter cut into one block per top-level key, or None when the cut would not
    reproduce the YAML exactly (then the caller falls back to a full rewrite)."""
    raw: list[tuple[list[str], list[str]]] = []
    pending: list[str] = []
    for line in front:
        bare = line.rstrip("\r\n")
        if not bare.strip() or bare.startswith("#"):
            pending.append(line)  # blank or comment: goes with what follows it
        elif bare[0] in " \t-":
            if not raw:
                return None
            raw[-1][1].extend([*pending, line])  # indented value or list item of the key above
            pending = []
        else:
            raw.append((pending, [line]))
            pending = []
    whole = _load_yaml("".join(front))
    blocks: list[_Block] = []
    merged: dict[str, Any] = {}
    for lead, lines in raw:
        try:
            part = _load_yaml("".join(lines))
        except NoteFormatError:
            return None
        if len(part) != 1 or next(iter(part)) in merged:
            return None
        merged.update(part)
        blocks.append((next(iter(part)), lead, lines))
    if pending:
        blocks.append((None, pending, []))
    return blocks if merged == whole and list(merged) == list(whole) else None


def _replace_connections(body: str, lines: list[str], newline: str) -> str:
    listing = "".join(f"{line}{newline}" for line in lines)
    span = _connections_span(body)
    if span is not None:
        start, end = span
        gap = newline if end < len(body) else ""  # a blank line before the next heading
        if not body[:start].endswith("\n"):
            listing = newline + listing  # the heading was the file's last, unterminated line
        return body[:start] + listing + gap + body[end:]
    section = f"{CONNECTIONS_HEADING}{newline}{listing}"
    outside, open_fence = _markdown_lines(body)
    sources = next((at for at, line in outside if _is_heading(line, SOURCES_HEADING)), None)
    if sources is not None:
        return body[:sources] + section + newline + body[sources:]
    if body and not body.endswith("\n"):
        body += newline
    if open_fence is not None:
        body += open_fence + newline  # else the new section would render as code
    if body.strip():
        body += newline
    return body + section
