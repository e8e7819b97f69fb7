"""A template pack's entity and relationship types as the graph extraction prompt lists them:
one line a type, with its description, properties and examples; a type and its reverse on one
line, since the graph adds the reverse itself."""

from __future__ import annotations

from zettelgraph.packs.schema import EntityType, PackSchema, RelationshipType


def sentence(text: str) -> str:
    """`text` ending with one full stop, whatever it ended with."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def entity_line(spec: EntityType) -> str:
    line = f"- {spec.name}: {sentence(spec.description)}"
    if spec.properties:
        props = "; ".join(
            f"{p.name} ({p.type}{', required' if p.required else ''})"
            + (f": {p.description.strip().rstrip('.')}" if p.description else "")
            for p in spec.properties
        )
        line += f" Properties: {props}."
    if spec.examples:
        line += f" E.g. {'; '.join(spec.examples[:4])}."
    return line


def relationship_lines(schema: PackSchema) -> list[str]:
    """One line per type; a type and its reverse are one line (the graph adds the reverse)."""
    lines: list[str] = []
    shown: set[str] = set()
    for spec in schema.relationship_types.values():
        if spec.name in shown:
            continue
        shown.add(spec.name)
        lines.append(relationship_line(spec))
        if spec.reverse:
            shown.add(spec.reverse)
            lines[-1] += f" (its reverse {spec.reverse} is added by the graph)"
    return lines


def relationship_line(spec: RelationshipType) -> str:
    sources, targets = " | ".join(spec.source_types), " | ".join(spec.target_types)
    way = ", either way" if spec.symmetric else ""
    line = f"- {spec.name}: {sources} -> {targets}{way}. {sentence(spec.description)}"
    if spec.examples:
        line += f" E.g. {' '.join(sentence(e) for e in spec.examples[:2])}"
    return line
