"""The Learning Item Graph on the fake LLM and a real SQLite store: every kind of card from a
committed graph, with its TESTS / CITES links and difficulty; the checks and what they drop;
duplicates clustered; re-runs that add nothing and never rewrite a card the reader decided;
bad requests; and generation after a run's approval."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import QUOTES, Harness

from zettelgraph.context import Services, open_services
from zettelgraph.llm.embeddings import HashEmbedder
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    Difficulty,
    ItemStatus,
    ItemType,
    LearningItem,
    Quote,
    Relation,
    content_id,
    embedding_text,
    quote_id,
    stable_id,
)
from zettelgraph.packs.relations import CITES, QUOTED_IN, SUPPORTS, TESTS
from zettelgraph.prompts import card_question
from zettelgraph.services import card_generation
from zettelgraph.services.card_generation import generate_cards
from zettelgraph.services.cards import CardError, ItemFilter, decide, edit, list_items
from zettelgraph.settings import Settings


class WordOverlapEmbedder(HashEmbedder):
    """The hash test embedder, taken as measuring meaning so the answer check runs: texts
    that share words are close, texts that share none are far."""

    semantic = True


# title -> (quote, summary); the first quote also supports "Esperar es un arte".
IDEAS = {
    "La paciencia da fruto": (
        "Quien no sabe esperar no verá crecer nada en su huerto.",
        "Lo que vale necesita tiempo para crecer.",
    ),
    "La prisa estropea la obra": (
        "La prisa es la enemiga de toda obra bien hecha.",
        "Quien corre hace mal su trabajo.",
    ),
    "La constancia vence": (
        "El trabajo constante vence cualquier dificultad del camino.",
        "Trabajar cada día vence lo difícil.",
    ),
    "La duda enseña a pensar": (
        "Quien duda de todo aprende a pensar por sí mismo.",
        "Dudar obliga a pensar por uno mismo.",
    ),
}
SHARED = "Esperar es un arte"
# (source, type, target, explanation): a chain paciencia -> prisa -> constancia.
RELATIONS = [
    (
        "La paciencia da fruto",
        "OPPOSES",
        "La prisa estropea la obra",
        "Esperar es lo contrario de correr.",
    ),
    ("La constancia vence", "OPPOSES", "La prisa estropea la obra", "La constancia no corre."),
]
# What the scripted model answers per concept title.
ANSWERS = {
    "La paciencia da fruto": {
        "question": "¿Qué le falta a quien no ve crecer nada en su huerto?",
        "answer": "Saber esperar",
        "quote": "q1",
        "cloze_words": "sabe esperar",
    },
    "La prisa estropea la obra": {
        "question": "¿Qué enemigo tiene toda obra bien hecha?",
        "answer": "La prisa",
        "quote": "q1",
        "cloze_words": "prisa",
    },
    "La constancia vence": {
        "question": "¿Qué vence cualquier dificultad del camino?",
        "answer": "El trabajo constante",
        "quote": "q1",
        "cloze_words": "trabajo constante",
    },
    "La duda enseña a pensar": {
        "question": "¿Qué aprende quien se atreve a no dar nada por cierto?",
        "answer": "A pensar por sí mismo",
        "quote": "q1",
        "cloze_words": "pensar",
    },
    SHARED: {
        "question": "¿Qué actitud hace falta ante lo que tarda en llegar?",
        "answer": "Esperar con arte y no crecer sin tiempo",
        "quote": "q1",
        "cloze_words": "esperar",
    },
}


def scripted(answers: dict[str, dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
    """A card_question reply per concept, found by the concept's title in the prompt."""

    def reply(prompt: str) -> dict[str, Any]:
        for title, answer in answers.items():
            if f"Concepto: {title}\n" in prompt:
                return answer
        raise AssertionError("a card_question prompt for a concept the test did not script")

    return reply


