"""Parse markdown book notes (front matter + a '# Citas' section) into quotes.

Pure: no LLM, no store. The rules are documented with examples in docs/booknotes.md.
Quote text is never rewritten: lines are trimmed and joined with one space, and markup
(blockquote/list markers, comments, trailing page references) is removed, nothing else.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from zettelgraph.ingest.errors import BookNotesError, NoQuotesSectionError, read_limited
from zettelgraph.ingest.frontmatter import front_text, split_front_matter

MIN_QUOTE_CHARS = 20
# About eight printed pages: a longer "quote" is a pasted chapter or a file with no line
# breaks, and a reader's concepts could not cite it usefully (nor could it be embedded whole).
MAX_QUOTE_CHARS = 20_000
# Files that may be book notes; other types (and notes without a quotes section, when given
# by name) are read as documents.
NOTE_SUFFIXES = (".md", ".markdown", ".txt")
QUOTE_HEADINGS = frozenset({"citas", "quotes", "highlights"})
_SNIFF_BYTES = 8192  # NUL bytes this early mean binary (or UTF-16), as git and grep assume

_NUM = r"[0-9]+(?:\s*[-–—]\s*[0-9]+)?"
_PAGE_WORD = r"(?:pp?|pgs?|p[áa]gs?|p[áa]ginas?|pages?)"
_LOC_WORD = r"(?:loc(?:ations?|s)?|posici[óo]n(?:es)?|pos)"
_REF = re.compile(rf"(?:(?:(?P<loc>{_LOC_WORD})|{_PAGE_WORD})\.?:?\s*)?(?P<num>{_NUM})", re.I)
_KEYWORD_REF = rf"(?:{_PAGE_WORD}|{_LOC_WORD})\.?:?\s*{_NUM}"
# A page reference at the end of a quote needs a keyword, so "(1809)" stays part of the text.
_INLINE_REF = re.compile(
    rf"\s+(?:[—–]|--?)\s*({_KEYWORD_REF})$"
    rf"|\s*\(\s*({_KEYWORD_REF})\s*\)$|\s*\[\s*({_KEYWORD_REF})\s*\]$",
    re.I,
)
_LEADING_DASH = re.compile(r"^(?:[—–]|--?)\s*")
_THEMATIC_BREAK = re.compile(r"^(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_BULLET = re.compile(r"^[-*+][ \t]+")
_BLOCKQUOTE = re.compile(r"^(?:>[ \t]*)+")
_CALLOUT = re.compile(r"^\[![^\]]+\][+-]?(?:\s.*)?$")  # Obsidian "> [!quote] Title" header
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")  # CommonMark fenced code
_COMMENT_CLOSERS = {"<!--": "-->", "%%": "%%"}
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


class ParsedQuote(BaseModel):
    """One quote exactly as written (trimmed lines joined by one space)."""

    model_config = ConfigDict(frozen=True)

    text: str
    section: str | None
    page: str | None
    line: int = Field(ge=1, description="1-based line where the quote starts.")


class ParsedNotes(BaseModel):
    """Everything a book-notes file holds; defaults for a missing title/author are the caller's."""

    title: str | None
    author: str | None
    metadata: dict[str, Any] = Field(default_factory=dict)
    quotes: list[ParsedQuote] = Field(default_factory=list)
    sections: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def read_notes_file(path: Path, *, max_bytes: int) -> str:
    """Read a notes file as text (UTF-8, BOM stripped, newlines normalised to '\\n').

    Raises BookNotesError for a missing file, a directory, an empty, too large, binary or
    non-UTF-8 file, each with a message that says what to do.
    """
    name = str(path)
    data = read_limited(
        path, max_bytes=max_bytes, error=BookNotesError, expected="a markdown (.md) notes file"
    )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise BookNotesError("is UTF-16 text. Re-save it as UTF-8", path=name)
    if b"\x00" in data[:_SNIFF_BYTES]:
        raise BookNotesError(
            "looks like a binary file (it contains NUL bytes). Export your notes as markdown text",
            path=name,
        )
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    try:
        text = data[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        pos = exc.start + bom
        breaks = list(_LINE_BREAK.finditer(data, 0, pos))
        column = pos - (breaks[-1].end() if breaks else 0) + 1
        raise BookNotesError(
            f"invalid UTF-8 (byte 0x{data[pos]:02x} at byte column {column}). "
            "Re-save the file as UTF-8",
            path=name,
            line=len(breaks) + 1,
        ) from exc
    if not text.strip():
        raise BookNotesError("file is empty. Add a '# Citas' section with your quotes", path=name)
    return _normalise_newlines(text)


def parse_booknotes(text: str, *, source: str = "<text>") -> ParsedNotes:
    """Parse book notes: front matter, then quotes from every '# Citas' section.

    Problems that lose nothing the user wrote are warnings ("line N: ..."); notes that
    yield no quotes at all, or whose front matter is broken, raise BookNotesError.
    """
    lines = _normalise_newlines(text.removeprefix("\ufeff")).split("\n")
    warnings: list[str] = []
    front, body_start = split_front_matter(lines, source, warnings)
    title = front_text(front.pop("title", None), "title", source)
    author = front_text(front.pop("author", None), "author", source)
    collector = _Collector(warnings)
    quote_headings: list[tuple[int, str]] = []
    in_quotes = False
    fence: tuple[str, int] | None = None  # (marker, line) while inside fenced code
    for number, line in _without_comments(lines, body_start, warnings):
        heading = _heading(line)
        if fence:
            closing = line.strip()
            if closing.startswith(fence[0]) and not closing.strip(fence[0][0]):
                fence = None
        elif opened := _FENCE.match(line):
            # Code is skipped so that a '# comment' in it does not end the quotes section.
            fence = (opened[1], number)
            if in_quotes:
                collector.end_item()
                warnings.append(f"line {number}: fenced code ignored; quotes are plain paragraphs")
        elif heading and heading[0] == 1:
            collector.start_section(None, number)
            if in_quotes and not heading[1]:  # a stray '#' would silently end the quotes
                warnings.append(f"line {number}: empty '#' heading ends the quotes section")
            in_quotes = _is_quotes_heading(heading[1])
            if in_quotes:
                quote_headings.append((number, line.strip()))
        elif in_quotes and heading:
            collector.start_section(heading[1], number)
        elif in_quotes:
            collector.feed(number, line.strip())
    collector.end_item()
    if fence:
        warnings.append(f"line {fence[1]}: code fence never closed; the rest of the file ignored")
    if not quote_headings:
        # '#Citas' without a space is an Obsidian tag, not a heading: a common slip.
        tag = any(
            re.match(r"#+[^\s#]", line) and _is_quotes_heading(line.lstrip("#")) for line in lines
        )
        raise NoQuotesSectionError(
            "no '# Citas' (or '# Quotes' / '# Highlights') section found; add one above your "
            "quotes" + (" (a heading needs a space after '#')" if tag else ""),
            path=source,
        )
    if collector.too_long:
        first, size = collector.too_long[0]
        more = len(collector.too_long) - 1
        raise BookNotesError(
            f"the quote starting here is {size:,} characters long, more than the "
            f"{MAX_QUOTE_CHARS:,} a quote may have (about eight pages)"
            + (f"; {more} more quotes are too" if more else "")
            + ". Split it into the passages you mean to quote, each in its own paragraph",
            path=source,
            line=first,
        )
    if not collector.quotes:
        heading_line, heading_text = quote_headings[0]
        short = collector.fragments
        plural = "s" if short > 1 else ""
        dropped = f" ({short} fragment{plural} under {MIN_QUOTE_CHARS} characters)" if short else ""
        raise BookNotesError(
            f"the '{heading_text}' section has no quotes{dropped}. Put each quote of at least "
            f"{MIN_QUOTE_CHARS} characters in its own paragraph under it",
            path=source,
            line=heading_line,
        )
    return ParsedNotes(
        title=title,
        author=author,
        metadata=front,
        quotes=collector.quotes,
        sections=collector.sections,
        warnings=sorted(warnings, key=lambda warning: int(warning[5 : warning.index(":")])),
    )


def has_quotes_section(text: str) -> bool:
    """Whether a text is book notes: it has a quotes section (even a broken one, whose errors
    the book-notes parser should report rather than the file being read as a document)."""
    try:
        parse_booknotes(text)
    except NoQuotesSectionError:
        return False
    except BookNotesError:
        return True
    return True


@dataclass
class _Item:
    """A quote being collected: 'plain' paragraph, 'bullet' item or 'block' (blockquote)."""

    kind: str
    line: int
    parts: list[str] = field(default_factory=list)


class _Collector:
    """Turns the lines of a quotes section into quotes, one line at a time."""

    def __init__(self, warnings: list[str]) -> None:
        self.warnings = warnings
        self.quotes: list[ParsedQuote] = []
        self.sections: list[str] = []
        self.section: str | None = None
        self.fragments = 0
        self.too_long: list[tuple[int, int]] = []  # (line, characters) of overlong quotes
        self.item: _Item | None = None
        self.open = False  # whether a page line may still attach to the last quote

    def start_section(self, name: str | None, number: int) -> None:
        self.end_item()
        self.open = False
        if name == "":
            self.warnings.append(
                f"line {number}: empty heading; the quotes after it get no section"
            )
        self.section = name or None
        if self.section and self.section not in self.sections:
            self.sections.append(self.section)

    def feed(self, number: int, line: str) -> None:
        if not line or _THEMATIC_BREAK.match(line):
            self.end_item()
            return
        marker = _BLOCKQUOTE.match(line)
        content = line[marker.end() :].strip() if marker else line
        page = _page_ref(content)
        if page is not None:
            self.end_item()
            self._attach_page(number, content, page)
        elif marker:
            if self.item is None or self.item.kind != "block":
                self.end_item()
                self.item = _Item("block", number)
                if _CALLOUT.match(content):
                    return  # the callout's type and title are markup, not quote text
            if content:
                if not self.item.parts:
                    self.item.line = number
                self.item.parts.append(content)
        elif bullet := _BULLET.match(line):
            self.end_item()
            self.item = _Item("bullet", number, [line[bullet.end() :]])
        elif self.item is not None and self.item.kind != "block":
            self.item.parts.append(line)
        else:
            self.end_item()
            self.item = _Item("plain", number, [line])

    def end_item(self) -> None:
        item, self.item = self.item, None
        if item is None or not item.parts:
            return
        text, page = " ".join(item.parts), None
        # Only the tail can hold a reference; searching it alone keeps long quotes linear.
        if inline := _INLINE_REF.search(text, max(0, len(text) - 80)):
            page = _page_ref(next(group for group in inline.groups() if group))
            text = text[: inline.start()].rstrip()
        if len(text) < MIN_QUOTE_CHARS:
            self.fragments += 1
            self.open = False
            self.warnings.append(
                f"line {item.line}: fragment '{text}' is shorter than {MIN_QUOTE_CHARS} "
                "characters; not kept as a quote"
            )
            return
        if len(text) > MAX_QUOTE_CHARS:
            self.too_long.append((item.line, len(text)))
        self.quotes.append(ParsedQuote(text=text, section=self.section, page=page, line=item.line))
        self.open = True

    def _attach_page(self, number: int, written: str, page: str) -> None:
        last = self.quotes[-1] if self.open else None
        if last is None:
            self.warnings.append(
                f"line {number}: page reference '{written}' has no quote right before it; ignored"
            )
        elif last.page is not None:
            self.warnings.append(
                f"line {number}: page reference '{written}' ignored; the quote on line "
                f"{last.line} already has page '{last.page}'"
            )
        else:
            self.quotes[-1] = last.model_copy(update={"page": page})


def _page_ref(text: str) -> str | None:
    """The normalised page ("124-125", "loc 1234") if the whole text is a page reference."""
    if len(text) > 60:  # a page reference is short; skip the regex on long lines
        return None
    text = _LEADING_DASH.sub("", text, count=1)
    if len(text) >= 2 and (text[0], text[-1]) in {("(", ")"), ("[", "]")}:
        text = text[1:-1].strip()
    match = _REF.fullmatch(text)
    if match is None:
        return None
    number = re.sub(r"\s*[-–—]\s*", "-", match["num"])
    return f"loc {number}" if match["loc"] else number


def _heading(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading ('## Name', optional closing '#'s), else None.

    Hand-written rather than a regex: a lazy heading regex backtracks quadratically on
    long runs of spaces.
    """
    stripped = line.lstrip(" ")
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if len(line) - len(stripped) > 3 or not 1 <= level <= 6 or rest[:1] not in ("", " ", "\t"):
        return None  # '#tag' is an Obsidian tag, '####### x' is text (CommonMark)
    rest = rest.strip()
    closed = rest.rstrip("#")
    if closed != rest and (not closed or closed[-1] in " \t"):
        rest = closed.strip()
    return level, rest


def _is_quotes_heading(text: str) -> bool:
    # Accent- and case-insensitive so "# CITAS:" and "# Cítas" both count.
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    return bare.strip().removesuffix(":").strip() in QUOTE_HEADINGS


def _without_comments(lines: list[str], start: int, warnings: list[str]) -> list[tuple[int, str]]:
    """(line number, right-trimmed line) pairs from `start` on, with comments removed.

    A line that held only comment is dropped rather than made blank, so a comment between
    two lines of a quote does not split it. Scans with str.find so that hostile input
    (thousands of unclosed '<!--') stays linear.
    """
    body = "\n".join(lines[start:])
    kept: list[str] = []
    touched: set[int] = set()  # 0-based body lines a comment covers, fully or partly
    next_open = {"<!--": body.find("<!--"), "%%": body.find("%%")}
    position = line = counted = 0
    while opens := [(at, opener) for opener, at in next_open.items() if at >= 0]:
        at, opener = min(opens)
        closer = _COMMENT_CLOSERS[opener]
        close = body.find(closer, at + len(opener))
        line += body.count("\n", counted, at)
        counted = at
        if close < 0:
            # Renderers would hide the rest of the file; keeping it as text loses nothing.
            warnings.append(f"line {start + line + 1}: '{opener}' is never closed; kept as text")
            next_open[opener] = -1  # no closer after this one means none after later ones
            continue
        end = close + len(closer)
        spanned = body.count("\n", at, end)
        touched.update(range(line, line + spanned + 1))
        before = body[position:at]
        if body[end : end + 1] in (" ", "\t"):  # "a <!-- x --> b" reads "a b", not "a  b"
            before = before.rstrip(" \t")
        kept.append(before + "\n" * spanned)
        position = end
        for other, other_at in next_open.items():
            if 0 <= other_at < end:
                next_open[other] = body.find(other, end)
    kept.append(body[position:])
    return [
        (start + index + 1, text.rstrip())
        for index, text in enumerate("".join(kept).split("\n"))
        if text.strip() or index not in touched
    ]


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
