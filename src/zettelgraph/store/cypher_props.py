"""What a node looks like in a Cypher database: its record plus readable properties.

Kept apart from `cypher.py` (the store itself) so the shape of the graph users query with
their own tools is in one short place.
"""

from __future__ import annotations

from typing import Any

from zettelgraph.models import (
    Answer,
    AnyNode,
    Concept,
    Content,
    Entity,
    LearningItem,
    Person,
    Proposition,
    Quote,
    ReviewLog,
    Section,
    label_of,
)
from zettelgraph.store.rules import indexed_text_of, name_key, sortable_time
from zettelgraph.store.study_keys import card_fields, review_fields


def node_properties(node: AnyNode) -> dict[str, Any]:
    """What a node stores: its record as JSON plus the fields other tools query.

    `data` is what the store reads back; the other properties are copies for people and
    indexes (`name_key`, `text_stems`, `text_length`, `content_id`, `created_at` for
    ordering answers).
    """
    stems = indexed_text_of(node)
    props: dict[str, Any] = {
        "id": node.id,
        "label": str(label_of(node)),
        "data": node.model_dump_json(),
        # UTC text, so that ordering by it is ordering by time whatever offset was given.
        "created_at": sortable_time(node.created_at),
        "name_key": name_key(node),
        # What the full-text index sees: the text analysed in its language, as SQLite's is,
        # and how many words that is (BM25's document length).
        "text_stems": stems,
        "text_length": len(stems.split()) if stems is not None else None,
    }
    if isinstance(node, Content):
        props.update(title=node.title, kind=node.kind, summary_short=node.summary_short)
        props["processed_date"] = node.processed_date.isoformat() if node.processed_date else None
    elif isinstance(node, Person):
        props.update(name=node.name, summary_short=node.summary_short)
    elif isinstance(node, Quote):
        props.update(
            content_id=node.content_id,
            position=node.position,
            text=node.text,
            section=node.section,
            page=node.page,
            parent_id=node.parent_id,
        )
    elif isinstance(node, Proposition):
        props.update(
            passage_id=node.passage_id,
            content_id=node.content_id,
            position=node.position,
            text=node.text,
        )
    elif isinstance(node, Section):
        props.update(
            content_id=node.content_id, position=node.position, title=node.title, text=node.text
        )
    elif isinstance(node, Answer):
        props.update(question=node.question, answerable=node.answerable, language=node.language)
        props.update(chat_id=node.chat_id, turn=node.turn)  # chat_answers
    elif isinstance(node, LearningItem):
        props.update(
            item_type=str(node.item_type),
            front=node.front,
            back=node.back,
            difficulty=str(node.difficulty),
        )
        # status, due, item_type and what the study reads sort and count by (`cypher_cards`).
        props.update(card_fields(node))
    elif isinstance(node, Entity):
        props.update(
            name=node.name,
            entity_type=node.entity_type,
            description=node.description,
            pack=node.pack,
        )
    elif isinstance(node, ReviewLog):
        props.update(review_fields(node))
    elif isinstance(node, Concept):
        props.update(title=node.title, summary_short=node.summary_short, language=node.language)
        props.update(synonyms=node.synonyms, first_appearance=node.first_appearance)
    return props
