"""The local web app: `zettelgraph serve` (the app factory is `web.app.create_app`)."""
