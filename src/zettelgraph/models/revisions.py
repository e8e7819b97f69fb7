"""A concept's text replaced by the reader, as pure data: the new text with its summaries, and
the replaced one kept as a `ConceptRevision`.

One rule for wherever a reader rewrites a concept (on the committed concept, in a run's
review): the summaries follow the statement as a commit makes them (`text.py`), and the text
replaced is remembered with who wrote it (the model, until a reader has edited it) and where.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from zettelgraph.models import Concept, ConceptRevision
from zettelgraph.text.summaries import SUMMARY_WORDS, clip_words, short_summary

# The parts of a concept's text a reader may rewrite, by the field that holds each.
TEXT_FIELDS = ("title", "concept", "analysis")


def revision_of(
    concept: Concept, *, at: datetime, where: Literal["review", "graph"]
) -> ConceptRevision:
    """The concept's present text as an earlier one, replaced at `at` in `where`."""
    by = concept.text_by
    return ConceptRevision(
        title=concept.title,
        concept=concept.concept,
        analysis=concept.analysis,
        summary=concept.summary,
        summary_short=concept.summary_short,
        by=by,
        model=concept.provenance.get("model") if by == "model" else None,
        replaced_at=at,
        replaced_in=where,
    )


def revised(
    concept: Concept,
    *,
    title: str | None = None,
    statement: str | None = None,
    analysis: str | None = None,
    at: datetime,
    where: Literal["review", "graph"],
) -> Concept:
    """`concept` with the reader's text (None keeps a part as it is) and its present text
    appended to `revisions`; the concept itself when nothing differs.

    A new statement brings its summaries with it, cut from it as a commit cuts them from a
    statement the model gave no summary for: a summary of the old idea would misdescribe the
    new one (in search results, the note's front matter, the embedding).
    """
    update: dict[str, object] = {}
    if title is not None and title != concept.title:
        update["title"] = title
    if statement is not None and statement != concept.concept:
        update.update(
            concept=statement,
            summary=clip_words(statement, SUMMARY_WORDS),
            summary_short=short_summary(statement),
        )
    if analysis is not None and analysis != concept.analysis:
        update["analysis"] = analysis
    if not update:
        return concept
    update["revisions"] = [*concept.revisions, revision_of(concept, at=at, where=where)]
    return concept.model_copy(update=update)


def changed_fields(before: Concept | ConceptRevision, after: Concept) -> list[str]:
    """Which of `TEXT_FIELDS` differ between an earlier text and the concept's present one."""
    return [name for name in TEXT_FIELDS if getattr(before, name) != getattr(after, name)]
