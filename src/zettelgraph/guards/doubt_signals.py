"""The measurements a doubt flag is computed from (`doubt.py`), as pure functions over texts
and the vectors the caller embedded.

For a concept: how close it is to its quotes (`grounding`), whether it is closer to them than
to the book's other quotes (`margin`) or would fit any of them (`generic`), its title's
closeness (`title_grounding`), how much it repeats its quote (`copy`), whether it translates a
quote in another language (`foreign_quote`). For a relation: how close its two ideas are
(`similarity`), the model's confidence, whether the type is an opposing one (`opposing`) and
whether the explanation names both ideas (`names_both`). The model's own checks (`check`,
`stance`) are read by the workflow from log-probabilities and added beside these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from zettelgraph.guards.relations import names
from zettelgraph.text.normalize import copied_share

Vector = NDArray[np.float32]


def unit(vector: Vector) -> Vector:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def text_signals(
    *, statement_text: str, quote_texts: Sequence[str], foreign: bool
) -> dict[str, float]:
    """Signals of one concept read from its text alone."""
    return {
        "copy": max((copied_share(statement_text, q) for q in quote_texts), default=0.0),
        "foreign_quote": 1.0 if foreign else 0.0,
    }


def embedding_signals(
    *, statement: Vector, title: Vector, cited: Sequence[Vector], others: Sequence[Vector]
) -> dict[str, float]:
    """Signals of one concept from the embedder. `cited`: its quotes' vectors; `others`: the
    other quotes of the run (the book), which tell a specific reading from a generic one."""
    s, t = unit(statement), unit(title)
    own = [float(s @ unit(q)) for q in cited]
    rest = [float(s @ unit(q)) for q in others]
    grounding = max(own, default=0.0)
    signals = {
        "grounding": grounding,
        "title_grounding": max((float(t @ unit(q)) for q in cited), default=0.0),
    }
    if rest:
        signals["margin"] = grounding - max(rest)
        signals["generic"] = float(np.mean(rest))
    return signals


def relation_signals(
    *,
    source: Vector | None,
    target: Vector | None,
    confidence: float,
    opposing: bool,
    explanation: str,
    titles: tuple[str, str],
) -> dict[str, float]:
    """Signals of one relation between two ideas (`similarity` when both are embedded)."""
    signals = {
        "confidence": float(confidence),
        "opposing": 1.0 if opposing else 0.0,
        "names_both": 1.0 if all(names(explanation, t) for t in titles) else 0.0,
    }
    if source is not None and target is not None:
        signals["similarity"] = float(unit(source) @ unit(target))
    return signals


def yes_probability(top_logprobs: Sequence[Mapping[str, object]]) -> float | None:
    """P(yes) / (P(yes) + P(no)) from the first token's top log-probabilities of a yes/no
    answer (Spanish or English, any case); None when neither is among them."""
    yes = no = 0.0
    for entry in top_logprobs:
        token = str(entry.get("token", "")).strip().casefold()
        logprob = entry.get("logprob")
        if not isinstance(logprob, int | float):
            continue
        p = float(np.exp(logprob))
        if token in ("s", "sí", "si", "yes", "y"):
            yes += p
        elif token in ("no", "n"):
            no += p
    return yes / (yes + no) if yes + no > 0 else None


def choice_probability(
    top_logprobs: Sequence[Mapping[str, object]], letter: str, letters: Sequence[str]
) -> float | None:
    """The chance of `letter` among `letters` from the first token's top log-probabilities
    of a one-letter answer; None when none of them is among them."""
    mass = dict.fromkeys(letters, 0.0)
    for entry in top_logprobs:
        token = str(entry.get("token", "")).strip().upper().rstrip(").")
        logprob = entry.get("logprob")
        if token in mass and isinstance(logprob, int | float):
            mass[token] += float(np.exp(logprob))
    total = sum(mass.values())
    return mass[letter] / total if total > 0 else None
