"""The web labels a concept's parts in the concept language, from the one table the vault and
the CLI use (`zettelgraph.models.labels`)."""

from __future__ import annotations

from zettelgraph.models import ChangeSet, Concept

from .conftest import MakeWeb

CONCEPT = Concept(
    id="c0ffee00-0000-5000-8000-000000000001",
    title="Vivir deliberadamente",
    concept="Elegir cada día en qué se va la vida.",
    analysis="Thoreau se fue al bosque para eso.",
)


def test_the_concept_page_labels_follow_the_concept_language(make_web: MakeWeb) -> None:
    for language, concept, analysis in (
        ("es", "Concepto", "Análisis"),
        ("en", "Concept", "Analysis"),
        ("de", "Concept", "Analysis"),  # no table: English
    ):
        web = make_web(concept_language=language)
        web.services.store.apply(ChangeSet(concepts=[CONCEPT]))
        page = web.client.get(f"/concepts/{CONCEPT.id}")
        assert page.status_code == 200
        assert f"<h2>{concept}</h2>" in page.text and f"<h2>{analysis}</h2>" in page.text
