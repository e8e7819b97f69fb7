"""How well an embedder's cosine alone separates usable concepts from drops on graded sheets.

For every concept item of each folder (`sheet.jsonl` + `grades.jsonl`; keep or fix is usable,
drop is not), the cosine of its title and of its statement with its closest quote, each as a
score (higher = usable), summarised by the ROC AUC per folder and over all. A report for
comparing embedders; the shipped doubt flags are fitted by `calibrate_doubt.py`.

    python benchmarks/grades_similarity.py --embeddings e5-small [benchmarks/grades/*/]
"""

from __future__ import annotations

import argparse
import json
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from grading import USABLE, read_jsonl
from zettelgraph.guards.doubt import separation
from zettelgraph.llm.embeddings import build_embedder
from zettelgraph.settings import default_embeddings
from zettelgraph.store.vector_index import normalize_rows

GRADES = Path(__file__).resolve().parent / "grades"


def graded_concepts(folder: Path) -> list[dict[str, Any]]:
    """The folder's concept items that have a grade and at least one quote, with `usable`."""
    grade_of = {row["item"]: row["grade"] for row in read_jsonl(folder / "grades.jsonl")}
    return [
        {**item, "usable": grade_of[item["item"]] in USABLE}
        for item in read_jsonl(folder / "sheet.jsonl")
        if item.get("kind") == "concept" and item["item"] in grade_of and item.get("quotes")
    ]


def scores(embedder: Any, items: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Per item: the best cosine of its title, and of its statement, with one of its quotes."""
    texts = list(
        dict.fromkeys(t for i in items for t in (i["title"], i["statement"], *i["quotes"]))
    )
    rows = normalize_rows(embedder.embed(texts))
    row = {text: rows[n] for n, text in enumerate(texts)}
    out: dict[str, list[float]] = {"title_quote": [], "statement_quote": []}
    for item in items:
        quotes = np.stack([row[q] for q in item["quotes"]])
        out["title_quote"].append(float(np.max(quotes @ row[item["title"]])))
        out["statement_quote"].append(float(np.max(quotes @ row[item["statement"]])))
    return out


def summary(per: dict[str, list[float]], usable: list[bool]) -> dict[str, Any]:
    result: dict[str, Any] = {"items": len(usable), "usable": sum(usable)}
    for name, values in per.items():
        result[f"{name}_auc"] = round(separation(values, usable, floor=0.0)["auc"], 3)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--embeddings", default=default_embeddings())
    args = parser.parse_args(argv)
    folders = args.folders or sorted(p.parent for p in GRADES.glob("*/grades.jsonl"))
    embedder = build_embedder(args.embeddings)
    report: dict[str, Any] = {"embeddings": embedder.name, "folders": {}}
    every: dict[str, list[float]] = {"title_quote": [], "statement_quote": []}
    every_usable: list[bool] = []
    for folder in folders:
        items = graded_concepts(folder)
        if not items:
            continue
        per = scores(embedder, items)
        usable = [i["usable"] for i in items]
        report["folders"][folder.name] = summary(per, usable)
        for name, values in per.items():
            every[name].extend(values)
        every_usable.extend(usable)
    report["all"] = summary(every, every_usable)
    report["machine"] = {"python": platform.python_version(), "platform": platform.platform()}
    report["date"] = datetime.now(UTC).date().isoformat()
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
