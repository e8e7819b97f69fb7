"""Who may use the web app, and protection against cross-site requests.

- Without `ZETTELGRAPH_WEB_TOKEN` the app serves the loopback address only (`check_bind`), and
  answers only requests whose Host header is a loopback name, so a web page on another site
  cannot reach it through DNS rebinding.
- With a token, every request must carry it: `Authorization: Bearer TOKEN`, or the `zg_token`
  cookie a browser gets by opening any page once with `?token=TOKEN`.
- Every state-changing request (POST) must carry the CSRF token: the `zg_csrf` cookie's value,
  repeated in the `X-CSRF-Token` header or the form's `csrf_token` field (double submit). The
  token is signed with a secret of the running app, so a cookie planted by another page (a
  page on another localhost port shares the cookies of 127.0.0.1) is not one: any 32
  characters used to pass when repeated in the form. A browser's POST whose Origin (or, without
  one, Referer) is another site or port is refused too. A request authenticated by its
  Authorization header (a script, not a browser) needs neither.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import urlencode, urlsplit

from fastapi import HTTPException, Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response

TOKEN_COOKIE = "zg_token"
CSRF_COOKIE = "zg_csrf"
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


def signed_csrf(secret: bytes) -> str:
    """A new CSRF token: a random value and its signature by the app's secret."""
    value = secrets.token_urlsafe(24)
    return f"{value}.{_signature(secret, value)}"


def _signature(secret: bytes, value: str) -> str:
    return hmac.new(secret, value.encode(), hashlib.sha256).hexdigest()[:32]


def valid_csrf(secret: bytes, token: str) -> bool:
    """Whether `token` is one this app signed (not a value some other page chose)."""
    value, dot, signature = token.rpartition(".")
    return bool(value and dot) and same_secret(signature, _signature(secret, value))


def cross_origin(request: Request) -> bool:
    """Whether a browser says the request comes from another origin (site or port) than the
    app's own; a request that says nothing (a script) is not."""
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source or source == "null":
        return source == "null"
    parts = urlsplit(source)
    return parts.netloc.lower() != (request.headers.get("host") or "").lower()


def access_middleware(
    token: str | None, secret: bytes | None = None
) -> Callable[[Request, Callable[[Request], Awaitable[Response]]], Awaitable[Response]]:
    """The HTTP middleware enforcing the rules in the module docstring; `secret` signs the
    CSRF tokens (a new one each time the app starts: a form opened before asks to reload)."""
    signing = secret or secrets.token_bytes(32)

    async def middleware(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        name = _host_name(request)
        if token is None and (name is None or not is_loopback(name)):
            return refuse(request, 400, "this app answers on 127.0.0.1 / localhost only")
        bearer = False
        if token is not None:
            given = request.query_params.get("token")
            if given is not None and request.method == "GET":
                if not same_secret(given, token):
                    return refuse(request, 401, "wrong token")
                query = urlencode(
                    [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
                )
                target = request.url.path + (f"?{query}" if query else "")
                response: Response = RedirectResponse(target, status_code=303)
                response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
                return response
            header = request.headers.get("authorization", "")
            bearer = header.startswith("Bearer ") and same_secret(header[7:], token)
            cookie = request.cookies.get(TOKEN_COOKIE, "")
            if not bearer and not (cookie and same_secret(cookie, token)):
                return refuse(
                    request,
                    401,
                    "this app needs its token: send 'Authorization: Bearer TOKEN', or open "
                    "/?token=TOKEN once in the browser",
                )
        request.state.bearer = bearer
        request.state.csrf_secret = signing
        if request.method not in SAFE_METHODS and not bearer and cross_origin(request):
            return refuse(request, 403, "a request from another site or port is refused")
        csrf = request.cookies.get(CSRF_COOKIE)
        fresh = csrf is None or not valid_csrf(signing, csrf)
        request.state.csrf_token = signed_csrf(signing) if fresh else csrf
        response = await call_next(request)
        # A download or an answer is never to be sniffed into HTML and run as a page.
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        if fresh:
            response.set_cookie(
                CSRF_COOKIE, request.state.csrf_token, httponly=True, samesite="strict"
            )
        return response

    return middleware


async def require_csrf(request: Request) -> None:
    """Dependency of every state-changing route: the double-submitted CSRF token matches."""
    if request.method in SAFE_METHODS or getattr(request.state, "bearer", False):
        return
    expected = request.cookies.get(CSRF_COOKIE, "")
    given = request.headers.get(CSRF_HEADER, "")
    if not given and "form" in request.headers.get("content-type", ""):
        form = await request.form()  # cached on the request: the route's Form() reads it again
        value = form.get(CSRF_FIELD, "")
        given = value if isinstance(value, str) else ""
    secret: bytes = request.state.csrf_secret
    signed = bool(expected) and valid_csrf(secret, expected)
    if not signed or not given or not same_secret(given, expected):
        raise HTTPException(
            status_code=403,
            detail="missing or wrong CSRF token: reload the page and try again",
        )
