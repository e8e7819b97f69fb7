"""Reading the graph: what the CLI's listing commands and the web app's pages show.

Plain functions of a store returning JSON-safe dicts, so `zettelgraph concept ID --json`, the
web API and the web pages say the same thing about the same node.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from zettelgraph.models import Concept, Quote, Relation
from zettelgraph.models.locations import quote_place
from zettelgraph.packs.relations import (
    DEFAULT_VOCABULARY,
    QUOTED_IN,
    STRUCTURAL_TYPES,
    SUPPORTS,
    RelationVocabulary,
)
from zettelgraph.services.run_view import RunView
from zettelgraph.services.runs import WorkflowRuns
from zettelgraph.store.base import GraphStore
from zettelgraph.text.normalize import normalize_name


def concept_rows(store: GraphStore, query: str = "") -> list[dict[str, Any]]:
    """Every concept (or those whose title or summary contains `query`), by title.

    Args:
        store: the graph store to read.
        query: text to look for in titles and short summaries, up to case and accents; empty (the
            default) lists every concept.

    Returns:
        One dict per concept, by title: `id`, `title`, `summary_short`, `relations` and `quotes`
        (how many of each) and `vault_sync_pending`.
    """
    wanted = normalize_name(query)
    concepts = [
        concept
        for concept in store.list_concepts()
        if not wanted or wanted in normalize_name(f"{concept.title} {concept.summary_short}")
    ]
    # Counted by the store in two queries, not two relation reads per concept (172
    # concepts: 96 ms before, on every load of the Concepts page).
    ids = [concept.id for concept in concepts]
    relations = store.relation_counts(ids)
    quotes = store.relation_counts(ids, relation_type=SUPPORTS, direction="in")
    rows: list[dict[str, Any]] = [
        {
            "id": concept.id,
            "title": concept.title,
            "summary_short": concept.summary_short,
            "relations": relations[concept.id],
            "quotes": quotes[concept.id],
            "vault_sync_pending": concept.vault_sync_pending,
        }
        for concept in concepts
    ]
    rows.sort(key=lambda row: (row["title"].casefold(), row["id"]))
    return rows


def passage_view(store: GraphStore, quote: Quote) -> dict[str, Any]:
    """A quote or document passage with its source, as a citation shows it.

    Args:
        store: the graph store to read.
        quote: the quote or document passage to show.

    Returns:
        A dict: the passage's `id`, `text`, `page`, `section`, `location`, `location_label`,
        `content_id`, `content` (its source's title), `author`, `section_id`, `keywords`,
        `images` (the pictures its OCR text was read from) and `summary` (its one line,
        empty unless ZETTELGRAPH_PASSAGE_SUMMARIES wrote one).
    """
    return passage_views(store, [quote])[0]


def passage_views(store: GraphStore, quotes: list[Quote]) -> list[dict[str, Any]]:
    """`passage_view` of many passages, reading each Content and author once (a document's
    passages all share one).

    Args:
        store: the graph store to read.
        quotes: the passages to show, in the order wanted.

    Returns:
        One `passage_view` dict per passage, in the order given.
    """
    sources: dict[str, tuple[str | None, str | None]] = {}
    out: list[dict[str, Any]] = []
    for quote in quotes:
        if quote.content_id not in sources:
            content = store.get_content(quote.content_id)
            author = store.author_of(quote.content_id)
            sources[quote.content_id] = (
                content.title if content else None,
                author.name if author else None,
            )
        title, author_name = sources[quote.content_id]
        out.append(
            {
                "id": quote.id,
                "text": quote.text,
                "page": quote.page,
                "section": quote.section,
                "location": quote.location,
                "location_label": quote_place(quote),
                "content_id": quote.content_id,
                "content": title,
                "author": author_name,
                "section_id": quote.parent_id,
                "keywords": quote.keywords,
                "images": quote.images,
                "summary": quote.summary,
            }
        )
    return out


def passage_in_context(store: GraphStore, passage_id: str, around: int = 1) -> dict[str, Any]:
    """A passage with the passages read just before and after it in its source (along the
    `NEXT` edges of the file as last read).

    Args:
        store: the graph store to read.
        passage_id: the passage (a quote or document passage) to show.
        around: how many passages to show on each side (0-20).

    Returns:
        `before` and `after` (lists of `passage_view` dicts, in reading order) and `passage`.

    Raises:
        UnknownPassageError: no passage has this id.
        ValueError: `around` is out of 0-20.
    """
    walk = store.passages_around(passage_id, before=around, after=around)
    if not walk:
        raise UnknownPassageError(
            f"no passage {passage_id!r}: search prints each passage's id, and so does "
            "`zettelgraph show CONTENT --json`"
        )
    views = passage_views(store, walk)
    at = next(i for i, quote in enumerate(walk) if quote.id == passage_id)
    return {"before": views[:at], "passage": views[at], "after": views[at + 1 :]}


class UnknownPassageError(LookupError):
    """No passage has the id asked for."""


def pointing_here(
    outgoing: list[Relation], incoming: list[Relation], vocabulary: RelationVocabulary
) -> list[Relation]:
    """The relations into a node that its own relations do not say already.

    A symmetric or reversible relation is stored both ways (A SIMILAR_TO B with B SIMILAR_TO
    A, A GENERALIZES B with B SPECIFIC_OF A, the second inferred or stated as well), so it is
    listed once, from this node; what is left are one-way types from other nodes.

    Args:
        outgoing: the node's own relations (those it is the source of).
        incoming: the relations pointing to the node.
        vocabulary: the relation vocabulary that says which types are symmetric or reversible.

    Returns:
        The relations of `incoming` to show as pointing here, in their order.
    """
    said: set[tuple[str, str]] = set()
    for r in outgoing:
        said.add((r.type, r.target_id))
        reverse = vocabulary.reverse_of(r.type)
        if reverse:
            said.add((reverse, r.target_id))
    return [
        r
        for r in incoming
        if "inferred_reverse_of" not in r.properties and (r.type, r.source_id) not in said
    ]


def concept_detail(store: GraphStore, concept: Concept) -> dict[str, Any]:
    """A concept with its relations (as links; one pointing here only when this concept's own
    do not say it, see `pointing_here`), its supporting passages and its provenance.

    Args:
        store: the graph store to read.
        concept: the concept to show.

    Returns:
        The concept's fields (JSON, `provenance` among them) with `relations` (each with `type`,
        `target_id`, `target` title, `explanation`, `inferred`), `incoming` (the same with
        `source_id` and `source`) and `quotes` (`passage_view` dicts).
    """
    outgoing: list[dict[str, Any]] = []
    own = store.relations(concept.id)
    into = store.relations(concept.id, direction="in")
    vocabulary: RelationVocabulary = getattr(store, "vocabulary", DEFAULT_VOCABULARY)
    here = pointing_here(own, into, vocabulary)
    # The concepts at the other ends in one read, not one per relation.
    ends = [r.target_id for r in own] + [r.source_id for r in here]
    titles = {c.id: c.title for c in store.get_concepts(ends)}
    for r in own:
        if r.type in STRUCTURAL_TYPES:
            continue
        outgoing.append(
            {
                "type": r.type,
                "target_id": r.target_id,
                "target": titles.get(r.target_id, r.target_id),
                "explanation": r.properties.get("explanation", ""),
                "inferred": "inferred_reverse_of" in r.properties,
            }
        )
    incoming: list[dict[str, Any]] = []
    quote_ids = [r.source_id for r in into if r.type == SUPPORTS]
    for r in here:
        if r.source_id not in titles:
            continue
        incoming.append(
            {
                "type": r.type,
                "source_id": r.source_id,
                "source": titles[r.source_id],
                "explanation": r.properties.get("explanation", ""),
                "inferred": "inferred_reverse_of" in r.properties,
            }
        )
    quotes = passage_views(store, store.get_quotes(quote_ids))
    return {
        **concept.model_dump(mode="json"),
        "relations": outgoing,
        "incoming": incoming,
        "quotes": quotes,
    }


def content_rows(store: GraphStore) -> list[dict[str, Any]]:
    """Every source (book, article, document) with its author and how many passages it has.

    Args:
        store: the graph store to read.

    Returns:
        One dict per content: `id`, `title`, `kind`, `author` (a name or None), `quotes` (the number
        of passages), `processed_date` and `summary_short`.
    """
    rows: list[dict[str, Any]] = []
    contents = store.list_contents()
    # Every passage is QUOTED_IN its content: counted, not read.
    passages = store.relation_counts(
        [content.id for content in contents], relation_type=QUOTED_IN, direction="in"
    )
    for content in contents:
        author = store.author_of(content.id)
        rows.append(
            {
                "id": content.id,
                "title": content.title,
                "kind": content.kind,
                "author": author.name if author else None,
                "quotes": passages[content.id],
                "processed_date": content.processed_date,
                "summary_short": content.summary_short,
            }
        )
    return rows


def content_detail(store: GraphStore, content_id: str) -> dict[str, Any] | None:
    """A Content with its author, sections and passages in reading order.

    Args:
        store: the graph store to read.
        content_id: the content's full id.

    Returns:
        The content's fields (JSON) with `author` (JSON or None), `sections` and `quotes`
        (`passage_view` dicts); None when the store has no such content.
    """
    content = store.get_content(content_id)
    if content is None:
        return None
    author = store.author_of(content_id)
    return {
        **content.model_dump(mode="json"),
        "author": author.model_dump(mode="json") if author else None,
        "sections": [s.model_dump(mode="json") for s in store.sections_of(content_id)],
        "quotes": passage_views(store, store.quotes_of(content_id)),
    }


def inbox(runs: WorkflowRuns) -> list[dict[str, Any]]:
    """Runs waiting for review: content, counts and how long they have waited; concept runs
    and graph extraction runs (`kind`) each with their own counts.

    Args:
        runs: the runs of one extraction workflow (concepts or graph).

    Returns:
        One `inbox_row` dict per run awaiting review, newest first.
    """
    now = datetime.now(UTC)
    rows: list[dict[str, Any]] = []
    for view in runs.list():
        if view.status != "awaiting_review":
            continue
        rows.append(inbox_row(view, now))
    return rows


def inbox_row(view: RunView, now: datetime) -> dict[str, Any]:
    """A run waiting for review as the inbox lists it: a concept run here, a graph extraction
    run through `graph_inbox_row`.

    Args:
        view: the run, as its checkpoint shows it.
        now: the current time (timezone-aware), to say how long it has waited.

    Returns:
        For a concept run: `run_id`, `kind` ("concepts"), `content_id`, `title`, the numbers of
        `concepts`, `relations` and `quotes`, `warnings`, `feedback_rounds`, `updated_at` and
        `age_seconds` (None when the run has no time); `graph_inbox_row`'s dict for a graph run.
    """
    report = view.report or {}
    age: float | None = None
    if view.updated_at:
        age = (now - datetime.fromisoformat(view.updated_at)).total_seconds()
    if report.get("kind") == "graph":
        return graph_inbox_row(view, report, age)
    return {
        "run_id": view.run_id,
        "kind": "concepts",
        "content_id": view.content_id,
        "title": view.title,
        "concepts": len(report.get("concepts", [])),
        "relations": len(report.get("relations", [])),
        "quotes": report.get("quotes", 0),
        # The report's warnings are the run's (both come from the run state): count once.
        "warnings": len(set(view.warnings) | set(report.get("warnings", []))),
        "feedback_rounds": report.get("feedback_rounds", 0),
        "updated_at": view.updated_at,
        "age_seconds": age,
    }


def graph_inbox_row(view: RunView, report: dict[str, Any], age: float | None) -> dict[str, Any]:
    """A graph extraction run waiting for review: what it proposes and what it dropped.

    Args:
        view: the run, as its checkpoint shows it.
        report: the run's report (what it proposes), as the state holds it.
        age: seconds since the run last changed, or None when unknown.

    Returns:
        `run_id`, `kind` ("graph"), `content_id`, `title`, `packs` (names), the numbers of
        `entities`, `entities_new`, `relationships`, `dropped`, `passages` and `warnings`,
        `feedback_rounds`, `updated_at` and `age_seconds`.
    """
    counts = report.get("counts", {})
    return {
        "run_id": view.run_id,
        "kind": "graph",
        "content_id": view.content_id,
        "title": view.title,
        "packs": [pack["name"] for pack in report.get("packs", [])],
        "entities": len(report.get("entities", [])),
        "entities_new": counts.get("entities_new", 0),
        "relationships": counts.get("relationships", 0),
        "dropped": counts.get("dropped", 0),
        "passages": report.get("passages", 0),
        "warnings": len(set(view.warnings) | set(report.get("warnings", []))),
        "feedback_rounds": report.get("feedback_rounds", 0),
        "updated_at": view.updated_at,
        "age_seconds": age,
    }
