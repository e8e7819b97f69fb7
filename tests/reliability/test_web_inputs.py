"""Hostile requests to the web app: any bytes in a token, a cookie or a Host header get a 4xx
answer, never a server error, and the bind rules refuse a token too short to protect a graph
served beyond this machine."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from link_graph import make_graph
from web.conftest import BASE_URL, MEDITATIONS, MakeWeb
from zettelgraph.services.http_security import MIN_TOKEN_LENGTH, WebConfigError, check_bind

TOKEN = "a-long-random-test-token-0123456789"
# What a client may put in a header: UTF-8 beyond ASCII, Latin-1, control bytes.
ODD = [b"\xc3\xb1and\xc3\xba", b"\xff\xfe", "contraseña".encode("latin-1"), b"\x01\x7f"]


@pytest.mark.parametrize("value", ODD)
def test_odd_bytes_in_any_token_are_a_wrong_token(make_web: MakeWeb, value: bytes) -> None:
    web = make_web(MEDITATIONS, web_token=SecretStr(TOKEN))
    client = TestClient(web.client.app, base_url=BASE_URL)
    text = value.decode("latin-1")
    answers = [
        client.get("/api/runs", headers={"Authorization": b"Bearer " + value}),
        client.get("/api/runs", headers={"Cookie": b"zg_token_80=" + value}),
        client.get("/api/runs", params={"token": text}),
        client.get("/api/runs", params={"token": value.decode("utf-8", "replace")}),
    ]
    assert [a.status_code for a in answers] == [401, 401, 401, 401]


@pytest.mark.parametrize("value", ODD)
def test_odd_bytes_in_a_csrf_token_are_refused(make_web: MakeWeb, value: bytes) -> None:
    web = make_web(MEDITATIONS)
    run_id = web.start_run()["run_id"]
    web.csrf()  # the session cookie is set; the token below is not its token
    url = f"/api/runs/{run_id}/decision"
    header = web.client.post(url, json={"action": "abort"}, headers={"X-CSRF-Token": value})
    form = web.client.post(
        f"/runs/{run_id}/abort", data={"csrf_token": value.decode("utf-8", "replace")}
    )
    assert (header.status_code, form.status_code) == (403, 403)
    assert web.client.get(f"/api/runs/{run_id}").json()["status"] == "awaiting_review"


def test_a_planted_cookie_or_a_page_on_another_port_links_nothing(make_web: MakeWeb) -> None:
    """Issue 28, item 3: `curl -X POST http://127.0.0.1:8765/concepts/ID/links -H 'Cookie:
    zg_csrf=TTTT...(40)' -d 'target=ID2&relation=RELATES_TO&why=x&csrf_token=TTTT...(40)'`
    answered 303 and made the link. Planted in any cookie the app reads, refused; the app's
    own token sent by a page on another port (a browser says `Sec-Fetch-Site: same-site`)
    or another site, refused."""
    web = make_web()
    concepts = make_graph(web.services)
    a, b = concepts["deliberate"], concepts["exercise"]
    client = TestClient(web.client.app, base_url="http://127.0.0.1:8765")
    planted = "T" * 40

    def link(token: str, **headers: str) -> int:
        form = {"target": b.title, "relation": "RELATES_TO", "why": "x", "csrf_token": token}
        answer = client.post(
            f"/concepts/{a.id}/links", data=form, headers=headers, follow_redirects=False
        )
        return answer.status_code

    for cookie in ("zg_csrf", "zg_csrf_8765", "zg_session", "zg_session_8765"):
        assert link(planted, Cookie=f"{cookie}={planted}") == 403, cookie
    token = client.get("/api/csrf").json()["csrf_token"]
    for site in ("same-site", "cross-site"):
        assert link(token, **{"Sec-Fetch-Site": site}) == 403, site
    assert [r for r in web.services.store.relations(a.id) if r.target_id == b.id] == []
    assert link(token, **{"Sec-Fetch-Site": "same-origin"}) == 303  # the app's own page


@pytest.mark.parametrize(
    "host",
    [
        "[::1].evil",
        "[::1]evil",
        "127.0.0.1.evil.example",
        "localhost.evil.example",
        "localhost@evil.example",
        "localhost:8765:1",
        "localhost/evil",
        "evil.example#localhost",
        "",
    ],
)
def test_a_host_that_only_looks_like_loopback_is_refused(make_web: MakeWeb, host: str) -> None:
    web = make_web(MEDITATIONS)
    assert web.client.get("/api/runs", headers={"Host": host}).status_code == 400


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1:8765", "[::1]", "[::1]:8765"])
def test_loopback_hosts_are_served(make_web: MakeWeb, host: str) -> None:
    web = make_web(MEDITATIONS)
    assert web.client.get("/api/runs", headers={"Host": host}).status_code == 200


def test_non_ascii_host_is_refused(make_web: MakeWeb) -> None:
    web = make_web(MEDITATIONS)
    answer = web.client.get("/api/runs", headers={"Host": "locálhost".encode()})
    assert answer.status_code == 400


@pytest.mark.parametrize("token", ["x", "short-token", "0123456789abcde"])
def test_a_short_token_is_refused_beyond_loopback(token: str) -> None:
    assert len(token) < MIN_TOKEN_LENGTH
    with pytest.raises(WebConfigError, match=f"{len(token)}-character"):
        check_bind("0.0.0.0", token)
    check_bind("127.0.0.1", token)  # on this machine only, any token (or none) will do
    check_bind("0.0.0.0", "0123456789abcdefghij"[:MIN_TOKEN_LENGTH])
    with pytest.raises(WebConfigError, match="weak"):
        check_bind("0.0.0.0", "k" * MIN_TOKEN_LENGTH)  # long enough, but one character
