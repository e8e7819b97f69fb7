"""The workflow state's records that mirror a pydantic model's JSON stay that model's shape."""

from __future__ import annotations

from typing import get_type_hints

import pytest
from pydantic import BaseModel, ValidationError

from zettelgraph.experiments.models import DocumentInfo, FocusTerm, LLMCallRecord, ToolRun
from zettelgraph.models import ItemType, LearningItem
from zettelgraph.workflows.experiment.state import Document, ExperimentCall, Term, ToolRunRecord
from zettelgraph.workflows.learning_items.items import card_record
from zettelgraph.workflows.learning_items.state import CardRecord
from zettelgraph.workflows.records import as_record

MIRRORS = [
    (CardRecord, LearningItem),
    (Document, DocumentInfo),
    (Term, FocusTerm),
    (ToolRunRecord, ToolRun),
    (ExperimentCall, LLMCallRecord),
]


@pytest.mark.parametrize(("record", "model"), MIRRORS, ids=lambda x: x.__name__)
def test_a_record_has_the_fields_of_the_model_it_mirrors(
    record: type, model: type[BaseModel]
) -> None:
    assert list(get_type_hints(record)) == list(model.model_fields)


def test_a_card_travels_as_its_json_dump() -> None:
    item = LearningItem(
        id="i1",
        item_type=ItemType.FLASHCARD,
        front="What is honour?",
        back="A reputation kept in others' eyes.",
        concept_ids=["c1"],
        provenance={"generation": "g1", "calls": ["card_question"], "score": 0.5},
    )
    record = card_record(item)
    assert record == item.model_dump(mode="json")
    assert LearningItem.model_validate(record) == item


def test_a_dump_with_a_field_the_record_lacks_is_refused_naming_it() -> None:
    dump = {**DocumentInfo(id="d1", title="Doña Perfecta").model_dump(mode="json"), "isbn": "x"}
    with pytest.raises(ValidationError, match="isbn"):
        as_record(Document, dump)
