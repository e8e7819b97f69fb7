"""The seven quality measures of an extraction run, computed from its review report.

They are what benchmarks/quality.py prints and what the proposal checks aim at; the
definitions follow issue 11 word for word:

- language: concepts whose `concept` + `analysis` + `summary_short` read as the graph's
  language (lingua);
- grounding: (concept, quote) attributions whose cosine between "title. concept" and the quote
  is at least 0.30 (the default embedder);
- repeated explanations: relations whose explanation is word for word (case and spacing
  aside) another relation's of the same run;
- contradictions: concept pairs joined both by an opposing and by an agreeing type;
- density: relations among new concepts over the possible pairs of new concepts;
- copies: concepts whose body copies one of their quotes (token overlap >= 0.8);
- coverage: quotes attributed to a concept, new or existing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from zettelgraph.guards.distillation import COPY_LIMIT, copied_quote
from zettelgraph.guards.grounding import concept_text, cosine, quote_floors
from zettelgraph.guards.relations import contradictory_pairs
from zettelgraph.llm.embeddings import Embedder
from zettelgraph.packs.relations import RelationVocabulary
from zettelgraph.text.language import DetectLanguage
from zettelgraph.thresholds import calibrated


def _word_for_word(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .")


def run_counts(
    report: Mapping[str, Any],
    *,
    language: str,
    detect: DetectLanguage,
    embedder: Embedder,
    vocabulary: RelationVocabulary,
) -> dict[str, int]:
    """The numerators and denominators of every measure for one run's report."""
    concepts = list(report.get("concepts", []))
    relations = list(report.get("relations", []))
    in_language = sum(
        1
        for c in concepts
        if detect(f"{c['concept']} {c['analysis']} {c['summary_short']}") == language
    )
    pairs = [(c, q) for c in concepts for q in c.get("quotes", [])]
    grounded = 0
    if pairs:
        vectors = embedder.embed(
            [concept_text(c) for c, _ in pairs] + [str(q["text"]) for _, q in pairs]
        )
        # The embedder's own lines (USE: 0.30, a little under the grounding check's 0.31),
        # lower for a quote in another language than the graph's.
        numbers = calibrated(embedder.name)
        floors = quote_floors(
            {str(i): str(q["text"]) for i, (_, q) in enumerate(pairs)},
            language,
            detect,
            numbers.grounded_measure,
            numbers.grounded_measure_across,
        )
        grounded = sum(
            1
            for i in range(len(pairs))
            if cosine(vectors[i], vectors[len(pairs) + i]) >= floors[str(i)]
        )
    explanations = Counter(_word_for_word(str(r.get("explanation", ""))) for r in relations)
    repeated = sum(1 for r in relations if explanations[_word_for_word(str(r["explanation"]))] > 1)
    new = len(concepts)
    # A draft left as its quote on purpose (a small model's `titles` task), and shown as one,
    # is not a copy passed off as an idea.
    copies = sum(
        1
        for c in concepts
        if not c.get("is_quote")
        and copied_quote(
            str(c["concept"]), {str(q["id"]): str(q["text"]) for q in c.get("quotes", [])}
        )
        is not None
    )
    quotes = int(report.get("quotes", 0))
    return {
        "concepts": new,
        "concepts_in_language": in_language,
        "attributions": len(pairs),
        "attributions_grounded": grounded,
        "relations": len(relations),
        "relations_repeating_an_explanation": repeated,
        "contradictory_pairs": contradictory_pairs(relations, vocabulary),
        "relations_among_new": sum(
            1 for r in relations if r.get("source_is_new") and r.get("target_is_new")
        ),
        "possible_new_pairs": new * (new - 1) // 2,
        "concepts_copying_a_quote": copies,
        "quotes": quotes,
        "quotes_attributed": quotes - len(report.get("unattributed_quotes", [])),
    }


def measures(counts: Iterable[Mapping[str, int]]) -> dict[str, float | int | None]:
    """The seven measures over one or more runs' counts (pooled, not averaged)."""
    total: Counter[str] = Counter()
    for one in counts:
        total.update(one)

    def share(part: str, whole: str) -> float | None:
        return round(total[part] / total[whole], 3) if total[whole] else None

    return {
        "concepts_in_language": share("concepts_in_language", "concepts"),
        "attributions_grounded": share("attributions_grounded", "attributions"),
        "relations_repeating_an_explanation": share(
            "relations_repeating_an_explanation", "relations"
        ),
        "contradictory_pairs": total["contradictory_pairs"],
        "relations_per_possible_new_pair": share("relations_among_new", "possible_new_pairs"),
        "concepts_copying_a_quote": share("concepts_copying_a_quote", "concepts"),
        "quotes_attributed": share("quotes_attributed", "quotes"),
    }


GOALS: dict[str, tuple[str, float]] = {
    "concepts_in_language": (">=", 0.95),
    "attributions_grounded": (">=", 0.95),
    "relations_repeating_an_explanation": ("<=", 0.05),
    "contradictory_pairs": ("<=", 0),
    "relations_per_possible_new_pair": ("<=", 0.5),
    "concepts_copying_a_quote": ("<=", 0.10),
    "quotes_attributed": (">=", 0.90),
}


def meets_goals(values: Mapping[str, float | int | None]) -> dict[str, bool]:
    """Whether each measure meets issue 11's goal (a measure with no data meets it)."""
    result = {}
    for name, (op, goal) in GOALS.items():
        value = values.get(name)
        result[name] = value is None or (value >= goal if op == ">=" else value <= goal)
    return result


__all__ = ["COPY_LIMIT", "GOALS", "measures", "meets_goals", "run_counts"]
