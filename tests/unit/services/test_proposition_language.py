"""A passage's propositions are in its language (issue 31): the offline model, told in
English to keep the passage's language, wrote a Spanish passage's statements in English; they
share its names, so the word-overlap check kept them. Real SQLite store, scripted fake model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zettelgraph.context import Services, open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import ChangeSet, Content, Quote, Relation, content_id, quote_id
from zettelgraph.packs.relations import QUOTED_IN
from zettelgraph.prompts import split_propositions
from zettelgraph.services.propositions import make_propositions, passage_propositions
from zettelgraph.settings import Settings

PASSAGE = (
    "Lady Gaga, la seis veces ganadora del Grammy y nominada al Óscar, cantó el himno "
    "nacional estadounidense; mientras que Marlee Matlin, la ganadora del Óscar, lo traducía "
    "a la lengua de signos americana."
)
ENGLISH = [
    "Lady Gaga, the six-time Grammy winner and Oscar nominee, sang the national anthem.",
    "Marlee Matlin, the Oscar winner, translated the anthem into American Sign Language.",
]
SPANISH = "Lady Gaga cantó el himno nacional estadounidense en la final."


def _services(home: Path, statements: list[str]) -> tuple[Services, Quote]:
    settings = Settings(home=home, llm="fake", embeddings="hash", llm_backoff=0.0)
    reply: dict[str, Any] = {"statements": statements}
    llm = FakeChatModel(replies={split_propositions.NAME: [reply]})
    services = open_services(settings, llms=ChatModels(settings, preset={"fake": llm}))
    cid = content_id("Super Bowl 50", None)
    quote = Quote(id=quote_id(cid, PASSAGE), content_id=cid, text=PASSAGE, position=0)
    services.store.ensure_embedder(services.embedder.name, services.embedder.dim)
    services.store.apply(
        ChangeSet(
            contents=[Content(id=cid, title="Super Bowl 50", kind="markdown")],
            quotes=[quote],
            relations=[Relation(source_id=quote.id, target_id=cid, type=QUOTED_IN)],
            vectors={quote.id: services.embedder.embed([PASSAGE])[0]},
        )
    )
    return services, quote


@pytest.fixture
def made(tmp_path: Path) -> Iterator[list[Services]]:
    opened: list[Services] = []
    yield opened
    for services in opened:
        services.close()


def test_statements_in_another_language_are_dropped_and_said(
    tmp_path: Path, made: list[Services]
) -> None:
    services, quote = _services(tmp_path / "home", [ENGLISH[0], SPANISH, ENGLISH[1]])
    made.append(services)

    report = make_propositions(services, quote.content_id)

    _, stored = passage_propositions(services, quote.id)
    assert [p.text for p in stored] == [SPANISH]
    assert report.dropped == 2 and report.propositions == 1
    assert any(
        "2 of its statements were not in the passage's language" in w for w in report.warnings
    )


def test_a_passage_whose_every_statement_is_off_language_keeps_its_sentences(
    tmp_path: Path, made: list[Services]
) -> None:
    services, quote = _services(tmp_path / "home", ENGLISH)
    made.append(services)

    report = make_propositions(services, quote.content_id)

    _, stored = passage_propositions(services, quote.id)
    assert [p.text for p in stored] == [PASSAGE]  # one sentence: the passage itself
    assert report.dropped == 2
    assert any("its sentences were taken instead" in w for w in report.warnings)
