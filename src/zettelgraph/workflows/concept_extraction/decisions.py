"""The reader's item-by-item decisions on a run's proposal: what each decision means, checked
against the proposal before it is saved, so a saved review is always one that approving can
write.

Items are named by their key in the review: concepts c1, c2 ...; relations r1 ...; untyped
"related?" suggestions s1 ...; relations the reader added a1 ...; quotes q1 ... (in reading
order) or by id. A concept can be kept, dropped, edited (title, statement, analysis), merged
into another concept of the run or into an existing one, and have a quote moved to another
concept or taken off; a relation kept, dropped or given another type (which is how a
suggestion becomes a relation); a relation added between two concepts. `undecide` takes a
decision back. Until one is made an item follows its doubt: kept unless doubtful.

`kept.py` turns a proposal and its review into what approving writes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from zettelgraph.guards.relations import contradictory_pairs
from zettelgraph.packs.relations import RelationVocabulary
from zettelgraph.text.normalize import normalize_name
from zettelgraph.workflows.concept_extraction.kept import is_doubtful, kept_relations
from zettelgraph.workflows.concept_extraction.proposal import number_of, with_keys
from zettelgraph.workflows.concept_extraction.state import (
    Doubt,
    Proposal,
    Review,
    empty_review,
)
from zettelgraph.workflows.review import DecisionError, ItemDecision, logged


def quote_keys(quote_ids: Sequence[str]) -> dict[str, str]:
    """q1, q2 ... -> quote id, in reading order (the numbering the review shows)."""
    return {f"q{i}": quote_id for i, quote_id in enumerate(quote_ids, 1)}


class Decider:
    """Records decisions on one proposal into a copy of its review, refusing what does not fit.

    `existing_title` gives an existing concept's title by id (None: no such concept), for a
    merge into one or a relation to one.
    """

    def __init__(
        self,
        proposal: Proposal,
        review: Review | None,
        *,
        quote_ids: Sequence[str],
        vocabulary: RelationVocabulary,
        existing_title: Callable[[str], str | None],
        doubts: Mapping[str, Doubt] | None = None,
        now: str,
    ) -> None:
        self.proposal = with_keys(proposal)
        self.review: Review = copy.deepcopy(review) if review else empty_review()
        self.quotes = quote_keys(quote_ids)
        self.vocabulary = vocabulary
        self.existing_title = existing_title
        self.doubts = doubts or {}
        self.now = now
        self.concepts = {c["key"]: c for c in self.proposal["concepts"]}
        self.relations: dict[str, Mapping[str, Any]] = {
            r["key"]: r for r in self.proposal["relations"] if "key" in r
        }
        self.related = {s["key"]: s for s in self.proposal.get("related", [])}
        # Quotes the model attributed to existing concepts, e1 ...: kept or dropped.
        self.attributions = {f"e{i}": a for i, a in enumerate(self.proposal["attributions"], 1)}

    # --- the one entry point ------------------------------------------------------------
    def apply(self, decisions: Iterable[ItemDecision]) -> Review:
        """The review with `decisions` applied in order; DecisionError at the first that
        does not fit (none of them is then saved)."""
        for decision in decisions:
            handler = getattr(self, f"_{decision.action}")
            handler(decision)
            self._log(decision)
        return self.review

    # --- concepts and relations alike ---------------------------------------------------
    def _keep(self, d: ItemDecision) -> None:
        if d.item in self.concepts:
            self._set_concept(d.item, "keep")
        elif d.item in self.related:
            raise DecisionError(
                f"{d.item} is an untyped 'related?' suggestion: give it a type to keep it "
                f"({d.item}={self._example_type()}), or leave it"
            )
        else:
            self._set_relation(d.item, "keep")

    def _drop(self, d: ItemDecision) -> None:
        if d.item in self.concepts:
            self._set_concept(d.item, "drop")
            return
        if d.item in self.related:
            self.review["relations"][d.item] = {"verdict": "drop", "at": self.now}
            return
        if any(a["key"] == d.item for a in self.review["added"]):
            self.review["added"] = [a for a in self.review["added"] if a["key"] != d.item]
            return
        self._set_relation(d.item, "drop")

    def _undecide(self, d: ItemDecision) -> None:
        if d.item in self.concepts:
            self.review["concepts"].pop(d.item, None)
            self.review["quotes"].pop(d.item, None)
            return
        if any(a["key"] == d.item for a in self.review["added"]):
            self.review["added"] = [a for a in self.review["added"] if a["key"] != d.item]
            return
        if d.item not in self.related:
            self._relation_item(d.item)
        self.review["relations"].pop(d.item, None)

    # --- concepts -----------------------------------------------------------------------
    def _edit(self, d: ItemDecision) -> None:
        self._concept_item(d.item)
        fields = {
            name: value
            for name, value in (
                ("title", d.title),
                ("concept", d.concept),
                ("analysis", d.analysis),
            )
            if value is not None
        }
        if not fields:
            raise DecisionError(f"edit {d.item}: give a new title, statement or analysis")
        for name in ("title", "concept"):
            if name in fields and not fields[name]:
                what = "title" if name == "title" else "statement"
                raise DecisionError(f"edit {d.item}: the {what} cannot be empty")
        if "title" in fields:
            self._unique_title(d.item, fields["title"])
        model = self.concepts[d.item]
        previous = dict(self.review["concepts"].get(d.item, {}).get("edit", {}))
        edit = {**previous, **fields}
        # What equals the model's text again is no edit.
        edit = {k: v for k, v in edit.items() if v != model[k]}  # type: ignore[literal-required]
        decision = self.review["concepts"].get(d.item, {})
        self.review["concepts"][d.item] = {
            **{k: v for k, v in decision.items() if k not in ("edit", "into")},
            "verdict": "keep",
            "at": self.now,
            **({"edit": edit} if edit else {}),
        }

    def _merge(self, d: ItemDecision) -> None:
        self._concept_item(d.item)
        into = (d.into or "").strip()
        if not into:
            raise DecisionError(f"merge {d.item}: say which concept it joins (into c2, or an id)")
        if into == d.item:
            raise DecisionError(f"merge {d.item}: a concept cannot be merged into itself")
        if into in self.concepts:
            # No circle: following `into` from the target must not come back here.
            seen, at = {d.item}, into
            while at in self.review["concepts"] and self.review["concepts"][at].get("into"):
                at = self.review["concepts"][at]["into"]
                if at in seen:
                    raise DecisionError(f"merge {d.item} into {into}: {into} is merged into it")
                seen.add(at)
            if self._verdict(into) != "keep":
                # Merging into an idea means keeping it: say so in its decision.
                self._set_concept(into, "keep")
        elif self.existing_title(into) is None:
            raise DecisionError(
                f"merge {d.item}: {into!r} is neither a concept of this run "
                f"({', '.join(self.concepts) or 'none'}) nor an existing concept's id"
            )
        self.review["concepts"][d.item] = {"verdict": "merge", "into": into, "at": self.now}

    def _move_quote(self, d: ItemDecision) -> None:
        self._concept_item(d.item)
        quote = self._quote(d)
        to = (d.to or "").strip()
        if to not in self.concepts:
            raise DecisionError(
                f"move_quote {d.item}: say which concept of this run the quote goes to "
                f"(to: one of {', '.join(self.concepts)})"
            )
        if to == d.item:
            raise DecisionError(f"move_quote {d.item}: the quote is already there")
        self._take_off(d.item, quote, "move_quote")
        quotes = self.quotes_of(to)
        if quote not in quotes:
            self.review["quotes"][to] = [*quotes, quote]
        if self._verdict(to) != "keep":
            self._set_concept(to, "keep")

    def _remove_quote(self, d: ItemDecision) -> None:
        self._concept_item(d.item)
        self._take_off(d.item, self._quote(d), "remove_quote")

    def _take_off(self, key: str, quote: str, action: str) -> None:
        quotes = self.quotes_of(key)
        if quote not in quotes:
            raise DecisionError(
                f"{action} {key}: {self._quote_key(quote)} is not one of its quotes"
            )
        if len(quotes) == 1:
            raise DecisionError(
                f"{action} {key}: it is {key}'s only quote, and every concept cites one; "
                f"drop {key} or merge it into another concept instead"
            )
        self.review["quotes"][key] = [q for q in quotes if q != quote]

    def quotes_of(self, key: str) -> list[str]:
        """A concept's quotes as the reader left them (the model's, until changed)."""
        return list(self.review["quotes"].get(key, self.concepts[key]["quote_ids"]))

    # --- relations ----------------------------------------------------------------------
    def _retype(self, d: ItemDecision) -> None:
        relation_type = self._type(d)
        if d.item in self.related:
            self.review["relations"][d.item] = {
                "verdict": "keep",
                "type": relation_type,
                "at": self.now,
            }
        elif any(a["key"] == d.item for a in self.review["added"]):
            for added in self.review["added"]:
                if added["key"] == d.item:
                    added["type"] = relation_type
        else:
            if d.item in self.attributions:
                raise DecisionError(f"{d.item} attributes quotes to a concept; it has no type")
            relation = self._relation_item(d.item)
            change = {} if relation_type == relation["type"] else {"type": relation_type}
            self.review["relations"][d.item] = {"verdict": "keep", "at": self.now, **change}
        self._no_contradiction(d.item)

    def _relate(self, d: ItemDecision) -> None:
        relation_type = self._type(d)
        source, target = d.item, (d.target or "").strip()
        for end in (source, target):
            if end not in self.concepts and self.existing_title(end) is None:
                raise DecisionError(
                    f"relate {source} {target}: {end!r} is neither a concept of this run nor "
                    "an existing concept's id"
                )
        if source == target:
            raise DecisionError(f"relate {source}: a concept cannot be related to itself")
        if source not in self.concepts and target not in self.concepts:
            raise DecisionError(
                f"relate {source} {target}: both are existing concepts; `zettelgraph link` "
                "relates those"
            )
        for end in (source, target):
            if end in self.concepts and not self._kept(end):
                raise DecisionError(
                    f"relate {source} {target}: {end} is not kept; keep it first (a relation "
                    "needs both of its ends)"
                )
        numbers = [number_of(a["key"], "a") or 0 for a in self.review["added"]]
        key = f"a{max(numbers, default=0) + 1}"
        self.review["added"].append(
            {
                "key": key,
                "source": source,
                "type": relation_type,
                "target": target,
                "explanation": d.explanation,
                "at": self.now,
            }
        )
        self._no_contradiction(key)

    def _type(self, d: ItemDecision) -> str:
        given = (d.type or "").strip()
        if not given:
            raise DecisionError(f"{d.action} {d.item}: give a relation type")
        wanted = given.upper().replace("-", "_").replace(" ", "_")
        if wanted not in self.vocabulary.types:
            raise DecisionError(
                f"{d.action} {d.item}: {given!r} is not a relation type; choose one of "
                + ", ".join(self.vocabulary.names)
            )
        return wanted

    def _no_contradiction(self, key: str) -> None:
        """A pair may not both agree and oppose: the rule the proposal checks and `link`
        follow. Checked over what approving would write."""
        relations = kept_relations(self.proposal, self.review, self.doubts, self.vocabulary)
        if contradictory_pairs(relations, self.vocabulary):
            raise DecisionError(
                f"{key}: with that type the same two concepts would both agree and oppose; "
                "drop the other relation between them first"
            )

    # --- lookups ------------------------------------------------------------------------
    def _concept_item(self, key: str) -> None:
        if key not in self.concepts:
            raise DecisionError(
                f"no concept {key!r} in this run; its concepts are "
                + (", ".join(self.concepts) or "none")
            )

    def _relation_item(self, key: str) -> Mapping[str, Any]:
        relation = self.relations.get(key) or self.attributions.get(key)
        if relation is None:
            known = [*self.concepts, *self.relations, *self.related, *self.attributions]
            known += [a["key"] for a in self.review["added"]]
            raise DecisionError(
                f"no item {key!r} in this run; its items are " + (", ".join(known) or "none")
            )
        return relation

    def _quote(self, d: ItemDecision) -> str:
        given = (d.quote or "").strip()
        if given in self.quotes:
            return self.quotes[given]
        if given in self.quotes.values():
            return given
        raise DecisionError(
            f"{d.action} {d.item}: give the quote as q1..q{len(self.quotes)} (as the review "
            "numbers them) or by its id"
        )

    def _quote_key(self, quote_id: str) -> str:
        return next((k for k, v in self.quotes.items() if v == quote_id), quote_id)

    def _verdict(self, key: str) -> str | None:
        return self.review["concepts"].get(key, {}).get("verdict")

    def _kept(self, key: str) -> bool:
        """Kept by the reader, or undecided and not doubtful (kept by default)."""
        verdict = self._verdict(key)
        if verdict is not None:
            return verdict == "keep"
        return not is_doubtful(self.doubts, key)

    def _set_concept(self, key: str, verdict: str) -> None:
        decision = self.review["concepts"].get(key, {})
        kept = {k: v for k, v in decision.items() if k == "edit"} if verdict == "keep" else {}
        self.review["concepts"][key] = {**kept, "verdict": verdict, "at": self.now}

    def _set_relation(self, key: str, verdict: str) -> None:
        """Keep or drop a relation or attribution of this run; its type change stays."""
        self._relation_item(key)
        decision = self.review["relations"].get(key, {})
        self.review["relations"][key] = {**decision, "verdict": verdict, "at": self.now}

    def _unique_title(self, key: str, title: str) -> None:
        wanted = normalize_name(title)
        for other, concept in self.concepts.items():
            if other == key or self._verdict(other) in ("drop", "merge"):
                continue
            edited = self.review["concepts"].get(other, {}).get("edit", {})
            if normalize_name(edited.get("title", concept["title"])) == wanted:
                raise DecisionError(
                    f"edit {key}: {other} already has the title {title!r}; merge them instead"
                )

    def _example_type(self) -> str:
        return self.vocabulary.names[0] if self.vocabulary.names else "RELATES_TO"

    def _log(self, d: ItemDecision) -> None:
        entry = logged(d, self.now)
        if d.item in self.doubts:
            entry["doubt"] = self.doubts[d.item].copy()
        self.review["log"].append(entry)
