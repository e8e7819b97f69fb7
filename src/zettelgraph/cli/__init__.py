"""The `zettelgraph` command line: one module per command group."""
