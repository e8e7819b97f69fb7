"""Pack files for tests: the shipped zettelkasten pack, changed the way a reader would."""

from __future__ import annotations

from zettelgraph.packs.loader import shipped_folder


def changed_zettelkasten() -> str:
    """The shipped pack with SIMILAR_TO renamed RESEMBLES, a CAUSES/CAUSED_BY pair added, and
    OPPOSES's description and SUPPORTS's colour changed."""
    text = (shipped_folder() / "zettelkasten.yaml").read_text(encoding="utf-8")
    text = text.replace("name: SIMILAR_TO", "name: RESEMBLES")
    text = text.replace("A and B are in direct opposition.", "A and B cannot both hold.")
    text = text.replace('color: "#16a34a"', 'color: "#123456"')
    return text + (
        "  - name: CAUSES\n"
        "    description: A brings about B.\n"
        "    source_types: [Concept]\n"
        "    target_types: [Concept]\n"
        "    reverse: CAUSED_BY\n"
        '    color: "#abcdef"\n'
        "    phrases: {es: causa, en: causes}\n"
        "  - name: CAUSED_BY\n"
        "    description: A is brought about by B.\n"
        "    source_types: [Concept]\n"
        "    target_types: [Concept]\n"
        "    reverse: CAUSES\n"
    )
