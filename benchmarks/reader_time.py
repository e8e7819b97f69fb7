"""How much work it takes a reader to commit only what is true: the actions (decisions, then
one approval) needed to write exactly the usable concepts (graded keep or fix) and the
relations that hold, and how far down the review they must read to make them.

Read from a graded sheet (`benchmarks/quality.py --sheet DIR`, grades by a judge that did not
see the code, ../shared/JUDGE.md). Three setups of the same items:
- all kept: no flags, every undecided item is written; the reader drops each wrong one;
- flags: doubtful items are left out unless kept; the reader keeps each usable doubtful one
  and drops each wrong unflagged one;
- flags, doubtful first: the same decisions, with the doubtful shown first, so the items the
  reader must act on come earlier (`read` is the position of the last one, in items).
Before item-by-item review a reader could only approve everything or send free feedback, so
committing only the usable items was not possible at all.

    python benchmarks/reader_time.py --sheet out/dev --grades out/dev/grades.jsonl
    python benchmarks/reader_time.py ... --rescore --runs 3   # today's flags, the first 3 books

`--rescore` flags each item again from its signals with the shipped calibration (the one a
small local model's runs use), for sheets measured before it was fitted; `--runs N` keeps the
first N runs of the sheet (the books in the order given to `quality.py`).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grading import USABLE, hidden_of, read_jsonl
from zettelgraph.guards.doubt import choose, shipped_models


def setups(items: Sequence[Mapping[str, Any]], order: Sequence[str]) -> dict[str, dict[str, int]]:
    """Actions and reading depth per setup for one run. `items`: key, wanted (bool),
    doubtful (bool), in the model's order; `order`: keys as the review shows them (doubtful
    first)."""
    by_key = {item["key"]: item for item in items}

    def needed(flags: bool) -> list[str]:
        out = []
        for item in items:
            default = not item["doubtful"] if flags else True
            if default != item["wanted"]:
                out.append(item["key"])
        return out

    def depth(keys: list[str], shown: Sequence[str]) -> int:
        positions = [shown.index(k) + 1 for k in keys if k in shown]
        return max(positions, default=0)

    plain = [item["key"] for item in items]
    result: dict[str, dict[str, int]] = {}
    for name, flags, shown in (
        ("all_kept", False, plain),
        ("flags", True, plain),
        ("flags_doubtful_first", True, [k for k in order if k in by_key]),
    ):
        decisions = needed(flags)
        result[name] = {
            "items": len(items),
            "decisions": len(decisions),
            "actions": len(decisions) + 1,  # and one approval
            "read": depth(decisions, shown),
        }
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sheet", type=Path, required=True, help="folder of the graded sheet")
    parser.add_argument("--grades", type=Path, required=True, help="the judge's grades")
    parser.add_argument("--rescore", action="store_true", help="flag with today's calibration")
    parser.add_argument("--runs", type=int, default=0, help="only the first N runs")
    args = parser.parse_args(argv)
    grades = {g["item"]: str(g["grade"]).lower() for g in read_jsonl(args.grades)}
    hidden = {h["item"]: h for h in hidden_of(args.sheet)}
    if args.rescore:
        models = shipped_models()
        for row in hidden.values():
            signals = (row.get("doubt") or {}).get("signals")
            if signals:
                kind = "concept" if row.get("kind") == "concept" else "relation"
                row["doubt"] = choose(models, kind, small=True).judge(signals)
    run = json.loads((args.sheet / "run.json").read_text(encoding="utf-8"))
    per_run: list[dict[str, Any]] = []
    totals: dict[str, dict[str, int]] = {}
    views = run["runs"][: args.runs] if args.runs else run["runs"]
    for number, view in enumerate(views, 1):
        report = view.get("report") or {}
        shown = [c["key"] for c in report.get("concepts", [])]
        shown += [r.get("key", "") for r in report.get("relations", [])]
        items = []
        for key in sorted(shown, key=_model_order):
            item = f"B{number}.{key}"
            if item not in grades or item not in hidden:
                continue
            doubt = hidden[item].get("doubt") or {}
            items.append(
                {
                    "key": key,
                    "wanted": grades[item] in USABLE,
                    "doubtful": bool(doubt.get("doubtful")),
                }
            )
        # As the review shows them: concepts, then relations, the doubtful first in each.
        order = [
            item["key"]
            for item in sorted(items, key=lambda i: (_model_order(i["key"])[0], not i["doubtful"]))
        ]
        measured = setups(items, order)
        per_run.append({"title": view.get("title"), **measured})
        for name, values in measured.items():
            total = totals.setdefault(name, dict.fromkeys(values, 0))
            for key, value in values.items():
                total[key] += value
    print(json.dumps({"runs": per_run, "total": totals}, ensure_ascii=False, indent=1))


def _model_order(key: str) -> tuple[int, int]:
    """c1, c2 ... then r1, r2 ...: the order the model proposed them in."""
    return (0 if key.startswith("c") else 1, int(key[1:]) if key[1:].isdigit() else 0)


if __name__ == "__main__":
    main()
