"""The fault-injection scenario of the graph extraction benchmark (`graph_extraction.py`):
synthetic passages ("A conoce a B en P durante E.") over a pool of people, places and events;
the scripted model that answers `extract_graph` from them and spoils each relationship with a
fault of each kind at a given rate (`FaultyExtractor`, counting what it injected); the people
stored beforehand; and the count of stored relationships the pack does not allow.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from typing import Any

from zettelgraph.context import Services
from zettelgraph.models import ChangeSet, Entity, NodeLabel, embedding_text, entity_id
from zettelgraph.packs.schema import PackSchema
from zettelgraph.store.base import GraphStore, every_node

FIRST = ["Ana", "Luis", "Teresa", "Diego", "Inés", "Martín", "Lucía", "Gabriel", "Rosa", "Tomás"]
LAST = ["Araceli", "Panza", "Quesada", "Moreno", "Ibarra", "Soler", "Vidal", "Cano"]
PLACES = [f"{kind} de {name}" for kind in ("Villa", "Puerto", "Sierra") for name in LAST]
EVENTS = [
    f"{kind} de {year}" for kind in ("Batalla", "Feria", "Boda") for year in range(1801, 1811)
]
PEOPLE = [f"{first} {last}" for last in LAST for first in FIRST]
FAULTS = {
    "invented_name": "unresolved_name",
    "wrong_endpoint_types": "wrong_endpoint_types",
    "unknown_relationship_type": "unknown_relationship_type",
    "missing_id": "unknown_id",
}
PASSAGE = re.compile(r"^\[q\d+\] (.+?)(?: \(p\. [^)]*\))?$", re.M)
KNOWN = re.compile(r"^\[(e\d+)\] (.+?) \((\w+)\)", re.M)
SENTENCE = re.compile(r"^(.+?) conoce a (.+?) en (.+?) durante (.+?)\.$")


def passages(count: int) -> list[str]:
    rng = random.Random(7)
    out = []
    for i in range(count):
        a, b = rng.sample(PEOPLE, 2)
        place, event = rng.choice(PLACES), rng.choice(EVENTS)
        out.append(f"{a} conoce a {b} en {place} durante {event}. (Pasaje {i + 1}.)")
    return out


class FaultyExtractor:
    """The scripted model: right answers from the passages, each relationship spoilt with
    probability `rate` per fault kind; it counts what it injected."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.injected: Counter[str] = Counter()
        self.relationship_calls = 0
        self.entity_calls = 0

    def __call__(self, prompt: str) -> dict[str, Any]:
        human = prompt.split("Source: ", 1)[-1]
        known = {name: short for short, name, _ in KNOWN.findall(human)}
        calls: list[dict[str, Any]] = []
        relationships: list[dict[str, Any]] = []
        for text in PASSAGE.findall(human):
            match = SENTENCE.match(text.split(" (Pasaje")[0])
            if match is None:
                continue
            a, b, place, event = match.groups()
            for name, kind in ((a, "Person"), (b, "Person"), (place, "Place"), (event, "Event")):
                if name not in known:
                    calls.append({"tool": "extract_entity", "args": {"name": name, "type": kind}})
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            rng = random.Random(seed)
            for source, rtype, target in (
                (a, "KNOWS", b),
                (a, "PARTICIPATED_IN", event),
                (event, "LOCATED_IN", place),
            ):
                args = self._ends(source, target, known)
                args["relationship_type"] = rtype
                self._spoil(args, rng, place)
                relationships.append({"tool": "extract_relationship", "args": args})
        self.entity_calls += len(calls)
        self.relationship_calls += len(relationships)
        return {"calls": calls + relationships}

    @staticmethod
    def _ends(source: str, target: str, known: dict[str, str]) -> dict[str, Any]:
        args: dict[str, Any] = {}
        for end, name in (("source", source), ("target", target)):
            if name in known:
                args[f"{end}_id"] = known[name]
            else:
                args[f"{end}_name"] = name
        return args

    def _spoil(self, args: dict[str, Any], rng: random.Random, place: str) -> None:
        draw = rng.random()
        kinds = list(FAULTS)
        index = int(draw // self.rate) if self.rate > 0 else len(kinds)
        if index >= len(kinds):
            return
        kind = kinds[index]
        self.injected[kind] += 1
        if kind == "invented_name":
            args.pop("target_id", None)
            args["target_name"] = f"Persona inventada {rng.randrange(10**6)}"
        elif kind == "wrong_endpoint_types":
            args.update(relationship_type="KNOWS", target_name=place)
            args.pop("target_id", None)
            args.pop("source_id", None)
            args.setdefault("source_name", rng.choice(PEOPLE))
        elif kind == "unknown_relationship_type":
            args["relationship_type"] = "ADMIRES_SECRETLY"
        else:
            args.pop("source_name", None)
            args["source_id"] = "e9999"


def broken_edges(store: GraphStore, schema: PackSchema) -> list[str]:
    """Stored relationships touching an entity whose endpoints are not two entities of types
    the pack allows together (reverses included)."""
    entities = {e.id: e for e in every_node(store, NodeLabel.ENTITY, Entity)}
    broken = []
    for relation in store.relations(None):
        source, target = entities.get(relation.source_id), entities.get(relation.target_id)
        if source is None and target is None:
            continue
        if source is None or target is None:
            broken.append(f"{relation.key}: an endpoint is not an entity")
        elif not schema.allows(relation.type, source.entity_type, target.entity_type):
            broken.append(f"{source.name} {relation.type} {target.name}")
    return broken


def add_people(services: Services, count: int) -> None:
    people = [
        Entity(id=entity_id("Person", name), name=name, entity_type="Person", pack="narrative")
        for name in PEOPLE[:count]
    ]
    if not people:
        return
    vectors = services.embedder.embed([embedding_text(p) for p in people])
    services.store.ensure_embedder(services.embedder.name, services.embedder.dim)
    services.store.apply(
        ChangeSet(entities=people, vectors={p.id: vectors[i] for i, p in enumerate(people)})
    )