class Cards:
    """Services on a SQLite store in the test's folder, a scripted fake LLM, and a committed
    graph written the way the concept workflow commits one."""

    def __init__(self, home: Path, answers: dict[str, dict[str, Any]], **settings: Any):
        # The answer check's default is calibrated for the default embedder; word overlap is
        # another scale: one shared word of a three-word answer and a ten-word quote is 0.18.
        values = {"card_grounding_threshold": 0.1, **settings}
        self.settings = Settings(
            home=home, llm="fake", embeddings="hash", llm_backoff=0.0, **values
        )
        self.llm = FakeChatModel(replies={card_question.NAME: [scripted(answers)]})
        llms = ChatModels(self.settings, preset={"fake": self.llm})
        self.services: Services = open_services(
            # Wide enough that two unrelated words rarely share a slot.
            self.settings,
            llms=llms,
            embedder=WordOverlapEmbedder(dim=4096),
        )
        self.ids: dict[str, str] = {}
        self.quotes: dict[str, str] = {}

    def commit_graph(self, title: str = "Ensayos sobre el tiempo") -> str:
        services = self.services
        cid = content_id(title, None)
        quotes = [
            Quote(id=quote_id(cid, text), content_id=cid, text=text, position=i, page=str(i + 1))
            for i, (text, _) in enumerate(IDEAS.values())
        ]
        concepts = [
            Concept(
                id=stable_id("concept", "run-test", t),
                title=t,
                concept=summary,
                summary_short=summary,
                provenance={"run": "run-test", "content_id": cid},
            )
            for t, (_, summary) in [*IDEAS.items(), (SHARED, ("", "Esperar bien es un arte."))]
        ]
        self.ids = {c.title: c.id for c in concepts}
        self.quotes = {t: q.id for t, q in zip(IDEAS, quotes, strict=True)}
        supports = [
            Relation(source_id=self.quotes[t], target_id=self.ids[t], type=SUPPORTS) for t in IDEAS
        ] + [
            Relation(
                source_id=self.quotes["La paciencia da fruto"],
                target_id=self.ids[SHARED],
                type=SUPPORTS,
            )
        ]
        related = [
            Relation(
                source_id=self.ids[a],
                target_id=self.ids[b],
                type=kind,
                properties={"explanation": why, "confidence": 0.8},
            )
            for a, kind, b, why in RELATIONS
        ]
        embedder = services.embedder
        services.store.ensure_embedder(embedder.name, embedder.dim)
        qv = embedder.embed([q.text for q in quotes])
        cv = embedder.embed([embedding_text(c) for c in concepts])
        services.store.apply(
            ChangeSet(
                contents=[Content(id=cid, title=title)],
                quotes=quotes,
                concepts=concepts,
                relations=[
                    *(Relation(source_id=q.id, target_id=cid, type=QUOTED_IN) for q in quotes),
                    *supports,
                    *related,
                ],
                vectors={
                    **{q.id: qv[i] for i, q in enumerate(quotes)},
                    **{c.id: cv[i] for i, c in enumerate(concepts)},
                },
            )
        )
        return cid

    def calls(self) -> int:
        return int(self.services.usage.as_dict().get(card_question.NAME, {}).get("calls", 0))

    def items(self) -> list[LearningItem]:
        return list_items(self.services.store)


@pytest.fixture
def make_cards(tmp_path: Path) -> Iterator[Callable[..., Cards]]:
    made: list[Cards] = []

    def make(answers: dict[str, dict[str, Any]] | None = None, **settings: Any) -> Cards:
        made.append(Cards(tmp_path / f"home{len(made)}", answers or ANSWERS, **settings))
        return made[-1]

    yield make
    for cards in made:
        cards.services.close()


def by_kind(items: list[LearningItem]) -> dict[tuple[str, str], list[LearningItem]]:
    out: dict[tuple[str, str], list[LearningItem]] = {}
    for item in items:
        out.setdefault((str(item.item_type), str(item.difficulty)), []).append(item)
    return out


