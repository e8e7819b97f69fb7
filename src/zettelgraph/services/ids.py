"""The one reading of an id a reader gives: the whole id, or a unique prefix of it.

Listings print ids cut short (`dbba9aa6`, `run-ab66...`), so every place that takes an id
(the CLI, the web's URLs, the JSON API, the MCP tools) takes the first characters of one,
through this module: at least MIN_PREFIX characters, not counting the kind prefix that some
ids start with (`run-`, `graph-`, `exp-`), which may be left out (`review eb06` is
`review run-eb06...`). A prefix that names several ids is refused with them listed, and one
that names none with the command that lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from zettelgraph.models import NodeLabel

if TYPE_CHECKING:
    from zettelgraph.store.base import GraphStore

# Shorter prefixes would name several ids too often to be worth typing.
MIN_PREFIX = 4
# Candidates listed when a prefix names several ids.
SHOWN = 5


class IdError(ValueError):
    """An id that names no known id, or several."""


class UnknownIdError(IdError):
    """No id of that kind starts so."""


class AmbiguousIdError(IdError):
    """Several ids of that kind start so; `candidates` are (up to SHOWN of) them."""

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


@dataclass(frozen=True)
class IdKind:
    """What an id names, in the reader's words: `noun` ("run"), the command that lists such
    ids, and the kind prefixes its ids start with (`run-`), which a reader may leave out."""

    noun: str
    listing: str
    prefixes: tuple[str, ...] = ()

    def body(self, given: str) -> tuple[str, str]:
        """(kind prefix, the rest) of an id or of a prefix of one.

        Args:
            given: an id or the start of one, as the reader typed it.

        Returns:
            The kind prefix it starts with ("" when none of `prefixes`) and the rest of it.
        """
        for prefix in self.prefixes:
            if given.startswith(prefix):
                return prefix, given.removeprefix(prefix)
        return "", given


CONTENT = IdKind("content", "zettelgraph contents")
CONCEPT = IdKind("concept", "zettelgraph concepts")
CARD = IdKind("card", "zettelgraph cards list")
ENTITY = IdKind("entity", "the web app's /entities")
PASSAGE = IdKind("passage", "zettelgraph show CONTENT_ID")

NODE_KINDS = {
    NodeLabel.CONTENT: CONTENT,
    NodeLabel.CONCEPT: CONCEPT,
    NodeLabel.LEARNING_ITEM: CARD,
    NodeLabel.ENTITY: ENTITY,
    NodeLabel.QUOTE: PASSAGE,
}


def resolve_id(given: str, kind: IdKind, known: Iterable[str]) -> str:
    """The one id among `known` that `given` is, or starts (see the module docstring).

    Args:
        given: what the reader typed: an id or its first `MIN_PREFIX` characters or more, with or
            without the kind prefix; spaces around it are ignored.
        kind: what the ids name, for the message and the prefixes a reader may leave out.
        known: every id of that kind.

    Returns:
        The whole id.

    Raises:
        UnknownIdError: `given` is blank, too short, or starts no id.
        AmbiguousIdError: `given` starts several ids (`candidates` lists some).
    """
    text = given.strip()
    ids = list(known)
    if text in ids:
        return text
    return _pick(text, kind, [k for k in ids if _starts(k, text, kind)])


def resolve_node_id(
    store: GraphStore, label: NodeLabel, given: str, *, listing: str | None = None
) -> str:
    """The one node of `label` that `given` names (its id or a unique prefix), read page-wise
    from the store by id order: a prefix's matches are the first ids after it. `listing`:
    what lists such ids where the caller is (an MCP tool), when not the CLI command.

    Args:
        store: the graph store to read.
        label: the kind of node (content, concept, card, entity, passage).
        given: what the reader typed: a whole id, or its first `MIN_PREFIX` characters or more;
            spaces around it are ignored.
        listing: the command or page named in the error as where to find the ids; None (the default)
            names the CLI command.

    Returns:
        The node's whole id.

    Raises:
        UnknownIdError: `given` is blank, too short, or names no node.
        AmbiguousIdError: `given` starts several ids.
    """
    text = given.strip()
    if text and _exists(store, label, text):
        return text
    found: list[str] = []
    if len(text) >= MIN_PREFIX:
        page = store.nodes(label, after=text, limit=SHOWN + 1)
        found = [node.id for node in page if node.id.startswith(text)]
    kind = NODE_KINDS[label]
    return _pick(text, replace(kind, listing=listing) if listing else kind, found)


def _exists(store: GraphStore, label: NodeLabel, node_id: str) -> bool:
    by_label: dict[NodeLabel, Callable[[str], object]] = {
        NodeLabel.CONTENT: store.get_content,
        NodeLabel.CONCEPT: store.get_concept,
        NodeLabel.LEARNING_ITEM: lambda i: store.get_learning_items([i]),
        NodeLabel.ENTITY: lambda i: store.get_entities([i]),
        NodeLabel.QUOTE: lambda i: store.get_quotes([i]),
    }
    return bool(by_label[label](node_id))


def _starts(known: str, given: str, kind: IdKind) -> bool:
    """Whether `known` starts with `given`, a kind prefix (`run-`) given or not."""
    prefix, body = kind.body(given)
    known_prefix, known_body = kind.body(known)
    return known_body.startswith(body) and prefix in ("", known_prefix)


def _pick(given: str, kind: IdKind, matches: list[str]) -> str:
    listing = f"`{kind.listing}` lists them"
    if not given:
        raise UnknownIdError(f"give a {kind.noun} id; {listing}")
    if len(kind.body(given)[1]) < MIN_PREFIX:
        raise UnknownIdError(
            f"no {kind.noun} with id {given!r}: give the id, or at least its first "
            f"{MIN_PREFIX} characters; {listing}"
        )
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UnknownIdError(f"no {kind.noun} with id {given!r}; {listing}")
    shown = sorted(matches)[:SHOWN]
    more = ", ..." if len(matches) > SHOWN else ""
    raise AmbiguousIdError(
        f"{given!r} is the start of several {kind.noun} ids ({', '.join(shown)}{more}); "
        "give more characters of the one you mean",
        shown,
    )
