"""What every backend checks before it writes, as pure functions over the data.

Backends differ in how they write; what may be written is decided here once, so a ChangeSet
that one store refuses is refused by all of them, with the same message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import (
    AnyNode,
    ChangeSet,
    Concept,
    Content,
    Entity,
    NodeLabel,
    Person,
    Quote,
    Relation,
    RelationKey,
    label_of,
)
from zettelgraph.packs.relations import CONCEPT_TYPE, RelationVocabulary
from zettelgraph.store.base import EmbeddingInfo, IntegrityError
from zettelgraph.text.language import detect_language
from zettelgraph.text.normalize import normalize_name
from zettelgraph.text.stemming import STEMMERS, analyze

# Relation types become Cypher relationship types, which cannot be query parameters.
RELATION_TYPE = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")
TOKEN = re.compile(r"\w+", re.UNICODE)
# The labels that are embedded and full-text searched. Sections are kept whole for context
# and Answers are a record of questions: searching them would return the passages again.
# Entities are searched so a graph extraction can show the model the ones it already knows.
SEARCHED_LABELS = (NodeLabel.QUOTE, NodeLabel.CONCEPT, NodeLabel.ENTITY)
# The labels with a vector: the searched ones and Propositions, which are searched by vector
# only (their words are their passage's words, which the passage's full-text row holds).
EMBEDDED_LABELS = (*SEARCHED_LABELS, NodeLabel.PROPOSITION)
# Nodes whose relations to their own kind are typed by the relation vocabulary (the packs).
_TYPED_LABELS = frozenset({str(NodeLabel.CONCEPT), str(NodeLabel.ENTITY)})


def checked_vector(node_id: str, vector: NDArray[np.float32]) -> NDArray[np.float32]:
    array = np.asarray(vector, dtype=np.float32).reshape(-1)
    if not np.all(np.isfinite(array)):
        raise IntegrityError(f"vector for {node_id} contains NaN or infinity")
    return array


def checked_vectors(vectors: Mapping[str, NDArray[np.float32]]) -> dict[str, NDArray[np.float32]]:
    return {node_id: checked_vector(node_id, vector) for node_id, vector in vectors.items()}


def check_vectors(arrays: Mapping[str, NDArray[np.float32]], info: EmbeddingInfo | None) -> None:
    """Vectors written need the store's registered embedder (`info`), and its dimensions."""
    if not arrays:
        return
    if info is None:
        raise IntegrityError("vectors given but no embedder registered: call ensure_embedder")
    check_dims(arrays, info.dim)


def check_dims(arrays: Mapping[str, NDArray[np.float32]], dim: int) -> None:
    for node_id, array in arrays.items():
        if array.shape[0] != dim:
            raise IntegrityError(
                f"vector for {node_id} has {array.shape[0]} dims; the store uses {dim}"
            )


def check_labels(nodes: Sequence[AnyNode], stored: Mapping[str, str]) -> None:
    """A node keeps the label it was first written with."""
    for node in nodes:
        label = str(label_of(node))
        if node.id in stored and stored[node.id] != label:
            raise IntegrityError(
                f"node {node.id} is a {stored[node.id]}, cannot rewrite it as {label}"
            )


def check_vector_nodes(arrays: Mapping[str, object], labels: Mapping[str, str]) -> None:
    missing = sorted(arrays.keys() - labels.keys())
    if missing:
        raise IntegrityError(f"vectors given for nodes that do not exist: {missing[:5]}")
    searched = {str(label) for label in EMBEDDED_LABELS}
    # A vector elsewhere would be counted and copied but never searched (no index has it).
    unsearched = sorted(node_id for node_id in arrays if labels[node_id] not in searched)
    if unsearched:
        raise IntegrityError(
            "vectors are kept only for Quotes, Concepts, Entities and Propositions; "
            f"given for {unsearched[:5]}"
        )


