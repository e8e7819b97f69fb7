"""The JSON API end to end with FastAPI's TestClient: review decisions (409 on a run already
decided, also when two race), feedback rounds, the token and Host rules, CSRF, browsing,
passages, search and ask, and `zettelgraph serve`'s refusal to listen beyond loopback without
a token. Real SQLite store and checkpoints; the LLM is the fake provider."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from web.conftest import BASE_URL, FAKE, MEDITATIONS, MakeWeb, Web, cli
from zettelgraph.prompts import answer_question
from zettelgraph.services.http_security import WebConfigError, check_bind
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app

TOKEN = "a-long-random-test-token-0123456789"
SCRIPT = "<script>alert(1)</script>"
FIELD_NOTES = f"""# Field notes

## Beavers

Beavers build dams of logs and mud across the northern rivers. A note said {SCRIPT} & more.

## Bees

Bees dance to tell the hive where the flowers are.

## Trees

Trees share sugar with their neighbours through fungal threads under the forest floor.
"""


def decide(web: Web, run_id: str, action: str, feedback: str | None = None) -> Any:
    body = {"action": action, "feedback": feedback}
    return web.client.post(f"/api/runs/{run_id}/decision", json=body, headers=web.csrf())


def run_status(web: Web, run_id: str) -> str:
    status: str = web.client.get(f"/api/runs/{run_id}").json()["status"]
    return status


def test_openapi_lists_every_endpoint(web: Web) -> None:
    paths = web.client.get("/api/openapi.json").json()["paths"]
    assert {
        "/api/runs": {"get"},
        "/api/runs/{run_id}": {"get"},
        "/api/runs/{run_id}/decision": {"post"},
        "/api/contents/{content_id}/runs": {"post"},
        "/api/concepts": {"get"},
        "/api/concepts/{concept_id}": {"get", "patch", "delete"},
        "/api/concepts/{concept_id}/deletion": {"get"},
        "/api/concepts/{concept_id}/relations/{other_id}": {"delete"},
        "/api/graph": {"get"},
        "/api/contents": {"get"},
        "/api/contents/{content_id}": {"get", "delete"},
        "/api/contents/{content_id}/removal": {"get"},
        "/api/removals": {"get"},
        "/api/passages/{passage_id}": {"get"},
        "/api/search": {"get"},
        "/api/ask": {"post"},
        "/api/answers": {"get"},
        "/api/csrf": {"get"},
    }.items() <= {path: set(ops) for path, ops in paths.items()}.items()
    decision = paths["/api/runs/{run_id}/decision"]["post"]
    assert "requestBody" in decision and "200" in decision["responses"]


def test_inbox_lists_waiting_runs_and_run_details(web: Web) -> None:
    assert web.client.get("/api/runs").json() == []
    run = web.start_run()
    [row] = web.client.get("/api/runs").json()
    assert row["run_id"] == run["run_id"]
    assert row["title"] == "Meditations"
    assert row["concepts"] == len(run["report"]["concepts"]) > 0
    assert row["age_seconds"] >= 0
    [every] = web.client.get("/api/runs", params={"status": "all"}).json()
    assert every["status"] == "awaiting_review" and "report" not in every
    detail = web.client.get(f"/api/runs/{run['run_id']}").json()
    assert detail["report"] == run["report"]
    assert web.client.get("/api/runs/run-nope").status_code == 404
    assert web.client.get("/api/runs", params={"status": "done"}).status_code == 422


def test_start_run_endpoint(web: Web) -> None:
    content_id = web.content_id()
    path = f"/api/contents/{content_id}/runs"
    started = web.client.post(path, json={"suggestions": "One idea per quote"}, headers=web.csrf())
    assert started.status_code == 200, started.text
    assert started.json()["status"] == "awaiting_review"
    assert started.json()["report"]["concepts"]
    # A second click while that run waits does not start another one.
    again = web.client.post(path, json={}, headers=web.csrf())
    assert again.status_code == 409
    assert len(web.client.get("/api/runs").json()) == 1
    missing = web.client.post("/api/contents/nope/runs", json={}, headers=web.csrf())
    assert missing.status_code == 404


def test_approve_writes_once_and_a_second_decision_is_409(web: Web) -> None:
    run = web.start_run()
    run_id = run["run_id"]
    approved = decide(web, run_id, "approve")
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "committed"
    concepts = web.concept_count()
    assert concepts == len(run["report"]["concepts"])
    for action, feedback in (("approve", None), ("feedback", "merge them"), ("abort", None)):
        late = decide(web, run_id, action, feedback)
        assert late.status_code == 409, late.text
        assert "not waiting for review" in late.json()["detail"]
    assert web.concept_count() == concepts
    assert run_status(web, run_id) == "committed"
    assert web.client.get("/api/runs").json() == []


def test_two_racing_decisions_exactly_one_wins(web: Web) -> None:
    run_id = web.start_run()["run_id"]
    headers = web.csrf()
    barrier = threading.Barrier(2)
    codes: dict[str, int] = {}

    def post(action: str) -> None:
        barrier.wait()
        response = web.client.post(
            f"/api/runs/{run_id}/decision", json={"action": action}, headers=headers
        )
        codes[action] = response.status_code

    threads = [threading.Thread(target=post, args=(a,)) for a in ("approve", "abort")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(codes.values()) == [200, 409], codes
    winner = next(action for action, code in codes.items() if code == 200)
    status = run_status(web, run_id)
    assert status == {"approve": "committed", "abort": "aborted"}[winner]
    assert (web.concept_count() > 0) == (winner == "approve")


def test_feedback_revises_the_report_and_abort_writes_nothing(web: Web) -> None:
    run = web.start_run()
    run_id = run["run_id"]
    assert run["report"].get("feedback_rounds", 0) == 0
    assert decide(web, run_id, "feedback", "   ").status_code == 422
    assert decide(web, run_id, "publish").status_code == 422
    revised = decide(web, run_id, "feedback", "Merge the first two concepts")
    assert revised.status_code == 200, revised.text
    view = revised.json()
    assert view["status"] == "awaiting_review"
    assert view["report"]["feedback_rounds"] == 1
    assert view["report"] != run["report"]
    [row] = web.client.get("/api/runs").json()
    assert row["feedback_rounds"] == 1
    aborted = decide(web, run_id, "abort")
    assert aborted.json()["status"] == "aborted"
    assert web.concept_count() == 0


def test_csrf_is_required_on_posts(web: Web) -> None:
    run_id = web.start_run()["run_id"]
    url = f"/api/runs/{run_id}/decision"
    headers = web.csrf()
    assert web.client.cookies.get("zg_session_80")  # the session the token is bound to
    for bad in ({}, {"X-CSRF-Token": "x" * 43}):
        refused = web.client.post(url, json={"action": "approve"}, headers=bad)
        assert refused.status_code == 403
        assert "CSRF" in refused.json()["detail"]
    assert web.client.post("/api/ask", json={"question": "why?"}).status_code == 403
    assert web.client.post(f"/api/contents/{web.content_id()}/runs", json={}).status_code == 403
    assert run_status(web, run_id) == "awaiting_review"
    assert web.concept_count() == 0
    assert web.services.store.answers() == []
    accepted = web.client.post(url, json={"action": "approve"}, headers=headers)
    assert accepted.status_code == 200
    assert accepted.json()["status"] == "committed"


def test_a_planted_csrf_cookie_or_another_origin_is_refused(web: Web) -> None:
    """Issue 28: any 32+ characters in the `zg_csrf` cookie, repeated in the form, used to
    pass; a page on another localhost port (which shares 127.0.0.1's cookies) could plant
    one and link, approve or rate."""
    run_id = web.start_run()["run_id"]
    url = f"/api/runs/{run_id}/decision"
    planted = "T" * 40
    web.client.cookies.set("zg_session_80", planted, domain="127.0.0.1")
    refused = web.client.post(url, json={"action": "approve"}, headers={"X-CSRF-Token": planted})
    assert refused.status_code == 403
    # The next page gives the browser a session of the app's own in place of the planted one;
    # no answer may be sniffed into a page.
    assert web.client.get("/api/csrf").headers["x-content-type-options"] == "nosniff"
    assert web.client.cookies.get("zg_session_80") != planted
    good = web.csrf()
    assert good["X-CSRF-Token"] != planted
    # A browser's POST from another port or site is refused even with the right token.
    for origin in ("http://127.0.0.1:9999", "http://evil.example"):
        other = web.client.post(url, json={"action": "approve"}, headers={**good, "Origin": origin})
        assert other.status_code == 403, origin
        assert "another site or port" in other.text
    by_referer = web.client.post(
        url,
        json={"action": "approve"},
        headers={**good, "Referer": "http://localhost:9999/page"},
    )
    assert by_referer.status_code == 403
    assert run_status(web, run_id) == "awaiting_review" and web.concept_count() == 0
    # The app's own origin (what the browser sends from its pages) passes.
    own = web.client.post(
        url, json={"action": "approve"}, headers={**good, "Origin": "http://127.0.0.1"}
    )
    assert own.status_code == 200, own.text
    assert own.json()["status"] == "committed"


def test_token_rule(make_web: MakeWeb) -> None:
    web = make_web(MEDITATIONS, web_token=SecretStr(TOKEN))
    client = web.client
    assert client.get("/api/runs").status_code == 401
    assert client.get("/api/runs", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/api/runs", params={"token": "wrong"}).status_code == 401
    # Opening any URL once with ?token= sets the cookie and drops the token from the URL.
    opened = client.get("/api/contents", params={"token": TOKEN}, follow_redirects=False)
    assert opened.status_code == 303
    assert opened.headers["location"] == "/api/contents"
    assert "zg_token" in opened.headers["set-cookie"].lower()
    assert "httponly" in opened.headers["set-cookie"].lower()
    assert client.get("/api/contents").status_code == 200
    # A script with the bearer token needs no cookie and no CSRF token.
    run_id = web.start_run()["run_id"]
    script = TestClient(client.app, base_url=BASE_URL)
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    done = script.post(f"/api/runs/{run_id}/decision", json={"action": "abort"}, headers=bearer)
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "aborted"


def test_host_rule_without_token(web: Web) -> None:
    evil = web.client.get("/api/runs", headers={"Host": "evil.example"})
    assert evil.status_code == 400
    assert TestClient(web.client.app).get("/api/runs").status_code == 400  # Host: testserver
    assert web.client.get("/api/runs", headers={"Host": "localhost:8765"}).status_code == 200


def test_serve_refuses_to_listen_beyond_loopback_without_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(WebConfigError, match="ZETTELGRAPH_WEB_TOKEN"):
        check_bind("0.0.0.0", None)
    check_bind("127.0.0.1", None)
    check_bind("0.0.0.0", TOKEN)
    # Long enough but no secret: sixteen times one character (issue 28).
    with pytest.raises(WebConfigError, match="weak 16-character"):
        check_bind("0.0.0.0", "a" * 16)
    served: list[dict[str, Any]] = []
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(kw))
    refused = cli(tmp_path / "home", "serve", "--host", "0.0.0.0")
    assert refused.exit_code == 2
    assert "refusing to serve on 0.0.0.0" in refused.stderr
    assert served == []
    monkeypatch.setenv("ZETTELGRAPH_WEB_TOKEN", TOKEN)
    ok = cli(tmp_path / "home", "serve", "--host", "0.0.0.0", "--port", "9999")
    assert ok.exit_code == 0, ok.output
    assert served == [{"host": "0.0.0.0", "port": 9999, "log_level": "info"}]
    assert "http://0.0.0.0:9999/?token=YOUR_TOKEN" in ok.stdout
    assert TOKEN not in ok.output


def test_concepts_graph_and_contents(web: Web) -> None:
    content_id = web.content_id()
    run_id = web.start_run(content_id)["run_id"]
    assert decide(web, run_id, "approve").status_code == 200
    rows = web.client.get("/api/concepts").json()
    assert len(rows) == web.concept_count() > 0
    first = rows[0]
    found = web.client.get("/api/concepts", params={"q": first["title"]}).json()
    assert first["id"] in [r["id"] for r in found]
    assert web.client.get("/api/concepts", params={"q": "zzz-nothing"}).json() == []
    detail = web.client.get(f"/api/concepts/{first['id']}").json()
    assert detail["provenance"]["run"] == run_id
    assert detail["quotes"] and detail["quotes"][0]["content"] == "Meditations"
    assert web.client.get("/api/concepts/nope").status_code == 404

    around = web.client.get("/api/graph", params={"concept": first["id"]}).json()
    assert first["id"] in [n["id"] for n in around["nodes"]]
    by_content = web.client.get("/api/graph", params={"content": content_id}).json()
    assert {n["id"] for n in by_content["nodes"]} == {r["id"] for r in rows}
    clamped = web.client.get("/api/graph", params={"concept": first["id"], "limit": 0}).json()
    assert [n["id"] for n in clamped["nodes"]] == [first["id"]]
    deep = web.client.get("/api/graph", params={"concept": first["id"], "depth": 99})
    assert deep.status_code == 200
    assert web.client.get("/api/graph").status_code == 422
    assert web.client.get("/api/graph", params={"concept": "nope"}).status_code == 404
    assert web.client.get("/api/graph", params={"content": "nope"}).status_code == 404

    [content] = web.client.get("/api/contents").json()
    assert content["id"] == content_id and content["author"] == "Marcus Aurelius"
    assert content["quotes"] == 3 and content["processed_date"]
    shown = web.client.get(f"/api/contents/{content_id}").json()
    assert shown["author"]["name"] == "Marcus Aurelius"
    assert [q["page"] for q in shown["quotes"]] == ["11", "37", "98"]
    assert web.client.get("/api/contents/nope").status_code == 404


def test_passage_in_its_section_comes_back_verbatim(make_web: MakeWeb, tmp_path: Path) -> None:
    notes = tmp_path / "field.md"
    notes.write_text(FIELD_NOTES, encoding="utf-8")
    web = make_web(notes)
    content_id = web.content_id("Field notes")
    quotes = web.client.get(f"/api/contents/{content_id}").json()["quotes"]
    first, second, third = (q["id"] for q in quotes)
    shown = web.client.get(f"/api/passages/{first}")
    assert shown.status_code == 200
    body = shown.json()
    assert SCRIPT in body["passage"]["text"]
    assert body["passage"]["content"] == "Field notes"
    assert body["section"]["title"].endswith("Beavers")
    assert SCRIPT in body["section"]["text"]
    assert (body["previous_id"], body["next_id"]) == (None, second)
    middle = web.client.get(f"/api/passages/{second}").json()
    assert (middle["previous_id"], middle["next_id"]) == (first, third)
    assert web.client.get(f"/api/passages/{third}").json()["next_id"] is None
    assert web.client.get("/api/passages/nope").status_code == 404
    assert web.client.get("/api/passages/..%2F..%2Fetc%2Fpasswd").status_code == 404


def test_search_with_citations(web: Web) -> None:
    found = web.client.get("/api/search", params={"q": "universe change thoughts", "k": 2})
    assert found.status_code == 200, found.text
    body = found.json()
    assert body["query"] == "universe change thoughts"
    top = body["results"][0]
    assert "universe is change" in top["text"]
    assert top["n"] == 1 and top["content_title"] == "Meditations"
    assert top["author"] == "Marcus Aurelius" and top["methods"]
    assert len(body["results"]) <= 2
    assert web.client.get("/api/search", params={"q": "x", "recipe": "magic"}).status_code == 422
    assert web.client.get("/api/search", params={"q": "x", "k": 0}).status_code == 422
    assert web.client.get("/api/search").status_code == 422
    fulltext = web.client.get("/api/search", params={"q": "universe", "recipe": "fulltext"})
    assert [r["methods"] for r in fulltext.json()["results"]] == [["fulltext"]]


def test_ask_cites_returned_passages_and_stores_the_answer(web: Web) -> None:
    reply = {
        "language": "en",
        "answerable": True,
        "sentences": [
            {"text": "Life is what our thoughts make it.", "sources": ["q1"]},
            {"text": "Little is needed for a happy life.", "sources": ["q1", "q2"]},
        ],
    }
    web.llm.replies[answer_question.NAME] = [reply]
    question = "What makes a happy life?"
    asked = web.client.post("/api/ask", json={"question": question, "k": 3}, headers=web.csrf())
    assert asked.status_code == 200, asked.text
    body = asked.json()
    assert body["answerable"] and body["question"] == question and body["language"] == "en"
    markers = {int(n) for n in re.findall(r"\[(\d+)\]", body["answer"])}
    by_n = {p["n"]: p for p in body["passages"]}
    assert markers == {1, 2} and markers <= set(by_n)
    cited = {c["n"]: c for c in body["citations"] if c["cited"]}
    assert set(cited) == markers
    assert all(cited[n]["quote_id"] == by_n[n]["passage_id"] for n in markers)
    # Every marker opens its passage.
    for n in markers:
        passage = web.client.get(f"/api/passages/{by_n[n]['passage_id']}").json()["passage"]
        assert passage["text"] == by_n[n]["text"]
    stored = web.client.get("/api/answers", params={"limit": 5}).json()
    assert [a["id"] for a in stored] == [body["answer_id"]]
    assert stored[0]["answer"] == body["answer"] and stored[0]["citations"] == body["citations"]
    assert web.client.get("/api/answers", params={"limit": 0}).status_code == 422

    bad = {"question": question, "recipe": "magic"}
    assert web.client.post("/api/ask", json=bad, headers=web.csrf()).status_code == 422
    blank = web.client.post("/api/ask", json={"question": "  "}, headers=web.csrf())
    assert blank.status_code == 422


def test_ask_says_502_when_the_model_fails(web: Web) -> None:
    web.llm.replies[answer_question.NAME] = ["this is not JSON"]
    failed = web.client.post("/api/ask", json={"question": "What is change?"}, headers=web.csrf())
    assert failed.status_code == 502
    assert "the LLM could not answer" in failed.json()["detail"]
    assert web.client.get("/api/answers").json() == []


def test_an_unusable_model_is_502_and_the_run_can_be_started_again(make_web: MakeWeb) -> None:
    web = make_web(MEDITATIONS, llm="nosuchprovider:model")
    path = f"/api/contents/{web.content_id()}/runs"
    for _ in range(2):  # a start that could not use the model leaves no run to block another
        failed = web.client.post(path, json={}, headers=web.csrf())
        assert failed.status_code == 502
        assert "the configured LLM cannot be used" in failed.json()["detail"]
        assert "no run was started" in failed.json()["detail"]
    assert web.client.get("/api/runs", params={"status": "all"}).json() == []
    asked = web.client.post("/api/ask", json={"question": "What is change?"}, headers=web.csrf())
    assert asked.status_code == 502
    assert web.services.store.answers() == []
    # The pages go through the same actions: a readable 502 page, not a server error.
    token = web.csrf()["X-CSRF-Token"]
    page = web.client.post(
        f"/sources/{web.content_id()}/extract", data={"csrf_token": token}, follow_redirects=False
    )
    assert page.status_code == 502 and "the configured LLM cannot be used" in page.text
    asked_page = web.client.post("/ask", data={"csrf_token": token, "question": "What is change?"})
    assert asked_page.status_code == 502
    assert web.services.store.answers() == []


def test_csrf_endpoint_and_app_without_injected_services(tmp_path: Path) -> None:
    """`create_app(settings)` opens (and closes) its own services in the lifespan."""
    settings = Settings(home=tmp_path / "home", **FAKE)  # type: ignore[arg-type]
    with TestClient(create_app(settings), base_url=BASE_URL) as client:
        token = client.get("/api/csrf").json()["csrf_token"]
        assert len(token) >= 32 and client.cookies.get("zg_session_80")
        assert client.get("/api/csrf").json()["csrf_token"] == token  # stable per browser
        assert client.get("/api/contents").json() == []


def test_search_and_ask_refuse_a_store_of_another_embedder(make_web: MakeWeb) -> None:
    """The CLI's rule, on the API and the pages: 503 with the same message, no LLM call, no
    answer stored."""
    web = make_web(MEDITATIONS, embeddings="hash:64")  # the notes were embedded with `hash`
    found = web.client.get("/api/search", params={"q": "universe"})
    assert found.status_code == 503
    assert "ZETTELGRAPH_EMBEDDINGS=hash" in found.json()["detail"]
    asked = web.client.post("/api/ask", json={"question": "universe?"}, headers=web.csrf())
    assert asked.status_code == 503
    page = web.client.get("/ask", params={"q": "universe"})
    assert page.status_code == 503 and "zettelgraph reindex" in page.text
    assert web.llm.calls == 0
    assert web.services.store.answers() == []
