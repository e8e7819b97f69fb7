"""Experiments over the reader's contents: the tool registry and its data."""
