"""A concept run waiting for review in a home of its own, with three concepts and two
relations from scripted fake replies: what the review tests of the CLI decide on. The home
uses the fake LLM and the hash embedder, as the CLI tests' commands do."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from zettelgraph.context import open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import ChangeSet, Content, Quote, Relation, content_id, quote_id
from zettelgraph.packs.relations import QUOTED_IN
from zettelgraph.services.checkpoints import open_checkpointer
from zettelgraph.services.extraction_runs import ExtractionRuns
from zettelgraph.settings import Settings

QUOTES = [
    "La libertad es uno de los más preciosos dones que a los hombres dieron los cielos.",
    "Cada uno es hijo de sus obras, y no de su linaje ni de su fortuna.",
    "El que lee mucho y anda mucho, ve mucho y sabe mucho de los hombres.",
]
TITLES = ["La libertad como don", "Somos lo que hacemos", "Leer y viajar enseñan"]
SETTINGS: dict[str, Any] = {
    "llm": "fake",
    "embeddings": "hash",
    "llm_backoff": 0.0,
    "relation_min_similarity": -1.0,
    "relation_unrelated_below": -1.0,
}


def _concept(title: str, text: str, quote: str) -> dict[str, Any]:
    return {
        "title": title,
        "concept": text,
        "analysis": f"{title}: lo que la cita enseña.",
        "summary_short": text,
        "source_quote_ids": [quote],
    }


def _relations(prompt: str) -> dict[str, Any]:
    asked = re.search(r"New idea \[(c\d+)\]", prompt)
    source = asked.group(1) if asked else ""
    target = {"c1": "c2", "c2": "c3"}.get(source)
    if target is None:
        return {"relations": []}
    a, b = TITLES[int(source[1:]) - 1], TITLES[int(target[1:]) - 1]
    return {
        "relations": [
            {
                "target_concept_id": target,
                "relation_type": "SIMILAR_TO",
                "explanation": f"{a} y {b}: las dos hablan de lo que uno elige.",
                "confidence": 0.8,
            }
        ]
    }


REPLIES: dict[str, list[Any]] = {
    "extract_concepts": [
        {
            "candidate_concepts": [
                _concept(TITLES[0], "La libertad es el mayor bien del hombre.", "q1"),
                _concept(TITLES[1], "Cada persona se define por sus actos.", "q2"),
                _concept(TITLES[2], "La experiencia y la lectura dan saber.", "q3"),
            ]
        }
    ],
    "create_relations": [_relations],
    "self_critique": [
        {
            "failed_criteria": [],
            "issues": [],
            "overall_passes": True,
            "critique_summary": "Bien.",
            "improvement_suggestions": [],
        }
    ],
}


def review_run(home: Path) -> str:
    """Start a run on three quotes in `home`; its id, waiting for review."""
    settings = Settings(home=home, **SETTINGS)
    llm = FakeChatModel(replies={k: list(v) for k, v in REPLIES.items()})
    services = open_services(settings, llms=ChatModels(settings, preset={"fake": llm}))
    try:
        cid = content_id("Don Quijote", None)
        store = services.store
        store.ensure_embedder(services.embedder.name, services.embedder.dim)
        quotes = [
            Quote(id=quote_id(cid, t), content_id=cid, text=t, position=i, page=str(i + 1))
            for i, t in enumerate(QUOTES)
        ]
        vectors = services.embedder.embed(QUOTES)
        store.apply(
            ChangeSet(
                contents=[Content(id=cid, title="Don Quijote")],
                quotes=quotes,
                relations=[Relation(source_id=q.id, target_id=cid, type=QUOTED_IN) for q in quotes],
                vectors={q.id: vectors[i] for i, q in enumerate(quotes)},
            )
        )
        with open_checkpointer(settings) as checkpointer:
            view = ExtractionRuns(services, checkpointer).start(cid)
        assert view.status == "awaiting_review", view
        return view.run_id
    finally:
        services.close()
