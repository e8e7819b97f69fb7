"""One provenance document, three formats: PROV-N from the `prov` package, JSON-LD and Turtle
from an rdflib graph of PROV-O triples.

The PROV-O graph is written here rather than by `prov`'s own RDF serializer for two reasons.
`prov` writes a relation that carries more than its two ends (a derivation with its activity,
a usage with its time) only in the qualified form (`prov:qualifiedDerivation [...]`), so a
plain SPARQL `?concept prov:wasDerivedFrom ?quote` misses it; PROV-O allows, and readers
expect, the direct triple beside the qualified node, and this writer always gives both. And
it is about ten times faster on a large graph. Apart from those direct triples the output is
the same graph `prov` writes (`tests/unit/test_provenance.py` checks that they are
isomorphic), so the PROV-O mapping stays the package's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from prov.constants import PROV as PROV_NS
from prov.constants import (
    PROV_ASSOCIATION,
    PROV_ATTR_ACTIVITY,
    PROV_ATTR_ENDTIME,
    PROV_ATTR_GENERATION,
    PROV_ATTR_PLAN,
    PROV_ATTR_STARTTIME,
    PROV_ATTR_TIME,
    PROV_ATTR_USAGE,
    PROV_ATTRIBUTION,
    PROV_COMMUNICATION,
    PROV_DELEGATION,
    PROV_DERIVATION,
    PROV_GENERATION,
    PROV_INFLUENCE,
    PROV_INVALIDATION,
    PROV_LABEL,
    PROV_LOCATION,
    PROV_ROLE,
    PROV_TYPE,
    PROV_USAGE,
)
from prov.identifier import QualifiedName
from prov.model import ProvDocument
from prov.serializers.provrdf import ProvRDFSerializer
from rdflib import RDF, RDFS, XSD, BNode, Graph, Namespace, URIRef
from rdflib.term import Node

from zettelgraph.provenance import FORMATS
from zettelgraph.provenance.writers import json_ld, turtle

PROV = Namespace("http://www.w3.org/ns/prov#")
PROV_REVISION = PROV_NS["Revision"]
PROV_QUOTATION = PROV_NS["Quotation"]
PROV_PRIMARY_SOURCE = PROV_NS["PrimarySource"]


@dataclass(frozen=True)
class _Relation:
    """How PROV-O writes one PROV relation: the direct property, and for the qualified form
    its property, the property naming the influencer, and the other attributes' properties."""

    direct: str
    qualified: str
    influencer: str
    attributes: dict[QualifiedName, str]


_TIMED = {PROV_ATTR_TIME: "atTime"}
_RELATIONS: dict[QualifiedName, _Relation] = {
    PROV_GENERATION: _Relation("wasGeneratedBy", "qualifiedGeneration", "activity", _TIMED),
    PROV_USAGE: _Relation("used", "qualifiedUsage", "entity", _TIMED),
    PROV_DERIVATION: _Relation(
        "wasDerivedFrom",
        "qualifiedDerivation",
        "entity",
        {
            PROV_ATTR_ACTIVITY: "hadActivity",
            PROV_ATTR_GENERATION: "hadGeneration",
            PROV_ATTR_USAGE: "hadUsage",
        },
    ),
    PROV_ASSOCIATION: _Relation(
        "wasAssociatedWith", "qualifiedAssociation", "agent", {PROV_ATTR_PLAN: "hadPlan"}
    ),
    PROV_ATTRIBUTION: _Relation("wasAttributedTo", "qualifiedAttribution", "agent", {}),
    PROV_COMMUNICATION: _Relation("wasInformedBy", "qualifiedCommunication", "activity", {}),
    PROV_DELEGATION: _Relation(
        "actedOnBehalfOf", "qualifiedDelegation", "agent", {PROV_ATTR_ACTIVITY: "hadActivity"}
    ),
    PROV_INFLUENCE: _Relation("wasInfluencedBy", "qualifiedInfluence", "influencer", {}),
    PROV_INVALIDATION: _Relation("wasInvalidatedBy", "qualifiedInvalidation", "activity", _TIMED),
}
# A derivation typed as one of these is written with its own properties (a revision is
# `prov:wasRevisionOf`, qualified by a `prov:Revision` node), as PROV-O and `prov` write it.
_DERIVATION_KINDS: dict[QualifiedName, tuple[str, str]] = {
    PROV_REVISION: ("wasRevisionOf", "qualifiedRevision"),
    PROV_QUOTATION: ("wasQuotedFrom", "qualifiedQuotation"),
    PROV_PRIMARY_SOURCE: ("hadPrimarySource", "qualifiedPrimarySource"),
}
_ELEMENT_PREDICATES: dict[QualifiedName, URIRef] = {
    PROV_TYPE: RDF.type,
    PROV_LABEL: RDFS.label,
    PROV_ATTR_STARTTIME: PROV.startedAtTime,
    PROV_ATTR_ENDTIME: PROV.endedAtTime,
    PROV_LOCATION: PROV.atLocation,
}
_QUALIFIER_PREDICATES: dict[QualifiedName, URIRef] = {
    PROV_TYPE: RDF.type,
    PROV_LABEL: RDFS.label,
    PROV_ROLE: PROV.hadRole,
}


