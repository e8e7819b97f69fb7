"""Search and ask: the service functions the CLI, the web app and the MCP server share.

`ask` retrieves passages with the configured recipe, asks the main LLM for an answer whose
every sentence names its passages, turns those into [n] markers (n = the passage's place in
the results), and stores the Answer with a CITES relation to every passage it cites. An
answer the passages do not support is stored too, marked `answerable: false`, so the record
of what was asked is complete.

Every answer is a turn of a chat. A follow-up (`chat_id` of an earlier answer) is first
rewritten into a standalone question by the fast model (`prompts/condense_question.py`),
which is what gets searched; the answer model sees the earlier turns as context, and its
[n] markers still point only at this turn's passages. A follow-up without a filter of its
own searches within the previous turn's filter.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from zettelgraph.context import Services
from zettelgraph.models import (
    Answer,
    ChangeSet,
    NodeLabel,
    PassageFilter,
    Person,
    Relation,
    SearchResult,
    stable_id,
    utcnow,
)
from zettelgraph.packs.relations import CITES
from zettelgraph.prompts import answer_question, condense_question
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.retrieval.filters import FilterError, build_filter, filter_fields
from zettelgraph.retrieval.recipes import SearchRecipe, recipe_named
from zettelgraph.retrieval.search import Retriever
from zettelgraph.services.chats import (
    UnknownChatError,
    answer_results,
    chat_thread,
    chats,
    new_chat_id,
)
from zettelgraph.store.rules import query_tokens
from zettelgraph.text.language import detect_language as guess_language

CANNOT_ANSWER = {
    "es": "Tus lecturas no contienen la respuesta a esta pregunta.",
    "en": "Your reading does not contain the answer to this question.",
}
# Authors a filter form suggests (a datalist; any other name can still be typed).
_AUTHORS_SHOWN = 1000
NOTHING_INGESTED = (
    "nothing is ingested yet, so there is nothing to answer from: `zettelgraph ingest PATH` "
    "reads your book notes or documents (a file or a folder), then ask again"
)

# FilterError is raised here for the front ends, which do not import retrieval; the chat
# functions (`chats.py`) are theirs through this module too.
__all__ = [
    "AskResult",
    "FilterError",
    "UnknownChatError",
    "answer_dict",
    "answer_results",
    "ask",
    "chat_thread",
    "chats",
    "filter_choices",
    "filter_fields",
    "guess_language",
    "new_chat_id",
    "passage_filter",
    "search",
]


def answer_dict(answer: Answer) -> dict[str, Any]:
    """One turn as `ask --json` prints it (without its passages).

    Args:
        answer: a stored question and its answer (one turn of a chat).

    Returns:
        A JSON-able dict: `answer_id`, `chat_id`, `turn`, `question`, `standalone_question` (None
        when the question was not rewritten), `answer`, `answerable`, `language`, `citations`,
        `passage_filter` and `created_at` (ISO 8601).
    """
    return {
        "answer_id": answer.id,
        "chat_id": answer.chat_id,
        "turn": answer.turn,
        "question": answer.question,
        "standalone_question": answer.standalone_question or None,
        "answer": answer.answer,
        "answerable": answer.answerable,
        "language": answer.language,
        "citations": answer.citations,
        "passage_filter": answer.passage_filter,
        "created_at": answer.created_at.isoformat(),
    }


@dataclass
class AskResult:
    answer: Answer
    results: list[SearchResult]
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """What `zettelgraph ask --json` prints and `POST /api/ask` returns.

        Returns:
            `answer_dict` of the answer, with `passages` (each passage found, as JSON) and
            `warnings` (lines for the reader).
        """
        return {
            **answer_dict(self.answer),
            "passages": [r.model_dump(mode="json") for r in self.results],
            "warnings": self.warnings,
        }


def _recipe(services: Services, recipe: str | SearchRecipe | None) -> SearchRecipe:
    if isinstance(recipe, SearchRecipe):
        return recipe
    return recipe_named(recipe or services.settings.search_recipe, services.embedder.name)


def passage_filter(
    services: Services,
    *,
    contents: Iterable[str] | None = None,
    kinds: Iterable[str] | None = None,
    authors: Iterable[str] | None = None,
    where: Iterable[str] | None = None,
) -> PassageFilter | None:
    """The passage filter the reader asked for (`retrieval/filters.py` has the rules). Each
    of the four may be None, an option not given (the front ends pass their options as they
    come), which narrows nothing, as an empty one does.

    Args:
        services: the open services.
        contents: `--content`: ids, id prefixes or titles.
        kinds: `--kind`: content kinds.
        authors: `--author`: author names.
        where: `--where`: metadata conditions.

    Returns:
        The filter, or None when none is given.

    Raises:
        FilterError: a filter cannot be used as written (the message says what to write instead).
    """
    return build_filter(
        services.store,
        contents=contents or (),
        kinds=kinds or (),
        authors=authors or (),
        where=where or (),
    )


def filter_choices(services: Services) -> dict[str, list[Any]]:
    """What a filter form offers: every source (id, title, kind), kind and author.

    Args:
        services: the open services (the store is read).

    Returns:
        `{"contents": [{"id", "title", "kind"}, ...], "kinds": [...], "authors": [...]}`, kinds and
        author names sorted.
    """
    contents = services.store.list_contents()
    persons = services.store.nodes(NodeLabel.PERSON, limit=_AUTHORS_SHOWN)
    return {
        "contents": [{"id": c.id, "title": c.title, "kind": c.kind} for c in contents],
        "kinds": sorted({c.kind for c in contents}),
        "authors": sorted(p.name for p in persons if isinstance(p, Person)),
    }


def search(
    services: Services,
    query: str,
    *,
    k: int | None = None,
    recipe: str | SearchRecipe | None = None,
    passages: PassageFilter | None = None,
) -> list[SearchResult]:
    """The top passages for a query among those `passages` admits, with citations; no LLM
    call.

    Args:
        services: the open services.
        query: the reader's words.
        k: how many passages; ZETTELGRAPH_SEARCH_K by default.
        recipe: a recipe or its name; ZETTELGRAPH_SEARCH_RECIPE by default.
        passages: which passages may be found (`passage_filter`); all when None.

    Returns:
        The passages, best first.

    Raises:
        EmbedderMismatchError: the store was embedded with another model.
    """
    services.check_embedder()
    retriever = Retriever(services.store, services.embedder)
    chosen = _recipe(services, recipe)
    return retriever.search(query, k or services.settings.search_k, chosen, passages)


def _cannot_answer(language: str) -> str:
    return CANNOT_ANSWER.get(language, CANNOT_ANSWER["en"])


def ask(
    services: Services,
    question: str,
    *,
    k: int | None = None,
    recipe: str | SearchRecipe | None = None,
    passages: PassageFilter | None = None,
    chat_id: str | None = None,
) -> AskResult:
    """Answer from the reader's own passages, with citations, and store the answer.

    Args:
        services: the open services.
        question: the reader's question.
        k: how many passages the answer is given; ZETTELGRAPH_SEARCH_K by default.
        recipe: a search recipe or its name; ZETTELGRAPH_SEARCH_RECIPE by default.
        passages: which passages may be searched. None in a follow-up keeps the previous
            turn's filter; an empty PassageFilter searches everything.
        chat_id: the chat this question continues; None starts a new chat.

    Returns:
        The stored answer, the passages it was given, and warnings.

    Raises:
        UnknownChatError: no answer carries `chat_id`.
    """
    chosen = _recipe(services, recipe)
    earlier = chat_thread(services, chat_id) if chat_id else []
    if passages is None and earlier and earlier[-1].passage_filter:
        passages = PassageFilter.model_validate(earlier[-1].passage_filter)
    active = passages if passages is not None and passages.active else None
    history = [answer_question.PromptTurn(question=a.question, answer=a.answer) for a in earlier]
    standalone = _standalone(services, question, history) if history else question
    results = search(services, standalone, k=k, recipe=chosen, passages=active)
    warnings: list[str] = []
    language = guess_language(question, services.settings.concept_language)
    text, answerable, model = _cannot_answer(language), False, ""
    cited: set[int] = set()
    if results:
        model = services.llms.main_spec
        text, cited, answerable, language, warnings = _answer(
            services, question, results, history, standalone
        )
    elif not services.store.counts().get("Quote"):
        warnings.append(NOTHING_INGESTED)
    chat = earlier[-1].chat_id if earlier else new_chat_id()
    turn = max((a.turn for a in earlier), default=0) + 1
    answer = Answer(
        id=stable_id("answer", chat or "", str(turn), question, utcnow().isoformat()),
        question=question,
        answer=text,
        answerable=answerable,
        language=language,
        model=model,
        recipe=chosen.name,
        citations=[{**r.citation(), "cited": r.n in cited} for r in results],
        chat_id=chat,
        turn=turn,
        standalone_question=standalone if standalone != question else "",
        passage_filter=active.model_dump(mode="json") if active is not None else {},
    )
    relations = [
        Relation(
            source_id=answer.id,
            target_id=r.passage_id,
            type=CITES,
            properties={"n": r.n, "score": round(r.score, 6), "methods": r.methods},
        )
        for r in results
        if r.n in cited
    ]
    services.store.apply(ChangeSet(answers=[answer], relations=relations))
    return AskResult(answer=answer, results=results, warnings=warnings)


def _standalone(
    services: Services, question: str, history: list[answer_question.PromptTurn]
) -> str:
    """The follow-up rewritten to stand alone (the question itself if the rewrite is empty)."""
    reply = services.structured(
        services.llms.fast,
        name=condense_question.NAME,
        messages=condense_question.messages(
            condense_question.CondenseQuestionInput(history=history, question=question)
        ),
        response_model=condense_question.CondensedQuestion,
    )
    rewritten = " ".join(reply.question.split())
    return rewritten if query_tokens(rewritten) else question


def _answer(
    services: Services,
    question: str,
    results: list[SearchResult],
    history: list[answer_question.PromptTurn],
    standalone: str,
) -> tuple[str, set[int], bool, str, list[str]]:
    """(answer text with [n] markers, cited n's, answerable, language, warnings)."""
    ids = LocalIds("q", [r.passage_id for r in results])
    passages = [
        answer_question.PromptPassage(
            id=ids.local(r.passage_id),
            text=r.text,
            source=", ".join(
                part
                for part in (
                    r.content_title,
                    f"by {r.author}" if r.author else "",
                    r.location_label,
                )
                if part
            ),
            context=r.context if r.context and r.context != r.text else None,
        )
        for r in results
    ]
    reply = services.structured(
        services.llms.main,
        name=answer_question.NAME,
        messages=answer_question.messages(
            answer_question.AnswerQuestionInput(
                question=question,
                passages=passages,
                history=history,
                standalone=standalone if standalone != question else None,
            )
        ),
        response_model=answer_question.AnswerQuestion,
    )
    place = {r.passage_id: r.n for r in results}
    warnings: list[str] = []
    cited: set[int] = set()
    # Sentence text -> its markers; a sentence the model repeats (small models loop) is
    # kept once, with the markers of every repeat.
    sentences: dict[str, set[int]] = {}
    for sentence in reply.sentences:
        marks = sentences.setdefault(" ".join(sentence.text.split()), set())
        for source in sentence.sources:
            real = ids.real(source)
            if real is None:
                warnings.append(
                    f"the model cited {source!r}, which is not a passage shown: dropped"
                )
                continue
            marks.add(place[real])
        cited.update(marks)
    language = reply.language.strip().casefold()[:8] or guess_language(question, "en")
    answerable = reply.answerable and bool(cited)
    if reply.answerable and not cited:
        warnings.append("the model answered without citing any passage: treated as unanswered")
    if not answerable:
        # The model's own words only where there is no fixed message in its language.
        own = " ".join(sentences)
        text = own if language not in CANNOT_ANSWER and own else _cannot_answer(language)
        return text, set(), False, language, warnings
    text = " ".join(
        body + "".join(f" [{n}]" for n in sorted(marks)) for body, marks in sentences.items()
    )
    return text, cited, True, language, warnings
