"""The questions of the doubt checks, built from a run's items: which of two statements (or,
for `titles` drafts, two titles) says what a concept's quote says, against its closest rival;
whether the quote states an idea at all; whether a relation's type holds between its two
statements. And `Checks`, which asks them all at once."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langchain_core.messages import BaseMessage

from zettelgraph.context import Services
from zettelgraph.guards.doubt_signals import choice_probability, yes_probability
from zettelgraph.guards.relations import End
from zettelgraph.llm.embeddings import is_semantic
from zettelgraph.llm.logprobs import first_token_logprobs
from zettelgraph.llm.structured import SOFT_LLM_ERRORS
from zettelgraph.prompts import check_idea, check_relation, check_statement
from zettelgraph.workflows.calls import CallRecord, call_record
from zettelgraph.workflows.concept_extraction.state import DraftConcept, DraftRelation

Pair = tuple[list[BaseMessage], list[BaseMessage]]


class Checks:
    """The model's own checks, read from the log-probabilities of a one-token answer, when
    the settings ask for them. The questions are gathered first (`pairs`, `singles`), then
    asked together (`ask`): the first alone, since a provider without log-probabilities is
    asked once and then no more; the others at once, as many at a time as the main model's
    profile allows (16, one on the local models). A failing call stops the questions not yet
    asked (the flags then rest on the other signals); the answers already in are kept."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.enabled = services.settings.doubt_check is not False
        self.failure: str | None = None
        self._questions: list[tuple[str, str, list[BaseMessage]]] = []
        self._answers: list[Any] = []
        self._records: dict[int, CallRecord] = {}
        self._lock = threading.Lock()

    @property
    def calls(self) -> list[CallRecord]:
        """The records of the calls made, in the order the questions were gathered."""
        return [self._records[i] for i in sorted(self._records)]

    def pairs(
        self, keys: Sequence[str], pairs: Sequence[Pair | None], name: str
    ) -> dict[str, list[int]]:
        """Gather each key's pair of questions (right as A, then as B); their positions."""
        return {
            key: [self._add(name, key, messages) for messages in pair]
            for key, pair in zip(keys, pairs, strict=True)
            if pair is not None and self.enabled
        }

    def singles(
        self, keys: Sequence[str], questions: Sequence[list[BaseMessage] | None], name: str
    ) -> dict[str, list[int]]:
        """Gather each key's yes/no question; their positions."""
        return {
            key: [self._add(name, key, messages)]
            for key, messages in zip(keys, questions, strict=True)
            if messages is not None and self.enabled
        }

    def _add(self, name: str, key: str, messages: list[BaseMessage]) -> int:
        self._questions.append((name, key, messages))
        return len(self._questions) - 1

    def ask(self) -> None:
        """Ask every question gathered: the first alone, then the rest at once."""
        self._answers = [None] * len(self._questions)
        if not self._questions:
            return
        self._answer(0)
        rest = range(1, len(self._questions))
        workers = max(1, min(self.services.llms.main_profile.concurrency, len(rest)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="doubt-check") as pool:
            list(pool.map(self._answer, rest))

    def _answer(self, index: int) -> None:
        """The first token's top log-probabilities for one question, unless the checks have
        stopped; None (and no more asking) on failure or without log-probabilities."""
        if not self.enabled:
            return
        name, key, messages = self._questions[index]
        services = self.services
        record = call_record(name, services.llms.main_spec, key)
        with self._lock:
            self._records[index] = record
        try:
            top = first_token_logprobs(
                services.llms.main,
                name=name,
                messages=messages,
                usage=services.usage,
                retries=services.settings.llm_retries,
                backoff=services.settings.llm_backoff,
            )
        except SOFT_LLM_ERRORS as exc:
            with self._lock:
                self.enabled = False
                self.failure = f"the doubt checks stopped ({exc}); flags rest on other signals"
            return
        if not top:
            self.enabled = False  # no log-probabilities from this provider
        self._answers[index] = top

    def chosen(
        self, asked: Mapping[str, Sequence[int]], signal: str
    ) -> dict[str, dict[str, float]]:
        """The chance given to the right option of each pair of questions (right as A in the
        first, as B in the second), averaged, as `signal`; none for a pair not fully answered."""
        out: dict[str, dict[str, float]] = {}
        for key, positions in asked.items():
            chances = [
                choice_probability(self._answers[i] or [], right, check_statement.LETTERS)
                for i, right in zip(positions, check_statement.LETTERS, strict=True)
            ]
            if all(chance is not None for chance in chances):
                out[key] = {signal: sum(c for c in chances if c is not None) / len(chances)}
        return out

    def yes(self, asked: Mapping[str, Sequence[int]]) -> dict[str, dict[str, float]]:
        """P(yes) of each yes/no question, as the signal `stance`."""
        out: dict[str, dict[str, float]] = {}
        for key, (position,) in asked.items():
            stance = yes_probability(self._answers[position] or [])
            if stance is not None:
                out[key] = {"stance": stance}
        return out


def cited_text(concept: DraftConcept, quotes: Mapping[str, str]) -> str:
    """The quotes a concept cites, as one text the checks show the model."""
    return " … ".join(quotes[q] for q in concept["quote_ids"] if q in quotes)


def rivals(
    todo: Sequence[DraftConcept],
    concepts: Sequence[DraftConcept],
    quotes: Mapping[str, str],
    services: Services,
) -> dict[str, DraftConcept]:
    """For each concept, the other concept of the run whose statement is closest to its
    quote (the hardest one to tell it from); the next one in order without an embedder."""
    out: dict[str, DraftConcept] = {}
    if len(concepts) < 2:
        return out
    semantic = is_semantic(services.embedder)
    titles = _titles_only(services)
    statements = [_shown(c, titles) for c in concepts]
    vectors = services.embedder.embed(statements) if semantic else None
    for concept in todo:
        others = [i for i, c in enumerate(concepts) if c["key"] != concept["key"]]
        quote = " ".join(quotes[q] for q in concept["quote_ids"] if q in quotes)
        if vectors is None or not quote:
            index = next((i for i in others if i > concepts.index(concept)), others[0])
        else:
            target = services.embedder.embed([quote])[0]
            index = max(others, key=lambda i: float(vectors[i] @ target))
        out[concept["key"]] = concepts[index]
    return out


def idea_check(
    concept: DraftConcept, quotes: Mapping[str, str], services: Services
) -> tuple[list[BaseMessage], list[BaseMessage]] | None:
    """The two questions of the idea check: "an idea" as A, then as B."""
    quote = cited_text(concept, quotes)
    if not quote:
        return None
    language = services.settings.concept_language
    return tuple(  # type: ignore[return-value]
        check_idea.messages(check_idea.IdeaInput(quote=quote, idea_first=first, language=language))
        for first in (True, False)
    )


def _titles_only(services: Services) -> bool:
    """Whether the model wrote only titles, each statement being its quote (a draft)."""
    return services.llms.main_profile.task == "titles"


def _shown(concept: DraftConcept, titles: bool) -> str:
    """What a concept is judged by: its title when the statement is only its quote."""
    return concept["title"] if titles else f"{concept['title']}. {concept['concept']}"


def statement_check(
    concept: DraftConcept,
    rival: DraftConcept | None,
    quotes: Mapping[str, str],
    services: Services,
) -> tuple[list[BaseMessage], list[BaseMessage]] | None:
    """The two questions of the check: own statement as A against the rival's, then as B."""
    quote = cited_text(concept, quotes)
    if not quote or rival is None:
        return None
    titles = _titles_only(services)
    own, other = _shown(concept, titles), _shown(rival, titles)
    language = services.settings.concept_language

    def asked(first: str, second: str) -> list[BaseMessage]:
        return check_statement.messages(
            check_statement.CheckInput(
                quote=quote, first=first, second=second, language=language, titles=titles
            )
        )

    return asked(own, other), asked(other, own)


def relation_check(
    relation: DraftRelation, ends: Mapping[str, End], services: Services
) -> list[BaseMessage] | None:
    source, target = ends.get(relation["source"]), ends.get(relation["target"])
    if source is None or target is None:
        return None
    language = services.settings.concept_language
    phrase = services.concept_vocabulary.phrase(relation["type"], language)
    return check_relation.messages(
        check_relation.RelationCheckInput(
            source=f"{source.title}. {source.body}".strip(),
            target=f"{target.title}. {target.body}".strip(),
            phrase=phrase or relation["type"],
            language=language,
        )
    )
