"""W3C PROV provenance of everything zettelgraph produces, as one model in three formats.

- `scope`: what an export covers (a concept, a run, everything) read from the store;
- `build`: the graph's nodes as PROV entities, activities and agents in a `prov` document;
- `experiments`: an experiment's record (its calls, review, tool runs and report) likewise;
- `document`: a selection (and an experiment) -> one `prov.model.ProvDocument`;
- `formats`: that document as PROV-N, JSON-LD or Turtle.

The mapping and why it is so: docs/design.md, "Provenance (W3C PROV)". This module stays
light (no `prov`, no `rdflib`) so the command line can name the formats without loading them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Format:
    """An export format: its name on the command line, media type and file suffix."""

    name: str
    media_type: str
    suffix: str


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("jsonld", "application/ld+json", ".jsonld"),
        Format("turtle", "text/turtle", ".ttl"),
        Format("provn", "text/provenance-notation", ".provn"),
    )
}
