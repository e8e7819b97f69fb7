"""Cards straight from a content's passages (issue 31, seed 004's Phase 1A) through the
Learning Item Graph, on the scripted fake LLM and a real SQLite store: the kinds each passage
gets (text, code, figure), every card citing its passage and testing no concept, the same
checks as concept cards, re-runs that add nothing, and bad requests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from zettelgraph.context import Services, open_services
from zettelgraph.llm.embeddings import HashEmbedder
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import (
    ChangeSet,
    Content,
    ItemStatus,
    ItemType,
    LearningItem,
    Quote,
    Relation,
    content_id,
    quote_id,
)
from zettelgraph.packs.relations import CITES, QUOTED_IN, TESTS
from zettelgraph.prompts import passage_card
from zettelgraph.services.card_generation import generate_cards
from zettelgraph.services.cards import CardError, decide, list_items
from zettelgraph.services.study_order import new_order
from zettelgraph.settings import Settings

TEXT = "Quien no sabe esperar no verá crecer nada. La paciencia es la primera herramienta."
CODE = "```python\ndef riego(litros, dias):\n    total = litros * dias\n    return total / 7\n```"
FIGURE = "Ciclo del agua: lluvia, riego, evaporación y nubes."

# What the scripted model answers, found by a passage's text in the prompt.
ANSWERS: dict[str, dict[str, Any]] = {
    TEXT: {
        "question": "¿Cuál es la primera herramienta del jardinero?",
        "answer": "La paciencia",
        "cloze_words": "paciencia",
        "wrong_answers": ["La pala", "El rastrillo"],
        "code_blank": "",
    },
    CODE: {
        "question": "¿Qué calcula la función de riego?",
        "answer": "El total de litros por los días, dividido por siete",
        "cloze_words": "",
        "wrong_answers": ["El agua de un día", "Los días sin lluvia"],
        "code_blank": "litros * dias",
    },
    FIGURE: {
        "question": "¿Qué ciclo muestra la figura?",
        "answer": "El ciclo del agua: lluvia, riego y evaporación",
        "cloze_words": "",
        "wrong_answers": ["El ciclo de las estaciones", "La poda de los frutales"],
        "code_blank": "",
    },
}


class WordOverlapEmbedder(HashEmbedder):
    """The hash test embedder, taken as measuring meaning so the answer check runs."""

    semantic = True


def scripted(answers: dict[str, dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
    def reply(prompt: str) -> dict[str, Any]:
        for text, answer in answers.items():
            if text in prompt:
                return answer
        raise AssertionError("a passage_card prompt for a passage the test did not script")

    return reply


class Reading:
    """Services on a SQLite store with one content of three passages, as ingest stores them."""

    def __init__(self, home: Path, answers: dict[str, dict[str, Any]], **faults: Any) -> None:
        settings = Settings(
            home=home, llm="fake", embeddings="hash", llm_backoff=0.0, card_grounding_threshold=0.1
        )
        self.llm = FakeChatModel(replies={passage_card.NAME: [scripted(answers)]}, **faults)
        self.services: Services = open_services(
            settings,
            llms=ChatModels(settings, preset={"fake": self.llm}),
            embedder=WordOverlapEmbedder(dim=4096),
        )
        self.content = Content(id=content_id("El huerto", None), title="El huerto", kind="pdf")
        cid = self.content.id
        # Passages of a document: cut from a section (`parent_id`), located by `location`.
        part = {"content_id": cid, "parent_id": "section-1"}
        self.passages = {
            "text": Quote(
                id=quote_id(cid, TEXT), text=TEXT, position=0, location={"page": 1}, **part
            ),
            "code": Quote(
                id=quote_id(cid, CODE), text=CODE, position=1, location={"page": 2}, **part
            ),
            "figure": Quote(
                id=quote_id(cid, FIGURE),
                text=FIGURE,
                position=2,
                location={"page": 3, "ocr": True, "image": 1, "region": [0, 0, 10, 10]},
                **part,
            ),
        }
        store = self.services.store
        embedder = self.services.embedder
        store.ensure_embedder(embedder.name, embedder.dim)
        quotes = list(self.passages.values())
        vectors = embedder.embed([q.text for q in quotes])
        store.apply(
            ChangeSet(
                contents=[self.content],
                quotes=quotes,
                relations=[Relation(source_id=q.id, target_id=cid, type=QUOTED_IN) for q in quotes],
                vectors={q.id: vectors[i] for i, q in enumerate(quotes)},
            )
        )

    def calls(self) -> int:
        usage = self.services.usage.as_dict()
        return int(usage.get(passage_card.NAME, {}).get("calls", 0))


@pytest.fixture
def reading(tmp_path: Path) -> Iterator[Callable[..., Reading]]:
    made: list[Reading] = []

    def make(answers: dict[str, dict[str, Any]] | None = None, **faults: Any) -> Reading:
        made.append(Reading(tmp_path / f"home{len(made)}", answers or ANSWERS, **faults))
        return made[-1]

    yield make
    for one in made:
        one.services.close()


def kinds_of(items: list[LearningItem], passage: Quote) -> set[str]:
    return {str(i.item_type) for i in items if i.quote_ids == [passage.id]}


def test_each_passage_gets_the_cards_of_its_kind_citing_it(
    reading: Callable[..., Reading],
) -> None:
    book = reading()
    report = generate_cards(book.services, from_passages=book.content.id)
    assert report.calls == book.calls() == 3  # one call per passage
    assert report.dropped == []
    proposed = report.proposed
    assert kinds_of(proposed, book.passages["text"]) == {"flashcard", "cloze", "mcq"}
    assert kinds_of(proposed, book.passages["code"]) == {"flashcard", "code_completion", "mcq"}
    assert kinds_of(proposed, book.passages["figure"]) == {"diagram", "mcq"}
    store = book.services.store
    for item in proposed:
        assert item.status == ItemStatus.PROPOSED and item.concept_ids == []
        assert item.content_ids == [book.content.id]
        assert {r.target_id for r in store.relations(item.id, relation_type=CITES)} == set(
            item.quote_ids
        )
        assert store.relations(item.id, relation_type=TESTS) == []
        # The answer says where it comes from.
        assert item.explanation.startswith("De «El huerto», p.")
    by_type = {(str(i.item_type), i.quote_ids[0]): i for i in proposed}
    code = by_type["code_completion", book.passages["code"].id]
    assert code.back == "litros * dias" and "total = ____" in code.front
    assert "```" not in code.front  # the code, not the Markdown fence around it
    diagram = by_type["diagram", book.passages["figure"].id]
    assert diagram.front.startswith("Figura de p. 3 (scan):")
    assert diagram.front.endswith("¿Qué ciclo muestra la figura?")
    mcq = by_type["mcq", book.passages["text"].id]
    assert mcq.options[mcq.correct or 0] == "La paciencia" and len(mcq.options) == 3
    cloze = by_type["cloze", book.passages["text"].id]
    assert cloze.back == "paciencia" and "La [...] es la primera" in cloze.front

    # Reviewed like concept cards; studied with siblings of one passage apart.
    decide(book.services, [i.id for i in proposed], ItemStatus.APPROVED)
    order = new_order(list_items(book.services.store))
    firsts = {i.quote_ids[0] for i in order[:3]}
    assert len(firsts) == 3

    # A second run asks nothing and adds nothing: every passage has its cards.
    again = generate_cards(book.services, from_passages=book.content.id)
    assert again.proposed == [] and again.calls == 0
    assert again.skipped_concepts == 3


def test_passage_cards_face_the_concept_cards_checks(reading: Callable[..., Reading]) -> None:
    answers = {
        TEXT: {
            # A wrong option is what the passage says; the cloze words are too many.
            "question": "¿Cuál es la primera herramienta del jardinero?",
            "answer": "La paciencia",
            "cloze_words": "no verá crecer nada en su",
            "wrong_answers": ["crecer nada", "El rastrillo"],
            "code_blank": "",
        },
        CODE: {
            # The question holds its answer.
            "question": "¿Devuelve riego los litros de la semana?",
            "answer": "Los litros de la semana",
            # Not in the code: the last value returned is hidden instead.
            "code_blank": "litros * semanas",
            "cloze_words": "",
            "wrong_answers": ["El agua de un día", "Los días sin lluvia"],
        },
        FIGURE: {
            "question": "¿Qué muestra la figura?",
            "answer": "Unas montañas nevadas al atardecer",  # not what the figure says
            "cloze_words": "",
            "wrong_answers": ["Un río", "Un lago"],
            "code_blank": "",
        },
    }
    book = reading(answers)
    report = generate_cards(book.services, from_passages=book.content.id)
    checks = {(d["item_type"], d["guard"]) for d in report.dropped}
    assert ("flashcard", "leak") in checks
    assert ("mcq", "mcq") in checks
    assert ("diagram", "grounding") in checks
    reasons = " ".join(d["reason"] for d in report.dropped)
    assert "the passage says «crecer nada» too: a second right option" in reasons
    proposed = {(str(i.item_type), i.quote_ids[0]): i for i in report.proposed}
    code = proposed["code_completion", book.passages["code"].id]
    assert code.back == "total / 7" and "return ____" in code.front
    assert "«litros * semanas» is not in the code" in code.warnings[0]
    cloze = proposed["cloze", book.passages["text"].id]
    assert cloze.warnings and cloze.back != "no verá crecer nada en su"
    # What a check dropped is kept, dropped, so the passage is not asked again.
    set_aside = {str(i.item_type) for i in report.set_aside}
    assert set_aside == {"flashcard", "diagram", "mcq"}
    assert all(i.status == ItemStatus.DROPPED for i in report.set_aside)


def test_a_model_that_fails_still_gives_the_cards_made_without_it(
    reading: Callable[..., Reading],
) -> None:
    """Every passage_card call fails: the cloze and the code card, made from the passage
    alone, are still proposed; the rest is reported, nothing is half-written, and the next
    run (with a working model) asks again."""
    book = reading(transient_rate=1.0)
    report = generate_cards(book.services, from_passages=book.content.id)
    assert {str(i.item_type) for i in report.proposed} == {"cloze", "code_completion"}
    assert all(i.provenance["generator"] == "graph" and i.warnings for i in report.proposed)
    assert any("passage_card" in w and "failed" in w for w in report.summary["warnings"])
    assert report.set_aside == []
    book.llm.transient_rate = 0.0
    again = generate_cards(book.services, from_passages=book.content.id)
    assert {str(i.item_type) for i in again.proposed} == {"flashcard", "mcq", "diagram"}


def test_bad_requests_say_what_to_do(reading: Callable[..., Reading], tmp_path: Path) -> None:
    book = reading()
    with pytest.raises(CardError, match="no content 'nope'"):
        generate_cards(book.services, from_passages="nope")
    with pytest.raises(CardError, match="not both"):
        generate_cards(book.services, from_passages=book.content.id, content_id=book.content.id)
    empty = Content(id=content_id("Vacío", None), title="Vacío")
    book.services.store.apply(ChangeSet(contents=[empty]))
    with pytest.raises(CardError, match="'Vacío' has no passages"):
        generate_cards(book.services, from_passages=empty.id)
    assert list_items(book.services.store) == []


def test_a_card_tests_a_concept_or_cites_a_passage() -> None:
    with pytest.raises(ValueError, match=r"test a concept .* or cite a passage"):
        LearningItem(id="x", item_type=ItemType.FLASHCARD, front="¿Qué?", back="Esto")


def test_an_answer_that_copies_the_prompts_example_gives_no_card_of_it(
    reading: Callable[..., Reading],
) -> None:
    """The offline model answered every passage of a document with the prompt's worked
    example ("¿Qué le falta a quien abandona...?"), and the multiple choice built from it
    passed every check. Such an answer counts as a failed call: the cards that need it are
    not made (said in the warnings), the cloze is still made from the passage alone."""
    copied = dict(
        passage_card.EXAMPLE_ANSWER,
        question=" ¿qué le falta a quien abandona antes de obtener resultados? ",
    )
    book = reading({**ANSWERS, TEXT: copied})
    report = generate_cards(book.services, from_passages=book.content.id)

    text = book.passages["text"]
    assert kinds_of(report.proposed, text) == {"cloze"}
    cloze = next(i for i in report.proposed if i.quote_ids == [text.id])
    assert cloze.provenance["generator"] == "graph"
    assert any(
        "passage_card" in w and "the prompt's example" in w for w in report.summary["warnings"]
    )
    # The other passages' answers were their own: their cards are made as before.
    assert "diagram" in kinds_of(report.proposed, book.passages["figure"])


def test_a_question_about_the_passage_itself_is_dropped(
    reading: Callable[..., Reading],
) -> None:
    """A card is read alone, later: "¿Qué menciona el pasaje?" (asked by the offline model)
    cannot be answered without the passage, so its flashcard and multiple choice are dropped,
    and said."""
    meta = dict(ANSWERS[TEXT], question="¿Qué herramienta menciona el pasaje?")
    book = reading({**ANSWERS, TEXT: meta})
    report = generate_cards(book.services, from_passages=book.content.id)

    assert kinds_of(report.proposed, book.passages["text"]) == {"cloze"}
    dropped = {d["item_type"]: d["reason"] for d in report.dropped}
    assert "«el pasaje»" in dropped["flashcard"] and "«el pasaje»" in dropped["mcq"]
