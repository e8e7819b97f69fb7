"""The Cards and Study pages and their JSON API end to end: a committed graph of Meditations
(the fake LLM's run, approved), cards written through the store as generation writes them,
then listing, approving, dropping and editing through the forms and the API, and studying
with FSRS: a rating writes a ReviewLog and moves the card's due date."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import pytest
from pydantic import SecretStr

from web.conftest import MEDITATIONS, MakeWeb, Web
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Difficulty,
    ItemStatus,
    ItemType,
    LearningItem,
    ReviewLog,
    learning_item_id,
)
from zettelgraph.services import browse
from zettelgraph.services.cards import all_items

SCRIPT = "<script>alert(1)</script>"
TOKEN = "a-long-random-test-token-0123456789"


def card(
    concepts: list[str], quotes: list[str], content: str, front: str, **kw: Any
) -> LearningItem:
    fields: dict[str, Any] = {
        "item_type": ItemType.FLASHCARD,
        "front": front,
        "back": "An answer",
        "difficulty": Difficulty.EASY,
        "concept_ids": concepts,
        "quote_ids": quotes,
        "content_ids": [content],
        "provenance": {"generator": "test"},
        **kw,
    }
    item_id = learning_item_id(str(fields["item_type"]), concepts, front)
    return LearningItem(id=item_id, **fields)


@pytest.fixture
def carded(web: Web) -> dict[str, Any]:
    """Meditations extracted and approved, and four proposed cards on its concepts: a
    flashcard whose text is HTML, a cloze in a quote, a multiple choice and a relation."""
    run = web.start_run()
    web.state.runs.answer(run["run_id"], "approve")
    store = web.services.store
    [first] = store.list_concepts()  # what the fake model proposes
    second = Concept(id="concept-second", title="Acceptance", concept="Accept what comes.")
    store.apply(ChangeSet(concepts=[second]))
    quotes = [q["id"] for q in browse.concept_detail(store, first)["quotes"]]
    assert quotes
    [quote] = store.get_quotes(quotes[:1])
    content = quote.content_id
    word = max(quote.text.split(), key=len).strip(".,;:")
    start = quote.text.index(word)
    items = {
        "flash": card(
            [first.id],
            quotes[:1],
            content,
            f"What does {SCRIPT} say about change?",
            back="That <b>everything</b> flows",
            explanation=f"Because {SCRIPT}",
            warnings=["check: <i>answer</i> supported"],
        ),
        "cloze": card(
            [first.id],
            quotes[:1],
            content,
            quote.text[:start] + "[...]" + quote.text[start + len(word) :],
            item_type=ItemType.CLOZE,
            back=word,
            cloze=quote.text[:start] + "{{c1::" + word + "}}" + quote.text[start + len(word) :],
        ),
        "mcq": card(
            [first.id],
            quotes[:1],
            content,
            "Which idea does this quote support?",
            item_type=ItemType.MCQ,
            back=first.title,
            options=[second.title, first.title, "Neither"],
            correct=1,
            explanation="The other options are neighbouring ideas.",
            difficulty=Difficulty.MEDIUM,
        ),
        "relation": card(
            [first.id, second.id],
            quotes[:1],
            content,
            f"How does {first.title} relate to {second.title}?",
            item_type=ItemType.RELATION,
            back="One leads to the other",
            difficulty=Difficulty.HARD,
        ),
    }
    store.apply(ChangeSet(learning_items=list(items.values())))
    return {
        "ids": {name: item.id for name, item in items.items()},
        "content": content,
        "first": first,
        "second": second,
        "quote": quote,
        "word": word,
    }


def form_token(page: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match, "no csrf_token field in the page's forms"
    return match.group(1)


def meta_token(page: str) -> str:
    match = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert match, "no csrf meta tag"
    return match.group(1)


def item(web: Web, item_id: str) -> LearningItem:
    [found] = web.services.store.get_learning_items([item_id])
    return found


def logs(web: Web) -> list[ReviewLog]:
    from zettelgraph.services.study import review_logs

    return list(review_logs(web.services.store))


def approve_all(web: Web) -> None:
    token = form_token(web.client.get("/cards").text)
    done = web.client.post(
        "/cards", data={"csrf_token": token, "decision": "approve_all"}, follow_redirects=False
    )
    assert done.status_code == 303, done.text


# --- cards ------------------------------------------------------------------------------


def test_cards_page_lists_proposed_cards_with_their_concepts_and_quotes(
    web: Web, carded: dict[str, Any]
) -> None:
    page = web.client.get("/cards")
    assert page.status_code == 200
    html = page.text
    assert 'class="active" aria-current="page">Cards' in html
    for item_id in carded["ids"].values():
        assert f'id="card-{item_id}"' in html
        assert f'name="ids" value="{item_id}" form="bulk"' in html
        assert f'action="/cards/{item_id}/edit"' in html
    assert f'href="/concepts/{carded["first"].id}"' in html
    assert f'href="/concepts/{carded["second"].id}"' in html
    assert f'href="/sources/{carded["content"]}#p-{carded["quote"].id}"' in html
    assert 'Proposed <span class="count">4</span>' in html
    assert "Multiple choice" in html and "Cloze" in html and "Relation" in html
    # The MCQ's right option is marked, the others are not.
    options = re.search(r'<ol class="options"[^>]*>(.*?)</ol>', html, re.S)
    assert options
    assert re.search(
        rf'<li class="correct">{re.escape(carded["first"].title)} <span class="ok"',
        options.group(1),
    )
    assert options.group(1).count('class="correct"') == 1
    assert "The other options are neighbouring ideas." in html
    assert "Approve selected" in html and "Drop selected" in html
    assert "Approve all 4 proposed" in html
    assert 'action="/cards/generate"' in html
    # Everything from the graph or a model is text.
    assert "<script>alert" not in html and "<b>everything" not in html and "<i>answer" not in html
    assert "What does &lt;script&gt;alert(1)&lt;/script&gt; say" in html
    assert "check: &lt;i&gt;answer&lt;/i&gt; supported" in html

    assert "No approved cards" in web.client.get("/cards?status=approved").text
    other_book = web.client.get("/cards", params={"content": "nope"}).text
    assert "No cards waiting for review" in other_book
    assert web.client.get("/cards?status=bogus").status_code == 422


def test_approve_and_drop_selected_then_approve_all(web: Web, carded: dict[str, Any]) -> None:
    ids = carded["ids"]
    token = form_token(web.client.get("/cards").text)
    approved = web.client.post(
        "/cards",
        data={"csrf_token": token, "decision": "approved", "ids": [ids["flash"], ids["mcq"]]},
        follow_redirects=False,
    )
    assert approved.status_code == 303
    assert approved.headers["location"] == "/cards?status=proposed&done=approved&n=2"
    listing = web.client.get(approved.headers["location"]).text
    assert "2 cards approved." in listing
    assert f'id="card-{ids["flash"]}"' not in listing  # no longer proposed
    assert item(web, ids["flash"]).status == ItemStatus.APPROVED
    assert item(web, ids["flash"]).provenance["decisions"][-1]["status"] == "approved"

    dropped = web.client.post(
        "/cards",
        data={
            "csrf_token": token,
            "decision": "dropped",
            "ids": [ids["cloze"]],
            "content": carded["content"],
        },
    )
    assert dropped.status_code == 200 and "1 card dropped." in dropped.text
    assert item(web, ids["cloze"]).status == ItemStatus.DROPPED
    assert f'id="card-{ids["cloze"]}"' in web.client.get("/cards?status=dropped").text

    nothing = web.client.post("/cards", data={"csrf_token": token, "decision": "dropped"})
    assert nothing.status_code == 400
    assert "tick the cards to approve or drop first" in nothing.text
    assert 'id="bulk"' in nothing.text  # the list again, with the message
    missing = web.client.post(
        "/cards", data={"csrf_token": token, "decision": "approved", "ids": ["item-nope"]}
    )
    assert missing.status_code == 404 and "no card" in missing.text

    every = web.client.post(
        "/cards", data={"csrf_token": token, "decision": "approve_all"}, follow_redirects=False
    )
    assert every.headers["location"] == "/cards?status=proposed&done=approved&n=1"
    statuses = {i.id: i.status for i in all_items(web.services.store)}
    assert statuses[ids["relation"]] == ItemStatus.APPROVED
    assert statuses[ids["cloze"]] == ItemStatus.DROPPED  # a dropped card stays dropped
    again = web.client.post("/cards", data={"csrf_token": token, "decision": "approve_all"})
    assert again.status_code == 400 and "no proposed cards to approve" in again.text


def test_edit_form_saves_approves_and_shows_refusals(web: Web, carded: dict[str, Any]) -> None:
    ids = carded["ids"]
    token = form_token(web.client.get("/cards").text)
    saved = web.client.post(
        f"/cards/{ids['flash']}/edit",
        data={
            "csrf_token": token,
            "front": "  What flows, <says> Heraclitus?  ",
            "back": "Everything",
            "explanation": "",
            "status": "proposed",
            "page": "1",
        },
        follow_redirects=False,
    )
    assert saved.status_code == 303
    location = saved.headers["location"]
    assert location.startswith("/cards?status=proposed&done=edited&n=1&card=")
    assert location.endswith(f"#card-{ids['flash']}")
    assert "saved and approved" in web.client.get(location).text
    edited = item(web, ids["flash"])
    assert edited.front == "What flows, <says> Heraclitus?"
    assert edited.back == "Everything" and edited.explanation == ""
    assert edited.status == ItemStatus.APPROVED
    assert edited.provenance["decisions"][-1]["edited"] == ["back", "explanation", "front"]

    # The cloze's answer must be words of its quote; the MCQ's answer cannot be edited.
    cloze = web.client.post(
        f"/cards/{ids['cloze']}/edit", data={"csrf_token": token, "back": "not in the quote"}
    )
    assert cloze.status_code == 400
    assert "is not in the card&#39;s quote" in cloze.text
    assert 'class="error-box"' in cloze.text and "Edit" in cloze.text
    assert item(web, ids["cloze"]).status == ItemStatus.PROPOSED
    mcq = web.client.post(
        f"/cards/{ids['mcq']}/edit", data={"csrf_token": token, "back": "Neither"}
    )
    assert mcq.status_code == 400 and "multiple-choice" in mcq.text
    empty = web.client.post(f"/cards/{ids['mcq']}/edit", data={"csrf_token": token, "front": " "})
    assert empty.status_code == 400 and "cannot be empty" in empty.text
    same = web.client.post(
        f"/cards/{ids['relation']}/edit",
        data={"csrf_token": token, "front": item(web, ids["relation"]).front},
    )
    assert same.status_code == 400 and "nothing changed" in same.text

    # Without a list to go back to, the card's own page.
    own = web.client.post(
        f"/cards/{ids['mcq']}/edit",
        data={"csrf_token": token, "front": "Which idea?"},
        follow_redirects=False,
    )
    assert own.headers["location"] == f"/cards/{ids['mcq']}?saved=1"
    page = web.client.get(own.headers["location"]).text
    assert "Saved and approved." in page and "Which idea?" in page
    assert f'href="/study/{ids["mcq"]}"' in page
    assert web.client.get("/cards/item-nope").status_code == 404
    missing = web.client.post("/cards/item-nope/edit", data={"csrf_token": token, "front": "x"})
    assert missing.status_code == 404


def test_card_posts_need_the_csrf_token(web: Web, carded: dict[str, Any]) -> None:
    ids = carded["ids"]
    web.client.get("/cards")  # the browser has its cookie; the forms below lack the field
    posts = [
        ("/cards", {"decision": "approve_all"}),
        (f"/cards/{ids['flash']}/edit", {"front": "changed"}),
        (f"/study/{ids['flash']}", {"rating": "3"}),
        ("/cards/generate", {}),
    ]
    for path, data in posts:
        refused = web.client.post(path, data=data)
        assert refused.status_code == 403, path
        assert "CSRF" in refused.text
        wrong = web.client.post(path, data={**data, "csrf_token": "x" * 43})
        assert wrong.status_code == 403, path
    api_posts: list[tuple[str, dict[str, Any]]] = [
        ("/api/cards/decide", {"ids": [ids["flash"]], "status": "approved"}),
        (f"/api/cards/{ids['flash']}/edit", {"front": "changed"}),
        (f"/api/study/{ids['flash']}", {"rating": 3}),
        ("/api/cards/generate", {}),
    ]
    for path, body in api_posts:
        assert web.client.post(path, json=body).status_code == 403, path
    assert {i.status for i in all_items(web.services.store)} == {ItemStatus.PROPOSED}
    assert item(web, ids["flash"]).front.startswith("What does")
    assert logs(web) == []


def test_token_rule_holds_for_card_routes(make_web: MakeWeb) -> None:
    web = make_web(MEDITATIONS, web_token=SecretStr(TOKEN))
    client = web.client
    for path in ("/cards", "/study", "/api/cards", "/api/study/next", "/api/study/stats"):
        assert client.get(path).status_code == 401, path
    assert (
        client.post("/api/cards/decide", json={"ids": ["x"], "status": "approved"}).status_code
        == 401
    )
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    assert client.get("/api/cards", headers=bearer).json() == []
    # A script with the bearer token needs no CSRF token.
    missing = client.post(
        "/api/cards/decide", json={"ids": ["item-x"], "status": "approved"}, headers=bearer
    )
    assert missing.status_code == 404


# --- study ------------------------------------------------------------------------------


def test_study_page_shows_the_next_card_and_a_rating_moves_it(
    web: Web, carded: dict[str, Any]
) -> None:
    empty = web.client.get("/study").text
    assert "Nothing to study now" in empty
    assert "4 cards wait for your review" in empty and 'href="/cards?status=proposed"' in empty
    approve_all(web)

    page = web.client.get("/study")
    assert page.status_code == 200
    html = page.text
    assert 'class="active" aria-current="page">Study' in html
    assert re.search(r"Due now <strong>0</strong>", html)
    assert re.search(r"New today <strong>4</strong>", html)
    assert re.search(r"Reviewed today <strong>0</strong>", html)
    first = re.search(r'<form method="post" action="/study/([^"]+)" class="ratings"', html)
    assert first
    item_id = first.group(1)
    assert item(web, item_id).difficulty == Difficulty.EASY  # easy cards first
    assert '<details class="reveal">' in html and "Show answer" in html
    for name, label in (
        ("Again", r"\d+m"),
        ("Hard", r"\d+m"),
        ("Good", r"\d+m"),
        ("Easy", r"\d+d"),
    ):
        assert re.search(rf'data-key="\d">{name} <span class="interval">{label}</span>', html), name
    assert '<details class="reveal" open>' in web.client.get("/study?reveal=1").text
    shown = int(re.search(r'name="shown" value="(\d+)"', html).group(1))  # type: ignore[union-attr]
    seen = re.search(r'name="seen" value="([^"]*)"', html).group(1)  # type: ignore[union-attr]
    assert seen == "new"

    before = datetime.now().astimezone()
    rated = web.client.post(
        f"/study/{item_id}",
        data={
            "csrf_token": form_token(html),
            "rating": "3",
            "shown": str(shown - 4000),
            "seen": seen,
        },
        follow_redirects=False,
    )
    assert rated.status_code == 303 and rated.headers["location"] == "/study"
    [log] = logs(web)
    assert log.item_id == item_id and log.rating == 3 and log.state_before is None
    assert log.duration_ms is not None and 4000 <= log.duration_ms < 60_000
    studied = item(web, item_id)
    assert studied.schedule and studied.due is not None and studied.due > before
    assert studied.due == log.due

    after = web.client.get("/study").text
    assert re.search(r"Reviewed today <strong>1</strong>", after)
    assert re.search(r"New today <strong>3</strong>", after)
    assert f'action="/study/{item_id}"' not in after  # the next card now

    # A second submit of the same page (a double click) does not rate twice.
    twice = web.client.post(
        f"/study/{item_id}",
        data={"csrf_token": form_token(html), "rating": "3", "seen": seen},
        follow_redirects=False,
    )
    assert twice.headers["location"] == "/study?again=1"
    assert "already rated" in web.client.get(twice.headers["location"]).text
    assert len(logs(web)) == 1


def test_rating_a_card_not_approved_is_a_message(web: Web, carded: dict[str, Any]) -> None:
    ids = carded["ids"]
    token = meta_token(web.client.get("/study").text)  # nothing to study: no form
    refused = web.client.post(f"/study/{ids['flash']}", data={"csrf_token": token, "rating": "3"})
    assert refused.status_code == 400
    assert "is proposed: approve it" in refused.text and 'class="error-box"' in refused.text
    assert logs(web) == []
    assert web.client.get(f"/study/{ids['flash']}").status_code == 400
    approve_all(web)
    bad = web.client.post(f"/study/{ids['flash']}", data={"csrf_token": token, "rating": "7"})
    assert bad.status_code == 400 and "use 1-4" in bad.text
    named = web.client.post(
        f"/study/{ids['flash']}",
        data={"csrf_token": token, "rating": "easy"},
        follow_redirects=False,
    )
    assert named.status_code == 303
    [log] = logs(web)
    assert log.rating == 4 and log.duration_ms is None
    missing = web.client.post("/study/item-nope", data={"csrf_token": token, "rating": "3"})
    assert missing.status_code == 404 and 'href="/study"' in missing.text


def test_study_one_book_and_study_one_card(web: Web, carded: dict[str, Any]) -> None:
    approve_all(web)
    ids = carded["ids"]
    page = web.client.get("/study", params={"content": carded["content"]}).text
    assert f'<option value="{carded["content"]}" selected>' in page
    assert f'name="content" value="{carded["content"]}"' in page
    hostile = web.client.get(f"/study/{ids['flash']}").text
    assert "<script>alert" not in hostile and "<b>everything" not in hostile
    assert "What does &lt;script&gt;alert(1)&lt;/script&gt; say" in hostile
    assert "That &lt;b&gt;everything&lt;/b&gt; flows" in hostile
    mine = web.client.get(f"/study/{ids['relation']}").text  # hard, so not first in the queue
    assert f'action="/study/{ids["relation"]}"' in mine
    token = form_token(mine)
    rated = web.client.post(
        f"/study/{ids['relation']}",
        data={"csrf_token": token, "rating": "1", "content": carded["content"]},
        follow_redirects=False,
    )
    assert rated.headers["location"] == f"/study?content={carded['content']}"
    assert "No approved cards from this book" in web.client.get("/study?content=nope").text


def test_when_nothing_is_due_the_page_says_when_next(web: Web, carded: dict[str, Any]) -> None:
    approve_all(web)
    token = form_token(web.client.get("/study").text)
    for item_id in carded["ids"].values():
        if item(web, item_id).status == ItemStatus.APPROVED:
            done = web.client.post(
                f"/study/{item_id}",
                data={"csrf_token": token, "rating": "4"},
                follow_redirects=False,
            )
            assert done.status_code == 303
    html = web.client.get("/study").text
    assert "Nothing to study now" in html
    due = min(i.due for i in all_items(web.services.store) if i.due)
    assert f"The next card is due {due.strftime('%Y-%m-%d')}" in html
    assert re.search(r"\(in \d+d\)", html)
    assert re.search(r"Reviewed today <strong>4</strong>", html)
    assert 'href="/cards?status=approved"' in html


# --- the JSON API -----------------------------------------------------------------------


def test_api_lists_decides_and_edits_cards(web: Web, carded: dict[str, Any]) -> None:
    ids = carded["ids"]
    every = web.client.get("/api/cards").json()
    assert {c["id"] for c in every} == set(ids.values())
    [mcq] = [c for c in every if c["id"] == ids["mcq"]]
    assert mcq["options"][mcq["correct"]] == carded["first"].title
    assert mcq["concepts"] == [
        {"id": carded["first"].id, "title": carded["first"].title, "missing": False}
    ]
    assert mcq["quotes"][0]["id"] == carded["quote"].id
    assert mcq["books"][0]["id"] == carded["content"]
    assert web.client.get("/api/cards", params={"status": "approved"}).json() == []
    assert len(web.client.get("/api/cards", params={"content": carded["content"]}).json()) == 4
    assert web.client.get("/api/cards", params={"content": "nope"}).json() == []
    assert web.client.get("/api/cards", params={"status": "maybe"}).status_code == 422

    decided = web.client.post(
        "/api/cards/decide",
        json={"ids": [ids["flash"], ids["cloze"]], "status": "approved"},
        headers=web.csrf(),
    )
    assert decided.status_code == 200, decided.text
    assert [c["status"] for c in decided.json()] == ["approved", "approved"]
    unknown = web.client.post(
        "/api/cards/decide", json={"ids": ["item-nope"], "status": "dropped"}, headers=web.csrf()
    )
    assert unknown.status_code == 404 and "item-nope" in unknown.json()["detail"]
    bad = web.client.post(
        "/api/cards/decide", json={"ids": [ids["flash"]], "status": "proposed"}, headers=web.csrf()
    )
    assert bad.status_code == 422

    edited = web.client.post(
        f"/api/cards/{ids['cloze']}/edit", json={"back": carded["word"]}, headers=web.csrf()
    )
    assert edited.status_code == 200, edited.text
    assert "{{c1::" + carded["word"] + "}}" in edited.json()["cloze"]
    refused = web.client.post(
        f"/api/cards/{ids['mcq']}/edit", json={"back": "Neither"}, headers=web.csrf()
    )
    assert refused.status_code == 400 and "multiple-choice" in refused.json()["detail"]
    nothing = web.client.post(f"/api/cards/{ids['mcq']}/edit", json={}, headers=web.csrf())
    assert nothing.status_code == 400 and "nothing to change" in nothing.json()["detail"]
    missing = web.client.post("/api/cards/item-nope/edit", json={"front": "x"}, headers=web.csrf())
    assert missing.status_code == 404


def test_api_study_next_rate_and_stats(web: Web, carded: dict[str, Any]) -> None:
    ids = carded["ids"]
    nothing = web.client.get("/api/study/next").json()
    assert nothing["card"] is None and nothing["due"] == nothing["new"] == 0
    refused = web.client.post(f"/api/study/{ids['flash']}", json={"rating": 3}, headers=web.csrf())
    assert refused.status_code == 400
    assert "approve it" in refused.json()["detail"]
    web.client.post(
        "/api/cards/decide",
        json={"ids": list(ids.values()), "status": "approved"},
        headers=web.csrf(),
    )

    upcoming = web.client.get("/api/study/next").json()
    assert upcoming["new"] == 4 and upcoming["due"] == 0
    card_id = upcoming["card"]["id"]
    assert [i["name"] for i in upcoming["intervals"]] == ["again", "hard", "good", "easy"]
    seconds = [i["seconds"] for i in upcoming["intervals"]]
    assert seconds == sorted(seconds) and seconds[0] > 0

    rated = web.client.post(
        f"/api/study/{card_id}", json={"rating": "good", "duration_ms": 5200}, headers=web.csrf()
    )
    assert rated.status_code == 200, rated.text
    body = rated.json()
    assert body["log"]["rating"] == 3 and body["log"]["duration_ms"] == 5200
    assert body["card"]["due"] is not None
    due = datetime.fromisoformat(body["card"]["due"])
    shown = next(i for i in upcoming["intervals"] if i["name"] == "good")
    assert abs((due - datetime.now().astimezone()).total_seconds() - shown["seconds"]) < 60
    assert [log.id for log in logs(web)] == [body["log"]["id"]]
    for wrong in ({"rating": 0}, {"rating": "meh"}):
        bad = web.client.post(f"/api/study/{card_id}", json=wrong, headers=web.csrf())
        assert bad.status_code == 400, wrong
    assert (
        web.client.post("/api/study/item-nope", json={"rating": 3}, headers=web.csrf()).status_code
        == 404
    )
    assert web.client.get("/api/study/next", params={"content": "nope"}).status_code == 404

    stats = web.client.get("/api/study/stats").json()
    assert stats["approved"] == 4 and stats["new"] == 3 and stats["learning"] == 1
    assert stats["reviews_today"] == 1 and stats["proposed"] == 0
    assert [book["approved"] for book in stats["books"]] == [4]
    assert stats["retention"] is None  # no learned card was due yet
    assert web.client.get("/api/study/next").json()["new"] == 3


def test_openapi_lists_the_card_endpoints(web: Web) -> None:
    paths = web.client.get("/api/openapi.json").json()["paths"]
    assert {
        "/api/cards": {"get"},
        "/api/cards/decide": {"post"},
        "/api/cards/{item_id}/edit": {"post"},
        "/api/cards/generate": {"post"},
        "/api/study/next": {"get"},
        "/api/study/{item_id}": {"post"},
        "/api/study/stats": {"get"},
    }.items() <= {path: set(ops) for path, ops in paths.items()}.items()
    assert "/cards" not in paths and "/study" not in paths  # pages stay out of the schema


# --- generation -------------------------------------------------------------------------


def test_generate_button_proposes_cards_and_says_what_was_set_aside(web: Web) -> None:
    nothing = web.client.post(
        "/cards/generate", data={"csrf_token": meta_token(web.client.get("/cards").text)}
    )
    assert nothing.status_code == 400 and "no reviewed concepts yet" in nothing.text
    run = web.start_run()
    web.state.runs.answer(run["run_id"], "approve")
    content = web.content_id()

    form = web.client.get("/cards/generate").text
    assert f'<option value="{content}">Meditations</option>' in form
    token = form_token(web.client.get("/cards").text)
    page = web.client.post("/cards/generate", data={"csrf_token": token, "content": content})
    assert page.status_code == 200, page.text
    html = page.text
    proposed = [i for i in all_items(web.services.store) if i.status == ItemStatus.PROPOSED]
    assert proposed, "the fake model's generation proposed nothing"
    count = len(proposed)
    assert f"<h2>{count} card{'' if count == 1 else 's'} proposed</h2>" in html
    for card_item in proposed:
        assert f'href="/cards/{card_item.id}"' in html
    assert f'href="/cards?status=proposed&amp;content={content}"' in html
    # What the checks set aside, each with its reason.
    dropped = re.findall(r'<tr><td class="nowrap">([^<]+)</td>.*?<td>([^<]+)</td></tr>', html, re.S)
    assert dropped and all(guard and reason for guard, reason in dropped)
    listing = web.client.get("/cards").text
    for card_item in proposed:
        assert f'id="card-{card_item.id}"' in listing

    again = web.client.post("/cards/generate", data={"csrf_token": token, "content": "nope"})
    assert again.status_code == 400 and "no content &#39;nope&#39;" in again.text


def test_api_generate(web: Web) -> None:
    empty = web.client.post("/api/cards/generate", json={}, headers=web.csrf())
    assert empty.status_code == 400 and "no reviewed concepts" in empty.json()["detail"]
    run = web.start_run()
    web.state.runs.answer(run["run_id"], "approve")
    done = web.client.post(
        "/api/cards/generate", json={"content_id": web.content_id()}, headers=web.csrf()
    )
    assert done.status_code == 200, done.text
    report = done.json()
    assert report["generation_id"].startswith("gen-") and report["calls"] >= 0
    stored = {i.id for i in all_items(web.services.store) if i.status == ItemStatus.PROPOSED}
    assert {c["id"] for c in report["proposed"]} == stored
    assert all({"guard", "reason"} <= set(d) for d in report["dropped"])
    for body in ({"content_id": "nope"}, {"concept_ids": ["nope"]}):
        missing = web.client.post("/api/cards/generate", json=body, headers=web.csrf())
        assert missing.status_code == 404, body


def test_two_ratings_sent_at_once_for_one_page_are_stored_once(
    web: Web, carded: dict[str, Any]
) -> None:
    """A double click reaches the app as two requests at once: each read the card, then each
    wrote a review (4 of 12 trials stored two). Real threads, real SQLite store."""
    import threading

    from zettelgraph.services import study

    approve_all(web)
    scheduler = study.scheduler_for(web.services.settings)
    for item_id in carded["ids"].values():
        seen = study.seen_mark(item(web, item_id))
        start = threading.Barrier(2)
        outcomes: list[str] = []

        def click(
            item_id: str = item_id,
            seen: str = seen,
            start: Any = start,
            outcomes: list[str] = outcomes,
        ) -> None:
            start.wait()
            try:
                study.rate(
                    web.services.store,
                    scheduler,
                    item_id,
                    3,
                    now=datetime.now().astimezone(),
                    seen=seen,
                )
                outcomes.append("rated")
            except study.AlreadyRatedError:
                outcomes.append("already")

        clicks = [threading.Thread(target=click) for _ in range(2)]
        for thread in clicks:
            thread.start()
        for thread in clicks:
            thread.join()
        assert sorted(outcomes) == ["already", "rated"], item_id
        assert [log.item_id for log in logs(web)].count(item_id) == 1


def test_generate_from_passages_page_and_api(web: Web) -> None:
    """Cards straight from a content's passages (issue 31): no concepts extracted first."""
    content = web.content_id()
    form = web.client.get("/cards/generate").text
    assert 'name="from_passages"' in form and f'<option value="{content}">Meditations' in form
    token = form_token(web.client.get("/cards").text)
    page = web.client.post("/cards/generate", data={"csrf_token": token, "from_passages": content})
    assert page.status_code == 200, page.text
    proposed = [i for i in all_items(web.services.store) if i.status == ItemStatus.PROPOSED]
    assert proposed and all(i.concept_ids == [] and len(i.quote_ids) == 1 for i in proposed)
    assert web.concept_count() == 0
    again = web.client.post(
        "/api/cards/generate", json={"from_passages": content}, headers=web.csrf()
    )
    assert again.status_code == 200, again.text
    assert again.json()["proposed"] == [] and again.json()["calls"] == 0
    missing = web.client.post(
        "/api/cards/generate", json={"from_passages": "nope"}, headers=web.csrf()
    )
    assert missing.status_code == 404
    both = web.client.post(
        "/api/cards/generate",
        json={"from_passages": content, "content_id": content},
        headers=web.csrf(),
    )
    assert both.status_code == 400 and "not both" in both.json()["detail"]
    # A code card's front keeps its indentation on the page.
    passage = proposed[0].quote_ids[0]
    front = "def area(r):\n    return ____"
    code = LearningItem(
        id=learning_item_id("code_completion", [passage], front),
        item_type=ItemType.CODE_COMPLETION,
        front=front,
        back="3.14 * r * r",
        quote_ids=[passage],
    )
    web.services.store.apply(ChangeSet(learning_items=[code]))
    listing = web.client.get("/cards?status=proposed").text
    assert '<p class="item-front code">def area(r):\n    return ____</p>' in listing
