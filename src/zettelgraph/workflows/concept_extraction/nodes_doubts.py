"""Before each review: every relation keyed (r1 ...), and every proposed concept and relation
given its doubt (guards/doubt.py), so the reader sees first what is probably wrong.

Signals come from the embedder (how close a concept is to its quote and to the book's other
quotes), from plain text (how much it repeats its quote) and, where the provider returns
log-probabilities, from the model's own yes/no on whether the statement says what the quote
says (`prompts/check_statement.py`, one one-token call per concept). An item keeps its doubt
across feedback rounds while its text is the same, so a round re-checks only what changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from zettelgraph.embeddings import is_semantic
from zettelgraph.guards.doubt_signals import (
    embedding_signals,
    relation_signals,
    text_signals,
    yes_probability,
)
from zettelgraph.llm.logprobs import first_token_logprobs
from zettelgraph.llm.structured import SOFT_LLM_ERRORS
from zettelgraph.prompts import check_statement
from zettelgraph.workflows.concept_extraction.nodes_checks import relation_ends
from zettelgraph.workflows.concept_extraction.nodes_extract import llm_call
from zettelgraph.workflows.concept_extraction.proposal import with_keys
from zettelgraph.workflows.concept_extraction.state import (
    DraftConcept,
    DraftRelation,
    ExtractionState,
)
from zettelgraph.workflows.context import Services


def fingerprint(item: Mapping[str, Any], fields: Sequence[str]) -> str:
    """What an item's doubt depends on; a new text or quote list means a new doubt."""
    data = json.dumps([item.get(f) for f in fields], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()[:16]


CONCEPT_FIELDS = ("title", "concept", "quote_ids")
RELATION_FIELDS = ("source", "type", "target", "explanation")


def prepare_review(state: ExtractionState, services: Services) -> dict[str, Any]:
    before: dict[str, Any] = dict(state.get("doubts", {}))
    review = state.get("review")
    decided = list(review["relations"]) if review else []
    proposal = with_keys(state["proposal"], taken=[*before, *decided])
    quotes = {q["id"]: q["text"] for q in state.get("quotes", [])}
    doubts: dict[str, Any] = {}
    todo: list[DraftConcept] = []
    for concept in proposal["concepts"]:
        known = before.get(concept["key"])
        if known is not None and known.get("of") == fingerprint(concept, CONCEPT_FIELDS):
            doubts[concept["key"]] = known
        else:
            todo.append(concept)
    calls: list[dict[str, Any]] = []
    warnings: list[str] = []
    models = services.doubt_models
    if services.doubt_warning:
        warnings.append(services.doubt_warning)
    if todo:
        signals = _concept_signals(todo, quotes, services)
        checks, calls, failure = _model_checks(todo, quotes, services)
        if failure:
            warnings.append(failure)
        for concept in todo:
            measured = {**signals[concept["key"]], **checks.get(concept["key"], {})}
            doubts[concept["key"]] = {
                **models["concept"].judge(measured),
                "of": fingerprint(concept, CONCEPT_FIELDS),
            }
    relations = [
        r
        for r in proposal["relations"]
        if before.get(r.get("key", ""), {}).get("of") != fingerprint(r, RELATION_FIELDS)
    ]
    for relation in proposal["relations"]:
        key = relation.get("key", "")
        if relation not in relations and key in before:
            doubts[key] = before[key]
    if relations:
        for key, measured in _relation_signals(relations, proposal, services).items():
            relation = next(r for r in relations if r.get("key") == key)
            doubts[key] = {
                **models["relation"].judge(measured),
                "of": fingerprint(relation, RELATION_FIELDS),
            }
    return {"proposal": proposal, "doubts": doubts, "llm_calls": calls, "warnings": warnings}


def _concept_signals(
    concepts: Sequence[DraftConcept], quotes: Mapping[str, str], services: Services
) -> dict[str, dict[str, float]]:
    """Text signals always; the embedder's only when it embeds meaning (not `hash`)."""
    quote_ids = list(quotes)
    language = services.settings.concept_language
    out: dict[str, dict[str, float]] = {}
    for concept in concepts:
        cited = [q for q in concept["quote_ids"] if q in quotes]
        out[concept["key"]] = text_signals(
            statement_text=concept["concept"],
            quote_texts=[quotes[q] for q in cited],
            foreign=any(services.detect_language(quotes[q]) not in (None, language) for q in cited),
        )
    if not is_semantic(services.embedder):
        return out
    texts = [quotes[q] for q in quote_ids]
    statements = [f"{c['title']}. {c['concept']}" for c in concepts]
    titles = [c["title"] for c in concepts]
    vectors = services.embedder.embed([*texts, *statements, *titles])
    by_quote = {q: vectors[i] for i, q in enumerate(quote_ids)}
    n, m = len(texts), len(concepts)
    for i, concept in enumerate(concepts):
        cited = [q for q in concept["quote_ids"] if q in by_quote]
        out[concept["key"]].update(
            embedding_signals(
                statement=vectors[n + i],
                title=vectors[n + m + i],
                cited=[by_quote[q] for q in cited],
                others=[by_quote[q] for q in quote_ids if q not in cited],
            )
        )
    return out


def _model_checks(
    concepts: Sequence[DraftConcept], quotes: Mapping[str, str], services: Services
) -> tuple[dict[str, dict[str, float]], list[dict[str, Any]], str | None]:
    """The model's yes/no on each concept, when the settings ask for it; a call that fails
    leaves the signal out (the flag then rests on the others) and says so once."""
    enabled = services.settings.doubt_check
    if enabled is False:
        return {}, [], None
    llm, spec = services.llms.main, services.llms.main_spec
    out: dict[str, dict[str, float]] = {}
    calls: list[dict[str, Any]] = []
    for concept in concepts:
        quote = " … ".join(quotes[q] for q in concept["quote_ids"] if q in quotes)
        if not quote:
            continue
        messages = check_statement.messages(
            check_statement.CheckInput(
                quote=quote,
                statement=f"{concept['title']}. {concept['concept']}",
                language=services.settings.concept_language,
            )
        )
        calls.append(llm_call(check_statement.NAME, spec, concept["key"]))
        try:
            top = first_token_logprobs(
                llm,
                name=check_statement.NAME,
                messages=messages,
                usage=services.usage,
                retries=services.settings.llm_retries,
                backoff=services.settings.llm_backoff,
            )
        except SOFT_LLM_ERRORS as exc:
            return out, calls, f"the doubt check stopped ({exc}); flags rest on the other signals"
        yes = yes_probability(top or [])
        if yes is None:
            # This provider gives no log-probabilities: no use asking again for each concept.
            return out, calls, None
        out[concept["key"]] = {"check": yes}
    return out, calls, None


def _relation_signals(
    relations: Sequence[DraftRelation], proposal: Any, services: Services
) -> dict[str, dict[str, float]]:
    ends = relation_ends(proposal, services)
    names = sorted(ends)
    semantic = is_semantic(services.embedder)
    vectors = (
        services.embedder.embed([f"{ends[e].title}. {ends[e].body}" for e in names])
        if semantic
        else None
    )
    row = {end: vectors[i] for i, end in enumerate(names)} if vectors is not None else {}
    vocabulary = services.concept_vocabulary
    out: dict[str, dict[str, float]] = {}
    for relation in relations:
        source, target = relation["source"], relation["target"]
        if source not in ends or target not in ends:
            continue
        out[relation.get("key", "")] = relation_signals(
            source=row.get(source),
            target=row.get(target),
            confidence=relation["confidence"],
            opposing=vocabulary.stance(relation["type"]) == "opposes",
            explanation=relation["explanation"],
            titles=(ends[source].title, ends[target].title),
        )
    return out
