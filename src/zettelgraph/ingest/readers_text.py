"""Readers for text a person wrote or saved: markdown and plain text.

Every block keeps its exact 1-based line range in the original file (front matter
included), so a citation can point back at the lines. Text is decoded as UTF-8 (or UTF-16
with a byte-order mark), newlines become '\\n', Unicode is NFC and trailing spaces are cut;
nothing else in a line is changed.

Markdown: ATX headings ('## Soil') make the heading path; setext underlines stay text.
Blocks are paragraphs, whole lists (blank lines between items included) and whole fenced
code blocks; the parent group is the section under the nearest heading of level 1 or 2.
Source code is read by `readers_code.py`, with the same line ranges.

Also home of the small helpers the other readers share (decoding, token counting and
grouping paragraphs into parents of about `GROUP_TOKENS` tokens).
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from zettelgraph.ingest.errors import BookNotesError
from zettelgraph.ingest.frontmatter import front_text, split_front_matter
from zettelgraph.ingest.parsed import Block, BlockKind, DocumentError, ParsedDocument

GROUP_TOKENS = 1000  # a parent chunk of plain text or code holds about this many tokens

_TOKEN = re.compile(r"\w+|[^\w\s]")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")


def count_tokens(text: str) -> int:
    """Words and punctuation marks: a cheap, model-free stand-in for LLM tokens."""
    return len(_TOKEN.findall(text))


def decode_text(data: bytes, path: Path) -> str:
    """The file as NFC text with '\\n' newlines; DocumentError says how to re-save it."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise DocumentError(
                f"invalid UTF-16 text at byte offset {exc.start}. Save it as UTF-8 and ingest "
                "it again",
                path=str(path),
            ) from exc
    else:
        bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
        try:
            text = data[bom:].decode("utf-8")
        except UnicodeDecodeError as exc:
            offset = exc.start + bom
            raise DocumentError(
                f"not valid UTF-8 (byte 0x{data[offset]:02x} at byte offset {offset}). Save it "
                "as UTF-8 (in most editors: 'Save with encoding' > UTF-8) and ingest it again",
                path=str(path),
                line=data.count(b"\n", 0, offset) + 1,
            ) from exc
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text)


def split_lines(text: str) -> list[str]:
    """Lines without trailing spaces; index i is line i + 1 (as editors and `ast` count)."""
    # split("\n"), not splitlines(): form feeds and U+2028 must not shift line numbers.
    lines = [line.rstrip() for line in text.split("\n")]
    if lines and not lines[-1]:
        lines.pop()  # the final newline does not start a line
    return lines


def paragraph_spans(lines: list[str], start: int = 1) -> list[tuple[int, int]]:
    """1-based inclusive (first, last) line of each run of non-blank lines from `start`."""
    spans: list[tuple[int, int]] = []
    first: int | None = None
    for number in range(start, len(lines) + 1):
        if lines[number - 1].strip():
            first = number if first is None else first
        elif first is not None:
            spans.append((first, number - 1))
            first = None
    if first is not None:
        spans.append((first, len(lines)))
    return spans


def span_text(lines: list[str], first: int, last: int) -> str:
    return "\n".join(lines[first - 1 : last])


def token_grouped_blocks(
    lines: list[str], spans: list[tuple[int, int]], kind: BlockKind
) -> list[Block]:
    """One block per span; consecutive spans share a group until it holds ~GROUP_TOKENS."""
    runs: list[list[tuple[int, int, str]]] = []
    size = 0
    for first, last in spans:
        text = span_text(lines, first, last)
        tokens = count_tokens(text)
        if not runs or (size + tokens > GROUP_TOKENS and runs[-1]):
            runs.append([])
            size = 0
        runs[-1].append((first, last, text))
        size += tokens
    blocks: list[Block] = []
    for run in runs:
        title = f"Lines {run[0][0]}–{run[-1][1]}"
        blocks.extend(
            Block(
                text=text,
                location={"line_start": first, "line_end": last},
                group=f"lines-{run[0][0]}",
                group_title=title,
                kind=kind,
            )
            for first, last, text in run
        )
    return blocks


def read_text(text: str, path: Path) -> ParsedDocument:
    """Plain text: a block per paragraph (blank-line separated), grouped by size."""
    lines = split_lines(text)
    blocks = token_grouped_blocks(lines, paragraph_spans(lines), "text")
    return ParsedDocument(path=str(path), file_type="text", blocks=blocks)


def front_matter(
    lines: list[str], path: Path, warnings: list[str] | None = None
) -> tuple[dict[str, object], int]:
    """`split_front_matter` with its errors raised as DocumentError."""
    try:
        return split_front_matter(lines, str(path), warnings)
    except BookNotesError as exc:
        raise DocumentError(exc.message, path=exc.path, line=exc.line) from exc


