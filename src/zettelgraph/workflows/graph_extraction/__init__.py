"""Graph Extraction: a template pack's entities and relationships from a content's passages,
resolved with strict referential integrity, reviewed, committed."""
