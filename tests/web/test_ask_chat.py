"""The Ask page and API with a filter and as a conversation: real SQLite store, fake LLM with
scripted replies per call name."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from web.conftest import MEDITATIONS, MakeWeb, Web
from zettelgraph.models import Answer, ChangeSet
from zettelgraph.prompts import answer_question, condense_question

REPO = Path(__file__).resolve().parents[2]
WALDEN = REPO / "examples" / "walden.md"
CITE_FIRST = {
    "language": "en",
    "answerable": True,
    "sentences": [{"text": "Our life is what our thoughts make it.", "sources": ["q1"]}],
}


def token(web: Web, path: str = "/ask") -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', web.client.get(path).text)
    assert match
    return match.group(1)


def results(html: str) -> str:
    """The passages listed on the page (not the form's choices)."""
    return "".join(re.findall(r'<ol class="results">.*?</ol>', html, re.S))


def two_books(make_web: MakeWeb) -> tuple[Web, dict[str, str]]:
    web = make_web(MEDITATIONS, WALDEN)
    ids = {row["title"]: row["id"] for row in web.client.get("/api/contents").json()}
    return web, ids


def test_the_form_offers_sources_kinds_and_authors(make_web: MakeWeb) -> None:
    web, ids = two_books(make_web)
    html = web.client.get("/ask").text
    assert f'<option value="{ids["Meditations"]}">Meditations</option>' in html
    assert '<option value="book">book</option>' in html
    assert '<option value="Henry David Thoreau">' in html
    assert 'name="where"' in html and 'name="chat"' not in html


def test_search_within_a_source_a_place_and_errors(make_web: MakeWeb) -> None:
    web, ids = two_books(make_web)
    query = {"q": "life thoughts universe change woods"}
    both = results(web.client.get("/ask", params=query).text)
    assert "Meditations" in both and "Walden" in both
    only = web.client.get("/ask", params={**query, "content": ids["Walden; or, Life in the Woods"]})
    assert only.status_code == 200
    assert 'class="quote"' in results(only.text)
    assert "Marcus Aurelius" not in results(only.text)
    assert f'<option value="{ids["Walden; or, Life in the Woods"]}" selected>' in only.text
    pages = results(web.client.get("/ask", params={**query, "where": "p. 30-40"}).text)
    assert "p. 37" in pages and "p. 98" not in pages and "Location" not in pages
    bad = web.client.get("/ask", params={**query, "where": "pgs=3"})
    assert bad.status_code == 422 and "unknown unit &#39;pgs&#39;" in bad.text
    assert 'value="pgs=3"' in bad.text  # kept in the form to correct
    # The Search button asks no model: it lands on the GET page, which can be bookmarked.
    data = {"csrf_token": token(web), "question": "life", "mode": "search", "kind": "book"}
    moved = web.client.post("/ask", data=data, follow_redirects=False)
    assert moved.status_code == 303 and moved.headers["location"] == "/ask?q=life&kind=book"
    assert web.llm.calls == 0


def test_a_conversation_keeps_its_thread(make_web: MakeWeb) -> None:
    web, ids = two_books(make_web)
    meditations = ids["Meditations"]
    web.llm.replies[answer_question.NAME] = [CITE_FIRST]
    web.llm.replies[condense_question.NAME] = [{"question": "What makes a happy life?"}]
    form = {"csrf_token": token(web), "content": meditations}
    first = web.client.post("/ask", data={**form, "question": "What is change?"})
    assert first.status_code == 200, first.text
    chat = re.search(r'name="chat" value="(chat-[0-9a-f]+)"', first.text)
    assert chat and "Conversation" not in first.text
    assert f'<option value="{meditations}" selected>' in first.text  # the filter stays

    second = web.client.post(
        "/ask", data={**form, "question": "And a happy one?", "chat": chat.group(1)}
    )
    html = second.text
    assert second.status_code == 200, html
    thread = re.search(r'<section class="thread".*?</section>', html, re.S)
    assert thread and "What is change?" in thread.group(0)
    assert re.search(
        r'class="turn-text">Our life is what our thoughts make it\. <a class="cite" '
        rf'href="/sources/{meditations}#p-',
        thread.group(0),
    )
    assert "searched as: What makes a happy life?" in html
    assert re.search(r'<p class="answer-text">.*<a class="cite"', html, re.S)
    [turn_one, turn_two] = web.services.store.chat_answers(chat.group(1))
    assert (turn_one.turn, turn_two.turn) == (1, 2)
    assert turn_two.passage_filter["content_ids"] == [meditations]

    # The conversation can be reopened; its form carries the last filter.
    reopened = web.client.get("/ask", params={"chat": chat.group(1)}).text
    assert "What is change?" in reopened and "And a happy one?" in reopened
    assert f'<option value="{meditations}" selected>' in reopened
    assert 'href="/ask">New conversation' in reopened
    assert web.client.get("/ask", params={"chat": "chat-nope"}).status_code == 404
    lost = web.client.post("/ask", data={**form, "question": "Why?", "chat": "chat-nope"})
    assert lost.status_code == 404


def test_api_filters_and_chats(web: Web) -> None:
    search: dict[str, Any] = {"q": "universe change life", "where": "pages=90-100"}
    found = web.client.get("/api/search", params=search).json()["results"]
    assert [r["location_label"] for r in found] == ["Book VII, p. 98"]
    by = web.client.get("/api/search", params={"q": "life", "author": "MARCUS aurelius"})
    assert {r["author"] for r in by.json()["results"]} == {"Marcus Aurelius"}
    bad = web.client.get("/api/search", params={"q": "life", "kind": "pfd"})
    assert bad.status_code == 422 and "no content of that kind" in bad.json()["detail"]

    web.llm.replies[answer_question.NAME] = [CITE_FIRST]
    web.llm.replies[condense_question.NAME] = [{"question": "What did Marcus say of change?"}]
    body = {"question": "What is change?", "where": ["pages=30-40"]}
    first = web.client.post("/api/ask", json=body, headers=web.csrf()).json()
    assert first["turn"] == 1 and first["chat_id"].startswith("chat-")
    assert first["passage_filter"]["places"] == [{"unit": "page", "start": 30.0, "end": 40.0}]
    assert [p["location_label"] for p in first["passages"]] == ["Book IV, p. 37"]
    follow = {"question": "And then?", "chat_id": first["chat_id"]}
    second = web.client.post("/api/ask", json=follow, headers=web.csrf()).json()
    assert second["turn"] == 2 and second["standalone_question"] == "What did Marcus say of change?"
    assert second["passage_filter"] == first["passage_filter"]  # kept from turn 1
    cleared = {**follow, "where": []}
    third = web.client.post("/api/ask", json=cleared, headers=web.csrf()).json()
    assert third["passage_filter"] == {} and len(third["passages"]) > 1
    thread = web.client.get(f"/api/chats/{first['chat_id']}").json()
    assert [t["turn"] for t in thread["turns"]] == [1, 2, 3]
    assert thread["turns"][1]["citations"] == second["citations"]
    assert web.client.get("/api/chats/chat-nope").status_code == 404
    nope = {"question": "Why?", "chat_id": "chat-nope"}
    assert web.client.post("/api/ask", json=nope, headers=web.csrf()).status_code == 404


def test_each_answer_has_its_own_page_and_the_history_lists_chats(make_web: MakeWeb) -> None:
    web, _ = two_books(make_web)
    web.llm.replies[answer_question.NAME] = [CITE_FIRST]
    web.llm.replies[condense_question.NAME] = [{"question": "What makes a happy life?"}]
    assert "No questions yet" in web.client.get("/ask/history").text
    form = {"csrf_token": token(web)}
    asked = web.client.post(
        "/ask", data={**form, "question": "What is change?"}, follow_redirects=False
    )
    first = asked.headers["location"]
    assert asked.status_code == 303 and re.fullmatch(r"/ask/chat-[0-9a-f]+/1", first)
    chat = first.split("/")[2]
    calls = web.llm.calls
    page = web.client.get(first).text  # a reload asks nothing again
    assert web.llm.calls == calls
    assert '<h2 class="asked">What is change?</h2>' in page
    assert re.search(r'<p class="answer-text">Our life is .*<a class="cite" href="/sources/', page)
    assert "Cited passages" in page and "Other passages found" in page
    assert f'name="chat" value="{chat}"' in page  # the form continues this chat

    follow = {**form, "question": "And a happy one?", "chat": chat}
    second = web.client.post("/ask", data=follow, follow_redirects=False).headers["location"]
    assert second == f"/ask/{chat}/2"
    latest = web.client.get(f"/ask/{chat}").text
    assert '<h2 class="asked">And a happy one?</h2>' in latest
    assert f'<a href="{first}">What is change?</a>' in latest  # the earlier turn, linked
    older = web.client.get(first).text
    assert "The conversation goes on" in older and f'href="{second}"' in older

    other = web.client.post("/ask", data={**form, "question": "Where are the woods?"})
    assert other.status_code == 200
    history = web.client.get("/ask/history").text
    assert history.index("Where are the woods?") < history.index("What is change?")
    assert f'<a href="{second}">What is change?</a>' in history  # opens the latest turn
    assert f'<a href="{second}">And a happy one?</a>' in history
    assert "2 turns" in history and "1 turn ·" in history
    assert web.client.get(f"/ask/{chat}/3").status_code == 404
    assert web.client.get("/ask/chat-nope/1").status_code == 404
    assert web.client.get("/ask/chat-nope").status_code == 404
    # An answer stored before chats existed is listed too, with no page of its own.
    old = Answer(id="answer-old", question="An old question?", answer="No.", answerable=False)
    web.services.store.apply(ChangeSet(answers=[old]))
    assert '<p class="card-title">An old question?</p>' in web.client.get("/ask/history").text
