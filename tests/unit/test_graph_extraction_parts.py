"""The pure parts of graph extraction: property checks, type names, and the prompt's schemas."""

from __future__ import annotations

from typing import Any

import pytest

from zettelgraph.packs.schema import EntityType, PropertyKind, PropertySpec
from zettelgraph.prompts import extract_graph
from zettelgraph.workflows.graph_extraction.packs import known_type
from zettelgraph.workflows.graph_extraction.properties import (
    UnusableError,
    checked_properties,
    coerce,
)


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        ("1605", "integer", 1605),
        (1605.0, "integer", 1605),
        ("2,5", "number", 2.5),
        (3, "number", 3),
        ("sí", "boolean", True),
        ("No", "boolean", False),
        (1605, "date", "1605"),
        ("1605-01-16", "date", "1605-01-16"),
        (1605, "string", "1605"),
        (["escudero", "labrador"], "string", "escudero; labrador"),
        ("Sancho", "list", ["Sancho"]),
        ([1, "Panza", ""], "list", ["1", "Panza"]),
    ],
)
def test_values_of_the_wrong_kind_are_coerced_when_nothing_is_lost(
    value: Any, kind: PropertyKind, expected: Any
) -> None:
    assert coerce(value, kind) == expected


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("hacia 1605", "integer"),
        (1605.5, "integer"),
        (True, "integer"),
        ("muchos", "number"),
        ("quizá", "boolean"),
        ("1605-13-01", "date"),
        ("enero de 1605", "date"),
    ],
)
def test_values_that_need_a_guess_are_refused(value: Any, kind: PropertyKind) -> None:
    with pytest.raises(UnusableError):
        coerce(value, kind)


def test_checked_properties_keep_the_types_own_and_name_the_rest() -> None:
    person = EntityType(
        name="Person",
        description="A person.",
        properties=(PropertySpec(name="born", type="integer"), PropertySpec(name="end_year")),
    )
    kept, problems = checked_properties(
        {"born": "1547", "End Year": "1616", "height": 180, "died": None}, person
    )
    assert kept == {"born": 1547, "end_year": "1616"}
    assert [(p.reason, p.key) for p in problems] == [
        ("unknown_property", "height"),
        ("unknown_property", "died"),
    ]


def test_type_names_match_ignoring_case_spaces_and_underscores() -> None:
    assert known_type("person", ["Person", "Place"]) == "Person"
    assert known_type("lived in", ["LIVED_IN", "KNOWS"]) == "LIVED_IN"
    assert known_type("Horse", ["Person"]) is None


def _data(**kw: Any) -> extract_graph.ExtractGraphInput:
    from graph_packs import STORY_SCHEMA

    return extract_graph.ExtractGraphInput(
        title="Quijote",
        pack_schema=STORY_SCHEMA,
        passages=[extract_graph.PromptPassage(id="q1", text="Sancho Panza.")],
        **kw,
    )


def test_the_requested_schema_lists_the_packs_types_and_the_ids_shown() -> None:
    known = [extract_graph.KnownEntity(id="e1", name="Sancho Panza", type="Person")]
    schema = extract_graph.request_schema(_data(existing=known))
    entity = schema["$defs"]["ExtractEntity"]["properties"]
    relationship = schema["$defs"]["ExtractRelationship"]["properties"]
    assert entity["type"]["enum"] == ["Person", "Place", "Work"]
    assert relationship["relationship_type"]["enum"] == ["KNOWS", "LIVED_IN", "WROTE", "WRITTEN_BY"]
    assert relationship["source_id"]["anyOf"][0]["enum"] == ["e1"]
    assert schema["properties"]["calls"]["maxItems"] == extract_graph.MAX_CALLS
    small = extract_graph.request_schema(_data(max_calls=extract_graph.COMPACT_MAX_CALLS))
    assert small["properties"]["calls"]["maxItems"] == extract_graph.COMPACT_MAX_CALLS
    # Without known entities there is no id to give.
    bare = extract_graph.request_schema(_data())["$defs"]["ExtractRelationship"]["properties"]
    assert "source_id" not in bare and "target_id" not in bare
    # The answer is validated leniently: a wrong type is dropped later, call by call.
    reply = {"calls": [{"tool": "extract_entity", "args": {"name": "Rocinante", "type": "Horse"}}]}
    assert extract_graph.GraphExtraction.model_validate(reply).calls[0].args.type == "Horse"


def test_the_prompt_shows_types_hints_and_ids_never_uuids() -> None:
    known = [extract_graph.KnownEntity(id="e1", name="Sancho Panza", type="Person")]
    system, human = extract_graph.messages(_data(existing=known, note="Solo personas."))
    assert "- KNOWS: Person -> Person, either way." in str(system.content)
    assert "(its reverse WRITTEN_BY is added by the graph)" in str(system.content)
    assert "A character of a novel is a Person." in str(system.content)
    assert '"calls"' in str(system.content)  # the JSON list, for models without tool calling
    assert "[e1] Sancho Panza (Person)" in str(human.content)
    assert "Solo personas." in str(human.content)
    tools_prompt = extract_graph.messages(_data(tool_calling=True))[0]
    assert '"calls"' not in str(tools_prompt.content)
    names = [tool.name for tool in extract_graph.tools(_data())]
    assert names == ["extract_entity", "extract_relationship"]


def test_an_entity_is_grounded_by_a_word_of_one_of_its_names() -> None:
    from zettelgraph.workflows.graph_extraction.nodes_entities import grounded

    text = "la libertad, sancho, es uno de los mas preciosos dones"
    words = set(text.replace(",", "").split())
    assert grounded(["Sancho Panza"], words, text)
    assert grounded(["El Caballero de la Triste Figura", "Sancho"], words, text)
    assert not grounded(["Dulcinea del Toboso"], words, text)
    assert not grounded(["De la Mancha"], words, text)  # fillers and a word not there


def test_the_json_answer_is_shown_with_an_example_from_the_pack() -> None:
    from graph_packs import STORY_SCHEMA

    shown = extract_graph.json_format(STORY_SCHEMA)
    assert '"calls"' in shown and "extract_relationship" in shown
    requested = extract_graph.request_schema(_data())["$defs"]["ExtractEntity"]["properties"]
    # Only the pack's property names, each of its kind.
    assert requested["properties"]["additionalProperties"] is False
    assert requested["properties"]["properties"]["born"] == {"type": "integer"}
