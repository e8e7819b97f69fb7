"""Cited answers on a passages + questions set: citation accuracy and lost in the middle.

    python benchmarks/answers.py --data ../shared/data/xquad_es --llm local
        [--limit N] [--k 5] [--embeddings use-multilingual] [--out FILE]

The store is built as `benchmarks/retrieval.py` builds it (every passage a Quote, embedded).
For each question (the first `--limit`, 20 by default: a local model answers in tens of
seconds on 2 cores) with an `answer_text`:

- **citation accuracy**: the question is asked as `zettelgraph ask` asks it (the default
  recipe's top `--k` passages, in search order, through the `answer_question` prompt); an
  answer's citations are accurate when one of the passages it cites holds the gold answer
  text. Reported over the answers that cite anything, with how many answered at all;
- **answer accuracy**: the answer's text holds the gold answer text (case, accents and spaces
  folded), the usual "exact span contained" reading of extractive QA;
- **lost in the middle**: the gold passage is put at each place 1..k of the same `k`
  passages (the others are the search's best non-gold hits, in their order), and answer
  accuracy is counted per place: a model that reads only the ends loses the middle.

`--llm fake` runs the whole path in seconds (the fake model cites and writes at random: its
numbers check the benchmark, not a model). Printed as JSON, with the machine and the date.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from retrieval import _load, build_store, print_report, require_data  # written beside this file
from zettelgraph.context import open_services
from zettelgraph.llm.structured import SOFT_LLM_ERRORS
from zettelgraph.prompts import answer_question
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.retrieval.recipes import recipe_named
from zettelgraph.retrieval.search import Retriever
from zettelgraph.settings import Settings, default_embeddings
from zettelgraph.text.normalize import normalize_name


def ask_model(
    services: Any, question: str, passages: list[tuple[str, str]]
) -> tuple[str, set[str], bool]:
    """(answer text, the passage ids it cites, answerable) for `passages` shown in order."""
    ids = LocalIds("q", [pid for pid, _ in passages])
    reply = services.structured(
        services.llms.main,
        name=answer_question.NAME,
        messages=answer_question.messages(
            answer_question.AnswerQuestionInput(
                question=question,
                passages=[
                    answer_question.PromptPassage(id=ids.local(pid), text=text, source="")
                    for pid, text in passages
                ],
            )
        ),
        response_model=answer_question.AnswerQuestion,
    )
    cited = {
        real
        for sentence in reply.sentences
        for source in sentence.sources
        if (real := ids.real(source)) is not None
    }
    text = " ".join(sentence.text for sentence in reply.sentences)
    return text, cited, reply.answerable and bool(cited)


def measure(
    services: Any, retriever: Retriever, rows: list[dict[str, Any]], gold_of: dict[str, str], k: int
) -> dict[str, Any]:
    texts = {q.id: q.text for q in services.store.get_quotes(list(gold_of))}
    recipe = recipe_named(services.settings.search_recipe, services.embedder.name)
    answered = cited_any = cited_right = right = failed = 0
    by_place = {place: [0, 0] for place in range(1, k + 1)}  # place -> [right, asked]
    started = time.perf_counter()
    for row in rows:
        gold = normalize_name(row["answer_text"])
        ranked = [entry.id for entry in retriever.candidates(row["question"], recipe)]
        shown = [(pid, texts[pid]) for pid in ranked[:k]]
        gold_id = next(pid for pid, name in gold_of.items() if name == row["passage_id"])
        try:
            text, cited, answerable = ask_model(services, row["question"], shown)
            answered += answerable
            right += gold in normalize_name(text)
            if cited:
                cited_any += 1
                cited_right += any(gold in normalize_name(texts[pid]) for pid in cited)
            others = [pid for pid in ranked if pid != gold_id][: k - 1]
            for place in range(1, k + 1):
                order = [*others[: place - 1], gold_id, *others[place - 1 :]]
                text, _, _ = ask_model(services, row["question"], [(p, texts[p]) for p in order])
                by_place[place][0] += gold in normalize_name(text)
                by_place[place][1] += 1
        except SOFT_LLM_ERRORS:
            failed += 1
    n = len(rows)
    return {
        "questions": n,
        "failed_calls": failed,
        "answered": answered,
        "answer_accuracy": round(right / n, 4) if n else None,
        "cited_any": cited_any,
        "citation_accuracy": round(cited_right / cited_any, 4) if cited_any else None,
        "lost_in_the_middle": {
            str(place): round(hits / asked, 4) if asked else None
            for place, (hits, asked) in by_place.items()
        },
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--llm", default="local", help="The model spec (fake, local, ...).")
    parser.add_argument("--embeddings", default=default_embeddings())
    parser.add_argument("--limit", type=int, default=20, help="The first N questions.")
    parser.add_argument("--k", type=int, default=5, help="Passages shown to the model.")
    parser.add_argument("--out", type=Path, help="Also write the JSON here.")
    args = parser.parse_args(argv)
    require_data(parser, args.data)
    if args.k < 2:
        parser.error("--k must be at least 2: lost in the middle needs places to move to")
    passages = _load(args.data / "passages.jsonl")
    rows = [row for row in _load(args.data / "questions.jsonl") if row.get("answer_text")]
    if not rows:
        parser.error(f"{args.data / 'questions.jsonl'} has no question with an answer_text")
    rows = rows[: args.limit]
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        store, embedder, gold_of = build_store(passages, url, args.embeddings)
        settings = Settings(home=Path(tmp) / "home", llm=args.llm, embeddings=args.embeddings)
        services = open_services(settings, store=store, embedder=embedder)
        result = measure(services, Retriever(store, embedder), rows, gold_of, args.k)
        store.close()
    report = {
        "data": str(args.data),
        "llm": args.llm,
        "k": args.k,
        **result,
    }
    print_report(report, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
