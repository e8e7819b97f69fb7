"""Grounding: a concept cites only quotes that are about it.

The model sometimes cites a quote that has nothing to do with the idea ("Dormir" citing "Cada
uno es hijo de sus obras"). The embedder tells: the cosine between "title. concept" and the
quote's text. Quotes under the threshold are taken off the concept; a concept left with no
quote has nothing to stand on and is dropped. The threshold is calibrated on human-scored
sentence pairs (`benchmarks/calibrate_duplicates.py --duplicate-score 2 --recall 0.95`,
docs/design.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from zettelgraph.text.normalize import normalize_name


def concept_text(concept: Mapping[str, Any]) -> str:
    """What a concept is compared with: its title and its statement."""
    return f"{concept.get('title', '')}. {concept.get('concept', '')}"


def cosine(a: NDArray[Any], b: NDArray[Any]) -> float:
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b) / norm) if norm else 0.0


def ungrounded(
    concept_vector: NDArray[Any],
    quote_vectors: Mapping[str, NDArray[Any]],
    quote_ids: Sequence[str],
    floors: Mapping[str, float],
) -> list[tuple[str, float, float]]:
    """The cited quotes that are too far from the concept: (id, cosine, the quote's floor)."""
    far = []
    for quote_id in quote_ids:
        vector = quote_vectors.get(quote_id)
        if vector is None:
            continue
        score = cosine(concept_vector, vector)
        if score < floors[quote_id]:
            far.append((quote_id, score, floors[quote_id]))
    return far


def quote_floors(
    quotes: Mapping[str, str],
    language: str,
    detect: Callable[[str], str | None],
    same: float,
    across: float,
) -> dict[str, float]:
    """Each quote's grounding floor: `same` for a quote in the concepts' `language` (or one
    whose language is not told), `across` for a quote in another: a model's cosines across
    languages run lower than within one (docs/design.md, "Embedders")."""
    if same == across:
        return dict.fromkeys(quotes, same)
    return {
        quote_id: across if (found := detect(text)) is not None and found != language else same
        for quote_id, text in quotes.items()
    }


def below(scores: Sequence[float], floors: Sequence[float]) -> str:
    """`0.87 < 0.88`-style text for scores under their floors: as many decimals as the floor
    has (at least two), a third where two would read as the floor itself."""
    parts = []
    for score, floor in zip(scores, floors, strict=True):
        shown = f"{floor:.3f}".rstrip("0")
        digits = max(2, len(shown.split(".")[-1]))
        text = f"{score:.{digits}f}"
        if text == f"{floor:.{digits}f}":
            text = f"{score:.{digits + 1}f}"
        parts.append(f"{text} < {floor:.{digits}f}")
    return ", ".join(parts)


def names_the_source(title: str, source: Mapping[str, Any]) -> bool:
    """Whether a concept's title is only the book's title or its author's name (case, accents
    and spacing aside): what a small model writes when it finds no idea in a quote."""
    key = normalize_name(title).strip(" .")
    names = (source.get("title"), source.get("author"))
    return bool(key) and any(key == normalize_name(str(n)).strip(" .") for n in names if n)
