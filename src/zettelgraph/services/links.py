"""The reader's own relations between two concepts that already exist (`zettelgraph link`, the
concept page's form).

Workflows never add or change a relation between two existing concepts (runs never change what
exists: docs/design.md, "Corrections after the commit"); the reader may. A link is written like
a commit: the relation (its reverse or symmetric twin comes from the store's vocabulary) and
both concepts marked `vault_sync_pending` in one store transaction, then both notes rewritten;
a note that cannot be written keeps its mark for `zettelgraph vault sync`.

Refused, with a message that says what to do: an end that is not one concept, a link of a
concept to itself, a type outside the concept vocabulary, a link the graph already has, and a
link that would make the pair agree and oppose at once (the proposal checks' rule,
`guards.relations.contradictory_pairs`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from zettelgraph.context import Services
from zettelgraph.guards.relations import contradictory_pairs
from zettelgraph.models import ChangeSet, Concept, NodeLabel, Relation
from zettelgraph.packs.relations import RelationVocabulary
from zettelgraph.services.ids import AmbiguousIdError, UnknownIdError, resolve_node_id
from zettelgraph.store.base import GraphStore
from zettelgraph.text.normalize import normalize_name
from zettelgraph.vault.report import REPAIR
from zettelgraph.vault.sync import sync_concepts

READER_PROVENANCE = "reader"
# An explanation is a sentence or two, like the ones the model writes for its relations.
MAX_WHY_CHARS = 1000
# Concepts named when a given end matches none exactly.
SUGGESTIONS = 5


class LinkError(ValueError):
    """The link cannot be made; the message says why and what to give instead."""


@dataclass
class LinkResult:
    """A link written: its ends, type and reverse, and what became of the two notes."""

    source_id: str
    source: str
    target_id: str
    target: str
    type: str
    reverse_type: str | None
    properties: dict[str, Any]
    notes_written: list[str] = field(default_factory=list)
    notes_updated: list[str] = field(default_factory=list)
    # Notes of other concepts an earlier write had left unwritten, written with these two.
    notes_repaired: list[str] = field(default_factory=list)
    vault_errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """What `zettelgraph link --json` prints and the web link returns.

        Returns:
            Every field: the ends' ids and titles, `type`, `reverse_type` (None for a one-way type),
            `properties` and what became of the notes.
        """
        return asdict(self)


def find_concept(store: GraphStore, given: str) -> Concept:
    """The one concept `given` names: its id, a unique prefix of its id, or its exact title
    (up to case, accents and spacing). LinkError when it names none or several.

    Args:
        store: the graph store to read.
        given: what the reader typed; spaces around it are ignored.

    Returns:
        The concept.

    Raises:
        LinkError: `given` is blank, names several concepts (listed), or none (with the nearest
            titles).
    """
    text = given.strip()
    if not text:
        raise LinkError("name a concept by its id or its title")
    by_prefix: list[Concept] = []
    try:
        concept = store.get_concept(resolve_node_id(store, NodeLabel.CONCEPT, text))
    except AmbiguousIdError as exc:
        concept, by_prefix = None, [c for c in map(store.get_concept, exc.candidates) if c]
    except UnknownIdError:
        concept = None
    if concept is not None:
        return concept
    key = normalize_name(text)
    by_title = [c for c in store.list_concepts() if normalize_name(c.title) == key]
    if len(by_title) == 1:
        return by_title[0]
    several = by_title or by_prefix
    if several:
        listed = "; ".join(f"{c.title} ({c.id[:8]})" for c in several[:SUGGESTIONS])
        raise LinkError(f"{given!r} names {len(several)} concepts: give the id of one ({listed})")
    hits = store.text_search(text, SUGGESTIONS, label=NodeLabel.CONCEPT)
    near = [c for c in (store.get_concept(hit.id) for hit in hits) if c is not None]
    hint = (
        "; did you mean " + "; ".join(f"{c.title} ({c.id[:8]})" for c in near)
        if near
        else "; `zettelgraph concepts` lists them"
    )
    raise LinkError(f"no concept with the id or title {given!r}{hint}")


def relation_type(vocabulary: RelationVocabulary, given: str) -> str:
    """`given` as a type of the concept vocabulary ("similar_to" is SIMILAR_TO).

    Args:
        vocabulary: the concept relation vocabulary.
        given: the type as the reader typed it, in any case, `-` or space for `_`.

    Returns:
        The type's name in the vocabulary.

    Raises:
        LinkError: the vocabulary has no such type (the message lists its types).
    """
    name = given.strip().upper().replace("-", "_").replace(" ", "_")
    if name not in vocabulary.types:
        raise LinkError(
            f"unknown relation type {given!r}; a concept links to another with one of: "
            + ", ".join(vocabulary.names)
        )
    return name


def link_concepts(
    services: Services, source: str, target: str, relation: str, why: str
) -> LinkResult:
    """Add `source -[relation]-> target` (and its reverse) for the reader, and rewrite both
    concepts' notes.

    Args:
        services: the open services.
        source: the concept the relation starts from: its id, an id prefix or its title.
        target: the concept it points at, named the same ways.
        relation: a type of the concept vocabulary.
        why: the reader's explanation, kept with the link.

    Returns:
        The link written and what became of the two notes.

    Raises:
        LinkError: the link is refused (the module docstring lists why).
    """
    store = services.store
    vocabulary = services.concept_vocabulary
    explanation = " ".join(why.split())
    if not explanation:
        raise LinkError("say why the two concepts are related (--why): the link keeps it")
    if len(explanation) > MAX_WHY_CHARS:
        raise LinkError(
            f"the explanation is {len(explanation)} characters; at most {MAX_WHY_CHARS}"
        )
    kind = relation_type(vocabulary, relation)
    a, b = find_concept(store, source), find_concept(store, target)
    if a.id == b.id:
        raise LinkError(f"{a.title!r} cannot be linked to itself")
    between = _relations_between(store, a.id, b.id)
    if any(r["source"] == a.id and r["type"] == kind for r in between):
        raise LinkError(f"{a.title!r} -[{kind}]-> {b.title!r} is already in the graph")
    proposed = {"source": a.id, "target": b.id, "type": kind}
    # Only a contradiction this link would make: a pair that already holds one (written before
    # the checks existed) may still gain a neutral link.
    if contradictory_pairs([*between, proposed], vocabulary) > contradictory_pairs(
        between, vocabulary
    ):
        held = sorted({r["type"] for r in between if vocabulary.stance(r["type"]) != "neutral"})
        raise LinkError(
            f"{a.title!r} and {b.title!r} are already linked by {', '.join(held)}: a {kind} "
            "link would say they agree and oppose each other at once"
        )
    properties = {
        "provenance": READER_PROVENANCE,
        "explanation": explanation,
        "created_by": services.settings.reader,
    }
    # One transaction: the relation (the store adds its reverse) and both notes marked stale,
    # so a crash before the notes are written leaves them for `vault sync` to repair.
    store.apply(
        ChangeSet(
            concepts=[c.model_copy(update={"vault_sync_pending": True}) for c in (a, b)],
            relations=[
                Relation(
                    source_id=a.id,
                    target_id=b.id,
                    type=kind,
                    properties=properties,
                )
            ],
        )
    )
    result = LinkResult(
        source_id=a.id,
        source=a.title,
        target_id=b.id,
        target=b.title,
        type=kind,
        reverse_type=vocabulary.reverse_of(kind),
        properties=properties,
    )
    try:
        report, repaired = sync_concepts(store, services.vault, [a.id, b.id])
    except OSError as exc:
        result.vault_errors.append(f"{exc}: {REPAIR}")
        return result
    result.notes_written, result.notes_updated = report.written, report.updated
    result.notes_repaired = repaired.written + repaired.updated
    result.vault_errors = report.error_lines() + repaired.error_lines()
    return result


def _relations_between(store: GraphStore, a: str, b: str) -> list[dict[str, Any]]:
    """The typed relations joining `a` and `b` either way, as the relation checks read them."""
    return [
        {"source": r.source_id, "target": r.target_id, "type": r.type}
        for r in store.relations(a, direction="both")
        if {r.source_id, r.target_id} == {a, b}
    ]
