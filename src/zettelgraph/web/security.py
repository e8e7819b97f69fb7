"""Who may use the web app, and protection against cross-site requests.

- Without `ZETTELGRAPH_WEB_TOKEN` the app serves the loopback address only (`check_bind`), and
  answers only requests whose Host header is a loopback name, so a web page on another site
  cannot reach it through DNS rebinding.
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
- A browser's POST from another site or port is refused: its `Sec-Fetch-Site` says
  `cross-site` or `same-site` (another port of this host is the same site), or its Origin
  (or, without one, Referer) names another origin.
- Cookie names end with the port the browser addressed (`zg_session_8765`): browsers keep
  cookies per host, not per port, so two apps on 127.0.0.1 would otherwise replace each
  other's.

A request authenticated by its Authorization header (a script, not a browser) needs no
session, CSRF token or origin check.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
from collections.abc import Awaitable, Callable, Mapping
from urllib.parse import urlencode, urlsplit

from fastapi import Depends, HTTPException, Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response

TOKEN_COOKIE = "zg_token"
SESSION_COOKIE = "zg_session"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# A token guessable in a few million tries is no lock for an app served to a network.
MIN_TOKEN_LENGTH = 16
# ... and of some variety: sixteen times the same character is no secret.
MIN_TOKEN_KINDS = 8
# A Host header is a name or an address in brackets, then an optional port: nothing after.
_HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9.-]+))(?::\d{1,5})?")


class WebConfigError(ValueError):
    """The app cannot be served as asked; the message says what to change."""


def is_loopback(host: str) -> bool:
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond this machine without a token, or with a short one."""
    if is_loopback(host):
        return
    if not token:
        raise WebConfigError(
            f"refusing to serve on {host}: anyone who can reach it could read and change your "
            "graph. Set ZETTELGRAPH_WEB_TOKEN to a long random secret, or serve on 127.0.0.1"
        )
    if len(token) < MIN_TOKEN_LENGTH or len(set(token)) < MIN_TOKEN_KINDS:
        raise WebConfigError(
            f"refusing to serve on {host} with a weak {len(token)}-character "
            f"ZETTELGRAPH_WEB_TOKEN ({len(set(token))} different characters): use at least "
            f"{MIN_TOKEN_LENGTH} random characters (for example the output of "
            "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
        )


def host_name(header: str) -> str | None:
    """The host name of a Host header, or None when it is not a well-formed `name[:port]`
    (`[::1].evil` is not `[::1]`, nor is `127.0.0.1:8000@evil.com` 127.0.0.1)."""
    match = _HOST.fullmatch(header)
    if match is None:
        return None
    return match.group("v6") or match.group("name")


def _host_name(request: Request) -> str | None:
    return host_name(request.headers.get("host", ""))


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison of two secrets as bytes: any text a client sends (non-ASCII
    included) is a wrong token, never a server error."""
    return hmac.compare_digest(
        given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass")
    )


def refuse(request: Request, status: int, message: str) -> Response:
    if request.url.path.startswith("/api"):
        return JSONResponse({"detail": message}, status_code=status)
    return PlainTextResponse(message, status_code=status)


def cookie_name(request: Request, base: str) -> str:
    """`base` and the port the browser addressed (`zg_session_8765`; 80 or 443 when the URL
    names none): a cookie of one app is never sent as another port's."""
    port = request.url.port or (443 if request.url.scheme == "https" else 80)
    return f"{base}_{port}"


def _signature(secret: bytes, purpose: str, value: str) -> str:
    # The purpose keeps a session's signature from passing as its CSRF token, and back.
    message = f"{purpose}\0{value}".encode("utf-8", "surrogatepass")
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]


def new_session(secret: bytes) -> str:
    """A new browser session: a random value and the installation's signature of it."""
    value = secrets.token_urlsafe(24)
    return f"{value}.{_signature(secret, 'session', value)}"


def valid_session(secret: bytes, session: str) -> bool:
    """Whether `session` is one this installation made (not a value some page chose)."""
    value, dot, signature = session.rpartition(".")
    return bool(value and dot) and same_secret(signature, _signature(secret, "session", value))


def csrf_token(secret: bytes, session: str) -> str:
    """The CSRF token of one browser session."""
    return _signature(secret, "csrf", session)


def cross_origin(headers: Mapping[str, str]) -> bool:
    """Whether a browser says the request comes from another origin (site or port) than the
    app's own; a request that says nothing (a script) is not. Used by the web app and the MCP
    server alike."""
    if headers.get("sec-fetch-site") in ("cross-site", "same-site"):
        return True
    source = headers.get("origin") or headers.get("referer")
    if not source or source == "null":
        return source == "null"
    parts = urlsplit(source)
    return parts.netloc.lower() != (headers.get("host") or "").lower()


def access_middleware(
    token: str | None, secret: bytes
) -> Callable[[Request, Callable[[Request], Awaitable[Response]]], Awaitable[Response]]:
    """The HTTP middleware enforcing the rules in the module docstring; `secret` is the
    installation's (`services/web_secret.py`)."""

    async def middleware(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        name = _host_name(request)
        if token is None and (name is None or not is_loopback(name)):
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
            header = request.headers.get("authorization", "")
            bearer = header.startswith("Bearer ") and same_secret(header[7:], token)
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
        session_cookie = cookie_name(request, SESSION_COOKIE)
        session = request.cookies.get(session_cookie, "")
        known = bool(session) and valid_session(secret, session)
        if not known:
            session = new_session(secret)
        request.state.csrf_token = csrf_token(secret, session)
        # A session made just now has posted no page: no token can be right for it.
        request.state.csrf_expected = request.state.csrf_token if known else None
        response = await call_next(request)
        # A download or an answer is never to be sniffed into HTML and run as a page.
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        if not known:
            response.set_cookie(session_cookie, session, httponly=True, samesite="strict")
        return response

    return middleware


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
