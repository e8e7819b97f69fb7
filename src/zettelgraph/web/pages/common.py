"""What every HTML page shares: rendering with the nav and CSRF token, HTML error pages,
relation-type colours, and small formatting filters.

Page routes use `HTMLRoute`, so an HTTPException (404, 409, the CSRF check's 403) or a
request validation error raised anywhere in a page route, its dependencies included, is
answered with a readable HTML page instead of JSON.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from jinja2 import pass_context
from markupsafe import Markup
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import HTMLResponse, RedirectResponse, Response

from zettelgraph.models import Concept
from zettelgraph.models.labels import labels_for
from zettelgraph.models.locations import page_label
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.services import browse
from zettelgraph.web.state import TEMPLATES, WebState, web_state

# The relation vocabulary of the app rendering a page (the active packs'), which `render`
# sets: templates import `rel_color` as a global, without the request's context.
_VOCABULARY: ContextVar[RelationVocabulary] = ContextVar(
    "relation_vocabulary", default=DEFAULT_VOCABULARY
)

ERROR_TITLES = {
    400: "Bad request",
    403: "Refused",
    404: "Not found",
    409: "Nothing changed",
    422: "Check what you sent",
}


def rel_color(relation_type: str) -> str:
    """A stable colour per relation type from the active packs (never from the data itself)."""
    return _VOCABULARY.get().color(relation_type)


def ago(seconds: float | None) -> str:
    """ "just now", "12 min ago", "3 h ago", "5 d ago"."""
    if seconds is None:
        return ""
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    return f"{int(seconds // 86400)} d ago"


def when(value: datetime | str | None, clock: bool = True) -> str:
    """A date-time as "2026-11-22 04:20 UTC" (or "2026-11-22" without `clock`); '' for None."""
    if value is None or value == "":
        return ""
    moment = value
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return value
    assert isinstance(moment, datetime)
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    if not clock:
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%d %H:%M") + (" UTC" if moment.tzinfo else "")


def passage_href(content_id: str | None, passage_id: str | None) -> str:
    """The link to a passage in its source's reading view."""
    if not content_id:
        return ""
    base = f"/sources/{quote(content_id, safe='')}"
    return f"{base}#p-{quote(passage_id, safe='')}" if passage_id else base


def source_href(content_id: str) -> str:
    return f"/sources/{quote(content_id, safe='')}"


def graph_href(
    *, concept: str | None = None, content: str | None = None, entity: str | None = None
) -> str:
    pairs = (("concept", concept), ("content", content), ("entity", entity))
    query = urlencode({k: v for k, v in pairs if v})
    return f"/graph?{query}" if query else "/graph"


def concept_href(concept_id: str) -> str:
    return f"/concepts/{quote(concept_id, safe='')}"


def unlink_href(concept_id: str, source: str, relation_type: str, target: str) -> str:
    """The page that confirms removing `source -[type]-> target`, from `concept_id`'s page."""
    query = urlencode({"source": source, "type": relation_type, "target": target})
    return f"{concept_href(concept_id)}/unlink?{query}"


def entity_href(entity_id: str) -> str:
    return f"/entities/{quote(entity_id, safe='')}"


def run_href(run_id: str) -> str:
    return f"/runs/{quote(run_id, safe='')}"


def graph_run_href(run_id: str) -> str:
    return f"/graph-runs/{quote(run_id, safe='')}"


_MARKER = re.compile(r"\[(\d{1,4})\]")


def linked_answer(text: str, targets: dict[int, str]) -> Markup:
    """The answer text escaped, with each [n] whose passage is known made a link to it.

    Built from escaped pieces: the model's text is never marked safe as a whole.
    """
    out = Markup("")
    position = 0
    for match in _MARKER.finditer(text):
        out += text[position : match.start()]  # Markup + str escapes the str
        n = int(match.group(1))
        href = targets.get(n)
        if href:
            out += Markup('<a class="cite" href="{0}" title="passage {1}">[{1}]</a>').format(
                href, n
            )
        else:
            out += match.group(0)
        position = match.end()
    out += text[position:]
    return out


