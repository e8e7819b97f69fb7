"""Grading by meaning (../shared/JUDGE.md): the sheet a judge grades, and the figures from
the grades.

A sheet holds what the reader would review, one item a line, and nothing of how it was made:
each concept with its quotes in full, each relation with both concepts and its explanation.
What the grades are then compared with (each item's doubt flag and signals, whether a relation
was shown typed or as an untyped "related?" suggestion) goes to a second file the judge never
sees. Figures: keep / fix / drop shares and usable = (keep + fix) / concepts per book and in
total; the relation keep share of those shown typed; and how well the doubt flags point at
the drops (the share of drops flagged, the share of unflagged items that are usable).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

USABLE = ("keep", "fix")


def sheet_items(
    runs: Sequence[Mapping[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(what the judge grades, what the grades are compared with), from the runs of
    `zettelgraph run --json`, each book B1, B2 ... in the order given."""
    sheet: list[dict[str, Any]] = []
    hidden: list[dict[str, Any]] = []
    for number, run in enumerate(runs, 1):
        report = run.get("report") or {}
        book = str(run.get("title") or report.get("content", {}).get("title") or "")
        concepts = {c["key"]: c for c in report.get("concepts", [])}
        for concept in report.get("concepts", []):
            item = f"B{number}.{concept['key']}"
            sheet.append(
                {
                    "book": book,
                    "item": item,
                    "kind": "concept",
                    "title": concept["title"],
                    "statement": concept["concept"],
                    **({"analysis": concept["analysis"]} if concept.get("analysis") else {}),
                    "quotes": [q["text"] for q in concept.get("quotes", [])],
                }
            )
            hidden.append({"item": item, "kind": "concept", "doubt": concept.get("doubt")})
        for kind, relations in (
            ("relation", report.get("relations", [])),
            ("suggestion", report.get("related", [])),
        ):
            prefix = "r" if kind == "relation" else "s"
            for index, relation in enumerate(relations, 1):
                # Runs made before relations had keys number them in order.
                item = f"B{number}.{relation.get('key') or f'{prefix}{index}'}"
                ends = []
                for side in ("source", "target"):
                    key = relation.get(f"{side}_key") or _key_by_title(concepts, relation[side])
                    end = concepts.get(key or "", {})
                    ends.append({"title": relation[side], "statement": end.get("concept", "")})
                sheet.append(
                    {
                        "book": book,
                        "item": item,
                        "kind": "relation",
                        "source": ends[0],
                        "type": relation.get("type") or relation.get("proposed_type"),
                        "target": ends[1],
                        "explanation": relation.get("explanation", ""),
                    }
                )
                hidden.append({"item": item, "kind": kind, "doubt": relation.get("doubt")})
    return sheet, hidden


def _key_by_title(concepts: Mapping[str, Mapping[str, Any]], title: str) -> str | None:
    return next((k for k, c in concepts.items() if c["title"] == title), None)


# Signals measured again by today's code (`calibrate_doubt.py --recompute`), beside a sheet's
# `hidden.jsonl`; read instead of it when present.
RECOMPUTED = "hidden-recomputed.jsonl"


def hidden_of(folder: Path) -> list[dict[str, Any]]:
    """A sheet's hidden rows: the recomputed ones when there are, else as the run measured."""
    measured = folder / RECOMPUTED
    return read_jsonl(measured if measured.exists() else folder / "hidden.jsonl")


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8"
    )


def graded_sheets(
    pairs: Sequence[str],
) -> Iterator[tuple[str, dict[str, dict[str, Any]], list[dict[str, Any]]]]:
    """For each `SHEET_DIR=GRADES` pair: the folder, its sheet's rows by item, its grades."""
    for pair in pairs:
        folder, _, grades_path = pair.partition("=")
        sheet = {row["item"]: row for row in read_jsonl(Path(folder) / "sheet.jsonl")}
        yield folder, sheet, read_jsonl(Path(grades_path))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{path}, line {number}: not JSON ({exc.msg})") from None
    return rows


def figures(
    sheet: Sequence[Mapping[str, Any]],
    hidden: Sequence[Mapping[str, Any]],
    grades: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """Shares per book and in total, and the doubt flags against the grades."""
    graded = {g["item"]: str(g["grade"]).strip().lower() for g in grades}
    missing = [row["item"] for row in sheet if row["item"] not in graded]
    about = {row["item"]: row for row in hidden}
    books: dict[str, dict[str, Any]] = {}
    for row in sheet:
        grade = graded.get(row["item"])
        if grade is None:
            continue
        kind = about.get(row["item"], {}).get("kind", row["kind"])
        per = books.setdefault(row["book"], {"concept": [], "relation": [], "suggestion": []})
        per[kind].append((row["item"], grade))
    out: dict[str, Any] = {"books": {}, "missing": missing}
    totals: dict[str, list[tuple[str, str]]] = {"concept": [], "relation": [], "suggestion": []}
    for book, per in books.items():
        out["books"][book] = _shares(per)
        for kind in totals:
            totals[kind] += per[kind]
    out["total"] = _shares(totals)
    out["flags"] = {
        kind: flag_figures(
            [(about[item].get("doubt"), grade) for item, grade in totals[kind] if item in about]
        )
        for kind in ("concept", "relation")
    }
    return out


def _shares(per: Mapping[str, list[tuple[str, str]]]) -> dict[str, Any]:
    concepts = [grade for _, grade in per["concept"]]
    relations = [grade for _, grade in per["relation"]]
    suggestions = [grade for _, grade in per["suggestion"]]
    n = len(concepts)

    def share(values: list[str], wanted: tuple[str, ...]) -> float | None:
        return round(sum(v in wanted for v in values) / len(values), 3) if values else None

    return {
        "concepts": n,
        "keep": sum(g == "keep" for g in concepts),
        "fix": sum(g == "fix" for g in concepts),
        "drop": sum(g == "drop" for g in concepts),
        "usable": share(concepts, USABLE),
        "keep_share": share(concepts, ("keep",)),
        "relations_typed": len(relations),
        "relations_kept": sum(g == "keep" for g in relations),
        "relation_keep_share": share(relations, ("keep",)),
        "suggestions": len(suggestions),
        "suggestions_that_hold": sum(g == "keep" for g in suggestions),
    }


def flag_figures(pairs: Sequence[tuple[Mapping[str, Any] | None, str]]) -> dict[str, Any]:
    """Of the graded items with a doubt: the share of drops flagged (recall), the share of
    unflagged items that are usable (clean), and how many were flagged."""
    scored = [(bool(d.get("doubtful")), g) for d, g in pairs if d]
    drops = [flagged for flagged, g in scored if g == "drop"]
    unflagged = [g for flagged, g in scored if not flagged]
    return {
        "items": len(scored),
        "flagged": sum(flagged for flagged, _ in scored),
        "drops": len(drops),
        "drops_flagged": sum(drops),
        "recall": round(sum(drops) / len(drops), 3) if drops else None,
        "unflagged": len(unflagged),
        "clean": round(sum(g in USABLE for g in unflagged) / len(unflagged), 3)
        if unflagged
        else None,
    }
