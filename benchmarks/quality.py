"""Quality of extraction up to review: the seven measures of issue 11 on given book notes.

Runs `zettelgraph run PATH` (ingest, then extraction of every book up to review) in a fresh
home with the chosen LLM, reads each run's review report, and prints one JSON object: the
measures per run and pooled over all runs, whether each meets its goal, what the proposal
checks did, the LLM usage per call name and the wall time. Definitions are in
src/zettelgraph/guards/measures.py.

    python benchmarks/quality.py examples/ --llm local
    python benchmarks/quality.py ../shared/data/booknotes/napoleon_en_chamartin.md --llm local

Grading by meaning (`benchmarks/grading.py`, ../shared/JUDGE.md): `--sheet DIR` also writes
the items a judge grades (`DIR/sheet.jsonl`, nothing of how they were made) and what the
grades are compared with (`DIR/hidden.jsonl`: doubt flags, typed or suggested); `--grades
FILE --sheet DIR` then prints the keep / fix / drop shares and how the flags did, without
running anything. `--from-run FILE` reads a saved `zettelgraph run --json` instead of running.

    python benchmarks/quality.py benchmarks/dev/*.md --llm local --sheet out/dev
    python benchmarks/quality.py --grades out/dev/grades.jsonl --sheet out/dev
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from grading import figures, read_jsonl, sheet_items, write_jsonl
from zettelgraph.guards.measures import measures, meets_goals, run_counts
from zettelgraph.llm.embeddings import build_embedder
from zettelgraph.packs.relations import DEFAULT_VOCABULARY
from zettelgraph.settings import default_embeddings
from zettelgraph.text.language import detector_for


def run_main_job(
    paths: list[Path], home: Path, llm: str | None, env: dict[str, str]
) -> dict[str, Any]:
    """`zettelgraph run --json` in `home`: the README's first command, as a user runs it
    (`llm` None leaves the model to the default, the offline one)."""
    command = [str(Path(sys.executable).parent / "zettelgraph"), "run", "--json", *map(str, paths)]
    started = time.perf_counter()
    done = subprocess.run(
        command,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("ZETTELGRAPH_")},
            **env,
            "ZETTELGRAPH_HOME": str(home),
            **({"ZETTELGRAPH_LLM": llm} if llm else {}),
        },
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    try:
        result: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise SystemExit(
            f"zettelgraph run failed ({done.returncode}):\n{done.stderr[-4000:]}"
        ) from None
    result["seconds"] = round(seconds, 1)
    result["stderr_tail"] = done.stderr.splitlines()[-5:]
    return result


def evaluate(result: dict[str, Any], language: str, embeddings: str) -> dict[str, Any]:
    embedder = build_embedder(embeddings)
    detect = detector_for(language)
    per_run = []
    all_counts = []
    for run in result["runs"]:
        report = run.get("report") or {}
        counts = run_counts(
            report,
            language=language,
            detect=detect,
            embedder=embedder,
            vocabulary=DEFAULT_VOCABULARY,
        )
        all_counts.append(counts)
        per_run.append(
            {
                "title": run.get("title"),
                "status": run.get("status"),
                "counts": counts,
                "measures": measures([counts]),
                "checks": report.get("checks", {}),
                # What the reader would review: each concept's fields and quotes, each relation.
                "concepts": [
                    {
                        **{k: c.get(k) for k in ("title", "concept", "analysis", "summary_short")},
                        "quotes": [str(q.get("text", ""))[:120] for q in c.get("quotes", [])],
                    }
                    for c in report.get("concepts", [])
                ],
                "relations": [
                    f"{r.get('source')} -[{r.get('type')}]-> {r.get('target')}: "
                    f"{r.get('explanation')}"
                    for r in report.get("relations", [])
                ],
                # Every drop and flag, as the reviewer reads them.
                "warnings": report.get("warnings", []),
            }
        )
    overall = measures(all_counts)
    checks: dict[str, dict[str, int]] = {}
    for run in per_run:
        for guard, actions in run["checks"].items():
            for action, count in actions.items():
                checks.setdefault(guard, {})
                checks[guard][action] = checks[guard].get(action, 0) + count
    return {
        "runs": per_run,
        "overall": overall,
        "goals_met": meets_goals(overall),
        "checks": checks,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="book-note files or folders")
    parser.add_argument("--llm", default="local", help="ZETTELGRAPH_LLM for the run")
    parser.add_argument("--embeddings", default=default_embeddings(), help="embedder for measures")
    parser.add_argument("--language", default="es", help="the graph's language")
    parser.add_argument("--home", type=Path, help="ZETTELGRAPH_HOME (default: a fresh temp dir)")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    parser.add_argument("--sheet", type=Path, help="folder of the grading sheet (grading.py)")
    parser.add_argument("--grades", type=Path, help="grades of the sheet in --sheet: figures")
    parser.add_argument("--from-run", type=Path, help="a saved `zettelgraph run --json`")
    parser.add_argument(
        "--env", action="append", default=[], help="NAME=VALUE for the run (repeatable)"
    )
    args = parser.parse_args(argv)
    if args.grades:
        if not args.sheet:
            parser.error("--grades needs --sheet, the folder of the graded sheet")
        sheet = read_jsonl(args.sheet / "sheet.jsonl")
        hidden = read_jsonl(args.sheet / "hidden.jsonl")
        emit(figures(sheet, hidden, read_jsonl(args.grades)), args.out)
        return
    if not args.paths and not args.from_run:
        parser.error("give book-note paths to run, or --from-run")
    env = {"ZETTELGRAPH_CONCEPT_LANGUAGE": args.language}
    env.update(dict(item.split("=", 1) for item in args.env))
    if args.from_run:
        result = json.loads(args.from_run.read_text(encoding="utf-8"))
        result.setdefault("seconds", None)
    else:
        with tempfile.TemporaryDirectory(prefix="zg-quality-") as scratch:
            home = args.home or Path(scratch)
            result = run_main_job(args.paths, home, args.llm, env)
    if args.sheet:
        sheet, hidden = sheet_items(result["runs"])
        write_jsonl(args.sheet / "sheet.jsonl", sheet)
        write_jsonl(args.sheet / "hidden.jsonl", hidden)
        (args.sheet / "run.json").write_text(
            json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8"
        )
    evaluation = evaluate(result, args.language, args.embeddings)
    output = {
        "paths": [str(p) for p in args.paths],
        "llm": args.llm,
        "env": env,
        "seconds": result["seconds"],
        **evaluation,
        "usage": result.get("usage", {}),
        "date": dt.date.today().isoformat(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
    }
    emit(output, args.out)


def emit(output: dict[str, Any], out: Path | None) -> None:
    """Print the benchmark's JSON, and write it to `out` too when given."""
    text = json.dumps(output, ensure_ascii=False, indent=1)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
