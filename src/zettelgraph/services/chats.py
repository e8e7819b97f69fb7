"""The reader's conversations: a chat's answers in order, the recent chats, the passages an
answer rests on (`ask.py` asks; the front ends reach these through it)."""

from __future__ import annotations

import uuid

from zettelgraph.context import Services
from zettelgraph.models import (
    Answer,
    SearchResult,
)
from zettelgraph.retrieval.fusion import Fused
from zettelgraph.retrieval.search import Retriever

# How many recent answers `chats` reads to find the latest chats.
_ANSWERS_READ = 5000


class UnknownChatError(ValueError):
    """A chat id no answer carries."""


def chat_thread(services: Services, chat_id: str) -> list[Answer]:
    """A chat's answers, first turn first; UnknownChatError when there is no such chat.

    Args:
        services: the open services.
        chat_id: the chat's id as an answer names it (`chat-...`); spaces around it are ignored.

    Returns:
        The chat's answers, first turn first; never empty.

    Raises:
        UnknownChatError: no chat has this id (or it is blank).
    """
    turns = services.store.chat_answers(chat_id.strip()) if chat_id.strip() else []
    if not turns:
        raise UnknownChatError(
            f"no chat {chat_id!r}: every answer starts one and names it "
            "(`zettelgraph ask QUESTION` prints the chat id to continue with)"
        )
    return turns


def chats(services: Services, *, limit: int = 100) -> list[list[Answer]]:
    """The latest `limit` chats, the most recently continued first, each as its turns
    (first turn first). An answer stored before chats existed is a chat of its own.

    Args:
        services: the open services.
        limit: the most chats to return (100 by default).

    Returns:
        One list of answers per chat, the chats most recently continued first, each chat's turns
        first turn first.
    """
    order: dict[str, Answer] = {}
    for answer in services.store.answers(limit=_ANSWERS_READ):
        if len(order) >= limit:
            break
        order.setdefault(answer.chat_id or answer.id, answer)
    return [
        services.store.chat_answers(key) if latest.chat_id else [latest]
        for key, latest in order.items()
    ]


def answer_results(services: Services, answer: Answer) -> list[SearchResult]:
    """The passages an answer was given (cited or not) as the graph holds them now, each
    under the [n] the answer uses; a passage removed since is left out.

    Args:
        services: the open services (store and embedder).
        answer: a stored answer whose `citations` name the passages it was given.

    Returns:
        The passages still in the graph, each with `n` set to the number the answer cites it by, in
        the answer's ranking order.
    """
    places = {c["quote_id"]: int(c["n"]) for c in answer.citations if c.get("quote_id")}
    ranked = [
        Fused(id=c["quote_id"], score=float(c.get("score", 0.0)), methods=c.get("methods", []))
        for c in answer.citations
        if c.get("quote_id")
    ]
    found = Retriever(services.store, services.embedder).results(ranked)
    return [r.model_copy(update={"n": places[r.passage_id]}) for r in found]


def new_chat_id() -> str:
    """A new chat's id: `chat-` and 12 random hex digits.

    Returns:
        The id, unique for practical purposes (48 random bits).
    """
    return f"chat-{uuid.uuid4().hex[:12]}"
