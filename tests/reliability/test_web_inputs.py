"""Hostile requests to the web app: any bytes in a token, a cookie or a Host header get a 4xx
answer, never a server error, and the bind rules refuse a token too short to protect a graph
served beyond this machine."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from web.conftest import BASE_URL, MEDITATIONS, MakeWeb
from zettelgraph.web.security import MIN_TOKEN_LENGTH, WebConfigError, check_bind

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
        client.get("/api/runs", headers={"Cookie": b"zg_token=" + value}),
        client.get("/api/runs", params={"token": text}),
        client.get("/api/runs", params={"token": value.decode("utf-8", "replace")}),
    ]
    assert [a.status_code for a in answers] == [401, 401, 401, 401]


@pytest.mark.parametrize("value", ODD)
def test_odd_bytes_in_a_csrf_token_are_refused(make_web: MakeWeb, value: bytes) -> None:
    web = make_web(MEDITATIONS)
    run_id = web.start_run()["run_id"]
    web.csrf()  # the CSRF cookie is set; the header below does not match it
    url = f"/api/runs/{run_id}/decision"
    header = web.client.post(url, json={"action": "abort"}, headers={"X-CSRF-Token": value})
    form = web.client.post(
        f"/runs/{run_id}/abort", data={"csrf_token": value.decode("utf-8", "replace")}
    )
    assert (header.status_code, form.status_code) == (403, 403)
    assert web.client.get(f"/api/runs/{run_id}").json()["status"] == "awaiting_review"


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
