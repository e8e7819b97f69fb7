"""Search and ask: the service functions the CLI and the web app share.

`ask` retrieves passages with the configured recipe, asks the main LLM for an answer whose
every sentence names its passages, turns those into [n] markers (n = the passage's place in
the results), and stores the Answer with a CITES relation to every passage it cites. An
answer the passages do not support is stored too, marked `answerable: false`, so the record
of what was asked is complete.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zettelgraph.models import Answer, ChangeSet, Relation, SearchResult, stable_id, utcnow
from zettelgraph.prompts import answer_question
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.relations import CITES
from zettelgraph.retrieval.recipes import SearchRecipe, recipe_named
from zettelgraph.retrieval.search import Retriever
from zettelgraph.retrieval.stopwords import STOPWORDS
from zettelgraph.store.rules import query_tokens
from zettelgraph.workflows.context import Services

CANNOT_ANSWER = {
    "es": "Tus lecturas no contienen la respuesta a esta pregunta.",
    "en": "Your reading does not contain the answer to this question.",
}
_ENGLISH_HINTS = frozenset(
    ["what", "who", "when", "where", "why", "how", "which", "is", "are", "does", "do", "the", "of"]
)


@dataclass
class AskResult:
    answer: Answer
    results: list[SearchResult]
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """What `zettelgraph ask --json` prints and `POST /api/ask` returns."""
        return {
            "answer_id": self.answer.id,
            "question": self.answer.question,
            "answer": self.answer.answer,
            "answerable": self.answer.answerable,
            "language": self.answer.language,
            "citations": self.answer.citations,
            "passages": [r.model_dump(mode="json") for r in self.results],
            "warnings": self.warnings,
        }


def _recipe(services: Services, recipe: str | SearchRecipe | None) -> SearchRecipe:
    if isinstance(recipe, SearchRecipe):
        return recipe
    return recipe_named(recipe or services.settings.search_recipe)


def search(
    services: Services,
    query: str,
    *,
    k: int | None = None,
    recipe: str | SearchRecipe | None = None,
) -> list[SearchResult]:
    """The top passages for a query, with citations; no LLM call.

    Raises EmbedderMismatchError when the store was embedded with another model."""
    services.check_embedder()
    retriever = Retriever(services.store, services.embedder)
    return retriever.search(query, k or services.settings.search_k, _recipe(services, recipe))


def guess_language(question: str, default: str) -> str:
    """Spanish or English from function words, for messages written without the LLM."""
    words = [w.casefold() for w in query_tokens(question)]
    english = sum(w in _ENGLISH_HINTS for w in words)
    spanish = sum(w in STOPWORDS and w not in _ENGLISH_HINTS for w in words)
    if question.lstrip().startswith(("¿", "¡")) or spanish > english:
        return "es"
    return "en" if english else default


def _cannot_answer(language: str) -> str:
    return CANNOT_ANSWER.get(language, CANNOT_ANSWER["en"])


def ask(
    services: Services,
    question: str,
    *,
    k: int | None = None,
    recipe: str | SearchRecipe | None = None,
) -> AskResult:
    """Answer from the reader's own passages, with citations, and store the answer."""
    chosen = _recipe(services, recipe)
    results = search(services, question, k=k, recipe=chosen)
    warnings: list[str] = []
    language = guess_language(question, services.settings.concept_language)
    text, answerable, model = _cannot_answer(language), False, ""
    cited: set[int] = set()
    if results:
        model = services.llms.main_spec
        text, cited, answerable, language, warnings = _answer(services, question, results)
    answer = Answer(
        id=stable_id("answer", question, utcnow().isoformat()),
        question=question,
        answer=text,
        answerable=answerable,
        language=language,
        model=model,
        recipe=chosen.name,
        citations=[{**r.citation(), "cited": r.n in cited} for r in results],
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


def _answer(
    services: Services, question: str, results: list[SearchResult]
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
            answer_question.AnswerQuestionInput(question=question, passages=passages)
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
