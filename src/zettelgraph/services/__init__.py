"""The application services: the floor the CLI and the web app call, and nothing below calls.

Each module owns one thing a reader does (extraction runs, ingest, reindex, browse, ask) and the
rules that go with it; `workflows/` keeps only the LangGraph graphs and their context.
"""
