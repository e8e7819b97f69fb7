"""The questions of the doubt checks (`nodes_doubts.Checks`), built from a run's items: which
of two statements (or, for `titles` drafts, two titles) says what a concept's quote says,
against its closest rival; whether the quote states an idea at all; whether a relation's type
holds between its two statements."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from langchain_core.messages import BaseMessage

from zettelgraph.context import Services
from zettelgraph.guards.relations import End
from zettelgraph.llm.embeddings import is_semantic
from zettelgraph.prompts import check_idea, check_relation, check_statement
from zettelgraph.workflows.concept_extraction.state import DraftConcept, DraftRelation


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
