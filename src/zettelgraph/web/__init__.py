"""The local web app: `zettelgraph serve`."""

from zettelgraph.web.app import create_app

__all__ = ["create_app"]
