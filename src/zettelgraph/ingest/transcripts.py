"""Chat transcripts: conversations with an AI (or between people) read as turns.

Markdown or text where a turn starts with a speaker label: `**User:** text`, `**User**:
text`, `User: text`, `> **Claude:** text`, or a heading that is only a name (`## User`,
`### Assistant:`). Lines inside fenced code never start a turn. Chat exports in JSON are
`chat_exports.py`'s, and their turns are grouped by the rule below too.

Speakers are the AI-chat roles in `_KNOWN` (user, human, me, you, assistant, ai, chatgpt,
gpt-4o, claude, gemini, bot, system, ...; "You said:" as ChatGPT's copy writes it is "You").
In a file without them (an interview, a Q&A), any capitalised name of at most three words
labelling at least two turns counts, except common labels ("Note", "Example"). With known
roles present other labels are ignored, so a "Solution:" line does not split an answer.

A turn's text follows its label up to the next label (without the label, and without '>'
marks when the label is in a blockquote; rules around it dropped). Text before the first
turn is a "preamble" block, and a '# ' heading there is the title if front matter has none.

Auto-detection (a `.md` or `.txt` read as a transcript without --type) wants mostly turns:
at least two turns by two speakers, at most three non-blank lines (or a fifth of them)
before the first turn, and at least one paragraph in five starting a turn.

Groups are exchanges: a user turn and the replies after it. Consecutive user turns share
an exchange; turns before the first user turn (a system prompt, a greeting) join the first
exchange. Without a user-like role, the first speaker plays the user.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path
from typing import Any

from zettelgraph.ingest.parsed import Block, DocumentError, ParsedDocument
from zettelgraph.ingest.readers_text import (
    fence_closes,
    fence_opening,
    front_matter,
    front_title_author,
    paragraph_spans,
    split_lines,
)

# "You said:" / "ChatGPT said:" is how ChatGPT's own copy of a chat labels turns.
_KNOWN = re.compile(
    r"(?:user|human|me|you|assistant|ai|chatgpt|gpt[\w.-]*|claude[\w. -]*|gemini[\w. -]*"
    r"|bard|bot|chatbot|system|copilot|llama[\w.-]*|mistral|perplexity|grok|deepseek)(?: said)?"
)
_USER_ROLES = frozenset({"user", "human", "me", "you"})
STOP_LABELS = frozenset(
    "note notes tip warning caution important example examples "  # noqa: SIM905
    "summary source sources step todo see also date time title author tags tag update edit "
    "answer question result output input error http https".split()
)
_NAME = r"[^\W\d_][\w'’. -]{0,31}?"
_BOLD = r"(?:\*\*|__)"
_HEADING_TURN = re.compile(
    rf"^ {{0,3}}#{{1,6}}[ \t]+{_BOLD}?(?P<name>{_NAME}){_BOLD}?[ \t]*:?[ \t]*{_BOLD}?[ \t]*$"
)
_BOLD_TURN = re.compile(
    rf"^(?P<quote>(?:>[ \t]?)*)[ \t]*{_BOLD}(?P<name>{_NAME})(?::{_BOLD}|{_BOLD}[ \t]*:)"
    r"[ \t]*(?P<rest>.*)$"
)
_PLAIN_TURN = re.compile(rf"^(?P<quote>(?:>[ \t]?)*)(?P<name>{_NAME}):(?:[ \t]+(?P<rest>.*))?$")
_SAID = re.compile(r"\s+said$", re.IGNORECASE)
_QUOTE_MARK = re.compile(r"^>[ \t]?")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")


@dataclasses.dataclass(frozen=True)
class _Start:
    """A line that starts a turn."""

    line: int
    speaker: str
    rest: str  # text after the label on the same line
    quoted: bool  # the label sits in a blockquote, so '>' marks are stripped from the turn


def _turn_starts(lines: list[str], body_start: int, *, forced: bool) -> list[_Start]:
    candidates: list[_Start] = []
    fence: tuple[str, int] | None = None
    for number in range(body_start + 1, len(lines) + 1):
        line = lines[number - 1]
        if fence is not None:
            fence = None if fence_closes(line, fence) else fence
            continue
        if (opened := fence_opening(line)) is not None:
            fence = opened
            continue
        for pattern in (_HEADING_TURN, _BOLD_TURN, _PLAIN_TURN):
            match = pattern.match(line)
            name = match["name"].strip() if match else ""
            if match and len(name.split()) <= 3 and name.casefold() not in STOP_LABELS:
                quote = match.groupdict().get("quote") or ""
                rest = match.groupdict().get("rest") or ""
                candidates.append(_Start(number, name, rest.strip(), bool(quote.strip())))
                break
    known = [
        dataclasses.replace(start, speaker=_SAID.sub("", start.speaker))
        for start in candidates
        if _KNOWN.fullmatch(start.speaker.casefold())
    ]
    if known:
        return known
    counts = Counter(start.speaker.casefold() for start in candidates)
    return [
        start
        for start in candidates
        if start.speaker[0].isupper() and (forced or counts[start.speaker.casefold()] >= 2)
    ]


def looks_like_transcript(text: str, path: Path, *, markdown: bool) -> bool:
    """Whether a markdown or text file is mostly speaker turns (rule in the module doc)."""
    lines = split_lines(text)
    try:
        body_start = front_matter(lines, path)[1] if markdown else 0
    except DocumentError:
        return False  # the markdown reader reports the broken front matter
    starts = _turn_starts(lines, body_start, forced=False)
    if len(starts) < 2 or len({start.speaker.casefold() for start in starts}) < 2:
        return False
    body = lines[body_start:]
    before = sum(1 for line in lines[body_start : starts[0].line - 1] if line.strip())
    if before > max(3, sum(1 for line in body if line.strip()) / 5):
        return False
    spans = paragraph_spans(lines, body_start + 1)
    start_lines = {start.line for start in starts}
    opening = sum(1 for a, b in spans if any(a <= n <= b for n in start_lines))
    return opening * 5 >= len(spans)


def exchanges(speakers: list[str]) -> list[int]:
    """The 1-based exchange of each turn (rule in the module docstring)."""
    users = {s for s in speakers if s.casefold() in _USER_ROLES} or set(speakers[:1])
    numbers: list[int] = []
    number, has_user, previous_user = 0, False, False
    for speaker in speakers:
        is_user = speaker in users
        if number == 0:
            number = 1
        elif is_user and has_user and not previous_user:
            number, has_user = number + 1, False
        has_user = has_user or is_user
        previous_user = is_user
        numbers.append(number)
    return numbers


def turn_blocks(turns: list[tuple[str, str, dict[str, Any]]]) -> list[Block]:
    """Blocks for (speaker, text, extra location) turns, numbered and grouped."""
    groups = exchanges([speaker for speaker, _, _ in turns])
    return [
        Block(
            text=text,
            location={"turn": n, "speaker": speaker, **extra},
            group=f"exchange-{k}",
            group_title=f"Exchange {k}",
            kind="turn",
        )
        for n, ((speaker, text, extra), k) in enumerate(zip(turns, groups, strict=True), 1)
    ]


def _content_range(lines: list[str], first: int, last: int) -> tuple[int, int] | None:
    """`first..last` without blank lines and horizontal rules at either end."""
    kept = [n for n in range(first, last + 1) if lines[n - 1].strip()]
    kept = [n for n in kept if not _RULE.match(lines[n - 1])]  # only the ends matter
    return (kept[0], kept[-1]) if kept else None


def read_turns(text: str, path: Path, *, markdown: bool, forced: bool) -> ParsedDocument:
    """A markdown or text transcript: one block per speaker turn."""
    lines = split_lines(text)
    front, body_start = front_matter(lines, path) if markdown else ({}, 0)
    title, author = front_title_author(front, path)
    starts = _turn_starts(lines, body_start, forced=forced)
    if not starts:
        raise DocumentError(
            "no speaker turns found (lines like '**User:** ...', 'User: ...' or '## Assistant'). "
            "Read it without --type transcript, or start each turn with such a label",
            path=str(path),
        )
    blocks: list[Block] = []
    preamble = _content_range(lines, body_start + 1, starts[0].line - 1)
    if preamble and title is None and (h1 := _H1.match(lines[preamble[0] - 1])):
        title = h1[1]
        preamble = _content_range(lines, preamble[0] + 1, preamble[1])
    if preamble:
        blocks.append(
            Block(
                text="\n".join(lines[preamble[0] - 1 : preamble[1]]),
                location={"line_start": preamble[0], "line_end": preamble[1]},
                group="preamble",
                group_title=title or "Preamble",
            )
        )
    turns: list[tuple[str, str, dict[str, Any]]] = []
    for i, start in enumerate(starts):
        end = starts[i + 1].line - 1 if i + 1 < len(starts) else len(lines)
        content = [(start.line, start.rest)] if start.rest else []
        if span := _content_range(lines, start.line + 1, end):
            # After text on the label line, a blank line before the next is kept.
            for number in range(start.line + 1 if start.rest else span[0], span[1] + 1):
                line = lines[number - 1]
                content.append((number, _QUOTE_MARK.sub("", line) if start.quoted else line))
        while content and not content[-1][1].strip():
            content.pop()  # lines that were only '>' marks
        if content:
            body = "\n".join(line for _, line in content).strip("\n")
            location = {"line_start": start.line, "line_end": content[-1][0]}
            turns.append((start.speaker, body, location))
    blocks.extend(turn_blocks(turns))
    return ParsedDocument(
        path=str(path),
        file_type="transcript",
        title=title,
        author=author,
        metadata=front,
        blocks=blocks,
    )