def test_every_kind_of_card_cites_and_tests_what_it_was_made_from(
    make_cards: Callable[..., Cards],
) -> None:
    cards = make_cards()
    book = cards.commit_graph()
    steps: list[str] = []
    report = generate_cards(cards.services, content_id=book, on_progress=steps.append)
    assert steps[0] == "select_targets" and steps[-1] == "write" and "write_question" in steps
    assert report.targets == len(cards.ids) == 5
    assert report.calls == cards.calls() == 5  # one call per concept, nothing more
    kinds = by_kind(report.proposed)
    assert set(kinds) == {
        ("flashcard", "easy"),
        ("cloze", "easy"),
        ("mcq", "medium"),
        ("relation", "medium"),
        ("relation", "hard"),
    }
    store = cards.services.store
    stored = {i.id: i for i in cards.items()}
    for item in report.proposed:
        assert stored[item.id].status == ItemStatus.PROPOSED
        assert item.provenance["generation"] == report.generation_id
        assert item.provenance["generated_at"] and item.provenance["generator"] in ("llm", "graph")
        assert item.content_ids == [book] and item.language == "es"
        tested = {r.target_id for r in store.relations(item.id, relation_type=TESTS)}
        cited = {r.target_id for r in store.relations(item.id, relation_type=CITES)}
        assert tested == set(item.concept_ids) and cited == set(item.quote_ids) and cited
    patience = cards.ids["La paciencia da fruto"]
    flashcard = next(i for i in kinds["flashcard", "easy"] if i.concept_ids == [patience])
    assert flashcard.front == ANSWERS["La paciencia da fruto"]["question"]
    assert flashcard.back == "Saber esperar"
    assert flashcard.quote_ids == [cards.quotes["La paciencia da fruto"]]
    assert flashcard.provenance["model"] == "fake" and flashcard.provenance["calls"] == 1
    assert flashcard.provenance["checks"]["grounding"] >= cards.settings.card_grounding_threshold
    cloze = next(i for i in kinds["cloze", "easy"] if i.concept_ids == [patience])
    assert cloze.front == "Quien no [...] no verá crecer nada en su huerto."
    assert cloze.back == "sabe esperar" and not cloze.warnings
    assert cloze.cloze == "Quien no {{c1::sabe esperar}} no verá crecer nada en su huerto."
    # One relation card per related pair, read as the relation was proposed.
    relations = kinds["relation", "medium"]
    assert len(relations) == 2
    first = next(i for i in relations if i.concept_ids[0] == patience)
    assert (
        first.front == "¿Cómo se relaciona «La paciencia da fruto» con «La prisa estropea la obra»?"
    )
    assert first.back == (
        "«La paciencia da fruto» se opone a «La prisa estropea la obra»: "
        "Esperar es lo contrario de correr."
    )
    (chain,) = kinds["relation", "hard"]
    assert len(chain.concept_ids) == 3 and len(chain.quote_ids) == 3
    ends = {chain.concept_ids[0], chain.concept_ids[2]}
    assert ends == {patience, cards.ids["La constancia vence"]}
    assert "—se opone a→" in chain.back and "La constancia no corre." in chain.back


def test_multiple_choice_draws_neighbours_and_never_a_second_right_answer(
    make_cards: Callable[..., Cards],
) -> None:
    cards = make_cards()
    cards.commit_graph()
    report = generate_cards(cards.services)
    mcq = {i.concept_ids[0]: i for i in report.proposed if i.item_type == ItemType.MCQ}
    patience = mcq[cards.ids["La paciencia da fruto"]]
    assert patience.front.startswith("¿Qué idea expresa esta cita?\n\nQuien no sabe esperar")
    assert patience.correct is not None and patience.options[patience.correct] == patience.back
    assert patience.back == "La paciencia da fruto"
    assert len(set(patience.options)) == len(patience.options) == 4
    # "Esperar es un arte" is supported by the same quote: it would be right too.
    assert SHARED not in patience.options
    # The linked concept comes first among the wrong options and says why it is wrong.
    assert "La prisa estropea la obra" in patience.options
    assert "«La prisa estropea la obra» se opone a «La paciencia da fruto»" in patience.explanation
    assert "es una idea vecina" in patience.explanation
    # The order is fixed by the card, so generating it again shows the same order.
    again = [i for i in cards.items() if i.id == patience.id]
    assert again[0].options == patience.options


