"""Item-by-item review in the web app and the JSON API: per-item forms that work without
JavaScript, the running summary, errors at the item, and approving exactly what is kept."""

from __future__ import annotations

import re
from typing import Any

from .conftest import MEDITATIONS, MakeWeb, Web

ONE_QUOTE = MEDITATIONS  # three quotes, one concept each in the scripted replies


def concept(title: str, text: str, quote_id: str) -> dict[str, Any]:
    return {
        "title": title,
        "concept": text,
        "analysis": "",
        "summary_short": text,
        "source_quote_ids": [quote_id],
        "synonyms": [f"{title} (otro nombre)"],
    }


REPLIES: dict[str, list[Any]] = {
    "extract_concepts": [
        {
            "candidate_concepts": [
                concept("Preparar el día", "Conviene prever a los difíciles.", "q1"),
                concept("El universo es cambio", "Todo cambia; la vida es lo que pensamos.", "q2"),
                concept("Poco basta", "La felicidad está en la manera de pensar.", "q3"),
            ]
        }
    ],
    "self_critique": [
        {
            "failed_criteria": [],
            "issues": [],
            "overall_passes": True,
            "critique_summary": "Bien.",
            "improvement_suggestions": [],
        }
    ],
}


def started(make_web: MakeWeb) -> tuple[Web, str]:
    web = make_web(ONE_QUOTE)
    web.llm.replies = {k: list(v) for k, v in REPLIES.items()}
    run = web.start_run()
    return web, run["run_id"]


def token(page: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match
    return match.group(1)


def test_per_item_forms_decide_without_javascript(make_web: MakeWeb) -> None:
    web, run_id = started(make_web)
    page = web.client.get(f"/runs/{run_id}").text
    text = " ".join(re.sub("<[^>]+>", "", page).split())
    assert "0 kept, 0 dropped, 0 edited, 3 undecided" in text
    # Each concept's other names and where it first appears (issue 31, item 18).
    assert "Also called: Preparar el día (otro nombre)" in text
    assert "First appears: Book II, p. 11" in text
    form = {"csrf_token": token(page)}
    kept = web.client.post(
        f"/runs/{run_id}/items",
        data={**form, "item": "c1", "action": "keep"},
        follow_redirects=False,
    )
    # Back to the page, at the next item.
    assert kept.status_code == 303 and kept.headers["location"] == f"/runs/{run_id}#item-c2"
    web.client.post(f"/runs/{run_id}/items", data={**form, "item": "c2", "action": "drop"})
    edited = web.client.post(
        f"/runs/{run_id}/items",
        data={
            **form,
            "item": "c3",
            "action": "edit",
            "title": "Poco basta para vivir bien",
            "concept": "Una vida feliz pide poco.",
            "analysis": "",
        },
    )
    assert edited.status_code == 200
    text = " ".join(re.sub("<[^>]+>", " ", edited.text).split())
    assert "1 kept , 1 dropped , 1 edited" in text or "1 kept, 1 dropped, 1 edited" in text
    assert "The model's text" in edited.text
    # A decision that does not fit is shown at its item, and nothing is saved.
    bad = web.client.post(
        f"/runs/{run_id}/items", data={**form, "item": "c1", "action": "merge", "into": "c9"}
    )
    assert bad.status_code == 422
    assert "Not saved" in bad.text and "neither a concept of this run" in bad.text

    approved = web.client.post(f"/runs/{run_id}/approve", data=form)
    assert approved.status_code == 200
    titles = sorted(c.title for c in web.services.store.list_concepts())
    assert titles == ["Poco basta para vivir bien", "Preparar el día"]


def test_a_decision_without_the_token_is_refused(make_web: MakeWeb) -> None:
    web, run_id = started(make_web)
    refused = web.client.post(f"/runs/{run_id}/items", data={"item": "c1", "action": "drop"})
    assert refused.status_code == 403
    assert web.state.runs.view(run_id).report["review"]["decisions"] == 0  # type: ignore[index]


def test_api_items_then_approve(make_web: MakeWeb) -> None:
    web, run_id = started(make_web)
    headers = web.csrf()
    body = {
        "decisions": [
            {"item": "c1", "action": "drop"},
            {"item": "c2", "action": "merge", "into": "c3"},
        ]
    }
    done = web.client.post(f"/api/runs/{run_id}/items", json=body, headers=headers)
    assert done.status_code == 200, done.text
    summary = done.json()["report"]["review"]
    assert summary["counts"]["dropped"] == 1 and summary["counts"]["merged"] == 1
    assert summary["writes"]["concepts"] == 1
    bad = web.client.post(
        f"/api/runs/{run_id}/items",
        json={"decisions": [{"item": "c3", "action": "retype", "type": "NOPE"}]},
        headers=headers,
    )
    assert (
        bad.status_code == 422 and "not a concept" in bad.json()["detail"]
    ) or "c3" in bad.json()["detail"]
    unknown = web.client.post(
        f"/api/runs/{run_id}/items",
        json={"decisions": [{"item": "c1", "action": "fly"}]},
        headers=headers,
    )
    assert unknown.status_code == 422
    approved = web.client.post(
        f"/api/runs/{run_id}/decision", json={"action": "approve"}, headers=headers
    )
    assert approved.status_code == 200
    [only] = web.services.store.list_concepts()
    assert only.title == "Poco basta"
    assert len(only.provenance["quotes"]) == 2  # c2's quote came with the merge
    again = web.client.post(f"/api/runs/{run_id}/items", json=body, headers=headers)
    assert again.status_code == 409
