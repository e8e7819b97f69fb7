"""Template packs from YAML files, with errors that name the file, the line and the field.

Packs are found in two places: the shipped ones (package data, `packs/data/*.yaml`) and the
user's (`$ZETTELGRAPH_HOME/packs/*.yaml`). A pack file is named after its pack
(`narrative.yaml` holds `name: narrative`). A user pack with a shipped pack's name replaces the
shipped one: copying `zettelkasten.yaml` into the home folder and editing it is how a reader
changes the concept workflow's vocabulary, and `zettelgraph packs list` shows which file is in
use, so the replacement is never silent.

Line numbers come from PyYAML's node marks: a pydantic error location such as
`relationship_types.2.reverse` is walked down the composed node tree to the key's line.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import BaseModel, ValidationError

from zettelgraph.packs.schema import (
    EntityType,
    FieldPath,
    Pack,
    PackError,
    PackLocation,
    PackSchema,
    PropertySpec,
    RelationshipType,
    merge,
)
from zettelgraph.text import bounded_yaml

if TYPE_CHECKING:
    from zettelgraph.settings import Settings

SUFFIXES = (".yaml", ".yml")
# At most this many field errors of one file are listed; fixing them shows the rest.
MAX_ERRORS = 10
# The largest shipped pack holds 465 values; forty times that is still a hand-written pack.
PACK_LIMITS = bounded_yaml.YamlLimits(nodes=20_000)
# Where a broken user pack is reported when it must not stop the command (see active_schema).
Warn = Callable[[str], None]


@dataclass(frozen=True)
class PackFile:
    """Where a pack comes from: its file, whether it ships with zettelgraph, and the shipped
    file a user pack of the same name replaces."""

    name: str
    path: Path
    shipped: bool
    replaces: Path | None = None


def shipped_folder() -> Path:
    return Path(str(files("zettelgraph.packs").joinpath("data")))


def user_folder(settings: Settings) -> Path:
    return settings.home / "packs"


def pack_files(settings: Settings, warn: Warn | None = None) -> dict[str, PackFile]:
    """Every available pack by name: the shipped ones, then the user's (which replace a
    shipped one of the same name). Two user files for one name are an error, or with `warn`
    a warning, and neither is used."""
    found = {path.stem: PackFile(path.stem, path, True) for path in _yaml_files(shipped_folder())}
    shipped = dict(found)
    mine: dict[str, Path] = {}
    for path in _yaml_files(user_folder(settings)):
        if path.stem in mine:
            problem = (
                f"{mine[path.stem]} and {path} both hold pack {path.stem!r}: delete one of them"
            )
            if warn is None:
                raise PackError(problem)
            warn(f"{problem}; until then neither is used")
            found.pop(path.stem, None)
            if path.stem in shipped:
                found[path.stem] = shipped[path.stem]
            continue
        mine[path.stem] = path
        replaced = shipped.get(path.stem)
        found[path.stem] = PackFile(path.stem, path, False, replaced.path if replaced else None)
    return found


def available_packs(settings: Settings) -> dict[str, Path]:
    """The file of every pack that can be activated, by pack name (see `pack_files`)."""
    return {name: pack.path for name, pack in pack_files(settings).items()}


def load_packs(settings: Settings, names: Sequence[str]) -> list[Pack]:
    """The named packs, read and validated, in the order given."""
    return _load(settings, available_packs(settings), names)


def active_schema(
    settings: Settings, names: Sequence[str] | None = None, *, warn: Warn | None = None
) -> PackSchema:
    """The active packs (`names`, by default `settings.packs`) merged into one schema.

    Without `warn`, any pack that cannot be used raises PackError: what a command that works
    with the packs (graph extraction, `packs show`) needs. With `warn`, a broken user pack is
    a warning and its shipped namesake takes its place (a user pack that replaces none is left
    out): commands that only need a vocabulary (listing contents, the web app, the MCP
    server) keep working while a pack being edited is broken."""
    chosen = list(settings.packs if names is None else names)
    if warn is None:
        known = available_packs(settings)
        return merged(_load(settings, known, chosen), known)
    files = pack_files(settings, warn)
    known = {name: found.path for name, found in files.items()}
    used: dict[str, tuple[Pack, Path]] = {}
    for name in chosen:
        _file_of(settings, known, name)  # an unknown name is a setting to fix, not a file
        usable = _usable(files[name], warn)
        if usable is not None:
            used[name] = usable
    try:
        return merged([pack for pack, _ in used.values()], {n: p for n, (_, p) in used.items()})
    except PackError as exc:
        if all(files[name].shipped for name in used):
            raise
        warn(
            f"{exc}\n  the active packs do not fit together, so the shipped ones are used "
            "until the user packs are fixed (`zettelgraph packs validate FILE` checks one)"
        )
        return shipped_schema(tuple(n for n in chosen if files[n].shipped or files[n].replaces))


def _usable(found: PackFile, warn: Warn) -> tuple[Pack, Path] | None:
    """A pack and its file; for a broken user pack, a warning and its shipped namesake (None
    when it has none)."""
    try:
        return read_pack(found.path, expected_name=found.name), found.path
    except PackError as exc:
        if found.shipped:
            raise
        instead = f"the shipped {found.name!r} pack is used" if found.replaces else "it is left out"
        warn(
            f"{exc}\n  {found.path} cannot be used, so {instead} until it is fixed "
            f"(`zettelgraph packs validate {found.path}` checks it)"
        )
    if found.replaces is None:
        return None
    return read_pack(found.replaces, expected_name=found.name), found.replaces


def merged(packs: Sequence[Pack], paths: Mapping[str, Path]) -> PackSchema:
    """`merge`, with its errors pointing at the files and lines of the packs in `paths`."""
    try:
        return merge(packs)
    except PackError as exc:
        raise located(exc, paths) from None


def validate_file(settings: Settings, path: Path) -> tuple[Pack, PackSchema]:
    """A pack file checked on its own and merged with the active packs (it takes the place of
    an active pack of its name), as it would be used."""
    pack = read_pack(path)
    known = available_packs(settings)
    active = list(settings.packs)
    names = active if pack.name in active else [*active, pack.name]
    others = {p.name: p for p in _load(settings, known, [n for n in names if n != pack.name])}
    packs = [pack if name == pack.name else others[name] for name in names]
    return pack, merged(packs, {**known, pack.name: path})


def _load(settings: Settings, known: Mapping[str, Path], names: Sequence[str]) -> list[Pack]:
    return [read_pack(_file_of(settings, known, name), expected_name=name) for name in names]


def _file_of(settings: Settings, known: Mapping[str, Path], name: str) -> Path:
    if name not in known:
        raise PackError(
            f"no pack named {name!r}; the packs are {', '.join(sorted(known))}: fix "
            f"ZETTELGRAPH_PACKS, or add {user_folder(settings) / name}.yaml"
        )
    return known[name]


@functools.cache
def shipped_schema(names: tuple[str, ...]) -> PackSchema:
    """Shipped packs merged, read once per process (the default vocabulary is built from it)."""
    folder = shipped_folder()
    paths = {name: folder / f"{name}.yaml" for name in names}
    return merged([read_pack(paths[name], expected_name=name) for name in names], paths)


def read_pack(path: Path, *, expected_name: str | None = None) -> Pack:
    """One pack file, validated; errors name the file, the line and the field."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(f"{path}: cannot read the pack: {exc}") from None
    return _pack_of(path, text, expected_name)


