"""Chat exports in JSON, read as transcripts: ChatGPT's `conversations.json` (the main branch:
from `current_node` up through the parents), Claude's export (`chat_messages`), and a generic
`{"title": ..., "messages": [{"role": ..., "content": ...}]}` or a bare list of such messages.
Each conversation is its own document; system, tool and empty messages are skipped. Turns
are grouped into exchanges as in a markdown transcript (`transcripts.py`).
"""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from pathlib import Path
from typing import Any

from zettelgraph.ingest.parsed import DocumentError, ParsedDocument
from zettelgraph.ingest.transcripts import turn_blocks

SHAPES = (
    "a ChatGPT export (conversations.json: conversations with 'mapping'), a Claude export "
    '(conversations with \'chat_messages\'), {"messages": [{"role": ..., "content": ...}]} '
    "or a list of such messages"
)
_SKIPPED_ROLES = frozenset({"system", "tool", "function", "developer"})
# ChatGPT content that is not part of the visible conversation.
_SKIPPED_CONTENT = frozenset(
    {"user_editable_context", "model_editable_context", "thoughts", "reasoning_recap"}
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
                blocks=turn_blocks([(role, body, {}) for role, body in conversation.messages]),
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