Triple = tuple[Node, Node, Node]


def prefixes(document: ProvDocument) -> dict[str, str]:
    """prefix -> namespace IRI: PROV-O's own and the document's."""
    found = {"prov": str(PROV), "rdfs": str(RDFS), "xsd": str(XSD)}
    found.update({ns.prefix: ns.uri for ns in document.get_registered_namespaces()})
    return found


def triples(document: ProvDocument) -> Iterator[Triple]:
    """The document as PROV-O triples: every relation as its direct property, plus the
    qualified node when it carries a time, an activity, a plan or other attributes."""
    # prov's own literal encoding (datetimes, ints by size, doubles at full precision).
    literal = ProvRDFSerializer(document).encode_rdf_representation
    iris: dict[QualifiedName, URIRef] = {}

    def iri(name: QualifiedName) -> URIRef:
        found = iris.get(name)
        if found is None:
            found = iris[name] = URIRef(name.uri)
        return found

    def term(value: Any) -> Node:
        return iri(value) if isinstance(value, QualifiedName) else literal(value)

    for record in document.get_records():
        kind = record.get_type()
        if record.is_element():
            subject = iri(record.identifier)  # type: ignore[arg-type]
            yield subject, RDF.type, iri(kind)
            for name, value in record.attributes:
                yield subject, _ELEMENT_PREDICATES.get(name) or iri(name), term(value)
            continue
        shape = _RELATIONS.get(kind)
        if shape is None:
            raise ValueError(f"PROV relation {kind} is not part of zettelgraph's export")
        formal = record.formal_attributes
        (_, first), (_, second) = formal[0], formal[1]
        if first is None or second is None:
            raise ValueError(f"{kind} needs both of its ends in zettelgraph's export")
        subject, influencer = iri(first), iri(second)
        direct, qualified = shape.direct, shape.qualified
        extra = list(record.extra_attributes)
        subtype = next((v for n, v in extra if n == PROV_TYPE and v in _DERIVATION_KINDS), None)
        if kind == PROV_DERIVATION and subtype is not None:
            direct, qualified = _DERIVATION_KINDS[subtype]
            extra.remove((PROV_TYPE, subtype))
            kind = subtype
        yield subject, PROV[direct], influencer
        rest = [(n, v) for n, v in formal[2:] if v is not None] + extra
        if not rest and kind == record.get_type():
            continue
        node = BNode()
        yield subject, PROV[qualified], node
        yield node, RDF.type, iri(kind)
        yield node, PROV[shape.influencer], influencer
        for name, value in rest:
            where = shape.attributes.get(name)
            predicate = PROV[where] if where else _QUALIFIER_PREDICATES.get(name, iri(name))
            yield node, predicate, term(value)


def prov_o(document: ProvDocument) -> Graph:
    """The document as an rdflib graph of PROV-O triples (for SPARQL, or rdflib's writers)."""
    graph = Graph()
    for prefix, uri in prefixes(document).items():
        graph.bind(prefix, uri)
    graph.addN((s, p, o, graph) for s, p, o in triples(document))
    return graph


def serialize(document: ProvDocument, fmt: str) -> str:
    """The document as `fmt` (a key of FORMATS)."""
    if fmt == "provn":
        return str(document.get_provn()) + "\n"
    if fmt == "turtle":
        return turtle(prefixes(document), triples(document))
    if fmt == "jsonld":
        return json_ld(prefixes(document), triples(document))
    raise ValueError(f"unknown provenance format {fmt!r}; choose one of: {', '.join(FORMATS)}")
