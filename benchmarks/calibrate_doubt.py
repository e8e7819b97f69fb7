"""Fit the doubt flags (src/zettelgraph/guards/doubt.py) on items graded by meaning, and say
how well they separate usable items from drops: in-sample, and book by book (each book's items
scored by a model fitted on the other books), which is what a new book will see.

Input: grading sheets (`benchmarks/quality.py --sheet DIR`, whose `hidden.jsonl` holds each
item's signals as the run measured them) and their grades by a judge that did not see the
code (../shared/JUDGE.md), one `--graded DIR=GRADES` each. Concepts graded keep or fix are
usable, drop is not; relations (typed ones and the untyped suggestions alike) hold when kept.

    python benchmarks/calibrate_doubt.py --graded out/dev=benchmarks/grades/dev.jsonl
    python benchmarks/calibrate_doubt.py --graded ... --write   # the shipped models

`--recompute` measures every item's signals again with the code as it is now (the workflow's
own `prepare_review`, on the run's saved proposal, with `--llm`): signals of runs made before a
check changed are then those the shipped code computes. They are saved beside the sheet as
`hidden-recomputed.jsonl` and used from then on. `--write` writes the fitted models to
src/zettelgraph/guards/doubt_models.json under `--key` (`relation@local` ...). The small
models' concept flag reads the probe and is fitted by `fit_doubt_probe.py`; the one fitted
here on the other signals is its fallback (`--key local-fallback`). Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grading import RECOMPUTED, USABLE, graded_sheets, hidden_of, read_jsonl, write_jsonl
from zettelgraph.guards.doubt import DoubtModel, fit, flag_all, separation

CONCEPT_SIGNALS = (
    "grounding",
    "margin",
    "generic",
    "title_grounding",
    "copy",
    "foreign_quote",
    "check",
    "idea",
)
RELATION_SIGNALS = ("similarity", "confidence", "opposing", "names_both", "stance")
SHIPPED = (
    Path(__file__).resolve().parents[1] / "src" / "zettelgraph" / "guards" / "doubt_models.json"
)


def recompute(folder: Path, llm: str) -> None:
    """Every item's doubt measured again by `prepare_review` on the run's saved proposal."""
    from zettelgraph.context import open_services
    from zettelgraph.settings import Settings
    from zettelgraph.workflows.concept_extraction.nodes_doubts import prepare_review

    run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="zg-calibrate-") as home:
        # Relations stay typed: their keys must stay those the sheet names.
        settings = Settings(home=Path(home), llm=llm, confirmed_relations=False)
        services = open_services(settings)
        rows = []
        try:
            for number, view in enumerate(run["runs"], 1):
                report = view.get("report") or {}
                state = saved_state(report)
                doubts = prepare_review(state, services)["doubts"]  # type: ignore[arg-type]
                rows += [
                    {"item": f"B{number}.{key}", "doubt": doubt} for key, doubt in doubts.items()
                ]
        finally:
            services.close()
    kinds = {row["item"]: row.get("kind") for row in read_jsonl(folder / "hidden.jsonl")}
    write_jsonl(
        folder / RECOMPUTED,
        [{**row, "kind": kinds.get(row["item"], "concept")} for row in rows],
    )


def saved_state(report: dict[str, Any]) -> dict[str, Any]:
    """The part of a run's state `prepare_review` reads, rebuilt from its review report: the
    book's quotes (cited and open), the concepts and the relations with their keys."""
    quotes: dict[str, str] = {}
    for concept in report.get("concepts", []):
        quotes.update({q["id"]: q["text"] for q in concept.get("quotes", [])})
    quotes.update({q["id"]: q["text"] for q in report.get("unattributed_quotes", [])})
    keys = {c["key"] for c in report.get("concepts", [])}
    concepts = [
        {
            "key": c["key"],
            "title": c["title"],
            "concept": c["concept"],
            "analysis": c.get("analysis", ""),
            "summary": c["concept"],
            "summary_short": c.get("summary_short", ""),
            "quote_ids": [q["id"] for q in c.get("quotes", [])],
            "rationale": "",
            "history": [],
        }
        for c in report.get("concepts", [])
    ]
    relations = [
        {
            "key": r["key"],
            "source": r["source_key"],
            "type": r.get("model_type") or r["type"],
            "target": r["target_key"],
            "explanation": r.get("explanation", ""),
            "confidence": r.get("confidence", 0.5),
            "history": [],
        }
        for r in report.get("relations", [])
        if r.get("source_key") in keys and r.get("target_key") in keys
    ]
    return {
        "quotes": [{"id": q, "text": t} for q, t in quotes.items()],
        "proposal": {
            "concepts": concepts,
            "attributions": [],
            "relations": relations,
            "unattributed_quote_ids": [],
            "notes": [],
        },
    }


# Fewer graded items of a kind than this fit nothing.
MIN_ITEMS = 4