def front_title_author(front: dict[str, object], path: Path) -> tuple[str | None, str | None]:
    """Pop 'title' and 'author' from front matter (a list of authors is joined)."""
    try:
        title = front_text(front.pop("title", None), "title", str(path))
        author = front_text(front.pop("author", None), "author", str(path))
    except BookNotesError as exc:
        raise DocumentError(exc.message, path=exc.path, line=exc.line) from exc
    return title, author


def fence_opening(line: str) -> tuple[str, int] | None:
    """(fence character, length) when `line` opens a fenced code block."""
    match = _FENCE.match(line)
    # A backtick fence's info string cannot hold a backtick: "```x```" is inline code.
    if not match or (match[1][0] == "`" and "`" in match[2]):
        return None
    return match[1][0], len(match[1])


def fence_closes(line: str, fence: tuple[str, int]) -> bool:
    stripped = line.strip()
    return len(stripped) >= fence[1] and not stripped.strip(fence[0])


@dataclass
class _Pending:
    """A markdown block being collected."""

    first: int
    last: int
    kind: BlockKind
    in_list: bool
    path: tuple[str, ...]
    group: str
    group_title: str


def read_markdown(text: str, path: Path) -> ParsedDocument:
    """Markdown: blocks are paragraphs, whole lists and whole fenced code blocks."""
    lines = split_lines(text)
    warnings: list[str] = []
    front, body_start = front_matter(lines, path, warnings)
    title, author = front_title_author(front, path)
    title = title or _first_h1(lines, body_start)
    # (level, text, line) of the open headings, outermost first.
    headings: list[tuple[int, str, int]] = []
    blocks: list[Block] = []
    pending: _Pending | None = None
    fence: tuple[str, int] | None = None
    fence_line = 0
    blank_since = False  # a blank line followed the pending list

    def flush() -> None:
        nonlocal pending
        if pending is not None:
            blocks.append(
                Block(
                    text=span_text(lines, pending.first, pending.last),
                    location={
                        "heading_path": list(pending.path),
                        "line_start": pending.first,
                        "line_end": pending.last,
                    },
                    group=pending.group,
                    group_title=pending.group_title,
                    kind=pending.kind,
                )
            )
        pending = None

    def start(number: int, kind: BlockKind, in_list: bool) -> _Pending:
        parents = [h for h in headings if h[0] <= 2]
        return _Pending(
            first=number,
            last=number,
            kind=kind,
            in_list=in_list,
            path=tuple(h[1] for h in headings),
            group=f"h{parents[-1][2]}" if parents else "preamble",
            group_title=" > ".join(h[1] for h in parents) or title or path.name,
        )

    for number in range(body_start + 1, len(lines) + 1):
        line = lines[number - 1]
        if fence is not None and pending is not None:  # a fence always has a pending block
            pending.last = number if line.strip() else pending.last
            if fence_closes(line, fence):
                fence = None
                pending.last = number
                if pending.kind == "code":
                    flush()
            continue
        if not line.strip():
            blank_since = pending is not None and pending.in_list
            if not blank_since:
                flush()
            continue
        nested = line[0] in " \t"
        continues_list = bool(_LIST_ITEM.match(line)) or nested
        if pending is not None and blank_since and not continues_list:
            flush()
        blank_since = False
        heading = _ATX.match(line)
        if heading:
            flush()
            if heading[2]:
                level = len(heading[1])
                while headings and headings[-1][0] >= level:
                    headings.pop()
                headings.append((level, heading[2], number))
            continue
        if _THEMATIC_BREAK.match(line):
            flush()
            continue
        opened = fence_opening(line)
        if opened is not None:
            fence, fence_line = opened, number
            if pending is not None and pending.in_list and nested:
                pending.last = number  # code inside a list item stays with the list
                continue
            flush()
            pending = start(number, "code", in_list=False)
            continue
        if pending is None or pending.kind == "code":
            flush()
            pending = start(number, "text", in_list=bool(_LIST_ITEM.match(line)))
        else:
            pending.last = number
            pending.in_list = pending.in_list or bool(_LIST_ITEM.match(line))
    if fence is not None:
        warnings.append(f"line {fence_line}: code fence never closed; read to the end")
    flush()
    return ParsedDocument(
        path=str(path),
        file_type="markdown",
        title=title,
        author=author,
        metadata=front,
        blocks=blocks,
        warnings=warnings,
    )


def _first_h1(lines: list[str], body_start: int) -> str | None:
    """The text of the first '# ' heading outside fenced code."""
    fence: tuple[str, int] | None = None
    for line in lines[body_start:]:
        if fence is not None:
            fence = None if fence_closes(line, fence) else fence
        elif (fence := fence_opening(line)) is None:
            heading = _ATX.match(line)
            if heading and heading[1] == "#" and heading[2]:
                return heading[2]
    return None
