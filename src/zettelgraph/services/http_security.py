"""Who may use an HTTP server of zettelgraph, and protection against cross-site requests: the
rules the web app (`web/security.py`) and the MCP server over HTTP (`mcp_server/server.py`)
both apply, each in its own framework.

- Without `ZETTELGRAPH_WEB_TOKEN` a server listens on the loopback address only
  (`check_bind`), and answers only requests whose Host header is a loopback name
  (`loopback_host`), so a web page on another site cannot reach it through DNS rebinding.
- With a token, it listens anywhere, and every request must carry it (`has_bearer`, or the
  web app's cookie); a short or repetitive token is refused before anything listens.
- A browser's request from another site or port is refused (`cross_origin`): its
  `Sec-Fetch-Site` says `cross-site` or `same-site` (another port of this host is the same
  site), or its Origin (or, without one, Referer) names another origin.
- The web app's browser sessions and CSRF tokens are signed with the installation's secret
  (`services/web_secret.py`): a session is a random value and its signature (`new_session`,
  `valid_session`), a CSRF token the signature of one session (`csrf_token`), so no value a
  page chose passes, a token copied into another browser is refused, and both survive a
  restart.

Secrets are compared in constant time (`same_secret`). Nothing here reads a request object:
headers come in as text, so the rules do not depend on the web framework.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
from collections.abc import Mapping
from urllib.parse import urlsplit

# A token guessable in a few million tries is no lock for a server open to a network.
MIN_TOKEN_LENGTH = 16
# ... and of some variety: sixteen times the same character is no secret.
MIN_TOKEN_KINDS = 8
# A Host header is a name or an address in brackets, then an optional port: nothing after.
_HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9.-]+))(?::\d{1,5})?")


class WebConfigError(ValueError):
    """The app cannot be served as asked; the message says what to change."""


def is_loopback(host: str) -> bool:
    """Whether a host a server listens on or is reached at is this machine only.

    Args:
        host: a host name or IP address, an IPv6 one with or without brackets (`[::1]`).

    Returns:
        True for `localhost` and loopback addresses (127.0.0.0/8, ::1), False for anything else.
    """
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond this machine without a token, or with a short one.

    Args:
        host: the address the server is to listen on.
        token: the server's bearer token (ZETTELGRAPH_WEB_TOKEN), or None when unset.

    Raises:
        WebConfigError: `host` is not a loopback address and the token is missing, or shorter or
            less varied than `MIN_TOKEN_LENGTH` and `MIN_TOKEN_KINDS` require.
    """
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
    (`[::1].evil` is not `[::1]`, nor is `127.0.0.1:8000@evil.com` 127.0.0.1).

    Args:
        header: the Host header's value, as the client sent it.

    Returns:
        The name or IP (an IPv6 address without its brackets), or None.
    """
    match = _HOST.fullmatch(header)
    if match is None:
        return None
    return match.group("v6") or match.group("name")


def loopback_host(header: str) -> bool:
    """Whether a Host header is exactly a loopback `name[:port]`: what a server without a
    token answers.

    Args:
        header: the Host header's value, as the client sent it.

    Returns:
        True only for a well-formed loopback host.
    """
    name = host_name(header)
    return name is not None and is_loopback(name)


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison of two secrets as bytes: any text a client sends (non-ASCII
    included) is a wrong token, never a server error.

    Args:
        given: the secret the client sent.
        expected: the server's secret.

    Returns:
        True when the two are the same text.
    """
    return hmac.compare_digest(
        given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass")
    )


def has_bearer(authorization: str, token: str) -> bool:
    """Whether an Authorization header is `Bearer TOKEN` with this server's token.

    Args:
        authorization: the Authorization header's value ("" when absent).
        token: the server's token.

    Returns:
        True when the header carries the token.
    """
    return authorization.startswith("Bearer ") and same_secret(authorization[7:], token)


def cross_origin(headers: Mapping[str, str]) -> bool:
    """Whether a browser says the request comes from another origin (site or port) than the
    server's own; a request that says nothing (a script) is not.

    Args:
        headers: the request's headers, names in lower case (`sec-fetch-site`, `origin`, `referer`,
            `host`).

    Returns:
        True when `Sec-Fetch-Site` says cross-site or same-site, the Origin is `null`, or the Origin
        (else the Referer) names another host and port than the Host header.
    """
    if headers.get("sec-fetch-site") in ("cross-site", "same-site"):
        return True
    source = headers.get("origin") or headers.get("referer")
    if not source or source == "null":
        return source == "null"
    parts = urlsplit(source)
    return parts.netloc.lower() != (headers.get("host") or "").lower()


def _signature(secret: bytes, purpose: str, value: str) -> str:
    # The purpose keeps a session's signature from passing as its CSRF token, and back.
    message = f"{purpose}\0{value}".encode("utf-8", "surrogatepass")
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]


def new_session(secret: bytes) -> str:
    """A new browser session: a random value and the installation's signature of it.

    Args:
        secret: the installation's secret (`web_secret`).

    Returns:
        The session cookie's value, `VALUE.SIGNATURE`.
    """
    value = secrets.token_urlsafe(24)
    return f"{value}.{_signature(secret, 'session', value)}"


def valid_session(secret: bytes, session: str) -> bool:
    """Whether `session` is one this installation made (not a value some page chose).

    Args:
        secret: the installation's secret.
        session: the session cookie's value, as the browser sent it.

    Returns:
        True when its signature is this installation's.
    """
    value, dot, signature = session.rpartition(".")
    return bool(value and dot) and same_secret(signature, _signature(secret, "session", value))


def csrf_token(secret: bytes, session: str) -> str:
    """The CSRF token of one browser session.

    Args:
        secret: the installation's secret.
        session: the session cookie's value.

    Returns:
        The token the session's forms must send back (32 hex digits).
    """
    return _signature(secret, "csrf", session)
