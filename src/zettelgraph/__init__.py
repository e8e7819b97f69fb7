"""zettelgraph: turn what you read into a knowledge graph of cited, atomic ideas."""

__version__ = "0.1.0"
