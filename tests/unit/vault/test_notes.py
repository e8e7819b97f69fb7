"""Concept notes as text: the exact template, safe YAML, and updates that keep a person's edits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from zettelgraph.models import Concept
from zettelgraph.packs.relations import DEFAULT_VOCABULARY
from zettelgraph.vault.notes import (
    EDITED_KEYS,
    OWNED_KEYS,
    ConceptNote,
    LinkedConcept,
    NoteFormatError,
    SourceQuote,
    expected_state,
    front_matter_differs,
    note_state,
    parse_note,
    render_concept_note,
    update_concept_note,
)

CONCEPT_TYPES = [
    "GENERALIZES",
    "SPECIFIC_OF",
    "PART_OF",
    "HAS_PART",
    "SUPPORTS",
    "SUPPORTED_BY",
    "PREREQUISITE_FOR",
    "REQUIRES",
    "OPPOSES",
    "SIMILAR_TO",
    "RELATES_TO",
]


def concept(**fields: Any) -> Concept:
    values: dict[str, Any] = {
        "id": "11111111-1111-5111-8111-111111111111",
        "title": "Entrenamiento aeróbico",
        "concept": "El ejercicio aeróbico mejora la capacidad cardiovascular.",
        "analysis": "Conviene combinarlo con fuerza.",
        "summary_short": "El aeróbico mejora el corazón.",
        "summary": "El entrenamiento aeróbico sostenido mejora la capacidad cardiovascular.",
    }
    values.update(fields)
    return Concept(**values)


def sample_note(**fields: Any) -> ConceptNote:
    return ConceptNote(
        concept=concept(**fields),
        relations={
            "GENERALIZES": [
                LinkedConcept("22222222-2222-5222-8222-222222222222", "Carrera continua"),
                LinkedConcept("33333333-3333-5333-8333-333333333333", "Natación"),
            ],
            "PART_OF": [LinkedConcept("44444444-4444-5444-8444-444444444444", "Salud física")],
            "OPPOSES": [LinkedConcept("55555555-5555-5555-8555-555555555555", "Sedentarismo")],
        },
        sources=[
            SourceQuote(
                quote_id="q1",
                text="Correr treinta minutos al día\ncambia el corazón.",
                content_title="Corre o muere",
                author="Kilian Jornet",
                page="12",
            ),
            SourceQuote(
                quote_id="q2",
                text="Aerobic work builds the base.",
                content_title="Training for the Uphill Athlete",
                author=None,
                page=None,
            ),
        ],
    )


EXPECTED = """\
---
entity_id: 11111111-1111-5111-8111-111111111111
entity_type: Concept
tags:
- concept
summary: El entrenamiento aeróbico sostenido mejora la capacidad cardiovascular.
short_summary: El aeróbico mejora el corazón.
source:
- '[[Corre o muere]]'
- '[[Training for the Uphill Athlete]]'
author:
- '[[Kilian Jornet]]'
generalizes:
- '[[Carrera continua]]'
- '[[Natación]]'
part_of:
- '[[Salud física]]'
opposes:
- '[[Sedentarismo]]'
---
# Entrenamiento aeróbico

## Concepto
El ejercicio aeróbico mejora la capacidad cardiovascular.

## Análisis
Conviene combinarlo con fuerza.

## Conexiones
- GENERALIZES: [[Carrera continua]], [[Natación]]
- PART_OF: [[Salud física]]
- OPPOSES: [[Sedentarismo]]

## Fuente
> Correr treinta minutos al día
> cambia el corazón.

— *Corre o muere*, Kilian Jornet, p. 12

> Aerobic work builds the base.

