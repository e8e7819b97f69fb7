"""CSRF tokens signed by the installation's secret and bound to the browser's session, the
Sec-Fetch-Site check, cookie names per port, and what happens to a bad secret file (issue 28,
item 3). Real SQLite store, the app through TestClient; the LLM is the fake provider."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from web.conftest import BASE_URL, FAKE, MEDITATIONS, MakeWeb, Web, cli
from zettelgraph.services.web_secret import SECRET_FILE, WebSecretError, web_secret
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app


def _abort(client: TestClient, run_id: str, token: str, **headers: str) -> int:
    """POST the run's abort form with `token`; the answer's status."""
    answer = client.post(
        f"/runs/{run_id}/abort",
        data={"csrf_token": token},
        headers=headers,
        follow_redirects=False,
    )
    return answer.status_code


def _status(web: Web, run_id: str) -> str:
    status: str = web.client.get(f"/api/runs/{run_id}").json()["status"]
    return status


def test_a_token_copied_into_another_session_is_refused(web: Web) -> None:
    run_id = web.start_run()["run_id"]
    mine = web.csrf()["X-CSRF-Token"]
    other = TestClient(web.client.app, base_url=BASE_URL)
    theirs = other.get("/api/csrf").json()["csrf_token"]
    assert theirs != mine  # each browser session has its own
    assert _abort(other, run_id, mine) == 403
    assert _status(web, run_id) == "awaiting_review"
    assert _abort(web.client, run_id, mine) == 303
    assert _status(web, run_id) == "aborted"


@pytest.mark.parametrize(
    "cookie", ["zg_csrf", "zg_csrf_80", "zg_session", "zg_session_80", "zg_token_80"]
)
def test_a_planted_cookie_repeated_in_the_form_is_refused(web: Web, cookie: str) -> None:
    """The issue's request: any 40 characters in a cookie and the same in the form."""
    run_id = web.start_run()["run_id"]
    planted = "T" * 40
    web.client.cookies.set(cookie, planted)
    assert _abort(web.client, run_id, planted) == 403
    assert _status(web, run_id) == "awaiting_review"


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_post_another_site_or_port_sent_is_refused(web: Web, site: str) -> None:
    """`same-site` is what a browser says for a page on another port of 127.0.0.1."""
    run_id = web.start_run()["run_id"]
    token = web.csrf()["X-CSRF-Token"]
    assert _abort(web.client, run_id, token, **{"Sec-Fetch-Site": site}) == 403
    assert _status(web, run_id) == "awaiting_review"
    assert _abort(web.client, run_id, token, **{"Sec-Fetch-Site": "same-origin"}) == 303


def test_tokens_stay_valid_after_a_restart_and_only_on_their_installation(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    assert cli(home, "ingest", str(MEDITATIONS)).exit_code == 0
    settings = Settings(home=home, **FAKE)  # type: ignore[arg-type]
    with TestClient(create_app(settings), base_url=BASE_URL) as before:
        token = before.get("/api/csrf").json()["csrf_token"]
        [content] = before.get("/api/contents").json()
        jar = before.cookies.jar
    # The same installation started again: the browser's page still posts.
    with TestClient(create_app(settings), base_url=BASE_URL) as after:
        after.cookies = jar  # type: ignore[assignment]
        started = after.post(
            f"/api/contents/{content['id']}/runs", json={}, headers={"X-CSRF-Token": token}
        )
        assert started.status_code == 200, started.text
    assert stat.S_IMODE((home / SECRET_FILE).stat().st_mode) == 0o600
    # Another installation (its own home) knows neither the session nor the token.
    elsewhere = Settings(home=tmp_path / "elsewhere", **FAKE)  # type: ignore[arg-type]
    with TestClient(create_app(elsewhere), base_url=BASE_URL) as other:
        other.cookies = jar  # type: ignore[assignment]
        refused = other.post("/api/ask", json={"question": "?"}, headers={"X-CSRF-Token": token})
        assert refused.status_code == 403


def test_two_apps_on_two_ports_keep_their_own_cookies(make_web: MakeWeb) -> None:
    """One browser (one cookie jar for 127.0.0.1) with two apps open: cookies are not kept
    per port, so one app's cookie used to replace the other's and its forms failed."""
    first, second = make_web(MEDITATIONS), make_web(MEDITATIONS)
    one = TestClient(first.client.app, base_url="http://127.0.0.1:8765")
    two = TestClient(second.client.app, base_url="http://127.0.0.1:8766")
    two.cookies = one.cookies.jar  # type: ignore[assignment]
    run_id = first.start_run()["run_id"]
    token = one.get("/api/csrf").json()["csrf_token"]
    two.get("/api/csrf")  # the second app's page, opened in between
    assert _abort(one, run_id, token) == 303
    assert _status(first, run_id) == "aborted"
    assert {"zg_session_8765", "zg_session_8766"} <= {c.name for c in one.cookies.jar}


def test_the_secret_file_is_made_once_and_a_broken_one_replaced(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home = tmp_path / "home"
    made = web_secret(home)
    path = home / SECRET_FILE
    assert web_secret(home) == made and stat.S_IMODE(path.stat().st_mode) == 0o600
    # Cut short, or edited: a new secret, and a warning naming the file.
    for broken in (b"", made.hex()[:20].encode(), b"\xff\xfe not hex"):
        path.write_bytes(broken)
        with caplog.at_level(logging.WARNING):
            renewed = web_secret(home)
        assert renewed != made and len(renewed) == 32
        assert f"{path} is not a secret zettelgraph wrote" in caplog.text
        assert web_secret(home) == renewed and stat.S_IMODE(path.stat().st_mode) == 0o600
    if os.name != "nt":  # readable by others: kept, made readable by the user only
        path.chmod(0o644)
        assert web_secret(home) == renewed
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_unreadable_secret_is_an_error_that_says_what_to_do(tmp_path: Path) -> None:
    """A folder where the file should be (unreadable whoever runs the test, root included):
    the app refuses to start, and overwrites nothing."""
    home = tmp_path / "home"
    (home / SECRET_FILE).mkdir(parents=True)
    (home / SECRET_FILE / "keep.txt").write_text("someone's", encoding="utf-8")
    settings = Settings(home=home, **FAKE)  # type: ignore[arg-type]
    with pytest.raises(WebSecretError, match=f"cannot read the web app's secret {home}"):
        create_app(settings)
    served = cli(home, "serve", "--port", "8799")
    assert served.exit_code == 2
    assert "cannot read the web app's secret" in served.stderr
    assert "delete it" in served.stderr
    assert (home / SECRET_FILE / "keep.txt").read_text(encoding="utf-8") == "someone's"
