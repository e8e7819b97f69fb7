"""Hybrid retrieval with citations: recipes, fusion, search."""
