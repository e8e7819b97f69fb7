"""Experiments (issue 15): seconds per tool of the tool stage over a large reading.

    python benchmarks/experiments.py [--contents 100] [--passages 1000] [--concepts 300]
                                     [--term honra] [--embeddings hash] [--part tools|prov|all]
                                     [--workflow] [--out FILE]

Tools (`--part tools`): a synthetic SQLite store is built first: `--contents` contents of
`--passages` passages each (2-4 Spanish-like sentences from a fixed vocabulary, seeded RNG;
the focus term in about one passage in eight, capitalised names, years and centuries here and
there), 10 authors, years spread over 1500-1990 with every tenth content undated, and
`--concepts` concepts (one in five mentioning the term; each from a content, supported by two
of its passages, with two or three concept relations). Then every tool of the registry runs
over all the contents as the experiment workflow runs them, one thread: a "document" tool
once per content (total, mean and slowest seconds per content), a "corpus" tool once over all
of them. `load_documents` (reading every passage from the store) is timed apart. Embeddings
are `hash` by default, the deterministic fake model of the tests; `--embeddings
use-multilingual` measures semantic drift with the default model (its ≤2,000 contexts cost
about 2 s per 1,000 on 2 cores).

`--workflow` then runs the same contents through the experiment workflow on the fake model
(stages 1-2, then a modified plan with every tool on every content through stages 3-5): the
wall time with the workflow's parallel branches and checkpoints, against the tools' own time.

Provenance (`--part prov`): `measure(concepts)` of `benchmarks/prov_export.py` (the W3C
PROV-O export), given `--concepts`; its result is printed under "prov".

Prints one JSON object with the date, the machine and peak RSS.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from quality import emit  # benchmarks/ is the script's folder, so on sys.path
from zettelgraph.experiments.models import FocusTerm
from zettelgraph.experiments.registry import ToolContext, load_documents
from zettelgraph.experiments.tools import TOOLS
from zettelgraph.llm.embeddings import HashEmbedder, build_embedder
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    Person,
    Quote,
    Relation,
    person_id,
    stable_id,
)
from zettelgraph.packs.relations import AUTHORED_BY, QUOTED_IN, SUPPORTS
from zettelgraph.store import GraphStore, open_store

NOUNS = """casa camino ciudad pueblo rey reina caballero dama campo río mar monte iglesia
    guerra paz libro carta palabra tiempo vida muerte amor fe verdad mentira dinero oro pan
    vino tierra cielo sangre linaje familia padre madre hijo hija amigo enemigo señor criado
    fama virtud opinión deber ley justicia pueblo plaza corte palacio""".split()  # noqa: SIM905
VERBS = """dijo vio hizo tuvo quiso pudo llevó trajo perdió ganó defendió buscó halló
    escribió leyó pensó creyó sintió guardó vendió compró juró""".split()  # noqa: SIM905
ADJECTIVES = """grande pequeño viejo nuevo noble pobre rico antiguo largo breve claro oscuro
    alto bajo santo fiel falso""".split()  # noqa: SIM905
FUNCTION = "el la los las un una de del en con por para sin sobre y que su".split()  # noqa: SIM905
NAMES = """Madrid Toledo Sevilla Castilla Flandes Roma Juan Pedro Isabel Teresa Sancho Lope
    Rodrigo Elvira Diego""".split()  # noqa: SIM905
SURNAMES = "Pérez García Ruiz Vega Mendoza Guzmán Téllez".split()  # noqa: SIM905
AUTHORS = [f"{first} {last}" for first, last in zip(NAMES[6:], SURNAMES * 2, strict=False)][:10]
RELATION_TYPES = ("SIMILAR_TO", "RELATES_TO", "GENERALIZES", "OPPOSES", "PART_OF")


def sentence(rng: random.Random, term: str | None) -> str:
    """A Spanish-like sentence of 8-15 words; with `term`, the term is one of them."""
    words = [rng.choice(FUNCTION), rng.choice(NOUNS), rng.choice(VERBS)]
    while len(words) < rng.randint(8, 15):
        pick = rng.random()
        if pick < 0.35:
            words.append(rng.choice(FUNCTION))
        elif pick < 0.7:
            words.append(rng.choice(NOUNS))
        elif pick < 0.85:
            words.append(rng.choice(ADJECTIVES))
        elif pick < 0.95:
            words.append(rng.choice(VERBS))
        elif pick < 0.98:
            words += ["en", rng.choice(NAMES)]
        else:
            words += ["en", str(rng.randint(1400, 1990))]
    if term:
        words.insert(rng.randrange(1, len(words)), term)
    if rng.random() < 0.05:
        words += ["en", "el", "siglo", rng.choice(["XV", "XVI", "XVII", "XVIII"])]
    return words[0].capitalize() + " " + " ".join(words[1:]) + "."


def build_store(store: GraphStore, args: argparse.Namespace) -> dict[str, Any]:
    """Fill `store` with the synthetic reading; what was written and how long it took."""
    rng = random.Random(15)
    started = time.perf_counter()
    authors = [Person(id=person_id(name), name=name) for name in AUTHORS]
    store.apply(ChangeSet(persons=authors))
    content_ids: list[str] = []
    passages_of: dict[str, list[str]] = {}
    for c in range(args.contents):
        metadata = {} if c % 10 == 9 else {"year": 1500 + (c * 490) // max(1, args.contents)}
        content = Content(id=stable_id("content", str(c)), title=f"Obra {c}", metadata=metadata)
        quotes = []
        for p in range(args.passages):
            with_term = rng.random() < 0.125
            sentences = [sentence(rng, None) for _ in range(rng.randint(2, 4))]
            if with_term:
                sentences[rng.randrange(len(sentences))] = sentence(rng, args.term)
            quotes.append(
                Quote(
                    id=stable_id("quote", str(c), str(p)),
                    content_id=content.id,
                    text=" ".join(sentences),
                    position=p,
                    page=str(p // 3 + 1),
                )
            )
        relations = [Relation(source_id=q.id, target_id=content.id, type=QUOTED_IN) for q in quotes]
        author = authors[c % len(authors)]
        relations.append(Relation(source_id=content.id, target_id=author.id, type=AUTHORED_BY))
        store.apply(ChangeSet(contents=[content], quotes=quotes, relations=relations))
        content_ids.append(content.id)
        passages_of[content.id] = [q.id for q in quotes]
    concepts: list[Concept] = []
    supports: list[Relation] = []
    for i in range(args.concepts):
        content_id = content_ids[i % len(content_ids)]
        noun = NOUNS[i % len(NOUNS)]
        mention = f" y la {args.term}" if i % 5 == 0 else ""
        concepts.append(
            Concept(
                id=stable_id("concept", str(i)),
                title=f"{noun.capitalize()} {i}",
                concept=f"La idea de {noun}{mention} en la obra.",
                provenance={"content_id": content_id},
            )
        )
        for quote_id in rng.sample(passages_of[content_id], 2):
            supports.append(Relation(source_id=quote_id, target_id=concepts[-1].id, type=SUPPORTS))
    links = [
        Relation(source_id=concept.id, target_id=other.id, type=rng.choice(RELATION_TYPES))
        for concept in concepts
        for other in rng.sample(concepts, rng.randint(2, 3))
        if other.id != concept.id
    ]
    store.apply(ChangeSet(concepts=concepts, relations=[*supports, *links]))
    return {
        "contents": args.contents,
        "passages": args.contents * args.passages,
        "concepts": len(concepts),
        "concept_relations": len(links),
        "build_seconds": round(time.perf_counter() - started, 1),
        "content_ids": content_ids,
    }


def measure_tools(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zg-experiments-") as scratch:
        store = open_store(f"sqlite:///{Path(scratch) / 'store.db'}")
        try:
            built = build_store(store, args)
            content_ids = built.pop("content_ids")
            started = time.perf_counter()
            documents = load_documents(store, content_ids)
            load_seconds = time.perf_counter() - started
            embedder = (
                HashEmbedder() if args.embeddings == "hash" else build_embedder(args.embeddings)
            )
            context = ToolContext(
                store=store,
                embedder=embedder,
                term=FocusTerm(
                    term=args.term, definition="La estima y buena fama.", anchors=["fama"]
                ),
            )
            tools: dict[str, Any] = {}
            for name, tool in TOOLS.items():
                if tool.scope == "document":
                    seconds = []
                    for document in documents:
                        started = time.perf_counter()
                        tool.run(context, [document])
                        seconds.append(time.perf_counter() - started)
                    tools[name] = {
                        "scope": "document",
                        "total_seconds": round(sum(seconds), 2),
                        "seconds_per_document": round(sum(seconds) / len(seconds), 4),
                        "slowest_document_seconds": round(max(seconds), 4),
                    }
                else:
                    started = time.perf_counter()
                    output = tool.run(context, documents)
                    tools[name] = {
                        "scope": "corpus",
                        "total_seconds": round(time.perf_counter() - started, 2),
                        "count": output.count,
                    }
                print(f"{name}: {tools[name]['total_seconds']} s", file=sys.stderr)
        finally:
            store.close()
        workflow = measure_workflow(Path(scratch), content_ids, args) if args.workflow else None
    return {
        "store": built,
        "workflow": workflow,
        "embeddings": args.embeddings,
        "term": args.term,
        "load_documents_seconds": round(load_seconds, 2),
        "tools": tools,
        "all_tools_seconds": round(sum(t["total_seconds"] for t in tools.values()), 2),
    }


def measure_workflow(
    scratch: Path, content_ids: list[str], args: argparse.Namespace
) -> dict[str, Any]:
    """The same contents through the experiment workflow on the fake model: analyse and
    recommend, then a modified plan with every tool on every content, run as the workflow
    runs it (a branch per content, ZETTELGRAPH_CONCURRENCY at once, each result checkpointed)
    up to the report."""
    from zettelgraph.context import open_services
    from zettelgraph.experiments.models import FocusTerm as Term
    from zettelgraph.services.checkpoints import open_checkpointer
    from zettelgraph.services.experiments import ExperimentRuns
    from zettelgraph.settings import Settings

    settings = Settings(
        home=scratch / "home",
        llm="fake",
        embeddings=args.embeddings,
        store=f"sqlite:///{scratch / 'store.db'}",
    )
    services = open_services(settings)
    try:
        with open_checkpointer(settings) as checkpointer:
            runs = ExperimentRuns(services, checkpointer)
            term = Term(term=args.term, definition="La estima y buena fama.", anchors=["fama"])
            started = time.perf_counter()
            view = runs.new("document_analysis", term, content_ids)
            planned = time.perf_counter() - started
            everything = {cid: list(TOOLS) for cid in content_ids}
            started = time.perf_counter()
            done = runs.review(view.id, "modify", strategy=everything)
            executed = time.perf_counter() - started
            tool_seconds = sum(r["seconds"] for r in done.values["tool_runs"])
            return {
                "status": done.status,
                "stages_1_2_seconds": round(planned, 2),
                "stages_3_5_seconds": round(executed, 2),
                "tool_runs": len(done.values["tool_runs"]),
                "tool_seconds_summed": round(tool_seconds, 2),
                "concurrency": services.llms.main_profile.concurrency,
                "failed_tools": sum(1 for r in done.values["tool_runs"] if r["error"]),
            }
    finally:
        services.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contents", type=int, default=100)
    parser.add_argument("--passages", type=int, default=1000, help="passages per content")
    parser.add_argument("--concepts", type=int, default=300)
    parser.add_argument("--term", default="honra")
    parser.add_argument("--embeddings", default="hash", help="hash (fake) or an embedder spec")
    parser.add_argument("--part", choices=("tools", "prov", "all"), default="tools")
    parser.add_argument(
        "--workflow",
        action="store_true",
        help="also run the contents through the experiment workflow (fake model)",
    )
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args(argv)
    output: dict[str, Any] = {
        "benchmark": "experiments",
        "date": dt.date.today().isoformat(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
    }
    if args.part in ("tools", "all"):
        output["tools_part"] = measure_tools(args)
    if args.part in ("prov", "all"):
        from prov_export import measure  # written beside this file; imported only when asked

        output["prov"] = measure(args.concepts)
    output["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    emit(output, args.out)


if __name__ == "__main__":
    main()