@pass_context
def label(context: Any, name: str) -> str:
    """The label of a concept's part (`labels.Labels` field) in the concept language, as the
    vault and the CLI show it: `{{ label("analysis") }}`."""
    request = context.get("request")
    language = web_state(request).settings.concept_language if request is not None else "es"
    return str(getattr(labels_for(language), name))


def template_globals(**functions: Callable[..., Any]) -> None:
    """Make each function callable by its name in every template (`{{ concept_href(id) }}`);
    a name the templates already have keeps its function."""
    for name, function in functions.items():
        TEMPLATES.env.globals.setdefault(name, function)


TEMPLATES.env.filters.setdefault("ago", ago)
TEMPLATES.env.filters.setdefault("when", when)
template_globals(
    rel_color=rel_color,
    label=label,
    page_label=page_label,
    passage_href=passage_href,
    concept_href=concept_href,
    unlink_href=unlink_href,
    entity_href=entity_href,
    source_href=source_href,
    graph_href=graph_href,
    run_href=run_href,
    graph_run_href=graph_run_href,
)


def render(
    request: Request, template: str, nav: str, *, status_code: int = 200, **context: Any
) -> HTMLResponse:
    """A page with the nav highlight and the CSRF token every POST form needs."""
    web: WebState | None = getattr(request.app.state, "web", None)
    # The template is rendered right here, so the vocabulary is set for exactly that.
    token = _VOCABULARY.set(web.services.store_vocabulary if web else DEFAULT_VOCABULARY)
    try:
        return TEMPLATES.TemplateResponse(
            request,
            template,
            {"nav": nav, "csrf_token": getattr(request.state, "csrf_token", ""), **context},
            status_code=status_code,
        )
    finally:
        _VOCABULARY.reset(token)


def render_concept(
    request: Request, web: WebState, concept: Concept, *, status_code: int = 200, **context: Any
) -> HTMLResponse:
    """The concept page; `context` adds what a refused form shows (its error and the values
    the reader typed)."""
    store = web.services.store
    detail = browse.concept_detail(store, concept)
    provenance = detail.get("provenance") or {}
    content_id = provenance.get("content_id")
    return render(
        request,
        "concept.html",
        "concepts",
        status_code=status_code,
        c=detail,
        provenance=provenance,
        source=store.get_content(content_id) if content_id else None,
        vocabulary=web.services.store_vocabulary,
        **context,
    )


def error_page(
    request: Request, status_code: int, message: str, *, back: str | None = None
) -> HTMLResponse:
    return render(
        request,
        "error.html",
        "",
        status_code=status_code,
        title=ERROR_TITLES.get(status_code, f"Error {status_code}"),
        message=message,
        back=back,
    )


def see_other(path: str) -> RedirectResponse:
    """The redirect after a POST (303: the browser follows it with a GET)."""
    return RedirectResponse(path, status_code=303)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("query", "body", "path"))
        parts.append(f"{where}: {error.get('msg', 'invalid')}" if where else error.get("msg", ""))
    return "; ".join(parts) or "invalid request"


class HTMLRoute(APIRoute):
    """A page route whose HTTP errors are HTML pages."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def handler(request: Request) -> Response:
            try:
                return await handle(request)
            except StarletteHTTPException as exc:
                back = None
                if request.method == "POST":
                    # /runs/ID/approve -> /runs/ID; /ask -> /ask (the matched route's own path)
                    segments = request.url.path.split("/")
                    back = "/".join(segments[:3]) if len(segments) > 3 else request.url.path
                response = error_page(request, exc.status_code, str(exc.detail), back=back)
                for name, value in (exc.headers or {}).items():
                    response.headers[name] = value
                return response
            except RequestValidationError as exc:
                return error_page(request, 422, _validation_message(exc))

        return handler
