"""Chat transcripts: conversations with an AI (or between people) read as turns.

* JSON exports: ChatGPT's `conversations.json` (the main branch: from `current_node` up
  through the parents), Claude's export (`chat_messages`), and a generic `{"title": ...,
  "messages": [{"role": ..., "content": ...}]}` or a bare list of such messages. Each
  conversation is its own document; system, tool and empty messages are skipped.
* Markdown or text where a turn starts with a speaker label: `**User:** text`,
  `**User**: text`, `User: text`, `> **Claude:** text`, or a heading that is only a name
  (`## User`, `### Assistant:`). Lines inside fenced code never start a turn.

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
import json
import re
import unicodedata
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
_SKIPPED_ROLES = frozenset({"system", "tool", "function", "developer"})
# ChatGPT content that is not part of the visible conversation.
_SKIPPED_CONTENT = frozenset(
    {"user_editable_context", "model_editable_context", "thoughts", "reasoning_recap"}
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
SHAPES = (
    "a ChatGPT export (conversations.json: conversations with 'mapping'), a Claude export "
    '(conversations with \'chat_messages\'), {"messages": [{"role": ..., "content": ...}]} '
    "or a list of such messages"
)


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


def _turn_blocks(turns: list[tuple[str, str, dict[str, Any]]]) -> list[Block]:
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
    blocks.extend(_turn_blocks(turns))
    return ParsedDocument(
        path=str(path),
        file_type="transcript",
        title=title,
        author=author,
        metadata=front,
        blocks=blocks,
    )


@dataclasses.dataclass
class _Conversation:
    title: str | None
    messages: list[tuple[str, str]]  # (role, text)
    metadata: dict[str, Any] = dataclasses.field(default_factory=dict)


def read_json_transcripts(text: str, path: Path) -> list[ParsedDocument]:
    """A chat export: one document per conversation that has any text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(
            f"invalid JSON at column {exc.colno} ({exc.msg}). Fix the file or export it again",
            path=str(path),
            line=exc.lineno,
        ) from exc
    except RecursionError as exc:
        raise DocumentError("JSON nested too deeply to read", path=str(path)) from exc
    found = _conversations(data)
    if found is None:
        raise DocumentError(
            f"is JSON but not a chat export this reader knows. Supported: {SHAPES}. Convert it "
            "to one of these, or ingest it as plain text with --type text",
            path=str(path),
        )
    conversations, collection = found
    documents: list[ParsedDocument] = []
    skipped: list[str] = []
    for index, conversation in enumerate(conversations):
        title = conversation.title or (f"{path.stem} #{index + 1}" if collection else path.stem)
        if not conversation.messages:
            skipped.append(f"conversation {index + 1} ('{title}') has no text; skipped")
            continue
        documents.append(
            ParsedDocument(
                path=str(path),
                file_type="transcript",
                title=title,
                metadata=conversation.metadata,
                blocks=_turn_blocks([(role, body, {}) for role, body in conversation.messages]),
                warnings=skipped,
                index=index,
            )
        )
        skipped = []
    if not documents:
        raise DocumentError(
            "no messages with text found in this chat export. Check that it is the right file",
            path=str(path),
        )
    documents[-1].warnings.extend(skipped)
    return documents


def _conversations(data: Any) -> tuple[list[_Conversation], bool] | None:
    """The conversations and whether the file is a collection of them; None: unknown shape."""
    if isinstance(data, dict):
        if isinstance(data.get("conversations"), list):
            return _conversations(data["conversations"])
        one = _conversation(data)
        return None if one is None else ([one], False)
    if not isinstance(data, list) or not data or not all(isinstance(x, dict) for x in data):
        return None
    if all(_is_message(item) for item in data):
        return [_Conversation(None, _messages(data))], False
    conversations = [_conversation(item) for item in data]
    if any(conversation is None for conversation in conversations):
        return None
    return [c for c in conversations if c is not None], True


