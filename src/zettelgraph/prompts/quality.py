"""The quality checklist shared by extraction, critique, refinement and feedback prompts."""

from __future__ import annotations

from zettelgraph.packs.relations import RelationVocabulary

LANGUAGE_NAMES = {"es": "Spanish (español)", "en": "English", "fr": "French", "de": "German"}


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)


def atomicity_guide(language: str) -> str:
    return f"""A concept is ONE atomic idea (Zettelkasten):
- it answers one specific question or explains one phenomenon, understandable on its own;
- not too thin ("El ejercicio es bueno"), not a list ("mejora la salud, reduce el estrés y ...");
- good: "El ejercicio aeróbico regular mejora la salud cardiovascular al fortalecer el músculo
  cardíaco y reducir la presión arterial".
Write every concept (title, concept, analysis, summaries) in {language_name(language)}, whatever
the language of the quotes. summary_short has at most 30 words, summary at most 100 words."""


CHECKLIST = """Quality checklist:
1. atomicity: each concept holds exactly one clear, standalone idea;
2. distinctness: no concept repeats another one or an existing concept of the graph;
3. quote_coverage: every meaningful quote supports at least one concept (new or existing);
4. relation_accuracy: each relation's type and direction are right and meaningful;
5. language: every concept is written in {language};
6. edge_cases: unattributed quotes and concepts without relations are noted, not hidden."""


def checklist(language: str) -> str:
    return CHECKLIST.format(language=language_name(language))


def relation_guide(vocabulary: RelationVocabulary) -> str:
    lines = [
        f"- {name}: {vocabulary.descriptions.get(name, '')}" for name in sorted(vocabulary.types)
    ]
    return "Relation types (A -[TYPE]-> B), reverses are added automatically:\n" + "\n".join(lines)
