"""The bounded YAML loader: aliases are allowed and counted as the values they stand for, in
time linear in the text; nesting is counted through them; a value that contains itself is
refused; each refusal names its line."""

from __future__ import annotations

import pytest

from zettelgraph.text.bounded_yaml import YamlLimitError, YamlLimits, load

SHARED = "a: &x [1, 2]\nb: *x\n"  # 9 values: the mapping, a, [1, 2], b, and *x's three


def test_aliases_load_as_plain_yaml_does() -> None:
    tree, data = load(SHARED + "c: {<<: &m {k: 1}, j: 2}\nd: *m\n", YamlLimits(nodes=100))
    assert data == {"a": [1, 2], "b": [1, 2], "c": {"k": 1, "j": 2}, "d": {"k": 1}}
    assert tree is not None and tree.start_mark.line == 0


def test_an_alias_counts_as_every_value_it_stands_for() -> None:
    assert load(SHARED, YamlLimits(nodes=9))[1] == {"a": [1, 2], "b": [1, 2]}
    with pytest.raises(YamlLimitError, match=r"the alias \*x stands for so many values") as err:
        load(SHARED, YamlLimits(nodes=8))
    assert err.value.line == 2


def test_nesting_is_counted_through_aliases() -> None:
    text = "a: &x [[[1]]]\nb: [*x]\n"  # the mapping, b's list, then x's four levels: 6
    assert load(text, YamlLimits(nodes=100, depth=6))[1]["b"] == [[[[1]]]]
    with pytest.raises(YamlLimitError, match="more than 5 levels deep") as err:
        load(text, YamlLimits(nodes=100, depth=5))
    assert err.value.line == 2


def test_a_value_that_contains_itself_is_refused() -> None:
    with pytest.raises(YamlLimitError, match=r"\*a is used inside the value it names \(line 2\)"):
        load("b: 1\na: &a\n  - x\n  - *a\n", YamlLimits(nodes=100))


def test_a_bomb_is_refused_on_its_first_lines() -> None:
    lines = ["x0: &a0 [x, x, x, x, x, x, x, x]"]
    lines += [f"x{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 8)}]" for n in range(1, 40)]
    with pytest.raises(YamlLimitError) as err:
        load("\n".join(lines), YamlLimits(nodes=20_000))
    assert err.value.line == 5  # 8^4 x 8 = 32,768 values on the fifth line
