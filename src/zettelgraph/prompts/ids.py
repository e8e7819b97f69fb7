"""Short local ids for prompts (`q3`, `c2`, `e7`), mapped back to UUIDs in code.

Models copy short ids far more reliably than UUIDs, and they cost fewer tokens. An id the model
invents resolves to nothing and is dropped by the caller with a warning.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, Field, create_model

M = TypeVar("M", bound=BaseModel)

QUOTE_ID = r"^q[0-9]+$"
CONCEPT_ID = r"^c[0-9]+$"  # a concept proposed in this run
EXISTING_ID = r"^e[0-9]+$"  # a concept already in the graph
ANY_CONCEPT_ID = r"^[ce][0-9]+$"


class LocalIds:
    """A two-way map between one prefix's short ids and real ids, in first-seen order."""

    def __init__(self, prefix: str, real_ids: Iterable[str] = ()) -> None:
        self.prefix = prefix
        self._to_real: dict[str, str] = {}
        self._to_local: dict[str, str] = {}
        for real in real_ids:
            self.local(real)

    def local(self, real: str) -> str:
        if real not in self._to_local:
            short = f"{self.prefix}{len(self._to_local) + 1}"
            self._to_local[real] = short
            self._to_real[short] = real
        return self._to_local[real]

    def real(self, short: str) -> str | None:
        return self._to_real.get(short.strip())

    def reals(self) -> list[str]:
        """Every real id, in the order the short ids were given out."""
        return list(self._to_local)

    def __contains__(self, short: object) -> bool:
        return isinstance(short, str) and short.strip() in self._to_real


QuoteRef = Annotated[str, Field(pattern=QUOTE_ID, max_length=8)]
ConceptRef = Annotated[str, Field(pattern=CONCEPT_ID, max_length=8)]
ExistingRef = Annotated[str, Field(pattern=EXISTING_ID, max_length=8)]
AnyConceptRef = Annotated[str, Field(pattern=ANY_CONCEPT_ID, max_length=8)]


def relation_types(types: Iterable[str]) -> Any:
    """The relation types as a `Literal`, so constrained decoding can only write one of them.

    Built at call time from the vocabulary in use (the active packs), in its order."""
    names = tuple(types)
    if not names:
        raise ValueError("no relation types to offer: the active packs define none here")
    return Literal.__getitem__(names)


def narrowed(model: type[M], field: str, annotation: Any) -> type[M]:
    """`model` with `field` of type `annotation`, the rest as it is.

    A subclass of the same name, so code that reads `model` reads it too and the JSON schema
    the model is asked for says the same with the same names. Cached: the same vocabulary
    gives the same class."""
    changed: type[M] = _narrowed(model, field, annotation)
    return changed


@functools.cache
def _narrowed(model: type[BaseModel], field: str, annotation: Any) -> Any:
    return create_model(  # type: ignore[call-overload]
        model.__name__,
        __base__=model,
        __module__=model.__module__,
        __doc__=model.__doc__,
        **{field: (annotation, model.model_fields[field])},
    )
