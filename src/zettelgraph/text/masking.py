"""Secrets kept out of what is shown: a store or checkpoint URL's password, in settings
listings and in the errors that name the URL."""

from __future__ import annotations


def mask_url_password(url: str) -> str:
    """Hide the password of `scheme://user:password@host` URLs."""
    if "://" not in url or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    if ":" in credentials:
        user = credentials.split(":", 1)[0]
        return f"{scheme}://{user}:********@{host}"
    return url
