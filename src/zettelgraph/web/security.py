"""How the web app applies the HTTP security rules (`services/http_security.py`): who may
use it, and protection against cross-site requests.

- Without `ZETTELGRAPH_WEB_TOKEN`, only requests whose Host header is a loopback name are
  answered (`zettelgraph serve` refuses to listen elsewhere).
- With a token, every request must carry it: `Authorization: Bearer TOKEN`, or the
  `zg_token_PORT` cookie a browser gets by opening any page once with `?token=TOKEN`.
- Every browser has a session: the `zg_session_PORT` cookie, a random value the app signed
  with the installation's secret (`services/web_secret.py`). A cookie the app did not sign
  (one a page on another localhost port planted: those share 127.0.0.1's cookies) is
  replaced.
- Every state-changing request (POST) carries the session's CSRF token (the pages have it; a
  script asks `GET /api/csrf`) in the `X-CSRF-Token` header or the form's `csrf_token` field.
  The token is the secret's signature of the session: good with that session only (copied
  into another browser it is refused), made by this installation only (no value a page
  chose passes, as any 32 characters repeated in a `zg_csrf` cookie and the form once did),
  and still good after a restart.
- A browser's POST from another site or port is refused (`cross_origin`).
- Cookie names end with the port the browser addressed (`zg_session_8765`): browsers keep
  cookies per host, not per port, so two apps on 127.0.0.1 would otherwise replace each
  other's.

A request authenticated by its Authorization header (a script, not a browser) needs no
session, CSRF token or origin check.
"""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import Depends, HTTPException, Request
from starlette.datastructures import MutableHeaders
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from zettelgraph.services.http_security import (
    cross_origin,
    csrf_token,
    has_bearer,
    loopback_host,
    new_session,
    same_secret,
    valid_session,
)

TOKEN_COOKIE = "zg_token"
SESSION_COOKIE = "zg_session"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def refuse(request: Request, status: int, message: str) -> Response:
    if request.url.path.startswith("/api"):
        return JSONResponse({"detail": message}, status_code=status)
    return PlainTextResponse(message, status_code=status)


def cookie_name(request: Request, base: str) -> str:
    """`base` and the port the browser addressed (`zg_session_8765`; 80 or 443 when the URL
    names none): a cookie of one app is never sent as another port's."""
    port = request.url.port or (443 if request.url.scheme == "https" else 80)
    return f"{base}_{port}"


class AccessRules:
    """The ASGI middleware enforcing the rules in the module docstring; `secret` is the
    installation's (`services/web_secret.py`).

    Plain ASGI rather than Starlette's `BaseHTTPMiddleware` (`app.middleware("http")`): that
    one runs the rest of the app in a task of its own for every request and passes the
    response back through a memory stream, about a tenth of the server's CPU under 20
    clients (sampled, docs/benchmarks.md). Here the headers are added to the response's
    start message as it goes out."""

    def __init__(self, app: ASGIApp, token: str | None, secret: bytes) -> None:
        self.app = app
        self.token = token
        self.secret = secret

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        answer = self._answer_first(request)
        if answer is not None:
            await answer(scope, receive, send)
            return
        session_cookie = cookie_name(request, SESSION_COOKIE)
        session = request.cookies.get(session_cookie, "")
        known = bool(session) and valid_session(self.secret, session)
        if not known:
            session = new_session(self.secret)
        request.state.csrf_token = csrf_token(self.secret, session)
        # A session made just now has posted no page: no token can be right for it.
        request.state.csrf_expected = request.state.csrf_token if known else None
        cookie = None
        if not known:
            made = Response()
            made.set_cookie(session_cookie, session, httponly=True, samesite="strict")
            cookie = made.headers["set-cookie"]

        async def send_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                # A download or an answer is never to be sniffed into HTML and run as a page.
                headers.setdefault("X-Content-Type-Options", "nosniff")
                if cookie is not None:
                    headers.append("set-cookie", cookie)
            await send(message)

        await self.app(scope, receive, send_headers)

    def _answer_first(self, request: Request) -> Response | None:
        """The response that ends the request before the app sees it (refused, or the
        token's redirect), or None to go on; sets `request.state.bearer`."""
        token = self.token
        if token is None and not loopback_host(request.headers.get("host", "")):
            return refuse(request, 400, "this app answers on 127.0.0.1 / localhost only")
        bearer = False
        if token is not None:
            token_cookie = cookie_name(request, TOKEN_COOKIE)
            given = request.query_params.get("token")
            if given is not None and request.method == "GET":
                if not same_secret(given, token):
                    return refuse(request, 401, "wrong token")
                query = urlencode(
                    [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
                )
                target = request.url.path + (f"?{query}" if query else "")
                response: Response = RedirectResponse(target, status_code=303)
                response.set_cookie(token_cookie, token, httponly=True, samesite="strict")
                return response
            bearer = has_bearer(request.headers.get("authorization", ""), token)
            cookie = request.cookies.get(token_cookie, "")
            if not bearer and not (cookie and same_secret(cookie, token)):
                return refuse(
                    request,
                    401,
                    "this app needs its token: send 'Authorization: Bearer TOKEN', or open "
                    "/?token=TOKEN once in the browser",
                )
        request.state.bearer = bearer
        if request.method not in SAFE_METHODS and not bearer and cross_origin(request.headers):
            return refuse(request, 403, "a request from another site or port is refused")
        return None


async def require_csrf(request: Request) -> None:
    """Dependency of every state-changing route: the request carries its session's CSRF
    token."""
    if request.method in SAFE_METHODS or getattr(request.state, "bearer", False):
        return
    given = request.headers.get(CSRF_HEADER, "")
    if not given and "form" in request.headers.get("content-type", ""):
        form = await request.form()  # cached on the request: the route's Form() reads it again
        value = form.get(CSRF_FIELD, "")
        given = value if isinstance(value, str) else ""
    expected: str | None = getattr(request.state, "csrf_expected", None)
    if expected is None or not given or not same_secret(given, expected):
        raise HTTPException(
            status_code=403,
            detail="missing or wrong CSRF token: reload the page and try again",
        )


# What every state-changing route depends on: `@router.post(..., dependencies=Csrf)`.
Csrf = [Depends(require_csrf)]