def graded_items(pairs: Sequence[str]) -> list[dict[str, Any]]:
    """Every graded item with its book, kind, signals and whether it is usable."""
    items: list[dict[str, Any]] = []
    for folder, sheet, grades in graded_sheets(pairs):
        hidden = {row["item"]: row for row in hidden_of(Path(folder))}
        for grade in grades:
            item = grade["item"]
            doubt = (hidden.get(item) or {}).get("doubt") or {}
            if item not in sheet or not doubt.get("signals"):
                continue
            kind = "concept" if sheet[item]["kind"] == "concept" else "relation"
            items.append(
                {
                    "source": folder,
                    "book": f"{folder}:{sheet[item]['book']}",
                    "item": item,
                    "kind": kind,
                    "shown_as": hidden[item].get("kind"),
                    "signals": doubt["signals"],
                    "usable": str(grade["grade"]).lower() in USABLE,
                }
            )
    return items


def book_by_book(
    rows: Sequence[dict[str, Any]], kind: str, names: Sequence[str], recall: float
) -> dict[str, float]:
    """Each book's items flagged by a model fitted on the others' (with its own floor)."""
    books = sorted({r["book"] for r in rows})
    scores: list[float] = []
    usable: list[bool] = []
    flagged: list[bool] = []
    for book in books:
        train = [r for r in rows if r["book"] != book]
        test = [r for r in rows if r["book"] == book]
        if not train or all(r["usable"] for r in train) or not any(r["usable"] for r in train):
            continue
        model = fit(
            kind,
            names,
            [r["signals"] for r in train],
            [r["usable"] for r in train],  # type: ignore[arg-type]
            recall=recall,
        )
        for r in test:
            score = model.score(r["signals"])
            scores.append(score)
            usable.append(r["usable"])
            flagged.append(score < model.floor)
    if not scores:
        return {}
    bad = [not u for u in usable]
    unflagged = [u for u, f in zip(usable, flagged, strict=True) if not f]
    auc = separation(scores, usable, 0.0)["auc"]
    return {
        "items": float(len(scores)),
        "recall": sum(f and b for f, b in zip(flagged, bad, strict=True)) / sum(bad)
        if any(bad)
        else math.nan,
        "clean": sum(unflagged) / len(unflagged) if unflagged else math.nan,
        "flagged": sum(flagged) / len(flagged),
        "auc": auc,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graded", action="append", required=True, help="SHEET_DIR=GRADES")
    parser.add_argument("--recall", type=float, default=0.8, help="share of drops to flag")
    parser.add_argument("--write", action="store_true", help="write the shipped models")
    parser.add_argument("--key", default="", help="where they apply: '' or 'local'")
    parser.add_argument("--recompute", action="store_true", help="measure signals again")
    parser.add_argument("--llm", default="local", help="the model of --recompute")
    parser.add_argument(
        "--concept-signals",
        default=",".join(CONCEPT_SIGNALS),
        help="the concept signals to fit on, comma-separated (those that carry to new books)",
    )
    args = parser.parse_args(argv)
    if args.recompute:
        for pair in args.graded:
            recompute(Path(pair.partition("=")[0]), args.llm)
    items = graded_items(args.graded)
    out: dict[str, Any] = {"graded": args.graded, "kinds": {}}
    models: dict[str, DoubtModel] = {}
    concept_signals = tuple(n for n in args.concept_signals.split(",") if n)
    unknown = set(concept_signals) - set(CONCEPT_SIGNALS)
    if unknown:
        parser.error(f"--concept-signals: unknown {sorted(unknown)}; known {CONCEPT_SIGNALS}")
    for kind, names in (("concept", concept_signals), ("relation", RELATION_SIGNALS)):
        rows = [r for r in items if r["kind"] == kind]
        fitted_on = f"{len(rows)} graded {kind}s of " + ", ".join(
            sorted({r["source"] for r in rows})
        )
        held = sum(r["usable"] for r in rows)
        if len(rows) >= MIN_ITEMS and held < MIN_ITEMS:
            # (Almost) none held: too few to learn what holding looks like, so every one is
            # to be flagged (a fit on two usable relations of 35 flagged them too, book by
            # book, and let wrong ones through).
            models[kind] = flag_all(kind, names, fitted_on=f"{fitted_on}, {held} usable")  # type: ignore[arg-type]
            out["kinds"][kind] = {"items": len(rows), "usable": held, "fitted": "flag all"}
            continue
        if len(rows) < MIN_ITEMS or all(r["usable"] for r in rows):
            out["kinds"][kind] = {"items": len(rows), "fitted": False}
            continue
        model = fit(
            kind,  # type: ignore[arg-type]
            names,
            [r["signals"] for r in rows],
            [r["usable"] for r in rows],
            recall=args.recall,
            fitted_on=fitted_on,
        )
        models[kind] = model
        out["kinds"][kind] = {
            "items": len(rows),
            "usable": sum(r["usable"] for r in rows),
            "fitted": True,
            "in_sample": model.quality,
            "book_by_book": book_by_book(rows, kind, names, args.recall),
            "weights": dict(zip(names, (round(w, 3) for w in model.weights), strict=True)),
            "floor": round(model.floor, 4),
        }
    if args.write and models:
        data = json.loads(SHIPPED.read_text(encoding="utf-8"))
        suffix = f"@{args.key}" if args.key else ""
        data.update({f"{kind}{suffix}": model.as_dict() for kind, model in models.items()})
        SHIPPED.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        out["written"] = str(SHIPPED)
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