— *Training for the Uphill Athlete*
"""


def test_render_matches_the_template_exactly() -> None:
    assert render_concept_note(sample_note()) == EXPECTED


def test_a_note_without_relations_sources_or_analysis_has_no_empty_section() -> None:
    note = ConceptNote(concept=concept(analysis=""), relations={}, sources=[])
    text = render_concept_note(note)
    front, body = parse_note(text)
    # The edited keys are there only once the reader edited the concept; no empty property.
    assert list(front) == ["entity_id", "entity_type", "tags", "summary", "short_summary"]
    assert not any(kind.lower() in front for kind in CONCEPT_TYPES)
    assert note_state(text)["connections"] is None
    assert "## Análisis" not in body and "## Fuente" not in body
    assert body.endswith("## Concepto\nEl ejercicio aeróbico mejora la capacidad cardiovascular.\n")


def test_a_short_summary_equal_to_the_summary_is_not_repeated() -> None:
    note = ConceptNote(concept(summary_short="Igual.", summary="Igual."), {}, [])
    front, _ = parse_note(render_concept_note(note))
    assert front["summary"] == "Igual." and "short_summary" not in front


def test_page_ranges_and_multiline_quotes() -> None:
    source = SourceQuote("q", "uno\n\ndos", "Libro", "Ana", "3-5")
    text = render_concept_note(ConceptNote(concept(), {}, [source]))
    assert "> uno\n>\n> dos\n\n— *Libro*, Ana, pp. 3-5\n" in text


@pytest.mark.parametrize(
    "title",
    [
        "Kant: la razón pura",
        "Lo \"sublime\" y 'lo bello'",
        "#etiqueta y ^bloque",
        "Ñandú, acción, pingüino",
        "Energía 🔋⚡ y 👩‍🔬",
        "yes",
        "- lista? [no] {tampoco}: 12",
        "null",
    ],
)
def test_front_matter_round_trips_awkward_text(title: str) -> None:
    note = ConceptNote(
        concept(title=title, summary_short=title, summary=f"{title}\n{title}"),
        {"RELATES_TO": [LinkedConcept("x", title)]},
        [],
        note_name="Otro nombre",
    )
    front, _ = parse_note(render_concept_note(note))
    assert front["short_summary"] == title.strip()
    assert front["summary"] == f"{title}\n{title}"
    assert front["aliases"] == [title]


NO_SEPARATORS = st.characters(blacklist_characters="\x85\u2028\u2029")


@settings(max_examples=200)
@given(st.text(NO_SEPARATORS, min_size=1, max_size=80), st.text(NO_SEPARATORS, max_size=200))
def test_front_matter_round_trips_any_text(short: str, summary: str) -> None:
    note = ConceptNote(concept(summary_short=short, summary=summary), {}, [])
    front, _ = parse_note(render_concept_note(note))
    # Text the store holds is written trimmed, and the short summary only when it says more.
    assert front.get("summary") == (summary.strip() or None)
    shown = short.strip() not in ("", summary.strip())
    assert front.get("short_summary") == (short.strip() if shown else None)


def test_unicode_line_separators_become_newlines() -> None:
    # PyYAML would otherwise write them raw and read them back as spaces.
    note = ConceptNote(concept(summary="a\x85b\u2028c\u2029d"), {}, [])
    assert parse_note(render_concept_note(note))[0]["summary"] == "a\nb\nc\nd"


def test_wikilinks_use_the_note_name_and_never_break() -> None:
    note = ConceptNote(
        concept(),
        {
            "RELATES_TO": [
                LinkedConcept("a", "Mapa [territorio] | #1 ^x"),
                LinkedConcept("b", "Algo: largo", note_name="Algo largo (2)"),
                LinkedConcept("c", "[]|#^"),
            ]
        },
        [],
    )
    line = note_state(render_concept_note(note))["connections"][-1]
    assert line == "- RELATES_TO: [[Mapa territorio 1 x]], [[Algo largo (2)]], [[c]]"


def test_headings_in_generated_text_cannot_open_sections() -> None:
    text = render_concept_note(
        ConceptNote(concept(analysis="# Uno\n## Conexiones\n### tres\n#tag"), {}, [])
    )
    assert "### Uno\n### Conexiones\n### tres\n#tag\n" in text
    assert text.count("## Conexiones\n") == 1  # the demoted one: the note has no relation
    assert note_state(text)["connections"] is None


# --- updates ----------------------------------------------------------------------------------

NEW_LINK = LinkedConcept("66666666-6666-5666-8666-666666666666", "Corazón de atleta")


def changed_note() -> ConceptNote:
    """The sample with a new relation and a new summary in the store."""
    note = sample_note(summary_short="Resumen nuevo.")
    return ConceptNote(note.concept, {**note.relations, "SIMILAR_TO": [NEW_LINK]}, note.sources)


def test_update_replaces_only_owned_front_matter_and_connections() -> None:
    edited = (
        render_concept_note(sample_note())
        .replace("tags:\n- concept\n", "tags: [deporte, concept]\n", 1)
        .replace("generalizes:", "rating: 5  # mine\ngeneralizes:", 1)
        .replace(
            "Conviene combinarlo con fuerza.\n", "Conviene combinarlo con fuerza.\n\nYo: sí.\n"
        )
    )
    edited += "\n## Mis notas\nLeer otra vez.  \n"
    updated = update_concept_note(edited, changed_note())
    front, _ = parse_note(updated)
    # Owned keys are kept together where the first one was; the person's keep their order.
    unedited = [key for key in OWNED_KEYS if key in front and key not in EDITED_KEYS]
    assert list(front) == [*unedited, "rating"]
    assert front["tags"] == ["concept", "deporte"] and front["rating"] == 5
    assert "rating: 5  # mine\n" in updated  # the person's line, comment included
    assert front["short_summary"] == "Resumen nuevo."
    assert front["similar_to"] == ["[[Corazón de atleta]]"]
    assert "- SIMILAR_TO: [[Corazón de atleta]]\n" in updated
    edited_body, updated_body = parse_note(edited)[1], parse_note(updated)[1]
    head = "\n## Conexiones\n"
    assert updated_body.split(head)[0] == edited_body.split(head)[0]
    assert updated_body.split("## Fuente")[1] == edited_body.split("## Fuente")[1]
    assert update_concept_note(updated, changed_note()) == updated
    assert not front_matter_differs(note_state(updated), expected_state(changed_note()))


def test_update_keeps_the_persons_keys_in_their_order() -> None:
    text = render_concept_note(sample_note())
    text = text.replace("---\nentity_id", "---\nzeta: 1\nalpha: 2\nentity_id", 1)
    text = text.replace("---\n# ", "mid: [x]\n---\n# ", 1)
    front, _ = parse_note(update_concept_note(text, changed_note()))
    assert [key for key in front if key not in OWNED_KEYS] == ["zeta", "alpha", "mid"]


def test_update_adds_missing_front_matter_and_connections_before_fuente() -> None:
    text = "# Mi nota\n\nTexto mío.\n\n## Fuente\nUn libro.\n"
    updated = update_concept_note(text, sample_note())
    assert updated.startswith("---\nentity_id: 11111111")
    _, body = parse_note(updated)
    assert body.startswith("# Mi nota\n\nTexto mío.\n\n## Conexiones\n- GENERALIZES:")
    assert body.endswith("- OPPOSES: [[Sedentarismo]]\n\n## Fuente\nUn libro.\n")
    assert update_concept_note(updated, sample_note()) == updated


def test_update_appends_connections_at_the_end_without_fuente() -> None:
    updated = update_concept_note("---\nmine: 1\n---\nSolo texto", sample_note())
    front, body = parse_note(updated)
    assert front["mine"] == 1 and front["entity_id"] == sample_note().concept.id
    assert body.startswith("Solo texto\n\n## Conexiones\n")
    assert update_concept_note(updated, sample_note()) == updated


def test_update_of_an_unterminated_connections_heading() -> None:
    updated = update_concept_note("# T\n\n## Conexiones", sample_note())
    assert "## Conexiones\n- GENERALIZES: [[Carrera continua]]" in updated
    assert update_concept_note(updated, sample_note()) == updated


def test_update_keeps_crlf_line_endings() -> None:
    text = render_concept_note(sample_note()).replace("\n", "\r\n") + "Mío\r\n"
    updated = update_concept_note(text, changed_note())
    assert "\n" not in updated.replace("\r\n", "")
    assert updated.endswith("Mío\r\n")
    assert note_state(updated) == expected_state(changed_note())
    assert update_concept_note(updated, changed_note()) == updated


def test_update_ignores_a_connections_heading_inside_a_code_fence() -> None:
    text = render_concept_note(sample_note()).replace(
        "## Análisis\n", "## Análisis\n```\n## Conexiones\nno tocar\n```\n", 1
    )
    updated = update_concept_note(text, changed_note())
    assert "```\n## Conexiones\nno tocar\n```\n" in updated


def test_unusual_yaml_is_rewritten_whole_but_keeps_values() -> None:
    text = "---\ntags: [a,\nb]\nentity_id: viejo\n---\n# T\n"
    updated = update_concept_note(text, sample_note())
    front, _ = parse_note(updated)
    assert front["tags"] == ["concept", "a", "b"]  # the reader's tags kept after ours
    assert front["entity_id"] == sample_note().concept.id
    assert update_concept_note(updated, sample_note()) == updated


def test_broken_front_matter_is_refused_not_overwritten() -> None:
    with pytest.raises(NoteFormatError):
        update_concept_note("---\ntags: [a\n---\n# T\n", sample_note())
    with pytest.raises(NoteFormatError):
        parse_note("---\n- a list\n---\n")


def test_note_state_ignores_formatting() -> None:
    text = render_concept_note(sample_note())
    reformatted = text.replace("- '[[Salud física]]'\n", '- "[[Salud física]]"\n').replace(
        "- PART_OF: [[Salud física]]\n", "- PART_OF: [[Salud física]]   \n\n"
    )
    assert reformatted != text
    assert note_state(reformatted) == note_state(text)
    assert note_state("# nothing")["connections"] is None


# --- properties -------------------------------------------------------------------------------

PLAIN = st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"))
LINE = st.text(PLAIN, max_size=40).filter(
    lambda line: not line.lstrip().startswith(("#", "```", "~~~"))
)
PROSE = st.lists(LINE, min_size=1, max_size=6).map("\n".join)
KEY = st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True).filter(lambda k: k not in OWNED_KEYS)
VALUE = st.one_of(
    st.text(PLAIN, max_size=30), st.integers(), st.booleans(), st.lists(st.text(PLAIN, max_size=8))
)


def dump(values: dict[str, Any]) -> str:
    return yaml.safe_dump(values, allow_unicode=True, sort_keys=False) if values else ""


@settings(max_examples=150, deadline=None)
@given(
    analysis=PROSE,
    section=PROSE,
    trailing=PROSE,
    before=st.dictionaries(KEY, VALUE, max_size=3),
    after=st.dictionaries(KEY, VALUE, max_size=3),
)
def test_a_persons_edits_survive_an_update(
    analysis: str,
    section: str,
    trailing: str,
    before: dict[str, Any],
    after: dict[str, Any],
) -> None:
    after = {key: value for key, value in after.items() if key not in before}
    text = render_concept_note(sample_note())
    text = text.replace("---\n", "---\n" + dump(before), 1)
    text = text.replace("---\n# ", dump(after) + "---\n# ", 1)
    # The person's own section goes in the body only: a front matter value may itself read
    # "## Conexiones" (hypothesis finds that one).
    head, _, body = text.partition("---\n# ")
    body = body.replace("## Conexiones", f"{analysis}\n\n## Mi sección\n{section}\n\n## Conexiones")
    text = f"{head}---\n# {body}{trailing}\n"

    updated = update_concept_note(text, changed_note())

    front, body = parse_note(updated)
    assert {k: front[k] for k in [*before, *after]} == {**before, **after}
    assert [k for k in front if k not in OWNED_KEYS] == [*before, *after]
    assert dump(before) in updated and dump(after) in updated  # their YAML, byte for byte
    old_body = parse_note(text)[1]
    head = "\n## Conexiones\n"
    assert body.split(head)[0] == old_body.split(head)[0]
    assert body.split("\n## Fuente\n")[1] == old_body.split("\n## Fuente\n")[1]
    assert note_state(updated) == expected_state(changed_note())
    assert update_concept_note(updated, changed_note()) == updated


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=300))
def test_update_is_idempotent_on_any_text(text: str) -> None:
    try:
        once = update_concept_note(text, sample_note())
    except NoteFormatError:
        return  # broken front matter is refused, never rewritten
    assert update_concept_note(once, sample_note()) == once
    assert note_state(once) == expected_state(sample_note())


def test_vocabulary_order_comes_from_the_vocabulary() -> None:
    assert list(DEFAULT_VOCABULARY.reverses) == CONCEPT_TYPES


def test_the_documented_example_is_what_render_writes() -> None:
    docs = Path(__file__).resolve().parents[3] / "docs" / "vault.md"
    assert f"```markdown\n{EXPECTED}```\n" in docs.read_text(encoding="utf-8")
