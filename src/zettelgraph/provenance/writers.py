"""Turtle and JSON-LD text from RDF triples, fast on large graphs.

rdflib's own writers take about a minute for the provenance of 10,000 concepts: its Turtle
writer searches a namespace trie for every IRI (and each identifier beginning with a digit,
as half the node ids do, adds a namespace to that trie), and its JSON-LD writer compacts term
by term. These writers know the export's namespaces and write each subject's triples as one
block: Turtle with prefixed names where the Turtle grammar allows them and full IRIs
elsewhere, JSON-LD as a flat `@graph` with its `@context` inline (so it parses offline).
`tests/unit/test_provenance.py` reads both back with rdflib and compares them with the triples
they were written from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from rdflib import RDF, XSD, BNode, Literal, URIRef
from rdflib.term import Node

Grouped = dict[Node, dict[Node, dict[Node, None]]]

# A Turtle prefixed name's local part that needs no escape: word characters, "." and "-"
# inside, never "." at the end.
_PLAIN_LOCAL = re.compile(r"^\w(?:[\w.-]*[\w-])?$")
# Characters an IRI in <...> or a string in "..." may not hold as they are.
_IRI_UNSAFE = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_STRING_UNSAFE = re.compile(r'[\x00-\x1f"\\\x7f]')
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _group(triples: Iterable[tuple[Node, Node, Node]]) -> Grouped:
    """subject -> predicate -> objects, each once, in the order first seen."""
    grouped: Grouped = {}
    for s, p, o in triples:
        grouped.setdefault(s, {}).setdefault(p, {})[o] = None
    return grouped


class _Names:
    """Prefixed names for IRIs under the known namespaces (cached: an IRI recurs)."""

    def __init__(self, prefixes: Mapping[str, str]) -> None:
        # Longest namespace first, so `urn:zettelgraph:concept/` wins over `urn:zettelgraph:`.
        self._namespaces = sorted(prefixes.items(), key=lambda item: -len(item[1]))
        self._cache: dict[str, tuple[str, str] | None] = {}

    def split(self, iri: str) -> tuple[str, str] | None:
        """(prefix, local) of `iri`, or None when no namespace holds it."""
        if iri not in self._cache:
            found = next(((p, ns) for p, ns in self._namespaces if iri.startswith(ns)), None)
            self._cache[iri] = (found[0], iri[len(found[1]) :]) if found else None
        return self._cache[iri]


def _escape(pattern: re.Pattern[str], text: str) -> str:
    return pattern.sub(lambda m: _ESCAPES.get(m.group(), f"\\u{ord(m.group()):04X}"), text)


def turtle(prefixes: Mapping[str, str], triples: Iterable[tuple[Node, Node, Node]]) -> str:
    """The triples as Turtle: the prefixes, then one block per subject."""
    names = _Names(prefixes)

    def iri(node: URIRef) -> str:
        parts = names.split(str(node))
        if parts is not None and (parts[1] == "" or _PLAIN_LOCAL.match(parts[1])):
            return f"{parts[0]}:{parts[1]}"
        return f"<{_escape(_IRI_UNSAFE, str(node))}>"

    def term(node: Node) -> str:
        if isinstance(node, URIRef):
            return iri(node)
        if isinstance(node, BNode):
            return f"_:{node}"
        if isinstance(node, Literal):
            text = f'"{_escape(_STRING_UNSAFE, str(node))}"'
            if node.language:
                return f"{text}@{node.language}"
            if node.datatype is not None and node.datatype != XSD.string:
                return f"{text}^^{iri(node.datatype)}"
            return text
        raise TypeError(f"not an RDF term: {node!r}")

    out = [f"@prefix {prefix}: <{namespace}> ." for prefix, namespace in prefixes.items()]
    out.append("")
    for subject, predicates in _group(triples).items():
        lines = [
            ("a" if predicate == RDF.type else term(predicate))
            + " "
            + ", ".join(term(o) for o in objects)
            for predicate, objects in predicates.items()
        ]
        out.append(f"{term(subject)} " + " ;\n    ".join(lines) + " .\n")
    return "\n".join(out)


def json_ld(prefixes: Mapping[str, str], triples: Iterable[tuple[Node, Node, Node]]) -> str:
    """The triples as JSON-LD: the prefixes as `@context`, one node object per subject."""
    names = _Names(prefixes)

    def iri(node: Node) -> str:
        if isinstance(node, BNode):
            return f"_:{node}"
        parts = names.split(str(node))
        # A compact IRI whose local part starts with "//" would be read as an IRI.
        if parts is not None and not parts[1].startswith("//"):
            return f"{parts[0]}:{parts[1]}"
        return str(node)

    def value(node: Node) -> Any:
        if isinstance(node, URIRef | BNode):
            return {"@id": iri(node)}
        if isinstance(node, Literal):
            if node.language:
                return {"@value": str(node), "@language": node.language}
            if node.datatype is not None and node.datatype != XSD.string:
                return {"@value": str(node), "@type": iri(node.datatype)}
            return str(node)
        raise TypeError(f"not an RDF term: {node!r}")

    # One node object per line: json's C encoder writes each (its indenting encoder is pure
    # Python, several times slower), no node waits in memory as a dict for the others, and
    # the file still reads and diffs node by node.
    lines: list[str] = []
    for subject, predicates in _group(triples).items():
        node: dict[str, Any] = {"@id": iri(subject)}
        for predicate, objects in predicates.items():
            if predicate == RDF.type:
                node["@type"] = [iri(o) for o in objects]
            else:
                node[iri(predicate)] = [value(o) for o in objects]
        lines.append(json.dumps(node, ensure_ascii=False))
    context = json.dumps(dict(prefixes), ensure_ascii=False, indent=1)
    nodes = ",\n".join(lines)
    return f'{{"@context": {context},\n"@graph": [\n{nodes}\n]}}\n'
