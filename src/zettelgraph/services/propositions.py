"""Propositions: a content's passages split into self-contained statements, on request.

    zettelgraph propositions make CONTENT [--again] [--sentences]   (and `ingest --propositions`)
    zettelgraph propositions show PASSAGE

Each passage costs one LLM call (the fast model), so they are made only when the reader asks;
`--sentences` takes each sentence as a statement instead, with no LLM call and no pronoun
resolved (the baseline that was measured, docs/design.md, "Propositions").
A passage's statements are written with it in one change set: the Proposition nodes, a
`STATED_IN` relation to the passage and their vectors, replacing any it had. A passage whose
call fails keeps what it had and is named in the report's warnings; running the command again
picks up the passages that have none (`--again` redoes them all). Search uses them through a
recipe with a proposition weight (docs/design.md, "Propositions").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from zettelgraph.context import Services
from zettelgraph.ingest.chunking import split_sentences
from zettelgraph.llm.embeddings import Embedder
from zettelgraph.models import (
    MAX_PROPOSITION_CHARS,
    MAX_PROPOSITIONS,
    ChangeSet,
    NodeLabel,
    Proposition,
    Quote,
    Relation,
    Section,
    embedding_text,
    proposition_id,
)
from zettelgraph.packs.relations import STATED_IN
from zettelgraph.prompts import split_propositions
from zettelgraph.services.errors import MODEL_FAILED, model_error_message
from zettelgraph.services.ids import IdError, resolve_node_id
from zettelgraph.text.language import DetectLanguage
from zettelgraph.text.normalize import words


class PropositionError(ValueError):
    """A content or passage that does not exist: nothing was asked or written."""


@dataclass
class PropositionsReport:
    """What `propositions make` did to one content."""

    content_id: str
    title: str
    passages: int = 0  # passages split this time
    skipped: int = 0  # passages that already had statements (`--again` redoes them)
    propositions: int = 0  # statements written
    dropped: int = 0  # statements refused: repeated, or sharing no word with their passage
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """What `propositions make --json` prints (and `ingest --propositions --json` lists).

        Returns:
            `content_id`, `title`, the numbers `passages`, `skipped`, `propositions` and
            `dropped`, and `warnings` (one line per passage whose call failed).
        """
        return {
            "content_id": self.content_id,
            "title": self.title,
            "passages": self.passages,
            "skipped": self.skipped,
            "propositions": self.propositions,
            "dropped": self.dropped,
            "warnings": self.warnings,
        }


def make_propositions(
    services: Services,
    content: str,
    *,
    again: bool = False,
    sentences: bool = False,
    on_passage: Callable[[int, int], None] | None = None,
) -> PropositionsReport:
    """Split every passage of `content` (an id or a unique prefix) into propositions.

    Args:
        services: the open services (store, fast model, embedder).
        content: the content's id or a unique prefix of it.
        again: also redo the passages that already have propositions.
        sentences: take each sentence as a statement (no LLM call) instead of asking the model.
        on_passage: told (passages done, passages to do) after each passage.

    Returns:
        How many passages were split or skipped, statements written or dropped, and a warning
        per passage whose call failed.

    Raises:
        PropositionError: no content has this id (or prefix).
    """
    store = services.store
    try:
        content_id = resolve_node_id(store, NodeLabel.CONTENT, content)
    except IdError as exc:
        raise PropositionError(str(exc)) from None
    found = store.get_content(content_id)
    if found is None:  # removed between the two reads
        raise PropositionError(f"no content {content_id!r}: `zettelgraph contents` lists them")
    services.check_embedder()
    report = PropositionsReport(content_id=content_id, title=found.title)
    quotes = store.quotes_of(content_id)
    had = {p.passage_id for p in store.propositions_of([q.id for q in quotes])}
    todo = [q for q in quotes if again or q.id not in had]
    report.skipped = len(quotes) - len(todo)
    sections = {s.id: s for s in store.sections_of(content_id)}
    for done, quote in enumerate(todo, start=1):
        try:
            statements = (
                sentence_statements(quote.text)
                if sentences
                else _ask(services, found.title, quote, sections.get(quote.parent_id or ""))
            )
        except MODEL_FAILED as exc:
            report.warnings.append(
                f"passage {quote.id} (position {quote.position}) kept what it had: "
                f"{model_error_message(exc)}"
            )
        else:
            kept = grounded_statements(quote.text, statements)
            own = in_passage_language(quote.text, kept, services.detect_language)
            if len(own) < len(kept):
                where = f"passage {quote.id} (position {quote.position})"
                fallback = "" if own else "; its sentences were taken instead"
                report.warnings.append(
                    f"{where}: {len(kept) - len(own)} of its statements were not in the "
                    f"passage's language{fallback}"
                )
            report.dropped += len(statements) - len(own)
            kept = own if own or not kept else sentence_statements(quote.text)
            _write(services, quote, kept)
            report.passages += 1
            report.propositions += len(kept)
        if on_passage is not None:
            on_passage(done, len(todo))
    return report


def passage_propositions(services: Services, passage: str) -> tuple[Quote, list[Proposition]]:
    """A passage (an id or a unique prefix) and its propositions, in order.

    Args:
        services: the open services (the store).
        passage: the passage's id or a unique prefix of it.

    Returns:
        The passage and its propositions (empty when none were made yet).

    Raises:
        PropositionError: no passage has this id (or prefix).
    """
    try:
        passage_id = resolve_node_id(services.store, NodeLabel.QUOTE, passage)
    except IdError as exc:
        raise PropositionError(str(exc)) from None
    quotes = services.store.get_quotes([passage_id])
    if not quotes:
        raise PropositionError(f"no passage {passage_id!r}")
    return quotes[0], services.store.propositions_of([passage_id])


def grounded_statements(passage: str, statements: list[str]) -> list[str]:
    """The statements kept: blank and repeated ones dropped, and those that share no word of
    four letters or more with the passage (a statement about something else entirely).

    Args:
        passage: the passage's text.
        statements: what the model proposed, in order.

    Returns:
        The statements kept, spaces collapsed, in order, at most `MAX_PROPOSITIONS`.
    """
    passage_words = {w for w in words(passage) if len(w) >= 4}
    seen: set[str] = set()
    kept: list[str] = []
    for statement in statements:
        text = " ".join(statement.split())
        key = " ".join(words(text))
        if not key or key in seen:
            continue
        if passage_words and not passage_words & set(key.split()):
            continue
        seen.add(key)
        kept.append(text)
    return kept[:MAX_PROPOSITIONS]


def in_passage_language(passage: str, statements: list[str], detect: DetectLanguage) -> list[str]:
    """The statements written in the passage's language: a small model told in English to
    keep the passage's language still wrote a Spanish passage's statements in English, which
    share its names and numbers and so pass `grounded_statements`. A statement (or passage)
    too short or mixed for the detector to name a language is kept.

    Args:
        passage: the passage's text.
        statements: the statements kept so far, in order.
        detect: the proposal checks' language detector (`Services.detect_language`).

    Returns:
        The statements whose language is the passage's, or undecided, in order.
    """
    language = detect(passage)
    if language is None:
        return statements
    return [s for s in statements if detect(s) in (None, language)]


def sentence_statements(passage: str) -> list[str]:
    """A passage's sentences as its statements, each cut at a word to the length a statement
    may have (the split `--sentences` makes, and the benchmark's baseline).

    Args:
        passage: the passage's text.

    Returns:
        Its sentences in order, at most `MAX_PROPOSITIONS` (the rest of a longer passage
        joined to the last one, cut).
    """
    found = split_sentences(passage)
    if len(found) > MAX_PROPOSITIONS:
        found = [*found[: MAX_PROPOSITIONS - 1], " ".join(found[MAX_PROPOSITIONS - 1 :])]
    return [_clipped(sentence) for sentence in found]


def _clipped(text: str) -> str:
    if len(text) <= MAX_PROPOSITION_CHARS:
        return text
    cut = text[:MAX_PROPOSITION_CHARS].rsplit(" ", 1)[0]
    return cut or text[:MAX_PROPOSITION_CHARS]


def _ask(services: Services, title: str, quote: Quote, section: Section | None) -> list[str]:
    data = split_propositions.PropositionsInput(
        passage=quote.text,
        title=title,
        section=section.title if section else (quote.section or ""),
        context=section.text if section and section.text != quote.text else "",
    )
    reply = services.structured(
        services.llms.fast,
        name=split_propositions.NAME,
        messages=split_propositions.messages(data),
        response_model=split_propositions.Propositions,
        sampling=split_propositions.SAMPLING,
    )
    return list(reply.statements)


def statements_change(passages: Sequence[tuple[Quote, list[str]]], embedder: Embedder) -> ChangeSet:
    """The Propositions of these passages with their `STATED_IN` relations and vectors (one
    embedding call for all), as one change set.

    Args:
        passages: each passage with its statements, in order.
        embedder: the store's embedder.

    Returns:
        The change set that writes them (replacing a passage's statements of the same places).
    """
    made = [
        Proposition(
            id=proposition_id(quote.id, position),
            passage_id=quote.id,
            content_id=quote.content_id,
            text=text,
            position=position,
        )
        for quote, statements in passages
        for position, text in enumerate(statements)
    ]
    vectors = embedder.embed([embedding_text(p) for p in made]) if made else None
    return ChangeSet(
        propositions=made,
        relations=[Relation(source_id=p.id, target_id=p.passage_id, type=STATED_IN) for p in made],
        vectors={} if vectors is None else {p.id: vectors[i] for i, p in enumerate(made)},
    )


def _write(services: Services, quote: Quote, statements: list[str]) -> None:
    """The passage's statements, replacing what it had, in one change set."""
    change = statements_change([(quote, statements)], services.embedder)
    kept = {p.id for p in change.propositions}
    old = [p.id for p in services.store.propositions_of([quote.id])]
    change.delete_ids = [i for i in old if i not in kept]
    services.store.apply(change)
