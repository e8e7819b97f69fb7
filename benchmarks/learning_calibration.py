"""Threshold calibration for the learning items benchmark (`learning.py --calibrate`): the
embedder on a small hand-written set, in the graph's language: 20 quotes with a right and a
plausible wrong answer to a card's question (the answer check keeps a card when cosine(answer,
quote) >= T, the answer embedded as a search query of its quote), and 16 pairs of cards, 8 the
same card in other words and 8 different cards on neighbouring ideas (the duplicate check drops
one of a pair at cosine >= T). Prints what each threshold keeps and drops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zettelgraph.store.vector_index import normalize_rows

# (quote, right answer, plausible wrong answer): what a card's answer check must tell apart.
ANSWERS = [
    (
        "Quien no sabe esperar no verá crecer nada en su huerto.",
        "Saber esperar",
        "La fuerza de la costumbre",
    ),
    (
        "La ciencia es un instrumento para conocer el mundo, no un dogma que lo explique todo.",
        "Un instrumento para conocer, no un dogma",
        "Una fuerza ciega y tenaz",
    ),
    (
        "El hombre de ciencia necesita dudar de todo, empezando por sí mismo.",
        "Dudar de todo, también de sí mismo",
        "Creer en la autoridad de los sabios",
    ),
    (
        "La voluntad de vivir se manifiesta en cada ser como una fuerza ciega y tenaz.",
        "Como una fuerza ciega y tenaz",
        "Como una duda metódica",
    ),
    (
        "The universe is change; our life is what our thoughts make it.",
        "Nuestros pensamientos",
        "La suerte de cada día",
    ),
    (
        "Very little is needed to make a happy life; it is all within yourself, in your way of "
        "thinking.",
        "De la manera de pensar de cada uno",
        "De tener muchos bienes",
    ),
    (
        "Begin the morning by saying to thyself, I shall meet with the busy-body, the ungrateful, "
        "arrogant, deceitful, envious, unsocial.",
        "Preparándose para tratar con gente difícil",
        "Con un buen desayuno y ejercicio",
    ),
    (
        "I went to the woods because I wished to live deliberately, to front only the essential "
        "facts of life.",
        "Para vivir deliberadamente, solo con lo esencial",
        "Para hacerse rico",
    ),
    (
        "Most men lead lives of quiet desperation.",
        "Una desesperación silenciosa",
        "Una alegría ruidosa y constante",
    ),
    (
        "Our life is frittered away by detail. Simplify, simplify.",
        "Simplificar",
        "Acumular más cosas",
    ),
    ("Cada uno es hijo de sus obras.", "De sus propias obras", "De su linaje y su sangre"),
    (
        "La libertad, Sancho, es uno de los más preciosos dones que a los hombres dieron los "
        "cielos.",
        "La libertad",
        "La riqueza",
    ),
    (
        "Dijo el Dómine que la ignorancia del pueblo era la raíz de todos sus males.",
        "La ignorancia",
        "El clima del país",
    ),
    (
        "El pueblo es ignorante, y en vano se le exige una decencia y compostura que no puede "
        "tener.",
        "Decencia y compostura que no puede tener",
        "Que pague más impuestos",
    ),
    (
        "Este es el objeto con que se instituyeron las sociedades civiles; no el engrandecimiento "
        "de un solo hombre con perjuicio de todos los demás.",
        "El bien de todos, no la grandeza de uno solo",
        "La conquista de otros pueblos",
    ),
    (
        "Pero sabe Dios la intención que llevará el que ha escrito esos papeles.",
        "Desconfía de la intención de quien los escribe",
        "Admira la buena letra del escritor",
    ),
    (
        "Yo tengo para mí que antes de 1809 en España ser masón y no ser nada eran una misma cosa.",
        "Que ser masón no significaba nada",
        "Que los masones gobernaban el reino",
    ),
    ("La prisa es la enemiga de toda obra bien hecha.", "La prisa", "La falta de dinero"),
    (
        "El trabajo constante vence cualquier dificultad del camino.",
        "El trabajo constante",
        "La buena suerte",
    ),
    (
        "Quien duda de todo aprende a pensar por sí mismo.",
        "A pensar por sí mismo",
        "A obedecer sin preguntar",
    ),
]
# (card, card, the same card in other words?): flashcards as "question\nanswer", relation
# cards as their back.
PAIRS = [
    (
        "¿Qué le falta a quien no ve crecer nada en su huerto?\nSaber esperar",
        "¿Qué le falta a quien no ve crecer nada en el huerto?\nSaber esperar.",
        True,
    ),
    (
        "¿Qué da forma a nuestra vida?\nNuestros pensamientos",
        "¿Qué es lo que da forma a nuestra vida?\nLo que pensamos",
        True,
    ),
    (
        "¿Qué hace falta para una vida feliz?\nMuy poco: está en nuestra manera de pensar",
        "¿Qué se necesita para vivir feliz?\nMuy poco, todo está en la manera de pensar",
        True,
    ),
    (
        "¿Qué necesita el hombre de ciencia?\nDudar de todo, empezando por sí mismo",
        "¿Qué necesita quien hace ciencia?\nDudar de todo, incluso de sí mismo",
        True,
    ),
    (
        "¿Cómo se manifiesta la voluntad de vivir?\nComo una fuerza ciega y tenaz",
        "¿De qué modo se manifiesta en cada ser la voluntad de vivir?\nComo fuerza ciega y tenaz",
        True,
    ),
    (
        "¿Por qué se fue Thoreau a los bosques?\nPara vivir deliberadamente",
        "¿Para qué fue Thoreau a vivir al bosque?\nPara vivir de forma deliberada",
        True,
    ),
    (
        "¿Qué es la ciencia?\nUn instrumento para conocer el mundo, no un dogma",
        "¿Qué es la ciencia, según el texto?\nUn instrumento de conocimiento, no un dogma",
        True,
    ),
    (
        "«La paciencia da fruto» se opone a «La prisa estropea la obra»: esperar es lo contrario "
        "de correr.",
        "«La prisa estropea la obra» se opone a «La paciencia da fruto»: correr es "
        "lo contrario de esperar.",
        True,
    ),
    (
        "¿Qué le falta a quien no ve crecer nada en su huerto?\nSaber esperar",
        "¿Qué enemigo tiene toda obra bien hecha?\nLa prisa",
        False,
    ),
    ("¿Qué da forma a nuestra vida?\nNuestros pensamientos", "¿Qué es el universo?\nCambio", False),
    (
        "¿Qué necesita el hombre de ciencia?\nDudar de todo",
        "¿Qué es la ciencia?\nUn instrumento para conocer el mundo",
        False,
    ),
    (
        "¿Cómo conviene empezar la mañana?\nPreparándose para tratar con gente difícil",
        "¿Qué hace falta para una vida feliz?\nMuy poco: está en la manera de pensar",
        False,
    ),
    (
        "¿Por qué se fue Thoreau a los bosques?\nPara vivir deliberadamente",
        "¿Qué quería evitar Thoreau al irse al bosque?\nDescubrir al morir que no había vivido",
        False,
    ),
    (
        "¿Cómo se manifiesta la voluntad de vivir?\nComo una fuerza ciega y tenaz",
        "¿Qué mueve a cada ser a seguir viviendo?\nEl miedo a la muerte",
        False,
    ),
    (
        "«La paciencia da fruto» se opone a «La prisa estropea la obra»: esperar es lo contrario "
        "de correr.",
        "«La constancia vence» se opone a «La prisa estropea la obra»: la constancia no corre.",
        False,
    ),
    (
        "¿Qué quiere decir que cada uno es hijo de sus obras?\nQue uno vale por lo que hace",
        "¿Qué vale la nobleza de sangre?\nMenos que las obras de cada uno",
        False,
    ),
]
ANSWER_THRESHOLDS = [round(0.05 * i, 2) for i in range(1, 8)]
DUPLICATE_THRESHOLDS = [0.75, 0.8, 0.85, 0.9, 0.95]


def _cosines(
    embedder: Any, left: list[str], right: list[str], *, left_as_queries: bool = False
) -> np.ndarray[Any, Any]:
    from zettelgraph.llm.embeddings import embed_queries

    a = normalize_rows(embed_queries(embedder, left) if left_as_queries else embedder.embed(left))
    b = normalize_rows(embedder.embed(right))
    return np.asarray(np.sum(a * b, axis=1), dtype=np.float64)


def calibrate(embeddings: str) -> dict[str, Any]:
    from zettelgraph.llm.embeddings import build_embedder

    embedder = build_embedder(embeddings)
    quotes = [q for q, _, _ in ANSWERS]
    # The answer is read as a query of its quote, as the answer check reads it.
    right = _cosines(embedder, [r for _, r, _ in ANSWERS], quotes, left_as_queries=True)
    wrong = _cosines(embedder, [w for _, _, w in ANSWERS], quotes, left_as_queries=True)
    # The highest floor that keeps 19 of 20 right answers, rounded down to 2 decimals.
    floor = float(np.floor(np.sort(right)[len(right) // 20] * 100) / 100)
    pair = _cosines(embedder, [a for a, _, _ in PAIRS], [b for _, b, _ in PAIRS])
    same = np.array([s for _, _, s in PAIRS])
    return {
        "embedder": embedder.name,
        "answers": {
            "right": {
                "min": round(float(right.min()), 3),
                "median": round(float(np.median(right)), 3),
            },
            "wrong": {
                "max": round(float(wrong.max()), 3),
                "median": round(float(np.median(wrong)), 3),
            },
            # Every cosine, for an embedder whose scale the fixed table below does not cover.
            "right_all": sorted(round(float(s), 3) for s in right),
            "wrong_all": sorted(round(float(s), 3) for s in wrong),
            "auc": round(
                float(np.mean([(r > w) + 0.5 * (r == w) for r in right for w in wrong])), 3
            ),
            "floor_keeping_95pct_right": {
                "threshold": floor,
                "right_kept": round(float(np.mean(right >= floor)), 3),
                "wrong_dropped": round(float(np.mean(wrong < floor)), 3),
            },
            "table": [
                {
                    "threshold": t,
                    "right_kept": round(float(np.mean(right >= t)), 3),
                    "wrong_dropped": round(float(np.mean(wrong < t)), 3),
                }
                for t in ANSWER_THRESHOLDS
            ],
        },
        "duplicates": {
            "same_card": sorted(round(float(s), 3) for s in pair[same]),
            "different_cards": sorted(round(float(s), 3) for s in pair[~same]),
            "table": [
                {
                    "threshold": t,
                    "repeats_caught": round(float(np.mean(pair[same] >= t)), 3),
                    "different_merged": round(float(np.mean(pair[~same] >= t)), 3),
                }
                for t in DUPLICATE_THRESHOLDS
            ],
        },
    }
