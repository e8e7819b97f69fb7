"""Time the README's first command, `zettelgraph run examples/`, on the offline default model.

Runs it in a fresh home (after install: the model file is joined from its packages first, so
that one-off cost is timed apart), then prints one JSON object: wall seconds, peak memory, and
per LLM call name the calls, prompt tokens, prompt tokens served from llama.cpp's prompt cache,
generated tokens and seconds. Run it on an idle machine: two cores are the whole budget.

    python benchmarks/offline_main_job.py [--paths examples/] [--threads N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import resource
import tempfile
import time
from pathlib import Path

from quality import emit, run_main_job  # benchmarks/ is the script's folder, so on sys.path
from zettelgraph.llm import local
from zettelgraph.settings import Settings

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", nargs="+", type=Path, default=[EXAMPLES])
    parser.add_argument("--llm", default=None, help="ZETTELGRAPH_LLM (default: the default)")
    parser.add_argument("--threads", type=int, help="ZETTELGRAPH_LOCAL_THREADS")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="zg-main-job-") as scratch:
        home = Path(scratch)
        # The model file is joined from its packages once per home; time it apart.
        started = time.perf_counter()
        model = local.resolve_local(args.llm or "local")
        local.ensure_model_file(model, Settings(home=home).models_dir)
        assemble = time.perf_counter() - started
        env = {"ZETTELGRAPH_LOCAL_THREADS": str(args.threads)} if args.threads else {}
        result = run_main_job(args.paths, home, args.llm, env)
    usage = result.get("usage", {})
    output = {
        "command": "zettelgraph run " + " ".join(map(str, args.paths)),
        "llm": args.llm or "default (local)",
        "wall_seconds": result["seconds"],
        "model_file_assembly_seconds": round(assemble, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
        "runs": [
            {
                "title": r.get("title"),
                "status": r.get("status"),
                "concepts": len((r.get("report") or {}).get("concepts", [])),
                "relations": len((r.get("report") or {}).get("relations", [])),
            }
            for r in result["runs"]
        ],
        "calls": {
            name: {
                "calls": u["calls"],
                "prompt_tokens": u["input_tokens"],
                "cached_prompt_tokens": u.get("cached_input_tokens", 0),
                "generated_tokens": u["output_tokens"],
                "seconds": u["seconds"],
            }
            for name, u in usage.items()
        },
        "total_llm_calls": sum(int(u["calls"]) for u in usage.values()),
        "date": dt.date.today().isoformat(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    emit(output, args.out)


if __name__ == "__main__":
    main()