def test_a_run_again_adds_nothing_and_keeps_every_decision(
    make_cards: Callable[..., Cards],
) -> None:
    cards = make_cards()
    cards.commit_graph()
    first = generate_cards(cards.services)
    calls = cards.calls()
    flashcards = [i for i in first.proposed if i.item_type == ItemType.FLASHCARD]
    approved, dropped = flashcards[0], flashcards[1]
    decide(cards.services, [approved.id], ItemStatus.APPROVED)
    edited = edit(cards.services, approved.id, back="Saber esperar, siempre")
    decide(cards.services, [dropped.id], ItemStatus.DROPPED)
    before = {i.id: i for i in cards.items()}

    again = generate_cards(cards.services)
    assert again.proposed == [] and again.duplicates == 0
    # Only the dropped flashcard's concept is asked again; its card comes back the same and is
    # not proposed again (its id is in the store, and a stored card is never rewritten).
    assert cards.calls() == calls + 1 and again.calls == 1
    assert again.skipped_concepts == len(cards.ids) - 1
    assert again.summary["already_stored"] >= 1
    after = {i.id: i for i in cards.items()}
    assert after == before
    assert after[approved.id].back == edited.back and after[approved.id].status == "approved"
    assert after[dropped.id].status == ItemStatus.DROPPED


def test_checks_drop_leaked_foreign_and_unsupported_answers(
    make_cards: Callable[..., Cards],
) -> None:
    answers = {
        **ANSWERS,
        # The question gives its answer away.
        "La prisa estropea la obra": {
            **ANSWERS["La prisa estropea la obra"],
            "question": "¿Por qué la prisa es la enemiga de la obra?",
            "answer": "La prisa",
        },
        # An English answer in a Spanish deck.
        "La constancia vence": {
            **ANSWERS["La constancia vence"],
            "answer": "Steady work beats every difficulty you will ever meet on the road",
        },
        # An answer the quote does not say.
        "La duda enseña a pensar": {
            **ANSWERS["La duda enseña a pensar"],
            "answer": "La astronomía moderna",
        },
        # An English question.
        SHARED: {
            **ANSWERS[SHARED],
            "question": "What attitude do we need towards the things that take long to arrive?",
        },
    }
    cards = make_cards(answers)
    cards.commit_graph()
    report = generate_cards(cards.services)
    guards = {(d["guard"], d["item_type"]) for d in report.dropped}
    assert {("leak", "flashcard"), ("language", "flashcard"), ("grounding", "flashcard")} <= guards
    reasons: dict[str, set[str]] = {}
    for drop in report.dropped:
        reasons.setdefault(drop["guard"], set()).add(drop["reason"])
    assert reasons["leak"] == {"the question contains its answer"}
    assert reasons["language"] == {
        "the answer reads as en, not es",
        "the question reads as en, not es",
    }
    (unsupported,) = reasons["grounding"]
    assert "not what its quote says" in unsupported
    assert report.summary["checks"]["grounding"] == 1
    flashcards = {i.concept_ids[0] for i in report.proposed if i.item_type == ItemType.FLASHCARD}
    assert flashcards == {cards.ids["La paciencia da fruto"]}
    # The dropped flashcards are kept as dropped, with the check's reason: their concepts are
    # not asked again, and a reader who finds a check wrong can approve one.
    aside = {i.concept_ids[0]: i for i in report.set_aside}
    assert set(aside) == set(cards.ids.values()) - {cards.ids["La paciencia da fruto"]}
    stored = {i.id: i for i in cards.items()}
    unsupported_card = aside[cards.ids["La duda enseña a pensar"]]
    assert stored[unsupported_card.id].status == ItemStatus.DROPPED
    assert stored[unsupported_card.id].provenance["dropped_by"] == "grounding"
    assert stored[unsupported_card.id].warnings[-1].startswith("check grounding: the answer is")
    assert report.summary["set_aside"] == 4 and report.duplicates == 1
    calls = cards.calls()
    again = generate_cards(cards.services)
    assert cards.calls() == calls and again.calls == 0 and again.proposed == []
    decide(cards.services, [unsupported_card.id], ItemStatus.APPROVED)
    approved = list_items(cards.services.store, ItemFilter(status=ItemStatus.APPROVED))
    assert [i.id for i in approved] == [unsupported_card.id]
    # The cloze of each concept is made all the same: it is the reader's quote (the two on
    # one quote are one card and its duplicate).
    made = [*report.proposed, *report.duplicate_items]
    clozes = {i.concept_ids[0] for i in made if i.item_type == ItemType.CLOZE}
    assert clozes == set(cards.ids.values())


