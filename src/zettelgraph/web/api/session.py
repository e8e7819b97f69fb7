"""The browser session's CSRF token under /api, for scripts that post with cookies
(`web/security.py` says how sessions and tokens are made).
"""

from __future__ import annotations

from fastapi import APIRouter, Request

from zettelgraph.web.api.models import CsrfOut

router = APIRouter()


@router.get("/csrf", response_model=CsrfOut)
def csrf(request: Request) -> dict[str, str]:
    """The CSRF token of this browser session (its `zg_session_PORT` cookie, set by this
    answer when it has none), for scripts that post with cookies; a request with
    `Authorization: Bearer TOKEN` needs none."""
    token: str = request.state.csrf_token
    return {"csrf_token": token}
