"""Learning items (issue 13): cost and quality of card generation on a committed graph.

    python benchmarks/learning.py [--paths examples/] [--graph extract|quotes]
                                  [--llm fake|local|SPEC] [--limit N] [--latency 0]
                                  [--embeddings use-multilingual]
    python benchmarks/learning.py --calibrate [--embeddings use-multilingual]

Generation: in a fresh home, the notes are ingested and every book is extracted (one quote
per call) and approved with the `fake` LLM (so the graph is the same whatever `--llm` is;
its concepts are sentences of the prompts, not ideas, which is enough to measure cost and
the graph cards but not the quality of the LLM cards; `--graph quotes` instead commits one
concept per quote, related to its nearest neighbour in its book), then cards are generated
with `--llm` for the first `--limit` concepts (all by default), then generated again (which
must make nothing new). Printed as one JSON object:

- `items_per_concept`: cards proposed per target concept;
- `calls_per_item`: card_question calls per card proposed;
- `dropped_share`: per check, the cards it set aside over every card made (proposed +
  dropped), duplicates included as `duplicate`;
- `duplicate_share_before` / `_after`: share of new cards with a near twin (same kind, cosine
  >= ZETTELGRAPH_CARD_DUPLICATE_THRESHOLD, new or stored) before the duplicate check, and of
  the kept ones after it;
- `seconds_per_100_concepts`: generation wall time per 100 target concepts;
- `diversity_index` (seed 004): distinct concepts the kept cards are about (each card's first
  concept) over kept cards: 1.0 when every card is about another concept, 0.2 when each
  concept has five; `concept_coverage`: target concepts with at least one kept card.

Calibration (`--calibrate`): the embedder on a small hand-written set, in the graph's
language: 20 quotes with a right and a plausible wrong answer to a card's question (the
answer check keeps a card when cosine(answer, quote) >= T), and 16 pairs of cards, 8 the same
card in other words and 8 different cards on neighbouring ideas (the duplicate check drops
one of a pair at cosine >= T). Prints what each threshold keeps and drops.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from quality import emit  # benchmarks/ is the script's folder, so on sys.path
from zettelgraph.models import ChangeSet, Concept, ItemType, Relation, embedding_text, stable_id
from zettelgraph.relations import SUPPORTS
from zettelgraph.services.card_generation import GenerationReport, generate_cards
from zettelgraph.services.checkpoints import open_checkpointer
from zettelgraph.services.extraction_runs import ExtractionRuns
from zettelgraph.services.ingest import ingest_paths
from zettelgraph.settings import Settings
from zettelgraph.store.vector_index import normalize_rows
from zettelgraph.workflows.context import open_services

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def build_graph(home: Path, paths: list[Path], embeddings: str) -> dict[str, Any]:
    """Ingest `paths`, extract and approve every book with the fake LLM; what was committed."""
    # One quote per extraction call: the fake model gives one or two concepts per call, so a
    # batch of forty quotes would leave a graph too small to measure.
    settings = Settings(
        home=home,
        llm="fake",
        embeddings=embeddings,
        llm_backoff=0.0,
        extraction_batch_size=1,
    )
    services = open_services(settings)
    started = time.perf_counter()
    try:
        ingested = ingest_paths(services, paths)
        if ingested.errors:
            raise SystemExit(f"ingest failed: {ingested.errors}")
        with open_checkpointer(settings) as checkpointer:
            runs = ExtractionRuns(services, checkpointer)
            for report in ingested.reports:
                view = runs.start(report["id"])
                if view.status == "awaiting_review":
                    runs.answer(view.run_id, "approve")
        counts = services.store.counts()
    finally:
        services.close()
    return {
        "books": len(ingested.reports),
        "quotes": counts.get("Quote", 0),
        "concepts": counts.get("Concept", 0),
        "seconds": round(time.perf_counter() - started, 2),
    }


def build_quote_graph(home: Path, paths: list[Path], embeddings: str) -> dict[str, Any]:
    """Ingest `paths`, then commit one concept per quote (its first words as title, the quote
    as its statement), each related to its nearest neighbour in the same book: a graph as big
    as the notes, with relations, when the fake extraction would leave a handful of concepts."""
    settings = Settings(home=home, llm="fake", embeddings=embeddings, llm_backoff=0.0)
    services = open_services(settings)
    started = time.perf_counter()
    try:
        ingested = ingest_paths(services, paths)
        store, embedder = services.store, services.embedder
        relations: list[Relation] = []
        concepts: list[Concept] = []
        for report in ingested.reports:
            quotes = store.quotes_of(report["id"])
            made = [
                Concept(
                    id=stable_id("concept", "benchmark", q.id),
                    title=" ".join(q.text.split()[:6]).strip(" ,.;:"),
                    concept=q.text,
                    summary_short=" ".join(q.text.split()[:30]),
                    provenance={"run": "benchmark", "content_id": q.content_id},
                )
                for q in quotes
            ]
            relations += [
                Relation(source_id=q.id, target_id=c.id, type=SUPPORTS)
                for q, c in zip(quotes, made, strict=True)
            ]
            if len(made) > 1:
                unit = normalize_rows(embedder.embed([q.text for q in quotes]))
                scores = unit @ unit.T
                np.fill_diagonal(scores, -2.0)
                paired: set[frozenset[int]] = set()
                for i, concept in enumerate(made):
                    j = int(np.argmax(scores[i]))
                    if frozenset((i, j)) in paired:
                        continue
                    paired.add(frozenset((i, j)))
                    relations.append(
                        Relation(
                            source_id=concept.id,
                            target_id=made[j].id,
                            type="SIMILAR_TO" if scores[i, j] > 0.4 else "RELATES_TO",
                            properties={
                                # Each pair its own words, as a reviewed explanation has.
                                "explanation": " ".join(quotes[i].text.split()[-6:])
                                + " / "
                                + " ".join(quotes[j].text.split()[-6:]),
                                "confidence": round(float(scores[i, j]), 3),
                            },
                        )
                    )
            concepts += made
        vectors = embedder.embed([embedding_text(c) for c in concepts])
        store.apply(
            ChangeSet(
                concepts=concepts,
                relations=relations,
                vectors={c.id: vectors[i] for i, c in enumerate(concepts)},
            )
        )
        counts = store.counts()
    finally:
        services.close()
    return {
        "books": len(ingested.reports),
        "quotes": counts.get("Quote", 0),
        "concepts": counts.get("Concept", 0),
        "seconds": round(time.perf_counter() - started, 2),
    }


def measures(report: GenerationReport) -> dict[str, Any]:
    kept = report.proposed
    made = len(kept) + len(report.dropped)
    by_guard = Counter(str(d["guard"]) for d in report.dropped)
    about = {item.concept_ids[0] for item in kept}
    targets = report.targets or 1
    return {
        "targets": report.targets,
        "proposed": len(kept),
        "per_type": report.per_type,
        "per_difficulty": dict(Counter(str(i.difficulty) for i in kept)),
        "items_per_concept": round(len(kept) / targets, 3),
        "calls": report.calls,
        "calls_per_item": round(report.calls / len(kept), 3) if kept else None,
        "dropped": dict(by_guard),
        "dropped_share": {g: round(n / made, 3) for g, n in sorted(by_guard.items())},
        "duplicate_share_before": report.summary.get("duplicate_share_before"),
        "duplicate_share_after": report.summary.get("duplicate_share_after"),
        "seconds": round(report.seconds, 3),
        "seconds_per_100_concepts": round(report.seconds / targets * 100, 2),
        "diversity_index": round(len(about) / len(kept), 3) if kept else None,
        "concept_coverage": round(report.summary.get("concepts_with_cards", 0) / targets, 3),
        "usage": report.usage,
    }


def generate(home: Path, args: argparse.Namespace) -> dict[str, Any]:
    settings = Settings(
        home=home,
        llm=args.llm,
        embeddings=args.embeddings,
        llm_backoff=0.0,
        **({"llm_fast": args.llm} if args.llm else {}),
    )
    if args.llm.startswith("fake") and args.latency:
        settings = settings.model_copy(update={"llm": f"fake:latency={args.latency}"})
        settings = settings.model_copy(update={"llm_fast": settings.llm})
    services = open_services(settings)
    try:
        concepts = sorted(c.id for c in services.store.list_concepts())
        chosen = concepts[: args.limit] if args.limit else concepts
        first = generate_cards(services, concept_ids=chosen)
        again = generate_cards(services, concept_ids=chosen)
        samples = [
            {
                "type": str(i.item_type),
                "difficulty": str(i.difficulty),
                "front": i.front,
                "back": i.back,
                **({"options": i.options} if i.item_type == ItemType.MCQ else {}),
                "warnings": i.warnings,
            }
            for i in first.proposed[: args.samples]
        ]
        return {
            "first": measures(first),
            "again": {
                "proposed": len(again.proposed),
                "calls": again.calls,
                "skipped_concepts": again.skipped_concepts,
                "already_stored": again.summary.get("already_stored"),
                "seconds": round(again.seconds, 3),
            },
            "reasons": sorted({f"{d['guard']}: {d['reason'][:90]}" for d in first.dropped})[:12],
            "samples": samples,
        }
    finally:
        services.close()


# --- calibration -------------------------------------------------------------------------

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


def _cosines(embedder: Any, left: list[str], right: list[str]) -> np.ndarray[Any, Any]:
    a = normalize_rows(embedder.embed(left))
    b = normalize_rows(embedder.embed(right))
    return np.asarray(np.sum(a * b, axis=1), dtype=np.float64)


def calibrate(embeddings: str) -> dict[str, Any]:
    from zettelgraph.embeddings import build_embedder

    embedder = build_embedder(embeddings)
    quotes = [q for q, _, _ in ANSWERS]
    right = _cosines(embedder, [r for _, r, _ in ANSWERS], quotes)
    wrong = _cosines(embedder, [w for _, _, w in ANSWERS], quotes)
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", nargs="+", type=Path, default=[EXAMPLES])
    parser.add_argument(
        "--graph",
        choices=("extract", "quotes"),
        default="extract",
        help="the graph: fake extraction and approval, or one concept per quote",
    )
    parser.add_argument("--llm", default="fake", help="model for the cards: fake, local, ...")
    parser.add_argument("--limit", type=int, default=0, help="cards for the first N concepts")
    parser.add_argument("--latency", type=float, default=0.0, help="fake LLM seconds per call")
    parser.add_argument("--embeddings", default="use-multilingual")
    parser.add_argument("--samples", type=int, default=6, help="cards shown in the output")
    parser.add_argument("--calibrate", action="store_true", help="threshold calibration only")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args(argv)
    context = {
        "date": dt.date.today().isoformat(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    if args.calibrate:
        emit({**calibrate(args.embeddings), **context}, args.out)
        return
    with tempfile.TemporaryDirectory(prefix="zg-learning-") as scratch:
        home = Path(scratch)
        build = build_graph if args.graph == "extract" else build_quote_graph
        graph = build(home, args.paths, args.embeddings)
        started = time.perf_counter()
        result = generate(home, args)
        output = {
            "paths": [str(p) for p in args.paths],
            "llm": args.llm,
            "limit": args.limit or None,
            "graph_from": args.graph,
            "embeddings": args.embeddings,
            "graph": graph,
            **result,
            "wall_seconds": round(time.perf_counter() - started, 2),
            **context,
        }
    emit(output, args.out)


if __name__ == "__main__":
    sys.exit(main())