def test_a_cloze_of_function_words_falls_back_to_a_content_word(
    make_cards: Callable[..., Cards],
) -> None:
    answers = {
        **ANSWERS,
        "La prisa estropea la obra": {
            **ANSWERS["La prisa estropea la obra"],
            "cloze_words": "es la",
        },
        "La constancia vence": {**ANSWERS["La constancia vence"], "cloze_words": "no está aquí"},
        # In the quote but too long: the pick is made among these words.
        "La paciencia da fruto": {
            **ANSWERS["La paciencia da fruto"],
            "cloze_words": "no verá crecer nada en su huerto",
        },
    }
    cards = make_cards(answers)
    cards.commit_graph()
    report = generate_cards(cards.services)
    made = [*report.proposed, *report.duplicate_items]
    clozes = {i.concept_ids[0]: i for i in made if i.item_type == ItemType.CLOZE}
    haste = clozes[cards.ids["La prisa estropea la obra"]]
    assert "holds no content word" in haste.warnings[0]
    assert haste.back in ("prisa", "obra", "enemiga", "hecha", "toda")
    assert haste.provenance["generator"] == "graph"
    patience = clozes[cards.ids["La paciencia da fruto"]]
    assert (
        "is 7 words" in patience.warnings[0] and "the word of those words" in patience.warnings[0]
    )
    # "crecer" is the one of them the concept shares ("... tiempo para crecer").
    assert patience.back == "crecer"
    assert patience.front == "Quien no sabe esperar no verá [...] nada en su huerto."
    # Its quote's other cloze (of "Esperar es un arte") has no warning: that one is kept.
    assert patience.duplicate_of == clozes[cards.ids[SHARED]].id
    steady = clozes[cards.ids["La constancia vence"]]
    assert "is not in the quote" in steady.warnings[0]
    assert steady.back.lower() in steady.cloze.lower()


def test_a_failed_call_loses_the_flashcard_not_the_cloze(
    make_cards: Callable[..., Cards],
) -> None:
    cards = make_cards()
    cards.llm.replies[card_question.NAME] = ["not json at all"]
    cards.commit_graph()
    report = generate_cards(cards.services)
    assert {d["guard"] for d in report.dropped if d["item_type"] == "flashcard"} == {"llm"}
    assert not any(i.item_type == ItemType.FLASHCARD for i in report.proposed)
    clozes = [i for i in report.proposed if i.item_type == ItemType.CLOZE]
    # One cloze per concept; the two on the same quote are one card, the other its duplicate.
    repeats = [i for i in report.duplicate_items if i.item_type == ItemType.CLOZE]
    assert len(clozes) + len(repeats) == len(cards.ids) and len(repeats) == 1
    assert all(i.provenance["generator"] == "graph" for i in clozes)
    assert any("failed, no flashcard" in w for w in report.summary["warnings"])


def test_near_identical_cards_are_clustered_and_the_stored_one_wins(
    make_cards: Callable[..., Cards],
) -> None:
    same = {
        "question": "¿Qué hace falta para que algo crezca en el huerto?",
        "answer": "Saber esperar bien",
        "quote": "q1",
        "cloze_words": "esperar",
    }
    answers = {
        **ANSWERS,
        "La paciencia da fruto": same,
        SHARED: {**same, "answer": "Saber esperar"},
    }
    cards = make_cards(answers)
    cards.commit_graph()
    report = generate_cards(cards.services)
    flashcards = [i for i in report.duplicate_items if i.item_type == ItemType.FLASHCARD]
    assert len(flashcards) == 1
    (duplicate,) = flashcards
    kept = {i.id: i for i in report.proposed}
    assert duplicate.duplicate_of in kept
    # The better variant is kept: fewer warnings, a checked answer, a shorter front, then
    # the smaller id; these two differ only by id.
    pair = {duplicate.id, duplicate.duplicate_of}
    assert duplicate.duplicate_of == min(pair)
    stored = {i.id: i for i in cards.items()}
    assert stored[duplicate.id].status == ItemStatus.DROPPED
    assert stored[duplicate.id].duplicate_of == duplicate.duplicate_of
    # The clozes of the shared quote ("esperar" in both) are one card too.
    assert any(i.item_type == ItemType.CLOZE for i in report.duplicate_items)
    assert report.duplicates == len(report.duplicate_items) >= 2
    assert report.summary["duplicate_share_before"] > 0.0
    assert report.summary["duplicate_share_after"] == 0.0
    assert {d["guard"] for d in report.dropped} >= {"duplicate"}

    # A new card as close to a stored one is the duplicate, whatever its quality.
    decide(cards.services, [duplicate.duplicate_of or ""], ItemStatus.APPROVED)
    dup = stored[duplicate.id]
    decide(cards.services, [dup.id], ItemStatus.DROPPED)
    cards.llm.replies[card_question.NAME] = [
        scripted(
            {
                SHARED: {
                    **same,
                    "question": "¿Qué hace falta para que algo crezca en el huerto, dime?",
                }
            }
        )
    ]
    again = generate_cards(cards.services, concept_ids=[cards.ids[SHARED]])
    new_flashcards = [i for i in again.duplicate_items if i.item_type == ItemType.FLASHCARD]
    assert [i.duplicate_of for i in new_flashcards] == [duplicate.duplicate_of]
    assert not any(i.item_type == ItemType.FLASHCARD for i in again.proposed)


