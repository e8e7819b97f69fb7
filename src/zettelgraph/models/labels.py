"""The words zettelgraph writes around the reader's content, in the concept language.

One table per language (`ZETTELGRAPH_CONCEPT_LANGUAGE`): the vault's headings, the CLI's and
the web's labels of a concept's parts. A concept written in Spanish is read under Spanish
labels everywhere; a language without a table falls back to English. Pure data, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["FALLBACK", "LABELS", "Labels", "every_label", "labels_for"]


@dataclass(frozen=True)
class Labels:
    """The labels of one language."""

    concept: str
    analysis: str
    connections: str
    source: str
    earlier_versions: str
    # A source note's quotes and an author note's sources.
    quotes: str
    sources: str
    why: str
    summary: str
    # Who wrote an earlier text and where it was replaced (a concept note's earlier versions).
    model_text: str
    reader_text: str
    replaced_in_review: str
    replaced_after_approval: str


LABELS: dict[str, Labels] = {
    "es": Labels(
        concept="Concepto",
        analysis="Análisis",
        connections="Conexiones",
        source="Fuente",
        earlier_versions="Versiones anteriores",
        quotes="Citas",
        sources="Fuentes",
        why="Por qué",
        summary="Resumen",
        model_text="texto del modelo",
        reader_text="tu texto",
        replaced_in_review="reemplazado en la revisión",
        replaced_after_approval="reemplazado después de aprobarlo",
    ),
    "en": Labels(
        concept="Concept",
        analysis="Analysis",
        connections="Connections",
        source="Source",
        earlier_versions="Earlier versions",
        quotes="Quotes",
        sources="Sources",
        why="Why",
        summary="Summary",
        model_text="the model's text",
        reader_text="your text",
        replaced_in_review="replaced in the review",
        replaced_after_approval="replaced after approval",
    ),
}
FALLBACK = "en"


def labels_for(language: str) -> Labels:
    """The labels of `language` (an ISO 639-1 code, `es-MX` read as `es`); English when there
    is no table for it."""
    code = language.strip().lower().replace("_", "-").split("-")[0]
    return LABELS.get(code, LABELS[FALLBACK])


def every_label(name: str) -> tuple[str, ...]:
    """The label `name` (a field of `Labels`) in every language, each once: how a note
    written under another language's labels is still read."""
    if name not in {field.name for field in fields(Labels)}:
        raise KeyError(f"no label {name!r}")
    return tuple(dict.fromkeys(str(getattr(labels, name)) for labels in LABELS.values()))
