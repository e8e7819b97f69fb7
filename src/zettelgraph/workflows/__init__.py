"""LangGraph workflows: each has state.py, nodes.py, routes.py (when it branches) and graph.py."""