def relations_to_write(
    relations: Sequence[Relation], labels: Mapping[str, str], vocabulary: RelationVocabulary
) -> list[Relation]:
    """The relations to store, concept relations with their reverses; refuses bad ones.

    `labels` maps every node id known after the write (stored or written with it) to its
    label. Relations between two typed nodes (Concept -> Concept, Entity -> Entity: the
    template packs' relationship types) follow the vocabulary; attribution (Quote -> Concept
    SUPPORTS) and structural relations pass as they are.
    """
    if not relations:
        return []
    ids = {r.source_id for r in relations} | {r.target_id for r in relations}
    missing = sorted(ids - labels.keys())
    if missing:
        raise IntegrityError(f"relations refer to nodes that do not exist: {missing[:5]}")
    concept_relations = [
        r
        for r in relations
        if labels[r.source_id] == labels[r.target_id] and labels[r.source_id] in _TYPED_LABELS
    ]
    concept_types: RelationVocabulary | None = None
    for relation in concept_relations:
        if relation.type not in vocabulary.types:
            raise IntegrityError(
                f"relation type {relation.type!r} is not in the vocabulary "
                f"({', '.join(sorted(vocabulary.types))})"
            )
        # Concepts are one entity type of the packs; an entity relationship such as KNOWS
        # does not join them. (Entity endpoint types are checked where entities are typed,
        # by graph extraction against the merged pack schema.)
        if labels[relation.source_id] == str(NodeLabel.CONCEPT) and not vocabulary.joins(
            relation.type, CONCEPT_TYPE, CONCEPT_TYPE
        ):
            concept_types = concept_types or vocabulary.between(CONCEPT_TYPE, CONCEPT_TYPE)
            raise IntegrityError(
                f"relation type {relation.type!r} does not join two Concepts in the active "
                f"packs ({', '.join(sorted(concept_types.types))})"
            )
    concept_keys = {id(r) for r in concept_relations}
    others = [r for r in relations if id(r) not in concept_keys]
    out = [*others, *vocabulary.with_reverses(concept_relations)]
    for relation in out:
        if not RELATION_TYPE.match(relation.type):
            raise IntegrityError(
                f"relation type {relation.type!r} must be upper-case letters, digits and _"
            )
    return out


def check_deletions(changes: ChangeSet) -> None:
    """Refuse a change set that writes a node it deletes (which would it keep?) or names a
    relation type no store can hold; a relation or vector given for a deleted node is refused
    later, as one for any node that does not exist."""
    doomed = set(changes.delete_ids)
    both = sorted(doomed & {node.id for node in changes.nodes()})
    if both:
        raise IntegrityError(f"nodes both written and deleted in one change set: {both[:5]}")
    for _, relation_type, _ in changes.delete_relations:
        if not RELATION_TYPE.match(relation_type):
            raise IntegrityError(
                f"relation type {relation_type!r} must be upper-case letters, digits and _"
            )


def relations_to_delete(
    keys: Sequence[RelationKey], labels: Mapping[str, str], vocabulary: RelationVocabulary
) -> list[RelationKey]:
    """The relations to delete: each one given and, between two typed nodes, the reverse or
    symmetric twin `relations_to_write` wrote with it, so no half of a pair is left behind.
    `labels` maps the ends that exist to their label; a relation whose ends do not exist is
    already gone."""
    out: dict[RelationKey, None] = {}
    for source, relation_type, target in keys:
        if source not in labels or target not in labels:
            continue
        out.setdefault((source, relation_type, target))
        typed = labels[source] == labels[target] and labels[source] in _TYPED_LABELS
        if typed and relation_type in vocabulary.types:
            reverse = vocabulary.reverse_of(relation_type)
            if reverse is not None:
                out.setdefault((target, reverse, source))
    return list(out)


def text_of(node: AnyNode) -> str | None:
    """The text full-text search sees for a node; None for nodes that are not searched.

    Only `SEARCHED_LABELS` have one: a Section's text is its passages' text again, and an
    Answer is not a source.
    """
    if isinstance(node, Quote):  # not its key words: they did not help (docs/design.md)
        return node.text
    if isinstance(node, Concept):
        return " ".join((node.title, *node.synonyms, node.concept, node.analysis, node.summary))
    if isinstance(node, Entity):
        return " ".join((node.name, node.description))
    return None


def text_language(node: AnyNode, text: str) -> str:
    """The language a node's text is analysed in: a Concept's own, otherwise guessed from
    the text's function words once, when it is written (`text.language.detect_language`)."""
    if isinstance(node, Concept) and node.language in STEMMERS:
        return node.language
    return detect_language(text)


def indexed_text_of(node: AnyNode) -> str | None:
    """The analysed copy of `text_of(node)` that full-text indexes hold (stemmed in the
    node's language, accent-folded); None for nodes that are not searched."""
    text = text_of(node)
    return None if text is None else analyze(text, text_language(node, text))


def name_key(node: AnyNode) -> str | None:
    if isinstance(node, Person):
        return normalize_name(node.name)
    if isinstance(node, Content):
        return normalize_name(node.title)
    if isinstance(node, Entity):
        return normalize_name(node.name)
    return None


def sortable_time(moment: datetime) -> str:
    """`moment` in UTC as fixed-width ISO text, so that text order is time order.

    Stored timestamps keep the offset they were given; compared as text, "11:00+02:00" would
    sort after "10:00+00:00". A naive time is taken as UTC, like `utcnow` makes them.
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def query_tokens(query: str) -> list[str]:
    """The words of a search query, never its syntax: user text is only ever words."""
    return TOKEN.findall(query)
