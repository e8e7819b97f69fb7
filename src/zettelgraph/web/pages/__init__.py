"""Server-rendered pages, one module per part of the app: the inbox and review (`review.py`),
graph extraction runs (`graph_runs.py`), concepts (`concepts.py`), sources (`sources.py`), the
graph view (`explore.py`), search and ask (`ask.py`), pack entities (`entities.py`), cards
(`cards.py`), study (`study.py`), experiments (`experiments.py`), links between concepts
(`links.py`) and corrections (`corrections.py`); `common.py` is what they share (rendering
with the nav, HTML error pages, formatting filters).

Every page reads through the same service functions as the CLI (`services/browse.py`,
`services/ask.py`, `ExtractionRuns`); templates escape everything that comes from the graph
or the request (Jinja autoescape; no `|safe` on data).
"""

from __future__ import annotations

from fastapi import APIRouter

from zettelgraph.web.pages import (
    ask,
    cards,
    concepts,
    corrections,
    entities,
    experiments,
    explore,
    graph_runs,
    links,
    review,
    sources,
    study,
)

# Every page, in the order the routes are matched.
router = APIRouter()
for part in (
    review,
    graph_runs,
    concepts,
    sources,
    explore,
    ask,
    entities,
    cards,
    study,
    experiments,
    links,
    corrections,
):
    router.include_router(part.router)
