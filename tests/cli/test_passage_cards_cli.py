"""`ingest --cards` and `cards generate --from-passages` end to end on the fake LLM and a real
SQLite store (issue 31): cards from a Markdown page with a code block and from a Python file,
no concepts extracted, each citing its passage in the list, the study screen and the export;
refusals that say what to do."""

from __future__ import annotations

import json
from pathlib import Path

from test_cards_cli import cli, ok

PAGE = """# Jardinería

Quien no sabe esperar no verá crecer nada en su huerto. La paciencia es la primera herramienta
del jardinero.

```python
def riego(litros, dias):
    total = litros * dias
    return total / 7
```
"""
SOURCE = '''def area(radius):
    """Area of a circle."""
    pi = 3.14159
    return pi * radius ** 2
'''


def test_ingest_with_cards_then_review_study_and_export(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (tmp_path / "huerto.md").write_text(PAGE, encoding="utf-8")
    (tmp_path / "area.py").write_text(SOURCE, encoding="utf-8")
    shown = ok(
        cli(home, "ingest", str(tmp_path / "huerto.md"), str(tmp_path / "area.py"), "--cards")
    )
    assert "card" in shown.stdout and "proposed" in shown.stdout
    assert "Next: zettelgraph cards review" in shown.stdout

    cards = json.loads(ok(cli(home, "cards", "list", "--json")).stdout)
    # Proposed, or dropped by a check (kept so the passage is not asked again).
    assert cards and all(c["status"] in ("proposed", "dropped") for c in cards)
    assert all(c["concept_ids"] == [] for c in cards)
    assert all(len(c["quote_ids"]) == 1 for c in cards)
    code = [c for c in cards if c["item_type"] == "code_completion"]
    assert {c["back"] for c in code} >= {"pi * radius ** 2"}  # the area's returned value
    assert all("____" in c["front"] for c in code)
    assert not any(c["item_type"] == "relation" for c in cards)  # no concepts, no relations

    contents = {c["title"]: c["id"] for c in json.loads(ok(cli(home, "contents", "--json")).stdout)}
    again = json.loads(
        ok(
            cli(home, "cards", "generate", "--from-passages", contents["area.py"][:8], "--json")
        ).stdout
    )
    assert again["proposed"] == [] and again["calls"] == 0

    ok(cli(home, "cards", "approve", "--all"))
    session = ok(cli(home, "study", input="\n4\n" * len(cards))).stdout
    assert "studied" in session
    assert "area.py" in session  # the cited passage's content, shown with the answer
    deck = tmp_path / "cards.csv"
    ok(cli(home, "cards", "export", str(deck)))
    exported = deck.read_text(encoding="utf-8")
    assert "pi = 3.14159" in exported and "La paciencia es la primera herramienta" in exported


def test_from_passages_refusals_say_what_to_do(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (tmp_path / "area.py").write_text(SOURCE, encoding="utf-8")
    ok(cli(home, "ingest", str(tmp_path / "area.py")))
    [content] = json.loads(ok(cli(home, "contents", "--json")).stdout)
    unknown = cli(home, "cards", "generate", "--from-passages", "ffffffff")
    assert unknown.exit_code == 1 and "zettelgraph contents" in unknown.stderr
    both = cli(
        home, "cards", "generate", "--from-passages", content["id"], "--content", content["id"]
    )
    assert both.exit_code == 1 and "not both" in both.stderr
    assert json.loads(ok(cli(home, "cards", "list", "--json")).stdout) == []
