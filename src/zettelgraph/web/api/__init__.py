"""The JSON API under /api, one module per thing it serves: runs and their review
(`runs.py`), the graph and its sources (`graph.py`), search and ask (`ask.py`), the browser
session's CSRF token (`session.py`), cards and study (`cards.py`), the template packs'
entities (`entities.py`), graph extraction runs (`graph_runs.py`), the reader's corrections
(`corrections.py`), W3C PROV downloads (`provenance.py`) and experiments (`experiments.py`);
`models.py` holds the request and response models.

Every route calls the service functions the CLI calls (`services/browse.py`,
`services/ask.py`, `ExtractionRuns` through `web/actions.py`), so `zettelgraph concept ID
--json` and `GET /api/concepts/ID` say the same thing. The response models only describe
those dicts for `/api/openapi.json`; they accept fields they do not name, so a field a service
adds reaches the client before the schema mentions it.

Errors: an unknown id is 404, a decision on a run that is not waiting is 409, a bad request
value (action, recipe, empty text) is 422, and a model that fails or cannot be used is 502.
Path and query values are only ever looked up as ids in the store or the checkpoints, never
used as filesystem paths.
"""

from __future__ import annotations

from fastapi import APIRouter

from zettelgraph.web.api import (
    ask,
    cards,
    corrections,
    entities,
    experiments,
    graph,
    graph_runs,
    provenance,
    runs,
    session,
)

# In /api/docs these operations carry the `api` tag beside their own (provenance and
# experiments below carry only theirs).
_tagged = APIRouter(tags=["api"])
for part in (runs, graph, ask, session, cards, entities, graph_runs, corrections):
    _tagged.include_router(part.router)

# Everything under /api, in the order the routes are matched and listed.
router = APIRouter()
router.include_router(_tagged)
router.include_router(provenance.router)
router.include_router(experiments.router)