def test_bad_requests_say_what_to_do(make_cards: Callable[..., Cards]) -> None:
    cards = make_cards()
    with pytest.raises(CardError, match="no reviewed concepts yet"):
        generate_cards(cards.services)
    book = cards.commit_graph()
    with pytest.raises(CardError, match="no concept with id 'nope'"):
        generate_cards(cards.services, concept_ids=["nope"])
    with pytest.raises(CardError, match="no content 'nope'"):
        generate_cards(cards.services, content_id="nope")
    empty = content_id("Libro sin leer", None)
    cards.services.store.apply(ChangeSet(contents=[Content(id=empty, title="Libro sin leer")]))
    with pytest.raises(CardError, match="approve its review first"):
        generate_cards(cards.services, content_id=empty)
    # A unique prefix names a concept, as the CLI shows ids.
    patience = cards.ids["La paciencia da fruto"]
    report = generate_cards(cards.services, concept_ids=[patience[:12]], content_id=book)
    assert {cid for i in report.proposed for cid in i.concept_ids[:1]} == {patience}
    assert report.calls == 1
    printed = json.loads(json.dumps(report.as_dict()))  # as `cards generate --json` prints it
    assert printed["proposed"][0]["concept_ids"][0] == patience
    assert printed["calls"] == 1 and printed["generation_id"] == report.generation_id


def approved_run(harness: Harness) -> Any:
    book = harness.add_content("El árbol de la ciencia", QUOTES)
    view = harness.runs.start(book)
    return harness.runs.answer(view.run_id, "approve")


def test_cards_are_proposed_after_a_run_is_approved_when_asked(tmp_path: Path) -> None:
    harness = Harness(tmp_path / "on", cards_after_approval=True)
    try:
        done = approved_run(harness)
        assert done.status == "committed"
        concepts = set(done.committed["concepts"])
        items = list_items(harness.services.store)
        assert (
            items
            and {i.concept_ids[0] for i in items if i.difficulty == Difficulty.EASY} == concepts
        )
        # Cards a check dropped are kept as dropped, not counted as proposed (which of the fake
        # model's cards a check drops follows its prompts' text).
        proposed = [i for i in items if i.status == ItemStatus.PROPOSED]
        assert done.committed["cards"]["proposed"] == len(proposed)
        assert harness.calls(card_question.NAME) == len(concepts)
    finally:
        harness.close()
    off = Harness(tmp_path / "off")
    try:
        approved_run(off)
        assert list_items(off.services.store) == []
    finally:
        off.close()


def test_a_failed_generation_after_approval_keeps_the_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(services: Services, **kwargs: Any) -> Any:
        raise RuntimeError("the embedder went away")

    monkeypatch.setattr(card_generation, "generate_cards", broken)
    harness = Harness(tmp_path / "home", cards_after_approval=True)
    try:
        done = approved_run(harness)
        assert done.status == "committed" and done.committed["concepts"]
        assert harness.services.store.counts()["Concept"] == len(done.committed["concepts"])
        assert any(
            "cards were not generated" in w and "the embedder went away" in w for w in done.warnings
        )
        assert harness.runs.view(done.run_id).status == "committed"
    finally:
        harness.close()
