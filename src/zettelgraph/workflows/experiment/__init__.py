"""Experiments over the reader's contents: analyse, recommend, review, execute, synthesise."""
