"""A second-stage rerank of the hybrid's top candidates on XQuAD-es (issue 30): each of the
top `--top` passages is embedded again with its parent (the article's title) and the
question's cosine with it is mixed into the hybrid score, both scaled to the list's best and
worst. Dev data only; prints R@1 / R@5 per mixing weight (0 = the hybrid as shipped).

    python benchmarks/rerank.py --data ../shared/data/xquad_es [--weights 0,0.2,0.4] [--top 20]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from retrieval import _load, build_store, require_data
from zettelgraph.llm.embeddings import embed_queries
from zettelgraph.retrieval.fusion import normalised
from zettelgraph.retrieval.recipes import recipes_for
from zettelgraph.retrieval.search import Retriever
from zettelgraph.settings import default_embeddings


def scaled(values: list[float]) -> NDArray[np.float64]:
    """`values` scaled to their best and worst as the hybrid's fusion scales a list."""
    scores, _ = normalised([(str(i), v) for i, v in enumerate(values)], "minmax")
    return np.array([scores[str(i)] for i in range(len(values))])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--embeddings", default=default_embeddings())
    parser.add_argument("--weights", default="0,0.1,0.2,0.3,0.4,0.5,0.7,1")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args(argv)
    require_data(parser, args.data)
    passages = _load(args.data / "passages.jsonl")
    questions = _load(args.data / "questions.jsonl")
    with tempfile.TemporaryDirectory() as tmp:
        store, embedder, gold_of = build_store(
            passages, f"sqlite:///{Path(tmp) / 'b.db'}", args.embeddings
        )
        retriever = Retriever(store, embedder)
        hybrid = recipes_for(args.embeddings)["hybrid"]
        tops = [
            [(gold_of.get(e.id, ""), e.score) for e in retriever.candidates(q["question"], hybrid)]
            for q in questions
        ]
        store.close()
    with_parent = {
        p["passage_id"]: f"{p['article_title'].replace('_', ' ')}. {p['text']}" for p in passages
    }
    ids = sorted(with_parent)
    vectors = dict(zip(ids, embedder.embed([with_parent[i] for i in ids]), strict=True))
    asked = embed_queries(embedder, [q["question"] for q in questions])
    results = {}
    for weight in (float(w) for w in args.weights.split(",")):
        at1 = at5 = 0
        for q, question, top in zip(questions, asked, tops, strict=True):
            top = top[: args.top]
            if not top:
                continue
            cosines = [float(question @ vectors[pid]) for pid, _ in top]
            mixed = (1 - weight) * scaled([s for _, s in top]) + weight * scaled(cosines)
            order = [top[i][0] for i in np.argsort(-mixed, kind="stable")]
            at1 += order[0] == q["passage_id"]
            at5 += q["passage_id"] in order[:5]
        results[str(weight)] = {
            "R@1": round(at1 / len(questions), 4),
            "R@5": round(at5 / len(questions), 4),
        }
    report = {"embeddings": args.embeddings, "top": args.top, "questions": len(questions)}
    print(json.dumps({**report, "weights": results}, indent=1))


if __name__ == "__main__":
    main()