# Parsed again only when the file's text changes: the web app and the MCP server resolve the
# active packs on every request, and parsing them (bounded YAML, then validation) was about
# 5% of a page's CPU under load, where reading a few kilobytes is not. Keyed on the text, not
# the file's time, so two edits within one tick of the file system's clock are both seen. A
# broken pack raises, so it is never kept.
@functools.lru_cache(maxsize=64)
def _pack_of(path: Path, text: str, expected_name: str | None) -> Pack:
    tree, data = _parse(path, text)
    if not isinstance(data, dict):
        raise PackError(
            f"{path}:1: a pack is a YAML mapping with name, version, entity_types and "
            "relationship_types; see `zettelgraph packs show zettelkasten --yaml`"
        )
    try:
        pack = Pack.model_validate(data)
    except ValidationError as exc:
        raise PackError(_describe(path, tree, exc)) from None
    if expected_name is not None and pack.name != expected_name:
        raise PackError(
            f"{path}:{line_of(tree, ('name',))}: name: the pack is named {pack.name!r} but its "
            f"file {path.name!r}: name the file {pack.name}.yaml, or the pack {expected_name!r}"
        )
    return pack


def located(error: PackError, paths: Mapping[str, Path]) -> PackError:
    """`error` with its locations written as `file:line: field` (the first leads the message,
    the others follow it), for the packs whose files are known."""
    places = []
    for location in error.locations:
        path = paths.get(location.pack)
        if path is None:
            places.append(f"pack {location.pack!r}: {location.dotted()}")
            continue
        try:
            tree, _ = _parse(path, path.read_text(encoding="utf-8"))
        except (OSError, PackError):
            tree = None
        places.append(f"{path}:{line_of(tree, location.field)}: {location.dotted()}")
    if not places:
        return error
    text = f"{places[0]}: {error}"
    text += "".join(f"\n  see also {place}" for place in places[1:])
    return PackError(text, *error.locations)


