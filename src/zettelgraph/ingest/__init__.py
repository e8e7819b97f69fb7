"""Readers that turn user files (book notes, documents) into quotes and passages."""
