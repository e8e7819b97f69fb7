"""Markdown notes as text, whatever they hold: front matter, sections, and the update that
replaces only what zettelgraph owns.

Pure functions, no I/O, shared by concept notes (`notes.py`) and entity notes
(`entity_notes.py`). An update replaces the owned front matter keys and the bodies of the
owned sections; the person's keys keep their order and text, and everything outside the
owned sections is kept byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from zettelgraph.text import bounded_yaml

# A note's front matter that zettelgraph writes is a few dozen values; a person may add more,
# but not a hundred thousand (an alias bomb in a vault note would otherwise stop `vault sync`).
NOTE_LIMITS = bounded_yaml.YamlLimits(nodes=100_000)
LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_SECTION_END = re.compile(r"#{1,2}(?:[ \t]|\r?\n|\Z)")  # a level-1 or level-2 ATX heading
FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_LINE_SEPARATORS = str.maketrans({"\x85": "\n", "\u2028": "\n", "\u2029": "\n"})
_TOP_HEADING = re.compile(r"^(#{1,2})(?=[ \t]|$)", re.MULTILINE)
_TITLE = re.compile(r"#(?:[ \t]|\r?\n|\Z)")  # a level-1 ATX heading


class NoteFormatError(ValueError):
    """A note zettelgraph cannot update without risking the person's text."""


# A section's heading line, or its names in every language (`labels.every_label`), the first
# the one written: a note written under another language's labels is still read.
Heading = str | tuple[str, ...]


def heading_names(heading: Heading) -> tuple[str, ...]:
    return (heading,) if isinstance(heading, str) else heading


def yaml_text(text: str) -> str:
    # PyYAML writes NEL and the Unicode line/paragraph separators raw and reads them back as
    # other text; they mean a line break anyway.
    return text.translate(_LINE_SEPARATORS)


def dump_front_matter(values: Mapping[str, Any], newline: str) -> str:
    """`values` as a front matter block, `---` lines included."""
    # A wide line keeps each summary on one line, as Obsidian itself writes properties.
    dumped = yaml.safe_dump(dict(values), allow_unicode=True, sort_keys=False, width=1_000_000)
    return "".join(f"{line}{newline}" for line in ["---", *dumped.rstrip("\n").split("\n"), "---"])


def text_block(text: str) -> str:
    text = text.replace("\r\n", "\n").strip()
    if not text:
        return ""
    # A level-1/2 heading inside generated text would split the note's own sections.
    return _TOP_HEADING.sub("###", text) + "\n"


# --- reading ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Parts:
    """A note split into its prefix (BOM), front matter lines (None when absent) and body."""

    prefix: str
    opening: str
    front: list[str] | None
    closing: str
    body: str
    newline: str


def split_note(text: str) -> Parts:
    """`text` cut into its BOM, front matter and body."""
    prefix = "\ufeff" if text.startswith("\ufeff") else ""
    lines = LINE.findall(text[len(prefix) :])
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    if not lines or lines[0].rstrip("\r\n") != "---":
        return Parts(prefix, "", None, "", text[len(prefix) :], newline)
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n") in ("---", "..."):
            body = "".join(lines[index + 1 :])
            return Parts(prefix, lines[0], lines[1:index], lines[index], body, newline)
    # An opening '---' that is never closed is a thematic break, not front matter.
    return Parts(prefix, "", None, "", text[len(prefix) :], newline)


def load_yaml(text: str) -> dict[str, Any]:
    try:
        _, loaded = bounded_yaml.load(text, NOTE_LIMITS)
    except bounded_yaml.YamlLimitError as exc:
        raise NoteFormatError(f"the front matter, line {exc.line + 1}: {exc.problem}") from exc
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
    parts = split_note(text)
    if parts.front is None:
        return {}, parts.body
    return load_yaml("".join(parts.front)), parts.body


def markdown_lines(body: str) -> tuple[list[tuple[int, str]], str | None]:
    """The body's lines outside fenced code blocks, with their offsets, and the fence still
    open at the end (None when every fence is closed)."""
    lines: list[tuple[int, str]] = []
    offset = 0
    fence: str | None = None
    for line in LINE.findall(body):
        match = FENCE.match(line)
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


def is_heading(line: str, heading: Heading) -> bool:
    # "##  Conexiones " is the same heading to a reader; don't add a second one.
    return " ".join(line.split()) in heading_names(heading)


def section_bounds(body: str, heading: Heading) -> tuple[int, int, int] | None:
    """Where the section under `heading` starts (its heading line), where its body starts and
    where it ends in `body`."""
    found: tuple[int, int] | None = None
    for offset, line in markdown_lines(body)[0]:
        if _SECTION_END.match(line):
            if found is not None:
                return (*found, offset)
            if is_heading(line, heading):
                found = (offset, offset + len(line))
    return None if found is None else (*found, len(body))


def section_span(body: str, heading: Heading) -> tuple[int, int] | None:
    """Where the body of the section under `heading` starts and ends in `body`."""
    bounds = section_bounds(body, heading)
    return None if bounds is None else bounds[1:]