def _conversation(data: dict[str, Any]) -> _Conversation | None:
    keys = ("create_time", "created_at", "update_time", "updated_at")
    metadata = {key: data[key] for key in keys if isinstance(data.get(key), str | int | float)}
    # The export's own id tells apart conversations that share a title ("New chat").
    ids = [data.get(key) for key in ("conversation_id", "uuid", "id")]
    if found := [i for i in ids if isinstance(i, str | int) and i]:
        metadata["conversation_id"] = str(found[0])
    title = data.get("title") or data.get("name")
    title = title.strip() or None if isinstance(title, str) else None
    if isinstance(data.get("mapping"), dict):
        return _Conversation(title, _chatgpt_messages(data), metadata)
    if isinstance(data.get("chat_messages"), list):
        pairs = ((m.get("sender"), m) for m in data["chat_messages"] if isinstance(m, dict))
        # Claude keeps the text in 'text', newer exports also (or only) in 'content' parts.
        messages = [(role, m.get("text") or m.get("content")) for role, m in pairs]
        return _Conversation(title, _clean_messages(messages), metadata)
    if isinstance(data.get("messages"), list):
        return _Conversation(title, _messages(data["messages"]), metadata)
    return None


def _is_message(item: dict[str, Any]) -> bool:
    return any(k in item for k in ("role", "author", "sender")) and any(
        k in item for k in ("content", "text")
    )


def _messages(items: list[Any]) -> list[tuple[str, str]]:
    """Generic messages: role from role/author/sender, text from content/text."""
    pairs: list[tuple[Any, Any]] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        role = item.get("role") or item.get("author") or item.get("sender")
        if isinstance(role, dict):
            role = role.get("role") or role.get("name")
        pairs.append((role, item["content"] if "content" in item else item.get("text")))
    return _clean_messages(pairs)


def _chatgpt_messages(conversation: dict[str, Any]) -> list[tuple[str, str]]:
    """The main branch: from `current_node` up the parents, then reversed."""
    mapping: dict[str, Any] = conversation["mapping"]
    node_id = conversation.get("current_node")
    if not isinstance(node_id, str) or node_id not in mapping:
        leaves = [
            k for k, node in mapping.items() if isinstance(node, dict) and not node.get("children")
        ]
        node_id = leaves[-1] if leaves else None
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and isinstance(mapping.get(node_id), dict):
        if node_id in seen:
            break  # a cycle in a damaged export
        seen.add(node_id)
        chain.append(mapping[node_id])
        node_id = mapping[node_id].get("parent")
    pairs: list[tuple[Any, Any]] = []
    for node in reversed(chain):
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        author, content, meta = (message.get(key) for key in ("author", "content", "metadata"))
        if isinstance(meta, dict) and meta.get("is_visually_hidden_from_conversation"):
            continue
        if isinstance(content, dict) and content.get("content_type") in _SKIPPED_CONTENT:
            continue
        pairs.append((author.get("role") if isinstance(author, dict) else None, content))
    return _clean_messages(pairs)


def _clean_messages(pairs: list[tuple[Any, Any]]) -> list[tuple[str, str]]:
    """(role, text) for messages with a role that is not skipped and some text."""
    messages: list[tuple[str, str]] = []
    for role, content in pairs:
        if not isinstance(role, str) or not role.strip() or role.lower() in _SKIPPED_ROLES:
            continue
        text = unicodedata.normalize("NFC", _content_text(content))
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        text = "\n".join(line.rstrip() for line in lines).strip("\n")
        if text.strip():
            messages.append((role.strip(), text))
    return messages


def _content_text(content: Any) -> str:
    """Text of a message's content: a string, a list of parts, or {'parts'|'text': ...}."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text for part in content if (text := _content_text(part)))
    if isinstance(content, dict):
        if "parts" in content:
            return _content_text(content["parts"])
        if content.get("type", "text") == "text" and isinstance(content.get("text"), str):
            return str(content["text"])
    return ""
