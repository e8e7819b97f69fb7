"""Document ingestion throughput: a generated 300-page PDF through `zettelgraph ingest`'s path.

    python benchmarks/documents.py [--pages 300] [--embeddings use-multilingual]

1. Generates a PDF of N pages (fpdf2) from the shared public-domain novel's text (or
   generated Spanish-like sentences when the shared data is absent), with an outline entry
   every 10 pages, the way a book's chapters are.
2. Times each stage on a fresh home and store, as `zettelgraph ingest book.pdf` runs them:
   reading the PDF (pypdf), chunking (sections and ~256-token passages), and the Quote Parse
   Graph (summary with the zero-latency fake LLM, author, embedding through a fresh cache,
   one store transaction).
3. Times the embedder alone on the same passage texts (a fresh instance, no cache).

Reports pages/s end to end, passages/s, and `ratio` = pipeline passages/s / raw embedder
passages/s: how close ingestion comes to the embedder, which it cannot beat. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from zettelgraph.context import open_services
from zettelgraph.ingest.chunking import chunk_document
from zettelgraph.ingest.documents import read_documents
from zettelgraph.llm.embeddings import build_embedder
from zettelgraph.settings import Settings, default_embeddings
from zettelgraph.workflows.quote_parse.documents import chunking_config
from zettelgraph.workflows.quote_parse.graph import build_quote_parse_graph

SOURCE = (
    Path(__file__).resolve().parents[2] / "shared/data/booknotes/napoleon_en_chamartin.source.txt"
)
_LATIN1 = str.maketrans({"—": "-", "–": "-", "“": '"', "”": '"', "‘": "'", "’": "'", "…": "..."})


def paragraphs() -> list[str]:
    """The novel's paragraphs (latin-1 safe for the PDF's core font), or generated ones."""
    if SOURCE.is_file():
        text = SOURCE.read_text(encoding="utf-8").translate(_LATIN1)
        found = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
        kept = [p for p in found if len(p) > 80]
        return [p.encode("latin-1", "replace").decode("latin-1") for p in kept]
    words = ["la", "idea", "del", "libro", "muestra", "que", "el", "hombre", "vive", "con"]
    return [
        " ".join(words[(i + j) % len(words)] for j in range(60)).capitalize() + "."
        for i in range(200)
    ]


def write_pdf(path: Path, pages: int) -> int:
    """A PDF of exactly `pages` pages of prose; returns how many characters of text it holds."""
    from fpdf import FPDF

    source = paragraphs()
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    pdf.set_font("Helvetica", size=10)
    pdf.set_title("Benchmark book")
    pdf.set_author("Bench Mark")
    chars = 0
    index = 0
    for page in range(1, pages + 1):
        pdf.add_page()
        if page % 10 == 1:
            pdf.start_section(f"Chapter {page // 10 + 1}")
        # About 1,400 characters a page, a paperback's page; 300 such pages fit in the novel
        # without repeating it (a repeated passage would be stored once).
        budget = 1400
        while budget > 0:
            paragraph = source[index % len(source)][:budget]
            index += 1
            if pdf.get_y() > 260:
                break
            pdf.multi_cell(0, 5, paragraph, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
            budget -= len(paragraph)
            chars += len(paragraph)
    pdf.output(str(path))
    return chars


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--embeddings", default=default_embeddings())
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        book = Path(tmp) / "book.pdf"
        chars = write_pdf(book, args.pages)
        settings = Settings(home=Path(tmp) / "home", llm="fake", embeddings=args.embeddings)
        max_bytes = int(settings.max_file_mb * 1024 * 1024)

        started = time.perf_counter()
        documents = read_documents(book, max_bytes=max_bytes)
        read_seconds = time.perf_counter() - started
        started = time.perf_counter()
        chunked = chunk_document(documents[0], chunking_config(settings))
        chunk_seconds = time.perf_counter() - started
        texts = list(dict.fromkeys(p.text for p in chunked.passages))

        raw = build_embedder(args.embeddings)
        started = time.perf_counter()
        raw.embed(texts)
        raw_seconds = time.perf_counter() - started

        services = open_services(settings)
        try:
            graph = build_quote_parse_graph(services)
            started = time.perf_counter()
            # The CLI's path: the file read into a document, then the graph.
            document = read_documents(book, max_bytes=max_bytes)[0]
            result = graph.invoke(
                {"file_path": str(book), "document": document.model_dump(mode="json")}
            )
            pipeline_seconds = time.perf_counter() - started
            stored = services.store.counts()
        finally:
            services.close()
        if result["quotes_total"] != len(texts) or stored["vectors"] != len(texts):
            raise SystemExit(f"expected {len(texts)} passages, stored {stored}")
        pdf_mb = book.stat().st_size / 1e6

    raw_rate = len(texts) / raw_seconds
    pipeline_rate = len(texts) / pipeline_seconds
    report: dict[str, Any] = {
        "benchmark": "documents",
        "date": time.strftime("%Y-%m-%d"),
        "embedder": args.embeddings,
        "pages": args.pages,
        "pdf_mb": round(pdf_mb, 2),
        "text_chars": chars,
        "sections": len(chunked.sections),
        "passages": len(texts),
        "read_pdf_seconds": round(read_seconds, 3),
        "read_pages_per_s": round(args.pages / read_seconds, 1),
        "chunk_seconds": round(chunk_seconds, 3),
        "raw_embed_seconds": round(raw_seconds, 3),
        "raw_embed_passages_per_s": round(raw_rate, 1),
        "pipeline_seconds": round(pipeline_seconds, 3),
        "pipeline_pages_per_s": round(args.pages / pipeline_seconds, 2),
        "pipeline_passages_per_s": round(pipeline_rate, 1),
        "ratio": round(pipeline_rate / raw_rate, 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