def section_lines(body: str, heading: Heading) -> list[str] | None:
    """The non-blank lines of a section (right-stripped), None when it is missing."""
    span = section_span(body, heading)
    if span is None:
        return None
    return [line.rstrip() for line in body[span[0] : span[1]].split("\n") if line.strip()]


# --- updating -----------------------------------------------------------------------------


def update_note(
    existing: str,
    owned_front: Mapping[str, Any],
    owned_keys: Collection[str],
    sections: Mapping[Heading, list[str] | None],
    order: Sequence[Heading],
    *,
    title: str | None = None,
) -> str:
    """`existing` with the `owned_keys` of its front matter replaced by `owned_front`, the
    body of each heading in `sections` replaced by its lines (a heading whose lines are None
    has nothing to show: the section is taken out, heading and all) and, given a `title`, the
    text of its first `# ` heading replaced by it (one is added at the top when there is none).

    The person's front matter keys keep their order and text; missing front matter is added;
    a missing section is added before the first heading that follows it in `order` (the
    note's template), else at the end. Idempotent. Raises NoteFormatError when the front
    matter is not valid YAML (rewriting it would lose the person's keys).
    """
    parts = split_note(existing)
    newline = parts.newline
    owned = dump_front_matter(owned_front, newline)
    if parts.front is None:
        front = owned
    else:
        owned_lines = LINE.findall(owned)[1:-1]
        # A closing '---' that ends the file gets its line break, or the body would join it.
        closing = parts.closing if parts.closing.endswith("\n") else parts.closing + newline
        merged = _merge_front(parts.front, owned_lines, newline, frozenset(owned_keys))
        front = parts.opening + merged + closing
    body = parts.body if title is None else _replace_title(parts.body, title, newline)
    for heading, lines in sections.items():
        if lines is None:
            body = remove_section(body, heading)
            continue
        later = list(order[order.index(heading) + 1 :]) if heading in order else []
        body = _replace_section(body, heading, lines, newline, later)
    return parts.prefix + front + body


def remove_section(body: str, heading: Heading) -> str:
    """`body` without the section under `heading` (its heading line included)."""
    bounds = section_bounds(body, heading)
    if bounds is None:
        return body
    start, _, end = bounds
    if end < len(body):
        return body[:start] + body[end:]
    # The last section: the blank lines that led to it go too.
    kept = body[:start].rstrip("\r\n")
    newline = "\r\n" if body[:start].endswith("\r\n") else "\n"
    return kept + newline if kept else ""


def _replace_title(body: str, title: str, newline: str) -> str:
    for offset, line in markdown_lines(body)[0]:
        if _TITLE.match(line):
            end = offset + len(line)
            ending = line[len(line.rstrip("\r\n")) :]
            return body[:offset] + f"# {title}" + ending + body[end:]
    return f"# {title}{newline}" + body


def _merge_front(
    front: list[str], owned_lines: list[str], newline: str, owned_keys: frozenset[str]
) -> str:
    blocks = _top_level_blocks(front)
    if blocks is None:
        # The person's YAML is too unusual to edit line by line: rewrite it whole, owned
        # keys first, their keys after in order (their values survive, their layout not).
        theirs = {k: v for k, v in load_yaml("".join(front)).items() if k not in owned_keys}
        extra = LINE.findall(dump_front_matter(theirs, newline))[1:-1] if theirs else []
        return "".join(owned_lines + extra)
    out: list[str] = []
    placed = False
    for key, lead, lines in blocks:
        out.extend(lead)
        if key not in owned_keys:
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
    whole = load_yaml("".join(front))
    blocks: list[_Block] = []
    merged: dict[str, Any] = {}
    for lead, lines in raw:
        try:
            part = load_yaml("".join(lines))
        except NoteFormatError:
            return None
        if len(part) != 1 or next(iter(part)) in merged:
            return None
        merged.update(part)
        blocks.append((next(iter(part)), lead, lines))
    if pending:
        blocks.append((None, pending, []))
    return blocks if merged == whole and list(merged) == list(whole) else None


def _replace_section(
    body: str, heading: Heading, lines: list[str], newline: str, later: Sequence[Heading]
) -> str:
    listing = "".join(f"{line}{newline}" for line in lines)
    span = section_span(body, heading)
    if span is not None:
        start, end = span
        gap = newline if end < len(body) else ""  # a blank line before the next heading
        if not body[:start].endswith("\n"):
            listing = newline + listing  # the heading was the file's last, unterminated line
        return body[:start] + listing + gap + body[end:]
    section = f"{heading_names(heading)[0]}{newline}{listing}"
    outside, open_fence = markdown_lines(body)
    following = next((at for at, line in outside if any(is_heading(line, h) for h in later)), None)
    if following is not None:
        return body[:following] + section + newline + body[following:]
    if body and not body.endswith("\n"):
        body += newline
    if open_fence is not None:
        body += open_fence + newline  # else the new section would render as code
    if body.strip():
        body += newline
    return body + section
