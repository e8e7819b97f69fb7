"""A small graph of communities for the graph page's overview (store contract and web
tests): three groups of concepts related among themselves (a clique of 5 around "Virtud", a
clique of 4 around "Tiempo", a triangle around "Ciudad"), one relation between the first two
groups and one between the last two, and two concepts related to nothing. With the budget
lowered to 5 nodes, its 14 concepts do not fit.
"""

from __future__ import annotations

from zettelgraph.models import ChangeSet, Concept, Relation, stable_id
from zettelgraph.store import GraphStore
from zettelgraph.text.normalize import normalize_name

VIRTUE = ["Virtud", "Prudencia", "Justicia", "Templanza", "Fortaleza"]
TIME = ["Tiempo", "Memoria", "Olvido", "Instante"]
CITY = ["Ciudad", "Plaza", "Calle"]
ALONE = ["Azar", "Silencio"]
EVERY = [*VIRTUE, *TIME, *CITY, *ALONE]


def concept(title: str) -> Concept:
    return Concept(
        id=stable_id("concept", normalize_name(title)), title=title, concept=f"{title}: una idea."
    )


def cid(title: str) -> str:
    """The id of the concept of this title."""
    return concept(title).id


def related(source: str, target: str, relation_type: str = "SIMILAR_TO") -> Relation:
    return Relation(source_id=cid(source), type=relation_type, target_id=cid(target))


def clique(titles: list[str]) -> list[Relation]:
    return [related(a, b) for i, a in enumerate(titles) for b in titles[i + 1 :]]


def write_communities(store: GraphStore) -> None:
    """The graph, written to `store`."""
    relations = [*clique(VIRTUE), *clique(TIME), *clique(CITY)]
    relations += [related("Fortaleza", "Instante"), related("Olvido", "Calle", "GENERALIZES")]
    store.apply(ChangeSet(concepts=[concept(t) for t in EVERY], relations=relations))