def line_of(tree: yaml.Node | None, field: FieldPath) -> int:
    """The 1-based line of `field` in a composed YAML tree: the key's line for a mapping
    field, the item's for a list index; the nearest enclosing node's when it is missing."""
    if tree is None:
        return 1
    node = tree
    for index, part in enumerate(field):
        if isinstance(node, yaml.MappingNode):
            match = next((kv for kv in node.value if str(kv[0].value) == str(part)), None)
            if match is None:
                break
            key, node = match
            if index == len(field) - 1:
                return int(key.start_mark.line) + 1
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if not 0 <= part < len(node.value):
                break
            node = node.value[part]
        else:
            break
    return int(node.start_mark.line) + 1


def _yaml_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix in SUFFIXES and p.is_file())


def _parse(path: Path, text: str) -> tuple[yaml.Node | None, Any]:
    try:
        tree, data = bounded_yaml.load(text, PACK_LIMITS)
    except bounded_yaml.YamlLimitError as exc:
        raise PackError(f"{path}:{exc.line}: {exc.problem}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = exc.problem or "unreadable YAML"
        # Where the construct began (an unclosed bracket or quote) is often the line to fix.
        if exc.context and exc.context_mark is not None:
            problem += f" ({exc.context} that begins on line {exc.context_mark.line + 1})"
        raise PackError(
            f"{path}:{line}: YAML syntax error: {problem}: check the indentation, the ':' "
            "after each key, and quotes around text that holds ': ' or starts with '#'"
        ) from None
    except yaml.YAMLError as exc:
        raise PackError(f"{path}:1: YAML syntax error: {exc}") from None
    _check_repeated_keys(path, tree)
    return tree, data


def _check_repeated_keys(path: Path, tree: yaml.Node | None) -> None:
    # PyYAML keeps the last of two equal keys without a word; a pack would lose a field. Each
    # node is visited once: an alias is the node it names, already checked where it was
    # written (walking aliases again is what made a 500-byte pack take minutes).
    seen_nodes: set[int] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for key, value in node.value:
                if str(key.value) in keys:
                    raise PackError(
                        f"{path}:{key.start_mark.line + 1}: {key.value}: this key appears twice "
                        "in the same mapping: keep one"
                    )
                keys.add(str(key.value))
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def _describe(path: Path, tree: yaml.Node | None, exc: ValidationError) -> str:
    lines = []
    errors = exc.errors()
    for error in errors[:MAX_ERRORS]:
        loc: FieldPath = tuple(error["loc"])
        at = (error.get("ctx") or {}).get("at")
        if isinstance(at, tuple):
            loc = (*loc, *at)
        dotted = PackLocation("", loc).dotted() or "(the pack)"
        lines.append(f"{path}:{line_of(tree, loc)}: {dotted}: {_advice(error, loc)}")
    if len(errors) > MAX_ERRORS:
        lines.append(f"... and {len(errors) - MAX_ERRORS} more; fix these first")
    return "\n".join(lines)


def _model_at(loc: FieldPath) -> type[BaseModel]:
    """The model whose field `loc` names, from the shape of the path."""
    names = [part for part in loc[:-1] if isinstance(part, str)]
    if names[:1] == ["entity_types"]:
        return PropertySpec if "properties" in names else EntityType
    if names[:1] == ["relationship_types"]:
        return RelationshipType
    return Pack


# What each patterned field looks like, by the model that holds it.
_PATTERN_ADVICE = {
    (Pack, "name"): "lower-case letters, digits, - and _ (my-pack)",
    (EntityType, "name"): "a capitalised word of letters and digits (Person)",
    (RelationshipType, "name"): "upper-case letters, digits and _ (WRITTEN_BY)",
    (RelationshipType, "reverse"): "upper-case letters, digits and _ (WRITTEN_BY)",
    (PropertySpec, "name"): "lower-case letters, digits and _ (born_year)",
    (EntityType, "color"): 'a colour as "#rrggbb", in quotes (YAML reads # as a comment)',
    (RelationshipType, "color"): 'a colour as "#rrggbb", in quotes (YAML reads # as a comment)',
}


def _advice(error: Any, loc: FieldPath) -> str:
    """Pydantic's message, said as what to change."""
    kind = error["type"]
    field = next((part for part in reversed(loc) if isinstance(part, str)), "")
    message = str(error["msg"])
    if kind == "extra_forbidden":
        known = list(_model_at(loc).model_fields)
        close = difflib.get_close_matches(field, known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return f"unknown field {field!r}: {hint}the fields here are {', '.join(known)}"
    if kind == "missing":
        return f"required field missing: add `{field}:` here"
    if kind == "string_pattern_mismatch":
        wanted = _PATTERN_ADVICE.get((_model_at(loc), field), "a value of that form")
        return f"{message}: write {wanted}"
    if kind == "string_type":
        return f"{message}: put the value in quotes"
    if kind in ("tuple_type", "list_type"):
        return f"{message}: give a list, e.g. [Person, Place]"
    return message
