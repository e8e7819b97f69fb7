"""Issue 31, item 6: with ZETTELGRAPH_PASSAGE_SUMMARIES on, ingest writes one line per passage
of a document, a batch of passages a call of the fast model; off (the default), no call."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from test_quote_parse import ingest, make_services, write

from zettelgraph.context import Services, open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.prompts import summarize_passages
from zettelgraph.settings import Settings

# 25 passages: two calls of at most 20.
DOCUMENT = "# Notas de lectura\n\n" + "\n\n".join(
    f"## Apartado {i}\n\nEl apartado {i} sostiene que la idea número {i} importa por sí misma."
    for i in range(25)
)


def one_line_each(prompt: str) -> dict[str, Any]:
    """A line for every passage id the call shows, as a model that follows the prompt would."""
    ids = re.findall(r"^\[(q\d+)\]", prompt, flags=re.MULTILINE)
    return {"lines": [{"passage_id": i, "summary": f"Lo que dice {i}."} for i in ids]}


def summarising_services(home: Path) -> Services:
    settings = Settings(
        home=home, llm="fake", embeddings="hash", llm_backoff=0.0, passage_summaries=True
    )
    fake = FakeChatModel(replies={summarize_passages.NAME: [one_line_each]})
    return open_services(settings, llms=ChatModels(settings, preset={"fake": fake}))


def test_each_passage_gets_a_line_when_asked(tmp_path: Path) -> None:
    services = summarising_services(tmp_path / "home")
    try:
        result = ingest(services, write(tmp_path / "doc.md", DOCUMENT))
        passages = services.store.quotes_of(result["content_id"])
        assert result["kind"] == "markdown" and len(passages) == 25
        assert all(p.summary for p in passages)
        usage = services.usage.as_dict()[summarize_passages.NAME]
        assert usage["calls"] == 2
        # Ingesting again keeps the lines: no new call.
        ingest(services, write(tmp_path / "doc.md", DOCUMENT + "\n\nUna línea más al final."))
        assert services.usage.as_dict()[summarize_passages.NAME]["calls"] == 3
    finally:
        services.close()


def test_off_by_default_no_call_and_no_line(tmp_path: Path) -> None:
    services = make_services(tmp_path / "home")
    try:
        result = ingest(services, write(tmp_path / "doc.md", DOCUMENT))
        assert not any(p.summary for p in services.store.quotes_of(result["content_id"]))
        assert summarize_passages.NAME not in services.usage.as_dict()
    finally:
        services.close()
