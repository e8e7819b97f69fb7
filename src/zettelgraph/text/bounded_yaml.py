"""YAML read with bounds: every YAML file or block zettelgraph reads (template packs, front
matter of book notes and vault notes, review decision files) goes through `load`.

PyYAML's safe loader stops code from running, not a small text from growing huge. Three shapes
did harm (issue 28, item 6): anchors that alias anchors (nine levels of eight aliases are 500
bytes and 8^9 = 134 million values to anyone who walks them: a repeated-keys check ran for
minutes), an alias inside the value it names (`&a [*a]`, a value that contains itself: every
walk recursed until Python's RecursionError), and deep nesting (20,000 `[`: the composer
itself recursed). Parsing 200,000 keys of front matter to refuse them afterwards took 84 s.

So the tree is counted while it is composed, and composing stops at the first value past a
bound, on the line that crossed it:

- values (`nodes`): every key, item and scalar, with each alias counted as the values it
  stands for (the size of an anchored value is recorded when it is closed, so the count is
  linear in the text: a bomb is refused after reading a few hundred bytes of it);
- nesting (`depth`), an alias counting as the depth of what it stands for;
- an alias used inside the value it names is refused outright.

Aliases are otherwise allowed: they are plain YAML, a pack may reuse a list of types
(`source_types: &people [Person, Character]` ... `target_types: *people`), and with the
expanded size counted they cost nothing. A value that contains itself has no use in any of
these files (none of them can be written back as JSON or Markdown), so it is never accepted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

# 50 levels: the deepest shipped pack is 5, front matter 2; nesting deeper is generated. It
# also keeps PyYAML's recursive composer and constructor far from Python's recursion limit.
MAX_DEPTH = 50


@dataclass(frozen=True)
class YamlLimits:
    """The most a text may hold: values (aliases expanded) and levels of nesting."""

    nodes: int
    depth: int = MAX_DEPTH


class YamlLimitError(ValueError):
    """A YAML text past a bound (or with a value that contains itself). `line` is 1-based in
    the text given; the message says what is wrong and what to do, without the file, which
    the caller adds."""

    def __init__(self, problem: str, line: int) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


def load(text: str, limits: YamlLimits) -> tuple[yaml.Node | None, Any]:
    """The composed tree (for line numbers) and the data of a single-document YAML text.

    Raises YamlLimitError past `limits`, and PyYAML's MarkedYAMLError (syntax, an undefined
    alias, a second document) or YAMLError as `yaml.safe_load` does."""
    loader = _BoundedLoader(text, limits)
    try:
        tree = loader.get_single_node()
        data = None if tree is None else loader.construct_document(tree)
    finally:
        loader.dispose()
    return tree, data


class _BoundedLoader(yaml.SafeLoader):
    def __init__(self, text: str, limits: YamlLimits) -> None:
        super().__init__(text)
        # Underscored: the reader, scanner and parser keep their state on this same object
        # (the reader's `line` is where it is reading).
        self._limits = limits
        self._count = 0  # values composed so far, aliases expanded
        self._at_line = 1
        self._depth = 0
        self._deepest = 0  # the deepest level reached inside the value being composed
        # For each anchored value (by id: the tree keeps the node alive): how many values it
        # stands for and how many levels it spans.
        self._anchored: dict[int, tuple[int, int]] = {}

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        self._at_line = int(event.start_mark.line) + 1  # where a refusal points
        if isinstance(event, yaml.AliasEvent):
            target = self.anchors.get(event.anchor)
            if target is not None:  # an undefined alias is PyYAML's error, with its line
                if target.end_mark is None:  # a collection is closed when it ends
                    raise YamlLimitError(
                        f"the alias *{event.anchor} is used inside the value it names (line "
                        f"{target.start_mark.line + 1}), so that value would contain itself: "
                        "write the value out instead of the alias",
                        self._at_line,
                    )
                size, levels = self._anchored[id(target)]
                self._grow(size, f"the alias *{event.anchor}")
                self._reach(self._depth + levels)
            return super().compose_node(parent, index)
        self._depth += 1
        self._reach(self._depth)
        self._grow(1, "")
        count, deepest = self._count, self._deepest
        self._deepest = self._depth
        node = super().compose_node(parent, index)
        if event.anchor is not None:
            self._anchored[id(node)] = (self._count - count + 1, self._deepest - self._depth + 1)
        self._deepest = max(deepest, self._deepest)
        self._depth -= 1
        return node

    def _grow(self, values: int, alias: str) -> None:
        self._count += values
        if self._count > self._limits.nodes:
            said = f"more than {self._limits.nodes:,} values (keys, list items, text)"
            raise YamlLimitError(
                f"{alias} stands for so many values that the YAML holds {said}: write the "
                "values out instead of aliasing aliases"
                if alias
                else f"the YAML holds {said} by this line: keep it to what is needed",
                self._at_line,
            )

    def _reach(self, depth: int) -> None:
        self._deepest = max(self._deepest, depth)
        if depth > self._limits.depth:
            raise YamlLimitError(
                f"the YAML is nested more than {self._limits.depth} levels deep here: flatten "
                "it (no file zettelgraph reads needs more than a few levels)",
                self._at_line,
            )
